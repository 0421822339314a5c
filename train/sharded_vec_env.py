"""The multi-game vec env split across worker processes: ``vec_env: multi`` with ``workers: k``.

:class:`ShardedMultiGameVecEnv` runs ``k`` worker processes. Each holds one
:class:`~fight_envs.train.multi_vec_env.MultiGameVecEnv` of its share of the games (``n_envs`` per
player count split as evenly as ``k`` allows) and steps them, with their opponents, while the
others step theirs. The trainer's process sends the learner's actions to every worker at once
(``step_async``) and collects the results (``step_wait``). So the games' own work (the env steps, the
opponents' decisions, the learner's observations), most of a multi rollout for the Python engines,
runs on ``k`` cores instead of one. The learner's forward pass and the PPO update stay in the
trainer's process, as with one worker.

**The same env as the shards side by side.** Worker ``w``'s ``MultiGameVecEnv`` is built with the
same arguments and its share of ``n_envs``, and seeded with :func:`shard_seed` ``(seed, w)``. The
global env order is the one-process layout, a block of ``n_envs`` games per player count; within a
block, worker 0's games come first, then worker 1's, and so on. ``tests/train/test_sharded_vec_env.py``
steps a sharded env and the shards built in one process with the same actions and requires the same
observations, masks, rewards, dones, infos and learner seats. A run is reproducible for a given seed
and worker count; a different worker count deals other games (other seeds per shard), as a different
``n_envs`` does.

**Transport.** Observations and masks are written by the workers straight into arrays in shared
memory (``multiprocessing`` ``RawArray``), each worker at its own rows; the pipes carry the actions
and the small per-step results (rewards, dones, the learner seats and the infos of ended games, whose
terminal observations are pickled). Pickle crosses only between this process and workers it started
itself, never from a file or a user.

**Opponents.** Every worker's ``MultiGameVecEnv`` reads the opponent pool's ``manifest.json`` itself:
the trainer writes snapshots and the manifest atomically, and each worker rereads the manifest
when it changes, exactly as one process does. Each worker's torch runs one thread.

**Pinning** (``pin_workers``). Each worker is woken for every step, works a few milliseconds and
sleeps again while the trainer runs the learner's forward pass. Left to the scheduler, a worker often
wakes on another core than the one it last ran on, where the trainer's or the other worker's data fill
the caches, and its games run slower. ``"auto"`` (the default) pins worker ``w`` to the ``w``-th CPU
the trainer's process may use when there are exactly as many workers as such CPUs (the 2-core
machine with ``workers: 2``, where every core is this run's anyway); ``True`` pins them round-robin
over those CPUs whatever their number; ``False`` never pins. The trainer's own process is never
pinned. Where ``os.sched_setaffinity`` is missing (not Linux), ``"auto"`` does not pin and ``True``
raises ``ConfigError``. The measurements are in ``docs/results_games.md`` (Brawl at 2 fighters: a
worker's step of its 64 games in 5.0-5.2 ms pinned, 5.7-6.6 ms not).

**Scripts.** The workers start under ``forkserver`` (``spawn`` where it is missing), as SB3's
``SubprocVecEnv`` does, so they import the main module: a script that builds this env keeps its
code under ``if __name__ == "__main__":`` (the ``fight-envs`` command does).

**Failure.** An exception in a worker is sent back and raised in the trainer's process as
``RuntimeError`` with the worker's traceback; a worker that dies raises ``RuntimeError`` naming it.
``close`` stops every worker (terminating any that does not stop within a few seconds).

Needs the ``train`` extra (stable-baselines3), hence in ``train/``, not ``fight_envs``.
"""

from __future__ import annotations

import ctypes
import multiprocessing as mp
import os
import traceback
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from stable_baselines3.common.vec_env import VecEnv
from stable_baselines3.common.vec_env.base_vec_env import VecEnvObs, VecEnvStepReturn

from fight_envs.core.errors import ConfigError
from fight_envs.train.batched_vec_env import LearnerVecEnvPlumbing
from fight_envs.train.config import check_pin_workers
from fight_envs.train.multi_vec_env import LEARNER_SEATS, MultiGameVecEnv

MAX_WORKERS = 64
CLOSE_TIMEOUT_S = 10.0


def worker_cpus(workers: int, pin: Any = "auto") -> list[int] | None:
    """The CPU each worker is pinned to (``pin_workers``, see the module docstring), or None: not pinned.

    ``"auto"``: pinned when the trainer's process may use exactly ``workers`` CPUs; ``True``: round-robin
    over those CPUs; ``False``: None. Raises ConfigError for any other ``pin``, and for ``True`` where the
    platform cannot pin (no ``os.sched_setaffinity``)."""
    check_pin_workers(pin)
    if pin is False:
        return None
    if not (hasattr(os, "sched_getaffinity") and hasattr(os, "sched_setaffinity")):
        if pin is True:
            raise ConfigError("pin_workers=true needs os.sched_setaffinity (Linux); "
                              "use 'auto' or false on this platform")
        return None
    allowed = sorted(os.sched_getaffinity(0))
    if pin == "auto" and len(allowed) != workers:
        return None
    return [allowed[w % len(allowed)] for w in range(workers)]


def shard_seed(seed: int | None, worker: int) -> int | None:
    """Worker ``worker``'s seed from the vec env's ``seed`` (None stays None: OS entropy per worker)."""
    if seed is None:
        return None
    return int(np.random.SeedSequence([int(seed), 7, int(worker)]).generate_state(1)[0])


def shard_sizes(n_envs: int, workers: int) -> list[int]:
    """Games per player count of each worker: ``n_envs`` split as evenly as possible, the larger shares first."""
    base, extra = divmod(n_envs, workers)
    return [base + (1 if w < extra else 0) for w in range(workers)]


def shard_indices(n_envs: int, n_counts: int, sizes: Sequence[int]) -> list[np.ndarray]:
    """Each worker's local envs' global indices: block ``b`` (a player count) holds ``n_envs`` games,
    worker ``w``'s ``sizes[w]`` of them after the workers before it."""
    out = []
    start = 0
    for size in sizes:
        rows = [b * n_envs + start + j for b in range(n_counts) for j in range(size)]
        out.append(np.array(rows, dtype=np.int64))
        start += size
    return out


def _worker(remote: Any, parent_remote: Any, kwargs: dict[str, Any], obs_buf: Any, mask_buf: Any,
            obs_shape: tuple[int, ...], obs_dtype: str, num_actions: int, total: int, rows: np.ndarray,
            cpu: int | None = None) -> None:
    """One worker: pin itself to ``cpu`` (None: no pinning), build its ``MultiGameVecEnv`` and answer the
    trainer's commands until ``close``."""
    parent_remote.close()
    if cpu is not None:
        try:
            os.sched_setaffinity(0, {cpu})
        except OSError:
            remote.send(("error", f"could not pin the worker to CPU {cpu} (pin_workers=false runs unpinned):\n"
                                  + traceback.format_exc()))
            remote.close()
            return
    try:
        import torch

        torch.set_num_threads(1)
    except ImportError:  # pragma: no cover - the train extra brings torch
        pass
    venv: MultiGameVecEnv | None = None
    obs = np.frombuffer(obs_buf, dtype=obs_dtype).reshape(total, *obs_shape)
    masks = np.frombuffer(mask_buf, dtype=bool).reshape(total, num_actions)
    try:
        venv = MultiGameVecEnv(**kwargs)
        remote.send(("ok", None))
    except BaseException:  # noqa: BLE001 - reported to the trainer's process, which raises it
        remote.send(("error", traceback.format_exc()))
        remote.close()
        return
    while True:
        try:
            cmd, data = remote.recv()
        except (EOFError, KeyboardInterrupt):
            break
        try:
            if cmd == "step":
                venv.step_async(data)
                o, rewards, dones, infos = venv.step_wait()
                obs[rows] = o
                masks[rows] = venv._masks
                remote.send(("ok", (rewards, dones, infos, venv.learner_seats.copy())))
            elif cmd == "reset":
                o = venv.reset()
                obs[rows] = o
                masks[rows] = venv._masks
                remote.send(("ok", venv.learner_seats.copy()))
            elif cmd == "seed":
                remote.send(("ok", venv.seed(data)))
            elif cmd == "close":
                venv.close()
                remote.send(("ok", None))
                break
            else:
                raise ValueError(f"unknown command {cmd!r}")
        except BaseException:  # noqa: BLE001
            remote.send(("error", traceback.format_exc()))
    remote.close()


def _context() -> Any:
    # forkserver (as SB3's SubprocVecEnv): no fork of a process whose torch holds threads
    methods = mp.get_all_start_methods()
    return mp.get_context("forkserver" if "forkserver" in methods else "spawn")


class ShardedMultiGameVecEnv(LearnerVecEnvPlumbing, VecEnv):
    """``MultiGameVecEnv``'s games split across ``workers`` processes (see the module docstring).

    Args:
        env_name, n_envs, num_players, manifest_path, seed, learner_seat, privileged, **env_options: as
            ``MultiGameVecEnv``; ``n_envs`` is the games per player count of all workers together.
        workers: worker processes, at least 2 and at most ``n_envs`` (each needs a game per count).
        pin_workers: ``"auto"``, True or False: whether each worker is pinned to a CPU (the module docstring).
    """

    HOLDS = "steps its games in worker processes"

    def __init__(
        self,
        env_name: str,
        n_envs: int,
        num_players: Sequence[int] = (2,),
        manifest_path: str | Path | None = None,
        seed: int | None = None,
        learner_seat: str = "random",
        workers: int = 2,
        pin_workers: Any = "auto",
        privileged: bool = False,
        **env_options: Any,
    ) -> None:
        if isinstance(n_envs, bool) or not isinstance(n_envs, (int, np.integer)) or n_envs < 1:
            raise ConfigError(f"n_envs must be an int >= 1, got {n_envs!r}")
        if isinstance(workers, bool) or not isinstance(workers, (int, np.integer)) or not 2 <= workers <= MAX_WORKERS:
            raise ConfigError(f"workers must be an int in [2, {MAX_WORKERS}] (1: use MultiGameVecEnv), got {workers!r}")
        if workers > n_envs:
            raise ConfigError(f"workers ({workers}) must be at most n_envs ({n_envs}): every worker needs a game per player count")
        if learner_seat not in LEARNER_SEATS:
            raise ConfigError(f"learner_seat must be one of {LEARNER_SEATS}, got {learner_seat!r}")
        cpus = worker_cpus(int(workers), pin_workers)
        counts = [int(n) for n in num_players]
        # the spaces and every argument are checked here, in this process, before any worker starts
        probe = MultiGameVecEnv(env_name, 1, counts, manifest_path=None, seed=0, learner_seat=learner_seat,
                                privileged=privileged, **env_options)
        obs_space, action_space = probe.observation_space, probe.action_space
        probe_players = probe.env_num_players
        probe.close()
        total = n_envs * len(counts)
        super().__init__(total, obs_space, action_space)
        self.render_mode = None
        self.env_name = env_name
        self.privileged = privileged
        self.observation_size = probe.observation_size
        self.workers = int(workers)
        self.worker_cpus = cpus
        """The CPU each worker is pinned to, in worker order, or None (not pinned)."""
        self._num_actions = int(action_space.n)
        self.env_num_players = np.repeat(probe_players, n_envs).astype(np.int64)
        self.learner_seats = np.zeros(total, dtype=np.int64)
        sizes = shard_sizes(int(n_envs), self.workers)
        self._rows = shard_indices(int(n_envs), len(counts), sizes)
        dtype = np.dtype(obs_space.dtype)
        ctx = _context()
        obs_bytes = total * int(np.prod(obs_space.shape)) * dtype.itemsize
        self._obs_buf = ctx.RawArray(ctypes.c_char, max(obs_bytes, 1))
        self._mask_buf = ctx.RawArray(ctypes.c_char, total * self._num_actions)
        self._obs = np.frombuffer(self._obs_buf, dtype=dtype, count=obs_bytes // dtype.itemsize).reshape(total, *obs_space.shape)
        self._masks = np.frombuffer(self._mask_buf, dtype=bool).reshape(total, self._num_actions)
        self._remotes: list[Any] = []
        self._processes: list[Any] = []
        self._closed = False
        self._started_step = False  # step_async sent actions that step_wait has not collected
        try:
            for w, size in enumerate(sizes):
                kwargs = dict(env_name=env_name, n_envs=size, num_players=counts, manifest_path=manifest_path,
                              seed=shard_seed(seed, w), learner_seat=learner_seat, privileged=privileged,
                              **env_options)
                remote, work_remote = ctx.Pipe()
                process = ctx.Process(
                    target=_worker, name=f"fight-envs-multi-{w}", daemon=True,
                    args=(work_remote, remote, kwargs, self._obs_buf, self._mask_buf, tuple(obs_space.shape),
                          dtype.str, self._num_actions, total, self._rows[w], None if cpus is None else cpus[w]))
                process.start()
                work_remote.close()
                self._remotes.append(remote)
                self._processes.append(process)
            self._gather("start")
        except BaseException:
            self.close()
            raise

    # ------------------------------------------------------------------ plumbing
    def _gather(self, what: str) -> list[Any]:
        """Every worker's answer to the command just sent; a worker's error is raised here."""
        out, errors = [], []
        for w, remote in enumerate(self._remotes):
            try:
                status, data = remote.recv()
            except (EOFError, ConnectionError, OSError) as exc:
                hint = ("; a script that starts workers needs its code under `if __name__ == \"__main__\":` "
                        "(the workers import the main module, as with SB3's SubprocVecEnv)") if what == "start" else ""
                errors.append(f"worker {w} ({self._processes[w].name}) died during {what}: {exc!r}{hint}")
                continue
            if status == "error":
                errors.append(f"worker {w} failed during {what}:\n{data}")
            out.append(data)
        if errors:
            self.close()
            raise RuntimeError("\n".join(errors))
        return out

    def _send(self, messages: Sequence[tuple[str, Any]], what: str) -> None:
        if self._closed:
            raise RuntimeError(f"{type(self).__name__} is closed")
        for w, (remote, msg) in enumerate(zip(self._remotes, messages)):
            try:
                remote.send(msg)
            except (BrokenPipeError, ConnectionError, OSError) as exc:
                self.close()
                raise RuntimeError(f"worker {w} ({self._processes[w].name}) is gone ({what}): {exc!r}") from exc

    # ------------------------------------------------------------------ VecEnv API
    def seed(self, seed: int | None = None) -> Sequence[None | int]:  # type: ignore[override]
        """Seed every worker's next ``reset`` with :func:`shard_seed` ``(seed, w)``."""
        self._send([("seed", shard_seed(seed, w)) for w in range(self.workers)], "seed")
        self._gather("seed")
        return [None if seed is None else seed + i for i in range(self.num_envs)]

    def reset(self) -> VecEnvObs:
        self._send([("reset", None)] * self.workers, "reset")
        for rows, seats in zip(self._rows, self._gather("reset")):
            self.learner_seats[rows] = seats
        self._started = True
        return self._obs.copy()

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions)
        actions = self._take_actions()  # checks the order and the shape
        self._started_step = True
        self._send([("step", actions[rows]) for rows in self._rows], "step")

    def step_wait(self) -> VecEnvStepReturn:
        if not self._started_step:
            raise RuntimeError("step_wait() without step_async()")
        self._started_step = False
        rewards = np.zeros(self.num_envs, dtype=np.float32)
        dones = np.zeros(self.num_envs, dtype=bool)
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        for rows, (r, d, info, seats) in zip(self._rows, self._gather("step")):
            rewards[rows] = r
            dones[rows] = d
            self.learner_seats[rows] = seats
            for i, x in zip(rows.tolist(), info):
                infos[i] = x
        return self._obs.copy(), rewards, dones, infos

    def action_masks(self) -> np.ndarray:
        """(num_envs, num_actions) bool: the learner's legal actions in every env."""
        return self._masks.copy()

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        for remote, process in zip(self._remotes, self._processes):
            if process.is_alive():
                try:
                    remote.send(("close", None))
                except (BrokenPipeError, ConnectionError, OSError):
                    pass
        for remote, process in zip(self._remotes, self._processes):
            try:
                if process.is_alive() and remote.poll(CLOSE_TIMEOUT_S):
                    remote.recv()
            except (EOFError, ConnectionError, OSError):
                pass
            process.join(CLOSE_TIMEOUT_S)
            if process.is_alive():
                process.terminate()
                process.join(1.0)
            remote.close()

    def __del__(self) -> None:  # a vec env dropped without close: its workers stop with it
        try:
            self.close()
        except Exception:  # noqa: BLE001 - at interpreter exit the modules may be gone
            pass
