"""Errors a user can fix.

Every error raised for bad input (a broken study file, an unknown model, a missing
API key, empty text) is a :class:`GaspError`. The command line prints its message
as one line, without a traceback, and exits with its class's ``exit_code``:
:data:`USER_ERROR_EXIT_CODE` (2, a usage error) for all but :class:`RunFailed` (1, the
work itself failed). A run stopped by a signal raises :class:`Interrupted` once what it
received is committed.
"""

import signal

USER_ERROR_EXIT_CODE = 2
#: The exit status of a command whose work failed (not a usage error).
FAILURE_EXIT_CODE = 1


class GaspError(Exception):
    """An error caused by input the user can correct; its message is one clear line."""

    #: The command line's exit status for this error.
    exit_code: int = USER_ERROR_EXIT_CODE


class ConfigError(GaspError):
    """A study file, option or configuration value is invalid."""


class DataError(GaspError):
    """Input data (a table of generations, a store) is missing, empty or malformed."""


class BackendError(GaspError):
    """A model backend cannot be created or used (unknown provider, missing key or extra)."""


class RunFailed(GaspError):
    """The work failed, not its call: every request of a run failed (the message names
    the server's error), or the run store could not take an answer (a full disk, a
    store locked by another program). Exit status 1."""

    exit_code = FAILURE_EXIT_CODE


class Interrupted(KeyboardInterrupt):
    """A run stopped by SIGINT, SIGTERM or SIGHUP after committing every answer it had
    received and recording its session; ``exit_code`` is the shell's 128 + signal."""

    def __init__(self, signum: int) -> None:
        self.signum = int(signum)
        self.exit_code = 128 + self.signum
        super().__init__(f"stopped by {signal.Signals(self.signum).name}")
