"""Shared fixtures: the location of ../shared/data and skips where it is absent; test order."""

from __future__ import annotations

from pathlib import Path

import pytest

SHARED_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The directory ../shared/data beside the project; skips the test where it is absent."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"shared reference data not found at {SHARED_DATA}")
    return SHARED_DATA


@pytest.fixture(scope="session", autouse=True)
def _weight_cache_in_tmp(tmp_path_factory: pytest.TempPathFactory) -> None:
    """The embedded model's weight cache goes to a folder of this test session, never ~/.cache.

    Under pytest-xdist the workers share one folder (beside their own temporary roots),
    so the embedded model is converted once per test session rather than once per worker;
    concurrent first starts of the cache are safe (each converts, one intact entry stays).
    """
    import os

    if os.environ.get("PYTEST_XDIST_WORKER"):
        shared = tmp_path_factory.getbasetemp().parent / "gasp-cache"
        shared.mkdir(exist_ok=True)
        os.environ["GASP_CACHE_DIR"] = str(shared)
    else:
        os.environ["GASP_CACHE_DIR"] = str(tmp_path_factory.mktemp("gasp-cache"))


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The vLLM tests first, in their own order; the rest keep theirs.

    Under ``-n auto --dist loadfile`` one worker then spends the vLLM module's minutes
    (one server, started once) while the others run everything else, instead of the
    module starting last and leaving the other workers idle.
    """
    items.sort(key=lambda item: item.get_closest_marker("vllm") is None)
