"""The settings of a run, each declared once: name, kind, default, range and help.

A run's decoding, its runner and the analysis settings every study may read are
declared here as :class:`Setting` values, grouped; a study's own options are declared
by the study (:class:`gasp.studies.StudyOption`), and those it gives a flag of their own
(``--n``, ``--min-share``) join these as settings of their step
(:mod:`gasp.pipeline._study_flags`). The keywords of :func:`gasp.run` and
:func:`gasp.analyze`, the flags of ``gasp run``, ``gasp generate`` and ``gasp analyze``
(generated from these declarations), their help and their checks all come from here;
a rule that belongs to another package (the temperature's range and the request budgets
to the backends and the runner) is checked there, and the declaration only names it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from gasp._defaults import MAX_EXAMPLES_PER_WORD, MAX_RESAMPLES
from gasp.errors import ArgumentError
from gasp.pipeline._declaration import SOME_STUDIES, Group, Setting
from gasp.pipeline._study_flags import study_flag_settings

_S = Setting
#: The generic settings of a run, by group, in the order ``--help`` lists them.
SETTINGS: tuple[Setting, ...] = (
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
    _S("threshold", "z-score a marked word must exceed (default 1.96).", "analysis",
       kind="float", panel=SOME_STUDIES),
    _S("level", "Benjamini-Hochberg false discovery rate of the word tests instead of "
       "z > 1.96 (--fdr is its old name).", "analysis", kind="float", minimum=0, maximum=1,
       exclusive_minimum=True, exclusive_maximum=True, old_flags=("--fdr",),
       panel=SOME_STUDIES),
    _S("fdr_scope", "Family of the FDR: comparison (default) or study (every word x subject "
       "x comparison test at once; --level defaults to 0.05).", "analysis",
       choices=("comparison", "study"), panel=SOME_STUDIES),
    _S("bootstrap", "Draws behind each interval (0: none; docs/intervals.md; at most "
       "100,000: the memory each draw holds bounds it).", "analysis", kind="int", minimum=0,
       maximum=MAX_RESAMPLES, panel=SOME_STUDIES),
    _S("examples_per_word", "Example generations saved per significant word (default 50, "
       "at most 1,000).", "analysis", kind="int", minimum=1, maximum=MAX_EXAMPLES_PER_WORD),
)  # fmt: skip


#: The settings of a run: the generic ones, then the flags of the studies' own options.
ALL_SETTINGS: tuple[Setting, ...] = (*SETTINGS, *study_flag_settings())
BY_NAME: Mapping[str, Setting] = {s.name: s for s in ALL_SETTINGS}


def settings_of(*groups: Group) -> tuple[Setting, ...]:
    """The settings of ``groups``, in their declared order (the studies' flags last)."""
    return tuple(s for s in ALL_SETTINGS if s.group in groups)


def names_of(*groups: Group) -> tuple[str, ...]:
    """The names of the settings of ``groups``."""
    return tuple(s.name for s in settings_of(*groups))


def pop_study_flags(options: dict[str, Any], *groups: Group) -> dict[str, Any]:
    """Take the studies' flags of ``groups`` (all: none named) out of ``options``; those
    given (neither None nor a switch left off) are returned, by name, as the study's
    own options."""
    flags = [s for s in ALL_SETTINGS if s.study_option and (not groups or s.group in groups)]
    taken = {s.name: options.pop(s.name) for s in flags if s.name in options}
    # a switch left off (False, its declared default) is not given
    return {k: v for k, v in taken.items() if v is not None and v is not False}


def check_settings(values: Mapping[str, Any], names: Iterable[str] | None = None) -> None:
    """Check each of ``values`` against its declaration (``names``: those allowed; an
    unknown one is an :class:`ArgumentError`)."""
    allowed = set(BY_NAME if names is None else names)
    for name, value in values.items():
        if name not in allowed:
            raise ArgumentError(f"unknown setting {name!r}")
        BY_NAME[name].check(value)


def default_of(name: str) -> Any:
    """The declared default of the setting ``name``."""
    return BY_NAME[name].default


__all__ = [
    "ALL_SETTINGS",
    "BY_NAME",
    "SETTINGS",
    "SOME_STUDIES",
    "Setting",
    "check_settings",
    "default_of",
    "names_of",
    "pop_study_flags",
    "settings_of",
]
