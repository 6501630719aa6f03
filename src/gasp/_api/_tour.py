""":func:`tour`: the quick audit of one model, every study's quick run and a scorecard."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from gasp._api._audit import Scoped, _scoped_pairs
from gasp._api._keywords import (
    in_python_words,
    require_bool,
    require_int,
    require_path,
    require_text,
    require_texts,
)
from gasp.auditing import Scorecard
from gasp.pipeline import DEFAULT_MODEL

#: Where :func:`tour` writes unless told.
TOUR_OUT = Path("runs/tour")


def tour(
    model: str = DEFAULT_MODEL,
    *,
    out: str | Path = TOUR_OUT,
    studies: str | Sequence[str] | None = None,
    seed: int = 0,
    model_options: Scoped = None,
    quiet: bool = True,
) -> Scorecard:
    """Run the quick version of every study (or of ``studies``) on ``model``, the probe
    included, and write the scorecard page linking the reports, as ``gasp tour`` does.

    It is :func:`audit` with ``quick=True``, one model and no comparison: each study
    runs in ``<out>/<model>/<study>/``, and ``<out>/index.html`` and
    ``<out>/scorecard.json`` hold every headline metric with its interval. The same
    call again resumes and does not redo a finished run. A study that fails or that
    the model cannot serve is listed with its reason in ``card.runs`` (its ``status``
    is not ``complete``) while the others still run; an unknown model or study stops
    the tour before it starts. ``quiet=False`` shows each run's steps.

    Example:
        >>> import gasp
        >>> card = gasp.tour("mock/personas", out=folder / "tour", studies="pronoun-pairs")
        >>> [run["status"] for run in card.runs]
        ['complete']
    """
    fn = "gasp.tour"
    require_text(fn, "model", model)
    folder = require_path(fn, "out", out, optional=False)
    assert folder is not None
    names = None if studies is None else require_texts(fn, "studies", studies)
    require_int(fn, "seed", seed, minimum=0, maximum=2**32 - 1)
    require_bool(fn, "quiet", quiet)
    options = _scoped_pairs(fn, "model_options", model_options)
    from gasp.auditing import DEFAULT_LEVEL, AuditConfig, execute, prepare_audit

    config = AuditConfig(quick=True, seed=seed, model_options=options, probe=True, quiet=quiet)
    with in_python_words(fn):
        audit = prepare_audit([model], names or None, None, folder, DEFAULT_LEVEL, config)
    title = f"gasp tour: {len(audit.studies)} studies on {model} -> {folder}/{audit.models[0].name}"
    return execute(audit, title=title)


__all__ = ["TOUR_OUT", "tour"]
