"""Fresh names for generated helpers (``_gbfix_inner_1``, ``_gbfix_loop_2``…).

Numbers are unique across a module and never reuse a number already written
in its text, so running gbfix on its own output cannot clash. The engine
reads the first free number from the text it parses and carries it from
one rule to the next, so no rule needs to walk the tree for names.
"""

from __future__ import annotations

import re

#: a generated name written as a whole identifier (in code, or in a string or comment: more is fine)
_GENERATED = re.compile(r"(?<!\w)_gbfix_[a-z]+_(\d+)(?!\w)")


def first_free_number(text: str) -> int:
    """The smallest helper number above every one written in ``text``."""
    if "_gbfix_" not in text:
        return 1
    return 1 + max((int(m.group(1)) for m in _GENERATED.finditer(text)), default=0)


class NameAllocator:
    def __init__(self, first: int) -> None:
        #: the number the next fresh name gets
        self.next = first

    def fresh(self, kind: str) -> str:
        name = f"_gbfix_{kind}_{self.next}"
        self.next += 1
        return name
