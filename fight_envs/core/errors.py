"""The suite's exception types, so callers can catch one family and messages stay uniform.

Every error names what was wrong and what is allowed. All subclass ``ValueError`` because they
report a bad value handed in by the caller (an action, an option, a data file, a record).
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Mapping


class FightEnvsError(ValueError):
    """Base class of every error raised by fight-envs for bad input."""


class IllegalActionError(FightEnvsError):
    """An action outside the acting player's legal set. The game state is left unchanged."""


class ConfigError(FightEnvsError):
    """An unknown or out-of-range environment option."""


class DealError(FightEnvsError):
    """A fixed deal passed through ``reset(options=...)`` that does not match the card data."""


class CardDataError(FightEnvsError):
    """A malformed card-data file."""


class RecordError(FightEnvsError):
    """A game record (JSON) that cannot be replayed."""


def check_options(given: Iterable[str], allowed: Iterable[str], what: str, warn_only: bool = False) -> None:
    """Raise ConfigError naming every unknown key in ``given`` and the allowed ones.

    ``warn_only`` issues a UserWarning instead: reset options use it, because PettingZoo's own
    ``api_test`` passes an arbitrary reset option and requires the env to accept it.
    """
    allowed_set = set(allowed)
    if not isinstance(given, Mapping):  # reset(options=5) or a list: name it rather than fail inside set()
        raise ConfigError(f"{what}s must be a dict of option names to values (or None), got {type(given).__name__} "
                          f"{given!r:.80}; allowed options: {', '.join(sorted(allowed_set))}")
    unknown = sorted(set(given) - allowed_set, key=repr)  # keys of mixed types sort too
    if unknown:
        message = f"unknown {what} {', '.join(map(repr, unknown))}; allowed: {', '.join(sorted(allowed_set))}"
        if warn_only:
            warnings.warn(message + " (ignored)", UserWarning, stacklevel=4)
        else:
            raise ConfigError(message)
