"""Fight Klub TCG environments, PettingZoo-style import path: ``from fight_envs import fight_klub_v0``.

``fight_klub_v0.env(...)`` (AEC, wrapped) and ``fight_klub_v0.raw_env`` (AEC, raises on illegal
actions). No parallel form: the game never has both players choose at once. The documentation
card is ``fight_envs.envs.fight_klub``'s docstring.
"""

from fight_envs.envs.fight_klub import ENV_OPTIONS, env, raw_env

__all__ = ["ENV_OPTIONS", "env", "raw_env"]
