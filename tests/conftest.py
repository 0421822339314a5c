"""Suite-wide pytest configuration: the Hypothesis profiles every property test runs under.

Pick one with ``HYPOTHESIS_PROFILE=<name>``:

* ``default``: no per-example deadline (a game step's time depends on the machine and on what
  else runs on it, so deadlines only make the suite flaky). Example counts are set per test;
  long searches are separate tests marked ``slow``.
* ``ci``: the same, derandomized, so every CI run explores the same examples.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

settings.register_profile("default", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("ci", parent=settings.get_profile("default"), derandomize=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))
