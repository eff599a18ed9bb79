"""KernelBench's own verdict beside the judge's, and the rules that fired (docs/kernelbench.md).

KernelBench calls a solution correct when its five trials (the problem's own ``get_inputs``)
pass ``torch.allclose`` with its tolerance; the judge asks more (its own trials on signed,
wide and tied inputs, degenerate and seed-independent outputs, untouched inputs, no aliasing).
A report keeps the two apart, so that a number can still be compared with papers that use
KernelBench's evaluator: ``kernelbench_check`` in the JSON, and a note ("KernelBench's check:
correct on its 5 trials; the judge's: wrong_answer on signed: ...").

Pure: case results and names in, dicts and strings out.
"""

from __future__ import annotations

from judge.judging.reward_hacks import RULES, rule_note
from judge.judging.verdict import CaseResult, Verdict

__all__ = ["is_kernelbench_trial", "kernelbench_state", "kernelbench_check", "verdicts_note", "fired_rules",
           "rules_notes", "JUDGE_ONLY_RULES"]

# Failures KernelBench's harness would not have seen as such: its check never ran on those calls' outputs.
JUDGE_ONLY_RULES = ("output-reuse", "lazy-output", "draw-patch", "fallback-to-reference")


def is_kernelbench_trial(name: str) -> bool:
    """``trial-1`` ... ``trial-5``: KernelBench's own trials (its inputs, its count)."""
    return name.startswith("trial-")


def kernelbench_state(outcome: CaseResult, checked: bool | None) -> bool | None:
    """Whether KernelBench's check passes one of its trials: ``checked`` when the judge compared the outputs with
    KernelBench's tolerance; a crash, a time-out, a wrong shape or dtype fail there too; a failure only the judge
    looks for (an alias, a subclass, a patched draw) leaves it unknown (None)."""
    if checked is not None:
        return checked
    if outcome.verdict == Verdict.ACCEPTED:
        return True
    if any(rule in JUDGE_ONLY_RULES for rule in outcome.details.get("rules", [])):
        return None
    if outcome.verdict in (Verdict.RUNTIME_ERROR, Verdict.TIME_LIMIT_EXCEEDED, Verdict.WRONG_ANSWER,
                           Verdict.COMPILE_ERROR):
        return False
    return None


def kernelbench_check(tests: list[CaseResult], trials: int) -> dict:
    """KernelBench's verdict over its trials: ``correct`` (True, False, or None where a trial's is unknown or
    not all ran), the count passed, and the first trial it fails."""
    states = [(t.name, t.details.get("kernelbench_check")) for t in tests if is_kernelbench_trial(t.name)]
    passed = sum(1 for _, state in states if state == "pass")
    failed = next((name for name, state in states if state == "fail"), None)
    if failed is not None:
        correct = False
    elif passed == trials:
        correct = True
    else:
        correct = None
    return {"correct": correct, "passed": passed, "trials": trials, "first_failed": failed,
            "check": "torch.allclose with KernelBench's tolerance on its own get_inputs(), 5 trials"}


def verdicts_note(check: dict, verdict: Verdict, message: str) -> str:
    """``KernelBench's check: correct on its 5 trials; the judge's: wrong_answer on signed (...): ...``."""
    if check["correct"] is True:
        theirs = f"correct on its {check['trials']} trials"
    elif check["correct"] is False:
        theirs = f"incorrect ({check['passed']} of {check['trials']} trials pass; {check['first_failed']} fails)"
    else:
        theirs = (f"not decided ({check['passed']} of {check['trials']} trials pass its comparison; a check of the "
                  "judge's stopped the others first)")
    first = message.splitlines()[0] if message else verdict.value
    ours = "accepted" if verdict == Verdict.ACCEPTED else (first if len(first) <= 160 else first[:157] + "...")
    return f"KernelBench's check: {theirs}; the judge's: {ours}"


def fired_rules(tests: list[CaseResult]) -> list[dict]:
    """Each rule that fired in ``tests`` (their ``details['rules']``), once, with its rationale and the cases; and
    the rule of inputs beyond KernelBench's where every KernelBench trial was accepted and a trial of the judge's
    inputs was not."""
    cases: dict[str, list[str]] = {}
    for test in tests:
        for rule in test.details.get("rules", []):
            cases.setdefault(rule, []).append(test.name)
    theirs = [t for t in tests if is_kernelbench_trial(t.name)]
    own_failed = [t.name for t in tests if t.details.get("inputs") not in (None, "kernelbench")
                  and t.verdict not in (Verdict.ACCEPTED, Verdict.SKIPPED)]
    if theirs and all(t.verdict == Verdict.ACCEPTED for t in theirs) and own_failed:
        cases.setdefault("beyond-kernelbench-inputs", own_failed)
    return [{"name": name, "rationale": RULES[name].rationale, "cases": names} for name, names in cases.items()
            if name in RULES]


def rules_notes(fired: list[dict]) -> list[str]:
    """One note per fired rule: its name, rationale and cases."""
    return [rule_note(rule["name"], ", ".join(rule["cases"])) for rule in fired]
