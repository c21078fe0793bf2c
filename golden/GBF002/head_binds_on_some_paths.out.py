"""The statements after the last break read `scale`, which the head binds inside an `if`
(the analysis does not follow branches): the whole body stays in the per-trip function."""
import torch


def f(x, n=3):
    def _gbfix_loop_1():
        nonlocal x

        def _gbfix_i_step_2(i):
            nonlocal x
            if i % 2:
                scale = x.abs().max()
            else:
                scale = x.abs().min() + 1
            print("trip", i)
            x = x + 1
            x = x * scale

        for i in range(n):
            _gbfix_i_step_2(i)

    _gbfix_loop_1()
    return x


ENTRY = f
EXPECT_SKIPPED_AFTER = 1


def example_inputs():
    return (torch.linspace(-1.0, 1.0, 5),)
