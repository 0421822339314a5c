"""
# Brawl (`fight_envs.brawl_v0`)

| | |
| --- | --- |
| Import | `from fight_envs import brawl_v0` |
| Actions | Discrete(16): 0..12 play a card of that type, 13 PASS, 14 CLOCKWISE, 15 COUNTER-CLOCKWISE |
| Parallel API | yes (`brawl_v0.parallel_env`): a conversion; the decider's action is applied, every other live agent sends PASS (its mask) |
| Agents | `player_0` .. `player_{n-1}`, n = `num_players` (2..8) |
| Observation | dict: `observation` Box(0, 200, (283,), float32), `action_mask` Box(0, 1, (16,), int8) |
| Episode length | at most `max_steps` decisions (default 600 x num_players with the standard rules' `"all"` windows, 150 x without), then truncation |
| Rules | `seeds/brawl.md` |

Brawl is a turn-based shedding fight: a fighter attacks the next fighter with an elemental
PUNCH or KICK; the defender answers with the same attack, a JUMP, DODGE, COUNTER or BLOCK, or
takes the hit and draws. CHAOS may be played by anyone at any moment; the first fighters to run
out of cards become MASTERs, the last two fight a showdown (standard rules: with both hands face up).

**Rule sets** (`rules=`): `"standard"` (default) or `"classic"` (the first release's reading);
each lever may be set on its own (`chaos_windows`, `hit_draws`, `showdown`, `ask_noops`,
`skip_forced`, `combo`; None takes the rule set's value, `rules.RULE_SETS`). Standard: CHAOS windows ask
every other fighter (nothing shows who holds a CHAOS), the direction after a CHAOS is not asked
when two fighters are left (both answers do the same), the showdown is played face up, and every
attack may be a combo of up to two cards of its element, answered card for card (``combo="multi"``;
classic: ``"single"``, one card an attack).

**AEC** (`env`, `raw_env`): one decision per step, by the fighter the rules call on
(``agent_selection``): the attacker, the defender, a fighter with a follow-up, the CHAOS player
choosing a direction, or, in a **reaction window** after each card played, each other fighter
in turn (clockwise from the player's left), who may play a CHAOS or PASS. With
``chaos_windows=True`` only CHAOS holders are asked, which shows the table who holds one (the
observation's ``known`` block records it). ``skip_forced=True`` applies a decision with a single
legal action without asking (never a window: asking everyone is what hides who holds a CHAOS).
**Parallel** (`parallel_env`): each step takes one action per live agent; the deciding fighter's
mask is its legal set and its action is applied; every other live agent (MASTERs included) has
the mask of PASS alone, the documented no-op "wait", and must send it (a missing one counts as PASS).

**Observation** (egocentric, padded to 8 fighters): documented feature by feature in
``fight_envs/games/brawl/observe.py``, including the public memory per opponent (cards known to
be in its hand, CHAOS cards it played). Others' hidden cards and the draw pile never enter it.

**Privileged observation** (training only): ``raw_env.privileged_observation(agent)`` gives what
``agent`` cannot see, the other hands and the draw pile (``observe.encode_privileged``), for a critic
that learns values from the hidden state while the policy acts on the observation (``ppo.critic:
privileged`` in a training config). It is never part of ``observe``.

**Action mask**: exactly the legal set of the deciding fighter; all zeros for everyone else in
the AEC form (PASS alone in the parallel form). Also in ``info["action_mask"]`` with
``mask_in_info=True``.

**Decision kinds and search**: ``raw_env.decision_kind(agent)`` is one of
``rules.DECISION_KINDS``: ``attack`` (open a battle), ``defend`` (answer an attack),
``follow_up`` (attack after one's JUMP or COUNTER, or either side of a DODGE), ``combo`` (with
``combo="multi"``, the standard default: add one more card of the led element to the combo, or PASS), ``chaos_direction``,
``chaos_window``, ``none`` (not deciding). ``raw_env.information_set(agent)`` is the
``fight_envs.core.information.InformationSet`` of that fighter (a determinization: no hidden card
of the true game).

**Rewards** (at the end only): ``reward="rank"`` (default): 1 for first place down to -1 for
last, linear in the place, tied fighters sharing the mean; ``reward="winner"``: +1 sole first
MASTER, 0 to each of a shared first place, -1 to the rest. When the step limit truncates a
game, fighters still fighting share the places left and the same rewards are paid.

**Info** (the same keys at every step): ``hand_size`` (mine); ``hand_sizes``
(every fighter's, egocentric); ``place`` (mine, 0 while fighting); ``steps``; ``phase``.

**Illegal actions**: ``raw_env`` raises ``IllegalActionError`` naming the action and the legal
set and changes nothing. ``env()`` ends the game with -1 for the offender (0 for the others).
Actions are ints; a 0-d numpy integer array is taken as its value.

**Options** (constructor): ``num_players=2`` (2..8); ``rules="standard"|"classic"``;
``chaos_windows=None|True|False|"all"`` (True: windows for CHAOS holders; ``"all"``: every other
fighter is asked, so being asked reveals nothing; False: CHAOS only in one's own decisions, far
fewer steps); ``hit_draws=None|"one"|"per_attack"``; ``showdown=None|"same"|"open"``;
``ask_noops=None|bool``; ``skip_forced=None|bool``; ``combo=None|"single"|"multi"`` (``"multi"``: every
attack may be a combo of up to ``combo_max=2`` cards of its element, laid one card per decision,
decision kind ``combo``, and answered card for card: the standard rules' default; ``"single"``:
one card an attack, the classic rules' and the standard default before issue 13); ``max_steps=None`` (None: 150 x num_players,
600 x with ``"all"`` windows); ``reward="rank"|"winner"``; ``render_mode=None|"ansi"|"human"``;
``viewer=None|int`` (whose hand a rendering shows); ``cards=None|path`` (card data JSON);
``mask_in_info=False`` (True: the mask also in ``info["action_mask"]``); ``refusals=False`` (True: the
observation ends with the public memory of refusals, ``observe.encode_refusals``: per fighter and attack card,
how many cards it has drawn since it last took that attack's hit, and since it last passed as the attacker;
283 + 72 features).
**Reset options** (all checked before anything changes): ``{"deal": {"hands": [[card names] x
fighters], "draw_pile": [card names, top first]}}``: a fixed deal (every hand the deal size, all
cards together exactly the deck).

**Determinism**: `reset(seed=s)` reproduces the game exactly; `copy.deepcopy` and pickle of an
env continue identically. `env.unwrapped.game_record()` returns JSON data that
`fight_envs.games.brawl.record.replay` plays back.

Version history: v0: first release; rule sets (standard rules the default, the first release's
as ``rules="classic"``), public memory in the observation (155 -> 268 features), PASS as the
parallel form's wait action; the ``combo`` lever (``"multi"``: the observation gains the ``COMBO``
phase and a ``combo`` block, 268 -> 283 features, for every option).
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
from gymnasium import spaces
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
from fight_envs.games.brawl.cards import cards_for, load_cards
from fight_envs.games.brawl.observe import (
    OBS_HIGH,
    OBS_SIZE,
    PRIVILEGED_SIZE,
    REFUSALS_SIZE,
    encode,
    encode_privileged,
    encode_refusals,
)
from fight_envs.games.brawl.record import make_record
from fight_envs.games.brawl.render import render_text
from fight_envs.games.brawl.rules import (
    NUM_ACTIONS,
    PASS,
    REWARD_MODES,
    BrawlConfig,
    BrawlGame,
    as_action,
    parse_deal,
)

ENV_NAME = "brawl_v0"
NO_ACTOR = -1
_WAIT_MASK = np.zeros(NUM_ACTIONS, dtype=np.int8)
_WAIT_MASK[PASS] = 1
"""The parallel form's mask for a live agent that is not deciding: PASS, the no-op "wait"."""
RESET_OPTIONS = ("deal",)
ILLEGAL_REWARD = -1.0

ENV_OPTIONS: dict[str, Any] = {
    "num_players": 2,
    "rules": "standard",
    "chaos_windows": None,
    "hit_draws": None,
    "showdown": None,
    "ask_noops": None,
    "skip_forced": None,
    "combo": None,
    "combo_max": 2,
    "max_steps": None,
    "reward": "rank",
    "render_mode": None,
    "viewer": None,
    "cards": None,
    "mask_in_info": False,
    "refusals": False,
}
"""Constructor options and their defaults (listed by the suite's registry)."""


class _BrawlTable:
    """What the AEC and parallel envs share: the engine, spaces, observations, infos, rewards."""

    def __init__(
        self,
        num_players: int = 2,
        rules: str = "standard",
        chaos_windows: bool | str | None = None,
        hit_draws: str | None = None,
        showdown: str | None = None,
        ask_noops: bool | None = None,
        skip_forced: bool | None = None,
        combo: str | None = None,
        combo_max: int = 2,
        max_steps: int | None = None,
        reward: str = "rank",
        render_mode: str | None = None,
        viewer: int | None = None,
        cards: str | None = None,
        mask_in_info: bool = False,
        refusals: bool = False,
    ) -> None:
        if reward not in REWARD_MODES:
            raise ConfigError(f"reward must be one of {REWARD_MODES}, got {reward!r}")
        check_render_mode(render_mode)
        self.config = BrawlConfig(num_players=num_players, chaos_windows=chaos_windows, max_steps=max_steps,
                                  rules=rules, hit_draws=hit_draws, showdown=showdown, ask_noops=ask_noops,
                                  skip_forced=skip_forced, combo=combo,
                                  combo_max=combo_max)
        viewer = check_viewer(viewer, num_players)
        self.cards = cards_for(self.config.rules) if cards is None else load_cards(cards)
        self.reward_mode = reward
        self.render_mode = render_mode
        self.viewer = viewer
        self.mask_in_info = check_flag("mask_in_info", mask_in_info)
        self.refusals = check_flag("refusals", refusals)
        self.game = BrawlGame(self.config, self.cards)
        self.possible_agents = [f"player_{i}" for i in range(num_players)]
        self.seat = {a: i for i, a in enumerate(self.possible_agents)}
        self.observation_spaces, self.action_spaces = dict_spaces(
            self.possible_agents, 0.0, OBS_HIGH, OBS_SIZE + (REFUSALS_SIZE if self.refusals else 0), NUM_ACTIONS)
        self.seed: int | None = None
        self._obs_cache: dict[int, tuple[int, np.ndarray]] = {}
        self._mask_cache: tuple[int, np.ndarray] = (-1, np.zeros(NUM_ACTIONS, dtype=np.int8))
        # seat -> absolute seats in egocentric order (np.roll is slow on the per-step path)
        self._relative = [np.array([(s + k) % num_players for k in range(num_players)]) for s in range(num_players)]

    def start(self, seed: int | None, options: dict[str, Any] | None) -> None:
        """Validate the seed and every reset option, then (only then) deal the new game."""
        if options is None:
            options = {}
        if not isinstance(options, dict):
            raise ConfigError(f"reset options must be a dict (allowed key: 'deal') or None, got {type(options).__name__}")
        check_options(options, RESET_OPTIONS, "reset option", warn_only=True)
        deal = options.get("deal")
        parsed = None if deal is None else parse_deal(deal, self.config.num_players, self.cards, "reset option 'deal'")
        try:
            rng, seed_used = make_rng(seed)
        except ValueError as exc:
            raise ConfigError(str(exc)) from None
        self.seed = seed_used
        self.game.new_game(rng, parsed)
        self._obs_cache.clear()
        self._mask_cache = (-1, self._mask_cache[1])

    def observe_state(self, game: BrawlGame, seat: int) -> tuple[np.ndarray, np.ndarray]:
        """(observation vector, action mask) of ``seat`` in any ``game`` (a determinization, say)."""
        return self.encode(game, seat), game.legal_action_mask(seat)

    def encode(self, game: BrawlGame, seat: int) -> np.ndarray:
        """``seat``'s observation vector: ``observe.encode``, then the refusals block with ``refusals=True``."""
        obs = encode(game, seat)
        return np.concatenate([obs, encode_refusals(game, seat)]) if self.refusals else obs

    observe_state.standard_observation = True  # type: ignore[attr-defined]
    """The game's own encoding: an agent's ``act_game`` may stand for ``act`` on it (the search's rollouts)."""

    def information_set(self, seat: int) -> InformationSet:
        return InformationSet.of(self.game, seat, self.config.num_players, self.observe_state)

    def observation(self, seat: int) -> dict[str, np.ndarray]:
        g = self.game
        cached = self._obs_cache.get(seat)
        if cached is None or cached[0] != g.version:
            cached = (g.version, self.encode(g, seat))
            self._obs_cache[seat] = cached
        return {"observation": cached[1], "action_mask": self.mask(seat)}

    def privileged(self, seat: int) -> np.ndarray:
        """``seat``'s privileged block (``observe.encode_privileged``): the hidden state, for a training critic."""
        return encode_privileged(self.game, seat)

    def mask(self, seat: int) -> np.ndarray:
        """A fresh copy of ``seat``'s action mask (computed once per game state, for the decider)."""
        g = self.game
        if seat != g.actor:
            return np.zeros(NUM_ACTIONS, dtype=np.int8)
        if self._mask_cache[0] != g.version:
            self._mask_cache = (g.version, g.legal_action_mask(seat))
        return self._mask_cache[1].copy()

    def info(self, seat: int, mask: np.ndarray, sizes: np.ndarray | None = None) -> dict[str, Any]:
        """Info of ``seat``; ``sizes`` (every hand's size) may be passed in when already computed."""
        g = self.game
        if sizes is None:
            sizes = g.hands.sum(axis=1)
        return {
            **({"action_mask": mask} if self.mask_in_info else {}),
            "hand_size": int(sizes[seat]),
            "hand_sizes": sizes[self._relative[seat]],  # egocentric: relative seat k is seat + k
            "place": int(g.place[seat]),
            "steps": g.steps,
            "phase": int(g.phase),
        }

    def infos(self, agents: list[str]) -> dict[str, dict[str, Any]]:
        """Every agent's info; only the deciding fighter's mask is computed, the rest are zeros."""
        g = self.game
        if self.mask_in_info:
            sizes = g.hands.sum(axis=1)
            return {agent: self.info(self.seat[agent], self.mask(self.seat[agent]), sizes) for agent in agents}
        listed = g.sizes
        place, steps, phase, n = g.place.tolist(), g.steps, int(g.phase), len(listed)
        twice = np.array(listed + listed, dtype=np.int64)  # egocentric hand sizes of seat s: twice[s:s + n]
        out = {}
        for agent in agents:
            seat = self.seat[agent]
            out[agent] = {"hand_size": listed[seat], "hand_sizes": twice[seat:seat + n], "place": place[seat],
                          "steps": steps, "phase": phase}
        return out

    def final_rewards(self) -> np.ndarray:
        return self.game.returns(self.reward_mode)

    def render(self) -> str | None:
        return render_text_mode(self.render_mode, lambda: render_text(self.game, self.viewer), stacklevel=3,
                                picture=lambda: rgb_array(self.game, self.viewer))


class raw_env(AECMixin, AECEnv):
    """Brawl, turn-based (AEC) form. See the module docstring for the full card."""

    metadata = {"name": ENV_NAME, "render_modes": RENDER_MODES, "is_parallelizable": False, "render_fps": 1}

    def __init__(self, **options: Any) -> None:
        super().__init__()
        check_options(options, ENV_OPTIONS, f"{ENV_NAME} option")
        self.table = _BrawlTable(**options)
        self.game = self.table.game
        self.possible_agents = list(self.table.possible_agents)
        self.render_mode = self.table.render_mode
        self.observation_spaces = self.table.observation_spaces
        self.action_spaces = self.table.action_spaces
        self.max_episode_steps = self.game.config.step_limit

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        self.table.start(seed, options)
        self._start_episode()
        self.agent_selection = self.possible_agents[self.game.current_player()]
        self._refresh_infos()

    def _refresh_infos(self) -> None:
        self.infos = self.table.infos(self.agents)

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        return self.table.observation(self.table.seat[agent])

    def decision_kind(self, agent: str) -> str:
        """What ``agent`` is asked now: one of ``rules.DECISION_KINDS`` (``"none"`` if not deciding)."""
        return self.game.decision_kind(self.table.seat[agent])

    def information_set(self, agent: str) -> InformationSet:
        """``agent``'s knowledge of the game as an ``InformationSet`` (holds no hidden card)."""
        return self.table.information_set(self.table.seat[agent])

    def privileged_observation(self, agent: str) -> np.ndarray:
        """What ``agent`` does not see (the other hands, the draw pile), egocentric: for a critic that
        trains on the hidden state (``ppo.critic: privileged``), never for a policy that plays."""
        return self.table.privileged(self.table.seat[agent])

    def privileged_observation_space(self, agent: str) -> spaces.Box:
        """The Box of :meth:`privileged_observation` (the same for every agent)."""
        return spaces.Box(0.0, OBS_HIGH, (PRIVILEGED_SIZE,), np.float32)

    def step(self, action: int) -> None:
        if self._dead_step(action):
            return
        agent = self.agent_selection
        seat = self.table.seat[agent]
        self.game.apply_action(seat, action)  # raises IllegalActionError, changing nothing
        self._cumulative_rewards[agent] = 0.0
        if self.game.is_over():
            final = self.table.final_rewards()
            self.rewards = {a: float(final[self.table.seat[a]]) for a in self.agents}
            done = {a: True for a in self.agents}
            if self.game.truncated:
                self.truncations = done
            else:
                self.terminations = done
        else:
            self.rewards = dict.fromkeys(self.agents, 0.0)
            self.agent_selection = self.possible_agents[self.game.current_player()]
        self._refresh_infos()
        self._accumulate_rewards()

    def render(self) -> str | None:
        return self.table.render()

    def game_record(self) -> dict[str, Any]:
        """The game so far as JSON-ready data (replay with ``brawl.record.replay``)."""
        return make_record(self.game, self.table.seed)


def env(**options: Any) -> AECEnv:
    """The AEC env with PettingZoo's standard wrappers (illegal move: -1 and game over)."""
    return wrap_aec(raw_env(**options), ILLEGAL_REWARD)


class parallel_raw_env(SpacesMixin, ParallelEnv):
    """Brawl as a parallel env: a conversion of the turn-based game.

    Each step takes an action from every live agent. The deciding fighter's mask is its legal
    set and its action is applied; every other live agent (MASTERs included, who stay live until
    the game ends) has the mask of one legal action, ``PASS`` (13), the documented no-op "wait",
    which it must send (or leave out: a missing action is taken as PASS). Exactly one fighter
    decides at any moment, so nothing else is lost. ``illegal_action="raise"`` (this class's
    default) raises IllegalActionError for an illegal action (the decider's, or anything but PASS
    from another agent) and changes nothing; ``"terminate"`` (what :func:`parallel_env` uses) ends
    the game with -1 for the offender.
    """

    metadata = {"name": ENV_NAME, "render_modes": RENDER_MODES, "render_fps": 1}

    def __init__(self, illegal_action: str = "raise", **options: Any) -> None:
        check_options(options, ENV_OPTIONS, f"{ENV_NAME} option")
        check_illegal_action(illegal_action)
        self.illegal_action = illegal_action
        self.table = _BrawlTable(**options)
        self.game = self.table.game
        self.possible_agents = list(self.table.possible_agents)
        self.agents: list[str] = []
        self.render_mode = self.table.render_mode
        self.observation_spaces = self.table.observation_spaces
        self.action_spaces = self.table.action_spaces
        self.max_episode_steps = self.game.config.step_limit

    def _observe_all(self) -> tuple[dict[str, Any], dict[str, Any]]:
        obs, infos = {}, {}
        g = self.game
        actor = NO_ACTOR if g.is_over() else g.current_player()
        sizes = g.hands.sum(axis=1)
        for agent in self.agents:
            seat = self.table.seat[agent]
            o = self.table.observation(seat)
            if seat != actor and not g.is_over():
                o["action_mask"] = _WAIT_MASK.copy()
            obs[agent] = o
            infos[agent] = self.table.info(seat, o["action_mask"].copy(), sizes)
        return obs, infos

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None):
        self.table.start(seed, options)
        self.agents = list(self.possible_agents)
        return self._observe_all()

    def decision_kind(self, agent: str) -> str:
        """What ``agent`` is asked now: one of ``rules.DECISION_KINDS`` (``"none"`` if only waiting)."""
        return self.game.decision_kind(self.table.seat[agent])

    def information_set(self, agent: str) -> InformationSet:
        return self.table.information_set(self.table.seat[agent])

    def _illegal(self, offender: str, message: str):
        if self.illegal_action == "raise":
            raise IllegalActionError(message)
        warnings.warn(f"{message}; the game ends with {ILLEGAL_REWARD} for {offender}", stacklevel=3)
        obs, infos = self._observe_all()
        for info in infos.values():
            if "action_mask" in info:
                info["action_mask"][:] = 0
        for o in obs.values():
            o["action_mask"] = np.zeros(NUM_ACTIONS, dtype=np.int8)
        rewards = {a: (ILLEGAL_REWARD if a == offender else 0.0) for a in self.agents}
        terms = {a: True for a in self.agents}
        truncs = {a: False for a in self.agents}
        self.agents = []
        return obs, rewards, terms, truncs, infos

    def step(self, actions: dict[str, int]):
        if not self.agents:
            raise IllegalActionError("the game is over; call reset() before step()")
        g = self.game
        seat = g.current_player()
        decider = self.possible_agents[seat]
        if decider not in actions:
            raise IllegalActionError(f"step() needs an action for the deciding agent {decider}")
        for agent in self.agents:
            if agent != decider and agent in actions and as_action(actions[agent]) != PASS:
                return self._illegal(agent, f"{agent} is not deciding and must send PASS ({PASS}), "
                                            f"got {actions[agent]!r}")
        action = as_action(actions[decider])
        is_int = isinstance(action, (int, np.integer)) and not isinstance(action, bool)
        if not is_int or not 0 <= action < NUM_ACTIONS or not g.legal_action_mask(seat)[action]:
            if self.illegal_action == "raise":
                g.apply_action(seat, action)  # raises with the legal set
            return self._illegal(decider, f"illegal action {action!r} by {decider}")
        g.apply_action(seat, int(action))
        if g.is_over():
            final = self.table.final_rewards()
            rewards = {a: float(final[self.table.seat[a]]) for a in self.agents}
        else:
            rewards = dict.fromkeys(self.agents, 0.0)
        terms = {a: g.is_terminal() for a in self.agents}
        truncs = {a: g.truncated for a in self.agents}
        obs, infos = self._observe_all()
        if g.is_over():
            self.agents = []
        return obs, rewards, terms, truncs, infos

    def render(self) -> str | None:
        return self.table.render()

    def game_record(self) -> dict[str, Any]:
        return make_record(self.game, self.table.seed)


def parallel_env(**options: Any) -> ParallelEnv:
    """The parallel env; an illegal action of the deciding fighter ends the game with -1 for it."""
    return parallel_raw_env(illegal_action="terminate", **options)
