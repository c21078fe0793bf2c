"""Reading source files faithfully and writing them back atomically.

Sources are decoded with the encoding Python itself would use (PEP 263
coding line, UTF-8 BOM) and line endings are kept as they are, so untouched
code keeps its exact bytes. Writes go to a temporary file in the same
directory, are flushed to disk, then replace the original in one step with
its permission bits kept: a crash leaves either the old or the new file,
never half of one.
"""

from __future__ import annotations

import errno
import io
import os
import stat
import tempfile
import tokenize
from dataclasses import dataclass

#: files larger than this are not parsed (libcst's cost grows with size)
MAX_FILE_BYTES = 10 * 1024 * 1024

_ANY_WRITE = stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH


class SourceError(Exception):
    """A file that cannot be read as Python source; the message says why."""


@dataclass(frozen=True)
class Source:
    data: bytes
    text: str
    encoding: str


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


def read_source(path: str) -> Source:
    try:
        st = os.stat(path)
    except OSError as exc:
        raise SourceError(exc.strerror or str(exc)) from None
    if stat.S_ISDIR(st.st_mode):
        raise SourceError("is a directory")
    if not stat.S_ISREG(st.st_mode):
        raise SourceError("not a regular file")
    if st.st_size > MAX_FILE_BYTES:
        raise SourceError(f"larger than {MAX_FILE_BYTES // (1024 * 1024)} MiB; skipped")
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as exc:
        raise SourceError(exc.strerror or str(exc)) from None
    return decode_source(data)


def atomic_write(path: str, data: bytes) -> None:
    """Replace ``path`` with ``data`` in one step, keeping its mode."""
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
        os.replace(tmp, real)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
