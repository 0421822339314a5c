"""Text rendering of a Fight 5 game: clashes, pots, point piles, scores, one hand.

Only the viewer's hand and placements are shown (``viewer=None`` shows no hand at all), so a
rendering is as safe to show a player as its observation is.
"""

from __future__ import annotations

from fight_envs.games.fight5.cards import NUM_RANKS, RANK_NAMES
from fight_envs.games.fight5.rules import NO_CARD, Fight5Game


def card_name(rank: int) -> str:
    return "-" if rank == NO_CARD else ("*" if RANK_NAMES[rank] == "star" else RANK_NAMES[rank])


def counts_text(counts) -> str:
    cards = [card_name(r) for r in range(NUM_RANKS) for _ in range(int(counts[r]))]
    return " ".join(cards) if cards else "(none)"


def render_text(game: Fight5Game, viewer: int | None = None) -> str:
    """A multi-line picture of the table from ``viewer``'s chair (or a spectator's)."""
    n = game.num_players
    cfg = game.config
    rounds = game.cards.rounds_per_bout
    if game.game_over:
        head = f"Fight 5, {n} players: game over after {game.bout} bout(s)"
    else:
        head = f"Fight 5, {n} players: bout {game.bout + 1}/{cfg.num_bouts}, round {game.round + 1}/{rounds}"
    lines = [head + (f", target {cfg.target_score}" if cfg.target_score else "")]
    lines.append("clash  shared by       clash card  stack  pot / last reveal")
    for c in range(game.num_clashes):
        who = ",".join(f"P{s}" for s in game.topo.sharers[c])
        pot = counts_text(game.pot[c].sum(axis=0))
        last = " ".join(f"P{s}:{card_name(int(game.last_plays[c, s]))}" for s in game.topo.sharers[c]
                        if game.last_plays[c, s] != NO_CARD)
        name = "middle" if c == 0 else f"c{c}"
        lines.append(f"{name:<6} {who:<15} {card_name(int(game.clash_card[c])):>10}  {len(game.clash_stacks[c]):>5}  "
                     f"pot {pot}" + (f" | last {last}" if last else ""))
    for s in range(n):
        pile = game.point_pile[s].sum(axis=0)
        lines.append(f"P{s} ({game.cards.elements[s]}): score {int(game.scores[s])}, point pile "
                     f"{int(pile.sum())} cards worth {int(game.pile_points()[s])}")
    if viewer is not None and not game.game_over:
        placed = " ".join(card_name(int(r)) for r in game.committed[viewer])
        lines.append(f"P{viewer} hand: {counts_text(game.hands[viewer])} | placed: {placed} | "
                     f"next slot {game.current_slot(viewer)} -> clash c{int(game.topo.player_clashes[viewer][min(game.current_slot(viewer), 4)])}")
    if game.game_over:
        winners = game.winners()
        lines.append(("Winner: " if len(winners) == 1 else "Shared win: ") + ", ".join(f"P{s}" for s in winners))
    return "\n".join(lines)
