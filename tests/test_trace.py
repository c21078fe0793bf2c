"""Reading recorded runs (TORCH_TRACE, TORCH_LOGS=graph_breaks) and trace-guided scan/apply.

The fixtures under tests/fixtures/traces/ are real torch 2.13 captures made
by scripts/make_trace_fixtures.py, with the paths of another machine
(/home/dev/gbfix for this checkout, /opt/conda/... for installed packages).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from rewriter.engine.config import Settings
from rewriter.engine.pipeline import follow_lines, transform_source
from rewriter.runtime.recorded import (
    SuffixIndex,
    is_third_party,
    load_sites,
    place_sites,
    statement_starts,
    third_party_callables,
)
from rewriter.runtime.trace import (
    Frame,
    RecordedBreak,
    TraceError,
    code_for,
    doc_url,
    parse_log_text,
    read_log,
    read_trace,
    site_from_record,
)
from tests.golden import ROOT

TRACES = os.path.join(ROOT, "tests", "fixtures", "traces")
TRACE_DIR = os.path.join(TRACES, "torch_trace")
LOG = os.path.join(TRACES, "graph_breaks.log")
PROJECT = os.path.join(TRACES, "project")
OTHER = "/home/dev/gbfix"
MODEL = f"{OTHER}/tests/fixtures/traces/project/src/model.py"
AUDIT = "/opt/conda/lib/python3.11/site-packages/fakeaudit/__init__.py"


def summary(sites: list[RecordedBreak]) -> set[tuple]:
    return {(s.file, s.line, s.gb_code, s.skipped, s.skip_code, s.frame) for s in sites}


@pytest.fixture
def trace_dir(tmp_path):
    """The fixture logs with the project's log the newest (git does not keep modification times)."""
    target = tmp_path / "trace"
    shutil.copytree(TRACE_DIR, target)
    os.utime(target / "dedicated_log_torch_trace_golden.log", (1_000_000, 1_000_000))
    os.utime(target / "dedicated_log_torch_trace_project.log", (2_000_000, 2_000_000))
    return str(target)


PROJECT_SITES = {
    (AUDIT, 11, "GB0025", True, "GB7000", "step"),
    (AUDIT, 11, "GB0025", False, "", "audit"),
    (MODEL, 16, "GB0170", True, "GB7000", "gate"),
}
GOLDEN_SITES = {
    (f"{OTHER}/golden/GBF001/plain.in.py", 9, "GB0059", True, "GB7000", "step"),
    (f"{OTHER}/golden/GBF003/reference_outline.in.py", 17, "GB0025", True, "GB0066", "fn"),
    # a break inside `try` has no gb code of its own
    (f"{OTHER}/golden/GBF004/reference.in.py", 9, "GB0025", True, "", "fn"),
}


def test_trace_reads_the_newest_log_like_tlparse_latest(trace_dir):
    assert summary(read_trace(trace_dir)) == PROJECT_SITES


def test_trace_all_logs_reads_every_log(trace_dir):
    assert summary(read_trace(trace_dir, all_logs=True)) == PROJECT_SITES | GOLDEN_SITES


def test_trace_names_the_compiled_frame_not_its_callers(trace_dir):
    sites = read_trace(trace_dir)
    skip = next(s for s in sites if s.skipped and s.file == AUDIT)
    # The fixture script's own frames called the compiled code: they are not traced.
    assert [f.function for f in skip.user_stack] == ["<module>", "child", "step", "audit"]
    assert [(f.function, f.line) for f in skip.traced_stack] == [("step", 9), ("audit", 11)]
    assert skip.reason == "Call to `torch._dynamo.graph_break()`"
    assert skip.explanation == "User-inserted graph break. Message: None"
    assert skip.skip_reason == "graph break in loop"
    resumed = next(s for s in sites if not s.skipped)
    assert [f.function for f in resumed.traced_stack] == ["audit"]


def test_text_log_gives_the_same_sites_as_the_trace(trace_dir):
    assert summary(read_log(LOG)) == {s for s in PROJECT_SITES if s[3]} | {(AUDIT, 11, "GB0025", False, "", "")}
    skip = next(s for s in read_log(LOG) if s.skipped and s.file == AUDIT)
    # "frame skipped: step (...)" in the log says which frame was compiled
    assert [f.function for f in skip.traced_stack] == ["step", "audit"]


def test_text_log_without_prefixes_is_read_too():
    with open(LOG, encoding="utf-8") as handle:
        raw = "\n".join(line.split("[__graph_breaks] ", 1)[-1] for line in handle.read().splitlines())
    assert summary(parse_log_text(raw)) == summary(read_log(LOG))


def test_log_record_without_a_frame_hint_leaves_the_boundary_unknown():
    text = (
        "Graph break in user code at /x/lib.py:3\n"
        "Graph Break Reason: Encountered graph break when attempting to trace CALL: a function call:\n"
        "\n"
        "Call to `torch._dynamo.graph_break()`\n"
        "  Explanation: User-inserted graph break. Message: None\n"
        "\n"
        "User code traceback:\n"
        '  File "/x/train.py", line 20, in train\n'
        "    model(x)\n"
        '  File "/x/model.py", line 7, in forward\n'
        "    return lib.helper(x)\n"
        '  File "/x/lib.py", line 3, in helper\n'
        "    torch._dynamo.graph_break()\n"
    )
    (site,) = parse_log_text(text)
    assert site.compiled_index is None and not site.skipped
    assert site.gb_code == "GB0025"  # from the registry, the log has no link
    # unknown boundary: the innermost frame in a scanned file, never the caller of the compiled code
    placed = place_sites([site], ["/y/train.py", "/y/model.py"], read=lambda p: None)
    assert [(p.path, p.line) for p in placed.placed] == [("/y/model.py", 7)]


def test_errors_name_the_path(tmp_path):
    with pytest.raises(TraceError, match="no TORCH_TRACE logs"):
        read_trace(str(tmp_path))
    with pytest.raises(TraceError, match="no such file"):
        read_trace(str(tmp_path / "missing"))
    empty = tmp_path / "empty.log"
    empty.write_text("hello\n")
    with pytest.raises(TraceError, match="no graph breaks"):
        read_log(str(empty))
    with pytest.raises(TraceError, match="--all-logs needs --trace"):
        load_sites(None, True, None)


def test_gb_codes_come_from_the_installed_registry():
    assert code_for("graph break in loop") == "GB7000"
    assert code_for("Data-dependent branching") == "GB0170"
    assert code_for("no such break") == ""
    assert doc_url("GB0059").endswith("/gb/gb0059.html")


def test_site_from_an_in_process_break_record():
    record = {
        "gb_type": "graph break in loop",
        "reason": "Call to `torch._dynamo.graph_break()`",
        "filename": "/p/lib.py",
        "lineno": 11,
        "function": "audit",
        "partial_skip": False,
        "gb_code": "GB0025",
        "user_stack": [["/p/model.py", 9, "step"], ["/p/lib.py", 11, "audit"]],
        "frame_function": "torch_dynamo_resume_in_step_at_7",
        "whole_skip": True,
    }
    site = site_from_record(record)
    assert (site.skipped, site.skip_code, site.frame, site.resumed_at) == (True, "GB7000", "step", 7)
    assert site.traced_stack[0] == Frame("/p/model.py", 9, "step")


# --- placing sites in the scanned files ------------------------------------------------------


def test_suffix_matching_takes_the_longest_common_suffix():
    index = SuffixIndex(["/repo/a/model.py", "/repo/b/model.py", "/repo/src/pkg/util.py"])
    assert index.match("/other/machine/b/model.py") == ("/repo/b/model.py", "")
    path, why = index.match("/other/model.py")
    assert path is None and "2 scanned files" in why
    assert index.match("/x/pkg/util.py")[0] == "/repo/src/pkg/util.py"
    assert index.match("/x/nothing.py")[0] is None


def test_installed_packages_match_only_a_checkout_of_the_package():
    index = SuffixIndex(["/repo/model.py", "/repo/vendor/transformers/models/bert/modeling_bert.py"])
    assert index.match("/venv/lib/site-packages/pkg/model.py")[0] is None
    found = index.match("/venv/lib/site-packages/transformers/models/bert/modeling_bert.py")[0]
    assert found == "/repo/vendor/transformers/models/bert/modeling_bert.py"
    assert is_third_party(AUDIT) and not is_third_party(MODEL)


def test_statement_starts_moves_lines_to_their_statement():
    text = (
        "def f(x):\n    y = g(\n        h(x),\n    )\n    if (x.sum()\n            > 0):\n        y = 1\n    return y\n"
    )
    assert statement_starts(text, [3, 6, 7, 99]) == {3: 2, 6: 5, 7: 7, 99: 99}


def _copy_project(tmp_path) -> str:
    root = tmp_path / "proj"
    shutil.copytree(os.path.join(PROJECT, "src"), root / "src")
    (root / "scripts").mkdir()
    shutil.copy(os.path.join(ROOT, "scripts", "make_trace_fixtures.py"), root / "scripts")
    return str(root)


def test_sites_go_to_the_first_scanned_frame_from_the_compiled_one(tmp_path, trace_dir):
    root = _copy_project(tmp_path)
    model = os.path.join(root, "src", "model.py")
    script = os.path.join(root, "scripts", "make_trace_fixtures.py")
    placed = place_sites(read_trace(trace_dir), [model, script])
    # the third-party break goes to the project's call into it; the data-dependent `if` to its line;
    # the fixture script only called the compiled code and gets nothing
    assert placed.recorded_breaks() == {model: frozenset({9, 16})}
    assert [(s.frame, why) for s, why in placed.unmatched] == [("audit", "no scanned file has this name")]


# --- the recorded lines through the engine ---------------------------------------------------


def test_recorded_lines_follow_their_statements_across_rules(tmp_path):
    text = (
        "import lib\n\n\n"
        "def a(x):\n    for i in range(3):\n        x = lib.audit(x) + i\n    return x\n\n\n"
        "class CM:\n    def __enter__(self):\n        lib.entered(self)\n        return self\n\n"
        "    def __exit__(self, *exc):\n        return False\n\n\n"
        "def b(x):\n    with CM():\n        x = x + 1\n        lib.audit(x)\n    return x * 2\n\n\n"
        "def c(x, n):\n    while n < 3:\n        n += 1\n        x = lib.audit(x)\n    return x\n"
    )
    path = str(tmp_path / "m.py")
    lines = frozenset({6, 22, 29})
    outcome = transform_source(text, path, Settings(recorded_breaks={path: lines}))
    # GBF001 changes the tree first; GBF003 and GBF002 still find their recorded breaks
    assert sorted({f.code for f in outcome.findings if f.applied}) == ["GBF001", "GBF002", "GBF003"]
    moved = follow_lines(text, outcome.new_text, lines)
    assert moved == {7, 29, 42}
    new_lines = outcome.new_text.splitlines()
    assert [new_lines[n - 1].strip() for n in sorted(moved)] == [
        "x = lib.audit(x) + i",
        "lib.audit(x)",
        "x = lib.audit(x)",
    ]


# --- scan and apply with --trace / --log -------------------------------------------------------


def gbfix(*args: str, cwd: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "rewriter", *args], cwd=cwd, capture_output=True, text=True)


@pytest.mark.cli
def test_trace_guided_apply_fixes_what_static_mode_cannot_see(tmp_path, trace_dir):
    root = _copy_project(tmp_path)
    static = gbfix("apply", "src", "--dry-run", cwd=root)
    assert static.returncode == 0 and static.stdout == "", static.stderr
    guided = gbfix("apply", "src", "--trace", trace_dir, "--dry-run", cwd=root)
    assert guided.returncode == 1, guided.stderr
    assert "-    for i in range(3):\n+\n+    def _gbfix_inner_1(i):" in guided.stdout
    assert "-    for _ in range(2):\n+\n+    def _gbfix_inner_2(_):" in guided.stdout
    # the third-party frame Dynamo compiled on its own has no place in the project: one line says so
    (note,) = [line for line in guided.stderr.splitlines() if ": not placed: " in line]
    assert note.startswith(f"gbfix: {AUDIT}:11 in audit: GB0025") and "(resumed)" in note
    assert "3 graph breaks, 2 placed in 1 scanned file, 1 not placed" in guided.stderr
    written = gbfix("apply", "src", "--log", LOG, cwd=root)
    assert written.returncode == 0, written.stderr
    with open(os.path.join(root, "src", "model.py"), encoding="utf-8") as handle:
        assert handle.read().count("def _gbfix_inner_") == 2


@pytest.mark.cli
def test_trace_guided_scan_reports_and_bad_traces_exit_2(tmp_path, trace_dir):
    root = _copy_project(tmp_path)
    found = gbfix("scan", "src", "--trace", trace_dir, "--all-logs", cwd=root)
    assert found.returncode == 1, found.stderr
    assert found.stdout.splitlines() == [
        "src/model.py:8:5: GBF001 graph break inside a loop (recorded as a graph break by a run, line 9) "
        "makes Dynamo skip `step` and its 4 inline tensor ops [fix: safe] [evidence: recorded]",
        # the run's data-dependent branch also says what it read: a tensor's truth
        "src/model.py:15:5: GBF001 graph break inside a loop (a branch on a tensor's values (data-dependent "
        "control flow), line 16) makes Dynamo skip `gate` and its 5 inline tensor ops [fix: safe] [evidence: recorded]",
    ]
    # --all-logs also read the golden cases: their files are not scanned here
    assert found.stderr.count("not placed: no scanned file has this name") == 4
    bad = gbfix("scan", "src", "--trace", str(tmp_path / "nowhere"), cwd=root)
    assert bad.returncode == 2 and "nowhere: no such file or directory" in bad.stderr


@pytest.mark.cli
def test_a_recorded_break_in_an_installed_package_is_evidence_for_gbf007(tmp_path, trace_dir):
    src = tmp_path / "src"
    src.mkdir()
    (src / "strict.py").write_text(
        "import torch\nfrom fakeaudit import audit\n\n\n"
        "@torch._dynamo.error_on_graph_break(True)\ndef infer(x):\n    return audit(x) + 1\n"
    )
    assert third_party_callables(read_trace(trace_dir)) == {"fakeaudit.audit"}
    # the package is not installed here, so only the recorded run knows that it breaks
    assert gbfix("apply", "src", "--dry-run", cwd=str(tmp_path)).stdout == ""
    guided = gbfix("apply", "src", "--trace", trace_dir, "--dry-run", cwd=str(tmp_path))
    assert guided.returncode == 1, guided.stderr
    assert "+audit = torch._dynamo.error_on_graph_break(False)(audit)" in guided.stdout


CALLER = """import torch
from block import Block


class Model(torch.nn.Module):
    def forward(self, x):
        x = x * 2
        for block in self.blocks:
            x = block(x) + 1
        return x.relu()
"""
CALLEE = """import torch


def audit(x):
    print(x.sum())
    return x
"""


def test_a_break_deep_in_a_callee_is_placed_at_every_scanned_frame_of_its_stack(tmp_path):
    """Dynamo skips the caller whose loop inlined the breaking callee: its loop gets the fact too."""
    # the run used the installed package; the scanned tree is a copy of it
    (tmp_path / "proj").mkdir()
    model, block = tmp_path / "proj" / "model.py", tmp_path / "proj" / "block.py"
    model.write_text(CALLER)
    block.write_text(CALLEE)
    stack = (
        Frame("/train.py", 30, "main"),  # the training loop that called the compiled code
        Frame("/site-packages/proj/model.py", 9, "forward"),
        Frame("/site-packages/proj/block.py", 5, "audit"),
    )
    site = RecordedBreak(
        "/site-packages/proj/block.py",
        5,
        "audit",
        "builtin print",
        skipped=True,
        frame="forward",
        user_stack=stack,
        compiled_index=1,
    )
    placed = place_sites([site], [str(model), str(block), str(tmp_path / "train.py")])
    assert placed.recorded_breaks() == {str(model): frozenset({9}), str(block): frozenset({5})}
    # the caller's loop, which holds the call that leads to the break, is fixed
    outcome = transform_source(CALLER, str(model), Settings(recorded_breaks=placed.recorded_breaks()))
    assert [(f.code, f.line, f.applied) for f in outcome.findings] == [("GBF002", 8, True)]
    assert outcome.new_text is not None and "_gbfix_block_step_" in outcome.new_text


RECORDED_MODEL = """import torch


def step(x):
    x = x * 2
    for i in range(3):
        if x.sum() > 0:
            x = x - 1
    return x.relu()
"""
RECORDED_SCRIPT = """import sys

import torch

import model

out = torch.compile(model.step, backend="eager")(torch.ones(4))
print("ran", out.shape)
sys.exit(4)
"""


@pytest.mark.cli
@pytest.mark.torch_run
def test_record_runs_the_program_and_apply_fixes_what_it_recorded(tmp_path):
    (tmp_path / "model.py").write_text(RECORDED_MODEL)
    (tmp_path / "run.py").write_text(RECORDED_SCRIPT)
    recorded = gbfix("record", "-o", "trace", "--", sys.executable, "run.py", cwd=str(tmp_path))
    # the program's own output and exit code pass through
    assert recorded.returncode == 4 and "ran torch.Size([4])" in recorded.stdout, recorded.stderr
    assert "next: gbfix apply PATH --trace trace --dry-run" in recorded.stderr
    assert os.listdir(tmp_path / "trace")
    # the data-dependent `if` is invisible to the static catalogue; the recorded run shows it
    assert gbfix("apply", "model.py", "--dry-run", cwd=str(tmp_path)).stdout == ""
    fixed = gbfix("apply", "model.py", "--trace", "trace", "--dry-run", cwd=str(tmp_path))
    assert fixed.returncode == 1 and "+    def _gbfix_inner_1(i):" in fixed.stdout, fixed.stderr


def test_record_says_when_the_program_cannot_run(tmp_path):
    result = gbfix("record", "-o", "trace", "--", "no-such-program-here", cwd=str(tmp_path))
    assert result.returncode == 2 and "cannot run no-such-program-here" in result.stderr


@pytest.mark.cli
def test_record_says_when_the_program_compiled_nothing(tmp_path):
    """No log means `apply --trace` would find nothing: the line says so, the program's exit code passes."""
    result = gbfix("record", "-o", "trace", "--", sys.executable, "-c", "import sys; sys.exit(3)", cwd=str(tmp_path))
    assert result.returncode == 3
    assert result.stderr.splitlines() == [
        "gbfix: the run wrote no trace log to trace: no torch.compile call ran (the exit code is the program's)"
    ]
    assert os.listdir(tmp_path / "trace") == []
