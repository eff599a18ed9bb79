"""The records of a grade: seeds, settings, resume keys, one public record per
entry, the grade document (the ``--json`` file, from which the JUnit and
Markdown exporters of judge/report/ render their views) and the pass rule.

Pure but for hashing the solution and spec files' bytes (resume keys).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import math
import re
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from judge import __version__
from judge.grading.submissions import Entry, split_variant
from judge.judging.verdict import Verdict

__all__ = ["SECRET_SEED_ENV", "GRADE_SCHEMA", "GradeSettings", "PassRule", "combine_seed", "resume_key",
           "redact", "problem_record", "public_record", "load_previous", "carried_over", "grade_document",
           "parse_min_pass"]

SECRET_SEED_ENV = "JUDGE_SECRET_SEED"
GRADE_SCHEMA = 1


# -- settings, seeds and resume keys ---------------------------------------------

def combine_seed(public: int, secret: str) -> int:
    """The seed runs use: the public seed alone, or mixed with the secret.

    A keyed hash, so neither the public seed nor the results reveal the secret;
    31 bits, like the runner's own random seeds.
    """
    if not secret:
        return public
    key = hashlib.sha256(secret.encode()).digest()
    digest = hashlib.blake2b(str(public).encode(), key=key, digest_size=8).digest()
    return int.from_bytes(digest, "little") % 2**31


@dataclass(frozen=True)
class GradeSettings:
    """Everything that decides a verdict, shared by all entries of one grade."""

    public_seed: int
    secret: str = field(default="", repr=False)  # never printed, not even by --debug
    interpret: bool = False  # the resolved mode: True is the CPU interpreter
    timeout: float | None = None  # per call; None: the runner's default
    compile_timeout: float = 180.0
    benchmark: bool = True
    bench_budget_s: float = 2.0
    cpu_elements: int | None = None  # CPU mode's largest test (--cpu-elements); None: the specs' own caps
    require_kernel: bool = False  # --require-kernel or the manifest's require_kernel: true

    @property
    def seed_label(self) -> str:
        """What outputs show instead of the seed the runs used: ``5`` or ``5 + secret``."""
        return f"{self.public_seed} + secret" if self.secret else str(self.public_seed)

    def options(self, device: str | None):
        from judge.judging.runner import Options

        return Options(seed=combine_seed(self.public_seed, self.secret), interpret=self.interpret,
                       device=device, timeout=self.timeout, compile_timeout=self.compile_timeout,
                       benchmark=self.benchmark, bench_budget_s=self.bench_budget_s, untrusted=True,
                       cpu_elements=self.cpu_elements, require_kernel=self.require_kernel)

    def key_fields(self) -> dict:
        """The settings a resume key depends on, fit to print (the secret only as used or not)."""
        fields = {"public_seed": self.public_seed, "secret_seed": bool(self.secret),
                  "mode": "interpret" if self.interpret else "gpu", "timeout": self.timeout,
                  "compile_timeout": self.compile_timeout, "benchmark": self.benchmark and not self.interpret,
                  "bench_budget_s": self.bench_budget_s, "judge": __version__}
        if self.interpret and self.cpu_elements is not None:  # only when set: earlier grades' keys stay valid
            fields["cpu_elements"] = self.cpu_elements
        if self.require_kernel:
            fields["require_kernel"] = True
        return fields

    def public_dict(self) -> dict:
        return {**self.key_fields(), "seed_label": self.seed_label}


def _file_digest(path: str) -> str:
    """sha256 of a file; of a LeetGPU challenge folder, its challenge.py's (the definition)."""
    file = Path(path) / "challenge.py" if Path(path).is_dir() else Path(path)
    return hashlib.sha256(file.read_bytes()).hexdigest()


def _secret_fingerprint(secret: str) -> str | None:
    """Tells secrets apart inside a resume key.  The key is public, but so are the
    case sizes and input values a secret seed produces, so with a strong secret
    (docs/grading.md) neither lets anyone recover it; with a weak one both do."""
    if not secret:
        return None
    return hmac.new(secret.encode(), b"judge grade resume key", hashlib.sha256).hexdigest()


def resume_key(entry: Entry, settings: GradeSettings) -> str | None:
    """sha256 of the solution's bytes, the spec file's bytes (and variant), the
    settings and the secret; None when the entry cannot be judged (re-checking
    it costs nothing)."""
    if entry.problem or entry.spec_path is None:
        return None
    spec_file, variant = split_variant(entry.spec_path)
    solution = entry.snapshot.sha256 if entry.snapshot is not None else _file_digest(entry.path)
    material = {"solution": solution, "spec": _file_digest(spec_file), "variant": variant,
                "settings": settings.key_fields(), "secret": _secret_fingerprint(settings.secret)}
    return hashlib.sha256(json.dumps(material, sort_keys=True).encode()).hexdigest()


def redact(value, secrets: list[str]):
    """``value`` with every secret string replaced by ``<secret>``, recursively.

    Seeds are only redacted as whole numbers, so ``rows=123`` stays readable."""
    def hide(text: str) -> str:
        for secret in secrets:
            if secret.isdigit():
                text = re.sub(rf"(?<!\d){secret}(?!\d)", "<secret>", text)
            else:
                text = text.replace(secret, "<secret>")
        return text

    return map_strings(value, hide)


def relocate(value, old: str, new: str):
    """``value`` with the folder ``old`` written as ``new`` in every string: the private copy a
    submission was judged from (grading/snapshot.py), shown in tracebacks as where it came from."""
    return map_strings(value, lambda text: text.replace(old, new))


def map_strings(value, change):
    """``value`` (JSON-like) with ``change`` applied to every string in it, recursively."""
    if isinstance(value, str):
        return change(value)
    if isinstance(value, dict):
        return {k: map_strings(v, change) for k, v in value.items()}
    if isinstance(value, list):
        return [map_strings(v, change) for v in value]
    return value


# -- records -------------------------------------------------------------

def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def _base_record(entry: Entry, key: str | None) -> dict:
    return {"submission": entry.submission, "challenge": entry.challenge, "file": entry.path, "key": key}


def problem_record(entry: Entry, key: str | None, settings: GradeSettings) -> dict:
    """The record of an entry that could not be judged: nothing handed in (``no_submission``), an unknown
    challenge or an unusable file (``invalid_submission``)."""
    verdict = Verdict.NO_SUBMISSION if entry.missing else Verdict.INVALID_SUBMISSION
    return {**_base_record(entry, key), "verdict": verdict.value, "message": entry.problem,
            "seed": settings.public_seed, "secret_seed": bool(settings.secret), "tests": [], "benchmarks": [],
            "notes": [], "wall_s": 0.0, "graded_at": _now(), "gpu": None}


def public_record(entry: Entry, key: str | None, run: dict, settings: GradeSettings,
                  wall_s: float, device: str | None) -> dict:
    """A run's ``as_dict`` made fit for public output: the public seed in place
    of the one the run used, and the secret and that seed redacted everywhere."""
    record = {**_base_record(entry, key), **run, "challenge": entry.challenge,
              "spec": run.get("challenge"), "file": entry.path, "solution": entry.path}
    if entry.snapshot is not None:  # what was judged: the bytes read before the grade began
        record["sha256"] = entry.snapshot.sha256
    record.update(seed=settings.public_seed, secret_seed=bool(settings.secret), wall_s=round(wall_s, 3),
                  graded_at=_now(), gpu=_gpu_index(device))
    if not settings.secret:
        return record
    hidden = [settings.secret, str(combine_seed(settings.public_seed, settings.secret))]
    return redact(record, hidden)


def _gpu_index(device: str | None) -> int | None:
    if device and device.startswith("cuda:"):
        return int(device.split(":", 1)[1])
    return None


# -- resume ------------------------------------------------------------------------

def load_previous(text: str, source: str) -> dict:
    """A grade document read back for ``--resume``; ``ValueError`` if it is not one."""
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise ValueError(f"{source} is not JSON ({exc})") from None
    if not isinstance(data, dict) or data.get("kind") != "grade" or not isinstance(data.get("results"), list):
        raise ValueError(f"{source} is not a 'judge grade' JSON document")
    return data


def carried_over(previous: dict, entries: list[Entry], keys: list[str | None]) -> dict[int, dict]:
    """Plan index -> the previous record of the same submission, challenge and key."""
    stored = {(r.get("submission"), r.get("challenge"), r.get("key")): r
              for r in previous.get("results", []) if isinstance(r, dict) and r.get("key")}
    found = {}
    for index, (entry, key) in enumerate(zip(entries, keys)):
        record = stored.get((entry.submission, entry.challenge, key)) if key else None
        if record is not None:
            found[index] = {**record, "file": entry.path, "carried_over": True}
    return found


# -- the grade document ----------------------------------------------------------------

def _summary(entries: list[Entry], records: dict[int, dict]) -> dict:
    verdicts = [records[i]["verdict"] for i in sorted(records)]
    by_verdict = {v: verdicts.count(v) for v in sorted(set(verdicts))}
    accepted = by_verdict.get(Verdict.ACCEPTED.value, 0)
    return {"total": len(entries), "graded": len(records), "accepted": accepted,
            "rejected": len(records) - accepted, "pending": len(entries) - len(records),
            "carried_over": sum(1 for r in records.values() if r.get("carried_over")), "by_verdict": by_verdict}


def _pending_record(entry: Entry) -> dict:
    return {**_base_record(entry, None), "verdict": "pending", "message": "not graded yet"}


def grade_document(entries: list[Entry], records: dict[int, dict], settings: GradeSettings,
                   meta: dict) -> dict:
    """The ``--json`` document: settings, a summary and one result per entry, in plan order
    (entries not graded yet have verdict ``pending``)."""
    results = [records.get(i) or _pending_record(e) for i, e in enumerate(entries)]
    doc = {"kind": "grade", "grade_schema": GRADE_SCHEMA, "judge": __version__,
           "mode": "interpret" if settings.interpret else "gpu",
           "seed": {"public": settings.public_seed, "secret": bool(settings.secret), "label": settings.seed_label},
           "settings": settings.public_dict(), **meta, "updated_at": _now(),
           "complete": len(records) == len(entries), "sealed": _sealed(records), "summary": _summary(entries, records),
           "results": results}
    kernelbench = [r for r, e in zip(results, entries) if _is_kernelbench(e)]
    if kernelbench:  # KernelBench's fast_p over its problems (grading/fast_p.py)
        from judge.grading.fast_p import kernelbench_scores

        doc["kernelbench"] = kernelbench_scores(kernelbench)
    return doc


def _sealed(records: dict[int, dict]) -> bool | None:
    """Whether every graded submission's worker ran sealed (each record's ``sealed``; None before any ran)."""
    seen = [r.get("sealed") for r in records.values() if r.get("sealed") is not None]
    return all(seen) if seen else None


def _is_kernelbench(entry: Entry) -> bool:
    """An entry of a KernelBench problem (its spec is a problem's .py file, not a YAML spec or a folder)."""
    return bool(entry.spec_path) and str(entry.spec_path).endswith(".py") and \
        not str(entry.spec_path).endswith("challenge.py")


# -- pass threshold, GPUs -----------------------------------------------------------------

@dataclass(frozen=True)
class PassRule:
    """How many results must be accepted: all (default), a count, or a fraction."""

    count: int | None = None
    fraction: float | None = None

    def needed(self, total: int) -> int:
        if self.count is not None:
            return min(self.count, total)
        if self.fraction is not None:
            return math.ceil(self.fraction * total - 1e-9)
        return total

    def passes(self, accepted: int, total: int) -> bool:
        return total > 0 and accepted >= self.needed(total)

    def describe(self) -> str:
        if self.count is not None:
            return f"at least {self.count}"
        if self.fraction is not None:
            return f"at least {self.fraction:.0%}"
        return "all"


def parse_min_pass(text: str) -> PassRule:
    """``8`` is a count; ``0.8``, ``80%`` and ``1.0`` are fractions of all results."""
    text = text.strip()
    try:
        if text.endswith("%"):
            fraction = float(text[:-1]) / 100
        elif re.fullmatch(r"\d+", text):
            return PassRule(count=int(text))
        else:
            fraction = float(text)
    except ValueError:
        raise ValueError(f"{text!r} is neither a count (8) nor a fraction (0.8 or 80%)") from None
    if not 0 <= fraction <= 1:
        raise ValueError(f"{text!r}: a fraction must lie between 0 and 1 (0% and 100%)")
    return PassRule(fraction=fraction)


