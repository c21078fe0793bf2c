"""No break in the try body (the handler prints): unchanged."""
import torch


def fn(x):
    try:
        x = x + 1
    except ValueError:
        print("bad")
    return x


ENTRY = fn


def example_inputs():
    return (torch.randn(3),)
