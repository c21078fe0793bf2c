"""Unified diffs in git's format, checked by parsing them back.

Paths are relative to the working directory with ``a/`` and ``b/``
prefixes, so the output is one patch that both ``git apply`` and
``patch -p1`` accept.
"""

from __future__ import annotations

import difflib
import os

import unidiff

_NO_NEWLINE = "\\ No newline at end of file\n"


class PatchError(Exception):
    """The generated diff does not parse back; a bug in gbfix, never printed."""


def display_path(path: str, cwd: str = ".") -> str:
    rel = os.path.relpath(os.path.abspath(path), os.path.abspath(cwd))
    return rel.replace(os.sep, "/")


def unified_diff(old: str, new: str, path: str, cwd: str = ".") -> str:
    name = display_path(path, cwd)
    old_lines = old.splitlines(keepends=True)
    new_lines = new.splitlines(keepends=True)
    out = [f"diff --git a/{name} b/{name}\n"]
    for line in difflib.unified_diff(old_lines, new_lines, f"a/{name}", f"b/{name}", n=3):
        if line.startswith(("---", "+++")):
            out.append(line.rstrip("\n") + "\n")
            continue
        if line.endswith("\n"):
            out.append(line)
        else:
            # Last line without a newline: git marks it instead of adding one.
            out.append(line + "\n" + _NO_NEWLINE)
    text = "".join(out)
    check_patch(text)
    return text


def check_patch(text: str) -> None:
    try:
        patch = unidiff.PatchSet(text)
    except unidiff.UnidiffParseError as exc:
        raise PatchError(str(exc)) from None
    if not text or len(patch) < 1:
        raise PatchError("empty patch")
