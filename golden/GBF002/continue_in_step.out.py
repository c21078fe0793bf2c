"""A `continue` after the last break ends that trip's call: it becomes a return of the per-trip function."""
import torch


def f(x, n=4):
    def _gbfix_loop_1():
        nonlocal x

        def _gbfix_i_step_2(i):
            nonlocal x
            if i % 2:
                x = x * 0.5
                return
            x = x + i
            x = x.relu() * 2

        for i in range(n):
            print("trip", i)
            _gbfix_i_step_2(i)

    _gbfix_loop_1()
    return x


ENTRY = f
EXPECT_SKIPPED_AFTER = 1


def example_inputs():
    return (torch.linspace(-1.0, 1.0, 5),)
