"""Headless Chromium for the report tests: Debian's chromium and chromedriver driven
through Selenium (nothing is downloaded). Tests that need them skip where they are absent."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = os.environ.get("GASP_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("GASP_CHROMEDRIVER", "/usr/bin/chromedriver")

#: Chromium's flags: headless, no sandbox (root in CI), and no background connections
#: (the machine has no network).
ARGUMENTS = (
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--window-size=1280,1600",
)


def require_chromium(*, module_level: bool = False) -> Any:
    """Selenium's ``webdriver`` module; skips the test (or, with ``module_level``, the
    module) where selenium, Chromium or its driver is missing."""
    webdriver = pytest.importorskip("selenium.webdriver")
    if not (Path(CHROMIUM).is_file() and Path(CHROMEDRIVER).is_file()):
        pytest.skip("chromium and chromedriver are not installed", allow_module_level=module_level)
    return webdriver


@contextlib.contextmanager
def chromium(profile: Path) -> Iterator[Any]:
    """A headless Chromium with a fresh profile in ``profile``, its console log kept."""
    webdriver = require_chromium()
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in (*ARGUMENTS, f"--user-data-dir={profile}"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    try:
        yield driver
    finally:
        driver.quit()


def severe_console_entries(driver: Any) -> list[dict[str, Any]]:
    """The SEVERE entries of the browser's console log (errors) since the last read."""
    return [e for e in driver.get_log("browser") if e.get("level") == "SEVERE"]
