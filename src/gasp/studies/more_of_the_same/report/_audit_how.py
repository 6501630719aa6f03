"""The "How they are represented" section of the More of the Same audit report.

Its sentences that state a rule (significance, calibrated or plain Marked Words, the
sampling threshold, bootstrap and permutations) are worded from the saved settings.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from gasp.report import ReportWriter, Section, escape, item_html, layout_style, rules, word_button
from gasp.results import AuditResults
from gasp.stats import SIMULATED, describe_simulated
from gasp.studies.more_of_the_same._tables import (
    CHANCE,
    EXCLUDED,
    MARKED_WORDS,
    MARKED_WORDS_BY_GROUP,
    SRB_PAIRED,
    SRB_SCORES,
    SRB_TEST,
    WORD_TABLES,
)
from gasp.studies.more_of_the_same.report import _figures as figs
from gasp.studies.more_of_the_same.report._sizing import too_small_sentence
from gasp.studies.more_of_the_same.report._srb_paired import (
    paired_explanation,
    paired_sentences,
)
from gasp.studies.more_of_the_same.report._srb_variants import (
    SIDE_BY_SIDE,
    side_by_side,
    variants_explanation,
)

_CATEGORY_LABELS = {
    "both": "bold: significant for the associated and the named gender",
    "associated_and_other_named": "underlined: significant for the associated gender and the "
    "other named gender",
    "named_only": "gray: significant only where the prompt named the gender",
    "associated_only": "plain: significant only for the associated gender",
}


def table15_html(
    words: pd.DataFrame, known_words: frozenset[str], keys: Sequence[str]
) -> str | None:
    """Table 15 as in the paper: one row per ``keys`` (subject, template, gender), words
    styled by category (bold, underlined, gray, plain). None when ``words`` lacks them."""
    keys = list(keys)
    needed = {"word", "category", *keys}
    if not keys or not needed <= set(words.columns):
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


def _paired_items(writer: ReportWriter, results: AuditResults, sec: Section) -> None:
    """The paired test's decision first, then its table (saved ``srb_paired``)."""
    paired = results.get(SRB_PAIRED)
    for sentence in paired_sentences(paired):
        sec.add_paragraph(sentence, cls="decision")
    writer.saved_table(
        sec,
        results,
        SRB_PAIRED,
        "Paired test: associated women against associated men, occupation by occupation",
        paired_explanation(results.settings),
        saved_layout=True,
    )


def no_interval_sentence(srb: pd.DataFrame | None) -> str:
    """In words, the defined SRB scores the analysis gave no interval (saved
    ``interval_note``), instead of a bar; empty when every defined score has one."""
    if srb is None or "interval_note" not in srb.columns:
        return ""
    notes = srb["interval_note"].fillna("").astype(str)
    rows = srb[(notes != "") & pd.to_numeric(srb["score"], errors="coerce").notna()]
    if rows.empty:
        return ""
    items = [
        f"{r['subject']} ({'associated women' if r['gender'] == 'F' else 'associated men'}"
        + ("" if str(r.get("template", "all")) == "all" else f", {r['template']}")
        + f"): {r['interval_note']}"
        for _, r in rows.iterrows()
    ]
    return (
        f"{len(items)} score(s) in Figure 3 have no bar, because no interval can be trusted "
        "to cover them: " + "; ".join(items) + ". Read these scores as single draws of an "
        "unstable statistic."
    )


def srb_interval_phrase(settings: Any, srb: pd.DataFrame | None) -> str:
    """What the bars of Figure 3 are, worded from the saved settings: for intervals
    calibrated on simulations, their number, the nominal level and the simulated coverage
    the scores' rows record."""
    srb_part = settings.get("srb") if isinstance(settings, Mapping) else None
    record = srb_part.get("interval") if isinstance(srb_part, Mapping) else None
    if not (isinstance(record, Mapping) and record.get("interval_scheme") == SIMULATED):
        return rules.interval_phrase(settings)
    if not record.get("interval_draws"):
        return "no simulation was run, so there are no interval bars"
    calibration: dict[str, Any] = {}
    if srb is not None and len(srb) and "simulated_coverage" in srb.columns:
        first = srb.iloc[0]
        keys = ("simulated_coverage", "calibration_ratios", "interval_factor", "nominal_coverage")
        calibration = {k: first[k] for k in keys if k in srb.columns}
        notes = srb["interval_note"].fillna("").astype(str)
        calibration["reason"] = next((n for n in notes if n), "")
    return "bars: " + describe_simulated(record, calibration)


def _srb_items(writer: ReportWriter, results: AuditResults, sec: Section) -> None:
    settings = results.settings
    srb = results.get(SRB_SCORES)
    test = results.get(SRB_TEST)
    writer.figure(
        sec,
        "figure3_srb",
        figs.srb_figure(srb),
        "Figure 3: Subset Representational Bias per occupation",
        "For each occupation, the SRB score of the words marking generations associated "
        "with women (pink) and with men (green): the Chamfer distance of their embeddings "
        f"({rules.embeddings_name(settings)}) to the words of prompts naming women minus that "
        "to the words of prompts naming men. It ranges from -2 to 2. Negative: closer to how "
        "the model describes named women; positive: closer to named men; "
        f"{srb_interval_phrase(settings, srb)}. Pink dots left of zero and green dots right of "
        "it mean that unprompted generations reproduce the gendered descriptions of prompted "
        "ones.",
    )
    missing = no_interval_sentence(srb)
    if missing:
        sec.add_paragraph(missing, cls="note")
    writer.saved_table(
        sec,
        results,
        SRB_SCORES,
        "SRB scores per occupation",
        "One row per occupation (and template when not pooled) and associated gender: "
        "score is SRB(S_AF ‖ S_F, S_M) for F and SRB(S_AM ‖ S_F, S_M) for M; "
        "ch_specified_F/M are the two Chamfer distances it subtracts; n_words counts the "
        "marked words with an embedding; ci_low and ci_high bound the interval "
        f"({srb_interval_phrase(settings, srb).removeprefix('bars: ')}; "
        "interval_scheme, interval_draws and interval_seed repeat it per row); "
        "reason says why a score is missing. The columns ending in _names_removed hold "
        "the name-free variant; names_removed and gender_terms_removed count the words "
        "it took out of the associated set, the _specified columns those of the named "
        "sets.",
        saved_layout=True,
    )
    both = side_by_side(test)
    if both is not None:
        writer.table(
            sec,
            SIDE_BY_SIDE,
            both,
            "Table 13, side by side: the paper's SRB and SRB without names",
            variants_explanation(settings),
        )
    writer.saved_table(
        sec,
        results,
        SRB_TEST,
        "Table 13 (the paper's Welch test, for reproduction)",
        "Welch's t-test is the paper's test, kept to reproduce Table 13: it treats an "
        "occupation's two scores as independent although they are paired, so its "
        "p-values are too large and it misses differences the paired test above finds "
        "(the paired test decides). Welch's t-test compares the SRB scores of "
        "associated women with those of associated men across occupations "
        "(statistic, p_value, df, with the mean score of each group and its interval; "
        f"{rules.mean_interval_phrase(settings)}); the permutation test shuffles the "
        "associated F/M labels within each occupation and reports how often a shuffle "
        "gives a statistic at least as "
        f"extreme ({rules.permutation_phrase(settings)}). A small p-value means the two "
        "groups are described differently. The variant column says which SRB a row "
        "tests; reason says why a test is undefined.",
        saved_layout=True,
    )
    writer.saved_table(
        sec,
        results,
        EXCLUDED,
        "Occupations left out, and why",
        f"{rules.sampling_sentence(settings)} Those that do not are listed with the step "
        "they were left out of and the reason.",
        saved_layout=True,
    )


def _word_items(writer: ReportWriter, results: AuditResults, sec: Section) -> None:
    settings = results.settings
    method = rules.method_name(settings)
    words = results.get(WORD_TABLES)
    _chance_items(writer, results, sec)
    if words is not None:
        layout = results.layout(WORD_TABLES)
        compact = table15_html(words, writer.known_words, layout.keys)
        if compact is not None:
            sec.add(
                item_html(
                    "Table 15: significant words per occupation and gender",
                    f"For each occupation and associated gender, the words {method} finds "
                    "significant, most significant first. The style says where else the word "
                    "is significant: bold words are also significant where the prompt named "
                    "the same gender (the unprompted text reproduces the prompted "
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
            "(z_named), whether it is a pronoun, and its kind: 'name' (a person's first "
            "name), 'gender term' (a word naming a gender, such as woman or mrs), 'pronoun' or "
            "'word'. "
            "The name-free SRB leaves out names and gender terms.",
            layout_style(layout),
            collapsed=compact is not None,
        )
    writer.saved_table(
        sec,
        results,
        MARKED_WORDS_BY_GROUP,
        "Significant words per occupation, source and gender",
        "Every significant word listed per occupation, template, source ('named': the "
        "prompt named the gender; 'associated': the gender was inferred) and gender, "
        "most significant first (the full statistics are in the next table). Click a "
        "word to read the generations that use it.",
        saved_layout=True,
    )
    writer.saved_table(
        sec,
        results,
        MARKED_WORDS,
        "Marked words with their statistics",
        "One row per significant word: the group it marks (source and gender) against "
        "the unmarked group(s), its count in the target group, and its z-scores (z_min "
        "is the smallest over the unmarked groups). Significance rule: "
        f"{rules.significance_short(settings)}.",
        collapsed=True,
        saved_layout=True,
    )


def _chance_items(writer: ReportWriter, results: AuditResults, sec: Section) -> None:
    """The marked words expected by chance, beside the word tables."""
    chance = results.get(CHANCE)
    if chance is None or chance.empty:
        return
    total = chance[chance["source"] == "all"]
    row = total.iloc[0] if len(total) else chance.iloc[-1]
    sentence = rules.chance_sentence({str(k): v for k, v in row.items()}, "comparisons")
    writer.saved_table(
        sec,
        results,
        CHANCE,
        "How many marked words chance alone would give",
        f"{sentence} One row per "
        "comparison (source and gender) and one for the whole run: n_tests counts the "
        "words tested, z_cutoff_low and z_cutoff_high the z-score cutoffs applied "
        f"({rules.significance_short(results.settings)}), expected_by_chance the marked "
        "words expected if nothing differed, marked_words those found (pronouns included).",
        saved_layout=True,
    )


def add_how_section(writer: ReportWriter, results: AuditResults) -> None:
    """Figure 3, Tables 13 and 15 and the marked words: how the groups are described."""
    names = (
        SRB_SCORES,
        SRB_TEST,
        SRB_PAIRED,
        MARKED_WORDS,
        WORD_TABLES,
        EXCLUDED,
        MARKED_WORDS_BY_GROUP,
    )
    if all(results.get(name) is None for name in names):
        return
    settings = results.settings
    sec = writer.section(
        "How they are represented",
        "Even when women and men appear equally often, they may be described differently. "
        f"{rules.method_name(settings)} finds the words used significantly more often for one "
        f"group than another ({rules.prior_phrase(settings)}; "
        f"{rules.significance_short(settings)}). {rules.significance_sentence(settings)} The "
        "Subset Representational Bias (SRB) score then asks whether the words marking "
        "generations associated with women (or men) resemble the words marking generations "
        "whose prompt named women, or those that named men.",
    )
    note = too_small_sentence(results)
    if note:
        sec.add_paragraph(note, cls="note")
    _paired_items(writer, results, sec)
    _srb_items(writer, results, sec)
    _word_items(writer, results, sec)
