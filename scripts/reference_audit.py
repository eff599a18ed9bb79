# Reproduces: docs/accuracy.md, "The audit: every LeetGPU challenge and built-in spec"; run by `scripts/exact39_gpu.sh
# CHECKOUT audit`.
"""Which references depend on torch's precision switches, and which are outside their own tolerance of the
truth (issue 39), on a GPU.

For every LeetGPU challenge under CHECKOUT (its example, functional and performance tests, built by its
generators) and every built-in YAML spec (its functional tests and benchmarks), each case's reference is run
three ways:

- **default**: under torch's default switches (cuDNN may use TF32; cuBLAS as torch leaves it), as the judge
  ran it before issue 39;
- **exact**: under ``exact_math()`` (TF32 off everywhere, fp16/bf16 reduced-precision reductions off), as the
  judge runs it now;
- **float64**: floating inputs cast to float64 and the reference run on them (the truth at these sizes),
  where the reference accepts float64.

and, per output, compared with the challenge's own check: default against exact (does TF32 change the
reference by more than the tolerance?) and exact against float64 (is the reference itself within its
tolerance of the truth? where it is not, honest solutions in another order of operations are at risk:
judging/error_order.py).  Listed: every challenge where either differs by more than its tolerance.

    python scripts/reference_audit.py CHECKOUT/challenges [--out DIR] [--only TEXT] [--no-performance]
"""

from __future__ import annotations

import argparse
import copy
import json
import sys
import time
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from judge.challenge.cases import benchmark_cases, case_elements, generate_cases  # noqa: E402
from judge.challenge.catalog import load_challenge  # noqa: E402
from judge.challenge.exact_math import exact_math  # noqa: E402
from judge.challenge.leetgpu import (build_performance_test, build_tests, find_folders, load_folder,  # noqa: E402
                                     without_asserts)
from judge.challenge.spec import Tensor, Tolerance  # noqa: E402
from judge.challenge.tensors import TORCH_DTYPES, make_arguments  # noqa: E402
from judge.judging.checks import compare_output, errors_against  # noqa: E402
from judge.judging.reference import Reference  # noqa: E402
from judge.judging.shipped_runner import as_float64  # noqa: E402

DEVICE = "cuda"  # --device cpu: a smoke test of the script without a GPU
BUILT_IN = ["transpose", "copy", "matmul", "matvec", "vector_add", "reduce_sum", "softmax", "softmax_rows",
            "batched_transpose"]


def _call(function, arguments: dict, exact: bool) -> dict:
    work = {n: v.clone() if isinstance(v, torch.Tensor) else copy.deepcopy(v) if isinstance(v, torch.nn.Module) else v
            for n, v in arguments.items()}
    with torch.no_grad():
        if exact:
            with exact_math():
                function(**work)
        else:
            function(**work)
    if DEVICE.startswith("cuda"):
        torch.cuda.synchronize()
    return work


def compare(name: str, got: torch.Tensor, ref: torch.Tensor, tol, scale=None) -> dict:
    """The challenge's own check of ``got`` against ``ref``, and the error in units of a close tolerance.  A
    summation tolerance (the built-in specs whose references run in float64) is audited as exact: their three
    runs must agree to the bit."""
    tol = Tolerance("exact") if tol.kind == "summation" else tol
    found = compare_output(name, got, ref.to(got.dtype) if tol.kind == "exact" else ref, tol, scale)
    out = {"bad": found.bad, "total": found.total}
    if got.dtype.is_floating_point and tol.kind == "close":
        out["units"], out["abs"] = errors_against(got, ref, tol.atol, tol.rtol)
    elif got.dtype.is_floating_point:
        out["abs"] = float((got.double() - ref.double()).abs().max()) if got.numel() else 0.0
    return out


def audit_case(run, arguments: dict, outputs: list[str], tol, run_wide=None) -> dict:
    """``run(arguments, exact)`` -> the arguments after the reference ran; three ways, compared per output
    (``run_wide``: the float64 run, when it is not ``run`` with exact switches)."""
    default, exact = run(arguments, False), run(arguments, True)
    try:
        wide = (run_wide or run)({n: as_float64(v) for n, v in arguments.items()}, True)
    except Exception as exc:  # noqa: BLE001 - a reference that insists on its dtype: no float64 run
        wide = None
        why = f"{type(exc).__name__}: {str(exc)[:80]}"
    row = {}
    for name in outputs:
        cell = {"default_vs_exact": compare(name, default[name], exact[name], tol)}
        if wide is not None and exact[name].dtype.is_floating_point:
            cell["exact_vs_float64"] = compare(name, exact[name], wide[name], tol)
            cell["default_vs_float64"] = compare(name, default[name], wide[name], tol)
        elif wide is None:
            cell["float64"] = why
        row[name] = cell
    return row


def audit_folder(folder: Path, performance: bool) -> dict:
    spec = load_folder(folder)
    instance = spec.instance(DEVICE)
    cases, _ = build_tests(spec, DEVICE, seed=1)
    if performance:
        cases.append(build_performance_test(spec, DEVICE, 1))
    outputs = [p.name for p in spec.parameters if isinstance(p, Tensor) and p.role != "in"]

    stripped = without_asserts(instance)

    def run(arguments, exact):
        return _call(instance.reference_impl, arguments, exact)

    def run_wide(arguments, exact):  # as the judge's float64 run: its asserts left out where they refuse it
        try:
            return run(arguments, exact)
        except Exception:  # noqa: BLE001
            if stripped is None:
                raise
            return _call(stripped, arguments, exact)

    return {"tolerance": [spec.tolerance.atol, spec.tolerance.rtol],
            "cases": {c.name: audit_case(run, c.arguments, outputs, spec.tolerance, run_wide) for c in cases}}


def audit_spec(name: str, performance: bool) -> dict:
    spec = load_challenge(name)
    reference = Reference(spec, DEVICE)
    cases = generate_cases(spec, 1, not DEVICE.startswith("cuda")) + (benchmark_cases(spec) if performance else [])
    names = [p.name for p in spec.parameters]
    outputs = [p.name for p in spec.parameters if isinstance(p, Tensor) and p.role != "in"]

    def run(arguments, exact):
        work = list(arguments.values())
        if spec.reference_dtype and not any(isinstance(v, torch.Tensor) and v.dtype == torch.float64 for v in work):
            wide = TORCH_DTYPES[spec.reference_dtype]  # as Reference._prepared: the spec's own reference dtype
            work = [v.to(wide) if isinstance(v, torch.Tensor) and v.dtype.is_floating_point else v for v in work]
        done = _call(lambda **kw: reference.function(*kw.values()), dict(zip(names, work)), exact)
        return done

    rows = {}
    for case in cases:
        if case_elements(spec, case.params) > 1 << 28:
            continue  # the largest edge cases: 2 GiB of float64 is not worth the audit's time
        arguments = dict(zip(names, make_arguments(spec, case.params, 1, DEVICE)))
        rows[case.name] = audit_case(run, arguments, outputs, spec.tolerance)
    return {"tolerance": [spec.tolerance.kind, spec.tolerance.atol, spec.tolerance.rtol], "cases": rows}


def flagged(result: dict) -> dict:
    """The worst of each comparison over a challenge's cases, and whether it is outside the tolerance."""
    worst = {}
    for case, outputs in result.get("cases", {}).items():
        for name, cell in outputs.items():
            for key, value in cell.items():
                if not isinstance(value, dict):
                    worst.setdefault("float64", value)
                    continue
                entry = worst.setdefault(key, {"bad": 0, "units": 0.0, "abs": 0.0, "case": ""})
                if value["bad"] > entry["bad"] or value.get("units", 0) > entry["units"]:
                    entry.update(bad=max(entry["bad"], value["bad"]), case=f"{case}:{name}")
                entry["units"] = max(entry["units"], value.get("units", 0.0))
                entry["abs"] = max(entry["abs"], value.get("abs", 0.0))
    return worst


def table(results: dict, device: str) -> str:
    lines = [f"Reference audit on {device}, {time.strftime('%Y-%m-%d')} (`python scripts/reference_audit.py`): "
             "challenges whose reference under torch's default switches differs from the exact one by more than "
             "the tolerance, or whose exact float32 reference is outside its tolerance of the float64 run.", "",
             "| challenge | tolerance | default vs exact: elements outside (worst, in tolerances) | "
             "exact vs float64: elements outside (worst) | where |", "|---|---|---|---|---|"]
    for name, result in results.items():
        if "error" in result:
            lines.append(f"| {name} | | | | could not run: {result['error'][:100]} |")
            continue
        worst = flagged(result)
        tf32, truth = worst.get("default_vs_exact", {}), worst.get("exact_vs_float64", {})
        if not (tf32.get("bad") or truth.get("bad")):
            continue
        lines.append(f"| {name} | {result['tolerance']} | {tf32.get('bad', 0)} ({tf32.get('units', 0):.3g}) | "
                     f"{truth.get('bad', 0)} ({truth.get('units', 0):.3g}) | {tf32.get('case') or truth.get('case')} |")
    clean = [n for n, r in results.items() if "error" not in r and not any(
        v.get("bad") for v in flagged(r).values() if isinstance(v, dict))]
    no64 = [n for n, r in results.items() if "error" not in r and "float64" in flagged(r)]
    lines += ["", f"Within tolerance every way: {len(clean)} of {len(results)}. No float64 run (the reference "
                  f"refuses float64): {', '.join(no64) or 'none'}."]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkout", nargs="?", help="a LeetGPU checkout's challenges/ folder (optional)")
    parser.add_argument("--out", default=".")
    parser.add_argument("--only", default="", help="only the challenges whose path holds this text")
    parser.add_argument("--no-performance", action="store_true", help="leave out performance tests and benchmarks")
    parser.add_argument("--device", default="cuda")
    args = parser.parse_args()
    global DEVICE
    DEVICE = args.device
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    results: dict = {}
    targets = [(f"spec:{n}", lambda n=n: audit_spec(n, not args.no_performance)) for n in BUILT_IN]
    if args.checkout:
        root = Path(args.checkout)
        targets += [(str(f.relative_to(root)), lambda f=f: audit_folder(f, not args.no_performance))
                    for f in find_folders(root)]
    for name, audit in targets:
        if args.only not in name:
            continue
        started = time.perf_counter()
        try:
            results[name] = audit()
        except Exception as exc:  # noqa: BLE001 - one challenge's failure is reported, the others still run
            results[name] = {"error": f"{type(exc).__name__}: {exc}"}
        if DEVICE.startswith("cuda"):
            torch.cuda.empty_cache()
        results[name]["seconds"] = round(time.perf_counter() - started, 2)
        worst = {"seconds": results[name]["seconds"], **flagged(results[name])}
        print(json.dumps({name: worst}
                         if "error" not in results[name] else {name: results[name]}), flush=True)
    device = torch.cuda.get_device_name() if DEVICE.startswith("cuda") else "cpu"
    (out / "reference_audit.json").write_text(json.dumps({"device": device, "results": results}, indent=1))
    (out / "reference_audit.md").write_text(table(results, device) + "\n")
    print(table(results, device))
    return 0


if __name__ == "__main__":
    sys.exit(main())
