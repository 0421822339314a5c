"""Text view of a Brawl game for one viewer: its own hand, everyone's hand size, the table.

Only the viewer's private information is shown (``viewer=None`` shows no hand at all).
"""

from __future__ import annotations

from fight_envs.games.brawl.cards import NUM_CARD_TYPES
from fight_envs.games.brawl.rules import NO_CARD, NO_SEAT, BrawlGame, Phase


def _cards_text(game: BrawlGame, counts: list[int] | None = None, cards: list[int] | None = None) -> str:
    names = game.cards.names
    if cards is not None:
        return ", ".join(names[c] for c in cards) or "-"
    assert counts is not None
    return ", ".join(f"{counts[c]}x {names[c]}" if counts[c] > 1 else names[c]
                     for c in range(NUM_CARD_TYPES) if counts[c]) or "-"


def render_text(game: BrawlGame, viewer: int | None) -> str:
    n = game.num_players
    lines = [
        f"Brawl, {n} fighters, decision {game.steps}/{game.config.step_limit}, "
        f"direction {'clockwise' if game.direction == 1 else 'counter-clockwise'}"
        + (", SHOWDOWN" if game.showdown else ""),
    ]
    for s in range(n):
        status = f"MASTER (place {game.place[s]})" if not game.active[s] else f"{game.hand_size(s)} cards"
        mark = " <- deciding" if s == game.actor else ""
        lines.append(f"  P{s}: {status}{mark}")
    lines.append(f"  draw pile {len(game.draw_pile)}, discard {len(game.discard)}, CHAOS spent {game.chaos_spent}")
    b = game.battle
    if b.attack_card != NO_CARD:
        lines.append(f"  battle: P{b.attacker} attacks P{b.defender} with {game.cards.names[b.attack_card]}"
                     f" (opened by P{b.opener})")
    if b.pending:
        lines.append(f"  combo to answer: {_cards_text(game, cards=b.pending)}")
    lines.append(f"  table: {_cards_text(game, cards=game.table)}")
    if game.events:
        e = game.events[-1]
        lines.append(f"  last: P{e.seat} {game.action_name(e.action)} ({e.phase.name})")
    if game.phase == Phase.OVER:
        lines.append("  game over" + (" (step limit reached)" if game.truncated else "")
                     + f"; finishing order {game.finish_order}")
    elif game.actor != NO_SEAT:
        lines.append(f"  now: P{game.actor} decides ({game.phase.name})")
    if viewer is not None:
        lines.append(f"  your hand (P{viewer}): {_cards_text(game, counts=game.hands[viewer].tolist())}")
    return "\n".join(lines)
