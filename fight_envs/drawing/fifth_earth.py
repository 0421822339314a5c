"""Fifth-Earth drawn as a card table: the destination, the players with their counts and
destinations won, the battle with its face-down cards, the last fight turned face up (cards,
dice, power cards, totals), and the viewer's hand, rest pile and spoils.

Reads the same state as ``fight_envs/games/fifth_earth/render.py`` and shows what it shows:
other players as counts, face-down cards of the fight in progress as backs, only the viewer's
cards by name (``viewer=None``: none).
"""

from __future__ import annotations

import numpy as np

from fight_envs.drawing import table as t
from fight_envs.drawing.canvas import Canvas
from fight_envs.games.fifth_earth.cards import character_of, stage_of
from fight_envs.games.fifth_earth.rules import NOBODY, PHASE_NAMES, PHASE_OVER, FifthEarthGame

STAGE_COLORS: tuple[t.Color, ...] = ((120, 170, 110), (70, 140, 200), (170, 90, 190), (220, 150, 40))
"""Band colour of a character card by its stage (1..4)."""
CW, CH = 54, 78


def card_face(game: FifthEarthGame, card: int) -> tuple[str, t.Color, str]:
    """(power, band colour by stage, name) of a character card."""
    power = int(game.cards.card_power[card])
    name = game.cards.character_names[character_of(card)]
    stage = stage_of(card)
    return str(power), STAGE_COLORS[(stage - 1) % len(STAGE_COLORS)], f"{name} {stage}"


def _card(c: Canvas, game: FifthEarthGame, x: float, y: float, card: int, w: float = CW, h: float = CH,
          highlight: bool = False) -> None:
    value, color, label = card_face(game, card)
    t.card(c, x, y, value, color, label, w, h, highlight)


def _die(c: Canvas, x: float, y: float, value: int, size: float = 22) -> None:
    c.rect(x, y, size, size, t.WHITE, t.INK, 1, radius=4)
    c.text(x + size / 2, y + size / 2, str(value), size * 0.6, t.INK, anchor="middle", bold=True)


def scene(game: FifthEarthGame, viewer: int | None = None) -> Canvas:
    g, cfg = game, game.config
    n = g.num_players
    dest_no = len(g.claimed) + (g.phase != PHASE_OVER)
    dest = f"destination {dest_no} of {cfg.num_destinations}"
    if g.destination != NOBODY:
        dest += f": {g.cards.destination_names[g.destination]}"
    if g.phase == PHASE_OVER:
        phase = "game over, winner(s) " + ", ".join(f"P{s}" for s in g.winners())
    else:
        phase = f"{PHASE_NAMES[g.phase]}: P{g.to_act} to act  ·  knockout round {g.knockout_round}"
        if g.bye != NOBODY:
            phase += f"  ·  bye P{g.bye}"
    c = t.new_table(f"Fifth-Earth  ·  {n} players", f"{cfg.format}  ·  {dest}")

    acting = None if g.phase == PHASE_OVER else g.to_act
    pw = (t.WIDTH - 60 - 10 * (n - 1)) / n
    for s in range(n):
        hand = int(np.count_nonzero(g.hands[s]))
        rest = int((g.rest_since[s] != NOBODY).sum())
        spoils = int(np.count_nonzero(g.spoils[s]))
        won = int(g.destinations_won[s])
        if pw >= 200:
            lines = [f"hand {hand}  ·  rest {rest}  ·  spoils {spoils}", f"destinations won {won}"]
        else:
            lines = [f"hand {hand} · rest {rest}", f"spoils {spoils} · won {won}"]
        t.seat_plate(c, 30 + s * (pw + 10), 58, pw, 66, f"P{s}", lines, t.seat_color(s), acting=s == acting,
                     you=s == viewer, out=not bool(g.alive[s]))

    # the battle in progress: who fights, and the backs of what has been laid face down
    b = g.battle
    t.panel(c, 30, 134, 330, 200, "battle" + (f"  ·  fight {b.fight}" if b is not None else ""))
    if b is None:
        c.text(195, 234, "no battle in progress", 14, t.MUTED, anchor="middle")
    else:
        for i, p in enumerate(b.players[:4]):
            y = 160 + i * 44
            c.circle(56, y + 16, 15, t.seat_color(p), t.WHITE, 1.5)
            c.text(56, y + 16, f"P{p}", 12, t.WHITE, anchor="middle", bold=True)
            laid = len(b.laid.get(p, []))
            if laid:
                t.hidden_cards(c, 82, y, laid, 24, 34, 14)
                c.text(100 + 14 * laid, y + 16, "laid face down", 11, t.MUTED)
            else:
                c.text(82, y + 16, "to lay" if p == acting else "waiting", 11, t.MUTED)

    c.text(40, 322, phase, 12, t.GOLD, max_width=310)

    # the last fight, face up
    f = g.last_fight
    t.panel(c, 370, 134, 560, 200, f"last fight ({f.fight})" if f is not None else "last fight")
    if f is None:
        c.text(650, 234, "no fight yet", 14, t.MUTED, anchor="middle")
    else:
        players = list(f.laid)
        col = 540 / max(1, len(players))
        for i, p in enumerate(players):
            x = 380 + i * col
            won = p == f.winner
            c.text(x + 8, 164, f"P{p}" + ("  won" if won else ""), 13, t.GOLD if won else t.WHITE, bold=True)
            cards = f.laid[p]
            step = min(CW + 4.0, (col - 20 - CW) / max(1, len(cards) - 1)) if len(cards) > 1 else 0
            for k, card in enumerate(cards):
                _card(c, g, x + 8 + k * step, 178, int(card), highlight=won)
            dice = f.dice.get(p, ())
            for k, d in enumerate(dice):
                _die(c, x + 8 + k * 28, 266, int(d))
            powers = [g.cards.power_names[x_] for x_ in f.power.get(p, [])]
            if powers:
                c.text(x + 70, 277, "+ " + ", ".join(powers), 11, t.MUTED, max_width=col - 76)
            c.text(x + 8, 312, f"total {f.totals[p]}", 14, t.WHITE, bold=True)

    # the viewer's cards
    if viewer is not None:
        hand = [card_face(g, int(k)) for k in np.flatnonzero(g.hands[viewer])]
        t.hand_row(c, 30, 344, 900, hand, f"P{viewer} hand ({len(hand)})", CW, CH)
        rest = [card_face(g, int(k)) for k in np.flatnonzero(g.rest_since[viewer] != NOBODY)]
        spoils = [card_face(g, int(k)) for k in np.flatnonzero(g.spoils[viewer])]
        t.hand_row(c, 30, 466, 445, rest, f"P{viewer} rest pile ({len(rest)})", 42, 62)
        t.hand_row(c, 485, 466, 445, spoils, f"P{viewer} spoils ({len(spoils)})", 42, 62)
    else:
        t.footer(c, "spectator view: no hand shown")
    return c
