"""The generation options shared by ``gasp generate`` and ``gasp run``.

The ``Annotated`` aliases declare each shared Typer option once (name, help text);
:class:`GenerationOptions` gathers their values and turns them into the study to
run (through the study's registered type) and the
:class:`~gasp.runner.RunOptions` of the generation.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

if TYPE_CHECKING:
    from gasp.backends import DecodingConfig
    from gasp.runner import Plannable, RunOptions
    from gasp.studies import StudyType

StudyArgument = Annotated[
    str,
    typer.Argument(help="Study name (see `gasp studies`) or a study file (.toml / .yaml)."),
]
ModelOption = Annotated[
    str,
    typer.Option("--model", "-m", help="provider/model, e.g. embedded, openai/gpt-4o-mini."),
]
ModelOptionOption = Annotated[
    list[str] | None,
    typer.Option(
        "--model-option",
        help="Backend option KEY=VALUE (repeatable), e.g. device=cuda, batch_size=8.",
    ),
]
OccupationsOption = Annotated[
    str | None, typer.Option(help="Only these occupations (comma separated).")
]
OccupationsFileOption = Annotated[
    Path | None, typer.Option(help="Your own occupations CSV (column 'occupation').")
]
NOption = Annotated[int | None, typer.Option("--n", help="Samples per cell / per gender.")]
TemplatesOption = Annotated[str | None, typer.Option(help="Only these templates.")]
ConditionsOption = Annotated[
    str | None, typer.Option(help="Only these conditions (unspecified,woman,man,nonbinary).")
]
StudyOptionOption = Annotated[
    list[str] | None,
    typer.Option(
        "--study-option",
        help="The study's own option KEY=VALUE (repeatable; `gasp studies` lists them).",
    ),
]
CapFactorOption = Annotated[
    int | None, typer.Option(help="Stop an unspecified cell at this many times n samples.")
]
TemperatureOption = Annotated[
    float | None, typer.Option(help="Sampling temperature (default: the study's, else 1).")
]
TopPOption = Annotated[float | None, typer.Option(help="Nucleus sampling mass (default 1).")]
MaxTokensOption = Annotated[
    int | None, typer.Option(help="Most tokens per answer (default: the study's, else 256).")
]
#: Most requests in flight unless ``--max-concurrency`` says otherwise.
DEFAULT_MAX_CONCURRENCY = 16
MaxConcurrencyOption = Annotated[int, typer.Option(help="Most requests in flight.")]
BaseUrlOption = Annotated[
    list[str] | None,
    typer.Option(
        "--base-url",
        help="Server URL for openai-compatible/ models; repeat it to spread the requests"
        " over several servers of the same model (see docs/fleet.md).",
    ),
]
ApiKeyEnvOption = Annotated[
    str | None, typer.Option(help="Environment variable holding the API key.")
]
MaxRequestsOption = Annotated[
    int | None, typer.Option(help="Stop cleanly after this many requests (resumable).")
]
MaxCostOption = Annotated[
    float | None, typer.Option(help="Stop cleanly before this many USD (openai/ models).")
]

BatchOption = Annotated[
    bool,
    typer.Option(
        "--batch",
        help="Send the requests through the provider's batch API (openai/, half price, "
        "answers within 24 h; a killed run resumes polling).",
    ),
]
WaitOption = Annotated[
    bool,
    typer.Option(
        "--wait",
        help="When another process is generating into the same run, wait for it to "
        "finish (default: refuse with one line naming it).",
    ),
]

DEFAULT_STUDY = "more-of-the-same"
DEFAULT_MODEL = "embedded"


def study_options(study: StudyType, pairs: Sequence[str] | None) -> dict[str, Any]:
    """``--study-option KEY=VALUE`` pairs as typed values, each a key ``study`` declares,
    of the kind and in the range it declares (checked before anything runs)."""
    from gasp.backends import parse_model_options
    from gasp.studies import check_study_options

    values = parse_model_options(pairs or (), flag="--study-option")
    check_study_options(study.name, study.study_options, values)
    return values


@dataclasses.dataclass(frozen=True)
class StudySelection:
    """The study of one command line: its name or file and the options that shape it
    (occupations, n, templates, ... — each study type reads its own and rejects others)."""

    source: str
    #: The registered type of the study, resolved once (a study file is read once).
    study_type: StudyType
    options: Mapping[str, Any] = dataclasses.field(default_factory=dict)

    def build(self) -> Plannable:
        """The study to run (its plan records the resolved options)."""
        return self.study_type.plan(self.source, self.options)


def select_study(
    source: str,
    flags: Mapping[str, Any],
    pairs: Sequence[str] | None,
    *,
    quick: bool = False,
) -> tuple[StudySelection, dict[str, Any], int | None]:
    """The study of a command line: its type's flags (``occupations``, ``n``, ...), its
    ``--study-option`` pairs and, with ``quick``, its ``--quick`` preset for whatever the
    command line left unset. Returns the selection, the study's own options (which the
    later steps read too) and the preset's ``max_tokens`` (None without one)."""
    from gasp.studies import study_type_for

    study = study_type_for(source)
    own = study_options(study, pairs)
    shape: dict[str, Any] = {**flags, **own}
    if quick:
        shape = study.with_quick(shape)
    preset = study.quick_options() if quick else {}
    return StudySelection(source, study, shape), own, preset.get("max_tokens")


def decoding_values(
    study: StudyType,
    *,
    temperature: float | None,
    top_p: float | None,
    max_tokens: int | None,
) -> dict[str, Any]:
    """Decoding settings: the command line's, else the study's defaults, else gasp's."""
    given = {"temperature": temperature, "top_p": top_p, "max_tokens": max_tokens}
    return study.decoding_settings(given)


@dataclasses.dataclass(frozen=True)
class GenerationOptions:
    """The values of the shared generation options of one command line."""

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
    model_options: tuple[str, ...] = ()
    batch: bool = False
    wait: bool = False

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
        """The options of a command line: the decoding settings resolved against the
        study's defaults (:func:`decoding_values`), the runner settings as given."""
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

    def run_options(self, *, progress: bool, dry_run: bool = False) -> RunOptions:
        """The :class:`~gasp.runner.RunOptions` of the generation."""
        from gasp.backends import parse_model_options
        from gasp.runner import BatchOptions, RunOptions

        return RunOptions(
            decoding=self.decoding(),
            seed=self.seed,
            max_concurrency=self.max_concurrency,
            max_requests=self.max_requests,
            max_cost=self.max_cost,
            dry_run=dry_run,
            base_urls=self.base_urls,
            api_key_env=self.api_key_env,
            progress=progress,
            backend_options=parse_model_options(self.model_options) or None,
            batch=BatchOptions() if self.batch else None,
            wait_for_lock=self.wait,
        )


__all__ = [
    "DEFAULT_MAX_CONCURRENCY",
    "ApiKeyEnvOption",
    "BaseUrlOption",
    "BatchOption",
    "CapFactorOption",
    "ConditionsOption",
    "GenerationOptions",
    "MaxConcurrencyOption",
    "MaxCostOption",
    "MaxRequestsOption",
    "MaxTokensOption",
    "ModelOption",
    "ModelOptionOption",
    "NOption",
    "OccupationsFileOption",
    "OccupationsOption",
    "StudyArgument",
    "StudyOptionOption",
    "StudySelection",
    "TemperatureOption",
    "TemplatesOption",
    "TopPOption",
    "WaitOption",
    "decoding_values",
    "select_study",
    "study_options",
]
