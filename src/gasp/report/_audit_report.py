"""The report of one run: who is represented, how, what the differences mean, the manifest.

:func:`render_audit_report` renders an :class:`~gasp.analysis.AuditResults` (and,
when given, the run's generations for the word examples and its manifest) into one
self-contained HTML file with every table as CSV and every figure as PNG and SVG
beside it. It computes no statistic: tables are shown as the analysis wrote them,
and a table the analysis did not produce is simply absent from the page.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from gasp.analysis._results import (
    ASSOCIATION_ACCURACY,
    CAPTURE_RATE,
    DECILES,
    EXCLUDED,
    MARKED_WORDS,
    MODEL_COMPARISON,
    PERCENT_CHANGE,
    PROBE_CLUSTERS,
    PROBE_SILHOUETTE,
    REPRESENTATION,
    SRB_SCORES,
    SRB_TEST,
    WORD_TABLES,
    AuditResults,
)
from gasp.report import _figures as figs
from gasp.report._examples import build_example_index
from gasp.report._html import Section, TableStyle, escape, item_html, key_value_table, word_button
from gasp.report._writer import ReportWriter, collect_words, word_columns

REPORT_FILE = "report.html"

_INTRO = (
    "This report audits the text a language model generated for the study below, "
    "following the GAS(P) method of Mickel et al. (More of the Same): Generate texts with "
    "and without naming a gender, Associate each text whose prompt names no gender with "
    "the gender its pronouns and titles point to, run Statistical tests of how the groups "
    "are described, and Probe what the differences mean. Words in tables are buttons: "
    "click one (or type it in the box at the top) to read the generations that contain "
    "it, with the word highlighted, split by the gender named in the prompt or, where "
    "none was named, by the associated gender. Every table is also saved as CSV and "
    "every figure as PNG and SVG next to this file."
)


@dataclass(frozen=True)
class ReportOptions:
    """Settings of a report.

    ``examples_per_word`` caps the generations kept per word (shared among the gender
    groups), ``examples_seed`` seeds which ones are kept, ``per_page`` is the number
    shown at a time, ``max_rows`` the rows of a table shown in the page (the CSV file
    always has all of them).
    """

    examples_per_word: int = 50
    examples_seed: int = 0
    per_page: int = 10
    max_rows: int = 1000
    filename: str = REPORT_FILE


def _title(results: AuditResults, manifest: Mapping[str, Any] | None) -> tuple[str, str]:
    meta = dict(results.meta)
    man = dict(manifest or {})
    study = man.get("study")
    study_name = (
        (study.get("name") if isinstance(study, Mapping) else study) or meta.get("study") or "audit"
    )
    model = man.get("model") or meta.get("model_id") or meta.get("model") or ""
    if isinstance(model, Mapping):
        model = model.get("model_id") or model.get("name") or model.get("spec") or ""
    title = f"GAS(P) audit: {study_name}" + (f" on {model}" if model else "")
    bits = []
    for key in ("run_id", "created_at", "created"):
        value = man.get(key) or meta.get(key)
        if value:
            bits.append(f"{key.replace('_', ' ')}: {value}")
    return title, " · ".join(bits)


def _who(writer: ReportWriter, results: AuditResults) -> None:
    rep = results.get(REPRESENTATION)
    dec = results.get(DECILES)
    cap = results.get(CAPTURE_RATE)
    acc = results.get(ASSOCIATION_ACCURACY)
    if all(t is None for t in (rep, dec, cap, acc)):
        return
    sec = writer.section(
        "Who is represented",
        "For prompts that name no gender, how often did the model write about a woman, a man "
        "or a non-binary person? Each generation is associated with a gender by counting "
        "gendered pronouns and titles (Algorithm 1 of the paper); generations where the "
        "counts do not decide stay unassigned and are reported beside every share.",
    )
    writer.figure(
        sec,
        "share_of_women",
        figs.representation_figure(rep),
        "Share of women per occupation, compared with the labour force",
        "Each dot is the percentage of generations (prompts naming no gender, all templates "
        "averaged) associated with women for one occupation; bars span ±1.96 standard "
        "errors. The cross is the share of women among workers in that occupation reported "
        "by the US Bureau of Labor Statistics (BLS). Dots right of the crosses mean the "
        "model writes about women more often than the labour force would suggest; dots near "
        "50% mean it balances genders regardless of the occupation.",
    )
    writer.figure(
        sec,
        "figure2_deciles",
        figs.deciles_figure(dec, "female"),
        "Figure 2: occupations per decile of the share of women",
        "Occupations are split by whether BLS counts more men (male-dominated) or more women "
        "(female-dominated) among their workers; each bar counts the occupations whose "
        "generations are associated with women at a rate in that 10-point band. A model "
        "that mirrored the labour force would put male-dominated occupations in the left "
        "bars and female-dominated ones in the right bars.",
    )
    writer.figure(
        sec,
        "figure6_by_template",
        figs.representation_by_template_figure(rep),
        "Figure 6: share of women per occupation for each prompt template",
        "The same share as above, shown separately for each prompt template (for example "
        "biography or persona) next to BLS, to check that the pattern does not depend on "
        "the wording of the prompt.",
    )
    writer.figure(
        sec,
        "figure6_deciles_by_template",
        figs.deciles_figure(dec, "female", per_template=True),
        "Figure 6 (histogram): occupations per decile, per template",
        "Figure 2 drawn once per prompt template; differences between the bar colours show "
        "how much the prompt wording moves the representation of women.",
    )
    writer.figure(
        sec,
        "figure7_nonbinary",
        figs.nonbinary_figure(rep),
        "Figure 7: share of generations associated with non-binary people",
        "Percentage of generations per occupation associated with a non-binary person "
        "(they/them pronouns together with an explicit non-binary cue), with ±1.96 standard "
        "errors. The dashed line marks about 1.6% of US adults who identify as non-binary "
        "(cited by the paper); bars left of it under-represent non-binary people.",
    )
    writer.figure(
        sec,
        "figure7_nonbinary_deciles",
        figs.deciles_figure(dec, "nonbinary"),
        "Figure 7 (histogram): occupations per decile of the non-binary share",
        "Number of occupations whose non-binary share falls in each 10-point band.",
    )
    if rep is not None:
        writer.table(
            sec,
            REPRESENTATION,
            rep,
            "Representation per occupation and template",
            "One row per occupation and template of the prompts naming no gender (template "
            "'all' averages the templates). n_F, n_M, n_N and n_unassigned count the "
            "generations associated with women, men, non-binary people or none; share_* are "
            "those counts over n_generations and se_* their standard errors; n_invalid counts "
            "failed or empty generations left out. bls_pct_female is the BLS share of women "
            "in the occupation and pct_female_minus_bls the gap in percentage points.",
            None,
        )
    if dec is not None:
        writer.table(
            sec,
            DECILES,
            dec,
            "Occupations per decile (data of Figures 2, 6 and 7)",
            "n_subjects counts the occupations whose share (measure: women or non-binary) "
            "falls in [bin_low, bin_high), for each template and BLS group.",
            collapsed=True,
        )
    if cap is not None:
        writer.table(
            sec,
            CAPTURE_RATE,
            cap,
            "Table 2: capture rate of the gender association",
            "The share of generations the association method assigns to some gender "
            "(capture_rate, with its standard error se) per prompt condition and template; "
            "unassigned_share is the rest, which is dropped from the analyses. A low capture "
            "rate means many generations avoid gendered words, and the shares above describe "
            "only the captured ones.",
        )
    if acc is not None:
        writer.figure(
            sec,
            "table1_confusion",
            figs.confusion_figure(acc),
            "Table 1 (heat map): association of generations whose prompt names a gender",
            "Rows are the gender named in the prompt, columns the gender the association "
            "method finds in the text, as percentages of each row (all templates). A perfect "
            "method puts 100 on the diagonal; the last column is the share it cannot assign.",
        )
        writer.table(
            sec,
            ASSOCIATION_ACCURACY,
            acc,
            "Table 1: accuracy of the gender association",
            "Where the prompt names the gender, the association can be checked: correct_pct "
            "is the percentage of generations associated with the named gender, "
            "incorrect_pct with another gender, unassigned_pct with none.",
        )


def _words_by_group(marked: pd.DataFrame) -> pd.DataFrame | None:
    """Marked words reshaped to one row per subject, template, source and gender (no statistic).

    Words are listed by decreasing ``z_min`` (the order the analysis reports them in).
    """
    keys = [c for c in ("subject", "template", "source", "gender") if c in marked.columns]
    if "word" not in marked.columns or not keys:
        return None
    frame = marked
    order = next((c for c in ("z_min", "z_sum", "z") if c in frame.columns), None)
    if order is not None:
        frame = frame.sort_values(order, ascending=False, kind="stable")
    grouped = frame.groupby(keys, sort=True, dropna=False)["word"]
    out = grouped.agg(lambda s: ", ".join(s.astype(str))).reset_index(name="words")
    out.insert(len(keys), "n_words", grouped.size().to_numpy())
    return out


_CATEGORY_LABELS = {
    "both": "bold: significant for the associated and the named gender",
    "associated_and_other_named": "underlined: significant for the associated gender and the "
    "other named gender",
    "named_only": "gray: significant only where the prompt named the gender",
    "associated_only": "plain: significant only for the associated gender",
}


def table15_html(words: pd.DataFrame, known_words: frozenset[str]) -> str | None:
    """Table 15 as in the paper: one row per subject, template and gender, words styled by
    category (bold, underlined, gray, plain). None when ``words`` lacks the columns."""
    keys = [c for c in ("subject", "template", "gender") if c in words.columns]
    if "word" not in words.columns or "category" not in words.columns or not keys:
        return None
    if words.empty:
        return '<p class="empty">No significant words for this run.</p>'
    rows = []
    for key, part in words.groupby(keys, sort=False, dropna=False):
        values = key if isinstance(key, tuple) else (key,)
        cells = "".join(f'<td class="txt">{escape(v)}</td>' for v in values)
        items = []
        for word, category in zip(
            part["word"].astype(str), part["category"].astype(str), strict=True
        ):
            cls = f"cat-{category}" if category in _CATEGORY_LABELS else ""
            if word.lower() in known_words:
                items.append(word_button(word.lower(), cls))
            else:
                items.append(f'<span class="{escape(cls)}">{escape(word)}</span>')
        rows.append(f'<tr>{cells}<td class="words">{", ".join(items)}</td></tr>')
    head = "".join(f'<th scope="col">{escape(k)}</th>' for k in keys) + "<th>words</th>"
    legend = "".join(
        f'<span class="cat-{escape(c)}">{escape(label)}</span>'
        for c, label in _CATEGORY_LABELS.items()
    )
    return (
        f'<p class="legend">{legend}</p><div class="table-wrap"><table class="data">'
        f"<thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table></div>"
    )


def _how(writer: ReportWriter, results: AuditResults) -> None:
    srb = results.get(SRB_SCORES)
    test = results.get(SRB_TEST)
    marked = results.get(MARKED_WORDS)
    words = results.get(WORD_TABLES)
    excluded = results.get(EXCLUDED)
    if all(t is None for t in (srb, test, marked, words, excluded)):
        return
    sec = writer.section(
        "How they are represented",
        "Even when women and men appear equally often, they may be described differently. "
        "Calibrated Marked Words finds the words used significantly more often for one group "
        "than another (log-odds with an informative prior, |z| > 1.96). The Subset "
        "Representational Bias (SRB) score then asks whether the words marking generations "
        "associated with women (or men) resemble the words marking generations whose prompt "
        "named women, or those that named men.",
    )
    writer.figure(
        sec,
        "figure3_srb",
        figs.srb_figure(srb),
        "Figure 3: Subset Representational Bias per occupation",
        "For each occupation, the SRB score of the words marking generations associated "
        "with women (pink) and with men (green): the Chamfer distance of their embeddings to "
        "the words of prompts naming women minus that to the words of prompts naming men. "
        "It ranges from -2 to 2. Negative: closer to how the model describes named women; "
        "positive: closer to named men; bars are bootstrap confidence intervals. Pink dots "
        "left of zero and green dots right of it mean that unprompted generations reproduce "
        "the gendered descriptions of prompted ones.",
    )
    if srb is not None:
        writer.table(
            sec,
            SRB_SCORES,
            srb,
            "SRB scores per occupation",
            "One row per occupation (and template when not pooled) and associated gender: "
            "score is SRB(S_AF ‖ S_F, S_M) for F and SRB(S_AM ‖ S_F, S_M) for M; "
            "ch_specified_F/M are the two Chamfer distances it subtracts; n_words counts the "
            "marked words with an embedding; ci_low and ci_high bound the bootstrap interval; "
            "reason says why a score is missing.",
        )
    if test is not None:
        writer.table(
            sec,
            SRB_TEST,
            test,
            "Table 13: are associated women and men described differently?",
            "Welch's t-test compares the SRB scores of associated women with those of "
            "associated men across occupations (statistic, p_value, df, with the mean score "
            "of each group); the permutation test shuffles the associated F/M labels within "
            "each occupation and reports how often a shuffle gives a statistic at least as "
            "extreme. A small p-value means the two groups are described differently.",
        )
    if excluded is not None:
        writer.table(
            sec,
            EXCLUDED,
            excluded,
            "Occupations left out, and why",
            "An occupation enters the SRB analysis only when it has enough generations "
            "associated with both women and men (the sampling threshold and minimum share of "
            "the study settings) and generations naming women and men. Those that do not are "
            "listed with the step they were left out of and the reason.",
        )
    if words is not None:
        compact = table15_html(words, writer.known_words)
        if compact is not None:
            sec.add(
                item_html(
                    "Table 15: significant words per occupation and gender",
                    "For each occupation and associated gender, the words Calibrated Marked "
                    "Words finds significant, most significant first. The style says where "
                    "else the word is significant: bold words are also significant where the "
                    "prompt named the same gender (the unprompted text reproduces the prompted "
                    "description), underlined ones where it named the other gender, gray ones "
                    "only where the gender was named. Click a word to read the generations "
                    "that use it.",
                    compact,
                    ident="table15",
                )
            )
        writer.table(
            sec,
            WORD_TABLES,
            words,
            "Table 15 data: words with their category and z-scores",
            "One row per word: its category (as styled above), its summed z-score for the "
            "associated gender (z_associated) and for the named gender of its category "
            "(z_named), and whether it is a pronoun.",
            TableStyle(word_columns=word_columns(words)),
            collapsed=compact is not None,
        )
    if marked is not None:
        grouped = _words_by_group(marked)
        if grouped is not None:
            writer.table(
                sec,
                "marked_words_by_group",
                grouped,
                "Significant words per occupation, source and gender",
                "Every significant word listed per occupation, template, source ('named': the "
                "prompt named the gender; 'associated': the gender was inferred) and gender, "
                "most significant first (the full statistics are in the next table). Click a "
                "word to read the generations that use it.",
                TableStyle(word_columns=["words"]),
            )
        writer.table(
            sec,
            MARKED_WORDS,
            marked,
            "Marked words with their statistics",
            "One row per significant word: the group it marks (source and gender) against "
            "the unmarked group(s), its count in the target group, and its z-scores (z_min "
            "is the smallest over the unmarked groups; above 1.96 is significant).",
            TableStyle(word_columns=["word"]),
            collapsed=True,
        )


def _probe(writer: ReportWriter, results: AuditResults) -> None:
    clusters = results.get(PROBE_CLUSTERS)
    sil = results.get(PROBE_SILHOUETTE)
    if clusters is None and sil is None:
        return
    sec = writer.section(
        "What the differences mean",
        "The significant words of all occupations are grouped into clusters of similar "
        "meaning (K-means++ on word embeddings) so that recurring themes (for example "
        "empathy, advocacy, sports) become visible, then each cluster is counted in how many "
        "occupations it is significant for each gender.",
    )
    if clusters is not None:
        pct_cols = [c for c in clusters.columns if str(c).startswith("pct_")]
        shown = clusters
        if "kept" in clusters.columns:
            kept = clusters["kept"].astype(bool)
            if kept.any() and not kept.all():
                shown = clusters[kept]
        writer.table(
            sec,
            "figure5_clusters",
            shown,
            "Figure 5: clusters of significant words and their prevalence",
            "Each row is a cluster of words (closest to its centre first) for one model. "
            "'#' (n_subjects) is the number of occupations where at least one of its words is "
            "significant; pct_<group> is the percentage of occupations where the cluster is "
            "significant for that group, coloured from dark blue (0%) to green (100%). "
            "Clusters at least 50% more prevalent for one group and present in at least three "
            "occupations are kept (shown here when any are; all clusters are in the CSV of the "
            "next table).",
            TableStyle(
                word_columns=["words"],
                share_columns=pct_cols,
                percent=True,
            ),
        )
        if shown is not clusters:
            writer.table(
                sec,
                PROBE_CLUSTERS,
                clusters,
                "All clusters",
                "Every cluster with its prevalence, kept or not.",
                TableStyle(
                    word_columns=["words"],
                    share_columns=pct_cols,
                    percent=True,
                ),
            )
    writer.figure(
        sec,
        "figure8_silhouette",
        figs.silhouette_figure(sil),
        "Figure 8: silhouette score by number of clusters",
        "The silhouette score (from -1 to 1) measures how well words fit their own cluster "
        "rather than the nearest other one; the number of clusters k is chosen where the "
        "curve shows the largest gain. The circled point is the k used.",
    )
    if sil is not None:
        writer.table(
            sec,
            PROBE_SILHOUETTE,
            sil,
            "Silhouette scores",
            "The silhouette score for each number of clusters tried.",
        )


def add_comparison_items(writer: ReportWriter, results: AuditResults, sec: Section) -> None:
    """Figure 4 and Table 14 of a comparison of models, when present, into ``sec``."""
    pc = results.get(PERCENT_CHANGE)
    mc = results.get(MODEL_COMPARISON)
    writer.figure(
        sec,
        "figure4_percent_change",
        figs.percent_change_figure(pc),
        "Figure 4: percent change of the SRB score between models",
        "For each occupation and associated gender, the percentage by which the SRB score "
        "changed from the first model to the second. An increase means that generations "
        "associated with a gender became more similar to generations that name that gender.",
    )
    if pc is not None:
        writer.table(
            sec, PERCENT_CHANGE, pc, "Percent change of SRB per occupation", "The data of Figure 4."
        )
    if mc is not None:
        writer.table(
            sec,
            MODEL_COMPARISON,
            mc,
            "Table 14: do the models' SRB scores differ?",
            "Welch's t-test comparing the SRB scores of two models across occupations, per "
            "associated gender; a small p-value means the change between models is unlikely "
            "to be chance.",
        )


_RENDERED = {
    REPRESENTATION,
    DECILES,
    CAPTURE_RATE,
    ASSOCIATION_ACCURACY,
    MARKED_WORDS,
    SRB_SCORES,
    SRB_TEST,
    WORD_TABLES,
    EXCLUDED,
    MODEL_COMPARISON,
    PERCENT_CHANGE,
    PROBE_CLUSTERS,
    PROBE_SILHOUETTE,
}


def add_other_tables(writer: ReportWriter, results: AuditResults, done: set[str]) -> None:
    """Every table of ``results`` not in ``done``, rendered generically."""
    rest = [name for name in sorted(results.tables) if name not in done]
    if not rest:
        return
    sec = writer.section("Other tables", "Further tables the analysis produced, as written.")
    for name in rest:
        writer.table(
            sec,
            name,
            results.tables[name],
            name.replace("_", " ").capitalize(),
            "A table of this run's results; see the CSV for every row.",
        )


def _manifest(
    writer: ReportWriter, results: AuditResults, manifest: Mapping[str, Any] | None
) -> None:
    sec = writer.section(
        "Run manifest",
        "What produced these results: the model, its decoding settings, the seed, the study "
        "and the package versions, so the run can be reproduced. Secrets such as API keys "
        "are never recorded here.",
    )
    if manifest:
        sec.add(key_value_table(manifest))
    else:
        sec.add_paragraph("No run manifest was available.", cls="note")
    if results.meta:
        sec.add("<h3>Analysis settings</h3>")
        sec.add(key_value_table(results.meta))


def render_audit_report(
    results: AuditResults,
    out_dir: str | Path,
    samples: pd.DataFrame | None = None,
    manifest: Mapping[str, Any] | None = None,
    options: ReportOptions | None = None,
) -> Path:
    """Write the report of one run into ``out_dir`` and return the path of the HTML file.

    ``samples`` are the run's generations (as :meth:`gasp.store.RunStore.samples`
    returns them) used for the word examples; ``manifest`` the run manifest. Both
    are optional: without samples words are not clickable, without a manifest the
    manifest section says so. Missing tables are left out of the page.
    """
    opts = options or ReportOptions()
    word_sources = [
        results.get(MARKED_WORDS),
        results.get(WORD_TABLES),
        results.get(PROBE_CLUSTERS),
    ]
    examples = None
    if samples is not None:
        examples = build_example_index(
            samples,
            collect_words(word_sources),
            cap=opts.examples_per_word,
            seed=opts.examples_seed,
            per_page=opts.per_page,
        )
    title, subtitle = _title(results, manifest)
    writer = ReportWriter(out_dir, title, subtitle, examples, max_rows=opts.max_rows)
    intro = writer.section("About this report", _INTRO)
    if examples is None:
        intro.add_paragraph(
            "The generations of this run were not available, so words cannot be opened.",
            cls="note",
        )
    _who(writer, results)
    _how(writer, results)
    _probe(writer, results)
    if results.get(PERCENT_CHANGE) is not None or results.get(MODEL_COMPARISON) is not None:
        add_comparison_items(writer, results, writer.section("Comparison of models"))
    add_other_tables(writer, results, set(_RENDERED))
    _manifest(writer, results, manifest)
    return writer.write(opts.filename)
