"""A game-agnostic search agent: determinized Monte-Carlo search (PIMC) from the seat's information set.

For each decision with more than one legal action, the agent draws ``K`` determinizations of its
``InformationSet`` (full games consistent with everything its seat observed, every hidden part
resampled: ``SearchableGame.determinize``), plays every legal action in each of them, finishes
each game with a rollout policy (any suite agent, by default the game's heuristic, one copy per
seat) and picks the action with the best mean value for its seat (win credit: 1 sole win, 1/k
shared, 0 loss). All actions are tried on the same determinizations with the same rollout
randomness (common random numbers), so the comparison between actions is not swamped by deal luck.
A decision with a single legal action is played at once, without search. With ``keep=z`` the
rollout policy's own choice is played unless another action beats it by more than ``z`` standard
errors of the paired difference (for games whose win-or-lose rollouts separate actions mostly by
noise at small budgets, such as Brawl).

**Budget.** ``sims``: rollouts per decision, split evenly over the legal actions (``K = max(1,
sims // |legal|)``). ``time_ms``: optionally stop drawing determinizations once this much time is
spent (then at least one wave of ``wave`` determinizations is played; with a time limit the
decisions depend on the machine's speed and the same seed no longer gives the same game).

**Rollouts.** To the game's end (``horizon=game``), or, where the engine marks a shorter segment,
to that segment's end, valued by its own credit: ``horizon=destination`` in Fifth-Earth stops at
the current destination's claim (at 2 players each destination is dealt afresh, so its claim is
all a decision in it changes, and a rollout costs one destination, not the rest of the campaign).
Through the engine vocabulary only (``clone`` / ``determinize`` / ``current_player``
/ ``apply_action`` / ``is_terminal``; observations from ``InformationSet.observe``): works on
every game whose engine implements it. Where a game has a batched engine a backend plays all
``K x |legal|`` rollouts of a decision as one batch: Fight 5 (``fight_envs.agents.search_fight5``,
on ``Fight5Batch``), exact to the per-game rollouts (``tests/search``). ``backend="generic"``
forces the per-game loop.

**A prior, and searching some decisions only.** ``prior=SPEC`` names an agent (a baseline, or a trained
model's checkpoint) built once and reseeded every game; ``kinds=a+b`` searches only decisions of those kinds
(the engine's ``decision_kind``) and plays the prior's action on the others; ``margin=m`` keeps the
prior's action unless another action's mean value beats it by at least ``m`` (``keep`` measures the same
in standard errors). ``search:sims=32,prior=models/fight_klub_2p.zip,kinds=enhance,margin=0.2`` is the
shipped Fight Klub model with search overruling it on Enhance decisions only (``docs/results.md``).

**Determinism.** The agent's own generator (seeded by the arena from the game seed and seat)
draws the determinizations and the rollout seeds, so the same seed gives the same decisions
(without ``time_ms``).

Specs: ``make_agent("search", game=...)`` or ``"search:sims=200,rollout=greedy"``; options are
parsed by :func:`parse_search_options` with errors that name the bad option and what is allowed.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np

from fight_envs.agents.base import Agent
from fight_envs.core.information import InformationSet, SearchableGame

DEFAULT_SIMS = 200
DEFAULT_WAVE = 8
"""With ``time_ms``: determinizations drawn per wave between two looks at the clock."""
BACKENDS = ("auto", "generic", "batched")
SEARCH_OPTIONS: dict[str, str] = {
    "sims": "rollouts per decision, an int >= 1 (default 200), split evenly over the legal actions",
    "time_ms": "stop searching a decision after this many milliseconds, a number > 0 (default: none)",
    "rollout": "the rollout policy: an agent spec of the game (default: heuristic)",
    "backend": "auto (the game's batched rollouts where it has them), generic or batched",
    "wave": "determinizations per wave with time_ms, an int >= 1 (default 8)",
    "tail": "Fight 5's batched rollouts: the policy after the current round (default: the rollout policy)",
    "horizon": "game (rollouts to the end), bout (Fight 5's batched rollouts: to the bout's end, then a prior) or destination (Fifth-Earth: to the current destination's claim, valued by who claims it)",
    "belief": "an agent spec of the game that models how the others laid face down (Fifth-Earth): a determinization is kept only if the model, given the hand drawn, lays as many cards as were laid, and its lay replaces the drawn one (default: none, every lay of that count equally likely)",
    "keep": "keep the prior's own action (default prior: the rollout policy) unless another beats its mean value by more than this many standard errors of the paired difference, a number >= 0 (default: none, the best mean wins)",
    "prior": "an agent spec of the game (a baseline or a trained model's path) whose action is played where the agent does not search (kinds) and kept unless search beats it (margin) (default: the rollout policy)",
    "kinds": "decision kinds to search, joined by + (e.g. enhance or setup+enhance; the env's decision_kind); the prior plays the others (default: every kind)",
    "margin": "keep the prior's action unless another beats its mean value by at least this much (win credit), a number >= 0 (default: none, the best mean wins)",
}
"""Options of the ``search`` agent, as written in a spec (``search:sims=200,rollout=greedy``)."""


def parse_search_options(text: str) -> dict[str, Any]:
    """``"sims=200,rollout=greedy"`` -> ``{"sims": 200, "rollout": "greedy"}``, checked; ValueError names the problem."""
    out: dict[str, Any] = {}
    for part in [p for p in text.split(",") if p.strip()]:
        if "=" not in part:
            raise ValueError(f"search option {part.strip()!r} must be name=value; options: {', '.join(SEARCH_OPTIONS)}")
        key, value = (x.strip() for x in part.split("=", 1))
        if key not in SEARCH_OPTIONS:
            raise ValueError(f"unknown search option {key!r}; allowed: " + "; ".join(f"{k}: {v}" for k, v in SEARCH_OPTIONS.items()))
        if key in out:
            raise ValueError(f"search option {key!r} given twice")
        if key in ("sims", "wave"):
            try:
                out[key] = int(value)
            except ValueError:
                raise ValueError(f"search option {key}={value!r}: {SEARCH_OPTIONS[key]}") from None
        elif key in ("time_ms", "keep", "margin"):
            try:
                out[key] = float(value)
            except ValueError:
                raise ValueError(f"search option {key}={value!r}: {SEARCH_OPTIONS[key]}") from None
        else:
            out[key] = value
    return out


def _rollout_factory(game: str, spec: str, option: str = "rollout") -> Callable[[int | None], Agent]:
    from fight_envs.agents.registry import make_agent

    if spec.split(":", 1)[0] in ("search", "human"):
        raise ValueError(f"{option}={spec!r}: a {option} policy must act from observations alone (not search or human)")
    probe = make_agent(spec, game=game, seed=0)  # fails here, with the registry's message, if unknown
    if probe.needs_information_set:
        raise ValueError(f"{option}={spec!r} needs an information set; a {option} policy must act from observations alone")
    return lambda seed: make_agent(spec, game=game, seed=seed)


class SearchAgent(Agent):
    """Determinized Monte-Carlo search (PIMC): per legal action, K determinizations x a rollout each with the
    rollout policy, best mean win credit (see the module docstring)."""

    name = "search"
    version = 1
    needs_information_set = True

    def __init__(
        self,
        game: str,
        seed: int | None = None,
        sims: int = DEFAULT_SIMS,
        time_ms: float | None = None,
        rollout: str = "heuristic",
        backend: str = "auto",
        wave: int = DEFAULT_WAVE,
        horizon: str = "game",
        tail: str | None = None,
        keep: float | None = None,
        belief: str | None = None,
        prior: str | None = None,
        kinds: str | None = None,
        margin: float | None = None,
    ) -> None:
        super().__init__(seed)
        from fight_envs.agents.registry import game_name

        if isinstance(sims, bool) or not isinstance(sims, (int, np.integer)) or sims < 1:
            raise ValueError(f"sims must be an int >= 1, got {sims!r}")
        if time_ms is not None and (isinstance(time_ms, bool) or not isinstance(time_ms, (int, float)) or not time_ms > 0):
            raise ValueError(f"time_ms must be a number > 0 or None, got {time_ms!r}")
        if backend not in BACKENDS:
            raise ValueError(f"backend must be one of {', '.join(BACKENDS)}, got {backend!r}")
        if isinstance(wave, bool) or not isinstance(wave, (int, np.integer)) or wave < 1:
            raise ValueError(f"wave must be an int >= 1, got {wave!r}")
        if keep is not None and (isinstance(keep, bool) or not isinstance(keep, (int, float)) or not keep >= 0):
            raise ValueError(f"keep must be a number >= 0 or None, got {keep!r}")
        if margin is not None and (isinstance(margin, bool) or not isinstance(margin, (int, float)) or not margin >= 0):
            raise ValueError(f"margin must be a number >= 0 or None, got {margin!r}")
        if margin is not None and keep is not None:
            raise ValueError("keep and margin both decide when to keep the prior's action: give one of them")
        self.margin = None if margin is None else float(margin)
        """With a value: the prior's action is kept unless another action's mean value beats it by at least this."""
        self.keep = None if keep is None else float(keep)
        """With a value: the rollout policy's action at the root is kept unless another action's mean
        beats it by more than ``keep`` standard errors of the paired (same determinization)
        difference. Win-or-lose rollouts are noisy: Brawl at two fighters tied the best actions in
        over half of its decisions at sims=8 (the lowest-numbered action then won, the play of
        ``first_legal``) and separated actions mostly by noise otherwise."""
        self._rows: np.ndarray | None = None
        self.game = game_name(game)
        self.sims = int(sims)
        self.time_ms = None if time_ms is None else float(time_ms)
        self.rollout = rollout
        self.wave = int(wave)
        self._make_rollout_agent = _rollout_factory(self.game, rollout)
        self.horizon = horizon
        self.tail = tail
        if tail is not None:
            _rollout_factory(self.game, tail, "tail")
        self._batched = _batched_backend(self.game, rollout, horizon, tail) if backend != "generic" else None
        if tail is not None and self._batched is None:
            raise ValueError(f"tail={tail!r} needs batched rollouts (Fight 5)")
        stops = _GENERIC_HORIZONS.get(self.game, ())
        if horizon != "game" and self._batched is None and horizon not in stops:
            allowed = ", ".join(("game",) + stops)
            raise ValueError(f"horizon={horizon!r}: {self.game} rollouts stop at {allowed} (bout: Fight 5's batched rollouts)")
        self._stop = horizon if horizon != "game" and self._batched is None else None
        """A generic horizon short of the game's end (the engine's ``horizon_marker`` / ``horizon_value``)."""
        if backend == "batched" and self._batched is None:
            raise ValueError(f"backend='batched': no batched rollouts for {self.game} with rollout={rollout!r}; use auto or generic")
        self.prior = prior
        self._make_prior_agent = None if prior is None else _rollout_factory(self.game, prior, "prior")
        self._prior: Agent | None = None
        """The prior agent, built once (a trained model is loaded once) and reseeded at every ``reset``."""
        self.kinds: frozenset[str] | None = None
        if kinds is not None:
            from fight_envs.agents.ablation import decision_kinds

            allowed = decision_kinds(self.game)
            wanted = [k for k in str(kinds).split("+") if k]
            unknown = [k for k in wanted if k not in allowed]
            if not wanted or unknown:
                raise ValueError(f"kinds={kinds!r}: {self.game}'s decision kinds are {', '.join(allowed)} (join several with +)")
            self.kinds = frozenset(wanted)
        self.belief = belief
        self._make_belief_agent = None if belief is None else _rollout_factory(self.game, belief, "belief")
        self._rules: Any = None
        """The env whose public rules the rollout and belief agents take (``bind_rules``); None: their defaults."""
        if belief is not None and self.game not in _BELIEF_GAMES:
            raise ValueError(f"belief={belief!r}: {self.game} has no face-down lays to model (belief: {', '.join(_BELIEF_GAMES)})")
        if belief is not None and self._batched is not None:
            raise ValueError(f"belief={belief!r} needs the per-game rollouts (backend=generic)")
        self.belief_rejected = 0
        """Determinizations the belief model rejected (it would not have laid that count from the hand drawn)."""
        self.belief_fallbacks = 0
        """Draws that kept a uniform determinization after ``BELIEF_TRIES`` rejections in a row."""
        self.decisions = 0
        """Decisions this agent was asked (searched or forced), since it was built."""
        self.searched = 0
        self.search_seconds = 0.0
        """Wall time spent in ``act_with_information`` (all decisions)."""
        self.search_cpu_seconds = 0.0
        """CPU time of this process spent there (on a loaded machine, closer to the cost on one free core)."""

    @property
    def label(self) -> str:
        extra = "" if self.rollout == "heuristic" else f",rollout={self.rollout}"
        extra += "" if self.time_ms is None else f",time_ms={self.time_ms:g}"
        extra += "" if self.horizon == "game" else f",horizon={self.horizon}"
        extra += "" if self.tail is None else f",tail={self.tail}"
        extra += "" if self.keep is None else f",keep={self.keep:g}"
        extra += "" if self.belief is None else f",belief={self.belief}"
        extra += "" if self.prior is None else f",prior={self.prior}"
        extra += "" if self.kinds is None else f",kinds={'+'.join(sorted(self.kinds))}"
        extra += "" if self.margin is None else f",margin={self.margin:g}"
        return f"search-v{self.version}:sims={self.sims}{extra}"

    def describe(self) -> dict[str, Any]:
        return {**super().describe(), "sims": self.sims, "time_ms": self.time_ms, "rollout": self.rollout, "horizon": self.horizon,
                "backend": "batched" if self._batched is not None else "generic"}

    def bind_rules(self, env: Any) -> None:
        """The rollout and belief agents it builds take ``env``'s public rules (``Agent.bind_rules``)."""
        self._rules = env

    def _bound(self, agent: Agent) -> Agent:
        if self._rules is not None:
            agent.bind_rules(self._rules)
        return agent

    def reset(self) -> None:
        """A new game: the prior (when there is one) is reseeded from this agent's generator and reset."""
        super().reset()
        if self._make_prior_agent is not None:
            if self._prior is None:
                self._prior = self._bound(self._make_prior_agent(None))
            self._prior.seed(int(self.rng.integers(2**62)))
            self._prior.reset()

    def _prior_action(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """The prior's action (``prior``, else a fresh rollout agent, as ``keep`` uses)."""
        if self._make_prior_agent is not None:
            if self._prior is None:
                self.reset()
            return int(self._prior.act(observation, action_mask))
        agent = self._bound(self._make_rollout_agent(int(self.rng.integers(2**62))))
        agent.reset()
        return int(agent.act(observation, action_mask))

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        raise TypeError(
            "the search agent plans from the game's information set: play it through "
            "fight_envs.agents.arena.play_game (or call act_with_information with env.unwrapped.information_set(agent))"
        )

    def act_with_information(self, observation: np.ndarray, action_mask: np.ndarray, information: InformationSet) -> int:
        start, cpu = time.perf_counter(), time.process_time()
        legal = np.flatnonzero(action_mask)
        if legal.size == 0:
            raise ValueError("no legal action: the action mask is all zeros")
        self.decisions += 1
        if legal.size == 1:
            self.search_seconds += time.perf_counter() - start
            self.search_cpu_seconds += time.process_time() - cpu
            return int(legal[0])
        if self.kinds is not None and information.decision_kind() not in self.kinds:
            choice = self._prior_action(observation, action_mask)  # not a kind this agent searches
            self.search_seconds += time.perf_counter() - start
            self.search_cpu_seconds += time.process_time() - cpu
            return choice
        values = self.action_values(information, legal, start)
        self.searched += 1
        self.search_seconds += time.perf_counter() - start
        self.search_cpu_seconds += time.process_time() - cpu
        best = int(np.argmax(values))
        if self.margin is not None:
            choice = self._prior_action(observation, action_mask)
            j = int(np.flatnonzero(legal == choice)[0]) if choice in legal else best
            if values[best] - values[j] < self.margin:
                best = j
        if self.keep is not None:
            choice = self._prior_action(observation, action_mask)
            j = int(np.flatnonzero(legal == choice)[0]) if choice in legal else best
            diff = self._rows[:, best] - self._rows[:, j]  # paired: same determinizations, same rollout seeds
            se = float(diff.std(ddof=1) / np.sqrt(diff.size)) if diff.size > 1 else float("inf")
            if not float(diff.mean()) > self.keep * se:
                best = j
        return int(legal[best])

    def action_values(self, information: InformationSet, legal: np.ndarray, start: float | None = None) -> np.ndarray:
        """Mean rollout value of each action of ``legal`` for the information set's seat."""
        start = time.perf_counter() if start is None else start
        per_action = max(1, self.sims // legal.size)
        total = np.zeros(legal.size)
        rows: list[np.ndarray] = []
        played = 0
        while played < per_action:
            k = per_action - played if self.time_ms is None else min(self.wave, per_action - played)
            if self._make_belief_agent is None:
                dets = [information.sample(self.rng) for _ in range(k)]
            else:
                model = self._bound(self._make_belief_agent(int(self.rng.integers(2**62))))
                model.reset()
                dets = [self._believed_sample(information, model) for _ in range(k)]
            seeds = self.rng.integers(2**62, size=k)
            if self._batched is not None and self._batched.can_play(dets, information.seat):
                block = self._batched.values(dets, information.seat, legal, seeds)
            else:
                block = self._generic_values(information, dets, legal, seeds)
            total += block.sum(axis=0)
            rows.append(block)
            played += k
            if self.time_ms is not None and (time.perf_counter() - start) * 1000.0 >= self.time_ms:
                break
        self._rows = np.concatenate(rows)
        """(determinizations, |legal|) values of the last search, for ``keep``."""
        return total / played

    def _believed_sample(self, information: InformationSet, model: Agent) -> SearchableGame:
        """A determinization in which every face-down lay is the belief model's lay from the hand drawn:
        draws whose hands would not have made a lay of the count laid are rejected (rejection sampling
        of the hands by the model's likelihood), up to ``BELIEF_TRIES`` draws, then a uniform one is kept."""
        det = information.sample(self.rng)
        for _ in range(BELIEF_TRIES):
            ok = True
            for s in det.hidden_lays(information.seat):
                obs, mask = information.observe(det.before_lay(s), s)
                if not det.redo_lay(s, int(model.act(obs, mask))):
                    ok = False
                    break
            if ok:
                return det
            self.belief_rejected += 1
            det = information.sample(self.rng)
        self.belief_fallbacks += 1
        return det

    def _generic_values(self, information: InformationSet, dets: list[SearchableGame], legal: np.ndarray,
                        seeds: np.ndarray) -> np.ndarray:
        """(K, |legal|) rollout values, one game at a time through the engine vocabulary."""
        seat, n = information.seat, information.num_players
        out = np.zeros((len(dets), legal.size))
        # an agent that reads the game itself (``act_game``, e.g. the Brawl heuristic) skips building the
        # observation, where the information set's observation is the env's standard one (it says so)
        standard = bool(getattr(information.observe, "standard_observation", False))
        for k, det in enumerate(dets):
            for j, action in enumerate(legal.tolist()):
                state = det.clone()  # same determinization, same future chance, for every action
                sub = np.random.SeedSequence(int(seeds[k])).spawn(n)
                agents = [self._bound(self._make_rollout_agent(int(s.generate_state(1)[0]))) for s in sub]
                for a in agents:
                    a.reset()
                move = _rollout_moves(information, agents, standard)
                if self._stop is None:
                    state.apply_action(seat, int(action))
                    while not _ended(state):
                        p = state.current_player()
                        state.apply_action(p, move(state, p))
                    out[k, j] = information.value(state)[seat]
                    continue
                marker = state.horizon_marker(self._stop)
                state.apply_action(seat, int(action))
                credit = state.horizon_value(self._stop, marker)
                while credit is None and not _ended(state):
                    p = state.current_player()
                    state.apply_action(p, move(state, p))
                    credit = state.horizon_value(self._stop, marker)
                out[k, j] = (information.value(state) if credit is None else credit)[seat]  # ended unclaimed: the game's value
        return out


def _rollout_moves(information: InformationSet, agents: list[Agent], standard: bool) -> Callable[[Any, int], int]:
    """``move(state, p)``: seat ``p``'s rollout action, ``agents[p].act`` on ``information.observe(state, p)``,
    or ``agents[p].act_game(state, p)`` (the same action, read from the game) when the observation is the
    standard one and the agent has it."""
    fast = [getattr(a, "act_game", None) if standard else None for a in agents]
    # an agent that reads only the mask (random) gets the engine's mask, which is the mask of every
    # observe (``InformationSet.observe``): the same action, without encoding an observation
    mask_only = [bool(getattr(a, "reads_mask_only", False)) for a in agents]

    def move(state: Any, p: int) -> int:
        f = fast[p]
        if f is not None:
            return f(state, p)
        if mask_only[p]:
            return agents[p].act(None, state.legal_action_mask(p))
        obs, mask = information.observe(state, p)
        return agents[p].act(obs, mask)

    return move


BELIEF_TRIES = 32
"""With ``belief``: determinizations drawn per sample before a uniform one is kept."""
_BELIEF_GAMES = ("fifth_earth",)
"""Games whose engines can wind a face-down lay back (``hidden_lays`` / ``before_lay`` / ``redo_lay``)."""

_GENERIC_HORIZONS: dict[str, tuple[str, ...]] = {"fifth_earth": ("destination",)}
"""Horizons short of the game's end that a game's engine supports in the per-game rollouts
(``horizon_marker(h)`` before the action, then ``horizon_value(h, marker)``: None until the segment
ends, then the per-seat credit of that segment)."""


def _ended(state: SearchableGame) -> bool:
    """A rollout stops at the end of the game for any reason: engines that can be cut short by a
    step limit (Brawl) keep ``is_terminal()`` for an end by the rules and say ``is_over()`` for both."""
    is_over = getattr(state, "is_over", None)
    return bool(is_over()) if is_over is not None else state.is_terminal()


class BatchedRollouts:
    """A game's batched rollouts: all ``K x |legal|`` rollouts of one decision in one batch."""

    def can_play(self, dets: list[SearchableGame], seat: int) -> bool:
        raise NotImplementedError

    def values(self, dets: list[SearchableGame], seat: int, legal: np.ndarray, seeds: np.ndarray) -> np.ndarray:
        """(K, |legal|) rollout values of ``seat`` (win credit)."""
        raise NotImplementedError


def _batched_backend(game: str, rollout: str, horizon: str = "game", tail: str | None = None) -> BatchedRollouts | None:
    if game == "fight5":
        from fight_envs.agents.search_fight5 import Fight5BatchedRollouts

        return Fight5BatchedRollouts.for_rollout(rollout, horizon, tail)
    return None


def make_search_agent(game: str, seed: int | None = None, options: str = "") -> SearchAgent:
    """The ``search`` agent of ``game`` from a spec's option text (``"sims=200,rollout=greedy"``)."""
    return SearchAgent(game, seed=seed, **parse_search_options(options))
