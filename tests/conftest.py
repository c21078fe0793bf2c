from __future__ import annotations

import os
import sys

import pytest
from hypothesis import HealthCheck, settings

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

# Fuzzing profiles. "default" keeps CI short and repeatable (the same
# examples each run, a few hundred over the fuzz tests); a deeper search:
# `python -m pytest -m fuzz --hypothesis-profile=long`. The fuzz tests are
# marked `fuzz` and, like the `torch_run` and `cli` tests, left out of a plain
# `python -m pytest` (pyproject.toml's addopts); `-m "not slow"` runs them all.
_FUZZ = dict(
    deadline=None,  # rewriting time varies with machine load
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
    print_blob=True,
)
settings.register_profile("default", max_examples=80, derandomize=True, **_FUZZ)
settings.register_profile("long", max_examples=2000, **_FUZZ)
settings.load_profile("default")  # --hypothesis-profile, read later, wins


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--regen-golden",
        action="store_true",
        help="rewrite golden/*/*.out.py from the current rules (review the diff!)",
    )


@pytest.fixture
def regen_golden(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--regen-golden"))


@pytest.fixture(autouse=True)
def _no_result_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """No result cache unless a test asks for one (tests/test_cache.py): a test comparing two runs
    (one worker and two, with and without the screen) must see both analysed, and a test that
    changes a rule in process must not be answered from an earlier run. Its directory is a fresh
    one all the same."""
    monkeypatch.setenv("GBFIX_NO_CACHE", "1")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("cache")))
