"""How much does Brawl's hidden state tell about a fighter's result? A value probe for the privileged critic.

Plays ``--games`` games of heuristics at ``--players`` fighters and records, at every decision of one seat a
game (``fight_envs.train.imitation.collect``, the teacher's seat), its observation, its privileged block
(``raw_env.privileged_observation``: the other hands and the draw pile) and its final reward (``rank``).
Then it fits the same MLP ([128, 128], tanh, Adam 1e-3, inputs standardised) to predict that reward from
three inputs: the observation, the observation and the block, and the block alone, and prints the held-out
R^2 (the last fifth of the games) after each epoch's best. A critic that reads the block (``ppo.critic:
privileged``) can only cut the variance of PPO's advantages by as much as the block adds here.

Run from the repository root::

    python benchmarks/brawl_value_probe.py [--players 3] [--games 3000] [--epochs 12] [--seed 5]
"""

from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # this checkout's packages

import numpy as np
import torch
from torch import nn

from fight_envs.games.brawl.observe import OBS_SIZE
from fight_envs.train.imitation import collect


def held_out_r2(x: np.ndarray, y: np.ndarray, test: np.ndarray, epochs: int, seed: int) -> tuple[float, float]:
    """(best, last) held-out R^2 of an MLP fitted to ``y`` from ``x`` on the rows not in ``test``."""
    torch.manual_seed(seed)
    xt, yt = torch.tensor(x[~test]), torch.tensor(y[~test])
    xv, yv = torch.tensor(x[test]), torch.tensor(y[test])
    net = nn.Sequential(nn.Linear(x.shape[1], 128), nn.Tanh(), nn.Linear(128, 128), nn.Tanh(), nn.Linear(128, 1))
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    best, r2 = -np.inf, -np.inf
    for _ in range(epochs):
        perm = torch.randperm(len(yt))
        for i in range(0, len(yt), 512):
            rows = perm[i:i + 512]
            loss = ((net(xt[rows]).squeeze(1) - yt[rows]) ** 2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
        with torch.no_grad():
            r2 = float(1 - ((net(xv).squeeze(1) - yv) ** 2).mean() / yv.var())
        best = max(best, r2)
    return best, r2


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--games", type=int, default=3000)
    parser.add_argument("--epochs", type=int, default=12)
    parser.add_argument("--seed", type=int, default=5)
    args = parser.parse_args()
    torch.set_num_threads(1)
    data = collect("brawl_v0", {}, [args.players], args.games, "heuristic", {"heuristic": 1.0}, seed=args.seed,
                   gamma=1.0, privileged=True)
    x = data.observations.astype(np.float32)
    y = data.returns.astype(np.float32)
    test = data.game >= int(args.games * 0.8)
    x = (x - x[~test].mean(axis=0)) / np.maximum(x[~test].std(axis=0), 1e-3)
    print(f"# {args.players} fighters: {len(y):,} decisions of {args.games:,} heuristic games; the reward's mean "
          f"{y.mean():.3f}, variance {y.var():.3f}; held out: the last {int(test.sum()):,} decisions")
    for name, cols in [("observation", slice(0, OBS_SIZE)), ("observation + privileged", slice(0, x.shape[1])),
                       ("privileged alone", slice(OBS_SIZE, x.shape[1]))]:
        best, last = held_out_r2(x[:, cols], y, test, args.epochs, args.seed)
        print(f"{name:26s} held-out R^2: best epoch {best:.3f}, last {last:.3f}", flush=True)


if __name__ == "__main__":
    main()
