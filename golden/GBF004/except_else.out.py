"""try/except/else with a print in the middle: the else goes with the second part."""
import torch


def fn(x):
    _gbfix_ok_1 = False
    try:
        y = x * 2
        _gbfix_ok_1 = True
    except (RuntimeError, ValueError) as exc:
        z = x
    if _gbfix_ok_1:
        print("doubled")
        try:
            z = y + 1
        except (RuntimeError, ValueError) as exc:
            z = x
        else:
            z = z * 3
    return z


ENTRY = fn


def example_inputs():
    return (torch.randn(3),)
