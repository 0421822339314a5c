"""The ``fight-envs`` command line: train, evaluate, hold tournaments, play, list environments.

Every subcommand is a thin layer over the library (``fight_envs.train.selfplay``, ``fight_envs.agents.evaluate``,
``fight_envs.agents.tournament``, ``fight_envs.agents.human``), so what the command line reports is what the tests
check. Agents are named by spec: a baseline name (``random``, ``greedy``, ``heuristic``), a
checkpoint file (``.zip``), an RLlib checkpoint directory, or a run directory (its ``final.zip``
or ``final/``, else its newest checkpoint).

    fight-envs envs
    fight-envs train [--config configs/fight5_selfplay_batched.yaml] [key=value ...]
    fight-envs train-rllib [--config configs/rllib_fight5.yaml] [key=value ...]   # on Ray RLlib
    fight-envs eval runs/latest [--deals 500] [--players 2]          # vs every baseline
    fight-envs eval heuristic greedy [--deals 500]                      # head to head
    fight-envs tournament runs/latest heuristic greedy random [--plot ratings.png]
    fight-envs play [--opponents heuristic] [--players 2] [--seat 0]
    fight-envs results [--run runs/latest]                              # regenerate docs/results.md
    fight-envs replay game.json [--gif game.gif] [--svg DIR] [--html game.html]   # pictures of a record
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Any

from fight_envs.drawing.commands import (
    add_replay_parser,
    add_save_record_argument,
    add_save_records_argument,
    records_saving_factory,
    save_record,
)

DEFAULT_CONFIG = "configs/fight5_selfplay_batched.yaml"
"""The default recipe: 2-player Fight 5 on the batched engine, about five minutes on 2 cores."""
DEFAULT_RLLIB_CONFIG = "configs/rllib_fight5.yaml"
BASELINES = ("random", "greedy", "heuristic")


def project_root() -> Path:
    """The checkout this package runs from (configs/ and docs/ live there)."""
    return Path(__file__).resolve().parents[1]


def find_config(path: str) -> Path:
    """``path`` as given, else relative to the project root (so the default works from anywhere)."""
    given = Path(path)
    if given.is_file():
        return given
    fallback = project_root() / path
    if not given.is_absolute() and fallback.is_file():
        return fallback
    raise SystemExit(f"fight-envs: no config file at {path!r}")


def resolve_agent_spec(spec: str) -> str:
    """A run directory becomes its final model (or newest checkpoint); anything else is kept."""
    path = Path(spec)
    if path.is_dir():
        if (path / "fight_envs_agent.json").is_file() or (path / "learner_group").is_dir():
            return spec  # an RLlib checkpoint itself
        final = path / "final.zip"
        if final.is_file():
            return str(final)
        if (path / "final" / "fight_envs_agent.json").is_file():  # an RLlib run
            return str(path / "final")
        checkpoints = sorted((path / "checkpoints").glob("*.zip"), key=lambda p: p.stat().st_mtime)
        if checkpoints:
            return str(checkpoints[-1])
        learners = sorted((path / "checkpoints").glob("learner_*/fight_envs_agent.json"))
        if learners:
            return str(learners[-1].parent)
        raise SystemExit(f"fight-envs: {spec!r} is a directory with no final.zip, final/ or checkpoints/ to load")
    return spec


def make_agents(specs: list[str], game: str, seed: int, trust: bool = False) -> list[Any]:
    from fight_envs.agents.registry import make_agent

    agents = []
    for k, spec in enumerate(specs):
        try:
            agents.append(make_agent(resolve_agent_spec(spec), game=game, seed=seed + k, trust=trust))
        except ValueError as exc:
            raise SystemExit(f"fight-envs: {exc}") from None
    return agents


def env_factory(env_name: str, num_players: int, extra: dict[str, Any] | None = None):
    from fight_envs.registry import make

    options = {"num_players": num_players, **(extra or {})}
    return lambda: make(env_name, api="raw", **options)


def _progress(label: str):
    start = time.monotonic()
    last = [0.0]

    def report(done: int, total: int) -> None:
        now = time.monotonic()
        if now - last[0] >= 5.0 or done == total:
            last[0] = now
            print(f"  {label}: {done}/{total} ({now - start:.0f}s)", file=sys.stderr, flush=True)

    return report


# ----------------------------------------------------------------------------- subcommands
def cmd_envs(args: argparse.Namespace) -> int:
    from fight_envs.registry import list_envs

    for spec in list_envs():
        print(f"{spec.name}  ({spec.module})  rules: {spec.rules}")
        print(f"  {spec.description}")
        for key, default in spec.options.items():
            print(f"  {key:<14} default {default!r:<12} allowed {spec.option_ranges.get(key, '')}")
    return 0


def cmd_train(args: argparse.Namespace) -> int:
    from fight_envs.train.config import load_config
    from fight_envs.train.selfplay import train_main

    try:
        config = load_config(find_config(args.config), args.overrides)
    except ValueError as exc:
        raise SystemExit(f"fight-envs train: {exc}") from None
    from fight_envs.train.selfplay import TrainingDiverged

    try:
        run_dir = train_main(config, trust_checkpoint=args.trust_checkpoint)
    except (ValueError, TrainingDiverged) as exc:  # ConfigError, CheckpointError: named before anything is written
        raise SystemExit(f"fight-envs train: {exc}") from None
    latest = Path(config.runs_dir) / "latest"
    try:
        if latest.is_symlink() or latest.exists():
            latest.unlink()
        latest.symlink_to(run_dir.resolve(), target_is_directory=True)
        print(f"[selfplay] {latest} -> {run_dir}")
    except OSError as exc:  # a read-only or odd file system: the run itself is fine
        print(f"[selfplay] could not update {latest}: {exc}", file=sys.stderr)
    return 0


def cmd_train_rllib(args: argparse.Namespace) -> int:
    try:
        from fight_envs.train.rllib.config import load_rllib_config
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise SystemExit(f"fight-envs train-rllib needs Ray RLlib: pip install 'fight-envs[rllib]' ({exc})") from None
    try:
        config = load_rllib_config(find_config(args.config), args.overrides)
    except ValueError as exc:
        raise SystemExit(f"fight-envs train-rllib: {exc}") from None
    from fight_envs.train.rllib.trainer import train_rllib

    try:
        train_rllib(config, trust_checkpoint=args.trust_checkpoint)
    except ValueError as exc:
        raise SystemExit(f"fight-envs train-rllib: {exc}") from None
    return 0


def cmd_eval(args: argparse.Namespace) -> int:
    from fight_envs.agents.evaluate import format_table, evaluate, versus_baseline

    env_fn = env_factory(args.env, args.players)
    env_fn = records_saving_factory(env_fn, args.save_records)
    game = args.env.split("_v")[0]
    if len(args.agents) == 1:
        # One agent: against n-1 copies of every baseline, seats rotated, deals duplicated.
        agent = make_agents(args.agents, game, args.seed, trust=args.trust_checkpoint)[0]
        print(f"{agent.label} vs baselines, {args.players} players, {args.deals} deals x {args.players} seatings each; "
              f"95% intervals over deals (chance = {1 / args.players:.3f})")
        print(f"{'opponent':<12} {'win rate':>9} {'95% CI':>17} {'margin':>8} {'95% CI':>17} {'W/S/L':>14}")
        for name in args.baselines:
            baseline = make_agents([name], game, args.seed + 100)[0]
            s = versus_baseline(env_fn, agent, baseline, args.deals, seed=args.seed)
            print(f"{name:<12} {s.win_rate:>9.3f} {f'[{s.win_ci[0]:.3f}, {s.win_ci[1]:.3f}]':>17} {s.margin:>8.1f} "
                  f"{f'[{s.margin_ci[0]:.1f}, {s.margin_ci[1]:.1f}]':>17} "
                  f"{f'{s.sole_wins}/{s.shared_wins}/{s.losses}':>14}", flush=True)
        return 0
    if len(args.agents) != args.players:
        raise SystemExit(f"fight-envs eval: {args.players}-player games need {args.players} agents "
                         f"(or one agent to play against the baselines), got {len(args.agents)}")
    agents = make_agents(args.agents, game, args.seed, trust=args.trust_checkpoint)
    result = evaluate(env_fn, agents, args.deals, seed=args.seed, progress=_progress("games"))
    print(format_table(result))
    return 0


def cmd_tournament(args: argparse.Namespace) -> int:
    from fight_envs.agents.tournament import round_robin

    env_fn = env_factory(args.env, args.players)
    agents = make_agents(args.agents, args.env.split("_v")[0], args.seed, trust=args.trust_checkpoint)
    try:
        result = round_robin(env_fn, agents, args.deals, seed=args.seed, progress=_progress("matches"))
    except ValueError as exc:
        raise SystemExit(f"fight-envs tournament: {exc}") from None
    print(result.table())
    if args.plot:
        from fight_envs.agents.plots import plot_ratings

        print(f"ratings plot: {plot_ratings(result.ratings, args.plot, title='Tournament ratings')}")
    return 0


def cmd_play(args: argparse.Namespace) -> int:
    from fight_envs.agents.arena import play_game
    from fight_envs.agents.human import HumanAgent, HumanQuit

    game = args.env.split("_v")[0]
    if not 0 <= args.seat < args.players:
        raise SystemExit(f"fight-envs play: --seat must be in 0..{args.players - 1}")
    opponents = args.opponents or ["heuristic"]
    specs = [opponents[k % len(opponents)] for k in range(args.players - 1)]
    others = make_agents(specs, game, args.seed, trust=args.trust_checkpoint)
    from fight_envs.registry import make

    env = make(args.env, api="raw", num_players=args.players, render_mode="ansi", viewer=args.seat)
    human = HumanAgent(game=game, render_fn=env.render)
    seats = others[: args.seat] + [human] + others[args.seat:]
    try:
        result = play_game(env, seats, seed=args.seed)
    except HumanQuit:
        print("bye")
        return 0
    print(env.render())
    save_record(env, args.save_record)
    print("scores: " + ", ".join(f"P{s} {int(v)}" for s, v in enumerate(result.scores)))
    return 0


def cmd_results(args: argparse.Namespace) -> int:
    from fight_envs.train.results import write_results

    path = write_results(resolve_agent_spec(args.run), deals=args.deals, tournament_deals=args.tournament_deals,
                         out=args.out, seed=args.seed, trust=args.trust_checkpoint)
    print(f"wrote {path}")
    return 0


# ----------------------------------------------------------------------------- parser
def trust_flag(p: argparse.ArgumentParser) -> None:
    p.add_argument("--trust-checkpoint", action="store_true",
                   help="also load pickled checkpoints (SB3 zips from MaskablePPO.save, RLlib's own directories, an "
                        "RLlib run to resume): unpickling runs code stored in the file, so only for files you trust "
                        "(fight-envs writes a data-only format that never needs this; docs/security.md)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="fight-envs", description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("envs", help="list the environments and their options")
    p.set_defaults(func=cmd_envs)

    p = sub.add_parser("train", help="self-play training (MaskablePPO) from a YAML config")
    p.add_argument("--config", default=DEFAULT_CONFIG, help=f"YAML config (default {DEFAULT_CONFIG})")
    p.add_argument("overrides", nargs="*", help="config overrides: key=value or section.key=value")
    trust_flag(p)
    p.set_defaults(func=cmd_train)

    p = sub.add_parser("train-rllib", help="self-play on Ray RLlib (local Ray, or a cluster with ray.address=...)")
    p.add_argument("--config", default=DEFAULT_RLLIB_CONFIG, help=f"YAML config (default {DEFAULT_RLLIB_CONFIG})")
    p.add_argument("overrides", nargs="*", help="config overrides: key=value or section.key=value")
    trust_flag(p)
    p.set_defaults(func=cmd_train_rllib)

    def common(p: argparse.ArgumentParser, deals: int) -> None:
        p.add_argument("--env", default="fight5_v0", help="environment name (default fight5_v0)")
        p.add_argument("--players", type=int, default=2, help="players per game (default 2)")
        p.add_argument("--deals", type=int, default=deals, help=f"deals, each played from every seat (default {deals})")
        p.add_argument("--seed", type=int, default=0, help="seed of the deals and agents (default 0)")

    p = sub.add_parser("eval", help="head-to-head evaluation with duplicate deals and 95%% intervals")
    p.add_argument("agents", nargs="+", help="one agent (then: against each baseline) or one per seat")
    p.add_argument("--baselines", nargs="+", default=list(BASELINES), help="baselines for a single agent")
    common(p, 200)
    trust_flag(p)
    add_save_records_argument(p)
    p.set_defaults(func=cmd_eval)

    p = sub.add_parser("tournament", help="round robin with Elo ratings and their uncertainty")
    p.add_argument("agents", nargs="+", help="agent specs")
    p.add_argument("--plot", default=None, help="write a PNG of the ratings here")
    common(p, 100)
    trust_flag(p)
    p.set_defaults(func=cmd_tournament)

    p = sub.add_parser("play", help="play a game at the terminal against agents")
    p.add_argument("--opponents", nargs="*", default=None, help="agent specs for the other seats (default heuristic)")
    p.add_argument("--seat", type=int, default=0, help="your seat (default 0)")
    p.add_argument("--env", default="fight5_v0")
    p.add_argument("--players", type=int, default=2)
    p.add_argument("--seed", type=int, default=None, help="seed of the deal (default random)")
    trust_flag(p)
    add_save_record_argument(p)
    p.set_defaults(func=cmd_play)

    p = sub.add_parser("results", help="regenerate docs/results.md from a trained run")
    p.add_argument("--run", default="runs/latest", help="run directory or checkpoint (default runs/latest)")
    p.add_argument("--deals", type=int, default=1000, help="deals per baseline (x2 seatings) (default 1000)")
    p.add_argument("--tournament-deals", type=int, default=200, help="deals per tournament pairing (default 200)")
    p.add_argument("--out", default=str(project_root() / "docs" / "results.md"))
    p.add_argument("--seed", type=int, default=2026)
    trust_flag(p)
    p.set_defaults(func=cmd_results)

    # ladder / ablate: the logic lives in fight_envs.agents.ladder / fight_envs.agents.ablation
    p = sub.add_parser("ladder", help="a game's skill ladder: every pairing in duplicate deals, Elo, head to head, split rate")
    p.add_argument("game", help="fight5, brawl, fifth_earth or fight_klub")
    p.add_argument("--players", type=int, default=2, help="players per game (default 2)")
    p.add_argument("--deals", type=int, default=100, help="deals per pairing, each played from every seat (default 100)")
    p.add_argument("--agents", nargs="+", default=None, help="agent specs (default: the game's standard line-up)")
    p.add_argument("--models", nargs="*", default=[], help="trained models to add to the standard line-up")
    p.add_argument("--out", default=None, help="folder for ladder_<game>.md/.png/.json (default docs/ in the current folder)")
    p.add_argument("--seed", type=int, default=0)
    p.set_defaults(func=lambda a: _ladder_cli(a))

    p = sub.add_parser("ablate", help="the win-rate cost of each decision kind, played at random, against the unmodified agent")
    p.add_argument("game", help="fight5, brawl, fifth_earth or fight_klub")
    p.add_argument("--agent", default="heuristic", help="the agent ablated (default heuristic; search specs work too)")
    p.add_argument("--players", type=int, default=2, help="players per game (default 2)")
    p.add_argument("--deals", type=int, default=100, help="deals per decision kind (default 100)")
    p.add_argument("--out", default=None, help="also write the table (markdown) to this file")
    p.add_argument("--seed", type=int, default=0)
    p.set_defaults(func=lambda a: _ablate_cli(a))
    add_replay_parser(sub)
    return parser


def _ladder_cli(args: argparse.Namespace) -> int:
    from fight_envs.agents.ladder import ladder_command

    try:
        return ladder_command(args.game, args.players, args.deals, args.agents, args.models, args.out, args.seed,
                              default_out="docs")
    except ValueError as exc:
        raise SystemExit(f"fight-envs ablate: {exc}") from None


def _ablate_cli(args: argparse.Namespace) -> int:
    from fight_envs.agents.ablation import ablate_command

    try:
        return ablate_command(args.game, args.agent, args.players, args.deals, args.out, args.seed)
    except ValueError as exc:
        raise SystemExit(f"fight-envs ladder: {exc}") from None


def _missing_extra(exc: ModuleNotFoundError) -> str:
    top = (exc.name or "").split(".")[0]
    extra = EXTRAS.get(top)
    if extra is None:
        return f"a module is missing: {exc}"
    return f"this needs the '{extra}' extra (module {top!r} is not installed): pip install 'fight-envs[{extra}]'"


def main(argv: list[str] | None = None) -> int:
    os.environ.setdefault("MPLBACKEND", "Agg")
    parser = build_parser()
    args = parser.parse_args(argv)
    prog = f"fight-envs {args.command}"
    try:
        return int(args.func(args) or 0)
    except BrokenPipeError:  # output piped into `head` and closed early: not an error
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    raise SystemExit(main())
