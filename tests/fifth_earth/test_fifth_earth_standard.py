"""The standard rules (seeds/fifth_earth.md, section 8): each lever of the design, and the env's robustness.

``rules="standard"`` (the default) deals from a public subset of the characters, sends won cards
to the winner's first-use pile, redeals between knockout rounds, stops a long battle by fights
won, plays three destinations and takes forced and effect-free decisions without asking;
``rules="classic"`` keeps the first reading, pinned by the scenario tests.
"""

from __future__ import annotations

import copy
import itertools
import pickle

import numpy as np
import pytest
from fifth_earth_helpers import ND, start

from fight_envs import fifth_earth_v0
from fight_envs.core.errors import FightEnvsError, RecordError
from fight_envs.games.fifth_earth.cards import NUM_STAGES, card_id, character_of
from fight_envs.games.fifth_earth.observe import OBS_SLICES, encode
from fight_envs.games.fifth_earth.record import replay
from fight_envs.games.fifth_earth.rules import (
    DESTINATION_BASE,
    NOBODY,
    PHASE_CHALLENGE,
    PHASE_DESTINATION,
    PHASE_LAY,
    PRESETS,
    RUN_BASE,
    FifthEarthConfig,
    FifthEarthGame,
    action_cards,
)


def random_game(config: FifthEarthConfig, seed: int, each=None) -> FifthEarthGame:
    game = FifthEarthGame(config)
    game.new_game(np.random.default_rng(seed))
    rng = np.random.default_rng(seed + 7)
    while not game.is_terminal():
        seat = game.current_player()
        legal = game.legal_actions(seat)
        if each is not None:
            each(game, seat, legal)
        game.apply_action(seat, legal[int(rng.integers(len(legal)))])
    return game


def test_standard_is_the_default_and_classic_keeps_the_first_reading() -> None:
    std = FifthEarthConfig(num_players=2)
    assert std.rules == "standard"
    assert (std.num_destinations, std.characters, std.won_cards, std.out_of_cards, std.between_rounds, std.cap,
            std.ask) == (25, 6, "rest", "hand", "redeal", "fights", "choices")
    assert FifthEarthConfig(num_players=2, format="royale").won_cards == "spoils", "a royale keeps won cards aside"
    assert FifthEarthConfig(num_players=6).characters == 14
    classic = FifthEarthConfig(num_players=2, rules="classic")
    assert (classic.num_destinations, classic.characters, classic.won_cards, classic.out_of_cards,
            classic.between_rounds, classic.cap, classic.ask) == (1, 25, "hand", "hand", "keep", "cards", "all")
    assert FifthEarthConfig(num_players=2, won_cards="hand").won_cards == "hand", "an option overrides its preset"
    assert set(PRESETS) == {"standard", "classic"}
    with pytest.raises(FightEnvsError, match="rules must be one of"):
        FifthEarthConfig(rules="modern")
    with pytest.raises(FightEnvsError, match="characters=3 hold 12 cards"):
        FifthEarthConfig(num_players=2, characters=3)


def test_cards_are_dealt_from_a_public_subset_of_the_characters() -> None:
    for n in (2, 4, 6):
        game = FifthEarthGame(FifthEarthConfig(num_players=n))
        game.new_game(np.random.default_rng(n))
        assert game.phase == (PHASE_LAY if n == 2 else PHASE_CHALLENGE), "the destination (no effect) is not asked"
        chars = {character_of(int(c)) for c in np.flatnonzero(game.in_play)}
        assert len(chars) == 2 * n + 2 and game.in_play.sum() == 4 * (2 * n + 2)
        assert not (game.hands.any(axis=0) & ~game.in_play.astype(bool)).any(), "a card dealt from outside play"
        for s in range(n):
            assert np.array_equal(encode(game, s)[OBS_SLICES["in_play"]], game.in_play)


def test_runs_are_common_with_six_characters() -> None:
    """With 6 characters at 2 players about half the hands hold a run (25 characters: 13.5%)."""
    def share(characters: int) -> float:
        rng = np.random.default_rng(0)
        runs = 0
        for _ in range(3000):
            cards = np.array([card_id(c, s) for c in rng.permutation(25)[:characters] for s in range(1, 5)])
            hand = set(rng.permutation(cards)[:8].tolist())
            runs += any(card_id(c, 1) in hand and card_id(c, 2) in hand for c in range(25))
        return runs / 3000

    assert 0.45 < share(6) < 0.58 and share(25) < 0.18


def test_won_cards_go_to_the_winners_first_use_pile() -> None:
    hands = [["Ashvane 4", "Ashvane 1", "Brimmeld 1", "Corrowyn 1", "Dunspear 1", "Emberlisk 1", "Fenwraith 1",
              "Gallowmere 1"],
             ["Greytok 1", "Hollowjaw 1", "Ironbark 1", "Jadeclaw 1", "Kestrelin 1", "Lumenor 1", "Mirehound 1",
              "Greytok 2"]]
    game = start(hands, [6, 5, *ND, 6, 4, 2, 1, *ND, *ND], won_cards="rest")
    game.apply_action(0, DESTINATION_BASE)
    game.apply_action(0, 200)  # P0 challenges P1, who lays first
    game.apply_action(1, card_id(0, 1))  # Greytok 1
    game.apply_action(0, card_id(1, 4))  # Ashvane 4 wins
    assert game.rest_since[0, card_id(0, 1)] == 1, "the won card rests in the winner's first-use pile"
    assert game.rest_since[0, card_id(1, 4)] == 1 and not game.hands[0, card_id(0, 1)]
    assert game.hands[0].sum() == 7 and game.hands[1].sum() == 7


def test_survivors_are_dealt_eight_afresh_between_rounds() -> None:
    seen = []

    def check(game: FifthEarthGame, seat: int, legal: list[int]) -> None:
        if game.knockout_round == 2 and game.phase == PHASE_LAY and game.battle.fight == 1 and not game.battle.laid:
            seen.append([int(game.hands[s].sum()) for s in game.battle.players])
            assert not game.revealed.any(), "a new deck: nothing revealed says where a card is"

    for seed in range(6):
        random_game(FifthEarthConfig(num_players=3, num_destinations=1), seed, check)
    assert seen and all(h == [8, 8] for h in seen)
    keep = []
    for seed in range(6):
        random_game(FifthEarthConfig(num_players=3, num_destinations=1, between_rounds="keep"), seed,
                    lambda g, s, legal: keep.append(g.hands[g.battle.players].sum(axis=1).tolist())
                    if g.knockout_round == 2 and g.phase == PHASE_LAY and g.battle.fight == 1 and not g.battle.laid
                    else None)
    assert any(h != [8, 8] for h in keep), "between_rounds='keep' keeps the cards won"


def test_fight_cap_goes_to_the_player_who_won_more_fights() -> None:
    # P1 wins fight 1 with a weak card against a weaker one, P0 hoards nothing: at the cap (1 fight)
    # P1 has won more fights, while under cap="cards" the count of cards decides (equal here: roll-off).
    hands = [["Greytok 1", "Ashvane 1", "Brimmeld 1", "Corrowyn 1", "Dunspear 1", "Emberlisk 1", "Fenwraith 1",
              "Gallowmere 1"],
             ["Ashvane 4", "Hollowjaw 1", "Ironbark 1", "Jadeclaw 1", "Kestrelin 1", "Lumenor 1", "Mirehound 1",
              "Greytok 2"]]
    game = start(hands, [6, 5, *ND, 6, 4, 2, 1, *ND, *ND], won_cards="rest", cap="fights", max_fights=1)
    game.apply_action(0, DESTINATION_BASE)
    game.apply_action(0, 200)
    game.apply_action(1, card_id(1, 4))
    game.apply_action(0, card_id(0, 1))
    assert game.is_terminal() and game.claimed[-1][1] == 1
    assert any("won the most fights" in e for e in game.events)


@pytest.mark.parametrize("n", [2, 3, 5])
def test_no_decision_is_asked_that_has_one_legal_action_or_no_effect(n: int) -> None:
    def check(game: FifthEarthGame, seat: int, legal: list[int]) -> None:
        assert len(legal) > 1, f"asked a forced decision: {legal}"
        assert game.phase != PHASE_DESTINATION, "asked the destination, which has no effect in play"

    for seed in range(3):
        game = random_game(FifthEarthConfig(num_players=n), seed, check)
        assert any(not asked for _, _, asked in game.log) and len(game.actions) < len(game.log)


def test_ask_all_asks_every_decision() -> None:
    kinds = set()
    forced = 0

    def check(game: FifthEarthGame, seat: int, legal: list[int]) -> None:
        nonlocal forced
        kinds.add(game.phase)
        forced += len(legal) == 1

    game = random_game(FifthEarthConfig(num_players=2, ask="all"), 1, check)
    assert PHASE_DESTINATION in kinds and PHASE_CHALLENGE in kinds and forced > 0
    assert len(game.actions) == len(game.log)


def test_a_face_down_run_follows_the_exact_counting_distribution() -> None:
    """6 characters, 2 players: I hold 8 of the 24 cards, the opponent 8 of the other 16 and has laid
    a run of two. Over all C(16, 8) hands it could hold, each weighted by the uniform choice among
    its legal runs of two, the chance of each character being the one laid is exact; the
    determinizations must match it."""
    for seed in range(200):
        game = FifthEarthGame(FifthEarthConfig(num_players=2, num_destinations=1))
        game.new_game(np.random.default_rng(seed))
        opp = game.current_player()
        runs2 = [a for a in game.legal_actions(opp) if RUN_BASE <= a and len(action_cards(a)) == 2]
        if runs2:
            break
    game.apply_action(opp, runs2[0])
    me = game.current_player()
    assert me != opp and game.battle.laid[opp]
    unseen = [int(c) for c in np.flatnonzero(game.in_play & (1 - game.hands[me]))]
    assert len(unseen) == 16
    exact: dict[int, float] = {}
    total = 0.0
    for hand in itertools.combinations(unseen, 8):
        held = set(hand)
        chars = [c for c in {character_of(x) for x in hand} if card_id(c, 1) in held and card_id(c, 2) in held]
        if not chars:
            continue
        total += 1
        for c in chars:
            exact[c] = exact.get(c, 0.0) + 1.0 / len(chars)
    rng = np.random.default_rng(1)
    samples = 3000
    counts: dict[int, int] = {}
    for _ in range(samples):
        d = game.determinize(me, rng)
        laid = d.battle.laid[opp]
        assert len(laid) == 2 and [c % NUM_STAGES for c in laid] == [0, 1]
        counts[character_of(laid[0])] = counts.get(character_of(laid[0]), 0) + 1
    assert set(counts) <= set(exact)
    chi2 = sum((counts.get(c, 0) - samples * p / total) ** 2 / (samples * p / total) for c, p in exact.items())
    assert chi2 < 20.5, (chi2, {c: p / total for c, p in exact.items()}, counts)  # chi-square(5) 99.9% point


def test_reset_options_are_checked_before_anything_changes() -> None:
    env = fifth_earth_v0.raw_env(num_players=2)
    env.reset(seed=3)
    env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    before = (env.game.version, env.game.hands.copy(), list(env.game.dice_log), env.agent_selection)
    for bad in ({"dice": [1, 7]}, {"dice": "66"}, {"deals": [{"hands": [["Nobody 1"] * 8] * 2}]}):
        with pytest.raises(FightEnvsError):
            env.reset(seed=4, options=bad)
        assert (env.game.version, list(env.game.dice_log), env.agent_selection) == (before[0], before[2], before[3])
        assert np.array_equal(env.game.hands, before[1])
    env.reset(seed=5, options={"dice": [1] * 4000})  # every roll ties: re-rolled without recursion
    assert env.game.current_player() != NOBODY


def test_numpy_integer_actions_are_accepted() -> None:
    env = fifth_earth_v0.raw_env(num_players=2)
    env.reset(seed=1)
    a = int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0])
    twin = copy.deepcopy(env)
    env.step(np.array(a))
    twin.step(np.int64(a))
    assert env.game.log == twin.game.log


def test_deepcopy_and_pickle_continue_identically() -> None:
    env = fifth_earth_v0.raw_env(num_players=3)
    env.reset(seed=8)
    for _ in range(5):
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[-1]))
    copies = [copy.deepcopy(env), pickle.loads(pickle.dumps(env))]
    rng = np.random.default_rng(0)
    while not env.game.is_terminal():
        mask = env.observe(env.agent_selection)["action_mask"]
        a = int(rng.choice(np.flatnonzero(mask)))
        for e in [env, *copies]:
            e.step(a)
    for e in copies:
        assert e.game.log == env.game.log and e.game.dice_log == env.game.dice_log
        assert e.game.destinations_won.tolist() == env.game.destinations_won.tolist()


def test_replay_checks_the_game_name_and_the_claims() -> None:
    env = fifth_earth_v0.raw_env(num_players=3)
    env.reset(seed=2)
    rng = np.random.default_rng(0)
    while not env.game.is_terminal():
        env.step(int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))))
    record = env.game_record()
    assert replay(record).claimed == env.game.claimed
    wrong = copy.deepcopy(record)
    wrong["game"] = "fight5"
    with pytest.raises(RecordError, match="game"):
        replay(wrong)
    wrong = copy.deepcopy(record)
    wrong["claimed"][0][1] = (wrong["claimed"][0][1] + 1) % 3
    with pytest.raises(RecordError, match="claimed"):
        replay(wrong)
