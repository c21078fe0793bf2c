"""The statements after the last break read `scale`, which the head binds only on some paths:
the whole body stays in the per-trip function."""
import torch


def f(x, n=3):
    scale = None

    def _gbfix_loop_1():
        nonlocal scale, x

        def _gbfix_i_step_2(i):
            nonlocal scale, x
            if i > 0:
                scale = x.abs().max()
            print("trip", i)
            x = x + 1
            x = x * scale if scale is not None else x.tanh()

        for i in range(n):
            _gbfix_i_step_2(i)

    _gbfix_loop_1()
    return x


ENTRY = f
EXPECT_SKIPPED_AFTER = 1


def example_inputs():
    return (torch.linspace(-1.0, 1.0, 5),)
