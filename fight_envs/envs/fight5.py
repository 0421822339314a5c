"""
# Fight 5 (`fight_envs.fight5_v0`)

| | |
| --- | --- |
| Import | `from fight_envs import fight5_v0` |
| Actions | Discrete(13): the rank of the card to place (0..11 = cards 2..13, 12 = star) |
| Parallel API | yes (`fight5_v0.parallel_env`), authored natively |
| Agents | `player_0` .. `player_{n-1}`, n = `num_players` (2..5) |
| Observation | dict: `observation` Box(0, 100, (627,), float32), `action_mask` Box(0, 1, (13,), int8) |
| Episode length | fixed: `num_bouts` x 25 decisions per player at most (AEC: n x that many steps) |
| Rules | `seeds/fight5.md` |

Fight 5 is a simultaneous card game: every round each player places one card face down at each
of its five clashes, then all are revealed and each clash is resolved. Here each placement is one
decision ("which card goes to this clash"), so a round is five decisions per player, one per
slot, in the fixed slot order of ``fight_envs/games/fight5/topology.py``.

**AEC** (`env`, `raw_env`): within a round, `player_0` makes its five placements, then
`player_1`, and so on; then the round is revealed. Nobody sees another player's placements
before the reveal. **Parallel** (`parallel_env`): five steps per round, each step every player
places the card for one slot at once.

**Observation** (egocentric, seat 0 = me, padded to 5 players / 11 clashes so one network plays
every count): documented feature by feature in ``fight_envs/games/fight5/observe.py``. Hidden
information (others' hands and face-down cards, deck and stack order) never enters it.

**Action mask**: 1 for each rank the acting agent holds; all zeros for an agent that is not
acting. Also in ``info["action_mask"]`` with ``mask_in_info=True``.

**Rewards**: ``reward="outcome"`` (default): at the end, +1 for a sole winner, 0 to each player
sharing the win, -1 to every other player; nothing before. ``reward="score"``: after every bout,
(my bout points - mean bout points of the others) / 100.

**Info** (the same keys at every step): ``score`` (mine); ``scores`` and
``bout_points`` (every player's total and last-bout points, egocentric order); ``bout``,
``round`` (0-based, of the current or last bout). Richer summaries: ``env.unwrapped.game``
(the engine), ``bout_summary()`` and ``game_record()``.

**Illegal actions**: ``raw_env`` / ``parallel_raw_env`` raise ``IllegalActionError`` and change
nothing. ``env()`` and ``parallel_env()`` end the game with -1 for the offender (0 for the
others) and a warning, PettingZoo's convention.

**Options** (constructor): ``num_players=2`` (2..5), ``num_bouts=3``, ``target_score=200``
(None: no target), ``reward="outcome"|"score"``, ``render_mode=None|"ansi"|"human"|"rgb_array"``,
``viewer=None|int`` (whose hand a rendering shows), ``cards=None|path`` (card data JSON), ``mask_in_info=False`` (True: the mask also in
``info["action_mask"]``; TorchRL's PettingZoo wrapper wants it in the observation only).
**Reset options**: ``{"deals": [deal per bout]}``, each deal ``{"clash_stacks": [[cards top
first] x stacks], "player_decks": [[25 cards top first] x players]}``; bouts without a deal are
shuffled from the seed.

**Single-agent and batched forms**: `gymnasium.make("fight_envs/Fight5-v0")` (2 players;
`Fight5-3p-v0` .. `Fight5-5p-v0`) is the learner's view with opponents inside
(`fight_envs.wrappers.single_agent`); `fight_envs.games.fight5.batched.Fight5Batch` steps
thousands of games as arrays with the same observations (checked against this env).

**Search** (``fight_envs.core.information``): ``env.unwrapped.decision_kind(agent)`` names the
kind of the decision the agent is asked, one of ``rules.DECISION_KINDS``: the slot it fills,
``right_a``, ``right_b`` (the two clashes shared with the right neighbour), ``middle``,
``left_a``, ``left_b`` (with the left neighbour; ``left_b`` is always forced).
``env.unwrapped.information_set(agent)`` returns what that agent knows as an ``InformationSet``
(a determinization, ``Fight5Game.determinize``: others' hands, this round's placements by others,
deck and stack order resampled; never the true hidden state), with ``observe(state, seat)``
encoding exactly as this env does. Both forms (AEC and parallel) have both methods.

**Determinism**: `reset(seed=s)` reproduces the game exactly. `env.unwrapped.game_record()`
returns JSON data that `fight_envs.games.fight5.record.replay` plays back.

Version history: v0: first release.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
from pettingzoo import AECEnv, ParallelEnv

from fight_envs.core.errors import ConfigError, IllegalActionError, check_options
from fight_envs.core.information import InformationSet
from fight_envs.core.seeding import make_rng
from fight_envs.drawing import rgb_array
from fight_envs.envs.base import (
    RENDER_MODES,
    AECMixin,
    SpacesMixin,
    check_flag,
    check_illegal_action,
    check_render_mode,
    check_viewer,
    dict_spaces,
    render_text_mode,
    wrap_aec,
)
from fight_envs.games.fight5.cards import DEFAULT_CARDS, load_cards
from fight_envs.games.fight5.observe import OBS_HIGH, OBS_SIZE, encode_private, encode_public, public_values
from fight_envs.games.fight5.record import make_record
from fight_envs.games.fight5.render import render_text
from fight_envs.games.fight5.rules import NUM_ACTIONS, Fight5Config, Fight5Game, parse_deal
from fight_envs.games.fight5.topology import SLOTS_PER_PLAYER

ENV_NAME = "fight5_v0"
REWARD_MODES = ("outcome", "score")
RESET_OPTIONS = ("deals",)
ILLEGAL_REWARD = -1.0
SCORE_REWARD_SCALE = 100.0


def observe_state(game: Fight5Game, seat: int) -> tuple[np.ndarray, np.ndarray]:
    """``seat``'s (observation vector, action mask) in ``game``, encoded exactly as these envs do."""
    obs = encode_public(game, seat)
    encode_private(game, seat, obs)
    return obs, game.legal_action_mask(seat)


def _seat_of(possible_agents: list[str], agent: str) -> int:
    if agent not in possible_agents:
        raise ValueError(f"unknown agent {agent!r}; agents: {', '.join(possible_agents)}")
    return possible_agents.index(agent)


class _SearchDoors:
    """``decision_kind`` and ``information_set`` for both forms (they need ``self.game``)."""

    game: Fight5Game
    possible_agents: list[str]

    def decision_kind(self, agent: str) -> str:
        """The kind of decision ``agent`` is asked now, one of ``rules.DECISION_KINDS``."""
        return self.game.decision_kind(_seat_of(self.possible_agents, agent))

    def information_set(self, agent: str) -> InformationSet:
        """What ``agent`` knows now: a determinization of the game plus this env's encoder."""
        return InformationSet.of(self.game, _seat_of(self.possible_agents, agent), self.game.num_players, observe_state)

ENV_OPTIONS: dict[str, Any] = {
    "num_players": 2,
    "num_bouts": 3,
    "target_score": 200,
    "reward": "outcome",
    "render_mode": None,
    "viewer": None,
    "cards": None,
    "mask_in_info": False,
}
"""Constructor options and their defaults (listed by the suite's registry)."""


class _Fight5Table:
    """What the AEC and parallel envs share: the engine, spaces, observations, infos, rewards."""

    def __init__(
        self,
        num_players: int = 2,
        num_bouts: int = 3,
        target_score: int | None = 200,
        reward: str = "outcome",
        render_mode: str | None = None,
        viewer: int | None = None,
        cards: str | None = None,
        mask_in_info: bool = False,
    ) -> None:
        if reward not in REWARD_MODES:
            raise ConfigError(f"reward must be one of {REWARD_MODES}, got {reward!r}")
        check_render_mode(render_mode)
        self.config = Fight5Config(num_players=num_players, num_bouts=num_bouts, target_score=target_score)
        viewer = check_viewer(viewer, num_players)
        self.cards = DEFAULT_CARDS if cards is None else load_cards(cards)
        self.reward_mode = reward
        self.render_mode = render_mode
        self.viewer = viewer
        self.mask_in_info = check_flag("mask_in_info", mask_in_info)
        self.game = Fight5Game(self.config, self.cards)
        self.possible_agents = [f"player_{i}" for i in range(num_players)]
        self.seat = {a: i for i, a in enumerate(self.possible_agents)}
        self.observation_spaces, self.action_spaces = dict_spaces(
            self.possible_agents, 0.0, OBS_HIGH, OBS_SIZE, NUM_ACTIONS)
        self.seed: int | None = None
        # seat -> (game.version, observation vector): observe() twice without a step is free
        self._obs_cache: dict[int, tuple[int, np.ndarray]] = {}
        # seat -> (game.public_version, public features): encoded once per round per seat, from
        # (game.public_version, public_values(game)), computed once per round for all seats
        self._public_cache: dict[int, tuple[int, np.ndarray]] = {}
        self._values_cache: tuple[int, np.ndarray] | None = None
        # (game.public_version, per seat (score, scores, bout_points) in egocentric order, bout, round)
        self._info_cache: tuple[int, list[tuple[int, np.ndarray, np.ndarray]], int, int] | None = None
        self._zero_mask = np.zeros(NUM_ACTIONS, dtype=np.int8)

    def start(self, seed: int | None, options: dict[str, Any] | None) -> None:
        """Validate everything (options, deals, seed) before the game in progress is touched."""
        options = {} if options is None else options
        check_options(options, RESET_OPTIONS, "reset option", warn_only=True)
        deals = options.get("deals")
        parsed = None
        if deals is not None:
            if not isinstance(deals, (list, tuple)) or len(deals) > self.config.num_bouts:
                raise ConfigError(f"reset option 'deals' must be a list of at most {self.config.num_bouts} bout deals")
            parsed = [parse_deal(d, self.config.num_players, self.cards, f"deals[{i}]") for i, d in enumerate(deals)]
        rng, self.seed = make_rng(seed)
        self.game.new_game(rng, parsed)
        self._obs_cache.clear()
        self._public_cache.clear()
        self._values_cache = None
        self._info_cache = None

    def observation(self, seat: int, acting: bool) -> dict[str, np.ndarray]:
        """Observation of ``seat``; its mask is zero unless ``acting``."""
        g = self.game
        cached = self._obs_cache.get(seat)
        if cached is None or cached[0] != g.version:
            public = self._public_cache.get(seat)
            if public is None or public[0] != g.public_version:
                if self._values_cache is None or self._values_cache[0] != g.public_version:
                    self._values_cache = (g.public_version, public_values(g))
                public = (g.public_version, encode_public(g, seat, self._values_cache[1]))
                self._public_cache[seat] = public
            obs = public[1].copy()  # the cached public part is never handed out, so never changed
            encode_private(g, seat, obs)
            cached = (g.version, obs)
            self._obs_cache[seat] = cached
        mask = g.legal_action_mask(seat) if acting else self._zero_mask.copy()
        return {"observation": cached[1], "action_mask": mask}

    def info(self, seat: int, mask: np.ndarray) -> dict[str, Any]:
        g = self.game
        if self._info_cache is None or self._info_cache[0] != g.public_version:
            # scores, bout points, bout and round change only with the public version
            n = g.num_players
            last = g.bout_points[-1] if g.bout_points else np.zeros(n, dtype=np.int64)
            per_seat = []
            for s in range(n):
                rel = [(s + k) % n for k in range(n)]
                per_seat.append((int(g.scores[s]), g.scores[rel], last[rel]))
            self._info_cache = (
                g.public_version,
                per_seat,
                int(min(g.bout, g.config.num_bouts - 1)),
                int(min(g.round, g.cards.rounds_per_bout - 1)),
            )
        _, per_seat, bout, rnd = self._info_cache
        score, scores, bout_points = per_seat[seat]
        return {
            **({"action_mask": mask} if self.mask_in_info else {}),
            "score": score,
            "scores": scores.copy(),  # each info owns its arrays: a user may keep or change them
            "bout_points": bout_points.copy(),
            "bout": bout,
            "round": rnd,
        }

    def rewards_after(self, bouts_before: int) -> np.ndarray:
        """Per-seat rewards earned by the step that just happened."""
        g = self.game
        n = g.num_players
        if self.reward_mode == "score":
            if len(g.bout_points) > bouts_before:
                pts = g.bout_points[-1].astype(np.float64)
                others_mean = (pts.sum() - pts) / (n - 1)
                return (pts - others_mean) / SCORE_REWARD_SCALE
            return np.zeros(n)
        return g.returns() if g.is_terminal() else np.zeros(n)

    def render(self) -> str | None:
        return render_text_mode(self.render_mode, lambda: render_text(self.game, self.viewer), stacklevel=3,
                                picture=lambda: rgb_array(self.game, self.viewer))

    def bout_summary(self) -> dict[str, Any]:
        """Everything about the last reveal and finished bouts, for logs (not for info)."""
        g = self.game
        return {
            "bout": g.bout,
            "round": g.round,
            "scores": g.scores.tolist(),
            "bout_points": [p.tolist() for p in g.bout_points],
            "last_reveal": [
                {"clash": r.clash, "clash_card": r.clash_card, "plays": r.plays, "winner": r.winner, "cards_won": r.cards_won}
                for r in g.last_results
            ],
            "winners": g.winners() if g.is_terminal() else [],
        }


class raw_env(_SearchDoors, AECMixin, AECEnv):
    """Fight 5, turn-based (AEC) form. See the module docstring for the full card."""

    metadata = {"name": ENV_NAME, "render_modes": RENDER_MODES, "is_parallelizable": False, "render_fps": 1}

    def __init__(self, **options: Any) -> None:
        super().__init__()
        check_options(options, ENV_OPTIONS, f"{ENV_NAME} option")
        self.table = _Fight5Table(**options)
        self.game = self.table.game
        self.possible_agents = list(self.table.possible_agents)
        self.render_mode = self.table.render_mode
        self.observation_spaces = self.table.observation_spaces
        self.action_spaces = self.table.action_spaces
        self.max_episode_steps = self.game.max_actions_per_player * len(self.possible_agents)

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        self.table.start(seed, options)
        self._start_episode()
        self.agent_selection = self.possible_agents[self.game.current_player()]
        self.infos = {}
        self._infos_public_version: int | None = None
        self._infos_acting: str | None = None
        self._refresh_infos()

    def _refresh_infos(self) -> None:
        g = self.game
        acting = None if g.is_terminal() else self.agent_selection
        if self._infos_public_version != g.public_version:
            # a round, bout or game ended (or a game began): every agent's info changed
            stale: Any = self.agents
            self._infos_public_version = g.public_version
        else:
            # mid-round only masks change: the acting agent's, and the one that just stopped
            # acting; every other agent keeps its info dict, which nobody changes afterwards
            stale = (self._infos_acting, acting) if self._infos_acting != acting else (acting,)
        for agent in stale:
            if agent is None:
                continue
            seat = self.table.seat[agent]
            mask = g.legal_action_mask(seat) if agent == acting else self.table._zero_mask.copy()
            self.infos[agent] = self.table.info(seat, mask)
        self._infos_acting = acting

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        acting = agent == self.agent_selection and not self.game.is_terminal()
        return self.table.observation(self.table.seat[agent], acting)

    def step(self, action: int) -> None:
        if self._dead_step(action):
            return
        agent = self.agent_selection
        seat = self.table.seat[agent]
        bouts_before = len(self.game.bout_points)
        self.game.apply_action(seat, action)  # raises IllegalActionError, changing nothing
        self._cumulative_rewards[agent] = 0.0
        if len(self.game.bout_points) == bouts_before:
            # no bout ended, so the game did not end either: nobody earns anything, in either reward mode
            self.rewards = dict.fromkeys(self.agents, 0.0)
        else:
            step_rewards = self.table.rewards_after(bouts_before)
            self.rewards = {a: float(step_rewards[self.table.seat[a]]) for a in self.agents}
        if self.game.is_terminal():
            self.terminations = {a: True for a in self.agents}
        else:
            self.agent_selection = self.possible_agents[self.game.current_player()]
        self._refresh_infos()
        self._accumulate_rewards()

    def render(self) -> str | None:
        return self.table.render()

    def bout_summary(self) -> dict[str, Any]:
        return self.table.bout_summary()

    def game_record(self) -> dict[str, Any]:
        """The game so far as JSON-ready data (replay with ``fight5.record.replay``)."""
        return make_record(self.game, self.table.seed)


def env(**options: Any) -> AECEnv:
    """The AEC env with PettingZoo's standard wrappers (illegal move: -1 and game over)."""
    return wrap_aec(raw_env(**options), ILLEGAL_REWARD)


class parallel_raw_env(_SearchDoors, SpacesMixin, ParallelEnv):
    """Fight 5, simultaneous (parallel) form: each step every player fills one slot.

    ``illegal_action="raise"`` (this class's default) raises IllegalActionError and changes
    nothing; ``"terminate"`` (what :func:`parallel_env` uses) ends the game, gives each offender
    -1 and the others 0, and warns.
    """

    metadata = {"name": ENV_NAME, "render_modes": RENDER_MODES, "render_fps": 1}

    def __init__(self, illegal_action: str = "raise", **options: Any) -> None:
        check_options(options, ENV_OPTIONS, f"{ENV_NAME} option")
        check_illegal_action(illegal_action)
        self.illegal_action = illegal_action
        self.table = _Fight5Table(**options)
        self.game = self.table.game
        self.possible_agents = list(self.table.possible_agents)
        self.agents: list[str] = []
        self.render_mode = self.table.render_mode
        self.observation_spaces = self.table.observation_spaces
        self.action_spaces = self.table.action_spaces
        self.max_episode_steps = self.game.max_actions_per_player

    def _observe_all(self, live: bool = True) -> tuple[dict[str, Any], dict[str, Any]]:
        live = live and not self.game.is_terminal()
        obs, infos = {}, {}
        for agent in self.agents:
            seat = self.table.seat[agent]
            o = self.table.observation(seat, acting=live)
            obs[agent] = o
            infos[agent] = self.table.info(seat, o["action_mask"].copy())
        return obs, infos

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None):
        self.table.start(seed, options)
        self.agents = list(self.possible_agents)
        return self._observe_all()

    def step(self, actions: dict[str, int]):
        if not self.agents:
            raise IllegalActionError("the game is over; call reset() before step()")
        if not isinstance(actions, dict):
            raise IllegalActionError(f"step() takes a dict of one action per agent ({', '.join(self.agents)}), "
                                     f"got {type(actions).__name__}")
        missing = sorted(set(self.agents) - set(actions))
        extra = sorted(set(actions) - set(self.agents), key=repr)
        if missing or extra:
            raise IllegalActionError(f"step() needs one action for each of {self.agents}; missing {missing}, unknown {extra}")
        offenders = [a for a in self.agents if not self._is_legal(a, actions[a])]
        if offenders:
            if self.illegal_action == "raise":
                seat = self.table.seat[offenders[0]]
                self.game.apply_action(seat, actions[offenders[0]])  # raises with the legal set
            return self._terminate_illegal(offenders)
        bouts_before = len(self.game.bout_points)
        for agent in self.agents:
            self.game.apply_action(self.table.seat[agent], actions[agent])
        if len(self.game.bout_points) == bouts_before:
            # no bout ended, so the game did not end either: nobody earns anything, in either reward mode
            rewards = dict.fromkeys(self.agents, 0.0)
        else:
            step_rewards = self.table.rewards_after(bouts_before)
            rewards = {a: float(step_rewards[self.table.seat[a]]) for a in self.agents}
        done = self.game.is_terminal()
        terminations = {a: done for a in self.agents}
        truncations = {a: False for a in self.agents}
        obs, infos = self._observe_all()
        if done:
            self.agents = []
        return obs, rewards, terminations, truncations, infos

    def _is_legal(self, agent: str, action: Any) -> bool:
        if isinstance(action, np.ndarray) and action.shape == () and np.issubdtype(action.dtype, np.integer):
            action = action.item()  # a 0-d integer array is the integer it holds
        is_int = isinstance(action, (int, np.integer)) and not isinstance(action, bool)
        if not is_int or not 0 <= action < NUM_ACTIONS:
            return False
        # legal_action_mask(seat)[action] without building the mask
        g, seat = self.game, self.table.seat[agent]
        return not g.game_over and g.num_committed[seat] < SLOTS_PER_PLAYER and bool(g.hands[seat, action] > 0)

    def _terminate_illegal(self, offenders: list[str]):
        warnings.warn(f"illegal action by {offenders}; the game ends with {ILLEGAL_REWARD} for them", stacklevel=3)
        obs, infos = self._observe_all(live=False)
        rewards = {a: (ILLEGAL_REWARD if a in offenders else 0.0) for a in self.agents}
        terminations = {a: True for a in self.agents}
        truncations = {a: False for a in self.agents}
        self.agents = []
        return obs, rewards, terminations, truncations, infos

    def render(self) -> str | None:
        return self.table.render()

    def bout_summary(self) -> dict[str, Any]:
        return self.table.bout_summary()

    def game_record(self) -> dict[str, Any]:
        return make_record(self.game, self.table.seed)


def parallel_env(**options: Any) -> ParallelEnv:
    """The parallel env; an illegal action ends the game with -1 for the offender, and warns."""
    return parallel_raw_env(illegal_action="terminate", **options)

