"""Server addresses as they may be shown or stored: without the parts that carry secrets."""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit


def redact_url(url: str | None) -> str | None:
    """``url`` without user information, query or fragment (where credentials may hide)."""
    if not url:
        return url
    parts = urlsplit(url)
    host = parts.hostname or ""
    try:
        port = parts.port
    except ValueError:  # an invalid port is left out rather than raised here
        port = None
    netloc = f"{host}:{port}" if port else host
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))
