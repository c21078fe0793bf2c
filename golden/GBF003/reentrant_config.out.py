# golden: --reentrant Recorder
"""A manager listed in reentrant_context_managers is split safely by default."""
import torch

EVENTS = []


class Recorder:
    def __enter__(self):
        EVENTS.append("enter")
        return self

    def __exit__(self, *exc):
        EVENTS.append("exit")
        return False


def fn(x):
    with Recorder():
        x = x + 1
    print("recording")
    with Recorder():
        x = x * 2
    return x


ENTRY = fn


def example_inputs():
    return (torch.randn(3),)
