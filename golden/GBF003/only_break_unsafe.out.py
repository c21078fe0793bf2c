# golden: --unsafe-fixes
"""The break is the block's only statement: even with --unsafe-fixes it is outlined,
because a split would leave no `with` and the manager would not be entered at all."""
import torch

EVENTS = []


class Section:
    def __init__(self, name):
        self.name = name

    def __enter__(self):
        EVENTS.append(("enter", self.name))
        return self

    def __exit__(self, *exc):
        EVENTS.append(("exit", self.name))
        return False


def fn(x):
    x = x.sin()

    def _gbfix_with_1():
        with Section("report"):
            print("norm", x.norm())

    _gbfix_with_1()
    return x.cos()


ENTRY = fn
EXPECT_SKIPPED_AFTER = 1


def example_inputs():
    return (torch.randn(3),)
