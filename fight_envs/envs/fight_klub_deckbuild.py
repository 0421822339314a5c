"""
# Fight Klub deck building (`fight_envs.fight_klub_deckbuild_v0`)

| | |
| --- | --- |
| Import | `from fight_envs import fight_klub_deckbuild_v0` |
| Actions | Discrete(C + N): choose character i (0..C-1), or add card j of the pool (C + j; Fight cards, then support cards, in ``cards.json`` order) |
| Parallel API | no: one builder |
| Agents | `builder` |
| Observation | dict: `observation` Box(0, 1, (C + N + 6,), float32), `action_mask` Box(0, 1, (C + N,), int8) |
| Episode length | 40 decisions: the character, then 12 Fight cards and 27 Draw-deck cards in any order |
| Rules | `seeds/fight_klub.md` sections 2 and 12 |

A constructed-format companion of ``fight_klub_v0`` (gym-locm has draft and constructed envs
beside its battle env): the agent builds one legal deck card by card from the card pool, then
the deck plays ``games`` battles of Fight Klub against decks of a deck pool, and the episode's
only reward is the deck's win rate there (draws and truncations count half).

**Action mask**: exactly the legal choices. Before the character: the characters whose deck can
be completed. After: every card that keeps the deck legal: the character's affiliation,
signature cards only of that character, at most 3 copies of a common or uncommon card and 1 of
a rare, at most 3 gold-icon Fight cards, at most 12 Fight and 27 Draw-deck cards, and a card with
a coloured cost only once the deck makes that colour (the character's Energy, a card already
chosen). Every completed deck passes ``cards.validate_deck``.

**Observation**: character one-hot (C); copies chosen of each pool card / 3 (N); Fight cards / 12,
Draw-deck cards / 27, gold-icon cards / 3; colours the deck makes (blue, green, yellow).

**Rewards**: at the last card, the win rate of the deck in ``games`` battles (0..1); 0 before.
``info`` (same keys every step): ``win_rate`` (-1 until the battles are played), ``fight_cards``,
``draw_cards``.

**Battles**: game k seats the built deck at seat k mod 2 against opponent deck k of the pool,
both seats piloted by ``pilot``, each battle seeded from the reset seed; so a seed and a deck
give one reward.

**Options** (constructor): ``character=None`` (None: the first step chooses it; else a
character id, and the first step is a card); ``deck_pool=None`` (the preconstructed decks of
the character's affiliation's opponents: all preconstructed decks), a list of deck names,
deck-list dicts or paths, or ``"random"`` (each battle against a fresh random legal deck from
``fight_envs.games.fight_klub.deckbuild.random_deck``); ``games=4``; ``pilot="heuristic"``
(``"play_anything"``, ``"random"``, or any agent object with ``act(observation, mask)``);
``max_turns``; ``cards``, ``deck_lists`` (card data as for ``fight_klub_v0``);
``mask_in_info=False``; ``render_mode=None|"ansi"``.

**Illegal actions**: ``raw_env`` raises ``IllegalActionError`` naming the allowed actions;
``env()`` ends the episode with -1 and a warning (PettingZoo's wrapper).

Version history: v0: first release.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from pettingzoo import AECEnv

from fight_envs.core.errors import ConfigError, IllegalActionError, check_options
from fight_envs.core.seeding import make_rng
from fight_envs.envs.base import AECMixin, check_flag, dict_spaces, wrap_aec
from fight_envs.games.fight_klub.cards import (
    COLORS,
    DEFAULT_POOL,
    DRAW_SIZE,
    FIGHT_SIZE,
    GOLD_LIMIT,
    CardPool,
    DeckList,
    load_deck,
    load_pool,
)
from fight_envs.games.fight_klub.deckbuild import DeckBuilder, random_deck
from fight_envs.games.fight_klub.observe import encode
from fight_envs.games.fight_klub.rules import MAX_TURNS, FightKlubConfig, FightKlubGame

ENV_NAME = "fight_klub_deckbuild_v0"
ILLEGAL_REWARD = -1.0
PILOTS = ("heuristic", "play_anything", "random")

ENV_OPTIONS: dict[str, Any] = {
    "character": None,
    "deck_pool": None,
    "games": 4,
    "pilot": "heuristic",
    "max_turns": MAX_TURNS,
    "cards": None,
    "deck_lists": None,
    "mask_in_info": False,
    "render_mode": None,
}
"""Constructor options and their defaults (listed by the suite's registry)."""


def _make_pilot(pilot: Any, seed: int) -> Any:
    if isinstance(pilot, str):
        # the baselines live in fight_envs.agents, which stands on fight_envs: imported when a battle is played
        from fight_envs.agents.registry import make_agent

        return make_agent(pilot, game="fight_klub", seed=seed)
    return pilot


class raw_env(AECMixin, AECEnv):
    """Fight Klub deck building (one agent, AEC). See the module docstring for the full card."""

    metadata = {"name": ENV_NAME, "render_modes": ["ansi"], "is_parallelizable": False, "render_fps": 1}

    def __init__(self, **options: Any) -> None:
        super().__init__()
        check_options(options, ENV_OPTIONS, f"{ENV_NAME} option")
        opts = {**ENV_OPTIONS, **options}
        self.card_paths = (opts["cards"], opts["deck_lists"])
        self.pool: CardPool = DEFAULT_POOL if self.card_paths == (None, None) else load_pool(*self.card_paths)
        self.characters = list(self.pool.characters)
        self.cards = list(self.pool.fight_ids + self.pool.support_ids)
        if opts["character"] is not None and opts["character"] not in self.pool.characters:
            raise ConfigError(f"option 'character' must be None or a character id ({', '.join(self.characters)}), got {opts['character']!r}")
        if opts["character"] is not None and opts["character"] not in DeckBuilder(self.pool).legal_characters():
            raise ConfigError(f"character {opts['character']!r} cannot make a legal deck from this card pool")
        self.character = opts["character"]
        games = opts["games"]
        if isinstance(games, bool) or not isinstance(games, (int, np.integer)) or games < 1:
            raise ConfigError(f"option 'games' must be an integer >= 1, got {games!r}")
        self.games = int(games)
        pool_opt = opts["deck_pool"]
        self.random_pool = isinstance(pool_opt, str) and pool_opt == "random"
        if self.random_pool:
            self.deck_pool: list[DeckList] = []
        else:
            names = list(self.pool.decks) if pool_opt is None else pool_opt
            if not isinstance(names, (list, tuple)) or not names:
                raise ConfigError(f"option 'deck_pool' must be None, 'random' or a non-empty list of decks, got {pool_opt!r}")
            self.deck_pool = [load_deck(d, self.pool) for d in names]
        pilot = opts["pilot"]
        if isinstance(pilot, str):
            if pilot not in PILOTS:
                raise ConfigError(f"option 'pilot' must be one of {', '.join(PILOTS)} or an agent with act(), got {pilot!r}")
        elif not callable(getattr(pilot, "act", None)):
            raise ConfigError(f"option 'pilot' must be one of {', '.join(PILOTS)} or an agent with act(), got {pilot!r}")
        self.pilot = pilot
        self.config = FightKlubConfig(max_turns=opts["max_turns"])
        self.mask_in_info = check_flag("option 'mask_in_info'", opts["mask_in_info"])
        if opts["render_mode"] not in (None, "ansi"):
            raise ConfigError(f"render_mode must be None or 'ansi', got {opts['render_mode']!r}")
        self.render_mode = opts["render_mode"]
        self.possible_agents = ["builder"]
        self.num_actions = len(self.characters) + len(self.cards)
        self.obs_size = len(self.characters) + len(self.cards) + 6
        self.observation_spaces, self.action_spaces = dict_spaces(self.possible_agents, 0.0, 1.0, self.obs_size, self.num_actions)
        self.max_episode_steps = 1 + FIGHT_SIZE + DRAW_SIZE
        self.builder: DeckBuilder | None = None
        self.win_rate = -1.0
        self.seed_used: int | None = None

    # ------------------------------------------------------------------ episode
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        check_options(options or {}, (), "reset option", warn_only=True)
        rng, seed_used = make_rng(seed)
        self.seed_used, self.rng = seed_used, rng
        self.builder = DeckBuilder(self.pool, self.character, name="built")
        self.win_rate = -1.0
        self._start_episode()
        self._sync()

    def _legal(self) -> list[int]:
        b = self.builder
        assert b is not None
        if b.complete():
            return []
        if b.character is None:
            return [self.characters.index(c) for c in b.legal_characters()]
        index = {cid: i for i, cid in enumerate(self.cards)}
        return [len(self.characters) + index[c] for c in b.legal_cards()]

    def _mask(self, agent: str) -> np.ndarray:
        mask = np.zeros(self.num_actions, dtype=np.int8)
        mask[self._legal()] = 1
        return mask

    def _sync(self) -> None:
        self.agent_selection = "builder"
        b = self.builder
        assert b is not None
        info: dict[str, Any] = {"win_rate": self.win_rate, "fight_cards": b.fight_count, "draw_cards": b.draw_count}
        if self.mask_in_info:
            info["action_mask"] = self._mask("builder")
        self.infos = {a: dict(info) for a in self.agents}

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        b = self.builder
        assert b is not None
        v = np.zeros(self.obs_size, dtype=np.float32)
        nc = len(self.characters)
        if b.character is not None:
            v[self.characters.index(b.character)] = 1
        for i, cid in enumerate(self.cards):
            v[nc + i] = b.counts[cid] / 3.0
        at = nc + len(self.cards)
        v[at] = b.fight_count / FIGHT_SIZE
        v[at + 1] = b.draw_count / DRAW_SIZE
        v[at + 2] = b.gold_count / GOLD_LIMIT
        for c in b.sources:
            v[at + 3 + c] = 1
        return {"observation": v, "action_mask": self._mask(agent)}

    def step(self, action: Any) -> None:
        if self._dead_step(action):
            return
        if isinstance(action, np.ndarray) and action.ndim == 0 and np.issubdtype(action.dtype, np.integer):
            action = int(action)
        legal = self._legal()
        if isinstance(action, bool) or not isinstance(action, (int, np.integer)) or int(action) not in legal:
            raise IllegalActionError(f"action {action!r} is not legal now; legal: {legal}")
        b = self.builder
        assert b is not None
        a = int(action)
        if a < len(self.characters):
            b.choose_character(self.characters[a])
        else:
            b.add(self.cards[a - len(self.characters)])
        self._cumulative_rewards["builder"] = 0.0
        self.rewards = {"builder": 0.0}
        if b.complete():
            self.win_rate = self.battle(b.deck())
            self.rewards = {"builder": self.win_rate}
            self.terminations = {"builder": True}
        self._sync()
        self._accumulate_rewards()

    # ------------------------------------------------------------------ battles
    def opponents(self, rng: np.random.Generator) -> list[DeckList]:
        """The ``games`` opponent decks of one evaluation."""
        if self.random_pool:
            return [random_deck(self.pool, rng, name=f"random_{k}") for k in range(self.games)]
        return [self.deck_pool[k % len(self.deck_pool)] for k in range(self.games)]

    def battle(self, deck: DeckList, seed: int | None = None) -> float:
        """The win rate of ``deck`` in ``games`` battles against the deck pool (draws count half)."""
        rng = np.random.default_rng(self.seed_used if seed is None else seed)
        pilot = _make_pilot(self.pilot, int(rng.integers(2**31)))
        credit = 0.0
        for k, other in enumerate(self.opponents(rng)):
            me = k % 2
            decks = [deck, other] if me == 0 else [other, deck]
            g = FightKlubGame(self.pool, decks, self.config)
            g.new_game(np.random.default_rng(int(rng.integers(2**63))))
            while g.pending is not None:
                seat = g.pending.seat
                legal = g.pending.legal
                action = legal[0] if len(legal) == 1 else int(pilot.act(encode(g, seat), g.legal_action_mask(seat)))
                g.apply_action(seat, action)
            if g.game_over and g.winner is not None:
                credit += float(g.winner == me)
            else:
                credit += 0.5
        return credit / self.games

    def render(self) -> str | None:
        b = self.builder
        assert b is not None
        text = (f"character {b.character}; Fight {b.fight_count}/{FIGHT_SIZE}, Draw {b.draw_count}/{DRAW_SIZE}, "
                f"gold {b.gold_count}, colours {', '.join(COLORS[c] for c in sorted(b.sources))}; "
                + ", ".join(f"{c} x{n}" for c, n in b.counts.items()))
        if self.render_mode == "ansi":
            return text
        return None

    def built_deck(self) -> DeckList:
        """The deck built in this episode (once complete)."""
        assert self.builder is not None
        return self.builder.deck()


def env(**options: Any) -> AECEnv:
    """The AEC env with PettingZoo's standard wrappers (illegal move: -1 and the episode ends)."""
    return wrap_aec(raw_env(**options), ILLEGAL_REWARD)
