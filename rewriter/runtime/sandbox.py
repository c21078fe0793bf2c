"""Run one side of a verification (the code before or after a rewrite) in a fresh process.

``gbfix verify`` starts this module twice, once per side, so each side gets
its own Dynamo state, RNG state and module cache. A request (JSON) names:

* the module to serve (its real dotted name), the file it stands for, and
  the source text to serve for it. A meta path finder answers for that one
  name, so ``from . import sibling`` and ``import pkg.other`` inside it, and
  modules that import it, all resolve as in the real project; code objects
  carry the real file name and :mod:`linecache` holds the served text, so
  tracebacks quote the lines that actually ran;
* the entry ``MODULE:ATTR`` (a function, an ``nn.Module`` instance, or an
  ``nn.Module`` class built with no arguments under a fixed seed) and the
  inputs factory ``MODULE:FN`` (called with ``device=`` when it takes one);
* the device and the backend;
* for ``gbfix advise``, Dynamo settings to make before anything runs
  (``dynamo_config``: a flag's value, or the dotted names of the callables a
  set setting holds), and whether to record what the calls print, warn and
  log (``capture_output``). With no module to serve (``module`` empty), the
  entry's own files are imported as they are.

The side builds the entry and the inputs, moves both to the device (made
the default device too, for tensors the entry creates itself), calls the
entry eagerly, then compiled through :func:`rewriter.runtime.measure.measure`
(the one measurement code path), each time from freshly built inputs under
the same seed. It writes a JSON result (statistics, or an error with the
user's traceback stripped of gbfix's and importlib's frames) and saves both
outputs with ``torch.save``, as plain tensors and containers, for the parent
to compare.
"""

from __future__ import annotations

import contextlib
import dataclasses
import importlib
import importlib.abc
import importlib.util
import inspect
import io
import json
import linecache
import logging
import os
import re
import sys
import time
import traceback
import warnings
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Optional

_HERE = os.path.dirname(os.path.abspath(__file__))
#: the directory holding this gbfix's ``rewriter`` package (a checkout, or site-packages)
_ROOT = os.path.dirname(os.path.dirname(_HERE))
#: how the parent starts a side: with the parent's own gbfix, installed or a checkout. Its root
#: comes first only while gbfix is imported (another gbfix installed must not answer instead), then
#: goes last, so that a checkout's folders (examples/, tests/) never shadow the user's modules.
_BOOT = (
    "import sys; sys.path.insert(0, {root!r}); import rewriter, codemods; "
    "from rewriter.runtime.sandbox import main; sys.path.remove({root!r}); sys.path.append({root!r}); "
    "sys.exit(main(sys.argv[1]))"
)
EXIT_SIDE_ERROR = 3


@dataclass(frozen=True)
class Request:
    module: str
    origin: str
    source: str
    entry: str
    inputs: str
    result: str
    outputs: str
    device: str = "cpu"
    backend: str = "eager"
    is_package: bool = False
    paths: tuple[str, ...] = ()
    seed: int = 0
    #: the first call compiles, the second recompiles what turned dynamic, the last is timed
    calls: int = 3
    #: ``torch._dynamo.config`` settings made first: name -> value, or -> dotted names for a set
    dynamo_config: dict[str, Any] = dataclasses.field(default_factory=dict)
    #: record what the eager and the compiled calls print, warn and log
    capture_output: bool = False
    #: a timing run: the module's text after the rewrite (``source`` is the one before), both
    #: served in this process, their compiled calls timed in turn (:func:`run_timing`)
    other_source: str = ""
    #: timed calls of each side in a timing run
    rounds: int = 20

    def to_json(self) -> str:
        return json.dumps(dataclasses.asdict(self))

    @classmethod
    def from_json(cls, text: str) -> "Request":
        data = json.loads(text)
        data["paths"] = tuple(data.get("paths", ()))
        return cls(**data)


def command(request_path: str) -> list[str]:
    """The argv that runs one side for the request stored at ``request_path``."""
    return [sys.executable, "-c", _BOOT.format(root=_ROOT), request_path]


class SetupError(Exception):
    """The entry or inputs cannot be found or used: gbfix's message, no traceback."""


class UserError(Exception):
    """The user's code raised; carries its traceback without gbfix's frames."""

    def __init__(self, phase: str, exc: BaseException) -> None:
        super().__init__(f"{phase}: {type(exc).__name__}: {exc}")
        self.phase = phase
        self.exc = exc
        self.traceback = user_traceback(exc)


# --- serving the module -----------------------------------------------------------


class ServedModule(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Answer imports of one dotted name with given source text, under the real file name."""

    def __init__(self, name: str, origin: str, source: str, is_package: bool = False) -> None:
        self.name = name
        self.origin = origin
        self.source = source
        self.is_package = is_package

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        if fullname != self.name:
            return None
        locations = [os.path.dirname(self.origin)] if self.is_package else None
        return importlib.util.spec_from_file_location(
            fullname, self.origin, loader=self, submodule_search_locations=locations
        )

    def create_module(self, spec: Any) -> None:
        return None  # the default module object

    def exec_module(self, module: Any) -> None:
        code = compile(self.source, self.origin, "exec", dont_inherit=True)
        exec(code, module.__dict__)

    def get_source(self, fullname: str) -> str:
        return self.source

    def install(self) -> None:
        # mtime None: linecache.checkcache keeps the entry even though the
        # file on disk (the other side's text) differs.
        lines = self.source.splitlines(keepends=True)
        linecache.cache[self.origin] = (len(self.source), None, lines, self.origin)
        sys.meta_path.insert(0, self)


# --- finding the device, the entry and the inputs ---------------------------------


def resolve_device(spec: str) -> str:
    """``auto`` is CUDA when torch sees it, else CPU; CUDA asked for but missing is an error."""
    import torch

    spec = spec.strip().lower()
    if spec == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if spec.startswith("cuda") and not torch.cuda.is_available():
        raise SetupError(f"--device {spec}: CUDA is not available to torch here (try --device cpu)")
    return spec


def split_spec(spec: str, option: str) -> tuple[str, str]:
    module, sep, attr = spec.partition(":")
    if not sep or not module or not attr:
        raise SetupError(f"{option} {spec!r}: expected MODULE:ATTR, e.g. pkg.model:forward")
    return module, attr


def resolve_spec(spec: str, option: str) -> Any:
    """Import ``MODULE`` and walk ``ATTR`` (dots allowed); missing pieces are a SetupError."""
    name, attr = split_spec(spec, option)
    try:
        obj = importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name and (name == exc.name or name.startswith(exc.name + ".")):
            raise SetupError(f"{option} {spec}: no module named {exc.name!r}") from None
        raise UserError(f"importing {name}", exc) from None
    except Exception as exc:
        raise UserError(f"importing {name}", exc) from None
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise SetupError(f"{option} {spec}: {name} has no attribute {attr!r}") from None
    return obj


def build_entry(obj: Any, device: Any, seed: int) -> Callable:
    """The callable to run: module classes built under ``seed``; modules moved to ``device``."""
    import torch

    from rewriter.runtime.measure import resolve_entry

    if not callable(obj):
        raise SetupError(f"--entry: {obj!r} is not callable")
    try:
        fn = resolve_entry(obj, seed)
    except Exception as exc:
        raise UserError("building the entry", exc) from None
    if isinstance(fn, torch.nn.Module):
        fn.to(device)
    return fn


def build_inputs(factory: Any, device: Any, seed: int) -> tuple:
    from rewriter.runtime.measure import seed_everything

    if not callable(factory):
        raise SetupError(f"--inputs: {factory!r} is not callable")
    seed_everything(seed)
    try:
        if _takes_device(factory):
            args = factory(device=str(device))
        else:
            args = factory()
    except Exception as exc:
        raise UserError("building the inputs", exc) from None
    if not isinstance(args, (tuple, list)):
        args = (args,)
    return tuple(to_device(a, device) for a in args)


def _takes_device(fn: Callable) -> bool:
    try:
        return "device" in inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False


def to_device(value: Any, device: Any) -> Any:
    """Tensors and modules moved to ``device``, through tuples, lists and dicts."""
    import torch

    if isinstance(value, (torch.Tensor, torch.nn.Module)):
        return value.to(device)
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return type(value)(*(to_device(v, device) for v in value))
    if isinstance(value, (tuple, list)):
        return type(value)(to_device(v, device) for v in value)
    if isinstance(value, dict):
        return type(value)((k, to_device(v, device)) for k, v in value.items())
    return value


# --- outputs the parent can load without the user's classes -----------------------

_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


def to_plain(value: Any) -> Any:
    """Outputs as CPU tensors, tuples, lists, dicts and scalars (``torch.load(weights_only=True)``).

    Named tuples and dataclasses become dicts of their fields, so a
    difference is named by field; other objects become their type and repr.
    """
    import torch

    if isinstance(value, torch.Tensor):
        return value.detach().cpu()
    if isinstance(value, torch.nn.Module):
        return {"__module__": type(value).__qualname__, "state": to_plain(dict(value.state_dict()))}
    if isinstance(value, torch.Size):
        return tuple(int(v) for v in value)
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return {f: to_plain(getattr(value, f)) for f in value._fields}
    if isinstance(value, tuple):
        return tuple(to_plain(v) for v in value)
    if isinstance(value, list):
        return [to_plain(v) for v in value]
    if isinstance(value, dict):
        return {_plain_key(k): to_plain(v) for k, v in value.items()}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        data = {f.name: to_plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
        return {"__dataclass__": type(value).__qualname__, **data}
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (torch.dtype, torch.device)):
        return str(value)
    return {"__object__": type(value).__qualname__, "repr": _ADDRESS.sub("", repr(value))}


def _plain_key(key: Any) -> Any:
    return key if key is None or isinstance(key, (bool, int, float, str)) else repr(key)


# --- tracebacks of the user's code --------------------------------------------------


def user_traceback(exc: BaseException) -> str:
    """The traceback without gbfix's, importlib's or torch's own frames."""
    hidden = _hidden_prefixes()
    te = traceback.TracebackException.from_exception(exc)
    dropped = 0
    seen: set[int] = set()
    pending = [te]
    while pending:
        current = pending.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        kept = [f for f in current.stack if not f.filename.startswith(hidden)]
        dropped += len(current.stack) - len(kept)
        current.stack = traceback.StackSummary.from_list(kept)
        pending.extend(t for t in (current.__cause__, current.__context__) if t is not None)
    text = "".join(te.format())
    if dropped:
        text += f"({dropped} frames inside gbfix, importlib and torch not shown)\n"
    return text


def _hidden_prefixes() -> tuple[str, ...]:
    prefixes = [_HERE + os.sep, "<frozen importlib", os.path.dirname(importlib.__file__) + os.sep, "<string>"]
    torch = sys.modules.get("torch")
    location = getattr(torch, "__file__", None) if torch is not None else None
    if location:
        prefixes.append(os.path.dirname(location) + os.sep)
    return tuple(prefixes)


# --- Dynamo settings and what the program prints -------------------------------------


def apply_dynamo_config(config: dict[str, Any]) -> dict[str, Any]:
    """Make the settings of ``config`` on ``torch._dynamo.config`` (a list names a set's callables).

    Returns the settings made: a set's callables only those this process has.
    """
    import torch._dynamo

    applied: dict[str, Any] = {}
    for name, value in config.items():
        if not hasattr(torch._dynamo.config, name):
            raise SetupError(f"torch._dynamo.config has no setting {name!r} in torch {torch.__version__}")
        if isinstance(value, (list, tuple)):
            # A Logger method a library adds, where the program never imported that library,
            # cannot be called: there is nothing to ignore, and a line naming it would raise.
            present = {dotted: found for dotted in value if (found := _callable_or_none(dotted)) is not None}
            getattr(torch._dynamo.config, name).update(present.values())
            applied[name] = list(present)
        else:
            setattr(torch._dynamo.config, name, value)
            applied[name] = value
    return applied


def _callable_or_none(dotted: str) -> Any:
    try:
        return resolve_callable(dotted)
    except (SetupError, AttributeError):
        return None


def resolve_callable(dotted: str) -> Any:
    """``print``, ``warnings.warn``, ``logging.Logger.info``: the object a dotted name stands for."""
    import builtins

    if "." not in dotted:
        return getattr(builtins, dotted)
    parts = dotted.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for part in parts[cut:]:
            obj = getattr(obj, part)
        return obj
    raise SetupError(f"cannot find {dotted!r}")


class _Records(logging.Handler):
    """Log records of the program's own loggers (torch's are Dynamo talking)."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if not record.name.startswith("torch"):
            self.lines.append(f"log: {record.levelname} {record.getMessage()}")


@contextlib.contextmanager
def printed(enabled: bool = True) -> Iterator[list[str]]:
    """What the calls inside print, warn (not torch's own warnings) and log, one string each."""
    lines: list[str] = []
    if not enabled:
        yield lines
        return
    import torch

    stdout, handler = io.StringIO(), _Records()
    root = logging.getLogger()
    root.addHandler(handler)
    torch_dir = os.path.dirname(torch.__file__)
    try:
        with contextlib.redirect_stdout(stdout), warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            yield lines
    finally:
        root.removeHandler(handler)
    lines.extend(f"print: {line}" for line in stdout.getvalue().splitlines())
    lines.extend(handler.lines)
    lines.extend(f"warning: {w.category.__name__}: {w.message}" for w in caught if not w.filename.startswith(torch_dir))


# --- one side, start to end -------------------------------------------------------


def run(request: Request) -> dict[str, Any]:
    """Run the side in this process (which must be fresh); raises SetupError / UserError."""
    import torch

    from rewriter.runtime.measure import compile_and_call, graph_coverage, run_eager

    device = torch.device(resolve_device(request.device))
    if device.type != "cpu":
        # Tensors the entry creates itself (torch.zeros(n) with no device) land there too.
        torch.set_default_device(device)
    entry = resolve_spec(request.entry, "--entry")
    factory = resolve_spec(request.inputs, "--inputs")
    # After the program's imports: a library may add methods to logging.Logger (warning_once).
    applied = apply_dynamo_config(request.dynamo_config)

    fn = build_entry(entry, device, request.seed)
    args = build_inputs(factory, device, request.seed)
    # Again, now that building the entry imported what it uses (sets only grow).
    applied = apply_dynamo_config(request.dynamo_config)
    try:
        with printed(request.capture_output) as eager_lines:
            eager = run_eager(fn, args, request.seed, request.calls)
    except Exception as exc:
        raise UserError("eager run", exc) from None

    # Fresh entry and inputs, so state the eager calls changed does not leak in.
    fn = build_entry(entry, device, request.seed)
    args = build_inputs(factory, device, request.seed)
    output: Any = None
    stats: Optional[dict[str, Any]] = None
    compile_error: Optional[dict[str, str]] = None
    compiled_lines: list[str] = []
    try:
        with printed(request.capture_output) as compiled_lines:
            compiled, output, measured = compile_and_call(fn, args, request.backend, request.calls, request.seed)
        with printed(request.capture_output):  # the profiled calls print too; not compared
            graph_coverage(measured, compiled, fn, args, request.seed)
        stats = measured.to_dict()
    except Exception as exc:
        compile_error = {"message": f"{type(exc).__name__}: {_first_line(exc)}", "traceback": user_traceback(exc)}

    torch.save({"eager": to_plain(eager), "compiled": to_plain(output)}, request.outputs)
    return {
        "ok": True,
        "stats": stats,
        "compile_error": compile_error,
        "printed": {"eager": eager_lines, "compiled": compiled_lines} if request.capture_output else None,
        "dynamo_config": applied,
        "torch": torch.__version__,
        "cuda": torch.version.cuda,
        "device": str(device),
        "device_name": torch.cuda.get_device_name(device) if device.type == "cuda" else "cpu",
    }


def run_timing(request: Request) -> dict[str, Any]:
    """Serve the module's text before, then after, the rewrite in this process, build an entry
    and inputs from each, and time their compiled calls interleaved
    (:func:`rewriter.runtime.measure.interleaved_times`): one process, one machine state."""
    import torch

    from rewriter.runtime.measure import interleaved_times

    device = torch.device(resolve_device(request.device))
    if device.type != "cpu":
        torch.set_default_device(device)
    built = []
    for text in (request.source, request.other_source):
        served = ServedModule(request.module, request.origin, text, request.is_package)
        served.install()
        try:
            # the other text's module object stays alive in the functions it defined
            for name in [n for n in sys.modules if n == request.module or n.startswith(request.module + ".")]:
                del sys.modules[name]
            entry = resolve_spec(request.entry, "--entry")
            factory = resolve_spec(request.inputs, "--inputs")
            built.append((build_entry(entry, device, request.seed), build_inputs(factory, device, request.seed)))
        finally:
            sys.meta_path.remove(served)
    try:
        timing = interleaved_times(built[0], built[1], request.backend, request.rounds, request.calls, request.seed)
    except Exception as exc:
        raise UserError("timing the compiled calls", exc) from None
    return {"ok": True, "timing": timing.to_dict()}


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else ""


def _error(kind: str, message: str, trace: str = "", phase: str = "") -> dict[str, Any]:
    return {"ok": False, "error": {"kind": kind, "message": message, "phase": phase, "traceback": trace}}


def main(request_path: str) -> int:
    """The side's process: run the request, write its result; 0, or EXIT_SIDE_ERROR."""
    with open(request_path, encoding="utf-8") as handle:
        request = Request.from_json(handle.read())
    sys.dont_write_bytecode = True
    # torch and gbfix first, so a user module named like one of their
    # imports (``random.py``) can never be served to them.
    import torch  # noqa: F401

    import rewriter.runtime.measure  # noqa: F401

    for path in reversed(request.paths):
        if path not in sys.path:
            sys.path.insert(0, path)
    if request.module and not request.other_source:
        ServedModule(request.module, request.origin, request.source, request.is_package).install()
    started = time.perf_counter()
    try:
        result = run_timing(request) if request.other_source else run(request)
        result["side_seconds"] = round(time.perf_counter() - started, 3)
        code = 0
    except SetupError as exc:
        result, code = _error("setup", str(exc)), EXIT_SIDE_ERROR
    except UserError as exc:
        result, code = _error("user", str(exc), exc.traceback, exc.phase), EXIT_SIDE_ERROR
    except Exception as exc:  # gbfix's own failure: keep every frame
        trace = "".join(traceback.format_exception(exc))
        result, code = _error("internal", f"{type(exc).__name__}: {exc}", trace), EXIT_SIDE_ERROR
    with open(request.result, "w", encoding="utf-8") as handle:
        json.dump(result, handle)
    return code


def start(request: Request, workdir: str, label: str, cwd: str, env: Optional[dict[str, str]] = None) -> Any:
    """Start a side as a subprocess; its stdout and stderr go to files in ``workdir``."""
    import subprocess

    path = os.path.join(workdir, f"{label}.request.json")
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(request.to_json())
    child_env = dict(os.environ if env is None else env)
    # The same hash order on both sides; no .pyc files left in the user's tree.
    child_env["PYTHONHASHSEED"] = "0"
    child_env["PYTHONDONTWRITEBYTECODE"] = "1"
    # Two sides run at once: all cores each would oversubscribe them, and
    # spinning OpenMP threads then make a 0.1 ms call take 100 ms.
    child_env.setdefault("OMP_NUM_THREADS", str(max(1, (os.cpu_count() or 2) // 2)))
    log = open(os.path.join(workdir, f"{label}.log"), "wb")
    try:
        # A process group of its own: what the program starts ends with it (see stop).
        return subprocess.Popen(
            command(path), cwd=cwd, env=child_env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
    finally:
        log.close()


def stop(proc: Any) -> None:
    """End ``proc``'s process group: the side and every process it started that still runs."""
    import signal

    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass  # the group is gone: the side and everything it started have ended
    proc.wait()


# --- does a file import ----------------------------------------------------------------

_CHECK_BOOT = (
    "import sys; sys.path.insert(0, {root!r}); import rewriter, codemods; "
    "from rewriter.runtime.sandbox import check_main; sys.path.remove({root!r}); sys.path.append({root!r}); "
    "sys.exit(check_main(sys.argv[1]))"
)


def check_main(request_path: str) -> int:
    """Import the served module, then run ``lines`` in its namespace; print the first error's line, exit 1."""
    with open(request_path, encoding="utf-8") as handle:
        request = json.load(handle)
    sys.dont_write_bytecode = True
    for path in reversed(request["paths"]):
        if path not in sys.path:
            sys.path.insert(0, path)
    ServedModule(request["module"], request["origin"], request["source"], request["is_package"]).install()
    try:
        module = importlib.import_module(request["module"])
        for line in request["lines"]:
            exec(compile(line, request["origin"], "exec", dont_inherit=True), module.__dict__)
    except BaseException as exc:  # the user's code: SystemExit and all
        print(f"{type(exc).__name__}: {_first_line(exc)}")
        return 1
    return 0


def check_import(
    module: str,
    origin: str,
    source: str,
    *,
    is_package: bool,
    paths: tuple[str, ...],
    cwd: str,
    lines: tuple[str, ...] = (),
    timeout: float = 300.0,
) -> Optional[str]:
    """Whether ``source``, served as ``module``, imports in a fresh process and ``lines`` then run there.

    None when both succeed; else the error's one line (the process group is ended on a timeout).
    """
    import subprocess
    import tempfile

    request = {"module": module, "origin": origin, "source": source, "is_package": is_package}
    request.update(paths=list(paths), lines=list(lines))
    with tempfile.TemporaryDirectory(prefix="gbfix-import-") as work:
        path = os.path.join(work, "request.json")
        with open(path, "w", encoding="utf-8") as handle:
            json.dump(request, handle)
        env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
        argv = [sys.executable, "-c", _CHECK_BOOT.format(root=_ROOT), path]
        proc = subprocess.Popen(
            argv, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True
        )
        try:
            out, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            return f"importing it took over {timeout:g} s"
        finally:
            stop(proc)  # a timeout, or what the import started and left running
    if proc.returncode == 0:
        return None
    text = out.decode(errors="replace").strip() or err.decode(errors="replace").strip()
    return text.splitlines()[-1] if text else f"importing it exited {proc.returncode}"
