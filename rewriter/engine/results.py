"""What the batch runner hands back for each file, and the exit codes.

A worker never raises: every file ends as exactly one of these frozen,
picklable records, and the totals decide the exit code.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Optional, Union

from rewriter.engine.fileio import FileStamp
from rewriter.engine.suppressions import Suppression

if TYPE_CHECKING:  # the exit codes are read by commands that must start fast (`gbfix rules`): no libcst
    from codemods.rules.base import Finding

EXIT_CLEAN = 0  # nothing to report or change
EXIT_FINDINGS = 1  # findings (scan) or changes (--dry-run, --check) exist, or verify failed
EXIT_ERROR = 2  # usage error, or some file could not be processed


@dataclass(frozen=True)
class Changed:
    path: str
    old: bytes
    new: bytes
    encoding: str
    findings: tuple[Finding, ...]
    #: suppression comments that covered no finding of an active rule
    unused_ignores: tuple[Suppression, ...] = ()
    #: the file as it was read: written over only while it still is that
    stamp: Optional[FileStamp] = None


@dataclass(frozen=True)
class Unchanged:
    path: str
    findings: tuple[Finding, ...]
    #: False when the cheap screen showed no rule could apply (never parsed)
    parsed: bool
    #: suppression comments that covered no finding of an active rule
    unused_ignores: tuple[Suppression, ...] = ()


@dataclass(frozen=True)
class Failed:
    """The file could not be processed; it is left exactly as it was."""

    path: str
    message: str
    line: int = 0

    def describe(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        return f"{where}: error: {self.message}"


FileResult = Union[Changed, Unchanged, Failed]


@dataclass
class Totals:
    scanned: int = 0
    screened_out: int = 0
    parsed: int = 0
    changed: int = 0
    errors: int = 0
    findings: int = 0

    def add(self, result: FileResult) -> None:
        self.scanned += 1
        if isinstance(result, Failed):
            self.errors += 1
            return
        self.findings += len(result.findings)
        if isinstance(result, Changed):
            self.parsed += 1
            self.changed += 1
        elif result.parsed:
            self.parsed += 1
        else:
            self.screened_out += 1
