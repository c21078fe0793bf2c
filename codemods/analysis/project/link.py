"""The project index: the files' summaries linked into what each file needs to know.

:mod:`codemods.analysis.project.index` reads each file of the scanned tree on its
own; this module resolves their calls across files and answers, per file,
with a :class:`codemods.analysis.reach.ProjectFacts`:

* **Reach.** The entries are the ``forward`` of every module class (a class
  whose bases lead to ``nn.Module``, or to something outside the tree that
  is not a known plain base), every function decorated with
  ``torch.compile`` and every function or method passed to it. From them,
  calls are followed: ``self.method(...)`` (through the bases, in any file
  of the tree), ``self.sub(...)`` and ``for layer in self.layers:
  layer(...)`` to the forward of the submodule's class, ``super().m(...)``,
  plain calls of functions and classes (a class call runs its constructor),
  ``mod.f(...)`` through imports, and ``x.m(...)`` after ``x = Cls(...)``.
  A function decorated with ``torch.compiler.disable`` is never entered.
  Each unit reached keeps the best evidence any entry gives it (a
  ``torch.compile`` call or ``--compiled`` name over a module's ``forward``),
  and the shortest chain from an entry of that kind.
* **Breaks behind calls into other files.** A unit breaks when it calls the
  break catalogue, or calls a unit that breaks (to a fixpoint, across
  files). A call into another file (or through a base class or a local
  instance) whose callee breaks goes into the caller file's ``external``
  table with the chain to the break. Names imported from an installed
  third-party package are looked up in its source without importing it
  (:func:`codemods.analysis.third_party.source_break`).

Everything is computed from plain data in one process, once per run.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Optional

from codemods.analysis.project.compiled_code import EXPORTED
from codemods.analysis.project.index import Call, ClassSummary, FileSummary, UnitSummary
from codemods.analysis.reach import Evidence, ExternalBreak, ProjectFacts, Reach, ReachMode, evidence_meets
from codemods.analysis.third_party import package_kind, source_break

#: decorators after which Dynamo does not trace the function: it runs it eagerly, or uses its result
OPAQUE = frozenset(
    {
        "torch.compiler.disable",
        "torch._dynamo.disable",
        "torch.compiler.assume_constant_result",
        "torch._dynamo.assume_constant_result",
    }
)

#: (kind, path, qualified name): kind is "func", "class" or "module"
Target = tuple[str, str, str]
#: bases that say a class is not a module (its ``forward`` is no entry)
PLAIN_BASES = frozenset(
    {
        "object",
        "ABC",
        "Enum",
        "IntEnum",
        "StrEnum",
        "Flag",
        "NamedTuple",
        "TypedDict",
        "Protocol",
        "Generic",
        "Exception",
        "dict",
        "list",
        "tuple",
        "str",
        "int",
        "float",
    }
)
#: methods a call of the class may run
_CONSTRUCTION = ("__init__", "__post_init__", "__enter__", "__exit__")
#: methods a call of a module object runs
_MODULE_CALL = ("forward", "__call__")
_HOPS = 8


@dataclass(frozen=True)
class _Break:
    reason: str
    raises: bool
    #: where the breaking call is (path, line)
    path: str
    line: int
    #: the unit called next on the way to the break, if not here
    next: Optional[int] = None
    #: a break of the unit itself that runs only after ``a is b`` was false: its parameter pairs,
    #: and its parameters as a call fills them (a caller of the unit is judged at its call, in its
    #: file; further callers are taken to break, as the index keeps no arguments)
    distinct: tuple[tuple[str, str], ...] = ()
    params: tuple[str, ...] = ()


@dataclass(frozen=True)
class _Reached:
    entry: str
    previous: Optional[int]
    evidence: Evidence


@dataclass(frozen=True)
class LinkOptions:
    """What the linker needs of the run's settings."""

    mode: ReachMode = "compiled"
    first_party: tuple[str, ...] = ()
    third_party: tuple[str, ...] = ()
    project_root: str = ""
    #: functions compiled by code outside the tree (``Class.method``, ``FILE:Class.method``)
    compiled: tuple[str, ...] = ()


class Project:
    """Every summary of the scanned tree, linked."""

    def __init__(self, summaries: Iterable[FileSummary], options: LinkOptions = LinkOptions()) -> None:
        self.options = options
        self.files: dict[str, FileSummary] = {}
        self.by_module: dict[str, FileSummary] = {}
        for summary in summaries:
            self.files[summary.path] = summary
            self.by_module.setdefault(summary.module, summary)
        self.imports = {path: dict(s.imports) for path, s in self.files.items()}
        self.aliases = {path: dict(s.loop_aliases) for path, s in self.files.items()}
        self.units: list[tuple[FileSummary, UnitSummary]] = []
        self.unit_ids: dict[tuple[str, str], list[int]] = {}
        self.classes: dict[tuple[str, str], ClassSummary] = {}
        self.top: dict[str, dict[str, Target]] = {}
        for summary in self.files.values():
            top: dict[str, Target] = {}
            for cls in summary.classes:
                self.classes[(summary.path, cls.qualname)] = cls
                if "." not in cls.qualname:
                    top.setdefault(cls.qualname, ("class", summary.path, cls.qualname))
            for unit in summary.units:
                self.unit_ids.setdefault((summary.path, unit.qualname), []).append(len(self.units))
                self.units.append((summary, unit))
                if unit.cls is None:
                    top.setdefault(unit.qualname, ("func", summary.path, unit.qualname))
            self.top[summary.path] = top
        self._methods: dict[tuple[str, str, str], list[int]] = {}
        #: units Dynamo never traces (decorated with ``torch.compiler.disable`` and the like)
        self.opaque = {index for index in range(len(self.units)) if self._is_opaque(index)}
        self._module_class: dict[tuple[str, str], Optional[str]] = {}
        #: a decorator whose wrapper calls the function it wraps -> the units decorated with it
        self.decorated_by: dict[int, list[int]] = {}
        for index, (summary, unit) in enumerate(self.units):
            for name in unit.decorators:
                for decorator in self._target_units(self.resolve(summary.path, name)):
                    if self.units[decorator][1].wraps:
                        self.decorated_by.setdefault(decorator, []).append(index)
        #: the reverse: a unit -> the decorators whose wrappers run around it
        self.wrapped_by: dict[int, list[int]] = {}
        for decorator, decorated in self.decorated_by.items():
            for index in decorated:
                self.wrapped_by.setdefault(index, []).append(decorator)
        self.edges = [self._edges(index) for index in range(len(self.units))]
        self.breaks = self._breaks()
        self.reached = self._reach()

    def _decorated_with(self, index: int, names: frozenset[str]) -> bool:
        """A decorator of the unit is one of ``names`` (qualified names), read through its file's imports."""
        summary, unit = self.units[index]
        imports = self.imports[summary.path]
        for decorator in unit.decorators:
            head, dot, rest = decorator.partition(".")
            if (imports[head] + dot + rest if head in imports else decorator) in names:
                return True
        return False

    def _is_opaque(self, index: int) -> bool:
        """Whether Dynamo steps over the unit: a decorator keeps it out, or marks its result constant."""
        summary, unit = self.units[index]
        if self._decorated_with(index, OPAQUE):
            return True
        for decorator in unit.decorators:
            target = self.resolve(summary.path, decorator)
            if target is not None and target[0] == "func":
                if any(self.units[u][1].marks_constant for u in self.unit_ids.get((target[1], target[2]), [])):
                    return True
        return False

    # -- names ---------------------------------------------------------------------------
    def resolve(self, path: str, dotted: str, hops: int = _HOPS) -> Optional[Target]:
        """What ``dotted`` names in the module of ``path``: its definitions, then its imports."""
        if hops <= 0 or not dotted:
            return None
        head, _, rest = dotted.partition(".")
        local = self.top.get(path, {}).get(head)
        if local is not None:
            return self._member(local, rest, hops)
        imported = self.imports.get(path, {}).get(head)
        if imported is not None:
            return self.resolve_absolute(f"{imported}.{rest}" if rest else imported, hops - 1)
        return None

    def resolve_absolute(self, dotted: str, hops: int = _HOPS) -> Optional[Target]:
        """What the absolute ``pkg.mod.Name`` is in the tree (re-exports followed)."""
        parts = dotted.split(".")
        for cut in range(len(parts), 0, -1):
            summary = self.by_module.get(".".join(parts[:cut]))
            if summary is None:
                continue
            rest = ".".join(parts[cut:])
            return ("module", summary.path, "") if not rest else self.resolve(summary.path, rest, hops - 1)
        return None

    def _member(self, target: Target, rest: str, hops: int) -> Optional[Target]:
        if not rest:
            return target
        kind, path, qualname = target
        if kind == "module":
            return self.resolve(path, rest, hops - 1)
        if kind != "class":
            return None
        head, _, more = rest.partition(".")
        if (path, f"{qualname}.{head}") in self.classes:
            return self._member(("class", path, f"{qualname}.{head}"), more, hops)
        if not more and self.methods(path, qualname, head):
            return ("func", path, f"{qualname}.{head}")
        return None

    # -- classes ---------------------------------------------------------------------------
    def bases(self, path: str, qualname: str) -> Iterator[tuple[str, str]]:
        """(path, qualname) of the bases of a class that the tree defines."""
        cls = self.classes.get((path, qualname))
        for base in cls.bases if cls is not None else ():
            target = self.resolve(path, base)
            if target is not None and target[0] == "class":
                yield target[1], target[2]

    def methods(self, path: str, qualname: str, name: str) -> list[int]:
        """Units of the method ``name`` a ``qualname`` object runs: its own, else the first base's that has it."""
        key = (path, qualname, name)
        if key not in self._methods:
            self._methods[key] = []  # a cycle of bases ends here
            cls = self.classes.get((path, qualname))
            found: list[int] = []
            if cls is not None and name in cls.methods:
                found = self.unit_ids.get((path, f"{qualname}.{name}"), [])
            else:
                for base in self.bases(path, qualname):
                    found = self.methods(*base, name)
                    if found:
                        break
            self._methods[key] = found
        return self._methods[key]

    def module_class(self, path: str, qualname: str) -> Optional[str]:
        """What makes the class a module whose ``forward`` compile runs: "an nn.Module subclass" when
        its bases lead to ``nn.Module``, "a subclass of `X`" when they lead to something outside the
        tree that is not a plain base (``torch.autograd.Function``); None for other classes."""
        key = (path, qualname)
        if key not in self._module_class:
            self._module_class[key] = None  # a cycle of bases ends here
            cls = self.classes.get(key)
            found: Optional[str] = None
            for base in cls.bases if cls is not None else ():
                last = base.rpartition(".")[2]
                target = self.resolve(path, base)
                if last == "Module":
                    found = "an nn.Module subclass"
                elif target is not None and target[0] == "class":
                    found = self.module_class(target[1], target[2])
                elif target is None and last not in PLAIN_BASES:
                    found = f"a subclass of `{base}`"
                if found is not None:
                    break
            self._module_class[key] = found
        return self._module_class[key]

    def submodule_classes(self, path: str, qualname: str, attr: str) -> list[tuple[str, str]]:
        """Classes of the tree that ``self.attr`` of a ``qualname`` object is built from."""
        found = []
        seen = {(path, qualname)}
        todo = [(path, qualname)]
        while todo:
            where, name = todo.pop()
            cls = self.classes.get((where, name))
            for sub_attr, called in cls.submodules if cls is not None else ():
                if sub_attr != attr:
                    continue
                for dotted in called:
                    target = self.resolve(where, dotted)
                    if target is not None and target[0] == "class":
                        found.append((target[1], target[2]))
            for base in self.bases(where, name):
                if base not in seen:
                    seen.add(base)
                    todo.append(base)
        return found

    # -- calls -----------------------------------------------------------------------------
    def callees(self, index: int, call: Call) -> list[int]:
        """The units a call written in unit ``index`` may run."""
        summary, unit = self.units[index]
        kind, receiver, name = call
        path, cls = summary.path, unit.cls
        if kind == "s":
            if cls is None:
                return []
            return self.methods(path, cls, name) or self._module_calls(self.submodule_classes(path, cls, name))
        if kind == "super":
            for base in self.bases(path, cls) if cls is not None else ():
                found = self.methods(*base, name)
                if found:
                    return found
            return []
        if kind == "n":
            if name and name == unit.wraps:
                return list(self.decorated_by.get(index, ()))
            found = []
            if cls is not None:
                for attr in self.aliases[path].get(name, ()):
                    found += self._module_calls(self.submodule_classes(path, cls, attr))
            instance = dict(unit.instances).get(name)
            if instance is not None:
                found += self._module_calls(self._class_of(path, instance))
            return found + self._target_units(self.resolve(path, name))
        head, _, rest = receiver.partition(".")
        if head == "self":
            if cls is None or "." in rest:
                return []
            return [u for sub in self.submodule_classes(path, cls, rest) for u in self.methods(*sub, name)]
        instance = dict(unit.instances).get(receiver)
        if instance is not None:
            return [u for sub in self._class_of(path, instance) for u in self.methods(*sub, name)]
        return self._target_units(self.resolve(path, f"{receiver}.{name}"))

    def _class_of(self, path: str, dotted: str) -> list[tuple[str, str]]:
        target = self.resolve(path, dotted)
        return [(target[1], target[2])] if target is not None and target[0] == "class" else []

    def _module_calls(self, classes: list[tuple[str, str]]) -> list[int]:
        """The units calling module objects of ``classes`` runs (``forward``, else ``__call__``)."""
        found: list[int] = []
        for cls in classes:
            for method in _MODULE_CALL:
                units = self.methods(*cls, method)
                if units:
                    found.extend(units)
                    break
        return found

    def _target_units(self, target: Optional[Target]) -> list[int]:
        if target is None:
            return []
        kind, path, qualname = target
        if kind == "func":
            return self.unit_ids.get((path, qualname), [])
        if kind == "class":
            return [u for method in _CONSTRUCTION for u in self.methods(path, qualname, method)]
        return []

    def _edges(self, index: int) -> list[tuple[Call, list[int]]]:
        out = []
        for call in self.units[index][1].calls:
            found = [u for u in self.callees(index, call) if u != index]
            if found:
                out.append((call, found))
        return out

    # -- breaks ------------------------------------------------------------------------------
    def _breaks(self) -> dict[int, _Break]:
        """Which units break, each with the shortest way to its break (callers of a breaking unit break)."""
        found: dict[int, _Break] = {}
        callers: dict[int, list[int]] = {}
        queue: deque[int] = deque()
        for index, (summary, unit) in enumerate(self.units):
            for _, targets in self.edges[index]:
                for target in targets:
                    callers.setdefault(target, []).append(index)
            if unit.direct is not None and index not in self.opaque:
                reason, raises, line = unit.direct
                found[index] = _Break(reason, raises, summary.path, line, None, unit.distinct, unit.params)
                queue.append(index)
        while queue:
            index = queue.popleft()
            inner = found[index]
            for caller in callers.get(index, ()):
                if caller not in found and caller not in self.opaque:
                    found[caller] = _Break(inner.reason, inner.raises, inner.path, inner.line, index)
                    queue.append(caller)
        return found

    def _external_break(self, index: int) -> ExternalBreak:
        """The break behind a call of unit ``index`` from another file."""
        via, found = self.break_chain(index)
        at = f"{_shown(found.path)}:{found.line}"
        if found is not self.breaks[index]:
            return ExternalBreak(found.reason, found.raises, via, at)
        # its only breaks are output calls on rare paths, and what it calls does not break
        quiet = not any(t in self.breaks for _, targets in self.edges[index] for t in targets)
        rare_output = self.units[index][1].rare_output if quiet else ""
        return ExternalBreak(found.reason, found.raises, via, at, found.params, found.distinct, rare_output)

    def break_chain(self, index: int) -> tuple[tuple[str, ...], _Break]:
        """Qualified names from unit ``index`` to the unit holding the break, and the break."""
        path: list[int] = []
        here: Optional[int] = index
        while here is not None:
            path.append(here)
            here = self.breaks[here].next
        return self._chain(path), self.breaks[path[-1]]

    def _chain(self, path: list[int]) -> tuple[str, ...]:
        """Qualified names of the units of ``path``, each file named where the chain enters it."""
        names: list[str] = []
        previous: Optional[str] = None
        for index in path:
            summary, unit = self.units[index]
            names.append(unit.qualname if summary.path == previous else f"{_shown(summary.path)}:{unit.qualname}")
            previous = summary.path
        return tuple(names)

    # -- reach ---------------------------------------------------------------------------------
    def entries(self) -> Iterator[tuple[int, str, Evidence]]:
        """(unit, why compile runs it, how strong that is) for every entry of the tree: "entry" for
        what a ``torch.compile`` call of the tree or a ``--compiled`` name compiles, "forward" for
        a module's ``forward`` (compiled only if someone compiles the module)."""
        for index, (summary, unit) in enumerate(self.units):
            if index in self.opaque:
                continue
            if unit.compiled:
                yield index, unit.compiled, "entry"
            if unit.cls is not None and unit.qualname == f"{unit.cls}.forward":
                kind = self.module_class(summary.path, unit.cls)
                if kind is not None:
                    yield index, f"forward of {kind}", "forward"
            elif unit.cls is not None and self._decorated_with(index, EXPORTED):
                kind = self.module_class(summary.path, unit.cls)
                if kind is not None:
                    yield index, f"{unit.qualname.rpartition('.')[2]} of {kind}, exported", "forward"
        for name in self.options.compiled:
            for index in self.named(name):
                if index not in self.opaque:
                    yield index, f"named compiled: {name}", "entry"
        for summary in self.files.values():
            for where, dotted, line in summary.compiled:
                why = f"passed to torch.compile at {_shown(summary.path)}:{line}"
                for index in self._compiled(summary, where, dotted):
                    if index not in self.opaque:
                        why_here = why if dotted else f"a function in it is passed to torch.compile at {why[26:]}"
                        yield index, why_here, "entry"

    def named(self, name: str) -> list[int]:
        """The units ``name`` names: ``Class.method`` in any file, ``FILE:Class.method`` in files
        whose path ends with ``FILE``."""
        path, _, qualname = name.rpartition(":")
        suffix = path.replace("\\", "/")
        return [
            index
            for index, (summary, unit) in enumerate(self.units)
            if unit.qualname == qualname and (not suffix or summary.path.replace(os.sep, "/").endswith(suffix))
        ]

    def _compiled(self, summary: FileSummary, where: str, dotted: str) -> list[int]:
        if not dotted:
            return self.unit_ids.get((summary.path, where), [])
        if dotted.startswith("self.") and where:
            owner = self.units[self.unit_ids[(summary.path, where)][0]][1].cls
            return self.methods(summary.path, owner, dotted[5:]) if owner and dotted.count(".") == 1 else []
        target = self.resolve(summary.path, dotted)
        return self.unit_ids.get((target[1], target[2]), []) if target is not None and target[0] == "func" else []

    def _reach(self) -> dict[int, _Reached]:
        """Every unit compiled code reaches, with its best evidence: one breadth-first search from
        the entries of each kind, strongest first, so a unit a ``torch.compile`` call reaches is
        never reported as reached "only as a forward" because a forward's chain is shorter."""
        found: dict[int, _Reached] = {}
        entries = list(self.entries())
        for level in ("entry", "forward"):
            queue: deque[int] = deque()
            for index, why, evidence in entries:
                if evidence == level and index not in found:
                    found[index] = _Reached(why, None, evidence)
                    queue.append(index)
            while queue:
                index = queue.popleft()
                # a decorator's wrapper runs around the function it decorates, and calls it
                wrappers = self.wrapped_by.get(index, ())
                for target in [*(t for _, targets in self.edges[index] for t in targets), *wrappers]:
                    if target not in found and target not in self.opaque:
                        found[target] = _Reached(found[index].entry, index, level)
                        queue.append(target)
        return found

    def reach_of(self, index: int) -> Optional[Reach]:
        """How compiled code reaches unit ``index``, as a chain from its entry."""
        if index not in self.reached:
            return None
        path: list[int] = []
        here: Optional[int] = index
        while here is not None:
            path.append(here)
            here = self.reached[here].previous
        path.reverse()
        return Reach(self.reached[path[0]].entry, self._chain(path), self.reached[index].evidence)

    # -- what each file gets -------------------------------------------------------------------
    def facts_for(self, path: str) -> ProjectFacts:
        """What the tree says about the file ``path``: its reachable units, its calls into breaks elsewhere."""
        summary = self.files.get(path)
        if summary is None:
            # Not read, or not parsed by Python: limit nothing, and say so (the batch reports the error).
            return ProjectFacts(mode="all", parsed=False)
        units: dict[str, Reach] = {}
        external: dict[str, ExternalBreak] = {}
        blocks = False
        for unit in summary.units:
            for index in self.unit_ids[(path, unit.qualname)]:
                reach = self.reach_of(index)
                known = units.get(unit.qualname)
                if reach is not None and (known is None or not evidence_meets(known.evidence, reach.evidence)):
                    units[unit.qualname] = reach
                if reach is not None or self.options.mode == "all":
                    self._external_calls(index, external)
                    blocks = blocks or unit.holds_blocks
        return ProjectFacts(self.options.mode, units, external, blocks)

    def _external_calls(self, index: int, out: dict[str, ExternalBreak]) -> None:
        """The calls of unit ``index`` whose callee breaks where the file's own analysis cannot see it."""
        summary, unit = self.units[index]
        edges = dict(self.edges[index])
        for call in unit.calls:
            kind, receiver, name = call
            if kind == "n" and name == unit.wraps:
                # the wrapped function is whichever the decorator decorates: the file cannot see it
                key = f"{name}@{unit.qualname}"
                shown = [t for t in self.decorated_by.get(index, ()) if t in self.breaks]
                if shown and key not in out:
                    out[key] = self._external_break(shown[0])
                continue
            for key, callee in self._keys(summary.path, unit, call):
                if key in out:
                    continue
                targets = edges.get(call, []) if callee is None else callee
                shown = [
                    t for t in targets if t in self.breaks and (kind != "n" or self.units[t][0].path != summary.path)
                ]
                if shown:
                    out[key] = self._external_break(shown[0])
                elif kind == "n" and not targets:
                    installed = self._installed(summary, name)
                    if installed is not None:
                        out[key] = installed

    def _keys(self, path: str, unit: UnitSummary, call: Call) -> Iterator[tuple[str, Optional[list[int]]]]:
        """The keys the file's analysis looks the call up by, with the units each stands for (None: all)."""
        kind, receiver, name = call
        cls = unit.cls
        if kind == "s" and cls is not None:
            yield f"self.{name}@{cls}", None
        elif kind == "super" and cls is not None:
            yield f"super().{name}@{cls}", None
        elif kind == "d":
            if receiver.startswith("self.") and cls is not None:
                yield f"{receiver}.{name}@{cls}", None
            elif receiver in dict(unit.instances):
                yield f"{receiver}.{name}@{unit.qualname}", None
            else:
                yield f"{receiver}.{name}", None
        elif kind == "n":
            aliased = self.aliases[path].get(name, ()) if cls is not None else ()
            for attr in aliased:
                yield f"self.{attr}@{cls}", self._module_calls(self.submodule_classes(path, cls, attr))  # type: ignore[arg-type]
            if name in dict(unit.instances):
                yield f"{name}@{unit.qualname}", None
            elif not aliased:
                yield name, None

    def _installed(self, summary: FileSummary, name: str) -> Optional[ExternalBreak]:
        """A function or class imported by name from an installed third-party package that breaks."""
        dotted = self.imports[summary.path].get(name)
        if dotted is None or "." not in dotted or self.resolve_absolute(dotted) is not None:
            return None
        top = dotted.split(".", 1)[0]
        options = self.options
        if package_kind(top, options.first_party, options.third_party, options.project_root) != "third":
            return None
        found = source_break(dotted)
        if found is None:
            return None
        return ExternalBreak(found.reason, True, (dotted,), f"{_installed_path(found.path, top)}:{found.line}")

    # -- explaining ----------------------------------------------------------------------------
    def unit_at(self, path: str, line: int) -> Optional[int]:
        """The unit whose lines hold ``line`` in ``path``."""
        summary = self.files.get(path)
        for unit in summary.units if summary is not None else ():
            if unit.first <= line <= unit.last:
                return self.unit_ids[(path, unit.qualname)][0]
        return None

    def callers(self, index: int) -> list[int]:
        """The units with a call that may run unit ``index``."""
        return [caller for caller, edges in enumerate(self.edges) if any(index in targets for _, targets in edges)]


def _shown(path: str) -> str:
    """A path as messages show it: relative to the working directory."""
    return os.path.relpath(os.path.abspath(path)).replace(os.sep, "/")


def _installed_path(path: str, top: str) -> str:
    """``somelib/encoder.py`` of ``/.../site-packages/somelib/encoder.py``."""
    marker = os.sep + top + os.sep
    at = path.rfind(marker)
    return path[at + 1 :].replace(os.sep, "/") if at >= 0 else path
