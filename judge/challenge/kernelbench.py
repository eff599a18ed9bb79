"""KernelBench problems (``KernelBench/level1/19_ReLU.py``), read from the user's own
checkout of github.com/ScalingIntelligence/KernelBench at run time.

A problem file is the spec: ``class Model``, ``get_inputs()``, ``get_init_inputs()``
and the module-level size constants they read.  Loading one runs it in the judge's
process (a problem file is trusted like a challenge's reference, docs/security.md),
and describes its ``forward``'s inputs and outputs by running it on torch's meta
device (shapes, no memory).  The judge draws every call's inputs with the problem's
own ``get_inputs`` from a seed (kernelbench_problem.py); the worker draws the same
from the same seed and calls the solution's ``ModelNew``, whose returned tensors come
back as the outputs (judge/worker/kernelbench_model.py, docs/kernelbench.md).

CPU mode halves the size constants larger than 16 (the largest first) until a call's
tensors fit the CPU-mode budget (``sized``): KernelBench's sizes are a GPU's (level-1
ReLU is 4096 x 393216 float32).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from judge.challenge import kernelbench_format as fmt
from judge.challenge.kernelbench_format import DISTRIBUTIONS, ITEM_SIZES, ProblemError
from judge.challenge.spec_model import Init, Scalar, SizeCase, Spec, SpecError, Tensor, Tolerance

if TYPE_CHECKING:  # imported where it runs: the problem's code needs torch, which list and show (cached) do not
    from judge.challenge.kernelbench_problem import Problem

__all__ = ["KernelBenchError", "KernelBenchSpec", "load_problem", "find_by_id", "is_problem_file", "find_problems", "list_problems",
           "Listed", "describe", "sized", "TRIALS", "OWN_TRIALS", "baseline_source", "solution_problem"]

TRIALS = 5  # KernelBench's correctness trials (num_correct_trials in its scripts and adversarial tests)
OWN_TRIALS = tuple(DISTRIBUTIONS)  # the judge's own trials after KernelBench's, one per distribution, named after it
MAX_PROBLEM_BYTES = 1_000_000


class KernelBenchError(SpecError):
    """A KernelBench problem that cannot be used; the message is for the user (a SpecError, so every command
    that reports a broken spec reports this too)."""

    def __init__(self, message: str):
        ValueError.__init__(self, message)
        self.source, self.field, self.problem = "", "", message


@dataclass(frozen=True)
class KernelBenchSpec(Spec):
    """A spec read from a KernelBench problem file; ``text`` is the file's source."""

    kernelbench = True
    # The size constants in effect ({} : as written) and, for those CPU mode changed, the file's values.
    sizes_used: dict = field(default_factory=dict, compare=False)
    shrunk_from: dict = field(default_factory=dict, compare=False)
    constants: dict = field(default_factory=dict, compare=False)  # every size constant, as in effect
    init_seed: int = 0  # the seed Model and ModelNew are built under (the runner's, per run)
    level: str = "-"
    draws: dict = field(default_factory=dict, compare=False)  # seed -> distribution of the judge's own trials

    def problem(self) -> "Problem":
        """The problem's code at this spec's sizes, run in this process (imports torch)."""
        from judge.challenge.kernelbench_problem import Problem

        try:
            return Problem(self.text, self.source, self.sizes_used, self.draws)
        except ProblemError as exc:
            raise KernelBenchError(str(exc)) from None

    @property
    def floor_bytes(self) -> int:
        """What the physical floor rests on (benchmark_stage.floor_cost): the outputs' bytes, which forward writes
        into new tensors; not the inputs', which a solution need not all read (a triangular matmul reads half)."""
        return sum(_nbytes(p) for p in self.outputs)

    @property
    def outputs(self) -> list[Tensor]:
        return [p for p in self.parameters if isinstance(p, Tensor) and p.role == "out"]

    def signature_text(self) -> str:
        inputs = ", ".join(p.name for p in self.parameters if getattr(p, "role", "in") == "in")
        outputs = ", ".join(p.name for p in self.outputs) or "?"
        return f"ModelNew(*get_init_inputs()).forward({inputs}) -> {outputs}"


def is_problem_file(path) -> bool:
    """A ``.py`` file that defines Model, get_inputs and get_init_inputs (read, never run)."""
    path = Path(path)
    if path.suffix != ".py" or not path.is_file() or path.stat().st_size > MAX_PROBLEM_BYTES:
        return False
    try:
        return fmt.is_problem_source(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError):
        return False


def find_problems(root) -> list[Path]:
    """Every problem file under ``root`` (``root`` itself if it is one): level by level, each in its
    number's order (2 before 10)."""
    root = Path(root)
    if root.is_file():
        return [root] if is_problem_file(root) else []
    found = [p for p in root.rglob("*.py") if is_problem_file(p)]

    def order(path: Path):
        return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", str(path.relative_to(root)))]

    return sorted(found, key=order)


def find_by_id(roots, level: int, problem_id: int) -> Path | None:
    """The problem ``<id>_<name>.py`` of ``level<L>/`` under one of ``roots`` (a checkout's ``KernelBench/`` folder, or
    the folder that holds it), as KernelBench numbers its problems; the first root that has it; None if none does."""
    for root in roots:
        for folder in (Path(root) / f"level{level}", Path(root) / "KernelBench" / f"level{level}"):
            found = sorted(folder.glob(f"{int(problem_id)}_*.py")) if folder.is_dir() else []
            found = [path for path in found if is_problem_file(path)]
            if found:
                return found[0]
    return None


def load_problem(path, runnable: bool = True) -> KernelBenchSpec:
    """Read ``path``, run it and describe its inputs and outputs at the file's sizes (on torch's meta
    device, or from the cache of descriptions: ``described``); raises KernelBenchError naming what is wrong.
    ``runnable`` is kept for its callers: a forward the meta device cannot run leaves the outputs unknown either
    way (they are sized when a run starts)."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise KernelBenchError(f"{path}: cannot read it: {exc}") from None
    if not fmt.is_problem_source(text):
        raise KernelBenchError(f"{path} is not a KernelBench problem: it must define class Model(nn.Module), "
                               "get_inputs() and get_init_inputs() at its top level")
    constants = fmt.size_constants(text)
    base = KernelBenchSpec(
        name=path.stem, title=_title(text, path.stem), difficulty=fmt.problem_level(path.resolve().parts[:-1]),
        statement=text, parameters=(), sizes={}, constraints=(), reference_code="", reference_dtype=None,
        baseline_code=baseline_source(text, str(path.resolve())), tolerance=Tolerance("close", 1e-4, 1e-4),
        tests=(), random_tests=0, benchmarks=(), bytes_formula=0.0, flops_formula=0.0, bound="memory",
        interpret_max={}, source=str(path), text=text, constants=constants,
        level=fmt.problem_level(path.resolve().parts[:-1]))
    return described(base, "meta")


def described(spec: KernelBenchSpec, what: str) -> KernelBenchSpec:
    """``spec`` described on the meta device at its sizes (``what`` names them for the cache: kernelbench_cache.py),
    from the cache where it was before; runs the problem's code only when it was not."""
    from judge.challenge import kernelbench_cache

    kept = kernelbench_cache.read(spec.text, what)
    if kept is not None and kept.get("sizes_used", {}) == spec.sizes_used:
        try:
            return _signed(spec, _parameters(kept["inputs"]), _parameters(kept["outputs"]))
        except (KeyError, TypeError, ValueError):
            pass  # an entry of another shape: described again
    signed = with_signature(spec, spec.problem(), "meta", required=False)
    parameters = [_parameter_message(p) for p in signed.parameters]
    inputs = [m for m in parameters if m["role"] == "in"]
    kernelbench_cache.write(spec.text, what, {"sizes_used": spec.sizes_used, "inputs": inputs,
                                              "outputs": [m for m in parameters if m["role"] == "out"]})
    return signed


def with_signature(spec: KernelBenchSpec, problem: Problem, device: str, required: bool = True) -> KernelBenchSpec:
    """``spec`` with its parameters, tolerance, tests and bytes described at its sizes on ``device`` (the meta
    device: shapes only).  A forward that cannot run there leaves the outputs unknown (``required``: an error)."""
    inputs, outputs = _describe_on(problem, device, required)
    return _signed(spec, inputs, outputs)


def _describe_on(problem: Problem, device: str, required: bool) -> tuple[list, list]:
    failures = (ProblemError, RuntimeError, NotImplementedError, TypeError, ValueError)
    try:
        inputs, outputs = describe(problem, device)
    except failures as exc:
        if required and device != "meta":
            raise KernelBenchError(str(exc)) from None
        try:  # the inputs alone (a forward the meta device cannot run is sized when the run starts)
            inputs, outputs = describe_inputs(problem, device), []
        except failures as again:
            raise KernelBenchError(str(again)) from None
    return inputs, outputs


def _signed(spec: KernelBenchSpec, inputs: list, outputs: list) -> KernelBenchSpec:
    """``spec`` with these parameters, and the tolerance, tests and bytes they make."""
    constants = {**spec.constants, **spec.sizes_used}
    dtype = outputs[0].dtype if outputs else "float32"
    kind, tol = fmt.tolerance_for(dtype)
    nbytes = sum(_nbytes(p) for p in (*inputs, *outputs) if isinstance(p, Tensor))
    shown = {name: constants[name] for name in constants if not _only_small(constants[name])}
    return replace(spec, parameters=tuple(inputs + outputs), tolerance=Tolerance(kind, tol, tol),
                   tests=tuple(SizeCase(name, shown) for name in trial_names()),
                   benchmarks=(SizeCase("performance", shown),), bytes_formula=float(nbytes))


def trial_names() -> list[str]:
    """KernelBench's trials (``trial-1`` ... ``trial-5``, its own inputs), then the judge's (``signed``, ``wide``,
    ``kinks``: kernelbench_inputs.py)."""
    return [f"trial-{i + 1}" for i in range(TRIALS)] + list(OWN_TRIALS)


def _only_small(value: int) -> bool:
    return abs(value) <= fmt.SHRINK_FLOOR  # kernel sizes, dims: not shown among a case's sizes


def _nbytes(p: Tensor) -> int:
    count = 1
    for d in p.shape:
        count *= int(d)
    return count * ITEM_SIZES[p.dtype]


def describe(problem: Problem, device: str = "meta") -> tuple[list, list[Tensor]]:
    """(inputs, outputs) of one call on ``device``: get_inputs() drawn there, Model built there and run on
    them.  The inputs are Tensor (role in) or Scalar parameters named as forward names them."""
    import torch

    inputs = describe_inputs(problem, device)
    with torch.device(device), torch.no_grad():
        values = problem.inputs(0, device)
        model = _built_on(problem, device)
        try:
            result = model(*values)
        except BaseException as exc:  # noqa: BLE001
            from judge.challenge.kernelbench_problem import _stop_passes

            _stop_passes(exc)
            raise ProblemError(f"{problem.path}: Model.forward failed on {device}: {type(exc).__name__}: {exc}") \
                from None
    results = list(result) if isinstance(result, (tuple, list)) else [result]
    if not results or not all(isinstance(r, torch.Tensor) for r in results):
        raise ProblemError(f"{problem.path}: Model.forward returned {type(result).__name__}, not a tensor or a "
                           "tuple of tensors")
    names = ["output"] if len(results) == 1 else [f"output{i}" for i in range(len(results))]
    outputs = [Tensor(name, _dtype_name(r.dtype, problem.path), tuple(r.shape), "out", Init())
               for name, r in zip(names, results)]
    return inputs, outputs


def _built_on(problem: Problem, device: str):
    import torch

    if device == "meta":  # weights with no memory: the constructor itself runs under the meta device
        with torch.device("meta"):
            try:
                return problem.Model(*problem.init_inputs(0, "meta"))
            except BaseException as exc:  # noqa: BLE001
                from judge.challenge.kernelbench_problem import _stop_passes

                _stop_passes(exc)
                raise ProblemError(f"{problem.path}: Model(*get_init_inputs()) failed: {type(exc).__name__}: "
                                   f"{exc}") from None
    return problem.reference_model(0, device)


def describe_inputs(problem: Problem, device: str = "meta") -> list:
    """The inputs of one call (drawn on ``device``), as parameters named after forward's."""
    import torch

    values = problem.inputs(0, device)
    names = problem.forward_names
    if len(names) != len(values) or len(set(names)) != len(names):
        names = [f"input{i}" for i in range(len(values))]
    out = []
    for name, value in zip(names, values):
        if isinstance(value, torch.Tensor):
            out.append(Tensor(name, _dtype_name(value.dtype, problem.path), tuple(value.shape), "in", Init()))
        elif isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ProblemError(f"{problem.path}: get_inputs() gives '{name}' as a {type(value).__name__}; the judge "
                               "takes tensors, ints and floats")
        else:
            out.append(Scalar(name, "int" if isinstance(value, int) else "float", repr(value)))
    return out


def _dtype_name(dtype, path: str) -> str:
    name = str(dtype).removeprefix("torch.")
    if name not in ITEM_SIZES:
        raise ProblemError(f"{path}: a tensor of {dtype} (supported: {', '.join(ITEM_SIZES)})")
    return name


def sized(spec: KernelBenchSpec, budget: int | None) -> KernelBenchSpec:
    """The spec at CPU mode's sizes: its size constants above 16 halved, the largest first, until one call's
    tensors (inputs and outputs) hold at most ``budget`` elements; a constant whose halving breaks the problem
    (its forward fails on the meta device) stays.  ``budget`` None: the spec as it is (a GPU's run)."""
    if budget is None:
        return spec
    from judge.challenge import kernelbench_cache

    what, values = f"cpu {budget}", dict(spec.constants)
    kept = kernelbench_cache.read(spec.text, what) or {}
    current = kept.get("sizes_used")
    if not isinstance(current, dict) or not set(current) <= set(values):  # not sized before: halve, on the meta device
        current, elements = _halve_until(spec, values, {}, _elements(spec, {}), budget, set(), fmt.SHRINK_FLOOR)
        if elements is not None and elements > budget and current:  # still too large: the sizes it halved, further
            others = {name for name in values if name not in current}
            current, elements = _halve_until(spec, values, current, elements, budget, others, fmt.SHRINK_FLOOR_LAST)
        if not current:
            kernelbench_cache.write(spec.text, what, {"sizes_used": {}})
    if not current:
        return spec
    smaller = replace(spec, sizes_used=dict(current), shrunk_from={n: values[n] for n in current})
    return described(smaller, what)


def _halve_until(spec: KernelBenchSpec, values: dict, current: dict, elements: int | None, budget: int,
                 fixed: set, floor: int) -> tuple[dict, int | None]:
    """Halve constants (the largest first) until ``elements`` fit ``budget``.  Constants of equal value are
    halved together first (``batch_size`` and ``input_shape[0]`` that must broadcast), then alone; one whose
    halving breaks the problem either way stays as it is."""
    fixed = set(fixed)
    while elements is not None and elements > budget:
        now = {**values, **current}
        name = fmt.next_to_halve(now, fixed, floor)
        if name is None:
            break
        group = [n for n in now if now[n] == now[name] and n not in fixed]
        for attempt in ([group, [name]] if len(group) > 1 else [[name]]):
            trial = {**current, **{n: fmt.halved(now[n], floor) for n in attempt}}
            count = _elements(spec, trial)
            if count is not None:
                current, elements = trial, count
                break
        else:
            fixed.update(group)
    return current, elements


def _elements(spec: KernelBenchSpec, sizes: dict) -> int | None:
    """Elements of one call's inputs and outputs at ``sizes`` (meta device); None when the problem breaks there."""
    from judge.challenge.kernelbench_problem import Problem

    try:
        problem = Problem(spec.text, spec.source, sizes)
        inputs, outputs = describe(problem, "meta")
    except (ProblemError, RuntimeError, NotImplementedError, TypeError, ValueError, ZeroDivisionError):
        return None
    total = 0
    for p in (*inputs, *outputs):
        if isinstance(p, Tensor):
            count = 1
            for d in p.shape:
                count *= int(d)
            total += count
    return total


def _title(text: str, fallback: str) -> str:
    """The first line of Model's docstring ("Simple model that performs a ReLU activation.")."""
    import ast

    try:
        for node in ast.parse(text).body:
            if isinstance(node, ast.ClassDef) and node.name == "Model":
                doc = ast.get_docstring(node) or ""
                first = doc.strip().splitlines()[0].strip() if doc.strip() else ""
                return first or fallback
    except SyntaxError:
        pass
    return fallback


def baseline_source(text: str, path: str, mode: str = "eager") -> str:
    """The torch baseline as a solution file: the problem's own Model as ModelNew (``eager``), or compiled by
    torch.compile (``compile``); the worker takes Model from the problem it already runs
    (judge/worker/kernelbench_model.py).  The problem's hash is in it, so a cached baseline time is redone
    when the problem changes."""
    digest = hashlib.sha256(text.encode()).hexdigest()[:16]
    return (f"# The torch baseline of the KernelBench problem {path} (sha256 {digest}): its Model, "
            f"{'eager' if mode == 'eager' else 'under torch.compile'}.\nKERNELBENCH_BASELINE = {mode!r}\n"
            "baseline = None  # no solve(): the worker calls the model\n")


def solution_problem(solution_text: str) -> str | None:
    """Why a solution file cannot be a KernelBench solution (no class ModelNew), or None."""
    if fmt.is_solution_source(solution_text):
        return None
    return ("it defines no class ModelNew: a KernelBench solution defines class ModelNew(nn.Module), built with "
            "Model's constructor arguments (get_init_inputs()) and called like Model.forward")


@dataclass
class Listed:
    """One problem of ``judge list FOLDER``: its spec, or why it cannot run."""

    path: Path
    spec: KernelBenchSpec | None = None
    problem: str = ""  # empty: it can run


def list_problems(root) -> list[Listed]:
    """Load every problem file under ``root``; one that does not load says why (in one line)."""
    out = []
    for path in find_problems(root):
        item = Listed(path)
        try:
            item.spec = load_problem(path, runnable=False)
            if not item.spec.outputs:
                item.problem = "its forward does not run on torch's meta device: outputs are sized when run"
        except KernelBenchError as exc:
            item.problem = str(exc).replace(f"{path}: ", "").replace(str(path), "the file").splitlines()[0]
        out.append(item)
    return out



# -- the worker's copy -------------------------------------------------------------------------
KIND = "kernelbench"


def _parameter_message(p) -> dict:
    return {"name": p.name, "kind": p.kind, "dtype": p.dtype, "role": getattr(p, "role", "in"),
            "shape": list(getattr(p, "shape", ())), "value": getattr(p, "value", "")}


def _parameters(messages: list) -> list:
    """Parameters from their messages (``_parameter_message``); raises ValueError on a malformed one."""
    parameters = []
    for p in messages:
        if p["kind"] == "tensor":
            if p["dtype"] not in ITEM_SIZES or p["role"] not in ("in", "out"):
                raise ValueError(f"bad KernelBench parameter {p!r}")
            parameters.append(Tensor(str(p["name"]), p["dtype"], tuple(int(d) for d in p["shape"]), p["role"],
                                     Init()))
        else:
            parameters.append(Scalar(str(p["name"]), "int" if p["dtype"] == "int" else "float", str(p["value"])))
    return parameters


def spec_message(spec: KernelBenchSpec) -> dict:
    """What the worker receives (worker/protocol.py): the problem's text as the judge read it (never the file
    again), the sizes in effect, the seed its model is built under and the parameters as described here."""
    params = [_parameter_message(p) for p in spec.parameters]
    return {"kind": KIND, "name": spec.name, "source": spec.source, "text": spec.text,
            "sizes": dict(spec.sizes_used), "init_seed": int(spec.init_seed), "parameters": params,
            "draws": [[int(seed), name] for seed, name in spec.draws.items()]}


def spec_from_message(message: dict) -> KernelBenchSpec:
    """The worker's side of ``spec_message``; raises ValueError on a malformed one."""
    parameters = _parameters(message["parameters"])
    sizes = {str(k): int(v) for k, v in dict(message.get("sizes") or {}).items()}
    draws = {}
    for seed, name in list(message.get("draws") or []):
        if type(seed) is not int or name not in DISTRIBUTIONS:
            raise ValueError(f"bad KernelBench draw {[seed, name]!r}")
        draws[seed] = name
    return KernelBenchSpec(
        name=str(message["name"]), title="", difficulty="-", statement="", parameters=tuple(parameters), sizes={},
        constraints=(), reference_code="", reference_dtype=None, baseline_code="", tolerance=Tolerance(),
        tests=(), random_tests=0, benchmarks=(), bytes_formula=0.0, flops_formula=0.0, bound="memory",
        interpret_max={}, source=str(message["source"]), text=str(message["text"]), sizes_used=sizes,
        init_seed=int(message["init_seed"]), draws=draws)


def kernelbench_folder_hint(folder) -> None:
    """Raise KernelBenchError for a folder of KernelBench problems given where one problem is needed; nothing
    for any other folder (a LeetGPU one holds no problem files, only challenge.py folders)."""
    folder = Path(folder)
    if any(folder.rglob("challenge.py")):
        return
    found = find_problems(folder)
    if found:
        raise KernelBenchError(f"{folder} is a folder of {len(found)} KernelBench problem(s), such as {found[0]}: give "
                               f"one problem file, or 'judge list {folder}' lists them")
