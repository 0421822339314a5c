"""TorchRL's ``PettingZooWrapper`` on every env: ``check_env_specs`` and a 500-step rollout.

The turn-based (AEC) forms go through ``use_mask=True`` (agents that are not acting are masked
out); Fight 5's parallel form is simultaneous play, so it goes through as a parallel env. The
games whose parallel form is a conversion of turn-based play (Brawl) give all-zero masks to the
fighters not deciding, which TorchRL's random policy cannot sample from: use their AEC form.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from fight_envs.registry import list_envs, make

torch = pytest.importorskip("torch")
torchrl_envs = pytest.importorskip("torchrl.envs")
from torchrl.envs.utils import check_env_specs  # noqa: E402

CASES = [(s.name, "aec") for s in list_envs()] + [(s.name, "parallel") for s in list_envs() if s.native_parallel]
STEPS = {"fifth_earth_v0": 1500}
"""Rollout steps where a game is longer than 500: a Fifth-Earth campaign of 25 destinations takes some 360-520
decisions under random play, so 500 steps may end none (default: 500)."""


def test_default_infos_have_no_action_mask_and_the_option_brings_it_back() -> None:
    for s in list_envs():
        env = make(s.name, api="raw")
        env.reset(seed=1)
        assert all("action_mask" not in env.infos[a] for a in env.agents), s.name
        env = make(s.name, api="raw", mask_in_info=True)
        env.reset(seed=1)
        for a in env.agents:
            np.testing.assert_array_equal(env.infos[a]["action_mask"], env.observe(a)["action_mask"])


@pytest.mark.parametrize(("name", "api"), CASES)
def test_torchrl_pettingzoo_wrapper_checks_specs_and_rolls_out_500_steps(name: str, api: str) -> None:
    torch.manual_seed(0)
    env = torchrl_envs.PettingZooWrapper(make(name, api=api), use_mask=(api == "aec"), seed=0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env_specs(env)
        steps = STEPS.get(name, 500)
        td = env.rollout(steps, break_when_any_done=False)
    assert not [w for w in caught if "illegal" in str(w.message)], "the random policy played an illegal action"
    assert td.batch_size == torch.Size([steps])
    for group in env.group_map:
        mask = td[group, "action_mask"]
        assert mask.dtype == torch.bool and mask.shape[-1] == env.full_action_spec[group, "action"].space.n
        assert ("info", "action_mask") not in td[group].keys(True)
    # the rollout went through resets: a game ended at least once (every game here ends well within its steps)
    assert td["next", "done"].any()
