"""Deck building for Fight Klub: a legal deck chosen card by card, and a random legal-deck sampler.

Owns :class:`DeckBuilder`, which knows at every step which characters and cards may be added
so that the deck stays legal *and can still be completed*: the construction rules of
``cards.validate_deck`` (affiliation, signature cards, copies by rarity, gold icons, Fight stack
and Draw deck sizes, payable colours) become a mask. A card with a coloured cost is allowed once
the deck makes that colour (its character, or a card already chosen), so every completed deck
passes ``validate_deck``. No RL imports; the env is ``fight_envs.envs.fight_klub_deckbuild``.
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from fight_envs.core.errors import ConfigError
from fight_envs.games.fight_klub.cards import (
    COPY_LIMIT,
    DRAW_SIZE,
    FIGHT_SIZE,
    GOLD_LIMIT,
    CardPool,
    DeckList,
    card_sources,
    character_sources,
    colour_needs,
    validate_deck,
)


class DeckBuilder:
    """A deck under construction: first a character, then cards one at a time (``add``)."""

    def __init__(self, pool: CardPool, character: str | None = None, name: str = "built") -> None:
        self.pool = pool
        self.name = name
        self.card_ids: tuple[str, ...] = pool.fight_ids + pool.support_ids
        self.character: str | None = None
        self.counts: Counter[str] = Counter()
        self.sources: set[int] = set()
        self._needs = {cid: {c for c, _ in colour_needs(cid, pool)} for cid in self.card_ids}
        self._makes = {cid: card_sources(cid, pool) for cid in self.card_ids}
        if character is not None:
            self.choose_character(character)

    # ------------------------------------------------------------------ state
    @property
    def fight_count(self) -> int:
        return sum(n for cid, n in self.counts.items() if cid in self.pool.fight)

    @property
    def draw_count(self) -> int:
        return sum(n for cid, n in self.counts.items() if cid in self.pool.support)

    @property
    def gold_count(self) -> int:
        return sum(n for cid, n in self.counts.items() if cid in self.pool.fight and self.pool.fight[cid].gold)

    def complete(self) -> bool:
        return self.character is not None and self.fight_count == FIGHT_SIZE and self.draw_count == DRAW_SIZE

    def card(self, cid: str):  # type: ignore[no-untyped-def]
        return self.pool.fight[cid] if cid in self.pool.fight else self.pool.support[cid]

    # ------------------------------------------------------------------ rules
    def _allowed(self, cid: str, character: str, counts: Counter[str], sources: set[int]) -> bool:
        """The per-card rules: affiliation, signature, copies, payable colours (not sizes or gold)."""
        card = self.card(cid)
        ch = self.pool.characters[character]
        return (card.affiliation == ch.affiliation and card.signature in (None, character)
                and counts[cid] < COPY_LIMIT[card.rarity] and self._needs[cid] <= sources)

    def _completable(self, character: str, counts: Counter[str], sources: set[int]) -> bool:
        """Whether the rest of the deck can still be filled legally from what is left."""
        fight_left = FIGHT_SIZE - sum(n for c, n in counts.items() if c in self.pool.fight)
        draw_left = DRAW_SIZE - sum(n for c, n in counts.items() if c in self.pool.support)
        if fight_left < 0 or draw_left < 0:
            return False
        gold_left = GOLD_LIMIT - sum(n for c, n in counts.items() if c in self.pool.fight and self.pool.fight[c].gold)
        if gold_left < 0:
            return False
        plain = gold = draw = 0
        for cid in self.card_ids:
            if not self._allowed(cid, character, counts, sources):
                continue
            room = COPY_LIMIT[self.card(cid).rarity] - counts[cid]
            if cid in self.pool.support:
                draw += room
            elif self.pool.fight[cid].gold:
                gold += room
            else:
                plain += room
        return plain + min(gold, gold_left) >= fight_left and draw >= draw_left

    def legal_characters(self) -> list[str]:
        if self.character is not None:
            return []
        return [c for c in self.pool.characters
                if self._completable(c, Counter(), character_sources(self.pool.characters[c]))]

    def legal_cards(self) -> list[str]:
        """The cards that may be added now, the deck staying legal and completable.

        Completable is kept without testing each card: a character is offered only when its deck
        can be completed (``_completable``), and adding any allowed card then uses one free copy and
        one free slot of the same kind (for a gold card, one of the gold allowance too) while its
        colours can only open more cards, so the deck stays completable.
        """
        if self.character is None:
            return []
        out = []
        fights, draws, gold = self.fight_count, self.draw_count, self.gold_count
        for cid in self.card_ids:
            if not self._allowed(cid, self.character, self.counts, self.sources):
                continue
            if cid in self.pool.fight:
                if fights >= FIGHT_SIZE or (self.pool.fight[cid].gold and gold >= GOLD_LIMIT):
                    continue
            elif draws >= DRAW_SIZE:
                continue
            out.append(cid)
        return out

    # ------------------------------------------------------------------ moves
    def choose_character(self, character: str) -> None:
        if character not in self.legal_characters():
            raise ConfigError(f"character {character!r} cannot start a deck now; allowed: {', '.join(self.legal_characters()) or 'none'}")
        self.character = character
        self.sources = character_sources(self.pool.characters[character])

    def add(self, cid: str) -> None:
        if cid not in self.legal_cards():
            raise ConfigError(f"card {cid!r} cannot be added now (a construction rule, or the deck could not be completed)")
        self.counts[cid] += 1
        self.sources |= self._makes[cid]

    def deck(self) -> DeckList:
        """The finished deck (validated: every completed build is legal)."""
        if not self.complete():
            raise ConfigError(f"the deck is not complete: {self.fight_count}/{FIGHT_SIZE} Fight cards, "
                              f"{self.draw_count}/{DRAW_SIZE} Draw-deck cards")
        order = {cid: i for i, cid in enumerate(self.card_ids)}
        ids = sorted(self.counts, key=order.__getitem__)
        deck = DeckList(name=self.name, character=self.character,  # type: ignore[arg-type]
                        fight=tuple((c, self.counts[c]) for c in ids if c in self.pool.fight),
                        draw=tuple((c, self.counts[c]) for c in ids if c in self.pool.support))
        validate_deck(deck, self.pool)
        return deck


def random_deck(pool: CardPool, rng: np.random.Generator, character: str | None = None, name: str = "random") -> DeckList:
    """A uniformly stepped random legal deck: a random character (unless given), then random legal cards."""
    b = DeckBuilder(pool, name=name)
    chars = b.legal_characters()
    if not chars:
        raise ConfigError("no character of this card pool can make a legal deck")
    b.choose_character(character if character is not None else chars[int(rng.integers(len(chars)))])
    while not b.complete():
        legal = b.legal_cards()
        b.add(legal[int(rng.integers(len(legal)))])
    return b.deck()
