"""Place the graph breaks a run recorded in the files gbfix scans: ``--trace`` and ``--log``.

A recorded break becomes a "this statement breaks" fact for the rules
(``Settings.recorded_breaks``: file -> line numbers), on top of the static
catalogue, so a loop around an unknown third-party call or a
data-dependent ``if`` is fixed like a loop around ``print``.

Where the fact goes:

* Paths in a record are absolute and may come from another machine, so a
  frame is matched to the scanned file that shares the longest common path
  suffix with it (at least the file name; a tie between files is no match).
  Frames in ``site-packages`` / ``dist-packages`` match only a scanned file
  that has the whole path below that directory (a checkout of the package).
* With nested graph breaks off (the default), a break inside a called
  function takes effect at the call site in the frame Dynamo compiled,
  and again in each frame it later compiles on the way in. So the fact
  goes to every frame of the stack, from the compiled one inward, that is
  in a scanned file, at the line that leads to the break there: the loop,
  ``with`` or ``try`` of whichever frame Dynamo skips then holds it, and a
  break inside a library is placed at the project's calls into it. Frames
  that only called the compiled code (a training loop) are not touched.
  When a text log does not say which frame was compiled, only the
  innermost frame in a scanned file is taken.
* The line is moved to the start of its statement (Dynamo reports the line
  of the call, which may be a continuation line), or to the ``if``/``while``
  whose condition it is in.

Sites that match no scanned file are reported, one line each.

A break that read a tensor (a data-dependent branch, ``Tensor.item()``) also
says what the name it read is, in the frame it happened in:
``Settings.recorded_tensors`` (file -> function -> names), the tensor
inference's evidence (:mod:`codemods.analysis.tensors.recorded`).

A trace also names every frame Dynamo ran eagerly (its failed
compilations, and the breaks it could not resume after): those in scanned
files become ``Settings.recorded_skips``, so a skip that no loop, ``with``
or ``try`` of the frame explains is still reported (GBF011).
"""

from __future__ import annotations

import ast
import os
import sysconfig
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Callable, Iterable, Optional, Sequence

from codemods.analysis.tensors.recorded import TRUTH, VALUE, recorded_tensors
from codemods.rules.base import RecordedSkip
from rewriter.engine.report import plural
from rewriter.runtime.trace import (
    Frame,
    RecordedBreak,
    SkippedFrame,
    TraceError,
    read_log,
    read_skipped_frames,
    read_trace,
    unique,
)

_VENDOR_DIRS = ("site-packages", "dist-packages")


def _parts(path: str) -> list[str]:
    return [p for p in path.replace("\\", "/").split("/") if p and p != "."]


def _vendor_tail(parts: Sequence[str]) -> Optional[int]:
    """How many trailing components follow the last site-packages directory, if any."""
    for i in range(len(parts) - 1, -1, -1):
        if parts[i] in _VENDOR_DIRS:
            return len(parts) - i - 1
    return None


def is_third_party(path: str) -> bool:
    """In an installed-packages directory or the standard library, or not a real file name."""
    if not path or path.startswith("<"):
        return True
    if _vendor_tail(_parts(path)) is not None:
        return True
    stdlib = sysconfig.get_paths().get("stdlib")
    if not stdlib:
        return False
    return os.path.abspath(path).startswith(os.path.abspath(stdlib) + os.sep)


class SuffixIndex:
    """The scanned files, found by the longest common path suffix with a recorded path."""

    def __init__(self, files: Iterable[str]) -> None:
        self.by_name: dict[str, list[tuple[str, list[str]]]] = defaultdict(list)
        for path in dict.fromkeys(os.path.abspath(f) for f in files):
            parts = _parts(path)
            if parts:
                self.by_name[parts[-1]].append((path, parts))

    def match(self, recorded: str) -> tuple[Optional[str], str]:
        """(scanned file, "") or (None, why not)."""
        parts = _parts(recorded)
        if not parts or recorded.startswith("<"):
            return None, "not a source file"
        candidates = self.by_name.get(parts[-1], [])
        if not candidates:
            return None, "no scanned file has this name"
        need = _vendor_tail(parts)
        scored = sorted(((_common_suffix(parts, cand), path) for path, cand in candidates), reverse=True)
        best, path = scored[0]
        if need is not None and best < need:
            return None, "an installed package, not among the scanned files"
        ties = [p for score, p in scored if score == best]
        if len(ties) > 1 and best < len(parts):
            return None, f"matches {len(ties)} scanned files equally ({', '.join(sorted(ties)[:3])})"
        return path, ""


def _common_suffix(a: Sequence[str], b: Sequence[str]) -> int:
    n = 0
    while n < len(a) and n < len(b) and a[-1 - n] == b[-1 - n]:
        n += 1
    return n


@dataclass(frozen=True)
class Placement:
    site: RecordedBreak
    #: the scanned file (absolute) and the statement line where the fix goes
    path: str
    line: int
    frame: Frame


@dataclass
class Placements:
    placed: list[Placement] = field(default_factory=list)
    #: (site, why it matched no scanned file)
    unmatched: list[tuple[RecordedBreak, str]] = field(default_factory=list)

    def recorded_breaks(self) -> dict[str, frozenset[int]]:
        lines: dict[str, set[int]] = defaultdict(set)
        for p in self.placed:
            lines[p.path].add(p.line)
        return {path: frozenset(found) for path, found in lines.items()}


def place_sites(
    sites: Sequence[RecordedBreak],
    files: Iterable[str],
    read: Optional[Callable[[str], Optional[str]]] = None,
) -> Placements:
    """Each site's scanned file and statement line; ``read(path)`` gives a file's text."""
    index = SuffixIndex(files)
    result = Placements()
    for site in sites:
        anchors, why = _anchors(site, index)
        if not anchors:
            result.unmatched.append((site, why))
        result.placed.extend(Placement(site, path, frame.line, frame) for frame, path in anchors)
    by_path: dict[str, list[int]] = defaultdict(list)
    for p in result.placed:
        by_path[p.path].append(p.line)
    read = read or _read_text
    starts = {path: statement_starts(read(path), lines) for path, lines in by_path.items()}
    result.placed = [Placement(p.site, p.path, starts[p.path].get(p.line, p.line), p.frame) for p in result.placed]
    return result


def _anchors(site: RecordedBreak, index: SuffixIndex) -> tuple[list[tuple[Frame, str]], str]:
    """(frame, scanned file) of every frame the break is placed at; or none, and why not."""
    frames = site.traced_stack or (Frame(site.file, site.line, site.function),)
    known_boundary = site.compiled_index is not None
    order = list(frames) if known_boundary else list(reversed(frames))
    found: list[tuple[Frame, str]] = []
    first_why = ""
    for frame in order:
        if frame.line <= 0:
            continue
        path, why = index.match(frame.file)
        if path is not None:
            found.append((frame, path))
            if not known_boundary:
                break  # the innermost one only: outer frames may be a caller of the compiled code
        elif frame.file == site.file and not first_why:
            first_why = why
    if found:
        return found, ""
    if len(frames) > 1:
        return [], "no frame of its stack is in a scanned file"
    return [], first_why or "not in a scanned file"


def _read_text(path: str) -> Optional[str]:
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


# --- what the breaks read: tensors (the tensor inference's evidence) -----------------------------

#: Dynamo's break types (and codes) that read a tensor at their line, and what they read
_TENSOR_READS = {
    "Data-dependent branching": TRUTH,
    "GB0170": TRUTH,
    "Unsupported Tensor.item() call with capture_scalar_outputs=False": VALUE,
    "GB0124": VALUE,
}


def recorded_tensor_names(
    placements: Placements, read: Optional[Callable[[str], Optional[str]]] = None
) -> dict[str, dict[str, frozenset[str]]]:
    """Scanned file -> function key -> the names its recorded breaks read as tensors.

    Only the frame the break happened in read anything there: the frames
    outside it hold the call that led to it.
    """
    reads: dict[str, set[tuple[int, str]]] = defaultdict(set)
    for p in placements.placed:
        what = _TENSOR_READS.get(p.site.gb_code) or _TENSOR_READS.get(p.site.reason)
        frames = p.site.traced_stack or (Frame(p.site.file, p.site.line, p.site.function),)
        if what is not None and p.frame == frames[-1]:
            reads[p.path].add((p.line, what))
    read = read or _read_text
    found: dict[str, dict[str, frozenset[str]]] = {}
    for path, lines in reads.items():
        text = read(path)
        names = recorded_tensors(text, lines) if text is not None else {}
        if names:
            found[path] = names
    return found


# --- third-party callables a run saw break (GBF007's evidence) ----------------------------------


def third_party_callables(sites: Iterable[RecordedBreak]) -> frozenset[str]:
    """``pkg.mod.Class`` / ``pkg.mod.function`` of each installed-package frame a break was traced into.

    The entry into the package (its first frame in the traced stack) is
    what the project calls. Its class is read from the recorded file when
    it exists here; each parent package is named too (``pkg.Class``), since
    libraries re-export what the project imports.
    """
    names: set[str] = set()
    for site in sites:
        frames = site.traced_stack or (Frame(site.file, site.line, site.function),)
        for frame in frames:
            module = _installed_module(frame.file)
            if module is None:
                continue
            if module[0] != "torch":
                names.update(_qualnames(module, frame))
            break
    return frozenset(names)


def _installed_module(path: str) -> Optional[list[str]]:
    parts = _parts(path)
    tail = _vendor_tail(parts)
    if not tail or not parts[-1].endswith(".py"):
        return None
    rel = parts[len(parts) - tail :]
    module = rel[:-1] + ([] if rel[-1] == "__init__.py" else [rel[-1][:-3]])
    return module if module and all(p.isidentifier() for p in module) else None


def _qualnames(module: list[str], frame: Frame) -> set[str]:
    name = _enclosing_class(frame.file, frame.line) or frame.function
    if not name.isidentifier():
        return set()
    return {".".join([*module[:i], name]) for i in range(1, len(module) + 1)}


def _enclosing_class(path: str, line: int) -> Optional[str]:
    text = _read_text(path) if os.path.isfile(path) else None
    if text is None:
        return None
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError):
        return None
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.lineno <= line <= (node.end_lineno or node.lineno):
            return node.name
    return None


# --- recorded lines -> statement lines -------------------------------------------------------

_HEADERS = (ast.If, ast.While, ast.For, ast.AsyncFor, ast.With, ast.AsyncWith)


def statement_starts(text: Optional[str], lines: Iterable[int]) -> dict[int, int]:
    """line -> first line of the simple statement holding it, or of the ``if``/``while``/``for``/
    ``with`` whose header holds it. Lines in no such place map to themselves."""
    wanted = set(lines)
    if text is None or not wanted:
        return {n: n for n in wanted}
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError):
        return {n: n for n in wanted}
    best: dict[int, tuple[int, int]] = {}
    for node in ast.walk(tree):
        if not isinstance(node, ast.stmt):
            continue
        start, end = node.lineno, node.end_lineno or node.lineno
        if isinstance(node, _HEADERS):
            end = node.body[0].lineno - 1 if node.body else end
            if end < start:
                continue
        elif hasattr(node, "body"):
            continue  # def, class, try, match: their own lines hold no call Dynamo reports
        for n in wanted:
            if start <= n <= end and (n not in best or end - start < best[n][1] - best[n][0]):
                best[n] = (start, end)
    return {n: best[n][0] if n in best else n for n in wanted}


# --- reading the options of scan and apply -----------------------------------------------

TRACE_HELP = (
    "TORCH_TRACE directory (or log) of a real run: its graph breaks count as breaks too "
    "(the newest log, like tlparse --latest)."
)
ALL_LOGS_HELP = "With --trace: read every log in the directory, not only the newest."
LOG_HELP = "Captured TORCH_LOGS=graph_breaks output of a real run: its graph breaks count as breaks too."


def load_sites(trace: Optional[str], all_logs: bool, log: Optional[str]) -> list[RecordedBreak]:
    """The sites of ``--trace`` and ``--log``; raises TraceError."""
    if all_logs and not trace:
        raise TraceError("--all-logs needs --trace DIR")
    sites: list[RecordedBreak] = []
    if trace:
        sites.extend(read_trace(trace, all_logs))
    if log:
        sites.extend(read_log(log))
    return unique(sites)


def describe_unmatched(site: RecordedBreak, why: str) -> str:
    """One line for a site that matches no scanned file."""
    cost = "skipped the frame" if site.skipped else "resumed"
    code = f"{site.gb_code} " if site.gb_code else ""
    name = f" in {site.function}" if site.function else ""
    return f"{site.file}:{site.line}{name}: {code}{site.reason} ({cost}): not placed: {why}"


def describe_placements(placements: Placements, sites: int) -> str:
    files = len({p.path for p in placements.placed})
    return (
        f"gbfix: recorded run: {plural(sites, 'graph break')}, {len(placements.placed)} placed in "
        f"{plural(files, 'scanned file')}, {len(placements.unmatched)} not placed"
    )


def place_skipped_frames(frames: Iterable[SkippedFrame], files: Iterable[str]) -> dict[str, frozenset[RecordedSkip]]:
    """Scanned file -> the frames in it a run ran eagerly."""
    index = SuffixIndex(files)
    placed: dict[str, set[RecordedSkip]] = defaultdict(set)
    for frame in frames:
        path, _ = index.match(frame.file)
        if path is None or frame.first_line <= 0:
            continue
        site = f" at {_short(frame.site)}" if frame.site else ""
        placed[path].add(RecordedSkip(frame.first_line, frame.name, f"{frame.reason}{site}", frame.partial))
    return {path: frozenset(found) for path, found in placed.items()}


def _short(where: str) -> str:
    """A recorded path below ``site-packages`` from the package on; others as recorded."""
    parts = _parts(where)
    tail = _vendor_tail(parts)
    return "/".join(parts[-tail:]) if tail else where


def load_skipped_frames(trace: Optional[str], all_logs: bool) -> list[SkippedFrame]:
    """The frames a ``--trace`` shows Dynamo ran eagerly (a text log does not say); raises TraceError."""
    return read_skipped_frames(trace, all_logs) if trace else []
