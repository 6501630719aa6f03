"""The report in a real browser: no console errors, words open their generations, no injection.

Drives Debian's headless Chromium through Selenium and /usr/bin/chromedriver (nothing
is downloaded). Skipped where either is absent.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from _browser import chromium, require_chromium, severe_console_entries

pytestmark = pytest.mark.browser


require_chromium(module_level=True)

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support import expected_conditions as ec  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

from gasp.studies.more_of_the_same.report import render_audit_report  # noqa: E402
from test_report_html import (  # noqa: E402
    IMG_TEXT,
    SCRIPT_TEXT,
    make_results,
    make_samples,
    with_examples,
)


@pytest.fixture(scope="module")
def report_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("browser-report")
    samples = make_samples()
    # Many generations for one word, to exercise paging.
    extra = samples.iloc[[0] * 30].copy()
    extra["text"] = [f"She writes empathy note {i}." for i in range(30)]
    extra["sample_index"] = range(1000, 1030)
    import pandas as pd

    manifest = {"run_id": "browser", "model": "mock/echo", "seed": 0}
    results = with_examples(make_results(), pd.concat([samples, extra]))
    return render_audit_report(results, out, manifest=manifest)


@pytest.fixture(scope="module")
def driver(tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    with chromium(tmp_path_factory.mktemp("chromium-profile")) as drv:
        yield drv


def test_report_in_chromium(driver: object, report_path: Path) -> None:
    drv = driver
    drv.get(report_path.as_uri())  # type: ignore[attr-defined]
    wait = WebDriverWait(drv, 10)
    wait.until(ec.presence_of_element_located((By.CSS_SELECTOR, "button.w")))
    shot = Path(os.environ.get("GASP_SCREENSHOT_DIR", report_path.parent)) / "report.png"
    assert drv.save_screenshot(str(shot))  # type: ignore[attr-defined]
    assert shot.stat().st_size > 10_000

    # Click a word in a table: its generations appear, highlighted, paged 10 at a time.
    button = drv.find_element(By.CSS_SELECTOR, 'button.w[data-word="empathy"]')  # type: ignore[attr-defined]
    drv.execute_script("arguments[0].scrollIntoView();", button)  # type: ignore[attr-defined]
    button.click()
    panel = wait.until(ec.visibility_of_element_located((By.ID, "examples")))
    assert "empathy" in panel.find_element(By.ID, "ex-title").text
    tabs = panel.find_elements(By.CSS_SELECTOR, "#ex-tabs button")
    labels = [t.text for t in tabs]
    assert any(label.startswith("associated women") for label in labels), labels
    assert any(label.startswith("named women") for label in labels), labels
    items = panel.find_elements(By.CSS_SELECTOR, "#ex-list li")
    assert len(items) == 10
    marks = panel.find_elements(By.CSS_SELECTOR, "#ex-list mark")
    assert marks and all(m.text.lower().startswith("empathy") for m in marks)
    panel.find_element(By.CSS_SELECTOR, "#ex-pager .ex-next").click()
    assert "page 2" in panel.find_element(By.ID, "ex-pager").text
    drv.save_screenshot(str(shot.with_name("report-examples.png")))  # type: ignore[attr-defined]

    # The injected generations show as text (every example tab, every page) and never run.
    shown: list[str] = []
    n_tabs = len(panel.find_elements(By.CSS_SELECTOR, "#ex-tabs button"))
    for i in range(n_tabs):  # the tabs are rebuilt on every click: find them afresh
        panel.find_elements(By.CSS_SELECTOR, "#ex-tabs button")[i].click()
        while True:
            shown += [e.text for e in panel.find_elements(By.CSS_SELECTOR, ".ex-text")]
            nxt = panel.find_elements(By.CSS_SELECTOR, "#ex-pager .ex-next")
            if not nxt or not nxt[0].is_enabled():
                break
            nxt[0].click()
    assert SCRIPT_TEXT in shown
    assert IMG_TEXT in shown
    assert not panel.find_elements(By.CSS_SELECTOR, "#ex-list script, #ex-list img")
    assert drv.execute_script("return window.__pwned === undefined;")  # type: ignore[attr-defined]

    # Looking a word up by typing it works too; an unknown word says so.
    drv.find_element(By.ID, "word-lookup").send_keys("nosuchword\n")  # type: ignore[attr-defined]
    assert "No example generations" in panel.find_element(By.ID, "ex-summary").text
    assert severe_console_entries(drv) == []
