"""``gasp view`` in a real headless Chromium: the index lists a tree of runs and audits
and its filters narrow it, an audit page shows its comparisons and forest plots, the
releases chart has one point per audit, a word opens its texts, hostile model texts
stay text, a generating run's progress advances on the page, and the exported site
opens from disk with the same content. Skipped where Chromium is absent."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from _browser import chromium, require_chromium, severe_console_entries
from _view_server import serving
from _view_tree import Tree, view_tree  # noqa: F401 (the fixture)
from gasp.viewing import export_site

pytestmark = pytest.mark.browser

require_chromium(module_level=True)

SRC = str(Path(__file__).resolve().parents[1] / "src")


@pytest.fixture(scope="module")
def address(view_tree: Tree) -> Iterator[str]:  # noqa: F811
    with serving([view_tree.root]) as url:
        yield url


@pytest.fixture(scope="module")
def driver(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    with chromium(tmp_path_factory.mktemp("profile")) as browser:
        yield browser


def _visible_rows(driver: Any, table: str) -> list[str]:
    return driver.execute_script(
        f"return Array.from(document.querySelectorAll('#{table} tbody tr'))"
        ".filter(r => !r.hidden).map(r => r.cells[1].textContent)"
    )


def _select(driver: Any, name: str, value: str) -> None:
    driver.execute_script(
        "const s = document.querySelector(`select[data-filter='${arguments[0]}']`);"
        "s.value = arguments[1]; s.dispatchEvent(new Event('change'));",
        name,
        value,
    )


def _key(driver: Any, text: str) -> str:
    """The page a link with ``text`` points to."""
    return driver.execute_script(
        "return Array.from(document.querySelectorAll('a'))"
        ".find(a => a.textContent === arguments[0]).getAttribute('href')",
        text,
    )


def test_the_index_lists_the_tree_and_filters_narrow_it(
    driver: Any,
    address: str,
    view_tree: Tree,  # noqa: F811
) -> None:
    driver.get(address)
    assert driver.title == "Runs and audits"
    rows = _visible_rows(driver, "listing")
    assert len(rows) == 3 + 12 + 3 + 2  # audits, their runs, three runs, two broken ones
    for name in ("releases/release-1", "releases/release-3", "occugender", "hostile"):
        assert any(r.startswith(name) for r in rows), name
    _select(driver, "study", "occugender")
    assert _visible_rows(driver, "listing") == ["occugender"]
    _select(driver, "study", "")
    _select(driver, "kind", "audit")
    assert sorted(_visible_rows(driver, "listing")) == [f"releases/release-{n}" for n in (1, 2, 3)]
    _select(driver, "kind", "")
    box = driver.find_element("css selector", "[data-search-box]")
    box.send_keys("broken")
    assert sorted(_visible_rows(driver, "listing")) == [
        "broken/half-written", "broken/truncated",
    ]  # fmt: skip
    errors = driver.execute_script(
        "return Array.from(document.querySelectorAll('#listing .error')).map(e => e.textContent)"
    )
    assert any("half-written" in e for e in errors)
    assert any("malformed" in e or "not a" in e for e in errors)
    assert severe_console_entries(driver) == []


def test_the_audit_page_shows_its_comparisons_and_forest_plots(driver: Any, address: str) -> None:
    driver.get(address)
    driver.get(address + _key(driver, "releases/release-1"))
    comparisons = driver.execute_script(
        "return Array.from(document.querySelectorAll('#comparisons tbody tr'))"
        ".map(r => Array.from(r.cells).map(c => c.textContent))"
    )
    assert len(comparisons) == 6  # two narratives and four pronoun-pair metrics, b vs a
    assert all(row[2] == "b vs a" for row in comparisons)
    metrics = {row[1] for row in comparisons}
    assert {"named_female_share", "incorrect", "u_share"} <= metrics
    assert any("[" in row[4] for row in comparisons)  # an interval
    plots = driver.execute_script("return document.querySelectorAll('.plot .main-svg').length")
    assert plots >= 1
    _select(driver, "study", "narratives")
    assert len(_visible_rows(driver, "comparisons")) == 2
    runs = driver.execute_script(
        "return Array.from(document.querySelectorAll('#comparisons a')).map(a => a.href)"
    )
    assert runs and all("/run-" in h for h in runs)
    assert severe_console_entries(driver) == []


def test_the_releases_chart_has_one_point_per_audit_in_time_order(
    driver: Any, address: str
) -> None:
    driver.get(address + "releases-narratives--named_female_share.html")
    traces = driver.execute_script(
        "return document.getElementById('releases').data.map(t => [t.meta, t.x, t.y])"
    )
    lines = {t[0]["model"]: t for t in traces if not t[0].get("tested")}
    assert set(lines) == {"a", "b", "mock/constant"}  # the hostile run is a narratives run too
    assert len(lines.pop("mock/constant")[1]) == 1
    for _, x, y in lines.values():
        assert len(x) == len(y) == 3
        assert [label.split(" ", 1)[1] for label in x] == [
            f"releases/release-{n}" for n in (1, 2, 3)
        ]
    driver.find_elements("css selector", "input[data-source]")[0].click()
    shorter = driver.execute_script(
        "return document.getElementById('releases').data.filter(t => !t.meta.tested)"
        ".map(t => [t.meta.model, t.x.length])"
    )
    assert sorted(shorter) == [["a", 2], ["b", 2], ["mock/constant", 1]]
    assert severe_console_entries(driver) == []


def test_a_word_opens_the_generations_that_use_it(driver: Any, address: str) -> None:
    driver.get(address)
    driver.get(address + _key(driver, "more-of-the-same"))
    link = driver.find_element("css selector", "ul.words a")
    word = link.text
    link.click()
    marks = driver.execute_script(
        "return Array.from(document.querySelectorAll('ol.texts mark')).map(m => m.textContent)"
    )
    texts = driver.find_elements("css selector", "ol.texts li")
    assert texts and marks
    assert all(m.lower().strip(".,;:!?'\"").startswith(word[:1]) for m in marks)
    assert all(word in "".join(ch for ch in m.lower() if ch.isalpha()) for m in marks)
    assert severe_console_entries(driver) == []


def test_hostile_model_texts_stay_text(driver: Any, address: str) -> None:
    driver.get(address)
    driver.get(address + _key(driver, "hostile"))
    driver.find_element("link text", "all stories").click()
    texts = driver.execute_script(
        "return Array.from(document.querySelectorAll('bdi.text')).map(b => b.textContent)"
    )
    assert texts and all("<script>window.pwned = 1</script>" in t for t in texts)
    assert all('onerror="window.pwned = 2"' in t and "\u202e" in t for t in texts)
    injected = driver.execute_script(
        "return [window.pwned === undefined, document.querySelectorAll('main script').length,"
        " document.querySelectorAll('main img, main [onerror], main [onmouseover]').length,"
        " document.querySelectorAll('bdi.text mark').length]"
    )
    assert injected[:3] == [True, 0, 0]
    assert injected[3] == len(texts)  # the protagonist's name marked in each story
    assert severe_console_entries(driver) == []


def _stored_answers(store: Path) -> int:
    """The samples a store holds (0 while it is missing or being created)."""
    import contextlib
    import sqlite3

    if not store.is_file():
        return 0
    try:
        connection = sqlite3.connect(f"file:{store}?mode=ro", uri=True, timeout=1)
        with contextlib.closing(connection) as conn:
            return int(conn.execute("SELECT COUNT(*) FROM samples").fetchone()[0])
    except sqlite3.Error:
        return 0


def test_a_generating_run_shows_its_progress_advance(driver: Any, tmp_path: Path) -> None:
    folder = tmp_path / "live" / "narratives"
    code = (
        f"import gasp; gasp.run('narratives', 'mock/personas', out={str(folder)!r}, quick=True,"
        " n=40, max_concurrency=1, model_options={'latency_s': 0.05})"
    )
    env = {**os.environ, "PYTHONPATH": SRC}
    proc = subprocess.Popen(
        [sys.executable, "-c", code], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        store = folder / "run.sqlite"
        deadline = time.monotonic() + 60
        # generating: its lock held and its first answer stored (so its plan is written)
        while not ((folder / "run.sqlite.lock").exists() and _stored_answers(store) > 0):
            assert time.monotonic() < deadline and proc.poll() is None
            time.sleep(0.1)
        with serving([tmp_path / "live"]) as url:
            driver.get(url)
            bar = driver.find_element("css selector", "progress[data-run]")
            first = int(bar.get_attribute("value"))
            total = int(bar.get_attribute("max"))
            assert total == 160
            deadline = time.monotonic() + 20
            later = first
            while later <= first and time.monotonic() < deadline:
                time.sleep(0.3)
                later = int(bar.get_attribute("value"))  # the same element: no reload
            assert first < later <= total
            count = driver.find_element("css selector", "[data-count]").text
            assert count.endswith("/ 160")
            proc.kill()  # killed while generating: the run reads "interrupted"
            proc.wait(30)
            time.sleep(1.2)  # the server searches the folders again at most once a second
            driver.get(url)
            status = driver.find_element("css selector", "#listing .status").text
            assert status == "interrupted"
    finally:
        proc.kill()
        proc.wait(30)


def test_the_export_opens_from_disk_with_the_same_content(
    driver: Any,
    address: str,
    view_tree: Tree,  # noqa: F811
    tmp_path: Path,
) -> None:
    driver.get(address)
    served = sorted(_visible_rows(driver, "listing"))
    index = export_site([view_tree.root], tmp_path / "site")
    driver.get(index.as_uri())
    assert sorted(_visible_rows(driver, "listing")) == served
    driver.get(driver.execute_script(
        "return Array.from(document.querySelectorAll('a')).find(a => a.textContent === "
        "'releases/release-2').href"
    ))  # fmt: skip
    assert driver.current_url.startswith("file://")
    rows = driver.execute_script("return document.querySelectorAll('#comparisons tbody tr').length")
    assert rows == 6
    assert driver.execute_script("return document.querySelectorAll('.plot .main-svg').length") >= 1
    driver.get((index.parent / "releases-narratives--named_female_share.html").as_uri())
    points = driver.execute_script(
        "return document.getElementById('releases').data.filter(t => !t.meta.tested)"
        ".map(t => t.x.length)"
    )
    assert points == [3, 3, 1]
    assert severe_console_entries(driver) == []
