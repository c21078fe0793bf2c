"""Settings: ``[tool.gbfix]`` of the nearest pyproject.toml that has one, then flags.

As ruff reads its own table: a pyproject.toml without ``[tool.gbfix]`` (a
nested package's) does not hide the one above it, ``exclude`` globs are
relative to the directory of the file that names them, and a file named
with ``--config`` must have the table. Unknown keys are an error naming the
key, so a typo never silently turns a setting off. Command-line flags
override the file.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field, fields, replace
from typing import Any, Optional

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

from codemods.analysis.reach import EVIDENCE_LEVELS, REACH_MODES
from codemods.rules.base import RecordedSkip, RuleSettings
from codemods.rules.registry import REGISTRY
from rewriter.engine.discovery import Exclusion, PatternError, gitignore_spec


class ConfigError(Exception):
    """A configuration problem; the message names the file and key."""


@dataclass(frozen=True)
class VerifyEntry:
    file: str
    entry: str
    inputs: str


@dataclass(frozen=True)
class Settings(RuleSettings):
    """A run's settings: what the rules read (:class:`RuleSettings`), and what the engine does with files."""

    select: tuple[str, ...] = tuple(sorted(REGISTRY))
    ignore: tuple[str, ...] = ()
    #: the file's globs, relative to ``exclude_root``
    exclude: tuple[str, ...] = ()
    #: the directory of the file that set ``exclude`` ("": the working directory)
    exclude_root: str = ""
    #: ``--exclude`` globs, relative to the working directory
    flag_exclude: tuple[str, ...] = ()
    #: the graph-break rules (GBF001-GBF004) look only at files that import torch
    torch_only: bool = True
    verify: tuple[VerifyEntry, ...] = ()
    #: absolute path -> lines a real run recorded as graph breaks
    recorded_breaks: dict[str, frozenset[int]] = field(default_factory=dict)
    #: absolute path -> frames of it a real run ran eagerly (GBF011)
    recorded_skips: dict[str, frozenset[RecordedSkip]] = field(default_factory=dict)
    #: absolute path -> function key -> names a real run read as tensors there
    recorded_tensors: dict[str, dict[str, frozenset[str]]] = field(default_factory=dict)
    #: the pyproject.toml the settings came from, if any
    source: Optional[str] = None
    #: keep results between runs (:mod:`rewriter.engine.cache`), in ``cache_dir`` ("": the user's cache directory)
    cache: bool = True
    cache_dir: str = ""

    @property
    def active_codes(self) -> tuple[str, ...]:
        return tuple(c for c in REGISTRY if c in self.select and c not in self.ignore)

    def exclusion(self) -> Exclusion:
        """The file's globs below its directory, the flags' below the working directory."""
        cwd = os.getcwd()
        return Exclusion([(self.exclude_root or cwd, self.exclude), (cwd, self.flag_exclude)])


#: every key ``[tool.gbfix]`` accepts, in the order ``gbfix config`` prints them
CONFIG_KEYS = (
    "select",
    "ignore",
    "exclude",
    "unroll_max_trips",
    "torch_only",
    "reach",
    "evidence",
    "compiled",
    "reentrant_context_managers",
    "first_party",
    "third_party",
    "breaking_third_party",
    "verify",
    "cache_dir",
)
_LIST_KEYS = {
    "compiled",
    "select",
    "ignore",
    "exclude",
    "reentrant_context_managers",
    "first_party",
    "third_party",
    "breaking_third_party",
}
_KNOWN = set(CONFIG_KEYS)


def config_keys() -> tuple[str, ...]:
    """Every key ``[tool.gbfix]`` accepts, in the order ``gbfix config`` prints them."""
    return CONFIG_KEYS


def find_pyproject(start: str) -> Optional[str]:
    """The nearest pyproject.toml at or above ``start`` that has a ``[tool.gbfix]`` table."""
    path = os.path.abspath(start)
    if os.path.isfile(path):
        path = os.path.dirname(path)
    while True:
        candidate = os.path.join(path, "pyproject.toml")
        if os.path.isfile(candidate) and _gbfix_table(_read_toml(candidate)) is not None:
            return candidate
        parent = os.path.dirname(path)
        if parent == path:
            return None
        path = parent


def _read_toml(path: str) -> dict[str, Any]:
    try:
        with open(path, "rb") as handle:
            return tomllib.load(handle)
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read: {exc}") from None
    except UnicodeDecodeError as exc:  # TOML is UTF-8 only
        raise ConfigError(f"{path}: cannot read: not valid UTF-8 (byte {exc.start})") from None


def _gbfix_table(data: dict[str, Any]) -> Optional[Any]:
    tool = data.get("tool")
    return tool.get("gbfix") if isinstance(tool, dict) else None


def parse_codes(values: list[str] | tuple[str, ...], where: str) -> tuple[str, ...]:
    """Rule codes, upper-cased; a prefix like ``GBF00`` selects every match."""
    out: list[str] = []
    for raw in values:
        for code in (c.strip().upper() for c in str(raw).split(",")):
            if not code:
                continue
            if code == "ALL":
                out.extend(sorted(REGISTRY))
                continue
            matched = [c for c in sorted(REGISTRY) if c.startswith(code)]
            if not matched:
                raise ConfigError(f"{where}: unknown rule code {code!r} (see `gbfix rules`)")
            out.extend(matched)
    return tuple(dict.fromkeys(out))


def check_exclude(patterns: list[str] | tuple[str, ...], where: str) -> None:
    """ConfigError unless every pattern is a valid gitignore pattern."""
    try:
        gitignore_spec(patterns)
    except PatternError as exc:
        raise ConfigError(f"{where}: {exc}") from None


def load_settings(start: str = ".", pyproject: Optional[str] = None) -> Settings:
    """The settings of ``pyproject`` (``--config``), else of the nearest file above ``start`` with the table."""
    path = pyproject or find_pyproject(start)
    if path is None:
        return Settings()
    table = _gbfix_table(_read_toml(path))
    if pyproject is not None and not table:
        # A file named on purpose that sets nothing is a wrong file, not "the defaults".
        raise ConfigError(f"{path}: no [tool.gbfix] keys in this file")
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: [tool.gbfix] must be a table")
    return settings_from_table(table, path)


def settings_from_table(table: dict[str, Any], path: str) -> Settings:
    where = f"{path}: [tool.gbfix]"
    unknown = sorted(set(table) - _KNOWN)
    if unknown:
        raise ConfigError(f"{where}: unknown key {unknown[0]!r}")
    values: dict[str, Any] = {"source": path, "exclude_root": os.path.dirname(os.path.abspath(path))}
    for key in _LIST_KEYS & set(table):
        value = table[key]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ConfigError(f"{where}: {key} must be a list of strings")
        values[key] = tuple(value)
    for key in ("select", "ignore"):
        if key in values:
            values[key] = parse_codes(values[key], f"{where} {key}")
    if "exclude" in values:
        check_exclude(values["exclude"], f"{where} exclude")
    if "compiled" in values:
        check_compiled(values["compiled"], f"{where} compiled")
    if "unroll_max_trips" in table:
        trips = table["unroll_max_trips"]
        if not isinstance(trips, int) or isinstance(trips, bool) or trips < 1:
            raise ConfigError(f"{where}: unroll_max_trips must be a positive integer")
        values["unroll_max_trips"] = trips
    if "reach" in table:
        if table["reach"] not in REACH_MODES:
            raise ConfigError(f"{where}: reach must be one of {', '.join(repr(m) for m in REACH_MODES)}")
        values["reach"] = table["reach"]
    if "evidence" in table:
        if table["evidence"] not in EVIDENCE_LEVELS:
            raise ConfigError(f"{where}: evidence must be one of {', '.join(repr(m) for m in EVIDENCE_LEVELS)}")
        values["evidence"] = table["evidence"]
    if values.get("evidence") == RuleSettings(reach=values.get("reach", "compiled")).least_evidence:
        # the default for the run's reach: left unset, so `--reach` on the command line moves it
        values.pop("evidence")
    if "torch_only" in table:
        if not isinstance(table["torch_only"], bool):
            raise ConfigError(f"{where}: torch_only must be true or false")
        values["torch_only"] = table["torch_only"]
    if "cache_dir" in table:
        if not isinstance(table["cache_dir"], str):
            raise ConfigError(f"{where}: cache_dir must be a directory path (a string)")
        given = os.path.expanduser(table["cache_dir"])
        values["cache_dir"] = os.path.join(os.path.dirname(os.path.abspath(path)), given) if given else ""
    if "verify" in table:
        entries = table["verify"]
        if not isinstance(entries, list):
            raise ConfigError(f"{where}: verify must be an array of tables")
        parsed = []
        for entry in entries:
            if not isinstance(entry, dict) or set(entry) != {"file", "entry", "inputs"}:
                raise ConfigError(f"{where}: each [[tool.gbfix.verify]] needs file, entry, inputs")
            base = os.path.dirname(path)
            parsed.append(VerifyEntry(os.path.join(base, entry["file"]), entry["entry"], entry["inputs"]))
        values["verify"] = tuple(parsed)
    return Settings(**values)


def check_compiled(names: Sequence[str], where: str) -> None:
    """Each name is ``Qualname`` or ``FILE:Qualname`` (``GenerationMixin.generate``)."""
    for name in names:
        path, _, qualname = name.rpartition(":")
        if not qualname or not all(part.isidentifier() for part in qualname.split(".")) or (":" in name and not path):
            raise ConfigError(
                f"{where}: {name!r} is not a function's qualified name (Class.method, or FILE:Class.method)"
            )


def with_overrides(settings: Settings, **overrides: Any) -> Settings:
    """Flags win over the file; a None flag leaves the file's value."""
    known = {f.name for f in fields(Settings)}
    return replace(settings, **{k: v for k, v in overrides.items() if v is not None and k in known})
