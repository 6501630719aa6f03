"""OccuGender as a registered study type: options, build, analysis, report, comparison."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from gasp.backends import DEFAULT_MAX_CANDIDATE_CHARS
from gasp.errors import ConfigError
from gasp.results import HeadlineMetric
from gasp.studies import StudyOption, StudyType, reject_options
from gasp.studies.occugender._data import (
    NO_DEBIASING,
    STUDY_KIND,
    default_debiasing,
    default_expressions,
    default_jobs,
    default_templates,
    load_expressions,
    load_jobs,
    load_templates,
)
from gasp.studies.occugender._study import ARTICLES, EXPRESSION_MODES, MODES, OccuGenderStudy

STUDY_OPTIONS: dict[str, StudyOption | str] = {
    "mode": StudyOption(
        "raw (the paper's Q/A text, default) or chat (the model's chat template)",
        choices=MODES,
    ),
    "jobs": "comma-separated jobs of the job list to keep (default: all 40 of Table 4)",
    "jobs_file": "CSV of your own jobs: job,group,bls_pct_female[,bls_year]",
    "templates_file": "TOML/YAML of your own (paraphrased) templates, replacing Table 3's two",
    "article": StudyOption(
        "auto (a/an before the job, default) or a (always 'a', as the paper writes)",
        choices=ARTICLES,
    ),
    "expressions_file": "TOML/YAML of your own gender expressions (explicit, implicit sets)",
    "case_variants": StudyOption(
        "score each expression capitalised and in lower case (default true)", kind="bool"
    ),
    "expressions": StudyOption(
        "all (default; exact backends) or single-token: drop, up front, the expressions an "
        "approximate (openai/openai-compatible) backend refuses, reported as not scorable",
        choices=EXPRESSION_MODES,
    ),
    "max_candidate_chars": StudyOption(
        f"with expressions=single-token: the backend's max_candidate_chars (default "
        f"{DEFAULT_MAX_CANDIDATE_CHARS})",
        kind="int",
        minimum=1,
    ),
    "debiasing": "all (None + prompts 1-6 of Table 5, default), none, or ids such as none,1,5",
}

#: Options of ``gasp run`` this study reads besides its own (generic aliases).
_GENERIC = {"occupations", "occupations_file", "templates", "n"}
#: Analysis options this study reads besides its own.
ANALYSIS_OPTIONS = {"bootstrap", "seed", "examples_per_word"}

#: ``--quick``: three jobs of each group, both templates, no debiasing prompts.
QUICK_JOBS = ("nurse", "secretary", "receptionist", "pilot", "plumber", "electrician")


def _split(value: Any, what: str) -> list[str] | None:
    if value is None:
        return None
    items = [v.strip() for v in str(value).split(",") if v.strip()]
    if not items:
        raise ConfigError(f"{what}: an empty list was given; separate names with commas")
    return items


def _bool(value: Any, what: str) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in {"true", "1", "yes"}:
        return True
    if text in {"false", "0", "no"}:
        return False
    raise ConfigError(f"{what} must be true or false, got {value!r}")


def build_study(source: str | Path, options: Mapping[str, Any]) -> OccuGenderStudy:
    """The study shaped by ``options`` (see :data:`STUDY_OPTIONS`)."""
    reject_options(STUDY_KIND, options, set(STUDY_OPTIONS) | _GENERIC)
    if str(source) != STUDY_KIND:
        raise ConfigError(f"study {STUDY_KIND!r} is configured by study options, not a file")
    n = options.get("n")
    if n is not None and n != 1:
        raise ConfigError("OccuGender scores deterministically: every item has n = 1")
    sources = {"jobs": "package: Table 4 (BLS 2021)", "templates": "package: Table 3"}
    jobs_file = options.get("jobs_file") or options.get("occupations_file")
    jobs = load_jobs(jobs_file) if jobs_file else default_jobs()
    if jobs_file:
        sources["jobs"] = str(jobs_file)
    keep = _split(options.get("jobs") or options.get("occupations"), "jobs")
    if keep is not None:
        known = {j.name: j for j in jobs}
        unknown = [k for k in keep if k not in known]
        if unknown:
            raise ConfigError(f"job {unknown[0]!r} is not in the job list; give a jobs_file")
        jobs = tuple(known[k] for k in keep)
    templates_file = options.get("templates_file")
    templates = load_templates(templates_file) if templates_file else default_templates()
    if templates_file:
        sources["templates"] = str(templates_file)
    chosen = _split(options.get("templates"), "templates")
    if chosen is not None:
        ids = {t.id for t in templates}
        missing = [c for c in chosen if c not in ids]
        if missing:
            raise ConfigError(f"template {missing[0]!r} is not one of {', '.join(sorted(ids))}")
        templates = tuple(t for t in templates if t.id in chosen)
    expressions_file = options.get("expressions_file")
    expressions = load_expressions(expressions_file) if expressions_file else default_expressions()
    sources["expressions"] = str(expressions_file) if expressions_file else "package: App. A"
    debias = default_debiasing()
    wanted = str(options.get("debiasing") or "all").strip().lower()
    include_none = True
    if wanted == NO_DEBIASING:
        debias = ()
    elif wanted != "all":
        ids = set(_split(wanted, "debiasing") or [])
        known_ids = {d.id for d in debias} | {NO_DEBIASING}
        bad = sorted(ids - known_ids)
        if bad:
            raise ConfigError(f"debiasing {bad[0]!r} is not one of none, 1-6 (or all)")
        include_none = NO_DEBIASING in ids
        debias = tuple(d for d in debias if d.id in ids)
    max_chars = options.get("max_candidate_chars")
    if max_chars is not None and (not isinstance(max_chars, int) or max_chars < 1):
        raise ConfigError("max_candidate_chars must be a positive integer")
    return OccuGenderStudy(
        jobs=jobs,
        templates=templates,
        expressions=expressions,
        debiasing=debias,
        include_none=include_none,
        mode=str(options.get("mode") or "raw"),
        article=str(options.get("article") or "auto"),
        case_variants=True
        if options.get("case_variants") is None
        else _bool(options.get("case_variants"), "case_variants"),
        expression_mode=str(options.get("expressions") or "all"),
        max_candidate_chars=int(max_chars or DEFAULT_MAX_CANDIDATE_CHARS),
        sources=sources,
    )


class OccuGender(StudyType):
    """OccuGender (seed 001): occupational gender bias read from the probabilities of
    gender expressions, explicit and implicit, with and without debiasing prompts."""

    name = STUDY_KIND
    description = (
        "OccuGender: probabilities of male/female/diverse expressions for 40 BLS jobs "
        "(explicit and implicit), with the six debiasing prompts; needs a scoring backend."
    )
    study_options = STUDY_OPTIONS
    analysis_options = frozenset(ANALYSIS_OPTIONS)

    def decoding_defaults(self) -> dict[str, Any]:
        """Scoring reads log-probabilities; no text is sampled."""
        return {"temperature": 0.0, "max_tokens": 1}

    def build(self, source: str | Path, options: Mapping[str, Any]) -> OccuGenderStudy:
        """The study to score (see :func:`build_study`)."""
        return build_study(source, options)

    def quick_options(self) -> dict[str, Any]:
        """``--quick``: six jobs (three per group), both templates, no debiasing prompts."""
        return {"jobs": ",".join(QUICK_JOBS), "debiasing": NO_DEBIASING}

    def analyze(self, store: Path, results: Path, options: Mapping[str, Any]) -> Mapping[str, Any]:
        """Shares, coverage, intervals and the statistics beyond the paper, to ``results``."""
        from gasp.studies.occugender._analysis import analyze_step

        self.check_analysis_options(options)
        return analyze_step(store, results, options)

    def headline_metrics(self) -> tuple[HeadlineMetric, ...]:
        """The headline metrics of the audit scorecard (see the ``_headline`` module)."""
        from gasp.studies.occugender._headline import HEADLINE_METRICS

        return HEADLINE_METRICS

    def report(self, results: Path, out: Path, options: Mapping[str, Any]) -> Path:
        """The report section from the saved results only."""
        from gasp.studies.occugender.report import render_report

        return render_report(results, out)

    def compare(
        self, runs: Sequence[Path], out: Path, options: Mapping[str, Any]
    ) -> Mapping[str, Any]:
        """Compare analysed runs (models, raw vs chat, with vs without debiasing)."""
        from gasp.studies.occugender._compare import compare_step

        return compare_step(runs, out, options)


STUDY_TYPE = OccuGender()
