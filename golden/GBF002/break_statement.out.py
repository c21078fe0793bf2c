"""A loop with `break`: cannot be unrolled, is outlined whole."""
import torch


def f(x):
    x = x.sin()

    def _gbfix_loop_1():
        nonlocal x

        def _gbfix_i_step_2(i):
            nonlocal x
            x = x + 1
            if i == 2:
                print("stop at", i)
                return True
            return False

        for i in range(5):
            if _gbfix_i_step_2(i):
                break

    _gbfix_loop_1()
    return x.cos()


ENTRY = f
EXPECT_SKIPPED_AFTER = 1


def example_inputs():
    return (torch.ones(2),)
