"""The heuristic's play at two and three fighters is pinned: the action sequences of seeded games,
recorded with heuristic version 4 before version 5 changed its play at tables of four or more
(``agents/brawl.py``), so the 2- and 3-fighter figures and ablations of ``seeds/brawl.md`` section 9
stay this agent's. Each entry: decisions asked and the first 16 hex digits of the SHA-256 of the
action bytes."""

from __future__ import annotations

import hashlib

import pytest

from fight_envs import brawl_v0
from fight_envs.agents.arena import agent_seed
from fight_envs.agents.brawl import HeuristicAgent, NeverPassAgent

OPTIONS = {"standard": {}, "classic": {"rules": "classic"}, "single": {"combo": "single"}}


def _actions(n: int, seed: int, rules: str, mix: bool) -> list[int]:
    """One game: the heuristic in every seat, or (``mix``) in the even seats against ``never_pass``."""
    env = brawl_v0.raw_env(num_players=n, **OPTIONS[rules])
    agents = [HeuristicAgent() if not mix or i % 2 == 0 else NeverPassAgent() for i in range(n)]
    for i, a in enumerate(agents):
        a.seed(agent_seed(seed, i))
        a.reset()
    env.reset(seed=seed)
    out: list[int] = []
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        a = agents[env.possible_agents.index(agent)].act(obs["observation"], obs["action_mask"])
        out.append(a)
        env.step(a)
    return out


def _pin(actions: list[int]) -> tuple[int, str]:
    return len(actions), hashlib.sha256(bytes(actions)).hexdigest()[:16]


PINNED: dict[str, tuple[int, str]] = {
    "2-standard-0-0": (60, "3c29abf6c890f4ef"),
    "2-standard-0-1": (52, "7f04dc777f909362"),
    "2-standard-1-0": (94, "41b74479751ec7d1"),
    "2-standard-1-1": (39, "0a1382272896697f"),
    "2-standard-2-0": (76, "b525486ab492b5bd"),
    "2-standard-2-1": (64, "03a7a846a79900d4"),
    "2-classic-0-0": (33, "cca29dcabb703b3c"),
    "2-classic-0-1": (33, "e6ad775ca1f4cebd"),
    "2-classic-1-0": (33, "89c8943c4452dd1a"),
    "2-classic-1-1": (23, "bb7f9f770ba95c58"),
    "2-classic-2-0": (36, "095e95fb95651029"),
    "2-classic-2-1": (34, "05d84df25bd1665f"),
    "2-single-0-0": (56, "b1f57e2224e798b1"),
    "2-single-0-1": (42, "39c844dea41a8522"),
    "2-single-1-0": (72, "1b72305e4f1694d4"),
    "2-single-1-1": (45, "43f07ce1c02fac82"),
    "2-single-2-0": (74, "eaf9ceb4111b3e23"),
    "2-single-2-1": (58, "8e5fefa11ef73f93"),
    "3-standard-0-0": (124, "112c53b5765f1983"),
    "3-standard-0-1": (153, "6f40ecfc032f481f"),
    "3-standard-1-0": (160, "48f5f570c7cbaad0"),
    "3-standard-1-1": (138, "8dc8cfe98aa9dc70"),
    "3-standard-2-0": (159, "e3f1bb9fa39baf07"),
    "3-standard-2-1": (112, "5c33b79cf8154594"),
    "3-classic-0-0": (40, "56d85944a06fa297"),
    "3-classic-0-1": (41, "9f4894025b375bca"),
    "3-classic-1-0": (54, "f8a31d51a430a153"),
    "3-classic-1-1": (57, "c9e4e552be6d5d82"),
    "3-classic-2-0": (45, "bbcd7d60f610c4a2"),
    "3-classic-2-1": (45, "aed0706edbe76018"),
    "3-single-0-0": (164, "4d8fdfb040b9807b"),
    "3-single-0-1": (171, "041c57d5d9e792aa"),
    "3-single-1-0": (165, "fbb9864077524077"),
    "3-single-1-1": (148, "99df5746cb756916"),
    "3-single-2-0": (206, "339c541695becdc5"),
    "3-single-2-1": (184, "683fe0e9461a3ca4"),
}


@pytest.mark.parametrize("key", sorted(PINNED))
def test_heuristic_play_at_two_and_three_fighters_is_unchanged(key: str) -> None:
    n, rules, seed, mix = key.split("-")
    assert _pin(_actions(int(n), int(seed), rules, mix == "1")) == PINNED[key]


def test_big_tables_choose_attacks_by_expected_matches_and_answer_before_following() -> None:
    """Version 5 at five fighters: every attack the heuristic opens with has the fewest expected
    matched cards (the combo's second card counted), and a COUNTER or JUMP never goes before a
    matching attack; version 4's rule (least risk first) would have chosen otherwise at least once."""
    from fight_envs.agents.brawl import BrawlView
    from fight_envs.games.brawl.cards import COUNTER, JUMP, NUM_ATTACKS
    from fight_envs.games.brawl.rules import Phase

    env = brawl_v0.raw_env(num_players=5)
    agent = HeuristicAgent(0)
    differs = attacks = 0
    for seed in range(3):
        env.reset(seed=seed)
        agent.reset()
        for name in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            o, mask = obs["observation"], obs["action_mask"]
            a = agent.act(o, mask)
            v = BrawlView.decode(o)
            legal = [c for c in range(NUM_ATTACKS) if mask[c]]
            if v.phase == Phase.ATTACK and len(legal) > 1:
                hand, target = v._lists()[0], agent._attack_target(v)
                score = {c: round(agent._combo_matches(v, hand, target, c), 6) for c in legal}
                assert score[a] == min(score.values())
                risk = {c: round(agent._risk(v, target, c), 6) for c in legal}
                attacks += 1
                differs += risk[a] != min(risk.values())
            if v.phase == Phase.DEFEND and v.attack >= 0 and mask[v.attack]:
                assert a not in (COUNTER, JUMP)
            env.step(a)
    assert attacks > 20 and differs > 0
