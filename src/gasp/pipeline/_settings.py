"""The settings of a run, each declared once: name, kind, default, range, help.

A run's shape (which occupations, how many samples), its decoding, the runner, the
analysis and the probe are declared here as :class:`Setting` values, grouped. The
keywords of :func:`gasp.run` and :func:`gasp.analyze`, the flags of ``gasp run``,
``gasp generate`` and ``gasp analyze`` (generated from these declarations), their help
and their checks all come from this one table; a rule that belongs to another package
(the temperature's range and the request budgets to the backends and the runner,
``k_rule``'s choices to the probe, ``n`` to each study) is checked there, and the
declaration only names it. A study's own options are declared by the
study (:class:`gasp.studies.StudyOption`).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable, Mapping
from typing import Any, Literal

from gasp.errors import ArgumentError, ArgumentTypeError

Kind = Literal["bool", "int", "float", "text", "path", "texts"]
Group = Literal["shape", "decoding", "runner", "analysis", "probe"]

#: The most resamples (``bootstrap``, ``permutations``) an analysis draws: each holds
#: the statistics of every unit, so 10^9 of them asked for tens of gigabytes.
MAX_RESAMPLES = 100_000
#: The most example texts kept per word (each is copied into the results).
MAX_EXAMPLES_PER_WORD = 1_000
#: Help panels of the command line for settings only some studies read.
SOME_STUDIES = "Some studies"
MORE_OF_THE_SAME = "More of the Same only"


@dataclasses.dataclass(frozen=True)
class Setting:
    """One setting of a run, declared once.

    ``minimum``/``maximum`` bound a number (``exclusive_*`` leave the bound out);
    ``choices`` are the values a text may take. ``flag`` is the command-line spelling
    when it is not the name with dashes (``--base-url`` for ``base_urls``, repeatable);
    ``old_flags`` are spellings still accepted. ``panel`` groups the flag in ``--help``.
    """

    name: str
    help: str
    group: Group
    kind: Kind = "text"
    default: Any = None
    minimum: float | None = None
    maximum: float | None = None
    exclusive_minimum: bool = False
    exclusive_maximum: bool = False
    choices: tuple[str, ...] = ()
    flag: str = ""
    old_flags: tuple[str, ...] = ()
    panel: str = ""

    @property
    def flags(self) -> tuple[str, ...]:
        """The command-line spellings: the flag, then the old ones."""
        return (self.flag or "--" + self.name.replace("_", "-"), *self.old_flags)

    def _range(self) -> str:
        low, high = self.minimum, self.maximum
        if low is not None and high is not None:
            left = "(" if self.exclusive_minimum else "["
            right = ")" if self.exclusive_maximum else "]"
            return f"must lie in {left}{_number(low)}, {_number(high)}{right}"
        if low == 0 and not self.exclusive_minimum:
            return "must not be negative"
        if low is not None:
            return f"must be {'above' if self.exclusive_minimum else 'at least'} {_number(low)}"
        return f"must be {'below' if self.exclusive_maximum else 'at most'} {_number(high or 0)}"

    def check(self, value: Any) -> Any:
        """``value`` when it is of this setting's kind and range (None: not given);
        otherwise one error line naming the flag."""
        if value is None:
            return None
        flag = self.flags[0]
        if self.kind == "bool" and not isinstance(value, bool):
            raise ArgumentTypeError(f"{flag} must be True or False, got {value!r}")
        if self.kind in ("int", "float"):
            integer = self.kind == "int"
            kinds = int if integer else int | float
            if isinstance(value, bool) or not isinstance(value, kinds):
                what = "an integer" if integer else "a number"
                raise ArgumentTypeError(f"{flag} must be {what}, got {value!r}")
            if not math.isfinite(value) or not self._inside(float(value)):
                raise ArgumentError(f"{flag} {self._range()}, got {value}")
        if self.choices and value not in self.choices:
            raise ArgumentError(f"{flag} must be one of {', '.join(self.choices)}, got {value!r}")
        return value

    def _inside(self, number: float) -> bool:
        low, high = self.minimum, self.maximum
        if low is not None and (number <= low if self.exclusive_minimum else number < low):
            return False
        if high is None:
            return True
        return number < high if self.exclusive_maximum else number <= high


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


_S = Setting
#: Every setting of a run, by group, in the order ``--help`` lists them.
SETTINGS: tuple[Setting, ...] = (
    # the shape of the study: each study reads those it declares and refuses the others
    _S("occupations", "Only these occupations (comma separated).", "shape", panel=SOME_STUDIES),
    _S("occupations_file", "Your own occupations CSV (column 'occupation').", "shape",
       kind="path", panel=SOME_STUDIES),
    _S("n", "Samples per cell / per gender.", "shape", kind="int"),
    _S("templates", "Only these templates.", "shape", panel=SOME_STUDIES),
    _S("conditions", "Only these conditions (unspecified,woman,man,nonbinary).", "shape",
       panel=MORE_OF_THE_SAME),
    _S("cap_factor", "Stop an unspecified cell at this many times n samples.", "shape",
       kind="int", minimum=1, panel=MORE_OF_THE_SAME),
    # decoding (the backends check the ranges)
    _S("max_tokens", "Most tokens per answer (default: the study's, else 256).", "decoding",
       kind="int"),
    _S("temperature", "Sampling temperature (default: the study's, else 1).", "decoding",
       kind="float"),
    _S("top_p", "Nucleus sampling mass (default 1).", "decoding", kind="float"),
    # the runner
    _S("max_concurrency", "Most requests in flight.", "runner", kind="int", default=16),
    _S("base_urls", "Server URL for openai-compatible/ models; repeat it to spread the "
       "requests over several servers of the same model (see docs/fleet.md).", "runner",
       kind="texts", flag="--base-url"),
    _S("api_key_env", "Environment variable holding the API key.", "runner"),
    _S("max_requests", "Stop cleanly after this many requests (resumable).", "runner",
       kind="int"),
    _S("max_cost", "Stop cleanly before this many USD (openai/ models).", "runner",
       kind="float"),
    _S("batch", "Send the requests through the provider's batch API (openai/, half price, "
       "answers within 24 h; a killed run resumes polling).", "runner", kind="bool",
       default=False),
    _S("request_deadline", "Most seconds one request may take, its retries and waits "
       "included (default 300; one attempt at most 120 of them): a server that stalls or "
       "trickles its answer is given up on there.", "runner", kind="float", minimum=0,
       exclusive_minimum=True, maximum=86_400),
    _S("wait", "When another process is generating into the same run, wait for it to "
       "finish (default: refuse with one line naming it).", "runner", kind="bool",
       default=False),
    # the analysis
    _S("min_samples", "Generations each associated gender needs (default: the run's n).",
       "analysis", kind="int", minimum=1, panel=MORE_OF_THE_SAME),
    _S("min_share", "Share of unspecified generations each gender needs (default 0.10).",
       "analysis", kind="float", minimum=0, maximum=0.5, exclusive_maximum=True,
       panel=MORE_OF_THE_SAME),
    _S("per_template", "Marked words and SRB per template.", "analysis", kind="bool",
       default=False, panel=MORE_OF_THE_SAME),
    _S("threshold", "z-score a marked word must exceed (default 1.96).", "analysis",
       kind="float", panel=SOME_STUDIES),
    _S("level", "Benjamini-Hochberg false discovery rate of the word tests instead of "
       "z > 1.96 (--fdr is its old name).", "analysis", kind="float", minimum=0, maximum=1,
       exclusive_minimum=True, exclusive_maximum=True, old_flags=("--fdr",),
       panel=SOME_STUDIES),
    _S("fdr_scope", "Family of the FDR: comparison (default) or study (every word x subject "
       "x comparison test at once; --level defaults to 0.05).", "analysis",
       choices=("comparison", "study"), panel=SOME_STUDIES),
    _S("plain", "Plain Marked Words instead of calibrated.", "analysis", kind="bool",
       default=False, panel=MORE_OF_THE_SAME),
    _S("srb_embeddings", "Word embeddings for SRB (default glove; --embeddings is its old "
       "name).", "analysis", old_flags=("--embeddings",), panel=MORE_OF_THE_SAME),
    _S("bootstrap", "Draws behind each interval (0: none; docs/intervals.md; at most "
       "100,000: the memory each draw holds bounds it).", "analysis", kind="int", minimum=0,
       maximum=MAX_RESAMPLES, panel=SOME_STUDIES),
    _S("permutations", "Label shuffles of the permutation test (0: none; at most 100,000).",
       "analysis", kind="int", minimum=0, maximum=MAX_RESAMPLES, panel=MORE_OF_THE_SAME),
    _S("examples_per_word", "Example generations saved per significant word (default 50, "
       "at most 1,000).", "analysis", kind="int", minimum=1, maximum=MAX_EXAMPLES_PER_WORD),
    # the probe (the probe package checks the rule's choices)
    _S("probe_embeddings", "Embeddings of the probe's clustering (minilm, glove, a file).",
       "probe", default="minilm", panel=MORE_OF_THE_SAME),
    _S("k_rule", "How the probe chooses k: max (largest silhouette, default), paper (the "
       "paper's largest fall) or stability.", "probe", panel=MORE_OF_THE_SAME),
    _S("n_init", "k-means++ runs per k in the probe (default 5).", "probe", kind="int",
       minimum=1, panel=MORE_OF_THE_SAME),
)  # fmt: skip

BY_NAME: Mapping[str, Setting] = {s.name: s for s in SETTINGS}


def settings_of(*groups: Group) -> tuple[Setting, ...]:
    """The settings of ``groups``, in their declared order."""
    return tuple(s for s in SETTINGS if s.group in groups)


def names_of(*groups: Group) -> tuple[str, ...]:
    """The names of the settings of ``groups``."""
    return tuple(s.name for s in settings_of(*groups))


def check_settings(values: Mapping[str, Any], names: Iterable[str] | None = None) -> None:
    """Check each of ``values`` against its declaration (``names``: those allowed; an
    unknown one is an :class:`ArgumentError`)."""
    allowed = set(BY_NAME if names is None else names)
    for name, value in values.items():
        if name not in allowed:
            raise ArgumentError(f"unknown setting {name!r}")
        BY_NAME[name].check(value)


#: Settings a study's analysis reads under another name (its historical one).
ANALYSIS_NAMES = {"srb_embeddings": "embeddings"}


def in_analysis_words(values: Mapping[str, Any]) -> dict[str, Any]:
    """``values`` with each setting under the name the studies' analyses read."""
    return {ANALYSIS_NAMES.get(k, k): v for k, v in values.items()}


def default_of(name: str) -> Any:
    """The declared default of the setting ``name``."""
    return BY_NAME[name].default


__all__ = [
    "ANALYSIS_NAMES",
    "BY_NAME",
    "MORE_OF_THE_SAME",
    "SETTINGS",
    "SOME_STUDIES",
    "Setting",
    "check_settings",
    "default_of",
    "in_analysis_words",
    "names_of",
    "settings_of",
]
