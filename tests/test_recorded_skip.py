"""GBF011: every frame a recorded run ran eagerly gets a finding, the ones no other rule explains from GBF011."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from codemods.rules.base import RecordedSkip
from rewriter.engine.config import Settings
from rewriter.engine.pipeline import follow_skips, transform_source
from rewriter.runtime.recorded import place_skipped_frames
from rewriter.runtime.trace import SkippedFrame, read_skipped_frames, skipped_frames_of

MODEL = """import torch


class Encoder(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = torch.nn.LSTM(4, 4, batch_first=True)

    def forward(self, x):
        x = x * 2
        y, _ = self.lstm(x)
        return y + x


def steps(x):
    for i in range(3):
        if x.sum() > 0:
            x = x - 1
    return x


def entry(x):
    return steps(Encoder()(x)) + 1
"""
SCRIPT = """import torch

import model

torch.manual_seed(0)
print(torch.compile(model.entry, backend="eager")(torch.randn(2, 3, 4)).shape)
"""


def gbfix(*args: str, cwd: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "rewriter", *args], cwd=cwd, capture_output=True, text=True)


@pytest.mark.cli
@pytest.mark.torch_run
def test_every_frame_the_run_skipped_gets_a_finding(tmp_path):
    (tmp_path / "model.py").write_text(MODEL)
    (tmp_path / "run.py").write_text(SCRIPT)
    recorded = gbfix("record", "-o", "trace", "--", sys.executable, "run.py", cwd=str(tmp_path))
    assert recorded.returncode == 0, recorded.stderr
    skipped = read_skipped_frames(str(tmp_path / "trace"))
    # the module built inside compiled code, the LSTM's frame and the loop with a data-dependent `if`
    assert {(f.first_line, f.name) for f in skipped} >= {(5, "__init__"), (9, "forward"), (15, "steps")}

    static = json.loads(gbfix("scan", "model.py", "--format", "json", "--exit-zero", cwd=str(tmp_path)).stdout)
    assert not [f for f in static["findings"] if f["code"] == "GBF011"]

    scanned = gbfix("scan", "model.py", "--trace", "trace", "--format", "json", "--exit-zero", cwd=str(tmp_path))
    findings = json.loads(scanned.stdout)["findings"]
    by_line = {f["line"]: f for f in findings}
    # the LSTM's call is GBF012's, which knows the cause from the source: GBF011 leaves that frame to it
    assert 9 not in by_line
    lstm = by_line[11]
    assert lstm["code"] == "GBF012" and lstm["fix"] == "none"
    assert "calling `self.lstm`, a recurrent module, makes Dynamo skip `forward` and its 2 inline" in lstm["message"]
    assert "nothing to capture" in by_line[5]["message"]
    # the loop is the structural rules' own: GBF011 leaves that frame to them
    assert by_line[16]["code"] in ("GBF001", "GBF002") and not any(
        f["code"] == "GBF011" and 15 <= f["line"] <= 19 for f in findings
    )
    # recall: every skipped frame of the file holds a finding
    spans = {5: (5, 7), 9: (9, 12), 15: (15, 19)}
    for frame in skipped:
        start, end = spans[frame.first_line]
        assert any(start <= f["line"] <= end for f in findings), frame

    # a report, never a rewrite: only the loop changes
    patch = gbfix("apply", "model.py", "--trace", "trace", "--dry-run", cwd=str(tmp_path))
    assert patch.returncode == 1 and "def _gbfix_" in patch.stdout
    assert "-    def forward(self, x):" not in patch.stdout


RESUMED = """import torch


class Block(torch.nn.Module):
    def forward(self, x):
        x = x * 2
        n = int(x.sum())
        for _ in range(n):
            x = x + 1
        return x
"""


def test_a_resume_function_is_the_rest_of_the_function_it_was_cut_from():
    skip = RecordedSkip(7, "torch_dynamo_resume_in_forward_at_7", "Dynamo recompile limit exceeded")
    outcome = transform_source(RESUMED, "m.py", Settings(recorded_skips={"m.py": frozenset({skip})}))
    (finding,) = outcome.findings
    assert (finding.code, finding.line, finding.fix) == ("GBF011", 5, "none")
    assert finding.message.startswith("a recorded run ran the rest of `forward` eagerly (Dynamo recompile limit")
    assert outcome.new_text is None


def test_a_skip_a_recorded_break_in_a_loop_explains_is_left_to_the_loop_rules():
    skip = RecordedSkip(5, "forward", "Data-dependent branching at m.py:9")
    settings = Settings(recorded_skips={"m.py": frozenset({skip})}, recorded_breaks={"m.py": frozenset({9})})
    codes = [f.code for f in transform_source(RESUMED, "m.py", settings).findings]
    assert "GBF011" not in codes and codes
    # the same break outside any loop: nothing else reports the skip
    settings = Settings(recorded_skips={"m.py": frozenset({skip})}, recorded_breaks={"m.py": frozenset({7})})
    assert [f.code for f in transform_source(RESUMED, "m.py", settings).findings] == ["GBF011"]


LOCKED = """import threading

import torch

_lock = threading.Lock()


def install(model):
    if getattr(model, "ready", False):
        return
    with _lock:
        model.ready = True
"""


def test_a_break_entering_a_context_manager_is_not_held_by_the_with():
    # Dynamo cannot enter the lock: the `with` header breaks, which no split of its body fixes.
    skip = RecordedSkip(8, "install", "Unsupported context manager at m.py:11")
    settings = Settings(recorded_skips={"m.py": frozenset({skip})}, recorded_breaks={"m.py": frozenset({11})})
    findings = transform_source(LOCKED, "m.py", settings).findings
    assert [(f.code, f.line) for f in findings] == [("GBF011", 8)]
    # a break recorded inside its body is the `with` rule's to report
    settings = Settings(recorded_skips={"m.py": frozenset({skip})}, recorded_breaks={"m.py": frozenset({12})})
    assert "GBF011" not in [f.code for f in transform_source(LOCKED, "m.py", settings).findings]


def test_a_frame_the_file_does_not_have_is_not_reported():
    skip = RecordedSkip(3, "forward", "Data-dependent branching at m.py:9")
    assert transform_source(RESUMED, "m.py", Settings(recorded_skips={"m.py": frozenset({skip})})).findings == ()


def _metrics(compile_id: str, **data: object) -> str:
    record = {"compilation_metrics": {"compile_id": compile_id, **data}}
    return f"V1201 10:00:00.000000 1 torch/_dynamo/utils.py:1] {json.dumps(record)}\n"


def test_skipped_frames_come_from_failed_compilations():
    text = (
        _metrics("3/0", co_name="wrapper", co_filename="/x/generic.py", co_firstlineno=1112)
        + _metrics("3/1", co_name=None, co_filename=None, co_firstlineno=None, fail_type="Unsupported",
                   fail_reason="Dynamo recompile limit exceeded\n  Explanation: ...")
        + _metrics("4/0", co_name="forward", co_filename="/x/m.py", co_firstlineno=20, fail_type="Unsupported",
                   fail_reason="Dynamic shape operator\n ...", fail_user_frame_filename="/x/m.py",
                   fail_user_frame_lineno=25)
        + _metrics("5/0", co_name="ok", co_filename="/x/m.py", co_firstlineno=40)
    )  # fmt: skip
    assert skipped_frames_of(text) == [
        # a refused recompilation names no code object: the frame's earlier compilation does
        SkippedFrame("/x/generic.py", 1112, "wrapper", "Dynamo recompile limit exceeded"),
        SkippedFrame("/x/m.py", 20, "forward", "Dynamic shape operator", "/x/m.py:25"),
    ]


def test_skipped_frames_are_placed_by_path_suffix_and_follow_rewrites(tmp_path):
    scanned = tmp_path / "pkg" / "m.py"
    scanned.parent.mkdir()
    scanned.write_text(RESUMED)
    frames = [
        SkippedFrame("/site-packages/pkg/m.py", 5, "forward", "Dynamic shape operator", "/site-packages/pkg/m.py:7"),
        SkippedFrame("/elsewhere/other.py", 5, "forward", "Dynamic shape operator"),
    ]
    placed = place_skipped_frames(frames, [str(scanned)])
    assert placed == {str(scanned): frozenset({RecordedSkip(5, "forward", "Dynamic shape operator at pkg/m.py:7")})}
    moved = follow_skips(RESUMED, "# a new first line\n" + RESUMED, placed[str(scanned)])
    assert {s.line for s in moved} == {6}


def test_the_rule_is_documented_as_reporting_only():
    out = subprocess.run(
        [sys.executable, "-m", "rewriter", "rules", "GBF011"], capture_output=True, text=True, cwd=os.getcwd()
    )
    assert out.returncode == 0 and "recorded-skip" in out.stdout and "Fix safety" in out.stdout


COMPREHENSION = """import torch


def flags(registry, x):
    wanted = {k: registry[k] for k in registry.keys()}
    return x * len(wanted)
"""


def test_a_comprehension_the_run_skipped_is_reported_at_its_statement():
    skip = RecordedSkip(5, "<dictcomp>", "Missing tp_iternext at m.py:5")
    settings = Settings(recorded_skips={"m.py": frozenset({skip})}, recorded_breaks={"m.py": frozenset({5})})
    (finding,) = transform_source(COMPREHENSION, "m.py", settings).findings
    assert (finding.code, finding.line, finding.col) == ("GBF011", 5, 5)
    assert "ran the `<dictcomp>` of line 5 eagerly (Missing tp_iternext at m.py:5)" in finding.message


IN_ELSE = """import torch


def attend(x, lengths, flash):
    if flash:
        y = x * 2
    else:
        parts = [
            t.sum() for t in torch.split(x, lengths.tolist())
        ]
        y = torch.stack(parts)
    return y
"""


def test_a_comprehension_in_an_else_block_is_reported_at_its_own_statement():
    # the `if` holds the comprehension's line too: the finding goes to the statement in `else`
    skip = RecordedSkip(8, "<listcomp>", "Unsupported Tensor.item() call at m.py:9")
    (finding,) = transform_source(IN_ELSE, "m.py", Settings(recorded_skips={"m.py": frozenset({skip})})).findings
    assert (finding.code, finding.line) == ("GBF011", 8)
