"""gasp: audit large language models for representational harms in generated text.

The package implements the GAS(P) methodology (Generate, Associate, Statistically
test, Probe) and the related Marked Personas, OccuGender and paired-pronoun studies.
``gasp.audit(...)`` runs an audit (:func:`gasp.audit.run_audit`), imported when first
used so that ``import gasp`` stays fast.
"""

from typing import Any

from gasp.errors import GaspError

__version__ = "0.1.0"

__all__ = ["GaspError", "__version__", "audit"]


def __getattr__(name: str) -> Any:
    if name == "audit":
        import importlib

        # The package is callable: gasp.audit(...) is gasp.audit.run_audit(...).
        return importlib.import_module("gasp.audit")
    raise AttributeError(f"module 'gasp' has no attribute {name!r}")
