"""A study's items as the samples of another tool: prompts, attributes, the answers
wanted per prompt and the decoding settings, as ``gasp run`` would use them."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from gasp.backends import DecodingConfig
from gasp.errors import ConfigError
from gasp.runner import FixedN, Item, RequestKind
from gasp.studies import DECODING_KEYS, get_study_type

#: Decoding settings of ``gasp run`` before a study's own defaults (those of
#: :class:`gasp.backends.DecodingConfig`).
GENERATION_DEFAULTS: Mapping[str, Any] = {
    name: getattr(DecodingConfig(), name) for name in DECODING_KEYS
}


@dataclass(frozen=True)
class StudySamples:
    """The generation items of a study, the answers per item, its system prompt and its
    decoding settings."""

    study: str
    items: tuple[Item, ...]
    n: int
    system_prompt: str | None
    decoding: Mapping[str, Any]
    #: False where the study's stopping rule would draw more answers as it runs (More
    #: of the Same's Algorithm 5): another tool draws exactly ``n`` per item.
    fixed: bool = True


def study_samples(
    name: str, *, quick: bool = False, n: int | None = None, **options: Any
) -> StudySamples:
    """The items of study ``name`` (the reduced study with ``quick``; ``n`` answers per
    item; other ``options`` as ``--study-option`` or ``gasp run`` options by name).

    Scoring studies (log-probabilities of candidates) are refused with a
    :class:`ConfigError`; a study with an adaptive stopping rule gets exactly ``n``
    answers per item (:attr:`StudySamples.fixed` is then False).
    """
    study_type = get_study_type(name)
    chosen: dict[str, Any] = {k: v for k, v in options.items() if v is not None}
    if n is not None:
        chosen["n"] = int(n)
    decoding = study_type.decoding_settings(chosen, quick=quick)
    for key in DECODING_KEYS:
        chosen.pop(key, None)
    if quick:
        chosen = study_type.with_quick(chosen)
    plan = study_type.plan(name, chosen)
    if any(item.kind is not RequestKind.GENERATE for item in plan.items):
        raise ConfigError(
            f"study {name!r} scores log-probabilities of candidate answers, which an "
            f"Inspect task cannot ask for; run it with `gasp run {name}`"
        )
    counts = {item.n for item in plan.items}
    if len(counts) != 1:
        raise ConfigError(f"study {name!r} asks different numbers of answers per prompt")
    return StudySamples(
        name,
        plan.items,
        counts.pop(),
        plan.system_prompt,
        decoding,
        isinstance(plan.stopping, FixedN),
    )
