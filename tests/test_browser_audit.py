"""The audit's scorecard page in a real browser at 1280 px: it renders with no console
error, shows each difference to the baseline with its interval and q, says "not tested"
where nothing was tested, the forest plot fits the page, and every link points to a file
that exists. Skipped where Chromium is absent."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from _browser import chromium, require_chromium, severe_console_entries
from _cli import gasp_exit_code

pytestmark = pytest.mark.browser

require_chromium(module_level=True)


def test_the_scorecard_page_renders_without_console_errors_and_links_resolve(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    out = tmp_path / "audit"
    code = gasp_exit_code(
        monkeypatch, "audit", "--quick", "-m", "good=mock/personas", "-m", "bad=mock/echo",
        "--baseline", "good", "--studies", "pronoun-pairs,narratives",
        "--study-option", "pronoun-pairs:pairs=8", "--out", str(out),
    )  # fmt: skip
    capsys.readouterr()
    assert code == 0
    index = out / "index.html"
    with chromium(tmp_path / "profile") as driver:
        driver.get(index.as_uri())
        assert driver.title == "gasp audit scorecard"
        assert driver.execute_script("return window.innerWidth") == 1280
        body = driver.find_element("tag name", "body").text
        assert "WORSE" in body and "no difference" in body
        # the difference to the baseline with its interval and q, in the metric's unit
        assert re.search(r"vs baseline: value [+-][0-9.e-]+ \[[^]]+\] share, q = ", body)
        # the echo model names no protagonist: its named share is not tested, not a number
        assert "not tested" in body
        assert "nan" not in body.lower().split() and "excluded nan" not in body
        assert "Sizes that ran: good: " in body
        images = driver.execute_script(
            "return Array.from(document.images).map(i => [i.complete && i.naturalWidth > 0,"
            " i.getBoundingClientRect().right <= document.documentElement.clientWidth])"
        )
        assert images and all(ok and inside for ok, inside in images)  # the forest plot
        hrefs = driver.execute_script(
            "return Array.from(document.querySelectorAll('main a')).map(a => a.href)"
        )
        assert severe_console_entries(driver) == []
    local = [h for h in hrefs if h.startswith("file://")]
    assert len(local) >= 2 * 7  # every cell of both models links its report
    for href in local:
        path = Path(re.sub(r"^file://", "", href).split("#")[0])
        assert path.is_file(), href


def test_the_tour_page_of_one_model_renders_without_console_errors(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    out = tmp_path / "tour"
    code = gasp_exit_code(
        monkeypatch, "tour", "-m", "mock/personas", "--study", "pronoun-pairs",
        "--study", "narratives", "--out", str(out),
    )  # fmt: skip
    capsys.readouterr()
    assert code == 0
    with chromium(tmp_path / "profile") as driver:
        driver.get((out / "index.html").as_uri())
        assert driver.title == "gasp audit scorecard"
        body = driver.find_element("tag name", "body").text
        assert "One model" in body and "mock-personas" in body and "WORSE" not in body
        hrefs = driver.execute_script(
            "return Array.from(document.querySelectorAll('main a')).map(a => a.href)"
        )
        assert severe_console_entries(driver) == []
    local = [h for h in hrefs if h.startswith("file://")]
    assert len(local) == 6  # one cell per headline metric of the two studies
    for href in local:
        path = Path(re.sub(r"^file://", "", href).split("#")[0])
        assert path.is_file(), href
