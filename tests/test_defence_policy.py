"""judge/defence/policy.py: the one interface the judge asks its defences through, and the switches behind it."""

from judge.defence import policy
from judge.defence.switches import Switches, switches


def test_the_switches_are_on_unless_set_to_zero():
    assert switches({}) == Switches(sandbox=True, namespaces=True) and not switches({}).opted_out
    assert switches({"JUDGE_SANDBOX": "0"}) == Switches(sandbox=False, namespaces=True)
    assert switches({"JUDGE_NAMESPACES": "0", "JUDGE_SANDBOX": "1"}).opted_out
    assert Switches.off("JUDGE_SANDBOX") == "off: JUDGE_SANDBOX=0"


def test_the_switches_are_read_when_asked(monkeypatch):
    monkeypatch.setenv("JUDGE_SANDBOX", "0")
    assert not switches().sandbox
    monkeypatch.delenv("JUDGE_SANDBOX")
    assert switches().sandbox


def test_a_worker_policy_is_none_with_the_sandbox_switched_off(monkeypatch, tmp_path):
    monkeypatch.delenv("JUDGE_SANDBOX", raising=False)
    message = policy.worker_policy(str(tmp_path), str(tmp_path / "scratch"), (), (), strict=True)
    assert str(tmp_path / "scratch") in message["write"] and message["network"] is False
    monkeypatch.setenv("JUDGE_SANDBOX", "0")
    assert policy.worker_policy(str(tmp_path), str(tmp_path / "scratch"), (), (), strict=True) is None


def test_the_report_line_names_each_mechanism_that_is_off(monkeypatch):
    monkeypatch.setenv("JUDGE_SANDBOX", "0")
    judged = policy.protections({"landlock": "on", "seccomp": "on"}, kernel={})
    assert judged.layers["landlock"] == judged.layers["seccomp"] == "off: JUDGE_SANDBOX=0"  # the claim is not believed
    assert judged.note.startswith("the worker's sandbox is incomplete (") and "landlock JUDGE_SANDBOX=0; seccomp JUDGE_SANDBOX=0" in judged.note
    assert "docs/security.md" in judged.note and not policy.sealed(judged.layers)


def test_a_run_whose_mechanisms_all_held_is_sealed_and_has_no_note(monkeypatch):
    monkeypatch.delenv("JUDGE_SANDBOX", raising=False)
    monkeypatch.setattr(policy.sandbox, "_AVAILABLE", {"landlock": "on (ABI 4)", "seccomp": "on"})
    kernel = {"namespaces": "on (user, pid)", "capabilities": "dropped", "no_new_privs": "on", "seccomp_mode": "filter",
              "read_only": "on"}
    judged = policy.protections({"landlock": "on (ABI 4)", "seccomp": "on (filter)", "read_only": "on"}, kernel)
    assert judged.note is None and policy.sealed(judged.layers)


def test_grade_is_told_no_layer_is_missing_when_the_sandbox_is_switched_off(monkeypatch):
    monkeypatch.setenv("JUDGE_SANDBOX", "0")
    assert policy.missing_layers() == []
