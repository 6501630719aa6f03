"""The one significance rule of every marked-words selection.

Marked Words, Calibrated Marked Words, the resampled marked-word sets of the
bootstrap and permutation test, the calibration search and the Probe's word
selection all decide which words are significant with :class:`SignificanceRule`:

* the z-score of the word is above a fixed ``threshold`` (1.96 in the papers), or,
  when ``fdr`` is set, the z-score is positive and the Benjamini-Hochberg procedure
  at level ``fdr`` rejects its two-sided test (``fdr_scope="comparison"``: one family
  per comparison, the words with a finite z-score and enough counts; ``"study"``: one
  family of every test of the study at once, see :func:`gasp.stats.study_rule`);
* and the count of the word in the target group is at least ``min_count``.

A word is marked for a target group when it passes against *every* unmarked group;
that intersection is the caller's (``select`` works per comparison).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from gasp._defaults import DEFAULT_THRESHOLD
from gasp.errors import ConfigError
from gasp.stats._multiple_testing import bh_reject

#: Families of the Benjamini-Hochberg procedure: each comparison, or the whole study.
FDR_SCOPES: tuple[str, ...] = ("comparison", "study")
#: The false discovery rate of a study-wide FDR when no level is given.
DEFAULT_STUDY_FDR = 0.05


def study_fdr_level(fdr: float | None, scope: str | None) -> float | None:
    """The FDR level to apply: ``fdr``, or :data:`DEFAULT_STUDY_FDR` for a study-wide
    scope given without one."""
    return DEFAULT_STUDY_FDR if scope == "study" and fdr is None else fdr


@dataclass(frozen=True)
class SignificanceRule:
    """Which words are significant: ``z > threshold`` or Benjamini-Hochberg FDR, and a count.

    ``threshold`` is the z-score a word must exceed; ``fdr``, when set, is the false
    discovery rate of the Benjamini-Hochberg procedure, which then replaces the
    threshold (``threshold`` is stored as None, so equal rules compare equal);
    ``min_count`` is the least count of the word in the target group; ``fdr_scope``
    says what one family of the procedure is: the words of one comparison
    (``"comparison"``, the default) or every test of the study (``"study"``; the
    study's caller resolves it with :func:`gasp.stats.study_rule`, and on its own the
    rule treats every row it is given as one family). Invalid values raise
    :class:`~gasp.errors.ConfigError`.
    """

    threshold: float | None = DEFAULT_THRESHOLD
    fdr: float | None = None
    min_count: int = 0
    fdr_scope: str = "comparison"

    def __post_init__(self) -> None:
        if self.fdr_scope not in FDR_SCOPES:
            raise ConfigError(
                f"the FDR scope must be one of {', '.join(FDR_SCOPES)}, got {self.fdr_scope!r}"
            )
        if self.fdr_scope == "study" and self.fdr is None:
            raise ConfigError("a study-wide FDR needs a false discovery rate level")
        if self.fdr is not None:
            fdr = float(self.fdr)
            if not 0.0 < fdr < 1.0:
                raise ConfigError(
                    f"the false discovery rate must lie strictly between 0 and 1, got {self.fdr}"
                )
            object.__setattr__(self, "fdr", fdr)
            object.__setattr__(self, "threshold", None)
        elif self.threshold is None:
            raise ConfigError("a significance rule needs a z-score threshold or an FDR level")
        else:
            threshold = float(self.threshold)
            if not math.isfinite(threshold):
                raise ConfigError(
                    f"the z-score threshold must be a finite number, got {self.threshold}"
                )
            object.__setattr__(self, "threshold", threshold)
        if isinstance(self.min_count, bool) or int(self.min_count) != self.min_count:
            raise ConfigError(f"the minimum count must be a whole number, got {self.min_count}")
        if self.min_count < 0:
            raise ConfigError(f"the minimum count must be zero or more, got {self.min_count}")
        object.__setattr__(self, "min_count", int(self.min_count))

    @classmethod
    def from_options(
        cls,
        threshold: float = DEFAULT_THRESHOLD,
        fdr_alpha: float | None = None,
        min_count: int = 0,
        fdr_scope: str = "comparison",
    ) -> SignificanceRule:
        """The rule of the keyword options ``threshold``, ``fdr_alpha``, ``min_count``
        and ``fdr_scope``."""
        return cls(threshold=threshold, fdr=fdr_alpha, min_count=min_count, fdr_scope=fdr_scope)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SignificanceRule:
        """The rule saved by :meth:`to_dict` (unknown keys raise ConfigError)."""
        unknown = set(data) - {"threshold", "fdr", "min_count", "fdr_scope"}
        if unknown:
            raise ConfigError(f"unknown significance rule setting(s): {', '.join(sorted(unknown))}")
        return cls(
            threshold=data.get("threshold"),
            fdr=data.get("fdr"),
            min_count=int(data.get("min_count", 0)),
            fdr_scope=str(data.get("fdr_scope", "comparison")),
        )

    @property
    def method(self) -> str:
        """``"fdr"`` (Benjamini-Hochberg) or ``"threshold"`` (fixed z-score)."""
        return "fdr" if self.fdr is not None else "threshold"

    def to_dict(self) -> dict[str, Any]:
        """The settings as plain values (``threshold``, ``fdr``, ``min_count``, and
        ``fdr_scope`` when it is ``"study"``), JSON-ready."""
        data: dict[str, Any] = {
            "threshold": self.threshold,
            "fdr": self.fdr,
            "min_count": self.min_count,
        }
        if self.fdr_scope != "comparison":
            data["fdr_scope"] = self.fdr_scope
        return data

    def describe(self) -> str:
        """The rule in words, for reports: ``"z > 1.96"`` or ``"Benjamini-Hochberg FDR at 5%"``."""
        if self.fdr is not None:
            text = f"Benjamini-Hochberg FDR at {_percent(self.fdr)}"
            if self.fdr_scope == "study":
                text += " over every test of the study"
        else:
            text = f"z > {self.threshold:g}"
        if self.min_count > 0:
            text += f", seen at least {self.min_count} times in the target group"
        return text

    def passes(self, z: Any, tested: Any = None) -> np.ndarray:
        """Where ``z`` passes the z-score part of the rule (no count condition).

        ``z`` holds one comparison per row (the last axis: the words). With ``fdr``,
        only the entries where ``tested`` is True (default: all) form the families
        of the Benjamini-Hochberg procedure (each row; all rows at once for the
        ``"study"`` scope). NaN never passes.
        """
        z_arr = np.asarray(z, dtype=np.float64)
        finite = np.isfinite(z_arr)
        if self.fdr is None:
            return finite & (np.where(finite, z_arr, -np.inf) > self.threshold)
        positive = finite & (np.where(finite, z_arr, 0.0) > 0)
        if self.fdr_scope == "study":
            mask = None if tested is None else np.broadcast_to(tested, z_arr.shape).ravel()
            flat = bh_reject(z_arr.ravel(), self.fdr, tested=mask)
            return positive & flat.reshape(z_arr.shape)
        return positive & bh_reject(z_arr, self.fdr, tested=tested)

    def select(self, z: Any, counts: Any) -> np.ndarray:
        """Significant entries of ``z`` given the ``counts`` of each word in the target group.

        ``z`` has one comparison per row (words on the last axis) and ``counts``
        broadcasts to it. Returns a boolean mask shaped like ``z``: the z-score part
        passes (Benjamini-Hochberg among the words with enough counts) and the count
        is at least ``min_count``.
        """
        z_arr = np.asarray(z, dtype=np.float64)
        enough = np.broadcast_to(np.asarray(counts) >= self.min_count, z_arr.shape)
        return self.passes(z_arr, tested=enough) & enough


def _percent(level: float) -> str:
    return f"{100 * level:.10g}%"


def resolve_rule(
    rule: SignificanceRule | None,
    threshold: float = DEFAULT_THRESHOLD,
    fdr_alpha: float | None = None,
    min_count: int = 0,
) -> SignificanceRule:
    """``rule``, or the rule of the keyword options when it is None.

    Passing both a rule and options other than the defaults is a ConfigError, so a
    setting is never silently ignored.
    """
    if rule is None:
        return SignificanceRule.from_options(threshold, fdr_alpha, min_count)
    if not isinstance(rule, SignificanceRule):
        raise ConfigError(f"rule must be a SignificanceRule, got {type(rule).__name__}")
    if threshold != DEFAULT_THRESHOLD or fdr_alpha is not None or min_count != 0:
        raise ConfigError("pass either a significance rule or threshold/fdr_alpha/min_count")
    return rule
