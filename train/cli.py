"""The ``fight-envs`` command line: train, evaluate, hold tournaments, play, list environments.

Every subcommand is a thin layer over the library (``fight_envs.train.selfplay``, ``fight_envs.agents.evaluate``,
``fight_envs.agents.tournament``, ``fight_envs.agents.human``), so what the command line reports is what the tests
check. Agents are named by spec: a baseline name of the game (``fight-envs envs`` lists them), a
checkpoint file (``.zip``), an RLlib checkpoint directory, a run directory (its ``final.zip``
or ``final/``, else its newest checkpoint), or a model shipped with the package
(``models/fight5_2p_default.zip``, found inside the package when no such file is here).

    fight-envs envs
    fight-envs train [--config fight5_selfplay_batched.yaml] [key=value ...]   # a shipped config or a path
    fight-envs train --list-keys                                            # every config key, its default
    fight-envs train-rllib [--config rllib_fight5.yaml] [key=value ...]     # on Ray RLlib
    fight-envs eval runs/latest [--deals 200]                # vs the game's baselines; game from the checkpoint
    fight-envs eval heuristic random --env brawl_v0          # head to head
    fight-envs tournament runs/latest heuristic random [--plot ratings.png]
    fight-envs play [--env "fifth_earth_v0(num_destinations=5)"] [--opponents heuristic] [--seat 0]
    fight-envs results [--run runs/latest] [--out results.md]  # a results page, in the current folder by default
    fight-envs replay game.json [--gif game.gif] [--svg DIR] [--html game.html]   # pictures of a record

Every verb that plays takes env options, OpenSpiel-style in ``--env NAME(key=value, ...)`` or one
at a time with ``--env-opt key=value``. Errors are one line on stderr and a non-zero exit.
"""

from __future__ import annotations

import argparse
import ast
import os
import re
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fight_envs.drawing.commands import (
    add_replay_parser,
    add_save_record_argument,
    add_save_records_argument,
    records_saving_factory,
    save_record,
)

DEFAULT_CONFIG = "fight5_selfplay_batched.yaml"
"""The default recipe (shipped in the package): 2-player Fight 5 on the batched engine, about five minutes on 2 cores."""
DEFAULT_RLLIB_CONFIG = "rllib_fight5.yaml"
DEFAULT_ENV = "fight5_v0"
DEFAULT_RESULTS_MODEL = "fight5_2p_default.zip"
"""What ``fight-envs results`` evaluates when there is no ``runs/latest`` here: the shipped Fight 5 model."""
EXIT_ERROR = 2
EXIT_INTERRUPTED = 130
EXTRAS = {
    "torch": "train", "stable_baselines3": "train", "sb3_contrib": "train", "tensorboard": "train", "yaml": "train",
    "matplotlib": "train", "tqdm": "train", "rich": "train", "ray": "rllib",
}
"""Top-level module -> the extra of ``fight-envs`` that installs it."""


class CLIError(Exception):
    """A mistake on the command line: printed as one line, exit status 2."""


def version() -> str:
    try:
        from importlib.metadata import version as dist_version

        return dist_version("fight-envs")
    except Exception:  # running from a checkout that is not installed
        from fight_envs import __version__

        return __version__


# ----------------------------------------------------------------------------- files
def find_config(path: str) -> Path:
    """``path`` as given when it is a file here, else the shipped config of that name."""
    given = Path(path)
    if given.is_file():
        return given
    from fight_envs.resources import config_path, list_resources

    try:
        return config_path(given.name if given.parent == Path("configs") or given.parent == Path(".") else path)
    except ValueError:
        shipped = ", ".join(list_resources("configs"))
        raise CLIError(f"no config file at {path!r} (and no shipped config of that name; shipped: {shipped})") from None


def resolve_agent_spec(spec: str) -> str:
    """A run directory becomes its final model (or newest checkpoint); a shipped model's name its file; else kept."""
    path = Path(spec)
    if not path.exists() and (spec.startswith("models/") or spec.endswith(".zip")):
        from fight_envs.resources import model_path

        try:
            return str(model_path(path.name))
        except ValueError:
            pass
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
        raise CLIError(f"{spec!r} is a directory with no final.zip, final/ or checkpoints/ to load")
    return spec


def checkpoint_metadata(spec: str) -> dict[str, Any] | None:
    """What a checkpoint spec records about its game (env, env_options, num_players), or None for a baseline."""
    from fight_envs.agents.registry import is_checkpoint_spec

    resolved = resolve_agent_spec(spec)
    if os.path.isdir(resolved):
        from fight_envs.agents.rllib_agent import read_rllib_metadata

        return read_rllib_metadata(resolved) or None
    if is_checkpoint_spec(resolved) and os.path.isfile(resolved):
        from fight_envs.agents.checkpoint import read_metadata

        return read_metadata(resolved)
    return None


# ----------------------------------------------------------------------------- environments
ENV_SPEC = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?:\((.*)\))?\s*$", re.S)


def parse_value(text: str) -> Any:
    """A command-line value: a Python literal (``5``, ``[2, 3]``, ``'x'``), true/false/none, else the text."""
    t = text.strip()
    if t.lower() in ("true", "false"):
        return t.lower() == "true"
    if t.lower() in ("none", "null"):
        return None
    try:
        return ast.literal_eval(t)
    except (ValueError, SyntaxError):
        return t


def _split_top(text: str) -> list[str]:
    """Split on commas that are not inside brackets or quotes."""
    parts, depth, quote, cur = [], 0, "", []
    for ch in text:
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
            continue
        cur.append(ch)
    parts.append("".join(cur))
    return [p for p in parts if p.strip()]


def _key_value(item: str, where: str) -> tuple[str, Any]:
    key, sep, value = item.partition("=")
    if not sep or not key.strip().isidentifier():
        raise CLIError(f"{where} {item.strip()!r} is not key=value (e.g. num_players=3)")
    return key.strip(), parse_value(value)


@dataclass
class EnvChoice:
    """An environment named on the command line: its registry name and constructor options."""

    name: str
    options: dict[str, Any] = field(default_factory=dict)

    @property
    def game(self) -> str:
        return re.sub(r"_v\d+$", "", self.name)

    @property
    def num_players(self) -> int:
        return int(self.options["num_players"])

    def make(self, **extra: Any) -> Any:
        from fight_envs.registry import make

        return make(self.name, api="raw", **{**self.options, **extra})

    def factory(self):
        return lambda: self.make()

    def describe(self) -> str:
        shown = {k: v for k, v in self.options.items() if k != "num_players"}
        inner = ", ".join(f"{k}={v!r}" for k, v in shown.items())
        return f"{self.name}({inner})" if inner else self.name


def choose_env(args: argparse.Namespace, recorded: dict[str, Any] | None = None) -> EnvChoice:
    """The env of ``--env``, ``--env-opt`` and ``--players`` (or, without ``--env``, the one ``recorded``
    by a checkpoint, else Fight 5), built once so that a bad option is reported before anything runs."""
    from fight_envs.registry import spec

    text = args.env
    options: dict[str, Any] = {}
    if text is None and recorded:
        name = str(recorded.get("env", DEFAULT_ENV))
        options = {k: v for k, v in dict(recorded.get("env_options") or {}).items() if k not in ("reward", "render_mode")}
        if args.players is None and recorded.get("num_players"):
            options["num_players"] = int(list(recorded["num_players"])[0])
    else:
        match = ENV_SPEC.match(text or DEFAULT_ENV)
        if match is None:
            raise CLIError(f"--env {text!r} is not NAME or NAME(key=value, ...), e.g. fifth_earth_v0(num_destinations=5)")
        name, inner = match.groups()
        for item in _split_top(inner or ""):
            key, value = _key_value(item, "--env option")
            options[key] = value
    env_spec = spec(name)  # ConfigError naming the registered envs
    for item in args.env_opt or []:
        key, value = _key_value(item, "--env-opt")
        options[key] = value
    if args.players is not None:
        options["num_players"] = args.players
    options.setdefault("num_players", env_spec.options.get("num_players", 2))
    choice = EnvChoice(name, options)
    choice.make()  # ConfigError naming the bad option and what is allowed
    return choice


def game_baselines(game: str) -> list[str]:
    """The game's own scripted baselines (not the person at the terminal)."""
    from fight_envs.agents.registry import list_agents

    return [name for name in list_agents(game) if name != "human"]


def make_agents(specs: list[str], game: str, seed: int | None, trust: bool = False) -> list[Any]:
    from fight_envs.agents.registry import make_agent

    agents = []
    for k, spec in enumerate(specs):
        try:
            agents.append(make_agent(resolve_agent_spec(spec), game=game, seed=None if seed is None else seed + k,
                                     trust=trust))
        except ValueError as exc:
            raise CLIError(str(exc)) from None
    return agents


def _progress(label: str, every_s: float = 5.0):
    start = time.monotonic()
    last = [start]

    def report(done: int, total: int) -> None:
        now = time.monotonic()
        if now - last[0] >= every_s or done == total:
            last[0] = now
            print(f"  {label}: {done}/{total} ({now - start:.0f}s)", file=sys.stderr, flush=True)

    return report


def _reports_scores(choice: EnvChoice) -> bool:
    """True when the game keeps a score (``info['score']``): then a score margin means something."""
    env = choice.make()
    env.reset(seed=0)
    return all("score" in env.infos[a] for a in env.agents)


# ----------------------------------------------------------------------------- subcommands
def cmd_envs(args: argparse.Namespace) -> int:
    from fight_envs.registry import list_envs

    for spec in list_envs():
        print(f"{spec.name}  ({spec.module})")
        print(f"  {spec.description}")
        print(f"  rules: {spec.rules_path}")
        try:
            print(f"  baselines: {', '.join(game_baselines(spec.name))}")
        except ValueError:
            pass
        options = spec.options
        width = max(map(len, options), default=0)
        for key, default in options.items():
            print(f"  {key:<{width}}  default {default!r:<12} allowed {spec.option_ranges.get(key, '')}")
    return 0


def _config_keys(obj: Any, prefix: str = "") -> list[tuple[str, Any]]:
    import dataclasses

    rows = []
    for f in dataclasses.fields(obj):
        value = getattr(obj, f.name)
        if dataclasses.is_dataclass(value):
            rows += _config_keys(value, f"{prefix}{f.name}.")
        else:
            rows.append((f"{prefix}{f.name}", value))
    return rows


def cmd_train(args: argparse.Namespace) -> int:
    from fight_envs.train.config import Config, load_config

    if args.list_keys:
        config_file = find_config(args.config)
        chosen = dict(_config_keys(load_config(config_file, args.overrides)))
        print(f"training-config keys: the default of each (Config's), and its value with {config_file.name}"
              + (" and the overrides" if args.overrides else "") + "; override any with key=value")
        for key, default in _config_keys(Config()):
            value = chosen.get(key, default)
            mark = "" if value == default else f"   ({config_file.name}: {value!r})"
            print(f"  {key:<32} {default!r}{mark}")
        return 0
    from fight_envs.train.selfplay import TrainingDiverged, train_main

    config = load_config(find_config(args.config), args.overrides)
    try:
        run_dir = train_main(config, trust_checkpoint=args.trust_checkpoint)
    except TrainingDiverged as exc:
        raise CLIError(str(exc)) from None
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
    from fight_envs.train.rllib.config import load_rllib_config

    config = load_rllib_config(find_config(args.config), args.overrides)
    from fight_envs.train.rllib.trainer import train_rllib

    from fight_envs.train.config import TrainingDiverged

    try:
        train_rllib(config, trust_checkpoint=args.trust_checkpoint)
    except TrainingDiverged as exc:
        raise CLIError(str(exc)) from None
    return 0


def _recorded(specs: list[str]) -> dict[str, Any] | None:
    """The game recorded by the first checkpoint among ``specs`` (for ``eval``/``tournament`` without ``--env``)."""
    for spec in specs:
        meta = checkpoint_metadata(spec)
        if meta:
            return meta
    return None


def _eval_field(choice: EnvChoice, specs: list[str], seed: int, trust: bool,
                baseline: str | None = None) -> tuple[Any, list[Any]]:
    """One line of ``eval``: (env factory, agents). ``baseline``: the one agent of ``specs`` against n-1
    copies of it. A module-level function of plain arguments, so that ``--jobs`` workers build the same."""
    import copy

    if baseline is None:
        return choice.factory(), make_agents(specs, choice.game, seed, trust=trust)
    agent = make_agents(specs, choice.game, seed, trust=trust)[0]
    base = make_agents([baseline], choice.game, seed + 100)[0]
    return choice.factory(), [agent] + [copy.deepcopy(base) for _ in range(choice.num_players - 1)]


def cmd_eval(args: argparse.Namespace) -> int:
    import functools

    from fight_envs.agents.evaluate import evaluate, evaluate_parallel, format_table

    if args.jobs < 1:
        raise CLIError(f"--jobs must be 1 or more (worker processes playing the deals), got {args.jobs}")
    if args.jobs > 1 and args.save_records:
        raise CLIError("--save-records numbers the games in the order one process plays them; use it with --jobs 1")
    choice = choose_env(args, _recorded(args.agents) if args.env is None else None)
    n = choice.num_players
    trust = args.trust_checkpoint
    env_fn = records_saving_factory(choice.factory(), args.save_records)  # one numbering for the whole command

    def run(baseline: str | None, label: str) -> Any:
        build = functools.partial(_eval_field, choice, list(args.agents), args.seed, trust, baseline)
        if args.jobs > 1:
            return evaluate_parallel(build, args.deals, seed=args.seed, jobs=args.jobs, progress=_progress(label))
        return evaluate(env_fn, build()[1], args.deals, seed=args.seed, progress=_progress(label))

    if len(args.agents) == 1:
        # One agent: against n-1 copies of every baseline, seats rotated, deals duplicated.
        agent = make_agents(args.agents, choice.game, args.seed, trust=trust)[0]
        baselines = args.baselines or game_baselines(choice.game)
        make_agents(baselines, choice.game, args.seed + 100)  # every name checked before the first game
        scored = _reports_scores(choice)
        _eval_header(agent.label, choice, n, args.deals, scored)
        for name in baselines:
            _eval_row(name, run(name, f"vs {name}").stats[0], scored)
        return 0
    if len(args.agents) != n:
        raise CLIError(f"{n}-player games need {n} agents (or one agent to play against the baselines), "
                       f"got {len(args.agents)}; set the count with --players")
    print(format_table(run(None, "games")))
    return 0


def _eval_header(label: str, choice: EnvChoice, n: int, deals: int, scored: bool) -> None:
    print(f"{label} vs baselines on {choice.describe()}, {n} players, {deals} deals x {n} seatings each; "
          f"95% intervals over deals (chance = {1 / n:.3f})")
    margin_head = f" {'margin':>8} {'95% CI':>17}" if scored else ""
    print(f"{'opponent':<16} {'win rate':>9} {'95% CI':>17}{margin_head} {'W/S/L':>14}", flush=True)


def _eval_row(name: str, s: Any, scored: bool) -> None:
    margin = f" {s.margin:>8.1f} {f'[{s.margin_ci[0]:.1f}, {s.margin_ci[1]:.1f}]':>17}" if scored else ""
    print(f"{name:<16} {s.win_rate:>9.3f} {f'[{s.win_ci[0]:.3f}, {s.win_ci[1]:.3f}]':>17}{margin} "
          f"{f'{s.sole_wins}/{s.shared_wins}/{s.losses}':>14}", flush=True)


def cmd_ensemble(args: argparse.Namespace) -> int:
    """Join trained checkpoints of one env into an ensemble checkpoint (``agents.checkpoint.save_ensemble``)."""
    from fight_envs.agents.checkpoint import read_metadata, save_ensemble

    out = Path(args.out)
    if out.suffix != ".zip":
        raise CLIError(f"the ensemble's file must end in .zip (a checkpoint), got {args.out!r}")
    members = [resolve_agent_spec(m) for m in args.members]  # a run folder: its final model; a shipped model's name
    save_ensemble(members, out, label=args.label)
    meta = read_metadata(out)
    print(f"wrote {out} ({out.stat().st_size / 1e6:.1f} MB) and its sidecar: {meta['label']}, "
          f"{len(members)} policies of {meta['env']} (their logits averaged)")
    return 0


def cmd_tournament(args: argparse.Namespace) -> int:
    from fight_envs.agents.tournament import round_robin

    choice = choose_env(args, _recorded(args.agents or []) if args.env is None else None)
    specs = args.agents or game_baselines(choice.game)
    if len(specs) < 2:
        raise CLIError(f"a tournament needs at least two agents, got {specs}")
    agents = make_agents(specs, choice.game, args.seed, trust=args.trust_checkpoint)
    result = round_robin(choice.factory(), agents, args.deals, seed=args.seed, progress=_progress("matches"))
    print(result.table())
    if args.plot:
        from fight_envs.agents.plots import plot_ratings

        print(f"ratings plot: {plot_ratings(result.ratings, args.plot, title='Tournament ratings')}")
    return 0


def cmd_play(args: argparse.Namespace) -> int:
    from fight_envs.agents.arena import play_game
    from fight_envs.agents.human import HumanAgent, HumanQuit, action_namer, outcome_line

    opponents = args.opponents or ["heuristic"]
    choice = choose_env(args, _recorded(opponents) if args.env is None else None)
    n = choice.num_players
    if not 0 <= args.seat < n:
        raise CLIError(f"--seat must be in 0..{n - 1} for {n} players, got {args.seat}")
    specs = [opponents[k % len(opponents)] for k in range(n - 1)]
    seed = args.seed if args.seed is not None else int.from_bytes(os.urandom(4), "little")
    others = make_agents(specs, choice.game, seed, trust=args.trust_checkpoint)
    env = choice.make(render_mode="ansi", viewer=args.seat)
    human = HumanAgent(game=choice.game, render_fn=env.render, name_fn=action_namer(env, args.seat))
    seats = others[: args.seat] + [human] + others[args.seat:]
    print(f"{choice.describe()}, {n} players, you are player_{args.seat}; deal seed {seed} (--seed {seed} replays it)")
    try:
        result = play_game(env, seats, seed=seed)
    except HumanQuit:
        print("bye")
        save_record(env, args.save_record)  # the game so far
        return 0
    print(env.render())
    save_record(env, args.save_record)
    print(outcome_line(env, result, args.seat))
    return 0


def cmd_results(args: argparse.Namespace) -> int:
    from fight_envs.train.results import write_results

    run = args.run
    if run is None:
        run = "runs/latest" if Path("runs/latest").exists() else f"models/{DEFAULT_RESULTS_MODEL}"
    model = resolve_agent_spec(run)
    if not Path(model).exists():
        raise CLIError(f"no run or checkpoint at {run!r}")
    print(f"[results] evaluating {model}; writing {args.out}", file=sys.stderr, flush=True)
    path = write_results(model, deals=args.deals, tournament_deals=args.tournament_deals, out=args.out,
                         baseline_deals=args.baseline_deals,
                         seed=args.seed, trust=args.trust_checkpoint, progress=True, run_label=run)
    print(f"wrote {path}")
    return 0


# ----------------------------------------------------------------------------- parser
def trust_flag(p: argparse.ArgumentParser) -> None:
    p.add_argument("--trust-checkpoint", action="store_true",
                   help="also load pickled checkpoints (SB3 zips from MaskablePPO.save, RLlib's own directories, an "
                        "RLlib run to resume): unpickling runs code stored in the file, so only for files you trust "
                        "(fight-envs writes a data-only format that never needs this; docs/security.md)")


def env_flags(p: argparse.ArgumentParser, env_help: str = "") -> None:
    p.add_argument("--env", default=None,
                   help="environment, with options OpenSpiel-style: fight5_v0, \"fifth_earth_v0(num_destinations=5)\" "
                        f"(default {env_help or DEFAULT_ENV}); fight-envs envs lists them")
    p.add_argument("--env-opt", action="append", default=[], metavar="KEY=VALUE",
                   help="one env option (repeatable), e.g. --env-opt decks=\"['Vega', 'Hollow']\"")
    p.add_argument("--players", type=int, default=None, help="players per game (default: the env's, or the checkpoint's)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="fight-envs", description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"fight-envs {version()}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("envs", help="list the environments, their options and baselines")
    p.set_defaults(func=cmd_envs)

    p = sub.add_parser("train", help="self-play training (MaskablePPO) from a YAML config")
    p.add_argument("--config", default=DEFAULT_CONFIG,
                   help=f"YAML config: a path, or the name of a shipped one (default {DEFAULT_CONFIG})")
    p.add_argument("--list-keys", action="store_true", help="list every training-config key with its default, and exit")
    p.add_argument("overrides", nargs="*", help="config overrides: key=value or section.key=value (see --list-keys)")
    trust_flag(p)
    p.set_defaults(func=cmd_train)

    p = sub.add_parser("train-rllib", help="self-play on Ray RLlib (local Ray, or a cluster with ray.address=...)")
    p.add_argument("--config", default=DEFAULT_RLLIB_CONFIG, help=f"YAML config (default {DEFAULT_RLLIB_CONFIG})")
    p.add_argument("overrides", nargs="*", help="config overrides: key=value or section.key=value")
    trust_flag(p)
    p.set_defaults(func=cmd_train_rllib)

    def common(p: argparse.ArgumentParser, deals: int, env_help: str = "") -> None:
        env_flags(p, env_help)
        p.add_argument("--deals", type=int, default=deals, help=f"deals, each played from every seat (default {deals})")
        p.add_argument("--seed", type=int, default=0, help="seed of the deals and agents (default 0)")

    p = sub.add_parser("eval", help="head-to-head evaluation with duplicate deals and 95%% intervals")
    p.add_argument("agents", nargs="+", help="one agent (then: against each baseline of the game) or one per seat")
    p.add_argument("--baselines", nargs="+", default=None, help="baselines for a single agent (default: the game's own)")
    common(p, 200, env_help="the checkpoint's game, else fight5_v0")
    p.add_argument("--jobs", type=int, default=1,
                   help="worker processes playing the deals (default 1); the same games and result as one")
    trust_flag(p)
    add_save_records_argument(p)
    p.set_defaults(func=cmd_eval)

    p = sub.add_parser("ensemble", help="join trained checkpoints of one env into one agent (their logits averaged)")
    p.add_argument("out", help="the ensemble checkpoint to write (.zip; its .json sidecar beside it)")
    p.add_argument("members", nargs="+", help="two or more data-only checkpoints (.zip, a shipped model's name) or run folders (their final model)")
    p.add_argument("--label", default=None, help="the ensemble's name in tables (default: ensemble(<member labels>))")
    p.set_defaults(func=cmd_ensemble)

    p = sub.add_parser("tournament", help="round robin with Elo ratings and their uncertainty")
    p.add_argument("agents", nargs="*", help="agent specs (default: the game's baselines)")
    p.add_argument("--plot", default=None, help="write a PNG of the ratings here")
    common(p, 100, env_help="the first checkpoint's game, else fight5_v0")
    trust_flag(p)
    p.set_defaults(func=cmd_tournament)

    p = sub.add_parser("play", help="play a game at the terminal against agents")
    p.add_argument("--opponents", nargs="*", default=None, help="agent specs for the other seats (default heuristic)")
    p.add_argument("--seat", type=int, default=0, help="your seat (default 0)")
    env_flags(p, "the opponent checkpoint's game, else fight5_v0")
    p.add_argument("--seed", type=int, default=None, help="seed of the deal (default: a fresh one, printed)")
    trust_flag(p)
    add_save_record_argument(p)
    p.set_defaults(func=cmd_play)

    p = sub.add_parser("results", help="a results page (Fight 5): a trained model against the baselines, a tournament")
    p.add_argument("--run", default=None,
                   help=f"run directory or checkpoint (default runs/latest if it exists, else the shipped "
                        f"models/{DEFAULT_RESULTS_MODEL})")
    p.add_argument("--deals", type=int, default=1000, help="deals per baseline (x2 seatings) (default 1000)")
    p.add_argument("--tournament-deals", type=int, default=200, help="deals per tournament pairing (default 200)")
    p.add_argument("--baseline-deals", type=int, default=500, help="deals per baseline pairing (default 500)")
    p.add_argument("--out", default="results.md",
                   help="the page to write; its plots go beside it (default results.md in the current folder)")
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
    p.add_argument("--env-opt", action="append", default=[], metavar="KEY=VALUE",
                   help="one env option (repeatable), e.g. --env-opt combo=\"'single'\" for brawl")
    p.set_defaults(func=lambda a: _ablate_cli(a))
    add_replay_parser(sub)
    return parser


def _ladder_cli(args: argparse.Namespace) -> int:
    from fight_envs.agents.ladder import ladder_command

    try:
        return ladder_command(args.game, args.players, args.deals, args.agents, args.models, args.out, args.seed,
                              default_out="docs")
    except ValueError as exc:
        raise SystemExit(f"fight-envs ladder: {exc}") from None


def _ablate_cli(args: argparse.Namespace) -> int:
    from fight_envs.agents.ablation import ablate_command

    options = dict(_key_value(item, "--env-opt") for item in args.env_opt)
    try:
        return ablate_command(args.game, args.agent, args.players, args.deals, args.out, args.seed, options)
    except ValueError as exc:
        raise SystemExit(f"fight-envs ablate: {exc}") from None


def _missing_extra(exc: ModuleNotFoundError) -> str:
    top = (exc.name or "").split(".")[0]
    extra = EXTRAS.get(top)
    if extra is None:
        return f"a module is missing: {exc}"
    return f"this needs the '{extra}' extra (module {top!r} is not installed): pip install 'fight-envs[{extra}]'"


PLAYING_COMMANDS = frozenset({"eval", "tournament", "play", "results", "ladder", "ablate", "replay"})
"""The verbs that only play games: torch gets one thread there (``main``); training sets its own
(the config's ``torch_threads``)."""


def main(argv: list[str] | None = None) -> int:
    os.environ.setdefault("MPLBACKEND", "Agg")
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command in PLAYING_COMMANDS:
        # One torch thread unless the user set OMP_NUM_THREADS (read when torch is first imported,
        # which these verbs do only later, to load a model). They run a policy one decision at a time,
        # which a second thread does not speed up (a 200-deal Fight Klub eval: 21.4 s with one, 23.1 s
        # with the default two), and two such commands side by side on 2 cores, each spinning two
        # OpenMP threads, ran 7 times slower than with one thread each.
        os.environ.setdefault("OMP_NUM_THREADS", "1")
    prog = f"fight-envs {args.command}"
    try:
        return int(args.func(args) or 0)
    except BrokenPipeError:  # output piped into `head` and closed early: not an error
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except KeyboardInterrupt:
        print(f"\n{prog}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except ModuleNotFoundError as exc:
        print(f"{prog}: {_missing_extra(exc)}", file=sys.stderr)
        return EXIT_ERROR
    except (CLIError, ValueError, OSError) as exc:  # ConfigError, CheckpointError, files: one line, no traceback
        text = " ".join(str(exc).split()) or type(exc).__name__
        print(f"{prog}: {text}", file=sys.stderr)
        return EXIT_ERROR


if __name__ == "__main__":
    raise SystemExit(main())
