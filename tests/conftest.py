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


CHROMIUM_ARGS = [
    # As root in a container, and with no network beyond the registries: no sandbox, no background traffic.
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage",
]


def chromium_executable() -> str | None:
    import shutil
    configured = os.environ.get("LAB_CHROMIUM")
    if configured:
        return configured
    return next(filter(None, (shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome"))), None)


@pytest.fixture(scope="session")
def browser():
    """One headless Debian Chromium for the session, driven by Playwright (its own download is unreachable)."""
    executable = chromium_executable()
    if not executable:
        pytest.skip("no Chromium: run the suite through `python3 build.py test`, which installs it")
    from playwright.sync_api import sync_playwright
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()
