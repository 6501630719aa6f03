"""Study types from other packages: the ``gasp.studies`` entry point group.

A package adds a study by declaring, in its ``pyproject.toml``::

    [project.entry-points."gasp.studies"]
    my-study = "my_package.my_study"

where the module exposes ``STUDY_TYPE`` (a :class:`~gasp.studies.StudyType` whose
``name`` is the entry point's name). A plugin that fails to load is reported as one
warning line; the built-in studies and other plugins still work.
"""

from __future__ import annotations

import functools
import importlib
from dataclasses import dataclass
from importlib import metadata
from typing import Any

#: The entry point group of study plugins.
ENTRY_POINT_GROUP = "gasp.studies"


@dataclass(frozen=True)
class StudyPlugin:
    """One declared study plugin: its name, module, and the package that declares it."""

    name: str
    module: str
    package: str
    version: str

    def load(self) -> Any:
        """The plugin's ``STUDY_TYPE`` (any exception of the import propagates)."""
        module = importlib.import_module(self.module)
        study_type = getattr(module, "STUDY_TYPE", None)
        if study_type is None:
            raise AttributeError(f"module {self.module!r} has no STUDY_TYPE")
        if getattr(study_type, "name", None) != self.name:
            raise ValueError(
                f"its STUDY_TYPE is named {getattr(study_type, 'name', None)!r}, not {self.name!r}"
            )
        return study_type


@functools.cache
def study_plugins() -> dict[str, StudyPlugin]:
    """Every declared study plugin by name (read once; ``forget_plugins`` of the registry
    reads them again)."""
    found: dict[str, StudyPlugin] = {}
    for point in metadata.entry_points(group=ENTRY_POINT_GROUP):
        dist = point.dist
        found.setdefault(
            point.name,
            StudyPlugin(
                name=point.name,
                module=point.value.split(":")[0].strip(),
                package=dist.name if dist is not None else "?",
                version=dist.version if dist is not None else "?",
            ),
        )
    return found
