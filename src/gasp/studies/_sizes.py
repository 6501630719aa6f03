"""The size of a study's plan (:class:`PlanSize`) and the counts it is made of."""

from __future__ import annotations

import dataclasses

from gasp.runner import StudyPlan

#: The decoding settings a study may default (``StudyType.decoding_settings``).
DECODING_KEYS = ("temperature", "top_p", "max_tokens")


@dataclasses.dataclass(frozen=True)
class PlanSize:
    """The size of a study's plan: what an audit compares and what it costs.

    ``units`` are the paired units the study's comparisons pair over (stories, triples,
    jobs, occupations, ...; :meth:`StudyType.size_units`), ``requests`` the model calls
    of the plan (``requests_max`` where an adaptive stopping rule may draw more, else
    the same), ``max_tokens`` the most tokens one answer may take (1 for a scoring
    request).
    """

    units: int
    requests: int
    requests_max: int
    max_tokens: int


def count_units(plan: StudyPlan, *attributes: str) -> int:
    """The number of distinct values of ``attributes`` among ``plan``'s items (the jobs,
    the occupations, the (template, pair) triples of a plan): a study's
    :meth:`StudyType.size_units` where its units are not its answers."""
    return len({tuple(item.attributes.get(a) for a in attributes) for item in plan.items})


__all__ = ["DECODING_KEYS", "PlanSize", "count_units"]
