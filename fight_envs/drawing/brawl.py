"""Brawl drawn as a card table: fighters with their hand sizes, the battle in progress (who
attacks whom with what), the cards on the table, the draw and discard piles, the viewer's hand.

Reads the same state as ``fight_envs/games/brawl/render.py`` and shows what it shows: other
fighters' hands as card backs, only the viewer's by name (``viewer=None``: no hand).
"""

from __future__ import annotations

from fight_envs.drawing import table as t
from fight_envs.drawing.canvas import Canvas
from fight_envs.games.brawl.cards import NUM_ATTACKS, NUM_CARD_TYPES, element_of
from fight_envs.games.brawl.rules import NO_CARD, NO_SEAT, BrawlGame, Phase

ELEMENT_COLORS: tuple[t.Color, ...] = ((214, 69, 45), (46, 118, 214), (120, 190, 190), (140, 98, 52))
SPECIAL_COLOR: t.Color = (140, 84, 180)
CHAOS_COLOR: t.Color = (30, 30, 30)
CW, CH = 62, 88


def card_face(game: BrawlGame, card: int) -> tuple[str, t.Color, str]:
    """(big text, band colour, small label) of a card type."""
    name = game.cards.names[card]
    if card < NUM_ATTACKS:
        element, _, kind = name.rpartition(" ")
        return kind, ELEMENT_COLORS[element_of(card) % len(ELEMENT_COLORS)], element
    return name, CHAOS_COLOR if name == "CHAOS" else SPECIAL_COLOR, "special"


def _card(c: Canvas, game: BrawlGame, x: float, y: float, card: int, w: float = CW, h: float = CH,
          highlight: bool = False) -> None:
    value, color, label = card_face(game, card)
    t.card(c, x, y, value, color, label, w, h, highlight)


SHORT = {"PUNCH": "P", "KICK": "K", "JUMP": "J", "DODGE": "D", "COUNTER": "Co", "BLOCK": "B", "CHAOS": "C!"}
"""One- or two-letter faces of the small cards (what the table knows of another fighter's hand)."""


def _other_hand(c: Canvas, g: BrawlGame, seat: int, x: float, y: float, width: float) -> None:
    """Another fighter's hand: the cards the table knows it holds face up (a blocked attack taken
    back, a CHAOS shown, the whole hand in an open showdown; the engine's ``public_hand``), the
    rest as backs."""
    size = g.hand_size(seat)
    public = getattr(g, "public_hand", None)
    known = public(seat).tolist() if public is not None else [0] * NUM_CARD_TYPES
    faces = [k for k in range(NUM_CARD_TYPES) for _ in range(int(known[k]))][:size]
    count = len(faces) + max(0, size - len(faces))
    step = min(24.0, (width - 22) / max(1, count - 1)) if count > 1 else 0
    for i, k in enumerate(faces):
        value, color, _ = card_face(g, k)
        t.card(c, x + i * step, y, SHORT.get(value, value[:2]), color, "", 20, 30)
    if size > len(faces):
        t.hidden_cards(c, x + len(faces) * step, y, size - len(faces), 20, 30, min(9.0, step or 9.0))


def scene(game: BrawlGame, viewer: int | None = None) -> Canvas:
    g = game
    n = g.num_players
    over = g.phase == Phase.OVER
    direction = "clockwise" if g.direction == 1 else "counter-clockwise"
    status = f"decision {g.steps}/{g.config.step_limit}  ·  {direction}"
    if getattr(g, "showdown", False):
        status += "  ·  SHOWDOWN"
    c = t.new_table(f"Brawl  ·  {n} fighters", status)

    # fighters along the top: name plate and a fan of card backs (or the placing once out)
    pw = (t.WIDTH - 60 - 10 * (n - 1)) / n
    for s in range(n):
        x = 30 + s * (pw + 10)
        active = bool(g.active[s])
        lines = [f"{g.hand_size(s)} cards" if active else f"MASTER  ·  place {g.place[s]}"]
        t.seat_plate(c, x, 58, pw, 92, f"P{s}", lines, t.seat_color(s), acting=s == g.actor and not over,
                     you=s == viewer, out=not active)
        if active and s != viewer:
            _other_hand(c, g, s, x + 10, 110, pw - 20)
        elif active:
            t.hidden_cards(c, x + 10, 110, g.hand_size(s), 20, 30, min(9.0, (pw - 40) / max(1, g.hand_size(s))))

    # the battle: attacker -> defender with the attack card
    b = g.battle
    t.panel(c, 30, 162, 560, 200, "battle")
    if b.attack_card != NO_CARD:
        _card(c, g, 250, 200, b.attack_card, 80, 114, highlight=True)
        c.circle(110, 257, 34, t.seat_color(b.attacker), t.WHITE, 2)
        c.text(110, 257, f"P{b.attacker}", 18, t.WHITE, anchor="middle", bold=True)
        c.text(110, 306, "attacks", 12, t.MUTED, anchor="middle")
        c.line(150, 257, 240, 257, t.GOLD, 4)
        c.line(340, 257, 440, 257, t.GOLD, 4)
        c.polygon([(440, 247), (458, 257), (440, 267)], t.GOLD)
        c.circle(500, 257, 34, t.seat_color(b.defender), t.WHITE, 2)
        c.text(500, 257, f"P{b.defender}", 18, t.WHITE, anchor="middle", bold=True)
        c.text(500, 306, "defends", 12, t.MUTED, anchor="middle")
        c.text(310, 340, f"opened by P{b.opener}", 12, t.MUTED, anchor="middle")
    else:
        c.text(310, 262, "no battle in progress", 15, t.MUTED, anchor="middle")

    # piles and counters
    t.panel(c, 600, 162, 330, 200, "piles")
    t.pile(c, 625, 195, len(g.draw_pile), "draw", CW, CH)
    t.pile(c, 715, 195, len(g.discard), "discard", CW, CH)
    if g.discard:
        _card(c, g, 715, 195, int(g.discard[-1]), CW, CH)
    c.text(820, 215, "CHAOS spent", 12, t.MUTED)
    c.text(820, 240, str(getattr(g, "chaos_spent", 0)), 22, t.WHITE, bold=True)
    if over:
        order = " > ".join("/".join(f"P{s}" for s in group) for group in g.finish_order)
        c.text(765, 320, "finishing order: " + order, 12, t.GOLD, anchor="middle", max_width=310)
    elif g.actor != NO_SEAT:
        c.text(765, 320, f"P{g.actor} decides ({g.phase.name})", 13, t.GOLD, anchor="middle", max_width=310)

    # the cards on the table
    t.panel(c, 30, 372, 900, 104, "on the table")
    step = min(CW + 6.0, (880 - CW) / max(1, len(g.table) - 1)) if len(g.table) > 1 else 0
    for i, card in enumerate(g.table):
        _card(c, g, 40 + i * step, 394, int(card), CW * 0.85, CH * 0.85)
    if not g.table:
        c.text(480, 428, "(empty)", 13, t.MUTED, anchor="middle")

    # the viewer's hand, or the last action / result
    if viewer is not None:
        counts = g.hands[viewer].tolist()
        hand = [card_face(g, k) for k in range(NUM_CARD_TYPES) for _ in range(int(counts[k]))]
        t.hand_row(c, 30, 484, 620, hand, f"P{viewer} hand ({len(hand)})", 52, 70)
    if g.events:
        e = g.events[-1]
        last = f"last: P{e.seat} {g.action_name(e.action)} ({e.phase.name})"
    else:
        last = "no action yet"
    if over:
        last = "game over" + (" (step limit reached)" if g.truncated else "")
    x0 = 660 if viewer is not None else 30
    t.panel(c, x0, 484, 930 - x0, 100, "last action" if not over else "result")
    t.wrapped_text(c, x0 + 12, 514, last, 13, 930 - x0 - 24)
    return c
