"""Average the weights of several checkpoints of one run into one policy checkpoint (weight averaging).

Stochastic weight averaging (Izmailov et al., 2018) in its simplest form: the mean of the weights of
checkpoints taken along one training run, late enough that they lie in one basin. The result is a
policy-only, data-only checkpoint (``fight_envs.agents.checkpoint.save_policy``) that
``fight-envs eval`` plays like any other. Every checkpoint must describe the same network (the
policy header of the zip); the sidecar of the last one is kept, with ``label`` and ``averaged``
saying what was averaged. Nothing is unpickled: pickled SB3 zips are refused.

Run from the repository root::

    python scripts/average_checkpoints.py OUT.zip runs/RUN/checkpoints/step_0000500000.zip ... runs/RUN/final.zip
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # this checkout's packages

from fight_envs.agents.checkpoint import load_policy, policy_spec, read_metadata, save_policy


def average(paths: list[Path], out: Path) -> Path:
    if len(paths) < 2:
        raise SystemExit("average_checkpoints: give at least two checkpoints to average")
    policies = [load_policy(p)[0] for p in paths]
    spec = policy_spec(policies[0])
    for p, policy in zip(paths[1:], policies[1:]):
        if policy_spec(policy) != spec:
            raise SystemExit(f"average_checkpoints: {p} describes another network than {paths[0]}; "
                             "only checkpoints of one network can be averaged")
    states = [policy.state_dict() for policy in policies]
    mean = {}
    for key, first in states[0].items():
        if first.is_floating_point():
            mean[key] = sum(s[key] for s in states) / len(states)
        else:  # counters and other integer buffers: they must agree
            if any(not bool((s[key] == first).all()) for s in states[1:]):
                raise SystemExit(f"average_checkpoints: the integer buffer {key!r} differs between the checkpoints")
            mean[key] = first
    policy = policies[-1]
    policy.load_state_dict(mean)
    meta = dict(read_metadata(paths[-1]))
    meta["label"] = f"average of {len(paths)} checkpoints"
    meta["averaged"] = [str(p) for p in paths]
    return save_policy(policy, out, meta)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="the averaged checkpoint to write (.zip; its .json sidecar beside it)")
    parser.add_argument("checkpoints", type=Path, nargs="+", help="data-only checkpoints of one network")
    args = parser.parse_args(argv)
    print(average(args.checkpoints, args.out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
