"""Behaviour fingerprint of the Fifth-Earth env and engine, to prove a speed-up changed nothing users can see.

Plays seeded random games at 2-6 players under five rule configurations and hashes, step by
step, everything a user can read: every agent's observation and action mask, rewards,
cumulative rewards, terminations, truncations, infos (keys, order, value types, dtypes and
shapes included), the acting agent, and at the end ``game_record()`` and the narrated
``events``. Every object the env handed out is kept and re-hashed when the game is over, so an
array or info dict the env later changes under the user (a shared buffer, an info dict updated
in place) shows up as a difference. The canonical byte form and ``GameLog`` are Fight 5's
``check_identical.py``'s; the hash is sha256.

Every ``FifthEarthConfig`` option is given explicitly (``CONFIGS``) and the card data is a
frozen copy (``check_identical_fifth_earth_cards.json``), so a change of a preset default or of
the packaged cards does not move the fingerprint; only a change of behaviour does.

Configurations (``CONFIGS``): standard knockout, standard royale, classic knockout, classic
royale, and ``odd``: a short fight cap under ``cap="cards"``, ``won_cards="spoils"`` in a
knockout, ``out_of_cards="hand_and_rest"``, ``ties="rolloff"``. Forms played, per configuration
and player count:

* ``aec_env``: ``fifth_earth_v0.env(mask_in_info=True, reward="destination")`` (wrapped), every
  agent observed every step;
* ``aec_env_illegal``: the same, a quarter of the games playing one illegal action at a random step;
* ``raw_outcome``: ``raw_env(reward="outcome", mask_in_info=False)``, the acting agent only;
* ``engine``: ``FifthEarthGame`` alone: each step every seat's ``encode()`` vector, mask and
  ``decision_kind``; every 7th step a ``determinize(seat)`` of the acting seat (its encodings,
  masks, hands) and a ``clone()`` that plays three steps on (its encodings); at the end the
  returns, the actions, the deals, the dice and the events.

Usage (from the repository root)::

    python benchmarks/check_identical_fifth_earth.py --save benchmarks/identical_reference_fifth_earth.json  # before
    python benchmarks/check_identical_fifth_earth.py                                                          # after

The reference file was written by the code before the performance work (issue 14: the
``fight_envs`` of commit c5ec1ab, ``git archive c5ec1ab fight_envs | tar -x -C /tmp/good`` and
``PYTHONPATH=/tmp/good python benchmarks/check_identical_fifth_earth.py --save ...`` run from outside
the repository root); the check exits with status 1 and names the forms that differ. Like Fight 5's, the fingerprint depends on
numpy's ``Generator`` streams: after a numpy upgrade, regenerate it from a known-good commit.
"""

from __future__ import annotations

import hashlib
import sys
import warnings
from pathlib import Path
from typing import Any

import numpy as np
from check_identical import GameLog, check_main, illegal_action, sample
from check_identical import digest as fingerprint

from fight_envs import fifth_earth_v0
from fight_envs.games.fifth_earth.cards import load_cards
from fight_envs.games.fifth_earth.observe import encode
from fight_envs.games.fifth_earth.rules import FifthEarthConfig, FifthEarthGame

HERE = Path(__file__).resolve().parent
DEFAULT_REFERENCE = HERE / "identical_reference_fifth_earth.json"
CARDS_PATH = HERE / "check_identical_fifth_earth_cards.json"
PLAYER_COUNTS = (2, 3, 4, 5, 6)
DETERMINIZE_EVERY = 7


def digest(x: Any) -> bytes:
    """sha256 of Fight 5's canonical, type-tagged byte form of ``x`` (``check_identical.feed``)."""
    return fingerprint(x, hashlib.sha256)


def new_log() -> GameLog:
    """Fight 5's ``GameLog`` (records hashed at hand-out time, re-hashed at the end), with sha256."""
    return GameLog(hashlib.sha256)


def config_options(name: str, n: int) -> dict[str, Any]:
    """Every ``FifthEarthConfig`` option of configuration ``name`` at ``n`` players, explicitly."""
    standard = {"num_players": n, "rules": "standard", "num_destinations": 2, "format": "knockout",
                "won_cards": "rest", "max_fights": 40, "out_of_cards": "hand", "ties": "first",
                "characters": min(2 * n + 2, 25), "between_rounds": "redeal", "cap": "fights", "ask": "choices"}
    classic = {"num_players": n, "rules": "classic", "num_destinations": 1, "format": "knockout",
               "won_cards": "hand", "max_fights": 40, "out_of_cards": "hand", "ties": "first",
               "characters": 25, "between_rounds": "keep", "cap": "cards", "ask": "all"}
    return {
        "standard": standard,
        "standard_royale": {**standard, "format": "royale", "won_cards": "spoils"},
        "classic": classic,
        "classic_royale": {**classic, "format": "royale"},
        "odd": {**standard, "num_destinations": 2, "won_cards": "spoils", "max_fights": 9, "cap": "cards",
                "out_of_cards": "hand_and_rest", "ties": "rolloff", "between_rounds": "keep",
                "characters": min(2 * n + 4, 25)},
    }[name]


CONFIGS = ("standard", "standard_royale", "classic", "classic_royale", "odd")


def play_aec(aec: Any, seed: int, illegal_at: int | None, everyone: bool) -> bytes:
    rng = np.random.default_rng(10_000 + seed)
    log = new_log()
    base = aec.unwrapped
    aec.reset(seed=seed)
    log.add(("reset", base.agent_selection, dict(base.infos)))
    for step, agent in enumerate(aec.agent_iter()):
        last = aec.last()
        obs, _, term, trunc, _ = last
        seen = {a: aec.observe(a) for a in aec.agents} if everyone else None
        if term or trunc:
            action = None
        elif step == illegal_at:
            action = illegal_action(obs["action_mask"])
        else:
            action = sample(obs["action_mask"], rng)
        log.add((agent, last, seen, action, base.decision_kind(agent)))
        aec.step(action)
        log.add((list(base.agents), dict(base.rewards), dict(base._cumulative_rewards), dict(base.terminations),
                 dict(base.truncations), dict(base.infos)))
    log.add(("end", base.game_record(), base.game.events))
    return log.finish(f"seed {seed}")


def game_view(game: FifthEarthGame) -> tuple[Any, ...]:
    """Every seat's encoding, mask and decision kind, and the public counts, of ``game`` now."""
    n = game.num_players
    return ([encode(game, s) for s in range(n)], [game.legal_action_mask(s) for s in range(n)],
            [game.decision_kind(s) for s in range(n)], game.current_player(), game.phase, game.is_terminal())


def play_engine(config: FifthEarthConfig, cards: Any, seed: int) -> bytes:
    """The bare engine, the stand-alone ``encode``, ``determinize`` and ``clone``."""
    rng = np.random.default_rng(30_000 + seed)
    det_rng = np.random.default_rng(40_000 + seed)
    game = FifthEarthGame(config, cards)
    game.new_game(np.random.default_rng(seed))
    log = new_log()
    step = 0
    while True:
        log.add(game_view(game))
        if game.is_terminal():
            break
        seat = game.current_player()
        if step % DETERMINIZE_EVERY == 0:
            d = game.determinize(seat, det_rng)
            log.add(("determinize", game_view(d), d.hands.copy(), d.retired.copy(), d.undealt.copy(),
                     list(d.power_deck), d.actions))
            c = game.clone()
            crng = np.random.default_rng(50_000 + step)
            for _ in range(3):
                if c.is_terminal():
                    break
                c.apply_action(c.current_player(), sample(c.legal_action_mask(c.current_player()), crng))
                log.add(("clone", game_view(c)))
        game.apply_action(seat, sample(game.legal_action_mask(seat), rng))
        step += 1
    log.add(("end", game.returns(), game.winners(), game.actions, [d.to_json(cards) for d in game.deals_used],
             list(game.dice_log), game.events, [list(c) for c in game.claimed]))
    return log.finish(f"engine seed {seed}")


def fingerprints(games: int) -> dict[str, dict[str, str]]:
    cards = load_cards(CARDS_PATH)
    out: dict[str, dict[str, str]] = {}
    for name in CONFIGS:
        for n in PLAYER_COUNTS:
            opts = config_options(name, n)
            illegal_rng = np.random.default_rng(n)
            per_form: dict[str, list[bytes]] = {"aec_env": [], "aec_env_illegal": [], "raw_outcome": [], "engine": []}
            wrapped = fifth_earth_v0.env(**opts, cards=str(CARDS_PATH), mask_in_info=True, reward="destination")
            outcome = fifth_earth_v0.raw_env(**opts, cards=str(CARDS_PATH), mask_in_info=False, reward="outcome")
            config = FifthEarthConfig(**opts)
            for seed in range(games):
                per_form["aec_env"].append(play_aec(wrapped, seed, None, everyone=True))
                if seed % 2 == 0:
                    per_form["raw_outcome"].append(play_aec(outcome, seed, None, everyone=False))
                    per_form["engine"].append(play_engine(config, cards, seed))
                if seed % 4 == 0:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        at = int(illegal_rng.integers(1, 60))
                        per_form["aec_env_illegal"].append(play_aec(wrapped, seed, at, everyone=True))
            for form, hashes in per_form.items():
                out.setdefault(form, {})[f"{name}/{n}"] = hashlib.sha256(b"".join(hashes)).hexdigest()
    return out


def main(argv: list[str] | None = None) -> int:
    cells = len(CONFIGS) * len(PLAYER_COUNTS)
    return check_main(argv, description=__doc__.split("\n\n")[0], fingerprints=fingerprints, default_games=8,
                      default_reference=DEFAULT_REFERENCE, unit="configuration and player count",
                      cell_name=lambda form, cell: f"{form} {cell}",
                      summary=lambda prints, games: f"{len(prints)} forms x {cells} configurations and player counts, "
                                                    f"{games} games each (aec_env)")


if __name__ == "__main__":
    sys.exit(main())
