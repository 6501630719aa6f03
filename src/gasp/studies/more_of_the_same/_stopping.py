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

from collections.abc import Mapping

from gasp.runner import CAPPED, COMPLETE, NEED, SKIPPED, Decision, FixedN, Item, ItemProgress

_GENDER_WORDS = {"F": "women", "M": "men", "N": "non-binary people"}


class AdaptiveProgress:
    """Algorithm 5 for one unspecified item: batches until each gender has n associated
    generations, skipped below ``min_share`` of the first batch, capped at ``cap``."""

    adaptive = True

    def __init__(
        self, n: int, batch_size: int, cap: int, min_share: float, genders: tuple[str, ...]
    ) -> None:
        self.n = n
        self.batch_size = batch_size
        self.cap = cap
        self.min_share = min_share
        self.genders = genders
        self._frontier = 0  # indices below have been counted
        self._counts = {g: 0 for g in genders}
        self._final_decision: Decision | None = None

    @property
    def counts(self) -> dict[str, int]:
        """Associated generations per gender over the batches counted so far."""
        return dict(self._counts)

    def decide(self, answers: Mapping[int, str]) -> Decision:
        """Advance over complete batches and say what the item needs now."""
        if self._final_decision is not None:
            return self._final_decision
        while True:
            end = min(self._frontier + self.batch_size, self.cap)
            missing = tuple(i for i in range(self._frontier, end) if i not in answers)
            if missing:
                return Decision(NEED, missing, None, len(answers), dict(self._counts))
            from gasp.associate import associate_genders  # deferred: heavy import

            genders = associate_genders([answers[i] for i in range(self._frontier, end)])
            labels = genders.genders.value_counts()
            for g in self.genders:
                self._counts[g] += int(labels.get(g, 0))
            first = self._frontier == 0
            self._frontier = end
            if first:
                threshold = self.min_share * end
                short = [g for g in self.genders if self._counts[g] < threshold]
                if short:
                    parts = ", ".join(
                        f"{self._counts[g]} of {end} associated with {_GENDER_WORDS[g]}"
                        for g in short
                    )
                    reason = f"below {self.min_share:.0%} of the first batch: {parts}"
                    return self._final(SKIPPED, reason)
            if all(self._counts[g] >= self.n for g in self.genders):
                return self._final(COMPLETE, None)
            if self._frontier >= self.cap:
                parts = ", ".join(f"{self._counts[g]} {_GENDER_WORDS[g]}" for g in self.genders)
                return self._final(CAPPED, f"reached the cap of {self.cap} samples with {parts}")

    def _final(self, status: str, reason: str | None) -> Decision:
        self._final_decision = Decision(status, (), reason, self._frontier, dict(self._counts))
        return self._final_decision

    def expected_total(self) -> int:
        """A running estimate of the samples this item will take (for progress bars)."""
        if self._final_decision is not None:
            return self._final_decision.n_samples
        guess = max(2 * self.n, self._frontier + self.batch_size)
        return min(guess, self.cap)

    def bounds(self) -> tuple[int, int]:
        """One batch (skipped after it) to the cap."""
        return self.batch_size, self.cap


class AdaptiveStopping:
    """The study's stopping rule: named items take exactly n samples; unspecified items
    (those with no ``named_gender`` attribute) follow :class:`AdaptiveProgress` when the
    study's rule is adaptive."""

    def __init__(
        self,
        *,
        adaptive: bool,
        min_share: float,
        batch_size: int,
        cap: int,
        genders: tuple[str, ...],
    ) -> None:
        self.adaptive = adaptive
        self.min_share = min_share
        self.batch_size = batch_size
        self.cap = cap
        self.genders = genders
        self._fixed = FixedN()

    def start(self, item: Item) -> ItemProgress:
        """The state of one item: adaptive for unspecified items, else fixed n."""
        if self.adaptive and item.attributes.get("named_gender") is None:
            return AdaptiveProgress(item.n, self.batch_size, self.cap, self.min_share, self.genders)
        return self._fixed.start(item)
