"""The ``gasp`` command line: it parses options, calls the library and prints.

Each command module registers its commands on :data:`gasp.cli._app.app`; importing
them here assembles the application. A command hands its work to a public function of
:mod:`gasp` and prints what it returns: command modules import nothing of gasp but
``gasp`` and ``gasp.errors`` (``tests/test_cli_imports.py``). The public functions
import the library (and with it pandas, SciPy, scikit-learn, torch) when first called,
so ``gasp --help`` and ``gasp version`` start fast.
Errors the user can fix print one line and exit with status 2.
"""

from __future__ import annotations

import sqlite3
import sys

import typer

# Command modules: importing one registers its commands on ``app``.
# (Add one import line per command module.)
from gasp.cli import (
    _analyze,  # noqa: F401
    _audit,  # noqa: F401
    _calibrate,  # noqa: F401
    _existing_data,  # noqa: F401
    _generate,  # noqa: F401
    _inspect,  # noqa: F401
    _model,  # noqa: F401
    _probe,  # noqa: F401
    _run,  # noqa: F401
    _studies,  # noqa: F401
    _tour,  # noqa: F401
    _version,  # noqa: F401
    _view,  # noqa: F401
)
from gasp.cli._app import app, one_line_help
from gasp.cli._failures import (
    BROKEN_PIPE_EXIT_CODE,
    OutputWatch,
    flag_words,
    os_error_line,
    quiet_exit,
    usage_error_line,
)
from gasp.errors import (
    FAILURE_EXIT_CODE,
    FULL_DISK_HINT,
    USER_ERROR_EXIT_CODE,
    GaspError,
    Interrupted,
    refused_write,
)

one_line_help(app)


def main() -> None:
    """Entry point of the ``gasp`` script.

    A :class:`~gasp.errors.GaspError`, a usage error of the command line (an unknown
    option, a value of the wrong kind, a missing option), or an operating system error
    (a folder that cannot be created, a file that cannot be written), is one line on
    standard error and exit status 2; a write refused for want of space (a full disk, a
    file past its size limit) is one line and exit status 1, the work's failure. Output
    cut short by its reader (``gasp ... | head``) ends quietly with status 141, as a
    process stopped by SIGPIPE does.
    """
    output = OutputWatch()
    try:
        code = app(standalone_mode=False)
        sys.exit(code if isinstance(code, int) else 0)
    except typer.TyperException as exc:  # the argument parser's errors
        print(f"gasp: error: {usage_error_line(exc, sys.argv[1:])}", file=sys.stderr)
        sys.exit(USER_ERROR_EXIT_CODE)
    except typer.Abort:
        print("Aborted!", file=sys.stderr)
        sys.exit(1)
    except Interrupted as exc:  # SIGINT, SIGTERM or SIGHUP: every answer received is stored
        print(
            f"gasp: {exc}; every answer received is stored; run the same command again to continue",
            file=sys.stderr,
        )
        sys.exit(exc.exit_code)
    except GaspError as exc:
        said = getattr(exc, "command_line_message", None) or flag_words(str(exc))
        print(f"gasp: error: {said}", file=sys.stderr)
        sys.exit(exc.exit_code)
    except OSError as exc:  # a full disk is the work's failure (1), not the call's (2)
        print(f"gasp: error: {os_error_line(exc)}", file=sys.stderr)
        sys.exit(FAILURE_EXIT_CODE if refused_write(exc) else USER_ERROR_EXIT_CODE)
    except sqlite3.OperationalError as exc:
        if refused_write(exc):
            print(
                f"gasp: error: a store cannot be written ({exc}: {FULL_DISK_HINT})", file=sys.stderr
            )
            sys.exit(FAILURE_EXIT_CODE)
        if "readonly" not in str(exc) and "unable to open" not in str(exc):
            raise
        print(f"gasp: error: the run store cannot be written: {exc}", file=sys.stderr)
        sys.exit(USER_ERROR_EXIT_CODE)
    except SystemExit as exc:
        if exc.code == 1 and output.closed():
            quiet_exit(BROKEN_PIPE_EXIT_CODE)
        raise


__all__ = ["app", "main"]
