"""The self-play opponent pool: scripted baselines and the learner's past snapshots, mixed by weight.

Two halves, because rollout workers may be separate processes (SubprocVecEnv):

* :class:`OpponentPool` lives in the training process. It saves snapshots of the learner
  (policy-only checkpoints under ``<run>/pool/``), counts the learner's results against each
  opponent (reported through the envs' episode-end infos), computes the sampling weights, and
  writes them to ``<run>/pool/manifest.json`` (atomically: write then rename).
* :class:`PoolOpponentSampler` lives in every env (``fight_envs.train.batched_vec_env`` reads its entries
  and weights too, and draws for many games at once). At each episode start it rereads the
  manifest if its modification time changed, draws one opponent per opponent seat with the env's
  generator, and loads snapshots from disk (frozen policies, cached while they stay in the pool).

Weights: the opponent mix moves linearly from ``weights_start`` to ``weights_end`` over the
first ``anneal_fraction`` of training (start mostly against easy baselines, end against past
selves and stronger baselines). The ``self`` share is split evenly among the newest
``max_snapshots`` snapshots. With ``prioritize``, every opponent's weight is then multiplied by
``(1 - w) ** pfsp_power``, where ``w`` is the learner's win rate over its last ``winrate_window``
games against that opponent (a Beta(1, 1) prior keeps new opponents at 0.5 and no opponent at
weight zero): prioritised fictitious self-play, so the learner meets more often what it loses to.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from fight_envs.agents.base import Agent
from fight_envs.agents.checkpoint import PolicyAgent, load_policy, save_policy
from fight_envs.core.atomic import atomic_write
from fight_envs.core.errors import ConfigError
from fight_envs.train.config import SELF, OpponentConfig

MANIFEST_NAME = "manifest.json"
STATE_NAME = "state.json"
SNAPSHOT_PREFIX = "self@"
SNAPSHOT_FILE_PREFIX = "self_"
MIN_LOSS_SHARE = 0.02
"""Floor on (1 - win rate) in prioritisation, so an opponent the learner always beats stays drawable."""


def make_baseline(name: str, game: str, seed: int | None = None, env: Any = None) -> Agent:
    """A scripted baseline by name, from ``fight_envs.agents.registry`` (imported here: it imports every game),
    taking the public rules of ``env`` where given (``Agent.bind_rules``: Fifth-Earth's card data)."""
    from fight_envs.agents.registry import make_agent

    return make_agent(name, game=game, seed=seed, env=env)


@dataclass
class PoolEntry:
    """One opponent of the pool. ``spec``: a baseline name, or a snapshot file relative to the pool dir."""

    id: str
    kind: str  # "baseline" | "snapshot"
    spec: str
    step: int = 0


class OpponentPool:
    """Training-process side of the pool (see the module docstring)."""

    def __init__(self, pool_dir: str | Path, config: OpponentConfig, game: str, total_timesteps: int) -> None:
        self.dir = Path(pool_dir)
        self.dir.mkdir(parents=True, exist_ok=True)
        self.config = config
        self.game = game
        self.total_timesteps = total_timesteps
        self.baselines = [n for n in config.names() if n != SELF]
        for name in self.baselines:  # fail at start, naming the bad key, not inside a worker
            try:
                make_baseline(name, game)
            except (KeyError, ValueError) as e:
                raise ConfigError(f"opponents: unknown baseline {name!r} for {game}: {e}") from e
        self.snapshots: list[PoolEntry] = []
        self.results: dict[str, deque[float]] = {}
        self._written: dict[str, Any] | None = None

    @property
    def manifest_path(self) -> Path:
        return self.dir / MANIFEST_NAME

    # ------------------------------------------------------------- snapshots
    def add_snapshot(self, policy: Any, step: int, metadata: dict[str, Any]) -> PoolEntry:
        """Save the learner's current policy as a frozen opponent."""
        entry_id = f"{SNAPSHOT_PREFIX}{step}"
        file = f"{SNAPSHOT_FILE_PREFIX}{step:010d}.zip"
        save_policy(policy, self.dir / file, {**metadata, "label": entry_id, "num_timesteps": step})
        entry = PoolEntry(entry_id, "snapshot", file, step)
        self.snapshots = [s for s in self.snapshots if s.id != entry_id] + [entry]
        return entry

    def active_snapshots(self) -> list[PoolEntry]:
        # Older snapshot files stay on disk (a worker may still be playing one); they leave the mix.
        return self.snapshots[-self.config.max_snapshots:]

    # --------------------------------------------------------------- results
    def record(self, opponent_ids: Sequence[str], result: float) -> None:
        """The learner scored ``result`` (win credit 0..1) in a game against ``opponent_ids``."""
        for oid in set(opponent_ids):
            self.results.setdefault(oid, deque(maxlen=self.config.winrate_window)).append(float(result))

    def winrate(self, opponent_id: str) -> float:
        """Beta(1, 1)-smoothed recent win rate of the learner against one opponent."""
        recent = self.results.get(opponent_id, ())
        return (sum(recent) + 1.0) / (len(recent) + 2.0)

    def games_played(self, opponent_id: str) -> int:
        return len(self.results.get(opponent_id, ()))

    # --------------------------------------------------------------- weights
    def mix(self, num_timesteps: int) -> dict[str, float]:
        """Category weights (baseline names and ``self``) at this point of training."""
        c = self.config
        span = c.anneal_fraction * self.total_timesteps
        alpha = 1.0 if span <= 0 else min(1.0, num_timesteps / span)
        keys = c.names()
        return {k: (1 - alpha) * c.weights_start.get(k, 0.0) + alpha * c.weights_end.get(k, 0.0) for k in keys}

    def weights(self, num_timesteps: int) -> dict[str, float]:
        """Normalised sampling weight of every opponent in the pool."""
        mix = self.mix(num_timesteps)
        raw: dict[str, float] = {name: mix.get(name, 0.0) for name in self.baselines}
        snaps = self.active_snapshots()
        for entry in snaps:
            raw[entry.id] = mix.get(SELF, 0.0) / len(snaps)
        if self.config.prioritize:
            for oid in raw:
                raw[oid] *= max(1.0 - self.winrate(oid), MIN_LOSS_SHARE) ** self.config.pfsp_power
        total = sum(raw.values())
        if total <= 0:  # only possible before the first snapshot with a self-only mix; validate() forbids it
            raise ConfigError("the opponent mix gives every available opponent weight 0")
        return {k: v / total for k, v in raw.items() if v > 0}

    def manifest(self, num_timesteps: int) -> dict[str, Any]:
        weights = self.weights(num_timesteps)
        entries = [PoolEntry(n, "baseline", n) for n in self.baselines] + self.active_snapshots()
        return {
            "game": self.game,
            "deterministic": self.config.deterministic,
            "entries": [
                {"id": e.id, "kind": e.kind, "spec": e.spec, "weight": round(weights[e.id], 6)}
                for e in entries if e.id in weights
            ],
        }

    def write_manifest(self, num_timesteps: int) -> bool:
        """Write the manifest if it changed; True when written."""
        manifest = self.manifest(num_timesteps)
        if manifest == self._written:
            return False
        atomic_write(self.manifest_path, json.dumps(manifest, indent=1))  # a worker never reads a half-written file
        self._written = manifest
        return True

    # ------------------------------------------------------------ persistence
    def save_state(self) -> None:
        """Snapshots and recent results, so a resumed run keeps its pool."""
        state = {
            "snapshots": [vars(s) for s in self.snapshots],
            "results": {k: list(v) for k, v in self.results.items()},
        }
        atomic_write(self.dir / STATE_NAME, json.dumps(state, indent=1))

    def load_state(self, up_to_step: int | None = None, warn: Any = None) -> None:
        """Restore snapshots and results (snapshots after ``up_to_step``, the checkpoint resumed, left out).

        An unreadable ``state.json`` (cut by a crash before writes were atomic) is reported; the
        snapshots are then rebuilt from the snapshot files in the pool directory, without results.
        """
        path = self.dir / STATE_NAME
        if not path.is_file():
            return
        try:
            state = json.loads(path.read_text(encoding="utf-8"))
            snapshots = [PoolEntry(**s) for s in state["snapshots"]]
            if not all(isinstance(e.spec, str) and isinstance(e.step, int) and "/" not in e.spec and "\\" not in e.spec
                       for e in snapshots):
                raise ValueError("a snapshot entry has a bad spec or step")
            results = {str(k): deque([float(x) for x in v], maxlen=self.config.winrate_window)
                       for k, v in state["results"].items()}
        except (json.JSONDecodeError, UnicodeDecodeError, RecursionError, KeyError, TypeError, ValueError, AttributeError) as e:
            (warn or (lambda m: print(m, flush=True)))(f"[selfplay] {path} is unreadable ({type(e).__name__}: {e}); rebuilding the pool's snapshots from "
                 f"its {SNAPSHOT_FILE_PREFIX}*.zip files, without recent results")
            snapshots = sorted((PoolEntry(f"{SNAPSHOT_PREFIX}{int(p.stem[len(SNAPSHOT_FILE_PREFIX):])}", "snapshot", p.name,
                                          int(p.stem[len(SNAPSHOT_FILE_PREFIX):]))
                                for p in self.dir.glob(f"{SNAPSHOT_FILE_PREFIX}*.zip")
                                if p.stem[len(SNAPSHOT_FILE_PREFIX):].isdigit()), key=lambda e: e.step)
            results = {}
        self.snapshots = [s for s in snapshots if (self.dir / s.spec).is_file() and (up_to_step is None or s.step <= up_to_step)]
        self.results = results


class PoolOpponent:
    """An agent drawn from the pool, labelled with its pool id (what episode infos report)."""

    def __init__(self, pool_id: str, agent: Agent) -> None:
        self.label = pool_id
        self.agent = agent

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        return self.agent.act(observation, action_mask)

    def seed(self, seed: int | None) -> None:
        self.agent.seed(seed)

    def reset(self) -> None:
        self.agent.reset()

    def bind_rules(self, env: Any) -> None:
        self.agent.bind_rules(env)


class PoolOpponentSampler:
    """Env-side opponent sampler: ``sampler(rng, num_opponents) -> opponents`` for ``SingleAgentEnv``.

    Holds only a path until first called, so it pickles into SubprocVecEnv workers.
    """

    def __init__(self, manifest_path: str | Path, device: str = "cpu") -> None:
        self.manifest_path = Path(manifest_path)
        self.device = device
        self._mtime: int | None = None
        self._entries: list[dict[str, Any]] = []
        self._probs = np.zeros(0)
        self._game = ""
        self._deterministic = False
        self._policies: dict[str, Any] = {}
        self._agents: dict[tuple[str, int], Agent] = {}

    def refresh(self) -> None:
        """Reread the manifest if it changed since the last read."""
        try:
            mtime = self.manifest_path.stat().st_mtime_ns
        except FileNotFoundError as e:
            raise FileNotFoundError(f"opponent pool manifest {self.manifest_path} is missing; the trainer writes it first") from e
        if mtime == self._mtime:
            return
        manifest = json.loads(self.manifest_path.read_text())
        self._mtime = mtime
        self._entries = manifest["entries"]
        self._game = manifest["game"]
        self._deterministic = bool(manifest["deterministic"])
        weights = np.array([e["weight"] for e in self._entries], dtype=np.float64)
        self._probs = weights / weights.sum()
        live = {e["id"] for e in self._entries}
        # Free the snapshots that left the pool.
        self._policies = {k: v for k, v in self._policies.items() if k in live}
        self._agents = {k: v for k, v in self._agents.items() if k[0] in live}

    @property
    def version(self) -> int | None:
        """The manifest file's modification time (ns) as last read; None before the first read."""
        return self._mtime

    @property
    def entries(self) -> list[dict[str, Any]]:
        """The manifest's entries as last read: ``id``, ``kind``, ``spec``, ``weight``."""
        return self._entries

    @property
    def probabilities(self) -> np.ndarray:
        """The entries' sampling probabilities (their weights, normalised)."""
        return self._probs

    @property
    def game(self) -> str:
        return self._game

    @property
    def deterministic(self) -> bool:
        """Whether snapshot opponents play their most likely action (else they sample)."""
        return self._deterministic

    def __call__(self, rng: np.random.Generator, num_opponents: int) -> list[PoolOpponent]:
        self.refresh()
        picks = rng.choice(len(self._entries), size=num_opponents, p=self._probs)
        return [self._opponent(self._entries[i], seat) for seat, i in enumerate(picks)]

    def _opponent(self, entry: dict[str, Any], seat: int) -> PoolOpponent:
        # One agent object per (opponent, seat): a scripted agent may keep per-game memory, and
        # each agent owns the generator the env seeds; snapshot agents share their loaded policy.
        key = (entry["id"], seat)
        if key not in self._agents:
            if entry["kind"] == "baseline":
                self._agents[key] = make_baseline(entry["spec"], self._game)
            else:
                if entry["id"] not in self._policies:
                    policy, _ = load_policy(self.manifest_path.parent / entry["spec"], device=self.device)
                    self._policies[entry["id"]] = policy
                self._agents[key] = PolicyAgent(self._policies[entry["id"]], deterministic=self._deterministic, name=entry["id"])
        return PoolOpponent(entry["id"], self._agents[key])
