"""Scripted Fifth-Earth baselines: ``random`` (:class:`fight_envs.agents.base.RandomAgent`) and ``heuristic``.

The heuristic acts from the observation vector and the action mask alone, exactly as a trained
policy does, decoding the vector with the layout of ``fight_envs.games.fifth_earth.observe``.

**Card powers.** The baselines judge a lay by the powers of the card data the game is played with
(:class:`CardPowers`): the observation names cards (and the last fight's totals), not each card's
power, and the card data is configurable (``fifth_earth_v0.env(cards=...)``). Each agent holds its
powers per instance: the packaged cards by default, or ``cards=`` at construction (what the env's
``cards`` option takes, a path or None, or a parsed ``FifthEarthCards``). The arena and the
training opponents call ``bind_rules(env)`` (``fight_envs.agents.base.Agent``) when a game starts or
the agent is attached to an env, which gives it the env's card data (``env.unwrapped.cards``), so an
agent built by name plays ``fifth_earth_v0.env(cards=...)`` by those cards. The card powers are
public rules, not hidden information. ``POWER``, ``LAY_POWER`` and ``POWER_POINTS`` below are the
packaged cards' (read-only); nothing reads them to judge another design.
"""

from __future__ import annotations

import functools
import os
from typing import Any

import numpy as np

from fight_envs.agents.base import Agent, RandomAgent
from fight_envs.core.errors import CardDataError
from fight_envs.games.fifth_earth.cards import (
    DEFAULT_CARDS,
    NUM_CARDS,
    NUM_CHARACTERS,
    NUM_POWER_CARDS,
    NUM_STAGES,
    FifthEarthCards,
    card_id,
    load_cards,
)
from fight_envs.games.fifth_earth.observe import COUNT_SCALE, OBS_SLICES, PLAYER_SIZE, PLAYER_SLICES, PLAYERS_START
from fight_envs.games.fifth_earth.rules import (
    CHALLENGE_BASE,
    DESTINATION_BASE,
    MAX_PLAYERS,
    TIES,
    action_cards,
)

GAME = "fifth_earth"
LAY_CARDS = [action_cards(a) for a in range(DESTINATION_BASE)]
LAY_COUNT = np.array([len(c) for c in LAY_CARDS], dtype=np.float64)
RUN_CARDS = {k: np.array([[card_id(c, s) for s in range(1, k + 1)] for c in range(NUM_CHARACTERS)])
             for k in range(2, NUM_STAGES + 1)}
"""For a run of k cards: the card ids of stages 1..k of every character (one row per character)."""


CARD_ACTIONS = NUM_CARDS
"""Actions below this lay one card; from it up to ``DESTINATION_BASE``, a stage run."""


class CardPowers:
    """What the baselines judge lays by, from one card data: ``power`` (float64[100], per card id),
    ``lay_power`` (per lay action: the power of its cards), ``power_points`` (float64[14], per power
    card), all read-only, and ``swings`` (the heuristic's power swings per discard pile, kept).
    Built by :func:`card_powers`, which shares one per distinct card data."""

    __slots__ = ("lay_power", "power", "power_points", "swings")

    def __init__(self, power: np.ndarray, power_points: np.ndarray) -> None:
        self.power = power
        self.lay_power = np.array([power[c].sum() for c in LAY_CARDS])
        self.power_points = power_points
        for a in (self.power, self.lay_power, self.power_points):
            a.flags.writeable = False
        self.swings: dict[bytes, tuple[np.ndarray, np.ndarray]] = {}
        """``_swing`` per discard pile (its bytes): the arrays are shared, and marked read-only."""


_POWERS: dict[tuple[bytes, bytes], CardPowers] = {}
"""One ``CardPowers`` per distinct card data (its powers' bytes): agents on the same cards share it."""
MAX_KEPT_DESIGNS = 64


def card_powers(cards: Any = None) -> CardPowers:
    """The powers of ``cards``: None (the packaged cards), a path to a card file (what
    ``fifth_earth_v0.env(cards=...)`` takes) or a ``FifthEarthCards``. CardDataError names what is
    wrong when the data does not fit the game (25 characters x 4 stages, 14 power cards)."""
    if cards is None:
        cards = DEFAULT_CARDS
    elif isinstance(cards, (str, os.PathLike)):
        cards = load_cards(cards)
    elif not isinstance(cards, FifthEarthCards):
        raise CardDataError(f"a Fifth-Earth baseline's cards must be None (the packaged cards), a path to a card file "
                            f"or a FifthEarthCards (fight_envs.games.fifth_earth.cards), got {type(cards).__name__}")
    shapes = {"stage_power": ((NUM_CHARACTERS, NUM_STAGES), f"{NUM_CHARACTERS} characters x {NUM_STAGES} stages"),
              "power_modifiers": ((NUM_POWER_CARDS,), f"{NUM_POWER_CARDS} power cards")}
    arrays = []
    for field, (shape, what) in shapes.items():
        value = np.asarray(getattr(cards, field))
        if value.shape != shape or value.dtype.kind not in "iuf" or not np.isfinite(value).all():
            raise CardDataError(f"a Fifth-Earth baseline's cards: {field} must hold {what} (finite numbers, shape "
                                f"{shape}), got shape {value.shape} of {value.dtype}")
        arrays.append(value.astype(np.float64).reshape(-1))
    key = (arrays[0].tobytes(), arrays[1].tobytes())
    hit = _POWERS.get(key)
    if hit is None:
        if len(_POWERS) >= MAX_KEPT_DESIGNS:
            _POWERS.clear()
        hit = _POWERS[key] = CardPowers(*arrays)
    return hit


PACKAGED = card_powers()
POWER = PACKAGED.power
"""The packaged cards' power per card id (read-only; an agent judges by its own ``powers``)."""
LAY_POWER = PACKAGED.lay_power
"""The packaged cards' power per lay action (read-only)."""
POWER_POINTS = PACKAGED.power_points
"""The points of the 14 packaged power cards (by power-card id; read-only)."""


def env_cards(env: Any) -> FifthEarthCards:
    """The card data of Fifth-Earth ``env`` (``env.unwrapped.cards``); TypeError for any other env."""
    game_env = getattr(env, "unwrapped", env)
    cards = getattr(game_env, "cards", None)
    if not isinstance(cards, FifthEarthCards):
        raise TypeError(f"a Fifth-Earth baseline plays Fifth-Earth envs; {type(game_env).__name__} has no Fifth-Earth "
                        "card data (env.unwrapped.cards)")
    return cards


class CardJudge(Agent):
    """A Fifth-Earth baseline that judges lays by card powers (``self.powers``, see the module docstring)."""

    game = GAME

    def __init__(self, seed: int | None = None, cards: Any = None) -> None:
        super().__init__(seed)
        self.powers = card_powers(cards)

    def bind_rules(self, env: Any) -> None:
        """Judge by the card data of ``env`` (public rules)."""
        self.powers = card_powers(env_cards(env))


def _in_play(obs: np.ndarray) -> np.ndarray:
    """bool[100]: the cards of the characters in play this destination (every card where the observation has no such block)."""
    if "in_play" in OBS_SLICES:
        return obs[OBS_SLICES["in_play"]] > 0.5
    return np.ones(NUM_CARDS, dtype=bool)


def _player(obs: np.ndarray, offset: int, name: str) -> np.ndarray:
    s = PLAYER_SLICES[name]
    base = PLAYERS_START + offset * PLAYER_SIZE
    return obs[base + s.start:base + s.stop]


class HeuristicAgent(CardJudge):
    """Wins surely where it can, throws its weakest card where it cannot win, and otherwise weighs
    the attrition of a battle: what a lay risks against what a win brings back.

    Decisions, from the observation vector and the mask alone (no memory), in order:

    1. **A sure win**: a lay that beats every lay the others in the battle have made or could
       answer with (cards alone, power cards aside; a tie goes to the first layer): the cheapest
       such lay (fewest cards, then least power), as ``cheapest_beat`` does, but reading more of
       the table: resting characters cannot answer (unless everything the player holds rests).
    2. Otherwise each legal lay gets ``P(win) x win value + P(lose) x lose value``:

       * **win value**: the cards won (``deposit_value`` each: under the standard rules they go to
         my first-use pile, back in hand only later) plus ``power_weight`` x their power, plus
         the rest-pile cards this win picks up now (the observation's ``rest`` block says which),
         minus ``rest_cost`` per card of mine that goes to rest; ``out_value`` more if the loser
         is left without cards (out of the battle), ``out_value`` less if the win leaves me with
         an empty hand;
       * **lose value**: minus the cards laid and ``power_weight`` x their power (the winner
         takes them), minus ``out_value`` if they were my last.

       Option ``rest_power`` (default 0) charges a win ``rest_power`` x the power of the cards I
       win with (they rest four fights and come back only with a later win), so the cheapest
       card that likely wins is laid rather than the surest: measured in the table below.

    ``P(win)`` reads the table: the revealed cards known to be in a hand (``known_hand``) count
    once each, the rest of a hand is a uniform draw from the *unseen* cards (in play, never
    revealed, not mine). **Answering** a lay of ``k`` cards: ``k >= 2`` is a run of stages 1..k
    of a character it could hold; one card is, with weight ``weak_prior``, the weakest card of
    its hand (a first layer that cannot win surely throws its weakest), with weight
    ``strong_prior`` its strongest (it bids), and otherwise any card of it (the chances of the
    weakest and the strongest counted exactly, hypergeometric). The weights follow the layer's
    **style**, read from its last lay (public, in the observation; ``read_style``): a single card
    of stage 1 or 2 that lost its fight was thrown, so its single now is its weakest (weights 1
    and 0); a single of stage 3 or 4 that lost was a bid (0.2 and 0.6); a fight it won or a run
    says nothing. Both totals then move by the power cards a double draws (``power_cards``: one
    in six each, drawn from the cards not in the public discard pile). **Laying first**: against
    a thrower (read the same way), my weakest single, since a thrower beats only what it surely
    beats; otherwise the answer beats me if it can (the chance it holds a beating single,
    counted exactly, or run), and otherwise throws about one weak card. Ties go to the first
    layer (``ties="first"``); construct the agent with ``ties="rolloff"`` for that option (a match
    is then worth half). **Challenging**: the player leading the tally (most destinations), then
    the one with fewest cards. **Destination**: the first offered (trophies only; the standard
    rules do not ask).

    Every power above is the card data's (``cards=``, or the env's through ``bind_rules``: the
    module docstring); the figures below are the packaged cards'.

    Measured strength of v5 (standard rules, the whole campaign of 25 destinations; duplicate
    deals, every seating, win rate = 1 per sole win, 1/k per shared win; 95% normal interval over
    per-deal means). The 2-player rows are ``evaluate(lambda: fifth_earth_v0.env(),
    [make_agent("heuristic", "fifth_earth", 1), make_agent(other, "fifth_earth", 2)], num_deals,
    seed=2026)`` (``fight_envs.agents.evaluate``), the others the same with ``num_players=n`` and
    ``n - 1`` random agents (played on the engine with the same deals and agent seeds, which gives
    the same games: ``python benchmarks/fifth_earth_tables.py --players N --deals 300`` and
    ``--players 2 --deals 1000 --opponent OTHER``):

    =========================== ===================== ======= ==============================
    against                     win rate              games   note
    =========================== ===================== ======= ==============================
    ``strongest_single``        0.869 [0.854, 0.884]  2,000   23.2% of deals split
    ``cheapest_beat``           0.746 [0.726, 0.765]  2,000   target 0.58
    2 random (3 players)        0.728 [0.701, 0.755]  900     even share 0.33
    3 random (4 players)        0.711 [0.686, 0.735]  1,200   even share 0.25
    4 random (5 players)        0.614 [0.592, 0.636]  1,500   even share 0.20
    5 random (6 players)        0.604 [0.583, 0.625]  1,800   even share 0.17
    =========================== ===================== ======= ==============================

    Over five destinations (``num_destinations=5``, the standard default until 2026-12-02): 0.703
    [0.684, 0.722] against ``strongest_single`` (46.4% split), 0.624 [0.604, 0.644] against
    ``cheapest_beat``, and 0.528, 0.466, 0.389, 0.324 against random play at 3 to 6 players. Its
    battle win rate against random players is about 0.60 at every count: what the longer
    campaign adds is fewer deals decided by luck (``seeds/fifth_earth.md`` section 8).

    Options below were measured over five destinations.
    With ``rest_power=0.15``: 0.741 [0.722, 0.759] against ``strongest_single`` (41.9% split),
    0.660 [0.640, 0.680] against ``cheapest_beat`` (2,000 games each), but 0.404 [0.318, 0.491]
    and 0.388 [0.331, 0.444] against random play at 3 and 4 players, so it is not the default.
    Option ``keep_runs`` (default 0) charges a single that breaks a stage-1-and-2 pair I hold
    (the thrown card too, when laying first against a thrower): at 1.0 the lay decisions offering
    a run rise from 27.9% to 34.1% against ``strongest_single`` and from 18.3% to 25.4% against
    ``cheapest_beat``, and it scores 0.697 and 0.592 against 0.700 and 0.628 (300 deals each), so
    it is not the default either.

    History. v5 (this) adds to v4 the style read from the last lay (v4 took every single laid
    first as its layer's weakest card with weight 0.8 and otherwise uniform; its answers were
    worse than random ones in self-play, on the ladder of 2026-12-01, since regenerated), the power cards in
    ``P(win)``, the weakest single laid first against a thrower, and the ``rest_power`` option;
    v4 scored 0.715 [0.696, 0.733] against ``strongest_single``, 0.570 [0.549, 0.590] against
    ``cheapest_beat`` and 0.488, 0.450, 0.358, 0.337 against random play at 3 to 6 players on
    the same deals. v4 is written for the standard rules (seeds/fifth_earth.md section 8),
    where won cards rest: v3's exchange (``P(win) x (cards won + 2 x power won) - P(lose) x
    (cards laid + 2 x power laid)``, the answer a uniform card of the hand) scored 0.165 against
    ``cheapest_beat`` and 0.57 against ``strongest_single`` with 4 characters in play (100
    deals, 3 destinations); its reading of the resting characters, the sure-win rule, the
    weakest-card prior and the attrition values brought that to the figures above. Under the
    classic rules v3 measured 0.694 [0.668, 0.720] against random at 2 players, 0.580 at 3,
    0.600 at 4, 0.527 at 5, 0.524 at 6 (seed 2026); v2 and v1 are described in the git history.
    """

    name = "heuristic"
    version = 5

    def __init__(self, seed: int | None = None, power_weight: float = 0.5, ties: str = "first",
                 rest_cost: float = 0.5, thrown_power: float = 2.0, weak_prior: float = 0.6,
                 strong_prior: float = 0.2, read_style: bool = True, power_cards: bool = True,
                 deposit_value: float = 0.1, out_value: float = 6.0, rest_power: float = 0.0,
                 keep_runs: float = 0.0, cards: Any = None) -> None:
        super().__init__(seed, cards)
        if ties not in TIES:
            raise ValueError(f"ties must be one of {TIES} (the game's option), got {ties!r}")
        if weak_prior < 0 or strong_prior < 0 or weak_prior + strong_prior > 1:
            raise ValueError(f"weak_prior and strong_prior must be >= 0 and sum to at most 1, got {weak_prior}, {strong_prior}")
        self.power_weight = float(power_weight)
        self.rest_cost = float(rest_cost)
        self.thrown_power = float(thrown_power)
        self.weak_prior = float(weak_prior)
        self.strong_prior = float(strong_prior)
        self.read_style = bool(read_style)
        self.power_cards = bool(power_cards)
        self.rest_power = float(rest_power)
        self.keep_runs = float(keep_runs)
        self.deposit_value = float(deposit_value)
        self.out_value = float(out_value)
        # The observation does not carry the ties option, so the agent is told it.
        self.ties = ties

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        legal = np.flatnonzero(action_mask)
        if legal.size == 0:
            raise ValueError("no legal action: the action mask is all zeros")
        obs = np.asarray(observation)
        if legal[0] >= CHALLENGE_BASE:
            # The player leading the tally (most destinations won), then the one with fewest cards.
            def key(a: int) -> tuple[float, float]:
                k = int(a) - CHALLENGE_BASE + 1
                return (-float(_player(obs, k, "destinations_won")[0]), float(_player(obs, k, "hand_size")[0]))
            return int(min(legal, key=key))
        if legal[0] >= DESTINATION_BASE:
            return int(legal[0])
        return self._lay(obs, legal[legal < DESTINATION_BASE])

    def _opponent(self, obs: np.ndarray, offset: int, unseen: np.ndarray) -> tuple[np.ndarray, np.ndarray, float, float]:
        """(powers, weights summing to 1, cards at stake, my share of a tie) of the lay of the player ``offset`` seats on.

        Equal totals go to whoever laid first (gap 3): mine if it has not laid yet; a roll-off
        (``ties="rolloff"``) is an even chance."""
        if self.ties == "rolloff":
            tie = 0.5
        else:
            tie = 0.0 if _player(obs, offset, "has_laid")[0] else 1.0
        known = np.flatnonzero(_player(obs, offset, "known_hand") > 0.5)
        hand = round(float(_player(obs, offset, "hand_size")[0]) * COUNT_SCALE)
        laid = round(float(_player(obs, offset, "laid_count")[0]) * NUM_STAGES)
        if _player(obs, offset, "has_laid")[0] and laid >= 2:
            # A run of `laid` stages of one character, each card unseen or known to be in its hand
            # (known_hand still counts the cards it laid until the reveal).
            power = self.powers.power
            runs = RUN_CARDS[laid]
            held = unseen | (_player(obs, offset, "known_hand") > 0.5)
            possible = held[runs].all(axis=1)
            totals = power[runs].sum(axis=1)[possible] if possible.any() else power[runs].sum(axis=1)
            return totals, np.full(totals.size, 1.0 / totals.size), float(laid), tie
        # One card (laid, or about to be laid in answer) from its hand as it was before laying.
        power = self.powers.power
        size = hand + (1 if _player(obs, offset, "has_laid")[0] else 0)
        pool = np.flatnonzero(unseen)
        unknown = max(size - known.size, 0)
        values = np.concatenate([power[known], power[pool]])
        weights = np.concatenate([np.ones(known.size), np.full(pool.size, unknown / max(pool.size, 1))])
        if weights.sum() <= 0:
            return np.zeros(1), np.ones(1), 1.0, tie
        weights = weights / weights.sum()
        w_min, w_max = self._priors(obs, offset)
        if w_min + w_max > 0 and _player(obs, offset, "has_laid")[0]:
            # A first layer that cannot be sure to win lays with a purpose: mix the chance of each
            # power being the weakest (a thrower) or the strongest (a bidder) in its hand into the
            # uniform one, with the weights its style suggests.
            distinct = np.unique(values)
            u = min(unknown, pool.size)
            kmin = power[known].min() if known.size else np.inf
            kmax = power[known].max() if known.size else -np.inf
            at_least = np.array([(kmin >= t) * _none_drawn(pool.size, int((power[pool] < t).sum()), u)
                                 for t in distinct] + [0.0])
            at_most = np.array([0.0] + [(kmax <= t) * _none_drawn(pool.size, int((power[pool] > t).sum()), u)
                                        for t in distinct])
            weakest, strongest = at_least[:-1] - at_least[1:], at_most[1:] - at_most[:-1]
            uniform = np.array([weights[values == t].sum() for t in distinct])
            mixed = (1 - w_min - w_max) * uniform
            if weakest.sum() > 0:
                mixed = mixed + w_min * weakest / weakest.sum()
            if strongest.sum() > 0:
                mixed = mixed + w_max * strongest / strongest.sum()
            if mixed.sum() > 0:
                return distinct, mixed / mixed.sum(), 1.0, tie
        return values, weights, 1.0, tie

    def _style(self, obs: np.ndarray, offset: int) -> str | None:
        """What the last lay of the player ``offset`` seats on says of it (public: every lay is revealed).

        A single card that lost its fight: of stage 1 or 2 it was thrown (``"thrower"``: it lays its
        weakest card when it cannot win), of stage 3 or 4 it was a bid that failed (``"bidder"``: it
        lays strong cards). A fight it won, or a run, says little (a sure beat can be anything)."""
        stages = _player(obs, offset, "last_stages") > 0.5
        if int(stages.sum()) != 1 or _player(obs, offset, "last_won")[0] > 0.5:
            return None
        return "thrower" if int(np.argmax(stages)) < 2 else "bidder"

    def _priors(self, obs: np.ndarray, offset: int) -> tuple[float, float]:
        """(weight of its weakest card, weight of its strongest) in the single card it laid first."""
        style = self._style(obs, offset) if self.read_style else None
        if style == "thrower":
            return 1.0, 0.0
        if style == "bidder":
            return 0.2, 0.6
        return self.weak_prior, self.strong_prior

    def _power_swing(self, obs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(values, chances) of my power-card points minus one opponent's in this fight.

        Each player draws a card on a double (1 in 6), from the deck: the power cards not in the
        public discard pile (all 14 when it has just been reshuffled)."""
        if not self.power_cards:
            return np.zeros(1), np.ones(1)
        discarded = obs[OBS_SLICES["power"]][1:] > 0.5
        key = discarded.tobytes()
        swings = self.powers.swings
        hit = swings.get(key)
        if hit is None:
            if len(swings) > 4096:
                swings.clear()
            hit = swings[key] = _swing(discarded, self.powers.power_points)
        return hit

    def _sure(self, obs: np.ndarray, rivals: list[int], laid: dict, unseen: np.ndarray, x: float,
              answers: dict[int, _Answers] | None = None) -> bool:
        """Does a lay of power ``x`` beat every lay the rivals have made or can answer with (cards alone)?"""
        for r in rivals:
            if r in laid:
                values, weights, _, tie = laid[r]
                if (weights[values >= x] > 0).any() and not (tie == 1.0 and (weights[values > x] == 0).all()):
                    return False
            elif self._beat_chance(obs, r, unseen, x, answers) > 0:
                return False
        return True

    def _beat_chance(self, obs: np.ndarray, offset: int, unseen: np.ndarray, x: float,
                     answers: dict[int, _Answers] | None = None) -> float:
        """Chance that the player ``offset`` seats on, yet to lay, holds an answer beating a lay of power ``x``.

        Its hand: the revealed cards known to be in it, the rest a uniform draw from the unseen
        cards (singles counted exactly, hypergeometric; runs as independent events). Resting
        characters cannot answer. An answer must exceed ``x`` (ties go to the first layer);
        under ``ties="rolloff"`` a match counts half. ``answers``: the tables of this decision
        (``_Answers``, per player; built here when missing), which do not depend on ``x``."""
        table = None if answers is None else answers.get(offset)
        if table is None:
            table = _Answers(obs, offset, unseen, self.ties == "rolloff", self.powers.power)
            if answers is not None:
                answers[offset] = table
        return table.beat(x)

    def _breaks_run(self, obs: np.ndarray) -> np.ndarray:
        """bool[DESTINATION_BASE]: single lays of a stage-1 or stage-2 card of a character whose stages 1 and 2 I hold."""
        out = np.zeros(DESTINATION_BASE, dtype=bool)
        if self.keep_runs:
            grid = obs[OBS_SLICES["hand"]].reshape(NUM_CHARACTERS, NUM_STAGES) > 0.5
            pair = np.flatnonzero(grid[:, 0] & grid[:, 1])
            out[4 * pair] = True
            out[4 * pair + 1] = True
        return out

    def _lay(self, obs: np.ndarray, lays: np.ndarray) -> int:
        mine = (obs[OBS_SLICES["hand"]] + obs[OBS_SLICES["rest"]] + obs[OBS_SLICES["spoils"]]) > 0
        unseen = (obs[OBS_SLICES["revealed"]] < 0.5) & ~mine & _in_play(obs)
        rivals = [k for k in range(1, MAX_PLAYERS) if _player(obs, k, "in_battle")[0]]
        laid = {k: self._opponent(obs, k, unseen) for k in rivals if _player(obs, k, "has_laid")[0]}
        lam, rest_cost = self.power_weight, self.rest_cost
        lay_power = self.powers.lay_power
        # A lay that wins whatever the others hold (or laid): the cheapest of them, as cheapest_beat.
        answers: dict[int, _Answers] = {}  # the rivals yet to lay: their answer tables, built once per decision
        sure = [a for a in lays if self._sure(obs, rivals, laid, unseen, lay_power[a], answers)]
        if sure:
            return int(min(sure, key=lambda a: (LAY_COUNT[a], lay_power[a], a)))
        breaks = self._breaks_run(obs)
        if not laid and len(rivals) == 1 and self.read_style and self._style(obs, rivals[0]) == "thrower":
            # Laying first against a thrower: it beats only what it surely beats, else throws its
            # weakest card, so my weakest single loses least when beaten and wins as well as any.
            singles = lays[lays < CARD_ACTIONS]
            pick = singles if singles.size else lays
            # (with keep_runs, a single that keeps my stage-1-and-2 pairs whole comes first)
            return int(min(pick, key=lambda a: (bool(breaks[a]), lay_power[a], a)))
        swing, swing_p = self._power_swing(obs)
        best, choice = -np.inf, int(lays[0])
        hand = float(obs[OBS_SLICES["hand"]].sum())
        rest = obs[OBS_SLICES["rest"]]
        pickup = float((rest > 0.75).sum())  # rest-pile cards a win now picks up
        deposit = self.deposit_value
        opp_left = {r: round(float(_player(obs, r, "hand_size")[0]) * COUNT_SCALE) for r in rivals}
        # Fewest cards first, then the weakest: on equal value the cheaper lay is kept.
        for a in sorted(lays, key=lambda a: (LAY_COUNT[a], lay_power[a])):
            x, k = lay_power[a], LAY_COUNT[a]
            p_win, gain = 1.0, 0.0
            for r in rivals:
                if r in laid:
                    values, weights, stake, tie = laid[r]
                    # Power cards move both totals: P(x + my points - its points beats its power).
                    margin = x - values[:, None] + swing[None, :]
                    beaten = weights * (((margin > 0) + tie * (margin == 0)) @ swing_p)
                    p = float(beaten.sum())
                    gain += deposit * stake + lam * float(beaten @ values) / p if p > 0 else 0.0
                    left = opp_left[r]
                else:
                    # Yet to answer: it beats me if it can (a sensible answerer does), else it
                    # throws its weakest card, about one card of little power.
                    p = 1.0 - self._beat_chance(obs, r, unseen, x, answers)
                    gain += deposit + lam * self.thrown_power
                    left = opp_left[r] - 1
                if left <= 0:
                    gain += self.out_value  # it loses its last cards: out of the battle
                p_win *= p
            # A win picks up the rest pile's eligible cards and rests the cards laid; a loss hands
            # them over. Ending a fight with an empty hand loses the battle.
            after_win = hand - k + pickup
            win_value = gain + pickup - rest_cost * k - self.rest_power * x - (self.out_value if after_win <= 0 else 0.0)
            lose_value = -(k + lam * x) - (self.out_value if hand - k <= 0 else 0.0)
            value = p_win * win_value + (1.0 - p_win) * lose_value - (self.keep_runs if breaks[a] else 0.0)
            if value > best + 1e-9:
                best, choice = value, int(a)
        return choice


class _Miss:
    """What the chance that a rival cannot beat a lay reads that does not depend on the power ``x`` (the chance
    of each card, and of each run of 2 to 4 stages, being in the hand), kept for the lays of one
    decision; ``miss(x)`` computes the same expressions, in the same order, as reading them afresh."""

    __slots__ = ("half", "known_top", "m", "p_card", "power", "runs", "u", "unseen_powers")

    def __init__(self, known: np.ndarray, unseen: np.ndarray, m: int, u: int, resting: np.ndarray, half: bool,
                 power: np.ndarray) -> None:
        self.m, self.u, self.half, self.power = m, u, half, power
        awake = ~resting
        self.p_card = np.where(known, 1.0, np.where(unseen, u / max(m, 1), 0.0)) * awake
        kp = power[known & awake]
        self.known_top = float(kp.max()) if kp.size else -np.inf
        self.unseen_powers = power[unseen & awake]
        self.runs = [(self.p_card[RUN_CARDS[k]].prod(axis=1), power[RUN_CARDS[k]].sum(axis=1))
                     for k in range(2, NUM_STAGES + 1)]

    def miss(self, x: float) -> float:
        if self.known_top > x:  # a card known to be in the hand beats it
            return 0.0
        miss = _none_drawn(self.m, int((self.unseen_powers > x).sum()), self.u)
        if self.half:
            miss *= float(np.prod(1 - 0.5 * self.p_card[self.power == x]))
        for rp, total in self.runs:
            miss *= float(np.prod(1 - rp[total > x]))
            if self.half:
                miss *= float(np.prod(1 - 0.5 * rp[total == x]))
        return miss


class _Answers:
    """``HeuristicAgent._beat_chance``'s reading of one player yet to lay (its known cards, hand size and
    resting characters, and the chance that every character it holds rests), with the ``_Miss``
    tables of both cases, for every lay power of one decision."""

    __slots__ = ("all_rest", "awake", "beats", "rested")

    def __init__(self, obs: np.ndarray, offset: int, unseen: np.ndarray, half: bool, power: np.ndarray) -> None:
        known = _player(obs, offset, "known_hand") > 0.5
        hand = round(float(_player(obs, offset, "hand_size")[0]) * COUNT_SCALE)
        resting = np.repeat(_player(obs, offset, "resting") > 0, NUM_STAGES)
        m = int(unseen.sum())
        u = min(max(hand - int(known.sum()), 0), m)
        # Resting characters cannot answer, unless every character it holds rests ("the only option
        # left"): the chance of that weighs the two cases.
        if (known & ~resting).any():
            self.all_rest = 0.0
        else:
            self.all_rest = _none_drawn(m, int((unseen & ~resting).sum()), u)
        self.awake = _Miss(known, unseen, m, u, resting, half, power)
        self.rested = _Miss(known, unseen, m, u, np.zeros(NUM_CARDS, dtype=bool), half, power) if self.all_rest > 0 else None
        self.beats: dict[float, float] = {}  # per power: the sure-win test and the lay values ask the same

    def beat(self, x: float) -> float:
        hit = self.beats.get(x)
        if hit is not None:
            return hit
        miss = (1.0 - self.all_rest) * self.awake.miss(x)
        if self.rested is not None:
            miss += self.all_rest * self.rested.miss(x)
        self.beats[x] = 1.0 - miss
        return 1.0 - miss


def _swing(discarded: np.ndarray, points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``HeuristicAgent._power_swing``'s (values, chances) for the power cards ``discarded`` (bool[14]) of ``points``."""
    deck = points[~discarded] if (~discarded).any() else points
    q = 1.0 / 6.0
    points = np.concatenate([[0.0], deck])
    chance = np.concatenate([[1.0 - q], np.full(deck.size, q / deck.size)])
    diff = (points[:, None] - points[None, :]).ravel()
    weight = (chance[:, None] * chance[None, :]).ravel()
    values = np.unique(diff)
    chances = np.array([weight[diff == v].sum() for v in values])
    values.flags.writeable = False
    chances.flags.writeable = False
    return values, chances


@functools.lru_cache(maxsize=65536)
def _none_drawn(m: int, a: int, u: int) -> float:
    """Chance that ``u`` cards drawn without replacement from ``m`` miss all ``a`` marked ones: C(m - a, u) / C(m, u)."""
    p = 1.0
    for i in range(u):
        p *= max(m - a - i, 0) / (m - i)
    return p


def _non_lay(legal: np.ndarray) -> int | None:
    """The one-line agents' answer to a decision that is not a lay: the first legal action (None for a lay)."""
    return int(legal[0]) if legal[0] >= DESTINATION_BASE else None


class StrongestSingleAgent(CardJudge):
    """One line: always lay my strongest single card (the lowest id among equals); never a run.

    Other decisions (a destination, whom to challenge) take the first legal action. The
    reference for "the deal decides": it plays no exchange, no count and no timing.
    """

    name = "strongest_single"
    version = 1

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        legal = np.flatnonzero(action_mask)
        if legal.size == 0:
            raise ValueError("no legal action: the action mask is all zeros")
        other = _non_lay(legal)
        if other is not None:
            return other
        singles = legal[legal < CARD_ACTIONS]
        lays = singles if singles.size else legal[legal < DESTINATION_BASE]
        return int(lays[np.argmax(self.powers.lay_power[lays])])


class CheapestBeatAgent(CardJudge):
    """One line: lay the cheapest lay that surely beats, else throw my weakest single card.

    "Surely beats" counts cards only (power cards aside) and reads the observation as the
    heuristic does: every opponent in the battle could hold its revealed cards in hand
    (``known_hand``) and any unseen card (in play, never revealed, not mine). Answering a lay of
    ``k`` cards, the strongest it can be is the strongest run of ``k`` stages (one card: the
    strongest card) it could hold; laying first, the strongest answer is its strongest single
    card or run. A lay surely beats when its power exceeds that (equals it, when a tie goes to
    me: I laid first under ``ties="first"``). "Cheapest" is fewest cards, then least power.
    When nothing surely beats, it throws its weakest single card, losing as little as it can.
    Other decisions take the first legal action.
    """

    name = "cheapest_beat"
    version = 1

    def __init__(self, seed: int | None = None, ties: str = "first", cards: Any = None) -> None:
        super().__init__(seed, cards)
        if ties not in TIES:
            raise ValueError(f"ties must be one of {TIES} (the game's option), got {ties!r}")
        self.ties = ties

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        legal = np.flatnonzero(action_mask)
        if legal.size == 0:
            raise ValueError("no legal action: the action mask is all zeros")
        other = _non_lay(legal)
        if other is not None:
            return other
        obs = np.asarray(observation)
        lays = legal[legal < DESTINATION_BASE]
        mine = (obs[OBS_SLICES["hand"]] + obs[OBS_SLICES["rest"]] + obs[OBS_SLICES["spoils"]]) > 0
        unseen = (obs[OBS_SLICES["revealed"]] < 0.5) & ~mine & _in_play(obs)
        power, lay_power = self.powers.power, self.powers.lay_power
        threat = 0.0
        first = True
        for k in range(1, MAX_PLAYERS):
            if not _player(obs, k, "in_battle")[0]:
                continue
            could = unseen | (_player(obs, k, "known_hand") > 0.5)
            if _player(obs, k, "has_laid")[0]:
                first = False
                laid = round(float(_player(obs, k, "laid_count")[0]) * NUM_STAGES)
                threat = max(threat, _strongest(could, laid, power))
            else:
                threat = max(threat, max(_strongest(could, m, power) for m in range(1, NUM_STAGES + 1)))
        wins_tie = first and self.ties == "first"
        sure = lays[(lay_power[lays] >= threat) if wins_tie else (lay_power[lays] > threat)]
        if sure.size:
            return int(min(sure, key=lambda a: (LAY_COUNT[a], lay_power[a], a)))
        singles = lays[lays < CARD_ACTIONS]
        pick = singles if singles.size else lays
        return int(min(pick, key=lambda a: (lay_power[a], a)))


def _strongest(could: np.ndarray, count: int, power: np.ndarray) -> float:
    """The strongest lay of ``count`` cards (of powers ``power``) from the cards marked in ``could`` (0 when none)."""
    if count == 1:
        return float(power[could].max()) if could.any() else 0.0
    runs = RUN_CARDS[count]
    ok = could[runs].all(axis=1)
    return float(power[runs].sum(axis=1)[ok].max()) if ok.any() else 0.0


def baselines() -> dict[str, type[Agent]]:
    """The game's baseline agents by name."""
    return {"random": RandomAgent, "heuristic": HeuristicAgent, "strongest_single": StrongestSingleAgent,
            "cheapest_beat": CheapestBeatAgent}


__all__ = ["GAME", "CardJudge", "CardPowers", "CheapestBeatAgent", "HeuristicAgent", "RandomAgent", "StrongestSingleAgent", "baselines", "card_powers"]
