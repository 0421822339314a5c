"""Text rendering of a Fifth-Earth game: the public table, plus one viewer's private cards.

Only the viewer's own hand, rest pile and spoils are shown by name; others appear as counts,
and face-down cards of the fight in progress appear as a count of backs (``[?]``).
"""

from __future__ import annotations

import numpy as np

from fight_envs.games.fifth_earth.rules import NOBODY, PHASE_NAMES, PHASE_OVER, FifthEarthGame


def _names(game: FifthEarthGame, ids: np.ndarray) -> str:
    return ", ".join(game.cards.card_name(int(c)) for c in ids) or "-"


def render_text(game: FifthEarthGame, viewer: int | None = None) -> str:
    g, cfg = game, game.config
    lines = [f"Fifth-Earth, {g.num_players} players, {cfg.format}: destination {len(g.claimed) + (g.phase != PHASE_OVER)}"
             f" of {cfg.num_destinations}"
             + (f" ({g.cards.destination_names[g.destination]})" if g.destination != NOBODY else "")]
    won = ", ".join(f"P{s}={int(w)}" for s, w in enumerate(g.destinations_won))
    lines.append(f"destinations won: {won}")
    if g.phase == PHASE_OVER:
        lines.append(f"game over; winner(s): {', '.join(f'P{s}' for s in g.winners())}")
    else:
        lines.append(f"phase: {PHASE_NAMES[g.phase]}, P{g.to_act} to act; knockout round {g.knockout_round}"
                     + (f", bye P{g.bye}" if g.bye != NOBODY else ""))
    b = g.battle
    if b is not None:
        laid = ", ".join(f"P{s} [?]x{len(c)}" for s, c in b.laid.items()) or "nothing yet"
        lines.append(f"battle {' vs '.join(f'P{p}' for p in b.players)}, fight {b.fight}; laid face down: {laid}")
    for s in range(g.num_players):
        status = "in" if g.alive[s] else "out"
        lines.append(f"  P{s} ({status}): hand {int(g.hands[s].sum())}, rest {int((g.rest_since[s] != NOBODY).sum())}, "
                     f"spoils {int(g.spoils[s].sum())}")
    if g.last_fight is not None:
        f = g.last_fight
        parts = [f"P{p} {'+'.join(g.cards.card_name(c) for c in f.laid[p])} dice {f.dice[p]}"
                 + (f" power {[g.cards.power_names[x] for x in f.power[p]]}" if f.power[p] else "") + f" = {f.totals[p]}"
                 for p in f.laid]
        lines.append(f"last fight ({f.fight}): {'; '.join(parts)}; P{f.winner} won")
    if viewer is not None:
        lines.append(f"P{viewer} hand: {_names(g, np.flatnonzero(g.hands[viewer]))}")
        lines.append(f"P{viewer} rest pile: {_names(g, np.flatnonzero(g.rest_since[viewer] != NOBODY))}")
        lines.append(f"P{viewer} spoils: {_names(g, np.flatnonzero(g.spoils[viewer]))}")
    return "\n".join(lines)
