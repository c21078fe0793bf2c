"""The README's promises: two commands set up a machine and test it, and every command shown works.

Commands are read from the README itself, so a command changed there is
the command tested here.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys

import pytest

from rewriter.engine.config import settings_from_table
from tests.golden import ROOT

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as _handle:
    README = _handle.read()

#: the install line for torch: the plain pin (PyTorch's own index may be unreachable, and pip retries it for minutes)
CPU_TORCH = "pip install torch==2.13.0"


def blocks(language: str) -> list[str]:
    """The README's fenced code blocks opened with ```language (``""`` for bare fences)."""
    return re.findall(rf"^```{language}\n(.*?)^```", README, flags=re.M | re.S)


def commands(block: str) -> list[str]:
    """The commands of a shell block: lines that are not comments, less a trailing ``  # comment``."""
    lines = [re.sub(r"\s{2,}#.*$", "", line).strip() for line in block.splitlines()]
    return [line for line in lines if line and not line.startswith("#")]


def top_commands() -> list[str]:
    return commands(blocks("bash")[0])


def test_the_top_holds_exactly_two_commands():
    assert README.startswith("# gbfix\n\n```bash\n"), "the two commands come first"
    setup, tests = top_commands()
    assert setup.startswith("python3 -m venv .venv && . .venv/bin/activate && ")
    assert CPU_TORCH in setup and "--index-url" not in setup, "the plain pinned wheel, as the README explains"
    assert setup.index(CPU_TORCH) < setup.index("pip install -e '.[test]'"), "torch before the project"
    assert setup.endswith(" && gbfix apply examples/ --dry-run --exit-zero")
    assert tests == "python -m pytest"


def test_the_main_job_of_command_1_exits_0_and_prints_the_patch(tmp_path):
    main_job = top_commands()[0].split(" && ")[-1]
    shutil.copytree(os.path.join(ROOT, "examples"), tmp_path / "examples")
    argv = [sys.executable, "-m", "rewriter", *shlex.split(main_job)[1:]]
    result = subprocess.run(argv, cwd=tmp_path, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.count("diff --git a/examples/") == 3
    gate = subprocess.run(argv[:-1], cwd=tmp_path, capture_output=True, text=True)  # without --exit-zero
    assert gate.returncode == 1 and gate.stdout == result.stdout


def test_ci_sets_up_and_runs_what_the_readme_says():
    with open(os.path.join(ROOT, ".ci", "run"), encoding="utf-8") as handle:
        ci = handle.read()
    assert f"python -m {CPU_TORCH}" in ci
    assert "assert torch.version.cuda is None" in ci, "CI checks that the line gives the CPU build"
    assert top_commands()[0].split(" && ")[-1] in ci
    assert 'python -m pytest -q -p no:cacheprovider -m "not slow"' in ci


def test_the_test_runs_named_in_the_readme_are_the_configured_markers():
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as handle:
        pytest_ini = tomllib.load(handle)["tool"]["pytest"]["ini_options"]
    declared = {marker.split(":")[0] for marker in pytest_ini["markers"]}
    assert {"torch_run", "fuzz", "cli", "slow"} <= declared
    # the default run leaves out every marked set
    expression = pytest_ini["addopts"].split("-m ", 1)[1].strip("'")
    assert set(expression.split(" and ")) == {f"not {marker}" for marker in declared}
    for marker in declared:
        assert f"`python -m pytest -m {marker}`" in README


def test_every_rule_is_in_the_rules_table():
    from codemods.rules.registry import REGISTRY

    section = README.split("## Rules\n", 1)[1].split("\n## ", 1)[0]
    assert re.findall(r"^\| (GBF\d{3}) \|", section, flags=re.M) == sorted(REGISTRY)


def test_the_install_lines_have_no_placeholders():
    section = README.split("### In another project's environment\n", 1)[1].split("\n## ", 1)[0]
    shown = "\n".join(blocks("sh")) + section
    assert not re.search(r"<[^>\n]*(url|tag|commit|version|path|your)[^>\n]*>", shown, re.I), shown
    assert "rev: $(git rev-parse HEAD)" in section and "gbfix @ git+" in section


def test_the_toml_shown_is_valid_configuration():
    for block in blocks("toml"):
        table = tomllib.loads(block)["tool"]["gbfix"]
        settings_from_table(table, "README.md")  # raises on an unknown key or a wrong type


def shown_examples() -> list[list[str]]:
    """The commands the README shows after the top block, one list per block, in the README's order.

    Shell blocks give their lines; output blocks give the lines after a ``$`` prompt.
    """
    examples = []
    for language, body in re.findall(r"^```(\w*)\n(.*?)^```", README, flags=re.M | re.S)[1:]:
        if language == "bash":
            examples.append(commands(body))
        elif language == "":
            examples.append(commands("\n".join(line[2:] for line in body.splitlines() if line.startswith("$ "))))
    return [example for example in examples if example]


@pytest.mark.torch_run
def test_every_command_shown_works_on_the_repository(tmp_path):
    """Each block's commands run in order in a copy of the repository, from the same clean tree.

    Every command exits 0 or 1 (findings, changes, skipped frames), with no
    error line and no traceback.
    """
    shutil.copytree(os.path.join(ROOT, "examples"), tmp_path / "examples")
    shutil.copy(os.path.join(ROOT, "pyproject.toml"), tmp_path)
    git = "git -c user.name=gbfix -c user.email=gbfix@example.invalid"
    subprocess.run(f"git init -q && git add -A && {git} commit -qm original", shell=True, cwd=tmp_path, check=True)
    python = shlex.quote(sys.executable)
    examples = shown_examples()
    shown = [command for example in examples for command in example]
    assert any(c.startswith("gbfix verify ") for c in shown) and any(c.startswith("TORCH_TRACE=") for c in shown)
    for example in examples:
        subprocess.run("git checkout -q -- . && git clean -fdq", shell=True, cwd=tmp_path, check=True)
        for command in example:
            line = re.sub(r"(^|&& )gbfix\b", lambda m: m.group(1) + f"{python} -m rewriter", command)
            line = line.replace("python -c", f"{python} -c").replace("/tmp/gbfix-trace", str(tmp_path / "trace"))
            result = subprocess.run(line, shell=True, cwd=tmp_path, capture_output=True, text=True)
            assert result.returncode in (0, 1), f"{command}\n{result.stdout}\n{result.stderr}"
            assert "Traceback" not in result.stderr and ": error: " not in result.stderr, (command, result.stderr)
