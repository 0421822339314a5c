"""Fight Klub answer features and the pointer policy (``ppo.features: fight_klub_pointer``).

What a policy must work out to play an Enhance decision well is a small piece of arithmetic over
several blocks of the observation: which skirmish types the current fight's two cards have, what
each card in my hand or support area would add to my totals (or the other's) there, which
skirmish it would nullify, and whether the fight's result then changes. A flat network, or one
that embeds each card alone, has to discover that arithmetic from comparisons it cannot express
in a few layers: cloned from the heuristic (180 games, 12 epochs), the card-embedding network
(``fight_klub_cards``) agrees with it on 59% of Enhance decisions and a pointer head alone on 65%
(Setup and the orders: 99-100%), and such a clone loses to its teacher (``docs/results.md``, Fight
Klub). With these features the pointer network agrees on 91% of Enhance decisions (8 epochs).

So this module computes it, in torch, for the whole batch (:func:`answer_features`): for each of
the 24 card slots that an action names (16 hand positions, then my 8 support positions) the
totals after playing it and the result it gives, exactly as ``agents.fight_klub.HeuristicAgent``
values an Enhance play (its ``_enhance``: ``tests/train/test_fight_klub_pointer.py`` checks that its
choice is the arg-max of these gains on every Enhance decision of 30 heuristic games), and for the
rotation action the same. These are features, not a rule: the
policy reads them beside everything else and PPO may learn to play otherwise.

:class:`FightKlubPointerExtractor` embeds every card slot with one shared network and passes a
context vector (pooled slots, the fights, the table numbers, the rotation answer) and each slot's
embedding and answer features on. :class:`FightKlubPointerPolicy` scores the 24 slot actions from
their own slot (one small network shared across slots, so what it learns about hand position 3
holds at position 4) plus a per-action bias from the context; the other actions (pass, rotate,
colours, options) come from the context alone.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from gymnasium import spaces
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn

from fight_envs.train.features import FastMaskablePolicy, nonzero_columns


def _layout() -> dict[str, Any]:
    """Offsets into the observation, from the encoder's and the heuristic's own constants."""
    from fight_envs.agents.fight_klub import _KIND0, _LIST0, _OPS, _POS0, _TYPE0
    from fight_envs.games.fight_klub.cards import EFFECT_OPS, MAX_EFFECTS
    from fight_envs.games.fight_klub.observe import (
        CHARACTER_SIZE,
        EFFECT_SLOT,
        FIGHT_CARD_SIZE,
        FIGHT_SIZE,
        FIGHT_STATE_SIZE,
        OBS_SIZE,
        OBS_SLICES,
        SUPPORT_SIZE,
    )
    from fight_envs.games.fight_klub.rules import (
        DECISION_KINDS,
        FIGHTS_PER_TURN,
        HAND0,
        MAX_HAND,
        MAX_SUPPORT,
        ROTATE,
        SUPPORT0,
    )

    assert SUPPORT0 == HAND0 + MAX_HAND and ROTATE == SUPPORT0 + MAX_SUPPORT  # slot s names action HAND0 + s
    S = OBS_SLICES
    rest = [S[name] for name in ("global", "me", "opp", "deck_me", "stack_me", "deck_opp", "stack_opp", "plays_opp")]
    return {"size": OBS_SIZE, "support": SUPPORT_SIZE, "fight_card": FIGHT_CARD_SIZE, "fight_size": FIGHT_SIZE,
            "state": FIGHT_STATE_SIZE, "character": CHARACTER_SIZE, "max_hand": MAX_HAND, "max_support": MAX_SUPPORT,
            "fights": FIGHTS_PER_TURN, "hand": S["hand"], "support_me": S["support_me"], "support_opp": S["support_opp"],
            "fights_at": S["fights"], "characters": slice(S["character_me"].start, S["character_opp"].stop),
            "rest": np.concatenate([np.arange(r.start, r.stop) for r in rest]), "effect_slot": EFFECT_SLOT,
            "max_effects": MAX_EFFECTS, "list0": _LIST0, "type0": _TYPE0, "pos0": _POS0, "boost": _OPS["boost"],
            "nullify": _OPS["nullify"], "n_at": len(EFFECT_OPS), "opp_at": len(EFFECT_OPS) + 1, "hand0": HAND0,
            "drop": _KIND0 + len(DECISION_KINDS) + 1, "slots": MAX_HAND + MAX_SUPPORT}


K = _layout()
SLOT_ANSWER = 16
"""Answer features per slot: gain, valid, won / lost / tied after, result sign after, my totals' and the
other's boosts (3 + 3), nullified positions (3), cost."""
ROTATE_ANSWER = 5
"""Answer features of the rotation: gain, valid, won / lost / tied after."""


def _margin(m: torch.Tensor, t: torch.Tensor, keep: torch.Tensor, last: torch.Tensor) -> tuple[torch.Tensor, ...]:
    """``HeuristicAgent._enhance``'s ``margin`` over the kept skirmishes (last dim 3): the result
    first (won 2, tie 0, lost -2), then, when the fight is won and the other may still answer,
    skirmishes won minus lost / 4. Also the counts won, lost and tied."""
    won = ((m > t) & keep).sum(-1).to(m.dtype)
    lost = ((m < t) & keep).sum(-1).to(m.dtype)
    tied = keep.sum(-1).to(m.dtype) - won - lost
    d = won - lost
    extra = torch.where((d > 0) & ~last, d / 4.0, torch.zeros_like(d))
    return 2.0 * torch.sign(d) + extra, won, lost, tied


_HEAD = 22
"""The first columns of a support card's row that the answers read: its type one-hot (0-3), cost (8-14),
tabs (15-17) and activation cost (18-24, of which 18-21)."""


def _present(rows: torch.Tensor) -> torch.Tensor:
    """Which card rows ``(..., >= 4)`` hold a card: every card's row has its type one-hot (columns 0-3,
    ``support_features``) and an empty slot's row is all zeros, so this is ``rows.abs().sum(-1) > 0``
    read from four columns (``tests/train/test_fight_klub_pointer.py`` checks it on every pool card)."""
    return rows[..., :4].sum(-1) > 0


def answer_features(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """(slot answers ``(b, 24, SLOT_ANSWER)``, rotation answer ``(b, ROTATE_ANSWER)``) of observations ``x``.

    The gain is ``HeuristicAgent._enhance``'s value of playing the slot's card (or rotating) in the
    current fight; valid is 1 where it judges the play at all (an opposed fight of two Power ends,
    a card in the slot): elsewhere every answer is 0."""
    b = x.shape[0]
    fc, fs = K["fight_card"], K["fight_size"]
    fights = x[:, K["fights_at"]].reshape(b, K["fights"], fs)
    current = fights[:, :, 2 * fc + 2]  # the "current fight" flag: one fight at most
    cur = (current.unsqueeze(2) * fights).sum(1)
    mine, theirs, state = cur[:, :fc], cur[:, fc:2 * fc], cur[:, 2 * fc:]
    m0, t0 = state[:, 15:18] * 10.0, state[:, 18:21] * 10.0
    fight_ok = ((current.sum(1) > 0.5) & (mine[:, 0] > 0.5) & (theirs[:, 0] > 0.5)
                & (mine[:, 16] < 0.5) & (theirs[:, 16] < 0.5))
    last = x[:, K["drop"]] > 0.5
    # each tab's skirmish type (mental, physical, spiritual, fate) as a one-hot: tab i at 17 + 23 i
    types_m = torch.stack([mine[:, 17 + 23 * i:21 + 23 * i] for i in range(3)], 1)  # (b, 3, 4)
    types_t = torch.stack([theirs[:, 17 + 23 * i:21 + 23 * i] for i in range(3)], 1)
    types_m = nn.functional.one_hot(types_m.argmax(-1), 4).to(x.dtype)  # argmax, as the heuristic reads it
    types_t = nn.functional.one_hot(types_t.argmax(-1), 4).to(x.dtype)
    n_sup, ssz = K["max_support"], K["support"]
    hand = x[:, K["hand"]].reshape(b, K["max_hand"], ssz)  # views of x: no copy
    area = x[:, K["support_me"]].reshape(b, n_sup, ssz + 1)
    # of the 24 slots' card rows (hand, then my support area) only the columns read here are joined:
    # the type, cost, tabs and activation (0-21) and the effect list; a whole-row copy was most of the cost
    es = K["effect_slot"]
    lo, hi = K["list0"], K["list0"] + K["max_effects"] * es
    cards = torch.cat([hand[:, :, :_HEAD], area[:, :, :_HEAD]], 1)  # (b, 24, _HEAD)
    present = _present(cards)
    eff = torch.cat([hand[:, :, lo:hi], area[:, :, lo:hi]], 1).reshape(b, K["slots"], K["max_effects"], es)
    boost = eff[..., K["boost"]] > 0.5
    nullify = (eff[..., K["nullify"]] > 0.5) & ~boost  # the heuristic reads a slot as a boost first
    n = eff[..., K["n_at"]] * 3.0
    kind = nn.functional.one_hot(eff[..., K["type0"]:K["type0"] + 5].argmax(-1), 5).to(x.dtype)  # (b, 24, E, 5)
    on_opp = eff[..., K["opp_at"]] > 0.5
    # a typed boost hits the boosted player's tabs of that type; "all" (kind 4) hits every tab
    hit_m = kind[..., 4:5] + torch.einsum("bsek,bik->bsei", kind[..., :4], types_m)  # (b, 24, E, 3)
    hit_t = kind[..., 4:5] + torch.einsum("bsek,bik->bsei", kind[..., :4], types_t)
    amount = (n * boost).unsqueeze(-1)
    dm = (hit_m * amount * (~on_opp).unsqueeze(-1)).sum(2) + cards[:, :, 15:18] * 3.0  # plus the card's own tabs
    dt = (hit_t * amount * on_opp.unsqueeze(-1)).sum(2)
    pos = eff[..., K["pos0"]:K["pos0"] + 3]
    pos = nn.functional.one_hot(pos.argmax(-1), 3).to(x.dtype) * nullify.unsqueeze(-1)
    nulled = pos.sum(2) > 0  # (b, 24, 3)
    keep = ~nulled
    cost = 0.25 * (cards[:, :, 8:12].sum(-1) * 3.0 + cards[:, :, 18:22].sum(-1) * 3.0)
    m1, t1 = m0.unsqueeze(1) + dm, t0.unsqueeze(1) + dt
    last_s = last.unsqueeze(1).expand(b, K["slots"])
    after, won, lost, tied = _margin(m1, t1, keep, last_s)
    all3 = torch.ones_like(keep)
    base_all = _margin(m0, t0, all3[:, 0], last)[0].unsqueeze(1)
    # HeuristicAgent._enhance's gain: a nullify play's margin over the skirmishes it keeps, less that of
    # the same skirmishes before it, plus what removing the others is worth, which adds up to the
    # margin after less the margin before over all three (as for any other play)
    gain = after - base_all - cost * 0.1
    valid = (fight_ok.unsqueeze(1) & present).to(x.dtype)
    slot = torch.cat([gain.unsqueeze(-1), torch.ones_like(gain).unsqueeze(-1), won.unsqueeze(-1), lost.unsqueeze(-1),
                      tied.unsqueeze(-1), torch.sign(won - lost).unsqueeze(-1), dm, dt, nulled.to(x.dtype),
                      cost.unsqueeze(-1)], -1) * valid.unsqueeze(-1)
    # rotation: my card's other end replaces this end's tab values (a Clash other end is not judged)
    other = mine[:, 115:215]
    now = torch.stack([mine[:, 15 + 2 + 23 * i + 4] for i in range(3)], 1) * 5.0
    new = torch.stack([other[:, 2 + 23 * i + 4] for i in range(3)], 1) * 5.0
    mr = m0 - now + new
    r_after, r_won, r_lost, r_tied = _margin(mr, t0, all3[:, 0], last)
    r_valid = (fight_ok & (other[:, 0] > 0.5)).to(x.dtype)
    rotate = torch.stack([r_after - base_all[:, 0] - 0.05, torch.ones_like(r_won), r_won, r_lost, r_tied], 1)
    return slot, rotate * r_valid.unsqueeze(1)


# ===================================================================================== the pointer network
SLOT_EMBED = 64
"""Numbers per card slot from the shared card network (a support-card row and its "used" flag)."""
FIGHT_EMBED = 32
CHARACTER_EMBED = 16
SCORE_HIDDEN = 64
"""Hidden units of the slot scorer (one layer over the slot, plus a projection of the context)."""
SLOT_DIM = SLOT_EMBED + SLOT_ANSWER


def _context_parts() -> list[tuple[int, bool]]:
    """The context's blocks in order, as (width, whether it depends on parameters): the card embeddings
    pooled (hand sum and max, my area, the other's), the six Fight cards embedded, the fights' states,
    both characters embedded, the table numbers and piles, the rotation's answer, every slot's answer.
    Runs of the same kind are merged."""
    blocks = [(4 * SLOT_EMBED, True), (2 * K["fights"] * FIGHT_EMBED, True), (K["fights"] * K["state"], False),
              (2 * CHARACTER_EMBED, True), (len(K["rest"]), False), (ROTATE_ANSWER, False),
              (K["slots"] * SLOT_ANSWER, False)]
    merged: list[tuple[int, bool]] = []
    for width, learned in blocks:
        if merged and merged[-1][1] == learned:
            merged[-1] = (merged[-1][0] + width, learned)
        else:
            merged.append((width, learned))
    return merged


def _context_dim() -> int:
    return sum(width for width, _ in _context_parts())


MAX_DISTINCT_ROWS = 4096
"""Distinct card rows (support cards, Fight cards) an extractor's registry holds (:class:`_RowRegistry`);
past it, a prepared chunk's cards are embedded row by row, as without ``prepare``."""


class _RowRegistry:
    """The distinct card rows ``prepare`` has met, each with a lasting index (append-only; rows equal
    byte for byte share one). A rollout holds few distinct cards (about 50 support-card rows among the
    6,000 of a 1,024-row minibatch's hands), so the update embeds each once and gathers the embeddings,
    instead of running the card networks on every slot. Not saved with the model: rebuilt by ``prepare``."""

    def __init__(self, width: int) -> None:
        self.width = width
        self.index: dict[bytes, int] = {}
        self.table = torch.zeros((0, width))
        self._probe = np.random.default_rng(width).uniform(1.0, 2.0, width).astype(np.float32)  # groups rows fast

    def ids(self, rows: np.ndarray) -> np.ndarray | None:
        """The index of each row of ``rows`` ``(n, width)``, float32, registering new ones; None (nothing
        registered) when they would take the registry past ``MAX_DISTINCT_ROWS``."""
        rows = np.ascontiguousarray(rows, dtype=np.float32)
        if not len(rows):
            return np.zeros(0, dtype=np.int64)
        # rows grouped by one number each (a sort of n numbers, not of n rows), kept only if every row
        # equals its group's first byte for byte; else (two rows with one number, or a NaN) by their bytes
        _, first, inverse = np.unique(rows @ self._probe, return_index=True, return_inverse=True)
        inverse = inverse.ravel()
        if not (rows.view(np.int32) == rows.view(np.int32)[first][inverse]).all():
            keys = rows.view(np.dtype((np.void, 4 * self.width))).ravel()
            _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
            inverse = inverse.ravel()
        # equal rows may still fall in two groups (a product's rounding can differ from row to row), so
        # the bytes decide: one index per distinct row, the table's row of that number
        distinct = [rows[i].tobytes() for i in first]
        if len(self.index) + len({key for key in distinct if key not in self.index}) > MAX_DISTINCT_ROWS:
            return None
        found, added = [], []
        for k, key in enumerate(distinct):
            i = self.index.get(key)
            if i is None:
                i = self.index[key] = len(self.index)
                added.append(first[k])
            found.append(i)
        if added:
            self.table = torch.cat([self.table, torch.from_numpy(rows[added])])
        return np.asarray(found, dtype=np.int64)[inverse]


class FightKlubPointerExtractor(BaseFeaturesExtractor):
    """The Fight Klub observation as a context vector and the 24 action slots (module docstring).

    Output, ``features_dim`` numbers: the context (``context_dim``: my hand's embeddings summed and
    their maximum, my support area's and the other's summed, the six Fight cards embedded, the three
    fights' states, both characters embedded, the table numbers and piles, the rotation's answer,
    every slot's answer), then for each slot (hand positions 0-15, my support positions 0-7) its
    embedding and its answer features (``SLOT_DIM``). Only :class:`FightKlubPointerPolicy` reads
    this layout; an empty slot's numbers are all zero."""

    def __init__(self, observation_space: spaces.Box) -> None:
        if observation_space.shape != (K["size"],):
            raise ValueError(f"fight_klub_pointer features need the Fight Klub observation ({K['size']},), "
                             f"got {observation_space.shape}")
        self.context_dim = _context_dim()
        super().__init__(observation_space, self.context_dim + K["slots"] * SLOT_DIM)
        row = K["support"] + 1
        self.card = nn.Sequential(nn.Linear(row, 128), nn.ReLU(), nn.Linear(128, SLOT_EMBED), nn.ReLU())
        self.fight = nn.Sequential(nn.Linear(K["fight_card"], FIGHT_EMBED), nn.ReLU())
        self.character = nn.Sequential(nn.Linear(K["character"], CHARACTER_EMBED), nn.ReLU())
        self.register_buffer("rest", torch.as_tensor(K["rest"]), persistent=False)
        self._cards = _RowRegistry(K["support"] + 1)  # a hand card's row with a zero "used" flag appended
        self._fights = _RowRegistry(K["fight_card"])

    def prepare(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """What :meth:`forward` computes from the observations alone, without parameters: the answer
        features, and each card slot's row in the registries of distinct rows (``(b, 32 + 6)``: the
        hand, both support areas, -1 where empty; then the six Fight cards; all -1 when a registry is
        full). The PPO update (``fight_envs.train.fast_ppo``) computes them once per rollout and hands
        each minibatch its rows, instead of once per minibatch and epoch; with the indices, the
        forward pass embeds each distinct card once and gathers (the same numbers, summed in
        another order in the gradient)."""
        with torch.no_grad():
            slot_answer, rotate_answer = answer_features(x)
            return slot_answer, rotate_answer, self._row_ids(x)

    def _row_ids(self, x: torch.Tensor) -> torch.Tensor:
        b, ssz, n_hand, n_sup, fc = x.shape[0], K["support"], K["max_hand"], K["max_support"], K["fight_card"]
        obs = x.detach().cpu().numpy()
        hand = obs[:, K["hand"]].reshape(b, n_hand, ssz)
        areas = obs[:, K["support_me"].start:K["support_opp"].stop].reshape(b, 2 * n_sup, ssz + 1)
        cards = np.full((b, n_hand + 2 * n_sup), -1, dtype=np.int64)
        in_hand, in_area = hand[..., :4].sum(-1) > 0, areas[..., :4].sum(-1) > 0  # as _present reads them
        n_in_hand = int(in_hand.sum())
        rows = np.zeros((n_in_hand + int(in_area.sum()), ssz + 1), dtype=np.float32)
        rows[:n_in_hand, :ssz] = hand[in_hand]
        rows[n_in_hand:] = areas[in_area]
        fights = obs[:, K["fights_at"]].reshape(b, K["fights"], K["fight_size"])[:, :, :2 * fc].reshape(-1, fc)
        card_ids, fight_ids = self._cards.ids(rows), self._fights.ids(fights)
        if card_ids is None or fight_ids is None:
            return torch.full((b, cards.shape[1] + 2 * K["fights"]), -1, dtype=torch.long, device=x.device)
        cards[:, :n_hand][in_hand] = card_ids[:n_in_hand]
        cards[:, n_hand:][in_area] = card_ids[n_in_hand:]
        ids = np.concatenate([cards, fight_ids.reshape(b, 2 * K["fights"])], 1)
        return torch.from_numpy(ids).to(x.device)

    def forward(self, x: torch.Tensor, slot_answer: torch.Tensor | None = None,
                rotate_answer: torch.Tensor | None = None, row_ids: torch.Tensor | None = None) -> torch.Tensor:
        """The features of observations ``x``; ``slot_answer``, ``rotate_answer`` and ``row_ids``, when
        given, are :meth:`prepare` of these same rows."""
        b, ssz, n_hand, n_sup = x.shape[0], K["support"], K["max_hand"], K["max_support"]
        if slot_answer is None or rotate_answer is None:
            with torch.no_grad():
                slot_answer, rotate_answer = answer_features(x)
        # the 40 card slots (my hand, my support area, the other's) embed with one card network over a
        # support card's row and its "used" flag; an empty slot embeds to zeros. Only the cards present
        # are gathered and embedded (about a third of the slots hold one; embedding every row was most of
        # the extractor's cost), and a hand card, never "used", meets the first layer without that
        # column instead of with a zero appended: the same numbers, without copying every row
        hand = x[:, K["hand"]].reshape(b, n_hand, ssz)  # views of x: no copy
        areas = x[:, K["support_me"].start:K["support_opp"].stop].reshape(b, 2 * n_sup, ssz + 1)
        n_slots = n_hand + 2 * n_sup
        ih = _present(hand).reshape(-1).nonzero().squeeze(1)
        ia = _present(areas).reshape(-1).nonzero().squeeze(1)
        hb, hs = ih // n_hand, ih % n_hand
        ab, as_ = ia // (2 * n_sup), ia % (2 * n_sup)
        where = torch.cat([hb * n_slots + hs, ab * n_slots + n_hand + as_])
        card_ids = None
        if x.requires_grad:  # the observation's own gradient (a saliency map) runs through every card row
            row_ids = None
        if row_ids is not None:
            card_ids = row_ids[:, :n_slots].reshape(-1).index_select(0, where)
            if card_ids.numel() and int(card_ids.min()) < 0:
                card_ids = None  # a registry was full when these rows were prepared: embedded row by row
        if card_ids is not None:  # each distinct card embedded once, then gathered
            present = self.card(self._cards.table.to(x)).index_select(0, card_ids)
        else:
            first = self.card[0]
            present = self.card[1:](torch.cat([nn.functional.linear(hand[hb, hs], first.weight[:, :ssz], first.bias),
                                               nn.functional.linear(areas[ab, as_], first.weight, first.bias)], 0))
        emb = x.new_zeros(b * n_slots, SLOT_EMBED).index_copy(0, where, present).reshape(b, n_slots, SLOT_EMBED)
        # taken apart with ``split`` (its backward joins the pieces' gradients; each slice's would fill a
        # zero tensor of the whole)
        mine, theirs = emb.split([n_hand + n_sup, n_sup], 1)
        mine_hand, mine_area = mine.split([n_hand, n_sup], 1)
        fc = K["fight_card"]
        fights = x[:, K["fights_at"]].reshape(b, K["fights"], K["fight_size"])
        states = fights[:, :, 2 * fc:].reshape(b, -1)
        # the six Fight cards (each fight's mine, then the other's) embedded one column block at a time:
        # each block is a strided view of x that the product reads in place (taking the six as one
        # tensor copied every card's 940 numbers first)
        at, size, linear = K["fights_at"].start, K["fight_size"], self.fight[0]
        fight_ids = None if row_ids is None else row_ids[:, n_slots:]
        if fight_ids is not None and int(fight_ids.min()) >= 0:  # each distinct Fight card's product once
            fight_cards = linear(self._fights.table.to(x)).index_select(0, fight_ids.reshape(-1)).reshape(b, -1)
        else:
            fight_cards = torch.cat([linear(x[:, at + i * size + j * fc:at + i * size + (j + 1) * fc])
                                     for i in range(K["fights"]) for j in (0, 1)], 1)
        characters = self.character(x[:, K["characters"]].reshape(b, 2, K["character"])).reshape(b, -1)
        context = torch.cat([mine_hand.sum(1), mine_hand.max(1).values, mine_area.sum(1), theirs.sum(1),
                             self.fight[1:](fight_cards), states, characters, x.index_select(1, self.rest),
                             rotate_answer, slot_answer.reshape(b, -1)], 1)
        slots = torch.cat([mine, slot_answer], 2)
        out = torch.cat([context, slots.reshape(b, -1)], 1)
        if x.requires_grad:  # a gradient with respect to the observation is asked for (a saliency map, say):
            out.observation_grad = True  # the nets must not treat its parameter-free blocks as constants
        return out


def _mlp(inputs: int, layers: list[int], activation: type[nn.Module]) -> nn.Sequential:
    modules: list[nn.Module] = []
    for width in layers:
        modules += [nn.Linear(inputs, width), activation()]
        inputs = width
    return nn.Sequential(*modules)


class _PointerNets(nn.Module):
    """The policy's and value's MLPs over the context (``net_arch``); the actor's latent carries the
    slots on, for the head."""

    def __init__(self, context_dim: int, net_arch: Any, activation: type[nn.Module]) -> None:
        super().__init__()
        pi, vf = (net_arch.get("pi", []), net_arch.get("vf", [])) if isinstance(net_arch, dict) else (net_arch, net_arch)
        if not pi or not vf:
            raise ValueError("fight_klub_pointer needs at least one policy and one value layer in net_arch")
        self.context_dim = context_dim
        self.parts = _context_parts()
        self.policy_net = _mlp(context_dim, list(pi), activation)
        self.value_net = _mlp(context_dim, list(vf), activation)
        self.hidden = int(pi[-1])
        self.latent_dim_pi = self.hidden + K["slots"] * SLOT_DIM
        self.latent_dim_vf = int(vf[-1])

    def forward(self, features: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """``(forward_actor(features), forward_critic(features))``, the same numbers computed for the PPO
        update (with gradients enabled): both nets' first layers as one product, and the
        context's parameter-free columns (``_context_parts``: the fights' states, the table numbers, the
        answers, 1,175 of its 1,655) detached from the graph, so that the backward pass computes no
        gradient for them, which nothing would read, and of those only the columns nonzero somewhere in
        the batch enter the product. The features are taken apart with one ``split``:
        slicing them three times made the backward pass fill three zero tensors of their full size."""
        if not torch.is_grad_enabled() or getattr(features, "observation_grad", False):
            # acting (the rollouts): nothing to save in the backward pass, and the two products over the whole
            # context cost less than the parts' extra calls at that size; or the observation's own gradient is
            # wanted, which reaches it through the blocks detached below too
            return self.forward_actor(features), self.forward_critic(features)
        parts = features.split([*(w for w, _ in self.parts), features.shape[1] - self.context_dim], 1)
        first_pi, first_vf = self.policy_net[0], self.value_net[0]
        weights = torch.cat([first_pi.weight, first_vf.weight]).split([w for w, _ in self.parts], 1)
        hidden = torch.cat([first_pi.bias, first_vf.bias]).expand(features.shape[0], -1)
        for (_, learned), part, weight in zip(self.parts, parts, weights):
            if not learned:
                # a parameter-free block's columns that are zero in every row add nothing (and their
                # weights' gradient is zero): the product runs over the others, about 40% of them
                part = part.detach()
                columns = nonzero_columns(part)
                part, weight = part.index_select(1, columns), weight.index_select(1, columns)
            hidden = torch.addmm(hidden, part, weight.t())
        latent_pi, latent_vf = hidden.split([first_pi.out_features, first_vf.out_features], 1)
        for module in self.policy_net[1:]:
            latent_pi = module(latent_pi)
        for module in self.value_net[1:]:
            latent_vf = module(latent_vf)
        return torch.cat([latent_pi, parts[-1]], 1), latent_vf

    def forward_actor(self, features: torch.Tensor) -> torch.Tensor:
        return torch.cat([self.policy_net(features[:, :self.context_dim]), features[:, self.context_dim:]], 1)

    def forward_critic(self, features: torch.Tensor) -> torch.Tensor:
        return self.value_net(features[:, :self.context_dim])


class _PointerHead(nn.Module):
    """Logits: every action from the context, plus for each slot action a score of its own slot
    (``out(relu(key(slot) + query(context)))``, one scorer shared by the 24 slots)."""

    def __init__(self, hidden: int, num_actions: int) -> None:
        super().__init__()
        self.hidden, self.num_actions = hidden, num_actions
        self.base = nn.Linear(hidden, num_actions)
        self.query = nn.Linear(hidden, SCORE_HIDDEN)
        self.key = nn.Linear(SLOT_DIM, SCORE_HIDDEN)
        self.out = nn.Linear(SCORE_HIDDEN, 1)
        for layer, gain in ((self.base, 0.01), (self.query, 1.0), (self.key, 1.0), (self.out, 0.01)):
            nn.init.orthogonal_(layer.weight, gain=gain)
            nn.init.zeros_(layer.bias)

    def forward(self, latent: torch.Tensor) -> torch.Tensor:
        b, h0, n = latent.shape[0], K["hand0"], K["slots"]
        h, slots = latent.split([self.hidden, latent.shape[1] - self.hidden], 1)  # (slices: see the extractor)
        slots = slots.reshape(b, n, SLOT_DIM)
        scores = self.out(torch.relu(self.key(slots) + self.query(h).unsqueeze(1))).squeeze(-1)
        logits = self.base(h)
        return torch.cat([logits[:, :h0], logits[:, h0:h0 + n] + scores, logits[:, h0 + n:]], 1)


class FightKlubPointerPolicy(FastMaskablePolicy):
    """``FastMaskablePolicy`` with the pointer head (module docstring); needs
    :class:`FightKlubPointerExtractor`. ``net_arch`` sizes the context MLPs. Trains through the
    stock PPO path (its extractor has parameters)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        extractor = kwargs.get("features_extractor_class")
        if extractor is not FightKlubPointerExtractor:
            raise ValueError(f"FightKlubPointerPolicy needs features_extractor_class=FightKlubPointerExtractor, "
                             f"got {getattr(extractor, '__name__', extractor)!r}")
        if kwargs.get("share_features_extractor", True) is False:
            raise ValueError("FightKlubPointerPolicy shares its features extractor (share_features_extractor=True)")
        super().__init__(*args, **kwargs)

    def _build_mlp_extractor(self) -> None:
        self.mlp_extractor = _PointerNets(self.features_extractor.context_dim, self.net_arch, self.activation_fn)

    def _build(self, lr_schedule: Any) -> None:
        super()._build(lr_schedule)
        self.action_net = _PointerHead(self.mlp_extractor.hidden, int(self.action_space.n))
        # the optimizer again: it was built over the head that was just replaced
        fused = {"fused": True} if all(p.device.type in ("cpu", "cuda") for p in self.parameters()) \
            and not {"fused", "foreach"} & set(self.optimizer_kwargs) else {}
        self.optimizer = self.optimizer_class(self.parameters(), lr=lr_schedule(1), **fused, **self.optimizer_kwargs)
        self._fast = False  # the fast path's first-layer product does not fit this network
