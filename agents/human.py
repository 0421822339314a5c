"""A person at the terminal, as an ``Agent``: shows the state and the legal moves, reads a move.

For Fight 5 the state is the env's text rendering from the player's chair when a
``render_fn`` is given (e.g. ``lambda: env.render()`` on an env made with ``render_mode="ansi"``
and ``viewer=seat``), followed by a summary decoded from the observation itself: my hand, my
clash at this slot and its pot, what the opponents there can still play. Moves are card names
('2'..'13', 'star' or '*'). In the other games each legal action is listed by id with its name
(``name_fn``, e.g. :func:`action_namer`), and either the id or the name is accepted. The chosen
move is echoed (``you: ...``).

Input and output are injectable (``input_fn``, ``output_fn``) so tests and other front ends can
drive it. Bad input (empty, unknown card, card not in hand) is answered and asked again; 'q'
(or end of input) raises :class:`HumanQuit`.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from fight_envs.agents.base import Agent
from fight_envs.games.fight5.cards import RANK_NAMES, rank_of
from fight_envs.games.fight5.observe import OBS_SIZE

QUIT_WORDS = ("q", "quit", "exit")
HELP_WORDS = ("?", "h", "help")


class HumanQuit(Exception):
    """The person chose to stop playing."""


class HumanAgent(Agent):
    """Asks a person at the terminal for every move."""

    name = "human"
    version = 0  # a person has no strategy version

    def __init__(
        self,
        seed: int | None = None,
        game: str | None = None,
        input_fn: Callable[[str], str] | None = None,
        output_fn: Callable[[str], None] | None = None,
        render_fn: Callable[[], str | None] | None = None,
        name_fn: Callable[[int], str] | None = None,
    ) -> None:
        super().__init__(seed)
        self.name_fn = name_fn
        self.game = game
        # Looked up now rather than at import, so a patched ``input``/``print`` is honoured.
        self.input_fn = input_fn if input_fn is not None else input
        self.output_fn = output_fn if output_fn is not None else print
        self.render_fn = render_fn

    def _is_fight5(self, observation: np.ndarray) -> bool:
        if self.game is not None:
            return self.game.startswith("fight5")
        return np.asarray(observation).shape == (OBS_SIZE,)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        legal = [int(a) for a in np.flatnonzero(action_mask)]
        if not legal:
            raise ValueError("no legal action: the action mask is all zeros")
        fight5 = self._is_fight5(observation)
        if self.render_fn is not None:
            text = self.render_fn()
            if text:
                self.output_fn(text)
        if fight5:
            from fight_envs.agents.fight5 import Fight5View  # the view lives with the Fight 5 baselines

            self.output_fn(Fight5View.decode(observation).summary())
            choices = ", ".join(RANK_NAMES[a] for a in legal)
            prompt = f"your card ({choices}; q quits): "
        else:
            names = {a: self._name(a) for a in legal}
            self.output_fn("legal moves: " + "; ".join(f"{a} = {names[a]}" for a in legal))
            choices = ", ".join(str(a) for a in legal)
            prompt = f"your move ({choices}, by number or name; q quits): "
        while True:
            try:
                raw = self.input_fn(prompt)
            except EOFError:
                raise HumanQuit("input ended") from None
            text = raw.strip().lower()
            if text in QUIT_WORDS:
                raise HumanQuit("the player quit")
            if text in HELP_WORDS or not text:
                what = "a card name" if fight5 else "an action number"
                lead = "empty input: " if not text else ""
                self.output_fn(f"{lead}type {what} from: {choices}; or q to quit")
                continue
            action = self._parse(text, fight5)
            if action is None and not fight5:
                by_name = [a for a in legal if self._name(a).lower() == text]
                action = by_name[0] if by_name else None
            if action is None:
                if fight5:
                    self.output_fn(f"unknown card {raw.strip()!r}: cards are 2..13 or star; you hold {choices}")
                else:
                    self.output_fn(f"{raw.strip()!r} is not an action number; legal: {choices}")
                continue
            if action not in legal:
                shown = f"no {RANK_NAMES[action]} in your hand" if fight5 else f"action {action} is not legal now"
                self.output_fn(f"{shown}; choose from: {choices}")
                continue
            self.output_fn(f"you: {RANK_NAMES[action] if fight5 else self._name(action)}")
            return action

    def _name(self, action: int) -> str:
        if self.name_fn is None:
            return f"action {action}"
        try:
            return self.name_fn(action)
        except Exception:  # a name is a courtesy: never let it stop the game
            return f"action {action}"

    @staticmethod
    def _parse(text: str, fight5: bool) -> int | None:
        if fight5:
            try:
                return rank_of(int(text) if text.isdigit() else text)
            except ValueError:
                return None
        try:
            return int(text)
        except ValueError:
            return None


def action_namer(env: object, seat: int) -> Callable[[int], str]:
    """Names of ``seat``'s actions in ``env``'s game, read from the game as it stands when asked."""
    raw = getattr(env, "unwrapped", env)
    env_name = str(getattr(raw, "metadata", {}).get("name", ""))

    def name(action: int) -> str:
        game = raw.game
        if env_name.startswith("fight5"):
            return RANK_NAMES[action]
        if env_name.startswith("brawl"):
            return game.action_name(action)
        if env_name.startswith("fifth_earth"):
            from fight_envs.games.fifth_earth.rules import describe_action

            return describe_action(action, raw.cards)
        if env_name.startswith("fight_klub"):
            from fight_envs.games.fight_klub import rules

            text = rules.action_name(action)
            if text.startswith("hand["):
                hand = game.players[seat].hand
                index = action - rules.HAND0
                if 0 <= index < len(hand):
                    card = game.pool.support.get(hand[index]) if hasattr(game.pool.support, "get") else None
                    return f"{text} {card.name if card is not None else hand[index]}"
                return text
            return text
        return f"action {action}"

    return name


def outcome_line(env: object, result: object, seat: int) -> str:
    """The end of a game in words: each seat's reward (and score, where the game keeps one), and who won."""
    returns = np.asarray(result.returns, dtype=float)  # type: ignore[attr-defined]
    scores = np.asarray(result.scores, dtype=float)  # type: ignore[attr-defined]
    who = lambda s: "you" if s == seat else f"player_{s}"  # noqa: E731
    parts = [f"{who(s)} {returns[s]:+.2f}" + (f" (score {int(scores[s])})" if scores.any() else "")
             for s in range(len(returns))]
    best = [s for s in range(len(returns)) if returns[s] == returns.max()]
    verdict = "you win" if best == [seat] else ("shared win: " if len(best) > 1 else "winner: ") + ", ".join(map(who, best))
    if len(best) > 1 and seat in best:
        verdict = "shared win: " + ", ".join(map(who, best))
    return f"final rewards: {', '.join(parts)}; {verdict}"


def main(argv: list[str] | None = None) -> int:
    """Play Fight 5 at the terminal: ``python -m fight_envs.agents.human --players 3 --opponent heuristic``."""
    import argparse

    from fight_envs.agents.arena import play_game
    from fight_envs.agents.registry import list_agents, make_agent
    from fight_envs import fight5_v0

    bots = [name for name in list_agents("fight5") if name != "human"]
    parser = argparse.ArgumentParser(prog="python -m fight_envs.agents.human", description=main.__doc__)
    parser.add_argument("--players", type=int, default=2, help="2..5 (you are player_0)")
    parser.add_argument("--opponent", default="heuristic", help=f"{', '.join(bots)} or a checkpoint path")
    parser.add_argument("--seed", type=int, default=None, help="deal seed (default: a fresh one)")
    args = parser.parse_args(argv)
    env = fight5_v0.raw_env(num_players=args.players, render_mode="ansi", viewer=0)
    human = HumanAgent(game="fight5", render_fn=env.render)
    field = [human] + [make_agent(args.opponent, "fight5", seed=None) for _ in range(args.players - 1)]
    try:
        result = play_game(env, field, seed=args.seed)
    except HumanQuit:
        print("bye")
        return 1
    print(env.render())
    print(f"final scores (you are P0): {result.scores.astype(int).tolist()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
