"""Bad input through the real command line: reported, skipped, never lost.

Each case runs ``python -m rewriter apply`` in a temporary directory holding
one awkward file next to a good one. A file that cannot be processed gets
exactly one line ``path[:line]: error: reason``, the good file is still
rewritten, and the exit code is 2. Files that are awkward but valid (CRLF,
Latin-1, a BOM, tabs) are rewritten with every byte outside the changed
lines kept; files that need no change keep their exact bytes.
"""

from __future__ import annotations

import codecs
import contextlib
import difflib
import io
import os
import re
import stat
import subprocess
import sys
from typing import Collection

import pytest

from rewriter.engine.fileio import MAX_FILE_BYTES

#: a file GBF001 rewrites: the ``for`` header is the only line removed
GOOD = "import torch\n\ndef f(x):\n    for i in range(2):\n        x = x + 1\n        print(i)\n    return x\n"
LOOP_LINES = (4,)


#: every test here runs the real command on crafted files
pytestmark = pytest.mark.cli


def gbfix(*args: str, cwd: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run(
        # the files here are not compiled: every function is looked at
        [sys.executable, "-m", "rewriter", "apply", "--reach", "all", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def read(path) -> bytes:
    with open(path, "rb") as handle:
        return handle.read()


def lines_naming(stderr: str, name: str) -> list[str]:
    return [line for line in stderr.splitlines() if name in line]


def assert_one_error(result: subprocess.CompletedProcess, path: str, reason: str, line: int = 0) -> None:
    """Exactly one line names ``path``: ``path[:line]: error: <reason>``.

    The path is spelt as `scan` spells it: relative and normalised (``./a.py`` is ``a.py``).
    """
    named = lines_naming(result.stderr, os.path.basename(path))
    assert len(named) == 1, result.stderr
    where = re.escape(os.path.normpath(path)) + (f":{line}" if line else r"(:\d+)?")
    assert re.fullmatch(rf"{where}: error: .*{reason}.*", named[0]), named[0]
    assert "Traceback" not in result.stderr and "internal error" not in result.stderr


def assert_batch_went_on(project, result: subprocess.CompletedProcess) -> None:
    assert result.returncode == 2, result.stderr
    assert "_gbfix_inner_1" in (project / "good.py").read_text(), result.stderr


def unchanged_outside(old: bytes, new: bytes, changed: Collection[int]) -> None:
    """Every line of ``old`` but the 1-based lines ``changed`` is in ``new``, in order, byte for byte."""
    a, b = old.splitlines(keepends=True), new.splitlines(keepends=True)
    # Match the common head and tail first: difflib is quadratic on many equal lines.
    head = 0
    while head < min(len(a), len(b)) and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < min(len(a), len(b)) - head and a[-1 - tail] == b[-1 - tail]:
        tail += 1
    matcher = difflib.SequenceMatcher(None, a[head : len(a) - tail], b[head : len(b) - tail], autojunk=False)
    for tag, i1, i2, _, _ in matcher.get_opcodes():
        if tag in ("replace", "delete"):
            lost = [head + n + 1 for n in range(i1, i2) if head + n + 1 not in changed]
            assert not lost, f"lines {lost} changed: {[a[n - 1] for n in lost]}"


def run_f(source: bytes, arg: int = 1) -> tuple[object, str]:
    """Compile ``source`` as Python would (coding line, BOM) and call its ``f``."""
    namespace: dict = {}
    exec(compile(source, "<test>", "exec"), namespace)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        value = namespace["f"](arg)
    return value, out.getvalue()


@pytest.fixture
def project(tmp_path):
    # Most bad inputs here are plain Python: judge every file, not only those that import torch.
    (tmp_path / "pyproject.toml").write_text("[tool.gbfix]\ntorch_only = false\n")
    (tmp_path / "good.py").write_text(GOOD)
    return tmp_path


# -- files that cannot be processed: one line each, the batch goes on ----------


def test_syntax_error(project):
    (project / "broken.py").write_text("import torch\n\ndef f(x:\n    for i in range(2):\n        print(x)\n")
    result = gbfix(".", cwd=str(project))
    assert_one_error(result, "./broken.py", "syntax error: '\\(' was never closed", line=3)
    assert_batch_went_on(project, result)


def test_syntax_error_in_a_file_no_rule_could_touch_is_reported_too(project):
    # The project index reads every file with Python's parser: a file it rejects is bad input
    # even when no rule would look at it, and is left as it was.
    bad = b"def f(x:\n    return x\n"
    (project / "plain.py").write_bytes(bad)
    result = gbfix(".", cwd=str(project))
    assert_one_error(result, "./plain.py", "syntax error: '\\(' was never closed", line=1)
    assert_batch_went_on(project, result)
    assert read(project / "plain.py") == bad
    # alone, and read from stdin, the same
    alone = gbfix("plain.py", cwd=str(project))
    assert_one_error(alone, "plain.py", "syntax error", line=1)
    assert alone.returncode == 2
    piped = subprocess.run(
        [sys.executable, "-m", "rewriter", "scan", "-"], input="x = (\n", capture_output=True, text=True
    )
    assert piped.returncode == 2 and piped.stderr.startswith("-:1: error: syntax error"), piped.stderr


def test_bytes_that_are_not_valid_in_any_encoding(project):
    bad = b"import torch\n\ndef f(x):\n    for i in range(2):\n        x = x + 1\n        print('\xff\xfe\x80')\n"
    (project / "binary.py").write_bytes(bad)
    result = gbfix(".", cwd=str(project))
    assert_one_error(result, "./binary.py", "not valid utf-8")
    assert_batch_went_on(project, result)
    assert read(project / "binary.py") == bad


def test_unknown_coding_line(project):
    bad = b"# -*- coding: no-such-codec -*-\ndef f(x):\n    for i in range(2):\n        print(i)\n"
    (project / "codec.py").write_bytes(bad)
    result = gbfix(".", cwd=str(project))
    assert_one_error(result, "./codec.py", "unknown encoding: no-such-codec")
    assert_batch_went_on(project, result)
    assert read(project / "codec.py") == bad


def test_inconsistent_tabs_and_spaces(project):
    bad = b"def f(x):\n    for i in range(2):\n\tx = x + 1\n        print(i)\n    return x\n"
    (project / "tabs.py").write_bytes(bad)
    result = gbfix(".", cwd=str(project))
    assert_one_error(result, "./tabs.py", "inconsistent use of tabs and spaces", line=3)
    assert_batch_went_on(project, result)
    assert read(project / "tabs.py") == bad


def test_null_byte(project):
    bad = b"import torch\n\ndef f(x):\n    for i in range(2):\n        x = x + 1\n        print('\x00')\n"
    (project / "nul.py").write_bytes(bad)
    result = gbfix(".", cwd=str(project))
    assert_one_error(result, "./nul.py", "null bytes")
    assert_batch_went_on(project, result)


def test_file_larger_than_the_limit(project):
    big = project / "huge.py"
    with open(big, "wb") as handle:  # sparse: costs no disk
        handle.write(b"for i in range(2):\n    print(i)\n")
        handle.truncate(MAX_FILE_BYTES + 1)
    result = gbfix(".", cwd=str(project))
    assert_one_error(result, "./huge.py", "larger than 10 MiB; skipped")
    assert_batch_went_on(project, result)
    assert os.path.getsize(big) == MAX_FILE_BYTES + 1


def test_read_only_file_is_reported_and_unchanged(project):
    path = project / "locked.py"
    path.write_text(GOOD)
    os.chmod(path, 0o444)
    try:
        result = gbfix(".", cwd=str(project))
        assert_one_error(result, "./locked.py", "cannot write: the file is read-only")
        assert_batch_went_on(project, result)
        assert path.read_text() == GOOD
        assert stat.S_IMODE(os.stat(path).st_mode) == 0o444
        # Only writing needs permission: a dry run shows the patch as usual.
        dry = gbfix("locked.py", "--dry-run", cwd=str(project))
        assert dry.returncode == 1 and "+++ b/locked.py" in dry.stdout, dry.stderr
    finally:
        os.chmod(path, 0o644)


def test_path_that_does_not_exist(project):
    result = gbfix("missing.py", "good.py", cwd=str(project))
    assert_one_error(result, "missing.py", "no such file or directory")
    assert_batch_went_on(project, result)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_fifo_named_py_does_not_hang(project):
    os.mkfifo(project / "pipe.py")
    for args in ((".",), ("pipe.py", "good.py")):  # found by the walk, and named explicitly
        (project / "good.py").write_text(GOOD)
        result = gbfix(*args, cwd=str(project), timeout=60)
        name = "./pipe.py" if args == (".",) else "pipe.py"
        assert_one_error(result, name, "not a regular file")
        assert_batch_went_on(project, result)


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="PEP 695 compiles here")
def test_pep695_on_a_python_that_cannot_compile_it(project):
    # libcst would parse it; this Python cannot, so it is not processed here.
    source = GOOD.replace("def f(x):", "def f[T](x: T) -> T:")
    (project / "generic.py").write_text(source)
    result = gbfix(".", cwd=str(project))
    assert_one_error(result, "./generic.py", r"syntax error: .*Python 3\.\d+ cannot parse the file", line=3)
    assert_batch_went_on(project, result)
    assert (project / "generic.py").read_text() == source


# -- symlinks: followed inside the tree, never written through to outside -----


@pytest.fixture
def outside(tmp_path_factory):
    target = tmp_path_factory.mktemp("outside") / "target.py"
    target.write_text(GOOD)
    return target


def test_symlink_out_of_the_tree_is_skipped_when_walking(project, outside):
    os.symlink(outside, project / "link.py")
    result = gbfix(".", cwd=str(project))
    assert_one_error(result, "./link.py", "symlink to a file outside the scanned tree; skipped")
    assert_batch_went_on(project, result)
    assert outside.read_text() == GOOD
    assert os.path.islink(project / "link.py")


def test_symlink_out_of_the_working_directory_named_explicitly(project, outside):
    os.symlink(outside, project / "link.py")
    result = gbfix("link.py", "good.py", cwd=str(project))
    assert_one_error(result, "link.py", "symlink to a file outside the working directory; skipped")
    assert_batch_went_on(project, result)
    assert outside.read_text() == GOOD


def test_symlink_inside_the_tree_is_rewritten_once_and_stays_a_link(project):
    os.symlink("good.py", project / "alias.py")
    result = gbfix(".", cwd=str(project))
    assert result.returncode == 0, result.stderr
    assert "1 file scanned" in result.stderr and "1 changed" in result.stderr
    assert os.path.islink(project / "alias.py")
    assert os.readlink(project / "alias.py") == "good.py"
    assert "_gbfix_inner_1" in (project / "good.py").read_text()
    # Named explicitly, inside the working directory: written through, still a link.
    (project / "good.py").write_text(GOOD)
    result = gbfix("alias.py", cwd=str(project))
    assert result.returncode == 0, result.stderr
    assert os.path.islink(project / "alias.py")
    assert "_gbfix_inner_1" in (project / "good.py").read_text()


# -- awkward but valid files: rewritten, every other byte kept -----------------


def _rewritten_keeps_bytes(project, name: str, data: bytes, loop_lines: Collection[int] = LOOP_LINES) -> bytes:
    (project / name).write_bytes(data)
    result = gbfix(name, cwd=str(project))
    assert result.returncode == 0, result.stderr
    assert not lines_naming(result.stderr, "error:")
    new = read(project / name)
    assert new != data and b"_gbfix_inner_1" in new
    unchanged_outside(data, new, loop_lines)
    assert run_f(new) == run_f(data), "the rewrite changed what f does"
    return new


def test_crlf_line_endings_are_kept(project):
    data = GOOD.replace("\n", "\r\n").encode()
    new = _rewritten_keeps_bytes(project, "crlf.py", data)
    assert all(line.endswith(b"\r\n") for line in new.splitlines(keepends=True))


def test_latin1_with_a_coding_line(project):
    text = (
        "# -*- coding: latin-1 -*-\n"
        "# café\n"
        "def f(x):\n"
        "    for i in range(2):\n"
        "        x = x + 1\n"
        "        print('é', i)\n"
        "    return x\n"
    )
    data = text.encode("latin-1")
    new = _rewritten_keeps_bytes(project, "latin.py", data)
    assert b"caf\xe9" in new and b"'\xe9'" in new
    with pytest.raises(UnicodeDecodeError):
        new.decode("utf-8")  # still Latin-1, not re-encoded


def test_utf8_bom_is_kept(project):
    data = codecs.BOM_UTF8 + GOOD.replace("import torch", "# ü").encode()
    new = _rewritten_keeps_bytes(project, "bom.py", data)
    assert new.startswith(codecs.BOM_UTF8) and new.count(codecs.BOM_UTF8) == 1


def test_tabs_in_one_function_spaces_in_another(project):
    text = (
        "def f(x):\n"
        "\tfor i in range(2):\n"
        "\t\tx = x + 1\n"
        "\t\tprint(i)\n"
        "\treturn x\n"
        "\n"
        "def g(x):\n"
        "    for i in range(2):\n"
        "        print(i)\n"
        "    return x\n"
    )
    # Only the two `for` headers go; the bodies keep their tabs and spaces.
    new = _rewritten_keeps_bytes(project, "tabs_ok.py", text.encode(), loop_lines=(2, 8))
    for line in new.decode().splitlines():
        indent = line[: len(line) - len(line.lstrip())]
        assert not (" " in indent and "\t" in indent), repr(line)


def test_five_megabyte_file_is_processed(project):
    data = GOOD.encode() + b'DATA = """\n' + (b"y" * 99 + b"\n") * (5 * 1024 * 1024 // 100 + 1) + b'"""\n'
    assert 5 * 1024 * 1024 < len(data) < MAX_FILE_BYTES
    _rewritten_keeps_bytes(project, "large.py", data)


def test_files_needing_no_change_keep_their_bytes(project):
    keep = {
        "empty.py": b"",
        "crlf_plain.py": b"def g(x):\r\n    for i in range(2):\r\n        x = x + i\r\n    return x\r\n",
        "no_newline.py": b"def g(x):\n    for i in range(2):\n        x = x + i\n    return x",
        "latin_plain.py": "# coding: latin-1\nS = 'é'\nfor i in range(2):\n    print(S)\n".encode("latin-1"),
    }
    for name, data in keep.items():
        (project / name).write_bytes(data)
    result = gbfix(".", cwd=str(project))
    assert result.returncode == 0, result.stderr
    assert "5 files scanned" in result.stderr and "1 changed, 0 errors" in result.stderr
    for name, data in keep.items():
        assert read(project / name) == data, name


# -- a directory named like a source file --------------------------------------


def test_directory_named_like_a_py_file_is_searched(project):
    # A directory is a directory whatever its name: searched, not an error.
    (project / "pkg.py").mkdir()
    (project / "pkg.py" / "inner.py").write_text(GOOD)
    for args in ((".",), ("pkg.py",)):
        (project / "pkg.py" / "inner.py").write_text(GOOD)
        result = gbfix(*args, cwd=str(project))
        assert result.returncode == 0, result.stderr
        assert not lines_naming(result.stderr, "error:")
        assert "_gbfix_inner_1" in (project / "pkg.py" / "inner.py").read_text()


# -- Python 3.10-3.13 syntax: parsed, or reported; the worker never crashes ----

NEW_SYNTAX = {
    "match_statement": (
        "def f(x, cmd=(1, 2)):\n"
        "    match cmd:\n"
        "        case [a, *rest]:\n"
        "            for i in range(2):\n"
        "                x = x + a\n"
        "                print(i, rest)\n"
        "        case {'k': v, **kw}:\n"
        "            x = v\n"
        "        case int() | None:\n"
        "            pass\n"
        "        case _:\n"
        "            pass\n"
        "    return x\n"
    ),
    "parenthesized_with": (
        "import contextlib\n"
        "def f(x):\n"
        "    with (contextlib.nullcontext() as a,\n"
        "          contextlib.nullcontext() as b):\n"
        "        for i in range(2):\n"
        "            x = x + 1\n"
        "            print(i, a, b)\n"
        "    return x\n"
    ),
    "except_star": (
        "def f(x):\n"
        "    try:\n"
        "        for i in range(2):\n"
        "            x = x + 1\n"
        "            print(i)\n"
        "    except* ValueError as group:\n"
        "        print(group)\n"
        "    return x\n"
    ),
    "pep695_generic": (
        "def f[T](x: T) -> T:\n    for i in range(2):\n        x = x + 1\n        print(i)\n    return x\n"
    ),
    "pep695_type_alias": (
        "type Number = int | float\n"
        "def f(x):\n"
        "    for i in range(2):\n"
        "        x = x + 1\n"
        "        print(i)\n"
        "    return x\n"
    ),
    "pep701_fstring": (
        'def f(x):\n    for i in range(2):\n        x = x + 1\n        print(f"{\'a\' + "b"} {i}")\n    return x\n'
    ),
}


def _compiles(text: str) -> bool:
    try:
        compile(text, "<test>", "exec")
    except SyntaxError:
        return False
    return True


def test_new_syntax_parses_or_is_reported(project):
    for name, text in NEW_SYNTAX.items():
        (project / f"{name}.py").write_text(text)
    result = gbfix(".", cwd=str(project))
    assert "Traceback" not in result.stderr and "internal error" not in result.stderr, result.stderr
    assert result.returncode in (0, 2), result.stderr
    assert "_gbfix_inner_1" in (project / "good.py").read_text()
    for name, text in NEW_SYNTAX.items():
        new = (project / f"{name}.py").read_text()
        errors = [line for line in lines_naming(result.stderr, f"{name}.py") if ": error: " in line]
        if _compiles(text):
            # Valid on this Python: rewritten, still valid, and doing the same.
            assert not errors, errors
            assert new != text and _compiles(new), name
            assert run_f(new.encode()) == run_f(text.encode()), name
        else:
            # Newer than this Python: one syntax error line, file untouched.
            assert len(errors) == 1 and "syntax error" in errors[0], (name, result.stderr)
            assert new == text, name


# -- all of it at once, through the worker pool ---------------------------------


def test_every_bad_input_in_one_parallel_batch(project, outside):
    bad = {
        "broken.py": b"def f(x:\n    for i in range(2):\n        print(x)\n",
        "binary.py": b"def f(x):\n    for i in range(2):\n        x = x + 1\n        print('\xff')\n",
        "tabs.py": b"def f(x):\n    for i in range(2):\n\tx = x + 1\n        print(i)\n",
        "nul.py": b"def f(x):\n    for i in range(2):\n        x = x + 1\n        print('\x00')\n",
    }
    for name, data in bad.items():
        (project / name).write_bytes(data)
    os.symlink(outside, project / "link.py")
    if hasattr(os, "mkfifo"):
        os.mkfifo(project / "pipe.py")
    for i in range(10):
        (project / f"good_{i}.py").write_text(GOOD.replace("range(2)", f"range({i % 3 + 2})"))
    result = gbfix(".", "missing.py", "-j", "2", cwd=str(project), timeout=300)
    assert result.returncode == 2
    expected = [*bad, "link.py", "missing.py"] + (["pipe.py"] if hasattr(os, "mkfifo") else [])
    for name in expected:
        assert len(lines_naming(result.stderr, name)) == 1, (name, result.stderr)
    assert f"{len(expected)} errors" in result.stderr
    for i in range(10):
        assert "_gbfix_inner_1" in (project / f"good_{i}.py").read_text()
    for name, data in bad.items():
        assert read(project / name) == data
    assert outside.read_text() == GOOD
