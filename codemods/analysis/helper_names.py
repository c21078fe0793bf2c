"""Fresh names for generated helpers (``_gbfix_inner_1``, ``_gbfix_layers_loop_2``…).

A name is ``_gbfix_`` + an optional hint (what the helper holds: the
iterable a loop runs over, the variable a step handles) + its kind + a
number. Numbers are unique across a module and never reuse a number
already written in its text, so running gbfix on its own output cannot
clash whatever the hints are. A rule allocates numbers as it leaves
statements, inner loops first; :class:`RenumberHelpers` then hands the
numbers it used out again in reading order, so an outer loop's helper reads
``_1`` and the helpers inside it ``_2``, ``_3``. The engine reads the first free number from
the text it parses and carries it from one rule to the next, so no rule
needs to walk the tree for names.
"""

from __future__ import annotations

import re
from typing import Optional

import libcst as cst

from codemods.fastcst import walk

#: a generated name written as a whole identifier (in code, or in a string or comment: more is fine)
_GENERATED = re.compile(r"(?<!\w)_gbfix_[a-z0-9_]*?_(\d+)(?!\w)")
#: a generated helper's name: its hint, its kind, its number
_HELPER = re.compile(r"_gbfix_(?:(\w+?)_)?([a-z]+)_\d+")
#: the longest hint a name carries, so a name stays readable
_HINT_CHARS = 24
#: kinds of helper whose frame is skipped whole: what was moved into them stays there
OUTLINED_KINDS = frozenset({"loop", "with", "try"})


def first_free_number(text: str) -> int:
    """The smallest helper number above every one written in ``text``."""
    if "_gbfix_" not in text:
        return 1
    return 1 + max((int(m.group(1)) for m in _GENERATED.finditer(text)), default=0)


def helper_kind(name: str) -> Optional[str]:
    """``loop`` for ``_gbfix_layers_loop_2``; None for a name gbfix did not make."""
    match = _HELPER.fullmatch(name)
    return match.group(2) if match else None


def is_outlined(name: str) -> bool:
    """A helper whose frame Dynamo skips whole (a loop driver, an outlined ``with`` or ``try``)."""
    return helper_kind(name) in OUTLINED_KINDS


def hint_of(name: Optional[str]) -> str:
    """A short lower-case hint from an identifier (``self.layers`` -> ``layers``); "" when none fits."""
    if not name:
        return ""
    last = name.rpartition(".")[2].strip("_").lower()
    if not last.isidentifier() or not last.isascii() or last.startswith("gbfix"):
        return ""
    return last[:_HINT_CHARS].rstrip("_")


class NameAllocator:
    def __init__(self, first: int) -> None:
        #: the number the next fresh name gets
        self.next = first

    def fresh(self, kind: str, hint: str = "") -> str:
        if hint == kind:
            hint = ""  # `_gbfix_step_2` for a loop over `step`, not `_gbfix_step_step_2`
        name = f"_gbfix_{hint}_{kind}_{self.next}" if hint else f"_gbfix_{kind}_{self.next}"
        self.next += 1
        return name


class RenumberHelpers(cst.CSTTransformer):
    """Gives the generated names numbered in ``[first, end)`` their numbers in reading order.

    Each number stands for one helper and the names made with it
    (``_gbfix_loop_3``, ``_gbfix_returned_3``); they are numbered again from
    ``first``, in the order their first name appears in the module (a helper
    a later rewrite folded away leaves no gap).
    """

    def __init__(self, first: int, end: int) -> None:
        super().__init__()
        self.first, self.end = first, end
        self.mapping: dict[int, int] = {}

    def _number(self, name: str) -> Optional[int]:
        match = _GENERATED.fullmatch(name)
        if match is None:
            return None
        number = int(match.group(1))
        return number if self.first <= number < self.end else None

    def visit_Module(self, node: cst.Module) -> Optional[bool]:
        if self.end - self.first < 2:
            return False  # one number at most, and it is ``first`` already: nothing to walk for
        seen: list[int] = []
        for found in walk.descendants(node, lambda inner: type(inner) not in walk.TRIVIA):
            if type(found) is cst.Name:
                number = self._number(found.value)
                if number is not None and number not in seen:
                    seen.append(number)
        self.mapping = {old: new for old, new in zip(seen, range(self.first, self.end), strict=False) if old != new}
        return bool(self.mapping)

    def leave_Name(self, original_node: cst.Name, updated_node: cst.Name) -> cst.Name:
        number = self._number(original_node.value)
        if number is None or number not in self.mapping:
            return updated_node
        stem = original_node.value[: -len(str(number))]
        return updated_node.with_changes(value=f"{stem}{self.mapping[number]}")
