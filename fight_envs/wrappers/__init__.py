"""Single-agent Gymnasium views of the suite's multi-agent envs, and their Gymnasium ids.

``SingleAgentEnv`` (in ``single_agent.py``) plays one seat as a Gymnasium env with the other
seats played by opponent policies. Importing this package (``import fight_envs`` does) registers:

| Gymnasium id | players |
| --- | --- |
| ``fight_envs/Fight5-v0`` | 2 |
| ``fight_envs/Fight5-3p-v0`` | 3 |
| ``fight_envs/Fight5-4p-v0`` | 4 |
| ``fight_envs/Fight5-5p-v0`` | 5 |

``gymnasium.make(id, **kwargs)`` passes ``kwargs`` to ``SingleAgentEnv``: ``opponents``,
``learner_seat``, ``obs_format`` and any Fight 5 option (``reward="score"``, ``num_bouts``...).
The default opponents play uniformly at random among their legal actions.
"""

from __future__ import annotations

import gymnasium

from fight_envs.wrappers.single_agent import OpponentSampler, Policy, SingleAgentEnv, UniformRandomPolicy

ENTRY_POINT = "fight_envs.wrappers.single_agent:SingleAgentEnv"
FIGHT5_IDS: dict[str, int] = {
    "fight_envs/Fight5-v0": 2,
    "fight_envs/Fight5-3p-v0": 3,
    "fight_envs/Fight5-4p-v0": 4,
    "fight_envs/Fight5-5p-v0": 5,
}
"""Gymnasium id -> number of players."""


def register_envs() -> None:
    """Register the Gymnasium ids above (idempotent: a re-import does not register twice)."""
    for env_id, num_players in FIGHT5_IDS.items():
        if env_id not in gymnasium.registry:
            gymnasium.register(id=env_id, entry_point=ENTRY_POINT, kwargs={"env": "fight5_v0", "num_players": num_players})


register_envs()

__all__ = ["FIGHT5_IDS", "OpponentSampler", "Policy", "SingleAgentEnv", "UniformRandomPolicy", "register_envs"]
