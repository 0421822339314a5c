"""SingleAgentEnv: env checkers, reward attribution across seats, termination, opponents, seeding."""

from __future__ import annotations

import warnings
from typing import Any, ClassVar

import gymnasium
import numpy as np
import pytest
from gymnasium import spaces
from gymnasium.utils.env_checker import check_env as gym_check_env
from pettingzoo import AECEnv
from stable_baselines3.common.env_checker import check_env as sb3_check_env

import fight_envs  # noqa: F401  (registers the Gymnasium ids)
from fight_envs.core.errors import ConfigError, IllegalActionError
from fight_envs.wrappers import FIGHT5_IDS, SingleAgentEnv, UniformRandomPolicy


class ScriptedAEC(AECEnv):
    """A turn-based toy game for reward bookkeeping: players act round-robin, ``length`` actions in
    all; action number ``t`` (0-based, over all players) pays ``script[t]`` = {seat: reward}.
    The game ends (terminated, or truncated with ``truncate=True``) after the last action."""

    metadata: ClassVar[dict[str, Any]] = {"name": "scripted_v0"}

    def __init__(self, num_players: int = 2, length: int = 6, script: dict[int, dict[int, float]] | None = None,
                 truncate: bool = False) -> None:
        super().__init__()
        self.possible_agents = [f"player_{i}" for i in range(num_players)]
        self.length = length
        self.script = script or {}
        self.truncate = truncate
        space = spaces.Dict({"observation": spaces.Box(0, 1000, (2,), np.float32),
                             "action_mask": spaces.Box(0, 1, (3,), np.int8)})
        self.observation_spaces = {a: space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(3) for a in self.possible_agents}
        self.actions_seen: list[tuple[str, int]] = []

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        self.agents = list(self.possible_agents)
        self.t = 0
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self.agents[0]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        acting = agent == self.agent_selection and self.t < self.length
        seat = self.possible_agents.index(agent)
        return {"observation": np.array([self.t, seat], dtype=np.float32),
                "action_mask": np.ones(3, np.int8) if acting else np.zeros(3, np.int8)}

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self.actions_seen.append((agent, int(action)))
        self._cumulative_rewards[agent] = 0.0
        paid = self.script.get(self.t, {})
        self.rewards = {a: float(paid.get(i, 0.0)) for i, a in enumerate(self.possible_agents)}
        self.t += 1
        if self.t == self.length:
            flags = {a: True for a in self.agents}
            if self.truncate:
                self.truncations = flags
            else:
                self.terminations = flags
        seat = self.possible_agents.index(agent)
        self.agent_selection = self.possible_agents[(seat + 1) % len(self.possible_agents)]
        self._accumulate_rewards()


def scripted(learner_seat: int, **kwargs: Any) -> SingleAgentEnv:
    return SingleAgentEnv(lambda: ScriptedAEC(**kwargs), learner_seat=learner_seat, seed=0)


def play_out(env: SingleAgentEnv, action: int = 0) -> tuple[list[float], bool, bool, dict[str, Any]]:
    env.reset(seed=1)
    rewards = []
    while True:
        _, reward, terminated, truncated, info = env.step(action)
        rewards.append(reward)
        if terminated or truncated:
            return rewards, terminated, truncated, info


# ------------------------------------------------------------------ checkers
@pytest.mark.parametrize("env_id", sorted(FIGHT5_IDS))
def test_gymnasium_env_checker_passes(env_id: str) -> None:
    env = gymnasium.make(env_id)
    assert env.unwrapped.num_players == FIGHT5_IDS[env_id]
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="illegal action")  # the checker steps random actions
        gym_check_env(env.unwrapped, skip_render_check=True)


@pytest.mark.parametrize("env_id", sorted(FIGHT5_IDS))
def test_sb3_env_checker_passes(env_id: str) -> None:
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="illegal action")
        sb3_check_env(gymnasium.make(env_id).unwrapped, warn=True, skip_render_check=True)


def test_dict_observation_format_passes_the_checker() -> None:
    env = SingleAgentEnv(obs_format="dict", seed=3)
    obs, _ = env.reset()
    assert set(obs) == {"observation", "action_mask"}
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="illegal action")
        gym_check_env(env, skip_render_check=True)


# --------------------------------------------------------- reward attribution
def test_reward_is_the_learners_own_never_the_next_players() -> None:
    # Every action pays player_1 only: the learner in seat 0 must see nothing of it,
    # and the learner in seat 1 must see all of it.
    script = {t: {1: 1.0} for t in range(6)}
    rewards0, *_ = play_out(scripted(0, script=script))
    rewards1, *_ = play_out(scripted(1, script=script))
    assert rewards0 == [0.0, 0.0, 0.0]
    assert sum(rewards1) == 6.0


def test_rewards_from_opponents_moves_are_summed_into_the_next_transition() -> None:
    # Three players; the learner (seat 0) acts at t = 0, 3, 6. Opponents' moves at t = 1, 2
    # pay it 1 + 2; at t = 4, 5 nothing; its own move at t = 6 pays 4 and the game goes on to t = 8.
    script = {1: {0: 1.0}, 2: {0: 2.0}, 6: {0: 4.0}, 7: {0: 8.0}}
    rewards, terminated, truncated, _ = play_out(scripted(0, num_players=3, length=9, script=script))
    assert rewards == [3.0, 0.0, 12.0]
    assert terminated and not truncated


def test_terminal_reward_is_delivered_when_an_opponents_move_ends_the_game() -> None:
    # Two players, four actions: the last one (t = 3) is the opponent's and pays the learner -5.
    env = scripted(0, length=4, script={3: {0: -5.0, 1: 5.0}})
    env.reset(seed=0)
    _, r1, term1, trunc1, _ = env.step(0)
    _, r2, term2, trunc2, info = env.step(0)
    assert (r1, term1, trunc1) == (0.0, False, False)
    assert (r2, term2, trunc2) == (-5.0, True, False)
    assert info["episode_reward"] == -5.0 and info["result"] == 0.0


def test_reward_before_the_learners_first_decision_goes_into_its_first_transition() -> None:
    env = scripted(1, length=4, script={0: {1: 0.5}})
    rewards, *_ = play_out(env)
    assert rewards == [0.5, 0.0]


def test_truncation_is_reported_as_truncation_only() -> None:
    rewards, terminated, truncated, _ = play_out(scripted(0, length=4, truncate=True, script={3: {0: 1.0}}))
    assert rewards == [0.0, 1.0]
    assert truncated and not terminated


def test_step_after_the_end_raises() -> None:
    env = scripted(0, length=2)
    env.reset(seed=0)
    assert env.step(0)[2]
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)


@pytest.mark.parametrize("reward", ["outcome", "score"])
@pytest.mark.parametrize("num_players", [2, 3])
def test_fight5_episode_reward_equals_the_learners_game_return(reward: str, num_players: int) -> None:
    for seat in range(num_players):
        env = SingleAgentEnv("fight5_v0", learner_seat=seat, seed=seat, num_players=num_players, reward=reward)
        policy = UniformRandomPolicy(seed=seat)
        obs, info = env.reset()
        total, steps = 0.0, 0
        while True:
            obs, r, terminated, truncated, info = env.step(policy.act(obs, env.action_masks()))
            total += r
            steps += 1
            if terminated or truncated:
                break
        game = env.aec.game
        assert terminated and not truncated and game.is_terminal()
        if reward == "outcome":
            expected = game.returns()[seat]
        else:
            pts = np.array(game.bout_points, dtype=np.float64)
            expected = ((pts[:, seat] - (pts.sum(axis=1) - pts[:, seat]) / (num_players - 1)) / 100.0).sum()
        assert total == pytest.approx(expected)
        assert steps == 25 * len(game.bout_points)  # one transition per own placement: 5 rounds x 5 slots a bout
        assert info["learner_seat"] == seat and len(info["opponents"]) == num_players - 1
        winners = game.winners()
        assert info["result"] == (1.0 / len(winners) if seat in winners else 0.0)


# ------------------------------------------------------------------ opponents
class RecordingPolicy:
    """Plays the lowest legal action and records what it was shown."""

    label = "recorder"

    def __init__(self) -> None:
        self.masks: list[np.ndarray] = []
        self.seeds: list[int] = []
        self.resets = 0

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        self.masks.append(action_mask.copy())
        return int(np.flatnonzero(action_mask)[0])

    def seed(self, seed: int) -> None:
        self.seeds.append(seed)

    def reset(self) -> None:
        self.resets += 1


def test_opponents_act_on_their_own_legal_masks_and_are_seeded_and_reset() -> None:
    rec = RecordingPolicy()
    env = SingleAgentEnv(learner_seat=0, opponents=rec, seed=5, num_players=3)
    env.reset()
    done = False
    while not done:
        _, _, done, _, info = env.step(int(np.flatnonzero(env.action_masks())[-1]))
    assert len(rec.masks) == 2 * env.aec.game.max_actions_per_player  # two opponent seats
    assert all(m.sum() > 0 for m in rec.masks)
    assert rec.resets == 1 and len(rec.seeds) == 1  # one shared policy: seeded and reset once
    assert info["opponents"] == ["recorder", "recorder"]


def test_opponent_sampler_is_called_every_episode() -> None:
    calls: list[int] = []

    def sampler(rng: np.random.Generator, n: int) -> list[RecordingPolicy]:
        calls.append(n)
        return [RecordingPolicy() for _ in range(n)]

    env = SingleAgentEnv(opponents=sampler, seed=0, num_players=4)
    env.reset()
    env.reset()
    assert calls == [3, 3]


def test_bad_opponents_and_seats_raise_clear_errors() -> None:
    with pytest.raises(ConfigError, match="one policy per opponent seat"):
        SingleAgentEnv(opponents=[RecordingPolicy()], num_players=3)
    with pytest.raises(ConfigError, match="opponents must be"):
        SingleAgentEnv(opponents=42)
    with pytest.raises(ConfigError, match="learner_seat"):
        SingleAgentEnv(learner_seat=2, num_players=2)
    with pytest.raises(ConfigError, match="obs_format"):
        SingleAgentEnv(obs_format="flat")
    with pytest.raises(ConfigError, match="num_players"):
        SingleAgentEnv(num_players=6)


def test_learner_seat_random_visits_every_seat_and_mask_matches_info() -> None:
    env = SingleAgentEnv(seed=11, num_players=3)
    seats = set()
    for _ in range(30):
        _, info = env.reset()
        seats.add(info["learner_seat"])
        assert np.array_equal(env.action_masks(), info["action_mask"].astype(bool))
        assert env.action_masks().any()
    assert seats == {0, 1, 2}


def test_same_seed_same_episode() -> None:
    def trajectory(seed: int) -> list[float]:
        env = SingleAgentEnv(seed=None, num_players=3)
        obs, _ = env.reset(seed=seed)
        out = [float(obs.sum())]
        for _ in range(20):
            obs, r, *_ = env.step(int(np.flatnonzero(env.action_masks())[0]))
            out += [float(obs.sum()), r]
        return out

    assert trajectory(7) == trajectory(7)
    assert trajectory(7) != trajectory(8)


def test_illegal_action_terminates_or_raises() -> None:
    env = SingleAgentEnv(seed=0)
    env.reset()
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    with pytest.warns(UserWarning, match="illegal action"):
        _, reward, terminated, truncated, info = env.step(illegal)
    assert (reward, terminated, truncated, info["illegal_action"]) == (-1.0, True, False, True)
    strict = SingleAgentEnv(seed=0, illegal_action="raise")
    strict.reset()
    with pytest.raises(IllegalActionError, match="legal actions"):
        strict.step(int(np.flatnonzero(~strict.action_masks())[0]))


def test_gymnasium_make_passes_env_options() -> None:
    env = gymnasium.make("fight_envs/Fight5-3p-v0", reward="score", learner_seat=2)
    _, info = env.reset(seed=0)
    assert env.unwrapped.aec.table.reward_mode == "score"
    assert info["learner_seat"] == 2 and info["num_players"] == 3
