""":func:`inspect_tasks_path`: where Inspect AI finds gasp's tasks; :func:`export_hf`: the
embedded model for other engines."""

from __future__ import annotations

from pathlib import Path

from gasp._api._keywords import in_python_words, require_path


def inspect_tasks_path(start: str | Path | None = None) -> str:
    """The path of gasp's Inspect AI task module relative to ``start`` (default: the
    current folder), as ``gasp inspect-tasks-path`` prints it: ``inspect list tasks
    PATH`` lists the studies that ``inspect eval gasp/<study>`` runs. Without Inspect
    AI installed it is a :class:`~gasp.errors.GaspError`.

    Example:
        >>> import gasp
        >>> gasp.inspect_tasks_path(folder).endswith("gasp/interop/inspect_tasks.py")
        True
    """
    fn = "gasp.inspect_tasks_path"
    base = require_path(fn, "start", start, folder=False)
    from gasp.interop import inspect_tasks_path as tasks_path

    with in_python_words(fn):
        return tasks_path(base)


def export_hf(folder: str | Path) -> Path:
    """Write the embedded model into ``folder`` (new or empty) as a Hugging Face model
    folder (float32 safetensors, config, tokenizer and chat template), as ``gasp model
    export-hf`` does, for example to serve it with vLLM; returns the folder. A folder
    that is not empty is refused before anything is loaded.

    Example:
        >>> import gasp
        >>> taken = folder / "taken"
        >>> taken.mkdir()
        >>> _ = (taken / "notes.txt").write_text("keep")
        >>> gasp.export_hf(taken)
        Traceback (most recent call last):
        ...
        gasp.errors.ConfigError: ... exists and is not an empty folder
    """
    fn = "gasp.export_hf"
    target = require_path(fn, "folder", folder, optional=False)
    assert target is not None
    from gasp.backends import export_hf as write_model

    with in_python_words(fn):
        return write_model(target)


__all__ = ["export_hf", "inspect_tasks_path"]
