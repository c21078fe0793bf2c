"""Precision and recall of gbfix's findings against what a compiled run of each real model shows.

    python benchmarks/precision.py                       # the models of results/realworld.json
    python benchmarks/precision.py --models mixtral dac --results DIR --gbfix-root DIR
    python benchmarks/precision.py --zoo                 # the skipping models of results/zoo-discovery.jsonl

It reads a real-model benchmark run (``realworld.json``: the files each model
executes and, from its "before" side, the frames Dynamo skipped and the
lines where the graph broke), then scans those files of the installed
package with ``gbfix scan --format json``: once as written (static mode)
and once with a run recorded under ``TORCH_TRACE`` (trace mode, recorded
afresh by ``model_run.py discover``).

- precision: findings whose frame the run shows as skipped or breaking, over
  all findings in the files the run executed;
- recall: skipped frames in scanned files (resume functions counted as the
  function they resume) that hold a finding, over all such frames.

A finding belongs to the innermost frame that holds its line: a function
(named by its first line, decorators included, as Dynamo names frames), a
lambda or a comprehension. The report goes to ``precision.md`` and
``precision.json`` beside ``realworld.json``.

``--zoo`` scores the whole-zoo benchmark instead: every model of
``zoo-discovery.jsonl`` with a skipped frame and a recorded run, the files
they run scanned once per mode (as ``zoo_gbfix.py`` scans them), into
``precision-zoo.md`` and ``precision-zoo.json``:

- precision: findings that sit in a frame some model skips (whole, or from
  a break on), over the findings in frames the recorded runs show ran
  (compiled, or holding a line an op of their graphs came from): a finding
  in code no model ran cannot be judged by a run and is listed apart; the
  share over all findings is given too;
- recall: skipped frames that hold inline tensor ops (what a fix could bring
  back into graphs, counted by gbfix's own tensor inference) with a finding;
- misses by cause: each skipped frame without a finding, by the break that
  made its model skip it.

Trace mode reads each model's ``TORCH_TRACE`` log from the discovery's work
directory (``--zoo-work``), linked into a directory of its own (every log
read, ``--all-logs``); a model whose log is not there is run again by
``zoo_discover.py run`` into that directory first (``--no-record`` leaves
it out of both modes). A rerun with the logs in place costs two scans;
``--rescore`` scores the findings ``precision-zoo.json`` kept, with no scan.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Iterable, Optional

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
# --zoo counts a frame's inline tensor ops with gbfix's own analysis
sys.path.insert(1, os.path.dirname(HERE))

import realworld  # noqa: E402
import zoo  # noqa: E402

#: rules whose findings are about a frame Dynamo skips (the placement rules GBF005-GBF007 are not)
FRAME_RULES = ("GBF001", "GBF002", "GBF003", "GBF004", "GBF009", "GBF010", "GBF011", "GBF012", "GBF013")
_FRAME = re.compile(r"^(?P<name>\S+) \((?P<path>.+):(?P<line>\d+)\)$")
_SITE = re.compile(r" @ (?P<path>.+):(?P<line>\d+)$")
_RESUME = re.compile(r"^torch_dynamo_resume_in_\w+_at_\d+$")

Frame = tuple[str, int]  # (file relative to the packages' parent directory, first line)


@dataclass(frozen=True)
class Scope:
    """One frame's code in a file: its first line as Dynamo reports it, and the lines it spans."""

    first: int
    start: int
    end: int
    name: str = ""
    #: a generator function or expression: Dynamo compiles it only inlined into a caller
    generator: bool = False


@lru_cache(maxsize=None)
def scopes(path: str) -> tuple[Scope, ...]:
    """Functions, lambdas and comprehensions of a file, each a frame of its own on Python 3.11."""
    try:
        with open(path, "rb") as handle:
            tree = ast.parse(handle.read())
    except (OSError, SyntaxError, ValueError):
        return ()
    found = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            first = min([node.lineno] + [d.lineno for d in node.decorator_list])
            end = node.end_lineno or node.lineno
            found.append(Scope(first, first, end, node.name, _yields(node)))
        elif isinstance(node, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            generator = isinstance(node, ast.GeneratorExp)
            found.append(Scope(node.lineno, node.lineno, node.end_lineno or node.lineno, generator=generator))
    return tuple(found)


def _yields(func: ast.AST) -> bool:
    """Whether ``func``'s own body (nested scopes aside) holds a ``yield``."""
    todo = list(ast.iter_child_nodes(func))
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.Yield, ast.YieldFrom)):
            return True
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            todo.extend(ast.iter_child_nodes(node))
    return False


def is_generator(root: str, frame: Frame) -> bool:
    """Whether the frame is a generator's: Dynamo refuses one handed to it on its own ("Attempt to
    trace generator", before any compile is logged); it runs eagerly because its caller did."""
    return any(s.first == frame[1] and s.generator for s in scopes(os.path.join(root, frame[0])))


def frame_at(root: str, relative: str, line: int) -> Optional[Frame]:
    """The innermost frame of ``relative`` (under ``root``) whose code holds ``line``."""
    holding = [s for s in scopes(os.path.join(root, relative)) if s.start <= line <= s.end]
    if not holding:
        return None
    inner = min(holding, key=lambda s: (s.end - s.start, -s.start))
    return relative, inner.first


def skipped_frames(side: dict[str, Any], root: str, files: set[str]) -> set[Frame]:
    """Frames the run skipped, whole or in part, in the scanned files; a resume function counts as its function.

    A whole skip names the frame by its first line; a partial skip names the
    frame and the line of the break, which may lie in a callee Dynamo was
    inlining: the frame is then the function of that name holding the line,
    else the one function of that name in the break's file or, failing that,
    in the scanned files.
    """
    frames = set()
    for text in side.get("skipped_whole", []):
        match = _FRAME.match(text)
        if not match or match["path"] not in files:
            continue
        line = int(match["line"])
        frame = frame_at(root, match["path"], line) if _RESUME.match(match["name"]) else (match["path"], line)
        if frame:
            frames.add(frame)
    for text in side.get("skipped_partial", []):
        match = _FRAME.match(text)
        if match:
            frame = _named_frame(root, match["name"], match["path"], int(match["line"]), files)
            if frame:
                frames.add(frame)
    return frames


def _named_frame(root: str, name: str, path: str, line: int, files: set[str]) -> Optional[Frame]:
    if _RESUME.match(name):
        return frame_at(root, path, line) if path in files else None
    if path in files:
        named = [s for s in scopes(os.path.join(root, path)) if s.name == name]
        holding = [s for s in named if s.start <= line <= s.end]
        if holding or len(named) == 1:
            return path, (holding or named)[0].first
    found = [(f, s.first) for f in sorted(files) for s in scopes(os.path.join(root, f)) if s.name == name]
    return found[0] if len(found) == 1 else None


def breaking_frames(side: dict[str, Any], root: str, files: set[str]) -> set[Frame]:
    """Frames that hold a line where the graph broke, in the scanned files."""
    frames = set()
    for text in side.get("break_sites", []):
        match = _SITE.search(text)
        if match and match["path"] in files:
            frame = frame_at(root, match["path"], int(match["line"]))
            if frame:
                frames.add(frame)
    return frames


def score(findings: Iterable[dict[str, Any]], side: dict[str, Any], root: str, files: list[str]) -> dict[str, Any]:
    """Precision and recall of one model's findings against its measured run."""
    scanned = set(files)
    every = skipped_frames(side, root, scanned)
    generators = {frame for frame in every if is_generator(root, frame)}
    skipped = every - generators  # what a recorded run can show, and recall counts
    shown = every | breaking_frames(side, root, scanned)
    placed = []
    for finding in findings:
        if finding["code"] in FRAME_RULES and finding["path"] in scanned:
            placed.append((finding, frame_at(root, finding["path"], finding["line"])))
    hits = [f for f, frame in placed if frame in shown]
    fixes = [(f, frame) for f, frame in placed if f.get("fix") != "none"]
    with_finding = {frame for _, frame in placed}
    found = skipped & with_finding
    return {
        "findings": len(placed),
        "true_findings": len(hits),
        "precision": len(hits) / len(placed) if placed else None,
        "fixes": len(fixes),
        "true_fixes": sum(frame in shown for _, frame in fixes),
        "skipped_frames": len(skipped),
        "skipped_with_finding": len(found),
        "recall": len(found) / len(skipped) if skipped else None,
        "false": [f"{f['path']}:{f['line']} {f['code']}" for f, frame in placed if frame not in shown],
        "missed": [f"{path}:{line}" for path, line in sorted(skipped - with_finding)],
        "generators": [f"{path}:{line}" for path, line in sorted(generators)],
    }


def scan(
    settings: realworld.Settings, root: str, files: list[str], trace_dir: Optional[str], compiled: list[str]
) -> list[dict[str, Any]]:
    """``gbfix scan --format json`` over the model's files of the installed package (read only)."""
    recorded = ["--trace", trace_dir] if trace_dir else []
    args = ["scan", "--format", "json", "--exit-zero", "-q", *recorded, *compiled, *files]
    proc = realworld.gbfix(settings, root, *args)
    if proc.returncode != 0:
        raise RuntimeError(f"gbfix scan exited {proc.returncode}: {proc.stderr.strip()[-400:]}")
    return json.loads(proc.stdout)["findings"]


def measure(model: dict[str, Any], settings: realworld.Settings, scratch: str, reuse: bool = False) -> dict[str, Any]:
    """Both modes' scores for one model of a benchmark run."""
    before = model.get("before") or {}
    if model.get("error") or before.get("error"):
        return {"name": model["name"], "error": model.get("error") or before.get("error")}
    packages = {path.split("/")[0] for path in model["files"]}
    roots = {os.path.dirname(realworld.installed_dir(name)) for name in packages}
    if len(roots) != 1:
        return {"name": model["name"], "error": f"packages installed in {len(roots)} places: {sorted(roots)}"}
    root = roots.pop()
    trace_dir = os.path.join(scratch, f"{model['name']}-trace")
    reference = os.path.join(scratch, "reference.pt")
    if reuse and os.path.isdir(trace_dir) and os.listdir(trace_dir):
        recorded: dict[str, Any] = {}
    else:
        recorded = realworld.run_model_task(
            "discover", model["name"], settings, scratch, "--reference", reference, trace_dir=trace_dir
        )
    result: dict[str, Any] = {"name": model["name"]}
    compiled = realworld.compiled_options(zoo.get(model["name"]))
    result["static"] = score(scan(settings, root, model["files"], None, compiled), before, root, model["files"])
    if "error" in recorded:
        result["trace"] = {"error": recorded["error"]}
    else:
        found = scan(settings, root, model["files"], trace_dir, compiled)
        result["trace"] = score(found, before, root, model["files"])
    return result


def totals(models: list[dict[str, Any]], mode: str) -> dict[str, Any]:
    sides = [m[mode] for m in models if mode in m and "error" not in m[mode]]
    keys = ("findings", "true_findings", "fixes", "true_fixes", "skipped_frames", "skipped_with_finding")
    sums = {k: sum(s[k] for s in sides) for k in keys}
    return {
        **sums,
        "precision": sums["true_findings"] / sums["findings"] if sums["findings"] else None,
        "recall": sums["skipped_with_finding"] / sums["skipped_frames"] if sums["skipped_frames"] else None,
    }


def _ratio(part: int, whole: int) -> str:
    return f"{part}/{whole} ({100 * part / whole:.0f}%)" if whole else "-"


def render(document: dict[str, Any]) -> str:
    lines = [
        "# Precision and recall of findings on the real-model benchmark",
        "",
        f"gbfix {document['gbfix']}; findings of {', '.join(FRAME_RULES)} in the files each model executes.",
        "Precision: findings in a frame the run skipped or broke in. Recall: skipped frames with a finding.",
        "",
        "Findings with a fix are those `apply` rewrites (the rest are reported with `fix: none` and a reason).",
        "",
        "| model | static precision | of fixes | static recall | trace precision | of fixes | trace recall |",
        "|---|---|---|---|---|---|---|",
    ]
    for model in document["models"]:
        if "error" in model:
            lines.append(f"| {model['name']} | error: {model['error'][:80]} | | | | | |")
            continue
        cells = []
        for mode in ("static", "trace"):
            side = model[mode]
            if "error" in side:
                cells += [f"error: {side['error'][:60]}", "", ""]
            else:
                cells += [
                    _ratio(side["true_findings"], side["findings"]),
                    _ratio(side["true_fixes"], side["fixes"]),
                    _ratio(side["skipped_with_finding"], side["skipped_frames"]),
                ]
        lines.append(f"| {model['name']} | " + " | ".join(cells) + " |")
    cells = []
    for mode in ("static", "trace"):
        total = document["total"][mode]
        cells += [
            _ratio(total["true_findings"], total["findings"]),
            _ratio(total["true_fixes"], total["fixes"]),
            _ratio(total["skipped_with_finding"], total["skipped_frames"]),
        ]
    lines.append("| **total** | " + " | ".join(f"**{c}**" for c in cells) + " |")
    generators = [
        (model["name"], frame)
        for model in document["models"]
        for frame in model.get("static", {}).get("generators", [])
    ]
    if generators:
        lines += [
            "",
            "Generator frames the run ran eagerly, left out of recall: Dynamo compiles a generator only inlined",
            "into its caller and refuses one handed to it on its own, before any compile is logged, so a",
            "recorded run cannot show them; each ran eagerly because its caller did.",
            "",
        ]
        lines += [f"- {name}: {frame}" for name, frame in generators]
    for mode in ("static", "trace"):
        lines += ["", f"Skipped frames without a finding ({mode} mode):", ""]
        for model in document["models"]:
            for missed in model.get(mode, {}).get("missed", []):
                lines.append(f"- {model['name']}: {missed}")
    return "\n".join(lines) + "\n"


# -- the whole zoo --------------------------------------------------------------------------------

_CAUSE = re.compile(r"^(?P<name>\S+) \[(?P<kind>\w+)\]: (?P<reason>.*?)(?: @ (?P<site>\S+))?$")
ZOO_MODES = ("static", "trace")


def zoo_rows(results: str) -> list[dict[str, Any]]:
    """The models of the zoo discovery with a skipped frame (the last row of a model wins)."""
    import zoo_gbfix

    return [row for row in zoo_gbfix.load(os.path.join(results, "zoo-discovery.jsonl")) if row.get("skipped")]


def package_root(relative: str) -> str:
    """The directory holding the installed package of a path like ``transformers/x.py``."""
    return os.path.dirname(realworld.installed_dir(relative.split("/")[0]))


def skip_causes(row: dict[str, Any]) -> dict[Frame, str]:
    """Each frame a model skipped (as :func:`skipped_frames` names it) -> the break that made it
    skip: the discovery lists a cause per frame by its name, in order; for "graph break in loop",
    the break at that site (``Data dependent operator (in a loop)``)."""
    whole, partial = row.get("skipped_whole", []), row.get("skipped_partial", [])
    pending: dict[str, list[tuple[str, str]]] = {}
    for text in row.get("skip_causes", []):
        cause = _CAUSE.match(text)
        if cause:
            pending.setdefault(cause["name"], []).append((cause["reason"], cause["site"] or ""))
    at_site: dict[str, list[str]] = {}
    for text in row.get("break_sites", []):
        reason, _, site = text.rpartition(" @ ")
        at_site.setdefault(site, []).append(reason)
    found: dict[Frame, str] = {}
    for index, text in enumerate(whole + partial):
        match = _FRAME.match(text)
        if not match:
            continue
        reason, site = pending[match["name"]].pop(0) if pending.get(match["name"]) else ("", "")
        inner = [r for r in at_site.get(site, []) if r != reason]
        if reason == "graph break in loop" and inner:
            reason = f"{inner[0]} (in a loop)"
        files = set(row.get("files", []))
        if match["path"] not in files:  # a frame of the standard library (``<frozen ...>``) or of torch
            continue
        root = package_root(match["path"])
        side = {"skipped_whole": [text]} if index < len(whole) else {"skipped_partial": [text]}
        for frame in skipped_frames(side, root, files):
            # a resume function has no cause of its own in the discovery: the break in its frame
            found.setdefault(frame, reason or _break_in(frame, root, at_site))
    return found


def _break_in(frame: Frame, root: str, at_site: dict[str, list[str]]) -> str:
    """The first recorded break written in ``frame``'s code, or "unknown"."""
    spans = [s for s in scopes(os.path.join(root, frame[0])) if s.first == frame[1]]
    if not spans:
        return "unknown"
    inside = sorted(
        (int(line), reasons[0])
        for site, reasons in at_site.items()
        for path, _, line in [site.rpartition(":")]
        if path == frame[0] and line.isdigit() and spans[0].start <= int(line) <= spans[0].end
    )
    return f"{inside[0][1]} (resumed frame)" if inside else "unknown"


@lru_cache(maxsize=None)
def inline_ops(path: str) -> dict[int, int]:
    """First line of each frame of a file (function, lambda, comprehension) -> the tensor ops written
    in it, as gbfix's tensor inference counts them (what a fix could bring back into graphs)."""
    import libcst as cst
    from libcst.metadata import MetadataWrapper, PositionProvider

    from codemods.analysis.tensors.cst import FunctionTensors, inline_tensor_ops

    try:
        with open(path, encoding="utf-8") as handle:
            wrapper = MetadataWrapper(cst.parse_module(handle.read()))
    except (OSError, UnicodeDecodeError, cst.ParserSyntaxError):
        return {}
    positions = wrapper.resolve(PositionProvider)
    tensors = FunctionTensors(wrapper.module)
    found: dict[int, int] = {}
    comprehensions = (cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp, cst.Lambda)
    todo: list[tuple[cst.CSTNode, Optional[cst.ClassDef], Optional[tuple[cst.FunctionDef, Any]]]] = [
        (wrapper.module, None, None)
    ]
    while todo:
        node, cls, func = todo.pop()
        for child in node.children:
            if isinstance(child, cst.ClassDef):
                todo.append((child, child, None))
            elif isinstance(child, cst.FunctionDef):
                first = min([positions[child].start.line] + [positions[d].start.line for d in child.decorators])
                found[first] = max(found.get(first, 0), tensors.inline_ops(child, cls))
                todo.append((child, None, (child, cls)))
            elif isinstance(child, comprehensions) and func is not None:
                line = positions[child].start.line
                found[line] = max(found.get(line, 0), inline_tensor_ops(tensors.facts(*func), [child]))
                todo.append((child, cls, func))
            else:
                todo.append((child, cls, func))
    return found


def holds_ops(frame: Frame) -> bool:
    return inline_ops(os.path.join(package_root(frame[0]), frame[0])).get(frame[1], 0) > 0


def record_missing(rows: list[dict[str, Any]], work: str, timeout: int) -> None:
    """Run the models whose ``TORCH_TRACE`` log is not under ``work`` again, into ``work``."""
    import zoo_gbfix

    missing = [zoo_gbfix.key(row) for row in rows if not os.path.exists(zoo_trace(row, work))]
    if not missing:
        return
    print(f"recording {len(missing)} models into {work} ...", file=sys.stderr, flush=True)
    command = [sys.executable, os.path.join(HERE, "zoo_discover.py"), "run", "--work", work]
    command += ["--out", os.path.join(work, "precision-rerun.jsonl"), "--timeout", str(timeout)]
    command += ["--libraries", *sorted({row["library"] for row in rows}), "--models", *missing]
    env = {k: v for k, v in os.environ.items() if k != "TORCH_TRACE"}
    subprocess.run(command, env=env, check=False)


def zoo_trace(row: dict[str, Any], work: str) -> str:
    import zoo_discover
    import zoo_gbfix

    return os.path.join(work, "traces", zoo_discover.safe_name(zoo_gbfix.key(row)) + ".log")


#: a line an FX graph of the run holds an op of (``# File: /abs/path.py:12 in forward, code: ...``)
_GRAPH_LINE = re.compile(r"# File: (?P<path>[^\s,]+\.py):(?P<line>\d+) in ")
#: a frame Dynamo started compiling (its compilation metrics)
_COMPILED = re.compile(r'"co_filename": "(?P<path>[^"]+\.py)", "co_firstlineno": (?P<line>\d+)')


def reached_frames(log: str, files: set[str]) -> set[Frame]:
    """Frames of ``files`` a recorded run shows it ran under Dynamo: those it compiled, and those
    holding a line an op of its graphs came from (inlined callees too).

    A finding elsewhere sits in code the model never ran (a vision tower of a run given text
    only, a branch of options it did not set): the run cannot say whether it is right.
    """
    try:
        with open(log, encoding="utf-8", errors="replace") as handle:
            text = handle.read()
    except OSError:
        return set()
    frames: set[Frame] = set()
    for pattern, first in ((_GRAPH_LINE, False), (_COMPILED, True)):
        for path, line in set(pattern.findall(text)):
            relative = _package_relative(path, files)
            if relative is None:
                continue
            frame = (relative, int(line)) if first else frame_at(package_root(relative), relative, int(line))
            if frame:
                frames.add(frame)
    return frames


def _package_relative(path: str, files: set[str]) -> Optional[str]:
    """``path`` (absolute, as the run saw it) as one of ``files`` (relative to the packages' parent)."""
    parts = path.split("/")
    for start in range(len(parts) - 1):
        relative = "/".join(parts[start:])
        if relative in files:
            return relative
    return None


def zoo_score(
    findings: list[dict[str, Any]], rows: list[dict[str, Any]], reached: Optional[set[Frame]] = None
) -> dict[str, Any]:
    """Precision, recall and misses of one mode's findings over the skipping models of the zoo;
    with ``reached`` (the frames the recorded runs show ran), precision over the findings in those."""
    import zoo_gbfix

    causes: dict[Frame, str] = {}
    shown: set[Frame] = set()
    per_model: dict[str, set[Frame]] = {}
    for row in rows:
        found = skip_causes(row)
        for frame, cause in found.items():
            causes.setdefault(frame, cause)
        files = set(row.get("files", []))
        by_root: dict[str, set[str]] = {}
        for path in files:
            by_root.setdefault(package_root(path), set()).add(path)
        for root, group in by_root.items():
            shown |= breaking_frames(row, root, group)
        per_model[zoo_gbfix.key(row)] = set(found)
    scanned = {path for row in rows for path in row.get("files", [])}
    placed: dict[tuple[str, int, str], Optional[Frame]] = {}
    for finding in findings:
        if finding["code"] in FRAME_RULES and finding["path"] in scanned:
            where = (finding["path"], finding["line"], finding["code"])
            placed[where] = frame_at(package_root(finding["path"]), finding["path"], finding["line"])
    with_finding = set(placed.values())
    skipped = {frame for frame in causes if not is_generator(package_root(frame[0]), frame)}
    counted = {frame for frame in skipped if holds_ops(frame)}
    missed = counted - with_finding
    by_cause: dict[str, int] = {}
    for frame in missed:
        by_cause[causes[frame]] = by_cause.get(causes[frame], 0) + 1
    models = {}
    for name, frames in per_model.items():
        own = {frame for frame in frames if frame in counted}
        models[name] = {"frames": len(own), "found": len(own & with_finding)}
    # a frame some run skipped or broke in ran too
    ran = None if reached is None else reached | skipped | shown | set(causes)
    judged = [frame for frame in placed.values() if ran is None or frame in ran]
    return {
        "findings": len(placed),
        "judged": len(judged),
        "judged_in_skipped": sum(frame in skipped for frame in judged),
        "unreached": sorted(
            f"{p}:{n} {c}" for (p, n, c), frame in placed.items() if ran is not None and frame not in ran
        ),
        "in_skipped": sum(frame in skipped for frame in placed.values()),
        "in_skipped_or_breaking": sum(frame in skipped or frame in shown for frame in placed.values()),
        "skipped_frames": len(skipped),
        "with_ops": len(counted),
        "found": len(counted & with_finding),
        "models": models,
        "missed_by_cause": dict(sorted(by_cause.items(), key=lambda item: (-item[1], item[0]))),
        "missed": [f"{path}:{line} ({causes[(path, line)]})" for path, line in sorted(missed)],
        "without_ops": [f"{path}:{line} ({causes[(path, line)]})" for path, line in sorted(skipped - counted)],
        "false": sorted(
            f"{p}:{n} {c}"
            for (p, n, c), frame in placed.items()
            if frame not in skipped and (ran is None or frame in ran)
        ),
    }


def zoo_main(args: argparse.Namespace) -> int:
    import zoo_discover
    import zoo_gbfix

    skipping = zoo_rows(args.results)
    work = args.zoo_work or zoo_discover.DEFAULT_WORK
    if not args.no_record:
        os.makedirs(os.path.join(work, "traces"), exist_ok=True)
        record_missing(skipping, work, args.timeout)
    # both modes score the same models: every skipping one whose run is recorded in ``work``
    rows = [row for row in skipping if os.path.exists(zoo_trace(row, work))]
    reached: set[Frame] = set()
    for row in rows:
        reached |= reached_frames(zoo_trace(row, work), set(row.get("files", [])))
    document: dict[str, Any] = {
        "gbfix": realworld.gbfix_version(os.path.abspath(args.gbfix_root)),
        "command": "python benchmarks/precision.py --zoo",
        "skipping": len(skipping),
        "models": [zoo_gbfix.key(row) for row in rows],
        "traced": [zoo_gbfix.key(row) for row in rows],
    }
    output = os.path.join(args.results, "precision-zoo.json")
    scanned: dict[str, list[dict[str, Any]]] = {}
    if args.rescore:
        with open(output, encoding="utf-8") as handle:
            scanned = json.load(handle).get("scanned", {})
    for mode in ZOO_MODES:
        if not rows:
            document[mode] = {"error": "no recorded run"}
            continue
        if mode not in scanned:
            print(f"scanning ({mode}) ...", file=sys.stderr, flush=True)
            with tempfile.TemporaryDirectory(prefix="gbfix-precision-") as selected:
                found = zoo_gbfix.scan(mode, rows, work, args.timeout, into=os.path.join(selected, "traces"))
            scanned[mode] = [{k: f[k] for k in ("path", "line", "code", "fix")} for f in found]
        document[mode] = zoo_score(scanned[mode], rows, reached)
    document["scanned"] = scanned
    with open(output, "w", encoding="utf-8") as handle:
        json.dump(document, handle, indent=1)
    text = render_zoo(document)
    with open(os.path.join(args.results, "precision-zoo.md"), "w", encoding="utf-8") as handle:
        handle.write(text)
    print(text)
    return 0


def render_zoo(document: dict[str, Any]) -> str:
    modes = [mode for mode in ZOO_MODES if "error" not in document[mode]]
    lines = [
        "# Precision and recall of findings on the whole-zoo benchmark",
        "",
        f"gbfix {document['gbfix']}; `{document['command']}`; {document.get('skipping', '?')} models of",
        f"`zoo-discovery.jsonl` skip a frame; the {len(document['models'])} with a recorded run are scored,",
        "both modes.",
        f"Findings of {', '.join(FRAME_RULES)} in the files those models run.",
        "",
        "- precision: findings in a frame some model skips, over the findings in frames the recorded runs",
        "  show ran (compiled, or holding a line an op of their graphs came from; skipped or broke in);",
        "  findings in code no model ran cannot be judged by a run and are listed apart. In brackets:",
        "  over all findings in the files the models run, judged or not;",
        "- recall: skipped frames holding inline tensor ops (gbfix's own count of the ops a fix could",
        "  capture) with a finding; frames of generators and frames without such ops are left out.",
        "",
        "| mode | precision | [of all findings] | recall |",
        "|---|---|---|---|",
    ]
    for mode in modes:
        side = document[mode]
        judged = _ratio(side["judged_in_skipped"], side["judged"]) if "judged" in side else "-"
        lines.append(
            f"| {mode} | {judged} | [{_ratio(side['in_skipped'], side['findings'])}] | "
            f"{_ratio(side['found'], side['with_ops'])} |"
        )
    lines += ["", "| model | " + " | ".join(f"{m} recall" for m in modes) + " |", "|---|" + "---|" * len(modes)]
    for name in document["models"]:
        cells = [_ratio(document[m]["models"][name]["found"], document[m]["models"][name]["frames"]) for m in modes]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    causes = sorted({c for m in modes for c in document[m]["missed_by_cause"]})
    lines += ["", "Misses by the break that made the frame skip:", ""]
    lines += ["| cause | " + " | ".join(modes) + " |", "|---|" + "---|" * len(modes)]
    for cause in causes:
        counts = [str(document[m]["missed_by_cause"].get(cause, 0)) for m in modes]
        lines.append(f"| {cause} | " + " | ".join(counts) + " |")
    for mode in modes:
        side = document[mode]
        lines += ["", f"Missed frames ({mode}):", ""] + [f"- {m}" for m in side["missed"]]
        lines += ["", f"Findings outside a skipped frame ({mode}):", ""] + [f"- {f}" for f in side["false"]]
        lines += ["", f"Findings in frames no recorded run shows ran ({mode}; not judged):", ""]
        lines += [f"- {f}" for f in side.get("unreached", [])]
    lines += ["", "Skipped frames without inline tensor ops (not counted in recall):", ""]
    lines += [f"- {frame}" for frame in document[modes[0]]["without_ops"]] if modes else []
    return "\n".join(lines) + "\n"


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", default=os.path.join(HERE, "results"), help="directory holding realworld.json")
    parser.add_argument("--zoo", action="store_true", help="score the skipping models of zoo-discovery.jsonl")
    parser.add_argument("--zoo-work", default="", help="--zoo: the discovery's work directory (traces/)")
    parser.add_argument("--no-record", action="store_true", help="--zoo: do not rerun models whose trace is missing")
    parser.add_argument("--rescore", action="store_true", help="--zoo: score the findings precision-zoo.json kept")
    parser.add_argument("--models", nargs="+", metavar="NAME", help="default: every model of realworld.json")
    parser.add_argument("--gbfix-root", default=realworld.REPO, help="directory holding the gbfix code (rewriter/)")
    parser.add_argument("--timeout", type=int, default=900, help="seconds per step")
    parser.add_argument("--keep", metavar="DIR", help="keep the recorded runs in DIR (default: a temporary directory)")
    parser.add_argument("--reuse", action="store_true", help="with --keep: score the runs already recorded there")
    args = parser.parse_args(argv)
    if args.zoo:
        return zoo_main(args)
    with open(os.path.join(args.results, "realworld.json"), encoding="utf-8") as handle:
        run = json.load(handle)
    models = [m for m in run["models"] if not args.models or m["name"] in args.models]
    settings = realworld.Settings(
        models=tuple(m["name"] for m in models),
        modes=("static", "trace"),
        backend="eager",
        size="tiny",
        calls=1,
        device="cpu",
        threads=1,
        gbfix_root=os.path.abspath(args.gbfix_root),
        results=args.results,
        timeout=args.timeout,
    )
    scored = []
    with tempfile.TemporaryDirectory(prefix="gbfix-precision-") as temporary:
        scratch = args.keep or temporary
        os.makedirs(scratch, exist_ok=True)
        for model in models:
            print(f"[{len(scored) + 1}/{len(models)}] {model['name']} ...", file=sys.stderr, flush=True)
            scored.append(measure(model, settings, scratch, reuse=bool(args.keep and args.reuse)))
    document = {
        "gbfix": realworld.gbfix_version(settings.gbfix_root),
        "models": scored,
        "total": {mode: totals(scored, mode) for mode in ("static", "trace")},
    }
    with open(os.path.join(args.results, "precision.json"), "w", encoding="utf-8") as handle:
        json.dump(document, handle, indent=1)
    text = render(document)
    with open(os.path.join(args.results, "precision.md"), "w", encoding="utf-8") as handle:
        handle.write(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
