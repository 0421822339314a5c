"""Egocentric observation of a Fifth-Earth game: what one seat may know, as a float32 vector.

Seat offsets are egocentric (block 0 is me, block k the player k seats after me) and padded to
six players, so one network plays every player count. Nothing hidden enters: others' hands,
rest piles' and spoils' contents (only their sizes), face-down cards before the reveal (only
how many were laid), the undealt cards and the order of the power deck.

Layout (``OBS_SLICES``; counts are scaled as noted):

| slice | size | feature |
| --- | --- | --- |
| ``phase`` | 4 | my decision now: choose destination, challenge, lay first in a fight, lay after others |
| ``hand`` | 100 | my hand, one per card id (4 x character + stage - 1) |
| ``rest`` | 100 | my rest pile (cards I laid and won with, not yet picked up): 1 if a win now would pick the card up, 0.5 if it must rest longer |
| ``spoils`` | 100 | cards I won in this battle, set aside until I win the battle (``won_cards="spoils"``) |
| ``revealed`` | 100 | cards turned face up in a fight since this destination's deal (or the last redeal; public: the unrevealed cards not mine are the only ones whose place I do not know) |
| ``in_play`` | 100 | cards of the characters in play this destination (public; all 100 under ``characters=25``) |
| ``destinations_left`` | 25 | destinations not yet chosen |
| ``progress`` | 5 | destinations claimed / num_destinations, num_destinations / 25, knockout round / 3, fight / max_fights, 1 if battle royale |
| ``power`` | 15 | power cards left in the deck / 14, then the 14 power cards in the discard pile |
| ``players`` | 6 x 71 | per player (egocentric), see ``PLAYER_SLICES`` |

Per-player block (``PLAYER_SLICES``): present; in the destination (not knocked out); in the
battle being fought; has the bye; a player I may challenge now; seed position (1 for Player A
down to 1/6); hand size / 16; rest pile size / 16; spoils size / 16; destinations won /
num_destinations; cards laid face down in this fight / 4; has laid in this fight; lays first in
this fight; fights won in this battle / max_fights; for each character the fights it must still rest / rest_fights (public: every laid
card is revealed); ``known_hand``, the revealed cards now in this player's hand, counting the cards it has laid
face down in the fight under way until they are revealed (so a lay changes nothing here); (a table that
remembers every reveal knows where each revealed card went: to the winner's hand or spoils, to
its rest pile, back to its hand on a pick-up); the last fight this player was in: its character (one-hot 25), its stages
(4), its total / 40, power-card modifiers positive / 10 and negative / 10, won it.
"""

from __future__ import annotations

import numpy as np

from fight_envs.games.fifth_earth.cards import (
    NUM_CARDS,
    NUM_CHARACTERS,
    NUM_DESTINATIONS,
    NUM_POWER_CARDS,
    NUM_STAGES,
    character_of,
    stage_of,
)
from fight_envs.games.fifth_earth.rules import (
    MAX_PLAYERS,
    NOBODY,
    PHASE_CHALLENGE,
    PHASE_DESTINATION,
    PHASE_LAY,
    FifthEarthGame,
)

COUNT_SCALE = 16.0
TOTAL_SCALE = 40.0
MODIFIER_SCALE = 10.0
OBS_HIGH = 10.0


def _layout(parts: list[tuple[str, int]], start: int = 0) -> dict[str, slice]:
    out, i = {}, start
    for name, size in parts:
        out[name] = slice(i, i + size)
        i += size
    return out


PLAYER_SLICES = _layout([
    ("present", 1), ("alive", 1), ("in_battle", 1), ("bye", 1), ("challengeable", 1), ("seed", 1),
    ("hand_size", 1), ("rest_size", 1), ("spoils_size", 1), ("destinations_won", 1), ("laid_count", 1),
    ("has_laid", 1), ("lays_first", 1), ("battle_wins", 1), ("resting", NUM_CHARACTERS), ("known_hand", NUM_CARDS),
    ("last_character", NUM_CHARACTERS),
    ("last_stages", NUM_STAGES), ("last_total", 1), ("last_power_plus", 1), ("last_power_minus", 1), ("last_won", 1),
])
PLAYER_SIZE = max(s.stop for s in PLAYER_SLICES.values())
OBS_SLICES = _layout([
    ("phase", 4), ("hand", NUM_CARDS), ("rest", NUM_CARDS), ("spoils", NUM_CARDS), ("revealed", NUM_CARDS),
    ("in_play", NUM_CARDS),
    ("destinations_left", NUM_DESTINATIONS), ("progress", 5), ("power", 1 + NUM_POWER_CARDS),
    ("players", MAX_PLAYERS * PLAYER_SIZE),
])
OBS_SIZE = OBS_SLICES["players"].stop
PLAYERS_START = OBS_SLICES["players"].start


def player_slice(offset: int, name: str) -> slice:
    """Where feature ``name`` of the player ``offset`` seats after me lies in the vector."""
    s = PLAYER_SLICES[name]
    base = PLAYERS_START + offset * PLAYER_SIZE
    return slice(base + s.start, base + s.stop)


_P = {name: (sl.start, sl.stop) for name, sl in PLAYER_SLICES.items()}
_O = {name: (sl.start, sl.stop) for name, sl in OBS_SLICES.items()}


def encode(game: FifthEarthGame, seat: int) -> np.ndarray:
    """The observation vector of ``seat`` (all players' blocks filled at once, as rows of one view)."""
    g, n, cfg = game, game.num_players, game.config
    obs = np.zeros(OBS_SIZE, dtype=np.float32)
    b = g.battle
    if g.to_act == seat:
        if g.phase == PHASE_DESTINATION:
            obs[0] = 1
        elif g.phase == PHASE_CHALLENGE:
            obs[1] = 1
        elif g.phase == PHASE_LAY:
            obs[2 if b is not None and not b.laid else 3] = 1
    o = _O
    obs[o["hand"][0]:o["hand"][1]] = g.hands[seat]
    since = g.rest_since[seat]
    fight = b.fight if b is not None else 0
    resting = since != NOBODY
    obs[o["rest"][0]:o["rest"][1]] = 0.5 * resting + 0.5 * (resting & (since + g.cards.rest_fights <= fight))
    obs[o["spoils"][0]:o["spoils"][1]] = g.spoils[seat]
    obs[o["revealed"][0]:o["revealed"][1]] = g.revealed
    obs[o["in_play"][0]:o["in_play"][1]] = g.in_play
    obs[o["destinations_left"][0] + np.array(g.remaining_destinations, dtype=np.int64)] = 1
    p = o["progress"][0]
    obs[p] = len(g.claimed) / cfg.num_destinations
    obs[p + 1] = cfg.num_destinations / NUM_DESTINATIONS
    obs[p + 2] = g.knockout_round / 3.0
    obs[p + 3] = fight / cfg.max_fights
    obs[p + 4] = cfg.format == "royale"
    w = o["power"][0]
    obs[w] = len(g.power_deck) / NUM_POWER_CARDS
    if g.power_discard:
        obs[w + 1 + np.array(g.power_discard, dtype=np.int64)] = 1
    rows = obs[PLAYERS_START:].reshape(MAX_PLAYERS, PLAYER_SIZE)
    rel = (np.arange(n) + seat) % n  # rows[k] is the player k seats after me
    P = _P
    rows[:n, P["present"][0]] = 1
    rows[:n, P["alive"][0]] = g.alive[rel]
    rows[:n, P["bye"][0]] = rel == g.bye
    if g.phase == PHASE_CHALLENGE:
        for s in g.unpaired:
            if s != g.to_act:
                rows[(s - seat) % n, P["challengeable"][0]] = 1
    for i, s in enumerate(g.seeds):
        rows[(s - seat) % n, P["seed"][0]] = 1.0 - i / MAX_PLAYERS
    rows[:n, P["hand_size"][0]] = g.hands.sum(axis=1)[rel] / COUNT_SCALE
    rows[:n, P["rest_size"][0]] = (g.rest_since != NOBODY).sum(axis=1)[rel] / COUNT_SCALE
    rows[:n, P["spoils_size"][0]] = g.spoils.sum(axis=1)[rel] / COUNT_SCALE
    rows[:n, P["destinations_won"][0]] = g.destinations_won[rel] / cfg.num_destinations
    # Cards laid face down in the fight under way still count as held until the reveal:
    # otherwise a revealed card dropping out of known_hand would tell which card was laid.
    held = g.hands[rel] & g.revealed
    if b is not None:
        for s, cards in b.laid.items():
            held[(s - seat) % n, cards] = g.revealed[cards]
    kh = P["known_hand"]
    rows[:n, kh[0]:kh[1]] = held
    if b is not None:
        rest = g.cards.rest_fights
        rs = P["resting"]
        for s in b.players:
            k = (s - seat) % n
            row = rows[k]
            row[P["in_battle"][0]] = 1
            if s in b.laid:
                row[P["laid_count"][0]] = len(b.laid[s]) / NUM_STAGES
                row[P["has_laid"][0]] = 1
            row[P["lays_first"][0]] = b.lay_order[0] == s
            row[P["battle_wins"][0]] = b.wins.get(s, 0) / cfg.max_fights
            wait = g.last_used[s] + (rest - fight)
            row[rs[0]:rs[1]] = np.maximum(wait, 0) / rest
    last = g.last_fight
    if last is not None:
        mods_all = g.cards.power_modifiers
        for s, cards in last.laid.items():
            row = rows[(s - seat) % n]
            row[P["last_character"][0] + character_of(cards[0])] = 1
            for c in cards:
                row[P["last_stages"][0] + stage_of(c) - 1] = 1
            row[P["last_total"][0]] = max(last.totals[s], 0) / TOTAL_SCALE
            drawn = last.power[s]
            if drawn:
                mods = [int(mods_all[x]) for x in drawn]
                row[P["last_power_plus"][0]] = sum(m for m in mods if m > 0) / MODIFIER_SCALE
                row[P["last_power_minus"][0]] = -sum(m for m in mods if m < 0) / MODIFIER_SCALE
            row[P["last_won"][0]] = last.winner == s
    return obs
