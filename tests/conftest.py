"""Shared fixtures: the Hypothesis profile, and a begun skirmish session (builders: tests/builders.py)."""

from __future__ import annotations

import pytest
from hypothesis import settings

# Nothing random without a seed: Hypothesis draws from a fixed seed, so every run
# (here and in CI) tries the same examples. Set HYPOTHESIS_PROFILE=explore to vary them.
settings.register_profile("repeatable", derandomize=True, database=None)
settings.register_profile("explore", max_examples=500)
settings.load_profile(__import__("os").environ.get("HYPOTHESIS_PROFILE", "repeatable"))

from combatlog.engine import Session  # noqa: E402  (after the profile: Hypothesis reads it at import)
from tests.builders import new_session  # noqa: E402


@pytest.fixture
def session() -> Session:
    return new_session(begin=True)
