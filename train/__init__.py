"""Self-play training of the suite's agents with sb3-contrib's MaskablePPO (the ``train`` extra).

Entry points: ``fight_envs.train.config.load_config(path, overrides)`` builds a run's config from YAML and
``key=value`` overrides; ``fight_envs.train.selfplay.train_main(config)`` trains or resumes and returns the
run directory. The command line (``fight-envs train``) calls these two. Nothing is imported
here, so ``import train`` does not pull in torch.
"""
