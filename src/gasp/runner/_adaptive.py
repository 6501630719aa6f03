"""The stopping rule of seed ``000`` (Algorithm 5, Appendix A.3) as a per-cell state machine.

An adaptive cell is generated in batches of consecutive sample indices. After each
complete batch, its generations are associated with a gender
(:func:`gasp.associate.associate_genders`) and counted:

* after the first batch, the cell is **skipped** when any gender of the rule has
  fewer than ``min_share`` x (first batch) associated generations (Appendix A.3:
  "we only consider occupations for which both associated men and women comprise
  at least 10% of generations");
* it is **complete** once every gender has at least n associated generations (the
  pseudo-code's loop ``while t_M < n and t_F < n`` would stop as soon as one gender
  reaches n; the text requires n of each, so the loop runs while *either* is short);
* it is **capped** when it reaches ``cap`` samples first.

Decisions depend only on the generations at each index, so a resumed run reaches
the same decisions from the stored rows. Named cells simply need indices 0..n-1.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from gasp.runner._plan import CellPlan

NEED = "need"
COMPLETE = "complete"
SKIPPED = "skipped"
CAPPED = "capped"

_GENDER_WORDS = {"F": "women", "M": "men", "N": "non-binary people"}


@dataclass(frozen=True)
class CellDecision:
    """Where a cell stands: ``need`` (with the indices to generate), ``complete``,
    ``skipped`` or ``capped``."""

    status: str
    missing: tuple[int, ...] = ()
    reason: str | None = None
    n_samples: int = 0
    counts: dict[str, int] = field(default_factory=dict)


class CellState:
    """The generations of one cell so far and the rule that says what it needs next."""

    def __init__(self, plan: CellPlan) -> None:
        self.plan = plan
        #: Text of each successful sample by index (refusals and filtered answers included).
        self.texts: dict[int, str] = {}
        #: Samples whose latest attempt failed (retried in a later session).
        self.failed: set[int] = set()
        self._frontier = 0  # indices below have been counted
        self._counts = {g: 0 for g in plan.genders}
        self._decision: CellDecision | None = None

    def add(self, index: int, text: str) -> None:
        """Record a successful sample."""
        self.texts[index] = text
        self.failed.discard(index)
        self._decision = None

    def add_failure(self, index: int) -> None:
        """Record a sample whose request failed after every retry."""
        if index not in self.texts:
            self.failed.add(index)

    @property
    def counts(self) -> dict[str, int]:
        """Associated generations per gender over the batches counted so far."""
        return dict(self._counts)

    def decide(self) -> CellDecision:
        """Advance over complete batches and say what the cell needs now."""
        if self._decision is not None and self._decision.status != NEED:
            return self._decision
        plan = self.plan
        if not plan.adaptive:
            missing = tuple(i for i in range(plan.n) if i not in self.texts)
            status = NEED if missing else COMPLETE
            self._decision = CellDecision(status, missing, None, plan.n - len(missing))
            return self._decision
        while True:
            end = min(self._frontier + plan.batch_size, plan.cap)
            missing = tuple(i for i in range(self._frontier, end) if i not in self.texts)
            if missing:
                self._decision = CellDecision(
                    NEED, missing, None, len(self.texts), dict(self._counts)
                )
                return self._decision
            from gasp.associate import associate_genders  # deferred: heavy import

            genders = associate_genders([self.texts[i] for i in range(self._frontier, end)])
            labels = genders.genders.value_counts()
            for g in plan.genders:
                self._counts[g] += int(labels.get(g, 0))
            first = self._frontier == 0
            self._frontier = end
            if first:
                threshold = plan.min_share * end
                short = [g for g in plan.genders if self._counts[g] < threshold]
                if short:
                    parts = ", ".join(
                        f"{self._counts[g]} of {end} associated with {_GENDER_WORDS[g]}"
                        for g in short
                    )
                    reason = f"below {plan.min_share:.0%} of the first batch: {parts}"
                    return self._final(SKIPPED, reason)
            if all(self._counts[g] >= plan.n for g in plan.genders):
                return self._final(COMPLETE, None)
            if self._frontier >= plan.cap:
                parts = ", ".join(f"{self._counts[g]} {_GENDER_WORDS[g]}" for g in plan.genders)
                return self._final(CAPPED, f"reached the cap of {plan.cap} samples with {parts}")

    def _final(self, status: str, reason: str | None) -> CellDecision:
        self._decision = CellDecision(status, (), reason, self._frontier, dict(self._counts))
        return self._decision

    @property
    def expected_total(self) -> int:
        """A running estimate of the samples this cell will take (for progress bars)."""
        decision = self._decision
        if decision is not None and decision.status != NEED:
            return decision.n_samples
        if not self.plan.adaptive:
            return self.plan.n
        guess = max(2 * self.plan.n, self._frontier + self.plan.batch_size)
        return min(guess, self.plan.cap)
