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


def encode(game: FifthEarthGame, seat: int) -> np.ndarray:
    """The observation vector of ``seat``."""
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
    obs[OBS_SLICES["hand"]] = g.hands[seat]
    resting = g.rest_since[seat] != NOBODY
    fight_now = b.fight if b is not None else 0
    eligible = resting & (g.rest_since[seat] + g.cards.rest_fights <= fight_now)
    obs[OBS_SLICES["rest"]] = 0.5 * resting + 0.5 * eligible
    obs[OBS_SLICES["spoils"]] = g.spoils[seat]
    obs[OBS_SLICES["revealed"]] = g.revealed
    obs[OBS_SLICES["in_play"]] = g.in_play
    left = obs[OBS_SLICES["destinations_left"]]
    left[g.remaining_destinations] = 1
    p = OBS_SLICES["progress"].start
    obs[p] = len(g.claimed) / cfg.num_destinations
    obs[p + 1] = cfg.num_destinations / NUM_DESTINATIONS
    obs[p + 2] = g.knockout_round / 3.0
    obs[p + 3] = (b.fight if b is not None else 0) / cfg.max_fights
    obs[p + 4] = cfg.format == "royale"
    w = OBS_SLICES["power"].start
    obs[w] = len(g.power_deck) / NUM_POWER_CARDS
    obs[w + 1 + np.array(g.power_discard, dtype=np.int64)] = 1
    fight = b.fight if b is not None else 0
    last = g.last_fight
    for k in range(n):
        s = (seat + k) % n
        base = PLAYERS_START + k * PLAYER_SIZE

        def put(name: str, value: float | np.ndarray, base: int = base) -> None:
            sl = PLAYER_SLICES[name]
            obs[base + sl.start:base + sl.stop] = value

        put("present", 1)
        put("alive", g.alive[s])
        put("in_battle", b is not None and s in b.players)
        put("bye", s == g.bye)
        put("challengeable", g.phase == PHASE_CHALLENGE and s in g.unpaired and s != g.to_act)
        if s in g.seeds:
            put("seed", 1.0 - g.seeds.index(s) / MAX_PLAYERS)
        put("hand_size", g.hands[s].sum() / COUNT_SCALE)
        put("rest_size", (g.rest_since[s] != NOBODY).sum() / COUNT_SCALE)
        put("spoils_size", g.spoils[s].sum() / COUNT_SCALE)
        put("destinations_won", g.destinations_won[s] / cfg.num_destinations)
        # Cards laid face down in the fight under way still count as held until the reveal:
        # otherwise a revealed card dropping out of known_hand would tell which card was laid.
        held = g.hands[s].copy()
        if b is not None and s in b.laid:
            held[b.laid[s]] = 1
        put("known_hand", held & g.revealed)
        if b is not None and s in b.players:
            put("laid_count", len(b.laid.get(s, ())) / NUM_STAGES)
            put("has_laid", s in b.laid)
            put("lays_first", b.lay_order[0] == s)
            put("battle_wins", b.wins.get(s, 0) / cfg.max_fights)
            wait = np.clip(g.last_used[s] + g.cards.rest_fights - fight, 0, None)
            put("resting", wait / g.cards.rest_fights)
        if last is not None and s in last.laid:
            cards = last.laid[s]
            sl = PLAYER_SLICES["last_character"]
            obs[base + sl.start + character_of(cards[0])] = 1
            sl = PLAYER_SLICES["last_stages"]
            for c in cards:
                obs[base + sl.start + stage_of(c) - 1] = 1
            put("last_total", max(last.totals[s], 0) / TOTAL_SCALE)
            mods = g.cards.power_modifiers[last.power[s]]
            put("last_power_plus", mods[mods > 0].sum() / MODIFIER_SCALE)
            put("last_power_minus", -mods[mods < 0].sum() / MODIFIER_SCALE)
            put("last_won", last.winner == s)
    return obs
