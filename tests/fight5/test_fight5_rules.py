"""Fight 5 rules, checked against games worked out by hand (``seeds/fight5.md``).

Scenarios are fixed deals built from round tables (``fight_envs.testing.parse_round_table``:
one row per clash with the face-up Clash Card, each seat's card, '.' where the seat does not
share the clash, and the winner), played on the engine (``Fight5Game.new_game(rng, deals=...)``)
or through an env (``reset(options={"deals": [...]})``). Every expected number below (Point Pile sizes and worth, bout
points, scores, outcomes) was counted by hand from those tables, not taken from the engine.
"""

from __future__ import annotations

import numpy as np
import pytest

from fight_envs.games.fight5.cards import DEFAULT_CARDS, NUM_RANKS, rank_of
from fight_envs import fight5_v0
from fight_envs.games.fight5.rules import NO_CARD, Fight5Config, Fight5Game, clash_winner, parse_deal
from fight_envs.games.fight5.topology import topology
from fight_envs.testing import (
    RoundRow,
    assert_cards_conserved,
    check_round,
    parse_round_table,
    play_round,
    round_plays,
    scenario_deal,
)


def make_game(num_players: int, rounds: list, stacks: dict, num_bouts: int = 1,
              target: int | None = None) -> Fight5Game:
    """A game whose first bout is dealt so that ``rounds`` (tables or parsed rows) can be played."""
    parsed = [parse_round_table(r, num_players) if isinstance(r, str) else r for r in rounds]
    game = Fight5Game(Fight5Config(num_players=num_players, num_bouts=num_bouts, target_score=target))
    game.new_game(np.random.default_rng(0), deals=[scenario_deal(num_players, parsed, stacks)])
    return game


# ----------------------------------------------------------------------------- a full 2-player bout
# Clash stacks, top first (completed with low cards that never come up).
TWO_PLAYER_STACKS = {0: ["10", "7", "12"], 1: ["5", "9", "11", "6"], 2: ["8", "4"], 3: ["*", "6", "7", "8"],
                     4: ["13", "2", "3", "9"]}
TWO_PLAYER_BOUT = [
    """
    clash   card  P0  P1  winner
    middle   10   11   9  P0     # 11 reaches 10 and beats 9
    c1        5    4   3  tie    # nobody reaches 5
    c2        8    8   8  tie    # the highest cards tie
    c3        *    2   3  P1     # a Star Clash Card counts as 0
    c4       13   13  12  P0     # equal to the Clash Card is enough
    """,
    """
    clash   card  P0  P1  winner
    middle    7    *  13  P0     # a sole Star beats every number
    c1        5    5   2  P0     # the 5 stayed after the tie; P0 also takes round 1's 4 and 3
    c2        8    7   9  P1     # P1 also takes round 1's two 8s
    c3        6    6   6  tie
    c4        2    3   *  P1
    """,
    """
    clash   card  P0  P1  winner
    middle   12   10  11  tie    # nobody reaches 12
    c1        9    9   7  P0
    c2        4    4   4  tie
    c3        6   12  10  P0     # takes round 2's two 6s too
    c4        3    2   5  P1
    """,
    """
    clash   card  P0  P1  winner
    middle   12   13  13  tie
    c1       11   11  12  P1
    c2        4    3   2  tie    # nobody reaches 4
    c3        7    7   6  P0
    c4        9    5   4  tie
    """,
    """
    clash   card  P0  P1  winner
    middle   12   10  10  tie    # still unresolved when the bout ends
    c1        6    6   5  P0
    c2        4   12  11  P0     # takes 4 4 3 2 from rounds 3-4 too
    c3        8    8   8  tie    # still unresolved when the bout ends
    c4        9    9   7  P0     # takes round 4's 5 and 4 too
    """,
]
# After each round: cards in each Point Pile, and what they are worth before the bonus.
TWO_PLAYER_PILE_SIZES = [[6, 3], [14, 11], [22, 14], [25, 17], [40, 17]]
TWO_PLAYER_PILE_POINTS = [[25, 10], [40, 20], [50, 20], [50, 35], [60, 35]]
# P0: ten cards of 10+ (50) and its own Star (10), plus 15 for the most cards.
# P1: three cards of 10+ (15) and two Stars, its own and a Star Clash Card (20); no bonus.
TWO_PLAYER_BOUT_POINTS = [75, 35]


def two_player_game(num_bouts: int = 1, target: int | None = None) -> Fight5Game:
    return make_game(2, TWO_PLAYER_BOUT, TWO_PLAYER_STACKS, num_bouts, target)


def test_full_bout_two_players_worked_by_hand() -> None:
    game = two_player_game()
    for r, table in enumerate(TWO_PLAYER_BOUT):
        check_round(game, table)
        assert game.pile_sizes().tolist() == TWO_PLAYER_PILE_SIZES[r], f"after round {r + 1}"
        assert game.pile_points().tolist() == TWO_PLAYER_PILE_POINTS[r], f"after round {r + 1}"
        assert_cards_conserved(game)
    assert game.is_terminal()
    assert [p.tolist() for p in game.bout_points] == [TWO_PLAYER_BOUT_POINTS]
    assert game.scores.tolist() == TWO_PLAYER_BOUT_POINTS
    assert game.winners() == [0]
    assert game.returns().tolist() == [1.0, -1.0]


@pytest.mark.parametrize("reward,expected", [("outcome", [1.0, -1.0]), ("score", [0.4, -0.4])])
def test_full_bout_two_players_through_the_parallel_env(reward: str, expected: list) -> None:
    rounds = [parse_round_table(t, 2) for t in TWO_PLAYER_BOUT]
    deal = scenario_deal(2, rounds, TWO_PLAYER_STACKS).to_json()
    assert parse_deal(deal, 2).to_json() == deal
    env = fight5_v0.parallel_env(num_players=2, num_bouts=1, target_score=None, reward=reward)
    env.reset(seed=0, options={"deals": [deal]})
    slots = topology(2).player_clashes
    totals = {a: 0.0 for a in env.possible_agents}
    for rows in rounds:
        plays = round_plays(rows)
        for slot in range(5):
            actions = {f"player_{s}": plays[s][int(slots[s][slot])] for s in (0, 1)}
            _, rewards, _, _, infos = env.step(actions)
            for agent, r in rewards.items():
                totals[agent] += r
    assert env.agents == []
    assert [totals["player_0"], totals["player_1"]] == pytest.approx(expected)
    assert infos["player_0"]["scores"].tolist() == [75, 35]
    assert infos["player_1"]["scores"].tolist() == [35, 75], "egocentric: my score first"
    assert infos["player_1"]["bout_points"].tolist() == [35, 75]


def test_pots_unresolved_at_bout_end_are_not_scored() -> None:
    game = two_player_game()
    for table in TWO_PLAYER_BOUT:
        check_round(game, table)
    # The middle still holds 10 13 10 (P0) and 11 13 10 (P1) under its 12; c3 two 8s under its 8.
    middle = game.pot[0]
    assert middle[0].tolist() == np.bincount([rank_of(c) for c in ("10", "13", "10")], minlength=NUM_RANKS).tolist()
    assert middle[1].tolist() == np.bincount([rank_of(c) for c in ("11", "13", "10")], minlength=NUM_RANKS).tolist()
    assert game.pot[3].sum() == 2 and game.clash_card[3] == rank_of("8")
    assert game.clash_card[0] == rank_of("12")
    # Bout points are the Point Piles (plus the bonus) and nothing of those pots.
    assert game.bout_points[0].tolist() == [60 + 15, 35]


def test_scores_change_only_at_the_end_of_a_bout() -> None:
    game = two_player_game(num_bouts=2, target=None)
    for r, table in enumerate(TWO_PLAYER_BOUT[:-1]):
        check_round(game, table)
        assert game.scores.tolist() == [0, 0], f"Point Piles are worth {game.pile_points()} after round {r + 1}"
        assert game.bout_points == []
    check_round(game, TWO_PLAYER_BOUT[-1])
    assert game.scores.tolist() == TWO_PLAYER_BOUT_POINTS
    assert [p.tolist() for p in game.bout_points] == [TWO_PLAYER_BOUT_POINTS]


def test_point_piles_and_pots_reset_every_bout() -> None:
    game = two_player_game(num_bouts=2, target=None)
    for table in TWO_PLAYER_BOUT:
        check_round(game, table)
    assert not game.is_terminal()
    assert (game.bout, game.round) == (1, 0)
    assert game.pile_sizes().tolist() == [0, 0]
    assert game.pot.sum() == 0
    assert (game.clash_card != NO_CARD).all(), "every clash gets a fresh Clash Card"
    assert game.hands.sum(axis=1).tolist() == [5, 5]
    assert_cards_conserved(game)
    rng = np.random.default_rng(1)
    while not game.is_terminal():
        seat = game.current_player()
        game.apply_action(seat, int(rng.choice(game.legal_actions(seat))))
    second = game.bout_points[1]
    assert game.scores.tolist() == (np.array(TWO_PLAYER_BOUT_POINTS) + second).tolist()
    assert second.tolist() == game.score_bout().tolist(), "bout 2 scores only bout 2's Point Piles"


@pytest.mark.parametrize("target", [5, 20, 60, 75])
def test_game_ends_after_the_bout_in_which_the_target_is_reached(target: int) -> None:
    # P0's Point Pile is worth 25 after round 1 and 60 after round 5: the target is reached
    # inside the bout, yet the game runs to the end of the bout and stops there.
    game = two_player_game(num_bouts=3, target=target)
    for r, table in enumerate(TWO_PLAYER_BOUT):
        assert not game.is_terminal(), f"ended before round {r + 1}"
        check_round(game, table)
    assert game.is_terminal() and game.bout == 1
    assert game.scores.tolist() == TWO_PLAYER_BOUT_POINTS


def test_game_continues_when_the_target_is_missed_by_five() -> None:
    game = two_player_game(num_bouts=3, target=TWO_PLAYER_BOUT_POINTS[0] + 5)
    for table in TWO_PLAYER_BOUT:
        check_round(game, table)
    assert not game.is_terminal() and game.bout == 1


def test_game_lasts_num_bouts_without_a_target() -> None:
    game = Fight5Game(Fight5Config(num_players=3, num_bouts=4, target_score=None))
    game.new_game(np.random.default_rng(3))
    steps = 0
    while not game.is_terminal():
        seat = game.current_player()
        game.apply_action(seat, game.legal_actions(seat)[-1])
        steps += 1
    assert steps == 4 * 25 * 3
    assert len(game.bout_points) == 4 and game.bout == 4


def all_tie_rounds() -> list[list[RoundRow]]:
    """Both players hold the same cards each round and play the same card at every clash."""
    deck = [r for r in range(NUM_RANKS) for _ in range(int(DEFAULT_CARDS.player_deck[r]))]
    return [[RoundRow(c, None, {0: deck[5 * r + c], 1: deck[5 * r + c]}, NO_CARD) for c in range(5)] for r in range(5)]


def test_shared_win_when_scores_tie_and_no_bonus_without_cards() -> None:
    # Every clash ties all bout (equal highest cards), so nobody wins a card: the 15-point bonus
    # for the most cards needs at least one card, so both score 0 and share the win.
    rounds = all_tie_rounds()
    game = make_game(2, rounds, {})
    for rows in rounds:
        reveal = play_round(game, round_plays(rows))
        assert [r.winner for r in reveal] == [NO_CARD] * 5
    assert game.is_terminal()
    assert game.bout_points[0].tolist() == [0, 0]
    assert game.winners() == [0, 1]
    assert game.returns().tolist() == [0.0, 0.0]


# ----------------------------------------------------------------------------- 3 players
THREE_PLAYER_STACKS = {0: ["9"], 1: ["13", "6", "2"], 2: ["*", "8"], 3: ["7", "11", "5"], 4: ["10", "3"],
                       5: ["4", "12"], 6: ["3", "2"]}
THREE_PLAYER_ROUNDS = [
    """
    clash   card  P0  P1  P2  winner
    middle    9   13  13  10  tie   # the 13s tie; the 10 reaches 9 but is not the highest
    c1       13    *  12   .  P0    # a sole Star wins even against a 13 Clash Card
    c2        *    2   3   .  P1    # a Star Clash Card counts as 0
    c3        7    .   6   7  P2    # equal to the Clash Card is enough
    c4       10    .   9   8  tie   # nobody reaches 10
    c5        4    4   .   4  tie   # the highest cards tie
    c6        3   11   .   2  P0
    """,
    """
    clash   card  P0  P1  P2  winner
    middle    9   13   *   *  tie   # two Stars tie the clash, though P0's 13 reaches 9
    c1        6    6   7   .  P1
    c2        8    9   9   .  tie
    c3       11    .  11  12  P2
    c4       10    .  10   5  P1    # takes round 1's 9 and 8 too
    c5        4    5   .   2  P0    # takes round 1's two 4s too
    c6        2    3   .   3  tie
    """,
    """
    clash   card  P0  P1  P2  winner
    middle    9   10  11  12  P2    # takes the six cards left from rounds 1-2 too
    c1        2    4   4   .  tie
    c2        8    8   5   .  P0
    c3        5    .   5   6  P2
    c4        3    .   2  11  P2
    c5       12    7   .   9  tie
    c6        2   12   .  13  P2
    """,
]
THREE_PLAYER_PILE_SIZES = [[6, 3, 3], [11, 11, 6], [16, 11, 27]]
THREE_PLAYER_PILE_POINTS = [[25, 10, 0], [25, 20, 15], [25, 20, 85]]


def test_three_players_worked_by_hand() -> None:
    game = make_game(3, THREE_PLAYER_ROUNDS, THREE_PLAYER_STACKS)
    for r, table in enumerate(THREE_PLAYER_ROUNDS):
        check_round(game, table)
        assert game.pile_sizes().tolist() == THREE_PLAYER_PILE_SIZES[r], f"after round {r + 1}"
        assert game.pile_points().tolist() == THREE_PLAYER_PILE_POINTS[r], f"after round {r + 1}"
        assert_cards_conserved(game)


def test_winner_takes_the_pot_of_earlier_rounds() -> None:
    game = make_game(3, THREE_PLAYER_ROUNDS, THREE_PLAYER_STACKS)
    check_round(game, THREE_PLAYER_ROUNDS[0])
    check_round(game, THREE_PLAYER_ROUNDS[1])
    assert game.pot[0].sum() == 6  # 13 13 10, then 13 * *
    before = game.point_pile[2].sum(axis=0).copy()
    results = check_round(game, THREE_PLAYER_ROUNDS[2])
    assert results[0].winner == 2 and results[0].cards_won == 10  # six old + three new + the Clash Card
    gained = game.point_pile[2].sum(axis=0) - before
    middle_cards = ["13", "13", "10", "13", "*", "*", "10", "11", "12", "9"]
    other_wins = ["5", "6", "5", "2", "11", "3", "3", "3", "12", "13", "2"]  # c3, c4, c6 this round
    assert gained.tolist() == np.bincount([rank_of(c) for c in middle_cards + other_wins], minlength=NUM_RANKS).tolist()
    assert game.pot[0].sum() == 0


def test_clash_card_stays_after_a_tie_and_is_replaced_after_a_win() -> None:
    game = two_player_game()
    sizes = [len(s) for s in game.clash_stacks]
    assert sizes == [4] * 5  # one card flipped from each stack
    for table in TWO_PLAYER_BOUT[:-1]:
        cards_before = game.clash_card.copy()
        results = check_round(game, table)
        for res in results:
            c = res.clash
            if res.winner == NO_CARD:
                assert game.clash_card[c] == cards_before[c] and len(game.clash_stacks[c]) == sizes[c]
            else:
                assert len(game.clash_stacks[c]) == sizes[c] - 1, "a new Clash Card is flipped after a win"
            sizes[c] = len(game.clash_stacks[c])


@pytest.mark.parametrize("num_players,aside", [(2, 30), (3, 20), (4, 10), (5, 0)])
def test_leftover_clash_cards_are_set_aside(num_players: int, aside: int) -> None:
    game = Fight5Game(Fight5Config(num_players=num_players, num_bouts=1, target_score=None))
    game.new_game(np.random.default_rng(num_players))
    deal = game.deals_used[0]
    in_stacks = np.bincount([r for s in deal.clash_stacks for r in s], minlength=NUM_RANKS)
    assert game.set_aside.sum() == aside
    assert (game.set_aside == DEFAULT_CARDS.clash_deck - in_stacks).all()
    flipped = game.clash_seen.copy()
    rng = np.random.default_rng(0)
    while not game.is_terminal():
        seat = game.current_player()
        game.apply_action(seat, int(rng.choice(game.legal_actions(seat))))
        assert (game.set_aside == DEFAULT_CARDS.clash_deck - in_stacks).all(), "set-aside cards never come into play"
        assert (game.clash_seen <= in_stacks).all() and (game.clash_seen >= flipped).all()
    assert_cards_conserved(game)


# ----------------------------------------------------------------------------- clash resolution
CLASH_CASES = [
    pytest.param("10", {0: "11", 1: "9"}, 0, id="highest-reaching-the-clash-card-wins"),
    pytest.param("10", {0: "10", 1: "9"}, 0, id="equal-to-the-clash-card-is-enough"),
    pytest.param("10", {0: "9", 1: "8"}, NO_CARD, id="nobody-reaches-the-clash-card"),
    pytest.param("10", {0: "12", 1: "12"}, NO_CARD, id="highest-cards-equal"),
    pytest.param("9", {0: "13", 1: "13", 2: "10"}, NO_CARD, id="highest-tie-even-if-a-lower-card-qualifies"),
    pytest.param("2", {0: "3", 1: "3", 2: "2", 3: "2", 4: "13"}, 4, id="five-players-unique-highest"),
    pytest.param("13", {0: "12", 1: "11", 2: "10", 3: "9", 4: "8"}, NO_CARD, id="five-players-nobody-reaches"),
    pytest.param("*", {0: "2", 1: "3"}, 1, id="star-clash-card-counts-as-zero"),
    pytest.param("*", {0: "2", 1: "2"}, NO_CARD, id="star-clash-card-tie-still-ties"),
    pytest.param("13", {0: "*", 1: "13"}, 0, id="sole-star-beats-a-13-clash-card"),
    pytest.param("*", {0: "*", 1: "13"}, 0, id="sole-star-on-a-star-clash-card"),
    pytest.param("13", {0: "2", 1: "*", 2: "13"}, 1, id="sole-star-among-three"),
    pytest.param("5", {0: "*", 1: "*", 2: "13"}, NO_CARD, id="two-stars-tie-even-if-a-number-qualifies"),
    pytest.param("2", {0: "*", 1: "*"}, NO_CARD, id="two-stars-tie"),
    pytest.param("8", {0: "*", 1: "*", 2: "*", 3: "9"}, NO_CARD, id="three-stars-tie"),
]


@pytest.mark.parametrize("clash_card,plays,winner", CLASH_CASES)
def test_clash_winner(clash_card: str, plays: dict, winner: int) -> None:
    assert clash_winner(rank_of(clash_card), {s: rank_of(c) for s, c in plays.items()}) == winner


# ----------------------------------------------------------------------------- scoring
SCORING_CASES = [
    # Point Pile of each seat (cards from the Clash Deck or any Player Deck) -> bout points
    pytest.param([["10", "*"], ["9", "9", "9"]], [15, 15], id="10-scores-5-star-10-most-cards-15"),
    pytest.param([["*"], []], [10 + 15, 0], id="a-star-scores-10-only"),
    pytest.param([["9", "9"], ["10"]], [15, 5], id="9-scores-nothing"),
    pytest.param([["13", "2"], ["2", "2"], []], [5 + 15, 15, 0], id="tied-for-most-cards-both-get-15"),
    pytest.param([[], [], []], [0, 0, 0], id="no-bonus-when-nobody-has-a-card"),
    pytest.param([["11", "12", "13", "*", "*"], ["2"] * 6, [], ["10"]], [35, 15, 0, 5], id="four-players"),
]


@pytest.mark.parametrize("piles,expected", SCORING_CASES)
@pytest.mark.parametrize("source", ["clash_deck", "own_deck"])
def test_score_bout(piles: list, expected: list, source: str) -> None:
    n = len(piles)
    game = Fight5Game(Fight5Config(num_players=n))
    game.new_game(np.random.default_rng(0))
    for seat, pile in enumerate(piles):
        for card in pile:
            game.point_pile[seat, n if source == "clash_deck" else seat, rank_of(card)] += 1
    assert game.score_bout().tolist() == expected


RETURNS_CASES = [
    pytest.param([60, 50], [1.0, -1.0], id="sole-winner"),
    pytest.param([50, 50], [0.0, 0.0], id="two-share-the-win"),
    pytest.param([50, 50, 20], [0.0, 0.0, -1.0], id="shared-win-and-a-loser"),
    pytest.param([10, 90, 30, 90, 90], [-1.0, 0.0, -1.0, 0.0, 0.0], id="three-of-five-share"),
    pytest.param([0, 0, 0, 0], [0.0] * 4, id="all-tie-at-zero"),
]


@pytest.mark.parametrize("scores,expected", RETURNS_CASES)
def test_returns(scores: list, expected: list) -> None:
    game = Fight5Game(Fight5Config(num_players=len(scores)))
    game.new_game(np.random.default_rng(0))
    assert game.returns().tolist() == [0.0] * len(scores), "no outcome before the end"
    game.scores[:] = scores
    game.game_over = True
    assert game.returns().tolist() == expected


# ----------------------------------------------------------------------------- topology
EXPECTED_SLOTS = {
    # seat -> clash id in each slot: right neighbour's two, middle, left neighbour's two
    2: [[3, 4, 0, 1, 2], [1, 2, 0, 3, 4]],
    3: [[5, 6, 0, 1, 2], [1, 2, 0, 3, 4], [3, 4, 0, 5, 6]],
    4: [[7, 8, 0, 1, 2], [1, 2, 0, 3, 4], [3, 4, 0, 5, 6], [5, 6, 0, 7, 8]],
    5: [[9, 10, 0, 1, 2], [1, 2, 0, 3, 4], [3, 4, 0, 5, 6], [5, 6, 0, 7, 8], [7, 8, 0, 9, 10]],
}


@pytest.mark.parametrize("num_players", [2, 3, 4, 5])
def test_topology_slots(num_players: int) -> None:
    topo = topology(num_players)
    assert topo.player_clashes.tolist() == EXPECTED_SLOTS[num_players]
    assert topo.num_clashes == DEFAULT_CARDS.clash_stacks[num_players] == 2 * num_players + 1
    assert topo.sharers[0] == tuple(range(num_players)), "the middle clash is shared by everyone"
    for seat in range(num_players):
        for slot, c in enumerate(topo.player_clashes[seat]):
            assert topo.slot_of[c, seat] == slot
        assert len(set(topo.player_clashes[seat].tolist())) == 5
    assert (topo.slot_of >= 0).sum() == 5 * num_players


def test_two_players_share_all_five_clashes() -> None:
    topo = topology(2)
    assert topo.num_clashes == 5
    assert all(sharers == (0, 1) for sharers in topo.sharers)


@pytest.mark.parametrize("num_players", [3, 4, 5])
def test_left_neighbour_is_the_next_seat_clockwise(num_players: int) -> None:
    topo = topology(num_players)
    for seat in range(num_players):
        left, right = (seat + 1) % num_players, (seat - 1) % num_players
        for slot in (3, 4):  # the two clashes shared with the player on the left
            assert topo.sharers[topo.player_clashes[seat][slot]] == tuple(sorted((seat, left)))
        for slot in (0, 1):  # the two shared with the player on the right
            assert topo.sharers[topo.player_clashes[seat][slot]] == tuple(sorted((seat, right)))
    assert sum(len(s) == 2 for s in topo.sharers) == 2 * num_players
