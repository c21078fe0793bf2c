"""Run an entry under ``torch.compile`` and explain every graph break and skipped frame.

``gbfix explain`` is a small, focused tlparse: it runs the entry in a fresh
process through the same machinery as ``gbfix verify``
(:mod:`rewriter.runtime.sandbox`, measured by :mod:`rewriter.runtime.measure`) with
``TORCH_TRACE`` pointed at a scratch directory, reads the trace back with
:mod:`rewriter.runtime.trace` (the reader ``--trace`` uses, so both show the same
picture) and says, for each break:

* where it is, what Dynamo calls it (gb code, type, explanation) and the
  stack that led there;
* whether it made Dynamo skip the frame (or the rest of it) and why;
* where the fix goes (the first frame, from the compiled one inward, that is
  the user's code rather than an installed package) and which gbfix rule
  fixes it there. The rule is not guessed from the break's text: the rules
  run in report mode on that file with the recorded lines as breaks, and the
  finding on the loop, ``with`` or ``try`` around the line names the rule;
  when none reports one, the reason is said instead ("no rule: ...").
"""

from __future__ import annotations

import ast
import os
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Optional, Sequence

import codemods
import rewriter
from codemods.rules.base import Finding
from codemods.rules.registry import REGISTRY
from rewriter.engine.config import ConfigError, Settings, load_settings
from rewriter.engine.diffs import display_path
from rewriter.engine.fileio import SourceError, read_source
from rewriter.engine.report import plural
from rewriter.engine.suppressions import parse_suppressions
from rewriter.runtime.measure import CompileStats
from rewriter.runtime.recorded import is_third_party, statement_starts
from rewriter.runtime.trace import (
    Frame,
    RecordedBreak,
    TraceError,
    read_trace,
    site_from_record,
)

_GBFIX_DIRS = tuple(
    os.path.dirname(os.path.abspath(path)) + os.sep for path in (rewriter.__file__, codemods.__file__) if path
)

#: the statements a break skips a frame in, as the kinds of statement rules declare they act on
_HOLDER_KINDS = {"loop": ("for", "while"), "with": ("with",), "try": ("try",)}


def rules_for(statement: str) -> tuple[str, ...]:
    """Codes of the rules that act on a break inside a ``statement`` ("loop", "with" or "try");
    a rule that only reports what such a break costs elsewhere (GBF013) fixes none."""
    kinds = set(_HOLDER_KINDS[statement])
    return tuple(
        code for code, rule in REGISTRY.items() if kinds & set(rule.PREFILTER.holders) and not rule.REPORTS_ONLY
    )


class ExplainError(Exception):
    """The run could not be made; ``traceback`` is the user's code's, when it raised."""

    def __init__(self, message: str, traceback: str = "", log: str = "") -> None:
        super().__init__(message)
        self.traceback = traceback
        self.log = log


@dataclass(frozen=True)
class BreakFix:
    """Which rule fixes a break, where; or why none does."""

    text: str
    codes: tuple[str, ...] = ()
    #: the file and line of the statement the rule acts on
    path: str = ""
    line: int = 0
    fixable: bool = False


@dataclass(frozen=True)
class Explained:
    site: RecordedBreak
    #: the frame of the user's code where the fix goes; None when the stack has none
    anchor: Optional[Frame]
    verdict: BreakFix

    def to_dict(self) -> dict[str, Any]:
        data = self.site.to_dict()
        data["fix_site"] = (
            None
            if self.anchor is None
            else {
                "file": self.anchor.file,
                "line": self.anchor.line,
                "function": self.anchor.function,
            }
        )
        data["fix"] = {
            "rules": list(self.verdict.codes),
            "file": self.verdict.path or None,
            "line": self.verdict.line or None,
            "fixable": self.verdict.fixable,
            "text": self.verdict.text,
        }
        return data


@dataclass
class Explanation:
    file: str
    entry: str
    inputs: str
    device: str
    backend: str
    items: list[Explained]
    stats: Optional[CompileStats] = None
    compile_error: str = ""
    info: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0

    @property
    def skipped(self) -> list[Explained]:
        return [item for item in self.items if item.site.skipped]

    @property
    def unexplained_skips(self) -> int:
        """Frames Dynamo counted as skipped that no break record accounts for."""
        if self.stats is None:
            return 0
        return max(0, self.stats.frames_skipped - len({_frame_key(i.site) for i in self.skipped}))

    def to_dict(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "entry": self.entry,
            "inputs": self.inputs,
            "device": self.info.get("device") or self.device,
            "backend": self.backend,
            "torch": self.info.get("torch"),
            "stats": None if self.stats is None else _stats_summary(self.stats),
            "compile_error": self.compile_error or None,
            "breaks": [item.to_dict() for item in self.items],
            "skipped_frames": skipped_frames(self),
            "unexplained_skipped_frames": self.unexplained_skips,
            "seconds": round(self.seconds, 3),
        }


def _frame_key(site: RecordedBreak) -> tuple[str, int]:
    return (site.frame or site.function, site.resumed_at)


def _stats_summary(stats: CompileStats) -> dict[str, Any]:
    data = stats.to_dict()
    data.pop("breaks", None)
    return data


def skipped_frames(explanation: Explanation) -> list[str]:
    return list(
        dict.fromkeys(
            ("the rest of " if i.site.partial else "") + (i.site.frame_label or i.site.function)
            for i in explanation.skipped
        )
    )


# --- which rule fixes a break -----------------------------------------------------------------


@dataclass(frozen=True)
class _Holder:
    kind: str
    line: int


def enclosing(tree: ast.Module, line: int) -> tuple[Optional[str], list[_Holder]]:
    """The innermost function holding ``line`` and, inside it, the loops, ``with`` and ``try``
    blocks whose body holds it (a ``while`` condition counts), outermost first."""
    function: Optional[str] = None
    holders: list[_Holder] = []
    body: Sequence[ast.stmt] = tree.body
    while True:
        node = next((s for s in body if s.lineno <= line <= (s.end_lineno or s.lineno)), None)
        if node is None:
            return function, holders
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            function, holders = node.name, []
        elif isinstance(node, ast.ClassDef):
            function, holders = None, []
        elif isinstance(node, (ast.For, ast.AsyncFor, ast.While)):
            if line >= node.body[0].lineno or isinstance(node, ast.While):
                holders.append(_Holder("loop", node.lineno))
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            if line >= node.body[0].lineno:
                holders.append(_Holder("with", node.lineno))
        elif isinstance(node, ast.Try) or type(node).__name__ == "TryStar":
            if line <= node.body[-1].end_lineno:  # type: ignore[attr-defined]
                holders.append(_Holder("try", node.lineno))
        body = [s for s in _child_statements(node) if s.lineno <= line <= (s.end_lineno or s.lineno)]


def _child_statements(node: ast.stmt) -> list[ast.stmt]:
    found: list[ast.stmt] = []
    for name in ("body", "orelse", "finalbody"):
        found.extend(getattr(node, name, ()) or ())
    for handler in getattr(node, "handlers", ()) or ():
        found.extend(handler.body)
    for case in getattr(node, "cases", ()) or ():
        found.extend(case.body)
    return found


def verdict(
    site: RecordedBreak,
    anchor: Optional[Frame],
    text: Optional[str],
    findings: Sequence[Finding],
    settings: Settings,
    path: str = "",
) -> BreakFix:
    """Which rule fixes ``site`` at ``anchor`` (given the file's text and the rules' findings)."""
    if anchor is None:
        if not site.skipped:
            return BreakFix("no rule needed: Dynamo resumed after this break")
        return BreakFix(
            f"no rule: the break is in {_short(site.file)}, and no frame of its stack "
            f"from the compiled one inward is in your code"
        )
    if text is None:
        return BreakFix(f"no rule: cannot read {_short(anchor.file)}")
    try:
        function, holders = enclosing(ast.parse(text), anchor.line)
    except (SyntaxError, ValueError, RecursionError) as exc:
        return BreakFix(f"no rule: cannot parse {_short(anchor.file)} ({exc})")
    lines = {h.line for h in holders} | {anchor.line}
    hits = [f for f in findings if f.line in lines and f.code in REGISTRY]
    if hits:
        where = _short(path or anchor.file)
        parts = [f"{f.code} {REGISTRY[f.code].NAME} at {where}:{f.line} ({_how(f)})" for f in hits]
        first = hits[0]
        return BreakFix(
            "; ".join(parts),
            tuple(dict.fromkeys(f.code for f in hits)),
            path or anchor.file,
            first.line,
            fixable=any(f.fix != "none" for f in hits),
        )
    if not site.skipped:
        return BreakFix("no rule needed: Dynamo resumed after this break")
    if function is None:
        return BreakFix("no rule: the break is not inside a function")
    if not holders:
        why = f" ({site.skip_code} {site.skip_reason})" if site.skip_code else ""
        return BreakFix(f"no rule: the break is not inside a loop, `with` or `try` of `{function}`{why}")
    suppressions = parse_suppressions(text)
    for line in sorted(lines):
        if line in suppressions:
            return BreakFix(f"no rule: suppressed by `# gbfix: ignore` on line {line}")
    outer = holders[0]
    codes = rules_for(outer.kind)
    active = [c for c in codes if c in settings.active_codes]
    if not active:
        return BreakFix(f"no rule: {'/'.join(codes)} not selected (the {outer.kind} at line {outer.line})")
    return BreakFix(f"no rule: {'/'.join(active)} report nothing for the {outer.kind} at line {outer.line}")


def _how(finding: Finding) -> str:
    if finding.fix == "safe":
        return "safe fix"
    if finding.fix == "unsafe":
        return "unsafe fix, applied with --unsafe-fixes"
    return f"cannot fix: {finding.note}" if finding.note else "cannot fix"


def _short(path: str) -> str:
    if os.path.isabs(path) and os.path.abspath(path).startswith(os.getcwd() + os.sep):
        return display_path(path)
    return path


def in_user_code(path: str) -> bool:
    """A source file of the user's, not an installed package, the standard library or gbfix."""
    return not is_third_party(path) and not os.path.abspath(path).startswith(_GBFIX_DIRS) and os.path.isfile(path)


def anchor_of(site: RecordedBreak, is_user: Callable[[str], bool] = in_user_code) -> Optional[Frame]:
    """The first frame of user code from the compiled frame inward (the innermost when unknown)."""
    frames = site.traced_stack or (Frame(site.file, site.line, site.function),)
    order = frames if site.compiled_index is not None else tuple(reversed(frames))
    return next((f for f in order if f.line > 0 and is_user(f.file)), None)


def explain_sites(
    sites: Sequence[RecordedBreak],
    is_user: Callable[[str], bool] = in_user_code,
    settings_for: Optional[Callable[[str], Settings]] = None,
) -> list[Explained]:
    """Each site with where its fix goes and which rule makes it (pure: reads the files only)."""
    anchors = [anchor_of(site, is_user) for site in sites]
    by_file: dict[str, list[int]] = defaultdict(list)
    for anchor in anchors:
        if anchor is not None:
            by_file[os.path.abspath(anchor.file)].append(anchor.line)
    analysed: dict[str, tuple[Optional[str], list[Finding], Settings, dict[int, int]]] = {}
    for path, lines in by_file.items():
        analysed[path] = _analyse(path, lines, (settings_for or _settings_for)(path))
    out = []
    for site, anchor in zip(sites, anchors, strict=False):
        if anchor is None:
            out.append(Explained(site, None, verdict(site, None, None, (), Settings())))
            continue
        path = os.path.abspath(anchor.file)
        text, findings, settings, starts = analysed[path]
        moved = replace(anchor, line=starts.get(anchor.line, anchor.line))
        out.append(Explained(site, anchor, verdict(site, moved, text, findings, settings, path)))
    return out


def _settings_for(path: str) -> Settings:
    try:
        return load_settings(path)
    except ConfigError:
        return Settings()


def _analyse(
    path: str, lines: list[int], settings: Settings
) -> tuple[Optional[str], list[Finding], Settings, dict[int, int]]:
    """The file's text, the rules' findings with ``lines`` recorded as breaks, and line moves."""
    from rewriter.engine.pipeline import transform_source

    try:
        text = read_source(path).text
    except SourceError:
        return None, [], settings, {}
    starts = statement_starts(text, lines)
    report = replace(settings, fix_mode="report", recorded_breaks={path: frozenset(starts.values())})
    try:
        outcome = transform_source(text, path, report)
    except Exception:  # a file the rules cannot handle is explained without findings
        return text, [], settings, starts
    return text, list(outcome.findings), settings, starts


# --- running the entry -------------------------------------------------------------------------


def explain_file(
    file: str,
    entry: str,
    inputs: str,
    *,
    device: str = "auto",
    backend: str = "eager",
    cwd: Optional[str] = None,
    timeout: float = 600.0,
    calls: int = 2,
) -> Explanation:
    """Run ``entry`` of ``file`` compiled in a fresh process and explain its breaks. Raises ExplainError."""
    from rewriter.runtime.sandbox import Request, SetupError, split_spec, start
    from rewriter.runtime.verify import (
        VerifyError,
        check_backend,
        check_device,
        finish_side,
        module_for,
    )

    started = time.perf_counter()
    cwd = os.path.abspath(cwd or os.getcwd())
    try:
        check_backend(backend)
        device = check_device(device)
        split_spec(entry, "--entry")
        split_spec(inputs, "--inputs")
        module, root, is_package = module_for(file, (entry, inputs), cwd)
    except (VerifyError, SetupError) as exc:
        raise ExplainError(str(exc)) from None
    try:
        source = read_source(file).text
    except SourceError as exc:
        raise ExplainError(f"{file}: error: {exc}") from None
    with tempfile.TemporaryDirectory(prefix="gbfix-explain-") as work:
        trace_dir = os.path.join(work, "trace")
        request = Request(
            module=module,
            origin=os.path.abspath(file),
            source=source,
            entry=entry,
            inputs=inputs,
            result=os.path.join(work, "run.result.json"),
            outputs=os.path.join(work, "run.pt"),
            device=device,
            backend=backend,
            is_package=is_package,
            paths=tuple(dict.fromkeys([root, cwd])),
            calls=calls,
        )
        env = dict(os.environ, TORCH_TRACE=trace_dir)
        proc = start(request, work, "run", cwd, env=env)
        try:
            result, _ = finish_side("run", proc, request, work, time.monotonic() + timeout, {"run": proc})
        except VerifyError as exc:
            raise ExplainError(str(exc).removeprefix("run: "), exc.traceback, exc.log) from None
        stats = CompileStats.from_dict(result["stats"]) if result.get("stats") else None
        try:
            sites = read_trace(trace_dir, all_logs=True)
        except TraceError:
            sites = []
    if not sites and stats is not None:
        sites = [site_from_record(record) for record in stats.breaks]
    error = result.get("compile_error") or {}
    return Explanation(
        file=file,
        entry=entry,
        inputs=inputs,
        device=device,
        backend=backend,
        items=explain_sites(sites),
        stats=stats,
        compile_error=error.get("message", ""),
        info={k: result.get(k) for k in ("torch", "cuda", "device", "device_name")},
        seconds=time.perf_counter() - started,
    )


# --- the report ----------------------------------------------------------------------------


def render(explanation: Explanation) -> str:
    e = explanation
    lines = [
        f"gbfix explain {e.file}",
        f"  entry {e.entry}   inputs {e.inputs}   device {e.info.get('device') or e.device}   "
        f"backend {e.backend}   torch {e.info.get('torch')}",
    ]
    if e.stats is not None:
        s = e.stats
        frames = skipped_frames(e)
        skipped = f" ({', '.join(frames)})" if frames else ""
        lines.append(
            f"  {plural(s.frames_total, 'frame')} seen by Dynamo, {plural(s.graphs, 'graph')} compiled, "
            f"{plural(s.frames_skipped, 'frame')} skipped{skipped}, {plural(len(e.items), 'graph break')}"
        )
        lines.append(f"  graph coverage {s.describe_coverage()}")
    if e.compile_error:
        lines.append(f"  the compiled call raised {e.compile_error}")
    for n, item in enumerate(e.items, start=1):
        lines.append("")
        lines.extend(_render_item(n, item))
    if e.unexplained_skips:
        lines.append("")
        lines.append(f"  {e.unexplained_skips} more frame(s) skipped without a graph-break record")
    if not e.items:
        lines.append("")
        lines.append("  no graph breaks")
    return "\n".join(lines) + "\n"


def _render_item(n: int, item: Explained) -> list[str]:
    site = item.site
    name = f" in {site.function}" if site.function else ""
    code = f"{site.gb_code} " if site.gb_code else ""
    detail = f": {site.explanation}" if site.explanation else ""
    out = [f"{n}. {_short(site.file)}:{site.line}{name}", f"   {code}{site.reason}{detail}"]
    frame = site.frame_label or site.function
    if site.partial:
        out.append(f"   skipped the rest of `{frame}`: compiled up to an earlier point, then ran as plain Python")
    elif site.skipped:
        why = f" ({site.skip_code} {site.skip_reason})" if site.skip_code else ""
        out.append(f"   skipped the frame `{frame}`{why}")
    else:
        out.append("   resumed: Dynamo compiled around it and went on")
    stack = " > ".join(f"{f.function} {_short(f.file)}:{f.line}" for f in site.traced_stack)
    if stack:
        out.append(f"   stack: {stack}")
    if item.anchor is not None and (item.anchor.file, item.anchor.line) != (site.file, site.line):
        out.append(f"   in your code: {_short(item.anchor.file)}:{item.anchor.line} in {item.anchor.function}")
    out.append(f"   fix: {item.verdict.text}")
    return out
