"""Third-party code: where a package comes from, and whether its forward breaks.

GBF007 needs two facts about a callable imported from another package:

* is the package third-party (not part of the scanned project)? Settings
  ``first_party``/``third_party`` decide first; otherwise the import system
  is asked where the top-level package lives (``importlib.util.find_spec``
  on the top-level name only, which finds it without running it): under
  the project root and outside ``site-packages`` is first-party, anywhere
  else third-party; not found is unknown. The standard library and torch
  itself are never third-party here.
* does its ``forward`` (or the function itself) graph-break? The package's
  source file is located from the spec, without importing anything, parsed
  with libcst, and run through the same break analysis the rules use
  (:class:`codemods.analysis.breaks.BreakProvider`), which follows calls into
  functions, methods and submodules of that file. Re-exports
  (``from .encoder import Encoder`` in ``__init__.py``) and bases defined in
  the package are followed.

What was learned about a file is cached for the run (keyed by path and
modification time), so a package used by many files is analysed once per
process.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Literal, Optional

import libcst as cst

from codemods.analysis.breaks.cst import BreakProvider, BreakReason, find_breaks
from codemods.analysis.nodes import dotted_name
from codemods.fastcst.positions import LazyPositionProvider
from codemods.fastcst.walk import ReadOnlyMetadataWrapper

PackageKind = Literal["first", "third", "unknown"]

#: never third-party for this purpose: Dynamo handles torch's own modules
_NEVER_THIRD = frozenset({"torch", "functorch", "torchgen", "builtins", "__future__", "__main__"})
_MAX_HOPS = 6


@dataclass(frozen=True)
class SourceBreak:
    """Where a third-party callable breaks, for the finding's message."""

    qualname: str
    path: str
    line: int
    reason: str
    #: "class" (its forward breaks) or "function"
    kind: str

    def describe(self) -> str:
        return f"{self.reason} at {self.path}:{self.line}"


# -- where packages live -------------------------------------------------------------


def package_kind(
    top: str, first_party: tuple[str, ...], third_party: tuple[str, ...], project_root: str
) -> PackageKind:
    """Is the top-level package ``top`` part of the project, third-party, or unknown?"""
    if not top or top.startswith("."):
        return "first"
    if top in first_party:
        return "first"
    if top in third_party:
        return "third"
    if top in _NEVER_THIRD or top in sys.stdlib_module_names:
        return "unknown"
    location = _top_location(top, tuple(sys.path))
    if location is None:
        return "unknown"
    if project_root and _inside(location, project_root) and not _in_site_packages(location):
        return "first"
    return "third"


def _inside(path: str, root: str) -> bool:
    path, root = os.path.realpath(path), os.path.realpath(root)
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def _in_site_packages(path: str) -> bool:
    parts = os.path.realpath(path).split(os.sep)
    return "site-packages" in parts or "dist-packages" in parts


@lru_cache(maxsize=None)
def _top_location(top: str, search_path: tuple[str, ...]) -> Optional[str]:
    """The file or directory of a top-level module, found without importing it.

    ``search_path`` is ``sys.path`` at the time of the call: part of the
    cache key, so a changed path is looked up again.
    """
    try:
        spec = importlib.util.find_spec(top)
    except (ImportError, ValueError, AttributeError):
        return None
    if spec is None:
        return None
    locations = list(spec.submodule_search_locations or ())
    if locations:
        return locations[0]
    if spec.origin and os.path.isfile(spec.origin):
        return spec.origin
    return None


def module_file(dotted: str) -> Optional[str]:
    """The source file of module ``a.b.c`` (``.py`` or package ``__init__.py``), no import."""
    parts = dotted.split(".")
    top = _top_location(parts[0], tuple(sys.path))
    if top is None:
        return None
    path = top
    for part in parts[1:]:
        if not os.path.isdir(path):
            return None
        path = os.path.join(path, part)
    if os.path.isdir(path):
        init = os.path.join(path, "__init__.py")
        return init if os.path.isfile(init) else None
    if path.endswith(".py") and os.path.isfile(path):
        return path
    return path + ".py" if os.path.isfile(path + ".py") else None


# -- what a file defines, and what breaks in it --------------------------------------------


@dataclass(frozen=True)
class _Defined:
    kind: str  # "class" | "function"
    #: the first break in the class's forward or the function, if any
    line: int = 0
    reason: str = ""
    #: class bases as dotted names, to follow when the class has no forward
    bases: tuple[str, ...] = ()
    has_forward: bool = False


@dataclass(frozen=True)
class _FileFacts:
    defined: dict[str, _Defined]
    #: name -> absolute "module.name" it is imported from
    imported: dict[str, str]


def _package_of(dotted: str, path: str) -> str:
    return dotted if os.path.basename(path) == "__init__.py" else dotted.rpartition(".")[0]


@lru_cache(maxsize=256)
def _file_facts(path: str, mtime_ns: int, dotted: str) -> Optional[_FileFacts]:
    try:
        with open(path, encoding="utf-8") as handle:
            tree = cst.parse_module(handle.read())
    except (OSError, UnicodeDecodeError, cst.ParserSyntaxError, RecursionError):
        return None
    wrapper = ReadOnlyMetadataWrapper(tree, unsafe_skip_copy=True)
    breaks = wrapper.resolve(BreakProvider)
    positions = wrapper.resolve(LazyPositionProvider)

    def first_break(func: cst.FunctionDef) -> tuple[int, str]:
        reason: Optional[BreakReason] = breaks.get(func)
        if reason is None:
            return 0, ""
        sites = find_breaks([func.body], lambda n: breaks.get(n))
        line = positions[sites[0].node].start.line if sites else positions[func].start.line
        return line, (sites[0].reason if sites else reason).describe()

    defined: dict[str, _Defined] = {}
    imported: dict[str, str] = {}
    package = _package_of(dotted, path)
    for statement in wrapper.module.body:
        if isinstance(statement, cst.ClassDef):
            body = statement.body.body if isinstance(statement.body, cst.IndentedBlock) else ()
            forward = next((s for s in body if isinstance(s, cst.FunctionDef) and s.name.value == "forward"), None)
            line, reason = first_break(forward) if forward is not None else (0, "")
            bases = tuple(n for n in (dotted_name(b.value) for b in statement.bases if not b.keyword) if n)
            defined[statement.name.value] = _Defined("class", line, reason, bases, forward is not None)
        elif isinstance(statement, cst.FunctionDef):
            line, reason = first_break(statement)
            defined[statement.name.value] = _Defined("function", line, reason)
        elif isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                if isinstance(small, cst.ImportFrom) and not isinstance(small.names, cst.ImportStar):
                    source = _absolute(small, package)
                    if source is None:
                        continue
                    for alias in small.names:
                        name = dotted_name(alias.name)
                        bound = alias.asname.name.value if alias.asname else name  # type: ignore[union-attr]
                        if name and bound:
                            imported[bound] = f"{source}.{name}"
    return _FileFacts(defined, imported)


def _absolute(node: cst.ImportFrom, package: str) -> Optional[str]:
    module = dotted_name(node.module) if node.module is not None else ""
    if module is None:
        return None
    level = len(node.relative)
    if not level:
        return module
    parts = package.split(".") if package else []
    if level - 1 > len(parts):
        return None
    base = parts[: len(parts) - (level - 1)]
    return ".".join([*base, module] if module else base)


def source_break(qualname: str) -> Optional[SourceBreak]:
    """Where the callable ``qualname`` (``pkg.mod.Name``) breaks, per its source; None if not shown."""
    found = _source_break(qualname, _MAX_HOPS)
    return replace(found, qualname=qualname) if found is not None else None


def _source_break(qualname: str, hops: int) -> Optional[SourceBreak]:
    if hops <= 0 or "." not in qualname:
        return None
    module, _, name = qualname.rpartition(".")
    path = module_file(module)
    if path is None:
        return None
    try:
        mtime = os.stat(path).st_mtime_ns
    except OSError:
        return None
    facts = _file_facts(path, mtime, module)
    if facts is None:
        return None
    found = facts.defined.get(name)
    if found is None:
        target = facts.imported.get(name)
        return _source_break(target, hops - 1) if target else None
    if found.reason:
        return SourceBreak(qualname, path, found.line, found.reason, found.kind)
    if found.kind == "class" and not found.has_forward:
        # The forward is inherited: follow bases of this package.
        for base in found.bases:
            head = base.split(".")[0]
            if head in facts.defined:
                target = f"{module}.{base}"
            elif head in facts.imported:
                target = facts.imported[head] + base[len(head) :]
            else:
                continue
            inherited = _source_break(target, hops - 1)
            if inherited is not None:
                return SourceBreak(qualname, inherited.path, inherited.line, inherited.reason, "class")
    return None


def callable_kind(qualname: str) -> Optional[str]:
    """ "class" or "function" when the source of ``qualname`` shows which."""
    hops = _MAX_HOPS
    while hops and "." in qualname:
        module, _, name = qualname.rpartition(".")
        path = module_file(module)
        if path is None:
            return None
        try:
            facts = _file_facts(path, os.stat(path).st_mtime_ns, module)
        except OSError:
            return None
        if facts is None:
            return None
        if name in facts.defined:
            return facts.defined[name].kind
        if name not in facts.imported:
            return None
        qualname = facts.imported[name]
        hops -= 1
    return None
