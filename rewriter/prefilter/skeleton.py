"""Skeletons: a file with what cannot matter blanked, line for line, and put back after.

When every rule that may match acts inside functions only, libcst gets a
skeleton of the file: the same lines, with what cannot matter blanked.
Kept whole: every function or method holding a candidate statement (or,
for a rule about output calls in compiled code, whose calls may reach
one), and
every one holding a nested definition named like something called, a
``global`` or a logger assignment the break analysis reads. Functions a
kept one may call, and that may break, keep only what decides whether and
why they break; one that assigns a submodule a kept one calls
(``self.block = Block()``) keeps those assignments. Every other function
becomes ``def name(): ...``; docstrings, multi-line values at module level
and every statement but a definition at class level become ``...`` (module
level keeps the names it binds). The rewritten skeleton gets the blanked
text back; if it cannot be found intact the file is done again in full.
"""

from __future__ import annotations

import ast
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Iterable, Optional

from codemods.analysis.catalogue import PARENTS_OF_LAST
from rewriter.prefilter.facts import (
    CLASS_CALL_METHODS,
    DEFS,
    SUBMODULE_METHODS,
    ScreenFacts,
    first_line,
)
from rewriter.prefilter.text import WORD

#: marks a blanked body in a skeleton; a file that holds it is never blanked
STUB_MARK = "# gbfix-screen-stub-"


def build_skeleton(
    facts: ScreenFacts, kinds: Iterable[str], focus: Optional[Sequence[tuple[int, int]]] = None
) -> Optional[FileView]:
    """The file with the bodies of the functions no finding of ``kinds`` can need blanked.

    Kept whole: every function or method (not nested in another function)
    that holds a candidate statement of ``kinds``; every one holding a
    nested definition named like something a kept one calls (the break
    analysis finds callees by name); every one holding a ``global``
    statement, a logger assignment or a gbfix helper name. Thinned
    (:meth:`_thinned`): every one whose body may break and that a kept
    one may call, to a fixpoint, and every one assigning a submodule a
    kept one may call; and every one the break analysis reads when a break
    depends on what callers pass (:meth:`ScreenFacts.argument_readers`).
    None when nothing can be blanked.
    """
    if STUB_MARK in facts.text or not facts.parse():
        return None
    facts.analyse()
    wanted_kinds = set(kinds)
    units = sorted((i for i, d in enumerate(facts.defs) if d.unit), key=lambda i: facts.defs[i].first)
    unit_firsts = [facts.defs[i].first for i in units]
    unit_of = {}
    for index, d in enumerate(facts.defs):
        at = bisect_right(unit_firsts, d.first) - 1
        if at >= 0 and facts.defs[units[at]].last >= d.last:
            unit_of[index] = units[at]
    targets = _targets(facts)
    kept: set[int] = set()
    #: units kept whole: candidates, and those holding a nested name a kept one calls
    whole: set[int] = set()
    wanted: set[str] = set()
    stack: list[int] = []

    def keep(unit: int, entirely: bool = False) -> None:
        if entirely:
            whole.add(unit)
        if unit not in kept:
            kept.add(unit)
            stack.append(unit)

    for unit in facts.candidate_units(wanted_kinds, focus):
        keep(unit, entirely=True)
    for index in facts.argument_readers():
        if index in unit_of:
            keep(unit_of[index], entirely=True)
    # A candidate outside the focus is blanked, or kept whole if a kept one calls it:
    # thinned, a loop could lose the `return` that makes its break harmless.
    candidates = set(facts.candidate_units(wanted_kinds))
    nested = [(d.first, d.name) for d in facts.defs if not d.unit]
    nested += [(first, name) for first, _, name in facts.classes]
    while True:
        while stack:
            d = facts.defs[stack.pop()]
            for key in facts.between(d.first, d.last) - wanted:
                wanted.add(key)
                for target in targets.get(key, ()):
                    if target in facts.broken and target in unit_of:
                        keep(unit_of[target])
        names = {key[2:] for key in wanted if key}
        for line, name in nested:
            if name in names:
                at = bisect_right(unit_firsts, line) - 1
                if at >= 0 and facts.defs[units[at]].first < line <= facts.defs[units[at]].last:
                    keep(units[at], entirely=True)
        if not stack:
            break
    attrs = {key[2:] for key in wanted if key.startswith("s:")}
    attrs |= {a for var, found in facts.loop_aliases.items() if "n:" + var in wanted for a in found}
    #: lines that keep their function whole: what they bind is read module-wide
    binding = sorted(facts.global_lines + facts.logger_lines + facts.class_constant_stores)
    #: ``facts.attr = Block(...)`` lines (attributes a kept function calls), and the ``Parameter``/buffer
    #: lines an int index is judged by: kept with their blocks' headers
    submodule = sorted(
        [line for attr in attrs if attr in facts.submodule_map() for line in facts.submodule_lines[attr]]
        + facts.indexable_lines
    )
    special = sorted(binding + submodule)
    lines = facts.text.split("\n")
    regions: list[tuple[int, int, str]] = []
    names = {key[2:] for key in wanted if key}
    sensitive = _sensitive(facts)
    # What a manager's class does on entry and exit decides how GBF003 splits a `with` of it
    # (codemods.analysis.managers): such classes are kept whole.
    managers = (
        [(first, last) for first, last, name in facts.classes if {"__enter__", "__exit__"} & set(facts.members[name])]
        if "with" in wanted_kinds
        else []
    )
    for index in units:
        d = facts.defs[index]
        if index in whole or _any_between(binding, d.first, d.last):
            continue
        if _within(managers, d.first, d.last):
            continue
        if "_gbfix_" in "\n".join(lines[d.first - 1 : d.last]):
            continue  # fresh helper names are numbered past every one in the file
        if index in kept and index in candidates:
            continue
        if index in kept or _any_between(submodule, d.first, d.last):
            # Only its verdict matters (does it break, and why), and the submodules it
            # assigns (``__init__``): keep what decides them.
            regions.extend(_thinned(facts, d.node.body, lines, names, submodule))
            continue
        node = d.node
        if not (_starts_line(lines[d.first - 1], node) and _ends_line(lines[d.last - 1], node)):
            continue
        indent = _indent(lines[d.first - 1])
        if d.name in names or d.name in sensitive or d.name in CLASS_CALL_METHODS | SUBMODULE_METHODS:
            # the break analysis finds callees by name: the name stays
            asynchronous = "async " if isinstance(node, ast.AsyncFunctionDef) else ""
            regions.append((d.first, d.last, f"{indent}{asynchronous}def {d.name}(): ..."))
        else:
            regions.append((d.first, d.last, indent + "..."))
    # Docstrings, and multi-line values at module and class level, never matter
    # to a rule acting inside functions; module level keeps the names it binds.
    for first, last, stmt, where in facts.blankable:
        if (
            _any_between(special, first, last)
            or _within(managers, first, last)
            or not (_starts_line(lines[first - 1], stmt) and _ends_line(lines[last - 1], stmt))
        ):
            continue
        head = _blank_head(stmt, where)
        if head is not None:
            regions.append((first, last, _indent(lines[first - 1]) + head))
    regions.sort(key=lambda region: (region[0], -region[1]))
    chosen: list[tuple[int, int, str]] = []
    for region in regions:
        if chosen and region[0] <= chosen[-1][1]:
            continue  # inside a blanked body: goes with it
        if chosen and _mergeable(chosen[-1], region, lines):
            chosen[-1] = (chosen[-1][0], region[1], chosen[-1][2])
            continue
        chosen.append(region)
    if not chosen:
        return None
    return FileView.build(facts.text, chosen)


def _within(ranges: Sequence[tuple[int, int]], first: int, last: int) -> bool:
    """Whether lines ``first``..``last`` lie inside one of ``ranges``."""
    return any(start <= first and last <= end for start, end in ranges)


def _thinned(
    facts: ScreenFacts, body: list[ast.stmt], lines: list[str], names: set[str], held: Sequence[int] = ()
) -> list[tuple[int, int, str]]:
    """Regions of ``body`` (of a function only called by kept ones) that cannot change its verdict.

    Kept: statements holding a call that may break, an import, ``global``
    or ``nonlocal``, a binding of a name a catalogue call may be read
    through (``time = ...`` changes what ``time.time()`` is), a nested
    definition named like something called, what is on the ``held``
    lines. Compound statements that hold such a call or line keep their
    headers and are thinned inside.
    """
    needed = facts.breaking
    sensitive = _sensitive(facts)
    regions: list[tuple[int, int, str]] = []
    run: list[ast.stmt] = []

    def flush() -> None:
        if (
            run
            and _starts_line(lines[first_line(run[0]) - 1], run[0])
            and _ends_line(
                lines[(run[-1].end_lineno or run[-1].lineno) - 1],
                run[-1],
            )
        ):
            regions.append(
                (
                    first_line(run[0]),
                    run[-1].end_lineno or run[-1].lineno,
                    _indent(lines[first_line(run[0]) - 1]) + "...",
                )
            )
        run.clear()

    for stmt in body:
        first, last = first_line(stmt), stmt.end_lineno or stmt.lineno
        calls = facts.between(first, last) & needed
        if (
            isinstance(stmt, (ast.Import, ast.ImportFrom, ast.Global, ast.Nonlocal))
            or (isinstance(stmt, (*DEFS, ast.ClassDef)) and (calls or stmt.name in names))
            or _binds_any(stmt, lines[first - 1 : last], sensitive)
        ):
            flush()
            continue
        if not calls and not _any_between(held, first, last):
            run.append(stmt)
            continue
        flush()
        for block in _blocks(stmt, lines):
            regions.extend(_thinned(facts, block, lines, names, held))
    flush()
    return regions


def _sensitive(facts: ScreenFacts) -> set[str]:
    """Names whose binding can change whether a call matches the catalogue."""
    found = set(PARENTS_OF_LAST) | {parent for parents in PARENTS_OF_LAST.values() for parent in parents}
    return found | set(facts.import_paths) | {"builtins"}


def _targets(facts: ScreenFacts) -> dict[str, list[int]]:
    """Call key -> the defs such a call may run (as the break analysis resolves them)."""
    found: dict[str, list[int]] = {}
    for index, d in enumerate(facts.defs):
        found.setdefault(("s:" if d.method else "n:") + d.name, []).append(index)
    for cls, members in facts.members.items():
        for method in CLASS_CALL_METHODS:
            found.setdefault("n:" + cls, []).extend(members.get(method, ()))
    for attr, classes in facts.submodule_map().items():
        runs = [
            index
            for cls in classes
            for method in SUBMODULE_METHODS
            for index in facts.members.get(cls, {}).get(method, ())
        ]
        found.setdefault("s:" + attr, []).extend(runs)
        for var, sources in facts.loop_aliases.items():
            if attr in sources:
                found.setdefault("n:" + var, []).extend(runs)
    return found


def _mergeable(before: tuple[int, int, str], after: tuple[int, int, str], lines: list[str]) -> bool:
    """Two blanked statements of one block, only blank or comment lines between: one ``...`` does."""
    if before[2].strip() != "..." or after[2] != before[2]:
        return False
    return all(not line.strip() or line.lstrip().startswith("#") for line in lines[before[1] : after[0] - 1])


def _binds_any(stmt: ast.stmt, lines: list[str], names: set[str]) -> bool:
    """``stmt`` (written on ``lines``) may bind one of ``names``."""
    text = "\n".join(lines)
    if text.isascii() and names.isdisjoint(WORD.findall(text)):
        return False  # a name it binds is written in it
    return not names.isdisjoint(_binds(stmt))


def _binds(stmt: ast.stmt) -> set[str]:
    """Every name ``stmt`` may bind anywhere inside it."""
    found: set[str] = set()
    for node in ast.walk(stmt):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            found.add(node.id)
        elif isinstance(node, (*DEFS, ast.ClassDef)):
            found.add(node.name)
        elif isinstance(node, ast.alias):
            found.add((node.asname or node.name).split(".", 1)[0])
        elif isinstance(node, ast.arg):
            found.add(node.arg)
        elif isinstance(node, (ast.ExceptHandler, ast.MatchAs, ast.MatchStar)) and node.name:
            found.add(node.name)
        elif isinstance(node, ast.MatchMapping) and node.rest:
            found.add(node.rest)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            found.update(node.names)
    return found


def _blocks(stmt: ast.stmt, lines: list[str]) -> list[list[ast.stmt]]:
    """The statement lists inside a compound statement (an ``elif`` is followed, never blanked)."""
    if isinstance(stmt, ast.If):
        blocks = [stmt.body]
        orelse = stmt.orelse
        if (
            len(orelse) == 1
            and isinstance(orelse[0], ast.If)
            and lines[orelse[0].lineno - 1].lstrip().startswith("elif")
        ):
            return blocks + _blocks(orelse[0], lines)
        return blocks + ([orelse] if orelse else [])
    blocks = []
    for field in ("body", "orelse", "finalbody"):
        value = getattr(stmt, field, None)
        if value and isinstance(value, list) and isinstance(value[0], ast.stmt):
            blocks.append(value)
    blocks.extend(h.body for h in getattr(stmt, "handlers", ()))
    blocks.extend(c.body for c in getattr(stmt, "cases", ()))
    return blocks


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip())]


def _ends_line(line: str, stmt: ast.stmt) -> bool:
    """Only blanks or a comment come after ``stmt`` on its last line."""
    rest = line.encode("utf-8")[stmt.end_col_offset or 0 :].strip()
    return not rest or rest.startswith(b"#")


def _blank_head(node: ast.stmt, where: str) -> Optional[str]:
    """What a blanked statement becomes, keeping any name it binds at module or class level; None: keep it."""
    if where == "docstring" or isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
        return '""'  # still a docstring: `from __future__` may follow it
    if any(isinstance(n, (ast.NamedExpr, ast.Lambda)) for n in ast.walk(node)):
        return None
    if isinstance(node, ast.Assign) and all(isinstance(t, ast.Name) for t in node.targets):
        return " = ".join(t.id for t in node.targets) + " = ..."  # type: ignore[attr-defined]
    if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
        return f"{node.target.id}: ... = ..."
    if isinstance(node, ast.Expr):
        return "..."
    return None


def _starts_line(line: str, stmt: ast.stmt) -> bool:
    """Only blanks come before ``stmt`` (or its first decorator) on its first line."""
    node = min([stmt, *getattr(stmt, "decorator_list", ())], key=lambda n: (n.lineno, n.col_offset))
    return line.encode("utf-8")[: node.col_offset].strip() in (b"", b"@")


def _any_between(sorted_lines: Sequence[int], start: int, end: int) -> bool:
    index = bisect_left(sorted_lines, start)
    return index < len(sorted_lines) and sorted_lines[index] <= end


@dataclass(frozen=True)
class FileView:
    """What libcst is shown of a file: all of it, or a skeleton with parts blanked, line for line.

    ``text`` has the same lines as the original: a blanked region becomes
    one line (``...``, ``def name(): ...``, ``NAME = ...``) with a numbered
    marker comment, then padding to its old length, so every position libcst
    reports in it is a position in the original. Padding of more than one
    line is a single string statement of empty lines: libcst makes three
    nodes of every empty line and walks them once per rule and metadata pass.
    A docstring becomes one string of empty lines holding the marker.
    """

    text: str
    #: (the lines standing for a blanked region, the first holding its marker; the region's text)
    stubs: tuple[tuple[tuple[str, ...], str], ...]

    @classmethod
    def whole(cls, text: str) -> "FileView":
        """The whole file: nothing blanked, nothing to put back."""
        return cls(text, ())

    @classmethod
    def build(cls, text: str, regions: list[tuple[int, int, str]]) -> "FileView":
        """Blank each (first line, last line, what the first line becomes) of ``text``."""
        lines = text.split("\n")
        stubs = []
        for number, (first, last, head) in enumerate(sorted(regions)):
            original = lines[first - 1 : last]
            if head.strip() == '""' and last > first:
                # A docstring stays one statement: what a rewrite puts after a
                # function's docstring then goes after all of its lines.
                stand_in = _padding(head, last - first + 1)
                stand_in[0] += f"{STUB_MARK}{number}"
            else:
                stand_in = [f"{head}  {STUB_MARK}{number}"] + _padding(head, last - first)
            lines[first - 1 : last] = stand_in
            stubs.append((tuple(stand_in), "\n".join(original)))
        return cls("\n".join(lines), tuple(stubs))

    def restore(self, new_text: str) -> Optional[str]:
        """``new_text`` (the skeleton rewritten) with the blanked bodies put back, or None
        when a blanked body is not where it was left (then the file is done in full)."""
        if not self.stubs:
            return new_text
        lines = new_text.split("\n")
        where = {line: i for i, line in enumerate(lines) if STUB_MARK in line}
        if len(where) != len(self.stubs):
            return None
        found = []
        for stand_in, original in self.stubs:
            index = where.get(stand_in[0])
            if index is None or tuple(lines[index : index + len(stand_in)]) != stand_in:
                return None
            found.append((index, len(stand_in), original))
        for index, count, original in sorted(found, reverse=True):
            lines[index : index + count] = [original]
        return "\n".join(lines)


def _padding(head: str, count: int) -> list[str]:
    """``count`` lines that follow ``head`` and mean nothing: empty lines, or one string of them."""
    if count < 2:
        return [""] * count
    indent = head[: len(head) - len(head.lstrip(" \t"))]
    return [f'{indent}"""'] + [""] * (count - 2) + ['"""']
