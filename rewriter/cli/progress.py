"""A progress bar on stderr for batches, shown only on a terminal.

Drawn in place with a carriage return, at most ten times a second, and
cleared before anything else is printed (``hide``), so notes, errors and a
patch on a terminal never share a line with it. When stderr is not a
terminal (CI logs, pipes, files) nothing at all is written.
"""

from __future__ import annotations

import sys
import time
from typing import Iterable, Iterator, Optional, TextIO, TypeVar

T = TypeVar("T")

_WIDTH = 30
_EVERY = 0.1  # seconds between redraws


class Progress:
    """``with Progress(total) as bar: ... bar.advance()``; a no-op when not on a terminal."""

    def __init__(self, total: int, enabled: bool = True, stream: Optional[TextIO] = None) -> None:
        self.stream = stream or sys.stderr
        self.total = total
        self.done = 0
        self.enabled = enabled and total > 0 and _is_terminal(self.stream)
        self._shown = False
        self._last = 0.0
        self._start = time.perf_counter()

    def __enter__(self) -> "Progress":
        return self

    def __exit__(self, *exc: object) -> None:
        self.hide()

    def track(self, items: Iterable[T]) -> Iterator[T]:
        """``items``, with the bar hidden while the caller handles each one and advanced after."""
        for item in items:
            self.hide()
            yield item
            self.advance()

    def advance(self, count: int = 1) -> None:
        self.done += count
        if not self.enabled:
            return
        now = time.perf_counter()
        if now - self._last >= _EVERY or self.done >= self.total:
            self._last = now
            self._draw(now)

    def hide(self) -> None:
        """Clear the bar so the next line printed starts clean (it comes back on ``advance``)."""
        if self._shown:
            self.stream.write("\r\033[K")
            self.stream.flush()
            self._shown = False

    def _draw(self, now: float) -> None:
        fraction = min(1.0, self.done / self.total)
        filled = int(fraction * _WIDTH)
        elapsed = now - self._start
        eta = f", {elapsed / fraction - elapsed:.0f}s left" if 0 < fraction < 1 and elapsed > 1 else ""
        self.stream.write(f"\r\033[K[{'#' * filled}{'.' * (_WIDTH - filled)}] {self.done}/{self.total} files{eta}")
        self.stream.flush()
        self._shown = True


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
