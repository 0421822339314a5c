"""Text rendering of a Fight Klub table: characters, Energy, support areas, fights, one hand.

Only the viewer's hand is shown (``viewer=None`` shows no hand), so a rendering is as safe to
show a player as that player's observation is.
"""

from __future__ import annotations

from fight_envs.games.fight_klub.cards import COLORS, FightEnd
from fight_envs.games.fight_klub.rules import FightKlubGame, action_name


def _end_text(end: FightEnd) -> str:
    if end.kind == "clash":
        return f"CLASH({end.wins} {end.measure})"
    tabs = " ".join(f"{t.type[0].upper()}{t.value}{'*' if t.result else ''}" for t in end.tabs)
    return f"[{tabs}] centre {COLORS[end.center_color]}"


def render_text(game: FightKlubGame, viewer: int | None = None) -> str:
    """A multi-line picture of the table from ``viewer``'s chair (or a spectator's)."""
    lines = []
    if game.is_terminal():
        why = "truncated" if game.truncated else ("draw" if game.winner is None else f"P{game.winner} wins")
        lines.append(f"Fight Klub: game over after turn {min(game.turn, game.config.max_turns)} ({why})")
    else:
        lines.append(f"Fight Klub: turn {game.turn}/{game.config.max_turns}, {game.phase} phase, The Drop: P{game.drop}")
    for s, p in enumerate(game.players):
        ch = game.pool.characters[p.deck.character]
        pool = "/".join(str(x) for x in p.pool)
        lines.append(f"P{s} {ch.name} ({ch.affiliation}): damage taken {game.players[1 - s].dealt}/{p.life}, "
                     f"Energy b/g/y {pool}, hand {len(p.hand)}, draw {len(p.draw_deck)}, fight stack {len(p.fight_stack)}, "
                     f"raise-the-stakes {len(p.rts)}")
        if p.support:
            lines.append("   support: " + ", ".join(game.pool.support[x.card.id].name for x in p.support))
    for i, f in enumerate(game.fights):
        mark = "*" if game.current == i else ("done" if f.resolved else "")
        sides = []
        for s in (0, 1):
            card = game.fight_card(f.cards[s])
            sides.append("-" if card is None else f"{card.name} ({card.damage} dmg) {_end_text(card.ends[f.end[s]])}")
        lines.append(f"fight {i} {mark}: P0 {sides[0]}  vs  P1 {sides[1]}")
    if viewer is not None and not game.is_terminal():
        hand = ", ".join(f"{i}:{game.pool.support[c].name}" for i, c in enumerate(game.players[viewer].hand))
        lines.append(f"P{viewer} hand: {hand or '(empty)'}")
    if game.pending is not None:
        legal = ", ".join(action_name(a) for a in game.pending.legal)
        who = "you" if viewer == game.pending.seat else f"P{game.pending.seat}"
        lines.append(f"to act: {who} ({game.pending.kind})" + (f": {legal}" if viewer == game.pending.seat else ""))
    return "\n".join(lines)
