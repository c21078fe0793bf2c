import torch

GOLDEN_KIND = "cause"
COMPILES_ITSELF = True
PRINTED = "same"
OPS_IN_GRAPH = 9


def scale(x, weight):
    for i in range(3):
        x = (x * weight).tanh()
        print(f"trip {i}: mean {x.mean()}")
    return x


compiled_scale = torch.compile(scale, backend="eager")
ENTRY = compiled_scale


def example_inputs():
    return (torch.randn(2, 3), torch.randn(3))
