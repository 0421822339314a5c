"""Scripted Fight 5 baselines and the observation view they share.

Every agent here acts from the observation vector and the action mask alone, exactly as a
trained policy does; :class:`Fight5View` decodes the vector (layout: the docstring of
``fight_envs.games.fight5.observe``) into named, integer-valued fields.

Agents: ``random`` (uniform legal, :class:`fight_envs.agents.base.RandomAgent`), ``greedy``
(:class:`GreedyAgent`, one-ply) and ``heuristic`` (:class:`HeuristicAgent`, plans each round's
five placements against the opponents' public remaining cards).

Batches (self-play rollouts on the batched engine): ``GreedyAgent.act_batch`` decodes what it
needs from all rows at once; ``HeuristicAgent.act_group`` acts for many heuristic instances (one
per game, each with its own round plan) in one call, planning every row at slot 0 together
(``round_gains``, bit for bit the per-row ``clash_values``). Both choose exactly the action the
per-row ``act`` chooses (``tests/agents/test_fight5_batched_baselines.py``).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from fight_envs.agents.base import Agent, RandomAgent
from fight_envs.games.fight5.cards import DEFAULT_CARDS, NUM_RANKS, RANK_NAMES, RANK_VALUES, STAR
from fight_envs.games.fight5.observe import CLASH_FEATURES, CLASH_SLICES, MAX_CLASHES, NONE_COLUMN, OBS_SIZE, OBS_SLICES
from fight_envs.games.fight5.rules import MAX_PLAYERS, MIN_PLAYERS, NO_CARD
from fight_envs.games.fight5.topology import SLOTS_PER_PLAYER

GAME = "fight5"
POINTS_PER_RANK = DEFAULT_CARDS.points_per_rank()
"""Points a card of each rank is worth in a Point Pile (standard card data)."""
MULTI_OPPONENT_WEIGHT = 0.1
"""With 3+ players, how much a point taken by one opponent counts against a point I take. Tuned
in self-play: at 3 players weights 0.0-0.2 won 0.37 of games against two copies at 0.5 (0.33 is
even); at 5 players the choice between 0.0 and 0.25 made no measurable difference."""


def _counts(values: np.ndarray, scale: float) -> np.ndarray:
    """Undo the encoder's division by ``scale``: features are exact small integers over it."""
    return np.rint(np.asarray(values, dtype=np.float64) * scale).astype(np.int64)


def _onehot_rank(rows: np.ndarray) -> np.ndarray:
    """Rank per row of a 14-column card one-hot (the last column, or all zeros, means no card)."""
    ranks = rows.argmax(axis=-1)
    empty = (rows.max(axis=-1) <= 0) | (ranks == NONE_COLUMN)
    return np.where(empty, NO_CARD, ranks).astype(np.int64)


@dataclass(frozen=True)
class Fight5View:
    """One Fight 5 observation, decoded. Seats are relative: 0 is me, 1 my left neighbour, ...

    Per-clash fields cover every real clash in the observer's block order, so index ``k < 5`` is
    the clash of my slot ``k`` (right-a, right-b, middle, left-a, left-b).
    """

    num_players: int
    slot: int
    """The slot I fill now (0..4), or -1 when I am not acting."""
    hand: np.ndarray
    """(13,) my cards in hand not yet placed, count per rank."""
    placed: np.ndarray
    """(5,) rank I placed in each slot this round, -1 where still empty."""
    clash_card: np.ndarray
    """(C,) rank of each clash's face-up Clash Card, -1 where none."""
    stack_left: np.ndarray
    """(C,) face-down cards left in each clash stack."""
    pot: np.ndarray
    """(C, 13) cards left in play at each clash from earlier ties, count per rank."""
    sharers: np.ndarray
    """(C, n) bool: which relative seats share each clash."""
    last_plays: np.ndarray
    """(C, n) rank each relative seat revealed there last round, -1 if none."""
    unrevealed: np.ndarray
    """(n, 13) per relative seat: its deck's cards not revealed this bout (hand and face-down
    placements included), count per rank. Public: decks are all alike."""
    pile_cards: np.ndarray
    """(n,) cards in each seat's Point Pile."""
    pile_points: np.ndarray
    """(n,) each Point Pile's worth before the most-cards bonus."""
    score: np.ndarray
    """(n,) score from finished bouts."""
    clash_unseen: np.ndarray
    """(13,) Clash Deck cards not flipped this bout."""
    round: int
    """Round within the bout, 0..4."""
    last_bout: bool
    target_score: int | None

    @classmethod
    def decode(cls, observation: np.ndarray) -> Fight5View:
        obs = np.asarray(observation)
        if obs.shape != (OBS_SIZE,):
            raise ValueError(f"a Fight 5 observation is a vector of {OBS_SIZE} features, got shape {obs.shape}")
        players = obs[OBS_SLICES["num_players"]]
        if players.max() <= 0:
            raise ValueError("not a Fight 5 observation: the num_players one-hot is empty")
        n = int(players.argmax()) + MIN_PLAYERS
        blocks = obs[OBS_SLICES["clashes"]].reshape(MAX_CLASHES, CLASH_FEATURES)
        num_clashes = int(np.count_nonzero(blocks[:, CLASH_SLICES["present"].start] > 0.5))
        blocks = blocks[:num_clashes]
        current = obs[OBS_SLICES["current_slot"]]
        slot = int(current.argmax()) if current.max() > 0.5 else -1
        my_slots = obs[OBS_SLICES["my_slots"]].reshape(SLOTS_PER_PLAYER, NUM_RANKS + 1)
        last = blocks[:, CLASH_SLICES["last_plays"]][:, :n]
        target = float(obs[OBS_SLICES["target_score"]][0])
        return cls(
            num_players=n,
            slot=slot,
            hand=_counts(obs[OBS_SLICES["hand"]], 2),
            placed=_onehot_rank(my_slots),
            clash_card=_onehot_rank(blocks[:, CLASH_SLICES["clash_card"]]),
            stack_left=_counts(blocks[:, CLASH_SLICES["stack_left"]][:, 0], 5),
            pot=_counts(blocks[:, CLASH_SLICES["pot"]], 5),
            sharers=blocks[:, CLASH_SLICES["sharers"]][:, :n] > 0.5,
            last_plays=np.where(last > 0, _counts(last, NUM_RANKS) - 1, NO_CARD),
            unrevealed=_counts(obs[OBS_SLICES["unrevealed"]].reshape(MAX_PLAYERS, NUM_RANKS)[:n], 2),
            pile_cards=_counts(obs[OBS_SLICES["pile_cards"]][:n], 25),
            pile_points=_counts(obs[OBS_SLICES["pile_points"]][:n], 100),
            score=_counts(obs[OBS_SLICES["score"]][:n], 200),
            clash_unseen=_counts(obs[OBS_SLICES["clash_unseen"]], 7),
            round=int(obs[OBS_SLICES["round"]].argmax()),
            last_bout=bool(obs[OBS_SLICES["bout"]][1] > 0.5),
            target_score=int(round(target * 1000)) if target > 0 else None,
        )

    def opponents_at(self, clash: int) -> list[int]:
        """Relative seats other than mine that play at clash block ``clash``."""
        return [int(s) for s in np.flatnonzero(self.sharers[clash]) if s != 0]

    def hand_cards(self) -> list[int]:
        """My hand as a sorted list of ranks, one entry per card."""
        return [r for r in range(NUM_RANKS) for _ in range(int(self.hand[r]))]

    def summary(self) -> str:
        """A few lines a person can play from (used by the human agent)."""

        def cards(counts: np.ndarray) -> str:
            names = [RANK_NAMES[r] for r in range(NUM_RANKS) for _ in range(int(counts[r]))]
            return " ".join(names) if names else "(none)"

        def one(rank: int) -> str:
            return "-" if rank == NO_CARD else RANK_NAMES[rank]

        lines = [
            f"{self.num_players} players, round {self.round + 1}/5" + (" (last bout)" if self.last_bout else ""),
            "scores (me first, then clockwise): " + " ".join(str(int(s)) for s in self.score)
            + " | point piles: " + " ".join(f"{int(c)}c/{int(p)}pt" for c, p in zip(self.pile_cards, self.pile_points)),
            f"my hand: {cards(self.hand)} | placed this round: " + " ".join(one(int(r)) for r in self.placed),
        ]
        for k in range(SLOTS_PER_PLAYER):
            opps = self.opponents_at(k)
            mark = "->" if k == self.slot else "  "
            lines.append(
                f"{mark} slot {k}: clash card {one(int(self.clash_card[k])):>4}, pot {cards(self.pot[k])}; "
                f"against " + ", ".join(f"P+{o}" for o in opps)
            )
        if self.slot >= 0:
            for o in self.opponents_at(self.slot):
                lines.append(f"   P+{o} can still play: {cards(self.unrevealed[o])}")
        return "\n".join(lines)


class GreedyAgent(Agent):
    """One ply: place the smallest card reaching this slot's Clash Card (a Star reaches any), else the smallest."""

    name = "greedy"
    version = 1
    game = GAME

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        legal = np.flatnonzero(action_mask)
        if legal.size == 0:
            raise ValueError("no legal action: the action mask is all zeros")
        view = Fight5View.decode(observation)
        slot = view.slot if view.slot >= 0 else 0
        needed = int(RANK_VALUES[view.clash_card[slot]]) if view.clash_card[slot] != NO_CARD else 0
        numbers = [int(a) for a in legal if a != STAR]
        reaching = [a for a in numbers if RANK_VALUES[a] >= needed]
        if reaching:
            return min(reaching)
        if STAR in legal:
            return STAR
        return min(numbers)

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """``act`` for every row at once: the same rule on arrays decoded from all rows together."""
        obs, legal = _check_batch(observations, action_masks)
        rows = np.arange(obs.shape[0])
        slot = np.maximum(_batch_slots(obs), 0)  # not acting: slot 0, as act does
        cc = _batch_slot_clash_cards(obs)[rows, slot]
        needed = np.where(cc != NO_CARD, RANK_VALUES[cc], 0)  # cc == -1 indexes the Star's 0: masked anyway
        reaching = legal & _NUMBER & (RANK_VALUES[None, :] >= needed[:, None])
        # argmax of a bool row is its first True: the smallest rank index, i.e. the smallest card
        smallest_reaching = reaching.argmax(axis=1)
        smallest_number = (legal & _NUMBER).argmax(axis=1)
        return np.where(
            reaching.any(axis=1), smallest_reaching, np.where(legal[:, STAR], STAR, smallest_number)
        ).astype(np.int64)


def _check_batch(observations: np.ndarray, action_masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Validate a batch as the per-row path would (same errors), returning (obs (B, 627), masks (B, 13) bool)."""
    obs = np.asarray(observations)
    masks = np.asarray(action_masks)
    if obs.ndim != 2 or obs.shape[1] != OBS_SIZE:
        raise ValueError(f"a batch of Fight 5 observations has shape (B, {OBS_SIZE}), got {obs.shape}")
    if masks.shape != (obs.shape[0], NUM_RANKS):
        raise ValueError(f"action masks must have shape ({obs.shape[0]}, {NUM_RANKS}), got {masks.shape}")
    legal = masks != 0
    if not legal.any(axis=1).all():
        raise ValueError("no legal action: the action mask is all zeros")
    if (obs[:, OBS_SLICES["num_players"]].max(axis=1) <= 0).any():
        raise ValueError("not a Fight 5 observation: the num_players one-hot is empty")
    return obs, legal


_CURRENT = OBS_SLICES["current_slot"]
_CLASH_CARD_COLUMNS = (
    OBS_SLICES["clashes"].start
    + CLASH_FEATURES * np.arange(SLOTS_PER_PLAYER)[:, None]
    + CLASH_SLICES["clash_card"].start
    + np.arange(NUM_RANKS + 1)[None, :]
)
"""(5, 14) observation columns of the Clash Card one-hot of each of my five slots' clashes."""
_NUMBER = np.arange(NUM_RANKS) != STAR


def _batch_slots(obs: np.ndarray) -> np.ndarray:
    """(B,) the slot each row fills now, -1 when not acting (``Fight5View.slot``)."""
    current = obs[:, _CURRENT]
    return np.where(current.max(axis=1) > 0.5, current.argmax(axis=1), -1)


def _batch_slot_clash_cards(obs: np.ndarray) -> np.ndarray:
    """(B, 5) rank of the Clash Card at each of my slots' clashes, -1 where none (``Fight5View.clash_card[:5]``)."""
    return _onehot_rank(obs[:, _CLASH_CARD_COLUMNS])


_MY_SLOTS = OBS_SLICES["my_slots"]
_HAND_COLUMNS = OBS_SLICES["hand"]
_SLOT_BLOCKS = slice(OBS_SLICES["clashes"].start, OBS_SLICES["clashes"].start + SLOTS_PER_PLAYER * CLASH_FEATURES)
_UNREVEALED = OBS_SLICES["unrevealed"]
_NUM_PLAYERS = OBS_SLICES["num_players"]


def _product(p: np.ndarray) -> np.ndarray:
    """Product over opponents (axis -2), multiplied in opponent order as ``np.prod`` does."""
    out = p[..., 0, :].copy()
    for m in range(1, p.shape[-2]):
        out = out * p[..., m, :]
    return out


def _stakes(p: np.ndarray, pw: np.ndarray) -> np.ndarray:
    """sum over k of ``pw[k] * prod_{m != k} p[m]`` (opponents on axis -2, in order, from 0.0): the
    expected worth of the opponents' cards when every one is in its event, ``pw[k]`` being
    E[worth of k's card; k in the event]. ``clash_values``' ``all_in`` stake, term by term."""
    J = p.shape[-2]
    stake = np.zeros(p.shape[:-2] + p.shape[-1:])
    for k in range(J):
        others = [m for m in range(J) if m != k]
        stake = stake + pw[..., k, :] * _product(p[..., others, :])
    return stake


def _without(p: np.ndarray, j: int, fill: float) -> np.ndarray:
    """``p`` with opponent ``j`` (axis -2) replaced by the neutral one (``fill``)."""
    q = p.copy()
    q[..., j, :] = fill
    return q


@lru_cache(maxsize=None)
def _permutations(m: int) -> np.ndarray:
    """All orderings of ``m`` items, shape (m!, m)."""
    return np.array(list(itertools.permutations(range(m))), dtype=np.int64).reshape(-1, m)


class HeuristicAgent(Agent):
    """Plans the whole round at slot 0: scores every assignment of the five hand cards to the five
    clashes by expected points won minus points conceded, against opponents who play their
    public remaining cards at random, and follows the plan (re-planning if it no longer fits).

    The value of a clash is its Clash Card, its pot and the played cards (Point Pile points, plus
    ``card_bonus`` per card for the most-cards bonus). An opponent's card at a clash is modelled
    as a uniform draw from its unrevealed cards, so in a bout's last round it is a draw from the
    exact five cards it holds. Points an opponent wins count ``opponent_weight`` as much as mine
    (1 in two-player games, where the game is zero-sum).

    Measured strength of v1 (``fight_envs.agents.evaluate``: duplicate deals, every seat rotation, the
    standard game of 3 bouts / 200 points; win rate = 1 per sole win, 1/k per win shared by k;
    95% normal interval over per-deal means), one heuristic against n-1 copies of a baseline:

    ======= ===================== ===================== ========= ==================
    players vs random             vs greedy             1/n       games per cell
    ======= ===================== ===================== ========= ==================
    2       0.992 [0.989, 0.996]  0.954 [0.945, 0.963]  0.50      2000 (1000 deals)
    3       0.963 [0.953, 0.974]  0.857 [0.839, 0.875]  0.33      1200 (400 deals)
    4       0.943 [0.932, 0.954]  0.788 [0.770, 0.807]  0.25      1600 (400 deals)
    5       0.917 [0.903, 0.930]  0.751 [0.732, 0.769]  0.20      2000 (400 deals)
    ======= ===================== ===================== ========= ==================

    Mean score margin over the others: +104 (vs random) and +85 (vs greedy) points in two-player
    games. Two-player Elo (round robin, 300 deals a pair, random = 1000): greedy 1234 +- 16,
    heuristic 1756 +- 32 (bootstrap s.e.).
    """

    name = "heuristic"
    version = 1
    game = GAME

    def __init__(
        self,
        seed: int | None = None,
        card_bonus: float = 2.0,
        opponent_weight: float | None = None,
    ) -> None:
        super().__init__(seed)
        self.card_bonus = float(card_bonus)
        self.opponent_weight = opponent_weight
        self._plan: list[int] | None = None

    def reset(self) -> None:
        self._plan = None

    # ------------------------------------------------------------------ planning
    def card_values(self) -> np.ndarray:
        """What one card of each rank is worth to whoever wins it."""
        return POINTS_PER_RANK.astype(np.float64) + self.card_bonus

    def clash_values(self, view: Fight5View, clash: int, my_cards: list[int]) -> np.ndarray:
        """Expected gain of playing each of ``my_cards`` at clash block ``clash``.

        Exact under the model (opponents draw independently from their unrevealed cards), in
        closed form: who wins depends only on the stars played and on the highest number, so
        each outcome's probability and expected stake are products over opponents of
        "plays a number below t" terms (no enumeration of the opponents' joint plays).
        """
        worth = self.card_values()
        cc = int(view.clash_card[clash])
        clash_value = int(RANK_VALUES[cc]) if cc != NO_CARD else 0
        base = float(view.pot[clash] @ worth) + (worth[cc] if cc != NO_CARD else 0.0)
        n = view.num_players
        weight = self.opponent_weight
        if weight is None:
            weight = 1.0 if n == 2 else MULTI_OPPONENT_WEIGHT
        rows = [view.unrevealed[o].astype(np.float64) for o in view.opponents_at(clash)]
        probs = np.array([r / r.sum() for r in rows if r.sum() > 0]).reshape(-1, NUM_RANKS)
        J = probs.shape[0]
        star = probs[:, STAR]  # (J,) P(plays the Star)
        numbers = probs.copy()
        numbers[:, STAR] = 0.0
        # below[i, t]: P(opponent i plays a number of rank < t); below_w: the same weighted by worth.
        below = np.concatenate([np.zeros((J, 1)), np.cumsum(numbers, axis=1)], axis=1)[:, :NUM_RANKS]
        below_w = np.concatenate([np.zeros((J, 1)), np.cumsum(numbers * worth, axis=1)], axis=1)[:, :NUM_RANKS]
        no_star = 1.0 - star
        no_star_w = (numbers * worth).sum(axis=1)  # E[worth; plays a number]

        def all_in(p: np.ndarray, pw: np.ndarray, skip: int = -1) -> tuple[np.ndarray, np.ndarray]:
            """P(every opponent but ``skip`` is in an event) and E[sum of their worth; that]."""
            keep = [i for i in range(J) if i != skip]
            prob = np.prod(p[keep], axis=0) if keep else np.ones(p.shape[1:])
            stake = np.zeros(p.shape[1:])
            for k in keep:
                others = [m for m in keep if m != k]
                stake = stake + pw[k] * (np.prod(p[others], axis=0) if others else 1.0)
            return prob, stake

        out = np.empty(len(my_cards))
        for idx, c in enumerate(my_cards):
            if c == STAR:  # a sole Star wins; any other Star ties, so no opponent can win
                prob, stake = all_in(no_star[:, None], no_star_w[:, None])
                out[idx] = float((base + worth[STAR]) * prob[0] + stake[0])
                continue
            gain = 0.0
            if RANK_VALUES[c] >= clash_value:
                prob, stake = all_in(below[:, c : c + 1], below_w[:, c : c + 1])
                gain += float((base + worth[c]) * prob[0] + stake[0])
            # Opponent j wins with its sole Star, or with a number w above mine and the rest.
            ws = np.array([w for w in range(c + 1, STAR) if RANK_VALUES[w] >= clash_value], dtype=np.int64)
            for j in range(J):
                prob, stake = all_in(no_star[:, None], no_star_w[:, None], skip=j)
                lost = star[j] * ((base + worth[c] + worth[STAR]) * prob[0] + stake[0])
                if ws.size:
                    prob, stake = all_in(below[:, ws], below_w[:, ws], skip=j)
                    lost += float(numbers[j, ws] @ ((base + worth[c] + worth[ws]) * prob + stake))
                gain -= weight * float(lost)
            out[idx] = gain
        return out

    def plan(self, view: Fight5View, first_slot: int) -> list[int]:
        """Best assignment of my hand to slots ``first_slot..4`` (a rank per slot)."""
        cards = view.hand_cards()
        slots = list(range(first_slot, SLOTS_PER_PLAYER))
        if len(cards) != len(slots):
            raise ValueError(
                f"hand holds {len(cards)} cards for {len(slots)} empty slots; not a Fight 5 observation in play"
            )
        gain = np.stack([self.clash_values(view, k, cards) for k in slots])  # (slot, card)
        perms = _permutations(len(cards))
        totals = gain[np.arange(len(slots)), perms].sum(axis=1)
        best = perms[int(totals.argmax())]
        return [cards[j] for j in best]

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        if not np.any(action_mask):
            raise ValueError("no legal action: the action mask is all zeros")
        view = Fight5View.decode(observation)
        slot = view.slot if view.slot >= 0 else int(np.count_nonzero(view.placed != NO_CARD))
        plan = self._plan
        fits = (
            plan is not None
            and slot > 0
            and [int(r) for r in view.placed[:slot]] == plan[:slot]
            and sorted(plan[slot:]) == view.hand_cards()
        )
        if not fits:
            full = self.plan(view, slot)
            plan = [int(r) for r in view.placed[:slot]] + full
            self._plan = plan
        action = plan[slot]
        if not action_mask[action]:  # the plan came from the hand in the observation; guard anyway
            raise AssertionError(f"heuristic planned {RANK_NAMES[action]} which the action mask forbids")
        return int(action)

    # ------------------------------------------------------------------ batches
    def round_gains(self, obs: np.ndarray, wanted: np.ndarray) -> np.ndarray:
        """(B, 5, 13) ``clash_values`` at my five slots' clashes, for rows of observations.

        Entry ``[b, k, c]`` is bit for bit ``clash_values(view_b, k, [c])`` for every rank ``c``
        with ``wanted[b, c]`` (other entries are not meaningful). Bit for bit matters: the round
        plan is an argmax over sums of these, exact ties between plans are common (cards that
        fare alike), and the per-row code breaks them by its own floating-point results. So
        every operation is the one ``clash_values`` does, in the same order, on arrays over
        rows, slots and ranks: opponents are padded to four per clash with a neutral one whose
        factors are exactly 1 and whose stakes are exactly 0, which leaves every product and sum
        unchanged. The one reduction whose order is the BLAS's (the dot over an opponent's
        winning numbers) is still one BLAS dot per (row, slot, card, opponent), on the same
        values: the dots of one length go through one stacked ``np.matmul``, which calls for each
        item the dot that ``a @ b`` on the two vectors calls (a test checks this bit for bit).
        Needs integral card worths (then the pot's worth is exact in any order).
        """
        B = obs.shape[0]
        worth = self.card_values()
        n = obs[:, _NUM_PLAYERS].argmax(axis=1) + MIN_PLAYERS
        blocks = obs[:, _SLOT_BLOCKS].reshape(B, SLOTS_PER_PLAYER, CLASH_FEATURES)
        cc = _onehot_rank(blocks[:, :, CLASH_SLICES["clash_card"]])  # (B, 5)
        clash_value = np.where(cc != NO_CARD, RANK_VALUES[cc], 0)
        pot = _counts(blocks[:, :, CLASH_SLICES["pot"]], 5)
        base = (pot * worth).sum(axis=2) + np.where(cc != NO_CARD, worth[cc], 0.0)  # (B, 5), integral: exact
        seats = np.arange(MAX_PLAYERS)
        sharers = (blocks[:, :, CLASH_SLICES["sharers"]] > 0.5) & (seats[None, None, :] < n[:, None, None])
        unrevealed = _counts(obs[:, _UNREVEALED].reshape(B, MAX_PLAYERS, NUM_RANKS), 2)
        totals = unrevealed.sum(axis=2)  # (B, 5 seats)
        # (B, 5 clashes, 4 opponents): relative seats 1..4 that play there and still hold cards
        real = sharers[:, :, 1:] & (totals[:, None, 1:] > 0)
        probs = unrevealed[:, 1:, :] / np.maximum(totals[:, 1:, None], 1)  # (B, 4, 13)
        probs = np.where(real[..., None], probs[:, None, :, :], 0.0)  # (B, 5, 4, 13)
        star = probs[..., STAR]  # (B, 5, 4)
        numbers = probs.copy()
        numbers[..., STAR] = 0.0
        zero = np.zeros(numbers.shape[:-1] + (1,))
        below = np.concatenate([zero, np.cumsum(numbers, axis=-1)], axis=-1)[..., :NUM_RANKS]
        below = np.where(real[..., None], below, 1.0)  # the neutral opponent is always below
        below_w = np.concatenate([zero, np.cumsum(numbers * worth, axis=-1)], axis=-1)[..., :NUM_RANKS]
        no_star = (1.0 - star)[..., None]  # (B, 5, 4, 1)
        no_star_w = (numbers * worth).sum(axis=-1)[..., None]

        weight = self.opponent_weight
        weights = np.where(n == 2, 1.0, MULTI_OPPONENT_WEIGHT) if weight is None else np.full(B, float(weight))
        weights = weights[:, None, None]
        mine = base[..., None] + worth  # (B, 5, 13): base + worth[c]

        # my number c wins: every opponent plays a number below c and no Star
        win = mine * _product(below) + _stakes(below, below_w)
        reaches = _NUMBER & (RANK_VALUES[None, None, :] >= clash_value[..., None])
        gains = np.where(reaches, win, 0.0)
        # opponent j wins with its sole Star, or with a number w above mine reaching the Clash Card
        # ws(c) of clash_values: the numbers above c reaching the Clash Card, a run of ranks up to
        # the Star as number values rise with rank: first_w[b, k, c] .. STAR - 1
        first_reaching = (RANK_VALUES[None, None, :STAR] < clash_value[..., None]).sum(axis=2)
        first_w = np.maximum(np.arange(NUM_RANKS)[None, None, :] + 1, first_reaching[..., None])
        dots = real[..., :, None] & (wanted & _NUMBER)[:, None, None, :] & (first_w < STAR)[:, :, None, :]
        for j in range(probs.shape[2]):
            ns, ns_w = _without(no_star, j, 1.0), _without(no_star_w, j, 0.0)
            lost = star[..., j, None] * ((mine + worth[STAR]) * _product(ns) + _stakes(ns, ns_w))
            bj, bj_w = _without(below, j, 1.0), _without(below_w, j, 0.0)
            # term[b, k, c, w] = (base + worth[c] + worth[w]) * P(others below w) + their stake
            term = (mine[..., :, None] + worth) * _product(bj)[..., None, :] + _stakes(bj, bj_w)[..., None, :]
            nj = numbers[..., j, :]
            bs, ks, cs = np.nonzero(dots[:, :, j, :])
            ws = first_w[bs, ks, cs]
            for w in np.unique(ws).tolist():
                # every dot whose run starts at w, as one stacked product: numpy's matmul takes each
                # (1, L) @ (L, 1) item through the very BLAS dot that ``a @ b`` on the vectors calls
                at = ws == w
                b, k, c = bs[at], ks[at], cs[at]
                dot = np.matmul(nj[b, k, w:STAR][:, None, :], term[b, k, c, w:STAR][:, :, None])[:, 0, 0]
                lost[b, k, c] += dot
            gains = np.where(real[..., j, None], gains - weights * lost, gains)
        # my Star: wins alone, ties with any other Star, so nobody else can win
        gains[..., STAR] = (base + worth[STAR]) * _product(no_star)[..., 0] + _stakes(no_star, no_star_w)[..., 0]
        return gains

    def plan_rounds(self, obs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``plan(view, 0)`` for rows of observations: ((B, 5) ranks, (B,) bool "planned here").

        Rows whose hand does not hold five cards, and all rows when the card worths are not
        integers (``round_gains`` is exact only then), are left to ``plan``.
        """
        B = obs.shape[0]
        worth = self.card_values()
        hand = _counts(obs[:, _HAND_COLUMNS], 2)
        planned = (hand.sum(axis=1) == SLOTS_PER_PLAYER) & bool(np.all(worth == np.rint(worth)))
        # cards[b, i]: the i-th card of the sorted hand (the rank whose running count first exceeds i)
        cards = (np.cumsum(hand, axis=1)[:, None, :] <= np.arange(SLOTS_PER_PLAYER)[None, :, None]).sum(axis=2)
        cards = np.minimum(cards, NUM_RANKS - 1)
        if not planned.any():
            return cards, planned
        gains = self.round_gains(obs, (hand > 0) & planned[:, None])
        gain = np.take_along_axis(gains, np.broadcast_to(cards[:, None, :], (B, SLOTS_PER_PLAYER, SLOTS_PER_PLAYER)), axis=2)
        perms = _permutations(SLOTS_PER_PLAYER)  # (120, 5)
        # the same sum, in the same order, as plan's gain[np.arange(5), perms].sum(axis=1)
        totals = np.ascontiguousarray(gain[:, np.arange(SLOTS_PER_PLAYER)[None, :], perms]).sum(axis=2)  # (B, 120)
        best = totals.argmax(axis=1)
        return np.take_along_axis(cards, perms[best], axis=1), planned

    @classmethod
    def act_group(cls, agents: list[HeuristicAgent], observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """``agents[i].act(observations[i], action_masks[i])`` for every row, in row order, in one call.

        Each row's agent keeps its own round plan, so one call serves many games (one agent per
        game); an agent may appear on several rows (``act_batch``: then rows follow one another
        as successive ``act`` calls would). Plans at slot 0 never depend on an agent's memory, so
        they are computed for all rows at once (``plan_rounds``, agents grouped by parameters);
        the rest, and every row ``plan_rounds`` leaves out, go through the per-row code.
        """
        obs, legal = _check_batch(observations, action_masks)
        B = obs.shape[0]
        if len(agents) != B:
            raise ValueError(f"act_group needs one agent per row: {len(agents)} agents for {B} rows")
        current = _batch_slots(obs)
        placed = _onehot_rank(obs[:, _MY_SLOTS].reshape(B, SLOTS_PER_PLAYER, NUM_RANKS + 1))
        slots = np.where(current >= 0, current, (placed != NO_CARD).sum(axis=1))
        fresh = np.flatnonzero(slots == 0)
        planned: dict[int, list[int]] = {}
        by_params: dict[tuple[float, float | None], list[int]] = {}
        for i in fresh.tolist():
            by_params.setdefault((agents[i].card_bonus, agents[i].opponent_weight), []).append(i)
        for idx in by_params.values():
            rows = np.asarray(idx)
            plans, done = agents[idx[0]].plan_rounds(obs[rows])
            for i, plan, ok in zip(idx, plans.tolist(), done.tolist()):
                if ok:
                    planned[i] = plan
        placed_lists = placed.tolist()
        # each row's hand as a sorted list of ranks (``Fight5View.hand_cards``), decoded for all rows at once
        hand = _counts(obs[:, _HAND_COLUMNS], 2)
        size = hand.sum(axis=1)
        width = max(int(size.max()), 1)
        sorted_hand = (np.cumsum(hand, axis=1)[:, None, :] <= np.arange(width)[None, :, None]).sum(axis=2)
        hand_lists = [row[:k] for row, k in zip(sorted_hand.tolist(), size.tolist())]
        legal_lists = legal.tolist()
        out = [0] * B
        for i in range(B):
            agent, slot = agents[i], int(slots[i])
            if slot == 0 and i in planned:
                plan = agent._plan = planned[i]
            else:
                plan = agent._plan
                fits = (
                    plan is not None
                    and slot > 0
                    and placed_lists[i][:slot] == plan[:slot]
                    and sorted(plan[slot:]) == hand_lists[i]
                )
                if not fits:
                    plan = agent._plan = placed_lists[i][:slot] + agent.plan(Fight5View.decode(obs[i]), slot)
            action = plan[slot]
            if not legal_lists[i][action]:
                raise AssertionError(f"heuristic planned {RANK_NAMES[action]} which the action mask forbids")
            out[i] = action
        return np.array(out, dtype=np.int64)

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """Successive ``act`` calls on this one agent (one game's decisions in order), batched where safe."""
        return self.act_group([self] * int(np.asarray(observations).shape[0]), observations, action_masks)


BASELINES: dict[str, type[Agent]] = {"random": RandomAgent, "greedy": GreedyAgent, "heuristic": HeuristicAgent}
"""Fight 5 baselines by registry name."""
