"""`gbfix explain`: which rule fixes each recorded break, and one real run end to end."""

from __future__ import annotations

import ast
import dataclasses
import json
import os
import shutil

import pytest
from typer.testing import CliRunner

from rewriter.cli import app
from rewriter.cli import explain as cmd_explain
from rewriter.engine.config import Settings
from rewriter.runtime.explain import (
    Explanation,
    enclosing,
    explain_file,
    explain_sites,
    render,
    verdict,
)
from rewriter.runtime.trace import Frame, RecordedBreak, read_trace, site_from_record
from tests.golden import ROOT

TRACES = os.path.join(ROOT, "tests", "fixtures", "traces")
PROJECT = os.path.join(TRACES, "project")
OTHER = "/home/dev/gbfix"


def local(site: RecordedBreak) -> RecordedBreak:
    """A site of the fixture trace with this checkout's paths instead of the recording machine's."""

    def move(path: str) -> str:
        return ROOT + path[len(OTHER) :] if path.startswith(OTHER + "/") else path

    stack = tuple(dataclasses.replace(f, file=move(f.file)) for f in site.user_stack)
    return dataclasses.replace(site, file=move(site.file), user_stack=stack)


@pytest.fixture(scope="module")
def explained():
    sites = [local(s) for s in read_trace(os.path.join(TRACES, "torch_trace"), all_logs=True)]
    return {
        (os.path.relpath(s.file, ROOT) if s.file.startswith(ROOT) else s.file, s.line, s.skipped): e
        for s, e in zip(sites, explain_sites(sites), strict=False)
    }


@pytest.mark.parametrize(
    ("key", "codes", "line"),
    [
        # the recorded print runs compiled: GBF010 names its (unsafe) guard too
        (("golden/GBF001/plain.in.py", 9, True), ("GBF001", "GBF010"), 7),
        (("golden/GBF003/reference_outline.in.py", 17, True), ("GBF003",), 15),
        (("golden/GBF004/reference.in.py", 9, True), ("GBF004",), 7),
        (("tests/fixtures/traces/project/src/model.py", 16, True), ("GBF001",), 15),
    ],
)
def test_each_recorded_break_names_the_rule_that_fixes_it(explained, key, codes, line):
    item = explained[key]
    assert item.verdict.codes == codes and item.verdict.line == line, item.verdict.text
    assert item.verdict.fixable and "(safe fix)" in item.verdict.text


def test_a_break_in_an_installed_package_is_fixed_at_the_call_in_the_project(explained):
    audit = "/opt/conda/lib/python3.11/site-packages/fakeaudit/__init__.py"
    skip = explained[(audit, 11, True)]
    assert skip.anchor == Frame(os.path.join(PROJECT, "src", "model.py"), 9, "step")
    assert skip.verdict.codes == ("GBF001",) and skip.verdict.line == 8
    resumed = explained[(audit, 11, False)]
    assert resumed.anchor is None and resumed.verdict.text == "no rule needed: Dynamo resumed after this break"


SOURCE = """\
def f(x, items):
    y = g(x)
    for item in items:
        with ctx():
            try:
                y = h(y)
            except ValueError:
                pass
    while y.item() > 0:
        y = y - 1
    return y  # gbfix: ignore
"""


def test_enclosing_lists_loops_withs_and_trys_outermost_first():
    tree = ast.parse(SOURCE)
    assert enclosing(tree, 6) == ("f", [_h("loop", 3), _h("with", 4), _h("try", 5)])
    assert enclosing(tree, 8) == ("f", [_h("loop", 3), _h("with", 4)])  # an except clause is not the try
    assert enclosing(tree, 9) == ("f", [_h("loop", 9)])  # the while condition runs every trip
    assert enclosing(tree, 2) == ("f", [])


def _h(kind: str, line: int):
    from rewriter.runtime.explain import _Holder

    return _Holder(kind, line)


def _site(line: int, skipped: bool = True) -> RecordedBreak:
    return RecordedBreak(
        "/p/m.py",
        line,
        "f",
        "Call to something",
        skipped=skipped,
        user_stack=(Frame("/p/m.py", line, "f"),),
        compiled_index=0,
    )


@pytest.mark.parametrize(
    ("line", "skipped", "settings", "text"),
    [
        (2, False, Settings(), "no rule needed: Dynamo resumed after this break"),
        (2, True, Settings(), "no rule: the break is not inside a loop, `with` or `try` of `f`"),
        (11, True, Settings(), "no rule: the break is not inside a loop, `with` or `try` of `f`"),
        (10, True, Settings(select=("GBF003",)), "no rule: GBF009/GBF001/GBF002 not selected (the loop at line 9)"),
        (10, True, Settings(), "no rule: GBF009/GBF001/GBF002 report nothing for the loop at line 9"),
    ],
)
def test_no_rule_says_why(line, skipped, settings, text):
    site = _site(line, skipped)
    assert verdict(site, site.user_stack[0], SOURCE, (), settings).text == text


def test_a_suppressed_break_says_so():
    source = "def f(xs):\n    for x in xs:\n        lib.call(x)  # gbfix: ignore[GBF002]\n"
    site = _site(3)
    assert verdict(site, site.user_stack[0], source, (), Settings()).text == (
        "no rule: suppressed by `# gbfix: ignore` on line 3"
    )


def test_explain_command_prints_and_exits_1_on_skipped_frames(monkeypatch, explained):
    items = [explained[("golden/GBF001/plain.in.py", 9, True)]]
    fake = Explanation("plain.in.py", "plain:step", "plain:example_inputs", "cpu", "eager", items)
    monkeypatch.setattr(cmd_explain, "explain_file", lambda *args, **kwargs: fake)
    result = CliRunner().invoke(app, ["explain", "plain.in.py", "--entry", "a:b", "--inputs", "a:c"])
    assert result.exit_code == 1, result.stderr
    assert (
        "GB0059 Failed to trace builtin operator: Dynamo does not know how to trace builtin operator" in result.stdout
    )
    assert "skipped the frame `step` (GB7000 graph break in loop)" in result.stdout
    assert "fix: GBF001 unroll-loop at golden/GBF001/plain.in.py:7 (safe fix)" in result.stdout
    data = json.loads(
        CliRunner().invoke(app, ["explain", "x.py", "--entry", "a:b", "--inputs", "a:c", "--json"]).stdout
    )
    (only,) = data["breaks"]
    rules = ["GBF001", "GBF010"]
    assert (only["gb_code"], only["skip_code"], only["fix"]["rules"]) == ("GB0059", "GB7000", rules)
    assert only["doc_url"].endswith("/gb/gb0059.html") and data["skipped_frames"] == ["step"]


def test_explain_command_reports_a_bad_entry_without_running():
    result = CliRunner().invoke(app, ["explain", "m.py", "--entry", "nocolon", "--inputs", "m:f"])
    assert result.exit_code == 2
    assert "--entry 'nocolon': expected MODULE:ATTR" in result.stderr


@pytest.mark.torch_run
def test_explain_runs_the_entry_and_matches_the_in_process_records(tmp_path, monkeypatch):
    """One real run: a loop around an unknown third-party call, under the eager backend."""
    shutil.copytree(os.path.join(PROJECT, "src"), tmp_path / "src")
    monkeypatch.setenv("PYTHONPATH", os.path.join(PROJECT, "site-packages"))
    monkeypatch.chdir(tmp_path / "src")
    e = explain_file("model.py", "model:step", "model:example_inputs", device="cpu")
    assert e.stats is not None and e.stats.frames_skipped == 1 and not e.compile_error
    skip, resumed = e.items
    assert (skip.site.line, skip.site.gb_code, skip.site.skip_code, skip.site.frame) == (11, "GB0025", "GB7000", "step")
    assert skip.anchor is not None and (os.path.basename(skip.anchor.file), skip.anchor.line) == ("model.py", 9)
    assert skip.verdict.codes == ("GBF001",) and skip.verdict.line == 8
    assert not resumed.site.skipped and resumed.verdict.text.startswith("no rule needed")
    # the trace gbfix read back and the records measured in the run agree
    records = [site_from_record(r) for r in e.stats.breaks]
    assert {(s.file, s.line, s.gb_code, s.skipped, s.frame) for s in records} == {
        (i.site.file, i.site.line, i.site.gb_code, i.site.skipped, i.site.frame) for i in e.items
    }
    text = render(e)
    assert "1 frame skipped (step), 2 graph breaks" in text
    # the whole frame is skipped: every op of the call runs eagerly
    assert e.stats.coverage == 0.0 and e.stats.ops_eager > 0
    assert f"graph coverage 0% ({e.stats.ops_eager} of {e.stats.ops_eager} ops run eagerly)" in text
    assert "in your code: model.py:9 in step" in text
    assert "fix: GBF001 unroll-loop at model.py:8 (safe fix)" in text
    assert json.loads(json.dumps(e.to_dict()))["breaks"][0]["fix_site"]["line"] == 9
