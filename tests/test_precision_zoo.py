"""``benchmarks/precision.py --zoo``: skipped frames, their causes and the findings in them, scored."""

from __future__ import annotations

import importlib.util
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _precision():
    sys.path.insert(0, os.path.join(ROOT, "benchmarks"))
    path = os.path.join(ROOT, "benchmarks", "precision.py")
    spec = importlib.util.spec_from_file_location("precision_under_test", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


MODEL = """import torch


class A(torch.nn.Module):
    def forward(self, x):
        for i in range(3):
            x = x * 2
            print(x)
        return x

    def helper(self, x):
        return x[x > 0] + 1


def plain(n):
    return n


def other(x):
    return x.relu()
"""
ROW = {
    "library": "pkg",
    "model": "A",
    "skipped": 3,
    "skipped_whole": ["forward (pkg/m.py:5)", "helper (pkg/m.py:11)", "plain (pkg/m.py:15)"],
    "skipped_partial": [],
    # no cause for a frame is "unknown"; the causes are listed by frame name, in order
    "skip_causes": [
        "forward [whole]: graph break in loop @ pkg/m.py:8",
        "helper [whole]: graph break in loop @ pkg/m.py:12",
    ],
    "break_sites": [
        "builtin print @ pkg/m.py:8",
        "Data dependent operator @ pkg/m.py:12",
        "graph break in loop @ pkg/m.py:12",
        "Dynamic shape operator @ pkg/m.py:20",
    ],
    "files": ["pkg/m.py"],
}


def test_zoo_scores_precision_recall_and_misses_by_cause(tmp_path, monkeypatch) -> None:
    precision = _precision()
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "m.py").write_text(MODEL)
    monkeypatch.setattr(precision, "package_root", lambda relative: str(tmp_path))
    assert precision.skip_causes(ROW) == {
        ("pkg/m.py", 5): "builtin print (in a loop)",
        ("pkg/m.py", 11): "Data dependent operator (in a loop)",
        ("pkg/m.py", 15): "unknown",  # nor a break in it
    }
    findings = [
        {"path": "pkg/m.py", "line": 6, "code": "GBF001"},  # in `forward`: skipped
        {"path": "pkg/m.py", "line": 16, "code": "GBF002"},  # in `plain`: skipped
        {"path": "pkg/m.py", "line": 20, "code": "GBF012"},  # in `other`: it only breaks
        {"path": "pkg/m.py", "line": 6, "code": "GBF005"},  # a placement rule: not about a frame
        {"path": "pkg/other.py", "line": 1, "code": "GBF001"},  # a file no model runs
    ]
    score = precision.zoo_score(findings, [ROW])
    assert (score["findings"], score["in_skipped"], score["in_skipped_or_breaking"]) == (3, 2, 3)
    # `plain` writes no tensor op: a fix there captures nothing, so recall leaves it out
    assert (score["skipped_frames"], score["with_ops"], score["found"]) == (3, 2, 1)
    assert score["missed_by_cause"] == {"Data dependent operator (in a loop)": 1}
    assert score["without_ops"] == ["pkg/m.py:15 (unknown)"]
    assert score["false"] == ["pkg/m.py:20 GBF012"]
    assert score["models"] == {"pkg:A": {"frames": 2, "found": 1}}
    text = precision.render_zoo(
        {"gbfix": "x", "command": "c", "models": ["pkg:A"], "traced": [], "static": score, "trace": {"error": "none"}}
    )
    # no run's evidence of what ran: every finding is judged
    assert "| static | 2/3 (67%) | [2/3 (67%)] | 1/2 (50%) |" in text
    assert "| Data dependent operator (in a loop) | 1 |" in text


def test_a_frame_without_a_listed_cause_takes_the_break_written_in_it(tmp_path, monkeypatch) -> None:
    precision = _precision()
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "m.py").write_text(MODEL)
    monkeypatch.setattr(precision, "package_root", lambda relative: str(tmp_path))
    row = {**ROW, "skipped_whole": ["torch_dynamo_resume_in_forward_at_8 (pkg/m.py:8)"], "skip_causes": []}
    assert precision.skip_causes(row) == {("pkg/m.py", 5): "builtin print (resumed frame)"}


def test_precision_judges_only_findings_in_frames_a_recorded_run_shows_ran(tmp_path, monkeypatch) -> None:
    precision = _precision()
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "m.py").write_text(MODEL + "\n\ndef unused(x):\n    for i in range(3):\n        print(x)\n")
    monkeypatch.setattr(precision, "package_root", lambda relative: str(tmp_path))
    log = tmp_path / "run.log"
    log.write_text(
        # an op of a graph came from `other` (line 20); Dynamo compiled `plain` (line 15)
        "    # File: /site-packages/pkg/m.py:20 in other, code: return x.relu()\n"
        '{"compilation_metrics": {"co_name": "plain", "co_filename": "/venv/pkg/m.py", "co_firstlineno": 15}}\n'
        "    # File: /site-packages/pkg/elsewhere.py:3 in f, code: y = x + 1\n"
    )
    reached = precision.reached_frames(str(log), {"pkg/m.py"})
    assert reached == {("pkg/m.py", 19), ("pkg/m.py", 15)}
    findings = [
        {"path": "pkg/m.py", "line": 6, "code": "GBF001"},  # in `forward`: skipped
        {"path": "pkg/m.py", "line": 20, "code": "GBF012"},  # in `other`: ran, compiled, not skipped
        {"path": "pkg/m.py", "line": 26, "code": "GBF002"},  # in `unused`: no run shows it ran
    ]
    score = precision.zoo_score(findings, [ROW], reached)
    assert (score["findings"], score["in_skipped"]) == (3, 1)
    assert (score["judged"], score["judged_in_skipped"]) == (2, 1)
    assert score["false"] == ["pkg/m.py:20 GBF012"]
    assert score["unreached"] == ["pkg/m.py:26 GBF002"]
    # without the runs' evidence every finding is judged, as before
    assert precision.zoo_score(findings, [ROW])["judged"] == 3
