"""Neighbours of the compiled-try hazard: after a split, the rest of the `try` body is compiled,
and Dynamo (torch 2.13) compiles a handled lookup miss (`KeyError` of a dict or ModuleDict,
`AttributeError` of an attribute) without a guard on the missing key, so a later call that finds
it gets the handler's values; a failing tensor op raises past the handler. Where a handler
catches that, the `try` is outlined (it runs eagerly, as before); where it cannot, it is split."""
import torch


class Head(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = torch.nn.Linear(3, 3)
        self.scales = {"a": 2.0}

    def dict_lookup(self, h: torch.Tensor, key: str):
        out = h
        try:
            out = out * self.scales[key]
            print("scaled")
        except KeyError:
            out = out + 1
        return out.tanh()

    def attribute_lookup(self, h: torch.Tensor):
        out = h
        try:
            print("projecting")
            out = self.proj(out) * self.bias_scale
        except AttributeError:
            out = out - 1
        return out.sigmoid()

    def via_a_call(self, h: torch.Tensor, table: dict):
        out = h
        try:
            out = out + lookup(table)
            print("shifted")
        except LookupError:
            out = out * 3
        return out.exp()

    def tensor_op_vs_runtime_error(self, h: torch.Tensor):
        out = h
        try:
            print("matmul")
            out = out @ out.T
        except RuntimeError:
            out = out * 0
        return out.cos()

    def split_remains(self, h: torch.Tensor, key: str):
        out = h
        scale = self.scales.get(key, 1.0)
        try:
            out = out * scale + 1
            print("scaled", out.dtype)
        except KeyError:
            out = out - 1
        return out.sin()

    def forward(self, x: torch.Tensor):
        y = self.dict_lookup(x, "a") + self.dict_lookup(x, "b")
        y = y + self.attribute_lookup(x) + self.via_a_call(x, {"shift": 1.0})
        return y + self.tensor_op_vs_runtime_error(x) + self.split_remains(x, "a")


def lookup(table: dict):
    return table["shift"]


HEAD = Head()


def run(x: torch.Tensor):
    return HEAD(x)


ENTRY = run
#: the four outlined `try` helpers stay skipped: they run the `try` eagerly, as before
EXPECT_SKIPPED_AFTER = 4


def example_inputs():
    torch.manual_seed(0)
    return (torch.randn(3, 3),)
