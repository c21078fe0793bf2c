"""Read the graph breaks a real run recorded: TORCH_TRACE logs and TORCH_LOGS=graph_breaks output.

Users who come to gbfix usually have one of two records of a run:

* a ``TORCH_TRACE`` directory, the structured log tlparse reads: one
  JSON-lines file per process (``dedicated_log_torch_trace_*.log``), each
  record a glog prefix and a JSON object, followed by its payload as lines
  starting with a tab. Dynamo writes one ``dynamo_graph_break_reason``
  artifact per graph break, and ``dynamo_start`` / ``compilation_metrics``
  records that name the frame it was compiling;
* the text that ``TORCH_LOGS=graph_breaks`` printed, one record per break,
  every line prefixed with ``[__graph_breaks]``.

Both carry the same block of text per break (torch 2.13)::

    Graph break in user code at FILE:LINE
    Graph Break Reason: [how it was handled, then] <gb type>
      Explanation: ...
     For more details ..., please visit: .../gb/gb0059.html
    *** While handling this graph break, another graph break occurred: ***
    graph break in loop ...            (the break that made the frame skip)
    User code traceback:
      File "F", line N, in NAME

and both are parsed here into the same :class:`RecordedBreak` records. Which
frame Dynamo was compiling matters (the fix goes there, not into the code
that called it): a trace names it exactly; a text log only hints at it
("frame skipped: NAME (FILE line N)", the stack-variable attribution, or
the marker that ``TORCHDYNAMO_VERBOSE=1`` prints), and when it does not,
:attr:`RecordedBreak.compiled_index` stays None.

Gb codes and their docs come from ``torch/_dynamo/graph_break_registry.json``
of the installed torch, found without importing torch.
"""

from __future__ import annotations

import functools
import glob
import hashlib
import importlib.util
import json
import os
import re
from dataclasses import asdict, dataclass, field, replace
from typing import Any, Iterable, Iterator, Optional, Sequence

LOG_PREFIX = "dedicated_log_torch_trace_"
LOG_MARKER = "[__graph_breaks]"
DOC_URL = "https://meta-pytorch.github.io/compile-graph-break-site/gb/{code}.html"

_HEADER = re.compile(
    r"^Graph break (?:\(user stack suppressed due to duplicate graph break\) )?in user code at (.+):(\d+)\s*$"
)
_SUPPRESSED = "user stack suppressed"
_REASON = "Graph Break Reason: "
_CHAINED = "*** While handling this graph break, another graph break occurred: ***"
_GB_URL = re.compile(r"/gb/(gb\d{4})\.html", re.IGNORECASE)
_FRAME = re.compile(r'^\s*File "(.+)", line (\d+), in (.+?)\s*$')
_ATTRIBUTION = re.compile(r'^\s*File "(.+)", line (\d+)\s*$')
_FRAME_SKIPPED = re.compile(r"frame skipped: (\S+) \((.+) line (\d+)\)")
_RESUME = re.compile(r"^torch_dynamo_resume_in_(.+)_at_(\d+)$")
_COMPILE_ID = re.compile(r"\[(\d+/\d+)\][^\[]*\[__graph_breaks\]")
_VERBOSE_MARKER = "most recent `torch.compile` tracing attempt started here"
_STACK_END = ("Traceback (most recent call last):", "NOTE: ", "Most recent bytecode instructions")
#: how Dynamo says a break made it give up on the frame
WHOLE_SKIP = "Failed to handle graph break gracefully"
PARTIAL_SKIP = "Encountered graph break that we cannot resume from"


#: no source file has more lines: a larger "line number" in a record is corruption
_MAX_LINE = 10**8


class _Malformed(Exception):
    """A record that is not what Dynamo writes; the reader adds where it is (``log:LINE``)."""


def _line_number(value: Any) -> int:
    """A line number read from a record (an int, or a string of digits); _Malformed when it cannot be one."""
    if isinstance(value, str) and value.isdigit() and len(value) <= len(str(_MAX_LINE)):
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= _MAX_LINE:
        text = repr(value)
        raise _Malformed(f"not a line number: {text[:40]}{'...' if len(text) > 40 else ''}")
    return value


class TraceError(Exception):
    """A trace or log that cannot be read; the message names the path."""


@dataclass(frozen=True)
class Frame:
    file: str
    line: int
    function: str

    def where(self) -> str:
        return f"{self.file}:{self.line}"


@dataclass(frozen=True)
class RecordedBreak:
    """One graph break of a run: where, what Dynamo called it, and what it cost."""

    file: str
    line: int
    function: str
    #: Dynamo's name for the break (its gb type), one line
    reason: str
    gb_code: str = ""
    #: the first line of Dynamo's explanation
    explanation: str = ""
    #: the break made Dynamo skip the frame (or, when ``partial``, the rest of it)
    skipped: bool = False
    partial: bool = False
    #: the break that made the frame skip, when another one followed the first (GB7000 …)
    skip_code: str = ""
    skip_reason: str = ""
    #: the function Dynamo was compiling ("" when the record does not say)
    frame: str = ""
    #: the frame was a resume function: the rest of ``frame`` after this line
    resumed_at: int = 0
    #: outermost first; may begin with frames that called the compiled code
    user_stack: tuple[Frame, ...] = ()
    #: index in ``user_stack`` of the frame Dynamo compiled; None when unknown
    compiled_index: Optional[int] = None
    compile_id: str = ""
    #: the trace or log it was read from
    origin: str = ""

    @property
    def traced_stack(self) -> tuple[Frame, ...]:
        """The frames Dynamo traced, from the compiled one inward (the whole stack if unknown)."""
        if self.compiled_index is None:
            return self.user_stack
        return self.user_stack[self.compiled_index :]

    @property
    def frame_label(self) -> str:
        if not self.frame:
            return ""
        return f"{self.frame} (after line {self.resumed_at})" if self.resumed_at else self.frame

    def key(self) -> tuple:
        return (
            self.file,
            self.line,
            self.gb_code,
            self.reason,
            self.skipped,
            self.partial,
            self.frame,
            self.resumed_at,
        )

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["user_stack"] = [asdict(f) for f in self.user_stack]
        data["doc_url"] = doc_url(self.gb_code)
        return data


@dataclass(frozen=True)
class SkippedFrame:
    """A frame a run ran eagerly, whole or from a break on (``partial``), and why.

    ``first_line`` is the code object's first line (its decorators included);
    a resume function (``torch_dynamo_resume_in_forward_at_79``) stands for
    the rest of the function it was cut from.
    """

    file: str
    first_line: int
    name: str
    #: Dynamo's name for the break that made it give up, and where that break was
    reason: str
    site: str = ""
    partial: bool = False


# --- the block of text Dynamo writes per break -----------------------------------------


@dataclass
class _Block:
    file: str
    line: int
    suppressed: bool
    handling: str = ""
    types: list[str] = field(default_factory=list)
    codes: list[str] = field(default_factory=list)
    explanation: str = ""
    skipped_frame: Optional[tuple[str, str, int]] = None
    attribution: Optional[tuple[str, int]] = None
    #: how many source lines the attribution quotes (a loop: its header and body lines)
    attribution_lines: int = 0
    frames: list[Frame] = field(default_factory=list)
    verbose_index: Optional[int] = None


def _parse_block(lines: Sequence[str]) -> Optional[_Block]:
    header = _HEADER.match(lines[0].strip()) if lines else None
    if header is None:
        return None
    block = _Block(header.group(1), _line_number(header.group(2)), _SUPPRESSED in lines[0])
    section = "reason"
    expect_type = False
    for raw in lines[1:]:
        text = raw.strip()
        if raw.startswith(_REASON):
            reason = raw[len(_REASON) :].strip()
            if reason.endswith(":"):
                block.handling, expect_type = reason, True
            else:
                block.types.append(reason)
            continue
        if section == "reason":
            if text == _CHAINED:
                expect_type = True
            elif expect_type and text:
                block.types.append(text)
                expect_type = False
            elif text.startswith("Explanation:") and not block.explanation:
                block.explanation = text[len("Explanation:") :].strip()
            elif text == "Stack variable source attribution:":
                section = "attribution"
            elif text == "User code traceback:":
                section = "stack"
            if section == "reason":
                url = _GB_URL.search(text)
                if url:
                    block.codes.append(url.group(1).upper())
                hint = _FRAME_SKIPPED.search(text)
                if hint:
                    block.skipped_frame = (hint.group(1), hint.group(2), _line_number(hint.group(3)))
            continue
        if section == "attribution":
            if text == "User code traceback:":
                section = "stack"
                continue
            match = _ATTRIBUTION.match(raw)
            if match and block.attribution is None:
                block.attribution = (match.group(1), _line_number(match.group(2)))
            elif block.attribution is not None and text and not match and set(text) != {"^"}:
                block.attribution_lines += 1
            continue
        if text.startswith(_STACK_END):
            break
        if _VERBOSE_MARKER in text:
            block.verbose_index = len(block.frames)
            continue
        match = _FRAME.match(raw)
        if match:
            block.frames.append(Frame(match.group(1), _line_number(match.group(2)), match.group(3)))
    return block


def _compiled_index(block: _Block, compiled: Optional[tuple[str, str]], first_line: int = 0) -> Optional[int]:
    """Where the frame Dynamo compiled sits in the block's stack, from the best evidence at hand."""
    frames = block.frames
    if compiled is not None:
        found = _last_frame(frames, compiled[0], _strip_resume(compiled[1])[0], first_line)
        if found is not None:
            return found
    if block.verbose_index is not None:
        return block.verbose_index
    if block.skipped_frame is not None:
        name, file, _ = block.skipped_frame
        found = _last_frame(frames, file, _strip_resume(name)[0])
        if found is not None:
            return found
    if block.attribution is not None:
        file, line = block.attribution
        after = [(f.line - line, i) for i, f in enumerate(frames) if f.file == file and f.line >= line]
        if after:
            return min(after)[1]
    return None


def _last_frame(frames: Sequence[Frame], file: str, name: str, first_line: int = 0) -> Optional[int]:
    """The innermost frame of function ``name`` of ``file``; with ``first_line`` (the code's first
    line), only one at or below it (another function of the same name starts elsewhere)."""
    for i in range(len(frames) - 1, -1, -1):
        if frames[i].file == file and frames[i].function == name and frames[i].line >= first_line:
            return i
    return None


def _restore_compiled_frame(
    block: _Block, compiled: Optional[tuple[str, str]], first_line: int, seen: Sequence[Frame] = ()
) -> None:
    """Put back the frame Dynamo compiled where its traceback lacks it.

    Under a decorator's wrapper (``@torch.no_grad()`` runs the method from torch's
    ``decorate_context``) Dynamo's traceback of a break in a loop can skip the very frame it
    gave up on, and the frames that called into it: measured on torch 2.13 with a
    ``@torch.no_grad()`` ``forward`` whose loop calls a submodule that breaks. Its
    stack-variable attribution still names the line of that frame holding the break (the
    loop), so the frame goes back in, below the library frames that called it, at the line of the
    loop that other breaks of the run show this function calling into the breaking code
    from (``seen``), or else at the loop's first line.
    """
    if compiled is None or not first_line or block.attribution is None:
        return
    file, name = compiled[0], _strip_resume(compiled[1])[0]
    at_file, at_line = block.attribution
    if at_file != file or at_line < first_line or _last_frame(block.frames, file, name, first_line) is not None:
        return
    last = at_line + max(0, block.attribution_lines - 1)
    inside = sorted(f.line for f in seen if f.file == file and f.function == name and at_line <= f.line <= last)
    # after the wrapper that called it: the last library frame with only user code below it
    library = [i for i, frame in enumerate(block.frames) if _in_library(frame.file)]
    position = library[-1] + 1 if library else len(block.frames)
    block.frames.insert(position, Frame(file, inside[0] if inside else at_line, name))


def _in_library(path: str) -> bool:
    """An installed package's file (torch's wrappers among them), or no real file."""
    parts = path.replace("\\", "/").split("/")
    return path.startswith("<") or "site-packages" in parts or "dist-packages" in parts


def _strip_resume(name: str) -> tuple[str, int]:
    """``torch_dynamo_resume_in_f_at_12`` is the rest of ``f`` after line 12."""
    match = _RESUME.match(name)
    return (match.group(1), _line_number(match.group(2))) if match else (name, 0)


def _site(
    block: _Block,
    origin: str,
    compiled: Optional[tuple[str, str]] = None,
    compile_id: str = "",
    first_line: int = 0,
    seen: Sequence[Frame] = (),
) -> RecordedBreak:
    if compiled is None and block.skipped_frame is not None:
        name, file, line = block.skipped_frame
        _restore_compiled_frame(block, (file, name), line, seen)
    else:
        _restore_compiled_frame(block, compiled, first_line, seen)
    frames = tuple(block.frames)
    index = _compiled_index(block, compiled, first_line)
    frame_name, resumed_at = "", 0
    if compiled is not None:
        frame_name, resumed_at = _strip_resume(compiled[1])
    elif index is not None and frames:
        frame_name = frames[index].function
    elif block.skipped_frame is not None:
        frame_name = _strip_resume(block.skipped_frame[0])[0]
    reason = block.types[0] if block.types else block.handling.rstrip(":")
    code = block.codes[0] if block.codes else code_for(reason)
    skip_type = block.types[-1] if len(block.types) > 1 else ""
    skip_code = (block.codes[-1] if len(block.codes) > 1 else code_for(skip_type)) if skip_type else ""
    handling = block.handling
    function = frames[-1].function if frames and frames[-1].file == block.file else ""
    return RecordedBreak(
        file=block.file,
        line=block.line,
        function=function,
        reason=reason,
        gb_code=code,
        explanation=block.explanation,
        skipped=handling.startswith((WHOLE_SKIP, PARTIAL_SKIP)),
        partial=handling.startswith(PARTIAL_SKIP),
        skip_code=skip_code,
        skip_reason=skip_type,
        frame=frame_name,
        resumed_at=resumed_at,
        user_stack=frames or (Frame(block.file, block.line, function),),
        compiled_index=index if frames else None,
        compile_id=compile_id,
        origin=origin,
    )


# --- TORCH_LOGS=graph_breaks text -----------------------------------------------------------


def parse_log_text(text: str, origin: str = "") -> list[RecordedBreak]:
    """Every break in captured ``TORCH_LOGS=graph_breaks`` output (other lines are ignored)."""
    lines = text.splitlines()
    prefixed = any(LOG_MARKER in line for line in lines)
    blocks: list[tuple[list[str], str, int]] = []
    for number, line in enumerate(lines, start=1):
        compile_id = ""
        if prefixed:
            if LOG_MARKER not in line:
                continue
            match = _COMPILE_ID.search(line)
            compile_id = match.group(1) if match else ""
            line = line.split(LOG_MARKER, 1)[1]
            line = line[1:] if line.startswith(" ") else line
        if _HEADER.match(line.strip()):
            blocks.append(([line], compile_id, number))
        elif blocks:
            blocks[-1][0].append(line)
    sites = []
    for block_lines, compile_id, number in blocks:
        try:
            block = _parse_block(block_lines)
            if block is not None:
                sites.append(_site(block, origin, compile_id=compile_id))
        except _Malformed as exc:
            raise TraceError(f"{origin or 'log'}:{number}: not a graph break record: {exc}") from None
    return unique(sites)


def read_log(path: str) -> list[RecordedBreak]:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            text = handle.read()
    except OSError as exc:
        raise TraceError(f"{path}: cannot read the log: {exc.strerror or exc}") from None
    sites = parse_log_text(text, origin=path)
    if not sites and "Graph break" not in text:
        raise TraceError(f"{path}: no graph breaks in this log (was it captured with TORCH_LOGS=graph_breaks?)")
    return sites


# --- TORCH_TRACE structured logs -----------------------------------------------------------


def _records(text: str, origin: str) -> Iterator[tuple[dict[str, Any], str, int]]:
    """(metadata, payload, line number) of each record: a glog prefix and JSON, then tab-indented payload lines.

    A line whose JSON does not parse to an object is not what Dynamo writes: TraceError naming it.
    """
    lines = text.splitlines()
    i = 0
    last: Optional[tuple[dict[str, Any], str, int]] = None
    while i < len(lines):
        line = lines[i]
        number = i = i + 1
        payload = []
        while i < len(lines) and lines[i].startswith("\t"):
            payload.append(lines[i][1:])
            i += 1
        if not line.strip():
            continue
        start = line.find("{")
        if start < 0 or not (start == 0 or line[:start].endswith("] ")):
            # Dynamo writes only records (JSON after a glog prefix) and their tab-indented payloads
            raise TraceError(f"{origin or 'trace'}:{number}: not a TORCH_TRACE record (no JSON after a log prefix)")
        try:
            record = json.loads(line[start:])
        except (ValueError, RecursionError):  # truncated, corrupt, a 5,000-digit number, nested past reason
            record = None
        if not isinstance(record, dict):
            raise TraceError(f"{origin or 'trace'}:{number}: not a TORCH_TRACE record (truncated or corrupt JSON)")
        last = record, "\n".join(payload), number
        yield last
    if last is None:
        raise TraceError(f"{origin or 'trace'}: no TORCH_TRACE records (empty)")
    _check_complete(*last, origin)


def _check_complete(record: dict[str, Any], payload: str, number: int, origin: str) -> None:
    """TraceError when the last record's payload is shorter than the hash Dynamo wrote with it says.

    A log copied or cut while the program still ran ends inside a payload; only the last record
    can be cut short, and its hash tells.
    """
    expected = record.get("has_payload")
    digest = hashlib.md5(payload.encode("utf-8"), usedforsecurity=False).hexdigest()
    if isinstance(expected, str) and digest != expected:
        where = f"{origin or 'trace'}:{number}"
        raise TraceError(f"{where}: the log ends inside this record (truncated: did the run finish?)")


def _checked_records(text: str, origin: str) -> Iterator[tuple[dict[str, Any], str, int]]:
    """:func:`_records`, with a record whose fields have the wrong shape reported as TraceError at its line."""
    for record, payload, number in _records(text, origin):
        try:
            _check_shape(record)
        except _Malformed as exc:
            raise TraceError(f"{origin or 'trace'}:{number}: not a TORCH_TRACE record: {exc}") from None
        yield record, payload, number


#: the record kinds read here, and the JSON type each one's value has
_SHAPES: dict[str, type] = {"str": list, "dynamo_start": dict, "compilation_metrics": dict, "artifact": dict}


def _check_shape(record: dict[str, Any]) -> None:
    for kind, shape in _SHAPES.items():
        if kind in record and not isinstance(record[kind], shape):
            raise _Malformed(f"{kind!r} is not a JSON {'array' if shape is list else 'object'}")
    if "str" in record:
        value = record["str"]
        if len(value) != 2 or not isinstance(value[0], str) or not isinstance(value[1], int):
            raise _Malformed("'str' is not [text, index]")
    stack = record.get("dynamo_start", {}).get("stack") or []
    if not isinstance(stack, list) or not all(isinstance(frame, dict) for frame in stack):
        raise _Malformed("'dynamo_start' has no list of frames")
    for frame in stack:
        if "line" in frame:
            _line_number(frame["line"])
        if not isinstance(frame.get("name", ""), str) or not isinstance(frame.get("filename", 0), (int, str)):
            raise _Malformed("a frame of 'dynamo_start' is not {line, name, filename}")


def _compile_key(record: dict[str, Any]) -> str:
    if "frame_id" not in record:
        return ""
    return f"{record['frame_id']}/{record.get('frame_compile_id', 0)}"


def parse_trace_text(text: str, origin: str = "") -> list[RecordedBreak]:
    """Every break in one TORCH_TRACE log, and frames it skipped without a break record."""
    strings: dict[int, str] = {}
    compiled: dict[str, tuple[str, str]] = {}
    #: compile id -> the first line of the code Dynamo compiled (its decorators included)
    first_lines: dict[str, int] = {}
    metrics: dict[str, tuple[dict[str, Any], int]] = {}
    breaks: list[tuple[_Block, str]] = []
    for record, payload, number in _checked_records(text, origin):
        if "str" in record:
            value, index = record["str"]
            strings[index] = value
        elif "dynamo_start" in record:
            stack = record["dynamo_start"].get("stack") or []
            if stack:
                top = stack[-1]
                name = top.get("filename")
                file = strings.get(name, str(name)) if isinstance(name, int) else str(name)
                compiled[_compile_key(record)] = (file, str(top.get("name", "")))
                if isinstance(top.get("line"), int):
                    first_lines[_compile_key(record)] = top["line"]
        elif "compilation_metrics" in record:
            data = record["compilation_metrics"]
            key = str(data.get("compile_id", ""))
            metrics[key] = (data, number)
            if data.get("co_filename") and key not in compiled:
                compiled[key] = (str(data["co_filename"]), str(data.get("co_name", "")))
        elif record.get("artifact", {}).get("name") == "dynamo_graph_break_reason":
            block = _record_block(payload, origin, number)
            if block is not None:
                breaks.append((block, _compile_key(record)))
    seen = [frame for block, _ in breaks for frame in block.frames]
    sites = [_site(block, origin, compiled.get(key), key, first_lines.get(key, 0), seen) for block, key in breaks]
    with_breaks = {key for _, key in breaks}
    for key, (data, number) in metrics.items():
        if key not in with_breaks and data.get("fail_type") and data.get("fail_user_frame_filename"):
            try:
                sites.append(_failed_frame(key, data, origin))
            except _Malformed as exc:
                raise TraceError(f"{origin or 'trace'}:{number}: not a TORCH_TRACE record: {exc}") from None
    return unique(sites)


def _record_block(payload: str, origin: str, number: int) -> Optional[_Block]:
    """The graph break block of a record's payload; TraceError naming the record when it is corrupt."""
    try:
        return _parse_block(payload.splitlines())
    except _Malformed as exc:
        raise TraceError(f"{origin or 'trace'}:{number}: not a graph break record: {exc}") from None


def skipped_frames_of(text: str, origin: str = "") -> list[SkippedFrame]:
    """The frames one TORCH_TRACE log shows Dynamo ran eagerly, each once.

    A whole skip is a compilation that failed (its ``compilation_metrics``
    name the code object); a partial one is a break record that says it
    could not resume, in a compilation whose metrics name the code object.
    """
    metrics: dict[str, dict[str, Any]] = {}
    partial: dict[str, tuple[str, str]] = {}
    for record, payload, number in _checked_records(text, origin):
        if "compilation_metrics" in record:
            data = record["compilation_metrics"]
            metrics[str(data.get("compile_id", ""))] = data
        elif record.get("artifact", {}).get("name") == "dynamo_graph_break_reason":
            block = _record_block(payload, origin, number)
            if block is not None and block.handling.startswith(PARTIAL_SKIP):
                reason = block.types[0] if block.types else "graph break"
                partial.setdefault(_compile_key(record), (reason, f"{block.file}:{block.line}"))
    # a compilation Dynamo refused outright (the recompile limit) names no code object: another
    # compilation of the same frame does
    code_of: dict[str, tuple[Any, Any, Any]] = {}
    for key, data in metrics.items():
        if data.get("co_filename"):
            code_of.setdefault(
                key.split("/")[0], (data["co_filename"], data.get("co_firstlineno"), data.get("co_name"))
            )
    found: dict[tuple[str, int, str], SkippedFrame] = {}
    for key, data in metrics.items():
        file, first, name = data.get("co_filename"), data.get("co_firstlineno"), data.get("co_name")
        if not file:
            file, first, name = code_of.get(key.split("/")[0], (None, None, None))
        if not (file and isinstance(first, int) and name):
            continue
        if data.get("fail_type"):
            text_reason = str(data.get("fail_reason") or data["fail_type"]).strip()
            reason = text_reason.splitlines()[0] if text_reason else str(data["fail_type"])
            where = data.get("fail_user_frame_filename")
            site = f"{where}:{data.get('fail_user_frame_lineno') or 0}" if where else ""
            frame = SkippedFrame(str(file), first, str(name), reason, site)
        elif key in partial:
            frame = SkippedFrame(str(file), first, str(name), *partial[key], partial=True)
        else:
            continue
        found.setdefault((frame.file, frame.first_line, frame.name), frame)
    return list(found.values())


def read_skipped_frames(path: str, all_logs: bool = False) -> list[SkippedFrame]:
    """:func:`skipped_frames_of` for the logs :func:`read_trace` reads."""
    found: dict[tuple[str, int, str], SkippedFrame] = {}
    for file in _trace_files(path, all_logs):
        for frame in skipped_frames_of(_read_log(file), origin=file):
            found.setdefault((frame.file, frame.first_line, frame.name), frame)
    return list(found.values())


def _failed_frame(key: str, data: dict[str, Any], origin: str) -> RecordedBreak:
    """A frame Dynamo gave up on without logging a graph break (from its compilation metrics)."""
    reason_text = str(data.get("fail_reason") or data.get("fail_type") or "")
    reason = reason_text.strip().splitlines()[0] if reason_text.strip() else "frame failed to compile"
    url = _GB_URL.search(reason_text)
    file = str(data["fail_user_frame_filename"])
    line = _line_number(data.get("fail_user_frame_lineno") or 0)
    name, resumed_at = _strip_resume(str(data.get("co_name", "")))
    same = file == data.get("co_filename")
    return RecordedBreak(
        file=file,
        line=line,
        function=name if same else "",
        reason=reason,
        gb_code=url.group(1).upper() if url else code_for(reason),
        skipped=True,
        frame=name,
        resumed_at=resumed_at,
        user_stack=(Frame(file, line, name if same else ""),),
        compiled_index=0 if same else None,
        compile_id=key,
        origin=origin,
    )


def trace_logs(directory: str) -> list[str]:
    """The TORCH_TRACE logs in ``directory``, oldest first (by modification time, then name)."""
    found = glob.glob(os.path.join(directory, LOG_PREFIX + "*.log"))
    if not found:
        found = glob.glob(os.path.join(directory, "*.log"))
    return sorted(found, key=lambda p: (os.path.getmtime(p), p))


def read_trace(path: str, all_logs: bool = False) -> list[RecordedBreak]:
    """Breaks in a TORCH_TRACE directory: its newest log (like ``tlparse --latest``) or all of them.

    ``path`` may also name one log file.
    """
    sites: list[RecordedBreak] = []
    for file in _trace_files(path, all_logs):
        sites.extend(parse_trace_text(_read_log(file), origin=file))
    return unique(sites)


def _trace_files(path: str, all_logs: bool) -> list[str]:
    if os.path.isdir(path):
        files = trace_logs(path)
        if not files:
            raise TraceError(f"{path}: no TORCH_TRACE logs ({LOG_PREFIX}*.log) in this directory")
        return files if all_logs else files[-1:]
    if os.path.isfile(path):
        return [path]
    if os.path.exists(path):  # a pipe or a device: the trace is read twice (breaks, then skipped frames)
        raise TraceError(f"{path}: not a TORCH_TRACE directory or log file")
    raise TraceError(f"{path}: no such file or directory")


def _read_log(file: str) -> str:
    try:
        with open(file, encoding="utf-8", errors="replace") as handle:
            return handle.read()
    except OSError as exc:
        raise TraceError(f"{file}: cannot read the trace: {exc.strerror or exc}") from None


# --- records made in this process (rewriter.runtime.measure) ----------------------------------------


def site_from_record(record: Any) -> RecordedBreak:
    """A :class:`rewriter.runtime.measure.BreakRecord` (or its dict) as a site.

    Its stack starts at the compiled frame.
    """
    data = record if isinstance(record, dict) else asdict(record)
    frames = tuple(Frame(str(f), int(n), str(fn)) for f, n, fn in data.get("user_stack") or ())
    if not frames:
        frames = (Frame(data["filename"], int(data["lineno"]), data["function"]),)
    frame, resumed_at = _strip_resume(data.get("frame_function", ""))
    gb_type = str(data.get("gb_type", ""))
    reason = str(data.get("reason", "")) or gb_type
    skip_type = gb_type if gb_type and gb_type != reason and code_for(gb_type) else ""
    partial = bool(data.get("partial_skip"))
    return RecordedBreak(
        file=data["filename"],
        line=int(data["lineno"]),
        function=data["function"],
        reason=reason,
        gb_code=data.get("gb_code") or code_for(reason),
        skipped=partial or bool(data.get("whole_skip")),
        partial=partial,
        skip_code=code_for(skip_type) if skip_type else "",
        skip_reason=skip_type,
        frame=frame,
        resumed_at=resumed_at,
        user_stack=frames,
        compiled_index=0,
    )


# --- sets of sites ------------------------------------------------------------------------


def unique(sites: Iterable[RecordedBreak]) -> list[RecordedBreak]:
    """Sites in first-seen order, each once; a record whose stack Dynamo suppressed as a
    duplicate takes the place of nothing when the full record was seen."""
    seen: dict[tuple, RecordedBreak] = {}
    for site in sites:
        key = site.key()
        if key in seen:
            continue
        if not site.function:
            twin = next(
                (
                    s
                    for s in seen.values()
                    if (s.file, s.line, s.gb_code) == (site.file, site.line, site.gb_code) and s.function
                ),
                None,
            )
            if twin is not None:
                if site.skipped and not twin.skipped:
                    seen[twin.key()] = replace(twin, skipped=True, partial=site.partial)
                continue
        seen[key] = site
    return list(seen.values())


# --- gb codes -----------------------------------------------------------------------------


@functools.lru_cache(maxsize=1)
def gb_registry() -> dict[str, dict[str, Any]]:
    """``GBxxxx`` -> its first registry entry (Gb_type, Context, Explanation, Hints); {} without torch."""
    try:
        spec = importlib.util.find_spec("torch")
    except (ImportError, ValueError):
        return {}
    if spec is None or not spec.submodule_search_locations:
        return {}
    path = os.path.join(list(spec.submodule_search_locations)[0], "_dynamo", "graph_break_registry.json")
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
    except (OSError, ValueError):
        return {}
    return {code: entries[0] for code, entries in data.items() if isinstance(entries, list) and entries}


@functools.lru_cache(maxsize=1)
def _codes_by_type() -> dict[str, str]:
    by_type: dict[str, str] = {}
    for code, entry in sorted(gb_registry().items()):
        by_type.setdefault(str(entry.get("Gb_type", "")), code)
    return by_type


def code_for(gb_type: str) -> str:
    """The gb code Dynamo's registry gives this break type, or ""."""
    return _codes_by_type().get(gb_type.strip(), "") if gb_type else ""


def gb_type(code: str) -> str:
    return str(gb_registry().get(code, {}).get("Gb_type", ""))


def doc_url(code: str) -> str:
    return DOC_URL.format(code=code.lower()) if code else ""
