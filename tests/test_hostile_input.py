"""Hostile input through the real command line: no lost edit, no crash without a line, patches that apply.

Each case runs ``python -m rewriter`` on real files in a temporary directory
and asserts the one line that names the problem, the exit code, and that
nothing is lost: a file that is not rewritten keeps its exact bytes, and a
patch from ``--dry-run`` applies with ``git apply`` to exactly what
``apply`` writes. Where a case needs something to happen while gbfix
works (an edit, a kill), a small driver installs a hook in the real
command before it starts, so the timing never depends on the machine.
"""

from __future__ import annotations

import hashlib
import json
import multiprocessing
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import warnings

import pytest

from tests.test_bad_input import GOOD, lines_naming, read, run_f

pytestmark = pytest.mark.cli

#: code around ``python -m rewriter``: installs ``HOOK`` (which may use os, sys, time, batch) and runs the CLI
DRIVER = """
import os, sys, time
import rewriter.engine.batch as batch
{hook}
from rewriter.cli import main
sys.argv[0] = "gbfix"
main()
"""


#: the files here are not compiled: every function is looked at
EVERY_FUNCTION = ("--reach", "all")


def gbfix(*args: str, cwd, hook: str = "", timeout: float = 180) -> subprocess.CompletedProcess:
    command = [sys.executable, "-c", DRIVER.format(hook=hook)] if hook else [sys.executable, "-m", "rewriter"]
    if args and args[0] in ("apply", "scan"):
        args = (args[0], *EVERY_FUNCTION, *args[1:])
    return subprocess.run([*command, *args], cwd=cwd, capture_output=True, text=True, timeout=timeout)


def assert_one_error(result: subprocess.CompletedProcess, name: str, reason: str, line: int = 0) -> None:
    """Exactly one line names the file: ``[./]name[:line]: error: <reason>`` (scan and apply may spell it apart)."""
    named = lines_naming(result.stderr, name)
    assert len(named) == 1, result.stderr
    where = r"(\./)?" + re.escape(name) + (f":{line}" if line else r"(:\d+)?")
    assert re.fullmatch(rf"{where}: error: .*{reason}.*", named[0]), named[0]
    no_traceback(result)


def no_traceback(result: subprocess.CompletedProcess) -> None:
    assert "Traceback" not in result.stderr and "internal error" not in result.stderr, result.stderr


@pytest.fixture
def project(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.gbfix]\ntorch_only = false\n")
    (tmp_path / "good.py").write_text(GOOD)
    return tmp_path


def good_was_rewritten(project) -> bool:
    return "_gbfix_inner_1" in (project / "good.py").read_text()


# -- 1. an edit made while gbfix works on the file is never lost ----------------------

#: after the file's rewrite is ready, and before it is written, someone edits the file
EDIT_WHILE_WORKING = """
real = batch.transform_source
def transform_then_edit(text, path, settings, *rest):
    outcome = real(text, path, settings, *rest)
    if os.path.basename(path) == "edited.py":
{edit}
    return outcome
batch.transform_source = transform_then_edit
"""
APPEND = '        with open(path, "a") as handle:\n            handle.write("EDITED = 1\\n")'
# Same size, same modification time: only the content hash can tell.
SAME_SIZE_SAME_TIME = (
    "        st = os.stat(path)\n"
    '        with open(path, "rb") as handle:\n'
    "            data = handle.read()\n"
    '        with open(path, "wb") as handle:\n'
    '            handle.write(data.replace(b"x + 1", b"x + 2"))\n'
    "        os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))"
)


@pytest.mark.parametrize("edit", [APPEND, SAME_SIZE_SAME_TIME], ids=["append", "same_size_and_time"])
def test_a_file_edited_while_gbfix_works_on_it_keeps_the_edit(project, edit):
    path = project / "edited.py"
    path.write_text(GOOD)
    os.chmod(path, 0o640)
    result = gbfix("apply", "edited.py", "good.py", cwd=project, hook=EDIT_WHILE_WORKING.format(edit=edit))
    assert_one_error(result, "edited.py", "changed while gbfix was working on it")
    assert result.returncode == 2
    edited = path.read_text()
    assert "_gbfix_inner_1" not in edited
    assert edited == (GOOD + "EDITED = 1\n" if edit == APPEND else GOOD.replace("x + 1", "x + 2"))
    assert oct(os.stat(path).st_mode & 0o777) == oct(0o640)
    assert good_was_rewritten(project)
    assert not [n for n in os.listdir(project) if n.startswith(".gbfix-")], "temporary file left behind"


# -- 2. a file too deep for the parser is refused before parsing, with a line --------


def _deep(expression: str) -> str:
    return (
        "import torch\n\ndef f(x):\n    for i in range(2):\n"
        f"        y = {expression}\n        x = x + 1\n        print(i)\n    return x\n"
    )


DEEP = {
    # Python's tokenizer allows 200 levels of brackets; libcst's parser crashed the process here.
    "brackets.py": (_deep("(" * 5000 + "1" + ")" * 5000), "syntax error: too many nested parentheses", 5),
    # No bracket at all: only a real parser sees how deep this is.
    "lambdas.py": (_deep("lambda: " * 8000 + "1"), "too deeply nested to parse", 0),
}


@pytest.mark.parametrize("command", ["apply", "scan"])
def test_a_file_too_deep_to_parse_gets_one_line_and_the_batch_goes_on(project, command):
    for name, (text, _, _) in DEEP.items():
        (project / name).write_text(text)
    args = ("apply", ".") if command == "apply" else ("scan", ".")
    result = gbfix(*args, cwd=project)  # three files: no pool, each in this process
    assert result.returncode == 2, result.stderr
    for name, (text, reason, line) in DEEP.items():
        assert_one_error(result, name, reason, line)
        assert (project / name).read_text() == text
    assert "3 files scanned" in result.stderr and "2 errors" in result.stderr
    if command == "apply":
        assert good_was_rewritten(project)


#: the file in hand never finishes, mostly inside libcst's native parser: only an interrupt ends it
ENDLESS = """
import libcst
def endless(text, path, settings, *rest):
    deep = "x = " + "-" * 2000 + "1\\n"
    open(os.path.join(os.path.dirname(path), "started"), "w").close()
    while True:
        libcst.parse_module(deep)
batch.transform_source = endless
"""


def test_ctrl_c_stops_the_file_in_hand(project):
    # Files are processed on a thread of their own (deep stack); Ctrl-C reaches the main thread.
    process = subprocess.Popen(
        [sys.executable, "-c", DRIVER.format(hook=ENDLESS), "apply", *EVERY_FUNCTION, "good.py"],
        cwd=project,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        deadline = time.monotonic() + 60
        while not (project / "started").exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        process.send_signal(signal.SIGINT)
        _, stderr = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode in (130, -signal.SIGINT), stderr
    assert "Fatal Python error" not in stderr
    assert read(project / "good.py") == GOOD.encode()


# -- 3. configuration and usage errors: one line, exit 2 -------------------------------


def test_a_pyproject_that_is_not_utf8(project):
    (project / "pyproject.toml").write_bytes(b"[tool.gbfix]\n# caf\xe9\ntorch_only = false\n")
    for command in ("scan", "apply"):
        result = gbfix(command, ".", cwd=project)
        no_traceback(result)
        assert result.returncode == 2
        assert result.stderr.splitlines() == [
            f"gbfix: error: {project / 'pyproject.toml'}: cannot read: not valid UTF-8 (byte 18)"
        ]
    assert read(project / "good.py") == GOOD.encode()


def test_an_exclude_glob_that_is_not_a_pattern(project):
    for command in ("scan", "apply"):
        result = gbfix(command, "--exclude", "\\", ".", cwd=project)
        no_traceback(result)
        assert result.returncode == 2
        assert result.stderr.splitlines() == ["gbfix: error: --exclude: '\\\\' is not a valid gitignore pattern"]
    (project / "pyproject.toml").write_text('[tool.gbfix]\nexclude = ["!"]\n')
    result = gbfix("scan", ".", cwd=project)
    assert result.returncode == 2
    assert result.stderr.splitlines() == [
        f"gbfix: error: {project / 'pyproject.toml'}: [tool.gbfix] exclude: '!' is not a valid gitignore pattern"
    ]
    assert read(project / "good.py") == GOOD.encode()


def test_a_gitignore_line_git_would_drop_is_dropped(project):
    (project / "skipped.py").write_text(GOOD)
    (project / ".gitignore").write_text("\\\nskipped.py\n")
    result = gbfix("apply", ".", cwd=project)
    assert result.returncode == 0, result.stderr
    assert "1 file scanned" in result.stderr
    assert good_was_rewritten(project) and (project / "skipped.py").read_text() == GOOD


def test_a_negative_job_count(project):
    for i in range(8):  # enough files for a process pool
        (project / f"m{i}.py").write_text(GOOD)
    for command in ("scan", "apply"):
        result = gbfix(command, "-j", "-1", ".", cwd=project)
        no_traceback(result)
        assert result.returncode == 2
        assert result.stderr.splitlines() == ["gbfix: error: -j/--jobs must be 0 (one per CPU) or more, not -1"]
    assert read(project / "good.py") == GOOD.encode()


def test_exclude_globs_use_pathspec_without_its_deprecated_name(tmp_path):
    from rewriter.engine.discovery import discover, gitignore_spec

    (tmp_path / "a.py").write_text("x = 1\n")
    (tmp_path / "b.py").write_text("x = 1\n")
    (tmp_path / ".gitignore").write_text("/b.py\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        found = discover([str(tmp_path)], ["**/a.py"], cwd=str(tmp_path))
        spec = gitignore_spec(["build/", "*.pyc", "!keep.pyc", "/top.py"])
    assert found.files == [] and not found.problems
    # gitignore semantics as before: directories, negation, anchoring.
    assert spec.match_file("build/x.py") and spec.match_file("a/b.pyc") and not spec.match_file("keep.pyc")
    assert spec.match_file("top.py") and not spec.match_file("sub/top.py")


# -- 5. deep but valid code is rewritten, or refused as too deep ------------------------


def _nested_ifs(depth: int) -> str:
    lines = ["import torch", "", "def f(x):"]
    lines += ["    " + " " * k + "if x is not None:" for k in range(depth)]
    pad = "    " + " " * depth
    lines += [pad + "for i in range(2):", pad + "    x = x + 1", pad + "    print(i)", "    return x", ""]
    return "\n".join(lines)


DEEP_AND_VALID = {
    "ifs_86.py": _nested_ifs(86),
    "ifs_95.py": _nested_ifs(95),
    "sum_500.py": _deep("+".join(["x"] * 500)),
    "sum_1000.py": _deep("+".join(["x"] * 1000)),
    "lists_150.py": _deep("[" * 150 + "1" + "]" * 150),
    "lists_199.py": _deep("[" * 199 + "1" + "]" * 199),
}


def test_deep_but_valid_code_is_rewritten(project):
    for name, text in DEEP_AND_VALID.items():
        (project / name).write_text(text)
    result = gbfix("apply", ".", cwd=project)
    no_traceback(result)
    assert result.returncode == 0, result.stderr
    for name, text in DEEP_AND_VALID.items():
        new = (project / name).read_text()
        assert "_gbfix_inner_1(1)" in new, name
        assert run_f(new.encode(), 1) == run_f(text.encode(), 1), name


def test_code_deeper_than_python_parses_is_refused_as_too_deep(project):
    text = _deep("+".join(["x"] * 5000))
    (project / "sum_5000.py").write_text(text)
    for command in ("scan", "apply"):
        result = gbfix(command, ".", cwd=project)
        assert_one_error(result, "sum_5000.py", "too deeply nested to parse")
        assert result.returncode == 2
    assert (project / "sum_5000.py").read_text() == text


# -- 6. --dry-run patches apply, byte for byte -----------------------------------------

LINE_END_AND_ENCODING_CASES = {
    "form_feed.py": ("\x0c" + GOOD.replace("x = x + 1", "x = x + 1  # a\x0cb")).encode(),
    "separators.py": GOOD.replace("x = x + 1", "x = x + 1  # \x0b \x1c \x1d \x1e \x85 \u2028 end").encode(),
    "cr_only.py": GOOD.replace("\n", "\r").encode(),
    "cr_only_no_final_end.py": GOOD.replace("\n", "\r").rstrip("\r").encode(),
    "crlf.py": GOOD.replace("\n", "\r\n").encode(),
    "no_final_newline.py": GOOD.rstrip("\n").encode(),
    "bom.py": b"\xef\xbb\xbf" + GOOD.encode(),
    "latin1.py": ("# -*- coding: latin-1 -*-\n" + GOOD.replace("print(i)", "print('\xe9', i)")).encode("latin-1"),
    "cp1252.py": ("# -*- coding: cp1252 -*-\n" + GOOD.replace("print(i)", "print('\u20ac', i)")).encode("cp1252"),
}


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
@pytest.mark.parametrize("name", sorted(LINE_END_AND_ENCODING_CASES))
def test_dry_run_patch_applies_to_exactly_what_apply_writes(tmp_path, name):
    data = LINE_END_AND_ENCODING_CASES[name]
    patched, written = tmp_path / "patched", tmp_path / "written"
    for directory in (patched, written):
        directory.mkdir()
        (directory / "pyproject.toml").write_text("[tool.gbfix]\ntorch_only = false\n")
        (directory / name).write_bytes(data)
    dry = subprocess.run(
        [sys.executable, "-m", "rewriter", "apply", *EVERY_FUNCTION, "--dry-run", name],
        cwd=patched,
        capture_output=True,
        timeout=120,
    )
    assert dry.returncode == 1, dry.stderr.decode()
    assert read(patched / name) == data
    check = subprocess.run(["git", "apply", "--check", "-"], cwd=patched, input=dry.stdout, capture_output=True)
    assert check.returncode == 0, check.stderr.decode() + dry.stdout.decode("latin-1")
    subprocess.run(["git", "apply", "-"], cwd=patched, input=dry.stdout, check=True, capture_output=True)
    result = gbfix("apply", name, cwd=written)
    assert result.returncode == 0, result.stderr
    assert read(written / name) != data
    assert read(patched / name) == read(written / name)
    assert run_f(read(written / name)) == run_f(data)


def test_a_file_with_old_mac_line_ends_keeps_its_last_one(project):
    data = GOOD.replace("\n", "\r").encode()
    (project / "mac.py").write_bytes(data)
    result = gbfix("apply", "mac.py", cwd=project)
    assert result.returncode == 0, result.stderr
    new = read(project / "mac.py")
    assert b"_gbfix_inner_1" in new and new.endswith(b"    return x\r") and b"\n" not in new
    again = gbfix("apply", "mac.py", cwd=project)
    assert again.returncode == 0 and read(project / "mac.py") == new


# -- 7. silent misses and inconsistencies ---------------------------------------------


def test_a_self_documenting_fstring_in_a_loop_is_unrolled(project):
    text = GOOD.replace("print(i)", 'print(f"{i=} { i = }")')
    (project / "eq.py").write_text(text)
    scan = gbfix("scan", "eq.py", cwd=project)
    assert scan.returncode == 1, scan.stderr
    assert scan.stdout.startswith("eq.py:4:5: GBF001 ")
    assert scan.stdout.rstrip().endswith("[fix: safe] [evidence: none]")
    result = gbfix("apply", "eq.py", cwd=project)
    assert result.returncode == 0, result.stderr
    new = (project / "eq.py").read_text()
    assert 'print("i={!r}  i = {!r}".format(i, i))' in new
    assert run_f(new.encode()) == run_f(text.encode())


def test_an_fstring_unrolling_cannot_keep_is_outlined_with_a_reason(project):
    # two tensor ops: a loop of a function with one is left as it is, whatever else
    text = GOOD.replace("print(i)", 'print(f"{i:{x!r}}")').replace("x = x + 1", "x = x * 2 + 1")
    (project / "nested.py").write_text(text)
    scan = gbfix("scan", "nested.py", cwd=project)
    assert scan.returncode == 1 and "GBF002" in scan.stdout and "[fix: safe]" in scan.stdout, scan.stdout
    alone = gbfix("scan", "--select", "GBF001", "nested.py", cwd=project)
    assert "not unrolled: nested replacement field with its own conversion" in alone.stdout, alone.stdout
    result = gbfix("apply", "nested.py", cwd=project)
    assert result.returncode == 0 and "_gbfix_loop_1()" in (project / "nested.py").read_text()


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="PEP 701 f-strings compile here")
def test_code_for_a_newer_python_is_an_error_in_scan_as_in_apply(project):
    text = GOOD.replace("print(i)", 'print(f"{\'a\' + "b"} {i}")')
    (project / "newer.py").write_text(text)
    lines = []
    for command in ("scan", "apply"):
        result = gbfix(command, ".", cwd=project)
        assert result.returncode == 2, (command, result.stderr)
        assert_one_error(result, "newer.py", "syntax error: .*Python 3.11 cannot parse the file", line=6)
        assert "GBF" not in result.stdout or "newer.py" not in result.stdout
        lines.append([line.removeprefix("./") for line in lines_naming(result.stderr, "newer.py")])
    assert lines[0] == lines[1]
    assert (project / "newer.py").read_text() == text


NOTEBOOK = {"cells": [{"cell_type": "code", "source": ["for i in range(2):\n", "    print(i)\n"]}], "nbformat": 4}


def test_a_notebook_named_on_the_command_line_is_reported_as_not_supported(project):
    data = json.dumps(NOTEBOOK).encode()
    (project / "train.ipynb").write_bytes(data)
    for command in ("scan", "apply"):
        result = gbfix(command, "train.ipynb", "good.py", cwd=project)
        assert_one_error(result, "train.ipynb", "notebooks are not supported")
        assert result.returncode == 2
    assert good_was_rewritten(project) and read(project / "train.ipynb") == data
    # In a directory, notebooks are not Python files: passed over like any other.
    (project / "good.py").write_text(GOOD)
    result = gbfix("apply", ".", cwd=project)
    assert result.returncode == 0 and not lines_naming(result.stderr, "ipynb"), result.stderr


#: every file takes far longer than the test: the workers are busy when the parent is killed
STUCK = "batch.process_file = lambda path, settings, *rest, **known: time.sleep(300)"


def _children(pid: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as handle:
                    fields = handle.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.append(int(entry))
    return found


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.skipif(not os.path.isdir("/proc") or multiprocessing.get_start_method() != "fork", reason="Linux, fork")
def test_workers_die_with_a_killed_parent(project):
    for i in range(10):
        (project / f"m{i}.py").write_text(GOOD)
    parent = subprocess.Popen(
        [sys.executable, "-c", DRIVER.format(hook=STUCK), "apply", *EVERY_FUNCTION, ".", "-j", "2"],
        cwd=project,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    workers: list[int] = []
    try:
        deadline = time.monotonic() + 60
        while len(workers) < 2 and time.monotonic() < deadline:
            time.sleep(0.2)
            workers = _children(parent.pid)
        assert len(workers) >= 2, "the pool never started"
        parent.send_signal(signal.SIGKILL)
        parent.wait(timeout=30)
        deadline = time.monotonic() + 15
        while any(_alive(w) for w in workers) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not [w for w in workers if _alive(w)], "workers outlived their parent"
    finally:
        if parent.poll() is None:
            parent.kill()
            parent.wait()
        for worker in workers:
            if _alive(worker):
                os.kill(worker, signal.SIGKILL)
    assert read(project / "good.py") == GOOD.encode()


# -- 7. a recorded run that is not what Dynamo writes: one line naming the log and its line ----------

#: the glog prefix of a TORCH_TRACE record
PREFIX = "V1207 12:00:00.000000 1 torch/_logging/structured.py:28] "
_BLOCK = (
    "Graph break in user code at good.py:6\nGraph Break Reason: x\n"
    'User code traceback:\n  File "good.py", line 6, in f\n'
)
_DIGITS = "9" * 5000


def _artifact(block: str) -> str:
    head = {"artifact": {"name": "dynamo_graph_break_reason", "encoding": "string"}, "frame_id": 0}
    return PREFIX + json.dumps(head) + "\n" + "".join(f"\t{line}\n" for line in block.splitlines())


def _metrics(**fields: object) -> str:
    data = {"compile_id": "0/0", "fail_type": "x", "fail_user_frame_filename": "good.py", "co_filename": "good.py"}
    data.update(co_firstlineno=3, co_name="f", fail_user_frame_lineno=6)
    data.update(fields)
    return PREFIX + json.dumps({"compilation_metrics": data}) + "\n"


#: name -> (the log's text, what its one line says); the bad record is on the log's second line
MALFORMED_TRACES = {
    "str_is_a_number": (PREFIX + '{"str": 5}', "'str' is not a JSON array"),
    "str_is_null": (PREFIX + '{"str": null}', "'str' is not a JSON array"),
    "str_without_index": (PREFIX + '{"str": ["good.py"]}', r"'str' is not \[text, index\]"),
    "str_index_is_text": (PREFIX + '{"str": ["good.py", "one"]}', r"'str' is not \[text, index\]"),
    "truncated_json": (PREFIX + '{"dynamo_start": {"stack": [{"filename": 1, "na', "truncated or corrupt JSON"),
    "5000_digit_number_in_json": (PREFIX + '{"str": ["good.py", ' + _DIGITS + "]}", "truncated or corrupt JSON"),
    "not_an_object": (PREFIX + '{"a": 1} trailing', "truncated or corrupt JSON"),
    "binary_garbage": ("\x00\x7f\x00 garbage {{{", "no JSON after a log prefix"),
    "text_between_records": ("[rank0]: started", "no JSON after a log prefix"),
    "dynamo_start_is_a_list": (PREFIX + '{"dynamo_start": [1, 2]}', "'dynamo_start' is not a JSON object"),
    "stack_is_text": (PREFIX + '{"dynamo_start": {"stack": "f"}}', "'dynamo_start' has no list of frames"),
    "stack_of_numbers": (PREFIX + '{"dynamo_start": {"stack": [1]}}', "'dynamo_start' has no list of frames"),
    "metrics_is_a_list": (PREFIX + '{"compilation_metrics": [1]}', "'compilation_metrics' is not a JSON object"),
    "artifact_is_text": (PREFIX + '{"artifact": "x"}', "'artifact' is not a JSON object"),
    "5000_digit_line_as_text": (_metrics(fail_user_frame_lineno=_DIGITS).rstrip("\n"), "not a line number"),
    "line_is_a_word": (_metrics(fail_user_frame_lineno="six").rstrip("\n"), "not a line number"),
    "line_is_a_fraction": (_metrics(fail_user_frame_lineno=6.5).rstrip("\n"), "not a line number"),
    "line_is_nan": (_metrics().replace('"fail_user_frame_lineno": 6', '"fail_user_frame_lineno": NaN'), "line number"),
    "5000_digit_line_in_block": (_artifact(_BLOCK.replace("good.py:6", "good.py:" + _DIGITS)), "not a line number"),
    "5000_digit_frame_line": (_artifact(_BLOCK.replace("line 6", "line " + _DIGITS)), "not a line number"),
    "start_line_is_a_word": (PREFIX + '{"dynamo_start": {"stack": [{"line": "six", "name": "f"}]}}', "line number"),
    "start_line_is_negative": (PREFIX + '{"dynamo_start": {"stack": [{"line": -5, "name": "f"}]}}', "line number"),
    "start_name_is_a_number": (
        PREFIX + '{"dynamo_start": {"stack": [{"line": 3, "name": 5, "filename": 0}]}}',
        "a frame of 'dynamo_start' is not",
    ),
    "start_filename_is_a_list": (
        PREFIX + '{"dynamo_start": {"stack": [{"line": 3, "name": "f", "filename": [0]}]}}',
        "a frame of 'dynamo_start' is not",
    ),
}
#: the same for ``--log`` (TORCH_LOGS=graph_breaks text): the bad block starts on the log's second line
MALFORMED_LOGS = {
    "5000_digit_line": (_BLOCK.replace("good.py:6", "good.py:" + _DIGITS), "not a line number"),
    "5000_digit_frame_line": (_BLOCK.replace("line 6", "line " + _DIGITS), "not a line number"),
    "resume_at_5000_digits": (
        _BLOCK.replace(
            "Graph Break Reason: x", "Graph Break Reason: x\n  frame skipped: f (good.py line " + _DIGITS + ")"
        ),
        "not a line number",
    ),
}
#: a first line that is fine, so the one line must name the second
_FIRST = PREFIX + '{"str": ["good.py", 0]}\n'


def _assert_log_refused(result: subprocess.CompletedProcess, log: str, reason: str, project) -> None:
    assert result.returncode == 2, result.stderr
    named = lines_naming(result.stderr, log)
    assert len(named) == 1 and re.fullmatch(rf"gbfix: error: {re.escape(log)}:2: .*{reason}.*", named[0]), named
    no_traceback(result)
    assert (project / "good.py").read_text() == GOOD


@pytest.mark.parametrize("command", ["scan", "apply"])
@pytest.mark.parametrize("name", sorted(MALFORMED_TRACES))
def test_a_malformed_trace_is_one_line_naming_the_record(project, command, name):
    text, reason = MALFORMED_TRACES[name]
    (project / "trace").mkdir()
    log = "trace/dedicated_log_torch_trace_1.log"
    (project / log).write_text(_FIRST + text + "\n")
    _assert_log_refused(gbfix(command, "--trace", "trace", "good.py", cwd=project), log, reason, project)


def _payload_record(payload: str) -> str:
    """A record with a payload and the hash Dynamo writes with it (of the payload, tab-indented below)."""
    digest = hashlib.md5(payload.encode("utf-8")).hexdigest()
    head = {"artifact": {"name": "inductor_config", "encoding": "json"}, "has_payload": digest}
    return PREFIX + json.dumps(head) + "\n" + "".join(f"\t{line}\n" for line in payload.splitlines())


_CONFIG = '{\n"a": 1,\n"b": 2\n}'
#: name -> (the whole log's text, what its one line says, the line it names or 0)
UNUSABLE_TRACES = {
    "empty": ("", "no TORCH_TRACE records", 0),
    "blank": ("\n  \n", "no TORCH_TRACE records", 0),
    "graph_breaks_text_not_a_trace": (
        "V1207 12:00:00.000000 1 torch/_dynamo/symbolic_convert.py:5124] [0/0] [__graph_breaks] item () {}\n",
        "no JSON after a log prefix",
        1,
    ),
    "cut_inside_the_last_payload": (_FIRST + _payload_record(_CONFIG)[:-12], "truncated", 2),
}


@pytest.mark.parametrize("command", ["scan", "apply"])
@pytest.mark.parametrize("name", sorted(UNUSABLE_TRACES))
def test_a_trace_with_nothing_to_read_or_cut_short_is_one_line(project, command, name):
    text, reason, line = UNUSABLE_TRACES[name]
    (project / "trace").mkdir()
    log = "trace/dedicated_log_torch_trace_1.log"
    (project / log).write_text(text)
    result = gbfix(command, "--trace", "trace", "good.py", cwd=project)
    assert result.returncode == 2, result.stderr
    where = re.escape(log) + (f":{line}" if line else "")
    assert re.fullmatch(rf"gbfix: error: {where}: .*{reason}.*", result.stderr.strip()), result.stderr
    assert (project / "good.py").read_text() == GOOD


def test_a_whole_trace_is_read(project):
    """The checks above pass what Dynamo writes: a record with its payload whole is read."""
    (project / "trace").mkdir()
    (project / "trace/dedicated_log_torch_trace_1.log").write_text(_FIRST + _payload_record(_CONFIG))
    result = gbfix("scan", "--trace", "trace", "good.py", cwd=project)
    assert result.returncode == 1 and "error:" not in result.stderr, result.stderr


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="a named pipe")
@pytest.mark.parametrize("option", ["--trace", "--log"])
def test_a_trace_or_log_that_is_a_directory_or_a_pipe(project, option):
    (project / "dir.log").mkdir()
    os.mkfifo(project / "pipe")
    expected = {"--trace": "not a TORCH_TRACE directory or log file", "--log": "cannot read the log: Is a directory"}
    path = "pipe" if option == "--trace" else "dir.log"
    result = gbfix("apply", option, path, "good.py", cwd=project, timeout=60)
    assert result.returncode == 2
    assert result.stderr.splitlines() == [f"gbfix: error: {path}: {expected[option]}"]
    assert (project / "good.py").read_text() == GOOD


@pytest.mark.parametrize("command", ["scan", "apply"])
@pytest.mark.parametrize("name", sorted(MALFORMED_LOGS))
def test_a_malformed_graph_breaks_log_is_one_line_naming_the_block(project, command, name):
    text, reason = MALFORMED_LOGS[name]
    (project / "breaks.log").write_text("[rank0]: started\n" + text)
    _assert_log_refused(gbfix(command, "--log", "breaks.log", "good.py", cwd=project), "breaks.log", reason, project)


# -- 8. source on stdin: none at all, or more than a file may hold -------------------------------------


@pytest.mark.parametrize("command", ["scan", "apply"])
def test_dash_with_stdin_closed(project, command):
    result = subprocess.run(
        [sys.executable, "-m", "rewriter", command, "-"],
        cwd=project,
        capture_output=True,
        text=True,
        stdin=None,
        preexec_fn=lambda: os.close(0),
    )
    assert result.returncode == 2
    assert result.stderr.splitlines() == ["-: error: stdin is closed: no source to read"]
    assert result.stdout == ""


@pytest.mark.parametrize("command", ["scan", "apply"])
def test_a_source_on_stdin_over_the_size_limit_is_refused_as_a_file_is(project, command):
    big = project / "big.py"
    big.write_text("x = 1\n" * (11 * 1024 * 1024 // 6))
    as_file = gbfix(command, "big.py", cwd=project)
    with open(big, "rb") as stdin:
        started = time.monotonic()
        result = subprocess.run(
            [sys.executable, "-m", "rewriter", command, "-", "--stdin-filename", "big.py"],
            cwd=project,
            stdin=stdin,
            capture_output=True,
            timeout=120,
        )
    assert time.monotonic() - started < 60  # refused, not parsed
    assert result.returncode == as_file.returncode == 2
    assert lines_naming(result.stderr.decode(), "big.py") == ["big.py: error: larger than 10 MiB; skipped"]
    assert lines_naming(as_file.stderr, "big.py") == ["big.py: error: larger than 10 MiB; skipped"]
    assert result.stdout == b""  # apply -: the editor's buffer is not replaced


@pytest.mark.parametrize(
    ("args", "what"),
    [
        (["scan", "good.py"], "the report (use --output FILE)"),
        (["scan", "-"], "the report (use --output FILE)"),
        (["apply", "-"], "the rewritten source"),
        (["apply", "--dry-run", "good.py"], "the patch"),
    ],
)
def test_stdout_closed_is_one_line_when_output_must_go_there(project, args, what):
    with open(project / "good.py", "rb") as stdin:
        result = subprocess.run(
            [sys.executable, "-m", "rewriter", *args],
            cwd=project,
            stdin=stdin,
            stderr=subprocess.PIPE,
            text=True,
            preexec_fn=lambda: os.close(1),
        )
    assert result.returncode == 2
    assert result.stderr.splitlines() == [f"gbfix: error: stdout is closed: nowhere to write {what}"]
    assert (project / "good.py").read_text() == GOOD


def test_stdout_closed_does_not_stop_an_apply_in_place(project):
    """Only a command whose output goes to stdout needs it: `apply` in place writes the file."""
    result = subprocess.run(
        [sys.executable, "-m", "rewriter", "apply", *EVERY_FUNCTION, "good.py"],
        cwd=project,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: os.close(1),
    )
    assert result.returncode == 0, result.stderr
    assert good_was_rewritten(project)


# -- 9. a program that starts a process of its own: a timeout ends them all ------------------------------

SPAWNS = """\
import os, subprocess, sys, time

import torch


#: the child starts a grandchild and writes its pid
CHILD = (
    "import os, subprocess, sys, time; "
    "grandchild = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)']); "
    "open(os.environ['GBFIX_TEST_PIDS'], 'a').write(f'{grandchild.pid}\\\\n'); time.sleep(600)"
)


def entry(x):
    child = subprocess.Popen([sys.executable, "-c", CHILD])
    with open(os.environ["GBFIX_TEST_PIDS"], "a") as handle:
        handle.write(f"{os.getpid()} {child.pid}\\n")
    while len(open(os.environ["GBFIX_TEST_PIDS"]).read().split()) < 3:  # the grandchild runs
        time.sleep(0.1)
    time.sleep(600)
    return x + 1


def example_inputs():
    return (torch.ones(2),)


compiled = torch.compile(entry)
"""


def _running(pid: int) -> bool:
    """Whether ``pid`` is a live process (a zombie waiting for its reaper has ended)."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            state = handle.read().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="reads /proc")
@pytest.mark.parametrize("command", ["verify", "advise"])
def test_a_timeout_ends_the_program_and_what_it_started(tmp_path, command):
    (tmp_path / "spawns.py").write_text(SPAWNS)
    pids = tmp_path / "pids.txt"
    # long enough for the program to start (importing torch on a loaded machine) and reach `entry`
    args = [command, "spawns.py", "--entry", "spawns:entry", "--inputs", "spawns:example_inputs", "--timeout", "90"]
    args += ["--device", "cpu"] + (["--before", "spawns.py"] if command == "verify" else [])
    env = dict(os.environ, GBFIX_TEST_PIDS=str(pids))
    result = subprocess.run(
        [sys.executable, "-m", "rewriter", *args], cwd=tmp_path, capture_output=True, text=True, env=env, timeout=400
    )
    assert result.returncode == 2, result.stderr
    first = result.stderr.splitlines()[0]
    ended = r"timed out, ended with every process it started \(see --timeout\)"
    assert re.fullmatch(rf"gbfix: error: ((before|after): spawns\.py|spawns:entry): {ended}", first), first
    started = [int(pid) for line in pids.read_text().splitlines() for pid in line.split()]
    # per side (verify runs two), the program, its child and its grandchild
    assert started and len(started) % 3 == 0
    deadline = time.monotonic() + 10
    while any(map(_running, started)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not [pid for pid in started if _running(pid)]
    assert (tmp_path / "spawns.py").read_text() == SPAWNS
