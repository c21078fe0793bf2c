"""`break` ends the loop through a value the driver reads; `else` stays on the loop."""
import torch


def f(x, limit=2.5):
    def _gbfix_loop_1():
        nonlocal x

        def _gbfix_i_step_2(i):
            nonlocal x
            x = x * 1.1
            print("trip", i)
            if x.sum().item() > limit * 10:
                return True
            return False

        for i in range(x.numel()):
            if _gbfix_i_step_2(i):
                break
        else:
            x = x - 100

    _gbfix_loop_1()
    return x.relu()


ENTRY = f
EXPECT_SKIPPED_AFTER = 1


def example_inputs():
    return (torch.ones(6),)
