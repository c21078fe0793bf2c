"""`best` is first bound inside the loop and read after it."""
import torch


def f(x, n=3):
    x = x.relu()
    best: object

    def _gbfix_loop_1():
        nonlocal best, x

        def _gbfix_i_step_2():
            nonlocal x
            x = x - best * 0.1

        for i in range(n):
            best = x.max()
            print("round", i, best.item())
            _gbfix_i_step_2()

    _gbfix_loop_1()
    return x + best


ENTRY = f
EXPECT_SKIPPED_AFTER = 1


def example_inputs():
    return (torch.arange(5.0),)
