"""Neighbours of the recipe: `warnings.warn` raises only a `Warning` (under an "error" filter) or a
`TypeError`, which `except KeyError` does not catch (moved to `else:`), and `.tolist()` of a tensor
raises only a `RuntimeError`, which `except (KeyError, IndexError)` does not catch (hoisted)."""
import warnings

import torch


def warn_tail(x: torch.Tensor, table: dict):
    h = x.exp()
    try:
        h = h * table["scale"]
        warnings.warn(f"scaled to {h.shape} on {h.device}")
    except KeyError:
        h = h + 1
    return h.log()


def tolist_head(x: torch.Tensor, table: dict):
    counts = (x > 0).sum(0)
    try:
        sizes = counts.tolist()
        h = x * table["scale"] + sizes[0]
    except (KeyError, IndexError):
        h = x
    return h.tanh()


def both(x: torch.Tensor):
    table = {"scale": 2.0}
    return warn_tail(x, table) + tolist_head(x, table)


ENTRY = both


def example_inputs():
    return (torch.randn(4, 3),)
