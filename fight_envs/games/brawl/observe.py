"""Brawl observation encoder: what one fighter sees, as a float32 vector, egocentric.

Seats are relative to the observer: relative seat ``k`` is the fighter ``k`` places clockwise
of it (``k = 0`` is the observer). Every per-seat block has ``MAX_PLAYERS = 8`` entries, zero
beyond the table's size, so one network plays every player count. Hidden information (the other
fighters' hands, the order and make-up of the draw pile) never enters; what does is public
(hand sizes, the discard pile, the cards on the table, everything played, the public memory of
``BrawlGame.known`` and ``chaos_played``) or the observer's own.

| block | size | meaning |
| --- | --- | --- |
| ``hand`` | 13 | my cards, count per card type (0..7 attacks FIRE PUNCH, FIRE KICK, ..., 8 JUMP, 9 DODGE, 10 COUNTER, 11 BLOCK, 12 CHAOS) |
| ``hand_sizes`` | 8 | cards held by each relative seat |
| ``present`` | 8 | 1 for each relative seat at the table |
| ``fighting`` | 8 | 1 for each relative seat still fighting (not MASTER) |
| ``place`` | 8 | finishing place / num_players of each MASTER (0 while fighting) |
| ``draw_pile`` | 1 | cards in the draw pile |
| ``discard`` | 13 | discard pile, count per card type |
| ``table`` | 13 | cards of the current battle on the table, count per type |
| ``chaos_spent`` | 1 | CHAOS cards played (out of the game) |
| ``direction`` | 2 | one-hot: clockwise, counter-clockwise |
| ``phase`` | 10 | one-hot ``rules.Phase`` of the current decision (``COMBO``, 9, only with ``combo="multi"``) |
| ``attack`` | 13 | one-hot card type of the attack being answered (zeros if none) |
| ``attacker`` | 8 | relative seat of the current aggressor (one-hot) |
| ``defender`` | 8 | relative seat of the current defender |
| ``opener`` | 8 | relative seat of the fighter who opened the battle |
| ``actor`` | 8 | relative seat of the fighter deciding now |
| ``last_action`` | 16 | one-hot of the last action taken by anyone |
| ``last_actor`` | 8 | relative seat that took it |
| ``showdown`` | 1 | 1 once only two fighters are left |
| ``progress`` | 1 | decisions taken / step limit |
| ``known`` | 104 | per relative seat 1..7 (8 x 13, seat 0's row zero), cards the table knows to be in that hand: a blocked attack taken back, a CHAOS shown in a holders-only window, the whole hand in an open showdown |
| ``chaos_played`` | 8 | CHAOS cards each relative seat has played |
| ``battle_attacks`` | 1 | attack cards played in the current battle |
| ``combo`` | 13 | ``combo="multi"``: the combo's cards on the table not yet answered, per type (while it is laid, every card laid so far; the one the defender faces is ``attack``); zeros otherwise |
| ``combo_rule`` | 1 | 1 when the rules are ``combo="multi"`` (public: the rules of the game) |

**The privileged block** (:func:`encode_privileged`, ``PRIVILEGED_SIZE`` floats) is what the observation
leaves out, for a training-time critic only (``ppo.critic: privileged``): a value function may read the
hidden state while the policy acts on the observation alone. It is never part of an observation.

| block | size | meaning |
| --- | --- | --- |
| ``hands`` | 104 | per relative seat 1..7 (8 x 13, seat 0's row zero: my hand is in the observation), the cards in that hand, count per type |
| ``draw_next`` | 104 | the next ``PRIVILEGED_DRAWS`` = 8 cards of the draw pile, in drawing order, one-hot per card (zeros past the pile's end) |
| ``draw_pile`` | 13 | the whole draw pile, count per card type |

**The refusals block** (:func:`encode_refusals`, ``REFUSALS_SIZE`` floats; the env's option ``refusals=True``
appends it to the observation): public memory of what each fighter showed it lacked. Per relative seat (8 rows
of 9): for each attack card ``c`` (0..7), ``1 / (1 + d)`` where ``d`` is the cards that fighter has drawn since
it last took the hit of ``c`` (PASS as a defender: it held no ``c`` and no answer it chose to play), 0 if it
never did; then the same for its last PASS as the attacker (a hand without any attack). Every draw is public,
the card drawn is not, so 1 means "nothing drawn since".
"""

from __future__ import annotations

import numpy as np

from fight_envs.games.brawl.cards import NUM_ATTACKS, NUM_CARD_TYPES
from fight_envs.games.brawl.rules import MAX_PLAYERS, NO_CARD, NO_SEAT, NUM_ACTIONS, NUM_PHASES, BrawlGame, Phase

_LAYOUT: list[tuple[str, int]] = [
    ("hand", NUM_CARD_TYPES), ("hand_sizes", MAX_PLAYERS), ("present", MAX_PLAYERS), ("fighting", MAX_PLAYERS),
    ("place", MAX_PLAYERS), ("draw_pile", 1), ("discard", NUM_CARD_TYPES), ("table", NUM_CARD_TYPES),
    ("chaos_spent", 1), ("direction", 2), ("phase", NUM_PHASES), ("attack", NUM_CARD_TYPES),
    ("attacker", MAX_PLAYERS), ("defender", MAX_PLAYERS), ("opener", MAX_PLAYERS), ("actor", MAX_PLAYERS),
    ("last_action", NUM_ACTIONS), ("last_actor", MAX_PLAYERS), ("showdown", 1), ("progress", 1),
    ("known", MAX_PLAYERS * NUM_CARD_TYPES), ("chaos_played", MAX_PLAYERS), ("battle_attacks", 1),
    ("combo", NUM_CARD_TYPES), ("combo_rule", 1),
]


def _slices(layout: list[tuple[str, int]]) -> tuple[dict[str, slice], int]:
    """Each block's slice of a vector laid out as ``layout`` says, and the vector's size."""
    slices, start = {}, 0
    for name, size in layout:
        slices[name] = slice(start, start + size)
        start += size
    return slices, start


OBS_SLICES, OBS_SIZE = _slices(_LAYOUT)
OBS_HIGH = 200.0
"""Upper bound of every feature (a count never exceeds the deck, at most 200 cards by design)."""

_S = {name: sl.start for name, sl in OBS_SLICES.items()}
_REL = {n: [np.array([(s + k) % n for k in range(n)]) for s in range(n)] for n in range(1, MAX_PLAYERS + 1)}
"""_REL[n][seat][k]: the absolute seat of relative seat k."""
_HAND_SIZES, _PRESENT_AT, _FIGHTING = _S["hand_sizes"], _S["present"], _S["fighting"]
_DISCARD, _KNOWN = _S["discard"], _S["known"]


def encode(game: BrawlGame, seat: int) -> np.ndarray:
    """The observation vector of ``seat``."""
    n = game.num_players
    obs = np.zeros(OBS_SIZE, dtype=np.float32)
    hands = game.hands
    obs[0:NUM_CARD_TYPES] = hands[seat]
    sizes, active = game.sizes, game.active.tolist()
    hs, fi = _HAND_SIZES, _FIGHTING
    for k in range(n):
        s = seat + k - n if seat + k >= n else seat + k
        obs[hs + k] = sizes[s]
        obs[_PRESENT_AT + k] = 1.0
        if active[s]:
            obs[fi + k] = 1.0
    if game.finish_order:
        i = _S["place"]
        obs[i:i + n] = game.place[_REL[n][seat]] / n
    obs[_S["draw_pile"]] = len(game.draw_pile)
    obs[_DISCARD:_DISCARD + NUM_CARD_TYPES] = game.discard_counts
    if game.table:
        i = _S["table"]
        for c in game.table:
            obs[i + c] += 1.0
    obs[_S["chaos_spent"]] = game.chaos_spent
    obs[_S["direction"] + (0 if game.direction == 1 else 1)] = 1.0
    obs[_S["phase"] + int(game.phase)] = 1.0
    b = game.battle
    if b.attack_card != NO_CARD:
        obs[_S["attack"] + b.attack_card] = 1.0
    if b.attacker != NO_SEAT:
        obs[_S["attacker"] + (b.attacker - seat) % n] = 1.0
    if b.defender != NO_SEAT:
        obs[_S["defender"] + (b.defender - seat) % n] = 1.0
    if b.opener != NO_SEAT:
        obs[_S["opener"] + (b.opener - seat) % n] = 1.0
    if game.actor != NO_SEAT:
        obs[_S["actor"] + (game.actor - seat) % n] = 1.0
    if game.events:
        last = game.events[-1]
        obs[_S["last_action"] + last.action] = 1.0
        obs[_S["last_actor"] + (last.seat - seat) % n] = 1.0
    obs[_S["showdown"]] = float(game.showdown)
    obs[_S["progress"]] = game.steps / game.config.step_limit
    # in the open showdown every hand still fighting is face up (a MASTER's hand and memory are
    # empty while the game goes on; once it is over the last fighter's cards stay hidden)
    open_hands = game.showdown and game.config.showdown == "open" and game.phase != Phase.OVER
    public = hands if open_hands else game.known
    if public is hands or game.known_count:
        i = _KNOWN
        rows = public.ravel()
        cut = seat * NUM_CARD_TYPES
        obs[i:i + n * NUM_CARD_TYPES - cut] = rows[cut:]
        obs[i + n * NUM_CARD_TYPES - cut:i + n * NUM_CARD_TYPES] = rows[:cut]
        obs[i:i + NUM_CARD_TYPES] = 0.0  # my own row: my hand is in ``hand``
    if game.chaos_spent:
        i = _S["chaos_played"]
        played = game.chaos_played.tolist()
        for k in range(n):
            obs[i + k] = played[(seat + k) % n]
    obs[_S["battle_attacks"]] = b.attacks
    if b.pending:
        i = _S["combo"]
        for c in b.pending:
            obs[i + c] += 1.0
    if game.config.combo == "multi":
        obs[_S["combo_rule"]] = 1.0
    # Custom card data may hold far more cards than the standard deck; clip so the observation
    # always lies inside its Box (only card counts above OBS_HIGH are affected; every feature is
    # at most the deck's size or 1, so a deck of OBS_HIGH cards or fewer needs no clipping).
    if game.cards.deck_size > OBS_HIGH:
        np.minimum(obs, OBS_HIGH, out=obs)
    return obs


PRIVILEGED_DRAWS = 8
"""Cards of the draw pile, from the top, that the privileged block shows one by one."""
_PRIVILEGED_LAYOUT: list[tuple[str, int]] = [
    ("hands", MAX_PLAYERS * NUM_CARD_TYPES), ("draw_next", PRIVILEGED_DRAWS * NUM_CARD_TYPES), ("draw_pile", NUM_CARD_TYPES),
]
PRIVILEGED_SLICES, PRIVILEGED_SIZE = _slices(_PRIVILEGED_LAYOUT)


def encode_privileged(game: BrawlGame, seat: int) -> np.ndarray:
    """The hidden state ``seat`` does not see, egocentric, as a float32 vector (the module's second table).

    For a critic in training only: it holds the other fighters' hands and the draw pile, which no
    observation may show.
    """
    n = game.num_players
    out = np.zeros(PRIVILEGED_SIZE, dtype=np.float32)
    rows = game.hands.ravel()
    cut = seat * NUM_CARD_TYPES
    out[:n * NUM_CARD_TYPES - cut] = rows[cut:]
    out[n * NUM_CARD_TYPES - cut:n * NUM_CARD_TYPES] = rows[:cut]
    out[:NUM_CARD_TYPES] = 0.0  # my own row: my hand is in the observation
    pile = game.draw_pile  # the top of the pile is the list's end
    i = PRIVILEGED_SLICES["draw_next"].start
    for k, card in enumerate(reversed(pile[-PRIVILEGED_DRAWS:])):
        out[i + k * NUM_CARD_TYPES + card] = 1.0
    i = PRIVILEGED_SLICES["draw_pile"].start
    for card in pile:
        out[i + card] += 1.0
    if game.cards.deck_size > OBS_HIGH:
        np.minimum(out, OBS_HIGH, out=out)
    return out


REFUSALS_SIZE = MAX_PLAYERS * (NUM_ATTACKS + 1)
"""Floats of :func:`encode_refusals`: per relative seat, one per attack card and one for passing as the attacker."""


def encode_refusals(game: BrawlGame, seat: int) -> np.ndarray:
    """The refusals block of ``seat`` (the module's third table): public, egocentric, float32."""
    n = game.num_players
    out = np.zeros((MAX_PLAYERS, NUM_ATTACKS + 1), dtype=np.float32)
    if (game.declined >= 0).any() or (game.unable >= 0).any():
        order = _REL[n][seat]
        drawn = game.drawn[order].astype(np.float32)
        declined, unable = game.declined[order], game.unable[order]
        out[:n, :NUM_ATTACKS] = np.where(declined >= 0, 1.0 / (1.0 + drawn[:, None] - declined), 0.0)
        out[:n, NUM_ATTACKS] = np.where(unable >= 0, 1.0 / (1.0 + drawn - unable), 0.0)
    return out.ravel()
