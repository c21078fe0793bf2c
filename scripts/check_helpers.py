"""Check gbfix's helpers against the review rubric (CONTRIBUTING.md, "Reviewing a helper").

    python scripts/check_helpers.py golden                      # every .out.py under it
    python scripts/check_helpers.py benchmarks/results/diffs    # the added side of every .patch
    python scripts/check_helpers.py FILE.py PATCH.patch --max-nonlocal 3

For each Python file, and for the new side of each patch (hunks' ``+`` and
context lines, file by file), it counts what the rubric refuses:

- ``nesting``: a generated helper (``def _gbfix_...``) defined inside two
  others; a loop gets a driver and a per-trip function, no more;
- ``placeholder``: a bare declaration ``name: object`` (a name made local
  without a value: Dynamo reads the empty cell);
- ``sentinel``: ``return ()`` or a helper's result tested with ``is not
  None``; a per-trip function says "stop" with a plain flag;
- ``nonlocal``: a ``nonlocal`` list longer than ``--max-nonlocal`` names, or
  one that holds the target of the loop that calls the helper.

The text is read line by line (a patch hunk is not a whole module), by
indentation, the way a reviewer reads a diff. Exit status 1 when anything is
found, 0 otherwise; ``--summary`` prints only the counts.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from dataclasses import dataclass
from typing import Iterable, Iterator, Sequence

#: the most names one ``nonlocal`` statement may list by default
MAX_NONLOCAL = 4
KINDS = ("nesting", "placeholder", "sentinel", "nonlocal")

_HELPER_DEF = re.compile(r"^(\s*)def (_gbfix_\w+)\(")
_PLACEHOLDER = re.compile(r"^\s*[A-Za-z_]\w*\s*:\s*object\s*(#.*)?$")
_EMPTY_RETURN = re.compile(r"^\s*return \(\)\s*(#.*)?$")
_NOT_NONE = re.compile(r"_gbfix_\w+.*\bis not None\b")
_NONLOCAL = re.compile(r"^\s*nonlocal\s+(.+?)\s*(#.*)?$")
_FOR = re.compile(r"^(\s*)(?:async\s+)?for\s+(.+?)\s+in\s")
_HELPER_CALL = re.compile(r"\b(_gbfix_\w+?_\d+)\(")


@dataclass(frozen=True)
class Finding:
    origin: str
    line: int
    kind: str
    text: str

    def __str__(self) -> str:
        return f"{self.origin}:{self.line}: {self.kind}: {self.text}"


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


def check_lines(lines: Sequence[tuple[int, str]], origin: str, max_nonlocal: int = MAX_NONLOCAL) -> list[Finding]:
    """What the rubric refuses in ``lines`` (line number, text) of one file or one hunk's new side."""
    found: list[Finding] = []
    #: the generated helpers open at the current line: (indent of the def, name)
    open_helpers: list[tuple[int, str]] = []
    #: each helper's nonlocal names, and the loops (indent, targets) with their line
    nonlocals: dict[str, set[str]] = {}
    loops: list[tuple[int, set[str]]] = []
    calls_in_loops: list[tuple[int, str, set[str]]] = []
    for number, line in lines:
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        indent = _indent(line)
        while open_helpers and indent <= open_helpers[-1][0]:
            open_helpers.pop()
        while loops and indent <= loops[-1][0]:
            loops.pop()
        helper = _HELPER_DEF.match(line)
        if helper:
            if len(open_helpers) >= 2:
                chain = " > ".join([name for _, name in open_helpers] + [helper.group(2)])
                found.append(Finding(origin, number, "nesting", f"helper defined {len(open_helpers)} deep: {chain}"))
            open_helpers.append((indent, helper.group(2)))
            continue
        if _PLACEHOLDER.match(line):
            found.append(Finding(origin, number, "placeholder", line.strip()))
        if _EMPTY_RETURN.match(line) or _NOT_NONE.search(line):
            found.append(Finding(origin, number, "sentinel", line.strip()))
        declared = _NONLOCAL.match(line)
        if declared:
            names = {name.strip() for name in declared.group(1).split(",") if name.strip()}
            if len(names) > max_nonlocal:
                found.append(Finding(origin, number, "nonlocal", f"{len(names)} names: {line.strip()}"))
            if open_helpers:
                nonlocals.setdefault(open_helpers[-1][1], set()).update(names)
        loop = _FOR.match(line)
        if loop:
            targets = set(re.findall(r"[A-Za-z_]\w*", loop.group(2)))
            loops.append((indent, targets))
        for called in _HELPER_CALL.findall(line):
            if loops:
                calls_in_loops.append((number, called, loops[-1][1]))
    for number, called, targets in calls_in_loops:
        shared = sorted(targets & nonlocals.get(called, set()))
        if shared:
            found.append(
                Finding(
                    origin, number, "nonlocal", f"{called} declares its loop's variable nonlocal: {', '.join(shared)}"
                )
            )
    return found


def check_source(text: str, origin: str, max_nonlocal: int = MAX_NONLOCAL) -> list[Finding]:
    """What the rubric refuses in one Python file."""
    return check_lines(list(enumerate(text.splitlines(), 1)), origin, max_nonlocal)


def _hunks(patch: str) -> Iterator[tuple[str, list[tuple[int, str]]]]:
    """Each hunk of ``patch`` as (file, its new side: (line number, text))."""
    current = ""
    lines: list[tuple[int, str]] = []
    number = 0
    in_hunk = False
    for raw in patch.splitlines():
        if raw.startswith("+++ "):
            if lines:
                yield current, lines
            current, lines, in_hunk = raw[4:].split("\t")[0].removeprefix("b/"), [], False
            continue
        if raw.startswith("--- ") and not in_hunk:
            continue
        header = re.match(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@", raw)
        if header:
            if lines:
                yield current, lines
            lines, number, in_hunk = [], int(header.group(1)), True
            continue
        if not in_hunk or raw.startswith("-") or raw.startswith("\\"):
            continue
        lines.append((number, raw[1:]))
        number += 1
    if lines:
        yield current, lines


def check_patch(patch: str, origin: str, max_nonlocal: int = MAX_NONLOCAL) -> list[Finding]:
    """What the rubric refuses in the new side of ``patch`` (each hunk read on its own)."""
    found: list[Finding] = []
    for path, lines in _hunks(patch):
        found.extend(check_lines(lines, f"{origin}:{path}", max_nonlocal))
    return found


def _files(paths: Iterable[str]) -> Iterator[str]:
    for path in paths:
        if os.path.isdir(path):
            for root, _, names in sorted(os.walk(path)):
                for name in sorted(names):
                    if name.endswith((".out.py", ".patch", ".diff")):
                        yield os.path.join(root, name)
        else:
            yield path


def check_paths(paths: Iterable[str], max_nonlocal: int = MAX_NONLOCAL) -> list[Finding]:
    """Every finding in ``paths``: Python files whole, patches by their new side; directories are
    searched for ``*.out.py`` (golden outputs) and ``*.patch``/``*.diff``."""
    found: list[Finding] = []
    for path in _files(paths):
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
        if path.endswith((".patch", ".diff")):
            found.extend(check_patch(text, path, max_nonlocal))
        else:
            found.extend(check_source(text, path, max_nonlocal))
    return found


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+", help="Python files, patches, or directories holding them")
    parser.add_argument("--max-nonlocal", type=int, default=MAX_NONLOCAL, help="most names one nonlocal may list")
    parser.add_argument("--summary", action="store_true", help="print only the counts")
    args = parser.parse_args(argv)
    missing = [path for path in args.paths if not os.path.exists(path)]
    if missing:
        print(f"check_helpers: no such file or directory: {missing[0]}", file=sys.stderr)
        return 2
    found = check_paths(args.paths, args.max_nonlocal)
    if not args.summary:
        for finding in found:
            print(finding)
    counts = {kind: sum(1 for f in found if f.kind == kind) for kind in KINDS}
    print(" ".join(f"{kind}={count}" for kind, count in counts.items()))
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
