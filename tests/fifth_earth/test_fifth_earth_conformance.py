"""PettingZoo conformance of the Fifth-Earth env: the library's own api, seed and render tests.

There is no parallel form (``parallel_api_test`` does not apply; see the env's documentation
card), so the AEC tests run for every player count, both formats and the destination reward.
"""

from __future__ import annotations

import warnings

import pytest

from fight_envs import fifth_earth_v0

CONFIGS = [
    *({"num_players": n} for n in (2, 3, 4, 5, 6)),
    *({"num_players": n, "format": "royale"} for n in (3, 6)),
    {"num_players": 4, "reward": "destination", "num_destinations": 2},
]


@pytest.mark.parametrize("options", CONFIGS, ids=lambda o: "-".join(f"{k}={v}" for k, v in o.items()))
def test_pettingzoo_conformance(options: dict) -> None:
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=DeprecationWarning)
        from pettingzoo.test import api_test, render_test, seed_test
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r"unknown reset option")
        warnings.filterwarnings("ignore", message=r"Observation is not a NumPy array")
        warnings.filterwarnings("ignore", message=r"Observation space for each agent probably should be")
        # 250 cycles: longer than any one-destination game up to six players, so the loops reach the end.
        api_test(fifth_earth_v0.env(**options), num_cycles=250)
        seed_test(lambda **kw: fifth_earth_v0.env(**options, **kw), num_cycles=250)
        render_test(lambda **kw: fifth_earth_v0.env(**options, **kw))


@pytest.mark.filterwarnings("ignore:Observation is not a NumPy array")
@pytest.mark.filterwarnings("ignore:Observation space for each agent probably should be")
def test_raw_env_passes_api_test() -> None:
    from pettingzoo.test import api_test

    with pytest.warns(UserWarning, match="unknown reset option"):
        api_test(fifth_earth_v0.raw_env(num_players=3), num_cycles=200)
