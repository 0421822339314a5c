"""Reusable checks for testing fight-envs games and environments.

This module owns what more than one test (and every later game) needs to check an environment:

* ``check_pettingzoo_conformance``: PettingZoo's own ``api_test``, ``parallel_api_test``,
  ``seed_test``, ``parallel_seed_test`` and ``render_test`` on one option set of an env module.
* ``card_conservation_problems`` / ``assert_cards_conserved``: every card of every Fight 5 deck
  is in exactly one place (deck, hand, slot, pot, Point Pile, face-up Clash Card, clash stack,
  set aside).
* ``hidden_variants``: copies of a Fight 5 game that differ from it only in what one seat cannot
  see, for checking that observations leak nothing.
* Fixed-deal scenarios written as tables (``parse_round_table``, ``scenario_deal``,
  ``play_round``, ``check_round``), so rules tests read like a worked example.
* Golden traces (``record_trace``, ``replay_trace``, ``dump_trace``): a seeded game stored as
  actions plus a hash of every agent's observation at every step, replayed step by step.
* ``random_play_observations``: observation vectors of uniformly random games of any env, for
  feature and encoder checks.

It imports nothing outside ``fight_envs``, numpy and PettingZoo (no pytest, no hypothesis), and
raises ``AssertionError`` with a message that says what differed and where.
"""

from __future__ import annotations

import ast
import copy
import hashlib
import json
import re
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

from fight_envs.games.fight5.cards import DEFAULT_CARDS, NUM_RANKS, RANK_NAMES, Fight5Cards, rank_of
from fight_envs.games.fight5.rules import NO_CARD, BoutDeal, ClashResult, Fight5Game
from fight_envs.games.fight5.topology import SLOTS_PER_PLAYER, topology

TRACE_FORMAT = "fight-envs/golden-trace/v1"
DIGEST_CHARS = 16
"""Hex characters kept of each SHA-256 digest: 64 bits, plenty to catch any change."""


def random_play_observations(env_name: str, count: int, seed: int = 0, **options: Any) -> np.ndarray:
    """``count`` observation vectors (float32 rows) of the deciding agents of random-play games of
    ``env_name`` (the raw AEC env with ``options``); game ``k`` after the first is reset with seed
    ``1000 seed + k``, the actions come from ``default_rng(seed)``."""
    from fight_envs.registry import make

    env = make(env_name, api="raw", **options)
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    out: list[np.ndarray] = []
    game = 0
    while len(out) < count:
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            env.step(None)
            if not env.agents:
                game += 1
                env.reset(seed=seed * 1000 + game)
            continue
        o = env.observe(agent)
        out.append(np.array(o["observation"], dtype=np.float32))  # a copy: no env's later step can change it
        env.step(int(rng.choice(np.flatnonzero(o["action_mask"]))))
    return np.array(out, dtype=np.float32)


def random_decisions(env: Any, seed: int, steps: int) -> Iterator[tuple[str, dict[str, np.ndarray], int]]:
    """Walk a reset AEC env with uniformly random legal actions for at most ``steps`` agent turns: yields
    (agent, its observation, the action) before each action is stepped; agents already done are stepped out."""
    rng = np.random.default_rng(seed)
    for agent in env.agent_iter(steps):
        obs, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        yield agent, obs, action
        env.step(action)


# ---------------------------------------------------------------------------- conformance
def check_pettingzoo_conformance(module: ModuleType, options: Mapping[str, Any], num_cycles: int = 60) -> None:
    """Run PettingZoo's five standard tests on ``module.env`` / ``module.parallel_env``.

    ``module`` follows PettingZoo's naming (``env``, ``parallel_env``); ``options`` are the
    constructor options (``render_mode`` is chosen by ``render_test`` itself). Two warnings the
    tests provoke on purpose are silenced: ``api_test`` passes an unknown reset option, and
    ``parallel_seed_test`` samples actions without the mask (so it plays illegal actions). So are
    ``api_test``'s notes that a dict observation is "not a NumPy array" / "probably should be a
    Box": a dict holding the observation and its action mask is PettingZoo's own convention for
    masked games (its classic envs draw the same notes).
    """
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=DeprecationWarning)  # pettingzoo.test's own imports
        from pettingzoo.test import api_test, parallel_api_test, parallel_seed_test, render_test, seed_test

    opts = dict(options)
    opts.pop("render_mode", None)

    def make_aec(**extra: Any) -> Any:
        return module.env(**opts, **extra)

    def make_parallel(**extra: Any) -> Any:
        return module.parallel_env(**opts, **extra)

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r"unknown reset option")
        warnings.filterwarnings("ignore", message=r"illegal action by")
        warnings.filterwarnings("ignore", message=r"Observation is not a NumPy array")
        warnings.filterwarnings("ignore", message=r"Observation space for each agent probably should be")
        api_test(make_aec(), num_cycles=num_cycles)
        parallel_api_test(make_parallel(), num_cycles=num_cycles)
        seed_test(make_aec, num_cycles=num_cycles)
        parallel_seed_test(make_parallel, num_cycles=num_cycles)
        render_test(make_aec)


# ---------------------------------------------------------------------------- card conservation
def card_places(game: Fight5Game) -> dict[str, dict[str, np.ndarray]]:
    """Where every card of every deck is now, as rank-count vectors.

    Keys: ``"player_<s>"`` for seat ``s``'s Player Deck and ``"clash_deck"``; inside, one count
    vector per kind of place. A card won at a clash goes to the winner's Point Pile but still
    belongs to its owner's deck, which is why Point Piles are split by source.
    """
    n = game.num_players
    places: dict[str, dict[str, np.ndarray]] = {}
    for s in range(n):
        committed = game.committed[s][game.committed[s] != NO_CARD]
        places[f"player_{s}"] = {
            "deck": np.bincount(np.asarray(game.decks[s], dtype=np.int64), minlength=NUM_RANKS),
            "hand": game.hands[s].copy(),
            "committed": np.bincount(committed, minlength=NUM_RANKS),
            "pots": game.pot[:, s, :].sum(axis=0),
            "point_piles": game.point_pile[:, s, :].sum(axis=0),
        }
    face_up = game.clash_card[game.clash_card != NO_CARD]
    stacked = [r for stack in game.clash_stacks for r in stack]
    places["clash_deck"] = {
        "stacks": np.bincount(np.asarray(stacked, dtype=np.int64), minlength=NUM_RANKS),
        "clash_cards": np.bincount(face_up, minlength=NUM_RANKS),
        "point_piles": game.point_pile[:, n, :].sum(axis=0),
        "set_aside": np.asarray(game.set_aside, dtype=np.int64).copy(),
    }
    return places


def card_conservation_problems(game: Fight5Game) -> list[str]:
    """Every way the game's cards fail to add up to its decks (empty when all is well).

    Checks that no place holds a negative count, that each Player Deck's cards over all places
    equal the Player Deck composition and the Clash Deck's equal the Clash Deck composition,
    that no slot is filled beyond the seat's placement count, and that each clash stack holds
    at most ``stack_size`` cards.
    """
    problems: list[str] = []
    cards = game.cards
    for owner, places in card_places(game).items():
        total = np.zeros(NUM_RANKS, dtype=np.int64)
        for place, counts in places.items():
            if (counts < 0).any():
                bad = {RANK_NAMES[r]: int(counts[r]) for r in np.flatnonzero(counts < 0)}
                problems.append(f"{owner}.{place} has negative counts {bad}")
            total += counts
        expected = cards.clash_deck if owner == "clash_deck" else cards.player_deck
        if not np.array_equal(total, expected):
            diff = {RANK_NAMES[r]: int(total[r] - expected[r]) for r in np.flatnonzero(total != expected)}
            problems.append(f"{owner}: cards over all places differ from the deck by {diff}")
    for s in range(game.num_players):
        filled = int((game.committed[s] != NO_CARD).sum())
        if filled != game.num_committed[s]:
            problems.append(f"seat {s} has {filled} filled slots but num_committed={game.num_committed[s]}")
        if not game.game_over:
            in_play = int(game.hands[s].sum()) + filled
            if in_play != cards.hand_size:
                problems.append(f"seat {s} holds {in_play} cards in hand and slots, not {cards.hand_size}")
    for c, stack in enumerate(game.clash_stacks):
        if len(stack) > cards.stack_size:
            problems.append(f"clash {c} stack holds {len(stack)} cards, more than {cards.stack_size}")
    return problems


def assert_cards_conserved(game: Fight5Game) -> None:
    """Raise AssertionError listing every card-conservation problem of ``game``."""
    problems = card_conservation_problems(game)
    if problems:
        raise AssertionError("card conservation broken:\n  " + "\n  ".join(problems))


# ---------------------------------------------------------------------------- hidden information
def hidden_variants(game: Fight5Game, observer: int, rng: np.random.Generator) -> dict[str, Fight5Game]:
    """Copies of ``game`` changed only in what ``observer`` cannot see, keyed by the change.

    Each variant keeps every public fact and the observer's own hand and slots, and still
    conserves cards. Variants whose change would be empty right now (no undrawn cards, no
    face-down stack cards, no opponent slot filled, ...) are left out.
    """
    n = game.num_players
    out: dict[str, Fight5Game] = {}
    opponents = [s for s in range(n) if s != observer]

    # Parts no variant changes (layout, card data, generator, history) are shared, not copied:
    # deepcopy is slow on them. The copies are only read.
    unchanged = (game.topo, game.cards, game.rng, game.actions, game.deals_used, game.fixed_deals,
                 game.last_results, game.bout_points)
    shared = {id(x): x for x in unchanged}

    def variant() -> Fight5Game:
        return copy.deepcopy(game, memo=dict(shared))

    # The order of any undrawn deck, the observer's own included, is unknown to everyone.
    for s in range(n):
        if len(set(game.decks[s])) > 1:
            g = variant()
            while g.decks[s] == game.decks[s]:
                rng.shuffle(g.decks[s])
            out[f"permute_deck_{s}"] = g
    # The face-down cards of the clash stacks (their order and which stack holds what).
    stacked = [(c, i) for c, stack in enumerate(game.clash_stacks) for i in range(len(stack))]
    if len({game.clash_stacks[c][i] for c, i in stacked}) > 1:
        g = variant()
        values = [g.clash_stacks[c][i] for c, i in stacked]
        original = list(values)
        while values == original:
            rng.shuffle(values)
        for (c, i), v in zip(stacked, values):
            g.clash_stacks[c][i] = v
        out["permute_stacks"] = g
    # A face-down stack card exchanged with a set-aside Clash Card of another rank.
    aside = [int(r) for r in np.flatnonzero(game.set_aside > 0)]
    swaps = [(c, i, r) for c, i in stacked for r in aside if r != game.clash_stacks[c][i]]
    if swaps:
        c, i, r = swaps[int(rng.integers(len(swaps)))]
        g = variant()
        old = g.clash_stacks[c][i]
        g.clash_stacks[c][i] = r
        g.set_aside = g.set_aside.copy()
        g.set_aside[r] -= 1
        g.set_aside[old] += 1
        out["swap_stack_with_set_aside"] = g
    for s in opponents:
        # An opponent's hand card exchanged with a different card of its undrawn deck.
        pairs = [(h, i) for h in np.flatnonzero(game.hands[s] > 0) for i, d in enumerate(game.decks[s]) if d != h]
        if pairs:
            h, i = pairs[int(rng.integers(len(pairs)))]
            g = variant()
            g.hands = g.hands.copy()
            d = g.decks[s][i]
            g.hands[s, h] -= 1
            g.hands[s, d] += 1
            g.decks[s][i] = int(h)
            out[f"swap_hand_with_deck_{s}"] = g
        # An opponent's face-down placement this round exchanged with a different hand card.
        placed = [(k, h) for k in range(game.num_committed[s]) for h in np.flatnonzero(game.hands[s] > 0)
                  if h != game.committed[s, k]]
        if placed:
            k, h = placed[int(rng.integers(len(placed)))]
            g = variant()
            g.hands = g.hands.copy()
            g.committed = g.committed.copy()
            old = int(g.committed[s, k])
            g.committed[s, k] = h
            g.hands[s, h] -= 1
            g.hands[s, old] += 1
            out[f"swap_slot_with_hand_{s}"] = g
    return out


# ---------------------------------------------------------------------------- scenarios
def clash_name(clash: int) -> str:
    """The name a table uses for a clash: ``middle`` for clash 0, else ``c<id>`` (as rendered)."""
    return "middle" if clash == 0 else f"c{clash}"


def clash_id(name: str) -> int:
    """Inverse of :func:`clash_name` (``c0`` is accepted for the middle clash too)."""
    name = name.strip().lower()
    if name == "middle":
        return 0
    if name.startswith("c") and name[1:].isdigit():
        return int(name[1:])
    raise ValueError(f"unknown clash name {name!r}; use 'middle' or c1..c10")


@dataclass(frozen=True)
class RoundRow:
    """One clash in one round of a scenario: what lies there, who plays what, who should win."""

    clash: int
    clash_card: int | None
    """Expected face-up Clash Card before the reveal (None: not checked)."""
    plays: dict[int, int]
    winner: int | None
    """Expected winning seat, NO_CARD for a tie, None: not checked."""


def _card_or_none(token: str) -> int | None:
    return None if token in ("?", "") else rank_of(token)


def parse_round_table(text: str, num_players: int) -> list[RoundRow]:
    """Parse a round written as a table, one row per clash.

    Header: ``clash card P0 P1 ... winner`` (the seats are the columns named P<seat>; ``card`` and
    ``winner`` are optional). Cells: card names ``2``..``13``, ``*`` or ``star``; ``.`` where a
    seat does not share the clash; ``?`` for "not checked". The winner column holds ``P<seat>``
    or ``tie``. Every clash of the game must have a row, and every seat must play exactly at the
    clashes the topology gives it.
    """
    lines = [ln.split("#")[0].strip() for ln in text.strip().splitlines()]
    lines = [ln for ln in lines if ln]
    header = lines[0].lower().split()
    if header[0] != "clash":
        raise ValueError(f"a round table starts with a 'clash' column, got {header}")
    seats = [int(h[1:]) for h in header if h.startswith("p") and h[1:].isdigit()]
    if sorted(seats) != list(range(num_players)):
        raise ValueError(f"a {num_players}-player table needs columns P0..P{num_players - 1}, got {header}")
    topo = topology(num_players)
    rows: list[RoundRow] = []
    for line in lines[1:]:
        cells = line.split()
        if len(cells) != len(header):
            raise ValueError(f"row {line!r} has {len(cells)} cells for {len(header)} columns")
        row = dict(zip(header, cells))
        clash = clash_id(row["clash"])
        plays = {s: rank_of(row[f"p{s}"]) for s in seats if row[f"p{s}"] != "."}
        if sorted(plays) != list(topo.sharers[clash]):
            raise ValueError(
                f"clash {row['clash']} is shared by seats {topo.sharers[clash]}, the row plays {sorted(plays)}"
            )
        winner: int | None = None
        if "winner" in row and row["winner"] != "?":
            w = row["winner"].lower()
            winner = NO_CARD if w == "tie" else int(w.lstrip("p"))
        rows.append(RoundRow(clash, _card_or_none(row["card"]) if "card" in row else None, plays, winner))
    if sorted(r.clash for r in rows) != list(range(topo.num_clashes)):
        raise ValueError(f"a {num_players}-player round needs one row for each of the {topo.num_clashes} clashes")
    return rows


def round_plays(rows: Sequence[RoundRow]) -> dict[int, dict[int, int]]:
    """``plays[seat][clash] = rank`` from a parsed table."""
    plays: dict[int, dict[int, int]] = {}
    for row in rows:
        for s, rank in row.plays.items():
            plays.setdefault(s, {})[row.clash] = rank
    return plays


def _take(remaining: np.ndarray, rank: int, what: str) -> None:
    if remaining[rank] <= 0:
        raise ValueError(f"{what} would need more {RANK_NAMES[rank]} cards than the deck holds")
    remaining[rank] -= 1


def scenario_deal(
    num_players: int,
    rounds: Sequence[Sequence[RoundRow]],
    stacks: Mapping[int, Sequence[Any]] | None = None,
    cards: Fight5Cards = DEFAULT_CARDS,
) -> BoutDeal:
    """A bout deal under which the given rounds can be played as written.

    Each Player Deck is ordered so that round ``r``'s hand is exactly the five cards the seat
    plays in round ``r`` of ``rounds``; the rest of the deck follows in rank order. ``stacks``
    gives the top cards of chosen clash stacks (top first); every stack is completed to
    ``stack_size`` from the unused Clash Deck cards in rank order, lowest first.
    """
    topo = topology(num_players)
    decks: list[tuple[int, ...]] = []
    for s in range(num_players):
        remaining = cards.player_deck.copy()
        order: list[int] = []
        for r, rows in enumerate(rounds):
            mine = round_plays(rows)[s]
            for clash in topo.player_clashes[s]:
                rank = mine[int(clash)]
                _take(remaining, rank, f"seat {s} in rounds 1..{r + 1}")
                order.append(rank)
        order.extend(int(r) for r in np.repeat(np.arange(NUM_RANKS), remaining))
        decks.append(tuple(order))
    pool = cards.clash_deck.copy()
    given = {int(c): [rank_of(x) for x in v] for c, v in (stacks or {}).items()}
    for c, top in given.items():
        if len(top) > cards.stack_size:
            raise ValueError(f"stack {c} is given {len(top)} cards, more than {cards.stack_size}")
        for rank in top:
            _take(pool, rank, f"the given clash stacks ({clash_name(c)})")
    filler = [int(r) for r in np.repeat(np.arange(NUM_RANKS), pool)]
    built = []
    for c in range(cards.clash_stacks[num_players]):
        stack = list(given.get(c, []))
        while len(stack) < cards.stack_size:
            stack.append(filler.pop(0))
        built.append(tuple(stack))
    return BoutDeal(tuple(built), tuple(decks))


def play_round(game: Fight5Game, plays: Mapping[int, Mapping[int, int]]) -> list[ClashResult]:
    """Place ``plays[seat][clash]`` for every seat, in each seat's slot order; return the reveal.

    Seats act in the engine's turn order (``current_player``), so this is how the AEC env
    would apply the same round.
    """
    topo = game.topo
    start = len(game.actions)
    expected = game.num_players * SLOTS_PER_PLAYER
    while len(game.actions) - start < expected:
        seat = game.current_player()
        slot = game.current_slot(seat)
        clash = int(topo.player_clashes[seat][slot])
        game.apply_action(seat, plays[seat][clash])
    return list(game.last_results)


def check_round(game: Fight5Game, text: str) -> list[ClashResult]:
    """Play a round written as a table (see :func:`parse_round_table`) and check it.

    Before the reveal each row's Clash Card must be face up as written; after it, each row's
    winner must be as written. Raises AssertionError naming the first clash that differs.
    """
    rows = parse_round_table(text, game.num_players)
    for row in rows:
        if row.clash_card is not None and int(game.clash_card[row.clash]) != row.clash_card:
            shown = "none" if game.clash_card[row.clash] == NO_CARD else RANK_NAMES[int(game.clash_card[row.clash])]
            raise AssertionError(
                f"bout {game.bout + 1} round {game.round + 1}, {clash_name(row.clash)}: face-up Clash Card is "
                f"{shown}, the table says {RANK_NAMES[row.clash_card]}"
            )
    results = play_round(game, round_plays(rows))
    by_clash = {r.clash: r for r in results}
    for row in rows:
        if row.winner is not None and by_clash[row.clash].winner != row.winner:
            got = by_clash[row.clash].winner
            raise AssertionError(
                f"{clash_name(row.clash)}: winner {'tie' if got == NO_CARD else f'P{got}'}, the table says "
                f"{'tie' if row.winner == NO_CARD else f'P{row.winner}'}"
            )
    return results


# ---------------------------------------------------------------------------- golden traces
def observation_digest(obs: Any) -> str:
    """SHA-256 (shortened) of an observation: arrays by dtype, shape and bytes; dicts by key."""
    h = hashlib.sha256()

    def feed(x: Any) -> None:
        if isinstance(x, Mapping):
            for key in sorted(x):
                h.update(str(key).encode())
                feed(x[key])
        else:
            arr = np.ascontiguousarray(x)
            h.update(f"{arr.dtype.str}{arr.shape}".encode())
            h.update(arr.tobytes())

    feed(obs)
    return h.hexdigest()[:DIGEST_CHARS]


def _all_obs_digest(observations: Mapping[str, Any]) -> str:
    return observation_digest({agent: observations[agent] for agent in sorted(observations)})


def _policy_action(rng: np.random.Generator, mask: np.ndarray) -> int:
    legal = np.flatnonzero(mask)
    return int(legal[rng.integers(len(legal))])


def record_trace(
    module: ModuleType,
    options: Mapping[str, Any],
    seed: int,
    policy_seed: int,
    api: str = "aec",
    reset_options: Mapping[str, Any] | None = None,
    between_steps: Callable[[], None] | None = None,
) -> dict[str, Any]:
    """Play one game of ``module`` with uniformly random legal actions and trace it.

    ``api`` is ``"aec"`` (``module.env``) or ``"parallel"`` (``module.parallel_env``). Each
    step stores the action(s), a digest of every agent's observation *before* the step, and the
    rewards the step produced. The env's ``game_record()`` is stored too when it has one.
    ``between_steps`` is called before every step (determinism tests disturb global state there).
    """
    rng = np.random.default_rng(policy_seed)
    steps: list[dict[str, Any]] = []
    if api == "aec":
        env = module.env(**options)
        env.reset(seed=seed, options=dict(reset_options) if reset_options else None)
        for agent in env.agent_iter():
            _, _, term, trunc, _ = env.last()
            digest = _all_obs_digest({a: env.observe(a) for a in env.agents})
            action = None if term or trunc else _policy_action(rng, env.observe(agent)["action_mask"])
            if between_steps is not None:
                between_steps()
            env.step(action)
            steps.append({"agent": agent, "action": action, "obs": digest,
                          "rewards": [float(env.rewards.get(a, 0.0)) for a in env.possible_agents]})
    elif api == "parallel":
        env = module.parallel_env(**options)
        obs, _ = env.reset(seed=seed, options=dict(reset_options) if reset_options else None)
        while env.agents:
            digest = _all_obs_digest(obs)
            actions = {a: _policy_action(rng, obs[a]["action_mask"]) for a in env.agents}
            if between_steps is not None:
                between_steps()
            obs, rewards, _, _, _ = env.step(actions)
            steps.append({"actions": [actions[a] for a in env.possible_agents if a in actions], "obs": digest,
                          "rewards": [float(rewards.get(a, 0.0)) for a in env.possible_agents]})
        steps.append({"actions": None, "obs": _all_obs_digest(obs), "rewards": None})
    else:
        raise ValueError(f"api must be 'aec' or 'parallel', got {api!r}")
    record = env.unwrapped.game_record() if hasattr(env.unwrapped, "game_record") else None
    return {
        "format": TRACE_FORMAT,
        "env": module.__name__,
        "api": api,
        "options": dict(options),
        "reset_options": dict(reset_options) if reset_options else None,
        "seed": seed,
        "policy_seed": policy_seed,
        "steps": steps,
        "record": record,
    }


def replay_trace(module: ModuleType, trace: Mapping[str, Any]) -> Any:
    """Re-play a trace's actions on a fresh env and check every step; return the env.

    Raises AssertionError at the first step whose observation digest or rewards differ, or if
    the game record at the end differs from the stored one.
    """
    if trace.get("format") != TRACE_FORMAT:
        raise AssertionError(f"not a golden trace: format {trace.get('format')!r}, expected {TRACE_FORMAT!r}")
    seed, reset_options = trace["seed"], trace["reset_options"]
    steps = trace["steps"]
    if trace["api"] == "aec":
        env = module.env(**trace["options"])
        env.reset(seed=seed, options=reset_options)
        for i, step in enumerate(steps):
            agent = env.agent_selection if env.agents else None
            if agent != step["agent"]:
                raise AssertionError(f"step {i}: {agent} acts, the trace has {step['agent']}")
            digest = _all_obs_digest({a: env.observe(a) for a in env.agents})
            if digest != step["obs"]:
                raise AssertionError(f"step {i} ({agent}): observations differ from the trace")
            env.step(step["action"])
            rewards = [float(env.rewards.get(a, 0.0)) for a in env.possible_agents]
            if rewards != step["rewards"]:
                raise AssertionError(f"step {i} ({agent}): rewards {rewards}, the trace has {step['rewards']}")
        if env.agents:
            raise AssertionError(f"the trace ends after {len(steps)} steps but agents {env.agents} are still live")
    elif trace["api"] == "parallel":
        env = module.parallel_env(**trace["options"])
        obs, _ = env.reset(seed=seed, options=reset_options)
        for i, step in enumerate(steps):
            if _all_obs_digest(obs) != step["obs"]:
                raise AssertionError(f"step {i}: observations differ from the trace")
            if step["actions"] is None:
                if env.agents:
                    raise AssertionError(f"step {i}: the trace ends the game but agents {env.agents} are live")
                break
            obs, rewards, _, _, _ = env.step(dict(zip(env.agents, step["actions"])))
            got = [float(rewards.get(a, 0.0)) for a in env.possible_agents]
            if got != step["rewards"]:
                raise AssertionError(f"step {i}: rewards {got}, the trace has {step['rewards']}")
    else:
        raise AssertionError(f"unknown api {trace['api']!r} in trace")
    if trace.get("record") is not None:
        record = env.unwrapped.game_record()
        if record != trace["record"]:
            diff = sorted(k for k in set(record) | set(trace["record"]) if record.get(k) != trace["record"].get(k))
            raise AssertionError(f"the game record differs from the trace's in {diff}")
    return env


def dump_trace(trace: Mapping[str, Any]) -> str:
    """JSON text of a trace with one step per line, so a diff shows the first changed step."""
    head = {k: v for k, v in trace.items() if k not in ("steps", "record")}
    parts = ["{"]
    for key, value in head.items():
        parts.append(f"  {json.dumps(key)}: {json.dumps(value)},")
    parts.append(f"  \"record\": {json.dumps(trace['record'])},")
    parts.append('  "steps": [')
    steps = [f"    {json.dumps(s)}" for s in trace["steps"]]
    parts.append(",\n".join(steps))
    parts.append("  ]")
    parts.append("}")
    return "\n".join(parts) + "\n"


# ----------------------------------------------------------------------------- rules-spec citations
SPEC_CITATION = re.compile(r"`(test_\w+\.py)::(test_\w+)`(?:\s*\((cases?[^)]*)\))?")
"""A test cited by a rules spec: ``file::test``, optionally ``(case `id`, ...)`` parametrize ids."""


def spec_citations(spec: Path) -> list[tuple[str, str, str]]:
    """Every ``(file, test, cases)`` cited in the rules specification ``spec``."""
    return SPEC_CITATION.findall(spec.read_text(encoding="utf-8"))


def missing_spec_citations(spec: Path, test_dir: Path) -> list[str]:
    """Cited test files, test functions and parametrize case ids that do not exist in ``test_dir``.

    Each game's ``seeds/<game>.md`` pins its interpretations to tests; a renamed or deleted test
    would leave one unpinned, and this names it.
    """
    missing = []
    for filename, name, cases in spec_citations(spec):
        path = test_dir / filename
        if not path.exists():
            missing.append(f"{filename} (file)")
            continue
        source = path.read_text(encoding="utf-8")
        tree = ast.parse(source)
        defined = {n.name for n in tree.body if isinstance(n, ast.FunctionDef) and n.name.startswith("test_")}
        if name not in defined:
            missing.append(f"{filename}::{name}")
        for case in re.findall(r"`([\w-]+)`", cases):
            if f'id="{case}"' not in source:
                missing.append(f"{filename}::{name} case {case}")
    return missing


def unpinned_spec_items(spec: Path, heading: str) -> tuple[int, list[str]]:
    """The numbered items (``N. **...``) under ``## heading`` of ``spec`` that cite no test.

    Returns how many items the section has and the first line of each one without a citation.
    """
    text = spec.read_text(encoding="utf-8")
    if f"## {heading}" not in text:
        raise AssertionError(f"{spec.name} has no '## {heading}' section")
    section = text.split(f"## {heading}", 1)[1].split("\n## ", 1)[0]
    items = re.split(r"\n(?=\d+\. \*\*)", section)[1:]
    return len(items), [item.splitlines()[0] for item in items if not SPEC_CITATION.search(item)]
