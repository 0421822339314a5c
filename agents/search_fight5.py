"""Fight 5's batched rollouts for the search agent: every rollout of a decision in one ``Fight5Batch``.

The ``K`` determinizations are loaded into a batch of ``K x |legal|`` games
(``Fight5Batch.load_games``: the searching seat places first, the others follow; within a round
the order changes nothing), the first step plays each row's candidate action, and the batch is
stepped until every row's game has ended once (later bouts dealt from per-row seeds, as a
``Fight5Game`` with a fresh ``default_rng(seed)`` would deal them). The rollout policy acts on
all rows at once:

* ``heuristic``: each seat's round plan is made for every row together at its slot 0
  (``HeuristicAgent.plan_rounds``, bit for bit the per-row plan) and followed for the other four
  slots, exactly what one ``HeuristicAgent`` per seat and game does. The searching seat's rest of
  the current round (it has already placed some cards) is planned per distinct observation
  (``HeuristicAgent.plan``): its observation is the same in every determinization.
* ``tail`` (an agent spec, optional): the policy that plays from the end of the current round
  on (``search:rollout=heuristic,tail=greedy``: the heuristic answers the decision's round, the
  cheap policy plays the rest);
* any other agent: its ``act_batch`` over the rows (exact for agents without per-game memory,
  such as ``greedy``; ``random`` draws from one generator for the batch).

**Horizon.** ``horizon="game"`` plays every rollout to the end of the game (value: win credit).
``horizon="bout"`` stops at the end of the current bout (where the heuristic's cost per
rollout is a fraction of a full game's): a row whose game ended there scores its win credit,
any other row the probability that the seat finishes with the most points under a documented
prior, each player adding ``N(0, BOUT_POINTS_SD[n]^2)`` points per remaining bout
independently (the spread measured in heuristic self-play, 200 bouts per player count; the
200-point early end is ignored), estimated on fixed normal samples so the value is deterministic.

``tests/search/test_search_fight5.py`` checks the values against the per-game rollouts.
"""

from __future__ import annotations

import numpy as np

from fight_envs.agents.base import Agent
from fight_envs.agents.fight5 import Fight5View, HeuristicAgent
from fight_envs.agents.search import BatchedRollouts
from fight_envs.games.fight5.batched import Fight5Batch
from fight_envs.games.fight5.rules import Fight5Game
from fight_envs.games.fight5.topology import SLOTS_PER_PLAYER


HORIZONS = ("game", "bout")
BOUT_POINTS_SD = {2: 25.0, 3: 26.0, 4: 30.0, 5: 35.0}
"""Per player count: the spread (sd) of one player's bout points under heuristic self-play, for the
``horizon="bout"`` prior (measured: sd of each player's points minus the bout's mean, 200 bouts,
rescaled to independent players: 17.8, 21.4, 31.4 at 2, 3, 5 players; 4 interpolated)."""
PRIOR_SAMPLES = 256
_PRIOR_NORMALS = np.random.default_rng(0xB0).standard_normal((PRIOR_SAMPLES, 5))


def bout_end_value(scores: np.ndarray, bouts_left: np.ndarray, seat: int) -> np.ndarray:
    """P(seat ends with the most points; ties shared) for rows of ``scores`` (B, n) with ``bouts_left`` (B,) to play."""
    n = scores.shape[1]
    sd = BOUT_POINTS_SD[n] * np.sqrt(np.maximum(bouts_left, 0))[:, None, None]
    final = scores[:, None, :].astype(np.float64) + sd * _PRIOR_NORMALS[None, :, :n]  # (B, samples, n)
    top = final == final.max(axis=2, keepdims=True)
    return (top[:, :, seat] / top.sum(axis=2)).mean(axis=1)


class Fight5BatchedRollouts(BatchedRollouts):
    """Rollouts of one decision on a ``Fight5Batch`` (see the module docstring)."""

    def __init__(self, rollout: str, horizon: str = "game", tail: str | None = None) -> None:
        from fight_envs.agents.registry import make_agent

        if horizon not in HORIZONS:
            raise ValueError(f"horizon must be one of {', '.join(HORIZONS)}, got {horizon!r}")
        self.horizon = horizon
        self.rollout = rollout
        self.agent: Agent = make_agent(rollout, game="fight5", seed=0)
        self.heuristic = self.agent if type(self.agent) is HeuristicAgent else None
        self.tail = tail
        self.tail_agent: Agent | None = None if tail is None or tail == rollout else make_agent(tail, game="fight5", seed=0)
        self._batches: dict[tuple[int, object], Fight5Batch] = {}

    @classmethod
    def for_rollout(cls, rollout: str, horizon: str = "game", tail: str | None = None) -> Fight5BatchedRollouts | None:
        return cls(rollout, horizon, tail)

    def can_play(self, dets: list, seat: int) -> bool:
        g = dets[0]
        return isinstance(g, Fight5Game) and g.num_committed[seat] + 1 < SLOTS_PER_PLAYER

    def _batch(self, size: int, game: Fight5Game) -> Fight5Batch:
        key = (size, game.config)
        batch = self._batches.get(key)
        if batch is None or batch.cards is not game.cards:
            c = game.config
            batch = Fight5Batch(size, num_players=c.num_players, num_bouts=c.num_bouts, target_score=c.target_score,
                                cards=game.cards, keep_final_obs=False, vectorised_deal=False)
            if len(self._batches) >= 32:  # a few sizes recur (K x |legal|); keep them, bounded
                self._batches.clear()
            self._batches[key] = batch
        return batch

    def values(self, dets: list, seat: int, legal: np.ndarray, seeds: np.ndarray) -> np.ndarray:
        K, A = len(dets), legal.size
        n = dets[0].num_players
        batch = self._batch(K * A, dets[0])
        rows = [d for d in dets for _ in range(A)]
        row_seeds = np.repeat(np.asarray(seeds, dtype=np.uint64) % np.uint64(2**63 - K * A), A)
        batch.load_games(rows, seat, row_seeds, deal_next_bout=self.horizon == "game")
        out = batch.step(np.tile(legal, K).astype(np.int64))
        B = K * A
        plans = np.zeros((B, n, SLOTS_PER_PLAYER), dtype=np.int64)
        done = np.zeros(B, dtype=bool)
        value = np.zeros(B)
        self.agent.seed(int(seeds[0]))  # act_batch agents that draw (random) draw from this decision's seed
        if self.tail_agent is not None:
            self.tail_agent.seed(int(seeds[0]) + 1)
        revealed = False  # the current round is over: the tail policy plays from here
        first_partial = True  # the searching seat's rest of the current round
        while True:
            p, slot = batch.seat, batch.slot
            if self.tail_agent is not None and revealed:
                actions = np.asarray(self.tail_agent.act_batch(out.obs, out.action_mask), dtype=np.int64)
            elif self.heuristic is not None:
                if slot == 0:
                    first_partial = False
                    plan, ok = self.heuristic.plan_rounds(out.obs)
                    plans[:, p] = plan
                    for b in np.flatnonzero(~ok).tolist():  # rows plan_rounds leaves to the per-row code
                        plans[b, p] = self.heuristic.plan(Fight5View.decode(out.obs[b]), 0)
                elif first_partial and p == seat and slot == batch_first_slot(dets, seat):
                    keys: dict[bytes, list[int]] = {}
                    for b, row in enumerate(out.obs):
                        keys.setdefault(row.tobytes(), []).append(b)
                    for members in keys.values():
                        rest = self.heuristic.plan(Fight5View.decode(out.obs[members[0]]), slot)
                        plans[np.asarray(members), p, slot:] = rest
                actions = plans[:, p, slot]
            else:
                actions = np.asarray(self.agent.act_batch(out.obs, out.action_mask), dtype=np.int64)
            reveal = slot == SLOTS_PER_PLAYER - 1 and (p + 1) % n == batch.first_seat
            bout_ends = reveal and batch.round == batch.rounds_per_bout - 1
            revealed = revealed or reveal
            out = batch.step(actions)
            if bout_ends and self.horizon == "bout":
                ended = np.zeros(B, dtype=bool)
                ended[out.final_index] = True
                rest = np.flatnonzero(~ended & ~done)
                value[rest] = bout_end_value(batch.scores[rest], batch.config.num_bouts - batch.bout[rest], seat)
                done[rest] = True
            if out.final_index.size:
                idx = out.final_index
                fresh = ~done[idx]
                scores = out.final_scores[fresh].astype(np.float64)
                top = scores == scores.max(axis=1, keepdims=True)
                value[idx[fresh]] = top[:, seat] / top.sum(axis=1)
                done[idx[fresh]] = True
            if done.all():
                break
        return value.reshape(K, A)


def batch_first_slot(dets: list, seat: int) -> int:
    """The slot the searching seat fills after its candidate action (its first rollout slot)."""
    return int(dets[0].num_committed[seat]) + 1
