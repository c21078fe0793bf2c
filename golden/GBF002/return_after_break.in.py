"""A `return` after the break inside the loop body: Dynamo does not skip.

Dynamo decides "graph break in a loop" by scanning forward from the break for
a backward jump and stops at the first return; here the return comes first,
so the frame resumes and there is nothing to fix."""
import torch


def first_large(x, threshold=0.5):
    x = x.abs()
    for i in range(x.shape[0]):
        if x[i].item() > threshold:
            return x[i] * 10
    return x.sum()


ENTRY = first_large


def example_inputs():
    return (torch.tensor([0.1, 0.2, 0.9, 0.3]),)
