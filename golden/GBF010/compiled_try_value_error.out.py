import torch

GOLDEN_KIND = "cause"
COMPILES_ITSELF = True
PRINTED = "same"
OPS_IN_GRAPH = 6


# The neighbour that is still fixed: `except ValueError` catches nothing the compiled body
# gets wrong (a missed lookup raises KeyError, a failing tensor op RuntimeError).
def scale(x, table):
    try:
        for i in range(3):
            x = (x * table["scale"]).tanh()
            print(f"trip {i}")
    except ValueError:
        x = x + 1
    return x


compiled_scale = torch._dynamo.config.patch(reorderable_logging_functions={print})(torch.compile(scale, backend="eager"))
ENTRY = compiled_scale


def example_inputs():
    return (torch.randn(2, 3), {"scale": 2.0})
