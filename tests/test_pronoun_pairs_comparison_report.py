"""The comparison report of paired-prompt runs: McNemar's tests laid out for reading (over
all templates apart from per template, percentages, each statistic named by its test), the
sentence about clickable numbers only where numbers are clickable, the compared runs'
manifests; and the text viewer worded by the study."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from typing import Any

import pytest

from _pairs_runs import LABELS, compared_runs
from gasp.report import ReportWriter, ViewerText, page_shell
from gasp.results import AuditResults
from gasp.studies import get_study_type

BUTTONS = "Numbers in the tables are buttons"


@pytest.fixture(scope="module")
def compared(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return compared_runs(tmp_path_factory.mktemp("pairs-comparison"))


def _item(page: str, ident: str) -> str:
    start = page.index(f'id="{ident}"')
    end = page.find('<div class="item"', start + 1)
    return page[start : end if end > 0 else len(page)]


def _rows(block: str) -> list[list[str]]:
    """The rows of the first table in ``block`` as unescaped cell texts (header first)."""
    table = block[block.index("<table") : block.index("</table>")]
    return [
        [
            html.unescape(re.sub(r"<[^>]+>", "", c))
            for c in re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", r)
        ]
        for r in re.findall(r"<tr>(.*?)</tr>", table)
    ]


def _chi2(b: int, c: int) -> float:
    """McNemar's chi-square with continuity correction, by hand."""
    return (abs(b - c) - 1) ** 2 / (b + c)


def test_overall_tests_stand_apart_with_percentages_and_named_statistics(
    compared: dict[str, Any],
) -> None:
    page = compared["report"].read_text(encoding="utf-8")
    rows = _rows(_item(page, "mcnemar-overall"))
    header, body = rows[0], rows[1:]
    assert header == [
        "Measure",
        "Share, first",
        "Share, second",
        "p-value",
        "Test and statistic",
        "Shared",
        "b / c",
    ]
    groups = [r[0] for r in body if len(r) == 1]
    assert groups == [
        f"{LABELS[0]} (first) vs {LABELS[1]} (second)",
        f"{LABELS[0]} (first) vs {LABELS[2]} (second)",
        f"{LABELS[1]} (first) vs {LABELS[2]} (second)",
    ]
    # No per-template row among them: three measures per pair of runs, 90 shared triples.
    measures = [r for r in body if len(r) > 1]
    assert [r[0] for r in measures[:3]] == [
        "Inconsistent triples",
        "Inconsistent he/she pairs",
        "Incorrect answers",
    ]
    assert len(measures) == 9
    inconsistent = [r for r in measures if r[0] == "Inconsistent triples"]
    # Never, a third (10 of 30 pairs in 3 templates) and all pairs inconsistent.
    expected = [(0, 30, "0.0%", "33.3%"), (0, 90, "0.0%", "100.0%"), (0, 60, "33.3%", "100.0%")]
    for row, (b, c, first, second) in zip(inconsistent, expected, strict=True):
        assert row[1:3] == [first, second]
        assert row[4] == f"chi-square: \u03c7\u00b2 = {_chi2(b, c):.2f}"
        assert row[5] == "90 triples" and row[6] == f"{b} / {c}"
    saved = AuditResults.load(compared["comparison"])["pairs_mcnemar"]
    first = saved[(saved["template"] == "Overall") & (saved["metric"] == "inconsistent")].iloc[0]
    assert inconsistent[0][3] == f"{first['p_value']:.2g}"


def test_per_template_tests_per_pair_of_runs_with_the_exact_statistic(
    compared: dict[str, Any],
) -> None:
    page = compared["report"].read_text(encoding="utf-8")
    block = _item(page, "mcnemar-pair-1")
    assert f"{LABELS[0]} vs {LABELS[1]}" in html.unescape(block)
    rows = _rows(block)
    assert rows[0][:4] == ["Template", "Share, first", "Share, second", "p-value"]
    assert [r[0] for r in rows[1:] if len(r) == 1] == [
        "Inconsistent triples",
        "Inconsistent he/she pairs",
        "Incorrect answers",
    ]
    late = next(r for r in rows[1:] if r[0] == "late")
    # 10 discordant triples, all one way: exact binomial, p = 2 * 0.5 ** 10.
    assert late[1:5] == ["0.0%", "33.3%", f"{2 * 0.5**10:.2g}", "exact binomial: min(b, c) = 0"]
    assert "Overall" not in [r[0] for r in rows]
    assert sum(page.count(f'id="mcnemar-pair-{i}"') for i in (1, 2, 3)) == 3
    # The saved table keeps every column, behind a toggle, with its CSV.
    assert (compared["report"].parent / "tables" / "mcnemar.csv").is_file()


def test_the_button_sentence_only_where_numbers_are_buttons(compared: dict[str, Any]) -> None:
    page = compared["report"].read_text(encoding="utf-8")
    assert BUTTONS not in page and 'class="w"' not in page
    assert "This comparison holds no texts" in page
    kind = get_study_type("pronoun-pairs")
    run_page = kind.report(compared["runs"][1], compared["runs"][1].parent / "run1-report", {})
    text = run_page.read_text(encoding="utf-8")
    assert BUTTONS in text and 'class="w"' in text


def test_the_manifests_of_the_compared_runs(compared: dict[str, Any]) -> None:
    page = compared["report"].read_text(encoding="utf-8")
    section = page[page.index('<section id="run-manifests"') :]
    section = section[: section.index("</section>")]
    assert "No run manifest was available" not in page
    for label, run in zip(LABELS, compared["runs"], strict=True):
        assert f"<h3>{html.escape(label)} ({html.escape(str(run))})</h3>" in section
    assert section.count('<table class="kv">') == 4  # three manifests, then the settings
    saved = AuditResults.load(compared["runs"][0]).meta["manifest"]
    assert html.escape(str(saved["decoding"]["temperature"])) in section
    assert section.count("&quot;temperature&quot;") + section.count(">temperature<") >= 3


def _blob(page: str) -> dict[str, Any]:
    start = page.index('id="gasp-examples">') + len('id="gasp-examples">')
    data: dict[str, Any] = json.loads(page[start : page.index("</script>", start)])
    return data


def test_the_viewer_speaks_the_study_s_words(compared: dict[str, Any], tmp_path: Path) -> None:
    kind = get_study_type("pronoun-pairs")
    page = kind.report(compared["runs"][1], tmp_path / "pairs", {}).read_text(encoding="utf-8")
    viewer = _blob(page)["viewer"]
    assert viewer["title"].startswith("Texts behind")
    assert viewer["named"] == "pronoun" and viewer["associated"] == ""
    words = " ".join(viewer.values())
    for foreign in ("containing the word", "highlighted", "associated gender", "generations"):
        assert foreign not in words
    assert 'class="lookup" hidden' in page  # no word to look up in this report
    # The framework's defaults stay those of the word-based studies.
    default = page_shell("t", [], examples={"docs": [], "words": {"care": {}}})
    assert _blob(default)["viewer"] == ViewerText().to_json()
    assert 'class="lookup"><label>Look up a word:' in default
    given = ViewerText(title="Rows behind {key}", lookup="Find: ")
    writer = ReportWriter(
        tmp_path / "w", "t", examples={"docs": [], "words": {"x": {}}}, viewer=given
    )
    assert _blob(writer.render())["viewer"]["title"] == "Rows behind {key}"
    assert "<label>Find: " in writer.render()
