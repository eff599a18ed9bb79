# Reproduces: docs/results.md, "Against the goals of the examples" (the fp32-exact matmuls under do_bench;
# solutions/README.md).
"""Time and check the fp32-accurate matmul variants on one GPU, in one call.

For each variant (cuBLAS fp32, solutions/matmul/{bf16x6,tf32x3,grouped_autotuned}.py
and every solutions/matmul/experimental/*.py): autotune at the benchmark size
(M, N, K) = (8192, 6144, 4096) (A is M x N, B is N x K, C is M x K), time
``solve`` with triton.testing.do_bench (median), and check accuracy the way the
judge does: max over C of |C - C_ref| / (|A| @ |B|) with C_ref in float64; the
judge accepts below 2e-6. Accuracy is also checked at awkward sizes.

    python scripts/matmul_sweep.py [--only bf16x6,tf32x3] [--budget 225] [--no-warm]

MATMUL_SWEEP_CPU=1 runs the same flow on the CPU through Triton's interpreter at
tiny sizes (a dry run of the script itself; its times mean nothing).

How it fits in ~4 minutes: phase 1 compiles every variant's configs in parallel
child processes (one per variant, each config run once instead of benchmarked);
phase 2 measures the variants one at a time, each in its own child process (a
crash or a hang in one never stops the rest), loading the kernels from Triton's
disk cache. After autotuning at the benchmark size a child narrows each
autotuner to the chosen config, so the other sizes do not re-tune. Results go
to $OUT/matmul_sweep.json (OUT defaults to "."), rewritten after every variant.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MATMUL = ROOT / "solutions" / "matmul"
BENCH_SIZE = (8192, 6144, 4096)
EXTRA_SIZES = [(1, 8192, 1), (127, 4099, 65), (1000, 999, 1001), (8192, 8192, 8192)]
RTOL = 2e-6
DRY_RUN = os.environ.get("MATMUL_SWEEP_CPU") == "1"
DEVICE = "cpu" if DRY_RUN else "cuda"
if DRY_RUN:
    os.environ["TRITON_INTERPRET"] = "1"
    BENCH_SIZE = (40, 64, 48)
    EXTRA_SIZES = [(1, 64, 1), (17, 33, 65), (3, 5, 7), (64, 64, 64)]


BASELINES = ("tf32x3", "grouped_autotuned", "cublas_fp32")   # measured before: no kernel breakdown
# Order of measurement (most informative first, so a cut-short run still answers
# the main question); experimental files not named here come after, by name.
ORDER = ("bf16x6", "bf16x6_tma", "fp16x3", "fp16x3_tma", "tf32x3_presplit", "cublas_fp32",
         "bf16x6_multidot", "bf16x6_inline", "tf32x3", "grouped_autotuned")


def variants() -> list[tuple[str, str | None]]:
    """(name, solution file); None is cuBLAS. The order is the order of measurement."""
    found = {"bf16x6": MATMUL / "bf16x6.py", "tf32x3": MATMUL / "tf32x3.py",
             "grouped_autotuned": MATMUL / "grouped_autotuned.py", "cublas_fp32": None}
    found.update({p.stem: p for p in (MATMUL / "experimental").glob("*.py")})
    names = sorted(found, key=lambda n: (ORDER.index(n) if n in ORDER else len(ORDER), n))
    return [(n, str(found[n]) if found[n] else None) for n in names if found[n] is None or found[n].exists()]


def describe(config) -> str:
    kw = config.kwargs
    tile = "x".join(str(kw[k]) for k in ("BLOCK_M", "BLOCK_N", "BLOCK_K") if k in kw)
    return f"{tile} s{config.num_stages} w{config.num_warps}" if tile else str(config)


# ----------------------------------------------------------------------------
# Child process: one variant, mode "warm" (compile only) or "measure".
# ----------------------------------------------------------------------------
def sync() -> None:
    import torch

    if DEVICE == "cuda":
        torch.cuda.synchronize()


def bench_median_ms(fn) -> float:
    if DEVICE == "cuda":
        import triton.testing

        return triton.testing.do_bench(fn, warmup=50, rep=300, return_mode="median")
    times = []
    for _ in range(3):
        started = time.perf_counter()
        fn()
        times.append((time.perf_counter() - started) * 1e3)
    return sorted(times)[1]


def empty_cache() -> None:
    import torch

    if DEVICE == "cuda":
        torch.cuda.empty_cache()


def load_solve(path: str | None):
    import torch

    if DRY_RUN:  # like the judge in CPU mode: each autotuner runs its first config
        from triton.runtime import autotuner

        prune = autotuner.Autotuner.prune_configs
        autotuner.Autotuner.prune_configs = lambda self, *a, **k: list(prune(self, *a, **k))[:1]

    if path is None:
        torch.backends.cuda.matmul.allow_tf32 = False

        def solve(A, B, C, M, N, K):
            torch.matmul(A, B, out=C)
        return solve, None
    spec = importlib.util.spec_from_file_location(Path(path).stem + "_sweep", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.solve, module


def autotuners(module) -> list:
    from triton.runtime.autotuner import Autotuner

    return [v for v in vars(module).values() if isinstance(v, Autotuner)] if module else []


def make_inputs(M: int, N: int, K: int, seed: int):
    import torch

    g = torch.Generator(device=DEVICE).manual_seed(seed)
    A = torch.empty((M, N), device=DEVICE, dtype=torch.float32).uniform_(-1, 1, generator=g)
    B = torch.empty((N, K), device=DEVICE, dtype=torch.float32).uniform_(-1, 1, generator=g)
    C = torch.full((M, K), float("nan"), device=DEVICE, dtype=torch.float32)  # unwritten -> NaN -> fails
    return A, B, C


def error_ratio(A, B, C) -> float:
    """max |C - C_ref| / (|A| @ |B|), float64 on the GPU; NaN/inf anywhere gives inf."""
    A64, B64 = A.double(), B.double()
    ref = A64 @ B64
    err = (C.double() - ref).abs_()
    del ref
    scale = A64.abs() @ B64.abs()
    ratio = (err / scale.clamp_min_(1e-300)).max().item()
    del A64, B64, err, scale
    return ratio if ratio == ratio else float("inf")


def warm(path: str) -> dict:
    """Compile every config of every autotuner at every size (no benchmarking)."""
    from triton.runtime.autotuner import Autotuner

    def run_once(self, *args, config, **meta):
        current = dict(meta, **config.all_kwargs())
        try:
            if config.pre_hook is not None:
                config.pre_hook({**self.nargs, **current})
            self.fn.run(*args, **current)
            return [1.0, 1.0, 1.0]
        except Exception:  # e.g. out of shared memory: the real autotuner skips it too
            return [float("inf")] * 3

    Autotuner._bench = run_once
    solve, _ = load_solve(path)
    started = time.perf_counter()
    # The 8192^3 check shares the benchmark size's compiled kernels (same divisibility).
    for M, N, K in [BENCH_SIZE] + [s for s in EXTRA_SIZES if s[0] * s[1] * s[2] < 1e11]:
        A, B, C = make_inputs(M, N, K, seed=0)
        solve(A, B, C, M, N, K)
        sync()
        del A, B, C
    return {"warm_s": time.perf_counter() - started}


def kernel_breakdown(solve, args) -> dict:
    """Average GPU time per kernel name over a few calls (torch.profiler)."""
    from torch.profiler import ProfilerActivity, profile

    calls = 5
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(calls):
            solve(*args)
        sync()
    out = {}
    for e in prof.key_averages():
        t = getattr(e, "device_time_total", None)
        if t is None:
            t = getattr(e, "cuda_time_total", 0)
        if t and e.key:
            out[e.key[:60]] = round(t / calls / 1000, 4)  # ms per solve() call
    return dict(sorted(out.items(), key=lambda kv: -kv[1])[:6])


def check_size(solve, M: int, N: int, K: int) -> float:
    A, B, C = make_inputs(M, N, K, seed=M + N + K)
    solve(A, B, C, M, N, K)
    ratio = error_ratio(A, B, C)
    del A, B, C
    empty_cache()
    return ratio


def measure(path: str | None, profile_kernels: bool) -> dict:
    import torch
    import triton

    res: dict = {"device": torch.cuda.get_device_name() if DEVICE == "cuda" else "cpu (interpreter dry run)",
                 "torch": torch.__version__, "triton": triton.__version__}
    solve, module = load_solve(path)
    M, N, K = BENCH_SIZE
    A, B, C = make_inputs(M, N, K, seed=1)
    started = time.perf_counter()
    solve(A, B, C, M, N, K)                       # compiles (from cache) and autotunes
    sync()
    res["tune_s"] = round(time.perf_counter() - started, 2)
    tuners = autotuners(module)
    res["best_config"] = [describe(t.best_config) for t in tuners if getattr(t, "best_config", None)]
    ms = bench_median_ms(lambda: solve(A, B, C, M, N, K))
    res["ms"] = ms
    res["tflops"] = 2 * M * N * K / (ms * 1e-3) / 1e12
    if profile_kernels and DEVICE == "cuda" and module is not None:
        try:
            res["kernels_ms"] = kernel_breakdown(solve, (A, B, C, M, N, K))
        except Exception as exc:  # the profiler is optional
            res["kernels_ms"] = f"profiler failed: {exc!r}"[:200]
    C.fill_(float("nan"))
    solve(A, B, C, M, N, K)
    res["accuracy"] = {f"{M}x{N}x{K}": error_ratio(A, B, C)}
    A = B = C = None                              # free the GPU memory before the other sizes
    empty_cache()

    for t in tuners:                              # no re-tuning at the other sizes
        if getattr(t, "best_config", None) is not None:
            t.configs = [t.best_config]
    for size in EXTRA_SIZES:
        key = "x".join(map(str, size))
        try:
            res["accuracy"][key] = check_size(solve, *size)
        except Exception as exc:
            res["accuracy"][key] = None
            res.setdefault("errors", []).append(f"{key}: {type(exc).__name__}: {exc}"[:400])
    res["max_ratio"] = max((v if v is not None else float("inf")) for v in res["accuracy"].values())
    res["pass"] = res["max_ratio"] < RTOL
    return res


def child_main(args) -> None:
    path = None if args.file == "cublas" else args.file
    try:
        out = warm(path) if args.mode == "warm" else measure(path, not args.no_profile)
    except Exception as exc:
        out = {"error": f"{type(exc).__name__}: {exc}"[:1500], "traceback": traceback.format_exc()[-3000:]}
    print("RESULT " + json.dumps(out), flush=True)


# ----------------------------------------------------------------------------
# Parent process: no CUDA here, only scheduling, the table and the JSON.
# ----------------------------------------------------------------------------
def child_cmd(name: str, path: str | None, mode: str, no_profile: bool) -> list[str]:
    cmd = [sys.executable, str(Path(__file__).resolve()), "--child", name, "--mode", mode,
           "--file", path or "cublas"]
    return cmd + (["--no-profile"] if no_profile else [])


def parse_result(stdout: str, stderr: str, rc) -> dict:
    for line in reversed(stdout.splitlines()):
        if line.startswith("RESULT "):
            return json.loads(line[7:])
    return {"error": f"child exited with {rc} and no result", "stderr_tail": stderr[-2000:]}


def fmt_ratio(r) -> str:
    return "-" if r is None else f"{r:.2e}"


def print_table(rows: list[dict]) -> None:
    print(f"\n{'variant':18s} {'ms':>7s} {'TFLOP/s':>7s} {'err/scale':>13s}  pass  best config / note", flush=True)
    for r in rows:
        ms = f"{r['ms']:.3f}" if r.get("ms") else "-"
        tf = f"{r['tflops']:.1f}" if r.get("tflops") else "-"
        ok = {True: "yes", False: "NO"}.get(r.get("pass"), "-")
        note = r.get("error") or r.get("skipped") or ", ".join(r.get("best_config", []))
        ratio = fmt_ratio(r.get("max_ratio"))
        print(f"{r['name']:18s} {ms:>7s} {tf:>7s} {ratio:>13s}  {ok:4s}  {note[:100]}", flush=True)


def parent_main(args) -> None:
    t0 = time.perf_counter()
    out_dir = Path(os.environ.get("OUT", "."))
    out_dir.mkdir(parents=True, exist_ok=True)
    out_file = out_dir / "matmul_sweep.json"
    todo = variants()
    if args.only:
        wanted = set(args.only.split(","))
        todo = [v for v in todo if v[0] in wanted]
    report = {"size": dict(zip("MNK", BENCH_SIZE)), "extra_sizes": [list(s) for s in EXTRA_SIZES],
              "rtol": RTOL, "variants": []}

    def save():
        report["elapsed_s"] = round(time.perf_counter() - t0, 1)
        out_file.write_text(json.dumps(report, indent=1))

    print(f"[sweep] variants: {', '.join(n for n, _ in todo)}", flush=True)
    if not args.no_warm:
        print("[sweep] phase 1: compiling all configs in parallel ...", flush=True)
        procs = {}
        for n, p in todo:
            if p is not None:   # output to files: pipes read one child at a time could fill up
                logs = tempfile.TemporaryFile("w+"), tempfile.TemporaryFile("w+")
                procs[n] = subprocess.Popen(child_cmd(n, p, "warm", True), cwd=ROOT, stdout=logs[0],
                                            stderr=logs[1], text=True), logs
        deadline = t0 + args.warm_limit
        warm_info = {}
        for n, (proc, logs) in procs.items():
            try:
                proc.wait(timeout=max(1.0, deadline - time.perf_counter()))
                so, se = (f.seek(0) or f.read() for f in logs)
                warm_info[n] = parse_result(so, se, proc.returncode)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
                warm_info[n] = {"error": "warm-up timed out (its kernels compile during measurement)"}
            w = warm_info[n]
            print(f"  {n:24s} " + (f"compiled in {w['warm_s']:.1f} s" if "warm_s" in w else
                                    f"WARM FAILED: {w.get('error')}"), flush=True)
        report["warm"] = warm_info
        print(f"[sweep] phase 1 done at {time.perf_counter() - t0:.0f} s", flush=True)

    print("[sweep] phase 2: measuring one variant at a time ...", flush=True)
    for name, path in todo:
        left = args.budget - (time.perf_counter() - t0)
        row = {"name": name, "file": str(Path(path).relative_to(ROOT)) if path else "torch.matmul (TF32 off)"}
        if left < 12:
            row["skipped"] = "time budget used up"
            print(f"  {name}: skipped (budget)", flush=True)
        else:
            print(f"  {name} ...", flush=True)
            try:
                no_profile = args.no_profile or name in BASELINES
                proc = subprocess.run(child_cmd(name, path, "measure", no_profile), cwd=ROOT,
                                      capture_output=True, text=True, timeout=min(left, args.child_limit))
                row.update(parse_result(proc.stdout, proc.stderr, proc.returncode))
            except subprocess.TimeoutExpired:
                row["error"] = f"timed out after {min(left, args.child_limit):.0f} s"
            if row.get("error"):
                print(f"    ERROR: {row['error'][:300]}", flush=True)
            else:
                acc = ", ".join(f"{k} {fmt_ratio(v)}" for k, v in row["accuracy"].items())
                print(f"    {row['ms']:.3f} ms, {row['tflops']:.1f} TFLOP/s, first call {row['tune_s']} s, "
                      f"pass={row['pass']} | err/scale: {acc}", flush=True)
                if row.get("kernels_ms"):
                    print(f"    kernels (ms per call): {row['kernels_ms']}", flush=True)
        report["variants"].append(row)
        report.setdefault("device", row.get("device"))
        save()

    print_table(report["variants"])
    save()
    print(f"\n[sweep] done in {time.perf_counter() - t0:.0f} s -> {out_file}", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", help="comma-separated variant names (file stems, or cublas_fp32)")
    ap.add_argument("--budget", type=float, default=225.0, help="seconds for the whole sweep (default 225)")
    ap.add_argument("--warm-limit", type=float, default=120.0, help="seconds for phase 1 (default 120)")
    ap.add_argument("--child-limit", type=float, default=90.0, help="seconds per measured variant (default 90)")
    ap.add_argument("--no-warm", action="store_true", help="skip the parallel compile phase")
    ap.add_argument("--no-profile", action="store_true", help="skip the per-kernel time breakdown")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--mode", choices=["warm", "measure"], help=argparse.SUPPRESS)
    ap.add_argument("--file", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child_main(args)
    else:
        parent_main(args)


if __name__ == "__main__":
    main()
