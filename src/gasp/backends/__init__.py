"""Model backends chosen by a ``provider/model`` string."""

from gasp.backends._base import (
    ChatMessage,
    DecodingConfig,
    GenerationRequest,
    GenerationResponse,
    ModelBackend,
    StopReason,
)

__all__ = [
    "ChatMessage",
    "DecodingConfig",
    "GenerationRequest",
    "GenerationResponse",
    "ModelBackend",
    "StopReason",
]
