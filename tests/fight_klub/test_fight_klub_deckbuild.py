"""The deck-building env: PettingZoo conformance, a mask that enforces every construction rule, rewards."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from fight_envs import fight_klub_deckbuild_v0
from fight_envs.core.errors import ConfigError, IllegalActionError
from fight_envs.games.fight_klub.cards import COPY_LIMIT, DEFAULT_POOL, GOLD_LIMIT, colour_needs, validate_deck
from fight_envs.games.fight_klub.deckbuild import DeckBuilder, random_deck
from fight_envs.registry import make, spec


def test_pettingzoo_api_and_seed_tests() -> None:
    from pettingzoo.test import api_test, seed_test

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r"unknown reset option")
        warnings.filterwarnings("ignore", category=DeprecationWarning)
        api_test(fight_klub_deckbuild_v0.env(games=1, pilot="play_anything"), num_cycles=100)
        seed_test(lambda **kw: fight_klub_deckbuild_v0.env(games=1, pilot="play_anything", **kw), num_cycles=100)


def test_registered() -> None:
    assert spec("fight_klub_deckbuild_v0").options["games"] == 4
    env = make("fight_klub_deckbuild_v0", api="raw", games=1, pilot="random")
    env.reset(seed=0)
    assert env.agents == ["builder"]


def _build(env, rng: np.random.Generator) -> list[np.ndarray]:
    masks = []
    while not env.terminations["builder"]:
        mask = env.observe("builder")["action_mask"]
        masks.append(mask)
        env.step(int(rng.choice(np.flatnonzero(mask))))
    return masks


@pytest.mark.parametrize("seed", range(6))
def test_every_random_build_is_a_legal_deck_and_the_mask_enforces_the_rules(seed: int) -> None:
    env = fight_klub_deckbuild_v0.raw_env(games=1, pilot="play_anything")
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    b = env.builder
    steps = 0
    while not env.terminations["builder"]:
        mask = env.observe("builder")["action_mask"]
        legal = set(np.flatnonzero(mask))
        assert legal, "the build got stuck"
        if b.character is not None:
            ch = DEFAULT_POOL.characters[b.character]
            nc = len(env.characters)
            for j, cid in enumerate(env.cards):
                card = b.card(cid)
                allowed = nc + j in legal
                # every rule that forbids the card shows in the mask
                if card.affiliation != ch.affiliation or card.signature not in (None, ch.id):
                    assert not allowed, cid
                if b.counts[cid] >= COPY_LIMIT[card.rarity]:
                    assert not allowed, cid
                if cid in DEFAULT_POOL.fight and DEFAULT_POOL.fight[cid].gold and b.gold_count >= GOLD_LIMIT:
                    assert not allowed, cid
                if cid in DEFAULT_POOL.fight and b.fight_count >= 12 or cid in DEFAULT_POOL.support and b.draw_count >= 27:
                    assert not allowed, cid
                if any(c not in b.sources for c, _ in colour_needs(cid, DEFAULT_POOL)):
                    assert not allowed, cid
        env.step(int(rng.choice(sorted(legal))))
        steps += 1
    assert steps == 40
    validate_deck(env.built_deck(), DEFAULT_POOL)
    assert 0.0 <= env.rewards["builder"] <= 1.0 and env.infos["builder"]["win_rate"] == env.rewards["builder"]


def test_fixed_character_random_pool_and_configurable_games() -> None:
    env = fight_klub_deckbuild_v0.raw_env(character="grin", deck_pool="random", games=2, pilot="play_anything")
    env.reset(seed=3)
    assert env.observe("builder")["observation"][env.characters.index("grin")] == 1
    _build(env, np.random.default_rng(3))
    assert env.built_deck().character == "grin"
    assert env.rewards["builder"] in (0.0, 0.25, 0.5, 0.75, 1.0)
    a = env.battle(env.built_deck(), seed=1)
    assert a == env.battle(env.built_deck(), seed=1)  # a seed and a deck give one reward


def test_random_deck_sampler_is_legal_and_seeded() -> None:
    for s in range(20):
        d = random_deck(DEFAULT_POOL, np.random.default_rng(s))
        validate_deck(d, DEFAULT_POOL)
    assert random_deck(DEFAULT_POOL, np.random.default_rng(5)) == random_deck(DEFAULT_POOL, np.random.default_rng(5))
    chars = {random_deck(DEFAULT_POOL, np.random.default_rng(s)).character for s in range(30)}
    assert len(chars) >= 4


def test_battle_env_accepts_random_deck_pool() -> None:
    from fight_envs import fight_klub_v0

    env = fight_klub_v0.raw_env(deck_pool="random")
    env.reset(seed=2)
    decks = [d.name for d in env.game.decks]
    for d in env.game.decks:
        validate_deck(d, DEFAULT_POOL)
    env.reset(seed=2)
    assert [d.name for d in env.game.decks] == decks and env.game.decks[0].fight == env.game.decks[0].fight


def test_bad_options_and_illegal_actions() -> None:
    for bad in ({"games": 0}, {"games": True}, {"character": "nobody"}, {"deck_pool": []}, {"deck_pool": "all"},
                {"pilot": "genius"}, {"mask_in_info": 1}, {"speed": 3}):
        with pytest.raises(ConfigError):
            fight_klub_deckbuild_v0.raw_env(**bad)
    env = fight_klub_deckbuild_v0.raw_env(games=1)
    env.reset(seed=0)
    illegal = int(np.flatnonzero(env.observe("builder")["action_mask"] == 0)[0])
    with pytest.raises(IllegalActionError, match="not legal"):
        env.step(illegal)
    env.step(np.array(int(np.flatnonzero(env.observe("builder")["action_mask"])[0])))  # 0-d arrays accepted
    b = DeckBuilder(DEFAULT_POOL)
    with pytest.raises(ConfigError, match="not complete"):
        b.deck()
