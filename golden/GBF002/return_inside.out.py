"""`return` inside the loop propagates through the helper's call."""
import torch


def scan_rows(x, limit=2):
    x = x * 3

    def _gbfix_loop_1():
        nonlocal x

        def _gbfix_i_step_2(i):
            nonlocal x
            if i == limit:
                return True, x[i] * 10
            print("row", i)
            x = x + 1
            return False, None

        for i in range(x.shape[0]):
            _gbfix_returned_2, _gbfix_value_2 = _gbfix_i_step_2(i)
            if _gbfix_returned_2:
                return True, _gbfix_value_2
        return False, None

    _gbfix_returned_1, _gbfix_value_1 = _gbfix_loop_1()
    if _gbfix_returned_1:
        return _gbfix_value_1
    return x.sum()


ENTRY = scan_rows
EXPECT_SKIPPED_AFTER = 1


def example_inputs():
    return (torch.arange(8.0).reshape(4, 2),)
