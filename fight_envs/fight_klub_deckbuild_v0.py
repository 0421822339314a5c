"""Fight Klub deck building, PettingZoo-style import path: ``from fight_envs import fight_klub_deckbuild_v0``.

``fight_klub_deckbuild_v0.env(...)`` (AEC, wrapped) and ``fight_klub_deckbuild_v0.raw_env``: one
agent builds a legal deck card by card and is rewarded by its win rate in battles. The
documentation card is ``fight_envs.envs.fight_klub_deckbuild``'s docstring.
"""

from fight_envs.envs.fight_klub_deckbuild import ENV_OPTIONS, env, raw_env

__all__ = ["ENV_OPTIONS", "env", "raw_env"]
