"""Make the README's pictures: one PNG per game in docs/, each a mid-game table from one seat.

    python scripts/make_pictures.py [--out docs]

Each game is played from a fixed seed by uniform-random legal moves until its table shows what
the game is about (cards in pots, a battle in progress, a fight turned face up), then drawn with
``render_mode="rgb_array"`` as player_0 sees it. Rerun it when a scene's drawing changes.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

from fight_envs.registry import make

MAX_STEPS = 2000


def _fight5(env: Any) -> bool:
    g = env.game
    return g.round >= 2 and g.pot.sum() > 0 and g.num_committed[0] == 2 and env.agent_selection == "player_0"


def _brawl(env: Any) -> bool:
    g = env.game
    return g.battle.attack_card >= 0 and len(g.table) >= 3 and g.hand_size(0) >= 4 and len(g.discard) > 0


def _fifth_earth(env: Any) -> bool:
    g = env.game
    return g.last_fight is not None and g.battle is not None and bool(g.battle.laid) and 0 in g.battle.players \
        and int((g.rest_since[0] >= 0).sum()) >= 2


def _fight_klub(env: Any) -> bool:
    g = env.game
    return (g.current is not None and len(g.fights) == 3 and any(p.support for p in g.players)
            and g.fights[0].resolved and len(g.players[0].hand) >= 3)


PICTURES: dict[str, tuple[dict[str, Any], int, Callable[[Any], bool]]] = {
    "fight5": ({"num_players": 3}, 4, _fight5),
    "brawl": ({"num_players": 4}, 7, _brawl),
    "fifth_earth": ({"num_players": 3}, 2, _fifth_earth),
    "fight_klub": ({}, 1, _fight_klub),
}
"""Game -> (env options, seed, when the table is worth a picture)."""


def picture(game: str) -> np.ndarray:
    options, seed, ready = PICTURES[game]
    env = make(f"{game}_v0", api="raw", render_mode="rgb_array", viewer=0, **options)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(MAX_STEPS):
        if ready(env):
            return env.render()
        agent = env.agent_selection
        if not env.agents:
            break
        if env.terminations[agent] or env.truncations[agent]:
            env.step(None)
            continue
        env.step(int(rng.choice(np.flatnonzero(env.observe(agent)["action_mask"]))))
    raise SystemExit(f"{game}: no state worth a picture within {MAX_STEPS} steps from seed {seed}; change PICTURES")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default=str(Path(__file__).resolve().parents[1] / "docs"))
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for game in PICTURES:
        path = out / f"table_{game}.png"
        Image.fromarray(picture(game)).save(path, optimize=True)
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
