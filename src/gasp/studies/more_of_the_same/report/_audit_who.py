"""The "Who is represented" section of the More of the Same audit report."""

from __future__ import annotations

from gasp.report import ReportWriter
from gasp.results import AuditResults
from gasp.studies.more_of_the_same._tables import (
    ASSOCIATION_ACCURACY,
    CAPTURE_RATE,
    DECILES,
    REPRESENTATION,
    SAMPLE_ASSOCIATIONS,
)
from gasp.studies.more_of_the_same.report import _figures as figs


def add_who_section(writer: ReportWriter, results: AuditResults) -> None:
    """Figures 2, 6 and 7 and Tables 1 and 2: who the generations are about."""
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


def add_association_table(writer: ReportWriter, results: AuditResults) -> None:
    """The saved association of every generation (folded away), when the analysis saved it."""
    table = results.get(SAMPLE_ASSOCIATIONS)
    if table is None:
        return
    sec = next((s for s in writer.sections if s.title == "Who is represented"), None)
    if sec is None:
        sec = writer.section("Who is represented")
    writer.table(
        sec,
        SAMPLE_ASSOCIATIONS,
        table,
        "Association of each generation",
        "One row per valid generation: its prompt (item or template, subject and condition) "
        "and sample index, the gender its prompt named, the gender the association found "
        "(empty: unassigned) and the counts it decided from: female and male pronouns and "
        "titles, they/their, and whether an explicit non-binary cue occurs.",
        collapsed=True,
    )
