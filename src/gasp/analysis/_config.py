"""Settings of the analysis of a run (seed ``000`` Sections 4.1, 4.2, Appendix A.3, B.4)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gasp.errors import ConfigError

UNSPECIFIED = "unspecified"
"""The condition of the prompts that name no gender."""

ALL_TEMPLATES = "all"
"""The ``template`` value of rows pooled over every template."""


@dataclass(frozen=True)
class AnalysisConfig:
    """Every setting of :func:`gasp.analysis.analyze_samples`.

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
        min_count: words seen fewer times in the target group are never marked.
        calibrated: use Calibrated Marked Words (True, the paper) or plain Marked Words.
        calibration: settings passed to Calibrated Marked Words (its ``config``); None uses
            its defaults.
        embeddings: name of the word embeddings for SRB (``"glove"`` by default) or an
            embeddings object already loaded.
        n_bootstrap: resamples for the bootstrap confidence interval of each SRB score
            (0 switches the bootstrap off).
        ci_level: level of those intervals.
        n_permutations: label shuffles of the permutation test of the SRB difference
            (0 switches it off).
        seed: seed of the ``numpy.random.Generator`` behind the bootstrap and permutations.
        decile_width: width in percent of the bins of Figures 2, 6 and 7.
    """

    min_samples: int = 100
    min_share: float = 0.10
    pool_templates: bool = True
    threshold: float = 1.96
    fdr_alpha: float | None = None
    min_count: int = 0
    calibrated: bool = True
    calibration: Any = None
    embeddings: Any = "glove"
    n_bootstrap: int = 20
    ci_level: float = 0.95
    n_permutations: int = 50
    seed: int = 0
    decile_width: float = 10.0

    def __post_init__(self) -> None:
        if self.min_samples < 1:
            raise ConfigError(f"min_samples must be at least 1, got {self.min_samples}")
        if not 0.0 <= self.min_share < 0.5:
            raise ConfigError(f"min_share must lie in [0, 0.5), got {self.min_share}")
        if self.n_bootstrap < 0 or self.n_permutations < 0:
            raise ConfigError("n_bootstrap and n_permutations must not be negative")
        if not 0.0 < self.ci_level < 1.0:
            raise ConfigError(f"ci_level must lie in (0, 1), got {self.ci_level}")
        if self.fdr_alpha is not None and not 0.0 < self.fdr_alpha < 1.0:
            raise ConfigError(f"fdr_alpha must lie in (0, 1), got {self.fdr_alpha}")
        if not 0.0 < self.decile_width <= 100.0:
            raise ConfigError(f"decile_width must lie in (0, 100], got {self.decile_width}")

    def to_meta(self) -> dict[str, Any]:
        """The settings as plain JSON-friendly values (for ``AuditResults.meta``)."""
        emb = (
            self.embeddings if isinstance(self.embeddings, str) else type(self.embeddings).__name__
        )
        return {
            "min_samples": self.min_samples,
            "min_share": self.min_share,
            "pool_templates": self.pool_templates,
            "threshold": self.threshold,
            "fdr_alpha": self.fdr_alpha,
            "min_count": self.min_count,
            "calibrated": self.calibrated,
            "embeddings": emb,
            "n_bootstrap": self.n_bootstrap,
            "ci_level": self.ci_level,
            "n_permutations": self.n_permutations,
            "seed": self.seed,
            "decile_width": self.decile_width,
        }
