"""Batches fixed by the plan, so a resumed run sends the batches an uninterrupted one sends.

On a local batching engine (the embedded model, transformers) a sample's text depends
on the whole batch it is generated in: its neighbours' padding and, when sampling,
the one seed the engine draws the batch with (its first request's). So the batches
are fixed by the plan, not by what is missing: the samples every item needs first
(in the plan's order) are cut into consecutive blocks of the batch size, and each
later round of an item (an adaptive stopping rule asking for more) into blocks of
its own. A block is always sent whole: on a resumed run, a block with a missing
sample is sent again with its samples already stored, whose answers are dropped, so
every missing sample is generated in the batch it would have had without the
interruption. A remote server batches requests itself, so there a resumed run may
generate other texts (the run manifest says which applies).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, TypeVar

State = TypeVar("State")
#: One sample of a block: its item's state, its sample index and whether its answer is
#: kept (False: already stored, sent again only to keep the block whole).
Member = tuple[State, int, bool]

#: What the manifest records for an engine whose batches the plan fixes.
FIXED = (
    "fixed by the plan: a resumed run sends the batches an uninterrupted run sends "
    "(stored samples of a batch are sent again and their answers dropped), so it "
    "generates the same texts"
)
#: What the manifest records for a backend called one request at a time.
SINGLE = (
    "one request per call: a sample's text depends on its request and seed only, "
    "unless a server batches requests itself (then a resumed run may differ)"
)


def fixed_batch_size(model: Any) -> int | None:
    """The batch size of a local batching engine (blocks fixed by the plan), else None."""
    backend = getattr(model, "backend", None)
    size = int(getattr(model, "batch_size", 1) or 1)
    if backend is None or not getattr(backend, "supports_batching", False) or size <= 1:
        return None
    return size


def chunks(members: Sequence[Member[State]], size: int) -> list[list[Member[State]]]:
    """``members`` cut into consecutive blocks of ``size`` (the last one shorter)."""
    return [list(members[i : i + size]) for i in range(0, len(members), size)]


def plan_blocks(
    states: Iterable[State],
    first_round: Callable[[State], Sequence[int]],
    answered: Callable[[State], Mapping[int, Any]],
    size: int,
) -> list[list[Member[State]]]:
    """The blocks of every item's first round still to send: consecutive blocks of the
    plan's order (items in order, each item's first-round samples in order), keeping
    only the blocks with a sample not yet answered."""
    members: list[Member[State]] = []
    for state in states:
        done = answered(state)
        members.extend((state, index, index not in done) for index in first_round(state))
    return [block for block in chunks(members, size) if any(keep for _, _, keep in block)]


__all__ = ["FIXED", "SINGLE", "Member", "chunks", "fixed_batch_size", "plan_blocks"]
