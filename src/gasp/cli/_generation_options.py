"""The generation options shared by ``gasp generate`` and ``gasp run``.

The ``Annotated`` aliases declare each shared Typer option once (name, help text);
:class:`GenerationOptions` gathers their values and turns them into the
:class:`~gasp.studies.Study` to generate and the :class:`~gasp.runner.RunOptions`
of the generation.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any

import typer

from gasp.backends import DecodingConfig
from gasp.errors import ConfigError
from gasp.runner import RunOptions
from gasp.studies import Study, load_study, load_subjects_csv

StudyArgument = Annotated[
    str, typer.Argument(help="Built-in study name or a study file (.toml / .yaml).")
]
ModelOption = Annotated[
    str,
    typer.Option("--model", "-m", help="provider/model, e.g. embedded, openai/gpt-4o-mini."),
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
TemperatureOption = Annotated[float, typer.Option(help="Sampling temperature.")]
TopPOption = Annotated[float, typer.Option(help="Nucleus sampling mass.")]
MaxConcurrencyOption = Annotated[int, typer.Option(help="Most requests in flight.")]
BaseUrlOption = Annotated[
    str | None, typer.Option(help="Server URL for openai-compatible/ models.")
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

DEFAULT_STUDY = "more-of-the-same"
DEFAULT_MODEL = "embedded"
DEFAULT_MAX_TOKENS = 256


def _split(value: str | None) -> list[str] | None:
    if value is None:
        return None
    items = [v.strip() for v in value.split(",") if v.strip()]
    if not items:
        raise ConfigError("an empty list was given; separate names with commas")
    return items


def build_study(
    study: str,
    *,
    occupations: str | None,
    occupations_file: Path | None,
    n: int | None,
    templates: str | None,
    conditions: str | None,
) -> Study:
    """The study named on the command line, reduced by the options."""
    if occupations and occupations_file:
        raise ConfigError("give --occupations or --occupations-file, not both")
    if n is not None and n < 1:
        raise ConfigError(f"--n must be a positive integer, got {n}")
    spec = load_study(study)
    if occupations_file is not None:
        spec = spec.with_subjects(load_subjects_csv(occupations_file))
    names = _split(occupations)
    if names is not None:
        unknown = [o for o in names if o not in {s.name for s in spec.subjects}]
        if unknown:
            raise ConfigError(
                f"occupation {unknown[0]!r} is not in study {spec.name!r}; "
                "pass your own list with --occupations-file"
            )
    return spec.restrict(
        subjects=names, templates=_split(templates), conditions=_split(conditions), n=n
    )


def with_cap_factor(study: Study, cap_factor: int | None) -> Study:
    """``study`` with its unspecified cells stopped at ``cap_factor`` x n (None: unchanged)."""
    if cap_factor is None:
        return study
    if cap_factor < 1:
        raise ConfigError(f"--cap-factor must be at least 1, got {cap_factor}")
    return dataclasses.replace(
        study, stopping=dataclasses.replace(study.stopping, cap_factor=cap_factor)
    )


@dataclasses.dataclass(frozen=True)
class GenerationOptions:
    """The values of the shared generation options of one command line."""

    study: str = DEFAULT_STUDY
    occupations: str | None = None
    occupations_file: Path | None = None
    n: int | None = None
    templates: str | None = None
    conditions: str | None = None
    cap_factor: int | None = None
    max_tokens: int = DEFAULT_MAX_TOKENS
    temperature: float = 1.0
    top_p: float = 1.0
    seed: int = 0
    max_concurrency: int = 16
    base_url: str | None = None
    api_key_env: str | None = None
    max_requests: int | None = None
    max_cost: float | None = None

    @classmethod
    def from_values(cls, values: Mapping[str, Any]) -> GenerationOptions:
        """The options among ``values`` (a command's parameters by name, e.g. ``locals()``).

        Names that are not fields are ignored; a missing field keeps its default.
        """
        names = {field.name for field in dataclasses.fields(cls)}
        return cls(**{name: value for name, value in values.items() if name in names})

    def build_study(self) -> Study:
        """The study to generate: restricted by the options, capped by ``cap_factor``."""
        spec = build_study(
            self.study,
            occupations=self.occupations,
            occupations_file=self.occupations_file,
            n=self.n,
            templates=self.templates,
            conditions=self.conditions,
        )
        return with_cap_factor(spec, self.cap_factor)

    def decoding(self) -> DecodingConfig:
        """The decoding settings of every request."""
        return DecodingConfig(
            temperature=self.temperature,
            top_p=self.top_p,
            max_tokens=self.max_tokens,
            seed=self.seed,
        )

    def run_options(self, *, progress: bool, dry_run: bool = False) -> RunOptions:
        """The :class:`~gasp.runner.RunOptions` of the generation."""
        return RunOptions(
            decoding=self.decoding(),
            seed=self.seed,
            max_concurrency=self.max_concurrency,
            max_requests=self.max_requests,
            max_cost=self.max_cost,
            dry_run=dry_run,
            base_url=self.base_url,
            api_key_env=self.api_key_env,
            progress=progress,
        )


__all__ = [
    "ApiKeyEnvOption",
    "BaseUrlOption",
    "ConditionsOption",
    "GenerationOptions",
    "MaxConcurrencyOption",
    "MaxCostOption",
    "MaxRequestsOption",
    "ModelOption",
    "NOption",
    "OccupationsFileOption",
    "OccupationsOption",
    "StudyArgument",
    "TemperatureOption",
    "TemplatesOption",
    "TopPOption",
    "build_study",
    "with_cap_factor",
]
