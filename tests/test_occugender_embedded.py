"""OccuGender end to end on the real embedded model: ``gasp run occugender --quick -m
embedded`` (six jobs, both templates, no debiasing prompt; scores are deterministic) and
its report in a headless Chromium with no console error."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from _browser import chromium, severe_console_entries
from gasp.cli import main
from gasp.results import AuditResults


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pytest.importorskip("torch")
    out = tmp_path_factory.mktemp("occugender") / "quick"
    argv = sys.argv
    sys.argv = ["gasp", "run", "occugender", "--quick", "-m", "embedded", "--out", str(out)]
    try:
        main()
    except SystemExit as exc:
        assert not exc.code, f"gasp run exited with {exc.code}"
    finally:
        sys.argv = argv
    return out


@pytest.mark.slow
def test_quick_run_on_the_embedded_model(quick_run: Path) -> None:
    results = AuditResults.load(quick_run / "results")
    # --quick asks in the chat form, where SmolLM2 puts more of its mass on the expressions
    assert results.meta["approximate"] is False and results.settings["mode"] == "chat"
    table2 = results["table2"].set_index(["task", "group"])
    assert ((table2[["M", "F", "D"]].sum(axis=1) - 100).abs() < 0.1).all()
    assert (table2["coverage"] > 0).all() and (table2["coverage"] <= 1.0 + 1e-6).all()
    # The implicit task separates the groups on SmolLM2 (deterministic scores).
    assert table2.loc[("implicit", "female-dominated"), "F"] > 50
    assert table2.loc[("implicit", "male-dominated"), "M"] > 50
    mass = results["expressions"]
    assert (mass[mass["expression"] == "Non-binary"]["status"] == "scored").all()
    assert (quick_run / "report" / "report.html").is_file()


@pytest.fixture(scope="module")
def driver(tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    with chromium(tmp_path_factory.mktemp("chromium-profile")) as drv:
        yield drv


@pytest.mark.slow
@pytest.mark.browser
def test_quick_report_renders_in_chromium_without_console_errors(
    quick_run: Path, driver: object
) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ec
    from selenium.webdriver.support.ui import WebDriverWait

    page = quick_run / "report" / "report.html"
    driver.get(page.as_uri())  # type: ignore[attr-defined]
    WebDriverWait(driver, 10).until(ec.presence_of_element_located((By.CSS_SELECTOR, "table")))
    titles = [h.text for h in driver.find_elements(By.CSS_SELECTOR, "h2")]  # type: ignore[attr-defined]
    assert any("Table 2" in t for t in titles), titles
    images = driver.find_elements(By.CSS_SELECTOR, "figure img")  # type: ignore[attr-defined]
    assert images and all(
        driver.execute_script("return arguments[0].naturalWidth > 0;", img)  # type: ignore[attr-defined]
        for img in images
    )
    severe = severe_console_entries(driver)
    assert severe == []
