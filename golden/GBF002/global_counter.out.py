"""A loop that rebinds a module global and runs no tensor op: outlined whole, the helper declares it global too."""
import torch

CALLS = 0


def f(x, n=2):
    global CALLS
    start = CALLS
    x = x + 1

    def _gbfix_loop_1():
        global CALLS
        for i in range(n):
            CALLS += 1
            print("call", i)

    _gbfix_loop_1()
    return x * (CALLS - start)


ENTRY = f
EXPECT_SKIPPED_AFTER = 1


def example_inputs():
    return (torch.ones(2),)
