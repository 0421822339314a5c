"""Brawl game lengths per fighter count: decisions asked per game (mean / maximum) and truncated
games, under random play (1,000 games, game seeds 0..999) and with every seat the heuristic (300
games), on the bare engine with the default step limit. ``seeds/brawl.md`` section 7 prints its
output. Run from the repository root::

    python benchmarks/brawl_game_lengths.py ['{"rules": "classic"}']

The optional argument is a JSON object of ``BrawlConfig`` options (default: the standard rules).
"""
import json
import sys

import numpy as np
from fight_envs.games.brawl.rules import BrawlConfig, BrawlGame
from fight_envs.games.brawl.observe import encode
from fight_envs.agents.brawl import HeuristicAgent
opts = json.loads(sys.argv[1]) if len(sys.argv) > 1 else {}
for n in range(2, 9):
    cfg = BrawlConfig(num_players=n, **opts)
    game = BrawlGame(cfg)
    lens, trunc = [], 0
    rng = np.random.default_rng(0)
    for seed in range(1000):
        game.new_game(np.random.default_rng(seed))
        while not game.is_over():
            s = game.current_player()
            legal = np.flatnonzero(game.legal_action_mask(s))
            game.apply_action(s, int(legal[rng.integers(legal.size)]))
        lens.append(game.steps); trunc += game.truncated
    hl, ht = [], 0
    agents = [HeuristicAgent(i) for i in range(n)]
    for seed in range(300):
        game.new_game(np.random.default_rng(seed))
        for a in agents: a.seed(seed)
        while not game.is_over():
            s = game.current_player()
            game.apply_action(s, agents[s].act(encode(game, s), game.legal_action_mask(s)))
        hl.append(game.steps); ht += game.truncated
    print(f"| {n} | {cfg.step_limit} | {np.mean(lens):.0f} / {max(lens)} | {trunc} | {np.mean(hl):.0f} / {max(hl)} | {ht} |", flush=True)
