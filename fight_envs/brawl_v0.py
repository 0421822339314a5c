"""Brawl environments, PettingZoo-style import path: ``from fight_envs import brawl_v0``.

``brawl_v0.env(...)`` (AEC, wrapped), ``brawl_v0.raw_env`` (AEC, raises on illegal actions),
``brawl_v0.parallel_env(...)`` and ``brawl_v0.parallel_raw_env`` (a conversion: only the
deciding fighter's action is applied). The documentation card is ``fight_envs.envs.brawl``'s
docstring.
"""

from fight_envs.envs.brawl import ENV_OPTIONS, env, parallel_env, parallel_raw_env, raw_env

__all__ = ["ENV_OPTIONS", "env", "parallel_env", "parallel_raw_env", "raw_env"]
