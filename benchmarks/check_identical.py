"""Behaviour fingerprint of the Fight 5 envs, to prove a speed-up changed nothing users can see.

Plays seeded random games (20 per player count by default) through every public form of the
Fight 5 env and hashes, step by step, everything a user can read: every agent's observation and
action mask, rewards, cumulative rewards, terminations, truncations, infos (keys, order, value
types, dtypes and shapes included), the acting agent, and at the end ``bout_summary()`` and
``game_record()``. It also keeps every object the env handed out during a game and re-hashes it
when the game is over, so an array or info dict that the env later changes under the user (a
shared buffer, an info dict updated in place) shows up as a difference.

Forms played, per player count:

* ``aec_env``: ``fight5_v0.env()`` (wrapped), default options, every agent observed every step;
* ``aec_raw_score``: ``raw_env(reward="score", target_score=None)``, the per-bout reward path;
* ``parallel_env``: ``fight5_v0.parallel_env()``;
* ``aec_env_illegal`` / ``parallel_env_illegal``: a quarter of the games play one illegal action
  at a random step, so the wrappers' termination path is fingerprinted too;
* ``engine_encode``: ``Fight5Game`` alone (4 bouts, no target score): each step, every seat's
  ``encode()`` vector and mask, the last reveal, scores and piles; at the end the outcome, the
  action list and the deals.

Usage (from the repository root)::

    python benchmarks/check_identical.py --save benchmarks/identical_reference.json  # before a change
    python benchmarks/check_identical.py                                              # after: compare

The reference file in this folder was written by the code before the performance work; the
check exits with status 1 and names the forms and player counts that differ. The fingerprint
depends on numpy's ``Generator`` streams (``permutation``, ``integers``), which numpy keeps stable
in practice but does not promise across versions: after a numpy upgrade, regenerate the reference
from a known-good commit rather than trusting a mismatch.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from pettingzoo.utils.env_logger import EnvLogger

from fight_envs import fight5_v0
from fight_envs.games.fight5.observe import encode
from fight_envs.games.fight5.rules import NUM_ACTIONS, Fight5Config, Fight5Game

DEFAULT_REFERENCE = Path(__file__).with_name("identical_reference.json")
PLAYER_COUNTS = (2, 3, 4, 5)


def feed(h: Any, x: Any) -> None:
    """Feed a canonical, type-tagged byte form of ``x`` into hash ``h``."""
    if isinstance(x, np.ndarray):
        h.update(b"A" + x.dtype.str.encode() + repr(x.shape).encode())
        h.update(np.ascontiguousarray(x).tobytes())
    elif isinstance(x, dict):
        h.update(b"D%d" % len(x))
        for k, v in x.items():  # insertion order is part of what users see
            feed(h, k)
            feed(h, v)
    elif isinstance(x, (list, tuple)):
        h.update(b"L" if isinstance(x, list) else b"T")
        h.update(b"%d" % len(x))
        for v in x:
            feed(h, v)
    elif isinstance(x, float):
        h.update(b"f" + x.hex().encode())
    elif x is None or isinstance(x, (bool, int, str, np.generic)):
        # type name first: 1, 1.0, True and np.int64(1) must not hash alike
        h.update(type(x).__name__.encode() + b":" + repr(x).encode())
    elif hasattr(x, "__dataclass_fields__"):  # engine records (Fight Klub's events)
        h.update(type(x).__name__.encode())
        for k in x.__dataclass_fields__:
            feed(h, k)
            feed(h, getattr(x, k))
    elif isinstance(x, (set, frozenset)):
        feed(h, sorted(x, key=repr))
    else:
        raise TypeError(f"check_identical cannot fingerprint a {type(x).__name__}: {x!r}")


def blake2b_16() -> Any:
    """Fight 5's hash (its reference file was written with it); the other games' checks use sha256."""
    return hashlib.blake2b(digest_size=16)


def digest(x: Any, new_hash: Callable[[], Any] = blake2b_16) -> bytes:
    h = new_hash()
    feed(h, x)
    return h.digest()


def sample(mask: np.ndarray, rng: np.random.Generator) -> int:
    legal = np.flatnonzero(mask)
    return int(legal[rng.integers(len(legal))])


class GameLog:
    """Step records of one game: their hash at hand-out time, and the objects themselves."""

    def __init__(self, new_hash: Callable[[], Any] = blake2b_16) -> None:
        self.new_hash = new_hash
        self.objects: list[Any] = []
        self.digests: list[bytes] = []

    def add(self, record: Any) -> None:
        self.objects.append(record)
        self.digests.append(digest(record, self.new_hash))

    def finish(self, where: str) -> bytes:
        """Re-hash everything handed out; fail if anything changed since; return the game hash."""
        for i, (obj, d) in enumerate(zip(self.objects, self.digests)):
            if digest(obj, self.new_hash) != d:
                raise AssertionError(f"{where}: an object handed out at record {i} was changed later by the env")
        h = self.new_hash()
        h.update(b"".join(self.digests))
        return h.digest()


def illegal_action(mask: np.ndarray) -> int:
    return int(np.flatnonzero(mask == 0)[0]) if (mask == 0).any() else NUM_ACTIONS - 1


def play_aec(aec: Any, seed: int, illegal_at: int | None) -> bytes:
    rng = np.random.default_rng(10_000 + seed)
    log = GameLog()
    base = aec.unwrapped
    aec.reset(seed=seed)
    log.add(("reset", dict(base.infos)))
    step = 0
    for agent in aec.agent_iter():
        last = aec.last()
        obs, _, term, trunc, _ = last
        everyone = {a: aec.observe(a) for a in aec.agents}
        if term or trunc:
            action = None
        elif step == illegal_at:
            action = illegal_action(obs["action_mask"])
        else:
            action = sample(obs["action_mask"], rng)
        log.add((agent, last, everyone, action))
        aec.step(action)
        step += 1
        log.add(
            (
                list(base.agents),
                dict(base.rewards),
                dict(base._cumulative_rewards),
                dict(base.terminations),
                dict(base.truncations),
                dict(base.infos),
            )
        )
    log.add(("end", base.bout_summary(), base.game_record()))
    return log.finish(f"seed {seed}")


def play_parallel(par: Any, seed: int, illegal_at: int | None) -> bytes:
    rng = np.random.default_rng(20_000 + seed)
    log = GameLog()
    log.add(("reset", par.reset(seed=seed)))
    obs = log.objects[-1][1][0]
    step = 0
    while par.agents:
        actions = {a: sample(obs[a]["action_mask"], rng) for a in par.agents}
        if step == illegal_at:
            first = par.agents[0]
            actions[first] = illegal_action(obs[first]["action_mask"])
        out = par.step(actions)
        log.add((actions, out))
        obs = out[0]
        step += 1
    log.add(("end", par.bout_summary(), par.game_record()))
    return log.finish(f"seed {seed}")


def play_engine(n: int, seed: int) -> bytes:
    """The bare engine and the stand-alone ``encode``: every seat's vector and mask each step."""
    rng = np.random.default_rng(30_000 + seed)
    game = Fight5Game(Fight5Config(num_players=n, num_bouts=4, target_score=None))
    game.new_game(np.random.default_rng(seed))
    log = GameLog()
    while True:
        log.add(
            (
                [encode(game, s) for s in range(n)],
                [game.legal_action_mask(s) for s in range(n)],
                game.current_player(),
                game.pending_seats(),
                [(r.clash, r.clash_card, r.plays, r.winner, r.cards_won) for r in game.last_results],
                game.scores.copy(),
                list(game.bout_points),
                game.pile_points(),
                game.pile_sizes(),
                (game.bout, game.round, game.version, game.is_terminal()),
            )
        )
        if game.is_terminal():
            break
        seat = game.current_player()
        game.apply_action(seat, sample(game.legal_action_mask(seat), rng))
    log.add(("end", game.returns(), game.winners(), game.actions, [d.to_json() for d in game.deals_used]))
    return log.finish(f"engine seed {seed}")


def fingerprints(games: int) -> dict[str, dict[str, str]]:
    out: dict[str, dict[str, str]] = {}
    for n in PLAYER_COUNTS:
        illegal_rng = np.random.default_rng(n)
        per_form: dict[str, list[bytes]] = {
            "aec_env": [],
            "aec_raw_score": [],
            "parallel_env": [],
            "aec_env_illegal": [],
            "parallel_env_illegal": [],
            "engine_encode": [],
        }
        wrapped = fight5_v0.env(num_players=n)
        score = fight5_v0.raw_env(num_players=n, reward="score", target_score=None)
        par = fight5_v0.parallel_env(num_players=n)
        for seed in range(games):
            per_form["aec_env"].append(play_aec(wrapped, seed, None))
            per_form["aec_raw_score"].append(play_aec(score, seed, None))
            per_form["parallel_env"].append(play_parallel(par, seed, None))
            per_form["engine_encode"].append(play_engine(n, seed))
            if seed % 4 == 0:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    at = int(illegal_rng.integers(1, 60))
                    per_form["aec_env_illegal"].append(play_aec(wrapped, seed, at))
                    per_form["parallel_env_illegal"].append(play_parallel(par, seed, at // n))
        for form, hashes in per_form.items():
            out.setdefault(form, {})[str(n)] = hashlib.blake2b(b"".join(hashes), digest_size=16).hexdigest()
    return out


def check_main(argv: list[str] | None, *, description: str, fingerprints: Callable[[int], dict[str, dict[str, str]]],
               default_games: int, default_reference: Path, unit: str, cell_name: Callable[[str, str], str],
               summary: Callable[[dict[str, dict[str, str]], int], str]) -> int:
    """The command line every fingerprint check shares (``--games``, ``--save``, ``--reference``).

    Exit status 0: identical to the reference; 1: different (the cells named); 2: the reference
    holds another number of games per ``unit``.
    """
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--games", type=int, default=default_games,
                        help=f"seeded games per {unit} (default {default_games})")
    parser.add_argument("--save", type=Path, help="write the fingerprints to this file instead of checking")
    parser.add_argument("--reference", type=Path, default=default_reference, help="fingerprints to compare against")
    args = parser.parse_args(argv)
    EnvLogger.suppress_output()  # the illegal-action games would print PettingZoo's warning each time
    prints = fingerprints(args.games)
    if args.save is not None:
        args.save.write_text(json.dumps({"games": args.games, "fingerprints": prints}, indent=2) + "\n")
        print(f"wrote {args.save}")
        return 0
    ref = json.loads(args.reference.read_text())
    if ref["games"] != args.games:
        print(f"the reference holds {ref['games']} games per {unit}; rerun with --games {ref['games']}")
        return 2
    diffs = [cell_name(form, cell) for form, per in ref["fingerprints"].items() for cell, h in per.items()
             if prints.get(form, {}).get(cell) != h]
    if diffs:
        print("DIFFERENT from the reference: " + "; ".join(diffs))
        return 1
    print(f"identical to {args.reference.name}: {summary(prints, args.games)}")
    return 0


def main(argv: list[str] | None = None) -> int:
    return check_main(argv, description=__doc__.split("\n\n")[0], fingerprints=fingerprints, default_games=20,
                      default_reference=DEFAULT_REFERENCE, unit="player count",
                      cell_name=lambda form, n: f"{form} with {n} players",
                      summary=lambda prints, games: f"{len(prints)} forms x {len(PLAYER_COUNTS)} player counts, "
                                                    f"{games} games each")


if __name__ == "__main__":
    sys.exit(main())
