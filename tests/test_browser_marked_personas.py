"""The Marked Personas report of a ``gasp run --quick`` in headless Chromium: no console
error, every figure loads, words open their texts."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from _browser import chromium, require_chromium, severe_console_entries

pytestmark = pytest.mark.browser


require_chromium(module_level=True)

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
    with chromium(tmp_path_factory.mktemp("chromium-profile")) as drv:
        yield drv


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
    severe = severe_console_entries(drv)
    assert severe == []
