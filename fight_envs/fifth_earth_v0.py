"""Fifth-Earth battles environments, PettingZoo-style import path: ``from fight_envs import fifth_earth_v0``.

``fifth_earth_v0.env(...)`` (AEC, wrapped) and ``fifth_earth_v0.raw_env`` (AEC, raises on
illegal actions). There is no parallel form (every decision depends on the previous one); the
documentation card is ``fight_envs.envs.fifth_earth``'s docstring.
"""

from fight_envs.envs.fifth_earth import ENV_OPTIONS, env, raw_env

__all__ = ["ENV_OPTIONS", "env", "raw_env"]
