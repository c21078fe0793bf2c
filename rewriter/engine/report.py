"""What `gbfix scan` prints: findings as text, JSON, SARIF or GitHub annotations, and statistics.

The batch runner's per-file records are turned into one flat, sorted list of
:class:`Diagnostic` rows plus the files that could not be processed; each
format is a pure function of that :class:`ScanReport`. Rule descriptions come
from the registry (code, name, summary, docs), so a new rule shows up in
every format without a change here.

SARIF output follows SARIF 2.1.0 as GitHub code scanning reads it: one run,
the tool's rules with short and full descriptions and help, and one result
per finding with a rule id, a message and a physical location relative to
``%SRCROOT%`` (the working directory).

The ``github`` format is GitHub Actions workflow commands, one line per
finding (``::warning file=...,line=...,col=...,title=GBF001::message``), which
a workflow step turns into annotations on the changed lines of a pull request.
"""

from __future__ import annotations

import ast
import json
import os
import re
import textwrap
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Optional
from urllib.parse import quote

from codemods.rules.base import Rule
from codemods.rules.registry import REGISTRY
from rewriter import __version__
from rewriter.engine.diffs import display_path
from rewriter.engine.results import Failed, FileResult

#: the pseudo-rule under which unused suppression comments are reported
UNUSED_IGNORE = "unused-ignore"
UNUSED_IGNORE_SUMMARY = "a `# gbfix: ignore` comment that suppresses nothing"

SARIF_VERSION = "2.1.0"
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
FORMATS = ("text", "json", "sarif", "github")


@dataclass(frozen=True)
class Diagnostic:
    """One finding as the user sees it; ``path`` is relative to the working directory."""

    path: str
    line: int
    col: int
    code: str
    message: str
    fix: str
    note: str = ""
    #: why the site runs under compile: the chain of calls from an entry
    reach: str = ""
    #: how strong the belief is that the site costs compiled work: recorded, entry, forward or none
    evidence: str = ""
    #: "break" (a site that makes Dynamo skip a frame), "advice" (where ``torch.compile`` is
    #: placed, GBF005-GBF007) or "suppression" (an unused ``# gbfix: ignore``)
    kind: str = "break"

    def text(self) -> str:
        message = f"{self.message}; {self.note}" if self.note else self.message
        tags = f" [evidence: {self.evidence}]" if self.evidence else ""
        if self.kind == "advice":
            tags += " [advice]"
        return f"{self.path}:{self.line}:{self.col}: {self.code} {message} [fix: {self.fix}]{tags}"


def finding_kind(code: str) -> str:
    """What a finding of rule ``code`` is: "break", "advice" (placement) or "suppression"."""
    if code not in REGISTRY:
        return "suppression"
    return "advice" if REGISTRY[code].ADVICE else "break"


def error_line(path: str, line: int, message: str) -> str:
    """``path[:line]: error: message``: one spelling for every command's file errors."""
    where = f"{path}:{line}" if line else path
    return f"{where}: error: {message}"


def plural(count: int, noun: str) -> str:
    """``1 file``, ``2 files``: a count with its noun in the right number."""
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


@dataclass(frozen=True)
class FileError:
    path: str
    line: int
    message: str

    def text(self) -> str:
        return error_line(self.path, self.line, self.message)


@dataclass
class ScanReport:
    diagnostics: list[Diagnostic] = field(default_factory=list)
    errors: list[FileError] = field(default_factory=list)

    def add(self, result: FileResult, unused_ignores: bool = False) -> None:
        """Take one file's record; unused suppressions only when asked for."""
        path = display_path(result.path)
        if isinstance(result, Failed):
            self.errors.append(FileError(path, result.line, result.message))
            return
        for f in result.findings:
            kind = finding_kind(f.code)
            self.diagnostics.append(
                Diagnostic(path, f.line, f.col, f.code, f.message, f.fix, f.note, f.reach, f.evidence, kind)
            )
        if unused_ignores:
            for s in result.unused_ignores:
                message = _unused_message(s.codes)
                self.diagnostics.append(
                    Diagnostic(path, s.line, s.col, UNUSED_IGNORE, message, "none", kind="suppression")
                )

    def counts(self) -> Counter[str]:
        """How many findings of each kind (:func:`finding_kind`) the report holds."""
        return Counter(d.kind for d in self.diagnostics)

    def sorted(self) -> list[Diagnostic]:
        return sorted(self.diagnostics, key=lambda d: (d.path, d.line, d.col, d.code))


def _unused_message(codes: frozenset[str]) -> str:
    if not codes:
        return "unused suppression comment `# gbfix: ignore`"
    comment = f"`# gbfix: ignore[{','.join(sorted(codes))}]`"
    unknown = sorted(c for c in codes if c not in REGISTRY)
    if unknown:
        return f"suppression comment {comment} names unknown rule code {', '.join(unknown)}"
    return f"unused suppression comment {comment}"


# -- rule descriptions ------------------------------------------------------------


def rule_name(code: str) -> str:
    return REGISTRY[code].NAME if code in REGISTRY else code


def doc_markdown(rule: type[Rule]) -> str:
    """The rule's docstring as Markdown: headings, prose, and code blocks.

    The docstring's headings stand at the left margin and their bodies are
    indented. A paragraph is shown as code when Python parses it and it is
    not plain prose, so no extra markup is needed in the docstrings.
    """
    out: list[str] = []
    for heading, body in _sections(rule.doc()):
        if heading:
            out.append(f"### {heading}")
        blocks: list[tuple[bool, str]] = []
        for paragraph in re.split(r"\n\s*\n", body.strip("\n")):
            if not paragraph.strip():
                continue
            is_code = _looks_like_code(paragraph)
            if blocks and blocks[-1][0] and is_code:
                blocks[-1] = (True, blocks[-1][1] + "\n\n" + paragraph)
            else:
                blocks.append((is_code, paragraph))
        for is_code, text in blocks:
            out.append(f"```python\n{text}\n```" if is_code else " ".join(text.split()))
    return "\n\n".join(out) + "\n"


def doc_section(rule: type[Rule], heading: str) -> str:
    """One section of the rule's docs as a single paragraph; empty when absent."""
    for name, body in _sections(rule.doc()):
        if name == heading:
            return " ".join(body.split())
    return ""


def _sections(doc: str) -> list[tuple[str, str]]:
    """(heading, dedented body) pairs; the title paragraph comes first, unheaded."""
    title, _, rest = doc.partition("\n\n")
    sections: list[tuple[str, list[str]]] = [("", [title])]
    for line in rest.splitlines():
        if _is_heading(line):
            sections.append((line.strip(), []))
        else:
            sections[-1][1].append(line)
    return [(h, textwrap.dedent("\n".join(body))) for h, body in sections]


def _is_heading(line: str) -> bool:
    # Headings stand at the left margin; a long or full-stopped line there is prose.
    return bool(line) and not line[0].isspace() and len(line) < 60 and not line.rstrip().endswith(".")


def _looks_like_code(paragraph: str) -> bool:
    try:
        tree = ast.parse(textwrap.dedent(paragraph))
    except SyntaxError:
        return False
    # A single bare name or constant is a word, not code.
    return not all(isinstance(s, ast.Expr) and isinstance(s.value, (ast.Name, ast.Constant)) for s in tree.body)


# -- formats -------------------------------------------------------------------------


def render_text(report: ScanReport) -> str:
    return "".join(d.text() + "\n" for d in report.sorted())


def render_json(report: ScanReport) -> str:
    counts = report.counts()
    document = {
        "tool": "gbfix",
        "version": __version__,
        "findings": [asdict(d) for d in report.sorted()],
        "errors": [asdict(e) for e in report.errors],
        "counts": {kind: counts.get(kind, 0) for kind in ("break", "advice", "suppression")},
    }
    return json.dumps(document, indent=2) + "\n"


def statistics(report: ScanReport) -> list[dict]:
    """Counts per rule, most frequent first, with how many have each fix safety."""
    counts = Counter(d.code for d in report.diagnostics)
    rows = []
    for code, count in sorted(counts.items(), key=lambda item: (-item[1], item[0])):
        fixes = Counter(d.fix for d in report.diagnostics if d.code == code)
        rows.append(
            {
                "code": code,
                "name": rule_name(code),
                "kind": finding_kind(code),
                "count": count,
                "fix": {k: fixes.get(k, 0) for k in ("safe", "unsafe", "none")},
            }
        )
    return rows


def render_statistics(report: ScanReport, fmt: str) -> str:
    rows = statistics(report)
    if fmt == "json":
        return json.dumps(rows, indent=2) + "\n"
    if not rows:
        return ""
    width = max(len(str(r["count"])) for r in rows)
    code_width = max(len(r["code"]) for r in rows)
    name_width = max(len(r["name"]) for r in rows)
    lines = []
    for r in rows:
        fixes = ", ".join(f"{n} {k}" for k, n in r["fix"].items() if n)
        lines.append(f"{r['count']:>{width}}  {r['code']:<{code_width}}  {r['name']:<{name_width}}  fix: {fixes}")
    return "\n".join(lines) + "\n"


def _uri(path: str, cwd: str) -> tuple[str, Optional[str]]:
    """A SARIF artifact URI, relative to %SRCROOT% when the file is under it."""
    if path.startswith("../") or os.path.isabs(path):
        return Path(os.path.abspath(os.path.join(cwd, path))).as_uri(), None
    return quote(path), "%SRCROOT%"


def _sarif_rule(code: str) -> dict:
    if code not in REGISTRY:
        summary = UNUSED_IGNORE_SUMMARY
        return {
            "id": code,
            "name": code,
            "shortDescription": {"text": summary},
            "fullDescription": {"text": summary},
            "help": {"text": "Remove the comment, or name only the rules it must suppress."},
            "defaultConfiguration": {"level": "note"},
        }
    rule = REGISTRY[code]
    return {
        "id": code,
        "name": rule.NAME,
        "shortDescription": {"text": rule.SUMMARY},
        "fullDescription": {"text": doc_section(rule, "What it finds") or rule.SUMMARY},
        "help": {"text": rule.doc(), "markdown": doc_markdown(rule)},
        "defaultConfiguration": {"level": "note" if rule.ADVICE else "warning"},
        "properties": {"tags": ["torch.compile", "placement" if rule.ADVICE else "graph-break"]},
    }


def _location(path: str, line: int, col: int, cwd: str) -> dict:
    uri, base = _uri(path, cwd)
    artifact = {"uri": uri}
    if base:
        artifact["uriBaseId"] = base
    region = {"startLine": max(line, 1)}
    if col:
        region["startColumn"] = col
    return {"physicalLocation": {"artifactLocation": artifact, "region": region}}


def render_sarif(report: ScanReport, cwd: str = ".") -> str:
    """One SARIF 2.1.0 log: every registered rule, one result per finding."""
    cwd = os.path.abspath(cwd)
    codes = list(REGISTRY)
    codes += sorted({d.code for d in report.diagnostics} - set(codes))
    index = {code: i for i, code in enumerate(codes)}
    results = [
        {
            "ruleId": d.code,
            "ruleIndex": index[d.code],
            "level": "warning" if d.kind == "break" else "note",
            "message": {"text": f"{d.message}; {d.note}" if d.note else d.message},
            "locations": [_location(d.path, d.line, d.col, cwd)],
            "properties": {
                "fix": d.fix,
                "kind": d.kind,
                **({"reach": d.reach} if d.reach else {}),
                **({"evidence": d.evidence} if d.evidence else {}),
            },
        }
        for d in report.sorted()
    ]
    notifications = [
        {
            "level": "error",
            "message": {"text": e.message},
            "locations": [_location(e.path, e.line, 0, cwd)],
        }
        for e in report.errors
    ]
    run = {
        "tool": {
            "driver": {
                "name": "gbfix",
                "version": __version__,
                "semanticVersion": __version__,
                "rules": [_sarif_rule(code) for code in codes],
            }
        },
        "originalUriBaseIds": {"%SRCROOT%": {"uri": Path(cwd).as_uri() + "/"}},
        "invocations": [{"executionSuccessful": not report.errors, "toolExecutionNotifications": notifications}],
        # libcst counts columns in characters, not UTF-16 units
        "columnKind": "unicodeCodePoints",
        "results": results,
    }
    log = {"$schema": SARIF_SCHEMA, "version": SARIF_VERSION, "runs": [run]}
    return json.dumps(log, indent=2) + "\n"


def _escape_data(text: str) -> str:
    """A workflow command's message: ``%`` and line breaks would end or corrupt it."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    """A workflow command's property value: also ``:`` and ``,``, which separate properties."""
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def workflow_command(level: str, message: str, **properties: object) -> str:
    """``::level key=value,...::message``; properties that are 0 or empty are left out."""
    pairs = ",".join(f"{key}={_escape_property(str(value))}" for key, value in properties.items() if value)
    return f"::{level} {pairs}::{_escape_data(message)}\n"


def render_github(report: ScanReport) -> str:
    """GitHub workflow annotations: findings as warnings (unused ignores as notices), file errors as errors."""
    out = []
    for d in report.sorted():
        level = "warning" if d.kind == "break" else "notice"
        message = f"{d.message}; {d.note}" if d.note else d.message
        out.append(
            workflow_command(level, f"{message} [fix: {d.fix}]", file=d.path, line=d.line, col=d.col, title=d.code)
        )
    for e in report.errors:
        out.append(workflow_command("error", e.message, file=e.path, line=e.line, title="gbfix"))
    return "".join(out)


def render(report: ScanReport, fmt: str, cwd: str = ".") -> str:
    if fmt == "json":
        return render_json(report)
    if fmt == "sarif":
        return render_sarif(report, cwd)
    if fmt == "github":
        return render_github(report)
    return render_text(report)
