"""`# gbfix: ignore[...]` comments: where they count, in scan and apply, and unused ones."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from rewriter.cli import app
from rewriter.engine.config import Settings
from rewriter.engine.pipeline import transform_source
from rewriter.engine.suppressions import parse_suppressions, suppression_comments

LOOP = "def f(x):\n    for i in range(2):{header}\n        x = x + 1{other}\n        print(i){brk}\n    return x\n"


def loop(header: str = "", other: str = "", brk: str = "") -> str:
    return LOOP.format(header=header, other=other, brk=brk)


def run(text: str, mode: str = "report"):
    return transform_source(text, "case.py", Settings(select=("GBF001",), fix_mode=mode, torch_only=False, reach="all"))  # type: ignore[arg-type]


# -- reading the comments ------------------------------------------------------------


@pytest.mark.parametrize(
    "comment,codes",
    [
        ("# gbfix: ignore", frozenset()),
        ("#gbfix:ignore", frozenset()),
        ("# gbfix: ignore[GBF001]", frozenset({"GBF001"})),
        ("# gbfix: ignore[gbf001, GBF003]", frozenset({"GBF001", "GBF003"})),
        ("# noqa: E501  # gbfix: ignore[GBF003]", frozenset({"GBF003"})),
    ],
)
def test_comment_forms(comment, codes):
    assert parse_suppressions(f"x = 1  {comment}\n") == {1: codes}


@pytest.mark.parametrize(
    "source",
    [
        's = "# gbfix: ignore"\n',
        '"""\n# gbfix: ignore\n"""\n',
        "x = 1  # gbfix: ignored\n",
        "x = 1  # see gbfix docs\n",
    ],
)
def test_not_a_suppression(source):
    assert parse_suppressions(source) == {}


def test_column_of_the_comment():
    (found,) = suppression_comments("x = 1\ny = 2  # noqa  # gbfix: ignore[GBF001]\n")
    assert (found.line, found.col) == (2, 16)


def test_unparsable_source_still_reads_comments():
    assert parse_suppressions('s = """\nx  # gbfix: ignore\n') == {2: frozenset()}


# -- what a comment covers -------------------------------------------------------------


def test_baseline_loop_is_reported_and_fixed():
    assert [f.code for f in run(loop()).findings] == ["GBF001"]
    assert run(loop(), "safe").new_text is not None


@pytest.mark.parametrize(
    "where",
    [
        {"header": "  # gbfix: ignore"},
        {"header": "  # gbfix: ignore[GBF001]"},
        {"brk": "  # gbfix: ignore"},
        {"brk": "  # gbfix: ignore[GBF003,GBF001]"},
    ],
)
def test_header_or_break_line_suppresses_in_scan_and_apply(where):
    text = loop(**where)
    scanned = run(text)
    assert scanned.findings == () and scanned.unused_suppressions == ()
    applied = run(text, "safe")
    assert applied.new_text is None and applied.findings == ()


@pytest.mark.parametrize(
    "where",
    [
        {"other": "  # gbfix: ignore"},  # a line of the loop that does not break
        {"header": "  # gbfix: ignore[GBF003]"},  # another rule's code
        {"brk": "  # gbfix: ignore[GBF002]"},
    ],
)
def test_other_lines_and_codes_do_not_suppress(where):
    text = loop(**where)
    scanned = run(text)
    assert [f.code for f in scanned.findings] == ["GBF001"]
    assert len(scanned.unused_suppressions) == 1
    assert run(text, "safe").new_text is not None


def test_a_break_inside_a_nested_helper_call_line_counts():
    text = (
        "def show(v):\n"
        "    print(v)\n"
        "\n"
        "def f(x):\n"
        "    for i in (1, 2):\n"
        "        x = x * i\n"
        "        show(x)  # gbfix: ignore[GBF001]\n"
        "    return x\n"
    )
    assert run(text).findings == ()
    assert run(text, "safe").new_text is None


# -- through the command line ------------------------------------------------------------


@pytest.fixture
def in_tmp(tmp_path, monkeypatch):
    # The snippets are plain Python: judge every file, not only those that import torch.
    (tmp_path / "pyproject.toml").write_text("[tool.gbfix]\ntorch_only = false\n")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def scan(*args):
    return CliRunner().invoke(app, ["scan", "--select", "GBF001", "--reach", "all", *args])


def test_scan_and_apply_honour_suppressions(in_tmp):
    (in_tmp / "a.py").write_text(loop(brk="  # gbfix: ignore"))
    result = scan("a.py")
    assert result.exit_code == 0, result.stdout + result.stderr
    assert result.stdout == ""
    applied = CliRunner().invoke(app, ["apply", "--select", "GBF001", "--reach", "all", "a.py"])
    assert applied.exit_code == 0
    assert (in_tmp / "a.py").read_text() == loop(brk="  # gbfix: ignore")


def test_unused_ignores_are_reported_only_when_asked(in_tmp):
    (in_tmp / "used.py").write_text(loop(header="  # gbfix: ignore"))
    (in_tmp / "unused.py").write_text(loop(other="  # gbfix: ignore[GBF001]", brk="  # gbfix: ignore"))
    # never parsed (nothing can match), so its comment covers nothing
    (in_tmp / "plain.py").write_text("x = 1  # gbfix: ignore\n")
    # names only a rule that is not active in this run: not judged
    (in_tmp / "other_rule.py").write_text("x = 1  # gbfix: ignore[GBF002]\n")
    # names a code no rule has
    (in_tmp / "typo.py").write_text("x = 1  # gbfix: ignore[GBF0O1]\n")
    quiet = scan(".")
    assert quiet.exit_code == 0 and quiet.stdout == ""
    loud = scan(".", "--report-unused-ignores")
    assert loud.exit_code == 1
    lines = loud.stdout.splitlines()
    assert lines == [
        "plain.py:1:8: unused-ignore unused suppression comment `# gbfix: ignore` [fix: none]",
        "typo.py:1:8: unused-ignore suppression comment `# gbfix: ignore[GBF0O1]` names unknown rule code"
        " GBF0O1 [fix: none]",
        "unused.py:3:20: unused-ignore unused suppression comment `# gbfix: ignore[GBF001]` [fix: none]",
    ]


def test_a_suppression_still_counts_after_another_rule_moved_its_line():
    # GBF001 unrolls the first loop (adding lines); the second loop's comment must
    # still keep every other rule away from it, at its new line.
    suppressed = "    for j in range(n):  # gbfix: ignore\n        x = x * 2\n        print(j)\n"
    text = "def f(x, n):\n    for i in range(3):\n        x = x + 1\n        print(i)\n" + suppressed + "    return x\n"
    outcome = transform_source(text, "case.py", Settings(fix_mode="safe", torch_only=False, reach="all"))
    assert outcome.new_text is not None and "_gbfix_inner_1(2)\n" + suppressed in outcome.new_text
    assert [f.code for f in outcome.findings] == ["GBF001"]
    assert outcome.unused_suppressions == ()
    unrelated = text.replace("# gbfix: ignore", "# gbfix: ignore[GBF001]")
    assert transform_source(
        unrelated, "case.py", Settings(fix_mode="safe", torch_only=False, reach="all")
    ).unused_suppressions == (5,)
