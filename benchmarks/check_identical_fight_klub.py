"""Behaviour fingerprint of the Fight Klub envs, to prove a speed-up changed nothing users can see.

Plays seeded random games and hashes (sha256), step by step, everything a user can read: the
acting agent, ``last()``, every agent's observation and action mask, rewards, cumulative rewards,
terminations, truncations and infos (keys, order, value types, dtypes and shapes included), and
at the end ``game_record()`` and its ``record.replay``. Every object the env handed out during a
game is kept and re-hashed when the game is over, so an array or info dict that the env changes
later under the user (a shared buffer) shows up as a difference too.

Forms (``--seeds`` seeds per ordered pair of preconstructed decks, mirrors included):

* ``aec_env`` / ``aec_env_ask``: ``fight_klub_v0.env()`` with ``ask_moot_orders`` False / True;
* ``aec_raw_random``: ``raw_env(deck_pool="random", mask_in_info=True)``, one game per seed x pair;
* ``aec_env_illegal``: the wrapped env, one game per deck pair with an illegal action at a random step;
* ``engine``: ``FightKlubGame`` alone: each step both seats' ``encode`` and ``encode_fresh`` vectors,
  masks, decision kinds, pending decision, the log; every 7th step a ``clone()`` and, for both
  seats, a seeded ``determinize()``, each encoded and played on for a few random steps;
* ``deckbuild``: ``fight_klub_deckbuild_v0.env()`` with the heuristic pilot, a few seeded episodes.

Usage (from the repository root)::

    python benchmarks/check_identical_fight_klub.py --save benchmarks/identical_reference_fight_klub.json
    python benchmarks/check_identical_fight_klub.py                 # compare with that file
    python benchmarks/check_identical_fight_klub.py --against e0a0f8f   # compare with a commit's code
    python benchmarks/check_identical_fight_klub.py --against e0a0f8f --update-reference  # and rewrite the file

``--against COMMIT`` computes the reference with the code of ``COMMIT`` on the card data of the
working tree: it makes a ``git worktree`` of the commit under /tmp, copies this script and the
``--overlay`` files (default: ``cards.json``, ``decks.json`` and the Fight Klub agents, which may
change while the engine is optimised) into it, runs this script there in a subprocess (that
tree's package first on ``sys.path``) and compares. The overlay is read once, before this tree is
measured, and the worktree gets those bytes; if an overlaid file changes on disk while this tree is
measured, the check gives no verdict (exit 2) rather than a false difference. The file reference is only valid while the
card data is what it was when the file was written. Exit status 1 names the forms that differ.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path
from typing import Any

import numpy as np
from check_identical import GameLog, sample
from check_identical import digest as fingerprint

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_REFERENCE = Path(__file__).with_name("identical_reference_fight_klub.json")
OVERLAY = ("fight_envs/games/fight_klub/cards.json", "fight_envs/games/fight_klub/decks.json",
           "fight_envs/agents/fight_klub.py")


def digest(x: Any) -> bytes:
    """sha256 of Fight 5's canonical, type-tagged byte form of ``x`` (``check_identical.feed``)."""
    return fingerprint(x, hashlib.sha256)


def new_log() -> GameLog:
    """Fight 5's ``GameLog`` (records hashed at hand-out time, re-hashed at the end), with sha256."""
    return GameLog(hashlib.sha256)


def play_aec(aec: Any, seed: int, options: dict[str, Any] | None, illegal_at: int | None = None) -> bytes:
    from fight_envs.games.fight_klub.record import replay

    rng = np.random.default_rng(10_000 + seed)
    log = new_log()
    base = aec.unwrapped
    aec.reset(seed=seed, options=options)
    log.add(("reset", dict(base.infos), base.agent_selection))
    step = 0
    for agent in aec.agent_iter():
        last = aec.last()
        obs, _, term, trunc, _ = last
        everyone = {a: aec.observe(a) for a in aec.agents}
        kinds = [base.decision_kind(a) for a in base.possible_agents]
        if term or trunc:
            action = None
        elif step == illegal_at:
            action = int(np.flatnonzero(obs["action_mask"] == 0)[0])
        else:
            action = sample(obs["action_mask"], rng)
        log.add((agent, last, everyone, kinds, action))
        aec.step(action)
        step += 1
        log.add((list(base.agents), dict(base.rewards), dict(base._cumulative_rewards), dict(base.terminations),
                 dict(base.truncations), dict(base.infos)))
    record = base.game_record()
    end = replay(record) if illegal_at is None else None
    log.add(("end", record, None if end is None else (end.winner, [p.dealt for p in end.players], end.log)))
    return log.finish(f"seed {seed} {options}")


def play_engine(decks: list[Any], seed: int, ask: bool) -> bytes:
    """The bare engine and the stand-alone encoders, with clones and determinizations on the way."""
    from fight_envs.games.fight_klub.cards import DEFAULT_POOL
    from fight_envs.games.fight_klub.observe import encode, encode_fresh
    from fight_envs.games.fight_klub.rules import FightKlubConfig, FightKlubGame

    rng = np.random.default_rng(30_000 + seed)
    game = FightKlubGame(DEFAULT_POOL, decks, FightKlubConfig(ask_moot_orders=ask))
    game.new_game(np.random.default_rng(seed))
    log = new_log()

    def view(g: Any) -> tuple[Any, ...]:
        return ([encode(g, s) for s in (0, 1)], [g.legal_action_mask(s) for s in (0, 1)],
                [g.decision_kind(s) for s in (0, 1)], g.pending, g.is_terminal(), list(g.returns()))

    step = 0
    while True:
        log.add((view(game), [encode_fresh(game, s) for s in (0, 1)], list(game.log)))
        if game.pending is None:
            break
        if step % 7 == 3:
            others = [game.clone()] + [game.determinize(s, np.random.default_rng(seed * 1000 + step + s)) for s in (0, 1)]
            for k, g in enumerate(others):
                play = np.random.default_rng(40_000 + step + k)
                for _ in range(4):
                    log.add(("branch", k, view(g)))
                    if g.pending is None:
                        break
                    g.apply_action(g.pending.seat, sample(g.legal_action_mask(g.pending.seat), play))
        seat = game.pending.seat
        game.apply_action(seat, sample(game.legal_action_mask(seat), rng))
        step += 1
    log.add(("end", game.actions, game.script, game.moots, game.orders_used, game.winner, game.truncated,
             [p.dealt for p in game.players]))
    return log.finish(f"engine seed {seed}")


def fingerprints(seeds: int) -> dict[str, str]:
    from pettingzoo.utils.env_logger import EnvLogger

    from fight_envs import fight_klub_deckbuild_v0, fight_klub_v0
    from fight_envs.games.fight_klub.cards import DEFAULT_POOL

    EnvLogger.suppress_output()  # the illegal-action games would print PettingZoo's warning each time
    names = list(DEFAULT_POOL.decks)
    pairs = [(a, b) for a in names for b in names]
    forms: dict[str, list[bytes]] = {k: [] for k in ("aec_env", "aec_env_ask", "aec_raw_random", "aec_env_illegal",
                                                     "engine", "deckbuild")}
    envs = {"aec_env": fight_klub_v0.env(), "aec_env_ask": fight_klub_v0.env(ask_moot_orders=True)}
    random_env = fight_klub_v0.raw_env(deck_pool="random", mask_in_info=True)
    illegal_rng = np.random.default_rng(5)
    for i, (a, b) in enumerate(pairs):
        for s in range(seeds):
            seed = 100 * i + s
            for form, env in envs.items():
                forms[form].append(play_aec(env, seed, {"decks": [a, b]}))
            forms["aec_raw_random"].append(play_aec(random_env, seed, None))
            forms["engine"].append(play_engine([DEFAULT_POOL.decks[a], DEFAULT_POOL.decks[b]], seed, ask=bool(s % 2)))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            forms["aec_env_illegal"].append(play_aec(envs["aec_env"], 7 * i, {"decks": [a, b]},
                                                     illegal_at=int(illegal_rng.integers(0, 80))))
    build = fight_klub_deckbuild_v0.env(games=2)
    for seed in range(3):
        forms["deckbuild"].append(_play_build(build, seed))
    return {form: hashlib.sha256(b"".join(hashes)).hexdigest() for form, hashes in forms.items()}


def _play_build(env: Any, seed: int) -> bytes:
    rng = np.random.default_rng(50_000 + seed)
    log = new_log()
    base = env.unwrapped
    env.reset(seed=seed)
    for agent in env.agent_iter():
        last = env.last()
        obs, _, term, trunc, _ = last
        action = None if term or trunc else sample(obs["action_mask"], rng)
        log.add((agent, last, action))
        env.step(action)
        log.add((dict(base.rewards), dict(base.terminations), dict(base.truncations), dict(base.infos)))
    return log.finish(f"deckbuild seed {seed}")


def card_data_digest() -> str:
    h = hashlib.sha256()
    for rel in OVERLAY:
        p = ROOT / rel
        h.update(rel.encode() + b"\0" + (p.read_bytes() if p.exists() else b"<absent>") + b"\0")
    return h.hexdigest()


def snapshot(overlay: list[str]) -> dict[str, bytes | None]:
    """The bytes of each ``overlay`` file now (None: absent), read before this tree is measured, so that
    both sides run the same copy even if someone edits an overlaid file while the check runs."""
    return {rel: (ROOT / rel).read_bytes() if (ROOT / rel).exists() else None for rel in overlay}


def reference_from_commit(commit: str, seeds: int, overlay: dict[str, bytes | None]) -> dict[str, Any]:
    """Fingerprints by the code of ``commit`` on the ``overlay`` snapshot of this tree's files (in a subprocess)."""
    where = Path(tempfile.mkdtemp(prefix="fk_identical_"))
    tree = where / "tree"
    subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(tree), commit], check=True,
                   stdout=subprocess.DEVNULL)
    try:
        for rel, content in overlay.items():
            if content is not None:
                (tree / rel).write_bytes(content)
        script = tree / "benchmarks" / Path(__file__).name
        shutil.copyfile(__file__, script)
        shutil.copyfile(Path(__file__).with_name("check_identical.py"), script.with_name("check_identical.py"))  # its hashing
        out = where / "reference.json"
        env = {**os.environ, "PYTHONPATH": str(tree) + os.pathsep + os.environ.get("PYTHONPATH", "")}
        subprocess.run([sys.executable, str(script), "--seeds", str(seeds), "--save", str(out), "--expect-root", str(tree)],
                       check=True, cwd=tree, env=env)
        return json.loads(out.read_text())
    finally:
        subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(tree)], check=False)
        shutil.rmtree(where, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=2, help="seeds per ordered deck pair (default 2)")
    parser.add_argument("--save", type=Path, help="write the fingerprints to this file instead of checking")
    parser.add_argument("--reference", type=Path, default=DEFAULT_REFERENCE, help="fingerprints to compare against")
    parser.add_argument("--against", metavar="COMMIT", help="compute the reference with this commit's code instead")
    parser.add_argument("--overlay", nargs="*", default=list(OVERLAY),
                        help="files copied from this tree into the --against worktree (default: the card data and agents)")
    parser.add_argument("--update-reference", action="store_true",
                        help="with --against: write the commit's fingerprints to --reference (after the card data changed)")
    parser.add_argument("--expect-root", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    overlaid = snapshot(args.overlay) if args.against is not None else {}
    import fight_envs

    if args.expect_root is not None and Path(fight_envs.__file__).resolve().parent.parent != args.expect_root.resolve():
        raise SystemExit(f"imported fight_envs from {fight_envs.__file__}, not from {args.expect_root}")
    prints = fingerprints(args.seeds)
    data = {"seeds": args.seeds, "card_data": card_data_digest(), "fingerprints": prints}
    if args.save is not None:
        args.save.write_text(json.dumps(data, indent=2) + "\n")
        print(f"wrote {args.save}")
        return 0
    if args.against is not None:
        if snapshot(args.overlay) != overlaid:  # this side may have imported a half-edited file: no verdict
            print("an --overlay file changed while this tree was measured; rerun when nobody is editing it")
            return 2
        ref = reference_from_commit(args.against, args.seeds, overlaid)
        what = f"commit {args.against}'s code on this card data"
        if args.update_reference:  # the commit's fingerprints on this card data become the file reference
            ref["card_data"] = data["card_data"]
            args.reference.write_text(json.dumps(ref, indent=2) + "\n")
            print(f"wrote {args.reference} from {what}")
    else:
        ref = json.loads(args.reference.read_text())
        what = args.reference.name
        if ref["seeds"] != args.seeds:
            print(f"the reference holds {ref['seeds']} seeds per deck pair; rerun with --seeds {ref['seeds']}")
            return 2
        if ref.get("card_data") != data["card_data"]:
            print(f"the card data (or the Fight Klub agents) changed since {what} was written: "
                  "compare with --against <commit> instead")
            return 2
    diffs = [form for form, h in ref["fingerprints"].items() if prints.get(form) != h]
    if diffs:
        print(f"DIFFERENT from {what}: " + ", ".join(diffs))
        return 1
    print(f"identical to {what}: {len(prints)} forms, {args.seeds} seeds per deck pair")
    return 0


if __name__ == "__main__":
    sys.exit(main())
