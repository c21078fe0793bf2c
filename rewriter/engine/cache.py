"""Results kept between runs, so a second run over an unchanged tree reads instead of analysing.

A file's result depends on its text, the run's settings, the code of gbfix
itself, the Python and torch it runs with (the break catalogue and the
installed packages' sources are read from them), and what the scanned tree
says about it (:class:`codemods.analysis.reach.ProjectFacts`). Each entry
is keyed by a digest of exactly those, so a stale entry is never read: a
changed callee in another file changes the facts of the files that call
it, and with them their keys. Three kinds of entries:

* ``summary``: the index's summary of one file (path and content);
* ``project``: for the whole set of (path, content) pairs and settings, a
  digest of each file's facts, and the warnings linking printed;
* ``summary-digests``: for the set of paths and settings, each file's
  content and summary digest as the last run saw them;
* ``link``: for the whole set of (path, summary digest) pairs and settings,
  each file's facts and their digests: an edit that leaves every summary
  as it was (a comment) is answered without linking the tree again;
* ``result``: one file's result under its content and its facts' digest.

Entries live under ``$XDG_CACHE_HOME/gbfix`` (else the platform's cache
directory), or ``--cache-dir`` / ``cache_dir`` in ``[tool.gbfix]``; ``--no-cache``
(or ``GBFIX_NO_CACHE=1`` in the environment) turns them off. Each is written to a temporary file and renamed over its
name, so a reader sees a whole entry or none, and two runs writing the same
entry write the same bytes. An entry that cannot be read is a miss. Entries
unused for a month go, and the oldest go first when the cache grows past
its size bound; that is checked at most once a day.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import pickle
import sys
import tempfile
import time
from functools import lru_cache
from importlib import metadata
from typing import Any, Optional

from rewriter import __version__

#: entries not read or written for this long are removed
MAX_AGE_S = 30 * 24 * 3600
#: past this many bytes the oldest entries are removed
MAX_BYTES = 1 << 30
#: how often a run looks for entries to remove
PRUNE_EVERY_S = 24 * 3600
_PRUNED = "last-pruned"
_TAG = "CACHEDIR.TAG"
_TAG_TEXT = (
    "Signature: 8a477f597d28d172789f06886806bc55\n"
    "# This file is a cache directory tag created by gbfix; backups may skip this directory.\n"
)


def default_directory() -> str:
    """``$XDG_CACHE_HOME/gbfix`` where that is set, else the platform's user cache directory."""
    xdg = os.environ.get("XDG_CACHE_HOME")
    if xdg:
        return os.path.join(xdg, "gbfix")
    home = os.path.expanduser("~")
    if sys.platform == "darwin":
        return os.path.join(home, "Library", "Caches", "gbfix")
    if sys.platform == "win32":
        local = os.environ.get("LOCALAPPDATA") or os.path.join(home, "AppData", "Local")
        return os.path.join(local, "gbfix", "Cache")
    return os.path.join(home, ".cache", "gbfix")


def canonical(value: Any) -> str:
    """A text for ``value`` that is the same in every process: sets sorted, dataclasses by field.

    ``repr`` of a set of strings follows the process's string hashing, which
    changes from run to run.
    """
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        inner = ",".join(f"{f.name}={canonical(getattr(value, f.name))}" for f in dataclasses.fields(value))
        return f"{type(value).__name__}({inner})"
    if isinstance(value, (set, frozenset)):
        return "{" + ",".join(sorted(canonical(v) for v in value)) + "}"
    if isinstance(value, dict) or (hasattr(value, "items") and hasattr(value, "keys")):
        return "{" + ",".join(sorted(f"{canonical(k)}:{canonical(v)}" for k, v in value.items())) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(canonical(v) for v in value) + "]"
    return repr(value)


def digest(*parts: str) -> str:
    hasher = hashlib.blake2b(digest_size=20)
    for part in parts:
        hasher.update(part.encode("utf-8", "surrogatepass"))
        hasher.update(b"\0")
    return hasher.hexdigest()


@lru_cache(maxsize=1)
def code_version() -> str:
    """gbfix's version and a digest of its own code: a development checkout changes without a new version."""
    hasher = hashlib.blake2b(digest_size=16)
    here = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    for package in ("rewriter", "codemods"):
        for directory, dirs, files in sorted(os.walk(os.path.join(here, package))):
            dirs.sort()
            for name in sorted(files):
                if name.endswith(".py"):
                    path = os.path.join(directory, name)
                    hasher.update(os.path.relpath(path, here).encode())
                    with open(path, "rb") as handle:
                        hasher.update(handle.read())
    return f"{__version__}+{hasher.hexdigest()}"


@lru_cache(maxsize=1)
def environment() -> str:
    """The Python and torch the results were made with (torch only as installed metadata, never imported)."""
    try:
        torch = metadata.version("torch")
    except metadata.PackageNotFoundError:
        torch = "none"
    return f"python {sys.version_info[0]}.{sys.version_info[1]}; torch {torch}"


class Cache:
    """One cache directory; every method is safe to call from several processes at once."""

    def __init__(self, directory: str) -> None:
        self.directory = os.path.abspath(directory)
        self.writable = True

    def _path(self, key: str) -> str:
        return os.path.join(self.directory, "entries", key[:2], key[2:])

    def get(self, key: str) -> Optional[Any]:
        """The value stored under ``key``; None when there is none or it cannot be read."""
        path = self._path(key)
        try:
            with open(path, "rb") as handle:
                stored_key, value = pickle.load(handle)
        except (OSError, EOFError, pickle.UnpicklingError, ValueError, TypeError, AttributeError, ImportError):
            return None
        if stored_key != key:
            return None
        try:
            os.utime(path)  # read now: pruning keeps it
        except OSError:
            pass
        return value

    def put(self, key: str, value: Any) -> None:
        """Store ``value`` under ``key``: a temporary file renamed over the entry's name."""
        if not self.writable:
            return
        path = self._path(key)
        try:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            handle, temporary = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".tmp-")
            try:
                with os.fdopen(handle, "wb") as out:
                    pickle.dump((key, value), out, protocol=pickle.HIGHEST_PROTOCOL)
                os.replace(temporary, path)
            except BaseException:
                _remove(temporary)
                raise
        except OSError:
            self.writable = False  # full, or removed meanwhile: the rest of the run goes without

    def create(self) -> None:
        """The directory with its tag (backup tools skip a tagged directory); OSError when it cannot be."""
        os.makedirs(os.path.join(self.directory, "entries"), exist_ok=True)
        tag = os.path.join(self.directory, _TAG)
        if not os.path.exists(tag):
            with open(tag, "w", encoding="ascii") as handle:
                handle.write(_TAG_TEXT)

    def prune(self, now: Optional[float] = None, force: bool = False) -> int:
        """Remove entries unused for ``MAX_AGE_S``, then the oldest while over ``MAX_BYTES``; how many went.

        Runs at most once per ``PRUNE_EVERY_S`` unless ``force``.
        """
        now = time.time() if now is None else now
        marker = os.path.join(self.directory, _PRUNED)
        try:
            if not force and now - os.path.getmtime(marker) < PRUNE_EVERY_S:
                return 0
        except OSError:
            pass
        if not self.writable or not os.path.isdir(self.directory):
            return 0
        entries = []
        for directory, _, files in os.walk(os.path.join(self.directory, "entries")):
            for name in files:
                path = os.path.join(directory, name)
                try:
                    st = os.stat(path)
                except OSError:
                    continue  # another run removed it
                entries.append((st.st_mtime, st.st_size, path))
        entries.sort()
        total = sum(size for _, size, _ in entries)
        removed = 0
        for mtime, size, path in entries:
            stale = now - mtime > MAX_AGE_S or (name_is_temporary(path) and now - mtime > 3600)
            if not stale and total <= MAX_BYTES:
                continue
            if _remove(path):
                removed += 1
                total -= size
        try:
            with open(marker, "w", encoding="ascii") as handle:
                handle.write(f"{now}\n")
        except OSError:
            pass
        return removed


def name_is_temporary(path: str) -> bool:
    """A temporary file a run left behind when it was killed mid-write."""
    return os.path.basename(path).startswith(".tmp-")


def _remove(path: str) -> bool:
    try:
        os.unlink(path)
        return True
    except OSError:
        return False


#: set (to anything but "" or "0") in the environment, it turns the cache off as ``--no-cache`` does
NO_CACHE_VARIABLE = "GBFIX_NO_CACHE"


def open_cache(enabled: bool, directory: str) -> Optional[Cache]:
    """The run's cache (``directory``, else :func:`default_directory`); None when it is turned off or
    cannot be made, which is said once: a cache costs time, never results."""
    if not enabled or os.environ.get(NO_CACHE_VARIABLE, "") not in ("", "0"):
        return None
    cache = Cache(directory or default_directory())
    try:
        cache.create()
    except OSError as exc:
        reason = exc.strerror or str(exc)
        sys.stderr.write(f"gbfix: warning: cache {cache.directory}: cannot write ({reason}); not used\n")
        return None
    return cache
