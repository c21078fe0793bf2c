"""Neighbours of the recipe: `warnings.warn` raises only a `Warning` (under an "error" filter) or a
`TypeError`, which `except KeyError` does not catch (moved to `else:`), and `.tolist()` of a tensor
raises only a `RuntimeError`, which `except (KeyError, IndexError)` does not catch (hoisted). The
rest of each body, compiled after the split, runs tensor ops and `len()`, which raise neither
(a `table["scale"]` there would be refused: see compiled_lookup_refused)."""
import warnings

import torch


def warn_tail(x: torch.Tensor, scale: float):
    h = x.exp()
    try:
        h = h * scale
    except KeyError:
        h = h + 1
    else:
        warnings.warn(f"scaled to {h.shape} on {h.device}")
    return h.log()


def tolist_head(x: torch.Tensor, scale: float):
    counts = (x > 0).sum(0)
    sizes = counts.tolist()
    try:
        h = x * scale + len(sizes)
    except (KeyError, IndexError):
        h = x
    return h.tanh()


def both(x: torch.Tensor):
    return warn_tail(x, 2.0) + tolist_head(x, 2.0)


ENTRY = both


def example_inputs():
    return (torch.randn(4, 3),)
