"""Feature extractors for the policy network: what the MLP sees before its hidden layers.

``flat`` is SB3's own ``FlattenExtractor`` (the observation as is). ``fight5_slot`` appends to
the Fight 5 observation a copy of the block of the clash the observer fills now (selected by
the ``current_slot`` one-hot): the card to place depends first of all on that clash's Clash Card
and pot, and a plain MLP has to learn the selection (a product of two inputs) from data, which
slowed learning in our runs. ``brawl_answer`` appends to the Brawl observation what the Brawl
heuristic (``fight_envs.agents.brawl``) decides by: for the fighter the decision concerns (the
defender, else the aggressor, else the next fighter in the direction of play), the chance that it
answers each attack (holds the attack, JUMP, DODGE, COUNTER, BLOCK or CHAOS), that it matches it,
that it matches one copy more than the combo already asks, and that it holds each special card,
from the public counts (:func:`brawl_answer_features`, the batch form of ``BrawlView.p_answer`` and
``BrawlView.p_copies``, tested equal to them). These three have a numpy twin (``numpy_features``),
so checkpoint agents run without torch calls. ``fight_klub_cards`` (:class:`FightKlubCardExtractor`)
embeds every card slot of the Fight Klub observation with a layer shared by the slots of its kind:
it has parameters, trains with the policy and plays through torch.

The trainer's policy and rollout buffer are :class:`FastMaskablePolicy` and
:class:`FastMaskableRolloutBuffer`: sb3-contrib's ``MaskableActorCriticPolicy`` and
``MaskableRolloutBuffer`` with the same parameters, the same hyper-parameters and the same
math, computed with fewer operations (the PPO update was most of a batched training run's time).
``tests/train/test_fast_policy.py`` checks them against the stock classes on the same inputs.

``ppo.critic: privileged`` trains :class:`PrivilegedCriticPolicy`, an asymmetric actor-critic: its
observations are the env's followed by the env's ``privileged_observation`` (the hidden state), its
critic reads both and its actor the observation alone (:class:`PrivilegedCriticExtractor`,
:class:`SplitMlpExtractor`), so the model plays from the observation like any other.
``tests/train/test_privileged_critic.py`` checks that the actor never reads the hidden state.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

import numpy as np
import torch
from gymnasium import spaces
from sb3_contrib.common.maskable.buffers import MaskableRolloutBuffer, MaskableRolloutBufferSamples
from sb3_contrib.common.maskable.distributions import MaskableCategoricalDistribution
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor, FlattenExtractor, MlpExtractor
from torch import nn

from fight_envs.core.errors import ConfigError
from fight_envs.games.brawl.observe import OBS_SIZE as BRAWL_OBS_SIZE
from fight_envs.games.brawl.observe import OBS_SLICES as BRAWL_SLICES
from fight_envs.games.brawl.observe import REFUSALS_SIZE as BRAWL_REFUSALS_SIZE
from fight_envs.games.fight5.observe import CLASH_FEATURES, OBS_SIZE, OBS_SLICES
from fight_envs.games.fight5.topology import SLOTS_PER_PLAYER

CLASHES_START = OBS_SLICES["clashes"].start
SLOT_START = OBS_SLICES["current_slot"].start


class Fight5SlotExtractor(BaseFeaturesExtractor):
    """The Fight 5 observation followed by the current slot's clash block (all zero when not acting)."""

    def __init__(self, observation_space: spaces.Box) -> None:
        if observation_space.shape != (OBS_SIZE,):
            raise ValueError(f"fight5_slot features need the Fight 5 observation ({OBS_SIZE},), got {observation_space.shape}")
        super().__init__(observation_space, OBS_SIZE + CLASH_FEATURES)

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        blocks = observations[:, CLASHES_START: CLASHES_START + SLOTS_PER_PLAYER * CLASH_FEATURES]
        blocks = blocks.reshape(-1, SLOTS_PER_PLAYER, CLASH_FEATURES)
        slot = observations[:, SLOT_START: SLOT_START + SLOTS_PER_PLAYER]
        current = (blocks * slot.unsqueeze(-1)).sum(dim=1)
        return torch.cat([observations, current], dim=1)

    @staticmethod
    def numpy_features(observations: np.ndarray) -> np.ndarray:
        blocks = observations[:, CLASHES_START: CLASHES_START + SLOTS_PER_PLAYER * CLASH_FEATURES]
        blocks = blocks.reshape(-1, SLOTS_PER_PLAYER, CLASH_FEATURES)
        slot = observations[:, SLOT_START: SLOT_START + SLOTS_PER_PLAYER]
        current = np.einsum("bsf,bs->bf", blocks, slot)
        return np.concatenate([observations, current], axis=1)


# ===================================================================================== Brawl: answer chances
def _brawl_constants() -> dict[str, Any]:
    from fight_envs.agents.brawl import _ANSWERS, _DECKS, deck_of_size
    from fight_envs.games.brawl.cards import CHAOS, NUM_ATTACKS, NUM_CARD_TYPES, SPECIALS

    return {"answers": list(_ANSWERS), "decks": {int(k): np.asarray(v, dtype=np.float64) for k, v in _DECKS.items()},
            "default_deck": np.asarray(deck_of_size(-1), dtype=np.float64), "chaos": CHAOS, "attacks": NUM_ATTACKS, "types": NUM_CARD_TYPES,
            "specials": list(range(NUM_ATTACKS, NUM_ATTACKS + len(SPECIALS)))}


_BRAWL: dict[str, Any] = {}
BRAWL_ANSWER_FEATURES = 8 * 3 + 5
"""``brawl_answer``'s additions: per attack card (8) answer, match and combo-match chances, then one per special card (5)."""


def _brawl_target(obs: np.ndarray, n: np.ndarray, fighting: np.ndarray) -> np.ndarray:
    """Relative seat the decision concerns: the defender (when not me), else the aggressor (when not
    me), else the next fighter still fighting in the direction of play (``BrawlView.next_fighter``)."""
    S = BRAWL_SLICES
    rows = np.arange(obs.shape[0])

    def seat(name: str) -> np.ndarray:
        block = obs[:, S[name]]
        return np.where(block.max(axis=1) > 0, block.argmax(axis=1), -1)

    defender, attacker = seat("defender"), seat("attacker")
    step = np.where(obs[:, S["direction"].start] > 0.5, 1, -1)
    nxt = np.zeros(obs.shape[0], dtype=np.int64)
    found = np.zeros(obs.shape[0], dtype=bool)
    nn_ = np.maximum(n, 1)
    for k in range(1, fighting.shape[1]):
        s = (step * k) % nn_
        hit = ~found & (k < n) & fighting[rows, s]
        nxt[hit] = s[hit]
        found |= hit
    return np.where(defender > 0, defender, np.where(attacker > 0, attacker, nxt))


def _p_any(known: np.ndarray, hidden: np.ndarray, unseen: np.ndarray, cards: list[int]) -> np.ndarray:
    """``BrawlView._p_answer`` for every row: P(the target holds at least one card of ``cards``)."""
    pool = unseen.sum(axis=1)
    good = unseen[:, cards].sum(axis=1)
    bad = pool - good
    p_none = np.ones(known.shape[0])
    for k in range(int(hidden.max(initial=0))):  # C(pool-good, hidden) / C(pool, hidden), in the heuristic's order
        live = k < hidden
        p_none = np.where(live, p_none * np.where(live, (bad - k) / np.maximum(pool - k, 1), 1.0), p_none)
    p = 1.0 - p_none
    p = np.where(hidden > bad, 1.0, p)
    p = np.where((hidden <= 0) | (good == 0), 0.0, p)
    return np.where((known[:, cards] > 0).any(axis=1), 1.0, p)


def _p_copies(known: np.ndarray, hidden: np.ndarray, unseen: np.ndarray, card: int, copies: np.ndarray) -> np.ndarray:
    """``BrawlView.p_copies`` for every row: P(the target holds at least ``copies`` copies of ``card``)."""
    from scipy.special import comb

    need = copies - known[:, card]
    pool, good = unseen.sum(axis=1), unseen[:, card]
    below = np.zeros(known.shape[0])
    for x in range(int(need.max(initial=0))):
        term = comb(good, x) * comb(pool - good, hidden - x)
        below = below + np.where(x < need, term, 0.0)
    p = 1.0 - below / np.maximum(comb(pool, hidden), 1.0)
    p = np.where((hidden < need) | (good < need), 0.0, p)
    return np.where(need <= 0, 1.0, p)


def brawl_answer_features(observations: np.ndarray) -> np.ndarray:
    """The ``BRAWL_ANSWER_FEATURES`` chances the Brawl heuristic plays by, for each row of ``observations``.

    Target: :func:`_brawl_target`. Columns: for each attack card ``c`` (0..7), P(target answers
    ``c``: holds ``c``, JUMP, DODGE, COUNTER, BLOCK or CHAOS; the heuristic's ``_risk``), P(it holds
    ``c``), P(it holds one copy of ``c`` more than the combo asks; its ``_extend_combo``); then for
    JUMP, DODGE, COUNTER, BLOCK, CHAOS, P(it holds one). Known cards count as held, the rest drawn
    without replacement from the unseen cards (the deck, told by the number of cards in play, less
    every card the observation places), as in ``BrawlView``. At two fighters (the open showdown)
    every chance is 0 or 1.
    """
    if not _BRAWL:
        _BRAWL.update(_brawl_constants())
    C = _BRAWL
    S = BRAWL_SLICES
    raw = np.asarray(observations, dtype=np.float64)
    raw = raw.reshape(-1, raw.shape[-1])[:, :BRAWL_OBS_SIZE]  # the standard observation (a refusals block may follow)
    obs = np.rint(raw)
    b, t = obs.shape[0], C["types"]
    seats = S["present"].stop - S["present"].start
    rows = np.arange(b)
    n = obs[:, S["present"]].sum(axis=1).astype(np.int64)
    seat_ok = np.arange(seats)[None, :] < n[:, None]
    known = obs[:, S["known"]].reshape(b, seats, t) * seat_ok[:, :, None]
    sizes = obs[:, S["hand_sizes"]] * seat_ok
    fighting = (raw[:, S["fighting"]] > 0.5) & seat_ok
    discard, table = obs[:, S["discard"]], obs[:, S["table"]]
    spent = obs[:, S["chaos_spent"].start]
    seen = obs[:, S["hand"]] + discard + table + known.sum(axis=1)
    seen[:, C["chaos"]] += spent
    total = sizes.sum(axis=1) + obs[:, S["draw_pile"].start] + spent + discard.sum(axis=1) + table.sum(axis=1)
    deck = np.broadcast_to(C["default_deck"], (b, t)).copy()  # agents.brawl.deck_of_size, per row
    for size, cards in C["decks"].items():
        deck[total == size] = cards
    unseen = np.maximum(deck - seen, 0.0)
    target = _brawl_target(obs, n, fighting)
    k_t = known[rows, target]
    hidden = sizes[rows, target] - k_t.sum(axis=1)
    combo = obs[:, S["combo"]]
    attacks = C["attacks"]
    if not (hidden > 0).any():  # every target's hand known (the open showdown): the chances are 0 or 1
        held = k_t > 0
        answer = held[:, C["answers"]].any(axis=1, keepdims=True)
        return np.concatenate([held[:, :attacks] | answer, held[:, :attacks], k_t[:, :attacks] >= combo[:, :attacks] + 1,
                               held[:, C["specials"]]], axis=1).astype(np.float32)
    out = np.empty((b, BRAWL_ANSWER_FEATURES), dtype=np.float64)
    for c in range(attacks):
        out[:, c] = _p_any(k_t, hidden, unseen, [c, *C["answers"]])
        out[:, attacks + c] = _p_any(k_t, hidden, unseen, [c])
        out[:, 2 * attacks + c] = _p_copies(k_t, hidden, unseen, c, combo[:, c] + 1)
    for j, s in enumerate(C["specials"]):
        out[:, 3 * attacks + j] = _p_any(k_t, hidden, unseen, [s])
    return out.astype(np.float32)


class BrawlAnswerExtractor(BaseFeaturesExtractor):
    """The Brawl observation followed by :func:`brawl_answer_features` (parameter-free: no gradient flows
    into the chances, which are computed by the numpy twin and handed to torch)."""

    def __init__(self, observation_space: spaces.Box) -> None:
        if observation_space.shape not in ((BRAWL_OBS_SIZE,), (BRAWL_OBS_SIZE + BRAWL_REFUSALS_SIZE,)):
            raise ValueError(f"brawl_answer features need the Brawl observation ({BRAWL_OBS_SIZE},), or "
                             f"({BRAWL_OBS_SIZE + BRAWL_REFUSALS_SIZE},) with refusals=True; got {observation_space.shape}")
        super().__init__(observation_space, int(observation_space.shape[0]) + BRAWL_ANSWER_FEATURES)

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        extra = brawl_answer_features(observations.detach().cpu().numpy())
        return torch.cat([observations, torch.as_tensor(extra, device=observations.device)], dim=1)

    @staticmethod
    def numpy_features(observations: np.ndarray) -> np.ndarray:
        x = np.asarray(observations, dtype=np.float32)
        return np.concatenate([x, brawl_answer_features(x)], axis=1)


# ===================================================================================== Fight Klub: card embeddings
class FightKlubCardExtractor(BaseFeaturesExtractor):
    """The Fight Klub observation with every card slot embedded by a layer shared across slots.

    The observation (``fight_envs.games.fight_klub.observe``, 20,274 floats) is mostly card slots: 16
    hand rows and 2 x 8 support rows of support-card features, six Fight cards and two characters.
    A flat MLP gives each slot its own first-layer weights (5.2 million of them for 256 units), so
    what it learns about a card in hand position 3 does not carry to position 4, and most of a
    run's time goes into that one product. Here one ``Linear + tanh`` maps every support-card row
    (a hand row padded with a zero "used" flag) to ``SUPPORT_EMBED`` numbers, another every Fight
    card to ``FIGHT_EMBED`` and a third each character's gametext to ``CHARACTER_EMBED``; the rows
    stay in their positions (an action names a hand or support position), and the blocks that are
    not card slots (the table numbers, the fights' states, the piles' sums) pass as they are.
    The output: hand, my support area, the other's, the six Fight cards (fight by fight, mine
    first), both characters, then the rest in observation order, ``FIGHT_KLUB_FEATURES`` numbers.
    It has parameters, so it trains with the policy (the stock PPO update, not
    ``fast_ppo``'s) and plays through torch (``PolicyAgent``); no numpy twin.
    """

    def __init__(self, observation_space: spaces.Box) -> None:
        k = _fight_klub_layout()
        if observation_space.shape != (k["size"],):
            raise ValueError(f"fight_klub_cards features need the Fight Klub observation ({k['size']},), "
                             f"got {observation_space.shape}")
        super().__init__(observation_space, k["features"])
        self.k = k
        self.support = nn.Sequential(nn.Linear(k["support_row"], SUPPORT_EMBED), nn.Tanh())
        self.fight = nn.Sequential(nn.Linear(k["fight_card"], FIGHT_EMBED), nn.Tanh())
        self.character = nn.Sequential(nn.Linear(k["character"], CHARACTER_EMBED), nn.Tanh())

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        k, x = self.k, observations
        b = x.shape[0]
        hand = x[:, k["hand"]].reshape(b, k["max_hand"], k["support_row"] - 1)
        hand = torch.cat([hand, hand.new_zeros(b, k["max_hand"], 1)], dim=2)  # a hand card is not "used"
        areas = x[:, k["areas"]].reshape(b, 2 * k["max_support"], k["support_row"])
        rows = self.support(torch.cat([hand, areas], dim=1)).reshape(b, -1)
        fights = x[:, k["fights"]].reshape(b, k["fights_per_turn"], k["fight_size"])
        cards = fights[:, :, :2 * k["fight_card"]].reshape(b, 2 * k["fights_per_turn"], k["fight_card"])
        states = fights[:, :, 2 * k["fight_card"]:].reshape(b, -1)
        characters = x[:, k["characters"]].reshape(b, 2, k["character"])
        return torch.cat([rows, self.fight(cards).reshape(b, -1), states, self.character(characters).reshape(b, -1),
                          x[:, k["rest"]]], dim=1)


SUPPORT_EMBED = 24
FIGHT_EMBED = 32
CHARACTER_EMBED = 16


def _fight_klub_layout() -> dict[str, Any]:
    """The slices and sizes ``FightKlubCardExtractor`` reads, from the encoder's own layout."""
    from fight_envs.games.fight_klub.observe import (
        CHARACTER_SIZE,
        FIGHT_CARD_SIZE,
        FIGHT_SIZE,
        FIGHT_STATE_SIZE,
        OBS_SLICES,
        SUPPORT_SIZE,
    )
    from fight_envs.games.fight_klub.observe import OBS_SIZE as FK_OBS_SIZE
    from fight_envs.games.fight_klub.rules import FIGHTS_PER_TURN, MAX_HAND, MAX_SUPPORT

    S = OBS_SLICES
    assert S["support_opp"].start == S["support_me"].stop and S["character_opp"].start == S["character_me"].stop
    rest = [S[name] for name in ("global", "me", "opp", "deck_me", "stack_me", "deck_opp", "stack_opp", "plays_opp")]
    n_rest = sum(r.stop - r.start for r in rest)
    features = ((MAX_HAND + 2 * MAX_SUPPORT) * SUPPORT_EMBED + 2 * FIGHTS_PER_TURN * FIGHT_EMBED
                + FIGHTS_PER_TURN * FIGHT_STATE_SIZE + 2 * CHARACTER_EMBED + n_rest)
    return {"size": FK_OBS_SIZE, "support_row": SUPPORT_SIZE + 1, "fight_card": FIGHT_CARD_SIZE, "fight_size": FIGHT_SIZE,
            "character": CHARACTER_SIZE, "max_hand": MAX_HAND, "max_support": MAX_SUPPORT, "fights_per_turn": FIGHTS_PER_TURN,
            "hand": S["hand"], "areas": slice(S["support_me"].start, S["support_opp"].stop), "fights": S["fights"],
            "characters": slice(S["character_me"].start, S["character_opp"].stop),
            "rest": torch.as_tensor(np.concatenate([np.arange(r.start, r.stop) for r in rest])), "features": features}


FEATURES: dict[str, type[BaseFeaturesExtractor]] = {"flat": FlattenExtractor, "fight5_slot": Fight5SlotExtractor,
                                                   "brawl_answer": BrawlAnswerExtractor,
                                                   "fight_klub_cards": FightKlubCardExtractor}
"""Config name (``ppo.features``) -> extractor class."""


def features_kwargs(name: str, privileged_columns: int = 0) -> dict[str, Any]:
    """The ``policy_kwargs`` entries for extractor ``name`` (and a privileged critic's column count, if any)."""
    return {"features_extractor_class": FEATURES[name], **({"privileged_columns": privileged_columns}
                                                           if privileged_columns else {})}


def policy_class(name: str, critic: str = "shared") -> type[MaskableActorCriticPolicy]:
    """The policy class that trains with extractor ``name``: ``FastMaskablePolicy``, the one
    ``POLICY_OF_FEATURES`` names (an extractor whose output only its own head reads), or, with
    ``critic="privileged"``, ``PrivilegedCriticPolicy``."""
    if critic == "privileged":
        if name in POLICY_OF_FEATURES:
            raise ConfigError(f"ppo.critic=privileged does not combine with ppo.features={name} (a policy head of "
                              f"its own); use ppo.critic=shared")
        return PrivilegedCriticPolicy
    return POLICY_OF_FEATURES.get(name, FastMaskablePolicy)


# ===================================================================================== the trainer's policy
MASKED_LOGIT = -1e8
"""What sb3-contrib's ``MaskableCategorical`` puts in place of a masked logit (``HUGE_NEG``)."""
SPARSE_FRACTION = 0.8
"""The first layers skip the all-zero feature columns of a batch when at most this share is nonzero."""


def nonzero_columns(x: torch.Tensor) -> torch.Tensor:
    """The indices of the columns of ``x`` (rows, columns) nonzero in some row; a NaN counts as nonzero."""
    return torch.nonzero((x != 0).any(dim=0)).squeeze(1)


def masked_log_probs(logits: torch.Tensor, masks: Any) -> tuple[torch.Tensor, torch.Tensor]:
    """(bool masks, normalised masked log-probabilities) of ``MaskableCategorical(logits, masks)``.

    The very operations the stock distribution runs (``Categorical`` normalises the logits, the
    masking replaces the illegal ones by -1e8 and normalises again), without building the two
    ``Categorical`` objects and their argument checks: the same numbers, bit for bit.
    """
    masks = torch.as_tensor(masks, dtype=torch.bool, device=logits.device).reshape(logits.shape)
    normalised = logits - logits.logsumexp(dim=-1, keepdim=True)
    masked = torch.where(masks, normalised, torch.tensor(MASKED_LOGIT, dtype=logits.dtype, device=logits.device))
    return masks, masked - masked.logsumexp(dim=-1, keepdim=True)


class FastMaskablePolicy(MaskableActorCriticPolicy):
    """sb3-contrib's ``MaskableActorCriticPolicy`` (``"MlpPolicy"``), cheaper to run; nothing else changes.

    The same modules, parameters and state dict (a checkpoint loads into either class), the same
    constructor arguments, the same outputs up to float rounding. Where it applies (a shared
    features extractor, MLP first layers, a Discrete action space), ``forward`` and
    ``evaluate_actions`` differ from the stock ones in how they compute, not in what:

    * The policy's and the value net's first layers run as one matrix product over only the
      feature columns that are nonzero somewhere in the batch (the Fight 5 observation is padded
      to five players, so in two-player games over half of it is always zero). A zero column
      adds exactly nothing to the products and receives a zero gradient either way.
    * The masked categorical distribution is computed directly (:func:`masked_log_probs`, then
      the stock ``log_prob``, ``entropy`` and ``multinomial`` sampling on the same tensors)
      instead of through two ``torch.distributions`` objects: the same numbers, and the same
      random draws, as ``MaskableCategorical``.
    * Adam is torch's fused implementation (one kernel for all parameters; the same update rule
      and hyper-parameters) where the parameters are on the CPU or a GPU and ``optimizer_kwargs``
      chooses no implementation itself.

    Anything else (masks absent, other action spaces, separate extractors) takes the stock path.
    """

    def _build(self, lr_schedule: Any) -> None:
        super()._build(lr_schedule)
        if (self.optimizer_class is torch.optim.Adam and not {"fused", "foreach"} & set(self.optimizer_kwargs)
                and all(p.device.type in ("cpu", "cuda") for p in self.parameters())):
            self.optimizer = self.optimizer_class(self.parameters(), lr=lr_schedule(1), fused=True, **self.optimizer_kwargs)
        pi, vf = list(self.mlp_extractor.policy_net), list(self.mlp_extractor.value_net)
        self._fast = (self.share_features_extractor and isinstance(self.action_dist, MaskableCategoricalDistribution)
                      and len(pi) > 0 and len(vf) > 0 and isinstance(pi[0], nn.Linear) and isinstance(vf[0], nn.Linear))
        # the layers as plain lists (no module lookups per call): first layers, then the rest of each net
        self._firsts = (pi[0], vf[0]) if self._fast else ()
        self._rests = (pi[1:], vf[1:])

    def _fast_path(self) -> bool:
        return self._fast

    def nonzero_columns(self, features: torch.Tensor) -> torch.Tensor | None:
        """The feature columns nonzero somewhere in ``features``, or None when over ``SPARSE_FRACTION`` are."""
        columns = nonzero_columns(features)
        return columns if columns.numel() <= SPARSE_FRACTION * features.shape[1] else None

    def latents(self, features: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """``mlp_extractor(features)``, the two first layers as one product over the nonzero columns."""
        columns = self.nonzero_columns(features)
        if columns is not None:
            features = features.index_select(1, columns)
        return self.latents_of_columns(features, columns)

    def latents_of_columns(self, features: torch.Tensor,
                           columns: torch.Tensor | None) -> tuple[torch.Tensor, torch.Tensor]:
        """:meth:`latents` of features already cut to ``columns`` (None: all of them); the columns
        left out must be zero in these rows."""
        pi0, vf0 = self._firsts
        weight = torch.cat([pi0.weight, vf0.weight])
        bias = torch.cat([pi0.bias, vf0.bias])
        if columns is not None:
            weight = weight.index_select(1, columns)
        hidden = torch.addmm(bias, features, weight.t())
        latent_pi, latent_vf = hidden.split([pi0.out_features, vf0.out_features], dim=1)
        for module in self._rests[0]:
            latent_pi = module(latent_pi)
        for module in self._rests[1]:
            latent_vf = module(latent_vf)
        return latent_pi, latent_vf

    def forward(self, obs: torch.Tensor, deterministic: bool = False,
                action_masks: np.ndarray | None = None) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        if action_masks is None or not self._fast_path():
            return super().forward(obs, deterministic, action_masks)
        latent_pi, latent_vf = self.latents(self.extract_features(obs))
        values = self.value_net(latent_vf)
        logits = self.action_net(latent_pi).view(-1, self.action_dist.action_dim)
        _, log_p = masked_log_probs(logits, action_masks)
        if deterministic:  # MaskableCategoricalDistribution.mode
            actions = torch.argmax(torch.softmax(log_p, dim=-1), dim=1)
        else:  # Categorical.sample: one multinomial draw per row from the probabilities
            actions = torch.multinomial(torch.softmax(log_p, dim=-1), 1, True).T.reshape(log_p.shape[:-1])
        log_prob = log_p.gather(-1, actions.long().unsqueeze(-1)).squeeze(-1)
        return actions.reshape((-1, *self.action_space.shape)), values, log_prob

    def evaluate_actions(self, obs: torch.Tensor, actions: torch.Tensor,
                         action_masks: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor | None]:
        if action_masks is None or not self._fast_path():
            return super().evaluate_actions(obs, actions, action_masks)
        return self.evaluate_latents(*self.latents(self.extract_features(obs)), actions, action_masks)

    def evaluate_latents(self, latent_pi: torch.Tensor, latent_vf: torch.Tensor, actions: torch.Tensor,
                         action_masks: Any, fused: bool = False) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """The rest of :meth:`evaluate_actions` from the latents: values, log-probabilities, entropies.

        ``fused`` (the PPO update, ``fight_envs.train.fast_ppo``): the masked log-probabilities as one
        ``log_softmax`` of the masked logits and the probabilities as their ``exp``, the same
        functions as the stock two normalisations and ``softmax`` in fewer operations (they agree
        to float rounding, ~5e-7, not bit for bit; the rollout's sampling keeps the stock ones).
        """
        logits = self.action_net(latent_pi).view(-1, self.action_dist.action_dim)
        if fused:
            masks = torch.as_tensor(action_masks, dtype=torch.bool, device=logits.device).reshape(logits.shape)
            log_p = torch.log_softmax(torch.where(masks, logits, MASKED_LOGIT), dim=-1)
            p_log_p = log_p * log_p.exp()
        else:
            masks, log_p = masked_log_probs(logits, action_masks)
            p_log_p = log_p * torch.softmax(log_p, dim=-1)
        log_prob = log_p.gather(-1, actions.long().unsqueeze(-1)).squeeze(-1)
        # MaskableCategorical.entropy: masked actions contribute exactly 0
        entropy = -torch.where(masks, p_log_p, torch.tensor(0.0, device=log_p.device)).sum(-1)
        return self.value_net(latent_vf), log_prob, entropy


class FastMaskableRolloutBuffer(MaskableRolloutBuffer):
    """sb3-contrib's ``MaskableRolloutBuffer`` handing out the same minibatches, in the same order
    (the same ``np.random.permutation``), cut from tensors converted once per rollout instead of
    converting seven arrays per minibatch.

    The observations are never reordered as a whole: the stock buffer swaps its (step, env) arrays
    to (env, step) order with a copy, and converts them to a tensor with another, which for Fight
    Klub's 81 KB observations was two copies of 330 MB a rollout, a tenth of a training run. Here
    they stay where ``add`` wrote them (a tensor over the same memory) and each minibatch's rows are
    translated to their places (:attr:`obs_index`); the small arrays are swapped as before."""

    def get(self, batch_size: int | None = None) -> Generator[MaskableRolloutBufferSamples, None, None]:  # type: ignore[override]
        obs, rest = self.rollout_parts()
        for rows in self.minibatch_rows(batch_size):
            yield MaskableRolloutBufferSamples(obs.index_select(0, self.obs_index.index_select(0, rows)),
                                               *(t.index_select(0, rows) for t in rest))

    def rollout_parts(self) -> tuple[torch.Tensor, list[torch.Tensor]]:
        """The observations in (step, env) order (a tensor over the buffer's own array: :attr:`obs_index`
        maps ``get``'s rows to them), and the six other tensors in ``get``'s numbering."""
        assert self.full, ""
        if not self.generator_ready:
            for name in ("actions", "values", "log_probs", "advantages", "returns", "action_masks"):
                self.__dict__[name] = self.swap_and_flatten(self.__dict__[name])
            self.generator_ready = True
            size = self.buffer_size * self.n_envs
            # a view of the buffer's own array (``reset`` allocates a fresh one for the next rollout)
            self._obs = torch.as_tensor(self.observations.reshape(size, *self.observations.shape[2:]), device=self.device)
            rows = torch.arange(size, device=self.device)  # get's row r is env r // n_steps at step r % n_steps
            self.obs_index = (rows % self.buffer_size) * self.n_envs + rows // self.buffer_size
            self._rest = [
                self.to_torch(self.actions), self.to_torch(self.values.flatten()),
                self.to_torch(self.log_probs.flatten()), self.to_torch(self.advantages.flatten()),
                self.to_torch(self.returns.flatten()), self.to_torch(self.action_masks.reshape(-1, self.mask_dims)),
            ]
        return self._obs, self._rest

    def reset(self) -> None:
        super().reset()
        self._obs = self._rest = None  # the last rollout's tensors: freed before the next fills

    def rollout_tensors(self) -> list[torch.Tensor]:
        """The whole rollout as the seven tensors of ``MaskableRolloutBufferSamples``, rows in ``get``'s numbering
        (the observations copied once into that order)."""
        obs, rest = self.rollout_parts()
        return [obs.index_select(0, self.obs_index), *rest]

    def minibatch_rows(self, batch_size: int | None = None) -> Generator[torch.Tensor, None, None]:
        """The rows of each of ``get``'s minibatches: one ``np.random.permutation`` per pass, as the stock ``get``."""
        assert self.full, ""
        size = self.buffer_size * self.n_envs
        order = torch.as_tensor(np.random.permutation(size), device=self.device)
        if batch_size is None:
            batch_size = size
        for start in range(0, size, batch_size):
            yield order[start: start + batch_size]


# ===================================================================================== the privileged critic
class PrivilegedCriticExtractor(BaseFeaturesExtractor):
    """The actor's extractor on the observation, then the privileged block as it is (``ppo.critic: privileged``).

    The policy's observations in training are the env's observation (``observation_size`` columns)
    followed by ``privileged`` columns of hidden state (the env's ``privileged_observation``,
    appended by ``MultiGameVecEnv(privileged=True)``). The output is ``inner(observation)``
    (``actor_dim`` numbers) followed by the privileged columns: :class:`SplitMlpExtractor` gives the
    actor the first ``actor_dim`` and the critic everything. Given the observation alone (the
    privileged columns absent, as in play), it returns the actor's features alone, which is all
    the actor reads.
    """

    def __init__(self, observation_space: spaces.Box, inner: type[BaseFeaturesExtractor], privileged: int) -> None:
        size = int(observation_space.shape[0]) - int(privileged)
        if len(observation_space.shape) != 1 or privileged < 1 or size < 1:
            raise ValueError(f"a privileged critic needs a flat observation longer than its {privileged} privileged "
                             f"columns, got {observation_space.shape}")
        inner_space = spaces.Box(observation_space.low[:size], observation_space.high[:size], dtype=np.float32)
        extractor = inner(inner_space)
        super().__init__(observation_space, extractor.features_dim + int(privileged))
        self.inner = extractor
        self.observation_size = size
        self.privileged = int(privileged)
        self.actor_dim = extractor.features_dim

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        actor = self.inner(observations[:, :self.observation_size])
        return torch.cat([actor, observations[:, self.observation_size:]], dim=1)

    def numpy_features(self, observations: np.ndarray) -> np.ndarray:
        """The actor's features of ``observations`` (the env's observation; privileged columns, if any, ignored)."""
        x = np.asarray(observations, dtype=np.float32)[:, :self.observation_size]
        twin = getattr(self.inner, "numpy_features", None)
        return x if twin is None else twin(x)


class SplitMlpExtractor(MlpExtractor):
    """SB3's ``MlpExtractor`` whose policy net reads the first ``actor_dim`` features and whose value
    net reads all ``critic_dim`` (the privileged critic's): the actor never sees the hidden state."""

    def __init__(self, actor_dim: int, critic_dim: int, net_arch: Any, activation_fn: type[nn.Module],
                 device: Any = "auto") -> None:
        super().__init__(actor_dim, net_arch, activation_fn, device)
        self.value_net = MlpExtractor(critic_dim, net_arch, activation_fn, device).value_net
        self.actor_dim = actor_dim

    def forward(self, features: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.forward_actor(features), self.forward_critic(features)

    def forward_actor(self, features: torch.Tensor) -> torch.Tensor:
        return self.policy_net(features[:, :self.actor_dim])

    def forward_critic(self, features: torch.Tensor) -> torch.Tensor:
        return self.value_net(features)


class PrivilegedCriticPolicy(FastMaskablePolicy):
    """:class:`FastMaskablePolicy` whose critic also reads ``privileged_columns`` of hidden state (an
    asymmetric actor-critic: the value is learnt from what the acting seat cannot see, which lowers the
    variance of the advantages; the actor reads the observation alone, so it plays without them).

    ``features_extractor_class`` is the actor's extractor (``ppo.features``); the policy wraps it in
    :class:`PrivilegedCriticExtractor`. The observation space is the env's observation followed by
    the privileged columns. Play (``PolicyAgent``) hands it the env's observation alone.
    """

    def __init__(self, *args: Any, privileged_columns: int = 0, **kwargs: Any) -> None:
        if isinstance(privileged_columns, bool) or not isinstance(privileged_columns, int) or privileged_columns < 1:
            raise ValueError(f"privileged_columns must be an int >= 1, got {privileged_columns!r}")
        self.privileged_columns = privileged_columns
        super().__init__(*args, **kwargs)

    def make_features_extractor(self) -> BaseFeaturesExtractor:
        return PrivilegedCriticExtractor(self.observation_space, self.features_extractor_class, self.privileged_columns,
                                         **self.features_extractor_kwargs)

    def _build_mlp_extractor(self) -> None:
        self.mlp_extractor = SplitMlpExtractor(self.features_extractor.actor_dim, self.features_dim, self.net_arch,
                                               self.activation_fn, self.device)

    def _get_constructor_parameters(self) -> dict[str, Any]:
        return {**super()._get_constructor_parameters(), "privileged_columns": self.privileged_columns}

    def nonzero_columns(self, features: torch.Tensor) -> None:
        return None  # the two first layers read different columns: no shared product to thin

    def latents_of_columns(self, features: torch.Tensor,
                           columns: torch.Tensor | None) -> tuple[torch.Tensor, torch.Tensor]:
        if columns is not None:
            raise ValueError("PrivilegedCriticPolicy reads every feature column (nonzero_columns gives None)")
        return self.mlp_extractor(features)


def load_weights(policy: MaskableActorCriticPolicy, source: MaskableActorCriticPolicy) -> None:
    """Load ``source``'s weights into ``policy``: the same network, or ``policy`` the privileged-critic form
    of ``source``'s (a warm start from a shared critic). Then every weight carries over, and the value net's
    first layer keeps ``source``'s weights on the actor's features and zero on the hidden-state columns, so
    the critic starts as ``source``'s critic."""
    state = source.state_dict()
    if isinstance(policy, PrivilegedCriticPolicy) and not isinstance(source, PrivilegedCriticPolicy):
        ours = policy.state_dict()
        renamed = {}
        for key, value in state.items():
            # the shared extractor is the privileged wrapper's inner one
            key = key.replace("features_extractor.", "features_extractor.inner.", 1)
            if key in ours and ours[key].shape != value.shape and key.endswith("value_net.0.weight"):
                wide = torch.zeros_like(ours[key])
                wide[:, :value.shape[1]] = value
                value = wide
            renamed[key] = value
        state = renamed
    policy.load_state_dict(state)


# The Fight Klub pointer network lives in its own module, which builds on FastMaskablePolicy above
# (imported here, at the end, so that the names it imports from this module already exist).
from fight_envs.train.features_fight_klub import FightKlubPointerExtractor, FightKlubPointerPolicy  # noqa: E402

FEATURES["fight_klub_pointer"] = FightKlubPointerExtractor
POLICY_OF_FEATURES: dict[str, type[MaskableActorCriticPolicy]] = {"fight_klub_pointer": FightKlubPointerPolicy}
"""Extractors that need their own policy class (``policy_class``)."""
