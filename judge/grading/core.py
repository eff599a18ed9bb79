"""``judge grade``: many submissions, one report.

What to grade comes from one of three places, each turned into a list of
``Entry`` (one submission of one challenge):

- ``judge grade CHALLENGE FILE...``: each file is a submission;
- a manifest (``grading.yaml``, docs/grading.md) mapping submissions to files;
- a folder laid out as ``<root>/<who>/<challenge>.py``.

Then each entry is judged by ``runner.judge_solution`` (its own worker process,
so one crash or hang never stops the others), and the results are gathered in
one *grade document* (the ``--json`` file), from which the JUnit and Markdown
exporters (judge/report/) render their views.

Everything here is pure except ``judge_entry`` (runs a worker), ``grade_entries``
(threads) and the small readers of files (manifest, solution bytes for hashing).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import math
import queue
import re
import threading
import time
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable, Iterable

import yaml

from . import __version__
from .verdict import Verdict

__all__ = [
    "Entry", "ManifestError", "ChallengeResolver", "GradeSettings", "PassRule",
    "discover", "parse_manifest", "entries_for", "combine_seed", "resume_key",
    "judge_entry", "problem_record", "carried_over", "load_previous", "grade_document",
    "parse_min_pass", "parse_gpus", "grade_entries", "redact", "Cancelled", "SECRET_SEED_ENV",
]

SECRET_SEED_ENV = "JUDGE_SECRET_SEED"
GRADE_SCHEMA = 1
MANIFEST_VERSION = 1
MANIFEST_KEYS = ("version", "challenges", "submissions")


# -- what to grade -------------------------------------------------------------

@dataclass(frozen=True)
class Entry:
    """One submission of one challenge, before it is judged."""

    submission: str  # who: a folder name, a manifest key, or the file as given
    challenge: str  # as the user wrote it: a name, an alias, or a .yaml path
    path: str  # the solution file
    spec_path: str | None = None  # the resolved spec; None when the challenge is unknown
    problem: str = ""  # why it cannot be judged; graded as invalid_submission


class ManifestError(ValueError):
    """A manifest that cannot be used; ``problems`` lists every mistake found."""

    def __init__(self, source: str, problems: list[str]):
        self.source, self.problems = source, problems
        listed = problems[0] if len(problems) == 1 else "".join(f"\n  {p}" for p in problems)
        super().__init__(f"{source}:{'' if len(problems) > 1 else ' '}{listed}")


@dataclass
class ChallengeResolver:
    """Challenge names to spec files: a manifest's aliases first, then the
    catalog's search path (--challenges-dir, $JUDGE_CHALLENGES_PATH, built-ins);
    a name ending in .yaml (``file.yaml#variant`` too) is a path from ``base_dir``."""

    aliases: dict = field(default_factory=dict)  # name -> spec path (str or Path)
    search: object = None  # a catalog.SearchPath; None: the environment's

    def resolve(self, name: str, base_dir: Path | None = None) -> str:
        """The spec (a path, or ``<file>#<variant>``) for ``name``; ``LookupError`` if none."""
        from .catalog import find_spec_path

        if name in self.aliases:
            return str(self.aliases[name])
        if _is_spec_path(name) and base_dir is not None and not Path(name).is_absolute():
            name = str(base_dir / name)
        return str(find_spec_path(name, self.search))  # UnknownChallenge, ChallengeConflict: LookupErrors


def _is_spec_path(name: str) -> bool:
    return _split_variant(name)[0].endswith((".yaml", ".yml"))


def _split_variant(spec_path: str) -> tuple[str, str]:
    """``("file.yaml", "variant")`` for ``file.yaml#variant``; ``(spec_path, "")`` otherwise."""
    file, hash_sign, variant = spec_path.rpartition("#")
    if hash_sign and file.endswith((".yaml", ".yml")):
        return file, variant
    return spec_path, ""


def discover(root: Path) -> tuple[list[tuple[str, str, str]], list[str]]:
    """``(who, challenge, path)`` for each ``root/<who>/<challenge>.py``, sorted, and warnings.

    Names starting with ``.`` or ``_`` (``.git``, ``__pycache__``, ``_helpers.py``)
    are skipped: a submission may carry helper modules beside its solutions.
    """
    found, warnings = [], []
    for who_dir in sorted(root.iterdir()):
        if who_dir.name.startswith((".", "_")):
            continue
        if not who_dir.is_dir():
            warnings.append(f"ignored {who_dir}: expected folders {root}/<who>/<challenge>.py")
            continue
        for solution in sorted(who_dir.glob("*.py")):
            if not solution.name.startswith((".", "_")):
                found.append((who_dir.name, solution.stem, str(solution)))
    return found, warnings


class _UniqueKeyLoader(yaml.SafeLoader):
    """A YAML loader that rejects a key given twice (PyYAML keeps the last silently)."""


def _mapping_without_duplicates(loader, node, deep=False):
    seen = set()
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=deep)
        if key in seen:
            raise yaml.constructor.ConstructorError(
                None, None, f"key {key!r} is given twice", key_node.start_mark)
        seen.add(key)
    return loader.construct_mapping(node, deep)


_UniqueKeyLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _mapping_without_duplicates)


def parse_manifest(text: str, source: str, base_dir: Path,
                   search=None) -> tuple[ChallengeResolver, list[tuple[str, str, str]]]:
    """Validate a manifest; return its resolver and ``(who, challenge, path)`` items.

    Paths are relative to ``base_dir`` (the manifest's folder); ``search`` is the
    catalog's search path for challenge names (None: the environment's).  Every
    problem found is collected into one ``ManifestError``.  A listed file that
    does not exist is *not* an error here: it is graded as a missing submission.
    """
    try:
        data = yaml.load(text, Loader=_UniqueKeyLoader)  # noqa: S506 - a SafeLoader subclass
    except yaml.YAMLError as exc:
        raise ManifestError(source, [f"not valid YAML: {' '.join(str(exc).split())}"]) from None
    if not isinstance(data, dict) or "submissions" not in data:
        raise ManifestError(source, ["expected a mapping with a 'submissions' key (see docs/grading.md)"])
    problems = [f"unknown key {k!r}; allowed: {', '.join(MANIFEST_KEYS)}" for k in data if k not in MANIFEST_KEYS]
    if data.get("version", MANIFEST_VERSION) != MANIFEST_VERSION:
        problems.append(f"version: {data['version']!r} is not supported (only {MANIFEST_VERSION})")
    aliases = _manifest_aliases(data.get("challenges"), base_dir, problems)
    resolver = ChallengeResolver({k: v for k, v in aliases.items() if v is not None}, search)
    broken = {k for k, v in aliases.items() if v is None}
    items = _manifest_items(data["submissions"], base_dir, resolver, problems, broken)
    if problems:
        raise ManifestError(source, problems)
    return resolver, items


def _manifest_aliases(section, base_dir: Path, problems: list[str]) -> dict:
    """name -> spec path, or None for a broken one (already reported)."""
    if section is None:
        return {}
    if not isinstance(section, dict):
        problems.append("challenges: expected a mapping of name: spec file (.yaml)")
        return {}
    aliases = {}
    for name, spec in section.items():
        aliases[str(name)] = None
        if not isinstance(spec, str) or not _is_spec_path(spec):
            problems.append(f"challenges.{name}: expected the path of a .yaml spec, got {spec!r}")
        elif not (base_dir / _split_variant(spec)[0]).is_file():
            problems.append(f"challenges.{name}: no such spec file: {base_dir / spec}")
        else:
            aliases[str(name)] = str(base_dir / spec)
    return aliases


def _manifest_items(section, base_dir: Path, resolver: ChallengeResolver, problems: list[str],
                    broken: set) -> list:
    if not isinstance(section, dict) or not section:
        problems.append("submissions: expected a non-empty mapping of who: {challenge: file}")
        return []
    items = []
    for who, files in section.items():
        if who is None or str(who).strip() == "":
            problems.append("submissions: a submission has an empty name")
            continue
        if not isinstance(files, dict) or not files:
            problems.append(f"submissions.{who}: expected a non-empty mapping of challenge: solution file")
            continue
        for challenge, path in files.items():
            where = f"submissions.{who}.{challenge}"
            if not isinstance(path, str) or not path.strip():
                problems.append(f"{where}: expected the path of a .py file, got {path!r}")
                continue
            try:
                resolver.resolve(str(challenge), base_dir)
            except LookupError as exc:
                if str(challenge) not in broken:  # a broken alias is reported once, where it is defined
                    problems.append(f"{where}: {exc}")
                continue
            items.append((str(who), str(challenge), str(base_dir / path)))
    return items


def entries_for(items: Iterable[tuple[str, str, str]], resolver: ChallengeResolver,
                check_file: Callable[[str], str], base_dir: Path | None = None) -> list[Entry]:
    """Entries with resolved specs; an unknown challenge or an unusable file
    becomes the entry's ``problem`` (``check_file`` returns "" for a usable file).
    Raises ``catalog.ChallengeConflict`` when a name is defined twice."""
    from .catalog import UnknownChallenge

    entries = []
    for who, challenge, path in items:
        try:
            spec_path = resolver.resolve(challenge, base_dir)
        except UnknownChallenge as exc:  # a conflict on the search path is the organiser's: it propagates
            entries.append(Entry(who, challenge, path, None, str(exc)))
            continue
        entries.append(Entry(who, challenge, path, spec_path, check_file(path)))
    return entries


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

    @property
    def seed_label(self) -> str:
        """What outputs show instead of the seed the runs used: ``5`` or ``5 + secret``."""
        return f"{self.public_seed} + secret" if self.secret else str(self.public_seed)

    def options(self, device: str | None):
        from .runner import Options

        return Options(seed=combine_seed(self.public_seed, self.secret), interpret=self.interpret,
                       device=device, timeout=self.timeout, compile_timeout=self.compile_timeout,
                       benchmark=self.benchmark, bench_budget_s=self.bench_budget_s)

    def key_fields(self) -> dict:
        """The settings a resume key depends on, fit to print (the secret only as used or not)."""
        return {"public_seed": self.public_seed, "secret_seed": bool(self.secret),
                "mode": "interpret" if self.interpret else "gpu", "timeout": self.timeout,
                "compile_timeout": self.compile_timeout, "benchmark": self.benchmark and not self.interpret,
                "bench_budget_s": self.bench_budget_s, "judge": __version__}

    def public_dict(self) -> dict:
        return {**self.key_fields(), "seed_label": self.seed_label}


def _file_digest(path: str) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


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
    spec_file, variant = _split_variant(entry.spec_path)
    material = {"solution": _file_digest(entry.path), "spec": _file_digest(spec_file), "variant": variant,
                "settings": settings.key_fields(), "secret": _secret_fingerprint(settings.secret)}
    return hashlib.sha256(json.dumps(material, sort_keys=True).encode()).hexdigest()


def redact(value, secrets: list[str]):
    """``value`` with every secret string replaced by ``<secret>``, recursively.

    Seeds are only redacted as whole numbers, so ``rows=123`` stays readable."""
    if isinstance(value, str):
        for secret in secrets:
            if secret.isdigit():
                value = re.sub(rf"(?<!\d){secret}(?!\d)", "<secret>", value)
            else:
                value = value.replace(secret, "<secret>")
        return value
    if isinstance(value, dict):
        return {k: redact(v, secrets) for k, v in value.items()}
    if isinstance(value, list):
        return [redact(v, secrets) for v in value]
    return value


# -- judging one entry -------------------------------------------------------------

def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def _base_record(entry: Entry, key: str | None) -> dict:
    return {"submission": entry.submission, "challenge": entry.challenge, "file": entry.path, "key": key}


def problem_record(entry: Entry, key: str | None, settings: GradeSettings) -> dict:
    """The record of an entry that could not be judged (unknown challenge, missing file)."""
    return {**_base_record(entry, key), "verdict": Verdict.INVALID_SUBMISSION.value, "message": entry.problem,
            "seed": settings.public_seed, "secret_seed": bool(settings.secret), "tests": [], "benchmarks": [],
            "notes": [], "wall_s": 0.0, "graded_at": _now(), "gpu": None}


def public_record(entry: Entry, key: str | None, run: dict, settings: GradeSettings,
                  wall_s: float, device: str | None) -> dict:
    """A run's ``as_dict`` made fit for public output: the public seed in place
    of the one the run used, and the secret and that seed redacted everywhere."""
    record = {**_base_record(entry, key), **run, "challenge": entry.challenge,
              "spec": run.get("challenge"), "file": entry.path}
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


class Cancelled(BaseException):
    """Stops a running judge when the grade is interrupted.  A BaseException, so
    that ``judge_entry``'s safety net does not record it as the submission's verdict."""


def _cancel_events(cancel: threading.Event):
    """Runner events that raise ``Cancelled`` at the next step (start, case, benchmark)
    once ``cancel`` is set; the runner's cleanup then stops the worker."""
    from .runner import Events

    class CancelEvents(Events):
        def started(self, result, total_cases: int) -> None:
            self.check()

        def case_started(self, case) -> None:
            self.check()

        def status(self, text: str) -> None:
            self.check()

        @staticmethod
        def check() -> None:
            if cancel.is_set():
                raise Cancelled

    return CancelEvents()


def judge_entry(entry: Entry, spec, key: str | None, settings: GradeSettings, device: str | None,
                cancel: threading.Event | None = None) -> dict:
    """Judge one entry and return its public record; never raises for a bad
    submission.  Raises ``Cancelled`` soon after ``cancel`` is set."""
    if entry.problem or spec is None:
        return problem_record(entry, key, settings)
    from .runner import judge_solution

    started = time.perf_counter()
    events = _cancel_events(cancel) if cancel is not None else None
    from .reference import ReferenceError_

    try:
        run = judge_solution(spec, entry.path, settings.options(device), events).as_dict()
    except ReferenceError_ as exc:  # the organiser's spec is broken: not the submission's verdict
        run = {"verdict": Verdict.INVALID_SUBMISSION.value, "challenge": spec.name, "solution": entry.path,
               "message": f"the challenge's reference failed (a spec error, not this submission's): {exc}",
               "tests": [], "benchmarks": [], "notes": ["spec error: fix the challenge"], "internal_error": True}
    except Exception as exc:  # noqa: BLE001 - one submission that trips the judge must not stop the rest
        run = {"verdict": Verdict.RUNTIME_ERROR.value, "challenge": spec.name, "solution": entry.path,
               "message": f"internal error in judge while grading this submission: {type(exc).__name__}: {exc}",
               "tests": [], "benchmarks": [], "notes": ["internal error: please report it"], "internal_error": True}
    return public_record(entry, key, run, settings, time.perf_counter() - started, device)


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
    return {"kind": "grade", "grade_schema": GRADE_SCHEMA, "judge": __version__,
            "mode": "interpret" if settings.interpret else "gpu",
            "seed": {"public": settings.public_seed, "secret": bool(settings.secret), "label": settings.seed_label},
            "settings": settings.public_dict(), **meta, "updated_at": _now(),
            "complete": len(records) == len(entries), "summary": _summary(entries, records), "results": results}


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


def parse_gpus(text: str, available: int) -> list[int]:
    """``all`` or a comma-separated list of CUDA device indices, checked against ``available``."""
    if text.strip().lower() == "all":
        if available == 0:
            raise ValueError("no CUDA GPU is visible")
        return list(range(available))
    try:
        indices = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise ValueError(f"{text!r}: expected 'all' or device indices like 0,1") from None
    if not indices:
        raise ValueError("expected 'all' or device indices like 0,1")
    if len(set(indices)) != len(indices):
        raise ValueError(f"{text!r} names a GPU twice")
    bad = [i for i in indices if not 0 <= i < available]
    if bad:
        raise ValueError(f"no GPU {bad[0]}: {available} visible (indices 0..{available - 1})")
    return indices


# -- running entries over devices ------------------------------------------------------------

def grade_entries(todo: list[int], slots: list, grade_one: Callable[[int, object], dict],
                  done: Callable[[int, dict], None], cancel: threading.Event | None = None) -> None:
    """Call ``grade_one(index, slot)`` for each index, at most one at a time per slot.

    ``slots`` are devices (``"cuda:1"``) or ``None`` (CPU jobs).  One slot grades
    in the calling thread; more use a thread pool (each call waits on its own
    worker process, so threads suffice).  ``done`` is called once per graded
    index, never concurrently.  On an exception (Ctrl-C included) ``cancel`` is
    set, so running calls can stop early (``judge_entry`` does), entries not yet
    started are dropped, and the exception propagates once no call is running.
    """
    cancel = cancel if cancel is not None else threading.Event()
    if len(slots) <= 1:
        try:
            for index in todo:
                done(index, grade_one(index, slots[0] if slots else None))
        except BaseException:
            cancel.set()
            raise
        return
    free, lock = queue.Queue(), threading.Lock()
    for slot in slots:
        free.put(slot)

    def task(index: int) -> None:
        if cancel.is_set():
            return  # dropped: the grade was interrupted before this entry started
        slot = free.get()
        try:
            record = grade_one(index, slot)
            with lock:
                done(index, record)
        except BaseException:
            cancel.set()  # before the slot is free, so that no other entry starts
            raise
        finally:
            free.put(slot)

    pool = ThreadPoolExecutor(max_workers=len(slots), thread_name_prefix="grade")
    futures = []
    try:
        futures = [pool.submit(task, index) for index in todo]
        wait(futures, return_when=FIRST_EXCEPTION)  # a failing task has set ``cancel`` itself
    except BaseException:  # Ctrl-C in this thread
        cancel.set()
        raise
    finally:
        _shutdown_patiently(pool)
    failures = [f.exception() for f in futures if not f.cancelled() and f.exception() is not None]
    if failures:  # the cause, not a call that it cancelled
        raise next((e for e in failures if not isinstance(e, Cancelled)), failures[0])


def _shutdown_patiently(pool: ThreadPoolExecutor) -> None:
    """Wait for the running calls, even through another Ctrl-C or signal (CI
    sends SIGINT then SIGTERM, GNU timeout signals twice): abandoned calls would
    write outputs after the final ones.  They stop soon once cancelled."""
    while True:
        try:
            pool.shutdown(wait=True, cancel_futures=True)
            return
        except KeyboardInterrupt:
            continue
