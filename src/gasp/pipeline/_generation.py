"""The study and generation settings of one run: which study, shaped how, decoded how.

:func:`select_study` resolves a study name or file into its registered type and the
options that shape it (``n``, ``occupations``, ... and the study's own options);
:class:`GenerationOptions` gathers the decoding and runner settings and turns them
into the study to run and the :class:`~gasp.runner.RunOptions` of the generation.
``gasp run``, ``gasp generate``, ``gasp audit`` and :func:`gasp.run` share them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from gasp.pipeline._settings import default_of

if TYPE_CHECKING:
    from gasp.backends import DecodingConfig
    from gasp.runner import Plannable, RunOptions
    from gasp.studies import StudyType

#: The study and model of ``gasp run`` and ``gasp generate`` when none is named.
DEFAULT_STUDY = "more-of-the-same"
DEFAULT_MODEL = "embedded"
#: Most requests in flight unless the run says otherwise (its declared default).
DEFAULT_MAX_CONCURRENCY: int = default_of("max_concurrency")

#: A study's own options: ``KEY=VALUE`` texts (the command line's) or typed values.
OwnOptions = Sequence[str] | Mapping[str, Any] | None


def study_options(study: StudyType, pairs: OwnOptions) -> dict[str, Any]:
    """A study's own options as typed values, each a key ``study`` declares, of the kind
    and in the range it declares (checked before anything runs). ``pairs`` is either
    ``KEY=VALUE`` texts (``--study-option``) or a mapping of typed values."""
    from gasp.backends import parse_model_options
    from gasp.studies import check_study_options

    if isinstance(pairs, Mapping):
        values = dict(pairs)
    else:
        values = parse_model_options(pairs or (), flag="--study-option")
    check_study_options(study.name, study.study_options, values)
    return values


@dataclasses.dataclass(frozen=True)
class StudySelection:
    """The study of one run: its name or file and the options that shape it
    (occupations, n, templates, ... — each study type reads its own and rejects others)."""

    source: str
    #: The registered type of the study, resolved once (a study file is read once).
    study_type: StudyType
    options: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    #: A system prompt sent before every item (an audit's system-prompt variant).
    system_prompt: str | None = None

    def build(self) -> Plannable:
        """The study to run (its plan records the resolved options), with
        :attr:`system_prompt` added when there is one."""
        study = self.study_type.plan(self.source, self.options)
        if not self.system_prompt:
            return study
        from gasp.runner import SystemPromptVariant

        return SystemPromptVariant(study, self.system_prompt)


def select_study(
    source: str,
    flags: Mapping[str, Any],
    pairs: OwnOptions,
    *,
    quick: bool = False,
    system_prompt: str | None = None,
) -> tuple[StudySelection, dict[str, Any], int | None]:
    """The study of a run: its type's shape options (``occupations``, ``n``, ...), its own
    options and, with ``quick``, its quick preset for whatever was left unset; with
    ``system_prompt``, that prompt before every item. Returns the selection, the study's
    own options (which the later steps read too) and the preset's ``max_tokens`` (None
    without one)."""
    from gasp.studies import study_type_for

    study = study_type_for(source)
    own = study_options(study, pairs)
    shape: dict[str, Any] = {**flags, **own}
    if quick:
        shape = study.with_quick(shape)
    preset = study.quick_options() if quick else {}
    selection = StudySelection(source, study, shape, system_prompt)
    return selection, own, preset.get("max_tokens")


def decoding_values(
    study: StudyType,
    *,
    temperature: float | None,
    top_p: float | None,
    max_tokens: int | None,
) -> dict[str, Any]:
    """Decoding settings: the run's, else the study's defaults, else gasp's."""
    given = {"temperature": temperature, "top_p": top_p, "max_tokens": max_tokens}
    return study.decoding_settings(given)


@dataclasses.dataclass(frozen=True)
class GenerationOptions:
    """The decoding and runner settings of one generation."""

    study: StudySelection
    #: Decoding settings, resolved by :meth:`for_study` (one place for their defaults).
    max_tokens: int
    temperature: float
    top_p: float
    seed: int = 0
    max_concurrency: int = DEFAULT_MAX_CONCURRENCY
    base_urls: tuple[str, ...] = ()
    api_key_env: str | None = None
    max_requests: int | None = None
    max_cost: float | None = None
    #: Backend options: ``KEY=VALUE`` texts (``--model-option``) or typed values.
    model_options: Sequence[str] | Mapping[str, Any] = ()
    batch: bool = False
    wait: bool = False
    #: Seconds one request may take, its retries included (None: the runner's default).
    request_deadline: float | None = None

    @classmethod
    def for_study(
        cls,
        selection: StudySelection,
        *,
        temperature: float | None,
        top_p: float | None,
        max_tokens: int | None,
        **runner: Any,
    ) -> GenerationOptions:
        """The settings of a run: the decoding settings resolved against the study's
        defaults (:func:`decoding_values`), the runner settings as given."""
        decoding = decoding_values(
            selection.study_type, temperature=temperature, top_p=top_p, max_tokens=max_tokens
        )
        return cls(study=selection, **decoding, **runner)

    def build_study(self) -> Plannable:
        """The study to generate, shaped by the study options."""
        return self.study.build()

    def decoding(self) -> DecodingConfig:
        """The decoding settings of every request."""
        from gasp.backends import DecodingConfig

        return DecodingConfig(
            temperature=self.temperature,
            top_p=self.top_p,
            max_tokens=self.max_tokens,
            seed=self.seed,
        )

    def backend_options(self) -> dict[str, Any]:
        """The backend options as typed values."""
        from gasp.backends import parse_model_options

        if isinstance(self.model_options, Mapping):
            return dict(self.model_options)
        return parse_model_options(self.model_options)

    def run_options(self, *, progress: bool, dry_run: bool = False) -> RunOptions:
        """The :class:`~gasp.runner.RunOptions` of the generation."""
        from gasp.backends import RetryPolicy
        from gasp.runner import BatchOptions, RunOptions

        retry = RetryPolicy()
        if self.request_deadline is not None:
            retry = dataclasses.replace(retry, deadline_s=self.request_deadline)
        return RunOptions(
            retry=retry,
            decoding=self.decoding(),
            seed=self.seed,
            max_concurrency=self.max_concurrency,
            max_requests=self.max_requests,
            max_cost=self.max_cost,
            dry_run=dry_run,
            base_urls=self.base_urls,
            api_key_env=self.api_key_env,
            progress=progress,
            backend_options=self.backend_options() or None,
            batch=BatchOptions() if self.batch else None,
            wait_for_lock=self.wait,
        )


__all__ = [
    "DEFAULT_MAX_CONCURRENCY",
    "DEFAULT_MODEL",
    "DEFAULT_STUDY",
    "GenerationOptions",
    "OwnOptions",
    "StudySelection",
    "decoding_values",
    "select_study",
    "study_options",
]
