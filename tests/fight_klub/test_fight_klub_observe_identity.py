"""The fast observation encoder gives exactly what encoding from scratch gives (issue 15's speed work).

``encode`` keeps, per game, one buffer per seat and rewrites only changed blocks; it also keeps
what both seats' encodings read alike (the skirmish totals on each fight slot, the discard piles'
counts) and the pile sums per multiset. ``encode_fresh`` writes every block and computes the
totals afresh, so a kept value that went stale shows up as a difference here.
"""

from __future__ import annotations

import dataclasses
import pickle

import numpy as np
import pytest

from fight_envs.games.fight_klub import observe
from fight_envs.games.fight_klub.cards import DEFAULT_POOL
from fight_envs.games.fight_klub.observe import OBS_HIGH, OBS_SLICES, encode, encode_fresh
from fight_envs.games.fight_klub.rules import FightKlubConfig, FightKlubGame, FightSlot


def _bits(x: np.ndarray) -> np.ndarray:
    return x.view(np.uint32)  # compares -0.0 and 0.0 (and NaNs) as the bytes a user hashes


def _game(seed: int, **config: object) -> FightKlubGame:
    decks = list(DEFAULT_POOL.decks.values())
    g = FightKlubGame(DEFAULT_POOL, [decks[seed % len(decks)], decks[(seed * 5 + 1) % len(decks)]], FightKlubConfig(**config))
    g.new_game(np.random.default_rng(seed))
    return g


@pytest.mark.parametrize("config", [{}, {"auto": frozenset()}, {"ask_moot_orders": True}], ids=["default", "all-asked", "moot-asked"])
def test_kept_encoding_equals_fresh_at_irregular_rates(config: dict) -> None:
    """Each seat encoded at its own irregular rate (one seat often left out for many steps, so its
    buffer and the shared totals see many changes at once), bit for bit equal to encode_fresh."""
    for seed in range(6):
        g = _game(seed, **config)
        rng = np.random.default_rng(100 + seed)
        rate = (0.9, 0.15) if seed % 2 else (0.3, 0.7)
        while True:
            for seat in (0, 1):
                if rng.random() < rate[seat] or g.pending is None:
                    kept = encode(g, seat)
                    assert np.array_equal(_bits(kept), _bits(encode_fresh(g, seat))), (seed, seat, len(g.actions))
            if g.pending is None:
                break
            legal = g.pending.legal
            g.apply_action(g.pending.seat, legal[int(rng.integers(len(legal)))])


def test_clones_and_determinizations_encode_as_fresh() -> None:
    """A clone or determinization starts with no buffers; played on, it encodes as from scratch."""
    g = _game(3)
    rng = np.random.default_rng(7)
    step = 0
    while g.pending is not None:
        for s in (0, 1):
            encode(g, s)
        if step % 9 == 4:
            for h in (g.clone(), g.determinize(g.pending.seat, np.random.default_rng(step))):
                play = np.random.default_rng(step)
                for _ in range(6):
                    for s in (0, 1):
                        assert np.array_equal(_bits(encode(h, s)), _bits(encode_fresh(h, s)))
                    if h.pending is None:
                        break
                    h.apply_action(h.pending.seat, h.pending.legal[int(play.integers(len(h.pending.legal)))])
        g.apply_action(g.pending.seat, g.pending.legal[int(rng.integers(len(g.pending.legal)))])
        step += 1


def test_handed_out_arrays_are_independent_of_the_buffer() -> None:
    g = _game(1)
    first = encode(g, 0)
    first[:] = 7.0  # a caller writing into its array changes nothing kept
    assert np.array_equal(_bits(encode(g, 0)), _bits(encode_fresh(g, 0)))
    assert encode(g, 0, copy=False) is encode(g, 0, copy=False)


def test_pile_sums_depend_on_the_multiset_only_and_match_the_exact_sum() -> None:
    """A pile summed in any order, or updated card by card, gives one array: the exact sum of its
    cards' features (multiples of 1/3 for support cards, 1/15 for Fight cards), rounded once."""
    from fractions import Fraction

    tables = observe._pool_tables(DEFAULT_POOL)
    support, fight = tables.support_pile, tables.fight_pile
    assert (support.mult, support.exact, fight.mult, fight.exact) == (3, True, 15, True)

    def exact(table: np.ndarray, index: dict[str, int], mult: int, pile: list[str], scale: float) -> np.ndarray:
        # each feature as the fraction it stands for, summed exactly, then one rounding to float32
        ks = [[Fraction(round(float(x) * mult), mult) for x in table[index[c]]] for c in pile]
        sums = [sum(col, Fraction(0)) / Fraction(scale) for col in zip(*ks)] if ks else [Fraction(0)] * table.shape[1]
        return np.array([np.float32(float(f)) for f in sums], dtype=np.float32)

    rng = np.random.default_rng(0)
    deck = list(DEFAULT_POOL.decks.values())[0]
    ids = list(deck.draw_ids())
    for n in (0, 1, 5, 27):
        pile = [ids[i] for i in rng.permutation(len(ids))[:n]]
        want = exact(tables.support, tables.support_index, 3, pile, 27)
        assert np.array_equal(_bits(tables.deck(pile, 27)), _bits(want))
        assert np.array_equal(_bits(tables.deck(list(reversed(pile)), 27)), _bits(want))
    stack = list(deck.fight_ids())
    want = exact(tables.fight, tables.fight_index, 15, stack, 12)
    assert np.array_equal(_bits(tables.stack(stack)), _bits(want))
    assert np.array_equal(_bits(tables.stack(stack[::-1])), _bits(want))
    # card by card (draws from either end, an insertion and a removal inside, a shuffle): the same
    # bits as summing the pile afresh, at every step
    pile_sum = observe._PileSum(tables.support_pile)
    pile = list(ids)
    for step in range(60):
        r = int(rng.integers(6))
        if r == 5 and len(pile) > 3:
            del pile[:3]  # three drawn at once
        elif r == 0 and pile:
            pile.pop(0)
        elif r == 1 and pile:
            pile.pop()
        elif r == 2 and pile:
            pile.pop(int(rng.integers(len(pile))))
        elif r == 3:
            pile.insert(int(rng.integers(len(pile) + 1)), ids[int(rng.integers(len(ids)))])
        else:
            rng.shuffle(pile)
        pile_sum.update(pile)
        got = pile_sum.scaled(tables.draw_den)
        assert np.array_equal(_bits(got), _bits(tables.deck(pile, observe.DRAW_SIZE))), step


def test_a_table_of_no_small_multiples_is_summed_afresh_in_row_order() -> None:
    """Features that are no multiples of 1/720 cannot be summed exactly: the pile is then summed
    afresh at every change, in row order, so its sum still depends on its multiset only."""
    features = np.array([[0.1234, 1.0], [0.5, 0.3], [0.777, 0.0]], dtype=np.float32)
    tab = observe._PileTable(features, {"a": 0, "b": 1, "c": 2})
    assert (tab.exact, tab.mult) == (False, 1)
    pile = observe._PileSum(tab)
    for ids in (["c", "a"], ["c", "a", "b"], ["b", "a"], ["a", "b"]):
        pile.update(ids)
        rows = sorted(tab.index[c] for c in ids)
        assert np.array_equal(_bits(pile.scaled(np.float32(1.0))), _bits(np.add.reduce(features[rows], axis=0)))


def test_one_change_finds_cards_added_or_removed() -> None:
    one = observe._one_change
    assert one(["a", "b", "c"], ["b", "c"]) == (-1, ["a"])
    assert one(["a", "b", "c"], ["c"]) == (-1, ["a", "b"])  # two drawn from the top
    assert one(["a", "b", "c"], ["a", "b"]) == (-1, ["c"])
    assert one(["a", "b", "b", "c"], ["a", "b", "c"]) == (-1, ["b"])
    assert one(["a", "c"], ["a", "b", "c"]) == (1, ["b"])
    assert one(["a"], ["a", "a"]) == (1, ["a"])
    assert one(["a"], ["a", "x", "y"]) == (1, ["x", "y"])
    assert one([], ["x"]) == (1, ["x"])
    assert one(["a", "b"], ["b", "a"]) is None  # same length: not an addition or a removal
    assert one(["a", "b", "c", "d"], ["a", "d"]) is None  # two removed inside
    assert one(["a", "b", "c"], ["a", "x"]) is None  # one removed and one changed


def test_discard_type_counts_equal_the_deck_summary_entries() -> None:
    """Counting a pile by type in Python gives entries 1..4 of its deck summary / 10, bit for bit."""
    tables = observe._pool_tables(DEFAULT_POOL)
    rng = np.random.default_rng(1)
    ids = list(DEFAULT_POOL.support_ids)
    for n in (0, 1, 3, 10, 27, 60):
        pile = [ids[int(i)] for i in rng.integers(len(ids), size=n)]
        want = tables.deck(pile, 10.0)[1:5].tolist()
        assert tables.type_counts(pile) == want


def test_the_table_numbers_are_clipped_as_np_clip_would() -> None:
    """The global and player numbers are clipped in Python before the float32 cast: a value past
    OBS_HIGH reads OBS_HIGH (and -OBS_HIGH below), the rest of the block unchanged."""
    g = _game(2)
    me = g.players[0]
    me.pool[0] = 10 ** 6  # pool / 5, far past OBS_HIGH
    g.players[1].dealt = 10 ** 6  # my Life left goes far below -OBS_HIGH
    obs = encode(g, 0)
    block = obs[OBS_SLICES["me"]]
    assert block[3] == OBS_HIGH
    assert block[2] == -OBS_HIGH
    assert np.array_equal(_bits(obs), _bits(encode_fresh(g, 0)))
    head = obs[:OBS_SLICES["hand"].start]
    assert head.max() == OBS_HIGH and head.min() == -OBS_HIGH


# (field, value or (position in the field's tuple, value), entry of the player block it reaches,
# expected): each count that ``_player``'s range guard covers, pushed past where its number stays
# within OBS_HIGH (or below zero)
_PAST_RANGE = [
    ("life", 10 ** 5, 0, OBS_HIGH), ("life", -10 ** 5, 2, -OBS_HIGH), ("dealt", 10 ** 5, 1, OBS_HIGH),
    ("hold", 10 ** 4, 15, OBS_HIGH), ("hold", -10 ** 4, 15, -OBS_HIGH), ("hand_size", 10 ** 4, 16, OBS_HIGH),
    ("imprint", (1, 10 ** 4), 7, OBS_HIGH), ("fists", (2, -10 ** 4), 11, -OBS_HIGH),
    ("energy", (0, 10 ** 4), 12, OBS_HIGH),
]


@pytest.mark.parametrize("field,value,entry,expected", _PAST_RANGE)
def test_every_guarded_count_is_clipped_past_range(field: str, value: object, entry: int, expected: float) -> None:
    """The player numbers are written unclipped while every count is in the guard's range; a count
    past it (each one the guard covers) reads +-OBS_HIGH as np.clip would, the other numbers as they
    were, and a count back in range is written unclipped again."""
    g = _game(4)
    base = encode(g, 0)
    me = g.players[0]
    saved = getattr(me, field)
    if isinstance(value, tuple):
        pos, n = value
        value = tuple(n if i == pos else x for i, x in enumerate(saved))
    setattr(me, field, value)
    obs = encode(g, 0)
    block, before = obs[OBS_SLICES["me"]], base[OBS_SLICES["me"]]
    assert block[entry] == expected
    others = [i for i in range(len(block)) if i != entry and not (field == "life" and i in (0, 2))]
    assert np.array_equal(_bits(block[others]), _bits(before[others]))
    assert np.array_equal(_bits(obs), _bits(encode_fresh(g, 0)))
    setattr(me, field, saved)
    assert np.array_equal(_bits(encode(g, 0)), _bits(base))


def test_raise_the_stakes_damage_past_range_is_clipped() -> None:
    """The raise-the-stakes damage / 10 reads OBS_HIGH once it passes it (the guard's last test)."""
    g = _game(5)
    fight = g.pool.fight
    big = max(fight, key=lambda c: fight[c].damage)
    n = 1000 // fight[big].damage + 1  # their damage past 1,000; their count / 12 still within range
    g.players[0].rts = [big] * n
    obs = encode(g, 0)
    block = obs[OBS_SLICES["me"]]
    assert block[24] == OBS_HIGH and block[23] == np.float32(n / 12.0)
    assert np.array_equal(_bits(obs), _bits(encode_fresh(g, 0)))


def _slot_content(f: object) -> tuple:
    """Everything of a fight slot but its version counter, as copies."""
    return (list(f.cards), list(f.end), f.resolved, f.winner, [list(t) for t in f.effect_tabs],  # type: ignore[attr-defined]
            [list(e) for e in f.effects_played], [len(g) for g in f.gear_used], [dict(b) for b in f.boosts],  # type: ignore[attr-defined]
            set(f.nullified), list(f.double), list(f.skirmish_winner), f.clash_text_of, f.decided)  # type: ignore[attr-defined]


@pytest.mark.parametrize("config", [{}, {"auto": frozenset()}, {"ask_moot_orders": True}], ids=["default", "all-asked", "moot-asked"])
def test_every_change_of_a_fight_slot_bumps_its_version(config: dict) -> None:
    """The encoder keys an open fight's state by ``FightSlot.v``: every change the engine makes to a
    slot between two decisions comes with a higher ``v`` (a change without a bump would leave a
    stale state in the observation)."""
    for seed in range(8):
        g = _game(seed, **config)
        rng = np.random.default_rng(200 + seed)
        while g.pending is not None:
            before = {id(f): (f, _slot_content(f), f.v) for f in g.fights}
            g.apply_action(g.pending.seat, g.pending.legal[int(rng.integers(len(g.pending.legal)))])
            for f, content, v in before.values():
                if _slot_content(f) != content:
                    assert f.v > v, (seed, len(g.actions))
                else:
                    assert f.v >= v


def test_the_other_seat_reads_an_open_fight_state_mirrored() -> None:
    """Seat 1's fight-state numbers are seat 0's with mine and the opponent's entries swapped
    (``observe._MIRROR``), as ``_fight_state`` computes them for seat 1 directly."""
    checked = 0
    for seed in range(6):
        g = _game(seed)
        rng = np.random.default_rng(300 + seed)
        while g.pending is not None:
            for i, f in enumerate(g.fights):
                if not f.resolved:
                    v0 = observe._fight_state(g, f, i, 0, observe._totals(g, f, 0))
                    v1 = observe._fight_state(g, f, i, 1, observe._totals(g, f, 1))
                    assert [v0[j] for j in observe._MIRROR] == v1
                    checked += 1
            g.apply_action(g.pending.seat, g.pending.legal[int(rng.integers(len(g.pending.legal)))])
    assert checked > 100


def test_encoder_keeps_its_data_in_declared_fields() -> None:
    """What the encoder keeps on the game and its fight slots lives in the fields the rules declare
    for it (``FightKlubGame.obs_bufs``, ``FightSlot.obs_open`` ...), never in new instance attributes.
    A new attribute costs more than its own reads: CPython (3.11) gives an instance whose ``__dict__``
    was read, or which outgrew its class's shared attribute layout, a dict of its own, and every
    attribute read of the rules on it then takes a slower path (the engine ran about a fifth slower
    beside the encoder when it kept these in ``__dict__``)."""
    declared_game = set(vars(_game(0)))  # a game no encoding touched
    for seed in range(3):
        g = _game(seed)
        rng = np.random.default_rng(seed)
        slots = []
        while g.pending is not None:
            for seat in (0, 1):
                encode(g, seat)
            slots.extend(g.fights)
            d = g.pending
            g.apply_action(d.seat, d.legal[int(rng.integers(len(d.legal)))])
        assert set(vars(g)) == declared_game
        fields = set(FightSlot.__dataclass_fields__)
        assert slots and all(set(vars(f)) == fields for f in slots)
        assert any(f.obs_open is not None for f in slots) and any(f.obs_state_bytes is not None for f in slots)
    # a changed copy of a slot starts with nothing kept: no stale encoding follows it
    kept = next(f for f in slots if f.obs_state_bytes is not None)
    copy = dataclasses.replace(kept, cards=list(reversed(kept.cards)))
    assert (copy.obs_open, copy.obs_state, copy.obs_state_bytes) == (None, None, None)


def test_game_attributes_fit_a_shared_layout() -> None:
    """Every name any game instance ever holds (played, encoded, cloned, determinized, unpickled) is
    one of at most 30: CPython (3.11, the Python of CI) keeps the instance attributes of a class in
    one shared layout of up to 30 names, and every instance that needs a name beyond it gets a dict of its
    own, with the slower attribute reads of ``test_encoder_keeps_its_data_in_declared_fields``. The
    game holds 28 today: a new attribute of the rules should be weighed against this."""
    names: set[str] = set()
    copies = 0
    for seed in range(3):
        g = _game(seed)
        rng = np.random.default_rng(seed)
        while g.pending is not None:
            encode(g, g.pending.seat)
            d = g.pending
            g.apply_action(d.seat, d.legal[int(rng.integers(len(d.legal)))])
            if len(g.actions) % 17 == 0:
                for other in (g.clone(), g.determinize(d.seat, rng), pickle.loads(pickle.dumps(g))):
                    encode(other, 0)
                    names |= set(vars(other))
                    copies += 1
        names |= set(vars(g))
    assert copies and len(names) <= 30, (copies, sorted(names))
