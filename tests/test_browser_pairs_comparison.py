"""The pronoun-pair reports in headless Chromium at 1280 px: the comparison's McNemar tables
are whole (no scroll box, no sideways scrolling) with every p-value on screen beside long
model labels, and the text viewer of both studies speaks of their own texts."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from _browser import chromium, require_chromium, severe_console_entries
from _pairs_runs import compared_runs
from gasp.backends import GenerationRequest, MockBackend
from gasp.runner import RunOptions, generate
from gasp.studies import get_study_type

pytestmark = pytest.mark.browser

require_chromium(module_level=True)

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support import expected_conditions as ec  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

#: Words of the word-based studies' viewer that must not appear in these reports' viewer.
FOREIGN = ("containing the word", "highlighted", "associated gender", "gender not named")


@pytest.fixture(scope="module")
def driver(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    with chromium(tmp_path_factory.mktemp("chromium-profile")) as drv:
        drv.set_window_size(1280, 1000)
        yield drv


@pytest.fixture(scope="module")
def compared(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return compared_runs(tmp_path_factory.mktemp("pairs-comparison"))


def test_mcnemar_tables_fit_1280_px(driver: Any, compared: dict[str, Any]) -> None:
    driver.get(compared["report"].as_uri())
    assert driver.execute_script("return window.innerWidth;") == 1280
    width = driver.execute_script("return document.documentElement.clientWidth;")
    tables = driver.find_elements(By.CSS_SELECTOR, "table.grouped")
    assert len(tables) == 4  # over all templates, then one per pair of runs
    for table in tables:
        wrap = table.find_element(By.XPATH, "..")
        sizes = driver.execute_script(
            "var w = arguments[0]; return [w.scrollWidth, w.clientWidth, w.scrollHeight, "
            "w.clientHeight];",
            wrap,
        )
        assert sizes[0] <= sizes[1], "the table scrolls sideways"
        assert sizes[2] <= sizes[3] + 1, "the table sits in a scroll box"
        heads = [th.text for th in table.find_elements(By.CSS_SELECTOR, "thead th")]
        column = heads.index("p-value")
        cells = table.find_elements(By.CSS_SELECTOR, f"tbody tr td:nth-child({column + 1})")
        p_values = [c for c in cells if c.get_attribute("colspan") is None]
        assert p_values
        for cell in [table.find_elements(By.CSS_SELECTOR, "thead th")[column], *p_values]:
            right = driver.execute_script(
                "return arguments[0].getBoundingClientRect().right;", cell
            )
            assert right <= width, (cell.text, right, width)
    # No number is a button here, and the page does not claim otherwise.
    assert driver.find_elements(By.CSS_SELECTOR, "button.w") == []
    about = driver.find_element(By.ID, "about-this-report").text
    assert "buttons" not in about and "holds no texts" in about
    manifests = driver.find_element(By.ID, "run-manifests")
    assert len(manifests.find_elements(By.CSS_SELECTOR, "h3")) == 4  # three runs + settings
    assert "No run manifest" not in manifests.text
    assert severe_console_entries(driver) == []


def _story(request: GenerationRequest) -> str:
    return "Elena opened the door. She smiled."


@pytest.mark.parametrize(
    ("study", "key", "title", "meta"),
    [
        ("pronoun-pairs", "template · late · incorrect", "Texts behind", "pronoun: "),
        ("narratives", "nurse · once · stories", "Stories behind", "opening: once"),
    ],
)
def test_the_viewer_speaks_of_the_study_s_texts(
    driver: Any,
    compared: dict[str, Any],
    tmp_path: Path,
    study: str,
    key: str,
    title: str,
    meta: str,
) -> None:
    kind = get_study_type(study)
    if study == "pronoun-pairs":
        results = compared["runs"][2]
    else:
        store = tmp_path / "stories.sqlite"
        options = {"occupations": "nurse,roofer", "n": 2, "templates": "once"}
        generate(kind.build(study, options), MockBackend(_story), store, RunOptions(progress=False))
        kind.analyze(store, tmp_path / "results", {"bootstrap": 20})
        results = tmp_path / "results"
    page = kind.report(results, tmp_path / "report", {})
    driver.get(page.as_uri())
    assert not driver.find_element(By.CSS_SELECTOR, "div.lookup").is_displayed()
    button = driver.find_element(By.CSS_SELECTOR, f'button.w[data-word="{key}"]')
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", button)
    button.click()
    panel = WebDriverWait(driver, 10).until(ec.visibility_of_element_located((By.ID, "examples")))
    lines = [e.text for e in panel.find_elements(By.CSS_SELECTOR, ".ex-meta")]
    shown = " ".join([driver.find_element(By.ID, "ex-title").text, panel.text])
    assert driver.find_element(By.ID, "ex-title").text.startswith(title)
    assert lines and all(meta in line for line in lines), lines
    for foreign in FOREIGN:
        assert foreign not in shown.lower(), foreign
    assert severe_console_entries(driver) == []
