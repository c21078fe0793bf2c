"""Evidence on every finding: why a site is believed to cost compiled work, and what ``apply`` acts on.

A site reached both from a ``torch.compile`` call and as a module's ``forward``
is an "entry" finding even when the forward's chain is shorter; one reached only
as a ``forward`` is a "forward" finding; a site a recorded run broke in is
"recorded". ``--evidence`` (``evidence`` in ``[tool.gbfix]``) sets the weakest
level whose fixes are applied; the others are reported with the reason.
"""

from __future__ import annotations

import json
import subprocess
import sys

from rewriter.engine.config import Settings
from rewriter.engine.pipeline import transform_source

#: ``work`` is one call from a module's forward and two from a compiled function
SOURCE = """\
import torch


class Net(torch.nn.Module):
    def forward(self, x, n):
        return work(x, n)


def work(x, n):
    for i in range(n):
        x = x * 2
        if x.sum().item() > 0:
            x = x - 1
    return x.cos()


def outer(x, n):
    return middle(x, n)


def middle(x, n):
    return work(x, n)
"""
COMPILED = SOURCE + "\n\nfast = torch.compile(outer)\n"


def loop_finding(text: str, tmp_path, **settings):
    path = str(tmp_path / "m.py")
    outcome = transform_source(text, path, Settings(**settings))
    (finding,) = [f for f in outcome.findings if f.code == "GBF002"]
    return finding, outcome.new_text


def test_a_compile_call_is_better_evidence_than_a_shorter_forward_chain(tmp_path):
    finding, _ = loop_finding(COMPILED, tmp_path)
    assert finding.evidence == "entry"
    # the chain shown is the one that gives the evidence, not the shortest from any entry
    assert "m.py:outer → middle → work (passed to torch.compile at" in finding.reach


def test_reached_only_as_a_forward(tmp_path):
    finding, new_text = loop_finding(SOURCE, tmp_path)
    assert finding.evidence == "forward" and "Net.forward → work" in finding.reach
    assert finding.applied and "_gbfix_loop_1" in new_text


def test_evidence_below_the_setting_is_reported_not_rewritten(tmp_path):
    finding, new_text = loop_finding(SOURCE, tmp_path, evidence="entry")
    assert finding.fix == "safe" and not finding.applied and new_text in (None, SOURCE)
    assert "not rewritten: evidence `forward` is weaker than `entry`" in finding.note
    compiled, new_text = loop_finding(COMPILED, tmp_path, evidence="entry")
    assert compiled.applied and "_gbfix_loop_1" in new_text


def test_a_recorded_break_is_the_strongest_evidence(tmp_path):
    path = str(tmp_path / "m.py")
    line = SOURCE.splitlines().index("        if x.sum().item() > 0:") + 1
    outcome = transform_source(SOURCE, path, Settings(recorded_breaks={path: frozenset({line})}, evidence="recorded"))
    (finding,) = [f for f in outcome.findings if f.code == "GBF002"]
    assert finding.evidence == "recorded" and finding.applied


def test_reach_all_marks_unreached_code_and_still_fixes_it(tmp_path):
    text = SOURCE.replace("        return work(x, n)", "        return x")
    text = text.replace("class Net(torch.nn.Module):", "class Net:")
    finding, new_text = loop_finding(text.replace("return middle(x, n)", "return x"), tmp_path, reach="all")
    assert finding.evidence == "none" and finding.applied and "_gbfix_loop_1" in new_text


def gbfix(*args: str, cwd) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "rewriter", *args], cwd=cwd, capture_output=True, text=True)


def test_every_format_carries_the_evidence_and_advice_is_counted_apart(tmp_path):
    (tmp_path / "m.py").write_text(SOURCE + "\n\nmodel = Net()\nmodel = torch.compile(model)\n")
    text = gbfix("scan", "m.py", "--no-cache", cwd=tmp_path)
    assert text.returncode == 1, text.stderr
    lines = text.stdout.splitlines()
    assert [line.split(": ", 1)[1].split()[0] for line in lines] == ["GBF002", "GBF005"]
    assert lines[0].endswith("[fix: safe] [evidence: forward]")
    assert lines[1].endswith("[advice]") and "[evidence:" not in lines[1]
    assert "2 findings (1 break, 1 advice)" in text.stderr
    document = json.loads(gbfix("scan", "m.py", "--format", "json", "--no-cache", cwd=tmp_path).stdout)
    assert [(f["code"], f["evidence"], f["kind"]) for f in document["findings"]] == [
        ("GBF002", "forward", "break"),
        ("GBF005", "", "advice"),
    ]
    assert document["counts"] == {"break": 1, "advice": 1, "suppression": 0}
    sarif = json.loads(gbfix("scan", "m.py", "--format", "sarif", "--no-cache", cwd=tmp_path).stdout)
    results = sarif["runs"][0]["results"]
    assert [(r["properties"].get("evidence"), r["properties"]["kind"], r["level"]) for r in results] == [
        ("forward", "break", "warning"),
        (None, "advice", "note"),
    ]


def test_apply_evidence_flag_and_config_key(tmp_path):
    (tmp_path / "m.py").write_text(SOURCE)
    default = gbfix("apply", "m.py", "--dry-run", "--no-cache", cwd=tmp_path)
    assert default.returncode == 1 and "_gbfix_loop_1" in default.stdout
    strict = gbfix("apply", "m.py", "--dry-run", "--no-cache", "--evidence", "entry", cwd=tmp_path)
    assert strict.returncode == 0 and strict.stdout == ""
    assert "GBF002 not rewritten: evidence `forward` is weaker than `entry`" in strict.stderr
    (tmp_path / "pyproject.toml").write_text('[tool.gbfix]\nevidence = "entry"\n')
    configured = gbfix("apply", "m.py", "--dry-run", "--no-cache", cwd=tmp_path)
    assert configured.returncode == 0 and configured.stdout == ""
    bad = gbfix("apply", "m.py", "--dry-run", "--evidence", "strong", cwd=tmp_path)
    assert bad.returncode == 2 and "--evidence must be one of recorded, entry, forward, none" in bad.stderr
