"""gasp inside other evaluation tools.

:mod:`gasp.interop.inspect_tasks` registers each generation study as an Inspect AI
task (``inspect eval gasp/<study>``), through the ``inspect_ai`` entry point group.
It is imported by Inspect, never by gasp itself, and needs ``gasp[inspect]``.
:func:`inspect_tasks_path` is the path to give ``inspect list tasks``.
"""

from gasp.interop._listing import inspect_tasks_path
from gasp.interop._plan import GENERATION_DEFAULTS, StudySamples, study_samples

__all__ = ["GENERATION_DEFAULTS", "StudySamples", "inspect_tasks_path", "study_samples"]
