"""Text-level checks of the prefilter: whole words, calls written as ``name(``, imports of torch.

Python's regular expressions are slow to try an alternation of words at
every position of a file, so words are found with ``str.find`` and their
boundaries checked here; one pattern finds every identifier followed by
``(``. Text in strings and comments only adds matches, which only lets
more files through.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from typing import Optional

#: what may come between a called name and its ``(``: blanks, backslash-newlines, comments, ``)``
_TO_PAREN = r"(?:[\s\\)]|#[^\n]*)*+\("
WORD = re.compile(r"\w+")
#: an identifier, then ``(``
CALL = re.compile(r"\b(\w++)" + _TO_PAREN)
#: what follows a called name up to its ``(`` (``CALL`` without the name)
CALL_REST = re.compile(_TO_PAREN)
#: what follows ``perf_counter`` in ``perf_counter as pc``, an import alias of a catalogue name
ALIAS_REST = re.compile(r"(?:[\s\\]|#[^\n]*)+as\b")
_BLANK = " \t\f\\"


def is_word_char(char: str) -> bool:
    """What ``\\w`` matches in a ``str`` pattern."""
    return char.isalnum() or char == "_"


def word_ends(text: str, word: str) -> Iterator[int]:
    """Where each ``word`` in ``text`` that no identifier character comes before ends."""
    start = text.find(word)
    while start >= 0:
        if start == 0 or not is_word_char(text[start - 1]):
            yield start + len(word)
        start = text.find(word, start + 1)


def whole_words(text: str, word: str) -> Iterator[int]:
    """Where each ``word`` in ``text`` starts that is a word of its own (``\\bword\\b``)."""
    for end in word_ends(text, word):
        if end == len(text) or not is_word_char(text[end]):
            yield end - len(word)


def has_word(text: str, word: str) -> bool:
    """``re.search(rf"\\b{word}\\b", text)``, without trying the pattern at every position."""
    return next(whole_words(text, word), None) is not None


def normal(name: str) -> str:
    """Python reads identifiers in NFKC form; so does ``ast``."""
    return name if name.isascii() else unicodedata.normalize("NFKC", name)


def _skip_back(text: str, i: int) -> tuple[int, bool]:
    """Step back over blanks and line ends; False when a line passed holds a ``#``."""
    while i > 0:
        char = text[i - 1]
        if char == "\n":
            if "#" in text[text.rfind("\n", 0, i - 1) + 1 : i - 1]:
                return i, False  # a comment may hide what comes before
        elif char not in _BLANK:
            break
        i -= 1
    return i, True


def before(text: str, end: int) -> tuple[bool, Optional[str], bool]:
    """What is written before position ``end``: (a dot?, the receiver's last identifier, sure?).

    ``sure`` is False when a comment may hide what is there, or the receiver
    is not an identifier (``f().x``, ``(a).x``).
    """
    if end and text[end - 1] not in _BLANK + "\n.":
        return False, None, True  # the common case: `(print(`, ` print(`
    i, sure = _skip_back(text, end)
    if not sure:
        return False, None, False
    if i == 0 or text[i - 1] != ".":
        return False, None, True
    i, sure = _skip_back(text, i - 1)
    j = i
    while j > 0 and is_word_char(text[j - 1]):
        j -= 1
    if j == i or not sure:
        return True, None, False
    return True, normal(text[j:i]), True


#: ``import torch``, ``import numpy as np, torch.nn``, ``from torch.nn import Linear``, at any depth
_IMPORTS_TORCH = re.compile(
    r"^[ \t]*(?:from[ \t]+torch\b|import[ \t]+(?:[\w.]+(?:[ \t]+as[ \t]+\w+)?[ \t]*,[ \t]*)*torch\b)",
    re.MULTILINE,
)


def imports_torch(text: str) -> bool:
    """Whether some line of ``text`` imports torch (text in strings may say so too: that only lets more through)."""
    return "torch" in text and _IMPORTS_TORCH.search(text) is not None
