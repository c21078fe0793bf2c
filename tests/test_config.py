"""`[tool.gbfix]` configuration and `gbfix config`, which prints what a run would use."""

from __future__ import annotations

import json
import os
import re
import sys

import pytest
from typer.testing import CliRunner

from codemods.rules.registry import REGISTRY
from rewriter.cli import app
from rewriter.engine.config import (
    Settings,
    VerifyEntry,
    config_keys,
    find_pyproject,
    load_settings,
    settings_from_table,
)
from tests.golden import ROOT

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

FULL = """
[tool.gbfix]
select = ["GBF001"]
ignore = []
exclude = ["vendored/**", "tests/fixtures/**"]
unroll_max_trips = 4
reentrant_context_managers = ["contextlib.nullcontext", "mylib.Timer"]
first_party = ["mypkg"]
third_party = ["transformers"]
breaking_third_party = ["transformers.models.bert.BertModel"]

[[tool.gbfix.verify]]
file = "model.py"
entry = "model:forward"
inputs = "model:example_inputs"
"""


def invoke(*args: str):
    return CliRunner().invoke(app, list(args))


@pytest.fixture
def project(tmp_path, monkeypatch):
    (tmp_path / "pyproject.toml").write_text(FULL)
    (tmp_path / "src").mkdir()
    monkeypatch.chdir(tmp_path)
    return tmp_path


def printed_settings(output: str, path: str) -> Settings:
    table = tomllib.loads(output)["tool"]["gbfix"]
    return settings_from_table(table, path)


def test_every_key_is_read(project):
    settings = load_settings(str(project / "src"))
    assert settings.source == str(project / "pyproject.toml")
    assert settings.select == ("GBF001",)
    assert settings.unroll_max_trips == 4
    assert settings.reentrant_context_managers == ("contextlib.nullcontext", "mylib.Timer")
    assert settings.first_party == ("mypkg",) and settings.third_party == ("transformers",)
    assert settings.breaking_third_party == ("transformers.models.bert.BertModel",)
    assert settings.verify == (VerifyEntry(str(project / "model.py"), "model:forward", "model:example_inputs"),)


def test_config_prints_toml_that_reads_back_the_same(project):
    result = invoke("config", "src")
    assert result.exit_code == 0, result.stderr
    assert f"# gbfix configuration from {project / 'pyproject.toml'}" in result.stdout
    assert "# active rules: GBF001" in result.stdout
    again = printed_settings(result.stdout, str(project / "pyproject.toml"))
    assert again == load_settings(str(project))
    for key in config_keys():
        assert re.search(rf"^{key} = |^\[\[tool\.gbfix\.{key}\]\]", result.stdout, re.M), key


def test_flags_override_the_file(project):
    code = next(iter(REGISTRY))
    result = invoke("config", "--select", code.lower(), "--ignore", code, "--exclude", "build/**")
    settings = printed_settings(result.stdout, "x")
    assert settings.select == (code,) and settings.ignore == (code,)
    assert settings.exclude == ("vendored/**", "tests/fixtures/**", "build/**")
    assert "# active rules: none" in result.stdout


def test_config_json(project):
    doc = json.loads(invoke("config", "--format", "json").stdout)
    assert doc["source"] == str(project / "pyproject.toml")
    assert doc["active_rules"] == ["GBF001"]
    assert set(doc["settings"]) == set(config_keys())
    assert doc["settings"]["verify"][0]["entry"] == "model:forward"


def test_defaults_without_pyproject(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    if find_pyproject(str(tmp_path)) is not None:
        pytest.skip("a parent directory of the temporary directory has a pyproject.toml")
    result = invoke("config")
    assert result.exit_code == 0
    assert "# gbfix configuration from no pyproject.toml found: defaults" in result.stdout
    assert printed_settings(result.stdout, "x") == settings_from_table({}, "x")
    assert printed_settings(result.stdout, "x").select == tuple(sorted(REGISTRY))


@pytest.mark.parametrize(
    "text,message",
    [
        ("[tool.gbfix]\nselct = []\n", "unknown key 'selct'"),
        ("[tool.gbfix]\nunroll_max_trips = 0\n", "unroll_max_trips must be a positive integer"),
        ('[tool.gbfix]\nexclude = "x"\n', "exclude must be a list of strings"),
        ('[tool.gbfix]\nselect = ["GBF9"]\n', "unknown rule code 'GBF9'"),
        ("[tool.gbfix\n", "cannot read"),
    ],
)
@pytest.mark.parametrize("command", ["config", "scan", "apply"])
def test_bad_config_is_an_error_naming_file_and_key(project, text, message, command):
    (project / "pyproject.toml").write_text(text)
    (project / "a.py").write_text("x = 1\n")
    result = invoke(command, *([] if command == "config" else ["a.py"]))
    assert result.exit_code == 2
    (line,) = result.stderr.splitlines()
    assert str(project / "pyproject.toml") in line and message in line


def test_explicit_config_file(project, tmp_path_factory):
    other = tmp_path_factory.mktemp("elsewhere") / "custom.toml"
    other.write_text("[tool.gbfix]\nunroll_max_trips = 2\n")
    result = invoke("config", "--config", str(other))
    assert printed_settings(result.stdout, str(other)).unroll_max_trips == 2


def test_readme_documents_every_key():
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as handle:
        readme = handle.read()
    linting = readme.split("## Configuration", 1)[1]
    for key in config_keys():
        assert f"| `{key}` |" in linting, f"README's configuration table lacks {key}"


# -- read as ruff reads its own table -----------------------------------------------------------


def _tree(root, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


def test_exclude_is_relative_to_the_configuration_files_directory(tmp_path, monkeypatch):
    from rewriter.engine.discovery import discover

    _tree(
        tmp_path,
        {
            "proj/pyproject.toml": '[tool.gbfix]\nexclude = ["pkg/generated/**"]\n',
            "proj/pkg/model.py": "",
            "proj/pkg/generated/table.py": "",
            # the same relative path below the working directory is not what the file names
            "pkg/generated/other.py": "",
        },
    )
    names = {}
    for cwd, path in ((tmp_path, "proj"), (tmp_path / "proj" / "pkg", "."), (tmp_path, ".")):
        monkeypatch.chdir(cwd)
        settings = load_settings(path)
        files = discover([path], settings.exclusion()).files
        names[str(cwd), path] = sorted(os.path.relpath(f, tmp_path) for f in map(os.path.abspath, files))
    assert names[str(tmp_path), "proj"] == ["proj/pkg/model.py"]
    assert names[str(tmp_path / "proj" / "pkg"), "."] == ["proj/pkg/model.py"]
    # from above the project no pyproject.toml is found: nothing is excluded
    assert "pkg/generated/other.py" in names[str(tmp_path), "."]


def test_a_flag_exclude_stays_relative_to_the_working_directory(tmp_path, monkeypatch):
    from rewriter.engine.config import with_overrides

    _tree(tmp_path, {"proj/pyproject.toml": "[tool.gbfix]\n", "proj/a/x.py": "", "proj/b/x.py": ""})
    monkeypatch.chdir(tmp_path / "proj" / "a")
    excluded = with_overrides(load_settings(".."), flag_exclude=("x.py",)).exclusion()
    assert excluded.match("x.py") and not excluded.match("../b/x.py")


def test_a_nested_pyproject_without_the_table_does_not_hide_the_root_one(tmp_path):
    _tree(
        tmp_path,
        {
            "pyproject.toml": '[tool.gbfix]\nselect = ["GBF001"]\n',
            "libs/inner/pyproject.toml": '[project]\nname = "inner"\n\n[tool.ruff]\nline-length = 100\n',
            "libs/inner/m.py": "",
        },
    )
    assert find_pyproject(str(tmp_path / "libs" / "inner" / "m.py")) == str(tmp_path / "pyproject.toml")
    settings = load_settings(str(tmp_path / "libs" / "inner"))
    assert settings.source == str(tmp_path / "pyproject.toml") and settings.select == ("GBF001",)
    # a nested file with the table is the nearest one, as before
    (tmp_path / "libs" / "inner" / "pyproject.toml").write_text("[tool.gbfix]\nunroll_max_trips = 2\n")
    assert load_settings(str(tmp_path / "libs" / "inner")).unroll_max_trips == 2


@pytest.mark.parametrize("text", ['[project]\nname = "x"\n', "", "[tool.gbfix]\n", "[tool.black]\n"])
def test_a_config_file_with_no_gbfix_keys_is_an_error(tmp_path, monkeypatch, text):
    (tmp_path / "other.toml").write_text(text)
    (tmp_path / "m.py").write_text("")
    monkeypatch.chdir(tmp_path)
    result = invoke("scan", "--config", "other.toml", "m.py")
    assert result.exit_code == 2
    assert result.stderr.splitlines() == ["gbfix: error: other.toml: no [tool.gbfix] keys in this file"]
