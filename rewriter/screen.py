"""The cheap first stage: can any active rule possibly match this file?

libcst parsing and metadata cost two orders of magnitude more than reading
a file, so files are screened by plain text first. A rule matches only if
one of its own tokens (``for ``, ``with ``, ``compile``…) and, for the
break rules, one token of the break catalogue appear in the text. The
screen may let through files that then need no change; it must never drop a
file the full analysis would change (tests prove it on the golden corpus).
"""

from __future__ import annotations

from codemods import REGISTRY
from codemods.catalogue import SCREEN_TOKENS


def could_match(text: str, codes: tuple[str, ...]) -> bool:
    for code in codes:
        rule = REGISTRY[code]
        if rule.SCREEN and not any(token in text for token in rule.SCREEN):
            continue
        if not rule.NEEDS_BREAK or any(t in text for t in SCREEN_TOKENS):
            return True
    return False
