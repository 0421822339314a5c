"""Regenerate the Fifth-Earth golden traces: ``python tests/fifth_earth/regen_golden.py``.

Run only when a change to the rules or the observation is intended, and say why in the commit.
"""

from __future__ import annotations

from pathlib import Path

from fight_envs import fifth_earth_v0
from fight_envs.testing import dump_trace, record_trace

GOLDEN_DIR = Path(__file__).resolve().parent / "golden"
CASES = {
    "2p_seed7": ({"num_players": 2, "rules": "classic"}, 7),
    "5p_seed3": ({"num_players": 5, "rules": "classic"}, 3),
    "4p_royale_two_destinations_seed11": ({"num_players": 4, "format": "royale", "num_destinations": 2,
                                           "rules": "classic"}, 11),
    "standard_2p_seed5": ({"num_players": 2}, 5),  # the standard default: the whole campaign, 25 destinations
    "standard_5p_seed9": ({"num_players": 5, "num_destinations": 5}, 9),  # five destinations keep the file small
}


def main() -> None:
    GOLDEN_DIR.mkdir(exist_ok=True)
    for name, (options, seed) in CASES.items():
        trace = record_trace(fifth_earth_v0, options, seed=seed, policy_seed=seed + 100)
        (GOLDEN_DIR / f"{name}.json").write_text(dump_trace(trace), encoding="utf-8")


if __name__ == "__main__":
    main()
