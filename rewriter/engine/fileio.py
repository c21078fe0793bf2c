"""Reading source files faithfully and writing them back atomically.

Sources are decoded with the encoding Python itself would use (PEP 263
coding line, UTF-8 BOM) and line endings are kept as they are, so untouched
code keeps its exact bytes. Writes go to a temporary file in the same
directory, are flushed to disk, then replace the original in one step with
its permission bits kept: a crash leaves either the old or the new file,
never half of one. Just before that step the file is compared with what
was read (size, modification time, content hash): a file someone edited
meanwhile is left with their edit, and reported.
"""

from __future__ import annotations

import errno
import hashlib
import io
import os
import stat
import tempfile
import tokenize
from dataclasses import dataclass, replace
from typing import BinaryIO, Optional

#: files larger than this are not parsed (libcst's cost grows with size)
MAX_FILE_BYTES = 10 * 1024 * 1024

_ANY_WRITE = stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH


class SourceError(Exception):
    """A file that cannot be read as Python source; the message says why."""


class FileChanged(Exception):
    """The file on disk is no longer what was read: writing would lose someone's edit."""


@dataclass(frozen=True)
class FileStamp:
    """What a file was when it was read; a rewrite is written only over that."""

    size: int
    mtime_ns: int
    sha256: str


def stamp_of(data: bytes, st: os.stat_result) -> FileStamp:
    return FileStamp(st.st_size, st.st_mtime_ns, hashlib.sha256(data).hexdigest())


@dataclass(frozen=True)
class Source:
    data: bytes
    text: str
    encoding: str
    #: the file as read, for the check before writing; None for text not read from a file
    stamp: Optional[FileStamp] = None


def decode_source(data: bytes) -> Source:
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as exc:
        raise SourceError(f"cannot determine the encoding: {exc.msg}") from None
    try:
        text = data.decode(encoding)
    except (UnicodeDecodeError, LookupError) as exc:
        raise SourceError(f"not valid {encoding}: {exc.reason if hasattr(exc, 'reason') else exc}") from None
    return Source(data, text, encoding)


def encode_source(text: str, encoding: str) -> bytes:
    return text.encode(encoding)


def check_size(size: int) -> None:
    """Raise SourceError for a source too large to parse, read from a file or a stream alike."""
    if size > MAX_FILE_BYTES:
        raise SourceError(f"larger than {MAX_FILE_BYTES // (1024 * 1024)} MiB; skipped")


def read_stream(stream: BinaryIO) -> bytes:
    """All of ``stream`` (stdin), reading no more than one byte past the size limit; SourceError beyond it."""
    data = stream.read(MAX_FILE_BYTES + 1)
    check_size(len(data))
    return data


def read_source(path: str) -> Source:
    try:
        st = os.stat(path)
    except OSError as exc:
        raise SourceError(exc.strerror or str(exc)) from None
    if stat.S_ISDIR(st.st_mode):
        raise SourceError("is a directory")
    if not stat.S_ISREG(st.st_mode):
        raise SourceError("not a regular file")
    check_size(st.st_size)
    try:
        with open(path, "rb") as handle:
            # Stat what is read, before reading: an edit during the read then shows as a change.
            opened = os.fstat(handle.fileno())
            data = handle.read()
    except OSError as exc:
        raise SourceError(exc.strerror or str(exc)) from None
    return replace(decode_source(data), stamp=stamp_of(data, opened))


def _stamp_now(path: str) -> Optional[FileStamp]:
    """The file's stamp now; None when it cannot be read (removed meanwhile, say), which is a change too."""
    try:
        with open(path, "rb") as handle:
            opened = os.fstat(handle.fileno())
            return stamp_of(handle.read(), opened)
    except OSError:
        return None


def atomic_write(path: str, data: bytes, expected: Optional[FileStamp] = None) -> None:
    """Replace ``path`` with ``data`` in one step, keeping its mode.

    With ``expected`` (the stamp of what was read), raise FileChanged and
    write nothing when the file is no longer that. The comparison is made
    after the new content is on disk, right before the replace, so the
    window in which an edit can still be lost is one rename long.
    """
    real = os.path.realpath(path)
    directory = os.path.dirname(real) or "."
    mode = stat.S_IMODE(os.stat(real).st_mode)
    # Replacing needs only a writable directory, so ask about the file itself.
    # A file with no write bit stays read-only even for root, who passes access().
    if not os.access(real, os.W_OK) or not mode & _ANY_WRITE:
        raise PermissionError(errno.EACCES, "the file is read-only")
    fd, tmp = tempfile.mkstemp(prefix=".gbfix-", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, mode)
        if expected is not None and _stamp_now(real) != expected:
            raise FileChanged("changed while gbfix was working on it; left as it is now (run gbfix again)")
        os.replace(tmp, real)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
