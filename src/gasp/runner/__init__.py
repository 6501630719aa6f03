"""The runner: generates a study's samples into a run store (the G of GAS(P)).

It plans requests per cell, applies the adaptive stopping rule of seed ``000``
(Algorithm 5), enforces request and cost budgets, shows progress, and resumes a run
from its store.
"""

from gasp.runner._adaptive import CellDecision, CellState
from gasp.runner._plan import (
    OPENAI_PRICES_PER_MTOK,
    CellPlan,
    PlanEstimate,
    build_request,
    estimate_plan,
    plan_study,
    price_per_mtok,
    request_key,
    sample_seed,
)
from gasp.runner._progress import RunProgress, summary_table
from gasp.runner._run import RunOptions, RunSummary, agenerate, generate, redact_url

__all__ = [
    "OPENAI_PRICES_PER_MTOK",
    "CellDecision",
    "CellPlan",
    "CellState",
    "PlanEstimate",
    "RunOptions",
    "RunProgress",
    "RunSummary",
    "agenerate",
    "build_request",
    "estimate_plan",
    "generate",
    "plan_study",
    "price_per_mtok",
    "redact_url",
    "request_key",
    "sample_seed",
    "summary_table",
]
