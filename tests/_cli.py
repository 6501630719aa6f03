"""Running the ``gasp`` command line inside a test, as a user's shell would."""

from __future__ import annotations

import sys

import pytest

from gasp.cli import main


def gasp_exit_code(monkeypatch: pytest.MonkeyPatch, *args: str) -> int:
    """Run ``gasp ARGS`` through its entry point (errors print one line) and return the
    exit status."""
    monkeypatch.setattr(sys, "argv", ["gasp", *args])
    try:
        main()
    except SystemExit as exc:
        return int(exc.code or 0)
    return 0
