"""Whether the break analysis shows Dynamo skipping a function, and from where.

The structural rules each look at one kind of statement: a loop (GBF001,
GBF002), a ``with`` (GBF003), a ``try`` (GBF004). A rule that asks about the
frame as a whole (what else runs eagerly because it is skipped) needs their
verdicts together, with the same inputs: :func:`find_breaks` on the body of
each loop, ``with`` and ``try`` of the function's own code,
:func:`sites_that_skip` for loops, and the managers Dynamo resumes in
(:data:`~codemods.analysis.catalogue.RESUMABLE_CONTEXT_MANAGERS`) left out.

Measured with torch 2.13 on Python 3.11: a break in a loop skips the whole
frame (gb7000), code before the loop included. A break in a ``try`` or an
unresumable ``with`` makes Dynamo give up from that block on; the code
before it is compiled only when Dynamo finds a resumable state before the
block ("Compiling up to the previous resumable state"). It keeps one only
at a statement outside any block once the graph holds two ops or more
(``is_non_empty_graph``), wherever they come from: ``x * 2 + 1``, a
comprehension of ``x * v`` over two values, a call of a function that runs
two. With one op (``x * 2``, such a call or comprehension running one) or
none it skips the whole function ("Failed to handle graph break
gracefully. Skipping the function").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterator, Optional, Union

import libcst as cst
from libcst import MetadataDependent

from codemods.analysis.breaks.cst import BreakSite, Lookup, find_breaks, sites_that_skip
from codemods.analysis.catalogue import RESUMABLE_CONTEXT_MANAGERS
from codemods.analysis.names.scopes import manager_names
from codemods.fastcst import walk

Holder = Union[cst.For, cst.While, cst.With, cst.Try]

#: statements the walk of a function's own code does not enter: their bodies are other frames
_OTHER_FRAMES = walk.node_types(cst.FunctionDef, cst.ClassDef)
_HOLDERS = walk.node_types(cst.For, cst.While, cst.With, cst.Try)


@dataclass(frozen=True)
class FrameSkip:
    """A loop, ``with`` or ``try`` of a function whose break makes Dynamo skip the function."""

    holder: Holder
    #: the first break in it that does
    site: BreakSite

    @property
    def whole(self) -> bool:
        """A loop skips the whole frame; a ``with`` or ``try`` skips it from the block on."""
        return isinstance(self.holder, (cst.For, cst.While))

    @property
    def kind(self) -> str:
        """``a loop``, ``a `with` block``, ``a `try` block``: what holds the break."""
        if self.whole:
            return "a loop"
        return "a `with` block" if isinstance(self.holder, cst.With) else "a `try` block"


def resumes_in(dependent: MetadataDependent, item: cst.WithItem) -> bool:
    """Whether Dynamo resumes inside the manager of a ``with`` item (``torch.no_grad()``…), so
    a break in the block skips nothing. Needs ``NameScopeProvider`` among ``dependent``'s
    dependencies."""
    return bool(manager_names(dependent, item) & RESUMABLE_CONTEXT_MANAGERS)


def frame_skips(
    func: cst.FunctionDef,
    dependent: MetadataDependent,
    lookup: Lookup,
    line_of: Callable[[cst.CSTNode], int],
    start_of: Callable[[cst.CSTNode], tuple[int, int]],
    recorded: frozenset[int],
    counts: Callable[[BreakSite], bool] = lambda site: True,
) -> list[FrameSkip]:
    """The loops, ``with`` and ``try`` statements of ``func``'s own code (nested definitions
    aside) whose break makes Dynamo skip ``func``, in source order.

    ``dependent`` resolves the managers of ``with`` items (those Dynamo
    resumes in are left out, as GBF003 leaves them); ``counts``: whether a
    break site counts (a rule leaves out the ones another active rule removes).
    """
    found = []
    for holder in _holders(func.body):
        site = _skipping_site(holder, dependent, lookup, line_of, start_of, recorded, counts)
        if site is not None:
            found.append(FrameSkip(holder, site))
    return found


def _holders(node: cst.CSTNode) -> Iterator[Holder]:
    for child in walk.children(node):
        if type(child) in _OTHER_FRAMES:
            continue
        if type(child) in _HOLDERS:
            yield child  # type: ignore[misc]
        if type(child) in walk.STATEMENT_HOLDERS:
            yield from _holders(child)


def _skipping_site(
    holder: Holder,
    dependent: MetadataDependent,
    lookup: Lookup,
    line_of: Callable[[cst.CSTNode], int],
    start_of: Callable[[cst.CSTNode], tuple[int, int]],
    recorded: frozenset[int],
    counts: Callable[[BreakSite], bool],
) -> Optional[BreakSite]:
    if isinstance(holder, cst.With) and (
        holder.asynchronous is not None or all(resumes_in(dependent, item) for item in holder.items)
    ):
        return None
    parts: list[cst.CSTNode] = [holder.body]
    if isinstance(holder, cst.While):
        parts.append(holder.test)  # evaluated on every trip
    sites = find_breaks(parts, lookup, line_of, recorded)
    if isinstance(holder, (cst.For, cst.While)):
        sites = sites_that_skip([holder.body], sites, start_of)
    return next((site for site in sites if counts(site)), None)
