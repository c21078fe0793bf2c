"""The command line end to end, as a user runs it (subprocesses, real files)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys

import pytest

from tests.golden import ROOT

EXAMPLES = os.path.join(ROOT, "examples")


def gbfix(*args: str, cwd: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "rewriter", *args], cwd=cwd, capture_output=True, text=True)


def snapshot(root: str) -> dict[str, bytes]:
    out = {}
    for directory, _, files in os.walk(root):
        for name in files:
            path = os.path.join(directory, name)
            with open(path, "rb") as handle:
                out[os.path.relpath(path, root)] = handle.read()
    return out


@pytest.fixture
def project(tmp_path):
    shutil.copytree(EXAMPLES, tmp_path / "examples")
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    return tmp_path


@pytest.mark.cli
def test_dry_run_prints_a_patch_that_applies_and_writes_nothing(project):
    before = snapshot(str(project / "examples"))
    result = gbfix("apply", "examples", "--dry-run", cwd=str(project))
    assert result.returncode == 1, result.stderr
    assert result.stdout.startswith("diff --git a/examples/")
    assert "+    def _gbfix_inner_1(" in result.stdout
    assert "3 would change, 0 errors" in result.stderr
    assert snapshot(str(project / "examples")) == before
    (project / "fix.patch").write_text(result.stdout)
    check = subprocess.run(["git", "apply", "--check", "fix.patch"], cwd=project, capture_output=True, text=True)
    assert check.returncode == 0, check.stderr
    check = subprocess.run(
        ["patch", "-p1", "--dry-run", "-i", "fix.patch"], cwd=project, capture_output=True, text=True
    )
    assert check.returncode == 0, check.stdout + check.stderr


@pytest.mark.cli
def test_apply_equals_the_patch_and_second_run_is_clean(project):
    patch = gbfix("apply", "examples", "--dry-run", cwd=str(project)).stdout
    result = gbfix("apply", "examples", cwd=str(project))
    assert result.returncode == 0, result.stderr
    assert "3 changed" in result.stderr
    again = gbfix("apply", "examples", "--dry-run", cwd=str(project))
    assert again.returncode == 0 and again.stdout == ""
    # the written files are what the patch said
    subprocess.run(["git", "stash", "-q", "-u"], cwd=project)  # nothing committed: no-op guard
    assert "0 would change" in again.stderr
    assert patch


@pytest.mark.cli
def test_check_names_the_files_and_prints_no_patch(project):
    result = gbfix("apply", "examples", "--check", cwd=str(project))
    assert result.returncode == 1
    assert result.stdout == ""
    assert result.stderr.count("would rewrite examples/") == 3
    assert result.stderr.strip().splitlines()[-1].startswith("gbfix: 3 files scanned")


@pytest.mark.cli
def test_mode_is_kept_on_write(project):
    path = project / "examples" / "stats.py"
    os.chmod(path, 0o640)
    assert gbfix("apply", str(path), cwd=str(project)).returncode == 0
    assert (os.stat(path).st_mode & 0o777) == 0o640
    assert "_gbfix_inner_1" in path.read_text()


@pytest.mark.cli
def test_syntax_error_is_reported_and_the_batch_goes_on(project):
    bad = project / "examples" / "broken.py"
    bad.write_text("import torch\n\ndef f(x:\n    for i in range(2):\n        print(x)\n")
    result = gbfix("apply", "examples", "--dry-run", cwd=str(project))
    assert result.returncode == 2
    lines = [line for line in result.stderr.splitlines() if "broken.py" in line]
    assert len(lines) == 1 and "syntax error" in lines[0] and "broken.py:3" in lines[0]
    assert result.stdout.count("diff --git") == 3


@pytest.mark.cli
def test_missing_path_is_an_error_with_its_name(project):
    result = gbfix("apply", "nope.py", cwd=str(project))
    assert result.returncode == 2
    assert "nope.py: error: no such file or directory" in result.stderr


@pytest.mark.cli
def test_gitignore_and_exclude_are_honoured(project):
    (project / ".gitignore").write_text("examples/sampler.py\n")
    result = gbfix("apply", ".", "--dry-run", "--exclude", "examples/stats.py", cwd=str(project))
    assert result.stdout.count("diff --git") == 1
    assert "transformer_block.py" in result.stdout


@pytest.mark.cli
def test_unknown_config_key_is_an_error(project):
    (project / "pyproject.toml").write_text("[tool.gbfix]\nunrol_max_trips = 3\n")
    result = gbfix("apply", "examples", "--dry-run", cwd=str(project))
    assert result.returncode == 2
    assert "unknown key 'unrol_max_trips'" in result.stderr


@pytest.mark.cli
def test_config_unroll_max_trips_declines_long_loops(project):
    (project / "pyproject.toml").write_text('[tool.gbfix]\nunroll_max_trips = 3\nselect = ["GBF001"]\n')
    result = gbfix("apply", "examples", "--dry-run", cwd=str(project))
    assert "transformer_block.py" not in result.stdout
    assert "more than unroll_max_trips=3" in result.stderr
    # With outlining active, GBF002 takes the loop GBF001 declines: each trip picks its layer by
    # `i`, which would compile a per-trip function once per layer, and outlined whole the loop
    # would bring too little into a graph, so it is reported and left as it is.
    (project / "pyproject.toml").write_text("[tool.gbfix]\nunroll_max_trips = 3\n")
    result = gbfix("apply", "examples/transformer_block.py", "--dry-run", cwd=str(project))
    assert "_gbfix_inner" not in result.stdout and "_gbfix_loop" not in result.stdout
    assert "each trip's `i` picks a submodule or indexes a store" in result.stderr, result.stderr


@pytest.mark.cli
def test_parallel_and_serial_give_the_same_patch(project):
    for i in range(10):
        shutil.copy(project / "examples" / "stats.py", project / "examples" / f"copy_{i}.py")
    serial = gbfix("apply", "examples", "--dry-run", "-j", "1", cwd=str(project))
    parallel = gbfix("apply", "examples", "--dry-run", "-j", "2", cwd=str(project))
    assert serial.stdout == parallel.stdout
    assert serial.stdout.count("diff --git") == 13


@pytest.mark.cli
def test_help_explains_options():
    result = gbfix("apply", "--help", cwd=ROOT)
    assert result.returncode == 0
    for option in ("--dry-run", "--check", "--unsafe-fixes", "--exclude", "--jobs"):
        assert option in result.stdout
    assert gbfix("--help", cwd=ROOT).returncode == 0


@pytest.mark.cli
def test_console_script_is_installed():
    exe = os.path.join(os.path.dirname(sys.executable), "gbfix")
    assert os.path.exists(exe)
    result = subprocess.run([exe, "--help"], capture_output=True, text=True)
    assert "apply" in result.stdout


# --- what a new user meets first: version, help, names, stdin, formats --------------

BROKEN = "import torch\n\ndef f(x:\n    for i in range(2):\n        print(x)\n"


def gbfix_bytes(*args: str, cwd: str, stdin: bytes) -> subprocess.CompletedProcess:
    """The CLI with ``stdin`` as its input and stdout kept as bytes (a patch or a source is bytes)."""
    return subprocess.run([sys.executable, "-m", "rewriter", *args], cwd=cwd, input=stdin, capture_output=True)


def in_process(*args: str, stdin: bytes = b""):
    """The same app in this process, for usage errors and help that need no fresh interpreter."""
    from typer.testing import CliRunner

    from rewriter.cli import app

    return CliRunner().invoke(app, list(args), input=stdin, prog_name="gbfix")


@pytest.mark.cli
def test_version_is_the_package_version():
    from rewriter import __version__

    result = gbfix("--version", cwd=ROOT)
    assert result.returncode == 0
    assert result.stdout == f"gbfix {__version__}\n"
    with open(os.path.join(ROOT, "pyproject.toml"), encoding="utf-8") as handle:
        assert f'version = "{__version__}"' in handle.read()


#: what a command starts with: run ``main`` for ``args``, then print the heavy modules it imported
_IMPORTED = """
import sys
sys.argv = ["gbfix", *{args!r}]
from rewriter.cli import main
try:
    main()
except SystemExit:
    pass
print(sorted(m for m in ("libcst", "torch", "codemods.rules.registry") if m in sys.modules), file=sys.stderr)
"""


@pytest.mark.cli
@pytest.mark.parametrize("args", [["--version"], ["-V"], ["rules"], ["rules", "GBF009"], ["rules", "gbf01"]])
def test_version_and_rules_start_without_the_rules_analysis(args):
    """Import what a command needs when it runs: these need neither libcst nor torch (< 0.5 s CPU to start)."""
    from rewriter import __version__

    result = subprocess.run(
        [sys.executable, "-c", _IMPORTED.format(args=args)], cwd=ROOT, capture_output=True, text=True
    )
    assert result.stderr.splitlines()[-1] == "[]", result.stderr
    if args[0] != "rules":
        assert result.stdout == f"gbfix {__version__}\n"
    else:
        assert result.stdout == gbfix(*args, "--format", "text", cwd=ROOT).stdout


def test_the_rules_list_read_from_source_is_the_registry():
    from codemods.rules.registry import REGISTRY
    from rewriter.cli.rules import rule_cards

    cards = rule_cards()
    assert sorted(cards) == sorted(REGISTRY)
    for code, rule in REGISTRY.items():
        assert (cards[code].name, cards[code].summary, cards[code].doc) == (rule.NAME, rule.SUMMARY, rule.doc())


@pytest.mark.cli
def test_scan_and_apply_default_to_the_working_directory(tmp_path):
    shutil.copytree(os.path.join(ROOT, "examples"), tmp_path / "examples")
    for command in (["scan"], ["apply", "--dry-run"]):
        here = gbfix(*command, "--reach", "all", cwd=str(tmp_path))
        dot = gbfix(*command, "--reach", "all", ".", cwd=str(tmp_path))
        assert (
            here.returncode == dot.returncode == 1 and here.stdout == dot.stdout and "examples/stats.py" in dot.stdout
        )


@pytest.mark.cli
@pytest.mark.skipif(sys.platform == "win32", reason="a pseudo-terminal")
def test_scan_shows_a_progress_line_on_a_terminal_only(tmp_path):
    import pty

    shutil.copytree(os.path.join(ROOT, "examples"), tmp_path / "examples")
    command = [sys.executable, "-m", "rewriter", "scan", "examples", "--reach", "all"]
    leader, follower = pty.openpty()
    with subprocess.Popen(command, cwd=tmp_path, stdout=subprocess.PIPE, stderr=follower) as proc:
        os.close(follower)
        drawn = b""
        while True:
            try:
                chunk = os.read(leader, 4096)
            except OSError:  # the terminal closed with the process
                break
            if not chunk:
                break
            drawn += chunk
        report = proc.stdout.read() if proc.stdout else b""
    os.close(leader)
    assert b"3/3 files" in drawn and b"\r\x1b[K" in drawn
    assert b"files" not in report.split(b"\n")[0] and b"GBF001" in report
    piped = gbfix("scan", "examples", "--reach", "all", cwd=str(tmp_path))
    assert "\r" not in piped.stderr and "3 files scanned" in piped.stderr


@pytest.mark.cli
def test_help_lists_commands_in_the_order_a_user_meets_them():
    result = gbfix("--help", cwd=ROOT)
    commands = result.stdout.split("Commands:", 1)[1]
    names = [line.split()[0] for line in commands.strip().splitlines()]
    assert names == ["apply", "scan", "verify", "explain", "advise", "record", "rules", "config"]
    assert result.stdout.startswith("Usage: gbfix [OPTIONS] COMMAND [ARGS]...\n")
    assert "--version" in result.stdout
    assert "..." not in commands, "a command's summary is cut short"


@pytest.mark.parametrize(
    "command, usage",
    [
        ("apply", "gbfix apply [OPTIONS] [PATH...]"),
        ("scan", "gbfix scan [OPTIONS] [PATH...]"),
        ("verify", "gbfix verify [OPTIONS] FILE"),
        ("explain", "gbfix explain [OPTIONS] FILE"),
        ("rules", "gbfix rules [OPTIONS] [CODE]"),
        ("config", "gbfix config [OPTIONS] [PATH]"),
    ],
)
def test_help_names_what_to_type_not_python_types(command, usage):
    text = in_process(command, "--help").stdout
    assert f"Usage: {usage}\n" in text
    assert not re.search(r"<\w+(\[\w+\])?>|\{\w+\}", text), text  # no <str>, <list[str]>, {paths}
    if command == "apply":
        assert "[[tool.gbfix.verify]]" in text  # brackets are text, not markup
        assert "--select CODES" in text and "--exclude GLOB" in text and "-j, --jobs N" in text


@pytest.mark.cli
def test_apply_names_each_file_it_rewrote(project):
    (project / "examples" / "clean.py").write_text("import torch\n\ndef f(x):\n    return x.sin()\n")
    before = snapshot(str(project / "examples"))
    result = gbfix("apply", "examples", cwd=str(project))
    assert result.returncode == 0, result.stderr
    after = snapshot(str(project / "examples"))
    changed = sorted(f"examples/{name}" for name in before if before[name] != after[name])
    named = [line.removeprefix("rewrote ") for line in result.stderr.splitlines() if line.startswith("rewrote ")]
    assert named == changed and len(changed) == 3
    assert "4 files scanned" in result.stderr and "3 changed, 0 errors" in result.stderr
    quiet = gbfix("apply", "examples", "-q", cwd=str(project))
    assert quiet.returncode == 0 and quiet.stderr == ""


@pytest.mark.cli
def test_counts_are_in_the_right_number(project):
    one = gbfix("apply", "examples/stats.py", "--dry-run", cwd=str(project))
    assert "gbfix: 1 file scanned (0 screened out, 1 parsed), 1 would change, 0 errors in " in one.stderr
    (project / "broken.py").write_text(BROKEN)
    failed = gbfix("scan", "examples/stats.py", "broken.py", cwd=str(project))
    assert "gbfix: 2 files scanned (0 screened out, 1 parsed), 1 finding (1 break), 1 error in " in failed.stderr


@pytest.mark.cli
def test_scan_and_apply_spell_paths_alike(project):
    (project / "sub").mkdir()
    for name in ("a.py", "b.py", "sub/c.py"):
        (project / name).write_text(BROKEN)
    named = ["./a.py", str(project / "b.py"), "examples/../sub/c.py", "./nope.py"]
    judge = f"(Python {sys.version_info[0]}.{sys.version_info[1]} cannot parse the file)"
    expected = [
        f"a.py:3: error: syntax error: '(' was never closed {judge}",
        f"b.py:3: error: syntax error: '(' was never closed {judge}",
        "nope.py: error: no such file or directory",
        f"sub/c.py:3: error: syntax error: '(' was never closed {judge}",
    ]
    scan = gbfix("scan", *named, cwd=str(project))
    apply = gbfix("apply", *named, "--dry-run", cwd=str(project))
    assert scan.returncode == apply.returncode == 2
    for result in (scan, apply):
        assert sorted(line for line in result.stderr.splitlines() if ": error: " in line) == expected


@pytest.mark.cli
def test_apply_dash_rewrites_stdin_to_stdout(project):
    source = (project / "examples" / "stats.py").read_bytes()
    result = gbfix_bytes("apply", "-", cwd=str(project), stdin=source)
    assert result.returncode == 0, result.stderr
    assert b"rewrote -\n" in result.stderr
    assert gbfix("apply", "examples/stats.py", cwd=str(project)).returncode == 0
    assert result.stdout == (project / "examples" / "stats.py").read_bytes() != source  # what apply writes
    assert sorted(os.listdir(project)) == [".git", "examples"]  # nothing written beside it
    again = gbfix_bytes("apply", "-", cwd=str(project), stdin=result.stdout)
    assert again.returncode == 0 and again.stdout == result.stdout  # nothing to do: the source comes back


@pytest.mark.cli
def test_apply_dash_keeps_the_bytes_of_the_source(project):
    text = "# -*- coding: latin-1 -*-\n# café\n" + (project / "examples" / "stats.py").read_text()
    source = text.replace("\n", "\r\n").encode("latin-1")
    result = gbfix_bytes("apply", "-", cwd=str(project), stdin=source)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("# -*- coding: latin-1 -*-\r\n# café\r\n".encode("latin-1"))
    assert b"\n" not in result.stdout.replace(b"\r\n", b"")  # CRLF throughout
    assert b"_gbfix_inner_1" in result.stdout


@pytest.mark.cli
def test_apply_dash_with_dry_run_check_and_errors(project):
    source = (project / "examples" / "stats.py").read_bytes()
    diff = gbfix_bytes(
        "apply", "-", "--dry-run", "--stdin-filename", "examples/stats.py", cwd=str(project), stdin=source
    )
    assert diff.returncode == 1 and diff.stdout.startswith(b"diff --git a/examples/stats.py b/examples/stats.py\n")
    check = gbfix_bytes("apply", "-", "--check", cwd=str(project), stdin=source)
    assert check.returncode == 1 and check.stdout == b"" and b"would rewrite -\n" in check.stderr
    broken = gbfix_bytes("apply", "-", cwd=str(project), stdin=BROKEN.encode())
    assert broken.returncode == 2 and broken.stdout == b""  # an editor keeps its buffer
    judge = f"(Python {sys.version_info[0]}.{sys.version_info[1]} cannot parse the file)"
    assert broken.stderr.decode().splitlines()[0] == f"-:3: error: syntax error: '(' was never closed {judge}"


def test_dash_usage_errors(project, monkeypatch):
    monkeypatch.chdir(project)
    mixed = in_process("apply", "-", "examples", stdin=b"x = 1\n")
    assert mixed.exit_code == 2 and "cannot be combined with other paths" in mixed.stderr
    verify = in_process("apply", "-", "--verify", stdin=b"x = 1\n")
    assert verify.exit_code == 2 and "cannot check source from stdin" in verify.stderr
    alone = in_process("scan", "examples", "--stdin-filename", "x.py")
    assert alone.exit_code == 2 and "--stdin-filename goes with `-`" in alone.stderr


@pytest.mark.cli
def test_stdin_filename_chooses_the_configuration(project):
    (project / "pyproject.toml").write_text('[tool.gbfix]\nexclude = ["vendored/**"]\nselect = ["GBF005"]\n')
    source = (project / "examples" / "stats.py").read_bytes()
    selected = gbfix_bytes("scan", "-", "--stdin-filename", "examples/stats.py", cwd=str(project), stdin=source)
    assert selected.returncode == 0 and selected.stdout == b""
    excluded = gbfix_bytes(
        "apply", "-", "--stdin-filename", "vendored/stats.py", "--force-exclude", "--select", "GBF001",
        cwd=str(project), stdin=source,
    )  # fmt: skip
    assert excluded.returncode == 0 and excluded.stdout == source


@pytest.mark.cli
def test_scan_dash_reads_stdin(project):
    source = (project / "examples" / "stats.py").read_bytes()
    result = gbfix_bytes("scan", "-", cwd=str(project), stdin=source)
    assert result.returncode == 1
    assert result.stdout.decode().startswith("-:9:5: GBF001 graph break inside a loop")
    named = gbfix_bytes("scan", "-", "--stdin-filename", "examples/stats.py", cwd=str(project), stdin=source)
    assert named.stdout.decode().startswith("examples/stats.py:9:5: GBF001 ")


@pytest.mark.cli
def test_github_format_annotates_findings_and_errors(project):
    (project / "broken.py").write_text(BROKEN)
    result = gbfix("scan", "examples", "broken.py", "--format", "GitHub", cwd=str(project))
    assert result.returncode == 2
    lines = result.stdout.splitlines()
    assert lines[0].startswith("::warning file=examples/sampler.py,line=21,col=5,title=GBF001::graph break inside")
    # the loops of the three examples (GBF001), the log and the print in compiled code (GBF010), the error
    assert lines[0].endswith(" [fix: safe]") and len(lines) == 6
    judge = f"(Python {sys.version_info[0]}.{sys.version_info[1]} cannot parse the file)"
    assert lines[-1] == f"::error file=broken.py,line=3,title=gbfix::syntax error: '(' was never closed {judge}"


def test_format_is_case_insensitive(project, monkeypatch):
    monkeypatch.chdir(project)
    # three loops (GBF001), and GBF010's print of examples/transformer_block.py and log of examples/sampler.py
    assert len(json.loads(in_process("scan", "examples", "--format", "JSON").stdout)["findings"]) == 5
    assert json.loads(in_process("config", "--format", "Json").stdout)["settings"]
    assert in_process("rules", "--format", "MARKDOWN").stdout.startswith("## GBF001")
    bad = in_process("scan", "examples", "--format", "xml")
    assert bad.exit_code == 2 and "--format must be one of text, json, sarif, github, not 'xml'" in bad.stderr
