"""The local leaderboard: pure logic over rows read from the history.

Best accepted GPU result per solution (by content hash) per device, ranked
with the same rules as ``judge rank`` (ranking_math.py), plus warnings where the
rows being compared differ in what makes times comparable.
"""

from __future__ import annotations

from collections import Counter

from judge.ranking.ranking_math import Entry, Estimate, rank_entries

__all__ = ["build_leaderboard", "VERSION_FIELDS"]

VERSION_FIELDS = ("driver", "torch", "triton", "judge_version")


def build_leaderboard(runs: list[dict], benchmarks: dict, device: str | None = None) -> dict:
    """``{"boards": [{"device", "rows": [...]}, ...], "warnings": [...]}``.

    ``runs`` are accepted runs with a score (history.accepted_runs),
    ``benchmarks`` their benchmark rows by run id; ``device`` keeps the runs
    whose device name contains it (case-insensitive).
    """
    if device:
        runs = [r for r in runs if device.lower() in (r.get("device") or "").lower()]
    by_device: dict[str, list[dict]] = {}
    for run in runs:
        by_device.setdefault(run.get("device") or "unknown", []).append(run)
    boards, warnings = [], []
    if len(by_device) > 1:
        warnings.append(f"results from {len(by_device)} devices ({', '.join(sorted(by_device))}): each is ranked "
                        "on its own, since times from different GPUs are not comparable (--device NAME picks one)")
    for name in sorted(by_device):
        rows = _board_rows(by_device[name])
        boards.append({"device": name, "rows": rows})
        warnings += _version_warnings(name, rows) + _case_warnings(name, rows, benchmarks)
    return {"boards": boards, "warnings": warnings}


def _best_per_hash(runs: list[dict]) -> tuple[list[dict], Counter]:
    best: dict[str, dict] = {}
    counts: Counter = Counter()
    for run in runs:
        counts[run["solution_hash"]] += 1
        current = best.get(run["solution_hash"])
        if current is None or run["score_ms"] < current["score_ms"]:
            best[run["solution_hash"]] = run
    return list(best.values()), counts


def _board_rows(runs: list[dict]) -> list[dict]:
    best, counts = _best_per_hash(runs)
    by_hash = {r["solution_hash"]: r for r in best}
    entries = [Entry(r["solution_hash"], "accepted", cases={"score": _estimate(r)}) for r in best]
    rows = []
    for standing in rank_entries(entries):
        run = by_hash[standing.name]
        rows.append({
            "rank": standing.rank, "solution": run["solution_path"], "solution_hash": run["solution_hash"],
            "score_ms": run["score_ms"], "score_ci_ms": [run["score_ci_low_ms"], run["score_ci_high_ms"]],
            "ratio_to_best": standing.ratio.value, "ratio_ci": [standing.ratio.low, standing.ratio.high],
            "vs_best": standing.as_dict()["vs_best"],
            "tied_with": [by_hash[h]["solution_path"] for h in standing.tied_with],
            "run_id": run["id"], "created_at": run["created_at"], "command": run["command"],
            "runs": counts[run["solution_hash"]], "seed": run["seed"],
            **{f: run.get(f) for f in VERSION_FIELDS},
        })
    return rows


def _estimate(run: dict) -> Estimate:
    low = run.get("score_ci_low_ms") or run["score_ms"]
    high = run.get("score_ci_high_ms") or run["score_ms"]
    return Estimate(run["score_ms"], low, high)


def _version_warnings(device: str, rows: list[dict]) -> list[str]:
    out = []
    for f in VERSION_FIELDS:
        seen = Counter(str(r.get(f)) for r in rows)
        if len(seen) > 1:
            listed = ", ".join(f"{v} ({n})" for v, n in sorted(seen.items()))
            out.append(f"{device}: the ranked results were measured with different {f.split('_')[0]} versions: "
                       f"{listed}; rank them again together with 'judge rank' to compare like with like")
    return out


def _case_warnings(device: str, rows: list[dict], benchmarks: dict) -> list[str]:
    """The score is a geometric mean over benchmark cases: different cases, different scales."""
    keys = Counter()
    for row in rows:
        cases = benchmarks.get(row["run_id"], [])
        keys[tuple(sorted((b["name"], str(b["params"])) for b in cases))] += 1
    if len(keys) > 1:
        return [f"{device}: the ranked results were scored on different benchmark cases (the challenge "
                "changed between runs); their scores are not comparable"]
    return []
