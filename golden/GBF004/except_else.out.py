"""try/except/else with a print in the middle: the else goes with the second part. (The
handler catches nothing the compiled parts may raise: see compiled_lookup_refused.)"""
import torch


def fn(x):
    _gbfix_ok_1 = False
    try:
        y = x * 2
        _gbfix_ok_1 = True
    except (TypeError, ValueError) as exc:
        z = x
    if _gbfix_ok_1:
        print("doubled")
        try:
            z = y + 1
        except (TypeError, ValueError) as exc:
            z = x
        else:
            z = z * 3
    return z


ENTRY = fn


def example_inputs():
    return (torch.randn(3),)
