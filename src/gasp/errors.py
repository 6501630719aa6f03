"""Errors a user can fix.

Every error raised for bad input (a broken study file, an unknown model, a missing
API key, empty text) is a :class:`GaspError`. The command line prints its message
as one line, without a traceback, and exits with its class's ``exit_code``:
:data:`USER_ERROR_EXIT_CODE` (2, a usage error) for all but :class:`RunFailed` (1, the
work itself failed). A run stopped by a signal raises :class:`Interrupted` once what it
received is committed.
"""

import errno
import signal

USER_ERROR_EXIT_CODE = 2
#: The exit status of a command whose work failed (not a usage error).
FAILURE_EXIT_CODE = 1


class GaspError(Exception):
    """An error caused by input the user can correct; its message is one clear line.

    ``command_line_message``, when set, is the same error in the command line's words
    (flags rather than keywords); the command line prints it instead."""

    command_line_message: str | None = None

    #: The command line's exit status for this error.
    exit_code: int = USER_ERROR_EXIT_CODE


class ConfigError(GaspError):
    """A study file, option or configuration value is invalid."""


class DataError(GaspError):
    """Input data (a table of generations, a store) is missing, empty or malformed."""


class BackendError(GaspError):
    """A model backend cannot be created or used (unknown provider, missing key or extra)."""


class ArgumentError(ConfigError, ValueError):
    """A keyword of a public function (or a flag of a command) has a value out of range,
    not among its choices, or unknown."""


class ArgumentTypeError(ConfigError, TypeError):
    """A keyword of a public function has a value of the wrong type."""


class MissingKeyError(BackendError):
    """A model needs an API key and the environment variable that holds it is not set."""


class RunFailed(GaspError):
    """The work failed, not its call: every request of a run failed (the message names
    the server's error), or the run store could not take an answer (a full disk, a
    store locked by another program). Exit status 1."""

    exit_code = FAILURE_EXIT_CODE


#: SQLite's extended result codes of a write the file system refused.
_REFUSED_WRITES = frozenset({
    "SQLITE_FULL", "SQLITE_IOERR_WRITE", "SQLITE_IOERR_FSYNC", "SQLITE_IOERR_DIR_FSYNC",
    "SQLITE_IOERR_TRUNCATE", "SQLITE_IOERR_SHMSIZE",
})  # fmt: skip
#: The operating system's errors of a write past the space or size a file may take.
_FULL_ERRNOS = frozenset({errno.ENOSPC, errno.EFBIG, errno.EDQUOT})
#: What a refused write most likely means, for an error line.
FULL_DISK_HINT = "a write was refused: is the disk full, or a file past its size limit?"


def refused_write(exc: BaseException) -> bool:
    """True when ``exc`` is a write the file system refused: a full disk, a quota, or a
    file past its size limit (``ulimit -f``), whether raised by SQLite or the operating
    system."""
    if isinstance(exc, OSError):
        return exc.errno in _FULL_ERRNOS
    name = getattr(exc, "sqlite_errorname", None)
    return name in _REFUSED_WRITES or (name is None and "disk is full" in str(exc))


class Interrupted(KeyboardInterrupt):
    """A run stopped by SIGINT, SIGTERM or SIGHUP after committing every answer it had
    received and recording its session; ``exit_code`` is the shell's 128 + signal."""

    def __init__(self, signum: int) -> None:
        self.signum = int(signum)
        self.exit_code = 128 + self.signum
        super().__init__(f"stopped by {signal.Signals(self.signum).name}")
