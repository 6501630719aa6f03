""":func:`audit`, :func:`audit_async` and :func:`plan_audit`: several models, one scorecard."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from gasp._api._awaitable import awaitable
from gasp._api._keywords import (
    RENAMED_IN_AUDIT,
    in_python_words,
    renamed,
    require_bool,
    require_int,
    require_level,
    require_path,
    require_texts,
)
from gasp.auditing import DEFAULT_LEVEL, DEFAULT_OUT, AuditPlan, Scorecard
from gasp.errors import ArgumentTypeError

#: Options given per model or per study: a mapping in Python, ``[NAME:]KEY=VALUE`` texts
#: on the command line (and still accepted here).
Scoped = Mapping[str, Any] | Sequence[str] | None


def _scoped_pairs(function: str, name: str, value: Scoped) -> list[str]:
    """``{"b": {"female_share": 0.9}}`` or ``{"n": 4}`` (every model or study) as the
    ``[NAME:]KEY=VALUE`` texts the audit reads."""
    if value is None:
        return []
    if not isinstance(value, Mapping):
        return require_texts(function, name, value)
    pairs = []
    for key, inner in value.items():
        if not isinstance(key, str):
            raise ArgumentTypeError(f"{function}(): {name} has a key that is not a name: {key!r}")
        if isinstance(inner, Mapping):
            pairs += [f"{key}:{k}={_text(v)}" for k, v in inner.items()]
        else:
            pairs.append(f"{key}={_text(inner)}")
    return pairs


def _text(value: Any) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def _config(function: str, options: dict[str, Any]) -> dict[str, Any]:
    """The audit's keyword options checked for their types, scoped ones as texts (old
    spellings renamed, with a deprecation warning)."""
    options = renamed(function, options, names=RENAMED_IN_AUDIT)
    for name in ("model_options", "study_options"):
        if name in options:
            options[name] = _scoped_pairs(function, name, options[name])
    for name in ("quick", "batch", "probe", "quiet"):
        if name in options:
            require_bool(function, name, options[name])
    if "seed" in options:
        require_int(function, "seed", options["seed"], minimum=0, maximum=2**32 - 1)
    for name in ("base_urls", "margins", "redo", "detect"):
        if name in options:
            options[name] = require_texts(function, name, options[name])
    return options


def _checked_call(
    function: str,
    target: Callable[..., Any],
    models: Sequence[str] | str,
    studies: Sequence[str] | str | None,
    baseline: str | None,
    out: str | Path,
    level: float,
    options: dict[str, Any],
) -> Any:
    """``target`` (the audit's runner or planner) called with the keywords checked in
    ``function``'s words, its errors worded the same way."""
    given = _config(function, options)
    folder = require_path(function, "out", out, optional=False)
    chosen = require_level(function, "level", level)
    assert folder is not None and chosen is not None
    with in_python_words(function):
        return target(models, studies, baseline, folder, chosen, **given)


def audit(
    models: Sequence[str] | str,
    studies: Sequence[str] | str | None = None,
    baseline: str | None = None,
    *,
    out: str | Path = DEFAULT_OUT,
    level: float = DEFAULT_LEVEL,
    quick: bool = False,
    seed: int = 0,
    model_options: Scoped = None,
    study_options: Scoped = None,
    quiet: bool = True,
    **options: Any,
) -> Scorecard:
    """Audit ``models`` (``[NAME=]provider/model`` each) on ``studies`` (default: every
    study) against ``baseline`` (a model's name; None: every pair) in the folder
    ``out``, as ``gasp audit`` does, and return the scorecard.

    Each difference of the studies' headline metrics is tested and one
    Benjamini-Hochberg correction at ``level`` covers the whole scorecard.
    ``model_options`` are per model (``{"b": {"female_share": 0.9}}``) or for every
    model (``{"device": "cpu"}``); ``study_options`` likewise per study. ``options``
    are the other settings of ``gasp audit`` by keyword (``system_prompt_variants``,
    ``detect``, ``fail_on``, ``margins``, ``junit``, ``redo``, ``request_budget``,
    ``cost_budget``, ``base_urls``, ``api_key_env``, ``batch``, ``request_rate``, ...).
    Everything is checked before anything is written; the same call on the same
    folder resumes. ``quiet=False`` shows each run's steps and progress. It works inside
    a running event loop (a Jupyter kernel) too.

    Example:
        >>> import gasp
        >>> card = gasp.audit(["a=mock/personas", "b=mock/personas"], "narratives",
        ...                   baseline="a", out=folder / "audit", quick=True, quiet=True,
        ...                   model_options={"b": {"female_share": 0.9}},
        ...                   study_options={"narratives": {"n": 10}})
        >>> row = card.comparisons.set_index("metric").loc["named_female_share"]
        >>> bool(row["significant"]), row["direction"] in ("better", "worse")
        (True, True)
    """
    from gasp.auditing import run_audit

    given = {**options, "quick": quick, "seed": seed, "quiet": quiet,
             "model_options": model_options, "study_options": study_options}  # fmt: skip
    card: Scorecard = _checked_call(
        "gasp.audit", run_audit, models, studies, baseline, out, level, given
    )
    return card


audit_async = awaitable(
    audit,
    "audit_async",
    """:func:`audit` for a caller with an event loop of its own: ``await
    gasp.audit_async(...)`` takes what :func:`audit` takes and runs the audit on a worker
    thread, the loop free meanwhile.

    Example:
        >>> import asyncio, gasp
        >>> card = asyncio.run(gasp.audit_async(["a=mock/personas", "b=mock/echo"],
        ...                    "pronoun-pairs", baseline="a", out=folder / "audit-async",
        ...                    quick=True, quiet=True))
        >>> card.exit_status
        0
    """,
)


def plan_audit(
    models: Sequence[str] | str,
    studies: Sequence[str] | str | None = None,
    baseline: str | None = None,
    *,
    out: str | Path = DEFAULT_OUT,
    level: float = DEFAULT_LEVEL,
    quick: bool = False,
    model_options: Scoped = None,
    study_options: Scoped = None,
    **options: Any,
) -> AuditPlan:
    """The plan of :func:`audit` with the same arguments (``gasp audit --plan``): the
    studies' sizes, requests, tokens, cost and expected time. Nothing is written or
    sent, so no API key is needed; ``plan.lines()`` says which model lacks one.

    Example:
        >>> import gasp
        >>> plan = gasp.plan_audit(["a=mock/personas", "b=mock/personas"], "narratives",
        ...                        baseline="a", out=folder / "planned", quick=True)
        >>> plan.requests > 0
        True
    """
    from gasp.auditing import plan_only

    given = {**options, "quick": quick, "model_options": model_options,
             "study_options": study_options}  # fmt: skip
    plan: AuditPlan = _checked_call(
        "gasp.plan_audit", plan_only, models, studies, baseline, out, level, given
    )
    return plan


__all__ = ["audit", "audit_async", "plan_audit"]
