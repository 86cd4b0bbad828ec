"""The journal's chain of writes and its seal: how a shortened journal is noticed.

Every write transaction to the journal advances a :class:`Chain`: the number of writes so far
(``commits``), a running SHA-256 over all of them (``head``, with the one before as ``prev``) and
the last entry written (game and sequence number). The chain is stored twice: inside the
database (``meta``, in the same transaction as the write) and in the **seal**, a small file beside
it (``journal.db.seal``) updated after each commit: two checksummed 512-byte slots written in turn
in place, so a torn write leaves the other slot whole.

SQLite drops the tail of a damaged write-ahead log without a word: the frames from the first bad
one on are not part of the database any more, ``integrity_check`` still says ok, and the next
checkpoint deletes them. The seal is a plain file that no WAL recovery or checkpoint touches, so
the database then holds fewer writes than the seal records, which :func:`compare` reports. The
seal is written after the database commits, so it can lag the database by one write (a process
killed between the two), never lead it: one write ahead whose ``prev`` is the seal's ``head`` is
that case, and anything else that disagrees is refused.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from table.journal_errors import JournalDamagedError, JournalError

SEAL_FORMAT = "cardtable-journal-seal"


def seal_path(journal: Path) -> Path:
    """``journal.db.seal`` beside ``journal.db``."""
    return journal.with_name(journal.name + ".seal")


def digest(*parts: str) -> str:
    return hashlib.sha256("\x1f".join(parts).encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class Chain:
    journal_id: str  # a random id given at creation: a seal is only ever compared with its own journal
    commits: int
    head: str
    prev: str
    last_entry: tuple[int, int] | None = None  # (game id, seq) of the newest entry written

    @classmethod
    def start(cls, journal_id: str) -> Chain:
        return cls(journal_id, 0, digest("cardtable journal", journal_id), "")

    def advance(self, change: str, *, entry: tuple[int, int] | None = None) -> Chain:
        """The chain after one more write transaction described by ``change`` (canonical text)."""
        last = entry if entry is not None else self.last_entry
        return Chain(self.journal_id, self.commits + 1, digest(self.head, change), self.head, last)

    def to_json(self) -> dict[str, Any]:
        return {
            "journal": self.journal_id,
            "commits": self.commits,
            "head": self.head,
            "prev": self.prev,
            "last_entry": None if self.last_entry is None else list(self.last_entry),
        }

    @classmethod
    def from_json(cls, data: object, where: str) -> Chain:
        """Read a chain back; anything malformed is a :class:`JournalDamagedError` naming ``where``."""
        try:
            assert isinstance(data, dict)
            last = data.get("last_entry")
            if last is not None:
                assert isinstance(last, list) and len(last) == 2 and all(type(v) is int for v in last)
            journal_id, commits, head, prev = data["journal"], data["commits"], data["head"], data["prev"]
            assert isinstance(journal_id, str) and type(commits) is int and commits >= 0
            assert isinstance(head, str) and isinstance(prev, str)
        except (AssertionError, KeyError):
            raise JournalDamagedError(f"{where}: not a journal chain record") from None
        return cls(journal_id, commits, head, prev, None if last is None else (last[0], last[1]))

    def describe(self) -> str:
        if self.last_entry is None:
            return f"{self.commits} writes, no entry"
        game, seq = self.last_entry
        return f"{self.commits} writes, the last entry game {game} entry {seq}"


SLOT_BYTES = 512
SLOTS = 2


def _slot(chain: Chain) -> bytes:
    """One slot of the seal: the chain as JSON with a checksum of itself, padded to ``SLOT_BYTES``."""
    text = json.dumps(chain.to_json(), sort_keys=True, separators=(",", ":"))
    line = json.dumps({"format": SEAL_FORMAT, "chain": text, "check": digest(text)}, separators=(",", ":"))
    raw = line.encode()
    assert len(raw) < SLOT_BYTES, "a seal slot holds the chain"
    return raw + b" " * (SLOT_BYTES - 1 - len(raw)) + b"\n"


def _read_slot(raw: bytes) -> Chain | None:
    """The chain in one slot, or None when the slot is torn or damaged."""
    try:
        outer = json.loads(raw)
        text = outer["chain"]
        if outer.get("format") != SEAL_FORMAT or not isinstance(text, str) or outer.get("check") != digest(text):
            return None
        return Chain.from_json(json.loads(text), "seal")
    except (ValueError, TypeError, KeyError, JournalDamagedError):
        return None


def read_seal(journal: Path) -> Chain | None:
    """The seal beside ``journal`` (the newer of its two slots), or None when there is none."""
    path = seal_path(journal)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise JournalError(f"{path}: cannot read the journal's seal: {exc.strerror or exc}") from None
    if len(raw) != SLOT_BYTES * SLOTS:
        raise JournalDamagedError(f"{path}: the journal's seal is damaged ({len(raw)} bytes, not {SLOT_BYTES * SLOTS})")
    slots = [_read_slot(raw[i * SLOT_BYTES : (i + 1) * SLOT_BYTES]) for i in range(SLOTS)]
    valid = [c for c in slots if c is not None]
    if not valid:
        raise JournalDamagedError(f"{path}: the journal's seal is damaged (neither of its slots reads)")
    return max(valid, key=lambda c: c.commits)


def write_seal(journal: Path, chain: Chain, *, durable: bool) -> None:
    """Make the seal afresh (both slots ``chain``), atomically: a temporary file, fsync, renamed
    over the seal, the folder fsynced. ``durable=False`` skips the fsyncs."""
    path = seal_path(journal)
    tmp = path.with_name(path.name + ".tmp")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o644)
        try:
            os.write(fd, _slot(chain) * SLOTS)
            if durable:
                os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
        if durable:
            folder = os.open(path.parent, os.O_RDONLY | os.O_CLOEXEC)
            try:
                os.fsync(folder)
            finally:
                os.close(folder)
    except OSError as exc:
        raise JournalError(f"{path}: cannot write the journal's seal: {exc.strerror or exc}") from None


def _datasync(fd: int) -> None:
    """The seal's bytes to the disk: ``fdatasync`` (its size never changes after it is made, so the
    file's other metadata need not be written each time), ``fsync`` where there is none."""
    sync = getattr(os, "fdatasync", os.fsync)
    sync(fd)


class SealWriter:
    """Keeps the seal up to date after each commit: the new chain goes into the slot its number of
    writes picks (the two alternate), in place, so a write torn by a power cut leaves the other
    slot, one write behind, which :func:`compare` accepts. One ``fdatasync`` of the seal per write
    when ``durable`` (SQLite's ``synchronous=FULL``), none otherwise (still exact after ``kill -9``)."""

    def __init__(self, journal: Path, *, durable: bool) -> None:
        self.path = seal_path(journal)
        self.durable = durable
        try:
            self._fd: int | None = os.open(self.path, os.O_WRONLY | os.O_CLOEXEC)
        except OSError as exc:
            raise JournalError(f"{self.path}: cannot open the journal's seal: {exc.strerror or exc}") from None

    def update(self, chain: Chain) -> None:
        if self._fd is None:
            raise JournalError(f"{self.path}: the journal's seal is closed")
        try:
            os.pwrite(self._fd, _slot(chain), (chain.commits % SLOTS) * SLOT_BYTES)
            if self.durable:
                _datasync(self._fd)
        except OSError as exc:
            raise JournalError(f"{self.path}: cannot write the journal's seal: {exc.strerror or exc}") from None

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


@dataclass(frozen=True, slots=True)
class SealCheck:
    """How the database's chain stands against the seal's: ``ok`` (same, or the seal one write
    behind: ``reseal``), else ``problem`` says what disagrees and ``missing`` how many writes the
    database lacks (0 when it is not shorter but different)."""

    ok: bool
    reseal: bool = False
    problem: str = ""
    missing: int = 0


def compare(db: Chain, seal: Chain | None, *, seal_file: Path, live: bool = False) -> SealCheck:
    """Compare the chain in the database with the seal's. ``live``: another process may be writing
    (a reader), so a database any number of writes ahead of the seal is the writer at work."""
    if seal is None:
        if db.commits == 0:
            return SealCheck(True, reseal=True)
        return SealCheck(
            False,
            problem=f"its seal {seal_file} is missing, so it cannot be told whether entries were lost "
            f"(the journal holds {db.describe()})",
        )
    if seal.journal_id != db.journal_id:
        return SealCheck(False, problem=f"its seal {seal_file} belongs to another journal")
    if db.commits < seal.commits:
        missing = seal.commits - db.commits
        return SealCheck(
            False,
            problem=f"{missing} write(s) missing: the journal holds {db.describe()}, but its seal {seal_file} "
            f"records {seal.describe()} (a damaged or lost write-ahead log, or an older copy of the file)",
            missing=missing,
        )
    if db.commits == seal.commits:
        if db.head == seal.head:
            return SealCheck(True)
        return SealCheck(False, problem=f"its writes differ from those its seal {seal_file} records")
    if db.commits == seal.commits + 1 and db.prev == seal.head:
        return SealCheck(True, reseal=True)  # killed between the commit and the seal's update
    if live:
        return SealCheck(True)
    return SealCheck(
        False,
        problem=f"it holds {db.commits - seal.commits} write(s) more than its seal {seal_file} records "
        f"({db.describe()} against {seal.describe()})",
    )
