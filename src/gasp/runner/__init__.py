"""The runner: turns a study's items into requests and stores every answer.

A study hands the runner a :class:`StudyPlan` (items with their attributes, request
kinds, n per item and a :class:`StoppingRule`); the runner streams requests through
:class:`gasp.backends.ResilientModel`, enforces request and cost budgets, shows
progress, and resumes a run from its store. It never reads an item's attributes.
"""

from gasp.runner._batch import BATCH_PROVIDERS, BatchRun, check_batch_model
from gasp.runner._forms import (
    apply_prompt_form,
    completion_plan,
    model_has_chat_template,
    resolve_prompt_form,
)
from gasp.runner._items import (
    CAPPED,
    COMPLETE,
    MAX_PLANNED_REQUESTS,
    NEED,
    PROMPT_FORMS,
    SKIPPED,
    Completion,
    Decision,
    FixedN,
    Item,
    ItemProgress,
    Plannable,
    RequestKind,
    StoppingRule,
    StudyPlan,
    as_plan,
    item_id,
)
from gasp.runner._loop import ItemLoop, ItemState
from gasp.runner._manifest import build_manifest, check_identity, run_identity
from gasp.runner._notebook import NotebookBar, active_bar, in_notebook, notebook_bar
from gasp.runner._plan import (
    PlanEstimate,
    build_request,
    estimate_plan,
    estimate_prompt_tokens,
    request_key,
    sample_seed,
)
from gasp.runner._progress import (
    DEFAULT_PROGRESS_INTERVAL_S,
    PROGRESS_INTERVAL_ENV,
    RunProgress,
    progress_interval,
    progress_line,
    summary_table,
)
from gasp.runner._run import (
    agenerate,
    check_capabilities,
    check_generation,
    check_reachable,
    generate,
    item_records,
)
from gasp.runner._summary import (
    BATCH_POLL_ENV,
    DEFAULT_BATCH_POLL_S,
    BatchOptions,
    RunOptions,
    RunSummary,
)
from gasp.runner._sync import loop_is_running, run_sync
from gasp.runner._variant import SystemPromptVariant, with_system_prompt

__all__ = [
    "BATCH_POLL_ENV",
    "BATCH_PROVIDERS",
    "CAPPED",
    "COMPLETE",
    "DEFAULT_BATCH_POLL_S",
    "DEFAULT_PROGRESS_INTERVAL_S",
    "MAX_PLANNED_REQUESTS",
    "NEED",
    "PROGRESS_INTERVAL_ENV",
    "PROMPT_FORMS",
    "SKIPPED",
    "BatchOptions",
    "BatchRun",
    "Completion",
    "Decision",
    "FixedN",
    "Item",
    "ItemLoop",
    "ItemProgress",
    "ItemState",
    "NotebookBar",
    "PlanEstimate",
    "Plannable",
    "RequestKind",
    "RunOptions",
    "RunProgress",
    "RunSummary",
    "StoppingRule",
    "StudyPlan",
    "SystemPromptVariant",
    "active_bar",
    "agenerate",
    "apply_prompt_form",
    "as_plan",
    "build_manifest",
    "build_request",
    "check_batch_model",
    "check_capabilities",
    "check_generation",
    "check_identity",
    "check_reachable",
    "completion_plan",
    "estimate_plan",
    "estimate_prompt_tokens",
    "generate",
    "in_notebook",
    "item_id",
    "item_records",
    "loop_is_running",
    "model_has_chat_template",
    "notebook_bar",
    "progress_interval",
    "progress_line",
    "request_key",
    "resolve_prompt_form",
    "run_identity",
    "run_sync",
    "sample_seed",
    "summary_table",
    "with_system_prompt",
]
