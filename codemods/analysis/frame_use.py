"""Code that depends on the frame it runs in, so it cannot move into a helper.

Unrolling (GBF001) and outlining (GBF002–GBF004) run code in a new nested
function. Most code cannot tell, but some reads or writes its own frame:
``eval("scale * i")`` and ``exec`` resolve names in the calling frame (a
helper cannot see the parent's locals that no code of the helper names),
``locals()``, ``vars()`` and a bare ``dir()`` list another frame's names,
``sys._getframe()`` and ``inspect.currentframe()`` return another frame,
zero-argument ``super()`` and a bare ``__class__`` need the class cell of
a method. Such code is refused with the reason, never rewritten.

A rewrite also changes the frame of the function it rewrites: a helper's
name is added to it, and the names the moved code binds leave it (a loop
variable). Code that lists or evaluates the names of that frame anywhere in
the function (``locals()``, ``eval("i")`` after the loop) would see the
difference, so such a function is not rewritten by a fix that adds or moves
names (:func:`reads_own_frame`).

A coroutine (``async def``) is not rewritten either (:func:`coroutine_refusal`).
Dynamo skips one whose break it cannot resume after, and the coroutine runs.
A rewrite moves the break to where Dynamo would resume, and Dynamo cannot
make a resume function for a coroutine: measured on torch 2.13, the call
then fails with an AssertionError.

``globals()`` is the module's dictionary from any frame of the module, so
it does not count.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from codemods.analysis.names.bindings import is_generated
from codemods.analysis.nodes import dotted_name
from codemods.fastcst import walk

_BUILTINS = frozenset({"locals", "vars", "exec", "eval"})
_FRAME_CALLS = frozenset({"sys._getframe", "inspect.currentframe", "inspect.stack", "inspect.getouterframes"})


def _reads_names(name: Optional[str], call: cst.Call) -> bool:
    """Whether a call of ``name`` reads the names of the frame it runs in (``dir`` only with no argument)."""
    return name in _BUILTINS or name in _FRAME_CALLS or (name == "dir" and not call.args)


def frame_dependence(stmt: cst.CSTNode) -> str:
    """What in ``stmt`` depends on the frame it runs in (```eval()```), or "" when nothing does."""
    #: names read as attributes (``self.__class__``): they are not the frame's own
    attributes: set[int] = set()
    for node in walk.descendants(stmt, _in_same_frame):
        if type(node) is cst.Attribute:
            attributes.add(id(node.attr))
        elif type(node) is cst.Call:
            name = dotted_name(node.func)
            if name in ("super", "dir") and not node.args:
                return f"zero-argument `{name}()`"
            if _reads_names(name, node):
                return f"`{name}()`"
        elif type(node) is cst.Name and node.value == "__class__" and id(node) not in attributes:
            return "`__class__`"
    return ""


def reads_own_frame(func: cst.FunctionDef) -> str:
    """What in ``func``'s own code reads the names of its frame (``locals()``), or "" when nothing does."""
    for node in walk.descendants(func.body, _in_same_frame):
        if type(node) is cst.Call:
            name = dotted_name(node.func)
            if _reads_names(name, node):
                return f"`{name}()`"
    return ""


def coroutine_refusal(func: cst.FunctionDef) -> str:
    """Why no fix may make a break in ``func`` resumable: it is a coroutine; "" when it is not."""
    if func.asynchronous is None:
        return ""
    return (
        f"`{func.name.value}` is a coroutine (`async def`): Dynamo cannot resume one after a graph break "
        "(torch 2.13 raises an AssertionError where it skipped the frame before)"
    )


def frame_refusal(func: cst.FunctionDef) -> str:
    """Why a fix that adds names to ``func``'s frame, or moves some out of it, must not: "" when none."""
    coroutine = coroutine_refusal(func)
    if coroutine:
        return coroutine
    found = reads_own_frame(func)
    if not found:
        return ""
    return f"`{func.name.value}` uses {found}, which would see the names the rewrite adds to its frame or moves out"


def _in_same_frame(node: cst.CSTNode) -> bool:
    """What is below ``node`` runs in its frame: not so in a lambda or a def (but for our own helpers).
    Whitespace and punctuation hold no code: they are not entered."""
    if type(node) in walk.TRIVIA:
        return False
    if type(node) is cst.FunctionDef:
        return is_generated(node.name.value)
    return type(node) is not cst.Lambda
