"""The package's one rule for turning a name into a slug (a folder name, an element id)."""

from __future__ import annotations

import re


def slug(text: str, *, keep: str = "", fallback: str = "item") -> str:
    """``text`` in lower case, each run of characters other than ``a-z``, ``0-9`` and
    those in ``keep`` replaced by one ``-``, without a ``-`` at either end; ``fallback``
    when nothing is left (``slug("Open AI/GPT-4.1", keep=".")`` is ``open-ai-gpt-4.1``)."""
    other = "[^a-z0-9" + re.escape(keep) + "]+"
    return re.sub(other, "-", text.lower()).strip("-") or fallback


__all__ = ["slug"]
