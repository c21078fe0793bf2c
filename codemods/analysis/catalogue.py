"""The break catalogue: calls that make Dynamo break the graph, as data.

Most entries are generated from torch itself (:mod:`codemods.analysis.catalogue_table`,
written by ``scripts/generate_catalogue.py``): the aten ops torch tags as having a
data-dependent output shape or value, in every Python spelling that reaches them,
each argument form probed in a 3-trip loop under ``torch.compile``. The entries
written here by hand are the calls torch has no metadata for (``print``, logging,
``warnings.warn``, clocks, files, hooks), each measured the same way on torch 2.13
(CPU). Rules never test for these calls with ``if`` chains; they look them up here.

``raises`` says whether the call can raise an ordinary exception that user
``except`` clauses might be waiting for. The try-splitting fix (GBF004) is
safe only for calls that cannot.

``cause`` names the family of output calls whose break a Dynamo setting or a
guard can remove instead (GBF010, :mod:`codemods.analysis.causes`): ``print``,
``warn`` (``warnings.warn``), ``logging`` (the ``logging`` module's functions)
and ``logger`` (methods of a ``logging.Logger``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Literal, Optional

from codemods.analysis import catalogue_table

MatchKind = Literal["qualified", "method", "logger", "tensor_read", "condition", "mask_index", "index_read"]


@dataclass(frozen=True)
class BreakCall:
    """One call that breaks the graph.

    ``qualified``: by qualified name (``torch.nonzero``), and with ``arity``
    only when called with that many positional arguments and no keyword
    (``torch.where(cond)``); ``method``: a method of that name called with no
    argument (``x.item()``), or with any when ``with_arguments``
    (``x.nonzero(as_tuple=True)``); ``logger``: a logger method on a logger-like
    receiver; ``tensor_read``: a builtin applied to a tensor (``int(t)``),
    which needs the tensor inference of :mod:`codemods.analysis.tensors.cst`;
    ``condition``: a call of that name inside the test of an ``if`` whose
    value is a tensor (``if mask.any():``), a branch on the tensor's values;
    ``mask_index``: a subscript read through a boolean tensor (``x[x > 0]``,
    ``h[mask]``), which runs ``nonzero`` (not an assignment through one,
    ``x[mask] = v``: that traces as ``index_put``).
    """

    kind: MatchKind
    name: str
    reason: str
    raises: bool = True
    arity: Optional[int] = None
    #: the output family a cause fix knows (GBF010); "" for none
    cause: str = ""
    #: counts only on a line a real run recorded as a graph break (``--trace``/``--log``)
    recorded_only: bool = False
    #: (position, keyword) of the argument that, when given, must hold a tensor for the call to
    #: break (``F.pad(x, (n, 0))`` breaks only when ``n`` is a tensor; ``torch.repeat_interleave(r)``
    #: without repeats breaks: ``r`` is the repeats); None: any call breaks
    tensor_arg: Optional[tuple[int, str]] = None
    #: a ``method`` entry that breaks with arguments too (``m.register_forward_hook(fn)``)
    with_arguments: bool = False
    #: (position, keyword) of an argument whose presence fixes the output shape, so the call
    #: does not break (``output_size=``); position -1 for a keyword-only argument
    unless_arg: Optional[tuple[int, str]] = None


#: the values of an ``unless_arg`` that leave the output shape to the data: its defaults
#: (``F.one_hot(t, num_classes=-1)`` and ``repeat_interleave(x, r, output_size=None)`` break as
#: the calls without it do, measured on torch 2.13), as their source text
SHAPE_LEFT_TO_DATA: frozenset[str] = frozenset({"-1", "None"})


CATALOGUE: tuple[BreakCall, ...] = (
    BreakCall("qualified", "builtins.print", "print() is not traceable", raises=False, cause="print"),
    BreakCall("qualified", "builtins.open", "file I/O is not traceable"),
    BreakCall("qualified", "builtins.repr", "repr() of a tensor is not traceable", raises=False),
    BreakCall("qualified", "torch._dynamo.graph_break", "explicit graph break", raises=False),
    BreakCall("qualified", "torch._dynamo.skip_frame", "explicit frame skip", raises=False),
    BreakCall("qualified", "time.time", "wall-clock read is not traceable", raises=False),
    BreakCall("qualified", "time.perf_counter", "wall-clock read is not traceable", raises=False),
    BreakCall("qualified", "time.monotonic", "wall-clock read is not traceable", raises=False),
    BreakCall("qualified", "warnings.warn", "warnings.warn() is not traceable", cause="warn"),
    BreakCall("qualified", "sys.stdout.write", "stream write is not traceable"),
    BreakCall("qualified", "sys.stderr.write", "stream write is not traceable"),
    BreakCall("qualified", "random.random", "Python RNG is not traceable", raises=False),
    BreakCall("qualified", "logging.debug", "logging call", raises=False, cause="logging"),
    BreakCall("qualified", "logging.info", "logging call", raises=False, cause="logging"),
    BreakCall("qualified", "logging.warning", "logging call", raises=False, cause="logging"),
    BreakCall("qualified", "logging.error", "logging call", raises=False, cause="logging"),
    BreakCall("qualified", "logging.critical", "logging call", raises=False, cause="logging"),
    BreakCall("qualified", "logging.exception", "logging call", raises=False, cause="logging"),
    BreakCall("qualified", "logging.log", "logging call", raises=False, cause="logging"),
    # tolist() reads the values without dispatching an op torch tags (measured to skip, as item())
    BreakCall("method", "tolist", "Tensor.tolist() reads values from the device"),
    # registering a module hook bumps a class counter of torch's hook handles, a setattr on a
    # class Dynamo refuses: in a 3-trip loop each of these skipped the frame (measured on
    # torch 2.13, tests/test_catalogue_measured.py). Libraries register hooks on a run-time
    # request (transformers when a model is asked for attention weights or hidden states), in
    # a file every model runs: static mode flagged 3 such loops in a file 17 benchmark models
    # execute, and only the 2 runs that asked for them registered any. So they count only
    # where a run recorded them.
    *(
        BreakCall("method", name, "registering a module hook is not traceable", with_arguments=True, recorded_only=True)
        for name in (
            "register_forward_hook",
            "register_forward_pre_hook",
            "register_full_backward_hook",
            "register_full_backward_pre_hook",
        )
    ),
    # ``math`` functions take a float: handed a tensor they ask it for ``__float__``, which reads
    # its value (each measured to skip a 3-trip loop's frame, tests/test_varied_probes.py)
    *(
        BreakCall("tensor_read", f"math.{name}", f"math.{name}() of a tensor reads a value from the device")
        for name in ("ceil", "exp", "floor", "isfinite", "isinf", "isnan", "log", "sqrt")
    ),
    # not named like the op it runs (nonzero), so the generator does not find it
    BreakCall("qualified", "torch.where", "one-argument torch.where has a data-dependent output shape", arity=1),
    # an amount held in a tensor (a buffer, a length computed from one): Dynamo reads it
    # from the device; a callee handed such a tuple breaks as well (both measured)
    BreakCall(
        "qualified",
        "torch.nn.functional.pad",
        "padding by an amount held in a tensor reads it from the device",
        tensor_arg=(1, "pad"),
    ),
    BreakCall("logger", "debug", "logging call", raises=False, cause="logger"),
    BreakCall("logger", "info", "logging call", raises=False, cause="logger"),
    BreakCall("logger", "warning", "logging call", raises=False, cause="logger"),
    BreakCall("logger", "warn", "logging call", raises=False, cause="logger"),
    BreakCall("logger", "error", "logging call", raises=False, cause="logger"),
    BreakCall("logger", "critical", "logging call", raises=False, cause="logger"),
    BreakCall("logger", "exception", "logging call", raises=False, cause="logger"),
    BreakCall("logger", "log", "logging call", raises=False, cause="logger"),
    # Methods libraries add to ``logging.Logger`` (transformers' ``warning_once``, an
    # ``lru_cache`` of ``warning``): Dynamo refuses them as it does the standard ones, on
    # every call, the cached ones included (measured on torch 2.13). Such one-time notices
    # sit in configuration checks (training with checkpointing, ``inputs_embeds`` without
    # ids, an attention option a backend lacks) that seldom run: on the real-model benchmark
    # none of the 21 that static mode flagged ran. So they count only where a run recorded them.
    BreakCall("logger", "warning_once", "logging call", raises=False, cause="logger", recorded_only=True),
    BreakCall("logger", "info_once", "logging call", raises=False, cause="logger", recorded_only=True),
    *(
        BreakCall(
            entry["kind"],
            entry["name"],
            entry["reason"],
            with_arguments=entry["with_arguments"],
            tensor_arg=entry.get("tensor_arg"),
            unless_arg=entry.get("unless_arg"),
        )
        for entry in catalogue_table.ENTRIES
        # boolean-mask indexing is read as a subscript (MASK_INDEX), not as a call
        if entry["kind"] != "mask_index"
    ),
)

#: Receiver names that conventionally hold a ``logging.Logger``.
LOGGER_NAMES: frozenset[str] = frozenset(
    {"logger", "log", "_logger", "_log", "LOGGER", "LOG", "logging_", "self.logger", "self.log"}
)

BY_QUALIFIED: dict[str, BreakCall] = {c.name: c for c in CATALOGUE if c.kind == "qualified"}
BY_METHOD: dict[str, BreakCall] = {c.name: c for c in CATALOGUE if c.kind == "method"}
BY_LOGGER_METHOD: dict[str, BreakCall] = {c.name: c for c in CATALOGUE if c.kind == "logger"}
BY_TENSOR_READ: dict[str, BreakCall] = {c.name: c for c in CATALOGUE if c.kind == "tensor_read"}

#: calls whose presence in an ``if`` test marks a branch on a tensor's values when the test is a tensor
CONDITION_CALLS: frozenset[str] = frozenset(
    "any all sum max min mean prod norm isfinite isnan isinf equal allclose count_nonzero argmax argmin abs".split()
)
CONDITION = BreakCall("condition", "if", "a branch on a tensor's values (data-dependent control flow)")
#: one index (not a tuple, not a slice) that the tensor inference knows to be a bool tensor:
#: a comparison with a tensor, ``~``/``&``/``|``/``^`` of such, :data:`BOOL_METHODS` of a tensor,
#: :data:`BOOL_FUNCTIONS` of ``torch``, or a name bound once, on one line, to one of these
MASK_INDEX = BreakCall("mask_index", "x[mask]", "indexing with a boolean mask has a data-dependent output shape")
#: a subscript that reads a tensor's value as a Python int (``Tensor.__index__``, which Dynamo
#: traces as ``Tensor.item()``): an index that is a 0-dim tensor on evidence (``x[x.argmax()]``,
#: ``rows[0, j]`` after ``j = x.argmax()``, a list's ``vals[j]``); each skips a 3-trip loop's frame
#: on torch 2.13, and with no loop around it Dynamo resumes after it. An index by a 1-d integer
#: tensor is not one (``x[order]`` is advanced indexing, traced whole)
INDEX_READ = BreakCall("index_read", "x[j]", "indexing by a 0-dim tensor reads its value from the device")
#: the same read by a slice bound: a 0-dim tensor (``x[:n]`` after ``n = mask.sum()``) or an element
#: of a tensor (``x[:, :lengths[i]]``), read or stored through (``x[:n] = 0``). Dynamo cannot resume
#: after it: a function doing it is skipped from there even with no loop around it (torch 2.13)
SLICE_READ = BreakCall(
    "index_read", "x[:n]", "slicing by a tensor's value reads it from the device, where Dynamo cannot resume"
)
#: tensor methods that, called with no argument, reduce to a 0-dim tensor
ZERO_DIM_METHODS: frozenset[str] = frozenset("argmax argmin sum count_nonzero max min".split())
#: ``torch`` functions that, given one tensor and nothing else, reduce it to a 0-dim tensor
ZERO_DIM_FUNCTIONS: frozenset[str] = frozenset("argmax argmin count_nonzero".split())
#: tensor methods whose result is a bool tensor
BOOL_METHODS: frozenset[str] = frozenset("bool eq ne gt lt ge le isnan isinf isfinite logical_not".split())
#: ``torch`` functions whose result is a bool tensor
BOOL_FUNCTIONS: frozenset[str] = frozenset(
    "isfinite isnan isinf logical_and logical_or logical_not logical_xor eq ne gt lt ge le".split()
)


def method_entry(name: str, has_arguments: bool) -> Optional[BreakCall]:
    """The entry a call ``x.name(...)`` matches as a method: a tensor's only without arguments
    (``x.item()`` reads the device; ``d.item(key)`` is someone else's method), a module hook's
    registration with them."""
    entry = BY_METHOD.get(name)
    if entry is None or (has_arguments and not entry.with_arguments):
        return None
    return entry


#: warning categories that mark a deprecation
DEPRECATION_CATEGORIES: frozenset[str] = frozenset({"DeprecationWarning", "PendingDeprecationWarning", "FutureWarning"})


def is_deprecation_notice(message: str, category: str = "") -> bool:
    """Whether an output call tells of deprecated use: the literal text of its message says
    "deprecated" (or "deprecation"), or it warns in a deprecation category (the last name of
    its ``category``).

    Such notices run only when a caller uses what is deprecated, so the catalogue's output
    entries count them only where a real run recorded them (as ``recorded_only`` entries):
    on the real-model benchmark none of the 11 that static mode flagged ran.
    """
    return "deprecat" in message.lower() or category in DEPRECATION_CATEGORIES


#: what the literal text of a notice says when it tells a caller that what it passed is not used
IGNORED_INPUT_PHRASES: tuple[str, ...] = ("will be ignored", "not expected by")


def is_ignored_input_notice(message: str) -> bool:
    """Whether an output call tells its caller that an argument it passed is not used
    ("cross_attention_kwargs [...] are not expected by AttnProcessor and will be ignored").

    Like a deprecation notice it runs only when a caller passes what it should not: on the
    real-model benchmark the one static mode flagged (diffusers' ``Attention.forward``, three
    findings through the blocks that call it) did not run.
    """
    text = message.lower()
    return any(phrase in text for phrase in IGNORED_INPUT_PHRASES)


def counts_only_where_recorded(entry: BreakCall, message: str, category: str = "") -> bool:
    """Whether a call matching ``entry`` counts only on a line a real run recorded: an entry
    marked so, or an output call that is a deprecation notice or tells of an ignored argument
    (its message's literal text and its warning category's last name, as each reader of the
    source finds them)."""
    if entry.recorded_only:
        return True
    return bool(entry.cause) and (is_deprecation_notice(message, category) or is_ignored_input_notice(message))


def logger_entry(name: str, receiver: Optional[str]) -> Optional[BreakCall]:
    """The entry a call ``receiver.name(...)`` matches as a logger call: only on a receiver
    named like a logger (:data:`LOGGER_NAMES`, or a name bound to ``logging.getLogger(...)``)."""
    return BY_LOGGER_METHOD.get(name) if receiver is not None else None


# -- the same entries as the text prefilter reads them ---------------------------------
# It cannot resolve names, so it matches a call by its last name and what is
# written just before it; these tables are derived from the entries above so
# that both readers match the same calls, the prefilter never fewer.

#: the kinds of entry the prefilter models; an entry of another kind turns its structural stage off
MATCH_KINDS: tuple[MatchKind, ...] = ("qualified", "method", "logger", "tensor_read", "condition", "mask_index")
QUALIFIED_NAMES: frozenset[str] = frozenset(BY_QUALIFIED)
#: last name -> the names written just before it (``sys.stdout.write``: ``stdout``)
PARENTS_OF_LAST: dict[str, frozenset[str]] = {
    last: frozenset(
        name.rpartition(".")[0].rpartition(".")[2] for name in BY_QUALIFIED if name.rpartition(".")[2] == last
    )
    for last in {name.rpartition(".")[2] for name in BY_QUALIFIED}
}
METHOD_NAMES: frozenset[str] = frozenset(BY_METHOD)
LOGGER_METHOD_NAMES: frozenset[str] = frozenset(BY_LOGGER_METHOD)


def _shared_by_last(field: str) -> dict[str, Any]:
    """Last name -> the value of ``field`` its catalogue entries all share, where it is not None."""
    values: dict[str, set[Any]] = {}
    for entry in CATALOGUE:
        values.setdefault(entry.name.rpartition(".")[2], set()).add(getattr(entry, field))
    return {last: found.pop() for last, found in values.items() if len(found) == 1 and None not in found}


#: last name -> the number of positional arguments every entry of that last name breaks with
#: (``where``: 1), where each has one: ``torch.where(c, x, y)`` is no break
ARITY_OF_LAST: dict[str, int] = _shared_by_last("arity")
#: last name -> (position, keyword) of the argument that must hold a tensor, where every entry
#: of that last name has one (``pad``): ``F.pad(x, (0, 1))`` is no break
TENSOR_ARG_OF_LAST: dict[str, tuple[int, str]] = _shared_by_last("tensor_arg")
#: qualified names of the output calls a cause fix knows (GBF010), and their last names with the
#: logger methods': what the prefilter reads as an output call
OUTPUT_QUALIFIED: frozenset[str] = frozenset(c.name for c in CATALOGUE if c.kind == "qualified" and c.cause)
OUTPUT_NAMES: frozenset[str] = frozenset(name.rpartition(".")[2] for name in OUTPUT_QUALIFIED) | frozenset(
    c.name for c in CATALOGUE if c.kind == "logger" and c.cause
)
#: last names of :data:`LOGGER_NAMES` (``self.logger``: ``logger``)
LOGGER_RECEIVER_LASTS: frozenset[str] = frozenset(name.rpartition(".")[2] for name in LOGGER_NAMES)
#: builtins that break when applied to a tensor (``int``…), matched only around a method call,
#: on one line: ``int(x.sum())`` (see :data:`TENSOR_READ_CALL`)
TENSOR_READ_NAMES: frozenset[str] = frozenset(name.rpartition(".")[2] for name in BY_TENSOR_READ)
#: last name -> the module names written before a tensor read other than a builtin (``operator.index``)
TENSOR_READ_PARENTS: dict[str, frozenset[str]] = {
    last: frozenset(name.rpartition(".")[0] for name in BY_TENSOR_READ if name.rpartition(".")[2] == last)
    for last in TENSOR_READ_NAMES
}
#: last names of the entries that break only on what an argument holds (``pad``)
TENSOR_ARG_NAMES: frozenset[str] = frozenset(c.name.rpartition(".")[2] for c in CATALOGUE if c.tensor_arg)
#: after ``int``: ``(`` and, on the same line, a method call inside it (``int(x.sum())``)
TENSOR_READ_REST = re.compile(r"\s*\([^\n]*?\.\s*\w+\s*\(")
#: after ``int``: ``(`` and a name alone (``int(total)``): a tensor read where the function binds
#: that name once, on one line, to a value a method call is written in (``total = x.sum()``)
TENSOR_READ_NAME = re.compile(r"\s*\(\s*(\w+)\s*\)")
#: ``.name(``: a method call, searched in the value a name is bound to
METHOD_CALL = re.compile(r"\.\s*\w+\s*\(")
#: functions libraries answer True with while Dynamo traces, whatever their arguments
#: (transformers' ``is_tracing(tensor)``): ``not is_tracing(m) and m.all()`` never reads ``m.all()`` there
TRACING_GUARDS: frozenset[str] = frozenset(
    {"is_tracing", "is_torchdynamo_compiling", "is_dynamo_compiling", "is_compiling"}
)
#: builtins that read the truth of each item of what they are handed (``any(p.max() > 2 for p in
#: parts)``: measured to skip a 3-trip loop's frame on torch 2.13, as ``if p.max() > 2:`` does)
TRUTH_BUILTINS: frozenset[str] = frozenset({"any", "all"})
#: the words of what makes Python read a value's truth: ``if``/``elif``/``while`` and ternary and
#: comprehension tests, ``not``, ``and``/``or``, and a call of :data:`TRUTH_BUILTINS` (not a method)
_TRUTH_WORD = r"(?:\b(?:if|elif|while|and|or|not)\b|(?<![.\w])(?:%s)\s*\()" % "|".join(sorted(TRUTH_BUILTINS))
_CONDITION_CALL = r"\b(?:%s)\s*\(" % "|".join(sorted(CONDITION_CALLS))
#: a line that calls a condition name and reads a truth: what a branch on a tensor looks like as
#: text (``if mask.any():``, ``while (y > c).any():``, ``h if h.sum() > 0 else -h``, ``a and t.any()``)
CONDITION_LINE = re.compile(
    rf"^[^\n]*?(?:{_TRUTH_WORD}[^\n]*?{_CONDITION_CALL}|{_CONDITION_CALL}[^\n]*?{_TRUTH_WORD})", re.MULTILINE
)
#: a truth word, searched on the line of a condition call
TRUTH_WORD = re.compile(_TRUTH_WORD)
#: what a bool tensor is written with: a comparison, a bitwise operator, a call of a bool method or
#: function, the ``bool`` dtype (``dtype=torch.bool``, ``.to(torch.bool)``)
_BOOL_MARK = r"(?:[<~&|^]|(?<!-)>|==|!=|\.[ \t]*bool\b|\b(?:%s)\s*\()" % "|".join(sorted(BOOL_METHODS | BOOL_FUNCTIONS))
#: a ``[`` with what a bool tensor is written with after it on the line: a subscript through a mask
#: written in place (``x[x > 0]``), as :data:`MASK_INDEX` matches it (one line)
MASK_LINE = re.compile(r"\[[^\n]*?" + _BOOL_MARK)
#: what a bool tensor is written with, alone: searched between a ``[`` and its ``]``
BOOL_MARK = re.compile(_BOOL_MARK)
#: ``name = `` then what a bool tensor is written with on the same line: a mask bound to a name
#: (not ``None = None`` in ``m: T | None = None, x: T | None = None``: no name is bound there)
MASK_BINDING = re.compile(r"\b(?!(?:None|True|False)\b)(\w+)[ \t]*=(?!=)(?=[^\n]*?" + _BOOL_MARK + ")")
#: a subscript by a name alone (``h[mask]``): a mask when :data:`MASK_BINDING` binds the name
NAME_INDEX = re.compile(r"\[[\s(]*(\w+)[\s)]*\]")
#: what a 0-dim tensor is written with: a reduction with empty parentheses (``.argmax()``) or a call
#: of a ``torch`` function that makes one (:data:`ZERO_DIM_METHODS`, :data:`ZERO_DIM_FUNCTIONS`)
_ZERO_DIM_MARK = r"(?:\.[ \t]*(?:%s)[ \t]*\([ \t]*\)|\b(?:%s)[ \t]*\()" % (
    "|".join(sorted(ZERO_DIM_METHODS)),
    "|".join(sorted(ZERO_DIM_FUNCTIONS)),
)
ZERO_DIM_MARK = re.compile(_ZERO_DIM_MARK)
#: a ``[`` whose line holds, after it, a 0-dim mark or a slice bound that is a subscript
#: (``[:lengths[i]``, ``[lengths[i]:``): a subscript that may read an index, as :data:`INDEX_READ`
#: and :data:`SLICE_READ` match it (one line); the marks are searched between the ``[`` and its ``]``
_ELEMENT = r"(?![\w.]*\bshape[ \t]*\[)[\w.]+[ \t]*\["
INDEX_READ_LINE = re.compile(
    r"\[[^\n]*?(?:" + _ZERO_DIM_MARK + r"|:[ \t]*" + _ELEMENT + r"|" + _ELEMENT + r"[^\]\n]*\][ \t]*:)"
)
#: a slice bound written as a subscript (not of a ``.shape``), searched between a ``[`` and its ``]``
SUBSCRIPT_BOUND = re.compile(r"(?::[ \t]*" + _ELEMENT + r"|[\[,][ \t]*" + _ELEMENT + r"[^\]\n]*\][ \t]*:)")
#: names whose call may break whatever the module defines
WATCHED_NAMES: frozenset[str] = frozenset(PARENTS_OF_LAST) | METHOD_NAMES | LOGGER_METHOD_NAMES
#: last names every entry of which counts only where a run recorded it (``warning_once``)
RECORDED_ONLY_NAMES: frozenset[str] = frozenset(
    last
    for last in {c.name.rpartition(".")[2] for c in CATALOGUE if c.recorded_only}
    if all(c.recorded_only for c in CATALOGUE if c.name.rpartition(".")[2] == last)
)
#: what the screen watches: it never sees a file a run recorded (those are parsed whole), so a
#: call that breaks only where a run recorded it cannot break there
SCREEN_WATCHED_NAMES: frozenset[str] = WATCHED_NAMES - RECORDED_ONLY_NAMES

#: Plain-text fragments of which at least one must appear in a file for any
#: catalogue entry to match it; the cheap screen uses them.
SCREEN_TOKENS: tuple[str, ...] = (
    "print",
    "open(",
    "repr(",
    "graph_break",
    "skip_frame",
    "nonzero",
    "unique",
    "time",
    "perf_counter",
    "monotonic",
    "warn",
    ".write(",
    "random",
    "log",
    ".tolist(",
    "pad",
    # the generated entries, by the last name of each (``.item(``, ``int``…)
    *sorted({entry["name"].rpartition(".")[2] for entry in catalogue_table.ENTRIES if entry["kind"] != "mask_index"}),
)

#: Context managers Dynamo resumes in (measured on torch 2.13): a break inside
#: them does not skip the frame, so no rule touches them.
RESUMABLE_CONTEXT_MANAGERS: frozenset[str] = frozenset(
    {
        "torch.no_grad",
        "torch.enable_grad",
        "torch.set_grad_enabled",
        "torch.inference_mode",
        "torch.autocast",
        "torch.amp.autocast",
        "torch.cuda.amp.autocast",
        "torch.cpu.amp.autocast",
        "torch.amp.autocast_mode.autocast",
        "torch.autograd.grad_mode.no_grad",
        "torch.autograd.grad_mode.enable_grad",
        "torch.autograd.grad_mode.set_grad_enabled",
        "torch.autograd.grad_mode.inference_mode",
        "contextlib.nullcontext",
        "torch.autograd.profiler.record_function",
        "torch.profiler.record_function",
        "torch.profiler.profile",
        "torch.autograd.profiler.profile",
        "torch.nn.attention.sdpa_kernel",
    }
)
