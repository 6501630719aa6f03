"""The ``gasp`` command line.

Each command module registers its commands on :data:`gasp.cli._app.app`; importing
them here assembles the application. Errors the user can fix print one line and
exit with a non-zero code.
"""

from __future__ import annotations

import sys

# Command modules: importing one registers its commands on ``app``.
# (Add one import line per command module.)
from gasp.cli import (
    _analyze,  # noqa: F401
    _calibrate,  # noqa: F401
    _existing_data,  # noqa: F401
    _generate,  # noqa: F401
    _model,  # noqa: F401
    _probe,  # noqa: F401
    _run,  # noqa: F401
    _studies,  # noqa: F401
    _tour,  # noqa: F401
    _version,  # noqa: F401
)
from gasp.cli._app import app
from gasp.errors import USER_ERROR_EXIT_CODE, GaspError


def main() -> None:
    """Entry point of the ``gasp`` script."""
    try:
        app(standalone_mode=True)
    except GaspError as exc:
        print(f"gasp: error: {exc}", file=sys.stderr)
        sys.exit(USER_ERROR_EXIT_CODE)


__all__ = ["app", "main"]
