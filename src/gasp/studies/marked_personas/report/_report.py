"""The page of one Marked Personas analysis: refusals first, then per kind of text the
Table 3 style word tables, the SVM accuracies with baselines, the JSD words, Figures 1,
2, 3 and A1, and sentiment; every table as CSV, every figure as PNG and SVG."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

import pandas as pd

from gasp.io import locate_run
from gasp.report import (
    ReportOptions,
    ReportWriter,
    add_manifest,
    add_other_tables,
    layout_style,
    page_examples,
    rules,
)
from gasp.results import EXAMPLES_PER_WORD, AuditResults
from gasp.stats import describe_interval
from gasp.studies.marked_personas.report._figures import (
    figure_lexicon_matrix,
    figure_lexicon_rates,
    figure_lexicon_words,
    figure_resilience,
    figure_svm,
)

_KIND_TITLES = {"persona": "Personas", "story": "Stories"}


_COUNTING_TEXT = {
    "tokens": "counted as whole words (tokens of the lowercased text without punctuation; "
    "a hyphenated entry such as family-oriented matches familyoriented)",
    "authors": "counted as the authors did (substrings of the lowercased text without "
    "punctuation, over its pieces between single spaces)",
}
_RESILIENCE_TEXT = {
    "words": "whole words",
    "substrings": "substrings of the lowercased text, as the authors counted: "
    '"resiliently" counts as "resilient"',
}


def _se_text(rates: pd.DataFrame, counting: str) -> str:
    """How the standard errors of ``counting`` were computed (population or sample SD)."""
    sds = set(rates.loc[rates["counting"] == counting, "se_sd"]) if "se_sd" in rates else set()
    if sds == {"population"}:
        return "population SD / sqrt(n) (the authors' np.std)"
    if sds == {"sample"}:
        return "sample SD (n - 1) / sqrt(n)"
    return "SD / sqrt(n)"


def _intro(settings: Mapping[str, Any]) -> str:
    patterns = ", ".join(f'"{p}"' for p in settings.get("refusal_patterns", [])) or "none"
    excluded = "left out of" if settings.get("exclude_refusals") else "kept in"
    return (
        "This report follows Marked Personas (Cheng, Durmus and Jurafsky, ACL 2023): a model "
        "describes people of marked groups (for example Black, woman) and of the unmarked "
        "defaults (White, man), and the words that set the groups' texts apart are found by "
        "Marked Words, one-vs-rest SVMs and the Jensen-Shannon divergence; stereotype "
        "lexicons and sentiment complete the picture. Words in tables are buttons: click one "
        "to read the texts that contain it. "
        f"Refusals are texts containing {patterns} (case-insensitive); they are {excluded} "
        "the analyses below."
    )


def _svm_explanation(settings: Mapping[str, Any]) -> str:
    anonymizer = settings.get("anonymizer", "paper")
    how = (
        "pronoun terms removed as whole words, race and gender terms deleted as substrings, as "
        "the authors did (so 'person' becomes 'per')"
        if anonymizer == "paper"
        else "pronoun, race and gender terms removed as whole words"
    )
    return (
        f"For each grouping, one stratified {1 - float(settings.get('test_size', 0.2)):.0%}/"
        f"{float(settings.get('test_size', 0.2)):.0%} split (seed {settings.get('svm_seed')}) "
        f"and one linear SVM (C = 1) per group against the rest, on raw word counts "
        f"(min_df {settings.get('min_df')}) of texts lowercased, without punctuation and with "
        f"{how}. The baseline is the accuracy of always answering the majority class; "
        "balanced accuracy averages the recall of both classes (0.5 is chance). "
        "accuracy_low and accuracy_high: " + _interval_text(settings, "held-out texts") + ", "
        "for the fitted classifier on new texts (the split and the fit are held fixed)."
    )


def _rule_phrase(settings: Mapping[str, Any]) -> str:
    """When Marked Words lists a word, from the saved settings."""
    fdr = settings.get("fdr")
    if fdr is None:
        return f"its weighted log-odds z-score exceeds {settings.get('threshold', 1.96)}"
    family = (
        "every test of the study at once (all comparisons of every kind of text)"
        if settings.get("fdr_scope") == "study"
        else "the words of its comparison"
    )
    return (
        "its weighted log-odds z-score is positive and the Benjamini-Hochberg procedure, "
        f"controlling the false discovery rate at {fdr:g} over {family}, rejects it"
    )


def _interval_text(settings: Mapping[str, Any], unit: str) -> str:
    """How this study's intervals were obtained, from the saved settings."""
    record = settings.get("interval")
    if not isinstance(record, Mapping):
        return "no interval was computed for these results"
    return describe_interval({**record, "interval_unit": unit})


def _add_kind(writer: ReportWriter, results: AuditResults, kind: str) -> None:
    settings = results.settings
    title = _KIND_TITLES.get(kind, kind)
    summary = results.meta.get("summary", {}).get(kind, {})
    sec = writer.section(
        title,
        f"{summary.get('texts', '?')} {title.lower()} analysed. Marked Words: a word is listed "
        f"when {_rule_phrase(settings)}, against every unmarked group of its comparison "
        "(prior: all texts of this kind).",
    )

    def table(
        name: str, heading: str, explanation: str, collapsed: bool = False, empty: str = ""
    ) -> None:
        full = f"{kind}_{name}"
        df = results.get(full)
        if df is not None:
            style = layout_style(results.layout(full))
            if empty:
                style = replace(style, empty=empty)
            writer.table(sec, full, df, heading, explanation, style, collapsed and not df.empty)

    table(
        "word_table",
        f"Top words per group (Table 3 style, {title.lower()})",
        "Marked Words of each group; 'also_svm_top' lists those among the group's 10 "
        "largest SVM coefficients (italic in the paper), 'svm_only' the SVM top words that "
        "Marked Words does not find (grey in the paper).",
    )
    chance = results.get(f"{kind}_chance_marked_words")
    if chance is not None and not chance.empty:
        row = {str(k): v for k, v in chance.iloc[-1].items()}
        table(
            "chance_marked_words",
            "How many Marked Words chance alone would give",
            f"{rules.chance_sentence(row)} One row per comparison and one (all) for this kind "
            "of text: n_tests counts the words tested, z_cutoff_low and z_cutoff_high the "
            "z-score cutoffs applied, expected_by_chance the words expected if no word "
            "differed between the groups, marked_words those listed.",
        )
    table(
        "marked_words",
        "Marked Words with z-scores",
        "Every significant word, ranked by summed z-score.",
        True,
        empty=(
            f"No word passes the threshold against every unmarked group in these "
            f"{summary.get('texts', '?')} {title.lower()}; Marked Words needs more texts per "
            "group: run with a larger --n (for example --n 50)."
        ),
    )
    acc = results.get(f"{kind}_svm_accuracy")
    if acc is not None:
        s = summary
        if s.get("svm_accuracy_mean") is not None:
            sec.add_paragraph(
                f"SVM accuracy over the {len(acc)} classifiers: mean {s['svm_accuracy_mean']:.3f}, "
                f"SD {s['svm_accuracy_sd']:.3f}; majority baseline {s['svm_baseline_mean']:.3f}; "
                f"balanced accuracy {s['svm_balanced_accuracy_mean']:.3f}."
            )
        table("svm_accuracy", "One-vs-rest SVM accuracy", _svm_explanation(settings))
        writer.figure(
            sec,
            f"{kind}_svm_figure",
            figure_svm(acc),
            "SVM accuracy and baselines",
            _svm_explanation(settings),
        )
    table("svm_top_words", "SVM top words", "The 10 largest positive coefficients per group.", True)
    table(
        "jsd_top_words",
        "Jensen-Shannon divergence top words",
        "Per marked group and unmarked group: the 10 words contributing most to the JSD between "
        "their texts, among the words more frequent in the marked group (Shifterator's JSD "
        "word shift; intersectional groups against White and against man separately).",
    )
    rates = results.get(f"{kind}_lexicon_rates")
    words = results.get(f"{kind}_lexicon_words")
    if rates is not None:
        counting = str(settings.get("lexicon_counting") or "authors")
        writer.figure(
            sec,
            f"{kind}_figure1",
            figure_lexicon_rates(rates, counting),
            "Figure 1: stereotype lexicon words per group",
            "Mean percentage of the words of a text that are in the Black and White stereotype "
            f"lexicons of Ghavami and Peplau (2013), {_COUNTING_TEXT.get(counting, counting)}; "
            f"error bars: standard error, {_se_text(rates, counting)}.",
        )
        writer.figure(
            sec,
            f"{kind}_figureA1",
            figure_lexicon_matrix(rates, counting),
            "Figure A1: every lexicon in every group",
            "Mean percentage of words in each ethnic group's stereotype lexicon, per group, "
            f"{_COUNTING_TEXT.get(counting, counting)}.",
        )
        table(
            "lexicon_rates",
            "Stereotype lexicon rates",
            "Both countings: 'tokens' (whole words) and 'authors' (the authors' formula: "
            "substrings of the lowercased text without punctuation over its pieces between "
            "spaces); percent, with standard error (se_sd: 'population' is the authors' "
            "np.std / sqrt(n), 'sample' the SD with n - 1); low_pct and high_pct: "
            + _interval_text(settings, "texts of the group")
            + ".",
            True,
        )
    if words is not None:
        writer.figure(
            sec,
            f"{kind}_figure2",
            figure_lexicon_words(words),
            "Figure 2: which Black-lexicon words occur",
            "Percentage of texts containing each word of the Black stereotype lexicon; words "
            "that never occur are gathered as 'other words'.",
        )
        table(
            "lexicon_words",
            "Lexicon words per group",
            "Share of texts containing each word and its occurrences per text (what the "
            "authors' code plots).",
            True,
        )
    res = results.get(f"{kind}_resilience")
    if res is not None:
        writer.figure(
            sec,
            f"{kind}_figure3",
            figure_resilience(res),
            'Figure 3: "resilient" and "resilience"',
            "Percentage of texts of each group containing either word ("
            + _RESILIENCE_TEXT.get(str(settings.get("resilience_counting") or "words"), "")
            + ").",
        )
        table(
            "resilience",
            "Resilient and resilience",
            "Texts containing either word, and occurrences of each.",
        )
    if summary.get("sentiment_mean") is not None:
        sec.add_paragraph(
            f"VADER compound score of the texts: mean {summary['sentiment_mean']:.3f}, SD "
            f"{summary['sentiment_sd']:.3f}. Significant words scored on their own: mean "
            f"{summary.get('word_sentiment_mean') or 0:.3f}; {summary.get('words_below_zero', 0)} "
            "below 0."
        )
    table(
        "sentiment",
        "Sentiment per group",
        "VADER compound score (-1 to 1) of the texts, mean and SD; low and high: "
        + _interval_text(settings, "texts of the group")
        + ".",
    )
    table(
        "word_sentiment",
        "Sentiment of the significant words",
        "Each Marked Word's own VADER compound score, and the mean score of the texts "
        "containing it.",
        True,
        empty="No word is significant in these texts, so none has a score; a larger --n "
        "(for example --n 50) finds Marked Words.",
    )


def render_results(results: AuditResults, out: Path, options: ReportOptions | None = None) -> Path:
    """Write the page of ``results`` into ``out``; return the HTML file."""
    opts = options or ReportOptions()
    manifest = results.meta.get("manifest")
    model = results.meta.get("model") or ""
    title = "Marked Personas" + (f" on {model}" if model else "")
    examples = page_examples(results, opts)
    writer = ReportWriter(
        out, title, str(results.meta.get("source_table", "")), examples, max_rows=opts.max_rows
    )
    sec = writer.section("About this report", _intro(results.settings))
    refusals = results.get("refusals")
    if refusals is not None:
        writer.table(
            sec,
            "refusals",
            refusals,
            "Refusals per prompt",
            "Share of texts per prompt that contain a refusal pattern (Appendix D.3).",
            layout_style(results.layout("refusals")),
        )
    done = {"refusals"}
    for kind in results.meta.get("kinds", []):
        _add_kind(writer, results, kind)
        done.update(n for n in results.tables if n.startswith(f"{kind}_"))
    add_other_tables(writer, results, done)
    add_manifest(writer, results, manifest if isinstance(manifest, Mapping) else None)
    return writer.write(opts.filename)


def render_comparison(
    results: AuditResults, out: Path, options: ReportOptions | None = None
) -> Path:
    """The page of a comparison of runs (:func:`compare_results`)."""
    opts = options or ReportOptions()
    labels = [str(x) for x in results.meta.get("labels", [])]
    writer = ReportWriter(
        out,
        "Marked Personas: " + " vs ".join(labels),
        "",
        page_examples(results, opts),
        max_rows=opts.max_rows,
    )
    writer.section(
        "About this comparison",
        "The runs below were analysed alike; for each group, the words significant in every "
        "run (the paper's Table 3 sets GPT-4 and GPT-3.5 side by side) and those significant "
        "in one run only, then SVM accuracies, sentiment and stereotype-lexicon rates (whole "
        "words; each run's report has the authors' counting too) per run. Click a word to "
        "read its texts from every run.",
    )
    for kind in results.meta.get("kinds", []):
        sec = writer.section(_KIND_TITLES.get(kind, kind))
        for name, title in (
            ("word_comparison", "Marked Words significant in every run and in one run only"),
            ("svm_accuracy_comparison", "SVM accuracy per run"),
            ("sentiment_comparison", "VADER compound mean per run"),
            ("lexicon_rates_comparison", "Stereotype lexicon rates per run (%)"),
        ):
            full = f"{kind}_{name}"
            df = results.get(full)
            if df is not None:
                writer.table(
                    sec, full, df, title, "One column per run.", layout_style(results.layout(full))
                )
    return writer.write(opts.filename)


def render_report(path: Path, out: Path | None, options: Mapping[str, Any]) -> Path:
    """Render the report of the results at ``path`` (run folder or results folder)."""
    paths = locate_run(path)
    results = AuditResults.load(paths.results)
    opts = ReportOptions(
        examples_per_word=int(options.get("examples_per_word") or EXAMPLES_PER_WORD)
    )
    target = Path(out) if out is not None else paths.report
    if results.meta.get("kind") == "comparison":
        return render_comparison(results, target, opts)
    return render_results(results, target, opts)
