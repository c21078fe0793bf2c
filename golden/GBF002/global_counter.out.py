"""A loop that rebinds a module global: the helper declares it global too."""
import torch

CALLS = 0


def f(x, n=2):
    global CALLS
    start = CALLS
    x = x + 1

    def _gbfix_loop_1():
        global CALLS

        def _gbfix_i_step_2(i):
            global CALLS
            CALLS += 1
            print("call", i)

        for i in range(n):
            _gbfix_i_step_2(i)

    _gbfix_loop_1()
    return x * (CALLS - start)


ENTRY = f
EXPECT_SKIPPED_AFTER = 1


def example_inputs():
    return (torch.ones(2),)
