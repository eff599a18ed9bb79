"""LeetGPU challenge folders (``challenge.py``), read from the user's own checkout
of github.com/AlphaGPU/leetgpu-challenges at run time (nothing of it ships with
the judge: the definitions are CC BY-NC-ND).

A challenge folder holds ``challenge.py`` (``class Challenge(ChallengeBase)``,
importing ``core.challenge_base`` from the folder two levels up),
``challenge.html`` (the statement) and ``starter/starter.triton.py``.  Loading it
runs its code in the judge's process: a challenge folder is trusted like a
spec's reference (docs/security.md).  The judge builds every test's tensors
here, with a seeded generator, and ships the inputs to the worker
(judge/challenge/shipped.py); the pure mapping is leetgpu_format.py.
"""

from __future__ import annotations

import ast
import copy
import hashlib
import inspect
import importlib.util
import re
import sys
import textwrap
import traceback
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import Callable

import torch
from torch import nn
from torch.overrides import TorchFunctionMode

from judge.base import signals
from judge.challenge.cases import Case
from judge.challenge.exact_math import exact_math
from judge.challenge.leetgpu_format import SignatureError, ctype_name, html_to_text, map_signature, over_budget
from judge.challenge.shipped_module import ModuleError, describe, tensors
from judge.challenge.spec_model import DIFFICULTIES, Module, ReferenceError_, Spec, SpecError, Tensor, Tolerance
from judge.challenge.tensors import TORCH_DTYPES, poison_, poison_value

__all__ = ["load_folder", "find_folders", "list_folder", "Listed", "LeetGpuSpec", "LeetGpuError", "ShippedCase",
           "build_tests", "build_performance_test", "expected_outputs", "performance_size", "MODULE_FILE"]

MODULE_FILE = "challenge.py"
_DTYPE_NAMES = {dtype: name for name, dtype in TORCH_DTYPES.items()}


class LeetGpuError(SpecError):
    """A challenge folder that cannot be used; the message is for the user (a SpecError,
    so every command that reports a broken spec reports this too)."""

    def __init__(self, message: str):
        ValueError.__init__(self, message)
        self.source, self.field, self.problem = "", "", message


@dataclass(frozen=True)
class LeetGpuSpec(Spec):
    """A spec whose tests come from a LeetGPU ``Challenge`` class rather than size ranges."""

    challenge_class: type | None = field(default=None, repr=False, compare=False)
    num_gpus: int = 1
    c_types: tuple = field(default=(), compare=False)  # (name, "POINTER(c_float)") as the signature declares
    shipped = True  # the worker receives the input tensors (shipped.py), not a seed

    def instance(self, device: str):
        return _instance(self.challenge_class, device, Path(self.source) / MODULE_FILE)


@dataclass(frozen=True)
class ShippedCase(Case):
    """A test whose solve() arguments the judge built: ``arguments`` in signature order
    (tensors on the judge's device, scalars), ``roles`` each tensor's in/out/inout."""

    arguments: dict = field(default_factory=dict, repr=False, compare=False)
    roles: dict = field(default_factory=dict, repr=False, compare=False)
    # The out tensors its generator initialised (torch.zeros, torch.full...): the solution and the reference
    # start from those values; the others start as poison for the solution and zeros for the reference.
    kept: frozenset = field(default_factory=frozenset, repr=False, compare=False)
    # The performance test only: the same test drawn again by the challenge's generators from another seed
    # (``redraw(seed)``), so that every timed call gets values of its own (benchmark_stage.TimedCalls).
    redraw: Callable[[int], "ShippedCase"] | None = field(default=None, repr=False, compare=False)

    @property
    def nbytes(self) -> int:
        """Bytes a call moves at least: inputs read (a model's weights too), outputs written, inout tensors both."""
        return sum(value.nbytes * (2 if self.roles.get(name) == "inout" else 1)
                   for name, value in self.tensors())

    @property
    def elements(self) -> int:
        return sum(v.numel() for _, v in self.tensors())

    def label(self) -> str:
        """The scalars (``N=1024``); a test without any (a model's) by its tensors' shapes, ``input[1, 2]``."""
        return super().label() or ", ".join(f"{name}[{', '.join(map(str, v.shape))}]"
                                            for name, v in self.arguments.items() if isinstance(v, torch.Tensor))

    def tensors(self) -> list[tuple[str, torch.Tensor]]:
        """(name, tensor) of every tensor argument, then of every model's parameters and buffers (``model.weight``)."""
        out = [(name, v) for name, v in self.arguments.items() if isinstance(v, torch.Tensor)]
        for name, value in self.arguments.items():
            if isinstance(value, nn.Module):
                out += [(f"{name}.{inner}", v) for inner, v in tensors(value)]
        return out


# -- loading -----------------------------------------------------------------------------
def load_folder(folder, runnable: bool = True) -> LeetGpuSpec:
    """Import ``folder/challenge.py`` and describe it; raises ``LeetGpuError``, also (``runnable``)
    for a challenge the judge cannot run (``num_gpus`` > 1)."""
    folder = Path(folder)
    file = folder / MODULE_FILE
    if not file.is_file():
        inside = find_folders(folder) if folder.is_dir() else []
        hint = (f"; it holds {len(inside)} challenge folder(s), such as {inside[0]}: give one of them, or "
                f"'judge list {folder}' lists them" if inside else "")
        raise LeetGpuError(f"{folder}: no {MODULE_FILE} in this folder; a LeetGPU challenge folder holds "
                           f"{MODULE_FILE}, challenge.html and starter/{hint}")
    cls = _import_challenge(file)
    for attribute in ("name", "atol", "rtol"):
        if not hasattr(cls, attribute):
            raise LeetGpuError(f"{file}: class Challenge has no '{attribute}'")
    example = _example(cls, file)
    try:
        signature = _call(_instance(cls, "meta", file), "get_solve_signature", file)
        parameters = map_signature(signature, _dtypes_of(example))
    except SignatureError as exc:
        raise LeetGpuError(f"{file}: get_solve_signature(): {exc}") from None
    for p in parameters:  # a model the worker cannot rebuild (a class of the challenge's own): said now
        if isinstance(p, Module) and isinstance(example, dict) and p.name in example:
            _module_value(p, example[p.name], "meta", f"{file}: the example test")
    c_types = tuple((name, ctype_name(entry[0])) for name, entry in signature.items())
    spec = replace(_spec(folder, cls, parameters), c_types=c_types)
    if runnable and spec.num_gpus > 1:
        raise LeetGpuError(f"{folder}: {multi_gpu_problem(spec)}")
    return spec


def _instance(cls: type, device: str, file: Path):
    try:
        return cls(device=device)
    except BaseException as exc:  # noqa: BLE001
        _stop_passes(exc)
        raise LeetGpuError(f"{file}: Challenge(device={device!r}) failed:\n{_their_traceback(exc, file)}") from None


def _example(cls: type, file: Path) -> dict:
    """The example test, built on torch's meta device (no memory, no values), or on the CPU
    when its generator needs values; only its tensors' dtypes are used."""
    try:
        example = _call(_instance(cls, "meta", file), "generate_example_test", file)
    except LeetGpuError:
        example = _call(_instance(cls, "cpu", file), "generate_example_test", file)
    return example[0] if isinstance(example, list) and example else example


def multi_gpu_problem(spec: LeetGpuSpec) -> str:
    return f"needs {spec.num_gpus} GPUs (num_gpus = {spec.num_gpus}); the judge runs a solution on one"


def find_folders(root) -> list[Path]:
    """Every challenge folder under ``root`` (``root`` itself too): easy, medium, hard, then
    others, each in natural order (2 before 10)."""
    found = [p.parent for p in Path(root).rglob(MODULE_FILE) if p.is_file()]

    def order(folder: Path):
        level = DIFFICULTIES.index(folder.parent.name) if folder.parent.name in DIFFICULTIES else len(DIFFICULTIES)
        return level, [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", str(folder))]

    return sorted(found, key=order)


def _last_line(message: str) -> str:
    """A load error in one line: the exception of a traceback (``judge show`` prints it whole)."""
    lines = [line for line in message.splitlines() if line.strip()]
    if len(lines) > 1 and "Traceback" in message:
        return f"{lines[0]} {lines[-1]} (judge show FOLDER prints the traceback)"
    return message


@dataclass
class Listed:
    """One folder of ``judge list FOLDER``: its spec and performance size, or why it cannot run."""

    folder: Path
    spec: LeetGpuSpec | None = None
    performance: str = ""
    performance_bytes: int | None = None
    problem: str = ""  # empty: it can run


def list_folder(root, progress=None) -> list[Listed]:
    """Load every challenge under ``root``; one that does not load says why.  ``progress(done, total)``
    is called before each folder is loaded and once at the end (judge ui's catalogue shows it)."""
    out = []
    folders = find_folders(root)
    for done, folder in enumerate(folders):
        if progress is not None:
            progress(done, len(folders))
        item = Listed(folder)
        try:
            item.spec = load_folder(folder, runnable=False)
        except LeetGpuError as exc:
            item.problem = _last_line(str(exc).replace(f"{folder / MODULE_FILE}: ", ""))
            out.append(item)
            continue
        if item.spec.num_gpus > 1:
            item.problem = multi_gpu_problem(item.spec)
        try:
            item.performance, item.performance_bytes = performance_size(item.spec)
        except LeetGpuError:  # its generator needs real values (torch's meta device has none): sized when run
            item.performance = "? (built when run)"
        out.append(item)
    if progress is not None:
        progress(len(folders), len(folders))
    return out


def _spec(folder: Path, cls: type, parameters: tuple) -> LeetGpuSpec:
    statement_file = folder / "challenge.html"
    statement = html_to_text(statement_file.read_text(encoding="utf-8")) if statement_file.is_file() else ""
    difficulty = folder.parent.name if folder.parent.name in DIFFICULTIES else "-"
    return LeetGpuSpec(
        name=folder.name, title=str(cls.name), difficulty=difficulty, statement=statement, parameters=parameters,
        sizes={}, constraints=(), reference_code="", reference_dtype=None,
        baseline_code=_baseline_code(folder / MODULE_FILE, [p.name for p in parameters]),
        tolerance=Tolerance("close", float(cls.atol), float(cls.rtol)), tests=(), random_tests=0, benchmarks=(),
        bytes_formula=0, flops_formula=0, bound="memory", interpret_max={}, source=str(folder),
        challenge_class=cls, num_gpus=int(getattr(cls, "num_gpus", 1) or 1))


def _import_challenge(file: Path) -> type:
    """The ``Challenge`` class of ``file``, with its ``core`` package importable."""
    root = str(file.resolve().parents[2])
    _forget_other_core(root)
    if root in sys.path:  # first, so that its core wins over another checkout's loaded before
        sys.path.remove(root)
    sys.path.insert(0, root)
    name = "leetgpu_challenge_" + hashlib.blake2b(str(file.resolve()).encode(), digest_size=6).hexdigest()
    module_spec = importlib.util.spec_from_file_location(name, file)
    module = importlib.util.module_from_spec(module_spec)
    try:
        module_spec.loader.exec_module(module)
    except BaseException as exc:  # noqa: BLE001 - any failure of their file is reported with its traceback
        _stop_passes(exc)
        raise LeetGpuError(f"{file} does not load:\n{_their_traceback(exc, file)}") from None
    cls = getattr(module, "Challenge", None)
    if not isinstance(cls, type):
        raise LeetGpuError(f"{file} defines no class Challenge")
    return cls


def _forget_other_core(root: str) -> None:
    """Drop a ``core`` package imported from another checkout, so this folder's own is used."""
    core = sys.modules.get("core")
    where = getattr(core, "__file__", None) or next(iter(getattr(core, "__path__", []) or []), None)
    if core is None or (where and Path(where).resolve().is_relative_to(Path(root))):
        return
    for key in [k for k in sys.modules if k == "core" or k.startswith("core.")]:
        del sys.modules[key]


def _stop_passes(exc: BaseException) -> None:
    """The judge's SIGTERM or Ctrl-C, raised while the challenge's code ran, is no failure of theirs:
    re-raised, so the command stops (judge/base/signals.py) instead of reporting it and going on."""
    if signals.is_stop(exc):
        raise exc


def _their_traceback(exc: BaseException, file: Path) -> str:
    """The traceback from the challenge's own frames on (the judge's are noise)."""
    frames = traceback.extract_tb(exc.__traceback__)
    own = [i for i, f in enumerate(frames) if Path(f.filename).resolve().is_relative_to(file.resolve().parents[2])]
    kept = frames[own[0]:] if own else frames[-3:]
    return ("Traceback (most recent call last):\n" + "".join(traceback.format_list(kept))
            + "".join(traceback.format_exception_only(type(exc), exc))).rstrip()


def _call(instance, method: str, file: Path, *args):
    try:
        return getattr(instance, method)(*args)
    except BaseException as exc:  # noqa: BLE001
        _stop_passes(exc)
        raise LeetGpuError(f"{file}: {method}() failed:\n{_their_traceback(exc, file)}") from None


def _dtypes_of(test) -> dict:
    if not isinstance(test, dict):
        raise LeetGpuError(f"generate_example_test() returned a {type(test).__name__}, expected a dict")
    return {name: _dtype_name(_descriptor_dtype(value)) for name, value in test.items()
            if isinstance(value, torch.Tensor) or hasattr(value, "shape")}


def _descriptor_dtype(value) -> torch.dtype:
    if isinstance(value, torch.Tensor):
        return value.dtype
    dtype = getattr(value, "dtype", "float32")
    return dtype if isinstance(dtype, torch.dtype) else getattr(torch, str(dtype), None)


def _dtype_name(dtype) -> str:
    return _DTYPE_NAMES.get(dtype, str(dtype).replace("torch.", ""))


def _baseline_code(file: Path, names: list[str]) -> str:
    """The torch baseline: the challenge's own ``reference_impl``, loaded in the baseline's worker.

    The file's hash is part of the code, so a cached baseline time is redone when the challenge changes.
    """
    digest = hashlib.sha256(file.read_bytes()).hexdigest()[:16]
    return (f"# reference_impl of {file} (sha256 {digest})\n"
            "import importlib.util as _util, sys as _sys\n"
            f"_sys.path.insert(0, {str(file.resolve().parents[2])!r})\n"
            f"_spec = _util.spec_from_file_location('leetgpu_reference', {str(file.resolve())!r})\n"
            "_module = _util.module_from_spec(_spec)\n_spec.loader.exec_module(_module)\n"
            f"_NAMES = {names!r}\n_INSTANCES = {{}}\n\n\n"
            "def baseline(*args):\n"
            "    device = str(next(a.device for a in args if isinstance(a, torch.Tensor)))\n"
            "    challenge = _INSTANCES.get(device)\n"
            "    if challenge is None:  # built once per device, not in every timed call\n"
            "        challenge = _INSTANCES[device] = _module.Challenge(device=device)\n"
            "    with torch.no_grad():\n"
            "        challenge.reference_impl(**dict(zip(_NAMES, args)))\n")


# -- the tests -------------------------------------------------------------------------------
def build_tests(spec: LeetGpuSpec, device: str, seed: int,
                cpu_budget: int | None = None) -> tuple[list[ShippedCase], list[ShippedCase]]:
    """(tests to run, tests skipped): the example test(s), then the functional tests, built
    by the challenge's own generators with torch seeded by ``seed``, on ``device``.

    ``cpu_budget``: functional tests holding more tensor elements than this are
    skipped (CPU mode); the example test always runs.
    """
    instance, file = spec.instance(device), Path(spec.source) / MODULE_FILE
    with _seeded(seed, device) as generator, PoisonedEmpty() as made:
        example = _call(instance, "generate_example_test", file)
        functional = _call(instance, "generate_functional_test", file)
        examples = example if isinstance(example, list) else [example]
        if not isinstance(functional, list):
            raise LeetGpuError(f"{file}: generate_functional_test() returned a {type(functional).__name__}, "
                               "expected a list of dicts")
        cases = [_case(spec, f"example-{i + 1}" if len(examples) > 1 else "example", "example", test,
                       device, generator, made) for i, test in enumerate(examples)]
        cases += [_case(spec, f"functional-{i + 1}", "functional", test, device, generator, made)
                  for i, test in enumerate(functional)]
    if cpu_budget is None:
        return cases, []
    kept = [c for c in cases if c.kind == "example" or not over_budget([c.elements], cpu_budget)]
    return kept, [c for c in cases if c not in kept]


def build_performance_test(spec: LeetGpuSpec, device: str, seed: int) -> ShippedCase:
    """The performance test (the benchmark), built like the functional tests.  Its ``redraw(seed)`` runs the
    generator again with another seed: every timed call gets fresh values (docs/leetgpu.md)."""
    instance = spec.instance(device)
    with _seeded(seed, device) as generator, PoisonedEmpty() as made:
        test = _call(instance, "generate_performance_test", Path(spec.source) / MODULE_FILE)
        test = test[0] if isinstance(test, list) and test else test
        case = _case(spec, "performance", "benchmark", test, device, generator, made)
    if torch.device(device).type == "cuda":  # none of the generator's work may still run when a call is timed
        torch.cuda.synchronize(device)
    return replace(case, redraw=partial(build_performance_test, spec, device))


def performance_size(spec: LeetGpuSpec) -> tuple[str, int]:
    """(scalars, bytes) of the performance test, built on torch's meta device (no memory, no values)."""
    case = build_performance_test(spec, "meta", 0)
    return case.label(), case.nbytes


class _seeded:
    """torch's global generators seeded for the challenge's generators (which use them),
    restored afterwards; yields a generator for the lazy tensor descriptors."""

    def __init__(self, seed: int, device: str):
        self.seed, self.device = seed, torch.device(device)

    def __enter__(self) -> torch.Generator | None:
        devices = [self.device.index or 0] if self.device.type == "cuda" else []
        self.fork = torch.random.fork_rng(devices=devices)
        self.fork.__enter__()
        torch.manual_seed(self.seed)
        if self.device.type == "meta":
            return None
        generator = torch.Generator(device=self.device)
        generator.manual_seed(self.seed)
        return generator

    def __exit__(self, *exc):
        return self.fork.__exit__(*exc)


def _case(spec: LeetGpuSpec, name: str, kind: str, test, device: str, generator,
          made: PoisonedEmpty | None = None) -> ShippedCase:
    """One test dict as a ShippedCase: every signature name present, tensors of the declared dtype."""
    file = Path(spec.source) / MODULE_FILE
    if not isinstance(test, dict):
        raise LeetGpuError(f"{file}: a {kind} test is a {type(test).__name__}, expected a dict of arguments")
    missing = [p.name for p in spec.parameters if p.name not in test]
    if missing:
        raise LeetGpuError(f"{file}: the {name} test has no value for {', '.join(missing)}")
    arguments, params, roles, kept = {}, {}, {}, set()
    for p in spec.parameters:
        value = test[p.name]
        if isinstance(p, Module):
            arguments[p.name] = _module_value(p, value, device, f"{file}: {name} test")
        elif isinstance(p, Tensor):
            if p.role == "out" and ((made.initialised(value) if made else initialised(value))
                                    if isinstance(value, torch.Tensor)
                                    else type(value).__name__ == "FullTensor"):  # a descriptor filled on purpose
                kept.add(p.name)
            arguments[p.name], roles[p.name] = _tensor_value(p, value, device, generator, f"{file}: {name} test",
                                                             p.name in kept), p.role
        else:
            arguments[p.name] = params[p.name] = _scalar_value(p, value, f"{file}: {name} test")
    return ShippedCase(name, kind, params, arguments, roles, frozenset(kept))


def _module_value(p: Module, value, device: str, where: str) -> nn.Module:
    """A test's model, on ``device``, checked to be one the worker can rebuild (shipped_module.py)."""
    if not isinstance(value, nn.Module):
        raise LeetGpuError(f"{where}: '{p.name}' is declared a torch.nn.Module but the test gives "
                           f"{type(value).__name__}")
    try:
        describe(value, p.name)
    except ModuleError as exc:
        raise LeetGpuError(f"{where}: {exc}") from None
    return value.to(device)


def _tensor_value(p: Tensor, value, device: str, generator, where: str, kept: bool = False) -> torch.Tensor:
    if not isinstance(value, torch.Tensor):
        value = _materialize(value, device, generator, f"{where}: '{p.name}'")
    if _dtype_name(value.dtype) != p.dtype:
        raise LeetGpuError(f"{where}: '{p.name}' is {_dtype_name(value.dtype)}, but the example test's is {p.dtype}")
    if p.role == "out" and not kept:  # made with torch.empty: the reference sees zeros (poison would make it
        return torch.zeros(value.shape, dtype=value.dtype, device=device)  # vary), the solution poison
    return value.to(device).contiguous()


class PoisonedEmpty(TorchFunctionMode):
    """While a challenge's generator runs, what torch.empty and its kin make is filled with the poison value,
    so that an output it leaves uninitialised is told from one it initialised (torch.zeros, torch.full, an
    empty tensor filled afterwards) by what the tensor holds, not by the generator's source text.  A torch
    function mode: it holds in this thread only (grade judges in several at once)."""

    EMPTY = frozenset({torch.empty, torch.empty_like, torch.empty_strided, torch.Tensor.new_empty})
    POISONED = frozenset(TORCH_DTYPES.values())  # the spec dtypes; a complex scratch tensor is left alone

    def __init__(self):
        super().__init__()
        self.made: dict[int, torch.Tensor] = {}  # by id, held so that no id is reused while the generator runs

    def __torch_function__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        if func in self.EMPTY and isinstance(out, torch.Tensor):
            self.made[id(out)] = out
            if out.device.type != "meta" and out.numel() and out.dtype in self.POISONED:
                poison_(out)
        return out

    def initialised(self, tensor: torch.Tensor) -> bool:
        """Whether a generator's output tensor starts with values it gave it: one made otherwise than by
        torch.empty and kin (torch.zeros, torch.ones(bool)...), or an empty one it filled afterwards."""
        base = tensor if tensor._base is None else tensor._base
        if id(base) not in self.made:
            return tensor.device.type != "meta"
        return initialised(tensor)


def initialised(tensor: torch.Tensor) -> bool:
    """Whether a tensor made by torch.empty under PoisonedEmpty holds anything but the poison filled in."""
    if tensor.device.type == "meta" or not tensor.numel() or tensor.dtype not in PoisonedEmpty.POISONED:
        return False
    if tensor.dtype.is_floating_point:
        return bool((~torch.isnan(tensor)).any())
    return bool((tensor != poison_value(tensor.dtype)).any())


def _materialize(descriptor, device: str, generator, where: str) -> torch.Tensor:
    """A lazy tensor of challenge_base (RandTensor, RandnTensor, RandIntTensor, FullTensor,
    OutTensor), drawn by its class name and attributes."""
    kind, shape = type(descriptor).__name__, tuple(getattr(descriptor, "shape", ()))
    dtype = _descriptor_dtype(descriptor)
    if dtype is None or not hasattr(descriptor, "shape"):
        raise LeetGpuError(f"{where} is a {kind}, not a tensor or a tensor descriptor the judge knows")
    out = torch.empty(shape, dtype=dtype, device=device)
    if device == "meta":
        return out
    if kind == "RandTensor":
        return out.uniform_(float(descriptor.low), float(descriptor.high), generator=generator)
    if kind == "RandnTensor":
        return out.normal_(float(descriptor.mean), float(descriptor.std), generator=generator)
    if kind == "RandIntTensor":
        return out.random_(int(descriptor.low), int(descriptor.high), generator=generator)
    if kind == "FullTensor":
        return out.fill_(descriptor.value)
    if kind == "OutTensor":
        return out.zero_()
    raise LeetGpuError(f"{where} is a {kind}, not a tensor or a tensor descriptor the judge knows")


def _scalar_value(p, value, where: str):
    if isinstance(value, torch.Tensor) and value.numel() == 1:
        value = value.item()
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise LeetGpuError(f"{where}: '{p.name}' is a scalar ({p.dtype}) but the test gives {type(value).__name__}")
    return int(value) if p.dtype == "int" else float(value)


def expected_outputs(instance, case: ShippedCase, file: str = "", function=None) -> dict[str, torch.Tensor]:
    """The challenge's ``reference_impl`` (or ``function(**arguments)``) on copies of the case's arguments (a
    model too): the out and inout tensors."""
    work = {name: v.clone() if isinstance(v, torch.Tensor) else copy.deepcopy(v) if isinstance(v, nn.Module) else v
            for name, v in case.arguments.items()}
    try:
        with torch.no_grad(), exact_math():  # cuDNN's TF32 convolutions made the reference the inexact one
            (function or instance.reference_impl)(**work)
    except BaseException as exc:  # noqa: BLE001 - the challenge's bug, reported as such
        _stop_passes(exc)
        raise ReferenceError_(f"reference_impl of {file} failed on the {case.name} test: "
                              f"{type(exc).__name__}: {exc}") from exc
    return {name: work[name] for name, role in case.roles.items() if role != "in"}


def without_asserts(instance):
    """``instance.reference_impl`` compiled again without its ``assert`` statements, or None when its source
    cannot be read.  For the float64 run of the judge's checks (judging/shipped_runner.ShippedReference.truth):
    35 of LeetGPU's 98 references refuse float64 inputs only by asserting that they are float32 (``assert
    input.dtype == torch.float32``; scripts/reference_audit.py), which says nothing about the arithmetic they
    do.  Their own code, trusted like the rest of challenge.py."""
    method = getattr(type(instance), "reference_impl", None)
    try:
        source = textwrap.dedent(inspect.getsource(method))
        file = inspect.getsourcefile(method) or "<reference_impl>"
    except (OSError, TypeError):
        return None

    class _Strip(ast.NodeTransformer):
        def visit_Assert(self, node):  # noqa: N802 - ast's naming
            return ast.copy_location(ast.Pass(), node)

    try:
        tree = ast.fix_missing_locations(_Strip().visit(ast.parse(source)))
        namespace: dict = {}
        exec(compile(tree, file, "exec"), method.__globals__, namespace)  # noqa: S102 - the challenge's own code
    except Exception:  # noqa: BLE001 - a decorator or a closure this cannot rebuild: no float64 run
        return None
    function = namespace.get(method.__name__)
    return partial(function, instance) if callable(function) else None
