"""judge ui on a GPU (``pytest -m gpu``): Submit judges and times the tuned transpose through the same
judge as ``judge run`` (the benchmark table's fields: median and CI, GB/s, % of peak, the torch baseline),
with its worker forked by the judge server once one runs; Stop ends a judgement whose solve() hangs."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

from conftest import ROOT
from test_ui import BASE, _stream, guard, start_hanging, ui  # noqa: F401 - the Flask test client fixture

pytestmark = pytest.mark.gpu


def _submit(client, submit=True) -> list:
    started = client.post("/api/run", base_url=BASE, json={"ref": "transpose", "file": "solution.py", "submit": submit},
                          headers={guard.HEADER: "1"})
    assert started.status_code == 202, started.get_json()
    return _stream(client, started.get_json()["id"])


def test_submit_on_a_gpu_judges_and_times_through_the_warm_server(ui, tmp_path, monkeypatch):  # noqa: F811
    _, client, settings = ui
    settings.interpret = False
    monkeypatch.setenv("JUDGE_CACHE_DIR", str(tmp_path / "cache"))
    for name in ("JUDGE_SERVER", "CI"):
        monkeypatch.delenv(name, raising=False)
    settings.workspace.write("transpose", "solution.py", (ROOT / "solutions/transpose/tuned.py").read_text())
    try:
        first = _submit(client)
        assert first[0][1]["mode"] == "gpu" and first[0][1]["server"] is False
        result = first[-1][1]["result"]
        assert result["verdict"] == "accepted" and result["benchmarks"], first[-1]
        for bench in result["benchmarks"]:
            assert bench["median_ms"] > 0 and bench["ci_low_ms"] <= bench["median_ms"] <= bench["ci_high_ms"]
            assert bench["gbps"] > 0 and bench["pct_of_peak"] > 0 and bench["torch_median_ms"] > 0
        from judge.server import client as server_client

        deadline = time.monotonic() + 120
        while server_client.ask("status") is None and time.monotonic() < deadline:
            time.sleep(0.3)
        second = _submit(client)
        assert second[0][1]["server"] is True and second[-1][1]["result"]["verdict"] == "accepted"
        print("ui gpu phases:", first[-1][1]["result"]["phases_s"], second[-1][1]["result"]["phases_s"])
    finally:
        subprocess.run([sys.executable, "-m", "judge", "server", "stop"], cwd=ROOT, capture_output=True, timeout=60)


def test_stop_ends_a_hanging_gpu_judgement(ui):  # noqa: F811
    app, client, settings = ui
    settings.interpret = False
    number = start_hanging(app, client, settings)
    stopping = time.monotonic()
    assert client.post(f"/api/run/{number}/stop", base_url=BASE, headers={guard.HEADER: "1"}).status_code == 202
    events = _stream(client, number)
    assert events[-1][0] == "stopped" and time.monotonic() - stopping < 15


def test_submit_of_the_text_on_screen_in_cuda_and_triton(ui):  # noqa: F811
    """Issue 42: Submit sends the editor's text (saved first, judged, recorded as that text); a CUDA draft
    (solution.cu) and a Triton one are each judged and timed, and the history tells them apart as Submits."""
    _, client, settings = ui
    settings.interpret = False
    for file, source in (("solution.cu", "solutions/transpose/tiled.cu"), ("solution.py", "solutions/transpose/tuned.py")):
        text = (ROOT / source).read_text()
        started = client.post("/api/run", base_url=BASE, headers={guard.HEADER: "1"},
                              json={"ref": "transpose", "file": file, "submit": True, "text": text})
        assert started.status_code == 202, started.get_json()
        events = _stream(client, started.get_json()["id"])
        result = events[-1][1]["result"]
        assert result["verdict"] == "accepted" and result["benchmarks"], (file, events[-1])
        assert all(b["median_ms"] > 0 for b in result["benchmarks"])
        assert settings.workspace.read("transpose", file).text == text
        print(f"ui gpu submit {file}:", [(b["name"], b["median_ms"]) for b in result["benchmarks"]])
    history = client.get("/api/history?ref=transpose", base_url=BASE).get_json()
    assert [r["kind"] for r in history["runs"]] == ["submit", "submit"]
    assert all(v["has_source"] for v in history["versions"])


def test_profile_from_the_page_lists_the_tiled_kernel(ui, monkeypatch):  # noqa: F811
    """The page's Profile: judge profile's report of the text on screen (its kernel, a correct answer), no row in
    the history."""
    _, client, settings = ui
    settings.interpret = False
    monkeypatch.setenv("JUDGE_SERVER", "0")
    tiled = (ROOT / "solutions/transpose/tiled.py").read_text()
    started = client.post("/api/run", base_url=BASE, headers={guard.HEADER: "1"},
                          json={"ref": "transpose", "file": "solution.py", "text": tiled, "profile": True})
    assert started.status_code == 202, started.get_json()
    events = _stream(client, started.get_json()["id"])
    assert events[-1][0] == "profile", events[-3:]
    report = events[-1][1]["report"]
    (kernel,) = report["cupti"]["kernels"]
    assert report["check"] == "correct" and "transpose" in kernel["short_name"] and kernel["gbps"] > 0
    assert client.get("/api/history?ref=transpose", base_url=BASE).get_json()["runs"] == []
