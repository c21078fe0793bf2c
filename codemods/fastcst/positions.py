"""Line and column of nodes, the same as libcst's ``PositionProvider`` gives, for less.

``PositionProvider`` regenerates the module's code and, for every node,
builds three frozen dataclasses and enters a generator-based context
manager; that is several times the cost of generating the code, while a
rule asks for the position of a handful of nodes per file. This provider
makes the same walk with the same bookkeeping but records plain tuples, and
builds a :class:`~libcst.metadata.CodeRange` only for a node asked about,
and only once something is asked.
Given the module's source as its cache (``cache={LazyPositionProvider:
text}``), a question generates only the top-level statement that holds the
node asked about: rules ask about a few functions, and a model file is tens
of classes. The statement's code, generated alone from line 1, is moved to
the one place the text holds it (the whole module is generated when there
is no such single place). tests/test_positions.py requires equal ranges
for every node of the golden corpus and of tricky sources, asked either way.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Any, Callable, Iterator, Mapping, Optional

import libcst as cst
from libcst.metadata import CodePosition, CodeRange
from libcst.metadata.base_provider import BaseMetadataProvider
from libcst.metadata.position_provider import NEWLINE_RE, PositionProvidingCodegenState

from codemods.fastcst import walk

_Point = tuple[int, int]
#: id(node) -> (node, start, end): libcst nodes hash in Python, ids in C
_Entries = dict[int, tuple[cst.CSTNode, _Point, _Point]]
_MISSING = object()


class _Ranges(dict):
    """node -> (start, end) points, read as CodeRange; stored by the node's id.

    The walk that finds them runs on the first question: a file with no
    finding (a third of those parsed) often asks none.
    """

    def __init__(
        self, fill: Callable[[], dict], part: Optional[Callable[[cst.CSTNode], Optional[dict]]] = None
    ) -> None:
        super().__init__()
        self._fill: Optional[Callable[[], dict]] = fill
        #: the entries of the top-level statement that holds a node (None: not known that way)
        self._part = part

    def _ready(self) -> None:
        if self._fill is not None:
            fill, self._fill = self._fill, None
            dict.update(self, fill())

    def _entry(self, node: cst.CSTNode) -> Any:
        entry = dict.get(self, id(node), _MISSING)
        if entry is _MISSING and self._fill is not None:
            found = self._part(node) if self._part is not None else None
            if found:
                dict.update(self, found)
                entry = dict.get(self, id(node), _MISSING)
            if entry is _MISSING:
                self._ready()
                entry = dict.get(self, id(node), _MISSING)
        return entry

    def __getitem__(self, node: cst.CSTNode) -> CodeRange:
        entry = self._entry(node)
        if entry is _MISSING:
            raise KeyError(node)
        return _range(entry)

    def get(self, node: cst.CSTNode, default: Any = None) -> Any:
        entry = self._entry(node)
        return default if entry is _MISSING else _range(entry)

    def __contains__(self, node: object) -> bool:
        self._ready()
        return dict.__contains__(self, id(node))

    def __iter__(self) -> Iterator[cst.CSTNode]:
        self._ready()
        return (entry[0] for entry in dict.values(self))

    def __len__(self) -> int:
        self._ready()
        return dict.__len__(self)

    def keys(self) -> list[cst.CSTNode]:  # type: ignore[override]
        return list(self)

    def values(self) -> Iterator[CodeRange]:  # type: ignore[override]
        self._ready()
        return (_range(entry) for entry in dict.values(self))

    def items(self) -> Iterator[tuple[cst.CSTNode, CodeRange]]:  # type: ignore[override]
        self._ready()
        return ((entry[0], _range(entry)) for entry in dict.values(self))


def _range(entry: tuple[cst.CSTNode, _Point, _Point]) -> CodeRange:
    _, (line, column), (end_line, end_column) = entry
    return CodeRange(CodePosition(line, column), CodePosition(end_line, end_column))


class _Syntactic:
    """``record_syntactic_position`` as a plain context manager (a generator one costs more)."""

    __slots__ = ("state", "node", "start_node", "end_node", "start")

    def __init__(
        self, state: "_State", node: cst.CSTNode, start_node: Optional[cst.CSTNode], end_node: Optional[cst.CSTNode]
    ) -> None:
        self.state = state
        self.node = node
        self.start_node = start_node
        self.end_node = end_node

    def __enter__(self) -> None:
        self.start = (self.state.line, self.state.column)

    def __exit__(self, exc_type: object, *exc: object) -> None:
        if exc_type is not None:
            # The walk failed inside (a RecursionError on deep code): the nodes this
            # range needs were never recorded, and looking them up would hide why.
            return
        state = self.state
        computed = state.provider._computed
        # the provider's own table is keyed by node id (see LazyPositionProvider._gen)
        start = computed[id(self.start_node)][1] if self.start_node is not None else self.start  # type: ignore[index]
        end = computed[id(self.end_node)][2] if self.end_node is not None else (state.line, state.column)  # type: ignore[index]
        computed[id(self.node)] = (self.node, start, end)  # type: ignore[index]


class _State(PositionProvidingCodegenState):
    __slots__ = ()

    def add_indent_tokens(self) -> None:
        for token in self.indent_tokens:
            self.add_token(token)

    def add_token(self, value: str) -> None:
        self.tokens.append(value)
        if "\n" in value or "\r" in value:
            segments = NEWLINE_RE.split(value)
            self.line += len(segments) - 1
            self.column = len(segments[-1])
        else:
            self.column += len(value)

    def before_codegen(self, node: cst.CSTNode) -> None:
        self._stack.append((self.line, self.column))  # type: ignore[arg-type]

    def after_codegen(self, node: cst.CSTNode) -> None:
        start = self._stack.pop()
        computed = self.provider._computed
        key = id(node)
        if key not in computed:  # a syntactic position recorded inside wins
            computed[key] = (node, start, (self.line, self.column))  # type: ignore[index]

    def record_syntactic_position(  # type: ignore[override]
        self,
        node: cst.CSTNode,
        *,
        start_node: Optional[cst.CSTNode] = None,
        end_node: Optional[cst.CSTNode] = None,
    ) -> _Syntactic:
        return _Syntactic(self, node, start_node, end_node)


class LazyPositionProvider(BaseMetadataProvider[CodeRange]):
    """Each node's :class:`~libcst.metadata.CodeRange`, exactly as ``PositionProvider`` has it.

    Its cache, when given, is the module's source text.
    """

    def __init__(self, cache: object = None) -> None:
        # Without the text (a tree a rule has changed) the whole module is generated on the first question.
        super().__init__(cache if isinstance(cache, str) else "")
        self._text: Optional[str] = cache if isinstance(cache, str) else None

    @classmethod
    def gen_cache(cls, root_path: Any, paths: list[str], timeout: Optional[int] = None, **kwargs: Any) -> Mapping:
        """libcst's hook for providers that take a cache: the engine hands each module its text itself."""
        return {path: None for path in paths}

    def _gen_impl(self, module: cst.Module) -> None:
        state = _State(default_indent=module.default_indent, default_newline=module.default_newline, provider=self)
        module._codegen(state)

    def _gen(self, wrapper: Any) -> Mapping[cst.CSTNode, CodeRange]:
        module = wrapper.module

        def fill() -> _Entries:
            self._computed: _Entries = {}  # type: ignore[assignment]
            self._gen_impl(module)
            return self._computed

        part = _Statements(self, module, self._text).entries_for if self._text else None
        return MappingProxyType(_Ranges(fill, part))


class _Statements:
    """The module's top-level statements, each generated on its own when a node in it is asked about."""

    def __init__(self, provider: LazyPositionProvider, module: cst.Module, text: str) -> None:
        self.provider = provider
        self.module = module
        self.text = text
        #: id(node) -> index of the top-level statement holding it, for the statements walked so far
        self._index: dict[int, int] = {}
        self._walked = 0
        self._done: set[int] = set()

    def entries_for(self, node: cst.CSTNode) -> Optional[_Entries]:
        """The entries of the statement holding ``node``; None when it is in none (the module's
        header or footer, a node inside whitespace), is done already, or cannot be placed."""
        index = self._index_of(node)
        if index is None or index in self._done or "\r" in self.text:
            return None
        self._done.add(index)
        self.provider._computed = {}
        state = _State(
            default_indent=self.module.default_indent,
            default_newline=self.module.default_newline,
            provider=self.provider,
        )
        self.module.body[index]._codegen(state)
        # The module's code is its statements' codes one after another, each from a line's start:
        # the one place the statement's code is written in the text is where it stands.
        code = "".join(state.tokens)
        at = self.text.find(code)
        if at < 0 or (at and self.text[at - 1] != "\n") or self.text.find(code, at + 1) >= 0:
            return None
        shift = self.text.count("\n", 0, at)
        entries: _Entries = self.provider._computed
        return {key: (n, (a + shift, b), (c + shift, d)) for key, (n, (a, b), (c, d)) in entries.items()}

    def _index_of(self, node: cst.CSTNode) -> Optional[int]:
        found = self._index.get(id(node))
        body = self.module.body
        while found is None and self._walked < len(body):
            index = self._walked
            self._walked += 1
            # Whitespace and punctuation hold nothing else: a node under them is looked up the long way.
            for inner in walk.descendants(body[index], enter=_not_trivia):
                self._index[id(inner)] = index
            found = self._index.get(id(node))
        return found


def _not_trivia(node: cst.CSTNode) -> bool:
    return type(node) not in walk.TRIVIA
