"""Errors a user can fix.

Every error raised for bad input (a broken study file, an unknown model, a missing
API key, empty text) is a :class:`GaspError`. The command line prints its message
as one line, without a traceback, and exits with :data:`USER_ERROR_EXIT_CODE`.
"""

USER_ERROR_EXIT_CODE = 2


class GaspError(Exception):
    """An error caused by input the user can correct; its message is one clear line.

    ``command_line_message``, when set, is the same error in the command line's words
    (flags rather than keywords); the command line prints it instead."""

    command_line_message: str | None = None


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
