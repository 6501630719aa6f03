"""One audit per folder: the folder's own lock, beside its ``audit.json``.

Two audits on one folder would each find the other's runs locked by their run stores
and both fail, though every answer was stored, and each would rewrite the other's
record. The audit takes ``<out>/audit.json.lock`` (an OS-released lock, as a run store
does: :class:`gasp.store.StoreLock`) before it checks a server or writes anything, and
holds it until its scorecard is written; a second audit on the folder is refused in
one line naming the holder.
"""

from __future__ import annotations

from pathlib import Path

from gasp.errors import ConfigError
from gasp.store import StoreLock, StoreLockedError

#: The file whose lock (``audit.json.lock``) the audit of a folder holds.
_LOCKED_NAME = "audit.json"


class AuditLocked(ConfigError):
    """Another process is running an audit in the same folder."""


def lock_audit(out: Path, held: StoreLock | None = None) -> StoreLock:
    """Take the lock of the audit folder ``out`` (``held``: the lock this audit took
    already, returned as it is); :class:`AuditLocked` when another process holds it.

    The folder is made when it does not exist (the lock file lives in it)."""
    if held is not None and held.held:
        return held
    lock = StoreLock(out / _LOCKED_NAME)
    try:
        return lock.acquire()
    except StoreLockedError as exc:
        raise AuditLocked(
            f"another audit is running in {out} ({exc.holder.describe()}); wait for it "
            "to finish or give another --out"
        ) from None


__all__ = ["AuditLocked", "lock_audit"]
