"""The audit's plan times each model on its own prompts: a system-prompt variant whose
prompts are much longer is planned at its own time per request, within 1.5x of the time
its run then takes (a timed fake engine whose latency grows with the prompt's words)."""

from __future__ import annotations

import time
from pathlib import Path

from gasp.auditing import AuditConfig, prepare_audit
from gasp.auditing._plan import plan_audit
from gasp.runner import generate

#: A system prompt of 400 words: the variant's requests are about ten times longer.
LONG_PROMPT = " ".join(["Answer with care and with every detail you can give."] * 40)
OPTIONS = ["latency_s=0.2", "latency_per_word_s=0.001", "batching=true", "batch_size=8"]


def test_a_long_system_prompt_variant_is_planned_at_its_own_time(tmp_path: Path) -> None:
    audit = prepare_audit(
        ["plain=mock/personas"], ["narratives"], "plain", tmp_path / "audit", 0.05,
        AuditConfig(
            quick=True, model_options=OPTIONS, system_prompt_variants=[f"long={LONG_PROMPT}"]
        ),
    )  # fmt: skip
    planned = plan_audit(audit.specs, "plain", 0.05, measure=True)
    actual: dict[str, float] = {}
    for spec in audit.specs:
        assert spec.paths.store is not None
        started = time.perf_counter()
        summary = generate(
            spec.build(), spec.run.model, spec.paths.store, spec.run_options(progress=False)
        )
        actual[spec.key] = time.perf_counter() - started
        assert summary.complete
    plain, long = planned.runs["plain/narratives"], planned.runs["long/narratives"]
    assert plain[0] == long[0]  # the same requests
    # the variant is planned slower than the plain model, as it runs
    assert long[2] > 2 * plain[2]
    assert actual["long/narratives"] > 2 * actual["plain/narratives"]
    for key, (_, _, seconds) in planned.runs.items():
        ratio = seconds / actual[key]
        assert 1 / 1.5 <= ratio <= 1.5, f"{key}: planned {seconds:.2f} s, took {actual[key]:.2f} s"
    lines = planned.lines()
    assert any("long/narratives:" in line and "timed on mock/personas" in line for line in lines)
