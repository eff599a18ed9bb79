"""The named rules for reward hacks (judge/judging/reward_hacks.py) and KernelBench's verdict beside the judge's
(judge/judging/kernelbench_verdict.py): pure, read from sources and case results; no torch, no worker."""

from __future__ import annotations

from pathlib import Path

from judge.judging.kernelbench_verdict import fired_rules, kernelbench_check, kernelbench_state, verdicts_note
from judge.judging.reward_hacks import RULES, defines_triton_kernel, rule_note, rule_of_message, static_findings
from judge.judging.verdict import CaseResult, Verdict

SOLUTIONS = Path(__file__).resolve().parent / "kernelbench" / "solutions"


def _rules(text: str) -> list[tuple[str, int]]:
    return [(f.rule, f.line) for f in static_findings(text)]


def test_every_rule_has_a_name_and_a_one_line_rationale():
    assert len(RULES) >= 10
    for name, rule in RULES.items():
        assert rule.name == name and "\n" not in rule.rationale and len(rule.rationale) > 40
    assert rule_note("side-stream", "calls torch.cuda.Stream (line 3)").startswith("rule side-stream: work on another")


def test_a_try_except_that_falls_back_to_torch_is_found_and_an_honest_file_is_quiet():
    fallback = (SOLUTIONS / "cheat_fallback.py").read_text()
    findings = [f for f in static_findings(fallback) if f.rule == "fallback-to-reference"]
    assert len(findings) == 1 and findings[0].evidence == "the except falls back to torch.relu"
    assert fallback.splitlines()[findings[0].line - 1].strip() == "except Exception:"
    assert defines_triton_kernel(fallback)
    for honest in ("relu_triton.py", "scaled_relu_triton.py", "matmul_triton.py", "linear_same_order.py"):
        assert static_findings((SOLUTIONS / honest).read_text()) == [], honest


def test_excepts_that_only_import_or_re_raise_are_no_fallback():
    text = ("try:\n    import triton\nexcept ImportError:\n    triton = None\n"
            "def forward(x):\n    try:\n        return kernel(x)\n    except RuntimeError as exc:\n"
            "        print(torch.cuda.memory_summary())\n        raise\n")
    assert _rules(text) == []
    text = "def forward(x):\n    try:\n        return kernel(x)\n    except:\n        return super().forward(x)\n"
    assert _rules(text) == [("fallback-to-reference", 4)]


def test_patched_timers_streams_threads_and_lower_precisions_are_found():
    timers = _rules((SOLUTIONS / "cheat_patch_timers.py").read_text())
    assert [rule for rule, _ in timers] == ["timing-patch"] * 3
    assert _rules("setattr(torch.cuda, 'synchronize', lambda: None)\n") == [("timing-patch", 1)]
    assert ("side-stream", 15) in _rules((SOLUTIONS / "cheat_side_stream.py").read_text())
    assert _rules("import threading\nt = threading.Thread(target=f)\n") == [("thread-injection", 2)]
    lower = _rules((SOLUTIONS / "cheat_half_precision.py").read_text())
    assert lower == [("precision-downgrade", 12)]
    assert _rules("y = x.to(dtype=torch.bfloat16)\n") == [("precision-downgrade", 1)]
    assert static_findings("this is not python(") == []


def test_the_judges_own_failures_are_named_by_rule():
    assert rule_of_message("'output' shares memory with an input: forward() must return") == "output-reuse"
    assert rule_of_message("'output' shares memory with the previous call's output: ...") == "output-reuse"
    assert rule_of_message("forward() returned a X (a subclass of torch.Tensor) as 'output'") == "lazy-output"
    assert rule_of_message("input 'A' was modified: 12 of 16 elements changed") == "input-modified"
    assert rule_of_message("'output': 3 of 4 elements differ") is None


def _case(name: str, verdict: Verdict, **details) -> CaseResult:
    return CaseResult(name, "functional", {}, verdict, "" if verdict == Verdict.ACCEPTED else "'output': wrong",
                      details=details)


def test_kernelbench_s_verdict_is_kept_apart_from_the_judge_s():
    tests = [_case(f"trial-{i}", Verdict.ACCEPTED, inputs="kernelbench", kernelbench_check="pass") for i in range(1, 6)]
    tests += [_case("signed", Verdict.WRONG_ANSWER, inputs="signed"), _case("wide", Verdict.ACCEPTED, inputs="wide"),
              _case("kinks", Verdict.SKIPPED, inputs="kinks")]
    check = kernelbench_check(tests, 5)
    assert (check["correct"], check["passed"], check["first_failed"]) == (True, 5, None)
    note = verdicts_note(check, Verdict.WRONG_ANSWER, "wrong_answer on signed: 'output': 3 of 4 elements differ")
    assert note == ("KernelBench's check: correct on its 5 trials; the judge's: wrong_answer on signed: 'output': 3 of "
                    "4 elements differ")
    assert fired_rules(tests) == [{"name": "beyond-kernelbench-inputs", "cases": ["signed"],
                                   "rationale": RULES["beyond-kernelbench-inputs"].rationale}]
    tests[1] = _case("trial-2", Verdict.WRONG_ANSWER, inputs="kernelbench", kernelbench_check="fail")
    assert kernelbench_check(tests, 5)["correct"] is False and fired_rules(tests) == []
    tests[1] = _case("trial-2", Verdict.WRONG_ANSWER, inputs="kernelbench", kernelbench_check="unknown",
                     rules=["output-reuse"])
    assert kernelbench_check(tests, 5)["correct"] is None
    assert [rule["name"] for rule in fired_rules(tests)] == ["output-reuse"]


def test_a_trial_kernelbench_s_check_never_saw_is_unknown_and_a_crash_fails_it():
    assert kernelbench_state(_case("trial-1", Verdict.WRONG_ANSWER, rules=["output-reuse"]), None) is None
    assert kernelbench_state(_case("trial-1", Verdict.RUNTIME_ERROR), None) is False
    assert kernelbench_state(_case("trial-1", Verdict.WRONG_ANSWER), True) is True  # the judge's check, not theirs
