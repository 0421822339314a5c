"""PettingZoo conformance of the Brawl envs: the library's own api, parallel api, seed and render tests.

The issue names 2, 3, 5 and 8 fighters; each is checked with CHAOS reaction windows on (the
default), off, and for everyone (5 fighters), once with a step limit so small that the tests' loops meet truncation,
and once with the refusals block in the observation.
"""

from __future__ import annotations

import pytest

from fight_envs import brawl_v0
from fight_envs.testing import check_pettingzoo_conformance

CONFIGS = [
    *({"num_players": n} for n in (2, 3, 5, 8)),
    *({"num_players": n, "chaos_windows": False} for n in (2, 3, 5, 8)),
    {"num_players": 5, "chaos_windows": "all"},
    {"num_players": 3, "max_steps": 7, "reward": "winner"},
    {"num_players": 3, "refusals": True},
]


@pytest.mark.parametrize("options", CONFIGS, ids=lambda o: "-".join(f"{k}={v}" for k, v in o.items()))
def test_pettingzoo_conformance(options: dict, capsys: pytest.CaptureFixture[str]) -> None:
    # 200 cycles: with 2 or 3 fighters most games end within them, so the loops reach game ends.
    check_pettingzoo_conformance(brawl_v0, options, num_cycles=200)


@pytest.mark.filterwarnings("ignore:Observation is not a NumPy array")
@pytest.mark.filterwarnings("ignore:Observation space for each agent probably should be")
def test_raw_env_passes_api_test() -> None:
    from pettingzoo.test import api_test

    with pytest.warns(UserWarning, match="unknown reset option"):
        api_test(brawl_v0.raw_env(num_players=5), num_cycles=300)
