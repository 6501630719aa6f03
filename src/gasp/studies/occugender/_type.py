"""OccuGender as a registered study type: options, build, analysis, report, comparison."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from gasp.backends import DEFAULT_MAX_CANDIDATE_CHARS
from gasp.errors import ConfigError
from gasp.results import HeadlineMetric
from gasp.runner import StudyPlan
from gasp.studies import (
    StudyOption,
    StudyType,
    count_units,
    reject_options,
    resolve_study_options,
)
from gasp.studies.occugender._data import (
    NO_DEBIASING,
    STUDY_KIND,
    Job,
    default_debiasing,
    default_expressions,
    default_jobs,
    default_templates,
    load_expressions,
    load_jobs,
    load_templates,
)
from gasp.studies.occugender._study import ARTICLES, EXPRESSION_MODES, MODES, OccuGenderStudy

#: ``--quick``: three jobs of each group, both templates, no debiasing prompts.
QUICK_JOBS = ("nurse", "secretary", "receptionist", "pilot", "plumber", "electrician")
#: ``--quick`` (and so the tour) scores under the model's chat template: the form under
#: which the embedded model puts more of its mass on the gender expressions.
QUICK_MODE = "chat"
#: Options that choose the jobs: any of them given replaces the quick jobs.
_JOB_CHOICE = ("occupations", "occupations_file", "jobs_file", "job_count")

STUDY_OPTIONS: dict[str, StudyOption | str] = {
    "mode": StudyOption(
        "raw (the paper's Q/A text) or chat (the model's chat template)",
        choices=MODES,
        default="raw",
        # measured on the embedded model (docs/occugender.md): its chat template puts
        # 24% of the probability mass on the gender expressions (implicit 45%, explicit
        # 2.6%), the raw text 15% (27%, 3.1%)
        quick=QUICK_MODE,
    ),
    "jobs": StudyOption(
        "comma-separated jobs of the job list to keep (also --occupations; default: all "
        "40 of Table 4)",
        quick=",".join(QUICK_JOBS),
        overridden_by=_JOB_CHOICE,
    ),
    "job_count": StudyOption(
        "the first K jobs, the two groups alternating (the quick six first, then Table 4's order)",
        kind="int",
        minimum=2,
        size="jobs, each scored under every template and expression",
    ),
    "jobs_file": "CSV of your own jobs: job,group,bls_pct_female[,bls_year]",
    "templates_file": "TOML/YAML of your own (paraphrased) templates, replacing Table 3's two",
    "article": StudyOption(
        "auto (a/an before the job) or a (always 'a', as the paper writes)",
        choices=ARTICLES,
        default="auto",
    ),
    "expressions_file": "TOML/YAML of your own gender expressions (explicit, implicit sets)",
    "case_variants": StudyOption(
        "score each expression capitalised and in lower case", kind="bool", default=True
    ),
    "expressions": StudyOption(
        "all (exact backends) or single-token: drop, up front, the expressions an "
        "approximate (openai/openai-compatible) backend refuses, reported as not scorable",
        choices=EXPRESSION_MODES,
        default="all",
    ),
    "max_candidate_chars": StudyOption(
        "with expressions=single-token: the backend's max_candidate_chars",
        kind="int",
        minimum=1,
        default=DEFAULT_MAX_CANDIDATE_CHARS,
    ),
    "occupations": StudyOption(
        "comma-separated jobs of the job list to keep (as jobs)", flag="shape"
    ),
    "occupations_file": StudyOption("CSV of your own jobs (as jobs_file)", flag="shape"),
    "templates": StudyOption(
        "comma-separated template ids to keep (default: all of the templates)", flag="shape"
    ),
    "n": StudyOption(
        "answers per item: OccuGender scores deterministically, so only 1",
        kind="int",
        minimum=1,
        maximum=1,
        flag="shape",
    ),
    "debiasing": StudyOption(
        "all (None + prompts 1-6 of Table 5), none, or ids such as none,1,5",
        default="all",
        quick=NO_DEBIASING,
    ),
}

#: Analysis options this study reads besides its own.
ANALYSIS_OPTIONS = {"bootstrap", "seed", "examples_per_word"}


def _split(value: Any, what: str) -> list[str] | None:
    if value is None:
        return None
    items = [v.strip() for v in str(value).split(",") if v.strip()]
    if not items:
        raise ConfigError(f"{what}: an empty list was given; separate names with commas")
    return items


def _by_size(jobs: Sequence[Job], count: int) -> tuple[Job, ...]:
    """The first ``count`` jobs of ``jobs``, the two groups alternating: the quick six
    first (where the list holds them), then the list's order."""
    quick = [j for name in QUICK_JOBS for j in jobs if j.name == name]
    rest = [j for j in jobs if j.name not in QUICK_JOBS]
    groups: dict[str, list[Job]] = {}
    for job in [*quick, *rest]:
        groups.setdefault(job.group, []).append(job)
    order: list[Job] = []
    queues = list(groups.values())
    while any(queues):
        for queue in queues:
            if queue:
                order.append(queue.pop(0))
    if count > len(order):
        raise ConfigError(f"job_count {count} exceeds the {len(order)} jobs of the job list")
    return tuple(order[:count])


def build_study(source: str | Path, options: Mapping[str, Any]) -> OccuGenderStudy:
    """The study shaped by ``options`` (see :data:`STUDY_OPTIONS`)."""
    reject_options(STUDY_KIND, options, set(STUDY_OPTIONS))
    if str(source) != STUDY_KIND:
        raise ConfigError(f"study {STUDY_KIND!r} is configured by study options, not a file")
    opts = resolve_study_options(STUDY_KIND, STUDY_OPTIONS, options)
    sources = {"jobs": "package: Table 4 (BLS 2021)", "templates": "package: Table 3"}
    jobs_file = opts.get("jobs_file") or opts.get("occupations_file")
    jobs = load_jobs(jobs_file) if jobs_file else default_jobs()
    if jobs_file:
        sources["jobs"] = str(jobs_file)
    keep = _split(opts.get("jobs") or opts.get("occupations"), "jobs")
    if keep is not None:
        known = {j.name: j for j in jobs}
        unknown = [k for k in keep if k not in known]
        if unknown:
            raise ConfigError(f"job {unknown[0]!r} is not in the job list; give a jobs_file")
        jobs = tuple(known[k] for k in keep)
    if opts.get("job_count") is not None:
        jobs = _by_size(jobs, opts.integer("job_count"))
    templates_file = opts.get("templates_file")
    templates = load_templates(templates_file) if templates_file else default_templates()
    if templates_file:
        sources["templates"] = str(templates_file)
    chosen = _split(opts.get("templates"), "templates")
    if chosen is not None:
        ids = {t.id for t in templates}
        missing = [c for c in chosen if c not in ids]
        if missing:
            raise ConfigError(f"template {missing[0]!r} is not one of {', '.join(sorted(ids))}")
        templates = tuple(t for t in templates if t.id in chosen)
    expressions_file = opts.get("expressions_file")
    expressions = load_expressions(expressions_file) if expressions_file else default_expressions()
    sources["expressions"] = str(expressions_file) if expressions_file else "package: App. A"
    debias = default_debiasing()
    wanted = str(opts["debiasing"]).strip().lower()
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
    return OccuGenderStudy(
        jobs=jobs,
        templates=templates,
        expressions=expressions,
        debiasing=debias,
        include_none=include_none,
        mode=str(opts["mode"]),
        article=str(opts["article"]),
        case_variants=bool(opts["case_variants"]),
        expression_mode=str(opts["expressions"]),
        max_candidate_chars=opts.integer("max_candidate_chars"),
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

    def size_units(self, plan: StudyPlan) -> int:
        """The jobs: the comparisons pair each job's shares across runs."""
        return count_units(plan, "job")

    def analyze(self, store: Path, results: Path, options: Mapping[str, Any]) -> Mapping[str, Any]:
        """Shares, coverage, intervals and the statistics beyond the paper, to ``results``."""
        from gasp.studies.occugender._analysis import analyze_step

        self.check_analysis_options(options)
        return self.with_headline(results, analyze_step(store, results, options))

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
