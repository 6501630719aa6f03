"""Settings of the analysis of a run (seed ``000`` Sections 4.1, 4.2, Appendix A.3, B.4)."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from gasp._defaults import DEFAULT_THRESHOLD
from gasp.errors import ConfigError
from gasp.results import EXAMPLES_PER_WORD
from gasp.stats import (
    CALIBRATION_SPLITS,
    CLUSTER,
    DEFAULT_SIMULATIONS,
    FDR_SCOPES,
    SIMULATED,
    SUBSAMPLE,
    IntervalScheme,
    SignificanceRule,
)

UNSPECIFIED = "unspecified"
"""The condition of the prompts that name no gender."""

ALL_TEMPLATES = "all"
"""The ``template`` value of rows pooled over every template."""


@dataclass(frozen=True)
class AnalysisConfig:
    """Every setting of :func:`~.analysis.analyze_samples`.

    Attributes:
        min_samples: the sampling threshold ``n`` of Algorithm 5 (seed ``000``): a subject
            takes part in the "how" analysis only when both associated women and associated
            men reach ``n`` generations (100 in the paper).
        min_share: both associated genders must also make up at least this share of the
            unspecified generations of the subject (10% in the paper, Appendix A.3).
        pool_templates: compute marked words and SRB per subject pooled over templates
            (True, the paper's Figure 3 reports one score per occupation) or per subject and
            template (False).
        threshold: z-score threshold of (Calibrated) Marked Words (1.96 in the paper).
        fdr_alpha: when set, Benjamini-Hochberg control of the false discovery rate at this
            level replaces the fixed threshold.
        fdr_scope: the family of that procedure: the words of one comparison
            (``"comparison"``, the default) or every word x subject x comparison test of
            the run at once (``"study"``; see :func:`gasp.stats.study_rule`).
        min_count: words seen fewer times in the target group are never marked.
        calibrated: use Calibrated Marked Words (True, the paper) or plain Marked Words.
        calibration: settings passed to Calibrated Marked Words (its ``config``); None uses
            its defaults.
        embeddings: name of the word embeddings for SRB (``"glove"`` by default) or an
            embeddings object already loaded.
        n_bootstrap: subsamples behind the interval of each SRB score, half of them at
            ``subsample_fraction`` and half at its square root (0 switches the intervals
            off); see :meth:`srb_interval_scheme`. Used only with ``n_simulations=0``.
        n_simulations: data sets simulated from each unit's fitted world at the
            run's size (and as many at half of it) behind the interval of each SRB score,
            whose width is calibrated on random splits of the run into halves
            (``docs/intervals.md``); 0 uses the subsample interval instead, and
            ``n_bootstrap=0`` switches both off.
        subsample_fraction: share ``b`` of each group's generations drawn, without
            replacement, into each subsample (see :mod:`gasp.stats` resampling notes).
        ci_level: level of those intervals.
        n_permutations: label shuffles of the permutation test of the SRB difference
            (0 switches it off).
        n_sign_flips: random sign assignments of the paired sign-flip test of the SRB
            difference when there are too many units to enumerate every assignment
            (:data:`gasp.stats.EXACT_UNITS`).
        seed: seed of the ``numpy.random.Generator`` behind the bootstrap and permutations.
        decile_width: width in percent of the bins of Figures 2, 6 and 7.
        examples_per_word: most example generations saved per significant word for the
            report's word browser (shared among the gender groups, chosen with ``seed``).
        extra_gender_terms: words added to :data:`gasp.text.GENDER_TERMS` for the name-free
            SRB variant, which removes person names and gender terms from every word set.
        name_ratio: ``name_ratio`` of :func:`gasp.names.is_person_name` for that variant
            (25: a common word is a name when its share of US births is at least 25 times
            its English frequency; see ``analysis._name_free``).
    """

    min_samples: int = 100
    min_share: float = 0.10
    pool_templates: bool = True
    threshold: float = DEFAULT_THRESHOLD
    fdr_alpha: float | None = None
    fdr_scope: str = "comparison"
    min_count: int = 0
    calibrated: bool = True
    calibration: Any = None
    embeddings: Any = "glove"
    n_bootstrap: int = 100
    n_simulations: int = DEFAULT_SIMULATIONS
    subsample_fraction: float = 0.5
    ci_level: float = 0.95
    n_permutations: int = 50
    n_sign_flips: int = 9999
    seed: int = 0
    decile_width: float = 10.0
    examples_per_word: int = EXAMPLES_PER_WORD
    extra_gender_terms: tuple[str, ...] = ()
    name_ratio: float = 25.0

    def __post_init__(self) -> None:
        if self.min_samples < 1:
            raise ConfigError(f"min_samples must be at least 1, got {self.min_samples}")
        if not 0.0 <= self.min_share < 0.5:
            raise ConfigError(f"min_share must lie in [0, 0.5), got {self.min_share}")
        if self.n_sign_flips < 1:
            raise ConfigError(f"n_sign_flips must be at least 1, got {self.n_sign_flips}")
        if self.n_bootstrap < 0 or self.n_permutations < 0 or self.n_simulations < 0:
            raise ConfigError("n_bootstrap, n_simulations and n_permutations must not be negative")
        if not 0.0 < self.ci_level < 1.0:
            raise ConfigError(f"ci_level must lie in (0, 1), got {self.ci_level}")
        if not 0.0 < self.subsample_fraction < 1.0:
            raise ConfigError(
                f"subsample_fraction must lie in (0, 1), got {self.subsample_fraction}"
            )
        if self.fdr_alpha is not None and not 0.0 < self.fdr_alpha < 1.0:
            raise ConfigError(f"fdr_alpha must lie in (0, 1), got {self.fdr_alpha}")
        if self.fdr_scope not in FDR_SCOPES:
            raise ConfigError(
                f"fdr_scope must be one of {', '.join(FDR_SCOPES)}: {self.fdr_scope!r}"
            )
        if self.fdr_scope == "study" and self.fdr_alpha is None:
            raise ConfigError("a study-wide FDR (fdr_scope='study') needs fdr_alpha")
        if not 0.0 < self.decile_width <= 100.0:
            raise ConfigError(f"decile_width must lie in (0, 100], got {self.decile_width}")
        if isinstance(self.extra_gender_terms, str):
            raise ConfigError("extra_gender_terms must be a sequence of words, not one string")
        object.__setattr__(self, "extra_gender_terms", tuple(self.extra_gender_terms))
        if not self.name_ratio > 0:
            raise ConfigError(f"name_ratio must be positive, got {self.name_ratio}")
        if self.examples_per_word < 1:
            raise ConfigError(f"examples_per_word must be at least 1, got {self.examples_per_word}")

    def rule(self) -> SignificanceRule:
        """The significance rule of these settings (a study-wide FDR still unresolved)."""
        return SignificanceRule.from_options(
            self.threshold, self.fdr_alpha, self.min_count, self.fdr_scope
        )

    def srb_interval_scheme(self) -> IntervalScheme:
        """How the interval of each SRB score is obtained: subsamples of the generations.

        SRB is computed from the set of marked words, which a with-replacement resample
        inflates; subsamples without replacement keep the sets honest.
        """
        return IntervalScheme(
            SUBSAMPLE,
            self.n_bootstrap,
            self.seed,
            self.ci_level,
            fraction=self.subsample_fraction,
            unit="generations",
        )

    def srb_simulated(self) -> bool:
        """Whether the SRB intervals are calibrated on simulations (``n_bootstrap=0``
        switches every SRB interval off; ``n_simulations=0`` keeps the subsample one)."""
        return self.n_simulations > 0 and self.n_bootstrap > 0

    def simulated_interval_record(self) -> dict[str, Any]:
        """How the SRB intervals are calibrated on simulations of the run's own data
        (``n_simulations`` data sets per level; 0: the subsample interval instead)."""
        return {
            "interval_scheme": SIMULATED,
            "interval_draws": self.n_simulations,
            "interval_splits_per_unit": CALIBRATION_SPLITS,
            "interval_seed": self.seed,
            "interval_level": self.ci_level,
            "interval_unit": "data sets resampled from the run's fitted world",
        }

    def mean_interval_scheme(self) -> IntervalScheme:
        """How the interval of a mean of SRB scores across units is obtained: whole units
        (occupations) drawn with replacement."""
        return IntervalScheme(CLUSTER, 1000, self.seed, self.ci_level, unit="occupations")

    def paired_settings(self) -> dict[str, Any]:
        """How the paired SRB tests are run (saved with the results, read by the report)."""
        from gasp.stats import EXACT_UNITS

        return {
            "decision": "paired t-test",
            "level": self.ci_level,
            "interval": "t interval of the mean F-M difference over paired units",
            "sign_flip_exact_up_to": EXACT_UNITS,
            "sign_flip_draws": self.n_sign_flips,
            "sign_flip_seed": self.seed,
        }

    def settings(self, embeddings: Any = None) -> dict[str, Any]:
        """The settings as saved with the results (``AuditResults.meta["settings"]``).

        ``embeddings`` (a loaded provider) overrides ``self.embeddings`` in the record.
        The layout is documented in :mod:`gasp.studies.more_of_the_same.analysis` (saved settings).
        """
        emb = embeddings if embeddings is not None else self.embeddings
        name = emb if isinstance(emb, str) else getattr(emb, "name", None) or type(emb).__name__
        return {
            "significance": {
                "rule": "fdr" if self.fdr_alpha is not None else "threshold",
                "threshold": self.threshold,
                "fdr_alpha": self.fdr_alpha,
                "fdr_scope": self.fdr_scope,
                "min_count": self.min_count,
            },
            "marked_words": {
                "method": "calibrated" if self.calibrated else "plain",
                "prior": "unit and English" if self.calibrated else "unit",
                "calibration": _calibration_settings(self.calibration) if self.calibrated else None,
            },
            "sampling": {"min_samples": self.min_samples, "min_share": self.min_share},
            "pool_templates": self.pool_templates,
            "srb": {
                "embeddings": str(name),
                "n_bootstrap": self.n_bootstrap,
                "ci_level": self.ci_level,
                "n_simulations": self.n_simulations,
                "interval": (
                    self.simulated_interval_record()
                    if self.srb_simulated()
                    else self.srb_interval_scheme().record()
                ),
                "mean_interval": self.mean_interval_scheme().record(),
                "n_permutations": self.n_permutations,
                "paired": self.paired_settings(),
                "variants": ["paper", "names_removed"],
                "names_removed": {
                    "names": "US Social Security first names (gasp.names.is_person_name)",
                    "gender_terms": "gasp.text.GENDER_TERMS",
                    "name_ratio": self.name_ratio,
                    "extra_gender_terms": sorted(str(w) for w in self.extra_gender_terms),
                },
            },
            "decile_width": self.decile_width,
            "seed": self.seed,
            "examples": {"per_word": self.examples_per_word, "seed": self.seed},
        }


def _calibration_settings(calibration: Any) -> dict[str, Any]:
    """The C values, prior weights and sources of Calibrated Marked Words, as plain values."""
    from gasp.stats import CalibratedConfig

    if calibration is None:
        calibration = CalibratedConfig()
    if dataclasses.is_dataclass(calibration) and not isinstance(calibration, type):
        values = dataclasses.asdict(calibration)
    elif isinstance(calibration, Mapping):
        values = dict(calibration)
    else:
        return {"value": repr(calibration)}
    return {k: list(v) if isinstance(v, tuple) else v for k, v in values.items()}


_FIELDS = frozenset(f.name for f in dataclasses.fields(AnalysisConfig))


def analysis_config_for_run(
    manifest: Mapping[str, Any] | None = None, **overrides: Any
) -> AnalysisConfig:
    """The analysis settings of a stored run: what ``gasp run`` and ``gasp analyze`` use.

    Defaults come from the run's manifest: ``min_samples`` is the study's ``n``
    (``manifest["study"]["n"]``) and ``seed`` the run's seed (``manifest["seed"]``);
    every other setting keeps its :class:`AnalysisConfig` default. ``overrides`` (any
    :class:`AnalysisConfig` field) replace them; an override of None is ignored, so
    command-line options left unset fall through to the run's values.
    """
    unknown = sorted(set(overrides) - _FIELDS)
    if unknown:
        raise ConfigError(f"unknown analysis setting(s): {', '.join(unknown)}")
    values: dict[str, Any] = {}
    man = manifest if isinstance(manifest, Mapping) else {}
    study = man.get("study")
    n = study.get("n") if isinstance(study, Mapping) else None
    if isinstance(n, int) and not isinstance(n, bool) and n >= 1:
        values["min_samples"] = n
    seed = man.get("seed")
    if isinstance(seed, int) and not isinstance(seed, bool):
        values["seed"] = seed
    values.update({k: v for k, v in overrides.items() if v is not None})
    return AnalysisConfig(**values)
