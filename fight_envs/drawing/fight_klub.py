"""Fight Klub drawn as a card table: both characters with damage, Energy and piles, their
support areas, the three fights of the turn (Fight cards with damage and the end in play), the
viewer's hand and who is to act.

Reads the same state as ``fight_envs/games/fight_klub/render.py`` and shows what it shows:
only the viewer's hand by name, the other's as card backs (``viewer=None``: no hand).
"""

from __future__ import annotations

from fight_envs.drawing import table as t
from fight_envs.drawing.canvas import Canvas
from fight_envs.games.fight_klub.cards import COLORS, FightEnd
from fight_envs.games.fight_klub.rules import FightKlubGame, action_name

ENERGY_COLORS: tuple[t.Color, ...] = ((52, 110, 220), (60, 170, 80), (236, 196, 40))
"""Blue, green, yellow Energy (the order of ``cards.COLORS``)."""
SUPPORT_COLORS = {"condition": (90, 140, 200), "effect": (200, 110, 60), "gear": (130, 130, 140),
                  "instant": (170, 80, 170)}


def end_text(end: FightEnd) -> str:
    if end.kind == "clash":
        return f"CLASH {end.wins} {end.measure}"
    tabs = " ".join(f"{tab.type[0].upper()}{tab.value}{'*' if tab.result else ''}" for tab in end.tabs)
    return f"{tabs} · {COLORS[end.center_color]}"


def _support_face(game: FightKlubGame, card_id: str) -> tuple[str, t.Color, str]:
    card = game.pool.support[card_id]
    return card.name, SUPPORT_COLORS.get(card.type, (150, 150, 150)), card.type


def scene(game: FightKlubGame, viewer: int | None = None) -> Canvas:
    g = game
    over = g.is_terminal()
    if over:
        why = "truncated" if g.truncated else ("draw" if g.winner is None else f"P{g.winner} wins")
        status = f"game over after turn {min(g.turn, g.config.max_turns)} ({why})"
    else:
        status = f"turn {g.turn}/{g.config.max_turns}  ·  {g.phase} phase  ·  The Drop: P{g.drop}"
    c = t.new_table("Fight Klub", status)
    acting = None if over or g.pending is None else g.pending.seat

    for s, p in enumerate(g.players):
        x = 30 + s * 455
        ch = g.pool.characters[p.deck.character]
        taken = g.players[1 - s].dealt
        t.seat_plate(c, x, 58, 445, 150, f"P{s} · {ch.name} ({ch.affiliation})",
                     [f"hand {len(p.hand)}  ·  draw {len(p.draw_deck)}  ·  fight stack {len(p.fight_stack)}"
                      f"  ·  raise-the-stakes {len(p.rts)}"],
                     t.seat_color(s), acting=s == acting, you=s == viewer)
        # damage taken as a bar
        c.text(x + 10, 112, f"damage {taken}/{p.life}", 12, t.WHITE)
        c.rect(x + 110, 106, 200, 12, (40, 40, 40), radius=6)
        c.rect(x + 110, 106, 200 * min(1.0, taken / max(1, p.life)), 12, t.RED, radius=6)
        # Energy b/g/y
        for k, amount in enumerate(p.pool):
            c.circle(x + 340 + k * 34, 112, 12, ENERGY_COLORS[k], t.WHITE, 1)
            c.text(x + 340 + k * 34, 112, str(amount), 12, t.WHITE if k < 2 else t.INK, anchor="middle", bold=True)
        # support area
        c.text(x + 10, 136, "support", 11, t.MUTED)
        for k, item in enumerate(p.support[:7]):
            name, color, label = _support_face(g, item.card.id)
            t.card(c, x + 60 + k * 54, 126, name, color, label, 50, 74)
        if not p.support:
            c.text(x + 60, 136, "(none)", 11, t.MUTED)

    # the three fights of the turn
    fw = (t.WIDTH - 60 - 20) / 3
    for i, f in enumerate(g.fights[:3]):
        x = 30 + i * (fw + 10)
        mark = "  ·  now" if g.current == i else ("  ·  done" if f.resolved else "")
        if f.resolved and f.winner is not None:
            mark += f", P{f.winner} won"
        t.panel(c, x, 218, fw, 166, f"fight {i}{mark}")
        for s in (0, 1):
            card = g.fight_card(f.cards[s])
            y = 240 + s * 70
            c.circle(x + 18, y + 28, 10, t.seat_color(s), t.WHITE, 1)
            if card is None:
                c.text(x + 36, y + 28, "-", 13, t.MUTED)
                continue
            t.card(c, x + 34, y, str(card.damage), (200, 60, 50), "dmg", 42, 60,
                   highlight=f.resolved and f.winner == s)
            c.text(x + 84, y + 16, card.name, 13, t.WHITE, bold=True, max_width=fw - 92)
            c.text(x + 84, y + 38, end_text(card.ends[f.end[s]]), 11, t.MUTED, max_width=fw - 92)
    if not g.fights:
        t.panel(c, 30, 218, 900, 166, "fights")
        c.text(480, 300, "no fights dealt yet", 14, t.MUTED, anchor="middle")

    # the viewer's hand, the other's as backs
    if viewer is not None and not over:
        hand = [_support_face(g, cid) for cid in g.players[viewer].hand]
        t.hand_row(c, 30, 394, 900, hand, f"P{viewer} hand ({len(hand)})", 62, 84)
    # the other hands, face down
    for s, p in enumerate(g.players):
        if s != viewer and p.hand and not over:
            x = 30 + (s * 455 if viewer is None else 0)
            c.text(x + 10, 526, f"P{s} hand", 11, t.MUTED)
            t.hidden_cards(c, x + 70, 510, len(p.hand), 22, 32, 12)
    line = ""
    if g.pending is not None:
        who = "you" if viewer == g.pending.seat else f"P{g.pending.seat}"
        line = f"to act: {who} ({g.pending.kind})"
        if viewer == g.pending.seat:
            line += ": " + ", ".join(action_name(a) for a in g.pending.legal)
    elif over:
        line = status
    t.footer(c, line)
    return c
