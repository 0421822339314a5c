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
"""

from __future__ import annotations

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

    def __len__(self) -> int:
        return int(self.actions.shape[0])

    def subset(self, rows: np.ndarray) -> Demonstrations:
        return Demonstrations(self.observations[rows], self.masks[rows], self.actions[rows], self.returns[rows],
                              self.game[rows])


PROJECT_AFTER = 5
"""Games played before ``collect`` projects the memory of all of them from their mean (``max_gb``)."""


def collect(env_name: str, env_options: dict[str, Any], num_players: list[int], games: int, teacher: str,
            opponents: dict[str, float], seed: int, gamma: float, max_gb: float = 4.0) -> Demonstrations:
    """Play ``games`` games with one ``teacher`` seat and opponents drawn from ``opponents`` (see the module docstring).

    Raises ConfigError once the recorded rows take more than ``max_gb`` GB, or once the first
    ``PROJECT_AFTER`` games project past it: the message says how many games would fit."""
    from fight_envs.agents.arena import information_set
    from fight_envs.registry import make
    from fight_envs.train.opponents import make_baseline
    from fight_envs.train.selfplay import game_of

    game = game_of(env_name)
    rng = np.random.default_rng(np.random.SeedSequence([seed, 16]))
    names = sorted(opponents)
    weights = np.array([opponents[k] for k in names], dtype=np.float64)
    weights = weights / weights.sum()
    envs = {n: make(env_name, api="raw", **{**env_options, "num_players": n}) for n in num_players}
    # sorted: a set iterates in string-hash order, which changes from process to process (PYTHONHASHSEED)
    rules = next(iter(envs.values()))  # every count plays the same card data: the baselines take its rules
    agents = {name: make_baseline(name, game, seed=int(rng.integers(2**31)), env=rules) for name in sorted({teacher, *names})}
    obs_rows: list[np.ndarray] = []
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
        recorded = {s: [] for s in seats if players[s] == teacher}
        final: dict[str, float] = {}
        while env.agents:
            seat = env.agent_selection
            if env.terminations[seat] or env.truncations[seat]:
                final[seat] = float(env._cumulative_rewards[seat])  # the seat's whole reward, read as env.last() does
                env.step(None)
                continue
            observation = env.observe(seat)
            obs, mask = observation["observation"], observation["action_mask"]
            agent = agents[players[seat]]
            if agent.needs_information_set:  # a planner (search) reads the seat's information set, never the state
                action = int(agent.act_with_information(obs, mask, information_set(env, seat, agent)))
            else:
                action = int(agent.act(obs, mask))
            if seat in recorded:
                recorded[seat].append(len(actions))
                obs_rows.append(np.array(obs, dtype=np.float32))
                mask_rows.append(np.array(mask, dtype=bool))
                actions.append(action)
                returns.append(0.0)
                game_ids.append(g)
                held += obs_rows[-1].nbytes + mask_rows[-1].nbytes
            env.step(action)
        played = g + 1
        projected = held / played * games
        if held > budget or (played >= min(games, PROJECT_AFTER) and projected > budget):
            fit = int(budget / max(held / played, 1.0))
            raise ConfigError(
                f"pretrain: {games} games of {env_name} would record about {projected / 1e9:.1f} GB of observations "
                f"({len(actions)} decisions of {obs_rows[-1].size if obs_rows else 0} floats in the first {played} games), "
                f"more than pretrain.max_gb={max_gb:g}; about {fit} games fit: lower pretrain.games or raise pretrain.max_gb")
        for seat, rows in recorded.items():
            reward = float(final.get(seat, 0.0))
            for k, row in enumerate(reversed(rows)):  # G_t = gamma ** (later decisions) * R
                returns[row] = reward * gamma ** k
    if not actions:
        raise ValueError(f"pretrain: {games} games of {env_name} recorded no teacher decision")
    return Demonstrations(np.stack(obs_rows), np.stack(mask_rows), np.array(actions, dtype=np.int64),
                          np.array(returns, dtype=np.float32), np.array(game_ids, dtype=np.int64))


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
    np.savez(tmp, observations=data.observations, masks=data.masks, actions=data.actions, returns=data.returns,
             game=data.game)
    os.replace(tmp, path)


def worker_seed(seed: int, worker: int) -> int:
    """The seed of worker ``worker``'s games in ``collect_parallel``."""
    return int(np.random.SeedSequence([int(seed), 18, int(worker)]).generate_state(1)[0])


def collect_parallel(env_name: str, env_options: dict[str, Any], num_players: list[int], games: int, teacher: str,
                     opponents: dict[str, float], seed: int, gamma: float, max_gb: float = 4.0,
                     workers: int = 1) -> Demonstrations:
    """``collect`` on ``workers`` processes: worker ``w`` plays a block of the games (the first blocks one
    game larger when they do not divide evenly) with ``worker_seed(seed, w)`` and its share of ``max_gb``;
    the blocks are joined in order, their game numbers offset so that game ``g`` of the result is the
    ``g``-th game played (``pretrain`` holds out the last tenth). ``workers=1`` is ``collect`` itself.

    The workers start under forkserver (spawn where it is missing), as SB3's SubprocVecEnv, and hand
    their rows back as ``.npz`` files in a temporary folder, read without pickle; a worker's failure is
    raised here with its exit code or its error."""
    if workers <= 1 or games < 2:
        return collect(env_name, env_options, num_players, games, teacher, opponents, seed, gamma, max_gb)
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
                          max_gb=max_gb * size / games)
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
        parts, offset = [], 0
        for path, size in zip(paths, sizes):
            with np.load(path, allow_pickle=False) as f:
                parts.append(Demonstrations(f["observations"], f["masks"], f["actions"], f["returns"], f["game"] + offset))
            offset += size
    return Demonstrations(*(np.concatenate([getattr(d, k) for d in parts]) for k in
                            ("observations", "masks", "actions", "returns", "game")))


DEMONSTRATIONS_FORMAT = 1
"""Version of the demonstrations file layout (:func:`save_demonstrations`)."""
_ARRAYS = ("observations", "masks", "actions", "returns", "game")
_MATCHED = ("env", "env_options", "num_players", "teacher", "opponents", "games", "gamma")
"""Header fields a reused file must share with the run's config (everything that changes the rows but the seed)."""


def _plain(value: Any) -> Any:
    """``value`` as JSON would give it back (tuples as lists, keys as strings): how headers are compared."""
    return json.loads(json.dumps(value, sort_keys=True, default=repr))


def recording_of(config: Config) -> dict[str, Any]:
    """What a run's pretraining records, as a demonstrations file's header holds it (:data:`_MATCHED` and the seed)."""
    p = config.pretrain
    return _plain({"format": DEMONSTRATIONS_FORMAT, "env": config.env.name, "env_options": config.env.env_options(),
                   "num_players": list(config.env.num_players), "teacher": p.teacher, "opponents": dict(p.opponents),
                   "games": p.games, "gamma": config.ppo.gamma, "seed": config.seed, "workers": p.workers})


def save_demonstrations(path: str | Path, data: Demonstrations, header: dict[str, Any]) -> Path:
    """Write ``data`` and its JSON ``header`` to ``path`` (``.npz``) atomically: a kill leaves no half file."""
    from fight_envs import __version__
    from fight_envs.core.atomic import atomic_path

    text = json.dumps({**_plain(header), "rows": len(data), "fight_envs": __version__}, sort_keys=True)
    # a file object: np.savez given the temporary name would append .npz to it
    with atomic_path(path) as tmp, open(tmp, "wb") as f:
        np.savez(f, header=np.array(text), **{k: getattr(data, k) for k in _ARRAYS})
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
            arrays = {k: f[k] for k in _ARRAYS}
    except (OSError, ValueError, json.JSONDecodeError) as exc:  # not an npz, or object arrays (pickle)
        raise ConfigError(f"pretrain.data {str(path)!r} could not be read as a demonstrations file: {exc}") from None
    if not isinstance(header, dict) or header.get("format") != DEMONSTRATIONS_FORMAT:
        raise ConfigError(f"pretrain.data {str(path)!r}: format {header.get('format') if isinstance(header, dict) else header!r}, "
                          f"this version reads format {DEMONSTRATIONS_FORMAT}")
    rows = arrays["actions"].shape[0]
    bad = [k for k in _ARRAYS if arrays[k].shape[:1] != (rows,)] + [k for k in ("actions", "game") if arrays[k].ndim != 1]
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
                          arrays["game"].astype(np.int64, copy=False))
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


def fit(policy: Any, data: Demonstrations, epochs: int, batch_size: int, learning_rate: float, vf_coef: float,
        seed: int, log: Any = None) -> dict[str, float]:
    """Masked cross-entropy on the teacher's actions plus ``vf_coef`` x the value error (module docstring)."""
    rng = np.random.default_rng(np.random.SeedSequence([seed, 17]))
    optimizer = torch.optim.Adam(policy.parameters(), lr=learning_rate)
    obs = torch.as_tensor(data.observations, device=policy.device)
    acts = torch.as_tensor(data.actions, device=policy.device)
    rets = torch.as_tensor(data.returns, device=policy.device)
    masks = torch.as_tensor(data.masks, device=policy.device)
    policy.set_training_mode(True)
    stats: dict[str, float] = {}
    for epoch in range(epochs):
        order = torch.as_tensor(rng.permutation(len(data)), device=policy.device)
        total_ce = total_vf = 0.0
        for start in range(0, len(data), batch_size):
            rows = order[start:start + batch_size]
            values, log_prob, _ = policy.evaluate_actions(obs[rows], acts[rows], action_masks=masks[rows])
            ce = -log_prob.mean()
            vf = torch.nn.functional.mse_loss(values.flatten(), rets[rows])
            loss = ce + vf_coef * vf
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), 1.0)
            optimizer.step()
            total_ce += float(ce.detach()) * len(rows)
            total_vf += float(vf.detach()) * len(rows)
        stats = {"cross_entropy": total_ce / len(data), "value_mse": total_vf / len(data)}
        if log is not None:
            log(f"[pretrain] epoch {epoch + 1}/{epochs}: cross-entropy {stats['cross_entropy']:.4f}, "
                f"value mse {stats['value_mse']:.4f}")
    policy.set_training_mode(False)
    return stats


def pretrain(model: Any, config: Config, log: Any = None) -> dict[str, float]:
    """Collect ``config.pretrain.games`` teacher games and clone them into ``model.policy`` (module docstring)."""
    p = config.pretrain
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
        data = collect_parallel(config.env.name, config.env.env_options(), list(config.env.num_players), p.games,
                                p.teacher, dict(p.opponents), seed=config.seed, gamma=config.ppo.gamma, max_gb=p.max_gb,
                                workers=p.workers)
        if p.data is not None:
            save_demonstrations(p.data, data, expected)
            if log is not None:
                log(f"[pretrain] saved the {len(data):,} recorded decisions to {p.data}")
    held_games = max(1, p.games // 10)
    held = data.game >= p.games - held_games
    train, test = data.subset(np.flatnonzero(~held)), data.subset(np.flatnonzero(held))
    if len(train) == 0:
        train = test
    before = agreement(model.policy, test) if len(test) else float("nan")
    stats = fit(model.policy, train, p.epochs, p.batch_size, p.learning_rate, config.ppo.vf_coef, config.seed, log)
    after = agreement(model.policy, test) if len(test) else float("nan")
    result = {"decisions": float(len(data)), "held_out": float(len(test)), "agreement_before": before,
              "agreement_after": after, **stats}
    if log is not None:
        log(f"[pretrain] {p.games} games of {p.teacher} ({len(data):,} decisions): agreement with the teacher on "
            f"{held_games} held-out games {before:.3f} -> {after:.3f}")
    return result
