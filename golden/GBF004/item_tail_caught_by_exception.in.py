"""A print of `.item()` ends the body, but `.item()` may raise a `RuntimeError` (a device error),
which `except Exception` catches: moving it to `else:` would let it escape, so the `try` is
outlined."""
import torch


def report(x: torch.Tensor):
    h = x.sin()
    try:
        h = h * 2
        print("total", h.sum().item())
    except Exception:
        h = h - 1
    return h.cos()


ENTRY = report
EXPECT_SKIPPED_AFTER = 1


def example_inputs():
    return (torch.randn(4),)
