"""Each answer into the store the moment it arrives, and never at another answer's cost.

:class:`AnswerWriter` turns an answer into its rows (a sample, or one score per
candidate) and commits them in their own transaction. An answer the store cannot take
as sent (a value no column holds, after the rules of :mod:`gasp.store._records`) is
stored instead as a failed sample whose error says why, so it never takes other answers
with it and is asked again on resume; a store that takes no answer at all (a full disk,
a store locked by another program, a damaged file) stops the run with
:class:`~gasp.errors.RunFailed`, saying how many answers are stored.
"""

from __future__ import annotations

import dataclasses
import sqlite3

from gasp.backends import GenerationResponse, ScoreResponse, StopReason
from gasp.errors import FULL_DISK_HINT, RunFailed, refused_write
from gasp.runner._items import Item
from gasp.runner._plan import sample_seed
from gasp.runner._summary import RunSummary
from gasp.store import RunStore, SampleRecord, ScoreRecord, utc_now

Response = GenerationResponse | ScoreResponse
#: Errors of one answer's values (the store's file is sound).
_VALUE_ERRORS = (
    ValueError,
    OverflowError,
    TypeError,
    UnicodeError,
    sqlite3.IntegrityError,
    sqlite3.InterfaceError,
)


class AnswerWriter:
    """Commits the answers of one run session to its store (see the module doc)."""

    def __init__(self, store: RunStore, run_seed: int, summary: RunSummary) -> None:
        self.store = store
        self.run_seed = run_seed
        self.summary = summary
        #: True while answers are buffered for the caller to commit with its own record
        #: (a provider batch commits its answers and its new state at once).
        self.deferred = False
        self.samples: list[SampleRecord] = []
        self.scores: list[ScoreRecord] = []

    def commit(self, item: Item, index: int, response: Response) -> bool:
        """Commit one answer now; False when the store could not take it as sent (it is
        then stored as a failed sample naming why, retried on resume)."""
        if self.deferred:
            self._rows(item, index, response)
            return True
        try:
            self._write(item, index, response)
            return True
        except _VALUE_ERRORS as exc:
            problem: Exception = exc
        except sqlite3.Error as exc:
            raise self._failed(exc) from None
        self.samples.clear()
        self.scores.clear()
        why = f"the store could not take the answer: {type(problem).__name__}: {problem}"[:500]
        failed: Response
        if isinstance(response, ScoreResponse):
            failed = dataclasses.replace(response, error=why, scores=())
        else:
            failed = dataclasses.replace(response, stop_reason=StopReason.ERROR, error=why)
        try:
            self._write(item, index, failed)
        except (sqlite3.Error, *_VALUE_ERRORS) as exc:
            raise self._failed(exc) from None
        return False

    def take_buffered(self) -> tuple[list[SampleRecord], list[ScoreRecord]]:
        """The rows buffered while :attr:`deferred`, for the caller to commit."""
        samples, scores = self.samples, self.scores
        self.samples, self.scores = [], []
        return samples, scores

    def _write(self, item: Item, index: int, response: Response) -> None:
        self._rows(item, index, response)
        samples, scores = self.take_buffered()
        self.store.write_answer(samples, scores)

    def _failed(self, exc: BaseException) -> RunFailed:
        stored = self.summary.resumed + self.summary.generated
        full = refused_write(exc)
        why, free = (f"{exc}: {FULL_DISK_HINT}", "space") if full else (str(exc), "the store")
        return RunFailed(
            f"the run store {self.store.path} cannot take answers ({why}); {stored} "
            f"answer(s) are stored; free {free} and run the same command again"
        )

    def _rows(self, item: Item, index: int, response: Response) -> None:
        if isinstance(response, ScoreResponse):
            self._score_rows(item, index, response)
            return
        is_error = response.stop_reason == StopReason.ERROR
        self.samples.append(
            SampleRecord(
                item_id=item.item_id,
                sample_index=index,
                seed=sample_seed(self.run_seed, item.key, index),
                text=None if is_error else response.text,
                stop_reason=str(response.stop_reason),
                error=response.error,
                fault_kinds=",".join(response.fault_kinds) or None,
                model_id=response.model_id,
                prompt_tokens=response.prompt_tokens,
                completion_tokens=response.completion_tokens,
                latency_s=response.latency_s,
                attempts=response.attempts,
                created_at=utc_now(),
                queue_s=response.queue_s,
            )
        )

    def _score_rows(self, item: Item, index: int, response: ScoreResponse) -> None:
        common = {
            "item_id": item.item_id,
            "sample_index": index,
            "fault_kinds": ",".join(response.fault_kinds) or None,
            "model_id": response.model_id,
            "prompt_tokens": response.prompt_tokens,
            "latency_s": response.latency_s,
            "attempts": response.attempts,
            "created_at": utc_now(),
            "queue_s": response.queue_s,
        }
        if not response.ok:
            for candidate in item.candidates:
                self.scores.append(
                    ScoreRecord(
                        candidate=candidate,
                        logprob=None,
                        status="error",
                        error=response.error,
                        **common,  # type: ignore[arg-type]
                    )
                )
            return
        for score in response.scores:
            self.scores.append(
                ScoreRecord(
                    candidate=score.candidate,
                    logprob=score.logprob,
                    tokens=tuple(score.tokens),
                    token_ids=tuple(score.token_ids) or None,
                    approximate=score.approximate,
                    **common,  # type: ignore[arg-type]
                )
            )


__all__ = ["AnswerWriter"]
