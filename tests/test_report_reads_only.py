"""The report renders saved results only: no store, rules worded from the saved settings."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from gasp.errors import ConfigError
from gasp.results import AuditResults, build_example_index, trim_examples
from gasp.studies.more_of_the_same._tables import MARKED_WORDS
from gasp.studies.more_of_the_same.analysis import AnalysisConfig, analysis_config_for_run
from gasp.studies.more_of_the_same.report import render_audit_report, render_run_report
from test_report_html import make_results, make_samples

REPORT_SRC = Path(__file__).resolve().parents[1] / "src" / "gasp" / "report"
FORBIDDEN = ("gasp.store", "gasp.associate", "gasp.studies", "gasp.text", "gasp.runner")


def _page(results: AuditResults, folder: Path) -> str:
    return render_audit_report(results, folder).read_text(encoding="utf-8")


def _with_settings(config: AnalysisConfig, probe: dict[str, object] | None = None) -> AuditResults:
    results = make_results()
    settings = config.settings()
    if probe is not None:
        settings["probe"] = probe
    results.meta["settings"] = settings
    return results


def test_fdr_settings_word_the_significance_rule(tmp_path: Path) -> None:
    page = _page(_with_settings(AnalysisConfig(fdr_alpha=0.05)), tmp_path)
    assert "Benjamini-Hochberg false discovery rate 0.05" in page
    assert "false discovery rate at 0.05" in page
    assert "z &gt; 1.96" not in page


def test_threshold_settings_word_the_significance_rule(tmp_path: Path) -> None:
    page = _page(_with_settings(AnalysisConfig(threshold=2.5, min_count=3)), tmp_path)
    assert "z &gt; 2.5" in page and "z-score exceeds 2.5" in page
    assert "at least 3 times in the target group" in page
    assert "Benjamini" not in page and "z &gt; 1.96" not in page


def test_plain_or_calibrated_and_sampling_follow_the_settings(tmp_path: Path) -> None:
    plain = _page(_with_settings(AnalysisConfig(calibrated=False, min_samples=7)), tmp_path / "p")
    assert "Marked Words finds" in plain and "Calibrated Marked Words" not in plain
    assert "at least 7 of its generations" in plain
    calibrated = _page(_with_settings(AnalysisConfig(min_share=0.2)), tmp_path / "c")
    assert "Calibrated Marked Words finds" in calibrated
    assert "C_topic" in calibrated and "at least 20% of its generations" in calibrated


def test_cluster_rules_follow_the_probe_settings(tmp_path: Path) -> None:
    probe = {"min_ratio": 2.0, "min_subjects": 5, "k_rule": "max", "k": 3, "k_fixed": None}
    page = _page(_with_settings(AnalysisConfig(), probe), tmp_path)
    assert "at least 100% more prevalent" in page and "at least 5 occupations" in page
    assert "highest silhouette score (k = 3)" in page
    fixed = {**probe, "k_fixed": 4}
    assert "fixed at 4" in _page(_with_settings(AnalysisConfig(), fixed), tmp_path / "f")


def test_missing_settings_are_said_not_assumed(tmp_path: Path) -> None:
    results = make_results()
    results.meta.pop("settings")
    page = _page(results, tmp_path)
    assert "not recorded with these results" in page
    assert "z &gt; 1.96" not in page and "exceeds 1.96" not in page


def test_saved_examples_are_trimmed_not_recounted() -> None:
    samples = pd.DataFrame(
        {
            "text": [f"she said word {i}" for i in range(30)]
            + [f"he said word {i}" for i in range(30)],
            "item_id": [f"item{i % 3}" for i in range(60)],
            "sample_index": list(range(60)),
        }
    )
    full = build_example_index(samples, ["word"], cap=20, seed=3)
    assert len(full["sample_ids"]) == len(full["docs"]) == 20
    assert all(i.startswith("item") and "#" in i for i in full["sample_ids"])
    small = trim_examples(full, 6)
    assert small["cap"] == 6 and len(small["docs"]) == 6
    assert {k: len(v) for k, v in small["words"]["word"]["g"].items()} == {
        "assoc:F": 3,
        "assoc:M": 3,
    }
    assert small["words"]["word"]["n"] == {"assoc:F": 30, "assoc:M": 30}
    # The kept documents are the first saved ones of each group, with their ids.
    kept = {full["sample_ids"][d] for d, _ in full["words"]["word"]["g"]["assoc:F"][:3]}
    assert kept <= set(small["sample_ids"])
    assert trim_examples(full, 50)["cap"] == 20


def test_results_round_trip_settings_layouts_and_examples(tmp_path: Path) -> None:
    results = make_results()
    results.examples = build_example_index(make_samples(), results[MARKED_WORDS]["word"])
    loaded = AuditResults.load(results.save(tmp_path / "r"))
    assert loaded.settings == results.settings
    assert loaded.layout(MARKED_WORDS).word_columns == ("word",)
    assert loaded.examples == results.examples


def test_analysis_config_for_run_reads_the_manifest() -> None:
    manifest = {"study": {"name": "more-of-the-same", "n": 8}, "seed": 5}
    config = analysis_config_for_run(manifest)
    assert (config.min_samples, config.seed) == (8, 5)
    assert analysis_config_for_run(manifest, min_samples=3, seed=None).min_samples == 3
    assert analysis_config_for_run(manifest, seed=None).seed == 5
    assert analysis_config_for_run(None) == AnalysisConfig()
    with pytest.raises(ConfigError, match="unknown analysis setting"):
        analysis_config_for_run(manifest, nonsense=1)


def _imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append(node.module)
            found.extend(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def _only_slug_from_text(path: Path) -> bool:
    """Whether ``path`` takes nothing from ``gasp.text`` but its one naming rule, ``slug``."""
    names = [n for n in _imports(path) if n.startswith("gasp.text.")]
    return names == ["gasp.text.slug"] and "import gasp.text" not in path.read_text()


def test_report_imports_no_store_association_or_analysis_internals() -> None:
    files = sorted(REPORT_SRC.glob("*.py"))
    assert files
    for path in files:
        for name in _imports(path):
            if name in ("gasp.text", "gasp.text.slug") and _only_slug_from_text(
                path
            ):  # the one naming rule for anchors; no tokenizing
                continue
            assert not name.startswith(FORBIDDEN), f"{path.name} imports {name}"
            assert not name.startswith("gasp.studies.more_of_the_same.analysis"), (
                f"{path.name} imports {name}"
            )
            parts = name.split(".")
            if parts[0] == "gasp" and len(parts) > 2 and parts[1] != "report":
                assert not parts[2].startswith("_"), f"{path.name} imports private {name}"


def test_importing_the_report_loads_no_store_association_or_analysis() -> None:
    code = (
        "import sys, gasp.report\n"
        "bad = [m for m in sys.modules if m.startswith(("
        "'gasp.store', 'gasp.associate', 'gasp.studies', 'gasp.runner'))]\n"
        "print(bad)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_report_renders_from_results_alone(tmp_path: Path) -> None:
    results = make_results()
    results.examples = build_example_index(make_samples(), results[MARKED_WORDS]["word"])
    folder = results.save(tmp_path / "run.sqlite.results")  # no run.sqlite beside it
    page = render_run_report(folder).read_text(encoding="utf-8")
    assert 'data-word="empathy"' in page and "words cannot be opened" not in page
    assert (tmp_path / "run.sqlite.report" / "report.html").is_file()
