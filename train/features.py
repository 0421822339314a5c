"""Feature extractors for the policy network: what the MLP sees before its hidden layers.

``flat`` is SB3's own ``FlattenExtractor`` (the observation as is). ``fight5_slot`` appends to
the Fight 5 observation a copy of the block of the clash the observer fills now (selected by
the ``current_slot`` one-hot): the card to place depends first of all on that clash's Clash Card
and pot, and a plain MLP has to learn the selection (a product of two inputs) from data, which
slowed learning in our runs. Both have a numpy twin (``numpy_features``), so checkpoint agents
run without torch calls.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from gymnasium import spaces
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor, FlattenExtractor

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


FEATURES: dict[str, type[BaseFeaturesExtractor]] = {"flat": FlattenExtractor, "fight5_slot": Fight5SlotExtractor}
"""Config name (``ppo.features``) -> extractor class."""


def features_kwargs(name: str) -> dict[str, Any]:
    """The ``policy_kwargs`` entries for extractor ``name``."""
    return {"features_extractor_class": FEATURES[name]}
