"""Room for deeply nested but valid code: a large stack and a deeper recursion limit.

libcst parses with a recursive native parser and walks and prints its trees
with recursive Python; at Python's default recursion limit (1000) a tree
about 90 blocks or 150 brackets deep raises RecursionError, and on the 8 MiB
main-thread stack the native parser crashes the whole process somewhere
beyond a few thousand levels. So each file is processed on a thread of its
own with a large stack (only the pages it touches cost memory), and the
libcst stages run with a recursion limit that stack can hold.

How deep a file may be is decided before libcst sees it, by Python's own
parser at the process's normal recursion limit (see
:mod:`rewriter.engine.pipeline`): what that parser refuses is reported, never
handed on; what it accepts (at most about 3,000 levels on Python 3.11) fits
in :data:`STACK_BYTES` with room to spare, for the native parser and for
:data:`RECURSION_LIMIT` Python frames alike.
"""

from __future__ import annotations

import ctypes
import sys
import threading
from contextlib import contextmanager
from typing import Callable, Iterator, TypeVar

T = TypeVar("T")

#: the stack of the thread a file is processed on (address space; pages are used as touched)
STACK_BYTES = 256 * 1024 * 1024
#: Python frames allowed while libcst runs on that stack. Frames that recurse through C
#: calls took about 2 KiB of stack each on CPython 3.11 (64 MiB held 30,000 of them), so
#: the stack holds this many four times over; the 3,000-level trees Python's parser
#: accepts needed under 20,000.
RECURSION_LIMIT = 30_000

#: seconds between looks at an interrupted file's thread
_POLL = 0.5

_local = threading.local()
#: threading.stack_size is process-wide: one thread is started with it at a time
_starting = threading.Lock()


def on_deep_stack(function: Callable[..., T], *args: object) -> T:
    """``function(*args)`` on a fresh thread with a :data:`STACK_BYTES` stack; its result or its exception.

    Where the platform cannot set a thread's stack size, it runs here, and
    :func:`deeper_recursion` leaves the recursion limit alone.
    """
    outcome: dict[str, object] = {}
    done = threading.Event()

    def run() -> None:
        _local.deep = True
        try:
            outcome["value"] = function(*args)
        except BaseException as exc:  # handed to the caller's thread as it is
            outcome["error"] = exc
        finally:
            done.set()

    worker = threading.Thread(target=run, name="gbfix-file")
    try:
        with _starting:
            try:
                previous = threading.stack_size(STACK_BYTES)
            except (ValueError, RuntimeError):
                return function(*args)
            try:
                worker.start()
            finally:
                threading.stack_size(previous)
        # An Event, not Thread.join: on Python 3.11 a join that Ctrl-C interrupts marks
        # the thread finished while it runs, and exiting under it aborts the process.
        done.wait()
    except BaseException:
        _stop(worker, done)
        raise
    worker.join()
    if "error" in outcome:
        raise outcome["error"]  # type: ignore[misc]
    return outcome["value"]  # type: ignore[return-value]


def _stop(worker: threading.Thread, done: threading.Event) -> None:
    """After Ctrl-C, which lands in the caller's thread: stop the file's thread too, and wait for it.

    The interrupt would have stopped the work had it run in the caller's
    thread; and a thread still inside libcst's native code when the
    interpreter exits aborts the process. A thread not started yet is left
    to finish: the interpreter waits for it on the way out.
    """
    if worker.ident is None:
        return
    ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(worker.ident), ctypes.py_object(KeyboardInterrupt))
    # A thread the interrupt ended before it ran the file never sets ``done``.
    while not done.wait(_POLL) and worker.is_alive():
        pass


@contextmanager
def deeper_recursion() -> Iterator[None]:
    """:data:`RECURSION_LIMIT` for the block, on a thread :func:`on_deep_stack` started; else nothing changes.

    On an ordinary stack a higher limit would turn a RecursionError into a
    crash, so only the deep-stack thread raises it. The limit is the
    interpreter's, so other threads see it too meanwhile: the only others
    are the one waiting for this file and a pool's bookkeeping, neither deep.
    """
    if not getattr(_local, "deep", False):
        yield
        return
    previous = sys.getrecursionlimit()
    sys.setrecursionlimit(max(previous, RECURSION_LIMIT))
    try:
        yield
    finally:
        sys.setrecursionlimit(previous)
