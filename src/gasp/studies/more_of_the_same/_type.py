"""More of the Same as a registered study type: options, analysis, probe and report."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from gasp.errors import ConfigError
from gasp.io import TextTable
from gasp.results import HeadlineMetric
from gasp.studies import StudyType, reject_options
from gasp.studies.more_of_the_same._load import load_study, load_subjects_csv
from gasp.studies.more_of_the_same._model import STUDY_KIND, Study
from gasp.studies.more_of_the_same._texts import TABLE_ROLES

#: Options of ``gasp run`` / ``gasp generate`` this study reads when building itself.
BUILD_OPTIONS = {"occupations", "occupations_file", "n", "templates", "conditions", "cap_factor"}


@dataclasses.dataclass(frozen=True)
class QuickPreset:
    """The reduced run of ``gasp run --quick``.

    Sized for the embedded SmolLM2 model on a 2-core CPU (about 90 tokens/s at batch
    16): 3 occupations, both templates, the four conditions, ``n`` samples per named
    cell and per associated gender, unspecified cells capped at ``cap_factor`` x n.
    """

    occupations: tuple[str, ...] = ("nurse", "engineer", "software engineer")
    n: int = 8
    max_tokens: int = 80
    cap_factor: int = 3
    probe_k: int | None = None


QUICK = QuickPreset()


def _split(value: str | None) -> list[str] | None:
    if value is None:
        return None
    items = [v.strip() for v in value.split(",") if v.strip()]
    if not items:
        raise ConfigError("an empty list was given; separate names with commas")
    return items


def build_study(source: str | Path, options: Mapping[str, Any]) -> Study:
    """The study named by ``source`` (built-in name or study file), reduced by the
    options ``occupations``, ``occupations_file``, ``n``, ``templates``,
    ``conditions`` and ``cap_factor`` (None: unchanged)."""
    reject_options(STUDY_KIND, options, BUILD_OPTIONS)
    occupations = options.get("occupations")
    occupations_file = options.get("occupations_file")
    n = options.get("n")
    cap_factor = options.get("cap_factor")
    if occupations and occupations_file:
        raise ConfigError("give --occupations or --occupations-file, not both")
    if n is not None and n < 1:
        raise ConfigError(f"--n must be a positive integer, got {n}")
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
    spec = spec.restrict(
        subjects=names,
        templates=_split(options.get("templates")),
        conditions=_split(options.get("conditions")),
        n=n,
    )
    if cap_factor is None:
        return spec
    if cap_factor < 1:
        raise ConfigError(f"--cap-factor must be at least 1, got {cap_factor}")
    return dataclasses.replace(
        spec, stopping=dataclasses.replace(spec.stopping, cap_factor=cap_factor)
    )


#: Analysis options this study reads.
ANALYSIS_OPTIONS = frozenset(
    {
        "min_samples",
        "min_share",
        "per_template",
        "threshold",
        "fdr",
        "fdr_scope",
        "plain",
        "embeddings",
        "bootstrap",
        "simulations",
        "permutations",
        "seed",
        "examples_per_word",
    }
)


class MoreOfTheSame(StudyType):
    """GAS(P) of seed ``000``: generate, associate, statistically test, probe."""

    name = STUDY_KIND
    description = (
        "More of the Same (GAS(P)): personas and biographies of 63 occupations, gender "
        "unspecified and named; who is represented and how (Calibrated Marked Words, SRB, probe)."
    )

    table_roles = TABLE_ROLES
    table_help = "one row per text; occupations of the built-in study get their BLS share"
    analysis_options = ANALYSIS_OPTIONS

    def build(self, source: str | Path, options: Mapping[str, Any]) -> Study:
        """The study to run (see :func:`build_study`)."""
        return build_study(source, options)

    def quick_options(self) -> dict[str, Any]:
        """``--quick``: 3 occupations, n = 8, 80 tokens, unspecified cells capped at 3 x n."""
        return {
            "occupations": ",".join(QUICK.occupations),
            "n": QUICK.n,
            "max_tokens": QUICK.max_tokens,
            "cap_factor": QUICK.cap_factor,
        }

    def analyze(self, store: Path, results: Path, options: Mapping[str, Any]) -> Mapping[str, Any]:
        """Who is represented and how (:mod:`.analysis`), saved to ``results``."""
        from gasp.studies.more_of_the_same._steps import analyze_step

        return analyze_step(store, results, options)

    def analyze_texts(
        self, texts: TextTable, results: Path, options: Mapping[str, Any]
    ) -> Mapping[str, Any]:
        """Who is represented and how, in a user's table of texts."""
        from gasp.studies.more_of_the_same._texts import analyze_texts_step

        return analyze_texts_step(texts, results, options)

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
