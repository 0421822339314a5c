"""
# Fifth-Earth battles (`fight_envs.fifth_earth_v0`)

| | |
| --- | --- |
| Import | `from fight_envs import fifth_earth_v0` |
| Actions | Discrete(205): lay a card (0..99) or a stage run (100..174), choose a destination (175..199), challenge a player (200..204) |
| Parallel API | no (see below) |
| Agents | `player_0` .. `player_{n-1}`, n = `num_players` (2..6) |
| Observation | dict: `observation` Box(0, 10, (1581,), float32), `action_mask` Box(0, 1, (205,), int8) |
| Episode length | at most `max_episode_steps` = the engine's bound (every battle is capped at `max_fights` fights); `max_steps` truncates earlier |
| Rules | `seeds/fifth_earth.md` |

Two rule sets (``rules``, see ``seeds/fifth_earth.md`` section 8): ``"standard"`` (default) and
``"classic"`` (the first release's reading). For each destination the players roll the dice for
order; the highest chooses the destination (under the standard rules the engine takes it: it has
no effect); everyone is dealt eight character cards (standard: from a public subset of the
characters, two per player plus two); then players battle one against one in a knockout
(byes for odd counts, seeds re-rolled each round) until one claims the destination. In a fight
one player lays character cards face down (one card, or stages 1..k of one character), the
other sees *how many* and answers, both roll the dice (a double draws a power card), the higher
total wins and the loser's cards (standard: into the winner's first-use pile; classic: into its
hand). ``format="royale"`` plays the rulebook's battle-royale alternative: everyone in one
battle. The game is ``num_destinations`` destinations long (standard 25, the rulebook's whole
campaign; classic 1); most destinations wins.

**Turns** (AEC): one decision per step: choosing the destination, choosing whom to challenge,
or laying. Under ``ask="choices"`` (standard) a decision with one legal action, and the
destination, are taken without asking. ``raw_env.decision_kind(agent)`` names the decision
asked (``rules.DECISION_KINDS``: ``choose_destination``, ``challenge``, ``lay_first``,
``lay_answer``, ``none`` for an agent not asked); ``raw_env.information_set(agent)`` is that
agent's knowledge as a determinized game (``fight_envs.core.information``) for search agents.
Dice, power cards and reveals happen between steps, automatically. Players waiting
(a bye, a battle they are not in, knocked out of this destination) stay in ``agents`` and are
never selected; all agents end at the same step. There is no parallel form: every decision
depends on the one before it (the second layer sees how many cards the first laid), so a
parallel step would have one actor and everybody else idle.

**Observation** (egocentric, padded to 6 players): documented feature by feature in
``fight_envs/games/fifth_earth/observe.py``. Nothing hidden enters it: others' hands and
piles (sizes only), face-down cards (count only), the undealt cards, the power deck's order.
What the table has seen is in it: every card revealed since the deal, and per player the
revealed cards now in its hand (a card won, or picked up from the rest pile).

**Action mask**: exactly the legal set of the acting agent (the stage-run rule, the reuse
restriction); all zeros for every other agent. Also in ``info["action_mask"]`` with ``mask_in_info=True``.

**Rewards**: ``reward="outcome"`` (default): at the end, +1 to the sole player with most
destinations, 0 to each of several tied for most, -1 to the others. ``reward="destination"``:
when a destination is claimed, +1 to the claimer and -1/(n-1) to each other player.

**Info** (the same keys at every step): ``destinations_won`` (mine);
``destinations`` (everyone's, egocentric); ``phase`` (0 choose destination, 1 challenge,
2 lay, 3 over); ``knockout_round``; ``fight`` (0 between battles); ``hand_size`` (mine).
The engine is ``env.unwrapped.game``; ``game.events`` narrates the game.

**Illegal actions**: ``raw_env`` raises ``IllegalActionError`` naming the action and the legal
set, and changes nothing. ``env()`` ends the game with -1 for the offender (0 for the others)
and a warning, PettingZoo's convention.

**Options** (constructor): ``num_players=2`` (2..6), ``rules="standard"|"classic"`` (the preset
of every option below left as None), ``num_destinations`` (1..25; 25 is the full campaign),
``format="knockout"|"royale"``, ``won_cards="rest"|"hand"|"spoils"``, ``characters`` (in play per
destination, 2..25), ``between_rounds="redeal"|"keep"``, ``cap="fights"|"cards"``,
``ask="choices"|"all"``, ``max_fights=40``, ``out_of_cards="hand"|"hand_and_rest"``, ``ties="first"|"rolloff"``, ``reward="outcome"|"destination"``, ``max_steps=None`` (truncate after so
many steps), ``render_mode=None|"ansi"|"human"|"rgb_array"``, ``viewer=None|int`` (whose cards a rendering
shows), ``cards=None|path`` (card data JSON), ``mask_in_info=False`` (True: the mask also in
``info["action_mask"]``).
**Reset options**: ``{"deals": [deal per destination], "dice": [faces 1..6]}``; a deal is
``{"hands": [[8 cards] x players], "power_deck": [14 power cards, top first], "characters": [names in play]}`` (cards by name,
``"Greytok 2"``, or id); ``dice`` are used in order before the seeded generator takes over.

**Determinism**: `reset(seed=s)` reproduces the game exactly, dice included.
`env.unwrapped.game_record()` returns JSON data that
`fight_envs.games.fifth_earth.record.replay` plays back.

Version history: v0: first release (won cards to the winner's hand by default, card data v2,
revealed cards in the observation); then the standard rules as default, ``rules="classic"`` for
the first reading, the ``in_play`` block and per-player ``battle_wins`` in the observation
(1475 -> 1581 values), the search vocabulary.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from pettingzoo import AECEnv

from fight_envs.core.errors import ConfigError, IllegalActionError, check_options
from fight_envs.core.information import InformationSet
from fight_envs.core.records import safe_repr
from fight_envs.core.seeding import make_rng
from fight_envs.drawing import rgb_array
from fight_envs.envs.base import (
    RENDER_MODES,
    AECMixin,
    check_flag,
    check_render_mode,
    check_viewer,
    dict_spaces,
    render_text_mode,
    wrap_aec,
)
from fight_envs.games.fifth_earth.cards import DEFAULT_CARDS, load_cards
from fight_envs.games.fifth_earth.observe import OBS_HIGH, OBS_SIZE, PublicView, encode
from fight_envs.games.fifth_earth.record import make_record
from fight_envs.games.fifth_earth.render import render_text
from fight_envs.games.fifth_earth.rules import NUM_ACTIONS, PHASE_OVER, FifthEarthConfig, FifthEarthGame, parse_deal

ENV_NAME = "fifth_earth_v0"
REWARD_MODES = ("outcome", "destination")
RESET_OPTIONS = ("deals", "dice")
CONFIG_OPTIONS = ("num_players", "rules", "num_destinations", "format", "won_cards", "max_fights", "out_of_cards",
                  "ties", "characters", "between_rounds", "cap", "ask")
"""The constructor options that are the engine's ``FifthEarthConfig`` (None: the ``rules`` preset's value)."""
ILLEGAL_REWARD = -1.0

ENV_OPTIONS: dict[str, Any] = {
    "num_players": 2,
    "rules": "standard",
    "num_destinations": None,
    "format": "knockout",
    "won_cards": None,
    "max_fights": 40,
    "out_of_cards": None,
    "ties": "first",
    "characters": None,
    "between_rounds": None,
    "cap": None,
    "ask": None,
    "reward": "outcome",
    "max_steps": None,
    "render_mode": None,
    "viewer": None,
    "cards": None,
    "mask_in_info": False,
}
"""Constructor options and their defaults (listed by the suite's registry)."""


class raw_env(AECMixin, AECEnv):
    """Fifth-Earth, turn-based (AEC) form. See the module docstring for the full card."""

    metadata = {"name": ENV_NAME, "render_modes": RENDER_MODES, "is_parallelizable": False, "render_fps": 1}

    def __init__(self, **options: Any) -> None:
        super().__init__()
        check_options(options, ENV_OPTIONS, f"{ENV_NAME} option")
        opts = {**ENV_OPTIONS, **options}
        if opts["reward"] not in REWARD_MODES:
            raise ConfigError(f"reward must be one of {REWARD_MODES}, got {opts['reward']!r}")
        check_render_mode(opts["render_mode"])
        self.config = FifthEarthConfig(**{k: opts[k] for k in CONFIG_OPTIONS})
        n = self.config.num_players
        viewer = check_viewer(opts["viewer"], n)
        max_steps = opts["max_steps"]
        if max_steps is not None and (isinstance(max_steps, bool) or not isinstance(max_steps, int) or max_steps < 1):
            raise ConfigError(f"max_steps must be None or an integer >= 1, got {max_steps!r}")
        self.cards = DEFAULT_CARDS if opts["cards"] is None else load_cards(opts["cards"])
        self.reward_mode = opts["reward"]
        self.render_mode = opts["render_mode"]
        self.viewer = viewer
        self.mask_in_info = check_flag("mask_in_info", opts["mask_in_info"])
        self.max_steps = max_steps
        self.game = FifthEarthGame(self.config, self.cards)
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self.seat = {a: i for i, a in enumerate(self.possible_agents)}
        self._rel = [(np.arange(n) + s) % n for s in range(n)]
        self.observation_spaces, self.action_spaces = dict_spaces(
            self.possible_agents, 0.0, OBS_HIGH, OBS_SIZE, NUM_ACTIONS)
        bound = self.config.max_decisions()
        self.max_episode_steps = bound if max_steps is None else min(bound, max_steps)
        self.seed_used: int | None = None
        # seat -> (game.version, observation vector): observing twice without a step encodes once
        self._obs_cache: dict[int, tuple[int, np.ndarray]] = {}
        # observe.public_part(game), the seat-independent part shared by every seat: kept while only
        # lays with others still to lay happen (most decisions of a fight), updated in place across
        # a plain fight step, rebuilt after anything else (observe.PublicView)
        self._public = PublicView()
        # tuple(destinations won) -> every seat's egocentric copy of it, for the infos
        self._won_rows: tuple[tuple[int, ...], list[np.ndarray]] | None = None
        self._zero_mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        self._info_state: tuple[dict[str, dict[str, Any]], Any, Any, str | None] = ({}, None, None, None)
        """The last ``_all_infos``: (its infos, the numbers every agent shares, the hand sizes, the
        acting agent under mask_in_info): what an unchanged info is recognised by."""

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        options = options or {}
        check_options(options, RESET_OPTIONS, "reset option", warn_only=True)
        deals = options.get("deals")
        parsed = None
        if deals is not None:
            if not isinstance(deals, (list, tuple)) or len(deals) > self.config.num_destinations:
                raise ConfigError(f"reset option 'deals' must be a list of at most {self.config.num_destinations} "
                                  "destination deals")
            parsed = [parse_deal(d, self.config.num_players, self.cards, f"deals[{i}]") for i, d in enumerate(deals)]
        dice = options.get("dice")
        if dice is not None and not isinstance(dice, (list, tuple)):
            raise ConfigError(f"reset option 'dice' must be a list of die faces 1..6, got {safe_repr(dice)}")
        rng, seed_used = make_rng(seed)
        # The engine checks the deals and dice before it changes anything: a refusal leaves the game as it was.
        self.game.new_game(rng, parsed, list(dice) if dice is not None else None)
        self.seed_used = seed_used
        self._start_episode()
        self.num_steps = 0
        self.agent_selection = self.possible_agents[self.game.current_player()]
        self._info_state = ({}, None, None, None)
        self.infos = self._all_infos(self.agents)

    def _live(self) -> bool:
        # ``True in``: a C-level scan (the wrappers may set every truncation at once)
        return self.game.phase != PHASE_OVER and True not in self.truncations.values()

    def _mask(self, agent: str) -> np.ndarray:
        if agent == self.agent_selection and self.game.phase != PHASE_OVER and True not in self.truncations.values():
            return self.game._current_mask(self.seat[agent]).copy()  # legal_action_mask, one call less
        return self._zero_mask.copy()

    def _info(self, agent: str) -> dict[str, Any]:
        return self._all_infos([agent])[agent]

    def _all_infos(self, agents: list[str]) -> dict[str, dict[str, Any]]:
        """Every agent's info, the counts read once for all of them."""
        g = self.game
        won_list = g.destinations_won.tolist()
        key = tuple(won_list)
        if self._won_rows is None or self._won_rows[0] != key:
            won = g.destinations_won
            self._won_rows = (key, [won[rel] for rel in self._rel])
        won_rows = self._won_rows[1]
        sizes = g._hand_sizes_now()
        b = g.battle
        phase, rnd, fight = g.phase, g.knockout_round, b.fight if b is not None else 0  # plain ints already
        seat, with_mask = self.seat, self.mask_in_info
        acting = self.agent_selection if with_mask and self._live() else None
        # An agent whose info is unchanged keeps its dict (nobody changes a dict handed out): within
        # a fight only the layers' hand sizes and, with mask_in_info, the acting agent's mask change.
        # So when the numbers every agent shares are those of the last call, an agent keeps its dict
        # if its hand size is as it was and it neither acts now nor acted then (its mask).
        common = (phase, rnd, fight, key)
        prev, prev_common, prev_sizes, prev_acting = self._info_state
        same = common == prev_common
        out = {}
        for agent in agents:
            s = seat[agent]
            if same and sizes[s] == prev_sizes[s] and agent != acting and agent != prev_acting and agent in prev:
                out[agent] = prev[agent]
                continue
            # one dict display (cheaper than key by key); each info owns its arrays
            info: dict[str, Any] = {"destinations_won": won_list[s], "destinations": won_rows[s].copy(),
                                    "phase": phase, "knockout_round": rnd, "fight": fight, "hand_size": sizes[s]}
            out[agent] = {"action_mask": self._mask(agent), **info} if with_mask else info
        self._info_state = (out, common, sizes, acting)
        return out

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self.seat[agent]
        g = self.game
        cached = self._obs_cache.get(seat)
        if cached is None or cached[0] != g.version:
            cached = (g.version, encode(g, seat, self._public.get(g)))
            self._obs_cache[seat] = cached
        return {"observation": cached[1].copy(), "action_mask": self._mask(agent)}

    def decision_kind(self, agent: str) -> str:
        """What ``agent`` is asked now: one of ``rules.DECISION_KINDS`` ("none" when it is not its turn)."""
        return self.game.decision_kind(self.seat[agent])

    def information_set(self, agent: str) -> InformationSet:
        """``agent``'s knowledge as a determinized game (``fight_envs.core.information``): holds nothing hidden."""
        return InformationSet.of(self.game, self.seat[agent], self.config.num_players, observe_state)

    def step(self, action: int) -> None:
        if self._dead_step(action):
            return
        agent = self.agent_selection
        g = self.game
        claimed_before = len(g.claimed)
        g.apply_action(self.seat[agent], action)  # raises IllegalActionError, changing nothing
        self.num_steps += 1
        self._cumulative_rewards[agent] = 0.0
        rewards = None  # None: 0.0 to everyone (most steps), built without an array
        if self.reward_mode == "outcome":
            if g.is_terminal():
                rewards = g.returns()
        elif len(g.claimed) > claimed_before:
            n = self.config.num_players
            rewards = np.full(n, -1.0 / (n - 1))
            rewards[g.claimed[-1][1]] = 1.0
        if rewards is None:
            self.rewards = dict.fromkeys(self.agents, 0.0)  # nothing to accumulate
        else:
            self.rewards = {a: float(rewards[self.seat[a]]) for a in self.agents}
        if g.phase == PHASE_OVER:
            self.terminations = {a: True for a in self.agents}
        else:
            self.agent_selection = self.possible_agents[g.to_act]
            if self.max_steps is not None and self.num_steps >= self.max_steps:
                self.truncations = {a: True for a in self.agents}
        self.infos = self._all_infos(self.agents)
        if rewards is not None:
            self._accumulate_rewards()

    def render(self) -> str | None:
        return render_text_mode(self.render_mode, lambda: render_text(self.game, self.viewer), stacklevel=2,
                                picture=lambda: rgb_array(self.game, self.viewer))

    def game_record(self) -> dict[str, Any]:
        """The game so far as JSON-ready data (replay with ``fifth_earth.record.replay``)."""
        return make_record(self.game, self.seed_used)


def observe_state(state: FifthEarthGame, seat: int) -> tuple[np.ndarray, np.ndarray]:
    """``seat``'s (observation vector, action mask) in ``state``, encoded exactly as the env encodes them."""
    return encode(state, seat), state.legal_action_mask(seat)


def env(**options: Any) -> AECEnv:
    """The AEC env with PettingZoo's standard wrappers (illegal move: -1 and game over)."""
    return wrap_aec(raw_env(**options), ILLEGAL_REWARD)


__all__ = ["ENV_NAME", "ENV_OPTIONS", "IllegalActionError", "env", "raw_env"]
