"""Single-agent Gymnasium views of the suite's multi-agent envs, and their Gymnasium ids.

``SingleAgentEnv`` (in ``single_agent.py``) plays one seat as a Gymnasium env with the other
seats played by opponent policies. Importing this package (``import fight_envs`` does) registers:

| Gymnasium id | players |
| --- | --- |
| ``fight_envs/Fight5-v0`` | 2 |
| ``fight_envs/Fight5-3p-v0`` | 3 |
| ``fight_envs/Fight5-4p-v0`` | 4 |
| ``fight_envs/Fight5-5p-v0`` | 5 |
| ``fight_envs/Brawl-v0`` .. ``Brawl-8p-v0`` | 2 .. 8 (``Brawl-3p-v0`` ...) |
| ``fight_envs/FifthEarth-v0`` .. ``FifthEarth-6p-v0`` | 2 .. 6 |
| ``fight_envs/FightKlub-v0`` | 2 |

``gymnasium.make(id, **kwargs)`` passes ``kwargs`` to ``SingleAgentEnv``: ``opponents``,
``learner_seat``, ``obs_format`` and any option of the game (``reward="score"``, ``num_bouts``,
``num_destinations``, ``decks``...). The default opponents play uniformly at random among their
legal actions.

``gymnasium.make_vec(fight5_id, num_envs)`` builds :class:`~fight_envs.wrappers.batched.Fight5VectorEnv`:
the same learner's view of ``num_envs`` games stepped together by the batched Fight 5 engine, as a
Gymnasium ``VectorEnv`` (``vectorization_mode="sync"`` still gives a ``SyncVectorEnv`` of
``SingleAgentEnv``). The other games have no batched engine; ``make_vec`` gives them a ``SyncVectorEnv``.
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
VECTOR_ENTRY_POINT = "fight_envs.wrappers.batched:Fight5VectorEnv"
OTHER_IDS: dict[str, tuple[str, int]] = {
    **{("fight_envs/Brawl-v0" if n == 2 else f"fight_envs/Brawl-{n}p-v0"): ("brawl_v0", n) for n in range(2, 9)},
    **{("fight_envs/FifthEarth-v0" if n == 2 else f"fight_envs/FifthEarth-{n}p-v0"): ("fifth_earth_v0", n)
       for n in range(2, 7)},
    "fight_envs/FightKlub-v0": ("fight_klub_v0", 2),
}
"""Gymnasium id -> (env name, number of players) for the games other than Fight 5."""


def register_envs() -> None:
    """Register the Gymnasium ids above (idempotent: a re-import does not register twice)."""
    for env_id, num_players in FIGHT5_IDS.items():
        if env_id not in gymnasium.registry:
            gymnasium.register(id=env_id, entry_point=ENTRY_POINT, vector_entry_point=VECTOR_ENTRY_POINT,
                               kwargs={"env": "fight5_v0", "num_players": num_players})
    for env_id, (env_name, num_players) in OTHER_IDS.items():
        if env_id not in gymnasium.registry:
            gymnasium.register(id=env_id, entry_point=ENTRY_POINT, kwargs={"env": env_name, "num_players": num_players})


register_envs()

__all__ = ["FIGHT5_IDS", "OTHER_IDS", "OpponentSampler", "Policy", "SingleAgentEnv", "UniformRandomPolicy", "register_envs"]
