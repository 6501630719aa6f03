"""gasp: audit large language models for representational harms in generated text.

The package implements the GAS(P) methodology (Generate, Associate, Statistically
test, Probe) and the related Marked Personas, OccuGender and paired-pronoun studies.

The public API (docs/api.md), imported on first use so that ``import gasp`` stays fast:

- :func:`gasp.run` runs a study end to end in a run folder (as ``gasp run``);
- :func:`gasp.analyze` analyses a run, a table, a DataFrame or another tool's log;
- :func:`gasp.compare` compares analysed runs of one study;
- :func:`gasp.audit` runs an audit of several models (the :mod:`gasp.auditing` package).

Packages and layers, lowest first (``tests/test_architecture.py`` keeps this true; a
package imports its own layer and those below): the base (``errors``), the core
(``files``: input files read within bounds, ``text``, ``stats``, ``associate``, ``names``,
``embeddings``, ``probe``, ``results``),
the engine (``backends``, ``runner``, ``store``, ``io``: tables and other tools' files
in), the report framework (``report``), ``studies`` (one package per study), the
pipeline and interop (``pipeline``: a run's steps, checks and outputs; ``interop``:
Inspect tasks out; ``testing``: mock backends and planted worlds), ``auditing`` (many
runs, one scorecard), the public API above and ``cli`` (parses, calls the API, prints).
The README's package table lists the same.
"""

from __future__ import annotations

from gasp.errors import GaspError

#: Type checkers take this as true; at run time nothing more is imported (``typing`` is
#: left out on purpose: it would double the time of ``import gasp``).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from gasp._api import analyze, audit, compare, run
    from gasp.pipeline import RunResult

__version__ = "0.1.0"

#: Lazy attributes: name -> (module, attribute; None for the module itself).
_LAZY: dict[str, tuple[str, str | None]] = {
    "run": ("gasp._api", "run"),
    "analyze": ("gasp._api", "analyze"),
    "compare": ("gasp._api", "compare"),
    "RunResult": ("gasp.pipeline", "RunResult"),
    "audit": ("gasp._api", "audit"),
}


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module 'gasp' has no attribute {name!r}")
    import importlib

    module_name, attribute = _LAZY[name]
    module = importlib.import_module(module_name)
    return module if attribute is None else getattr(module, attribute)


def __dir__() -> list[str]:
    return sorted([*globals(), *_LAZY])


__all__ = ["GaspError", "RunResult", "__version__", "analyze", "audit", "compare", "run"]
