"""The class inherits its breaking forward from a base of the package; imported as a module."""
import thirdparty_pkg as tp
import torch as th

GOLDEN_KIND = "strict"

th.manual_seed(0)
tagger = tp.Tagged(8)


@th._dynamo.error_on_graph_break(True)
def tag(x):
    return tagger(x).mean(0)


ENTRY = tag


def example_inputs():
    return (th.randn(5, 8),)
