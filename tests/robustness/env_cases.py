"""Bad inputs to the four games' front doors: constructor options, reset options and seeds,
actions, card-data files, and tampered game records."""

from __future__ import annotations

import copy
import importlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from fight_envs.registry import make

from .harness import Case, legal_actions, play_out

GAMES = {
    "fight5": "fight5_v0",
    "brawl": "brawl_v0",
    "fifth_earth": "fifth_earth_v0",
    "fight_klub": "fight_klub_v0",
}
RESET_KEYS = {"fight5": ("deals",), "brawl": ("deal",), "fifth_earth": ("deals", "dice"),
              "fight_klub": ("decks", "orders", "drop")}
OUTCOME_FIELDS = ("scores", "finished", "truncated", "claimed", "bout_points", "winner", "winners", "ranks",
                  "returns", "destinations", "points", "life", "knocked_out", "result")


class Odd:
    """An object of no type any option accepts."""

    def __repr__(self) -> str:
        return "<Odd>"


BAD_VALUES: list[tuple[str, Any]] = [
    ("object", Odd()),
    ("nan", float("nan")),
    ("inf", float("inf")),
    ("bytes", b"\x00\xff"),
    ("nested-dict", {"a": {"b": 1}}),
    ("nested-list", [[[]]]),
    ("huge-negative", -10**30),
    ("not-a-choice", "no-such-choice-\u2603"),
    ("float", 2.5),
    ("negative", -1),
    ("complex", 1j),
    ("set", {1, 2}),
]
"""Values no constructor option of any game takes (a path option refuses the string: no such file)."""


def _game_module(game: str, part: str) -> Any:
    return importlib.import_module(f"fight_envs.games.{game}.{part}")


def _played(game: str, steps: int = 3, seed: int = 3) -> Any:
    env = make(GAMES[game], api="raw")
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        agent = env.agent_selection
        env.step(int(rng.choice(legal_actions(env.observe(agent)["action_mask"]))))
    return env


def _snapshot(env: Any) -> tuple[str, dict[str, Any], str]:
    obs = {a: env.observe(a) for a in env.agents}
    return json.dumps(env.game_record(), sort_keys=True, default=str), obs, env.agent_selection


def unchanged_and_usable(game: str, env: Any, before: tuple[str, dict[str, Any], str]) -> Callable[[], None]:
    """The check after a refusal: same record, same observations, same agent to act; the game plays
    on to its end, and its record replays."""

    def check() -> None:
        record, obs, selection = before
        assert json.dumps(env.game_record(), sort_keys=True, default=str) == record, "the game record changed"
        assert env.agent_selection == selection, "another agent is to act"
        for agent, o in obs.items():
            now = env.observe(agent)
            assert np.array_equal(now["observation"], o["observation"]), f"{agent}'s observation changed"
            assert np.array_equal(now["action_mask"], o["action_mask"]), f"{agent}'s mask changed"
        play_out(env, np.random.default_rng(0))
        _game_module(game, "record").replay(json.loads(json.dumps(env.game_record())))

    return check


# ----------------------------------------------------------------------------- constructor options
def constructor_cases() -> list[Case]:
    from fight_envs.registry import list_envs

    cases = []
    for spec in list_envs():
        game = next((g for g, name in GAMES.items() if name == spec.name), spec.name)  # a companion env (deck building): its own name
        for option in spec.options:
            for label, value in BAD_VALUES:
                def run(name=spec.name, option=option, value=value) -> Any:
                    return make(name, api="raw", **{option: value})

                cases.append(Case("constructor", game, f"{option}={label}", run, names=(option,)))
        cases.append(Case("constructor", game, "unknown-option", lambda n=spec.name: make(n, api="raw", speed=3),
                          names=("speed",)))
    return cases


# ----------------------------------------------------------------------------- reset options, seeds
BAD_OPTIONS: list[tuple[str, Any]] = [
    ("int", 5), ("string", "deals"), ("list", [1]), ("float", 1.5), ("object", Odd()), ("bytes", b"x"),
    ("tuple", ("a", 1)),
]
BAD_OPTION_VALUES: list[tuple[str, Any]] = [
    ("int", 5), ("string", "x"), ("object", Odd()), ("list-of-ints", [5, 6]), ("empty-dict-list", [{}]),
    ("huge", 10**30), ("nan", float("nan")), ("deep", None), ("negative", -1), ("bytes", b"x"),
]
BAD_SEEDS: list[tuple[str, Any]] = [
    ("string", "x"), ("negative", -1), ("float", 1.5), ("list", [1, 2]), ("bool", True), ("nan", float("nan")),
    ("object", Odd()), ("negative-numpy", np.int64(-3)),
]


def _deep(n: int = 5000) -> Any:
    value: Any = 1
    for _ in range(n):
        value = [value]
    return value


VALID_RESETS = {("fifth_earth", "dice", "list-of-ints")}
"""Inputs of the generic lists that are valid for a game (Fifth-Earth: [5, 6] are two die faces)."""
VALID_CARD_EDITS = {("fifth_earth", "minus-5"), ("fifth_earth", "without-note")}
"""Card-file edits that are valid (Fifth-Earth power cards may lower a roll; 'note' is a comment)."""


def reset_cases() -> list[Case]:
    cases = []
    for game in GAMES:
        for label, options in BAD_OPTIONS:
            env = _played(game)
            before = _snapshot(env)
            cases.append(Case("reset", game, f"options={label}", lambda e=env, o=options: e.reset(seed=1, options=o),
                              names=("option",), after=unchanged_and_usable(game, env, before)))
        for key in RESET_KEYS[game]:
            for label, value in BAD_OPTION_VALUES:
                env = _played(game)
                before = _snapshot(env)
                value = _deep() if label == "deep" else value
                cases.append(Case("reset", game, f"{key}={label}",
                                  lambda e=env, k=key, v=value: e.reset(seed=1, options={k: v}),
                                  names=(key,), after=unchanged_and_usable(game, env, before),
                                  may_accept=(game, key, label) in VALID_RESETS))
        for label, seed in BAD_SEEDS:
            env = _played(game)
            before = _snapshot(env)
            cases.append(Case("reset", game, f"seed={label}", lambda e=env, s=seed: e.reset(seed=s),
                              names=("seed",), after=unchanged_and_usable(game, env, before)))
    # Fifth-Earth: 4,000 dice of valid faces is a valid (long) dice list: no crash, either way.
    env = _played("fifth_earth")
    before = _snapshot(env)
    cases.append(Case("reset", "fifth_earth", "dice=[1]*4000", lambda e=env: e.reset(seed=1, options={"dice": [1] * 4000}),
                      names=("dice",), may_accept=True))
    return cases


# ----------------------------------------------------------------------------- actions
BAD_ACTIONS: list[tuple[str, Any]] = [
    ("negative", -1), ("huge", 10**9), ("float", 1.5), ("string", "1"), ("none", None), ("list", [0]),
    ("array-1d", np.array([0])), ("array-0d-float", np.array(0.0)), ("array-2d", np.array([[0]])),
    ("object", Odd()), ("numpy-float", np.float32(1.0)), ("complex", 1j), ("bool-array", np.array(True)),
]


def action_cases() -> list[Case]:
    cases = []
    for game in GAMES:
        for label, action in BAD_ACTIONS:
            env = _played(game)
            before = _snapshot(env)
            cases.append(Case("action", game, label, lambda e=env, a=action: e.step(a), names=("action",),
                              after=unchanged_and_usable(game, env, before)))
        env = _played(game)
        before = _snapshot(env)
        illegal = [a for a in range(env.action_space(env.agent_selection).n)
                   if not env.observe(env.agent_selection)["action_mask"][a]]
        if illegal:
            cases.append(Case("action", game, "masked-out", lambda e=env, a=illegal[0]: e.step(a),
                              names=("action", "legal"), after=unchanged_and_usable(game, env, before)))
    # The parallel form of Fight 5 (the others are turn-based AEC envs).
    from fight_envs import fight5_v0

    for label, action in BAD_ACTIONS + [("not-a-dict", "x")]:
        env = fight5_v0.parallel_raw_env()
        obs, _ = env.reset(seed=4)
        record = json.dumps(env.game_record(), sort_keys=True)

        def run(e=env, a=action, label=label, obs=obs) -> Any:
            if label == "not-a-dict":
                return e.step(a)
            first = e.agents[0]
            actions = {ag: legal_actions(o["action_mask"])[0] for ag, o in obs.items()}
            actions[first] = a
            return e.step(actions)

        def after(e=env, record=record) -> None:
            assert json.dumps(e.game_record(), sort_keys=True) == record, "the parallel game changed"
            obs, _ = e.reset(seed=5)
            while e.agents:
                obs, *_ = e.step({ag: legal_actions(o["action_mask"])[0] for ag, o in obs.items()})

        cases.append(Case("action", "fight5", f"parallel-{label}", run, names=("action", "step")), )
        cases[-1].after = after
    return cases


# ----------------------------------------------------------------------------- card files
def _packaged_cards(game: str) -> Any:
    from importlib import resources

    return json.loads(resources.files(f"fight_envs.games.{game}").joinpath("cards.json").read_text(encoding="utf-8"))


def _numeric_paths(data: Any, prefix: tuple = (), limit: int = 6) -> list[tuple]:
    """Paths of the first ``limit`` integer leaves of ``data`` (skipping comments), breadth first."""
    found: list[tuple] = []
    queue: list[tuple[tuple, Any]] = [(prefix, data)]
    while queue and len(found) < limit:
        path, node = queue.pop(0)
        if isinstance(node, dict):
            queue.extend((path + (k,), v) for k, v in node.items() if not str(k).startswith("_"))
        elif isinstance(node, list):
            queue.extend((path + (i,), v) for i, v in enumerate(node[:3]))
        elif isinstance(node, int) and not isinstance(node, bool):
            found.append(path)
    return found


def _set_path(data: Any, path: tuple, value: Any) -> Any:
    data = copy.deepcopy(data)
    target = data
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return data


def card_cases(tmp: Path) -> list[Case]:
    cases = []
    for game, env_name in GAMES.items():
        folder = tmp / game
        folder.mkdir(parents=True, exist_ok=True)
        data = _packaged_cards(game)

        def file_case(label: str, content: bytes | str, names: tuple = ("card", "cards", str(folder)), game=game,
                      env_name=env_name, folder=folder) -> None:
            path = folder / f"{label}.json"
            path.write_bytes(content.encode() if isinstance(content, str) else content)
            legit = (game, label) in VALID_CARD_EDITS or (game, label.rsplit("=", 1)[-1]) in VALID_CARD_EDITS
            cases.append(Case("cards", game, label, lambda p=path, n=env_name: make(n, api="raw", cards=str(p)),
                              names=names, may_accept=legit and "modifier" in label or label == "without-note" and legit))

        file_case("empty", "")
        file_case("not-json", "{this is not json")
        file_case("binary", bytes(range(256)))
        file_case("latin1", "{\"x\": \"caf\xe9\"}".encode("latin-1"))
        file_case("deep", "[" * 100_000 + "]" * 100_000)
        file_case("deep-object", '{"a":' * 50_000 + "1" + "}" * 50_000)
        file_case("top-level-list", "[1, 2, 3]")
        file_case("top-level-string", '"cards"')
        file_case("null", "null")
        file_case("nan-literal", json.dumps(data).replace("{", '{"_x": NaN, ', 1))
        file_case("huge-int-literal", json.dumps(data).replace("{", '{"_y": ' + "9" * 5000 + ", ", 1))
        file_case("unknown-field", json.dumps({**data, "speed": 3}) if isinstance(data, dict) else "[]")
        if isinstance(data, dict):
            for key in [k for k in data if not k.startswith("_")][:4]:
                file_case(f"without-{key}", json.dumps({k: v for k, v in data.items() if k != key}))
        for path in _numeric_paths(data):
            where = ".".join(map(str, path))
            for label, value in (("1e30", 1e30), ("10**30", 10**30), ("2**62", 2**62), ("minus-5", -5),
                                 ("string", "x"), ("null", None)):
                file_case(f"{where}={label}", json.dumps(_set_path(data, path, value)), names=(str(path[-1]), str(folder)))
        cases.append(Case("cards", game, "missing-file", lambda n=env_name: make(n, api="raw", cards=str(tmp / "nope.json")),
                          names=("nope.json",)))
        cases.append(Case("cards", game, "directory", lambda n=env_name, f=folder: make(n, api="raw", cards=str(f)),
                          names=(str(folder),)))
        cases.append(Case("cards", game, "fd-number", lambda n=env_name: make(n, api="raw", cards=1), names=("1",)))
    if True:  # Fight 5: a high-card value that overflowed scores to negative numbers
        data = _packaged_cards("fight5")
        path = tmp / "fight5" / "high-card-2-62.json"
        path.write_text(json.dumps(_set_path(data, ("scoring", "high_card_points"), 2**62)))
        cases.append(Case("cards", "fight5", "high_card_points=2**62",
                          lambda p=path: make("fight5_v0", api="raw", cards=str(p)), names=("high_card_points",)))
    return cases


# ----------------------------------------------------------------------------- records
def _finished_record(game: str, seed: int = 7) -> dict[str, Any]:
    env = make(GAMES[game], api="raw")
    env.reset(seed=seed)
    play_out(env, np.random.default_rng(seed))
    return json.loads(json.dumps(env.game_record()))


def _tamper(record: dict[str, Any], change: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    record = copy.deepcopy(record)
    change(record)
    return record


def _bump(value: Any) -> Any:
    """An outcome value changed to another of the same shape."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, (int, float)):
        return value + 1
    if isinstance(value, list) and value:
        return [_bump(value[0])] + value[1:]
    if isinstance(value, str):
        return value + "x"
    if value is None:
        return 1
    if isinstance(value, dict) and value:
        k = next(iter(value))
        return {**value, k: _bump(value[k])}
    return "changed"


OPTIONAL_FIELDS = {"fight5": {"bout_points", "finished"}}
"""Fields a game's replay documents as optional (older or hand-written records omit them)."""


def record_cases() -> list[Case]:
    cases = []
    for game in GAMES:
        replay = _game_module(game, "record").replay
        record = _finished_record(game)
        replay(copy.deepcopy(record))  # the untouched record replays

        def add(label: str, bad: Any, names: tuple = ()) -> None:
            cases.append(Case("record", game, label, lambda r=bad, replay=replay: replay(r), names=names))

        add("not-a-dict", [record])
        add("format-changed", _tamper(record, lambda r: r.__setitem__("format", "x/y")), ("format",))
        add("game-changed", _tamper(record, lambda r: r.__setitem__("game", "chess")), ("game",))
        add("game-missing", _tamper(record, lambda r: r.pop("game", None)), ("game",))
        for key in record:
            if key in ("format", "game"):
                continue
            if key not in OPTIONAL_FIELDS.get(game, set()):
                add(f"without-{key}", _tamper(record, lambda r, k=key: r.pop(k)), (key, "missing"))
            for label, value in (("int", 12345), ("string", "x"), ("dict", {"a": 1}), ("nested", [[["x"]]])):
                if value == record[key] or (key == "seed" and label == "int"):
                    continue  # the same value, or another valid seed (deals are recorded)
                add(f"{key}={label}", _tamper(record, lambda r, k=key, v=value: r.__setitem__(k, v)))
        for key in record:
            if key in OUTCOME_FIELDS:
                add(f"outcome-{key}-changed", _tamper(record, lambda r, k=key: r.__setitem__(k, _bump(r[k]))), (key.split("_")[0],))
        actions = record["actions"]
        if actions:
            add("last-action-dropped", _tamper(record, lambda r: r["actions"].pop()))
            add("last-action-doubled", _tamper(record, lambda r: r["actions"].append(r["actions"][-1])))
            add("action-garbage", _tamper(record, lambda r: r["actions"].__setitem__(0, {"x": 1})), ("actions[0]",))
            add("action-seat-99", _tamper(record, lambda r: r["actions"].__setitem__(0, _reseat(r["actions"][0]))),
                ("actions[0]",))
            add("actions-deep", _tamper(record, lambda r: r.__setitem__("actions", _deep(3000))), ("actions",))
            add("action-huge-int", _tamper(record, lambda r: r["actions"].__setitem__(0, [0, 10**30])), ("actions[0]",))
    return cases


def _reseat(entry: Any) -> Any:
    if isinstance(entry, list) and entry:
        return [99] + entry[1:]
    if isinstance(entry, dict):
        return {**entry, **({"seat": 99} if "seat" in entry else {"player": 99})}
    return [99, entry]
