"""Unified diffs in git's format, checked by parsing them back.

Paths are relative to the working directory with ``a/`` and ``b/``
prefixes, so the output is one patch that both ``git apply`` and
``patch -p1`` accept.

A patch is bytes: the diff is made of the files' own bytes, so a Latin-1
or cp1252 file gets Latin-1 or cp1252 lines, as ``git diff`` would show
them. Lines end at ``\\n`` only, as git and patch read them; form feeds,
``\\x1c``-``\\x1e``, ``\\x85``, U+2028 and lone ``\\r`` (old Mac line ends)
are part of a line, which ``str.splitlines`` would break.
"""

from __future__ import annotations

import difflib
import os

import unidiff

_NO_NEWLINE = b"\\ No newline at end of file\n"


class PatchError(Exception):
    """The generated diff does not parse back; a bug in gbfix, never printed."""


def display_path(path: str, cwd: str = ".") -> str:
    if cwd == "." and not os.path.isabs(path):
        # What relpath(abspath(path)) gives, without the two calls to the working directory it makes:
        # a relative path inside the working directory is its own normal form.
        normal = os.path.normpath(path)
        if normal != os.pardir and not normal.startswith(os.pardir + os.sep):
            return normal.replace(os.sep, "/")
    rel = os.path.relpath(os.path.abspath(path), os.path.abspath(cwd))
    return rel.replace(os.sep, "/")


def lines_of(data: bytes) -> list[bytes]:
    """``data`` cut after each ``\\n``; the last line keeps no newline it did not have."""
    lines = [line + b"\n" for line in data.split(b"\n")]
    lines[-1] = lines[-1][:-1]
    return lines if lines[-1] else lines[:-1]


def unified_diff(old: bytes, new: bytes, path: str, cwd: str = ".") -> bytes:
    """The patch that turns ``old`` into ``new``, the bytes of the file at ``path``."""
    name = os.fsencode(display_path(path, cwd))
    out = [b"diff --git a/" + name + b" b/" + name + b"\n"]
    diff = difflib.diff_bytes(difflib.unified_diff, lines_of(old), lines_of(new), b"a/" + name, b"b/" + name, n=3)
    for line in diff:
        if line.startswith((b"---", b"+++")):
            out.append(line.rstrip(b"\n") + b"\n")
        elif line.endswith(b"\n"):
            out.append(line)
        else:
            # Last line without a newline: git marks it instead of adding one.
            out.append(line + b"\n" + _NO_NEWLINE)
    patch = b"".join(out)
    check_patch(patch)
    return patch


def check_patch(patch: bytes) -> None:
    try:
        # Latin-1 maps every byte to one character, so lines are cut where git cuts them.
        parsed = unidiff.PatchSet(patch.decode("latin-1"))
    except unidiff.UnidiffParseError as exc:
        raise PatchError(str(exc)) from None
    if not patch or len(parsed) < 1:
        raise PatchError("empty patch")
