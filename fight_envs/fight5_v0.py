"""Fight 5 environments, PettingZoo-style import path: ``from fight_envs import fight5_v0``.

``fight5_v0.env(...)`` (AEC, wrapped), ``fight5_v0.raw_env`` (AEC, raises on illegal actions),
``fight5_v0.parallel_env(...)`` and ``fight5_v0.parallel_raw_env``. The documentation card is
``fight_envs.envs.fight5``'s docstring.
"""

from fight_envs.envs.fight5 import ENV_OPTIONS, env, parallel_env, parallel_raw_env, raw_env

__all__ = ["ENV_OPTIONS", "env", "parallel_env", "parallel_raw_env", "raw_env"]
