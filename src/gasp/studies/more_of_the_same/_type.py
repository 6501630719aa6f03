"""More of the Same as a registered study type: options, analysis, probe and report."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from gasp._defaults import MAX_RESAMPLES
from gasp.errors import ConfigError
from gasp.io import TextTable
from gasp.probe import K_RULES, PROBE_EMBEDDINGS, ClusteringConfig
from gasp.results import HeadlineMetric
from gasp.runner import StudyPlan
from gasp.studies import (
    PROMPT_FORM,
    StudyOption,
    StudyType,
    count_units,
    reject_options,
    resolve_study_options,
)
from gasp.studies.more_of_the_same._load import load_study, load_subjects_csv
from gasp.studies.more_of_the_same._model import STUDY_KIND, Study
from gasp.studies.more_of_the_same._texts import TABLE_ROLES


@dataclasses.dataclass(frozen=True)
class QuickPreset:
    """The reduced run of ``gasp run --quick``.

    Sized for the embedded SmolLM2 model on a 2-core CPU (about 90 tokens/s at batch
    16), so that the tour runs in under two minutes from an empty model cache: 3
    occupations (the fewest that give the representation metrics an interval), both
    templates, the four conditions, ``n`` samples per named cell and per associated
    gender, unspecified cells capped at ``cap_factor`` x n; at most 216 texts of 56
    tokens (SRB scores need a larger run, measured in
    :data:`~gasp.studies.more_of_the_same._gasp_run.GASP_RUN`).
    """

    occupations: tuple[str, ...] = ("nurse", "engineer", "software engineer")
    n: int = 6
    max_tokens: int = 56
    cap_factor: int = 3
    probe_k: int | None = None


QUICK = QuickPreset()

#: The study's options (``--study-option KEY=VALUE``; those with a ``flag`` are also
#: flags of ``gasp run`` and keywords of :func:`gasp.run`); a study file sets the rest.
STUDY_OPTIONS: dict[str, StudyOption | str] = {
    "occupations": StudyOption(
        "only these occupations of the study (comma separated)",
        quick=",".join(QUICK.occupations),
        overridden_by=("occupations_file", "occupation_count"),
        flag="shape",
    ),
    "occupations_file": StudyOption("your own occupations CSV (column 'occupation')", flag="shape"),
    "occupation_count": StudyOption(
        "the first K occupations of the study (the --quick ones first, then the study's order)",
        kind="int",
        minimum=1,
        size="occupations compared across runs",
    ),
    "n": StudyOption(
        "samples per named cell and per associated gender (default: the study file's)",
        kind="int",
        minimum=1,
        quick=QUICK.n,
        size="generations per prompt, per named cell and per associated gender",
        flag="shape",
    ),
    "cap_factor": StudyOption(
        "stop an unspecified cell at this many times n samples (default: the study file's)",
        kind="int",
        minimum=1,
        quick=QUICK.cap_factor,
        flag="shape",
    ),
    "templates": StudyOption("only these templates (comma separated)", flag="shape"),
    "conditions": StudyOption(
        "only these conditions (unspecified,woman,man,nonbinary)", flag="shape"
    ),
    "prompt_form": PROMPT_FORM,
    "min_samples": StudyOption(
        "generations each associated gender needs (default: the run's n)",
        kind="int",
        minimum=1,
        flag="analysis",
    ),
    "min_share": StudyOption(
        "share of unspecified generations each gender needs (default 0.10)",
        kind="float",
        minimum=0,
        maximum=0.5,
        exclusive_maximum=True,
        flag="analysis",
    ),
    "per_template": StudyOption(
        "marked words and SRB per template", kind="bool", default=False, flag="analysis"
    ),
    "plain": StudyOption(
        "plain Marked Words instead of calibrated", kind="bool", default=False, flag="analysis"
    ),
    "srb_embeddings": StudyOption(
        "word embeddings for SRB: glove (default), minilm or a KeyedVectors file "
        "(--embeddings is its old name)",
        flag="analysis",
        old_names=("embeddings",),
    ),
    "permutations": StudyOption(
        "label shuffles of the permutation test (0: none; at most 100,000)",
        kind="int",
        minimum=0,
        maximum=MAX_RESAMPLES,
        flag="analysis",
    ),
    "probe_embeddings": StudyOption(
        "embeddings of the probe's clustering: minilm, glove or a KeyedVectors file",
        default=PROBE_EMBEDDINGS,
        flag="probe",
    ),
    "k_rule": StudyOption(
        "how the probe chooses k: max (largest silhouette), paper (the paper's largest "
        "fall), stability or gap",
        choices=K_RULES,
        default=ClusteringConfig.k_rule,
        flag="probe",
    ),
    "n_init": StudyOption(
        "k-means++ runs per k in the probe",
        kind="int",
        minimum=1,
        default=ClusteringConfig.n_init,
        flag="probe",
    ),
}


def check_embedding_options(options: Mapping[str, Any]) -> None:
    """Raise :class:`ConfigError` for embeddings (``srb_embeddings``,
    ``probe_embeddings``) that cannot be loaded."""
    from gasp.embeddings import check_embeddings

    for name in ("srb_embeddings", "probe_embeddings"):
        if options.get(name) is not None:
            check_embeddings(str(options[name]))


#: Options of ``gasp run`` / ``gasp generate`` this study reads when building itself.
BUILD_OPTIONS = set(STUDY_OPTIONS)


def _split(value: str | None) -> list[str] | None:
    if value is None:
        return None
    items = [v.strip() for v in value.split(",") if v.strip()]
    if not items:
        raise ConfigError("an empty list was given; separate names with commas")
    return items


def _first(names: list[str], count: int) -> list[str]:
    """The first ``count`` of ``names``, the quick occupations first."""
    order = [o for o in QUICK.occupations if o in names]
    order += [o for o in names if o not in order]
    if count > len(order):
        raise ConfigError(f"occupation_count {count} exceeds the study's {len(order)} occupations")
    return order[:count]


def build_study(source: str | Path, options: Mapping[str, Any]) -> Study:
    """The study named by ``source`` (built-in name or study file), reduced by the
    options ``occupations``, ``occupations_file``, ``n``, ``templates``,
    ``conditions`` and ``cap_factor`` (None: unchanged)."""
    reject_options(STUDY_KIND, options, BUILD_OPTIONS)
    check_embedding_options(options)
    opts = resolve_study_options(STUDY_KIND, STUDY_OPTIONS, options)
    occupations = opts.get("occupations")
    occupations_file = opts.get("occupations_file")
    n = opts.get("n")
    cap_factor = opts.get("cap_factor")
    if occupations and occupations_file:
        raise ConfigError("give --occupations or --occupations-file, not both")
    spec = load_study(source)
    if occupations_file is not None:
        spec = spec.with_subjects(load_subjects_csv(occupations_file))
    names = _split(occupations)
    if names is not None:
        unknown = [o for o in names if o not in {s.name for s in spec.subjects}]
        if unknown:
            raise ConfigError(
                f"occupation {unknown[0]!r} is not in study {spec.name!r}; "
                "pass your own list with --occupations-file"
            )
    count = opts.get("occupation_count")
    if count is not None:
        names = _first(names or [s.name for s in spec.subjects], int(count))
    spec = spec.restrict(
        subjects=names,
        templates=_split(opts.get("templates")),
        conditions=_split(opts.get("conditions")),
        n=n,
    )
    if cap_factor is None:
        return spec
    return dataclasses.replace(
        spec, stopping=dataclasses.replace(spec.stopping, cap_factor=cap_factor)
    )


#: Analysis options this study reads.
ANALYSIS_OPTIONS = frozenset(
    {"threshold", "fdr", "fdr_scope", "bootstrap", "simulations", "seed", "examples_per_word"}
)


class MoreOfTheSame(StudyType):
    """GAS(P) of seed ``000``: generate, associate, statistically test, probe."""

    name = STUDY_KIND
    description = (
        "More of the Same (GAS(P)): personas and biographies of 63 occupations, gender "
        "unspecified and named; who is represented and how (Calibrated Marked Words, SRB, probe)."
    )

    study_options = STUDY_OPTIONS
    quick_max_tokens = QUICK.max_tokens
    table_roles = TABLE_ROLES
    table_help = "one row per text; occupations of the built-in study get their BLS share"
    analysis_options = ANALYSIS_OPTIONS

    def build(self, source: str | Path, options: Mapping[str, Any]) -> Study:
        """The study to run (see :func:`build_study`)."""
        return build_study(source, options)

    def size_units(self, plan: StudyPlan) -> int:
        """The occupations: the comparisons pair each occupation across runs."""
        return count_units(plan, "subject")

    def check_analysis_options(self, options: Mapping[str, Any]) -> None:
        """Also check the embeddings named for SRB and for the probe (before a run
        generates: an unknown name or a missing file is one line, nothing paid)."""
        super().check_analysis_options(options)
        check_embedding_options(options)

    def analyze(self, store: Path, results: Path, options: Mapping[str, Any]) -> Mapping[str, Any]:
        """Who is represented and how (:mod:`.analysis`), saved to ``results``."""
        from gasp.studies.more_of_the_same._steps import analyze_step

        return self.with_headline(results, analyze_step(store, results, options))

    def analyze_texts(
        self, texts: TextTable, results: Path, options: Mapping[str, Any]
    ) -> Mapping[str, Any]:
        """Who is represented and how, in a user's table of texts."""
        from gasp.studies.more_of_the_same._texts import analyze_texts_step

        return self.with_headline(results, analyze_texts_step(texts, results, options))

    def probe(self, results: Path, options: Mapping[str, Any]) -> str:
        """Cluster the significant words of saved results (Figure 5); a one-line summary."""
        from gasp.studies.more_of_the_same._steps import probe_step

        return probe_step(results, options)

    def headline_metrics(self) -> tuple[HeadlineMetric, ...]:
        """The headline metrics of the audit scorecard (see the ``_headline`` module)."""
        from gasp.studies.more_of_the_same._headline import HEADLINE_METRICS

        return HEADLINE_METRICS

    def report(self, results: Path, out: Path, options: Mapping[str, Any]) -> Path:
        """The audit report (or a comparison's) from saved results only."""
        from gasp.studies.more_of_the_same._steps import report_step

        return report_step(results, out, options)

    def compare(
        self, runs: Sequence[Path], out: Path, options: Mapping[str, Any]
    ) -> Mapping[str, Any]:
        """Table 14 and Figure 4 across runs, saved to ``out``, with the comparison report."""
        from gasp.studies.more_of_the_same._steps import compare_step

        return compare_step(runs, out, options)


STUDY_TYPE = MoreOfTheSame()
