"""Report formats: text lines, JSON, statistics, and SARIF 2.1.0 as code scanning reads it."""

from __future__ import annotations

import ast
import json
import os
import re

import pytest
from typer.testing import CliRunner

from codemods.rules.base import Finding
from codemods.rules.registry import REGISTRY
from rewriter.cli import app
from rewriter.engine.diffs import display_path
from rewriter.engine.report import (
    UNUSED_IGNORE,
    ScanReport,
    doc_markdown,
    plural,
    render_github,
    render_json,
    render_sarif,
    render_statistics,
    render_text,
    statistics,
)
from rewriter.engine.results import Failed, Unchanged
from rewriter.engine.suppressions import Suppression
from tests.golden import ROOT

LEVELS = {"none", "note", "warning", "error"}


# -- a structural check of the SARIF 2.1.0 schema's required fields -------------------


def need(obj: dict, key: str, kind: type, where: str):
    assert isinstance(obj, dict), f"{where} must be an object"
    assert key in obj, f"{where}.{key} is required"
    assert isinstance(obj[key], kind), f"{where}.{key} must be {kind.__name__}"
    return obj[key]


def check_message(obj: dict, where: str) -> None:
    assert need(obj, "text", str, where).strip(), f"{where}.text is empty"


def check_location(loc: dict, where: str) -> None:
    physical = need(loc, "physicalLocation", dict, where)
    artifact = need(physical, "artifactLocation", dict, f"{where}.physicalLocation")
    uri = need(artifact, "uri", str, f"{where}.physicalLocation.artifactLocation")
    assert "\\" not in uri and " " not in uri, f"{uri!r} is not a URI reference"
    if "uriBaseId" not in artifact:
        assert uri.startswith("file:///"), "an absolute URI when no base is named"
    else:
        assert not uri.startswith(("/", "../")), "relative to its base"
    region = need(physical, "region", dict, f"{where}.physicalLocation")
    assert need(region, "startLine", int, f"{where}.region") >= 1
    if "startColumn" in region:
        assert region["startColumn"] >= 1


def check_sarif(log: dict) -> None:
    """Every field SARIF 2.1.0 and GitHub code scanning require, with its type."""
    assert need(log, "version", str, "log") == "2.1.0"
    assert "sarif" in need(log, "$schema", str, "log")
    runs = need(log, "runs", list, "log")
    assert runs
    for r, run in enumerate(runs):
        driver = need(need(run, "tool", dict, f"runs[{r}]"), "driver", dict, f"runs[{r}].tool")
        assert need(driver, "name", str, "driver")
        rules = need(driver, "rules", list, "driver")
        ids = []
        for i, rule in enumerate(rules):
            where = f"driver.rules[{i}]"
            ids.append(need(rule, "id", str, where))
            check_message(need(rule, "shortDescription", dict, where), f"{where}.shortDescription")
            check_message(need(rule, "help", dict, where), f"{where}.help")
            if "fullDescription" in rule:
                check_message(rule["fullDescription"], f"{where}.fullDescription")
        assert len(ids) == len(set(ids)), "rule ids are unique"
        for i, result in enumerate(need(run, "results", list, f"runs[{r}]")):
            where = f"results[{i}]"
            rule_id = need(result, "ruleId", str, where)
            assert rule_id in ids, f"{where}.ruleId {rule_id!r} has no rule"
            if "ruleIndex" in result:
                assert ids[result["ruleIndex"]] == rule_id
            if "level" in result:
                assert result["level"] in LEVELS
            check_message(need(result, "message", dict, where), f"{where}.message")
            locations = need(result, "locations", list, where)
            assert locations
            for loc in locations:
                check_location(loc, f"{where}.locations")
        for invocation in run.get("invocations", []):
            need(invocation, "executionSuccessful", bool, "invocation")
            for note in invocation.get("toolExecutionNotifications", []):
                check_message(need(note, "message", dict, "notification"), "notification.message")
        for base in run.get("originalUriBaseIds", {}).values():
            assert need(base, "uri", str, "originalUriBaseIds").endswith("/")
        if "columnKind" in run:
            assert run["columnKind"] in ("utf16CodeUnits", "unicodeCodePoints")


def test_the_checker_rejects_what_code_scanning_rejects():
    good = json.loads(render_sarif(sample_report(), cwd=ROOT))
    check_sarif(good)
    for breaks in (
        lambda log: log.pop("version"),
        lambda log: log["runs"][0]["tool"]["driver"].pop("name"),
        lambda log: log["runs"][0]["tool"]["driver"]["rules"][0].pop("help"),
        lambda log: log["runs"][0]["results"][0]["message"].pop("text"),
        lambda log: log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"].pop("startLine"),
        lambda log: log["runs"][0]["results"][0].update(ruleId="GBF999"),
    ):
        bad = json.loads(json.dumps(good))
        breaks(bad)
        with pytest.raises(AssertionError):
            check_sarif(bad)


# -- a report built from batch records ---------------------------------------------------


def sample_report(unused: bool = True) -> ScanReport:
    code = next(iter(REGISTRY))
    report = ScanReport()
    report.add(
        Unchanged(
            os.path.join(ROOT, "pkg", "b.py"),
            (
                Finding(code, 9, 5, "graph break in a loop", "safe"),
                Finding(code, 3, 1, "another", "none", note="not unrolled: reasons"),
            ),
            True,
            (Suppression(4, 7, frozenset()),),
        ),
        unused_ignores=unused,
    )
    report.add(Unchanged(os.path.join(ROOT, "a.py"), (Finding(code, 2, 3, "first", "unsafe"),), True))
    report.add(Failed(os.path.join(ROOT, "bad.py"), "syntax error: invalid syntax", 3))
    return report


@pytest.fixture(autouse=True)
def at_root(monkeypatch):
    monkeypatch.chdir(ROOT)


def test_text_lines_are_sorted_and_carry_fix_safety():
    code = next(iter(REGISTRY))
    assert render_text(sample_report()).splitlines() == [
        f"a.py:2:3: {code} first [fix: unsafe]",
        f"pkg/b.py:3:1: {code} another; not unrolled: reasons [fix: none]",
        f"pkg/b.py:4:7: {UNUSED_IGNORE} unused suppression comment `# gbfix: ignore` [fix: none]",
        f"pkg/b.py:9:5: {code} graph break in a loop [fix: safe]",
    ]
    assert UNUSED_IGNORE not in render_text(sample_report(unused=False))


def test_json_holds_findings_and_errors():
    doc = json.loads(render_json(sample_report()))
    assert [(f["path"], f["line"], f["fix"]) for f in doc["findings"]] == [
        ("a.py", 2, "unsafe"),
        ("pkg/b.py", 3, "none"),
        ("pkg/b.py", 4, "none"),
        ("pkg/b.py", 9, "safe"),
    ]
    assert doc["errors"] == [{"path": "bad.py", "line": 3, "message": "syntax error: invalid syntax"}]


def test_github_annotations_are_workflow_commands():
    code = next(iter(REGISTRY))
    assert render_github(sample_report()).splitlines() == [
        f"::warning file=a.py,line=2,col=3,title={code}::first [fix: unsafe]",
        f"::warning file=pkg/b.py,line=3,col=1,title={code}::another; not unrolled: reasons [fix: none]",
        f"::notice file=pkg/b.py,line=4,col=7,title={UNUSED_IGNORE}::unused suppression comment "
        "`# gbfix: ignore` [fix: none]",
        f"::warning file=pkg/b.py,line=9,col=5,title={code}::graph break in a loop [fix: safe]",
        "::error file=bad.py,line=3,title=gbfix::syntax error: invalid syntax",
    ]


def test_github_annotations_escape_what_would_end_them():
    report = ScanReport()
    message = "100% of it\nnext line"
    report.add(Unchanged(os.path.join(ROOT, "a,b:c.py"), (Finding(next(iter(REGISTRY)), 1, 0, message, "none"),), True))
    (line,) = render_github(report).splitlines()
    # No column when none is known; `,` and `:` would split the properties, a newline would end the command.
    assert line.startswith("::warning file=a%2Cb%3Ac.py,line=1,title=")
    assert line.endswith("::100%25 of it%0Anext line [fix: none]")


def test_plural():
    assert [plural(n, "file") for n in (0, 1, 2)] == ["0 files", "1 file", "2 files"]


def test_statistics_count_per_rule():
    code = next(iter(REGISTRY))
    rows = statistics(sample_report())
    assert rows[0] == {
        "code": code,
        "name": REGISTRY[code].NAME,
        "kind": "break",
        "count": 3,
        "fix": {"safe": 1, "unsafe": 1, "none": 1},
    }
    assert rows[1]["code"] == UNUSED_IGNORE and rows[1]["count"] == 1 and rows[1]["kind"] == "suppression"
    text = render_statistics(sample_report(), "text").splitlines()
    assert re.match(rf"3  {code}\s+{REGISTRY[code].NAME}\s+fix: 1 safe, 1 unsafe, 1 none$", text[0])
    assert json.loads(render_statistics(sample_report(), "json")) == rows


def test_sarif_describes_every_rule_and_locates_every_finding():
    log = json.loads(render_sarif(sample_report(), cwd=ROOT))
    check_sarif(log)
    run = log["runs"][0]
    rules = {r["id"]: r for r in run["tool"]["driver"]["rules"]}
    for code, rule in REGISTRY.items():
        assert rules[code]["shortDescription"]["text"] == rule.SUMMARY
        assert rules[code]["help"]["text"] == rule.doc()
    assert UNUSED_IGNORE in rules
    located = [
        (
            r["ruleId"],
            r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
            r["locations"][0]["physicalLocation"]["region"]["startLine"],
        )
        for r in run["results"]
    ]
    code = next(iter(REGISTRY))
    assert located == [(code, "a.py", 2), (code, "pkg/b.py", 3), (UNUSED_IGNORE, "pkg/b.py", 4), (code, "pkg/b.py", 9)]
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == f"file://{ROOT}/"
    assert run["invocations"][0]["executionSuccessful"] is False
    assert "syntax error" in run["invocations"][0]["toolExecutionNotifications"][0]["message"]["text"]


def test_sarif_uri_outside_the_working_directory_is_absolute(tmp_path):
    outside = tmp_path / "dir with space" / "x.py"
    report = ScanReport()
    report.add(Unchanged(str(outside), (Finding(next(iter(REGISTRY)), 1, 1, "m", "safe"),), True))
    log = json.loads(render_sarif(report, cwd=ROOT))
    check_sarif(log)
    artifact = log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
    assert artifact["uri"] == outside.as_uri() and "uriBaseId" not in artifact


def test_empty_report_is_valid_sarif():
    log = json.loads(render_sarif(ScanReport(), cwd=ROOT))
    check_sarif(log)
    assert log["runs"][0]["results"] == []
    assert log["runs"][0]["invocations"][0]["executionSuccessful"] is True


@pytest.mark.parametrize("code", list(REGISTRY))
def test_rule_markdown_keeps_headings_and_runnable_code(code):
    text = doc_markdown(REGISTRY[code])
    for heading in ("What it finds", "Why it skips the frame", "Example", "Rewritten", "Fix safety"):
        assert f"### {heading}\n" in text
    blocks = re.findall(r"```python\n(.*?)\n```", text, re.S)
    # a rule that only reports has no rewritten code to show
    assert len(blocks) >= (1 if REGISTRY[code].REPORTS_ONLY else 2)
    for block in blocks:
        ast.parse(block)
    # the documented example is shown as code, verbatim
    example = REGISTRY[code].doc().split("\nExample\n", 1)[1].split("\nRewritten\n", 1)[0]
    assert ast.dump(ast.parse(blocks[0])) == ast.dump(ast.parse(__import__("textwrap").dedent(example)))


def test_scan_examples_as_sarif_end_to_end(tmp_path):
    out = tmp_path / "gbfix.sarif"
    result = CliRunner().invoke(app, ["scan", "examples", "--format", "sarif", "--output", str(out)])
    assert result.exit_code == 1, result.stderr
    assert result.stdout == ""
    log = json.loads(out.read_text())
    check_sarif(log)
    located = [
        "{}:{}:{}: {}".format(
            r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
            r["locations"][0]["physicalLocation"]["region"]["startLine"],
            r["locations"][0]["physicalLocation"]["region"]["startColumn"],
            r["ruleId"],
        )
        for r in log["runs"][0]["results"]
    ]
    text = CliRunner().invoke(app, ["scan", "examples"]).stdout.splitlines()
    assert located and located == [line.split(" ", 2)[0] + " " + line.split(" ", 2)[1] for line in text]
    assert {loc.split(":")[0] for loc in located} >= {
        "examples/sampler.py",
        "examples/stats.py",
        "examples/transformer_block.py",
    }


# -- gbfix rules: the same docs on the command line ------------------------------------------


def test_rules_lists_every_registered_rule():
    result = CliRunner().invoke(app, ["rules"])
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert len(lines) == len(REGISTRY)
    # listed by code, whatever order they run in
    for line, (code, rule) in zip(lines, sorted(REGISTRY.items()), strict=True):
        assert line.split()[:2] == [code, rule.NAME] and line.endswith(rule.SUMMARY)


@pytest.mark.parametrize("code", list(REGISTRY))
def test_rules_code_prints_the_rule_docs(code):
    result = CliRunner().invoke(app, ["rules", code.lower()])
    assert result.exit_code == 0
    rule = REGISTRY[code]
    assert result.stdout == f"{code} ({rule.NAME}): {rule.SUMMARY}\n\n{rule.doc()}\n"
    for heading in ("What it finds", "Why it skips the frame", "Example", "Rewritten", "Fix safety"):
        assert f"\n{heading}\n" in result.stdout


def test_rules_json_and_markdown_and_errors():
    doc = json.loads(CliRunner().invoke(app, ["rules", "--format", "json"]).stdout)
    assert [r["code"] for r in doc] == sorted(REGISTRY)
    for record in doc:
        rule = REGISTRY[record["code"]]
        assert [(e["before"], e["after"]) for e in record["examples"]] == [(e.before, e.after) for e in rule.EXAMPLES]
    markdown = CliRunner().invoke(app, ["rules", "ALL", "--format", "markdown"]).stdout
    assert markdown.count("### Fix safety") == len(REGISTRY)
    bad = CliRunner().invoke(app, ["rules", "GBF999"])
    assert bad.exit_code == 2 and "unknown rule code 'GBF999'" in bad.stderr


@pytest.mark.parametrize(
    "path", ["a/b.py", "./a/b.py", "a/../b.py", "../x/y.py", "a/./b/../c.py", ".", "..", "a//b.py", "/tmp/x.py"]
)
def test_a_path_is_shown_as_relpath_shows_it(path):
    """The short way for relative paths inside the working directory gives what relpath gives."""
    expected = os.path.relpath(os.path.abspath(path), os.path.abspath(".")).replace(os.sep, "/")
    assert display_path(path) == expected
