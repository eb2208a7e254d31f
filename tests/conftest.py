"""Shared fixtures: paths to the public benchmark data beside the repository."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared" / "data"
TINY = ROOT / "tests" / "data" / "tiny"


@pytest.fixture(scope="session")
def shared_data() -> Path:
    if not SHARED.is_dir():
        pytest.skip("../shared/data is not beside the repository")
    return SHARED
