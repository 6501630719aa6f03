"""Model backends chosen by a ``provider/model`` string."""

from gasp.backends._base import (
    ChatMessage,
    DecodingConfig,
    GenerationRequest,
    GenerationResponse,
    ModelBackend,
    StopReason,
)
from gasp.backends._faults import (
    FaultAction,
    FaultDecision,
    RequestRejectedError,
    TransientBackendError,
    classify_error,
    classify_status,
    parse_retry_after,
)
from gasp.backends._mock import MOCK_SCRIPTS, MockBackend, make_mock_backend
from gasp.backends._personas import PersonaMix, persona_text
from gasp.backends._resilient import ResilientModel
from gasp.backends._resolve import PROVIDERS, resolve_backend
from gasp.backends._retry import RetryPolicy
from gasp.backends._urls import redact_url

__all__ = [
    "MOCK_SCRIPTS",
    "PROVIDERS",
    "ChatMessage",
    "DecodingConfig",
    "FaultAction",
    "FaultDecision",
    "GenerationRequest",
    "GenerationResponse",
    "MockBackend",
    "ModelBackend",
    "PersonaMix",
    "RequestRejectedError",
    "ResilientModel",
    "RetryPolicy",
    "StopReason",
    "TransientBackendError",
    "classify_error",
    "classify_status",
    "make_mock_backend",
    "parse_retry_after",
    "persona_text",
    "redact_url",
    "resolve_backend",
]
