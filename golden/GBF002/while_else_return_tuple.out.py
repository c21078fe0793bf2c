"""`return a, b` in a `while … else` of an outlined loop returns one tuple, not its parts."""
import torch


def settle(x, n=3):
    i = 0

    def _gbfix_loop_1():
        nonlocal i, x

        def _gbfix_step_2():
            nonlocal i, x
            x = x * 2
            print("step", i)
            i += 1

        while i < n:
            _gbfix_step_2()
        else:
            return True, (x.sum(), x)
        return False, None

    _gbfix_returned_1, _gbfix_value_1 = _gbfix_loop_1()
    if _gbfix_returned_1:
        return _gbfix_value_1
    return x, x


ENTRY = settle
EXPECT_SKIPPED_AFTER = 1


def example_inputs():
    return (torch.arange(4.0),)
