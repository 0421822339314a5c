"""The RLlib tests need the ``rllib`` extra (``pip install -e ".[rllib]"``, which CI installs);
without Ray they are skipped, with the reason, instead of failing at import."""

from __future__ import annotations

import os

import pytest

pytest.importorskip("ray.rllib", reason="needs Ray RLlib: pip install -e '.[rllib]'")
os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
