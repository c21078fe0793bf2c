import torch

GOLDEN_KIND = "cause"
COMPILES_ITSELF = True
PRINTED = "same"


# The print's break keeps `scale` eager. Without it the `try` would be compiled, and Dynamo
# (torch 2.13) traces a missed `table["scale"]` into the handler's path without a guard on the
# key: later calls that have the key would get the handler's values. Left as written.
def scale(x, table):
    try:
        for i in range(3):
            x = (x * table["scale"]).tanh()
            print(f"trip {i}")
    except KeyError:
        x = x + 1
    return x


compiled_scale = torch.compile(scale, backend="eager")
ENTRY = compiled_scale


def example_inputs():
    return (torch.randn(2, 3), {"scale": 2.0})
