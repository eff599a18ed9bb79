"""Charts from fake rank and sweep documents (Agg backend, no GPU)."""

from __future__ import annotations

import sys

import pytest

from judge.report import plots


def _case(name: str, ms: float, nbytes: float, copy_gbps: float = 4000.0) -> dict:
    gbps = nbytes / (ms * 1e-3) / 1e9
    return {"name": name, "verdict": "accepted", "median_ms": ms, "ci_low_ms": ms * 0.99, "ci_high_ms": ms * 1.02,
            "gbps": gbps, "tflops": None, "pct_of_peak": 100 * gbps / copy_gbps}


def fake_rank_doc(metric_bytes: bool = True) -> dict:
    cases = [("square-1024", 8 * 2**20), ("square-8192", 512 * 2**20)]
    times = {"tuned.py": 1.0, "tiled.py": 1.1, "naive.py": 300.0}
    ranking = []
    for rank, (name, factor) in enumerate(times.items(), start=1):
        rows = [_case(c, factor * b / 4e12 * 1e3, b if metric_bytes else 0) for c, b in cases]
        if not metric_bytes:
            for r in rows:
                r["gbps"] = r["pct_of_peak"] = None
        ranking.append({"solution": f"solutions/{name}", "rank": rank, "verdict": "accepted", "cases": rows})
    ranking.append({"solution": "wrong.py", "rank": None, "verdict": "wrong_answer", "cases": []})
    refs = [{"name": "torch", "cases": [{"name": c, "median_ms": 3 * b / 4e12 * 1e3} for c, b in cases]},
            {"name": "copy bound", "cases": [{"name": c, "median_ms": b / 4.2e12 * 1e3} for c, b in cases]}]
    return {"challenge": "transpose", "device": "FAKE GPU", "seed": 1, "bound": "memory",
            "cases": [{"name": c, "params": {}} for c, _ in cases], "ranking": ranking, "references": refs,
            "method": {"rounds": 5, "stop_reason": "converged"}}


def fake_sweep_doc(square: bool = True, failed: bool = False) -> dict:
    sizes = [256, 1024, 4096]
    series = []
    for name, bw, kind in [("tiled.py", 3000.0, "solution"), ("torch", 1100.0, "torch")]:
        points = [{"rate": bw * n / 4096, "rate_low": bw * n / 4096 * 0.98, "rate_high": bw * n / 4096 * 1.01,
                   "median_ms": 1.0, "ci_low_ms": 0.99, "ci_high_ms": 1.02} for n in sizes]
        series.append({"name": name, "kind": kind, "verdict": "accepted", "points": points})
    if failed:
        series.append({"name": "bad.py", "kind": "solution", "verdict": "wrong_answer", "points": []})
    return {"challenge": "transpose", "device": "FAKE GPU", "metric": "gbps",
            "peak": {"name": "copy bandwidth", "value": 4270.0},
            "x_label": "N (rows = cols = N)" if square else "size",
            "sizes": [{"label": f"rows={n}, cols={n}", "x": n if square else i} for i, n in enumerate(sizes)],
            "series": series}


def _is_png(path) -> bool:
    return path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and path.stat().st_size > 10_000


def test_rank_chart_is_written(tmp_path):
    pytest.importorskip("matplotlib")
    out = tmp_path / "rank.png"
    plots.rank_chart(fake_rank_doc(), str(out))
    assert _is_png(out)
    assert plots.rank_metric(fake_rank_doc()) == "gbps"


def test_rank_chart_falls_back_to_time_and_other_formats(tmp_path):
    pytest.importorskip("matplotlib")
    doc = fake_rank_doc(metric_bytes=False)
    assert plots.rank_metric(doc) == "ms"
    plots.rank_chart(doc, str(tmp_path / "sub" / "rank.svg"))
    assert (tmp_path / "sub" / "rank.svg").read_text().lstrip().startswith("<?xml")


def test_sweep_chart_is_written(tmp_path):
    pytest.importorskip("matplotlib")
    for square in (True, False):
        out = tmp_path / f"sweep-{square}.png"
        plots.sweep_chart(fake_sweep_doc(square, failed=True), str(out))
        assert _is_png(out)


def test_nothing_to_plot_is_said_plainly(tmp_path):
    pytest.importorskip("matplotlib")
    doc = fake_rank_doc()
    doc["ranking"] = [r for r in doc["ranking"] if r["rank"] is None]
    with pytest.raises(plots.PlotUnavailable, match="nothing to plot"):
        plots.rank_chart(doc, str(tmp_path / "x.png"))


def test_unwritable_plot_file_is_a_plot_error(tmp_path):
    pytest.importorskip("matplotlib")
    (tmp_path / "file").write_text("")
    with pytest.raises(plots.PlotUnavailable, match="cannot write the plot"):
        plots.rank_chart(fake_rank_doc(), str(tmp_path / "file" / "x.png"))


def test_missing_matplotlib_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib now raises ImportError
    with pytest.raises(plots.PlotUnavailable, match=r"pip install 'judge\[plot\]'"):
        plots.require_matplotlib()
