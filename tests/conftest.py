"""Shared fixtures: where the test output goes, and the Chromium that build.py found or installed."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session")
def test_output() -> Path:
    """Screenshots and other artefacts a person should look at after a run."""
    out = Path(os.environ.get("LAB_TEST_OUTPUT", ROOT / "test-output"))
    out.mkdir(parents=True, exist_ok=True)
    return out
