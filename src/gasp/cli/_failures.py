"""How the command line ends when the system, or the argument parser, stops it.

An operating system error that reaches the command line (a folder that cannot be
created, a read-only file) becomes one line naming the file; a usage error of the
argument parser (an unknown option, a value of the wrong kind) one line naming the
command's help; output whose reader went away (``gasp analyze RUN | head``) ends
quietly, as a process stopped by SIGPIPE.
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
from collections.abc import Sequence
from pathlib import Path

from gasp.errors import FULL_DISK_HINT, refused_write

#: Exit status after the reader of standard output went away (128 + SIGPIPE).
BROKEN_PIPE_EXIT_CODE = 141


def os_error_line(exc: OSError) -> str:
    """One line for an operating system error: what failed, on which file."""
    reason = exc.strerror or str(exc) or type(exc).__name__
    hint = f" ({FULL_DISK_HINT})" if refused_write(exc) else ""
    if exc.filename is None:
        return reason + hint
    target = f"{exc.filename} -> {exc.filename2}" if exc.filename2 is not None else exc.filename
    return f"{reason}: {target}{hint}"


_CALLED = re.compile(r"^gasp\.[a-z_]+\(\): (?:([a-z][a-z0-9_]*)(?= ))?")


def flag_words(message: str) -> str:
    """A public function's error in the command line's words: ``gasp.run(): level must
    lie in (0, 1)`` is ``--level must lie in (0, 1)`` (each flag is its keyword with
    dashes for underscores)."""

    def flag(match: re.Match[str]) -> str:
        name = match.group(1)
        return "" if name is None else "--" + name.replace("_", "-")

    return _CALLED.sub(flag, message, count=1)


def usage_error_line(exc: Exception, args: Sequence[str]) -> str:
    """One line for an error of the argument parser (Typer's copy of Click's
    ``UsageError`` and kin): its message, where to read the command's options, and, when
    an argument that starts with ``-`` names a file, how to pass it (after ``--``)."""
    format_message = getattr(exc, "format_message", None)
    message = " ".join((format_message() if callable(format_message) else str(exc)).split())
    message = message.replace("Value error, ", "")
    names: list[str] = []
    ctx = getattr(exc, "ctx", None)
    while ctx is not None and ctx.parent is not None:  # the root's name is the program's
        names.insert(0, str(ctx.info_name))
        ctx = ctx.parent
    command = " ".join(["gasp", *names])
    line = f"{message} (see '{command} --help')"
    dashed = [a for a in args if a.startswith("-") and a != "-" and Path(a).exists()]
    if getattr(exc, "option_name", None) and dashed:
        line += f"; a file name that starts with '-' goes after '--': {command} ... -- {dashed[0]}"
    return line


def _is_devnull(fd: int) -> bool:
    try:
        here, null = os.fstat(fd), os.stat(os.devnull)
    except OSError:
        return False
    return (here.st_dev, here.st_ino) == (null.st_dev, null.st_ino)


class OutputWatch:
    """Whether standard output's reader went away while a command ran.

    Click (Typer's copy of it as well) wraps both streams in a ``PacifyFlushWrapper``
    when a write meets a broken pipe, and Rich points standard output at the null
    device; both then exit with status 1.
    """

    def __init__(self) -> None:
        self._was_devnull = _is_devnull(1)

    def closed(self) -> bool:
        """True when the command stopped because standard output's reader went away."""
        if type(sys.stdout).__name__ == "PacifyFlushWrapper":
            return True
        return not self._was_devnull and _is_devnull(1)


def quiet_exit(code: int) -> None:
    """Exit with ``code`` and nothing more on the streams (no error at interpreter exit
    when Python flushes a standard output whose reader is gone)."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    for stream in (sys.__stdout__, sys.__stderr__):
        if stream is not None:
            with contextlib.suppress(OSError, ValueError):
                os.dup2(devnull, stream.fileno())
    sys.exit(code)


__all__ = [
    "BROKEN_PIPE_EXIT_CODE",
    "OutputWatch",
    "flag_words",
    "os_error_line",
    "quiet_exit",
]
