"""Fresh names for generated helpers (``_gbfix_inner_1``, ``_gbfix_loop_2``…).

Numbers are unique across a module and never reuse a number already present,
so running gbfix on its own output cannot clash.
"""

from __future__ import annotations

import re
from typing import Optional

import libcst as cst

from codemods import walk

_GENERATED = re.compile(r"^_gbfix_[a-z]+_(\d+)$")


class NameAllocator:
    def __init__(self, module: cst.Module) -> None:
        self._module = module
        self._next: Optional[int] = None

    def fresh(self, kind: str) -> str:
        if self._next is None:
            # Most files get no rewrite: walk the module for taken numbers only when one is needed.
            self._next = 1 + max(
                (int(m.group(1)) for m in map(_GENERATED.match, _names(self._module)) if m), default=0
            )
        name = f"_gbfix_{kind}_{self._next}"
        self._next += 1
        return name


def _names(module: cst.Module) -> list[str]:
    return [
        node.value for node in walk.descendants(module)
        if isinstance(node, cst.Name) and node.value.startswith("_gbfix_")
    ]
