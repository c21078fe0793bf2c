"""A while loop whose condition reads a value with `.item()`."""
import torch


def shrink(x):
    x = x.exp()

    def _gbfix_loop_1():
        nonlocal x

        def _gbfix_step_2():
            nonlocal x
            x = x * 0.5

        while x.norm().item() > 1.0:
            _gbfix_step_2()

    _gbfix_loop_1()
    return x.log1p()


ENTRY = shrink
EXPECT_SKIPPED_AFTER = 1


def example_inputs():
    return (torch.randn(16),)
