"""Server addresses as they may be shown or stored: without the parts that carry secrets."""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit

from gasp.errors import ConfigError


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


def refuse_credentials(url: str) -> None:
    """Raise :class:`ConfigError` when ``url`` carries a user name or password
    (``https://user:pass@host/v1``): a key goes in an environment variable, never in a
    URL that could be shown or stored. A query string or fragment (``/v1?key=...``) is
    refused too: request paths are appended to the base URL, which a query would swallow,
    and a query is where a key would ride."""
    parts = urlsplit(url)
    if parts.username is not None or parts.password is not None:
        raise ConfigError(
            f"base URL {redact_url(url)} carries credentials (user:password@); give the key "
            "in an environment variable named by --api-key-env instead"
        )
    if parts.query or parts.fragment or url.rstrip().endswith(("?", "#")):
        shown = redact_url(urlunsplit((parts.scheme, parts.netloc, parts.path, "", "")))
        raise ConfigError(
            f"base URL {shown}?... carries a query string or fragment; give the server's "
            "base alone (http://host:port/v1) and any key in --api-key-env"
        )
