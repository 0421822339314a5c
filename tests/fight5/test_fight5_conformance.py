"""PettingZoo conformance of the Fight 5 envs: the library's own api, seed and render tests.

Every player count is checked with the default options, with ``reward="score"``, and with a
one-bout game so that the tests' play loops also reach the end of an episode.
"""

from __future__ import annotations

import pytest

from fight_envs import fight5_v0
from fight_envs.testing import check_pettingzoo_conformance

CONFIGS = [
    *({"num_players": n} for n in (2, 3, 4, 5)),
    *({"num_players": n, "reward": "score"} for n in (2, 3, 4, 5)),
    *({"num_players": n, "num_bouts": 1, "target_score": None} for n in (2, 5)),
]


@pytest.mark.parametrize("options", CONFIGS, ids=lambda o: "-".join(f"{k}={v}" for k, v in o.items()))
def test_pettingzoo_conformance(options: dict) -> None:
    # 60 cycles: with 2 players and one bout (50 decisions each) the AEC loop plays a full game.
    check_pettingzoo_conformance(fight5_v0, options, num_cycles=60)


@pytest.mark.filterwarnings("ignore:Observation is not a NumPy array")
@pytest.mark.filterwarnings("ignore:Observation space for each agent probably should be")
def test_raw_env_passes_api_test() -> None:
    from pettingzoo.test import api_test

    with pytest.warns(UserWarning, match="unknown reset option"):
        api_test(fight5_v0.raw_env(num_players=3, num_bouts=1), num_cycles=80)
