"""OccuGender end to end on the real embedded model: ``gasp run occugender --quick -m
embedded`` (six jobs, both templates, no debiasing prompt; scores are deterministic) and
its report in a headless Chromium with no console error."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from gasp.cli import main
from gasp.results import AuditResults

CHROMIUM = os.environ.get("GASP_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("GASP_CHROMEDRIVER", "/usr/bin/chromedriver")


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
    assert results.meta["approximate"] is False and results.settings["mode"] == "raw"
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
    webdriver = pytest.importorskip("selenium.webdriver")
    if not (Path(CHROMIUM).is_file() and Path(CHROMEDRIVER).is_file()):
        pytest.skip("chromium and chromedriver are not installed")
    from selenium.webdriver.chrome.service import Service

    profile = tmp_path_factory.mktemp("chromium-profile")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--window-size=1280,1600",
        f"--user-data-dir={profile}",
    ):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    drv = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    try:
        yield drv
    finally:
        drv.quit()


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
    severe = [e for e in driver.get_log("browser") if e.get("level") == "SEVERE"]  # type: ignore[attr-defined]
    assert severe == []
