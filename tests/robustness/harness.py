"""The robustness corpus's judge: run one bad input, classify what happened, check the state after.

Every case is a callable that hands the suite one bad input. The outcome is one of

* ``refused``: a ``ValueError`` (every fight-envs error family subclasses it: ``FightEnvsError``,
  ``CheckpointError``, ``RLlibCheckpointError``) or ``FileNotFoundError``, whose message names
  what was wrong (the case's ``names``, when it gives them) and says what is allowed (one of
  ``ALLOWED_MARKERS``);
* ``raw``: any other exception (a raw traceback: TypeError, AttributeError, RecursionError,
  OverflowError, UnpicklingError...);
* ``accepted``: no exception at all (a silent acceptance);
* ``vague``: a refusal whose message does not name the problem or what is allowed.

A case may also have ``after``: a check run once the input was refused (for envs: the game in
progress is unchanged, plays on to its end and its record replays), which fails as ``corrupted``.
"""

from __future__ import annotations

import re
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

ALLOWED_MARKERS = re.compile(
    r"must|allowed|expected|one of|only|needs?\b|at most|at least|\.\.|>=|<=|not a\b|lacks|legal actions|"
    r"trust|legal|replay|is not|are not|cannot|no such|does not|differ|unknown|valid|refus|not valid|too|missing|"
    r"should|requires?|give|takes?|pass\b|exactly|between|no [a-z]|each \w+ is",
    re.IGNORECASE,
)


@dataclass
class Case:
    category: str
    game: str
    name: str
    run: Callable[[], Any]
    names: Sequence[str] = ()
    """Substrings, at least one of which the refusal must contain (what was wrong); empty: any."""
    after: Callable[[], None] | None = None
    """Run after a refusal: raises AssertionError if the object under test was left corrupted."""
    may_accept: bool = False
    """An input that is odd but valid (e.g. 4,000 dice of valid faces): acceptance is fine, a crash is not."""


@dataclass
class Outcome:
    case: Case
    kind: str  # refused | raw | accepted | vague | corrupted | ok (may_accept and accepted)
    detail: str = ""


@dataclass
class Report:
    outcomes: list[Outcome] = field(default_factory=list)

    def count(self, kind: str) -> int:
        return sum(o.kind == kind for o in self.outcomes)

    def failures(self) -> list[Outcome]:
        return [o for o in self.outcomes if o.kind not in ("refused", "ok")]

    def summary(self) -> str:
        kinds = ("refused", "ok", "raw", "accepted", "vague", "corrupted")
        return ", ".join(f"{k} {self.count(k)}" for k in kinds)


def judge(case: Case) -> Outcome:
    try:
        case.run()
    except (ValueError, FileNotFoundError) as exc:
        message = str(exc)
        if not message.strip():
            return Outcome(case, "vague", f"{type(exc).__name__} with an empty message")
        if case.names and not any(n.lower() in message.lower() for n in case.names):
            return Outcome(case, "vague", f"does not name any of {list(case.names)}: {message[:300]}")
        if not ALLOWED_MARKERS.search(message):
            return Outcome(case, "vague", f"does not say what is allowed: {message[:300]}")
        if case.after is not None:
            try:
                case.after()
            except Exception as after_exc:  # noqa: BLE001 - any failure here is a corrupted state
                return Outcome(case, "corrupted", f"after refusing ({message[:120]}): {type(after_exc).__name__}: "
                                                  f"{after_exc}\n{traceback.format_exc(limit=4)}")
        return Outcome(case, "refused", message[:300])
    except RecursionError as exc:
        return Outcome(case, "raw", f"RecursionError: {str(exc)[:200]}")
    except Exception as exc:  # noqa: BLE001 - the point: anything else is a raw traceback
        return Outcome(case, "raw", f"{type(exc).__name__}: {str(exc)[:300]}\n{traceback.format_exc(limit=6)}")
    if case.may_accept:  # a valid input (``after`` checks refusals: an accepted reset starts a new game)
        return Outcome(case, "ok", "accepted (allowed for this case)")
    return Outcome(case, "accepted", "no error raised")


def run_all(cases: Sequence[Case]) -> Report:
    return Report([judge(c) for c in cases])


def describe(outcomes: Sequence[Outcome], limit: int = 60) -> str:
    lines = [f"[{o.kind}] {o.case.category}/{o.case.game}/{o.case.name}: {o.detail.splitlines()[0] if o.detail else ''}"
             for o in outcomes[:limit]]
    if len(outcomes) > limit:
        lines.append(f"... and {len(outcomes) - limit} more")
    return "\n".join(lines)


# ----------------------------------------------------------------------------- env helpers
def legal_actions(mask: np.ndarray) -> list[int]:
    return [int(a) for a in np.flatnonzero(np.asarray(mask))]


def play_out(env: Any, rng: np.random.Generator, max_steps: int = 20_000) -> None:
    """Play an AEC raw env to its end with random legal actions."""
    for _ in range(max_steps):
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            env.step(None)
            if not env.agents:
                return
            continue
        legal = legal_actions(env.observe(agent)["action_mask"])
        env.step(int(rng.choice(legal)))
        if not env.agents:
            return
    raise AssertionError(f"the game did not end within {max_steps} steps")
