"""judge doctor: the findings from faked facts, one missing piece at a time (judge/doctor/diagnosis.py),
the facts gathered here with pieces hidden (judge/doctor/facts.py), and the command."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import replace

import pytest
from click.testing import CliRunner

from judge.cli import main
from judge.doctor import diagnosis, facts as facts_module
from judge.doctor.diagnosis import Facts, diagnose, exit_status, text_lines

from conftest import ROOT

ACCEPTED = {"verdict": "accepted", "message": "", "mode": "interpret", "seconds": 1.0}


def healthy() -> Facts:
    return Facts(python="3.11.7", judge_root="/j", packages={m: "1.0" for m in facts_module.PACKAGES},
                 sandbox={"landlock": "on (ABI 7)", "seccomp": "on"}, probe_alone=dict(ACCEPTED),
                 probe_served=dict(ACCEPTED), servers=[{"pid": 1, "socket": "/s", "here": True, "answering": True,
                                                        "current": True, "triton_mode": "interpreter"}],
                 chromium="/usr/bin/chromium", chromedriver="/usr/bin/chromedriver",
                 folders={"cache": {"path": "/c", "writable": True}, "history": {"path": "/h", "writable": True}})


def by_check(facts: Facts) -> dict:
    return {f.check: f for f in diagnose(facts)}


def test_a_healthy_cpu_machine_has_no_problem():
    findings = diagnose(healthy())
    assert exit_status(findings) == 0 and text_lines(findings)[-1] == "no problems found"
    assert by_check(healthy())["gpu"].state == "info"  # CPU mode: worth knowing, nothing to fix


@pytest.mark.parametrize("module, fix", [("torch", "torch==2.13.0"), ("triton", "pip install triton"),
                                         ("numpy", "pip install numpy"), ("yaml", "pip install pyyaml")])
def test_each_missing_dependency_fails_with_its_install_line(module, fix):
    facts = healthy()
    facts.packages[module] = None
    found = by_check(facts)[module]
    assert found.state == "fail" and fix in found.fix and exit_status(diagnose(facts)) == 1


def test_a_served_verdict_that_differs_fails_and_says_how_to_get_round_it():
    facts = replace(healthy(), probe_served={"verdict": "compile_error", "message": "Cannot call @triton.jit'd"})
    found = by_check(facts)["kernel, through the judge server"]
    assert found.state == "fail" and "compile_error" in found.detail and "judge server stop" in found.fix


def test_the_sandbox_off_or_incomplete_is_a_warning_with_its_cause():
    off = replace(healthy(), sandbox={"landlock": "off: the landlockpy package is not installed", "seccomp": "on"})
    assert by_check(off)["sandbox"].state == "warn" and "landlockpy" in by_check(off)["sandbox"].fix
    opted = replace(healthy(), sandbox_opt_out=True)
    assert "JUDGE_SANDBOX=0" in by_check(opted)["sandbox"].detail and "UNSEALED" in by_check(opted)["sandbox"].detail


def test_gpu_nvcc_servers_browser_and_folders():
    no_device = replace(healthy(), torch_cuda="13.0")
    assert by_check(no_device)["gpu"].state == "warn"
    gpu_without_nvcc = replace(healthy(), gpus=["NVIDIA H200"], torch_cuda="13.0")
    assert by_check(gpu_without_nvcc)["nvcc"].state == "warn"
    stale = replace(healthy(), servers=[{"pid": 9, "socket": "/x", "here": True, "answering": False}])
    assert by_check(stale)["judge server"].state == "warn" and "stop --all" in by_check(stale)["judge server"].fix
    assert by_check(replace(healthy(), chromium=None))["chromium"].state == "info"
    unwritable = replace(healthy(), folders={"cache": {"path": "/ro", "writable": False}})
    assert by_check(unwritable)["cache"].state == "fail"


def test_facts_gathered_with_numpy_hidden_say_so(monkeypatch):
    real = facts_module._version
    monkeypatch.setattr(facts_module, "_version", lambda m: None if m == "numpy" else real(m))
    gathered = facts_module.gather(probe=False)
    assert gathered.packages["numpy"] is None and gathered.packages["torch"]
    assert by_check(gathered)["numpy"].state == "fail"


def test_the_command_without_probe_prints_every_check_and_json():
    result = CliRunner().invoke(main, ["doctor", "--no-probe", "--json"])
    doc = json.loads(result.output)
    assert {f["check"] for f in doc["findings"]} >= {"python", "torch", "triton", "numpy", "sandbox", "gpu"}
    assert result.exit_code == (0 if doc["ok"] else 1)


@pytest.mark.slow
def test_the_probe_is_accepted_alone_and_through_a_server(tmp_path):
    """As a user runs it: `judge doctor` starts a server where none runs, and judges the tl.dot/tl.sum
    probe both ways (the served one was COMPILE_ERROR before the server imported Triton for its mode)."""
    env = dict(os.environ, JUDGE_CACHE_DIR=str(tmp_path / "cache"), JUDGE_DATA_DIR=str(tmp_path / "data"))
    env.pop("JUDGE_SERVER", None)
    env.pop("CI", None)
    try:
        done = subprocess.run([sys.executable, "-m", "judge", "doctor", "--json"], capture_output=True, text=True,
                              env=env, cwd=ROOT, timeout=600)
        doc = json.loads(done.stdout)
        states = {f["check"]: f for f in doc["findings"]}
        assert states["kernel, alone"]["state"] == "ok", states["kernel, alone"]
        assert states["kernel, through the judge server"]["state"] == "ok", states["kernel, through the judge server"]
    finally:
        subprocess.run([sys.executable, "-m", "judge", "server", "stop"], env=env, cwd=ROOT, capture_output=True,
                       timeout=120)
