# Reproduces: docs/accuracy.md §2 "Same solution, same verdict" (20 seeds on the GPU); run by `scripts/exact39_gpu.sh
# CHECKOUT stability`.
"""Same solution, same verdict (issue 39): honest blocked fp32 solutions judged over many seeds, on a GPU.

For each (LeetGPU challenge, solution in tests/leetgpu/precision/solutions/) and each seed 1..N, at the challenge's
performance size (where LeetGPU's atol/rtol meet a long float32 accumulation):

- the performance test is drawn by the challenge's generator from that seed, the solution runs in this
  process, and its output is checked three ways: **LeetGPU's rule** (atol/rtol against ``reference_impl``
  in float32, exact switches), the same rule against ``reference_impl`` under **torch's default switches**
  (what the judge did before), and **the judge's verdict** now (ShippedReference.check_case: LeetGPU's rule,
  and where it rejects, the error of the reference's order against the float64 run, judging/error_order.py);
  with the errors against the float64 run, in units of the tolerance and absolute, for the solution and for
  the reference;
- with ``--runs K``, the first K seeds are also judged end to end (`judge run`'s judge_solution, benchmarks
  with verified timed calls, a short budget), whose verdict must be the same.

    python scripts/stability_gpu.py CHECKOUT/challenges [tests/leetgpu/precision] [--seeds 20] [--runs 3] [--out DIR]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import time
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from judge.challenge.leetgpu import build_performance_test, load_folder  # noqa: E402
from judge.challenge.tensors import poison_  # noqa: E402
from judge.judging.checks import compare_output, errors_against  # noqa: E402
from judge.judging.dispatch import judge_solution  # noqa: E402
from judge.judging.runner import Options  # noqa: E402
from judge.judging.shipped_runner import ShippedReference  # noqa: E402

STABLE = ROOT / "tests" / "leetgpu" / "precision" / "solutions"
PAIRS = [
    ("medium/16_prefix_sum", "prefix_sum_blocked.py"),
    ("medium/4_reduction", "reduction_blocked.py"),
    ("medium/5_softmax", "softmax_blocked.py"),
    ("medium/50_rms_normalization", "rms_norm_blocked.py"),
    ("medium/113_layer_normalization", "layer_norm_rows.py"),
    ("medium/16_prefix_sum", "prefix_sum_half_inputs.py"),  # the control: a lower precision, rejected every time
    # tests/leetgpu/precision as the checkout: a reference that scans in a float32 tree with LeetGPU's 1e-5
    ("medium/1_tree_scan", "prefix_sum_blocked.py"),
]


def load_solve(path: Path):
    module_spec = importlib.util.spec_from_file_location(f"stable_{path.stem}", path)
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    return module.solve


def default_switches_reference(reference: ShippedReference, case) -> dict:
    """reference_impl under torch's default switches (cuDNN TF32 allowed), as the judge ran it before issue 39."""
    work = {n: v.clone() if isinstance(v, torch.Tensor) else v for n, v in case.arguments.items()}
    with torch.no_grad():
        reference.instance.reference_impl(**work)
    return {n: work[n] for n, role in case.roles.items() if role != "in"}


def one_seed(spec, solve, seed: int, device: str) -> dict:
    case = build_performance_test(spec, device, seed)
    reference = ShippedReference(spec, device)
    args = {n: v.clone() if isinstance(v, torch.Tensor) else v for n, v in case.arguments.items()}
    for name, role in case.roles.items():
        if role == "out" and name not in case.kept:
            poison_(args[name])
    solve(*args.values())
    if device.startswith("cuda"):
        torch.cuda.synchronize()
    got = {n: args[n] for n, role in case.roles.items() if role != "in"}
    tol = spec.tolerance
    exact, default = reference.expected(case, keep=False), default_switches_reference(reference, case)
    truth = reference.truth(case, keep=False) or {}
    row = {"seed": seed}
    for name, value in got.items():
        leetgpu = compare_output(name, value, exact[name], tol)
        before = compare_output(name, value, default[name], tol)
        row[name] = {"leetgpu_rule_bad": leetgpu.bad, "default_switches_bad": before.bad, "total": leetgpu.total}
        if name in truth:
            su, sa = errors_against(value, truth[name], tol.atol, tol.rtol)
            ru, ra = errors_against(exact[name], truth[name], tol.atol, tol.rtol)
            row[name].update(solution_units=su, solution_abs=sa, reference_units=ru, reference_abs=ra)
    checked = reference.check_case(case, got, keep=False)
    row["judge_accepts"] = all(m.ok for m in checked)
    row["by_order"] = len(reference.accepted_by_order)
    return row


def end_to_end(folder: Path, solution: Path, seed: int) -> str:
    result = judge_solution(load_folder(folder), str(solution), Options(seed=seed, bench_budget_s=0.3))
    return result.verdict.value


def summarise(rows: list[dict]) -> dict:
    names = [k for k in rows[0] if isinstance(rows[0][k], dict)]
    out = {"seeds": len(rows), "judge_accepts": sum(r["judge_accepts"] for r in rows),
           "accepted_by_order": sum(r["by_order"] > 0 for r in rows)}
    for name in names:
        cells = [r[name] for r in rows]
        out[name] = {"leetgpu_rule_rejects": sum(c["leetgpu_rule_bad"] > 0 for c in cells),
                     "default_switches_rejects": sum(c["default_switches_bad"] > 0 for c in cells),
                     "worst_solution_units": max(c.get("solution_units", float("nan")) for c in cells),
                     "worst_reference_units": max(c.get("reference_units", float("nan")) for c in cells),
                     "worst_abs_ratio": max(c.get("solution_abs", 0) / c["reference_abs"] if c.get("reference_abs")
                                            else float("inf") if c.get("solution_abs") else 0.0 for c in cells)}
    return out


def table(results: list[dict], device: str) -> str:
    lines = [f"Stability over seeds on {device}, {time.strftime('%Y-%m-%d')} (`python scripts/stability_gpu.py`), at "
             "each challenge's performance size:", "",
             "| challenge | solution | seeds | LeetGPU's rule rejects | rejected before (default switches) | "
             "the judge accepts | accepted by the order rule | worst error / tolerance (solution, reference) | "
             "worst abs error ratio | `judge run` verdicts |", "|---|---|---|---|---|---|---|---|---|---|"]
    for r in results:
        s = r["summary"]
        (name, cell), = [(k, v) for k, v in s.items() if isinstance(v, dict)][:1]
        lines.append(f"| {r['challenge']} | `{r['solution']}` | {s['seeds']} | {cell['leetgpu_rule_rejects']} | "
                     f"{cell['default_switches_rejects']} | {s['judge_accepts']} | {s['accepted_by_order']} | "
                     f"{cell['worst_solution_units']:.3g}, {cell['worst_reference_units']:.3g} | "
                     f"{cell['worst_abs_ratio']:.3g} | {', '.join(r['runs']) or '-'} |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkout", nargs="+",
                        help="a LeetGPU checkout's challenges/ folder (and tests/leetgpu/precision)")
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--runs", type=int, default=0, help="judge the first K seeds end to end too")
    parser.add_argument("--out", default=".")
    parser.add_argument("--device", default="cuda", help="cpu (with TRITON_INTERPRET=1): a smoke test")
    parser.add_argument("--only", default="", help="only the pairs whose challenge or solution holds this text")
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    results = []
    for challenge, solution in PAIRS:
        folders = [Path(c) / challenge for c in args.checkout if (Path(c) / challenge).is_dir()]
        if args.only not in challenge + solution or not folders:  # a pair of a checkout not given
            continue
        folder, path = folders[0], STABLE / solution
        spec, solve = load_folder(folder), load_solve(path)
        rows = [one_seed(spec, solve, seed, args.device) for seed in range(1, args.seeds + 1)]
        runs = [end_to_end(folder, path, seed) for seed in range(1, args.runs + 1)]
        results.append({"challenge": challenge, "solution": solution, "rows": rows, "runs": runs,
                        "summary": summarise(rows)})
        print(json.dumps({k: results[-1][k] for k in ("challenge", "solution", "summary", "runs")}), flush=True)
    device = torch.cuda.get_device_name() if args.device.startswith("cuda") else "cpu (Triton interpreter)"
    (out / "stability.json").write_text(json.dumps({"device": device, "results": results}, indent=1))
    (out / "stability.md").write_text(table(results, device) + "\n")
    print(table(results, device))
    return 0


if __name__ == "__main__":
    sys.exit(main())
