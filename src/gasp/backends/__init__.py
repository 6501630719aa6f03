"""Model backends chosen by a ``provider/model`` string."""

from gasp.backends._available import check_model_available, served_models, server_identity
from gasp.backends._base import Capability, ModelBackend, require_capability
from gasp.backends._batch_client import (
    BATCH_ENDPOINT,
    TERMINAL_STATUSES,
    BatchClient,
    BatchRequest,
    BatchResponse,
)
from gasp.backends._chat_template import has_chat_template
from gasp.backends._faults import (
    FaultAction,
    FaultDecision,
    RequestRejectedError,
    TransientBackendError,
    classify_error,
    classify_status,
    parse_retry_after,
)
from gasp.backends._fleet import (
    DRAIN_KINDS,
    FLEET_OPTIONS,
    EndpointStats,
    FleetBackend,
    check_distinct,
)
from gasp.backends._gguf import GgufInfo, read_gguf_header
from gasp.backends._messages import (
    CandidateScore,
    ChatMessage,
    DecodingConfig,
    GenerationRequest,
    GenerationResponse,
    ScoreRequest,
    ScoreResponse,
    StopReason,
)
from gasp.backends._mock import MOCK_SCRIPTS, MockBackend, make_mock_backend
from gasp.backends._openai_scoring import DEFAULT_MAX_CANDIDATE_CHARS, multi_token_reason
from gasp.backends._options import parse_model_options
from gasp.backends._personas import PersonaMix, persona_text, stable_int
from gasp.backends._prices import (
    BATCH_PRICE_FACTOR,
    OPENAI_PRICES_PER_MTOK,
    batch_price,
    cost_usd,
    price_per_mtok,
)
from gasp.backends._resilient import RequestSource, ResilientModel
from gasp.backends._resolve import (
    PROVIDERS,
    export_hf,
    parse_model_spec,
    resolve_backend,
    split_spec,
)
from gasp.backends._retry import RetryPolicy
from gasp.backends._urls import redact_url, refuse_credentials

__all__ = [
    "BATCH_ENDPOINT",
    "BATCH_PRICE_FACTOR",
    "DEFAULT_MAX_CANDIDATE_CHARS",
    "DRAIN_KINDS",
    "FLEET_OPTIONS",
    "MOCK_SCRIPTS",
    "OPENAI_PRICES_PER_MTOK",
    "PROVIDERS",
    "TERMINAL_STATUSES",
    "BatchClient",
    "BatchRequest",
    "BatchResponse",
    "CandidateScore",
    "Capability",
    "ChatMessage",
    "DecodingConfig",
    "EndpointStats",
    "FaultAction",
    "FaultDecision",
    "FleetBackend",
    "GenerationRequest",
    "GenerationResponse",
    "GgufInfo",
    "MockBackend",
    "ModelBackend",
    "PersonaMix",
    "RequestRejectedError",
    "RequestSource",
    "ResilientModel",
    "RetryPolicy",
    "ScoreRequest",
    "ScoreResponse",
    "StopReason",
    "TransientBackendError",
    "batch_price",
    "check_distinct",
    "check_model_available",
    "classify_error",
    "classify_status",
    "cost_usd",
    "export_hf",
    "has_chat_template",
    "make_mock_backend",
    "multi_token_reason",
    "parse_model_options",
    "parse_model_spec",
    "parse_retry_after",
    "persona_text",
    "price_per_mtok",
    "read_gguf_header",
    "redact_url",
    "refuse_credentials",
    "require_capability",
    "resolve_backend",
    "served_models",
    "server_identity",
    "split_spec",
    "stable_int",
]
