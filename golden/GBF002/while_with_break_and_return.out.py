"""A `while` loop whose body both breaks and returns."""
import torch


def f(x, n=5):
    i = 0

    def _gbfix_loop_1():
        nonlocal i, x

        def _gbfix_step_2():
            nonlocal i, x
            x = x + i
            if x.sum() > 1000:
                return True, True, x * 0
            print("trip", i)
            if i == 3:
                return True, False, None
            i += 1
            return False, False, None

        while i < n:
            _gbfix_stop_2, _gbfix_returned_2, _gbfix_value_2 = _gbfix_step_2()
            if _gbfix_returned_2:
                return True, _gbfix_value_2
            if _gbfix_stop_2:
                break
        return False, None

    _gbfix_returned_1, _gbfix_value_1 = _gbfix_loop_1()
    if _gbfix_returned_1:
        return _gbfix_value_1
    return x.cos()


ENTRY = f
EXPECT_SKIPPED_AFTER = 1


def example_inputs():
    return (torch.ones(3),)
