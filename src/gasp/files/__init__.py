"""Files a user names, read within bounds: a regular file, of a bounded size, as text.

Every input file gasp reads whole (study files, subject, jobs and name tables) goes
through :func:`check_input_file` before it is opened: a device (``/dev/zero``,
``/dev/urandom``) or a FIFO would be read forever or block, and a file larger than what
such an input holds would take the machine's memory. :func:`read_text_file` then reads
it as UTF-8; :func:`check_yaml_aliases` refuses a YAML text whose aliases could expand
it beyond its size (an alias bomb); :func:`check_archive` refuses a zip archive whose
members would decode to more than such an input holds (a zip bomb). Each refusal is one
:class:`~gasp.errors.DataError` line.
"""

from __future__ import annotations

import stat
import zipfile
from pathlib import Path

from gasp.errors import DataError, GaspError

#: The largest input file read whole: a study file or a table of subjects, jobs or
#: names holds kilobytes to a few megabytes (the SSA name table is about 30 MB).
MAX_INPUT_BYTES = 256 * 1024**2
#: The most aliases a YAML study file may hold: each may repeat a whole subtree, so k
#: aliases nested expand a file at most about e^(k/e) times (20: some 1,500 times).
MAX_YAML_ALIASES = 20


def check_input_file(
    path: str | Path,
    what: str,
    max_bytes: int = MAX_INPUT_BYTES,
    error: type[GaspError] = DataError,
) -> Path:
    """``path`` when it is a regular file of at most ``max_bytes``; else one ``error``
    line (:class:`DataError` by default) naming ``what`` it should have been."""
    file = Path(path)
    try:
        info = file.stat()
    except OSError as exc:
        raise error(f"cannot read {what} {file}: {exc.strerror or exc}") from None
    if not stat.S_ISREG(info.st_mode):
        kind = "a folder" if stat.S_ISDIR(info.st_mode) else "not a regular file (a device or pipe)"
        raise error(f"{what} {file} is {kind}; give a file")
    if info.st_size > max_bytes:
        raise error(
            f"{what} {file} holds {info.st_size:,} bytes, more than such a file holds "
            f"({max_bytes:,})"
        )
    return file


#: The most bytes a zip archive's members may decode to, all together (an Inspect AI
#: log of tens of thousands of samples holds a few hundred megabytes).
MAX_ARCHIVE_BYTES = 4 * MAX_INPUT_BYTES


def check_archive(
    path: str | Path,
    what: str,
    max_member_bytes: int = MAX_INPUT_BYTES,
    max_total_bytes: int = MAX_ARCHIVE_BYTES,
) -> None:
    """Refuse in one :class:`DataError` line a zip archive one of whose members decodes
    to more than ``max_member_bytes``, or all of them to more than ``max_total_bytes``
    (their sizes as the archive declares them: a reader stops at the declared size)."""
    try:
        with zipfile.ZipFile(path) as archive:
            sizes = [(info.filename, info.file_size) for info in archive.infolist()]
    except (OSError, zipfile.BadZipFile) as exc:
        raise DataError(f"cannot read {what} {path}: {exc}") from None
    largest = max(sizes, key=lambda item: item[1], default=("", 0))
    if largest[1] > max_member_bytes:
        raise DataError(
            f"{what} {path} holds a member ({largest[0]}) of {largest[1]:,} bytes once "
            f"decompressed, more than such a file holds ({max_member_bytes:,})"
        )
    total = sum(size for _name, size in sizes)
    if total > max_total_bytes:
        raise DataError(
            f"{what} {path} decompresses to {total:,} bytes, more than such a file holds "
            f"({max_total_bytes:,})"
        )


def read_text_file(
    path: str | Path,
    what: str,
    max_bytes: int = MAX_INPUT_BYTES,
    error: type[GaspError] = DataError,
) -> str:
    """The UTF-8 text of ``path``, checked first by :func:`check_input_file`."""
    file = check_input_file(path, what, max_bytes, error)
    try:
        with file.open("rb") as handle:
            raw = handle.read(max_bytes + 1)
    except OSError as exc:
        raise error(f"cannot read {what} {file}: {exc.strerror or exc}") from None
    if len(raw) > max_bytes:  # it grew while read
        raise error(f"{what} {file} holds more than {max_bytes:,} bytes")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise error(f"{what} {file} is not UTF-8 text") from None


def check_yaml_aliases(
    text: str, source: str, limit: int = MAX_YAML_ALIASES, error: type[GaspError] = DataError
) -> None:
    """Refuse YAML ``text`` holding more than ``limit`` aliases (``*name``): nested
    aliases expand a few lines into billions of nodes."""
    import yaml

    count = 0
    try:
        for token in yaml.scan(text, Loader=yaml.SafeLoader):
            if isinstance(token, yaml.AliasToken):
                count += 1
                if count > limit:
                    raise error(f"{source}: more than {limit} YAML aliases; write the values out")
    except yaml.YAMLError:
        return  # the parser says what is wrong


__all__ = [
    "MAX_ARCHIVE_BYTES",
    "MAX_INPUT_BYTES",
    "MAX_YAML_ALIASES",
    "check_archive",
    "check_input_file",
    "check_yaml_aliases",
    "read_text_file",
]
