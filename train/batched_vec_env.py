"""Self-play rollouts on the batched Fight 5 engine: an SB3 ``VecEnv`` with the opponents inside.

:class:`BatchedFight5VecEnv` is what ``vec_env: batched`` in the training config builds (see
``fight_envs.train.selfplay.make_vec_env``). sb3-contrib's MaskablePPO trains from it directly: it is a
``VecEnv`` whose observations are the learner's Fight 5 observation vectors (627 floats, the
PettingZoo env's ``observation``) and whose ``action_masks()`` gives the learner's legal ranks,
(num_envs, 13) bool.

**Layout and learner seats.** For every player count ``n`` in ``num_players`` there are
``n_envs`` envs (env indices in blocks, one block per count, in the order given). Env ``i`` of a
block has the fixed learner seat ``i % n``. The batched engine keeps all games of one
:class:`~fight_envs.games.fight5.batched.Fight5Batch` in lockstep (same round, acting seat and
slot), so every (count, learner seat) pair is one ``Fight5Batch`` holding the envs of that seat:
when the VecEnv steps, each sub-batch applies the learner's actions of its envs, then steps the
opponents' seats until its learner seat acts again (its learner always acts in all its games at
once). Every seat is played by the learner in 1/n of the envs, where ``SingleAgentEnv`` draws
the seat per episode; over a rollout the two give the learner the same mix of seats.

**Opponents** act in batches: for each engine step, one call per distinct opponent policy over
the games where that policy sits in the acting seat. They come from the self-play pool's
manifest (``fight_envs.train.opponents.PoolOpponentSampler``, reread whenever the trainer rewrites it), one
opponent drawn per opponent seat per game at the game's start with the pool's weights, as
``SingleAgentEnv`` does. The ``random`` baseline is :func:`random_legal_actions` on the whole
group; stateless scripted baselines (e.g. ``greedy``) and frozen learner snapshots
(``PolicyAgent``, a numpy forward pass) get ``act_batch`` on the group; scripted agents with
per-game memory (those overriding ``Agent.reset``, e.g. ``heuristic``, which plans a round at
its first slot) get one instance per (game, seat), reset at every game start, since one shared
instance would mix the plans of different games. Without a manifest, every opponent is random.

**Rewards and episodes.** The reward of a transition is the learner's own (``rewards[:, seat]``
of the engine), summed over the opponent moves until its next decision; the terminal reward is
delivered on the step that ends the game, whoever's move ended it (as in ``SingleAgentEnv``).
When a game ends, ``dones[i]`` is True, ``infos[i]["terminal_observation"]`` is the learner's
final observation, and the returned observation is already the learner's first one in the next
game (the engine resets games in place; opponents seated before the learner have moved there).
Episode-end infos also carry what SB3's ``Monitor`` and the trainer's ``PoolCallback`` read:
``episode`` ({"r", "l", "t"}: return, learner decisions, seconds since the VecEnv started),
``result`` (1 sole win, 1/k for a win shared by k, 0 loss, from the final scores),
``episode_reward``, ``opponents`` (pool ids), ``num_players``, ``learner_seat``, ``scores``
(egocentric final scores) and ``seed`` (the game's seed: ``fight5_v0.raw_env().reset(seed)``
replays its deal). Other steps' infos are empty dicts (nothing there is read per step).

**Seeds.** ``seed`` (or ``VecEnv.seed``) fixes everything: the game seeds of every sub-batch,
the opponents' draws and their generators. Env ``i``'s games use seeds ``base + k`` for a
per-sub-batch base, advancing by the sub-batch size at every auto-reset (``Fight5Batch``).

**Illegal learner actions** raise ``IllegalActionError`` from the engine (MaskablePPO never
samples one; there is no per-env episode end to turn one into, since the batch is in lockstep).

Needs the ``train`` extra (stable-baselines3), hence in ``train/``, not ``fight_envs``.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from stable_baselines3.common.monitor import Monitor
from stable_baselines3.common.vec_env import VecEnv
from stable_baselines3.common.vec_env.base_vec_env import VecEnvIndices, VecEnvObs, VecEnvStepReturn

from fight_envs.agents.base import Agent
from fight_envs.core.errors import ConfigError
from fight_envs.games.fight5.batched import MAX_SEED, REWARD_MODES, Fight5Batch, random_legal_actions
from fight_envs.games.fight5.observe import OBS_SIZE
from fight_envs.games.fight5.rules import NUM_ACTIONS

GAME = "fight5"
RANDOM = "random"
SEED_BOUND = 2**31 - 1
BATCHED_OPTIONS = ("reward", "num_bouts", "target_score", "cards")
"""The fight5_v0 constructor options the batched engine takes (render options make no sense here)."""
NO_OPPONENT = -1


# ===================================================================================== opponents
class _Handler:
    """One opponent of the pool, able to act for a group of games at once."""

    label: str
    needs_observation = True
    """False: acts from the action masks alone (the multi-game vec env then skips encoding observations)."""

    def act(self, obs: np.ndarray, masks: np.ndarray, games: np.ndarray, seat: int) -> np.ndarray:
        raise NotImplementedError

    def act_engines(self, engines: list[Any], seats: list[int], games: np.ndarray) -> np.ndarray | None:
        """The actions ``act`` would take on these seats' observations, read from the games' engines by the
        agent's ``act_game`` (``fight_envs.agents.brawl.HeuristicAgent.act_game``: the same action and the
        same draws of its generator), so that no observation is encoded for it; None where the agent has
        no ``act_game`` (and for agents with per-game memory: no such agent has one yet). The caller checks
        that the env's observation is the engine's standard one."""
        return None

    def start_games(self, games: np.ndarray, seat: int, rng: np.random.Generator) -> None:
        """Games ``games`` (env indices) start with this opponent in ``seat``."""


class _RandomHandler(_Handler):
    """Uniform over legal actions, vectorised (``random_legal_actions``)."""

    needs_observation = False

    def __init__(self, label: str, rng: np.random.Generator) -> None:
        self.label = label
        self.rng = rng

    def act(self, obs: np.ndarray, masks: np.ndarray, games: np.ndarray, seat: Any) -> np.ndarray:
        if masks.shape[1] == NUM_ACTIONS:
            return random_legal_actions(masks, self.rng)
        # any other game: random keys on the legal actions, masked argmax (one draw per row and action)
        legal = np.asarray(masks, dtype=bool)
        return np.where(legal, self.rng.random(legal.shape), -1.0).argmax(axis=1).astype(np.int64)


class _BatchHandler(_Handler):
    """A stateless agent (a frozen snapshot, a greedy baseline): one ``act_batch`` per group."""

    def __init__(self, label: str, agent: Agent) -> None:
        self.label = label
        self.agent = agent

    def act(self, obs: np.ndarray, masks: np.ndarray, games: np.ndarray, seat: int) -> np.ndarray:
        return np.asarray(self.agent.act_batch(obs, masks), dtype=np.int64)

    def act_engines(self, engines: list[Any], seats: list[int], games: np.ndarray) -> np.ndarray | None:
        act_game = getattr(self.agent, "act_game", None)
        if act_game is None:
            return None
        return np.array([act_game(g, s) for g, s in zip(engines, seats)], dtype=np.int64)  # act_batch's row order


class _PerGameHandler(_Handler):
    """A scripted agent with per-game memory: its own instance per (game, seat)."""

    def __init__(self, label: str, spec: str, game: str, env: Any = None) -> None:
        self.label = label
        self.spec = spec
        self.game = game
        self.env = env
        self.agents: dict[tuple[int, int], Agent] = {}

    def start_games(self, games: np.ndarray, seat: int, rng: np.random.Generator) -> None:
        from fight_envs.train.opponents import make_baseline

        for g in games.tolist():
            agent = self.agents.get((g, seat))
            if agent is None:
                agent = self.agents[(g, seat)] = make_baseline(self.spec, self.game, env=self.env)
            agent.seed(int(rng.integers(SEED_BOUND)))
            agent.reset()

    def act(self, obs: np.ndarray, masks: np.ndarray, games: np.ndarray, seat: Any) -> np.ndarray:
        # seat: one seat for every game, or one per game (fight_envs.train.multi_vec_env)
        seats = np.broadcast_to(np.asarray(seat), games.shape).tolist()
        agents = [self.agents[(g, s)] for g, s in zip(games.tolist(), seats)]
        # an agent class may act for many instances at once (HeuristicAgent.act_group: one plan per game)
        group = getattr(type(agents[0]), "act_group", None) if agents else None
        if group is not None:
            return np.asarray(group(agents, obs, masks), dtype=np.int64)
        return np.array([a.act(o, m) for a, o, m in zip(agents, obs, masks)], dtype=np.int64)


def _is_stateful(agent: Agent) -> bool:
    """Agents with per-game memory clear it in ``reset`` (``fight_envs.agents.base``), so they override it."""
    return type(agent).reset is not Agent.reset


class _OpponentBook:
    """The pool's opponents as handlers, with stable integer codes (a game keeps its opponents' codes
    to its end, even when the manifest drops them meanwhile). ``env``: an env of the games played, whose
    public rules the baselines take (``Agent.bind_rules``; None for the batched Fight 5 engine)."""

    def __init__(self, manifest_path: str | Path | None, rng: np.random.Generator, game: str = GAME,
                 env: Any = None) -> None:
        from fight_envs.train.opponents import PoolOpponentSampler

        self.env = env
        self.sampler = PoolOpponentSampler(manifest_path) if manifest_path is not None else None
        self.rng = rng
        self.handlers: list[_Handler | None] = []  # None: retired (left the pool, no game uses it)
        self.labels: list[str] = []
        self.codes: dict[str, int] = {}
        self._probs = np.ones(1)
        self._entry_codes = np.zeros(1, dtype=np.int64)
        self._version: int | None = None
        if self.sampler is None:
            self._entry_codes[0] = self._code({"id": RANDOM, "kind": "baseline", "spec": RANDOM}, game, False)

    def refresh(self) -> bool:
        """Reread the manifest if the trainer rewrote it; True when it changed."""
        if self.sampler is None:
            return False
        self.sampler.refresh()
        if self.sampler.version == self._version:
            return False
        self._version = self.sampler.version
        self._probs = self.sampler.probabilities
        self._entry_codes = np.array(
            [self._code(e, self.sampler.game, self.sampler.deterministic) for e in self.sampler.entries], dtype=np.int64
        )
        return True

    def retire(self, in_use: set[int]) -> None:
        """Free the opponents that left the pool and that no game still plays against."""
        keep = set(self._entry_codes.tolist()) | in_use
        for oid, code in list(self.codes.items()):
            if code not in keep:
                self.handlers[code] = None
                del self.codes[oid]

    def handler(self, code: int) -> _Handler:
        handler = self.handlers[code]
        assert handler is not None, "a game's opponent was retired while the game went on"
        return handler

    def draw(self, size: int) -> np.ndarray:
        """``size`` opponent codes drawn by the pool's weights."""
        picks = self.rng.choice(len(self._entry_codes), size=size, p=self._probs)
        return self._entry_codes[picks]

    def _code(self, entry: dict[str, Any], game: str, deterministic: bool) -> int:
        if entry["id"] in self.codes:
            return self.codes[entry["id"]]
        from fight_envs.agents.checkpoint import PolicyAgent, load_policy
        from fight_envs.train.opponents import make_baseline

        handler: _Handler
        if entry["kind"] == "baseline" and entry["spec"] == RANDOM:
            handler = _RandomHandler(entry["id"], self.rng)
        elif entry["kind"] == "baseline":
            agent = make_baseline(entry["spec"], game, seed=int(self.rng.integers(SEED_BOUND)), env=self.env)
            handler = (_PerGameHandler(entry["id"], entry["spec"], game, self.env) if _is_stateful(agent)
                       else _BatchHandler(entry["id"], agent))
        else:
            assert self.sampler is not None
            policy, _ = load_policy(self.sampler.manifest_path.parent / entry["spec"], device="cpu")
            handler = _BatchHandler(entry["id"], PolicyAgent(policy, deterministic=deterministic, name=entry["id"],
                                                             seed=int(self.rng.integers(SEED_BOUND))))
        self.codes[entry["id"]] = len(self.handlers)
        self.handlers.append(handler)
        self.labels.append(entry["id"])
        return self.codes[entry["id"]]


# ===================================================================================== sub-batches
@dataclass
class _SubBatch:
    """The envs of one (player count, learner seat): one Fight5Batch in lockstep."""

    num_players: int
    seat: int
    envs: np.ndarray  # env indices, (B,)
    batch: Fight5Batch
    opponents: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), dtype=np.int64))  # (B, n) codes, -1 at the learner
    groups: dict[int, list[tuple[_Handler, np.ndarray]]] = field(default_factory=dict)  # seat -> (handler, rows)
    game_seeds: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.uint64))


class LearnerVecEnvPlumbing:
    """What SB3's ``VecEnv`` asks of a vector env that steps its games itself (``BatchedFight5VecEnv``,
    ``MultiGameVecEnv``): attributes per env, ``action_masks`` as the one per-env method (what
    sb3-contrib's ``get_action_masks`` calls), Monitor-style episode statistics, no images.

    The class using it has ``num_envs``, ``env_num_players``, ``learner_seats``, ``action_masks()``,
    and says in ``HOLDS`` how it holds its games (for the refusal of ``set_attr``).
    """

    HOLDS = "steps its games itself"
    num_envs: int
    env_num_players: np.ndarray
    learner_seats: np.ndarray

    def action_masks(self) -> np.ndarray:
        raise NotImplementedError

    _started: bool = False
    _actions: np.ndarray | None = None

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions)

    def _take_actions(self) -> np.ndarray:
        """The learner's actions of this step (one int64 per env), once; refuses a step out of order."""
        if not self._started:
            raise RuntimeError("call reset() before step()")
        if self._actions is None:
            raise RuntimeError("step_wait() without step_async()")
        actions = self._actions.reshape(self.num_envs).astype(np.int64, copy=False)
        self._actions = None
        return actions

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        if attr_name == "render_mode":
            return [None for _ in self._indices(indices)]
        if attr_name == "action_masks":
            return [self.action_masks for _ in self._indices(indices)]
        per_env = {"num_players": self.env_num_players, "learner_seat": self.learner_seats}
        if attr_name in per_env:
            return [int(per_env[attr_name][i]) for i in self._indices(indices)]
        if hasattr(self, attr_name):
            return [getattr(self, attr_name) for _ in self._indices(indices)]
        raise AttributeError(f"{type(self).__name__} has no attribute {attr_name!r}")

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        raise AttributeError(f"{type(self).__name__} {self.HOLDS}; setting {attr_name!r} per env is not supported")

    def env_method(self, method_name: str, *method_args: Any, indices: VecEnvIndices = None, **method_kwargs: Any) -> list[Any]:
        if method_name == "action_masks":
            # What sb3-contrib's get_action_masks calls; it stacks the rows.
            masks = self.action_masks()
            return [masks[i] for i in self._indices(indices)]
        raise AttributeError(f"{type(self).__name__} has no per-env method {method_name!r}; it offers action_masks")

    def env_is_wrapped(self, wrapper_class: type[gym.Wrapper], indices: VecEnvIndices = None) -> list[bool]:
        # Episode statistics are written the way Monitor writes them, so code checking for it works.
        return [wrapper_class is Monitor for _ in self._indices(indices)]

    def get_images(self) -> Sequence[np.ndarray | None]:
        return [None for _ in range(self.num_envs)]

    def _indices(self, indices: VecEnvIndices) -> list[int]:
        if indices is None:
            return list(range(self.num_envs))
        if isinstance(indices, (int, np.integer)):
            return [int(indices)]
        return [int(i) for i in indices]



class BatchedFight5VecEnv(LearnerVecEnvPlumbing, VecEnv):
    """Fight 5 self-play rollouts for MaskablePPO from the batched engine (see the module docstring).

    Args:
        n_envs: envs (games) per player count.
        num_players: the player counts, e.g. ``[2]`` or ``[2, 3, 4, 5]``.
        manifest_path: the opponent pool's ``manifest.json`` (None: random opponents).
        seed: seeds the game deals and opponents (None: OS entropy).
        **env_options: fight5_v0 options the engine takes: ``reward``, ``num_bouts``,
            ``target_score``, ``cards``.
    """

    HOLDS = "holds its games as arrays"

    def __init__(
        self,
        n_envs: int,
        num_players: Sequence[int] = (2,),
        manifest_path: str | Path | None = None,
        seed: int | None = None,
        **env_options: Any,
    ) -> None:
        if isinstance(n_envs, bool) or not isinstance(n_envs, (int, np.integer)) or n_envs < 1:
            raise ConfigError(f"n_envs must be an int >= 1, got {n_envs!r}")
        counts = [int(n) for n in num_players]
        if not counts or len(set(counts)) != len(counts):
            raise ConfigError(f"num_players must list distinct player counts, e.g. [2] or [2, 3, 4, 5]; got {list(num_players)}")
        unknown = sorted(set(env_options) - set(BATCHED_OPTIONS))
        if unknown:
            raise ConfigError(f"the batched Fight 5 vec env takes the options {', '.join(BATCHED_OPTIONS)}; got {unknown}")
        reward = env_options.get("reward", "outcome")
        if reward not in REWARD_MODES:
            raise ConfigError(f"reward must be one of {REWARD_MODES}, got {reward!r}")
        self.env_options = dict(env_options)
        self.num_players_list = counts
        self.manifest_path = None if manifest_path is None else Path(manifest_path)
        self._base_seed = seed
        self.subs: list[_SubBatch] = []
        for block, n in enumerate(counts):
            for s in range(n):
                envs = block * n_envs + np.arange(s, n_envs, n)
                if envs.size:
                    self.subs.append(_SubBatch(n, s, envs, Fight5Batch(envs.size, num_players=n, keep_final_obs=True,
                                                                       **env_options)))
        total = n_envs * len(counts)
        self.render_mode = None
        observation_space = spaces.Box(0.0, 100.0, (OBS_SIZE,), np.float32)  # the fight5_v0 observation's space
        super().__init__(total, observation_space, spaces.Discrete(NUM_ACTIONS))
        self.env_num_players = np.zeros(total, dtype=np.int64)
        self.learner_seats = np.zeros(total, dtype=np.int64)
        for sub in self.subs:
            self.env_num_players[sub.envs] = sub.num_players
            self.learner_seats[sub.envs] = sub.seat
        self._obs = np.zeros((total, OBS_SIZE), dtype=np.float32)
        self._masks = np.zeros((total, NUM_ACTIONS), dtype=bool)
        self._ep_return = np.zeros(total, dtype=np.float64)
        self._ep_len = np.zeros(total, dtype=np.int64)
        self._carry = np.zeros(total, dtype=np.float64)  # rewards earned before the learner's next decision
        self._actions: np.ndarray | None = None
        self._t0 = time.time()
        self._started = False
        self.rng = np.random.default_rng(seed)
        self.book = _OpponentBook(self.manifest_path, self.rng)

    # ------------------------------------------------------------------ VecEnv API
    def seed(self, seed: int | None = None) -> Sequence[None | int]:  # type: ignore[override]
        """Seed the next ``reset`` (every game, every opponent draw); SB3 calls this with the run seed."""
        self._base_seed = seed
        return [None if seed is None else seed + i for i in range(self.num_envs)]

    def reset(self) -> VecEnvObs:
        seed = self._base_seed if self._base_seed is not None else self._seeds[0]
        self.rng = np.random.default_rng(seed)
        self.book = _OpponentBook(self.manifest_path, self.rng)  # fresh generators: reproducible from the seed
        self._base_seed = None
        self._reset_seeds()
        self._reset_options()
        self.book.refresh()
        for sub in self.subs:
            base = int(self.rng.integers(MAX_SEED // 2))
            out = sub.batch.reset(seed=base)
            sub.game_seeds = sub.batch.seeds.copy()
            sub.opponents = np.full((sub.envs.size, sub.num_players), NO_OPPONENT, dtype=np.int64)
            self._new_games(sub, np.arange(sub.envs.size))
            out = self._play_opponents(sub, out)
            self._carry[sub.envs] = out
            self._write(sub)
        self._ep_return[:] = 0.0
        self._ep_len[:] = 0
        self._t0 = time.time()
        self._started = True
        return self._obs.copy()

    def step_wait(self) -> VecEnvStepReturn:
        actions = self._take_actions()
        rewards = self._carry.copy()
        self._carry[:] = 0.0
        dones = np.zeros(self.num_envs, dtype=bool)
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        self._ep_len += 1
        if self.book.refresh():
            self.book.retire({int(c) for sub in self.subs for c in np.unique(sub.opponents).tolist() if c >= 0})
        for sub in self.subs:
            self._step_sub(sub, actions[sub.envs], rewards, dones, infos)
        self._ep_return += rewards
        for i in np.flatnonzero(dones).tolist():
            # the episode return includes this step's reward (sum of everything before the reset)
            ret = self._ep_return[i]
            info = infos[i]
            info["episode_reward"] = float(ret)
            info["episode"] = {"r": round(float(ret), 6), "l": int(self._ep_len[i]), "t": round(time.time() - self._t0, 6)}
            self._ep_return[i] = 0.0  # rewards carried to the next game join its return when delivered
            self._ep_len[i] = 0
        return self._obs.copy(), rewards.astype(np.float32), dones, infos

    def action_masks(self) -> np.ndarray:
        """(num_envs, 13) bool: the learner's legal ranks in every env."""
        return self._masks.copy()

    def close(self) -> None:
        """Nothing to release: no processes, no files."""

    # ------------------------------------------------------------------ the loop
    def _step_sub(self, sub: _SubBatch, actions: np.ndarray, rewards: np.ndarray, dones: np.ndarray,
                  infos: list[dict[str, Any]]) -> None:
        """The learner's move in every game of ``sub``, then the opponents' until it acts again."""
        batch = sub.batch
        out = batch.step(actions)
        while True:
            if out.final_index.size or out.rewards.any():  # rewards come only at bout ends
                self._collect(sub, out, rewards, dones, infos)
            if batch.seat == sub.seat:
                break
            out = batch.step(self._opponent_actions(sub, out))
        self._write(sub)

    def _collect(self, sub: _SubBatch, out: Any, rewards: np.ndarray, dones: np.ndarray,
                 infos: list[dict[str, Any]]) -> None:
        """The learner's share of one engine step's rewards, and the games it ended."""
        L, n = sub.seat, sub.num_players
        earned = out.rewards[:, L]
        # A game that ended earlier in this step has restarted: what it earns now is the next episode's.
        before = dones[sub.envs]
        rewards[sub.envs[~before]] += earned[~before]
        self._carry[sub.envs[before]] += earned[before]
        rows = out.final_index
        if rows.size == 0:
            return
        envs = sub.envs[rows]
        dones[envs] = True
        scores = out.final_scores
        best = scores.max(axis=1)
        mine = scores[:, L]
        shared = (scores == best[:, None]).sum(axis=1)
        order = (L + np.arange(n)) % n  # egocentric: me first, then clockwise
        labels = self.book.labels
        for k, (i, r) in enumerate(zip(envs.tolist(), rows.tolist())):
            infos[i] = {
                "terminal_observation": np.array(out.final_obs[k, L]),
                "result": 0.0 if mine[k] < best[k] else 1.0 / int(shared[k]),
                "opponents": [labels[c] for c in sub.opponents[r][order[1:]].tolist()],
                "num_players": n,
                "learner_seat": L,
                "scores": scores[k][order].copy(),
                "seed": int(sub.game_seeds[r]),
            }
        sub.game_seeds[rows] = sub.batch.seeds[rows]
        self._new_games(sub, rows)

    def _new_games(self, sub: _SubBatch, rows: np.ndarray) -> None:
        """Draw the opponents of the games starting in ``rows`` (one per opponent seat)."""
        if rows.size == 0:
            return
        self.book.refresh()
        n, L = sub.num_players, sub.seat
        # seats clockwise from the learner, as SingleAgentEnv draws them
        seats = [(L + k) % n for k in range(1, n)]
        drawn = self.book.draw(rows.size * (n - 1)).reshape(rows.size, n - 1)
        sub.opponents[np.ix_(rows, seats)] = drawn
        for j, s in enumerate(seats):
            for code in np.unique(drawn[:, j]).tolist():
                handler = self.book.handler(code)
                handler.start_games(sub.envs[rows[drawn[:, j] == code]], s, self.rng)
        sub.groups = {}

    def _opponent_actions(self, sub: _SubBatch, out: Any) -> np.ndarray:
        s = int(sub.batch.seat)
        groups = sub.groups.get(s)
        if groups is None:
            codes = sub.opponents[:, s]
            groups = sub.groups[s] = [(self.book.handler(c), np.flatnonzero(codes == c)) for c in np.unique(codes).tolist()]
        if len(groups) == 1:
            handler, rows = groups[0]
            return handler.act(out.obs, out.action_mask, sub.envs, s)
        actions = np.empty(sub.envs.size, dtype=np.int64)
        for handler, rows in groups:
            actions[rows] = handler.act(out.obs[rows], out.action_mask[rows], sub.envs[rows], s)
        return actions

    def _play_opponents(self, sub: _SubBatch, out: Any) -> np.ndarray:
        """At reset: opponents seated before the learner move first; returns the learner's rewards so far."""
        earned = np.zeros(sub.envs.size, dtype=np.float64)
        while sub.batch.seat != sub.seat:
            out = sub.batch.step(self._opponent_actions(sub, out))
            earned += out.rewards[:, sub.seat]
        return earned

    def _write(self, sub: _SubBatch) -> None:
        self._obs[sub.envs] = sub.batch.obs
        self._masks[sub.envs] = sub.batch.action_mask
