"""Self-play rollouts for any suite game: many AEC games in one process, the opponents acting in batches.

:class:`MultiGameVecEnv` is what ``vec_env: multi`` in the training config builds (see
``fight_envs.train.selfplay.make_vec_env``). It works for every env of ``fight_envs.list_envs()``
through its raw PettingZoo AEC env alone (``observe``, ``step``, ``agent_selection``,
``terminations`` / ``truncations``, ``_cumulative_rewards``, ``infos``), so it needs nothing
game-specific and follows a game's rules, observation size and options as they change.
sb3-contrib's MaskablePPO trains from it directly: it is an SB3 ``VecEnv`` whose observations
are the learner's ``observation`` vectors and whose ``action_masks()`` gives its legal actions.

**Why it is faster than SB3's DummyVecEnv over ``SingleAgentEnv``.** The games' own steps are
the same; what goes is the per-env overhead around them (a Gymnasium env, a ``Monitor`` and
DummyVecEnv's buffers per env, one call per env per step) and, above all, the opponents'
one-decision-at-a-time calls: here, after the learner's moves, every game waiting for an opponent
is grouped by the opponent policy in its acting seat, and each policy acts **once for all its
games** (``act_batch``: one forward pass of a frozen snapshot for all games' opponent seats; a
scripted baseline's ``act_batch``, which loops where the agent has no vectorised form; a scripted
baseline with ``act_game``, the Brawl heuristic, reads each game's engine instead of an encoded
observation, the same action and draws, when the env's observation is the engine's standard one). With
many games per process, the learner's own forward pass in ``collect_rollouts`` is batched over
many rows too.

**Layout and learner seats.** For every player count ``n`` in ``num_players`` there are
``n_envs`` games (env indices in blocks, one block per count). With ``learner_seat="random"``
(default) the learner's seat is drawn at every game start, as ``SingleAgentEnv`` does; with
``"rotate"`` env ``i`` of a block keeps seat ``i % n``. Every env of one vec env must have the
same observation shape: the suite's envs pad observations to their largest player count.

**Opponents** come from the self-play pool's manifest exactly as in
``fight_envs.train.batched_vec_env`` (the same opponent book and handlers): one opponent drawn
per opponent seat at each game's start with the pool's weights; ``random`` is vectorised;
stateless agents (snapshots, scripted agents without per-game memory) get one ``act_batch``
per group; agents with per-game memory (overriding ``Agent.reset``) get one instance per
(game, seat), reset at every game start, acting together through the class's ``act_group``
where it has one. Without a manifest, every opponent is random. Scripted baselines take the
envs' public rules when built (``Agent.bind_rules``: Fifth-Earth's card data, option ``cards``).

**Rewards and episodes** follow ``SingleAgentEnv``: a transition's reward is the learner's
cumulative reward read at its next decision (or its game's end), so it includes what the
opponents' moves earned it; rewards earned before its first decision of a game belong to that
game's first transition. At a game's end ``dones[i]`` is True, ``infos[i]`` holds
``terminal_observation``, ``TimeLimit.truncated`` (a truncated, not terminated, game: SB3
bootstraps it), ``episode`` ({"r", "l", "t"}, as SB3's ``Monitor`` writes it), ``result`` (the
learner's win credit, ``fight_envs.wrappers.single_agent.win_credit``), ``episode_reward``,
``opponents`` (pool ids, clockwise from the learner), ``num_players``, ``learner_seat`` and
``seed`` (the game's seed: ``make(env, api="raw").reset(seed=seed)`` replays its deal), and the
returned observation is already the learner's first one in the next game. Other steps' infos
are empty dicts.

**Seeds.** ``seed`` (or ``VecEnv.seed``) fixes everything: the games' seeds, the learner seats,
the opponents' draws and their generators.

**A privileged critic** (``privileged=True``, ``ppo.critic: privileged``): every learner observation (the
terminal ones too) has the env's ``privileged_observation`` (its hidden state) appended, for a value net that
trains on it; the opponents still act on their observations.

**Illegal learner actions** raise the env's ``IllegalActionError`` (MaskablePPO never samples one).

Needs the ``train`` extra (stable-baselines3), hence in ``train/``, not ``fight_envs``.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env import VecEnv
from stable_baselines3.common.vec_env.base_vec_env import VecEnvObs, VecEnvStepReturn

from fight_envs.core.errors import ConfigError
from fight_envs.registry import make
from fight_envs.train.batched_vec_env import SEED_BOUND, LearnerVecEnvPlumbing, _OpponentBook
from fight_envs.wrappers.single_agent import win_credit

LEARNER_SEATS = ("random", "rotate")


def game_name(env_name: str) -> str:
    """``brawl_v0`` -> ``brawl``: the game the pool's baselines are built for."""
    return env_name.rsplit("_v", 1)[0]


def privileged_space(env: Any, env_name: str, obs_space: spaces.Box) -> spaces.Box:
    """The learner's observation space with ``env``'s privileged block appended (``ConfigError`` for an env
    without ``privileged_observation``)."""
    agent = env.possible_agents[0]
    if not callable(getattr(env, "privileged_observation", None)):
        raise ConfigError(f"{env_name} has no privileged_observation (the hidden state for a privileged critic); "
                          "set ppo.critic=shared")
    extra = env.privileged_observation_space(agent)
    if len(obs_space.shape) != 1 or len(extra.shape) != 1:
        raise ConfigError(f"{env_name}: a privileged critic needs flat observations, got {obs_space.shape} and {extra.shape}")
    return spaces.Box(np.concatenate([obs_space.low, extra.low]).astype(np.float32),
                      np.concatenate([obs_space.high, extra.high]).astype(np.float32), dtype=np.float32)


def standard_observation(env: Any) -> bool:
    """True when ``env``'s observations are its engine's standard encoding (its ``observe_state`` says
    ``standard_observation``, as the search's rollouts check): a scripted opponent's ``act_game`` on
    ``env.game`` then takes the action its ``act`` would take on the observation."""
    observe_state = getattr(getattr(env, "table", None), "observe_state", None)
    return bool(getattr(observe_state, "standard_observation", False)) and hasattr(env, "game")


class MultiGameVecEnv(LearnerVecEnvPlumbing, VecEnv):
    """Self-play rollouts of any suite AEC env for MaskablePPO (see the module docstring).

    Args:
        env_name: a name from ``fight_envs.list_envs()``, built with ``api="raw"``.
        n_envs: games per player count.
        num_players: the player counts, e.g. ``[2]`` or ``[2, 3, 5]``.
        manifest_path: the opponent pool's ``manifest.json`` (None: random opponents).
        seed: seeds every game, seat and opponent draw (None: OS entropy).
        learner_seat: ``"random"`` (drawn per game) or ``"rotate"`` (env ``i`` plays seat ``i % n``).
        privileged: append to every learner observation the env's ``privileged_observation`` (the hidden
            state, for a critic that trains on it: ``ppo.critic: privileged``); the observation space
            grows by its size. Opponents still act on their observations alone.
        **env_options: the env's own constructor options (``reward``, ...).
    """

    def __init__(
        self,
        env_name: str,
        n_envs: int,
        num_players: Sequence[int] = (2,),
        manifest_path: str | Path | None = None,
        seed: int | None = None,
        learner_seat: str = "random",
        privileged: bool = False,
        **env_options: Any,
    ) -> None:
        if isinstance(n_envs, bool) or not isinstance(n_envs, (int, np.integer)) or n_envs < 1:
            raise ConfigError(f"n_envs must be an int >= 1, got {n_envs!r}")
        counts = [int(n) for n in num_players]
        if not counts or len(set(counts)) != len(counts):
            raise ConfigError(f"num_players must list distinct player counts, e.g. [2] or [2, 3, 5]; got {list(num_players)}")
        if learner_seat not in LEARNER_SEATS:
            raise ConfigError(f"learner_seat must be one of {LEARNER_SEATS}, got {learner_seat!r}")
        self.env_name = env_name
        self.game = game_name(env_name)
        self.env_options = dict(env_options)
        self.num_players_list = counts
        self.learner_seat_mode = learner_seat
        self.manifest_path = None if manifest_path is None else Path(manifest_path)
        self.envs = [make(env_name, api="raw", num_players=n, **env_options) for n in counts for _ in range(n_envs)]
        first = self.envs[0]
        space = first.observation_space(first.possible_agents[0])
        if not isinstance(space, spaces.Dict) or set(space.spaces) != {"observation", "action_mask"}:
            raise ConfigError(f"{env_name}: observations must be dicts with 'observation' and 'action_mask', got {space}")
        action_space = first.action_space(first.possible_agents[0])
        if not isinstance(action_space, spaces.Discrete):
            raise ConfigError(f"{env_name}: the action space must be Discrete, got {action_space}")
        obs_space = space["observation"]
        for env in self.envs:
            other = env.observation_space(env.possible_agents[0])["observation"]
            if other.shape != obs_space.shape:
                raise ConfigError(f"{env_name}: every player count must have the same observation shape to share "
                                  f"one network; {len(env.possible_agents)} players give {other.shape}, "
                                  f"{len(first.possible_agents)} give {obs_space.shape}")
        if not isinstance(privileged, bool):
            raise ConfigError(f"privileged must be true or false, got {privileged!r}")
        self.privileged = privileged
        self.observation_size = int(obs_space.shape[0])
        if privileged:
            obs_space = privileged_space(first, env_name, obs_space)
        total = len(self.envs)
        self.render_mode = None
        super().__init__(total, obs_space, action_space)
        self._num_actions = int(action_space.n)
        self.env_num_players = np.array([len(e.possible_agents) for e in self.envs], dtype=np.int64)
        self.learner_seats = np.zeros(total, dtype=np.int64)
        self._learner: list[str] = [e.possible_agents[0] for e in self.envs]
        self._codes: list[dict[str, int]] = [{} for _ in range(total)]  # agent -> opponent code, per game
        self._obs = np.zeros((total, *obs_space.shape), dtype=obs_space.dtype)
        self._masks = np.ones((total, self._num_actions), dtype=bool)
        self._ep_return = np.zeros(total, dtype=np.float64)
        self._ep_len = np.zeros(total, dtype=np.int64)
        self._carry = np.zeros(total, dtype=np.float64)
        self._game_seeds = np.zeros(total, dtype=np.int64)
        self._actions: np.ndarray | None = None
        self._base_seed = seed
        self._t0 = time.time()
        self._started = False
        self.rng = np.random.default_rng(seed)
        self.book = _OpponentBook(self.manifest_path, self.rng, self.game, self.envs[0])
        self._standard = all(standard_observation(e) for e in self.envs)

    # ------------------------------------------------------------------ VecEnv API
    def seed(self, seed: int | None = None) -> Sequence[None | int]:  # type: ignore[override]
        """Seed the next ``reset`` (every game, seat and opponent draw); SB3 calls this with the run seed."""
        self._base_seed = seed
        return [None if seed is None else seed + i for i in range(self.num_envs)]

    def reset(self) -> VecEnvObs:
        seed = self._base_seed if self._base_seed is not None else self._seeds[0]
        self.rng = np.random.default_rng(seed)
        self.book = _OpponentBook(self.manifest_path, self.rng, self.game, self.envs[0])
        self._base_seed = None
        self._reset_seeds()
        self._reset_options()
        self.book.refresh()
        self._ep_return[:] = 0.0
        self._ep_len[:] = 0
        self._carry[:] = 0.0
        rewards = np.zeros(self.num_envs, dtype=np.float64)
        dones = np.zeros(self.num_envs, dtype=bool)
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        for i in range(self.num_envs):
            self._new_game(i)
        self._advance(list(range(self.num_envs)), rewards, dones, infos, fresh=np.ones(self.num_envs, dtype=bool))
        self._t0 = time.time()
        self._started = True
        return self._obs.copy()

    def step_wait(self) -> VecEnvStepReturn:
        actions = self._take_actions().tolist()
        rewards = self._carry.copy()
        self._carry[:] = 0.0
        dones = np.zeros(self.num_envs, dtype=bool)
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        self._ep_len += 1
        if self.book.refresh():
            self.book.retire({c for codes in self._codes for c in codes.values()})
        for env, action in zip(self.envs, actions):
            env.step(int(action))
        self._advance(list(range(self.num_envs)), rewards, dones, infos, fresh=np.zeros(self.num_envs, dtype=bool))
        self._ep_return[~dones] += rewards[~dones]  # ended games' returns were closed in _finish
        return self._obs.copy(), rewards.astype(np.float32), dones, infos

    def action_masks(self) -> np.ndarray:
        """(num_envs, num_actions) bool: the learner's legal actions in every env."""
        return self._masks.copy()

    def close(self) -> None:
        for env in self.envs:
            env.close()

    # ------------------------------------------------------------------ the loop
    def _new_game(self, i: int) -> None:
        """Start env ``i``'s next game: its seed, the learner's seat, one opponent per other seat."""
        env, n = self.envs[i], int(self.env_num_players[i])
        seat = int(self.rng.integers(n)) if self.learner_seat_mode == "random" else i % n
        self.learner_seats[i] = seat
        agents = env.possible_agents
        self._learner[i] = agents[seat]
        self.book.refresh()
        drawn = self.book.draw(n - 1).tolist()
        codes = {}
        for k, code in enumerate(drawn, start=1):  # clockwise from the learner, as SingleAgentEnv draws them
            s = (seat + k) % n
            codes[agents[s]] = code
            self.book.handler(code).start_games(np.array([i]), s, self.rng)
        self._codes[i] = codes
        game_seed = int(self.rng.integers(SEED_BOUND))
        self._game_seeds[i] = game_seed
        env.reset(seed=game_seed)

    def _advance(self, active: list[int], rewards: np.ndarray, dones: np.ndarray, infos: list[dict[str, Any]],
                 fresh: np.ndarray) -> None:
        """Play the opponents in games ``active`` until the learner acts (or its game ends) in each.

        Games whose learner is done are closed (``_finish``), restarted and advanced again;
        ``fresh[i]``: env ``i``'s current game began in this call (its rewards so far are carried).
        Waiting games are grouped by the opponent policy to act, one batched call per policy.
        """
        envs, book = self.envs, self.book
        while active:
            waiting: dict[int, list[tuple[int, str]]] = {}
            again: list[int] = []
            for i in active:
                env, learner = envs[i], self._learner[i]
                while True:
                    if env.terminations[learner] or env.truncations[learner]:
                        self._finish(i, rewards, dones, infos, fresh)
                        again.append(i)
                        break
                    agent = env.agent_selection
                    if agent == learner:
                        obs = env.observe(learner)
                        if self.privileged:
                            self._obs[i, :self.observation_size] = obs["observation"]
                            self._obs[i, self.observation_size:] = env.privileged_observation(learner)
                        else:
                            self._obs[i] = obs["observation"]
                        self._masks[i] = obs["action_mask"]
                        earned = float(env._cumulative_rewards[learner])
                        if fresh[i]:
                            self._carry[i] += earned
                        else:
                            rewards[i] += earned
                        break
                    if env.terminations[agent] or env.truncations[agent]:
                        env.step(None)  # an opponent left before the learner: PettingZoo's dead step
                        continue
                    waiting.setdefault(self._codes[i][agent], []).append((i, agent))
                    break
            for code, rows in waiting.items():
                handler = book.handler(code)
                games = np.array([i for i, _ in rows])
                seats = np.array([envs[i].possible_agents.index(agent) for i, agent in rows])
                engines = [getattr(envs[i], "game", None) for i in games.tolist()]
                # a scripted agent that reads the engine as it would the observation (act_game): nothing encoded
                acts = handler.act_engines(engines, seats.tolist(), games) if self._standard else None
                if acts is None:
                    if not handler.needs_observation and all(hasattr(g, "legal_action_mask") for g in engines):
                        # a mask-only policy (random): the engine's mask, without encoding an observation
                        masks = np.stack([g.legal_action_mask(s) for g, s in zip(engines, seats.tolist())])
                        obs = np.zeros((len(rows), 0), dtype=np.float32)
                    else:
                        observed = [envs[i].observe(agent) for i, agent in rows]
                        obs = np.stack([o["observation"] for o in observed])
                        masks = np.stack([o["action_mask"] for o in observed])
                    acts = handler.act(obs, masks, games, seats)
                for (i, _), a in zip(rows, acts.tolist()):
                    envs[i].step(int(a))
                again.extend(games.tolist())
            active = again

    def _learner_observation(self, env: Any, learner: str) -> np.ndarray:
        """``learner``'s observation (a fresh array), its privileged block appended when ``privileged``."""
        obs = np.array(env.observe(learner)["observation"])
        return np.concatenate([obs, env.privileged_observation(learner)]) if self.privileged else obs

    def _finish(self, i: int, rewards: np.ndarray, dones: np.ndarray, infos: list[dict[str, Any]],
                fresh: np.ndarray) -> None:
        """Env ``i``'s learner is done: record the episode, start the next game."""
        env, learner = self.envs[i], self._learner[i]
        earned = float(env._cumulative_rewards[learner])
        if fresh[i]:
            raise RuntimeError(f"{self.env_name}: a game ended before {learner} made a decision; nothing to learn from it")
        rewards[i] += earned
        ret = self._ep_return[i] + rewards[i]
        terminated = bool(env.terminations[learner])
        n, seat = int(self.env_num_players[i]), int(self.learner_seats[i])
        agents = env.possible_agents
        labels = self.book.labels
        info = env.infos.get(learner, {})
        dones[i] = True
        infos[i] = {
            "terminal_observation": self._learner_observation(env, learner),
            "TimeLimit.truncated": (not terminated) and bool(env.truncations[learner]),
            "episode": {"r": round(ret, 6), "l": int(self._ep_len[i]), "t": round(time.time() - self._t0, 6)},
            "episode_reward": ret,
            "result": win_credit(info.get("scores"), ret, n),
            "opponents": [labels[self._codes[i][agents[(seat + k) % n]]] for k in range(1, n)],
            "num_players": n,
            "learner_seat": seat,
            "seed": int(self._game_seeds[i]),
        }
        self._ep_return[i] = 0.0
        self._ep_len[i] = 0
        self._new_game(i)
        fresh[i] = True
