"""`continue` ends one trip's call; a name carried from trip to trip lives in the loop helper."""
import torch


def f(x, n=4):
    total = x * 0
    last = None

    def _gbfix_loop_1():
        nonlocal last, total

        def _gbfix_i_step_2(i):
            nonlocal last, total
            last = x * i
            total = total + last

        for i in range(n):
            if i % 2:
                print("skip", i)
                continue
            _gbfix_i_step_2(i)

    _gbfix_loop_1()
    return total + last


ENTRY = f
EXPECT_SKIPPED_AFTER = 1


def example_inputs():
    return (torch.ones(3),)
