"""try/except/else with a print in the middle: the else goes with the second part. (The
handler catches nothing the compiled parts may raise: see compiled_lookup_refused.)"""
import torch


def fn(x):
    try:
        y = x * 2
        print("doubled")
        z = y + 1
    except (TypeError, ValueError) as exc:
        z = x
    else:
        z = z * 3
    return z


ENTRY = fn


def example_inputs():
    return (torch.randn(3),)
