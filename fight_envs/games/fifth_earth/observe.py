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


_HAND0, _HAND1 = _O["hand"]
_REST0, _REST1 = _O["rest"]
_SPOILS0, _SPOILS1 = _O["spoils"]
_REVEALED0, _REVEALED1 = _O["revealed"]
_IN_PLAY0, _IN_PLAY1 = _O["in_play"]
_DEST0 = _O["destinations_left"][0]
_PROGRESS0 = _O["progress"][0]
_POWER0 = _O["power"][0]
_SCALARS = ("present", "alive", "in_battle", "bye", "challengeable", "seed", "hand_size", "rest_size", "spoils_size",
            "destinations_won", "laid_count", "has_laid", "lays_first", "battle_wins")
assert [_P[name][0] for name in _SCALARS] == list(range(len(_SCALARS)))  # encode writes them at offsets 0..13
_RESTING0, _RESTING1 = _P["resting"]
_KNOWN0, _KNOWN1 = _P["known_hand"]
_LAST_CHAR0 = _P["last_character"][0]
_LAST_STAGES0 = _P["last_stages"][0]
_LAST_TOTAL = _P["last_total"][0]
_LAST_PLUS = _P["last_power_plus"][0]
_LAST_MINUS = _P["last_power_minus"][0]
_LAST_WON = _P["last_won"][0]
_CHARACTER_OF = [character_of(c) for c in range(NUM_CARDS)]
_STAGE_INDEX = [stage_of(c) - 1 for c in range(NUM_CARDS)]
_ROTATION_LISTS = {(n, seat): [(k + seat) % n for k in range(n)] for n in range(1, MAX_PLAYERS + 1) for seat in range(n)}


def _rotation_list(n: int, seat: int) -> list[int]:
    """``rel`` as a list (precomputed for every player count and seat)."""
    return _ROTATION_LISTS[(n, seat)]


_REST_TABLES: dict[tuple[int, int], np.ndarray] = {}


def _rest_table(ready_by: int, max_fights: int) -> np.ndarray:
    """float32[max_fights + 2]: entry f is the ``rest`` feature of a card laid in fight f (1 if
    f <= ready_by: a win now picks it up; 0.5 if it must rest longer), the last entry 0 (index
    NOBODY = -1: not in the rest pile)."""
    table = _REST_TABLES.get((ready_by, max_fights))
    if table is None:
        table = np.full(max_fights + 2, 0.5, dtype=np.float32)
        table[:max(ready_by + 1, 0)] = 1.0
        table[-1] = 0.0
        table.flags.writeable = False
        _REST_TABLES[(ready_by, max_fights)] = table
    return table


_WAIT_TABLES: dict[int, np.ndarray] = {}


def _wait_table(rest_fights: int) -> np.ndarray:
    """float32[rest_fights + 1]: entry w is the ``resting`` feature of a character that must wait w
    more fights, w / rest_fights (the float64 quotient, stored as float32)."""
    table = _WAIT_TABLES.get(rest_fights)
    if table is None:
        table = np.array([w / rest_fights for w in range(rest_fights + 1)], dtype=np.float32)
        table.flags.writeable = False
        _WAIT_TABLES[rest_fights] = table
    return table


_DESTINATION_ROWS: dict[tuple[int, ...], np.ndarray] = {}
"""The ``destinations_left`` block for each set of destinations left (a game meets at most 25 sets)."""


def _destination_row(remaining: list[int]) -> np.ndarray:
    key = tuple(remaining)
    row = _DESTINATION_ROWS.get(key)
    if row is None:
        row = np.zeros(NUM_DESTINATIONS, dtype=np.float32)
        row[list(key)] = 1
        row.flags.writeable = False
        if len(_DESTINATION_ROWS) > 4096:  # a long-lived process meeting many campaigns: start afresh
            _DESTINATION_ROWS.clear()
        _DESTINATION_ROWS[key] = row
    return row


def _row_counts(matrix: np.ndarray, n: int) -> list[int]:
    """Nonzero entries of each row of a 0/1 ``matrix`` (int8 or bool, one byte each, C order):
    ``bytes.count`` on its bytes, cheaper than a numpy reduction over a handful of rows."""
    data = matrix.tobytes()
    width = matrix.shape[1]
    return [data.count(1, s * width, (s + 1) * width) for s in range(n)]


Public = tuple[np.ndarray, np.ndarray, np.ndarray]
"""What ``public_part`` returns: (the vector with its seat-independent table features set, the
per-player blocks of those features, one row per seat in seat order, every seat's ``rest`` row
in seat order: ``encode`` copies only the observer's own). The player rows are a view of the
vector's player block (seat 0's egocentric order), so seat 0's ``encode`` copies them with the vector."""


def public_part(game: FifthEarthGame) -> Public:
    """The seat-independent features of the observation: everything except my decision (``phase``),
    my own piles (``hand``, ``spoils``; ``rest`` is kept for every seat, one row each, and only the
    observer's own enters its vector), and the features that a lay changes while others
    are still to lay (``hand_size``, ``laid_count``, ``has_laid``). Nothing here depends on who
    observes; ``encode`` rotates the player rows to the observer. It changes only with the game's
    ``table_version``, so a caller may reuse it for every seat until then (the env does)."""
    g, n, cfg = game, game.num_players, game.config
    obs = np.zeros(OBS_SIZE, dtype=np.float32)
    players = obs[PLAYERS_START:PLAYERS_START + n * PLAYER_SIZE].reshape(n, PLAYER_SIZE)  # seat order, in the vector
    b = g.battle
    fight = b.fight if b is not None else 0
    revealed = g.revealed
    obs[_REVEALED0:_REVEALED1] = revealed
    obs[_IN_PLAY0:_IN_PLAY1] = g.in_play
    obs[_DEST0:_DEST0 + NUM_DESTINATIONS] = _destination_row(g.remaining_destinations)
    nd = cfg.num_destinations
    p = _PROGRESS0
    obs[p] = len(g.claimed) / nd
    obs[p + 1] = nd / NUM_DESTINATIONS
    obs[p + 2] = g.knockout_round / 3.0
    obs[p + 3] = fight / cfg.max_fights
    obs[p + 4] = cfg.format == "royale"
    w = _POWER0
    obs[w] = len(g.power_deck) / NUM_POWER_CARDS
    for x in g.power_discard:
        obs[w + 1 + x] = 1
    # The one-value features by flat index into ``players`` (Python numbers: cheaper than array
    # operations on a few players). Seat s starts at s * PLAYER_SIZE.
    flat = players.reshape(-1)
    rest_sizes = _row_counts(g.rest_since != NOBODY, n)
    spoils_sizes = _row_counts(g.spoils, n) if cfg.won_cards == "spoils" else None
    won = g.destinations_won.tolist()
    alive = g.alive.tolist()
    bye = g.bye
    base = 0
    for s in range(n):
        flat[base] = 1  # present
        if alive[s]:
            flat[base + 1] = 1
        if s == bye:
            flat[base + 3] = 1
        flat[base + 7] = rest_sizes[s] / COUNT_SCALE
        if spoils_sizes is not None:
            flat[base + 8] = spoils_sizes[s] / COUNT_SCALE
        flat[base + 9] = won[s] / nd
        base += PLAYER_SIZE
    if g.phase == PHASE_CHALLENGE:
        for s in g.unpaired:
            if s != g.to_act:
                flat[s * PLAYER_SIZE + 4] = 1
    for i, s in enumerate(g.seeds):
        flat[s * PLAYER_SIZE + 5] = 1.0 - i / MAX_PLAYERS
    if b is not None:
        first = b.lay_order[0]
        max_fights = cfg.max_fights
        for s in b.players:
            base = s * PLAYER_SIZE
            flat[base + 2] = 1
            if first == s:
                flat[base + 12] = 1
            flat[base + 13] = b.wins.get(s, 0) / max_fights
    # Cards laid face down in the fight under way still count as held until the reveal:
    # otherwise a revealed card dropping out of known_hand would tell which card was laid.
    # (Nothing revealed yet: the rows come out zero, as they are.)
    held = g.hands & revealed
    if b is not None:
        for s, cards in b.laid.items():
            for c in cards:
                if revealed[c]:
                    held[s, c] = 1
    players[:, _KNOWN0:_KNOWN1] = held
    rest = g.cards.rest_fights
    if b is not None:
        # the fights each character must still rest, max(wait, 0) / rest: every seat's wait at once,
        # then one lookup that clips it into 0..rest (a character laid in this fight waits rest)
        _wait_table(rest).take(g.last_used + (rest - fight), mode="clip", out=players[:, _RESTING0:_RESTING1])
        if len(b.players) < n:
            for s in range(n):
                if s not in b.players:  # only the players in the battle have resting characters shown
                    players[s, _RESTING0:_RESTING1] = 0
    # 1 if a win now would pick the card up, 0.5 if it must rest longer: one lookup of the fight
    # each card was laid in (NOBODY, -1, reads the table's last entry, 0), every seat's at once
    rest_rows = _rest_table(fight - rest, cfg.max_fights)[g.rest_since]
    if g.last_fight is not None:
        _write_last(flat, g.last_fight, g._modifier_list)
    return obs, players, rest_rows


_LAST_BLOCK0 = _LAST_CHAR0
"""The last-fight block runs from ``last_character`` to the end of the player row."""
assert max(_P[name][1] for name in _P) == PLAYER_SIZE and all(
    _P[name][0] >= _LAST_BLOCK0 for name in ("last_stages", "last_total", "last_power_plus", "last_power_minus",
                                            "last_won"))


class PublicView:
    """``public_part`` of one game, kept up to date for a caller that reads it at many versions (the env).

    ``get(game)`` returns what ``public_part(game)`` would return now. After a plain fight step (the
    engine's ``fight_step_version``: a fight resolved with nobody out and the battle going on, the
    only change of the table since the last ``get``) it updates the arrays it returned last time in
    place: a fight changes only its fighters' rows (known hand, resting characters, last fight,
    the winner's piles and fights won, who lays first), the cards it revealed, the fight number,
    every seat's ``rest`` row (the fight number moved) and the power cards. After any other change
    it builds them afresh. The arrays are the view's own: ``encode`` copies what it reads, and a
    caller must not keep them across a ``get``. ``tests/fifth_earth/test_fifth_earth_speed_invariance.py``
    compares them with a fresh ``public_part`` at every step.
    """

    __slots__ = ("_discard", "_discard_len", "_first", "_last", "_version", "public", "updates")

    def __init__(self) -> None:
        self._version = -1  # the table_version the arrays show (-1: none yet)
        self.public: Public | None = None
        self.updates = 0
        """How many ``get`` calls took the in-place path (for the tests)."""
        self._last: object = None  # the FightResult the arrays show
        self._discard: object = None  # the power discard list they show, and its length then
        self._discard_len = 0
        self._first = NOBODY  # who lays first in the fight they show

    def get(self, game: FifthEarthGame) -> Public:
        tv = game.table_version
        if tv != self._version:
            if tv == self._version + 1 and game.fight_step_version == tv and self.public is not None:
                self._update(game)
                self.updates += 1
            else:
                self.public = public_part(game)
                self._remember(game)
            self._version = tv
        return self.public  # type: ignore[return-value]

    def _remember(self, g: FifthEarthGame) -> None:
        self._last = g.last_fight
        self._discard = g.power_discard
        self._discard_len = len(g.power_discard)
        b = g.battle
        self._first = b.lay_order[0] if b is not None and b.lay_order else NOBODY

    def _update(self, g: FifthEarthGame) -> None:
        """One plain fight step since the arrays were right (``public_part`` says what each feature is)."""
        obs, players, rest_rows = self.public  # type: ignore[misc]
        b, cfg, last = g.battle, g.config, g.last_fight
        assert b is not None and last is not None
        fight, rest, n = b.fight, g.cards.rest_fights, g.num_players
        flat = players.reshape(-1)
        revealed, hands = g.revealed, g.hands
        for cards in last.laid.values():  # the cards the fight turned face up
            for c in cards:
                obs[_REVEALED0 + c] = 1
        obs[_PROGRESS0 + 3] = fight / cfg.max_fights
        w = _POWER0
        discard = g.power_discard
        obs[w] = len(g.power_deck) / NUM_POWER_CARDS
        if discard is self._discard:  # the same pile, cards added at its end
            for x in discard[self._discard_len:]:
                obs[w + 1 + x] = 1
        else:  # the deck was refilled from the pile: a new pile
            obs[w + 1:w + 1 + NUM_POWER_CARDS] = 0
            for x in discard:
                obs[w + 1 + x] = 1
        # every seat's rest row first (the fight number moved): one lookup into the rows in place
        _rest_table(fight - rest, cfg.max_fights).take(g.rest_since, mode="wrap", out=rest_rows)
        winner = last.winner
        base = winner * PLAYER_SIZE
        # a card is in the rest pile exactly where its rest entry is nonzero (1 or 0.5)
        flat[base + 7] = np.count_nonzero(rest_rows[winner]) / COUNT_SCALE
        if cfg.won_cards == "spoils":
            flat[base + 8] = np.count_nonzero(g.spoils[winner]) / COUNT_SCALE
        flat[base + 13] = b.wins.get(winner, 0) / cfg.max_fights
        first = b.lay_order[0]
        if first != self._first:
            if self._first != NOBODY:
                flat[self._first * PLAYER_SIZE + 12] = 0
            flat[first * PLAYER_SIZE + 12] = 1
        # the fighters' known hands (a card laid face down in the fight under way still held), and
        # their last fights: the previous last fight's players' blocks cleared first
        everyone = len(last.laid) == n  # every seat fought (2 players, a full royale): whole-block operations
        if everyone:
            players[:, _KNOWN0:_KNOWN1] = hands & revealed
        else:
            for s in last.laid:
                players[s, _KNOWN0:_KNOWN1] = hands[s] & revealed
        for s, cards in b.laid.items():  # laid face down in the fight under way: still held until revealed
            for c in cards:
                if revealed[c]:
                    flat[s * PLAYER_SIZE + _KNOWN0 + c] = 1
        old = self._last  # (only its players have a last-fight block set)
        if everyone:
            players[:, _LAST_BLOCK0:] = 0
        elif old is not None:
            for s in old.laid:  # type: ignore[attr-defined]
                players[s, _LAST_BLOCK0:] = 0
        _write_last(flat, last, g._modifier_list)
        # the resting characters of the players in the battle (the others' rows stay zero): they
        # move with the fight number
        table = _wait_table(rest)
        shift = rest - fight
        if len(b.players) == n:
            table.take(g.last_used + shift, mode="clip", out=players[:, _RESTING0:_RESTING1])
        else:
            for s in b.players:
                table.take(g.last_used[s] + shift, mode="clip", out=players[s, _RESTING0:_RESTING1])
        self._last = last
        self._discard = discard
        self._discard_len = len(discard)
        self._first = first


def _write_last(flat: np.ndarray, last: object, mods_all: list[int]) -> None:
    """The last-fight features of its players into the flat player rows (their blocks zero before)."""
    for s, cards in last.laid.items():  # type: ignore[attr-defined]
        base = s * PLAYER_SIZE
        flat[base + _LAST_CHAR0 + _CHARACTER_OF[cards[0]]] = 1
        for c in cards:
            flat[base + _LAST_STAGES0 + _STAGE_INDEX[c]] = 1
        flat[base + _LAST_TOTAL] = max(last.totals[s], 0) / TOTAL_SCALE  # type: ignore[attr-defined]
        drawn = last.power[s]  # type: ignore[attr-defined]
        if drawn:
            mods = [mods_all[x] for x in drawn]
            flat[base + _LAST_PLUS] = sum(m for m in mods if m > 0) / MODIFIER_SCALE
            flat[base + _LAST_MINUS] = -sum(m for m in mods if m < 0) / MODIFIER_SCALE
        if last.winner == s:  # type: ignore[attr-defined]
            flat[base + _LAST_WON] = 1


def encode(game: FifthEarthGame, seat: int, public: Public | None = None) -> np.ndarray:
    """The observation vector of ``seat``.

    ``public`` is ``public_part(game)`` (computed here if None; a caller that keeps it while the
    game's ``table_version`` is unchanged saves most of the work). The vector is built with few
    array operations: the public vector copied, the player rows rotated to the observer by two
    slices, my piles by slices, the one-value features written from Python numbers (cheaper than
    an array operation over a handful of players). The golden traces (``tests/fifth_earth``) and
    ``benchmarks/check_identical_fifth_earth.py`` pin every value.
    """
    g, n = game, game.num_players
    base_obs, players, rest_rows = public_part(g) if public is None else public
    obs = base_obs.copy()  # its player rows are ``players``, in seat order: seat 0's own order
    if seat:  # egocentric rows: seats seat..n-1, then 0..seat-1 (two slices of the flat rows)
        start, split, end = PLAYERS_START, PLAYERS_START + (n - seat) * PLAYER_SIZE, PLAYERS_START + n * PLAYER_SIZE
        cut = PLAYERS_START + seat * PLAYER_SIZE
        obs[start:split] = base_obs[cut:end]
        obs[split:end] = base_obs[start:cut]
    b = g.battle
    phase = g.phase
    if g.to_act == seat:
        if phase == PHASE_DESTINATION:
            obs[0] = 1
        elif phase == PHASE_CHALLENGE:
            obs[1] = 1
        elif phase == PHASE_LAY:
            obs[2 if b is not None and not b.laid else 3] = 1
    obs[_HAND0:_HAND1] = g.hands[seat]
    obs[_REST0:_REST1] = rest_rows[seat]
    if g.config.won_cards == "spoils":  # the only rule under which the engine sets spoils aside
        obs[_SPOILS0:_SPOILS1] = g.spoils[seat]
    hand_sizes = g._hand_sizes_now()
    base = PLAYERS_START
    for s in _rotation_list(n, seat):
        obs[base + 6] = hand_sizes[s] / COUNT_SCALE
        base += PLAYER_SIZE
    if b is not None:
        for s, laid in b.laid.items():
            base = PLAYERS_START + (s - seat) % n * PLAYER_SIZE
            obs[base + 10] = len(laid) / NUM_STAGES
            obs[base + 11] = 1
    return obs
