"""The body rebinds the loop variable, read after the loop: it stays the loop helper's, shared."""
import torch


def f(x, n=3):
    i: object

    def _gbfix_loop_1():
        nonlocal i, x

        def _gbfix_i_step_2():
            nonlocal i, x
            i = i * 10
            x = x + i
            print("trip", i)

        for i in range(n):
            _gbfix_i_step_2()

    _gbfix_loop_1()
    return x * i


ENTRY = f
EXPECT_SKIPPED_AFTER = 1


def example_inputs():
    return (torch.ones(2),)
