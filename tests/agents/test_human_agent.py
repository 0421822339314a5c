"""The terminal player: prompts, re-prompts on bad input, quits cleanly, plays a whole game."""

from __future__ import annotations

import re

import numpy as np
import pytest

from fight_envs.agents.arena import play_game
from fight_envs.agents.base import RandomAgent
from fight_envs.agents.human import HumanAgent, HumanQuit
from fight_envs import fight5_v0
from fight_envs.games.fight5.cards import RANK_NAMES


def _scripted(lines):
    prompts: list[str] = []
    feed = iter(lines)

    def fake_input(prompt: str) -> str:
        prompts.append(prompt)
        try:
            return next(feed)
        except StopIteration:
            raise EOFError from None

    return fake_input, prompts


def _first_observation(num_players=2, seed=0):
    env = fight5_v0.raw_env(num_players=num_players)
    env.reset(seed=seed)
    return env, env.observe(env.agent_selection)


def test_reprompts_on_bad_input_then_accepts_a_card_in_hand():
    env, obs = _first_observation()
    mask = obs["action_mask"]
    held = [RANK_NAMES[a] for a in np.flatnonzero(mask)]
    missing = next(RANK_NAMES[a] for a in range(13) if not mask[a])
    fake_input, prompts = _scripted(["", "banana", "14", missing, f"  {held[0].upper()} "])
    out: list[str] = []
    human = HumanAgent(game="fight5", input_fn=fake_input, output_fn=out.append)
    action = human.act(obs["observation"], mask)
    assert action == RANK_NAMES.index(held[0])
    assert len(prompts) == 5
    text = "\n".join(out)
    assert "empty input" in text
    assert "unknown card 'banana'" in text and "unknown card '14'" in text
    assert f"no {missing} in your hand" in text
    assert "my hand:" in text and "-> slot 0" in text  # the decoded state was shown
    assert all(name in prompts[0] for name in held)


def test_quit_and_end_of_input_raise_human_quit():
    _, obs = _first_observation()
    with pytest.raises(HumanQuit):
        HumanAgent(input_fn=_scripted(["q"])[0], output_fn=lambda s: None).act(obs["observation"], obs["action_mask"])
    with pytest.raises(HumanQuit):
        HumanAgent(input_fn=_scripted([])[0], output_fn=lambda s: None).act(obs["observation"], obs["action_mask"])


def test_star_aliases_and_render_fn():
    env = fight5_v0.raw_env(num_players=2, render_mode="ansi", viewer=0)
    env.reset(seed=0)
    obs = env.observe("player_0")
    mask = np.zeros(13, dtype=np.int8)
    mask[12] = 1  # pretend only the Star is legal
    out: list[str] = []
    human = HumanAgent(input_fn=_scripted(["*"])[0], output_fn=out.append, render_fn=env.render)
    assert human.act(obs["observation"], mask) == 12
    assert out[0].startswith("Fight 5, 2 players")  # the env's own rendering came first


def test_generic_game_lists_action_ids():
    out: list[str] = []
    fake_input, prompts = _scripted(["x", "1", "2"])
    human = HumanAgent(input_fn=fake_input, output_fn=out.append)
    action = human.act(np.zeros(4, dtype=np.float32), np.array([1, 0, 1, 0], dtype=np.int8))
    assert action == 2
    assert "0, 2" in prompts[0]
    assert any("'x' is not an action number" in line for line in out)
    assert any("action 1 is not legal" in line for line in out)


def test_a_scripted_human_plays_a_whole_game():
    env = fight5_v0.raw_env(num_players=3)

    def pick_first(prompt: str) -> str:
        return re.search(r"\(([^,;]+)", prompt).group(1)  # the first card offered

    human = HumanAgent(game="fight5", input_fn=pick_first, output_fn=lambda s: None)
    result = play_game(env, [RandomAgent(), human, RandomAgent()], seed=4)
    assert result.num_steps >= 3 * 25 * 2
    assert env.game.is_terminal()


def test_terminal_entry_point_plays_and_quits(monkeypatch, capsys):
    from fight_envs.agents import human as human_module

    answers = iter(["2", "q"])  # '2' may or may not be in hand: either way a prompt follows, then q
    monkeypatch.setattr("builtins.input", lambda prompt="": next(answers))
    assert human_module.main(["--players", "2", "--opponent", "greedy", "--seed", "1"]) == 1
    out = capsys.readouterr().out
    assert "Fight 5, 2 players" in out and "my hand:" in out and out.rstrip().endswith("bye")
