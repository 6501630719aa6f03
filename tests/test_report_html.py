"""The HTML report: escaping, self-containment, CSV/PNG/SVG outputs, missing tables."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pandas as pd
import pytest

from gasp.report import TableStyle, colour_scale, html_table, json_for_script, redact
from gasp.results import AuditResults, build_example_index
from gasp.studies.more_of_the_same._tables import (
    ASSOCIATION_ACCURACY,
    AUDIT_LAYOUTS,
    CAPTURE_RATE,
    DECILES,
    EXCLUDED,
    MARKED_WORDS,
    MARKED_WORDS_BY_GROUP,
    MODEL_COMPARISON,
    PERCENT_CHANGE,
    PROBE_CLUSTERS,
    PROBE_SILHOUETTE,
    REPRESENTATION,
    SRB_SCORES,
    SRB_TEST,
    probe_clusters_layout,
)
from gasp.studies.more_of_the_same.analysis import AnalysisConfig, marked_words_by_group
from gasp.studies.more_of_the_same.report import render_audit_report, render_comparison_report

SCRIPT_TEXT = "The engineer <script>window.__pwned=1</script> wrote empathy code."
IMG_TEXT = 'She <img src=x onerror="window.__pwned=2"> leads with empathy & care.'
SUBJECTS = ("engineer", "nurse")


def make_samples() -> pd.DataFrame:
    """Generations of two subjects: unspecified (associated by pronouns) and named."""
    rows = []
    texts = {
        None: [
            "She is an engineer who shows empathy. She's kind.",
            "He is an engineer; he loves sports and basketball.",
            IMG_TEXT,
            SCRIPT_TEXT,
            "They are an engineer. Their empathy helps.",
        ],
        "F": ["She is a woman engineer with empathy and resilience."],
        "M": ["He is a man who plays basketball, an engineer."],
    }
    i = 0
    for subject in SUBJECTS:
        for named, items in texts.items():
            for text in items:
                rows.append(
                    {
                        "run_id": "r1",
                        "study": "more-of-the-same",
                        "template": "biography",
                        "subject": subject,
                        "condition": {None: "unspecified", "F": "woman", "M": "man"}[named],
                        "named_gender": named,
                        "sample_index": i,
                        "prompt": f"Write about a {subject}",
                        "text": text.replace("engineer", subject),
                        "stop_reason": "stop",
                    }
                )
                i += 1
    return pd.DataFrame(rows)


def make_results(*, full: bool = True) -> AuditResults:
    """A small AuditResults with the documented columns of every table."""
    rep_rows = []
    for template in ("biography", "persona", "all"):
        for subject, bls in zip(SUBJECTS, (16.0, 87.0), strict=True):
            share_f = 0.6 if subject == "engineer" else 0.9
            rep_rows.append(
                {
                    "subject": subject,
                    "template": template,
                    "n_generations": 100,
                    "n_invalid": 1,
                    "n_F": int(100 * share_f),
                    "n_M": int(100 * (0.95 - share_f)),
                    "n_N": 1,
                    "n_unassigned": 4,
                    "share_F": share_f,
                    "share_M": 0.95 - share_f,
                    "share_N": 0.01,
                    "share_unassigned": 0.04,
                    "se_F": 0.04,
                    "se_M": 0.04,
                    "se_N": 0.01,
                    "se_unassigned": 0.02,
                    "share_F_of_assigned": share_f / 0.96,
                    "pct_female": 100 * share_f,
                    "bls_pct_female": bls,
                    "bls_year": 2024,
                    "bls_group": "male-dominated" if bls < 50 else "female-dominated",
                    "pct_female_minus_bls": 100 * share_f - bls,
                }
            )
    dec_rows = []
    for measure in ("female", "nonbinary"):
        for template in ("biography", "persona", "all"):
            for group in ("male-dominated", "female-dominated"):
                for b in range(10):
                    dec_rows.append(
                        {
                            "measure": measure,
                            "template": template,
                            "bls_group": group,
                            "bin_low": 10 * b,
                            "bin_high": 10 * b + 10,
                            "bin_label": f"{10 * b}-{10 * b + 10}",
                            "n_subjects": int(b == (5 if group == "male-dominated" else 9)),
                        }
                    )
    tables = {
        REPRESENTATION: pd.DataFrame(rep_rows),
        DECILES: pd.DataFrame(dec_rows),
        CAPTURE_RATE: pd.DataFrame(
            {
                "condition": ["unspecified"],
                "template": ["all"],
                "n_generations": [200],
                "n_captured": [190],
                "capture_rate": [0.95],
                "se": [0.015],
                "unassigned_share": [0.05],
                "n_invalid": [2],
            }
        ),
        ASSOCIATION_ACCURACY: pd.DataFrame(
            {
                "named_gender": ["F", "M", "N"],
                "template": ["all"] * 3,
                "n_generations": [100, 100, 100],
                "n_F": [99, 1, 0],
                "n_M": [0, 98, 1],
                "n_N": [0, 0, 90],
                "n_unassigned": [1, 1, 9],
                "correct_pct": [99.0, 98.0, 90.0],
                "incorrect_pct": [0.0, 1.0, 1.0],
                "unassigned_pct": [1.0, 1.0, 9.0],
            }
        ),
        MARKED_WORDS: pd.DataFrame(
            {
                "subject": ["engineer", "engineer", "nurse", "nurse"],
                "template": ["all"] * 4,
                "source": ["associated", "associated", "named", "associated"],
                "gender": ["F", "M", "F", "F"],
                "against": ["M", "F", "M", "M"],
                "word": ["empathy", "basketball", "resilience", "shes"],
                "count_target": [3, 2, 1, 1],
                "z_sum": [2.5, 2.2, 2.0, 1.97],
                "z_min": [2.5, 2.2, 2.0, 1.97],
                "is_pronoun": [False, False, False, True],
                "n_target": [3, 1, 1, 3],
            }
        ),
        SRB_SCORES: pd.DataFrame(
            {
                "subject": ["engineer", "engineer", "nurse", "nurse"],
                "template": ["all"] * 4,
                "gender": ["F", "M", "F", "M"],
                "score": [-0.2, 0.15, -0.1, float("nan")],
                "ch_specified_F": [0.5, 0.7, 0.6, float("nan")],
                "ch_specified_M": [0.7, 0.55, 0.7, float("nan")],
                "n_words": [10, 8, 9, 0],
                "ci_low": [-0.3, 0.05, -0.2, float("nan")],
                "ci_high": [-0.1, 0.25, 0.0, float("nan")],
                "n_bootstrap": [20, 20, 20, 0],
                "reason": ["", "", "", "no marked words"],
            }
        ),
        SRB_TEST: pd.DataFrame(
            {
                "template": ["all", "all"],
                "test": ["welch", "permutation"],
                "statistic": [-3.1, -3.1],
                "p_value": [0.004, 0.02],
                "df": [5.2, float("nan")],
                "n_subjects_F": [2, 2],
                "n_subjects_M": [1, 1],
                "mean_F": [-0.15, -0.15],
                "mean_M": [0.15, 0.15],
                "n_permutations": [0, 50],
                "n_undefined": [0, 0],
            }
        ),
        EXCLUDED: pd.DataFrame(
            {
                "subject": ["pilot <b>bold</b>"],
                "template": ["all"],
                "step": ["how"],
                "reason": ["too few generations associated with men"],
            }
        ),
    }
    if full:
        tables[PROBE_CLUSTERS] = pd.DataFrame(
            {
                "cluster": [0, 1],
                "words": ["empathy, resilience", "basketball, sports"],
                "size": [2, 2],
                "model": ["m", "m"],
                "n_F": [2, 0],
                "n_M": [0, 1],
                "n_subjects": [2, 1],
                "pct_F": [100.0, 0.0],
                "pct_M": [0.0, 50.0],
                "dominant_group": ["F", "M"],
                "kept": [True, True],
                "kept_all_models": [True, False],
            }
        )
        tables[PROBE_SILHOUETTE] = pd.DataFrame(
            {"k": [2, 3, 4], "silhouette": [0.1, 0.3, 0.2], "chosen": [False, True, False]}
        )
    tables[MARKED_WORDS_BY_GROUP] = marked_words_by_group(tables[MARKED_WORDS])
    meta = {
        "model": "mock/echo",
        "study": "more-of-the-same",
        "seed": 0,
        "settings": AnalysisConfig().settings(),
    }
    results = AuditResults(tables=tables, meta=meta)
    for name, layout in AUDIT_LAYOUTS.items():
        results.set_layout(name, layout)
    results.set_layout(PROBE_CLUSTERS, probe_clusters_layout("F", "M"))
    return results


def with_examples(results: AuditResults, samples: pd.DataFrame) -> AuditResults:
    """``results`` with the examples an analysis of ``samples`` saves for its marked words."""
    results.examples = build_example_index(samples, results[MARKED_WORDS]["word"].tolist())
    return results


class _Collector(HTMLParser):
    """Every tag with its attributes, and the text of script elements."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.scripts: list[tuple[dict[str, str | None], str]] = []
        self._in_script: dict[str, str | None] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        if tag == "script":
            self._in_script = dict(attrs)

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._in_script = None

    def handle_data(self, data: str) -> None:
        if self._in_script is not None:
            self.scripts.append((self._in_script, data))


@pytest.fixture(scope="module")
def rendered(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("report")
    manifest = {
        "run_id": "r1",
        "model": "mock/echo",
        "decoding": {"temperature": 1.0, "max_tokens": 64},
        "backend_options": {"api_key": "sk-SECRET-123", "base_url": "http://localhost:1"},
        "seed": 7,
        "versions": {"gasp": "0.1.0"},
    }
    results = with_examples(make_results(), make_samples())
    return render_audit_report(results, out, manifest=manifest)


def test_report_writes_html_csv_png_svg(rendered: Path) -> None:
    assert rendered.name == "report.html"
    tables = {p.stem for p in (rendered.parent / "tables").glob("*.csv")}
    for name in (
        REPRESENTATION,
        DECILES,
        CAPTURE_RATE,
        ASSOCIATION_ACCURACY,
        SRB_SCORES,
        SRB_TEST,
        EXCLUDED,
        MARKED_WORDS,
        PROBE_SILHOUETTE,
        "figure5_clusters",
    ):
        assert name in tables
    figures = rendered.parent / "figures"
    for stem in (
        "share_of_women",
        "figure2_deciles",
        "figure3_srb",
        "figure7_nonbinary",
        "figure8_silhouette",
        "table1_confusion",
        "figure6_by_template",
    ):
        png = (figures / f"{stem}.png").read_bytes()
        assert png.startswith(b"\x89PNG")
        assert "<svg" in (figures / f"{stem}.svg").read_text(encoding="utf-8")
    # CSVs round-trip the tables as the analysis wrote them.
    back = pd.read_csv(rendered.parent / "tables" / f"{SRB_TEST}.csv")
    assert back["p_value"].tolist() == [0.004, 0.02]


def test_report_is_self_contained(rendered: Path) -> None:
    page = rendered.read_text(encoding="utf-8")
    parser = _Collector()
    parser.feed(page)
    for tag, attrs in parser.tags:
        for key in ("src", "href", "action", "data", "poster"):
            value = (attrs.get(key) or "").strip().lower()
            assert not value.startswith(("http:", "https:", "//", "ftp:")), (tag, key, value)
            if tag in ("img", "script") and key == "src" and key in attrs:
                assert value.startswith("data:image/png;base64,"), value
        assert not (tag == "link" and (attrs.get("rel") or "") == "stylesheet")
    assert "@import" not in page
    assert "url(" not in page.split("<style>", 1)[1].split("</style>", 1)[0]
    csp = next(
        a["content"] for t, a in parser.tags if a.get("http-equiv") == ("Content-Security-Policy")
    )
    assert (
        csp is not None
        and "default-src 'none'" in csp
        and "'unsafe-inline'" not in (csp.split("script-src", 1)[1].split(";", 1)[0])
    )


def test_model_text_never_becomes_markup(rendered: Path) -> None:
    page = rendered.read_text(encoding="utf-8")
    parser = _Collector()
    parser.feed(page)
    # Only the report's own two script elements exist; no <img> besides the figures.
    assert [t for t, _ in parser.tags].count("script") == 2
    assert all(a.get("src", "").startswith("data:") for t, a in parser.tags if t == "img")
    assert "<script>window.__pwned" not in page
    assert "<img src=x" not in page
    # The examples blob parses back to the original texts, unchanged.
    blob = next(text for attrs, text in parser.scripts if attrs.get("type") == "application/json")
    assert "<" not in blob and ">" not in blob and "&" not in blob
    data = json.loads(blob)
    texts = {doc[0] for doc in data["docs"]}
    assert SCRIPT_TEXT in texts
    assert IMG_TEXT in texts
    # Table cells are escaped: the subject with markup shows as text.
    assert "pilot &lt;b&gt;bold&lt;/b&gt;" in page
    assert "<b>bold</b>" not in page


def test_secrets_are_redacted(rendered: Path) -> None:
    page = rendered.read_text(encoding="utf-8")
    assert "sk-SECRET-123" not in page
    assert "[redacted]" in page
    assert redact({"a": {"OPENAI_API_KEY": "x", "n": [{"token": "y"}]}}) == {
        "a": {"OPENAI_API_KEY": "[redacted]", "n": [{"token": "[redacted]"}]}
    }


def test_decoding_settings_are_not_taken_for_secrets() -> None:
    shown = redact({"max_tokens": 80, "hf_token": "t", "access_token": "u", "n_tokens": 3})
    assert shown == {
        "max_tokens": 80,
        "hf_token": "[redacted]",
        "access_token": "[redacted]",
        "n_tokens": 3,
    }


def test_words_link_to_examples(rendered: Path) -> None:
    page = rendered.read_text(encoding="utf-8")
    for word in ("empathy", "basketball", "resilience", "shes"):
        assert f'data-word="{word}"' in page
    parser = _Collector()
    parser.feed(page)
    blob = next(text for attrs, text in parser.scripts if attrs.get("type") == "application/json")
    data = json.loads(blob)
    entry = data["words"]["empathy"]
    # Both subjects: associated women (2 each: pronoun "she", the <img> text) and named women.
    assert entry["n"]["assoc:F"] == 4
    assert entry["n"]["named:F"] == 2
    # The generation "She's kind" is highlighted for the token "shes".
    doc_id, spans = data["words"]["shes"]["g"]["assoc:F"][0]
    text = data["docs"][doc_id][0]
    assert [text[spans[i] : spans[i + 1]] for i in range(0, len(spans), 2)] == ["She's"]


def test_report_renders_with_optional_tables_missing(tmp_path: Path) -> None:
    results = make_results(full=False)
    for name in (SRB_SCORES, SRB_TEST, DECILES):
        del results.tables[name]
    path = render_audit_report(results, tmp_path)
    page = path.read_text(encoding="utf-8")
    assert "Figure 5" not in page and "Figure 3:" not in page
    assert "Who is represented" in page
    assert "words cannot be opened" in page
    assert not (tmp_path / "figures" / "figure3_srb.png").exists()
    # Re-rendering into the same folder removes what the new page no longer has.
    render_audit_report(make_results(), tmp_path)
    assert (tmp_path / "figures" / "figure3_srb.svg").is_file()
    render_audit_report(results, tmp_path)
    assert not (tmp_path / "figures" / "figure3_srb.svg").exists()
    assert not (tmp_path / "tables" / f"{SRB_TEST}.csv").exists()
    empty = render_audit_report(AuditResults(), tmp_path / "empty")
    assert "No run manifest" in empty.read_text(encoding="utf-8")


def test_title_names_the_model_of_the_analysis_meta(tmp_path: Path) -> None:
    # The analysis stores the model under meta["model_id"]; without a manifest the
    # title takes it from there.
    results = AuditResults(meta={"model_id": "org/<m>", "study": "more-of-the-same"})
    page = render_audit_report(results, tmp_path).read_text(encoding="utf-8")
    assert "<title>GAS(P) audit: more-of-the-same on org/&lt;m&gt;</title>" in page


def test_unknown_and_malformed_tables_render_generically(tmp_path: Path) -> None:
    results = AuditResults(
        tables={
            "custom_thing": pd.DataFrame({"x": [1.5], "label": ["<i>"]}),
            REPRESENTATION: pd.DataFrame({"unexpected": [1]}),
            PROBE_SILHOUETTE: pd.DataFrame(),
        }
    )
    page = render_audit_report(results, tmp_path).read_text(encoding="utf-8")
    assert "Custom thing" in page and "&lt;i&gt;" in page
    assert (tmp_path / "tables" / "custom_thing.csv").is_file()
    assert not (tmp_path / "figures" / "share_of_women.png").exists()


def test_comparison_report(tmp_path: Path) -> None:
    results = AuditResults(
        tables={
            PERCENT_CHANGE: pd.DataFrame(
                {
                    "subject": ["cook", "chef"] * 2,
                    "gender": ["F", "F", "M", "M"],
                    "percent_change": [100.0, 20.0, -5.0, 80.0],
                }
            ),
            MODEL_COMPARISON: pd.DataFrame(
                {"gender": ["F", "M"], "statistic": [2.2, -2.16], "p_value": [0.034, 0.037]}
            ),
            "srb_scores_by_model": pd.DataFrame({"model": ["a"], "score": [0.1]}),
        },
        meta={"models": ["a", "b"]},
    )
    path = render_comparison_report(results, tmp_path)
    page = path.read_text(encoding="utf-8")
    assert "Table 14" in page and "Figure 4" in page
    assert (tmp_path / "figures" / "figure4_percent_change.svg").is_file()
    assert (tmp_path / "tables" / f"{MODEL_COMPARISON}.csv").is_file()
    assert (tmp_path / "tables" / "srb_scores_by_model.csv").is_file()


def test_json_for_script_escapes_markup() -> None:
    text = json_for_script({"t": "</script><!-- & \u2028"})
    assert re.search(r"[<>&\u2028]", text) is None
    assert json.loads(text) == {"t": "</script><!-- & \u2028"}


def test_html_table_escapes_and_links_known_words() -> None:
    df = pd.DataFrame({"words": ["empathy, <x>"], "pct_F": [100.0], "note": ['"q" & <b>']})
    out = html_table(
        df,
        TableStyle(word_columns=["words"], share_columns=["pct_F"], percent=True),
        known_words=["empathy"],
    )
    assert 'data-word="empathy"' in out
    assert "&lt;x&gt;" in out and "<x>" not in out
    assert "&quot;q&quot; &amp; &lt;b&gt;" in out
    assert colour_scale(1.0) in out
    assert colour_scale(0.0) == "#172a6b" and colour_scale(1.0) == "#5ec962"


def test_example_cap_is_shared_and_seeded() -> None:
    samples = pd.DataFrame(
        {
            "text": [f"she said word {i}" for i in range(30)]
            + [f"he said word {i}" for i in range(30)],
            "named_gender": [None] * 60,
        }
    )
    a = build_example_index(samples, ["word"], cap=10, seed=1)
    b = build_example_index(samples, ["word"], cap=10, seed=1)
    assert a == b
    groups = a["words"]["word"]["g"]
    assert {k: len(v) for k, v in groups.items()} == {"assoc:F": 5, "assoc:M": 5}
    assert a["words"]["word"]["n"] == {"assoc:F": 30, "assoc:M": 30}
    assert len(a["docs"]) == 10
