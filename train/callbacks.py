"""What happens around PPO's updates during self-play: pool upkeep, checkpoints, evaluation, progress.

Each concern is one SB3 callback, combined in ``fight_envs.train.selfplay``:

* :class:`PoolCallback`: reads the learner's game results from the episode-end infos (``result``,
  ``opponents``), snapshots the learner into the opponent pool every ``snapshot_every`` steps,
  and rewrites the pool manifest after every rollout. Scalars: ``selfplay/train_winrate`` (last
  100 training games), ``selfplay/train_winrate_<n>p`` per player count,
  ``selfplay/train_winrate_vs_<baseline>``, ``selfplay/pool_snapshots``, ``selfplay/mix_<key>``.
* :class:`CheckpointCallback`: a full MaskablePPO checkpoint (optimizer included, for resume)
  with its metadata sidecar every ``checkpoint_every`` steps, keeping the newest
  ``keep_checkpoints``; the pool state and the evaluation history are saved with it.
* :class:`EvalCallback`: every ``eval.every`` steps, plays the learner (deterministic by default)
  against each baseline with ``fight_envs.agents.evaluate`` (duplicate format: every deal once per seat
  rotation); scalars ``selfplay/winrate_vs_<baseline>`` and ``selfplay/rating`` (Elo scale, from
  a Bradley-Terry fit of all evaluations so far by ``fight_envs.agents.ratings``, anchored at random = 1000)
  and ``selfplay/rating_<baseline>``.
* :class:`ProgressLogCallback`: one concise line every ``log_every_s`` seconds (steps, steps/s,
  training win rate, last evaluation, time left) for runs without a progress bar.

Step thresholds are multiples of their interval counted on the global timestep counter, so a
resumed run keeps the same grid.
"""

from __future__ import annotations

import json
import re
import time
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from stable_baselines3.common.callbacks import BaseCallback

from fight_envs.agents.checkpoint import PolicyAgent, save_checkpoint
from fight_envs.core.atomic import atomic_write
from fight_envs.agents.evaluate import evaluate
from fight_envs.agents.ratings import elo_ratings
from fight_envs.train.config import EvalConfig
from fight_envs.train.opponents import OpponentPool, make_baseline

TRAIN_WINDOW = 100
CHECKPOINT_PATTERN = re.compile(r"^step_(\d+)\.zip$")
RATING_ANCHOR = "random"


def next_multiple(step: int, every: int) -> int:
    """The first multiple of ``every`` strictly after ``step``."""
    return (step // every + 1) * every


def checkpoint_name(step: int) -> str:
    return f"step_{step:010d}.zip"


def list_checkpoints(checkpoint_dir: Path) -> list[tuple[int, Path]]:
    """(timesteps, path) of every full checkpoint in ``checkpoint_dir``, oldest first."""
    found = []
    for p in checkpoint_dir.glob("step_*.zip"):
        m = CHECKPOINT_PATTERN.match(p.name)
        if m:
            found.append((int(m.group(1)), p))
    return sorted(found)


HISTORY_KEYS = {"step": int, "opponent": str, "winrate": float, "games": int}


def read_history(path: Path, up_to_step: int | None = None,
                 warn: Callable[[str], None] = lambda m: print(m, flush=True)) -> list[dict[str, Any]]:
    """The evaluation history's rows (up to ``up_to_step`` when given); a line that is not a complete
    row (a file cut by a crash before writes were atomic) is reported and skipped."""
    rows = []
    for n, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            ok = isinstance(row, dict) and all(isinstance(row.get(k), t if t is not float else (int, float))
                                               and not isinstance(row.get(k), bool) for k, t in HISTORY_KEYS.items())
        except (json.JSONDecodeError, RecursionError):
            ok = False
        if not ok:
            warn(f"[selfplay] {path}:{n}: skipping a line that is not an evaluation row ({line[:60]!r}); "
                 f"rows hold {', '.join(HISTORY_KEYS)}")
            continue
        if up_to_step is None or row["step"] <= up_to_step:
            rows.append(row)
    return rows


class PoolCallback(BaseCallback):
    """Feeds results to the opponent pool, takes snapshots, rewrites the manifest."""

    def __init__(self, pool: OpponentPool, snapshot_every: int, metadata: Callable[[int], dict[str, Any]]) -> None:
        super().__init__()
        self.pool = pool
        self.snapshot_every = snapshot_every
        self.metadata = metadata
        self.recent: deque[float] = deque(maxlen=TRAIN_WINDOW)
        self.recent_by_count: dict[int, deque[float]] = {}
        self._next_snapshot = 0

    def _on_training_start(self) -> None:
        self._next_snapshot = next_multiple(self.num_timesteps, self.snapshot_every)

    def _on_step(self) -> bool:
        for info in self.locals["infos"]:
            if "result" in info:
                self.pool.record(info["opponents"], info["result"])
                self.recent.append(info["result"])
                self.recent_by_count.setdefault(info["num_players"], deque(maxlen=TRAIN_WINDOW)).append(info["result"])
        if self.num_timesteps >= self._next_snapshot:
            self.pool.add_snapshot(self.model.policy, self.num_timesteps, self.metadata(self.num_timesteps))
            self._next_snapshot = next_multiple(self.num_timesteps, self.snapshot_every)
        return True

    def _on_rollout_end(self) -> None:
        self.pool.write_manifest(self.num_timesteps)
        if self.recent:
            self.logger.record("selfplay/train_winrate", float(np.mean(self.recent)))
        if len(self.recent_by_count) > 1:
            for n, results in sorted(self.recent_by_count.items()):
                self.logger.record(f"selfplay/train_winrate_{n}p", float(np.mean(results)))
        for name in self.pool.baselines:
            if self.pool.games_played(name):
                self.logger.record(f"selfplay/train_winrate_vs_{name}", self.pool.winrate(name))
        self.logger.record("selfplay/pool_snapshots", len(self.pool.active_snapshots()))
        for key, weight in self.pool.mix(self.num_timesteps).items():
            self.logger.record(f"selfplay/mix_{key}", weight)


class Evaluator:
    """Plays the learner against each baseline and keeps the history that the rating is fitted on."""

    def __init__(self, config: EvalConfig, env_name: str, env_options: dict[str, Any], game: str, seed: int,
                 history_path: Path) -> None:
        self.config = config
        self.env_name = env_name
        # Evaluation counts wins from the env's default reward (Fight 5: the outcome), whatever
        # reward the learner trains on; dropping the key lets each game use its own default.
        self.env_options = {**{k: v for k, v in env_options.items() if k != "reward"},
                            "num_players": config.num_players}
        self.game = game
        self.seed = seed
        self.history_path = history_path
        self.history: list[dict[str, Any]] = []
        if history_path.is_file():
            self.history = read_history(history_path)

    def _env(self) -> Any:
        from fight_envs.registry import make

        return make(self.env_name, api="raw", **self.env_options)

    def run(self, policy: Any, step: int) -> dict[str, float]:
        """Win rate of the learner against every baseline (and record them)."""
        return self.run_agent(PolicyAgent(policy, deterministic=self.config.deterministic, name=f"learner@{step}"), step)

    def run_agent(self, learner: Any, step: int) -> dict[str, float]:
        """Win rate of ``learner`` (any suite Agent) against every baseline (and record them)."""
        n = self.config.num_players
        deals = max(1, self.config.games // n)
        winrates = {}
        for name in self.config.baselines:
            agents = [learner] + [make_baseline(name, self.game) for _ in range(n - 1)]
            result = evaluate(self._env, agents, num_deals=deals, seed=self.seed)
            winrates[name] = result.stats[0].win_rate
            self.history.append({"step": step, "opponent": name, "winrate": winrates[name], "games": deals * n})
        atomic_write(self.history_path, "".join(json.dumps(row) + "\n" for row in self.history))
        return winrates

    def ratings(self) -> dict[str, float]:
        """Elo-scale ratings of every evaluated learner step and baseline (random = 1000)."""
        if not self.history:
            return {}
        labels = sorted({f"learner@{r['step']}" for r in self.history} | {r["opponent"] for r in self.history})
        index = {name: k for k, name in enumerate(labels)}
        # An evaluation of g games at win rate w has the likelihood of g comparisons scoring w each.
        i = np.concatenate([np.full(r["games"], index[f"learner@{r['step']}"]) for r in self.history])
        j = np.concatenate([np.full(r["games"], index[r["opponent"]]) for r in self.history])
        score = np.concatenate([np.full(r["games"], r["winrate"]) for r in self.history])
        table = elo_ratings(labels, i, j, score, anchor=RATING_ANCHOR, bootstrap=0)
        return dict(zip(labels, table.rating.tolist()))


class EvalCallback(BaseCallback):
    """Evaluates the learner every ``every`` steps and logs win rates and its rating."""

    def __init__(self, evaluator: Evaluator, every: int) -> None:
        super().__init__()
        self.evaluator = evaluator
        self.every = every
        self.last: dict[str, float] = {}
        self.last_rating: float | None = None
        self.last_step: int | None = None
        self._next = 0

    def _on_training_start(self) -> None:
        self._next = next_multiple(self.num_timesteps, self.every)

    def _on_step(self) -> bool:
        if self.num_timesteps >= self._next:
            self.evaluate_now()
            self._next = next_multiple(self.num_timesteps, self.every)
        return True

    def evaluate_now(self) -> None:
        step = self.num_timesteps
        if step == self.last_step:
            return
        self.last_step = step
        self.last = self.evaluator.run(self.model.policy, step)
        for name, winrate in self.last.items():
            self.logger.record(f"selfplay/winrate_vs_{name}", winrate)
        ratings = self.evaluator.ratings()
        self.last_rating = ratings.get(f"learner@{step}")
        if self.last_rating is not None:
            self.logger.record("selfplay/rating", self.last_rating)
        for name in self.evaluator.config.baselines:
            if name in ratings and name != RATING_ANCHOR:
                self.logger.record(f"selfplay/rating_{name}", ratings[name])


class CheckpointCallback(BaseCallback):
    """Full checkpoints (resume points) every ``every`` steps, keeping the newest ``keep``."""

    def __init__(self, checkpoint_dir: Path, every: int, keep: int, metadata: Callable[[int], dict[str, Any]],
                 on_save: Callable[[], None]) -> None:
        super().__init__()
        self.dir = checkpoint_dir
        self.every = every
        self.keep = keep
        self.metadata = metadata
        self.on_save = on_save
        self._next = 0

    def _on_training_start(self) -> None:
        self._next = next_multiple(self.num_timesteps, self.every)

    def _on_step(self) -> bool:
        if self.num_timesteps >= self._next:
            self.save()
            self._next = next_multiple(self.num_timesteps, self.every)
        return True

    def save(self) -> Path:
        path = self.dir / checkpoint_name(self.num_timesteps)
        save_checkpoint(self.model, path, self.metadata(self.num_timesteps))  # data-only, atomic
        self.on_save()
        for _, old in list_checkpoints(self.dir)[: -self.keep]:
            old.unlink()
            old.with_suffix(".json").unlink(missing_ok=True)
        return path


class ProgressLogCallback(BaseCallback):
    """A concise progress line every ``every_s`` seconds (and at the end)."""

    def __init__(self, total_timesteps: int, every_s: float, pool_cb: PoolCallback, eval_cb: EvalCallback | None,
                 printer: Callable[[str], None] = print) -> None:
        super().__init__()
        self.total = total_timesteps
        self.every_s = every_s
        self.pool_cb = pool_cb
        self.eval_cb = eval_cb
        self.printer = printer
        self._t0 = 0.0
        self._start_steps = 0
        self._last = 0.0

    def _on_training_start(self) -> None:
        self._t0 = self._last = time.monotonic()
        self._start_steps = self.num_timesteps

    def _on_step(self) -> bool:
        if time.monotonic() - self._last >= self.every_s:
            self.printer(self.line())
            self._last = time.monotonic()
        return True

    def _on_training_end(self) -> None:
        self.printer(self.line())

    def steps_per_second(self) -> float:
        elapsed = time.monotonic() - self._t0
        return (self.num_timesteps - self._start_steps) / elapsed if elapsed > 0 else 0.0

    def line(self) -> str:
        sps = self.steps_per_second()
        left = max(self.total - self.num_timesteps, 0)
        eta = f"{left / sps / 60:.1f} min" if sps > 0 else "?"
        # PPO collects whole rollouts, so the last one may pass the total asked for: never more than 100%
        done = min(self.num_timesteps, self.total)
        extra = f" (+{self.num_timesteps - self.total:,} to finish the last rollout)" if self.num_timesteps > self.total else ""
        parts = [f"[selfplay] {done:,}/{self.total:,} steps ({100 * done / self.total:.0f}%){extra}",
                 f"{sps:,.0f} steps/s"]
        if self.pool_cb.recent:
            parts.append(f"train win {np.mean(self.pool_cb.recent):.2f}")
        if self.eval_cb is not None and self.eval_cb.last:
            evals = " ".join(f"{k} {v:.2f}" for k, v in self.eval_cb.last.items())
            rating = f" rating {self.eval_cb.last_rating:.0f}" if self.eval_cb.last_rating is not None else ""
            parts.append(f"eval: {evals}{rating}")
        parts.append(f"left {eta}")
        return " | ".join(parts)
