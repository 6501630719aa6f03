""":func:`generate`: a study's samples into a run store; :func:`export`: a run's tables out."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from gasp._api._keywords import (
    in_python_words,
    refuse_unknown,
    require_bool,
    require_choices,
    require_int,
    require_path,
    require_text,
    require_texts,
)
from gasp._api._run import option_values
from gasp.pipeline import DEFAULT_MODEL, DEFAULT_STUDY, ExportOutcome, names_of
from gasp.runner import RunSummary

#: The keywords :func:`generate` passes on to the generation's settings: the declared
#: settings of the study's shape, the decoding and the runner.
GENERATE_KEYWORDS = names_of("shape", "decoding", "runner")
#: The tables :func:`export` writes.
EXPORT_TABLES = ("samples", "scores", "items")


@dataclasses.dataclass(frozen=True)
class Generation:
    """What :func:`generate` did (or, for a dry run, plans): the runner's summary and
    the longest completion asked for."""

    summary: RunSummary
    max_tokens: int

    def table(self) -> Any:
        """The summary as the rich table ``gasp generate`` prints."""
        from gasp.runner import summary_table

        return summary_table(self.summary)


def generate(
    study: str = DEFAULT_STUDY,
    model: str = DEFAULT_MODEL,
    *,
    out: str | Path | None = None,
    seed: int = 0,
    dry_run: bool = False,
    study_options: Mapping[str, Any] | Sequence[str] | None = None,
    model_options: Mapping[str, Any] | Sequence[str] | None = None,
    quiet: bool = True,
    **options: Any,
) -> Generation:
    """Generate the samples of ``study`` with ``model`` into the run store ``out`` (a
    ``.sqlite`` file), as ``gasp generate`` does, and return the runner's summary.

    A second call with the same store resumes it (failed samples are retried). With
    ``dry_run`` nothing is sent or written (``out`` may be None) and
    ``result.summary.estimate`` holds the planned requests, tokens and cost.
    ``options`` are the other settings of ``gasp generate`` by keyword (``n``,
    ``occupations``, ``max_tokens``, ``temperature``, ``max_requests``, ...);
    ``study_options`` are the study's own, ``model_options`` the backend's.
    ``quiet=False`` shows the progress on standard error. Every setting is checked
    before the store is created or opened.

    Example:
        >>> import gasp
        >>> done = gasp.generate("pronoun-pairs", "mock/personas",
        ...                      out=folder / "pairs.sqlite", n=2)
        >>> done.summary.complete, done.summary.generated > 0
        (True, True)
    """
    fn = "gasp.generate"
    refuse_unknown(fn, options, GENERATE_KEYWORDS)
    require_text(fn, "study", study)
    require_text(fn, "model", model)
    store = require_path(fn, "out", out, folder=False)
    require_int(fn, "seed", seed, minimum=0, maximum=2**32 - 1)
    require_bool(fn, "dry_run", dry_run)
    require_bool(fn, "quiet", quiet)
    own = option_values(fn, "study_options", study_options)
    backend = option_values(fn, "model_options", model_options)
    if options.get("base_urls") is not None:
        options["base_urls"] = tuple(require_texts(fn, "base_urls", options["base_urls"]))
    from rich.console import Console

    from gasp.errors import ConfigError
    from gasp.pipeline import generation_settings
    from gasp.runner import generate as run_generate

    with in_python_words(fn):
        generation, _, _ = generation_settings(
            study, seed=seed, study_options=own, model_options=backend, **options
        )
        spec = generation.build_study()
        decoding = generation.decoding()
        if store is None and not dry_run:
            raise ConfigError(
                "--out is required (the run store to create or resume, e.g. runs/NAME.sqlite)"
            )
        run_options = generation.run_options(progress=not quiet, dry_run=dry_run)
    summary = run_generate(spec, model, store, run_options, console=Console(stderr=True))
    return Generation(summary, decoding.max_tokens)


def export(
    run: str | Path,
    out: str | Path,
    *,
    what: str | None = None,
    include_errors: bool = True,
    overwrite: bool = False,
    raw_csv: bool = False,
) -> ExportOutcome:
    """Write the samples, scores or items (``what``; default: scores for a scoring
    study, else samples) of ``run`` (a run folder or run store) to ``out``, a Parquet,
    CSV or JSON Lines file by its extension, as ``gasp export`` does.

    The outcome's ``path`` is the file written, or None when the table is empty (then
    ``counts`` holds the rows of every table). A run still being generated is refused,
    and so is an existing file that is not an earlier export of this run (unless
    ``overwrite``); ``include_errors=False`` leaves out the failed requests. A CSV's text
    cells that a spreadsheet would run as a formula (``=``, ``+``, ``-``, ``@``, tab, CR
    first) get a leading ``'`` unless ``raw_csv``.

    Example:
        >>> import gasp
        >>> run = gasp.run("pronoun-pairs", "mock/personas", out=folder / "run", quick=True)
        >>> gasp.export(run.folder, folder / "samples.csv").path.name
        'samples.csv'
    """
    fn = "gasp.export"
    source = require_path(fn, "run", run, optional=False, folder=False)
    target = require_path(fn, "out", out, optional=False, folder=False)
    if what is not None:
        require_choices(fn, "what", [require_text(fn, "what", what) or ""], EXPORT_TABLES)
    require_bool(fn, "include_errors", include_errors)
    require_bool(fn, "overwrite", overwrite)
    require_bool(fn, "raw_csv", raw_csv)
    assert source is not None and target is not None
    from gasp.pipeline import export_run

    with in_python_words(fn):
        return export_run(
            source, target, table=what, include_errors=include_errors, overwrite=overwrite,
            raw_csv=raw_csv,
        )  # fmt: skip


__all__ = ["EXPORT_TABLES", "GENERATE_KEYWORDS", "Generation", "export", "generate"]
