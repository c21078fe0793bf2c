"""Text-level checks of the prefilter: whole words, calls written as ``name(``, imports of torch.

Python's regular expressions are slow to try an alternation of words at
every position of a file, so words are found with ``str.find`` and their
boundaries checked here; one pattern finds every identifier followed by
``(``. Text in strings and comments only adds matches, which only lets
more files through.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Optional

from codemods.analysis.astnodes import TO_PAREN, is_word_char, normal, word_ends

WORD = re.compile(r"\w+")
#: an identifier, then ``(``
CALL = re.compile(r"\b(\w++)" + TO_PAREN)

#: what follows ``perf_counter`` in ``perf_counter as pc``, an import alias of a catalogue name
ALIAS_REST = re.compile(r"(?:[\s\\]|#[^\n]*)+as\b")
_BLANK = " \t\f\\"


def whole_words(text: str, word: str) -> Iterator[int]:
    """Where each ``word`` in ``text`` starts that is a word of its own (``\\bword\\b``)."""
    for end in word_ends(text, word):
        if end == len(text) or not is_word_char(text[end]):
            yield end - len(word)


def has_word(text: str, word: str) -> bool:
    """``re.search(rf"\\b{word}\\b", text)``, without trying the pattern at every position."""
    return next(whole_words(text, word), None) is not None


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


#: a tuple of integers written out (``(0, 1)``, ``(-1, 0,)``): no amount held in a tensor
INT_TUPLE = re.compile(r"\(\s*-?\d+\s*(?:,\s*-?\d+\s*)*,?\s*\)")


def call_arguments(text: str, open_at: int, limit: int = 2000) -> Optional[list[str]]:
    """The arguments of the call whose ``(`` is at ``open_at``, as written, split at the commas
    outside brackets, comments left out; None when the text does not say plainly (a string that
    spans lines, ``*args``/``**kwargs``, or no closing ``)`` within ``limit`` characters)."""
    depth = 0
    start = open_at + 1
    found: list[str] = []
    pieces: list[str] = []  # the current argument's text, comments cut out
    index = open_at
    stop = min(len(text), open_at + limit)
    while index < stop:
        char = text[index]
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
            if depth == 0:
                if char != ")":
                    return None
                last = ("".join(pieces) + text[start:index]).strip()
                if last:
                    found.append(last)
                return None if any(a.startswith("*") for a in found) else found
        elif char == "#":
            pieces.append(text[start:index])
            index = text.find("\n", index)
            if index == -1:
                return None
            start = index
            continue
        elif char in "\"'":
            close = _string_end(text, index)
            if close is None:
                return None
            index = close
            continue
        elif char == "," and depth == 1:
            found.append(("".join(pieces) + text[start:index]).strip())
            pieces = []
            start = index + 1
        index += 1
    return None


def _string_end(text: str, quote_at: int) -> Optional[int]:
    """Just past the one-line string literal that opens at ``quote_at``; None for a triple-quoted
    one or one not closed on its line."""
    quote = text[quote_at]
    if text.startswith(quote * 3, quote_at):
        return None
    index = quote_at + 1
    while index < len(text):
        char = text[index]
        if char == "\\":
            index += 2
            continue
        if char == quote:
            return index + 1
        if char == "\n":
            return None
        index += 1
    return None


#: a keyword argument as written (``value=0``, not ``a == b``)
KEYWORD_ARGUMENT = re.compile(r"\w+\s*=(?!=)")
_METHOD_CALL = re.compile(r"\.\s*\w+\s*\(")


def method_receivers(text: str) -> list[str]:
    """The identifier written before each ``.name(`` of ``text`` ("" where it is not one:
    ``x[0].item(``)."""
    found = []
    for match in _METHOD_CALL.finditer(text):
        end = match.start()
        while end and text[end - 1] in _BLANK:
            end -= 1
        start = end
        while start and is_word_char(text[start - 1]):
            start -= 1
        found.append(text[start:end])
    return found
