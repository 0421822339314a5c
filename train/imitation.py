"""Behaviour cloning warm start: the learner first imitates a scripted teacher, then PPO goes on.

``pretrain: {games: N, epochs: E}`` in a training config (``fight_envs.train.config.PretrainConfig``)
makes ``fight_envs.train.selfplay.train_main`` call :func:`pretrain` on a new run's freshly built
model, before the first rollout:

1. :func:`collect` plays ``games`` games of the env (player counts of ``env.num_players`` in turn,
   seed ``seed``): one seat, drawn per game, is the ``teacher`` (a baseline, by default the
   ``heuristic``; a planner such as ``search:sims=24`` plays from its seat's information set, as in
   ``fight_envs.agents.arena.play_game``, which distils the search into the policy), every other seat an opponent drawn from ``pretrain.opponents`` (baselines by
   weight). When an opponent is the teacher itself, its decisions are recorded too. Each recorded
   decision is (observation, action mask, the teacher's action, its return): the seat's final
   reward (``reward`` of the env, rank by default) discounted by ``ppo.gamma`` per later decision of
   the same seat, what PPO's value head estimates.
2. :func:`fit` trains the whole policy for ``epochs`` passes over the data, minibatches of
   ``batch_size``, Adam at ``learning_rate``: masked cross-entropy of the teacher's action
   (``policy.evaluate_actions``, the masked distribution PPO samples from) plus ``ppo.vf_coef`` x the
   value head's squared error to the returns. A tenth of the games (at least one) is held out and
   the policy's agreement with the teacher (its most likely legal action equals the teacher's) is
   reported on it before and after.

``pretrain.workers: k`` plays the games on ``k`` processes (:func:`collect_parallel`).

``pretrain.data: PATH.npz`` keeps the recorded games (a search teacher's take most of a run's time:
Brawl's 2,000 search games about 40 minutes on one core). When the file is missing, the games are
played and saved there (:func:`save_demonstrations`: the five arrays and a JSON header, written
atomically, read back with ``allow_pickle=False``); when it exists, :func:`load_demonstrations` reads it
and checks that its header records what the run asks for (:func:`recording_of`: the env, its options,
player counts, teacher, opponents, games and ``ppo.gamma``), naming every field that differs. The
seed is not checked: runs with other seeds clone the same games (their clones and PPO still differ).

PPO then starts from the cloned policy with its own fresh optimizer, and the run goes on as
configured (the opponent mix, snapshots, evaluations). A cloned policy plays about as well as its
teacher at best; what PPO adds is the rest.

**DAgger** (``pretrain.mode: dagger``, Ross, Gordon and Bagnell 2011, "A reduction of imitation learning
and structured prediction to no-regret online learning"): behaviour cloning fits the teacher's choices in
the states the *teacher* reaches, so a student that strays meets states nobody labelled. DAgger plays
the games with the student instead (the run's ``init_from`` model, sampling its actions as PPO does)
and has the teacher label the student's decisions (:func:`_dagger_decision`):

* only decisions of ``pretrain.kinds`` (the env's ``decision_kind``; None: all) with more than one legal
  action are labelled; the student's other decisions with a choice are recorded unlabelled;
* a teacher that values every legal action (search's ``action_values``) labels with the softmax of the
  values at ``pretrain.temperature``: actions its noisy rollouts value alike keep alike shares, where a
  single choice would pick among them by noise; otherwise its choice is the label;
* a labelled decision plays the teacher's choice with chance ``pretrain.beta``, else the student's.

The fit (:func:`fit_soft`) is the cross-entropy to the label on labelled rows and to the student's own
distribution before the fit on the others, and the value head's squared error to its own estimates
before the fit: the student changes where the teacher spoke and keeps its play and its critic elsewhere
(``unlabelled_unchanged`` in ``pretrain.json``: the share of held-out unlabelled decisions whose most
likely action stayed). A DAgger file's header adds the mode, kinds, beta, temperature and the sha256 of
the student's checkpoint, all checked on reuse; its rows add ``targets`` and ``labelled``.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

from fight_envs.core.errors import ConfigError
from fight_envs.train.config import Config


@dataclass
class Demonstrations:
    """Recorded teacher decisions, row-aligned; ``game`` numbers the game each row comes from."""

    observations: np.ndarray
    masks: np.ndarray
    actions: np.ndarray
    returns: np.ndarray
    game: np.ndarray
    targets: np.ndarray | None = None
    """dagger: (rows, actions) float32, the teacher's label as a distribution over the actions (zeros on an
    unlabelled row); None: behaviour cloning, the label is ``actions``."""
    labelled: np.ndarray | None = None
    """dagger: rows the teacher labelled (``actions`` is then the teacher's choice); the others are the
    policy's own decisions (``actions`` is what it played), kept as they were by the fit."""

    def __len__(self) -> int:
        return int(self.actions.shape[0])

    def split_last_games(self, first_held: int) -> tuple[Demonstrations, Demonstrations]:
        """(rows of games before ``first_held``, rows of the games from it on), in their order. When the
        rows are in game order (as recorded), both are views of this data, not copies (a Fight Klub
        recording holds 4 GB of observations)."""
        held = self.game >= first_held
        if not len(self.game) or bool(np.all(self.game[1:] >= self.game[:-1])):
            k = int(np.argmax(held)) if held.any() else len(self.game)
            return self.slice(0, k), self.slice(k, len(self.game))
        return self.subset(np.flatnonzero(~held)), self.subset(np.flatnonzero(held))

    def slice(self, start: int, stop: int) -> Demonstrations:
        """Rows ``start:stop``, as views."""
        extra = (None, None) if self.targets is None else (self.targets[start:stop], self.labelled[start:stop])
        return Demonstrations(self.observations[start:stop], self.masks[start:stop], self.actions[start:stop],
                              self.returns[start:stop], self.game[start:stop], *extra)

    def subset(self, rows: np.ndarray) -> Demonstrations:
        extra = (None, None) if self.targets is None else (self.targets[rows], self.labelled[rows])
        return Demonstrations(self.observations[rows], self.masks[rows], self.actions[rows], self.returns[rows],
                              self.game[rows], *extra)


PROJECT_AFTER = 5
"""Games played before ``collect`` projects the memory of all of them from their mean (``max_gb``)."""

ROW_CHUNK = 1024
"""Observation rows per block of :class:`_RowBuffer`."""


class _RowBuffer:
    """Observation rows appended one at a time, kept in blocks of ``ROW_CHUNK`` rows, joined by ``array``.

    Why not a list of rows and ``np.stack``: a Fight Klub row is 81 KB, under the size from which the C
    allocator maps memory of its own, so a list of 50,000 of them takes 4 GB of the heap that stays the
    process's after they are freed, and the stacked copy comes on top. The recipe's cloning peaked at
    12.4 GB for 4 GB of observations. Blocks are large allocations, each returned to the system as soon as
    ``array`` has copied it, so the peak is the rows once plus a block."""

    def __init__(self) -> None:
        self._blocks: list[np.ndarray] = []
        self._fill = ROW_CHUNK  # rows used in the last block (full: the next row starts a block)

    def __len__(self) -> int:
        return 0 if not self._blocks else (len(self._blocks) - 1) * ROW_CHUNK + self._fill

    def append(self, row: np.ndarray) -> None:
        row = np.asarray(row, dtype=np.float32)
        if self._fill == ROW_CHUNK:
            self._blocks.append(np.empty((ROW_CHUNK, *row.shape), dtype=np.float32))
            self._fill = 0
        self._blocks[-1][self._fill] = row
        self._fill += 1

    def row_size(self) -> int:
        """Floats in a row (0 before the first)."""
        return 0 if not self._blocks else int(np.prod(self._blocks[0].shape[1:]))

    def array(self) -> np.ndarray:
        """Every row in order, as one float32 array; the buffer is emptied block by block as it copies."""
        n = len(self)
        if not self._blocks:
            raise ValueError("no rows recorded")
        out = np.empty((n, *self._blocks[0].shape[1:]), dtype=np.float32)
        blocks, self._blocks, self._fill = self._blocks, [], ROW_CHUNK
        for at in range(0, n, ROW_CHUNK):
            block = blocks.pop(0)  # dropped here: its memory goes back before the next block is copied
            out[at:at + ROW_CHUNK] = block[:n - at]
        return out


def collect(env_name: str, env_options: dict[str, Any], num_players: list[int], games: int, teacher: str,
            opponents: dict[str, float], seed: int, gamma: float, max_gb: float = 4.0, student: str | None = None,
            kinds: list[str] | None = None, beta: float = 0.5, temperature: float | None = None,
            privileged: bool = False) -> Demonstrations:
    """Play ``games`` games with one ``teacher`` seat and opponents drawn from ``opponents`` (see the module docstring).

    With ``student`` (a data-only checkpoint path: DAgger, :func:`_dagger_decision`) that seat is played by the
    student's policy, sampling as PPO does, and the teacher labels its decisions of ``kinds`` (every kind when
    None) that have more than one legal action; each labelled decision plays the teacher's choice with chance
    ``beta``. Unlabelled decisions with a choice are recorded as the student's own.

    ``privileged`` (``ppo.critic: privileged``) records each row with the env's ``privileged_observation``
    appended, the observation the run's critic reads; the players still act on the observation alone.

    Raises ConfigError once the recorded rows take more than ``max_gb`` GB, or once the first
    ``PROJECT_AFTER`` games project past it: the message says how many games would fit."""
    from fight_envs.agents.arena import information_set
    from fight_envs.registry import make
    from fight_envs.train.opponents import make_baseline
    from fight_envs.train.selfplay import game_of

    game = game_of(env_name)
    rng = np.random.default_rng(np.random.SeedSequence([seed, 16]))
    learner = None
    if student is not None:
        from fight_envs.agents.checkpoint import load_checkpoint_agent

        learner = load_checkpoint_agent(student, game=game, seed=int(np.random.SeedSequence([seed, 19]).generate_state(1)[0]))
        learner.deterministic = False  # the states PPO's sampling reaches
    targets: list[np.ndarray] = []
    labelled: list[bool] = []
    names = sorted(opponents)
    weights = np.array([opponents[k] for k in names], dtype=np.float64)
    weights = weights / weights.sum()
    envs = {n: make(env_name, api="raw", **{**env_options, "num_players": n}) for n in num_players}
    # sorted: a set iterates in string-hash order, which changes from process to process (PYTHONHASHSEED)
    rules = next(iter(envs.values()))  # every count plays the same card data: the baselines take its rules
    agents = {name: make_baseline(name, game, seed=int(rng.integers(2**31)), env=rules) for name in sorted({teacher, *names})}
    obs_rows = _RowBuffer()
    mask_rows: list[np.ndarray] = []
    actions: list[int] = []
    returns: list[float] = []
    game_ids: list[int] = []
    held = 0  # bytes of the recorded rows
    budget = max_gb * 1e9
    for g in range(games):
        n = num_players[g % len(num_players)]
        env = envs[n]
        env.reset(seed=int(rng.integers(2**31)))
        seats = list(env.possible_agents)
        teacher_seat = seats[int(rng.integers(n))]
        players = {s: teacher if s == teacher_seat else names[int(rng.choice(len(names), p=weights))] for s in seats}
        for name in set(players.values()):
            agents[name].reset()
        if learner is not None:
            learner.reset()
        recorded = {s: [] for s in seats if players[s] == teacher and (learner is None or s == teacher_seat)}
        final: dict[str, float] = {}
        while env.agents:
            seat = env.agent_selection
            if env.terminations[seat] or env.truncations[seat]:
                final[seat] = float(env._cumulative_rewards[seat])  # the seat's whole reward, read as env.last() does
                env.step(None)
                continue
            observation = env.observe(seat)
            obs, mask = observation["observation"], observation["action_mask"]
            if learner is not None and seat == teacher_seat:
                row = _dagger_decision(env, seat, obs, mask, learner, agents[teacher], kinds, beta, temperature, rng)
                if row is not None:
                    action, target, asked = row
                    recorded[seat].append(len(actions))
                    obs_rows.append(_row(env, seat, obs, privileged))
                    mask_rows.append(np.array(mask, dtype=bool))
                    actions.append(int(np.argmax(target)) if asked else action)
                    targets.append(target)
                    labelled.append(asked)
                    returns.append(0.0)
                    game_ids.append(g)
                    held += 4 * obs_rows.row_size() + mask_rows[-1].nbytes + target.nbytes
                else:
                    action = int(learner.act(obs, mask))
                env.step(action)
                continue
            agent = agents[players[seat]]
            if agent.needs_information_set:  # a planner (search) reads the seat's information set, never the state
                action = int(agent.act_with_information(obs, mask, information_set(env, seat, agent)))
            else:
                action = int(agent.act(obs, mask))
            if seat in recorded:
                recorded[seat].append(len(actions))
                obs_rows.append(_row(env, seat, obs, privileged))
                mask_rows.append(np.array(mask, dtype=bool))
                actions.append(action)
                returns.append(0.0)
                game_ids.append(g)
                held += 4 * obs_rows.row_size() + mask_rows[-1].nbytes
            env.step(action)
        played = g + 1
        projected = held / played * games
        if held > budget or (played >= min(games, PROJECT_AFTER) and projected > budget):
            fit = int(budget / max(held / played, 1.0))
            raise ConfigError(
                f"pretrain: {games} games of {env_name} would record about {projected / 1e9:.1f} GB of observations "
                f"({len(actions)} decisions of {obs_rows.row_size()} floats in the first {played} games), "
                f"more than pretrain.max_gb={max_gb:g}; about {fit} games fit: lower pretrain.games or raise pretrain.max_gb")
        for seat, rows in recorded.items():
            reward = float(final.get(seat, 0.0))
            for k, row in enumerate(reversed(rows)):  # G_t = gamma ** (later decisions) * R
                returns[row] = reward * gamma ** k
    if not actions:
        raise ValueError(f"pretrain: {games} games of {env_name} recorded no teacher decision")
    extra = (None, None) if learner is None else (np.stack(targets), np.array(labelled, dtype=bool))
    return Demonstrations(obs_rows.array(), np.stack(mask_rows), np.array(actions, dtype=np.int64),
                          np.array(returns, dtype=np.float32), np.array(game_ids, dtype=np.int64), *extra)


def _row(env: Any, seat: str, obs: np.ndarray, privileged: bool) -> np.ndarray:
    """The row recorded for ``seat``'s decision: its observation, with a privileged critic's hidden state appended."""
    return np.concatenate([obs, env.privileged_observation(seat)]) if privileged else obs


def _dagger_decision(env: Any, seat: str, obs: np.ndarray, mask: np.ndarray, learner: Any, teacher: Any,
                     kinds: list[str] | None, beta: float, temperature: float | None,
                     rng: np.random.Generator) -> tuple[int, np.ndarray, bool] | None:
    """One decision of the student's seat in a DAgger game: None when it has a single legal action (nothing
    to learn; the caller plays the student), else (the action played, the row's label over the actions,
    whether the teacher labelled it). The teacher labels a decision of ``kinds``: the softmax of its
    action values over the legal set at ``temperature`` when it has values (search), else its choice."""
    from fight_envs.agents.arena import information_set

    legal = np.flatnonzero(mask)
    if legal.size < 2:
        return None
    own = int(learner.act(obs, mask))
    target = np.zeros(mask.shape[0], dtype=np.float32)
    if kinds is not None and env.unwrapped.decision_kind(seat) not in kinds:
        target[own] = 1.0  # not the teacher's to label: the fit keeps the student's own distribution here
        return own, target, False
    values = getattr(teacher, "action_values", None) if teacher.needs_information_set else None
    if values is not None and temperature is not None:
        v = np.asarray(values(information_set(env, seat, teacher), legal), dtype=np.float64) / temperature
        p = np.exp(v - v.max())
        target[legal] = p / p.sum()
        choice = int(legal[int(np.argmax(v))])
    else:
        if teacher.needs_information_set:
            choice = int(teacher.act_with_information(obs, mask, information_set(env, seat, teacher)))
        else:
            choice = int(teacher.act(obs, mask))
        target[choice] = 1.0
    return (choice if rng.random() < beta else own), target, True


def _collect_worker(path: str, kwargs: dict[str, Any]) -> None:
    """One worker of ``collect_parallel``: its games' demonstrations, written to ``path`` (``.npz``)."""
    import torch as _torch

    _torch.set_num_threads(1)
    try:
        data = collect(**kwargs)
    except BaseException as exc:  # noqa: BLE001 - written for the parent, which raises it
        import traceback

        kind = "ConfigError" if isinstance(exc, ConfigError) else "error"
        with open(f"{path}.error", "w", encoding="utf-8") as f:
            f.write(kind + "\n" + (str(exc) if kind == "ConfigError" else traceback.format_exc()))
        raise SystemExit(1) from None
    tmp = f"{path}.tmp.npz"
    np.savez(tmp, **_arrays_of(data))
    os.replace(tmp, path)


def _arrays_of(data: Demonstrations) -> dict[str, np.ndarray]:
    """The arrays of ``data`` by name, the DAgger labels included when it has them."""
    names = _ARRAYS + (_DAGGER_ARRAYS if data.targets is not None else ())
    return {k: getattr(data, k) for k in names}


def worker_seed(seed: int, worker: int) -> int:
    """The seed of worker ``worker``'s games in ``collect_parallel``."""
    return int(np.random.SeedSequence([int(seed), 18, int(worker)]).generate_state(1)[0])


def collect_parallel(env_name: str, env_options: dict[str, Any], num_players: list[int], games: int, teacher: str,
                     opponents: dict[str, float], seed: int, gamma: float, max_gb: float = 4.0,
                     workers: int = 1, privileged: bool = False, **dagger: Any) -> Demonstrations:
    """``collect`` on ``workers`` processes: worker ``w`` plays a block of the games (the first blocks one
    game larger when they do not divide evenly) with ``worker_seed(seed, w)`` and its share of ``max_gb``;
    the blocks are joined in order, their game numbers offset so that game ``g`` of the result is the
    ``g``-th game played (``pretrain`` holds out the last tenth). ``workers=1`` is ``collect`` itself.
    ``dagger`` (``student``, ``kinds``, ``beta``, ``temperature``) and ``privileged`` go to every worker's ``collect``.

    The workers start under forkserver (spawn where it is missing), as SB3's SubprocVecEnv, and hand
    their rows back as ``.npz`` files in a temporary folder, read without pickle; a worker's failure is
    raised here with its exit code or its error."""
    if workers <= 1 or games < 2:
        return collect(env_name, env_options, num_players, games, teacher, opponents, seed, gamma, max_gb,
                       privileged=privileged, **dagger)
    import multiprocessing as mp
    import tempfile

    workers = min(workers, games)
    base, extra = divmod(games, workers)
    sizes = [base + (1 if w < extra else 0) for w in range(workers)]
    ctx = mp.get_context("forkserver" if "forkserver" in mp.get_all_start_methods() else "spawn")
    with tempfile.TemporaryDirectory(prefix="fight_envs_pretrain_") as tmp:
        paths = [os.path.join(tmp, f"worker_{w}.npz") for w in range(workers)]
        procs = []
        for w, size in enumerate(sizes):
            kwargs = dict(env_name=env_name, env_options=env_options, num_players=num_players, games=size,
                          teacher=teacher, opponents=opponents, seed=worker_seed(seed, w), gamma=gamma,
                          max_gb=max_gb * size / games, privileged=privileged, **dagger)
            proc = ctx.Process(target=_collect_worker, args=(paths[w], kwargs), name=f"fight-envs-pretrain-{w}", daemon=True)
            proc.start()
            procs.append(proc)
        for proc in procs:
            proc.join()
        failed = [(w, p.exitcode) for w, p in enumerate(procs) if p.exitcode != 0 or not os.path.isfile(paths[w])]
        for w, _ in failed:
            if os.path.isfile(f"{paths[w]}.error"):
                with open(f"{paths[w]}.error", encoding="utf-8") as f:
                    kind, _, text = f.read().partition("\n")
                if kind == "ConfigError":
                    raise ConfigError(text)
                raise RuntimeError(f"pretrain: collection worker {w} failed:\n{text}")
        if failed:
            raise RuntimeError("pretrain: collection worker(s) failed: " + ", ".join(
                f"worker {w} exit code {code}" for w, code in failed) + " (a worker that dies without an error: out of memory, or killed)")
        # the small arrays of every block first; then the observations block by block into one array, so
        # that only one block's observations are held beside the result (not all of them: twice the memory)
        parts, offset = [], 0
        for path, size in zip(paths, sizes):
            with np.load(path, allow_pickle=False) as f:
                small = {k: f[k] for k in f.files if k != "observations"}
            small["game"] = small["game"] + offset
            parts.append(small)
            offset += size
        rows = sum(len(part["actions"]) for part in parts)
        observations: np.ndarray | None = None
        at = 0
        for path in paths:
            with np.load(path, allow_pickle=False) as f:
                block = f["observations"]
            if observations is None:
                observations = np.empty((rows, *block.shape[1:]), dtype=block.dtype)
            observations[at:at + len(block)] = block
            at += len(block)
            del block
    names = tuple(k for k in _ARRAYS if k != "observations") + (_DAGGER_ARRAYS if "targets" in parts[0] else ())
    assert observations is not None
    return Demonstrations(observations=observations, **{k: np.concatenate([part[k] for part in parts]) for k in names})


DEMONSTRATIONS_FORMAT = 1
"""Version of the demonstrations file layout (:func:`save_demonstrations`)."""
_ARRAYS = ("observations", "masks", "actions", "returns", "game")
_DAGGER_ARRAYS = ("targets", "labelled")
"""The arrays a DAgger recording adds (``Demonstrations.targets`` and ``labelled``)."""
_MATCHED = ("env", "env_options", "num_players", "teacher", "opponents", "games", "gamma", "mode", "student", "kinds",
            "beta", "temperature", "privileged")
"""Header fields a reused file must share with the run's config (everything that changes the rows but the seed).
The DAgger fields are absent from a behaviour-cloning header, and so from its config's ``recording_of``."""


def _plain(value: Any) -> Any:
    """``value`` as JSON would give it back (tuples as lists, keys as strings): how headers are compared."""
    return json.loads(json.dumps(value, sort_keys=True, default=repr))


def recording_of(config: Config) -> dict[str, Any]:
    """What a run's pretraining records, as a demonstrations file's header holds it (:data:`_MATCHED` and the seed)."""
    p = config.pretrain
    header = {"format": DEMONSTRATIONS_FORMAT, "env": config.env.name, "env_options": config.env.env_options(),
              "num_players": list(config.env.num_players), "teacher": p.teacher, "opponents": dict(p.opponents),
              "games": p.games, "gamma": config.ppo.gamma, "seed": config.seed, "workers": p.workers}
    if config.ppo.critic == "privileged":  # rows with the hidden state appended (absent otherwise: older files match)
        header["privileged"] = True
    if p.mode == "dagger":  # the games depend on the student's weights: the file's digest names them
        from fight_envs.train.selfplay import _init_path

        student = _init_path(str(config.init_from))
        header.update(mode="dagger", kinds=p.kinds, beta=p.beta, temperature=p.temperature,
                      student=hashlib.sha256(student.read_bytes()).hexdigest())
    return _plain(header)


def save_demonstrations(path: str | Path, data: Demonstrations, header: dict[str, Any]) -> Path:
    """Write ``data`` and its JSON ``header`` to ``path`` (``.npz``) atomically: a kill leaves no half file."""
    from fight_envs import __version__
    from fight_envs.core.atomic import atomic_path

    text = json.dumps({**_plain(header), "rows": len(data), "fight_envs": __version__}, sort_keys=True)
    # a file object: np.savez given the temporary name would append .npz to it
    with atomic_path(path) as tmp, open(tmp, "wb") as f:
        np.savez(f, header=np.array(text), **_arrays_of(data))
    return Path(path)


def load_demonstrations(path: str | Path, expected: dict[str, Any] | None = None) -> tuple[Demonstrations, dict[str, Any]]:
    """Read a file :func:`save_demonstrations` wrote (no pickle: a file someone hands over runs no code).

    With ``expected`` (:func:`recording_of` a config), every :data:`_MATCHED` field must be equal, else a
    ConfigError names each differing field with both values. Returns the rows and the file's header."""
    try:
        with np.load(path, allow_pickle=False) as f:
            missing = [k for k in ("header", *_ARRAYS) if k not in f.files]
            if missing:
                raise ConfigError(f"pretrain.data {str(path)!r} is not a demonstrations file: it lacks {missing}")
            header = json.loads(str(f["header"]))
            dagger = isinstance(header, dict) and header.get("mode") == "dagger"
            missing = [k for k in _DAGGER_ARRAYS if dagger and k not in f.files]
            if missing:
                raise ConfigError(f"pretrain.data {str(path)!r} is a DAgger recording without {missing}")
            arrays = {k: f[k] for k in _ARRAYS + (_DAGGER_ARRAYS if dagger else ())}
    except (OSError, ValueError, json.JSONDecodeError) as exc:  # not an npz, or object arrays (pickle)
        raise ConfigError(f"pretrain.data {str(path)!r} could not be read as a demonstrations file: {exc}") from None
    if not isinstance(header, dict) or header.get("format") != DEMONSTRATIONS_FORMAT:
        raise ConfigError(f"pretrain.data {str(path)!r}: format {header.get('format') if isinstance(header, dict) else header!r}, "
                          f"this version reads format {DEMONSTRATIONS_FORMAT}")
    rows = arrays["actions"].shape[0]
    bad = [k for k in arrays if arrays[k].shape[:1] != (rows,)] + [k for k in ("actions", "game") if arrays[k].ndim != 1]
    if dagger and (arrays["targets"].shape != arrays["masks"].shape or arrays["labelled"].ndim != 1):
        bad.append("targets")
    if bad or arrays["observations"].ndim != 2 or arrays["masks"].ndim != 2 or rows != header.get("rows"):
        raise ConfigError(f"pretrain.data {str(path)!r}: the arrays do not line up ({', '.join(f'{k} {arrays[k].shape}' for k in _ARRAYS)}; "
                          f"header rows {header.get('rows')!r})")
    if expected is not None:
        differ = [f"{k}: file {header.get(k)!r}, config {expected.get(k)!r}" for k in _MATCHED if header.get(k) != expected.get(k)]
        if differ:
            raise ConfigError(f"pretrain.data {str(path)!r} records other games than this run asks for ("
                              + "; ".join(differ) + "): point pretrain.data at a new file, or change the config to match")
    data = Demonstrations(arrays["observations"].astype(np.float32, copy=False), arrays["masks"].astype(bool, copy=False),
                          arrays["actions"].astype(np.int64, copy=False), arrays["returns"].astype(np.float32, copy=False),
                          arrays["game"].astype(np.int64, copy=False),
                          *((arrays["targets"].astype(np.float32, copy=False), arrays["labelled"].astype(bool, copy=False))
                            if dagger else (None, None)))
    return data, header


def agreement(policy: Any, data: Demonstrations, batch: int = 4096) -> float:
    """Share of rows where ``policy``'s most likely legal action is the teacher's."""
    hits = 0
    with torch.no_grad():
        for start in range(0, len(data), batch):
            sl = slice(start, start + batch)
            obs = torch.as_tensor(data.observations[sl], device=policy.device)
            dist = policy.get_distribution(obs, action_masks=data.masks[sl])
            chosen = dist.distribution.probs.argmax(dim=1).cpu().numpy()
            hits += int((chosen == data.actions[sl]).sum())
    return hits / max(len(data), 1)


def _train(policy: Any, size: int, epochs: int, batch_size: int, learning_rate: float, vf_coef: float, seed: int,
           losses: Any, log: Any = None) -> dict[str, float]:
    """Adam over ``epochs`` shuffled passes of ``size`` rows in minibatches: ``losses(rows)`` gives a minibatch's
    (cross-entropy, value error); the loss is their sum with ``vf_coef``, the gradient norm clipped at 1."""
    rng = np.random.default_rng(np.random.SeedSequence([seed, 17]))
    optimizer = torch.optim.Adam(policy.parameters(), lr=learning_rate)
    policy.set_training_mode(True)
    stats: dict[str, float] = {}
    for epoch in range(epochs):
        order = rng.permutation(size)
        total_ce = total_vf = 0.0
        for start in range(0, size, batch_size):
            rows = order[start:start + batch_size]
            ce, vf = losses(rows)
            loss = ce + vf_coef * vf
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), 1.0)
            optimizer.step()
            total_ce += float(ce.detach()) * len(rows)
            total_vf += float(vf.detach()) * len(rows)
        stats = {"cross_entropy": total_ce / size, "value_mse": total_vf / size}
        if log is not None:
            log(f"[pretrain] epoch {epoch + 1}/{epochs}: cross-entropy {stats['cross_entropy']:.4f}, "
                f"value mse {stats['value_mse']:.4f}")
    policy.set_training_mode(False)
    return stats


def fit(policy: Any, data: Demonstrations, epochs: int, batch_size: int, learning_rate: float, vf_coef: float,
        seed: int, log: Any = None) -> dict[str, float]:
    """Masked cross-entropy on the teacher's actions plus ``vf_coef`` x the value error (module docstring)."""
    obs = torch.as_tensor(data.observations, device=policy.device)
    acts = torch.as_tensor(data.actions, device=policy.device)
    rets = torch.as_tensor(data.returns, device=policy.device)
    masks = torch.as_tensor(data.masks, device=policy.device)

    def losses(rows: np.ndarray) -> tuple[torch.Tensor, torch.Tensor]:
        r = torch.as_tensor(rows, device=policy.device)
        values, log_prob, _ = policy.evaluate_actions(obs[r], acts[r], action_masks=masks[r])
        return -log_prob.mean(), torch.nn.functional.mse_loss(values.flatten(), rets[r])

    return _train(policy, len(data), epochs, batch_size, learning_rate, vf_coef, seed, losses, log)


def pretrain(model: Any, config: Config, log: Any = None, student_metadata: dict[str, Any] | None = None) -> dict[str, float]:
    """Collect ``config.pretrain.games`` teacher games and clone them into ``model.policy`` (module docstring).

    ``pretrain.mode: dagger``: ``model.policy`` (the warm start) is the student; it is written as a data-only
    checkpoint with ``student_metadata`` for the collection's workers to play."""
    p = config.pretrain
    if p.mode == "dagger" and p.kinds is not None:
        from fight_envs.agents.ablation import decision_kinds

        allowed = decision_kinds(config.env.name)
        unknown = [k for k in p.kinds if k not in allowed]
        if unknown:
            raise ConfigError(f"pretrain.kinds: {unknown} are not decision kinds of {config.env.name}; allowed: {', '.join(allowed)}")
    expected = recording_of(config)
    if p.data is not None and os.path.isfile(p.data):
        data, header = load_demonstrations(p.data, expected)
        width, actions = int(np.prod(model.observation_space.shape)), int(model.action_space.n)
        if data.observations.shape[1] != width or data.masks.shape[1] != actions:
            raise ConfigError(f"pretrain.data {p.data!r} holds observations of {data.observations.shape[1]} and masks of "
                              f"{data.masks.shape[1]}, the env gives {width} and {actions} (a file from another version "
                              f"of the env?)")
        if log is not None:
            log(f"[pretrain] reusing {len(data):,} recorded decisions from {p.data} (recorded with seed {header.get('seed')}, "
                f"fight-envs {header.get('fight_envs')})")
    else:
        import tempfile

        with tempfile.TemporaryDirectory(prefix="fight_envs_dagger_") as tmp:
            dagger: dict[str, Any] = {}
            if p.mode == "dagger":
                from fight_envs.agents.checkpoint import save_policy

                if student_metadata is None:
                    raise ValueError("pretrain.mode=dagger needs student_metadata (the checkpoint sidecar of the student)")
                student = os.path.join(tmp, "student.zip")
                save_policy(model.policy, student, student_metadata)
                dagger = {"student": student, "kinds": p.kinds, "beta": p.beta, "temperature": p.temperature}
            data = collect_parallel(config.env.name, config.env.env_options(), list(config.env.num_players), p.games,
                                    p.teacher, dict(p.opponents), seed=config.seed, gamma=config.ppo.gamma, max_gb=p.max_gb,
                                    workers=p.workers, privileged=config.ppo.critic == "privileged", **dagger)
        if p.data is not None:
            save_demonstrations(p.data, data, expected)
            if log is not None:
                log(f"[pretrain] saved the {len(data):,} recorded decisions to {p.data}")
    held_games = max(1, p.games // 10)
    train, test = data.split_last_games(p.games - held_games)  # views of the recorded rows (game order)
    if len(train) == 0:
        train = test
    if data.targets is not None:
        return _pretrain_dagger(model, config, data, train, test, held_games, log)
    before = agreement(model.policy, test) if len(test) else float("nan")
    stats = fit(model.policy, train, p.epochs, p.batch_size, p.learning_rate, config.ppo.vf_coef, config.seed, log)
    after = agreement(model.policy, test) if len(test) else float("nan")
    result = {"decisions": float(len(data)), "held_out": float(len(test)), "agreement_before": before,
              "agreement_after": after, **stats}
    if log is not None:
        log(f"[pretrain] {p.games} games of {p.teacher} ({len(data):,} decisions): agreement with the teacher on "
            f"{held_games} held-out games {before:.3f} -> {after:.3f}")
    return result


def own_targets(policy: Any, data: Demonstrations, batch: int = 4096) -> tuple[np.ndarray, np.ndarray]:
    """The policy's own action distribution and value on every row: what DAgger's fit keeps on unlabelled rows."""
    probs, values = [], []
    with torch.no_grad():
        for start in range(0, len(data), batch):
            sl = slice(start, start + batch)
            obs = torch.as_tensor(data.observations[sl], device=policy.device)
            probs.append(policy.get_distribution(obs, action_masks=data.masks[sl]).distribution.probs.cpu().numpy())
            values.append(policy.predict_values(obs).flatten().cpu().numpy())
    return np.concatenate(probs).astype(np.float32), np.concatenate(values).astype(np.float32)


def fit_soft(policy: Any, data: Demonstrations, targets: np.ndarray, values: np.ndarray, epochs: int, batch_size: int,
             learning_rate: float, vf_coef: float, seed: int, log: Any = None) -> dict[str, float]:
    """Cross-entropy to ``targets`` (a distribution over the actions per row) plus ``vf_coef`` x the squared error
    to ``values``: DAgger's fit, where the labels are distributions and the value head keeps its estimates.
    Minibatches are cut from the numpy rows (a Fight Klub recording is gigabytes: no second copy as a tensor)."""
    tgt = torch.as_tensor(targets, device=policy.device)
    vals = torch.as_tensor(values, device=policy.device)

    def losses(rows: np.ndarray) -> tuple[torch.Tensor, torch.Tensor]:
        rows = np.sort(rows)
        obs = torch.as_tensor(data.observations[rows], device=policy.device)
        logits = policy.get_distribution(obs, action_masks=data.masks[rows]).distribution.logits
        t = tgt[rows]
        # log-probabilities of illegal actions are -inf-like; their target share is 0, so they add nothing
        ce = -(t * torch.where(t > 0, torch.log_softmax(logits, dim=1), torch.zeros_like(logits))).sum(dim=1).mean()
        return ce, torch.nn.functional.mse_loss(policy.predict_values(obs).flatten(), vals[rows])

    return _train(policy, len(data), epochs, batch_size, learning_rate, vf_coef, seed, losses, log)


def _pretrain_dagger(model: Any, config: Config, data: Demonstrations, train: Demonstrations, test: Demonstrations,
                     held_games: int, log: Any) -> dict[str, float]:
    """DAgger's fit: labelled rows to the teacher's labels, the others (and every value) to the student's own."""
    p = config.pretrain
    probs, values = own_targets(model.policy, train)
    targets = np.where(train.labelled[:, None], train.targets, probs)
    asked = test.subset(np.flatnonzero(test.labelled)) if len(test) else test
    kept = test.subset(np.flatnonzero(~test.labelled)) if len(test) else test
    own_kept = most_likely(model.policy, kept)
    before = agreement(model.policy, asked) if len(asked) else float("nan")
    stats = fit_soft(model.policy, train, targets, values, p.epochs, p.batch_size, p.learning_rate, config.ppo.vf_coef,
                     config.seed, log)
    after = agreement(model.policy, asked) if len(asked) else float("nan")
    still = float(np.mean(most_likely(model.policy, kept) == own_kept)) if len(kept) else float("nan")
    result = {"decisions": float(len(data)), "labelled": float(data.labelled.sum()), "held_out": float(len(test)),
              "agreement_before": before, "agreement_after": after, "unlabelled_unchanged": still, **stats}
    if log is not None:
        log(f"[pretrain] DAgger: {p.games} games of the student, {int(data.labelled.sum()):,} of {len(data):,} decisions "
            f"labelled by {p.teacher}; agreement with the teacher on {held_games} held-out games {before:.3f} -> "
            f"{after:.3f}; unlabelled decisions unchanged {still:.3f}")
    return result


def most_likely(policy: Any, data: Demonstrations, batch: int = 4096) -> np.ndarray:
    """The policy's most likely legal action on every row."""
    out = []
    with torch.no_grad():
        for start in range(0, len(data), batch):
            sl = slice(start, start + batch)
            obs = torch.as_tensor(data.observations[sl], device=policy.device)
            out.append(policy.get_distribution(obs, action_masks=data.masks[sl]).distribution.probs.argmax(dim=1).cpu().numpy())
    return np.concatenate(out) if out else np.zeros(0, dtype=np.int64)
