"""Which files a batch covers.

Directories are walked for ``*.py`` files, honouring ``.gitignore`` files
(at the root and in subdirectories), ``exclude`` globs (gitignore syntax,
each relative to its own directory: a configuration file's, or the working
directory for globs given as flags), and skipping hidden directories and
virtual environments. Files named explicitly are always taken, except
Jupyter notebooks, which are reported as not supported. Symlinks are
followed only when they point inside the scanned tree (for a file named
explicitly: the working directory), and a file reached twice is taken once.
The order is sorted, so output never depends on the file system or on ``-j``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Callable, Iterable, Optional

import pathspec

from rewriter.engine.diffs import display_path

_NOTEBOOK = ".ipynb"
_SKIP_DIRS = frozenset({"__pycache__", "node_modules", "site-packages", "venv", "env", "build", "dist"})


@dataclass
class Discovery:
    files: list[str] = field(default_factory=list)
    #: (path, reason) for arguments that could not be used
    problems: list[tuple[str, str]] = field(default_factory=list)


class PatternError(ValueError):
    """An exclude glob that is not a valid gitignore pattern; the message quotes it."""


def _pattern_class() -> type:
    """Git's own flavour of gitignore patterns, the one pathspec once called "gitwildmatch"."""
    try:
        from pathspec.patterns.gitignore.spec import GitIgnoreSpecPattern
    except ImportError:  # pathspec < 1.0, where the name was not deprecated yet
        from pathspec.patterns import GitWildMatchPattern

        return GitWildMatchPattern
    return GitIgnoreSpecPattern


_PATTERN = _pattern_class()


def gitignore_spec(lines: Iterable[str]) -> pathspec.PathSpec:
    """Compiled gitignore patterns; PatternError names the first invalid one (``\\``, ``!``)."""
    lines = list(lines)
    try:
        return pathspec.PathSpec.from_lines(_PATTERN, lines)
    except ValueError:
        bad = next((line for line in lines if not _valid(line)), "")
        raise PatternError(f"{bad!r} is not a valid gitignore pattern") from None


def _valid(line: str) -> bool:
    try:
        pathspec.PathSpec.from_lines(_PATTERN, [line])
    except ValueError:
        return False
    return True


def _lenient_spec(lines: list[str]) -> pathspec.PathSpec:
    """Like :func:`gitignore_spec`, but an invalid pattern is dropped, as git drops it from a .gitignore."""
    try:
        return gitignore_spec(lines)
    except PatternError:
        return gitignore_spec(line for line in lines if _valid(line))


def _gitignore(directory: str) -> Optional[pathspec.PathSpec]:
    path = os.path.join(directory, ".gitignore")
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return _lenient_spec(handle.readlines())
    except OSError:
        return None


def _is_venv(directory: str) -> bool:
    return os.path.exists(os.path.join(directory, "pyvenv.cfg"))


def _inside(path: str, root: str) -> bool:
    real = os.path.realpath(path)
    return real == root or real.startswith(root + os.sep)


class Exclusion:
    """Exclude globs in sets, each matched against paths relative to its own directory.

    A glob in a configuration file means a path below that file's directory,
    wherever gbfix runs from (as ruff reads its ``exclude``); a path outside
    a set's directory is never matched by it.
    """

    def __init__(self, rooted: Iterable[tuple[str, Iterable[str]]]) -> None:
        specs = ((os.path.abspath(base), gitignore_spec(patterns)) for base, patterns in rooted)
        self.specs = [(base, spec) for base, spec in specs if len(spec)]

    def match(self, path: str, is_dir: bool = False) -> bool:
        full = os.path.abspath(path)
        suffix = "/" if is_dir else ""
        for base, spec in self.specs:
            rel = os.path.relpath(full, base)
            if rel == os.pardir or rel.startswith(os.pardir + os.sep):
                continue
            if spec.match_file(rel.replace(os.sep, "/") + suffix):
                return True
        return False


def discover(paths: Iterable[str], exclude: Iterable[str] | Exclusion = (), cwd: str = ".") -> Discovery:
    """The files under ``paths``; ``exclude`` is an :class:`Exclusion`, or globs relative to ``cwd``."""
    found = Discovery()
    inside_cwd = cwd == "."
    cwd = os.path.abspath(cwd)
    excluded = exclude if isinstance(exclude, Exclusion) else Exclusion([(cwd, exclude)])
    #: real path -> index in found.files: a file reached twice (through a
    #: symlink) is processed once, under its own name when that was seen
    seen: dict[str, int] = {}

    def rel(path: str) -> str:
        return display_path(path) if inside_cwd else os.path.relpath(os.path.abspath(path), cwd).replace(os.sep, "/")

    def add(path: str) -> None:
        key = os.path.realpath(path)
        if key not in seen:
            seen[key] = len(found.files)
            found.files.append(path)
        elif os.path.islink(found.files[seen[key]]) and not os.path.islink(path):
            found.files[seen[key]] = path

    for arg in paths:
        if os.path.isdir(arg):
            _walk(arg, excluded, add, found)
        elif os.path.islink(arg) and not _inside(arg, os.path.realpath(cwd)):
            # Named explicitly, the tree is the working directory: never write through to outside it.
            found.problems.append((arg, "symlink to a file outside the working directory; skipped"))
        elif os.path.lexists(arg) and arg.lower().endswith(_NOTEBOOK):
            # Read as Python it would be "screened out" in silence: say what happened instead.
            found.problems.append((arg, "notebooks are not supported (gbfix reads .py files); skipped"))
        elif os.path.lexists(arg):
            add(arg)  # named explicitly: always taken; reading it reports problems
        else:
            found.problems.append((arg, "no such file or directory"))
    found.files.sort(key=lambda p: rel(p))
    return found


def _walk(top: str, excluded: Exclusion, add: Callable[[str], None], found: Discovery) -> None:
    root_real = os.path.realpath(top)
    ignores: list[tuple[str, pathspec.PathSpec]] = []
    for directory, dirnames, filenames in os.walk(top, followlinks=False):
        spec = _gitignore(directory)
        if spec is not None:
            ignores.append((directory, spec))

        def ignored(path: str, is_dir: bool, directory: str = directory) -> bool:
            suffix = "/" if is_dir else ""
            if excluded.match(path, is_dir):
                return True
            for base, ignore in ignores:
                if path.startswith(base + os.sep) or base == directory:
                    if ignore.match_file(os.path.relpath(path, base).replace(os.sep, "/") + suffix):
                        return True
            return False

        keep = []
        for name in sorted(dirnames):
            full = os.path.join(directory, name)
            if name.startswith(".") or name in _SKIP_DIRS or _is_venv(full) or ignored(full, True):
                continue
            if os.path.islink(full):
                if not _inside(full, root_real):
                    found.problems.append((full, "symlink to a directory outside the scanned tree; skipped"))
                continue
            keep.append(name)
        dirnames[:] = keep
        for name in sorted(filenames):
            if not name.endswith(".py") or name.startswith("."):
                continue
            full = os.path.join(directory, name)
            if ignored(full, False):
                continue
            if os.path.islink(full) and not _inside(full, root_real):
                found.problems.append((full, "symlink to a file outside the scanned tree; skipped"))
                continue
            add(full)
