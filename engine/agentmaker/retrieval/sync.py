"""IndexSync: the seam between a source of truth and the index derived from it.

``SyncIndexSync`` writes through and keeps bookkeeping per key (a document id): a
content fingerprint, so an unchanged re-ingest is skipped, and a pending set, so a
write that died half-way is found and healed on the next start.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable


class Bookkeeping(ABC):
    """Where fingerprints and pending keys are kept."""

    @abstractmethod
    def fingerprint(self, key: str) -> str | None:
        """The fingerprint last written for ``key``."""

    @abstractmethod
    def set_fingerprint(self, key: str, fingerprint: str | None) -> None:
        """Record (or with None, forget) the fingerprint of ``key``."""

    @abstractmethod
    def mark_pending(self, key: str) -> None:
        """Record that a write of ``key`` has started."""

    @abstractmethod
    def clear_pending(self, key: str) -> None:
        """Record that the write of ``key`` finished."""

    @abstractmethod
    def pending(self) -> set[str]:
        """Keys whose write started but never finished."""

    @abstractmethod
    def keys(self) -> set[str]:
        """Every key with a fingerprint."""


class InMemoryBookkeeping(Bookkeeping):
    """Zero-dependency bookkeeping; rebuilt from the source of truth after a restart."""

    def __init__(self) -> None:
        self._fingerprints: dict[str, str] = {}
        self._pending: set[str] = set()

    def fingerprint(self, key: str) -> str | None:
        return self._fingerprints.get(key)

    def set_fingerprint(self, key: str, fingerprint: str | None) -> None:
        if fingerprint is None:
            self._fingerprints.pop(key, None)
        else:
            self._fingerprints[key] = fingerprint

    def mark_pending(self, key: str) -> None:
        self._pending.add(key)

    def clear_pending(self, key: str) -> None:
        self._pending.discard(key)

    def pending(self) -> set[str]:
        return set(self._pending)

    def keys(self) -> set[str]:
        return set(self._fingerprints)


class IndexSync(ABC):
    """How a subsystem keeps its derived index in step with its source of truth."""

    @abstractmethod
    def is_current(self, key: str, fingerprint: str) -> bool:
        """True when ``key`` was already written with this fingerprint."""

    @abstractmethod
    def write(self, key: str, fingerprint: str, apply: Callable[[], None]) -> None:
        """Run ``apply`` (which writes source and index) and record the fingerprint."""

    @abstractmethod
    def remove(self, key: str, apply: Callable[[], None]) -> None:
        """Run ``apply`` (which removes ``key`` everywhere) and forget its bookkeeping."""

    @abstractmethod
    def pending(self) -> set[str]:
        """Keys whose last write never finished."""

    def heal(self, repair: Callable[[str], None]) -> list[str]:
        """Call ``repair(key)`` for every pending key; returns the keys repaired."""
        healed = []
        for key in sorted(self.pending()):
            repair(key)
            healed.append(key)
        return healed


class SyncIndexSync(IndexSync):
    """Writes through synchronously, with fingerprints and a pending set."""

    def __init__(self, bookkeeping: Bookkeeping | None = None) -> None:
        self.bookkeeping = bookkeeping or InMemoryBookkeeping()

    def is_current(self, key: str, fingerprint: str) -> bool:
        return (
            self.bookkeeping.fingerprint(key) == fingerprint
            and key not in self.bookkeeping.pending()
        )

    def write(self, key: str, fingerprint: str, apply: Callable[[], None]) -> None:
        self.bookkeeping.mark_pending(key)
        apply()
        self.bookkeeping.set_fingerprint(key, fingerprint)
        self.bookkeeping.clear_pending(key)

    def remove(self, key: str, apply: Callable[[], None]) -> None:
        self.bookkeeping.mark_pending(key)
        apply()
        self.bookkeeping.set_fingerprint(key, None)
        self.bookkeeping.clear_pending(key)

    def pending(self) -> set[str]:
        return self.bookkeeping.pending()
