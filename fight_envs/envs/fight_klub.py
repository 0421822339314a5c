"""
# Fight Klub TCG (`fight_envs.fight_klub_v0`)

| | |
| --- | --- |
| Import | `from fight_envs import fight_klub_v0` |
| Actions | Discrete(32): pass, hand position (16), support position (8), rotate, colour (3), option (3) |
| Parallel API | no: every decision of the game is made by one player at a time (see below) |
| Agents | `player_0`, `player_1` |
| Observation | dict: `observation` Box(-100, 100, (20274,), float32), `action_mask` Box(0, 1, (32,), int8) |
| Episode length | at most `max_turns` turns; `max_episode_steps` = `max_turns` x a per-turn decision bound from the card data |
| Rules | `seeds/fight_klub.md` |

Fight Klub is a two-player trading card game: each player brings a character (with gametext), a 12-card Fight
stack and a 27-card Draw deck. Every turn has a Setup phase, three fights (Enhance, Fight,
Score) and a Cooldown; The Drop decides every order and changes hands each turn. Every choice
a player makes is one step: The Drop's orderings, each setup / enhance / score / cooldown
action or pass, which fight and which skirmish next, which Clash text, rotations, the colour
of each generic token paid or token burned, each discard and destroy. A choice with exactly
one legal action is made for the player (not a step), and so is an ordering that cannot matter
(evening up; a step in which at most one player can act; a skirmish order when no skirmish
left is won by a tab with a Result; a Clash-text pick both texts decide alike): The Drop goes
first, skirmishes run left to right, The Drop's text is used (``ask_moot_orders=True`` asks them
all, as the draft reads). By default the choices that cost the heuristic under 3 points when played
at random are made by a fixed rule, the heuristic's own (``rules.AUTO_RULES``, ``rules.AUTO_DEFAULT``:
The Drop's Setup, Score and Cooldown orders, the next fight, skirmish order, Clash text,
generic-cost colours, burns, destroys, Score and Cooldown plays, discards and evening up;
``seeds/fight_klub.md`` interpretation 38), so a default game asks only Setup plays, The Drop's
Enhance order and Enhance plays; ``auto_decisions=[]`` asks them all. The action ids are the table in
``seeds/fight_klub.md`` section 8.

**AEC only.** The rulebook never has both players choose at once (even the face-down Fight
cards are dealt from the stacks, not chosen), so a parallel form would only wrap the AEC one;
none is offered.

**Observation** (egocentric, cards by attributes so a policy generalises to unseen cards):
documented block by block in ``fight_envs/games/fight_klub/observe.py`` (``OBS_SLICES``).
Nothing hidden enters it: the opponent's hand, both decks' and stacks' orders are counts only.

**Action mask**: 1 exactly for the acting agent's legal actions; all zeros for the other agent.
Also in ``info["action_mask"]`` with ``mask_in_info=True``.

**Rewards**: ``reward="outcome"`` (default): at the end, +1 to the winner and -1 to the loser; 0
each for a draw (no Fight cards left and equal damage) or a truncation; nothing before.
``reward="damage"``: the same outcome, plus potential-based shaping by the damage lead (my damage
dealt over the other's Life, less my damage taken over my Life): whenever the lead changes, each
player is paid its change (zero-sum), and the last step takes the lead paid so far back, so the
rewards of a game sum exactly to its outcome. A won fight is felt when it is scored instead of at
the end of the game (``docs/results.md``, Fight Klub, measures what it does to training).

**Info** (the same keys at every step): ``score`` (= ``damage_dealt``, the
suite's arena reads it), ``damage_dealt``, ``damage_taken``,
``life`` (mine); ``turn``; ``has_drop`` (1 if I hold The Drop); ``decision`` (index into
``rules.DECISION_KINDS`` of the pending decision, -1 when none).

**Illegal actions**: ``raw_env`` raises ``IllegalActionError`` naming the action and the legal
set, and changes nothing. ``env()`` ends the game with -1 for the offender (0 for the other)
and a warning, PettingZoo's convention.

**Options** (constructor): ``num_players=2`` (the only count), ``reward="outcome"|"damage"``
(above; ``num_players`` is accepted so suite-wide tools can pass it), ``decks=None`` (each game draws two decks, with repetition, from
``deck_pool``) or a pair of decks, each a preconstructed deck name, a deck-list dict or the path
of a deck-list JSON file (validated: ``DeckError`` names the construction rule broken);
``deck_pool=None`` (all preconstructed decks), a list of deck names, or ``"random"`` (each game two
fresh random legal decks, ``fight_envs.games.fight_klub.deckbuild.random_deck``, from the seed);
``auto_decisions=None`` (``rules.AUTO_DEFAULT``) or a list of the kinds of ``rules.AUTO_RULES`` made by
their rule instead of asked (``[]``: every choice asked); ``ask_moot_orders=False`` (True: moot orderings
asked too); ``render_mode=None|"ansi"|"human"|"rgb_array"``; ``viewer=None|0|1`` (whose hand a rendering shows);
``cards=None|path`` (a card-data JSON in the schema of ``cards.json``, validated on load) and
``deck_lists=None|path`` (a JSON list of deck lists: the preconstructed decks of that pool);
either defaults to the package's own file; ``mask_in_info=False`` (True: the mask also in
``info["action_mask"]``).
**Reset options**: ``{"decks": [a, b]}`` (this game's decks), ``{"orders": [{"fight": [...],
"draw": [...]}, ...]}`` (each seat's Fight stack and Draw deck, top first; a seat may be
``None``), ``{"drop": 0|1}`` (who holds The Drop on turn 1).

**Search vocabulary**: ``raw_env.decision_kind(agent)`` names the decision asked (one of
``rules.DECISION_KINDS``: order_setup, setup, choose_fight, order_enhance, enhance, clash_text,
skirmish_order, order_score, score, order_cooldown, cooldown, order_even_up, even_up,
pay_generic, burn, discard, destroy_own, destroy_other; "none" when the agent is not to act);
``raw_env.information_set(agent)`` is the agent's knowledge as a determinized game
(``FightKlubGame.determinize``: deck lists open, every hidden order and the other's unknown
hand redrawn uniformly). The env deep-copies and pickles (the engine replays its decisions).

**Determinism**: ``reset(seed=s)`` reproduces the game exactly. ``env.unwrapped.game_record()``
returns JSON data that ``fight_envs.games.fight_klub.record.replay`` plays back.

Version history: v0: first release; within v0 (before any release of these changes): character
gametext, six preconstructed decks, lossless card features and the deck / plays summaries in the
observation (3094 -> 20274 floats), moot orderings resolved without asking, max_turns 40 -> 20,
choices that cost nothing made by rule by default (``auto_decisions``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from pettingzoo import AECEnv

from fight_envs.core.errors import ConfigError, check_options
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
from fight_envs.games.fight_klub.cards import DEFAULT_POOL, CardPool, DeckList, load_deck, load_pool
from fight_envs.games.fight_klub.deckbuild import random_deck
from fight_envs.games.fight_klub.observe import OBS_HIGH, OBS_SIZE, encode, observe_state
from fight_envs.games.fight_klub.record import make_record
from fight_envs.games.fight_klub.render import render_text
from fight_envs.games.fight_klub.rules import (
    AUTO_DEFAULT,
    AUTO_RULES,
    DECISION_KINDS,
    MAX_TURNS,
    NUM_ACTIONS,
    FightKlubConfig,
    FightKlubGame,
    max_decisions_per_turn,
)

ENV_NAME = "fight_klub_v0"
_KIND_INDEX = {k: i for i, k in enumerate(DECISION_KINDS)}
_MASKS: dict[tuple[int, ...], np.ndarray] = {}
"""Action mask per legal set (the engine's ``legal_action_mask``), never handed out itself."""
RESET_OPTIONS = ("decks", "orders", "drop")
REWARD_MODES = ("outcome", "damage")
ILLEGAL_REWARD = -1.0

ENV_OPTIONS: dict[str, Any] = {
    "num_players": 2,
    "reward": "outcome",
    "decks": None,
    "deck_pool": None,
    "max_turns": MAX_TURNS,
    "ask_moot_orders": False,
    "auto_decisions": None,
    "render_mode": None,
    "viewer": None,
    "cards": None,
    "deck_lists": None,
    "mask_in_info": False,
}
"""Constructor options and their defaults (listed by the suite's registry)."""


def auto_kinds(option: Any) -> frozenset[str]:
    """The ``auto_decisions`` option as ``FightKlubConfig.auto``: None gives ``rules.AUTO_DEFAULT``."""
    if option is None:
        return AUTO_DEFAULT
    if isinstance(option, str) or not isinstance(option, (list, tuple, set, frozenset)):
        raise ConfigError(f"auto_decisions must be None (the default set) or a list of decision kinds out of "
                          f"{sorted(AUTO_RULES)}, got {safe_repr(option)}")
    bad = [k for k in option if not isinstance(k, str) or k not in AUTO_RULES]
    if bad:
        raise ConfigError(f"auto_decisions: {safe_repr(bad)} cannot be made by rule; the decision kinds that can are "
                          f"{sorted(AUTO_RULES)}")
    return frozenset(option)


def _deck_pair(decks: Any, what: str, pool: CardPool) -> list[DeckList]:
    if not isinstance(decks, (list, tuple)) or len(decks) != 2:
        raise ConfigError(f"{what} must be a pair of decks (names, deck-list dicts or paths), got {safe_repr(decks)}")
    return [_one_deck(d, what, pool) for d in decks]


def _one_deck(d: Any, what: str, pool: CardPool) -> DeckList:
    if not isinstance(d, (str, dict, DeckList)) and not hasattr(d, "__fspath__"):
        raise ConfigError(f"{what}: each deck is a preconstructed name, a deck-list dict or a path, got {safe_repr(d)}")
    return load_deck(d, pool)


class raw_env(AECMixin, AECEnv):
    """Fight Klub, turn-based (AEC) form. See the module docstring for the full card."""

    metadata = {"name": ENV_NAME, "render_modes": RENDER_MODES, "is_parallelizable": False, "render_fps": 1}

    def __init__(self, **options: Any) -> None:
        super().__init__()
        check_options(options, ENV_OPTIONS, f"{ENV_NAME} option")
        opts = {**ENV_OPTIONS, **options}
        self.card_paths = (opts["cards"], opts["deck_lists"])
        self.pool = DEFAULT_POOL if self.card_paths == (None, None) else load_pool(*self.card_paths)
        # accepted so that suite-wide tools (trainer, arena) can pass them as for every game
        if opts["num_players"] != 2:
            raise ConfigError(f"Fight Klub is a two-player game: num_players must be 2, got {opts['num_players']!r}")
        if opts["reward"] not in REWARD_MODES:
            raise ConfigError(f"reward must be one of {REWARD_MODES} ('outcome': +1 win / -1 loss / 0 draw or truncation, "
                              f"at the end; 'damage': the same plus shaping by the damage lead that sums to 0 over a "
                              f"game), got {safe_repr(opts['reward'])}")
        self.reward_mode = opts["reward"]
        self.fixed_decks = None if opts["decks"] is None else _deck_pair(opts["decks"], "option 'decks'", self.pool)
        self.random_decks = isinstance(opts["deck_pool"], str) and opts["deck_pool"] == "random"
        pool_names = opts["deck_pool"] if opts["deck_pool"] is not None else list(self.pool.decks)
        if self.random_decks:
            self.deck_pool = []
        elif not isinstance(pool_names, (list, tuple)) or not pool_names:
            raise ConfigError(f"option 'deck_pool' must be 'random' or a non-empty list of deck names, got {pool_names!r}")
        else:
            self.deck_pool = [_one_deck(d, "option 'deck_pool'", self.pool) for d in pool_names]
        self.config = FightKlubConfig(max_turns=opts["max_turns"], ask_moot_orders=opts["ask_moot_orders"],
                                      auto=auto_kinds(opts["auto_decisions"]))
        check_render_mode(opts["render_mode"])
        self.viewer = check_viewer(opts["viewer"], 2)
        self.render_mode = opts["render_mode"]
        self.mask_in_info = check_flag("mask_in_info", opts["mask_in_info"])
        self.possible_agents = ["player_0", "player_1"]
        self.seat = {a: i for i, a in enumerate(self.possible_agents)}
        self.observation_spaces, self.action_spaces = dict_spaces(
            self.possible_agents, -OBS_HIGH, OBS_HIGH, OBS_SIZE, NUM_ACTIONS)
        self.max_episode_steps = self.config.max_turns * max_decisions_per_turn(self.pool)
        self.game: FightKlubGame | None = None
        self.seed_used: int | None = None
        self._obs_cache: dict[int, tuple[int, np.ndarray]] = {}

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        options = options or {}
        check_options(options, RESET_OPTIONS, "reset option", warn_only=True)
        # every option is checked, and the new game dealt, before anything of the env changes: a
        # refused reset leaves the previous game as it was
        decks = None if options.get("decks") is None else _deck_pair(options["decks"], "reset option 'decks'", self.pool)
        orders = options.get("orders")
        if orders is not None and (not isinstance(orders, (list, tuple)) or len(orders) != 2
                                   or any(o is not None and not isinstance(o, dict) for o in orders)):
            raise ConfigError(f"reset option 'orders' must be a list of 2 entries, each None or "
                              f"{{'fight': [...], 'draw': [...]}}, got {safe_repr(orders)}")
        for o in orders or ():
            for part, ids in (o or {}).items():
                if part not in ("fight", "draw") or not isinstance(ids, (list, tuple)) or not all(isinstance(c, str) for c in ids):
                    raise ConfigError(f"reset option 'orders': an entry maps 'fight' and 'draw' to lists of card ids, "
                                      f"got {safe_repr(part)}: {safe_repr(ids)}")
        drop = options.get("drop")
        if drop is not None and (isinstance(drop, bool) or not isinstance(drop, (int, np.integer)) or drop not in (0, 1)):
            raise ConfigError(f"reset option 'drop' must be seat 0 or 1, got {safe_repr(drop)}")
        rng, seed_used = make_rng(seed)
        if decks is None:
            # drawn from the seed's generator first, so the same seed gives the same pairing
            if self.fixed_decks is not None:
                decks = self.fixed_decks
            elif self.random_decks:
                decks = [random_deck(self.pool, rng, name=f"random_{k}") for k in range(2)]
            else:
                decks = [self.deck_pool[int(i)] for i in rng.integers(len(self.deck_pool), size=2)]
        game = FightKlubGame(self.pool, decks, self.config)
        game.new_game(rng, drop=None if drop is None else int(drop), orders=orders)  # DealError: nothing changed yet
        self.game, self.seed_used = game, seed_used
        self._obs_cache.clear()
        self._potential = [0.0, 0.0]  # reward="damage": each seat's damage lead as last paid (none at the deal)
        self._start_episode()
        self._sync()

    def _sync(self) -> None:
        """Agent selection, infos and end flags from the engine after a change."""
        g = self.game
        assert g is not None
        if g.pending is not None:
            self.agent_selection = self.possible_agents[g.pending.seat]
        elif not hasattr(self, "agent_selection") or self.agent_selection not in self.possible_agents:
            self.agent_selection = self.possible_agents[0]
        if g.game_over:
            self.terminations = {a: True for a in self.agents}
        elif g.truncated:
            self.truncations = {a: True for a in self.agents}
        if self.mask_in_info:
            self.infos = {a: self._info(a) for a in self.agents}
            return
        # ``_info`` for every agent, what both share read once (this runs every step)
        players, seat_of = g.players, self.seat
        turn = min(g.turn, g.config.max_turns)
        decision = -1 if g.pending is None else _KIND_INDEX[g.pending.kind]
        drop = g.drop
        infos = {}
        for a in self.agents:
            seat = seat_of[a]
            me = players[seat]
            dealt = me.dealt
            infos[a] = {"score": dealt, "damage_dealt": dealt, "damage_taken": players[1 - seat].dealt, "life": me.life,
                        "turn": turn, "has_drop": int(drop == seat), "decision": decision}
        self.infos = infos

    def _mask(self, agent: str) -> np.ndarray:
        g = self.game
        assert g is not None
        d = g.pending
        if d is None or d.seat != self.seat[agent]:
            return np.zeros(NUM_ACTIONS, dtype=np.int8)
        # a mask depends on the legal set only: built once per set, handed out as a copy
        mask = _MASKS.get(d.legal)
        if mask is None:
            mask = _MASKS[d.legal] = g.legal_action_mask(d.seat)
        return mask.copy()

    def _info(self, agent: str) -> dict[str, Any]:
        g = self.game
        assert g is not None
        seat = self.seat[agent]
        me, other = g.players[seat], g.players[1 - seat]
        info = {"score": me.dealt, "damage_dealt": me.dealt, "damage_taken": other.dealt, "life": me.life,
                "turn": min(g.turn, g.config.max_turns), "has_drop": int(g.drop == seat),
                "decision": -1 if g.pending is None else _KIND_INDEX[g.pending.kind]}
        if self.mask_in_info:  # the mask is the first key
            return {"action_mask": self._mask(agent), **info}
        return info

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        g = self.game
        assert g is not None
        seat = self.seat[agent]
        cached = self._obs_cache.get(seat)
        if cached is None or cached[0] != g.version:
            cached = (g.version, encode(g, seat, copy=False))  # the game's buffer: copied once below
            self._obs_cache[seat] = cached
        return {"observation": cached[1].copy(), "action_mask": self._mask(agent)}  # a caller may write into it

    def decision_kind(self, agent: str) -> str:
        """What ``agent`` is asked now: one of ``rules.DECISION_KINDS`` ("none" when it is not to act)."""
        assert self.game is not None
        return self.game.decision_kind(self.seat[agent])

    def information_set(self, agent: str) -> InformationSet:
        """``agent``'s knowledge as a determinized game (``fight_envs.core.information``): holds nothing hidden."""
        assert self.game is not None
        return InformationSet.of(self.game, self.seat[agent], 2, observe_state)

    def step(self, action: int) -> None:
        if self._dead_step(action):
            return
        agent = self.agent_selection
        g = self.game
        assert g is not None
        g.apply_action(self.seat[agent], action)  # raises IllegalActionError, changing nothing
        self._cumulative_rewards[agent] = 0.0
        if g.is_terminal():
            returns = g.returns()
            if self.reward_mode == "damage":  # the shaping paid so far is taken back: the game sums to its outcome
                returns = returns - np.asarray(self._potential)
            self.rewards = {a: float(returns[self.seat[a]]) for a in self.agents}
            self._sync()
            self._accumulate_rewards()
            return
        if self.reward_mode == "damage" and self._shape():
            self._sync()
            self._accumulate_rewards()
            return
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._sync()
        # no _accumulate_rewards: adding the zero rewards leaves every cumulative reward as it is (each
        # is 0.0 before the end of a game, set so at reset, and float rewards come only at the end)

    def _shape(self) -> bool:
        """``reward="damage"``: pay each seat the change of its damage lead since the last payment, and
        say whether any changed. The lead (the potential of potential-based shaping, Ng, Harada and
        Russell 1999) is my damage dealt over the other's Life less the damage taken over mine: the way
        to a win, in [-1, 1] before the end. Paid differences add up to the last lead, which the final
        step takes back, so a game's rewards sum to its outcome whatever happened in it."""
        g = self.game
        assert g is not None
        p0, p1 = g.players
        lead = p0.dealt / p1.life - p1.dealt / p0.life
        if lead == self._potential[0]:
            return False
        r0 = lead - self._potential[0]
        self._potential = [lead, -lead]
        self.rewards = {a: (r0 if self.seat[a] == 0 else -r0) for a in self.agents}
        return True

    def render(self) -> str | None:
        assert self.game is not None
        return render_text_mode(self.render_mode, lambda: render_text(self.game, self.viewer), stacklevel=2,
                                picture=lambda: rgb_array(self.game, self.viewer))

    def game_record(self) -> dict[str, Any]:
        """The game so far as JSON-ready data (replay with ``fight_klub.record.replay``)."""
        assert self.game is not None
        return make_record(self.game, self.seed_used, *self.card_paths)


def env(**options: Any) -> AECEnv:
    """The AEC env with PettingZoo's standard wrappers (illegal move: -1 and game over)."""
    return wrap_aec(raw_env(**options), ILLEGAL_REWARD)
