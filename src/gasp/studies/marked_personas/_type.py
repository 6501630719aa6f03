"""Marked Personas as a registered study type: options, build, analysis and report."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from gasp.errors import ConfigError
from gasp.io import TableRole, TextTable
from gasp.results import HeadlineMetric
from gasp.studies import PROMPT_FORM, StudyOption, StudyType, reject_options, resolve_study_options
from gasp.studies.marked_personas._analysis import Settings
from gasp.studies.marked_personas._model import (
    KINDS,
    STUDY_KIND,
    THEY_VERBS,
    MarkedPersonasStudy,
    load_study,
)

_DEFAULTS = Settings()

#: Study options (``--study-option KEY=VALUE``).
STUDY_OPTIONS: dict[str, StudyOption | str] = {
    "n": StudyOption(
        "generations per prompt and group (default: the study file's)",
        kind="int",
        minimum=1,
        quick=3,
        size="generations per prompt and group",
        flag="shape",
    ),
    "texts": StudyOption(
        "personas, stories or both (Table A9 and Table A14 prompts)",
        choices=("personas", "stories", "both"),  # the keys of _TEXTS
        default="both",
    ),
    "prompts": StudyOption(
        "comma-separated prompt ids to run (default all of the chosen texts)",
        quick="describe,story-about",
    ),
    "race": StudyOption(
        "comma-separated race values to run, the unmarked included ('a White,a Black')",
        quick="a White,a Black",
    ),
    "gender": StudyOption(
        "comma-separated gender values to run (M, W, N), the unmarked M included",
        quick="M,W",
    ),
    "they_verb": StudyOption(
        "'is' (published data: 'that they is', default) or 'are'", choices=THEY_VERBS
    ),
    "anonymizer": StudyOption(
        "SVM anonymizer: paper (the authors' substring deletion) or clean",
        choices=("paper", "clean"),
        default=_DEFAULTS.anonymizer,
    ),
    "svm_seed": StudyOption(
        "seed of the stratified 80/20 SVM split",
        kind="int",
        minimum=0,
        maximum=2**32 - 1,
        default=_DEFAULTS.svm_seed,
    ),
    "min_df": StudyOption(
        "minimum document frequency of SVM features",
        kind="float",
        minimum=0.0,
        maximum=1.0,
        exclusive_maximum=True,
        default=_DEFAULTS.min_df,
    ),
    "refusal_patterns": StudyOption(
        "'|'-separated, case-insensitive refusal patterns",
        default="|".join(_DEFAULTS.refusal_patterns),
    ),
    "exclude_refusals": StudyOption(
        "leave refusals out of every analysis",
        kind="bool",
        default=_DEFAULTS.exclude_refusals,
    ),
    "lexicon_counting": StudyOption(
        "stereotype lexicon rates in the figures: tokens (whole words) or authors "
        "(the authors' formula: substrings after punctuation is removed)",
        choices=("tokens", "authors"),
        default=_DEFAULTS.lexicon_counting,
    ),
    "resilience_counting": StudyOption(
        "'resilient'/'resilience': words (whole words) or substrings "
        "(as the authors counted: 'resiliently' too)",
        choices=("words", "substrings"),
        default=_DEFAULTS.resilience_counting,
    ),
    "study_file": "for `gasp analyze TABLE`: a study file with your own axes and prompts",
    "prompt_form": PROMPT_FORM,
}
#: Options of ``gasp run`` / ``gasp generate`` this study reads when building itself.
BUILD_OPTIONS = {"n", *STUDY_OPTIONS}
#: Options of ``gasp analyze`` this study reads.
ANALYSIS_OPTIONS = {*STUDY_OPTIONS, "seed", "examples_per_word", "threshold", "fdr", "fdr_scope"}

_TEXTS = {"personas": ("persona",), "stories": ("story",), "both": KINDS}


def _split(value: Any) -> list[str] | None:
    if value is None:
        return None
    items = [v.strip() for v in str(value).split(",") if v.strip()]
    if not items:
        raise ConfigError("an empty list was given; separate values with commas")
    return items


def build_study(source: str | Path, options: Mapping[str, Any]) -> MarkedPersonasStudy:
    """The study of ``source`` reduced by the options (None: unchanged)."""
    reject_options(STUDY_KIND, options, BUILD_OPTIONS)
    opts = resolve_study_options(STUDY_KIND, STUDY_OPTIONS, options)
    n = opts.get("n")
    texts = str(opts["texts"])
    study = load_study(source)
    values = {}
    for axis in study.axes:
        chosen = _split(opts.get(axis.name))
        if chosen is not None:
            values[axis.name] = chosen
    verb = opts.get("they_verb")
    return study.restrict(
        values=values,
        kinds=_TEXTS[texts],
        prompts=_split(opts.get("prompts")),
        n=None if n is None else int(n),
        they_verb=None if verb is None else str(verb),
    )


class MarkedPersonas(StudyType):
    """Marked Personas (seed ``004``): personas and stories of race x gender groups."""

    name = STUDY_KIND
    description = (
        "Marked Personas: personas and stories of 15 race x gender groups; Marked Words, "
        "one-vs-rest SVMs, JSD, stereotype lexicons, sentiment and refusals."
    )
    study_options = STUDY_OPTIONS
    quick_max_tokens = 48
    analysis_options = frozenset(ANALYSIS_OPTIONS)
    table_help = (
        "the prompt tells each text's template and kind (persona or story); without it "
        "every text is of template 'custom'; labels outside the groups need --allow-new-groups"
    )

    @property
    def table_roles(self) -> Sequence[TableRole]:  # type: ignore[override]
        """The columns of the built-in study's texts."""
        return self.table_roles_for({})

    def decoding_defaults(self) -> dict[str, Any]:
        """The paper's: temperature 1, at most 256 tokens (footnote 1)."""
        return {"temperature": 1.0, "max_tokens": 256}

    def build(self, source: str | Path, options: Mapping[str, Any]) -> MarkedPersonasStudy:
        """The study to run (see :func:`build_study`)."""
        return build_study(source, options)

    def analyze(self, store: Path, results: Path, options: Mapping[str, Any]) -> Mapping[str, Any]:
        """Every analysis of the run's generations, saved to ``results``."""
        from gasp.studies.marked_personas._steps import analyze_step

        self.check_analysis_options(options)
        return self.with_headline(results, analyze_step(store, results, options))

    def table_roles_for(self, options: Mapping[str, Any]) -> Sequence[TableRole]:
        """Text, one column per axis of the study (of ``study_file`` where given), and
        the optional prompt and template."""
        from gasp.studies.marked_personas._texts import study_of, table_roles

        return table_roles(study_of(options))

    def analyze_texts(
        self, texts: TextTable, results: Path, options: Mapping[str, Any]
    ) -> Mapping[str, Any]:
        """Every analysis of a user's texts (columns text, race, gender; prompt)."""
        from gasp.studies.marked_personas._texts import analyze_texts_step

        reject_options(self.name, options, {*ANALYSIS_OPTIONS, "allow_new_groups"})
        return self.with_headline(results, analyze_texts_step(texts, results, options))

    def headline_metrics(self) -> tuple[HeadlineMetric, ...]:
        """The headline metrics of the audit scorecard (see the ``_headline`` module)."""
        from gasp.studies.marked_personas._headline import HEADLINE_METRICS

        return HEADLINE_METRICS

    def report(self, results: Path, out: Path, options: Mapping[str, Any]) -> Path:
        """The report from saved results only."""
        from gasp.studies.marked_personas.report import render_report

        return render_report(results, out, options)

    def compare(
        self, runs: Sequence[Path], out: Path, options: Mapping[str, Any]
    ) -> Mapping[str, Any]:
        """Words significant in every run and in one only, accuracies and rates per run."""
        from gasp.io import locate_run
        from gasp.studies.marked_personas._compare import compare_results
        from gasp.studies.marked_personas.report import render_comparison

        comparison = compare_results(
            [locate_run(r).results for r in runs], options.get("labels") or None
        )
        folder = comparison.save(out)
        report = render_comparison(comparison, locate_run(folder).report)
        return {
            "lines": [f"results written to {folder}", f"report written to {report}"],
            "report": report,
        }


STUDY_TYPE = MarkedPersonas()
