# Reproduces: docs/results.md, "Against the goals of the examples" (the copy against the device-to-device bound; the
# variant solutions/copy/tuned.py ships).
"""Copy kernel variants against the device-to-device copy bound (run on a GPU).

For N = 4096 (the challenge's benchmark: 64 MiB read + 64 MiB written) and a
few larger sizes: torch's copy, and Triton copies with different block sizes,
warps and a persistent grid, timed with do_bench (median, L2 flushed).

    python scripts/copy_sweep.py      (writes $OUT/copy_sweep.json)
"""

from __future__ import annotations

import json
import os

import torch
import triton
import triton.language as tl


@triton.jit
def copy_blocks(a, b, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(b + offs, tl.load(a + offs, mask=mask), mask=mask)


@triton.jit
def copy_persistent(a, b, n, BLOCK: tl.constexpr):
    start = tl.program_id(0).to(tl.int64) * BLOCK
    step = tl.num_programs(0).to(tl.int64) * BLOCK
    for base in range(start, n, step):
        offs = base + tl.arange(0, BLOCK)
        mask = offs < n
        tl.store(b + offs, tl.load(a + offs, mask=mask), mask=mask)


def bench(fn) -> float:
    return triton.testing.do_bench(fn, warmup=50, rep=400, return_mode="median")


def variants(a, b, n):
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    yield "torch copy_", lambda: b.copy_(a)
    for block in (1024, 2048, 4096, 8192, 16384):
        for warps in (4, 8, 16):
            grid = (triton.cdiv(n, block),)
            yield f"blocks B={block} w={warps}", \
                lambda block=block, warps=warps, grid=grid: copy_blocks[grid](a, b, n, BLOCK=block, num_warps=warps)
    for per_sm in (1, 2, 4, 8):
        for block in (2048, 4096, 8192):
            grid = (sms * per_sm,)
            yield f"persistent {per_sm}/SM B={block} w=8", \
                lambda block=block, grid=grid: copy_persistent[grid](a, b, n, BLOCK=block, num_warps=8)


def main() -> None:
    results = {"device": torch.cuda.get_device_name(), "sizes": {}}
    for side in (4096, 8192, 16384):
        n = side * side
        a = torch.rand(n, device="cuda")
        b = torch.empty_like(a)
        rows = []
        for name, fn in variants(a, b, n):
            if side != 4096 and name.startswith(("blocks B=1024", "blocks B=16384", "persistent 8")):
                continue
            fn()
            torch.cuda.synchronize()
            ok = torch.equal(a, b)
            ms = bench(fn)
            rows.append({"variant": name, "ms": ms, "gbps": 2 * n * 4 / ms / 1e6, "ok": ok})
        best = min(rows, key=lambda r: r["ms"])
        results["sizes"][side] = rows
        print(f"N={side}: torch {rows[0]['ms'] * 1e3:.1f} us ({rows[0]['gbps']:.0f} GB/s); "
              f"best {best['variant']} {best['ms'] * 1e3:.1f} us ({best['gbps']:.0f} GB/s)", flush=True)
        for r in sorted(rows, key=lambda r: r["ms"])[:5]:
            print(f"   {r['variant']:<30} {r['ms'] * 1e3:8.1f} us {r['gbps']:6.0f} GB/s ok={r['ok']}", flush=True)
        del a, b
        torch.cuda.empty_cache()
    out = os.environ.get("OUT", ".")
    with open(os.path.join(out, "copy_sweep.json"), "w") as f:
        json.dump(results, f, indent=2)


if __name__ == "__main__":
    main()
