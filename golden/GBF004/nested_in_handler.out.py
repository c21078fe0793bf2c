"""A try nested in the handler and in the else clause of a try that is split: the split
keeps them in the function, so the one in the else clause is split in the same run (a second
run changes nothing); the one in the handler runs only after an exception, which Dynamo's
normal path never traces, so it is left as written."""
import torch


def fn(x):
    x = x.sin()
    _gbfix_ok_1 = False
    try:
        y = x + 1
        _gbfix_ok_1 = True
    except ValueError:
        try:
            y = x - 1
            print("fallback")
        except RuntimeError:
            y = x
    if _gbfix_ok_1:
        print("y ready")
        try:
            y = y * 2
        except ValueError:
            try:
                y = x - 1
                print("fallback")
            except RuntimeError:
                y = x
        else:
            _gbfix_ok_2 = False
            try:
                y = y.exp()
                _gbfix_ok_2 = True
            except ValueError:
                pass
            if _gbfix_ok_2:
                print("exp done")
                try:
                    y = y + 1
                except ValueError:
                    pass
    return y.cos()


ENTRY = fn


def example_inputs():
    return (torch.randn(3),)
