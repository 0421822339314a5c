"""What a picture costs: ``render_mode="rgb_array"`` frames and SVG scenes, beside the env's own
step measured in the same run.

For each game a mid-game table (ten random legal moves from seed 1) is drawn repeatedly as
player_0 sees it. Lines: milliseconds per ``render()`` frame (600 x 960 x 3, Pillow raster),
per SVG scene (``fight_envs.drawing.draw(...).to_svg()``), per AEC step of random play, and the
ratio frame / step (how many env steps one recorded frame costs). Times are per second of this
process's CPU time (less disturbed on a shared machine) and of wall time.

Run from the repository root::

    python benchmarks/bench_drawing.py [--repeats 30]
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np

from fight_envs.drawing import draw
from fight_envs.registry import make

ENVS = ("fight5_v0", "brawl_v0", "fifth_earth_v0", "fight_klub_v0")


def random_steps(env, steps: int, seed: int) -> int:
    rng = np.random.default_rng(seed)
    taken = 0
    while taken < steps and env.agents:
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            env.step(None)
            continue
        env.step(int(rng.choice(np.flatnonzero(env.observe(agent)["action_mask"]))))
        taken += 1
    return taken


def timed(fn: Callable[[], object], repeats: int) -> tuple[float, float]:
    """(CPU seconds, wall seconds) per call."""
    cpu, wall = time.process_time(), time.perf_counter()
    for _ in range(repeats):
        fn()
    return (time.process_time() - cpu) / repeats, (time.perf_counter() - wall) / repeats


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=30)
    args = parser.parse_args()
    print(f"{'env':<16} {'frame ms (cpu/wall)':>20} {'svg ms':>14} {'step ms':>14} {'frame/step':>11}")
    for name in ENVS:
        env = make(name, api="raw", render_mode="rgb_array", viewer=0)
        env.reset(seed=1)
        random_steps(env, 10, seed=1)
        env.render()  # fonts and the felt backdrop are made once
        frame = timed(env.render, args.repeats)
        svg = timed(lambda: draw(env.game, 0).to_svg(), args.repeats)
        stepper = make(name, api="raw")
        stepper.reset(seed=2)
        cpu, wall = time.process_time(), time.perf_counter()
        n = random_steps(stepper, 300, seed=2)
        step = ((time.process_time() - cpu) / n, (time.perf_counter() - wall) / n)
        print(f"{name:<16} {frame[0] * 1e3:>9.1f} / {frame[1] * 1e3:<8.1f} {svg[0] * 1e3:>5.1f} / {svg[1] * 1e3:<6.1f}"
              f" {step[0] * 1e3:>5.2f} / {step[1] * 1e3:<6.2f} {frame[0] / step[0]:>11.0f}")


if __name__ == "__main__":
    main()
