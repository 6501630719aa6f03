"""The adaptive stopping rule against a plain reference implementation of Algorithm 5."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from gasp.studies.more_of_the_same import STANDARD_CONDITIONS, StoppingRule, Study, Subject

TEXT = {"F": "She works hard.", "M": "He works hard.", None: "Work is hard."}


def reference(
    labels: list[str | None], n: int, batch: int, cap: int, share: float
) -> tuple[str, int]:
    """Algorithm 5 with the loop read as 'while either gender is short'."""
    women = men = 0
    taken = 0
    first = True
    while True:
        end = min(taken + batch, cap)
        for label in labels[taken:end]:
            women += label == "F"
            men += label == "M"
        taken = end
        if first:
            first = False
            if women < share * end or men < share * end:
                return "skipped", taken
        if women >= n and men >= n:
            return "complete", taken
        if taken >= cap:
            return "capped", taken


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(1, 6),
    batch=st.integers(1, 8),
    cap_factor=st.integers(1, 6),
    labels=st.lists(st.sampled_from(["F", "M", None]), min_size=48, max_size=48),
)
def test_cell_state_matches_the_reference(
    n: int, batch: int, cap_factor: int, labels: list[str | None]
) -> None:
    study = Study(
        name="t",
        templates={"p": "[OCCUPATION]"},
        subjects=(Subject("nurse"),),
        conditions=(STANDARD_CONDITIONS["unspecified"],),
        n=n,
        stopping=StoppingRule(batch_size=batch, cap_factor=cap_factor),
    )
    plan = study.to_plan()
    (item,) = plan.items
    cap = study.stopping.cap(n)
    labels = (labels * (cap // len(labels) + 1))[:cap]
    state = plan.stopping.start(item)
    answers: dict[int, str] = {}
    # feed the samples in the order the runner asks for them
    while True:
        decision = state.decide(answers)
        if decision.status != "need":
            break
        for index in decision.missing:
            answers[index] = TEXT[labels[index]]
    expected = reference(labels, n, min(batch, cap), cap, 0.10)
    assert (decision.status, decision.n_samples) == expected
    assert sorted(answers) == list(range(decision.n_samples))
