"""The Marked Personas report of a ``gasp run --quick`` in headless Chromium: no console
error, every figure loads, words open their texts."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

pytestmark = pytest.mark.browser

CHROMIUM = os.environ.get("GASP_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("GASP_CHROMEDRIVER", "/usr/bin/chromedriver")

webdriver = pytest.importorskip("selenium.webdriver")
if not (Path(CHROMIUM).is_file() and Path(CHROMEDRIVER).is_file()):
    pytest.skip("chromium and chromedriver are not installed", allow_module_level=True)

from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support import expected_conditions as ec  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

from gasp.cli import app  # noqa: E402


@pytest.fixture(scope="module")
def report_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("mp-browser") / "run"
    result = CliRunner().invoke(
        app, ["run", "marked-personas", "-m", "mock/personas", "--quick", "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    return out / "report" / "report.html"


@pytest.fixture(scope="module")
def driver(tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--no-first-run",
        "--window-size=1280,1600",
        f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}",
    ):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    drv = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    try:
        yield drv
    finally:
        drv.quit()


def test_marked_personas_report_in_chromium(driver: object, report_path: Path) -> None:
    drv = driver
    drv.get(report_path.as_uri())  # type: ignore[attr-defined]
    wait = WebDriverWait(drv, 10)
    wait.until(ec.presence_of_element_located((By.CSS_SELECTOR, "button.w")))
    images = drv.find_elements(By.CSS_SELECTOR, "figure img, img")  # type: ignore[attr-defined]
    assert len(images) >= 10
    assert all(drv.execute_script("return arguments[0].naturalWidth > 0;", i) for i in images)  # type: ignore[attr-defined]
    button = drv.find_element(By.CSS_SELECTOR, "#table-persona_word_table button.w")  # type: ignore[attr-defined]
    word = button.get_attribute("data-word")
    drv.execute_script("arguments[0].scrollIntoView();", button)  # type: ignore[attr-defined]
    button.click()
    panel = wait.until(ec.visibility_of_element_located((By.ID, "examples")))
    assert word in panel.find_element(By.ID, "ex-title").text
    assert panel.find_elements(By.CSS_SELECTOR, "#ex-list li")
    severe = [e for e in drv.get_log("browser") if e.get("level") == "SEVERE"]  # type: ignore[attr-defined]
    assert severe == []
