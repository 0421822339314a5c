"""Fight 5 drawn as a card table: one mat per clash (clash card, stack, pot, last reveal), seat
plates with scores and point piles, and the viewer's hand and placed cards.

Reads the same state as ``fight_envs/games/fight5/render.py`` and shows what it shows: only the
viewer's hand and placements (``viewer=None``: no hand).
"""

from __future__ import annotations

from fight_envs.drawing import table as t
from fight_envs.drawing.canvas import Canvas
from fight_envs.games.fight5.cards import NUM_RANKS, STAR
from fight_envs.games.fight5.render import card_name
from fight_envs.games.fight5.rules import NO_CARD, Fight5Game


def _value(rank: int) -> str:
    return "" if rank == STAR else card_name(rank)


def _card(c: Canvas, x: float, y: float, rank: int, color: t.Color, label: str = "", w: float = t.CARD_W,
          h: float = t.CARD_H, highlight: bool = False) -> None:
    t.card(c, x, y, _value(rank), color, label, w, h, highlight)
    if rank == STAR:
        t.star(c, x + w / 2, y + h * 0.52, min(w, h) * 0.3, t.GOLD)


def _clash_name(c: int) -> str:
    return "middle" if c == 0 else f"c{c}"


def _mat(c: Canvas, g: Fight5Game, k: int, x: float, y: float, mw: float, mh: float, winner: int | None,
         two_rows: bool) -> None:
    """Clash ``k``: its clash card and stack, the last reveal (one card per sharer, the winner's
    with a gold rim) and the pot. On the short mats of two rows the last reveal sits beside the
    clash card (when it fits) and the stack at the end of the pot's row."""
    sharers = g.topo.sharers[k]
    ch = min(100.0, mh * (0.42 if two_rows else 0.33))
    cw = ch * 0.7
    if g.clash_card[k] != NO_CARD:
        _card(c, x + 10, y + 24, int(g.clash_card[k]), t.GOLD, "clash", cw, ch)
    else:
        c.rect(x + 10, y + 24, cw, ch, None, t.FELT_LINE, 1.5, radius=6)
    side = x + 22 + cw
    room = (x + mw - 8 - side) / len(sharers) - 3
    beside = two_rows
    per_line = len(sharers) if room >= 24 else (len(sharers) + 1) // 2
    mini = 24.0 if two_rows else 28.0
    py = y + 24 + ch + 14
    if beside:
        room = (x + mw - 8 - side) / per_line - 3
        lines = -(-len(sharers) // per_line)
        _last(c, g, k, side, y + 36, min(room, (ch * 0.85 / lines - 3 * (lines - 1)) / 1.4), winner, label=False,
              per_line=per_line)
        t.pile(c, x + mw - 12 - cw * 0.55, py, len(g.clash_stacks[k]), "stack", cw * 0.55, ch * 0.55)
        pot_right = x + mw - 22 - cw * 0.55
    else:
        t.pile(c, side, y + 24 + ch * 0.3, len(g.clash_stacks[k]), "stack", cw * 0.6, ch * 0.6)
        pot_right = x + mw - 10
    pot = g.pot[k].sum(axis=0)
    c.text(x + 10, py + mini * 0.7, f"pot {int(pot.sum())}", 11, t.MUTED, bold=True)
    ranks = [r for r in range(NUM_RANKS) for _ in range(int(pot[r]))]
    step = min(mini * 0.75, (pot_right - x - 48 - mini) / max(1, len(ranks) - 1)) if len(ranks) > 1 else 0
    for i, r in enumerate(ranks):
        _card(c, x + 48 + i * step, py, r, (150, 150, 150), "", mini, mini * 1.4)
    if not beside:
        ly = py + mini * 1.4 + 10
        lh = min(70.0, y + mh - ly - 8)
        lw = min(lh / 1.4, (mw - 50) / len(sharers) - 3)
        c.text(x + 10, ly + lw * 0.7, "last", 11, t.MUTED)
        _last(c, g, k, x + 42, ly, lw, winner, label=True)


def _last(c: Canvas, g: Fight5Game, k: int, x: float, y: float, lw: float, winner: int | None, label: bool,
          per_line: int = 5) -> None:
    for i, s in enumerate(g.topo.sharers[k]):
        rank = int(g.last_plays[k, s])
        if rank != NO_CARD:
            cx, cy = x + (i % per_line) * (lw + 3), y + (i // per_line) * (lw * 1.4 + 3)
            _card(c, cx, cy, rank, t.seat_color(s), f"P{s}", lw, lw * 1.4, highlight=winner == s)
    if not label:
        c.text(x, y - 8, "last reveal", 10, t.MUTED)


def scene(game: Fight5Game, viewer: int | None = None) -> Canvas:
    g, cfg = game, game.config
    n = g.num_players
    rounds = g.cards.rounds_per_bout
    if g.game_over:
        winners = g.winners()
        status = (("winner " if len(winners) == 1 else "shared win ") + ", ".join(f"P{s}" for s in winners)
                  + f" after {g.bout} bout(s)")
    else:
        status = f"bout {g.bout + 1}/{cfg.num_bouts}  ·  round {g.round + 1}/{rounds}"
    if cfg.target_score:
        status += f"  ·  target {cfg.target_score}"
    c = t.new_table(f"Fight 5  ·  {n} players", status)

    # seat plates along the top
    acting = None if g.game_over else g.current_player()
    pile_points = g.pile_points()
    pw = (t.WIDTH - 60 - 10 * (n - 1)) / n
    for s in range(n):
        pile = int(g.point_pile[s].sum())
        t.seat_plate(c, 30 + s * (pw + 10), 58, pw, 66, f"P{s} · {g.cards.elements[s]}",
                     [f"score {int(g.scores[s])}", f"point pile {pile} ({int(pile_points[s])} pts)"],
                     t.seat_color(s), acting=s == acting, you=s == viewer)

    # one mat per clash
    C = g.num_clashes
    per_row = C if C <= 6 else (C + 1) // 2
    rows = 1 if C <= 6 else 2
    top, bottom = 134, 472
    mh = (bottom - top - 10 * (rows - 1)) / rows
    mw = (t.WIDTH - 60 - 10 * (per_row - 1)) / per_row
    winners = {r.clash: r.winner for r in g.last_results}
    for k in range(C):
        x = 30 + (k % per_row) * (mw + 10)
        y = top + (k // per_row) * (mh + 10)
        sharers = g.topo.sharers[k]
        t.panel(c, x, y, mw, mh, f"{_clash_name(k)}  ·  " + ",".join(f"P{s}" for s in sharers))
        _mat(c, g, k, x, y, mw, mh, winners.get(k), rows == 2)

    # the viewer's hand and placements
    if viewer is not None and not g.game_over:
        hand = [(_value(r), t.seat_color(viewer), "star" if r == STAR else "")
                for r in range(NUM_RANKS) for _ in range(int(g.hands[viewer, r]))]
        corners = t.hand_row(c, 30, 482, 540, hand, f"P{viewer} hand ({len(hand)})")
        for (x, y), (_, _, label) in zip(corners, hand):
            if label == "star":
                t.star(c, x + t.CARD_W / 2, y + t.CARD_H * 0.52, t.CARD_W * 0.3, t.GOLD)
        t.panel(c, 580, 482, 350, t.CARD_H + 30, "placed this round, slot by slot", fill=(10, 52, 32))
        for slot in range(5):
            clash = int(g.topo.player_clashes[viewer][slot])
            x = 598 + slot * 66
            rank = int(g.committed[viewer, slot])
            if rank == NO_CARD:
                c.rect(x, 502, 40, 56, None, t.FELT_LINE, 1.5, radius=6)
                nxt = slot == g.current_slot(viewer)
                c.text(x + 20, 530, "next" if nxt else "", 11, t.GOLD, anchor="middle")
            else:
                _card(c, x, 502, rank, t.seat_color(viewer), "", 40, 56)
            c.text(x + 20, 567, "to " + _clash_name(clash), 10, t.MUTED, anchor="middle")
    elif g.game_over:
        t.footer(c, "Game over  ·  " + "  ".join(f"P{s} {int(g.scores[s])}" for s in range(n)))
    else:
        t.footer(c, "spectator view: no hand shown")
    return c
