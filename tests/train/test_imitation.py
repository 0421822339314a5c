"""Behaviour cloning warm start (``pretrain``): config validation, the recorded demonstrations, and a
fit that raises the policy's agreement with the heuristic on held-out games."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from fight_envs.core.errors import ConfigError
from fight_envs.train import imitation
from fight_envs.train.config import Config, load_config, save_config

ROOT = Path(__file__).resolve().parents[2]
BRAWL_2P = ROOT / "configs" / "brawl_selfplay_2p.yaml"


def test_pretrain_is_off_by_default_and_only_in_the_cloning_recipes() -> None:
    assert Config().pretrain.games == 0 and Config().pretrain.names() == []
    brawl = load_config(BRAWL_2P).pretrain
    assert brawl.games > 0 and brawl.epochs > 0 and brawl.teacher.startswith("search:")
    assert brawl.names() == ["heuristic", brawl.teacher]  # the search teacher against the heuristic
    klub = load_config(ROOT / "configs" / "fight_klub_selfplay_2p.yaml").pretrain
    assert klub.games > 0 and klub.epochs > 0 and klub.teacher == "heuristic"  # the pointer recipe clones the heuristic
    for path in sorted((ROOT / "configs").glob("*.yaml")):
        if path.name.startswith(("brawl_selfplay", "rllib")) or path.name == "fight_klub_selfplay_2p.yaml":
            continue
        assert load_config(path).pretrain.games == 0, path.name


@pytest.mark.parametrize(
    "overrides, message",
    [
        (["pretrain.epochs=0"], r"pretrain needs both games and epochs above 0"),
        (["pretrain.games=0"], r"pretrain needs both games and epochs above 0"),
        (["pretrain.games=-1"], r"pretrain.games must be an integer in \[0, 10,000,000\]"),
        (["pretrain.games=lots"], r"pretrain.games must be an integer"),
        (["pretrain.games=10", "pretrain.epochs=1001"], r"pretrain.epochs must be an integer in \[0, 1000\]"),
        (["pretrain.games=10", "pretrain.epochs=2", "pretrain.teacher=self"], r"pretrain.teacher must name a baseline"),
        (["pretrain.games=10", "pretrain.epochs=2", "pretrain.opponents={self: 1.0}"], r"'self' has no snapshots"),
        (["pretrain.games=10", "pretrain.epochs=2", "pretrain.opponents={random: 0.0}"], r"needs a positive weight"),
        (["pretrain.games=10", "pretrain.epochs=2", "pretrain.opponents={random: -1}"], r"weights must be finite"),
        (["pretrain.games=10", "pretrain.epochs=2", "pretrain.learning_rate=0"], r"pretrain.learning_rate must be"),
        (["pretrain.games=10", "pretrain.epochs=2", "pretrain.batch_size=0"], r"pretrain.batch_size must be >= 1"),
        (["pretrain.games=10", "pretrain.epochs=2", "pretrain.max_gb=0"], r"pretrain.max_gb must be"),
        (["pretrain.gamez=10"], r"unknown config key 'pretrain.gamez'; allowed: pretrain.games"),
    ],
)
def test_bad_pretrain_settings_raise_clear_errors(overrides: list[str], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        load_config(BRAWL_2P, overrides)


def test_unknown_teacher_fails_in_preflight(tmp_path: Path) -> None:
    from fight_envs.train.selfplay import preflight

    config = load_config(BRAWL_2P, ["pretrain.games=2", "pretrain.epochs=1", "pretrain.teacher=no_such_agent",
                                    f"runs_dir={tmp_path}"])
    with pytest.raises(ConfigError, match="unknown baseline 'no_such_agent'"):
        preflight(config)


def test_a_run_saved_before_the_pretrain_section_still_resumes_its_config(tmp_path: Path) -> None:
    import yaml

    run = tmp_path / "old_run"
    run.mkdir()
    save_config(load_config(BRAWL_2P), run / "config.yaml")
    data = yaml.safe_load((run / "config.yaml").read_text())
    del data["pretrain"]
    (run / "config.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
    config = load_config(None, [f"resume={run}"])
    assert config.pretrain.games == 0 and config.resume == str(run)


def test_collect_records_the_teachers_decisions_and_discounted_returns() -> None:
    data = imitation.collect("brawl_v0", {}, [2], 6, "heuristic", {"random": 1.0}, seed=3, gamma=0.9)
    assert len(data) > 0 and data.observations.shape == (len(data), 283)
    assert data.masks[np.arange(len(data)), data.actions].all()  # every recorded action was legal
    assert set(np.unique(data.game)) <= set(range(6))
    for g in np.unique(data.game):
        r = data.returns[data.game == g]
        final = r[-1]
        assert final in (-1.0, 0.0, 1.0)
        np.testing.assert_allclose(r, final * 0.9 ** np.arange(len(r))[::-1], rtol=1e-5)  # one teacher seat
    # against random the heuristic wins almost always: the returns say so
    assert np.mean([data.returns[data.game == g][-1] for g in np.unique(data.game)]) > 0.5


def test_collect_plays_a_search_teacher_from_its_information_set() -> None:
    """A planner teaches too (distilling search): it acts through ``act_with_information``, as in
    ``arena.play_game``; ``act`` alone raises for it."""
    data = imitation.collect("brawl_v0", {}, [2], 4, "search:sims=2,keep=2", {"random": 1.0}, seed=3, gamma=0.9)
    assert len(data) > 0 and data.masks[np.arange(len(data)), data.actions].all()
    assert np.mean([data.returns[data.game == g][-1] for g in np.unique(data.game)]) > 0.0


def test_collect_stops_with_a_clear_error_before_its_observations_pass_max_gb() -> None:
    # Fight Klub: 81 KB an observation; two recorded seats a game. A run once asked for 2,000 games (about
    # 16 GB) and was killed by the kernel after filling the machine's memory.
    from fight_envs.games.fight_klub.observe import OBS_SIZE

    row = 4 * OBS_SIZE  # float32 observation (the mask adds a few bytes)
    with pytest.raises(ConfigError, match=r"pretrain: 2000 games of fight_klub_v0 would record about .* GB .*"
                                          r"more than pretrain.max_gb=0.01; about \d+ games fit"):
        imitation.collect("fight_klub_v0", {}, [2], 2000, "heuristic", {"heuristic": 1.0}, seed=0, gamma=0.99, max_gb=0.01)
    # within the budget: nothing raised, and the rows are what was recorded
    data = imitation.collect("fight_klub_v0", {}, [2], 2, "heuristic", {"random": 1.0}, seed=0, gamma=0.99, max_gb=1.0)
    assert 0 < len(data) and data.observations.nbytes == len(data) * row


def test_collect_parallel_joins_each_workers_games_in_order() -> None:
    """Two workers: worker w plays its block of the games as ``collect`` does with ``worker_seed(seed, w)``;
    the blocks come back in order, game numbers offset (the held-out games stay the last ones)."""
    args = ("brawl_v0", {}, [2, 3])
    data = imitation.collect_parallel(*args, 5, "heuristic", {"random": 1.0}, seed=3, gamma=0.9, workers=2)
    first = imitation.collect(*args, 3, "heuristic", {"random": 1.0}, seed=imitation.worker_seed(3, 0), gamma=0.9)
    second = imitation.collect(*args, 2, "heuristic", {"random": 1.0}, seed=imitation.worker_seed(3, 1), gamma=0.9)
    for key in ("observations", "masks", "actions", "returns"):
        assert np.array_equal(getattr(data, key), np.concatenate([getattr(first, key), getattr(second, key)]))
    assert np.array_equal(data.game, np.concatenate([first.game, second.game + 3]))
    assert set(np.unique(data.game)) == set(range(5))
    # one worker is collect itself
    one = imitation.collect_parallel(*args, 5, "heuristic", {"random": 1.0}, seed=3, gamma=0.9, workers=1)
    same = imitation.collect(*args, 5, "heuristic", {"random": 1.0}, seed=3, gamma=0.9)
    assert np.array_equal(one.observations, same.observations) and np.array_equal(one.actions, same.actions)


def test_collect_is_the_same_in_every_process() -> None:
    """The agents' seeds are drawn in a fixed order: a set of names iterates in string-hash order,
    which PYTHONHASHSEED changes from process to process (so did the games collected, until the names
    were sorted), and the workers of collect_parallel are other processes."""
    import os
    import subprocess
    import sys

    code = ("import hashlib; from fight_envs.train import imitation; "
            "d = imitation.collect('brawl_v0', {}, [2, 3], 3, 'heuristic', {'random': 1.0, 'first_legal': 1.0}, "
            "seed=3, gamma=0.9); print(hashlib.sha256(d.actions.tobytes() + d.observations.tobytes()).hexdigest())")
    digests = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                              env={**os.environ, "PYTHONHASHSEED": str(h)}).stdout.strip() for h in (1, 2, 3)}
    assert len(digests) == 1


def test_collect_parallel_raises_a_workers_config_error() -> None:
    # each worker gets its share of max_gb, and the budget's error comes back as the same ConfigError
    with pytest.raises(ConfigError, match=r"more than pretrain.max_gb=.*about \d+ games fit"):
        imitation.collect_parallel("fight_klub_v0", {}, [2], 2000, "heuristic", {"heuristic": 1.0}, seed=0,
                                   gamma=0.99, max_gb=0.01, workers=2)
    with pytest.raises(ConfigError, match="pretrain.workers must be"):
        load_config(BRAWL_2P, ["pretrain.workers=0"])


def test_behaviour_cloning_raises_agreement_with_the_heuristic() -> None:
    from gymnasium import spaces
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    torch.manual_seed(0)
    data = imitation.collect("brawl_v0", {}, [2], 60, "heuristic", {"heuristic": 1.0}, seed=0, gamma=0.995)
    held = data.game >= 50
    train, test = data.subset(np.flatnonzero(~held)), data.subset(np.flatnonzero(held))
    policy = MaskableActorCriticPolicy(spaces.Box(0.0, 200.0, (283,), np.float32), spaces.Discrete(16),
                                       lambda _: 1e-3, net_arch=[64, 64])
    before = imitation.agreement(policy, test)
    imitation.fit(policy, train, epochs=4, batch_size=256, learning_rate=3e-3, vf_coef=0.5, seed=0)
    after = imitation.agreement(policy, test)
    assert after > before + 0.1 and after > 0.6, (before, after)


# ----------------------------------------------------------------------------- pretrain.data: reusing recorded games
def _tiny_config(tmp_path: Path, *extra: str) -> Config:
    return load_config(BRAWL_2P, ["pretrain.games=3", "pretrain.epochs=1", "pretrain.teacher=heuristic",
                                  "pretrain.opponents={random: 1.0}", f"pretrain.data={tmp_path / 'demos.npz'}", *extra])


@pytest.mark.parametrize("value", ["demos.txt", "demos", ".npz", "''"])
def test_pretrain_data_must_be_an_npz_path(value: str) -> None:
    with pytest.raises(ConfigError, match=r"pretrain.data must be null or a path ending in .npz"):
        load_config(BRAWL_2P, [f"pretrain.data={value}"])
    assert load_config(BRAWL_2P, ["pretrain.data=null"]).pretrain.data is None
    with pytest.raises(ConfigError, match=r"pretrain.data='d.npz' is read only when the run pretrains"):
        load_config(BRAWL_2P, ["pretrain.games=0", "pretrain.epochs=0", "pretrain.data=d.npz"])


def test_demonstrations_file_round_trips_and_checks_what_it_records(tmp_path: Path) -> None:
    config = _tiny_config(tmp_path)
    data = imitation.collect("brawl_v0", {}, [2], 3, "heuristic", {"random": 1.0}, seed=0, gamma=0.995)
    path = imitation.save_demonstrations(config.pretrain.data, data, imitation.recording_of(config))
    assert [p.name for p in tmp_path.iterdir()] == ["demos.npz"]  # no temporary file left beside it
    back, header = imitation.load_demonstrations(path, imitation.recording_of(config))
    for key in ("observations", "masks", "actions", "returns", "game"):
        got, want = getattr(back, key), getattr(data, key)
        assert got.dtype == want.dtype and np.array_equal(got, want), key
    assert header["rows"] == len(data) and header["teacher"] == "heuristic" and header["games"] == 3
    # another seed reads the same file; another teacher, opponent mix, game count or gamma does not
    imitation.load_demonstrations(path, imitation.recording_of(_tiny_config(tmp_path, "seed=9")))
    for override, field in (("pretrain.teacher=random", "teacher: file 'heuristic', config 'random'"),
                            ("pretrain.opponents={heuristic: 1.0}", "opponents: file"),
                            ("pretrain.games=4", "games: file 3, config 4"),
                            ("ppo.gamma=0.9", "gamma: file 0.995, config 0.9"),
                            ("env.num_players=[3]", "num_players: file [2], config [3]")):
        with pytest.raises(ConfigError, match=r"records other games than this run asks for \(.*" + field.replace("[", r"\[")
                           .replace("]", r"\]")):
            imitation.load_demonstrations(path, imitation.recording_of(_tiny_config(tmp_path, override)))


def test_a_demonstrations_file_that_needs_pickle_or_is_not_one_is_refused(tmp_path: Path) -> None:
    pickled = tmp_path / "pickled.npz"
    np.savez(pickled, header=np.array("{}"), observations=np.array([{"a": 1}], dtype=object),
             masks=np.zeros((1, 2), bool), actions=np.zeros(1, np.int64), returns=np.zeros(1, np.float32),
             game=np.zeros(1, np.int64))
    with pytest.raises(ConfigError, match=r"could not be read as a demonstrations file"):
        imitation.load_demonstrations(pickled)
    text = tmp_path / "text.npz"
    text.write_text("not a zip")
    with pytest.raises(ConfigError, match=r"could not be read as a demonstrations file"):
        imitation.load_demonstrations(text)
    partial = tmp_path / "partial.npz"
    np.savez(partial, actions=np.zeros(1, np.int64))
    with pytest.raises(ConfigError, match=r"is not a demonstrations file: it lacks \['header', 'observations'"):
        imitation.load_demonstrations(partial)


def build_model_for_test(config: Config) -> object:
    """What ``pretrain`` reads of a MaskablePPO model: its policy and spaces (a small flat network)."""
    from types import SimpleNamespace

    from gymnasium import spaces
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    from fight_envs.registry import make

    env = make(config.env.name, api="raw")
    obs_space = env.observation_space(env.possible_agents[0])["observation"]
    act_space = spaces.Discrete(int(env.action_space(env.possible_agents[0]).n))
    policy = MaskableActorCriticPolicy(obs_space, act_space, lambda _: 1e-3, net_arch=[16])
    return SimpleNamespace(policy=policy, observation_space=obs_space, action_space=act_space)


def test_pretrain_records_once_then_reuses_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = _tiny_config(tmp_path)
    first = imitation.pretrain(build_model_for_test(config), config)
    assert (tmp_path / "demos.npz").is_file()

    def no_games(*args: object, **kwargs: object) -> None:
        raise AssertionError("the games were played again")

    monkeypatch.setattr(imitation, "collect_parallel", no_games)
    lines: list[str] = []
    again = imitation.pretrain(build_model_for_test(_tiny_config(tmp_path, "seed=5")), _tiny_config(tmp_path, "seed=5"),
                               log=lines.append)
    assert again["decisions"] == first["decisions"] and again["held_out"] == first["held_out"]
    assert any("reusing" in line and "recorded with seed 0" in line for line in lines), lines
    with pytest.raises(ConfigError, match=r"teacher: file 'heuristic', config 'random'"):
        imitation.pretrain(build_model_for_test(config), _tiny_config(tmp_path, "pretrain.teacher=random"))
    # a file whose rows are not this env's observations (another version of it): refused, not cloned
    data, header = imitation.load_demonstrations(config.pretrain.data)
    narrow = imitation.Demonstrations(data.observations[:, :-1], data.masks, data.actions, data.returns, data.game)
    imitation.save_demonstrations(config.pretrain.data, narrow, header)
    with pytest.raises(ConfigError, match=r"holds observations of 282 and masks of 16, the env gives 283 and 16"):
        imitation.pretrain(build_model_for_test(config), config)


# ----------------------------------------------------------------------------- pretrain.mode: dagger
def _brawl_student() -> str:
    from fight_envs.resources import model_path

    return str(model_path("brawl_2p.zip"))


def _dagger_config(tmp_path: Path, *extra: str) -> Config:
    return load_config(BRAWL_2P, ["pretrain.mode=dagger", f"init_from={_brawl_student()}", "pretrain.games=6",
                                  "pretrain.epochs=3", "pretrain.teacher=heuristic", "pretrain.opponents={random: 1.0}",
                                  "pretrain.learning_rate=3e-3", "pretrain.batch_size=64", f"runs_dir={tmp_path}", *extra])


@pytest.mark.parametrize(("overrides", "message"), [
    (["pretrain.mode=teach"], r"pretrain.mode must be one of clone, dagger, got 'teach'"),
    (["pretrain.kinds=[defend]"], r"apply to pretrain.mode=dagger only \(the mode is 'clone'\)"),
    (["pretrain.beta=0.1"], r"apply to pretrain.mode=dagger only"),
    (["pretrain.mode=dagger", "pretrain.kinds=[]"], r"pretrain.kinds must be null or a non-empty list"),
    (["pretrain.mode=dagger", "pretrain.beta=1.5"], r"pretrain.beta must be a finite number in \[0, 1\]"),
    (["pretrain.mode=dagger", "pretrain.temperature=0"], r"pretrain.temperature must be a finite number in \(0, 100\]"),
    (["pretrain.mode=dagger"], r"pretrain.mode=dagger labels the games the run's own policy plays.*set init_from"),
])
def test_bad_dagger_settings_raise_clear_errors(overrides: list[str], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        load_config(BRAWL_2P, overrides)


def test_dagger_collect_labels_the_students_decisions_of_the_kinds_asked() -> None:
    kw = {"env_name": "brawl_v0", "env_options": {}, "num_players": [2], "games": 6, "teacher": "heuristic",
          "opponents": {"random": 1.0}, "seed": 4, "gamma": 0.9, "student": _brawl_student()}
    every = imitation.collect(**kw, kinds=None, beta=0.5)
    assert every.targets is not None and every.labelled.all()
    assert (every.masks.sum(axis=1) > 1).all()  # forced moves are not recorded: nothing to learn from them
    # the heuristic has no action values: its label is its choice, one-hot, on a legal action
    assert np.array_equal(every.targets.argmax(axis=1), every.actions) and np.allclose(every.targets.sum(axis=1), 1.0)
    assert every.masks[np.arange(len(every)), every.actions].all()
    some = imitation.collect(**kw, kinds=["defend"], beta=0.5)
    assert some.labelled.any() and not some.labelled.all()
    # an unlabelled row is the student's own choice, kept one-hot on the action it played
    own = ~some.labelled
    assert np.array_equal(some.targets[own].argmax(axis=1), some.actions[own])


def test_dagger_labels_are_the_softmax_of_a_search_teachers_values() -> None:
    data = imitation.collect("brawl_v0", {}, [2], 2, "search:sims=8", {"random": 1.0}, seed=1, gamma=0.9,
                             student=_brawl_student(), kinds=None, beta=0.0, temperature=0.5)
    legal_share = (data.targets * data.masks).sum(axis=1)
    assert np.allclose(legal_share, 1.0, atol=1e-5)  # nothing on an illegal action
    assert ((data.targets > 0).sum(axis=1) > 1).any()  # soft: several actions keep a share
    assert np.array_equal(data.targets.argmax(axis=1), data.actions)  # the teacher's choice is its best value


def test_dagger_pretrain_moves_the_labelled_decisions_toward_the_teacher_and_keeps_the_rest(tmp_path: Path) -> None:
    from types import SimpleNamespace

    from fight_envs.agents.checkpoint import load_policy, read_metadata

    policy, _ = load_policy(_brawl_student())
    model = SimpleNamespace(policy=policy, observation_space=policy.observation_space, action_space=policy.action_space)
    config = _dagger_config(tmp_path, "pretrain.games=30", "pretrain.kinds=[attack]", f"pretrain.data={tmp_path / 'd.npz'}")
    lines: list[str] = []
    result = imitation.pretrain(model, config, log=lines.append, student_metadata=read_metadata(_brawl_student()))
    assert 0 < result["labelled"] < result["decisions"]
    assert result["unlabelled_unchanged"] >= 0.9  # the other decisions stay the student's
    assert any("DAgger" in line for line in lines), lines
    # the file holds the labels and says what made them: another student, kind list or beta is refused
    data, header = imitation.load_demonstrations(config.pretrain.data, imitation.recording_of(config))
    assert data.targets is not None and data.labelled.sum() == result["labelled"]
    asked = data.subset(np.flatnonzero(data.labelled))
    assert imitation.agreement(policy, asked) > imitation.agreement(load_policy(_brawl_student())[0], asked) + 0.05
    assert header["mode"] == "dagger" and header["kinds"] == ["attack"] and len(header["student"]) == 64
    for override, field in (("pretrain.kinds=[defend]", "kinds: file \\['attack'\\], config \\['defend'\\]"),
                            ("pretrain.beta=0.25", "beta: file 0.5, config 0.25"),
                            ("init_from=brawl_3p.zip", "student: file")):
        with pytest.raises(ConfigError, match=field):
            imitation.load_demonstrations(config.pretrain.data, imitation.recording_of(
                _dagger_config(tmp_path, "pretrain.games=30", "pretrain.kinds=[attack]", override)))
    with pytest.raises(ConfigError, match=r"pretrain.kinds: \['block'\] are not decision kinds of brawl_v0; allowed: attack"):
        imitation.pretrain(model, _dagger_config(tmp_path, "pretrain.kinds=[block]"), student_metadata={})


def test_row_buffer_joins_its_blocks_into_the_rows_in_order(monkeypatch: pytest.MonkeyPatch) -> None:
    """``collect`` keeps observation rows in blocks (one large allocation each, freed as they are joined),
    not as a list of rows stacked at the end (the allocator kept those rows' memory: 12.4 GB at the Fight
    Klub recipe's peak for 4 GB of rows)."""
    monkeypatch.setattr(imitation, "ROW_CHUNK", 3)
    rows = [np.arange(5, dtype=np.float32) + 10 * k for k in range(8)]  # 8 rows: blocks of 3, 3 and 2
    buf = imitation._RowBuffer()
    assert len(buf) == 0 and buf.row_size() == 0
    for k, row in enumerate(rows):
        buf.append(row.astype(np.float64) if k % 2 else row)  # any float array; stored as float32
        assert len(buf) == k + 1
    assert buf.row_size() == 5
    out = buf.array()
    assert out.dtype == np.float32 and np.array_equal(out, np.stack(rows))
    assert len(buf) == 0  # emptied as it copied
    with pytest.raises(ValueError, match="no rows"):
        buf.array()


def test_collect_records_the_same_rows_whatever_the_block_size(monkeypatch: pytest.MonkeyPatch) -> None:
    args = ("brawl_v0", {}, [2, 3], 3, "heuristic", {"random": 1.0})
    whole = imitation.collect(*args, seed=3, gamma=0.9)
    monkeypatch.setattr(imitation, "ROW_CHUNK", 7)  # many blocks, the last one partly filled
    assert len(whole) % 7 != 0
    blocks = imitation.collect(*args, seed=3, gamma=0.9)
    for key in ("observations", "masks", "actions", "returns", "game"):
        assert np.array_equal(getattr(whole, key), getattr(blocks, key)), key


def test_held_out_split_is_views_in_game_order_and_copies_otherwise() -> None:
    rng = np.random.default_rng(0)
    game = np.repeat(np.arange(10), 4)
    data = imitation.Demonstrations(rng.random((40, 6), dtype=np.float32), rng.random((40, 3)) > 0.5,
                                    rng.integers(3, size=40), rng.random(40, dtype=np.float32), game)
    train, test = data.split_last_games(9)
    held = game >= 9
    for part, rows in ((train, np.flatnonzero(~held)), (test, np.flatnonzero(held))):
        ref = data.subset(rows)
        for key in ("observations", "masks", "actions", "returns", "game"):
            assert np.array_equal(getattr(part, key), getattr(ref, key)), key
    assert np.shares_memory(train.observations, data.observations) and np.shares_memory(test.observations, data.observations)
    assert len(train) == 36 and len(test) == 4
    # rows out of game order (not how collect records them): the same rows, copied
    order = rng.permutation(40)
    shuffled = data.subset(order)
    train, test = shuffled.split_last_games(9)
    assert np.array_equal(test.game, shuffled.game[shuffled.game >= 9]) and len(train) == 36
    assert not np.shares_memory(train.observations, shuffled.observations)
    # nothing held out, and everything held out
    assert [len(x) for x in data.split_last_games(10)] == [40, 0]
    assert [len(x) for x in data.split_last_games(0)] == [0, 40]
