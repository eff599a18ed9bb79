"""``judge grade``: many submissions in one go, with JUnit, JSON and Markdown for CI.

The command is thin: it turns its arguments into entries and settings
(judge/grading/submissions.py), grades them over one or several devices, and writes the
outputs after every submission (``GradeOutputs``, the one place that writes
files).  docs/grading.md documents the behaviour.
"""

from __future__ import annotations

import os
import random
import signal
import sys
import tempfile
import threading
from contextlib import contextmanager, suppress
from functools import partial
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable

import click
from rich.markup import escape
from rich.table import Table

from judge.base.exit_codes import ExitCode
from judge.grading.pool import grade_entries, judge_entry, make_undumpable, parse_gpus
from judge.grading.cluster import LOCAL
from judge.grading.records import SECRET_SEED_ENV, GradeSettings, PassRule, carried_over, grade_document, load_previous, parse_min_pass, resume_key
from judge.grading.submissions import ChallengeResolver, Entry, ManifestError, discover, entries_for, parse_manifest
from judge.report.console import make_console, table_box
from judge.report.json_export import run_to_json
from judge.report.junit import grade_to_junit
from judge.report.markdown import grade_to_markdown
from judge.cli.base import UserError, bench_options, check_solution_file, current_search_path, judging_options, main_group



# -- what to grade ---------------------------------------------------------------

def _file_problem(path: str) -> str:
    """Why a listed solution cannot be judged ("" when it can): graded, not fatal."""
    if not Path(path).exists():
        return f"no submission: {path} does not exist"
    try:
        check_solution_file(path)
    except UserError as exc:
        return exc.message
    return ""


def _files_plan(challenge: str, files: tuple, resolver: ChallengeResolver) -> list[Entry]:
    if not files:
        raise UserError("give the solution files to grade: judge grade CHALLENGE FILE...")
    if len(set(files)) != len(files):
        twice = next(f for f in files if files.count(f) > 1)
        raise UserError(f"{twice} is given twice")
    try:
        spec_path = resolver.resolve(challenge, Path.cwd())
    except LookupError as exc:
        raise UserError(str(exc)) from None
    return [Entry(f, challenge, check_solution_file(f), spec_path) for f in files]


def _manifest_plan(manifest: str, search) -> list[Entry]:
    path = Path(manifest)
    try:
        resolver, items = parse_manifest(path.read_text(encoding="utf-8"), manifest, path.parent, search)
    except (ManifestError, UnicodeDecodeError) as exc:
        raise UserError(f"invalid manifest {exc}" if isinstance(exc, ManifestError)
                        else f"{manifest} is not UTF-8 text") from None
    return entries_for(items, resolver, _file_problem, path.parent)


def _directory_plan(directory: str, resolver: ChallengeResolver) -> list[Entry]:
    items, warnings = discover(Path(directory))
    for warning in warnings:
        click.echo(f"warning: {warning}", err=True)
    if not items:
        raise UserError(f"no submissions found: expected {directory}/<who>/<challenge>.py")
    return entries_for(items, resolver, _file_problem)


def plan_entries(challenge, files, manifest, directory) -> list[Entry]:
    """The entries to grade, from exactly one of: CHALLENGE FILE..., --manifest, --dir."""
    if sum(bool(x) for x in (challenge, manifest, directory)) != 1:
        raise UserError("say what to grade with exactly one of: CHALLENGE FILE...,  --manifest FILE,  --dir FOLDER")
    from judge.challenge.catalog import ChallengeConflict

    search = current_search_path()  # judge --challenges-dir DIR, $JUDGE_CHALLENGES_PATH, built-ins
    try:
        if manifest:
            return snapshot_entries(_manifest_plan(manifest, search), str(Path(manifest).parent))
        resolver = ChallengeResolver(search=search)
        if directory:
            return snapshot_entries(_directory_plan(directory, resolver), directory)
        return snapshot_entries(_files_plan(challenge, files, resolver), None)
    except ChallengeConflict as exc:
        raise UserError(str(exc)) from None


def snapshot_entries(entries: list[Entry], root: str | None) -> list[Entry]:
    """Every entry's files read now, before any is graded (grading/snapshot.py); a link or a file
    outside ``root`` becomes the entry's problem (invalid_submission)."""
    from dataclasses import replace

    from judge.grading import snapshot

    taken = []
    for entry in entries:
        if entry.problem:
            taken.append(entry)
            continue
        copy, problem = snapshot.take(entry.path, root)
        taken.append(replace(entry, snapshot=copy, problem=problem))
    return taken


def load_specs(entries: list[Entry]) -> dict:
    """spec path -> Spec (a LeetGPU challenge folder too); a broken spec is the organiser's mistake, so exit 2."""
    from judge.challenge.catalog import UnknownChallenge, load_challenge
    from judge.challenge.spec import SpecError

    specs = {}
    for entry in entries:
        if entry.spec_path and entry.spec_path not in specs:
            try:
                specs[entry.spec_path] = load_challenge(entry.spec_path)
            except (SpecError, UnknownChallenge) as exc:
                raise UserError(str(exc)) from None
    return specs


# -- settings --------------------------------------------------------------------

def take_secret(env_name: str) -> str:
    """The secret seed, removed from our environment: workers inherit it, and a
    submission could read it there.  Also makes this process non-dumpable, so a
    submission running as the same (non-root) user cannot read it from
    /proc/<judge>/environ either."""
    present = env_name in os.environ
    secret = os.environ.pop(env_name, "").strip()
    if present and not secret:  # e.g. a CI secret that is not passed to this workflow
        click.echo(f"warning: ${env_name} is set but empty: grading with the public seed only", err=True)
    if secret:
        make_undumpable()
    return secret


def read_previous(json_path: str | None) -> dict | None:
    """The earlier grade document for --resume; None when there is none yet."""
    if not json_path or json_path == "-":
        raise UserError("--resume reads the results back from the --json FILE: give one (not '-')")
    path = Path(json_path)
    if not path.exists():
        return None
    try:
        return load_previous(path.read_text(encoding="utf-8"), json_path)
    except (ValueError, OSError) as exc:
        raise UserError(f"cannot resume: {exc}; delete it or drop --resume") from None


def public_seed(seed: int | None, previous: dict | None) -> int:
    """--seed; else the seed of the run being resumed; else a fresh one (shared by all entries)."""
    if seed is not None:
        return seed
    earlier = ((previous or {}).get("seed") or {}).get("public")
    if isinstance(earlier, int):
        return earlier
    return random.SystemRandom().randrange(2**31)


def resolve_mode(interpret: bool) -> bool:
    from judge.judging.runner import Options, detect_mode

    return detect_mode(Options(interpret=interpret))[0]


def choose_slots(gpus: str | None, jobs: int | None, device: str | None, interpret: bool) -> list:
    """The devices to grade on at once: one per GPU, N CPU jobs, or one."""
    if gpus is not None:
        if interpret:
            raise UserError("--gpus needs CUDA GPUs, but this grade runs in CPU mode (no CUDA device, or "
                            "--interpret); use --jobs N to grade N submissions at a time on the CPU")
        if device or jobs:
            raise UserError("--gpus picks the devices: drop --device and --jobs")
        import torch

        try:
            return [f"cuda:{i}" for i in parse_gpus(gpus, torch.cuda.device_count())]
        except ValueError as exc:
            raise UserError(f"--gpus: {exc}") from None
    if jobs and jobs > 1:
        if not interpret:
            raise UserError("--jobs is for CPU mode; on GPUs use --gpus, one submission per GPU at a time, "
                            "so that benchmarks do not disturb each other")
        return [None] * jobs
    return [device]


def cluster_workers(cluster: str, gpus: str | None, jobs: int | None, device: str | None,
                    interpret: bool) -> tuple[list[int] | None, int]:
    """For ``--cluster``: the GPUs (GPU mode) or the number of workers (CPU mode)
    of a local cluster; ``(None, 0)`` for a scheduler's address, whose workers decide."""
    try:
        import distributed  # noqa: F401
    except ImportError:
        raise UserError("--cluster needs Dask: pip install 'judge[cluster]' (dask and distributed)") from None
    if device:
        raise UserError("--cluster places each submission on a worker's GPU: drop --device")
    if cluster != LOCAL:
        if gpus is not None or jobs:
            raise UserError(f"--cluster {cluster}: the scheduler's workers are the GPUs (start one per GPU, "
                            "docs/grading.md); --gpus and --jobs are for --cluster local")
        return None, 0
    slots = choose_slots(gpus if gpus is not None or interpret else "all", jobs, None, interpret)
    if interpret:
        return None, len(slots)
    return [int(slot.split(":")[1]) for slot in slots], len(slots)


# -- outputs ---------------------------------------------------------------------

def write_atomically(path: Path, text: str) -> None:
    """Write to a temporary file beside ``path``, then rename it over ``path``:
    readers, and a run killed mid-write, see the old file or the new one, never half."""
    fd, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as stream:
            stream.write(text)
        os.chmod(temporary, 0o644)  # mkstemp's 0600 would hide a CI artifact from other users
        os.replace(temporary, path)
    except BaseException:
        with suppress(OSError):
            os.unlink(temporary)
        raise


class GradeOutputs:
    """--json/--junit/--summary, rewritten together after every submission."""

    def __init__(self, json_path: str | None, junit_path: str | None, summary_path: str | None):
        self.json_to_stdout = json_path == "-"
        self.exporters = [(Path(p), render) for p, render in (
            (None if self.json_to_stdout else json_path, run_to_json), (junit_path, grade_to_junit),
            (summary_path, grade_to_markdown)) if p]
        paths = [p.resolve() for p, _ in self.exporters]
        if len(set(paths)) != len(paths):
            raise UserError("--json, --junit and --summary must name different files")
        self.lock = threading.Lock()

    def write(self, doc: dict, first: bool = False) -> None:
        with self.lock:
            for path, render in self.exporters:
                try:
                    write_atomically(path, render(doc))
                except OSError as exc:
                    if first:  # before any grading: a usage error, not lost work
                        raise UserError(f"cannot write {path}: {exc.strerror or exc}") from None
                    raise

    def finish(self, doc: dict) -> None:
        self.write(doc)
        if self.json_to_stdout:
            click.echo(run_to_json(doc))
        step_summary = os.environ.get("GITHUB_STEP_SUMMARY")
        if step_summary:  # appended once, at the end: GitHub shows the file as the job's summary
            try:
                with open(step_summary, "a", encoding="utf-8") as stream:
                    stream.write(grade_to_markdown(doc) + "\n")
            except OSError as exc:
                click.echo(f"warning: cannot append to $GITHUB_STEP_SUMMARY ({step_summary}): {exc}", err=True)


# -- the session -------------------------------------------------------------------

class GradeSession:
    """The entries, their records so far, and what happens as each is graded."""

    def __init__(self, entries, specs, settings: GradeSettings, outputs: GradeOutputs, console, previous):
        self.entries, self.specs, self.settings = entries, specs, settings
        self.outputs, self.console = outputs, console
        self.keys = [resume_key(e, settings) for e in entries]
        self.records = carried_over(previous, entries, self.keys) if previous else {}
        self.meta = {"started_at": datetime.now(timezone.utc).isoformat(timespec="seconds")}
        self.finished = len(self.records)
        self.cancel = threading.Event()  # set on Ctrl-C: running judges stop at their next case

    def document(self) -> dict:
        return grade_document(self.entries, self.records, self.settings, self.meta)

    def grade_one(self, index: int, device) -> dict:
        entry = self.entries[index]
        return judge_entry(entry, self.specs.get(entry.spec_path), self.keys[index], self.settings, device,
                           self.cancel)

    def done(self, index: int, record: dict) -> None:
        self.records[index] = record
        self.finished += 1
        self.print_line(record, f"[{self.finished}/{len(self.entries)}]")
        self.outputs.write(self.document())

    def print_line(self, record: dict, counter: str) -> None:
        style = "green" if record["verdict"] == "accepted" else "red"
        where = f", GPU {record['gpu']}" if record.get("gpu") is not None else ""
        where += f", worker {record['worker']}" if record.get("worker") else ""
        tail = "carried over" if record.get("carried_over") else f"{record.get('wall_s', 0):.1f} s{where}"
        message = "" if record["verdict"] == "accepted" else " " + (record.get("message") or "").strip().split("\n")[0]
        self.console.print(f"{escape(counter)} {escape(record['submission'])} · {escape(record['challenge'])}: "
                           f"[{style}]{record['verdict'].upper()}[/]{escape(message)} ({tail})")

    def grade_here(self, slots: list, todo: list[int]) -> None:
        """On this host: one submission per slot at a time (judge/grading/pool.py)."""
        grade_entries(todo, slots, self.grade_one, self.done, self.cancel)

    def grade_on_cluster(self, address: str, gpus: list[int] | None, jobs: int, todo: list[int]) -> None:
        """On a Dask cluster (judge/grading/cluster.py); entries that cannot be judged
        get their records here at once, without a task."""
        from judge.grading import cluster

        judged = [i for i in todo if not self.entries[i].problem and self.entries[i].spec_path in self.specs]
        for index in (i for i in todo if i not in judged):
            self.done(index, self.grade_one(index, None))
        if not judged:  # all carried over by --resume, or unjudgeable: no cluster to start
            return
        try:
            with cluster.connect(address, gpus, jobs, self.settings.interpret, self.console.print) as client:
                work = cluster.make_jobs(judged, self.entries, self.specs, self.keys)
                cluster.grade_on_cluster(client, work, self.settings, self.done)
        except cluster.ClusterError as exc:
            raise UserError(str(exc)) from None

    def run(self, grade_todo: Callable[[list[int]], None]) -> bool:
        """Grade what is left with ``grade_todo(indices)``; True when it ran to the end,
        False when interrupted."""
        for index in sorted(self.records):
            self.print_line(self.records[index], "[resumed]")
        self.outputs.write(self.document(), first=True)
        todo = [i for i in range(len(self.entries)) if i not in self.records]
        try:
            grade_todo(todo)
        except KeyboardInterrupt:
            self.console.print(f"[yellow]interrupted: {len(self.records)} of {len(self.entries)} graded; "
                               "the outputs hold them, and --resume carries on[/]")
            return False
        return True


@contextmanager
def interrupted_once():
    """Ctrl-C or SIGTERM (how CI cancels a job) interrupts the grade once, like
    Ctrl-C; further signals are ignored while the judges stop and the outputs and
    step summary are written (CI sends SIGINT then SIGTERM; GNU timeout signals twice)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    seen = []

    def interrupt(signum, frame):
        if not seen:
            seen.append(signum)
            raise KeyboardInterrupt

    previous = {sig: signal.signal(sig, interrupt) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


# -- the final report -----------------------------------------------------------------

def render_table(console, doc: dict) -> None:
    table = Table(box=table_box(console), show_edge=not console.no_color)
    for header in ("submission", "challenge", "verdict", "tests", "details"):
        table.add_column(header, no_wrap=header != "details")
    for r in doc["results"]:
        ran = [t for t in r.get("tests", []) if t.get("verdict") != "skipped"]
        tests = f"{sum(t.get('verdict') == 'accepted' for t in ran)}/{len(ran)}" if ran else "-"
        detail = "" if r["verdict"] == "accepted" else (r.get("message") or "").strip().split("\n")[0][:120]
        style = "green" if r["verdict"] == "accepted" else "red"
        table.add_row(escape(r["submission"]), escape(r["challenge"]), f"[{style}]{r['verdict']}[/]", tests,
                      escape(detail))
    console.print(table)


def exit_status(doc: dict, rule: PassRule, console) -> int:
    summary = doc["summary"]
    ok = rule.passes(summary["accepted"], summary["total"])
    needed = "" if rule == PassRule() else f" (--min-pass: {rule.describe()}, {rule.needed(summary['total'])} needed)"
    style = "green" if ok else "red"
    console.print(f"[bold {style}]{summary['accepted']} of {summary['total']} accepted{needed}: "
                  f"{'PASS' if ok else 'FAIL'}[/]  seed {escape(doc['seed']['label'])}")
    return ExitCode.OK if ok else ExitCode.FAILED


# -- the command -----------------------------------------------------------------------

@main_group.command("grade")
@click.argument("challenge", required=False, metavar="[CHALLENGE FILE...]")
@click.argument("files", nargs=-1, metavar="")
@click.option("--manifest", type=click.Path(exists=True, dir_okay=False),
              help="A YAML file mapping submissions to challenges and files (docs/grading.md).")
@click.option("--dir", "directory", type=click.Path(exists=True, file_okay=False),
              help="A folder laid out as FOLDER/<who>/<challenge>.py.")
@judging_options
@bench_options
@click.option("--gpus", default=None, help="Grade in parallel, one submission per GPU: 'all' or indices like 0,1.")
@click.option("--jobs", type=click.IntRange(1), default=None,
              help="CPU mode only: grade this many submissions at a time [default: 1].")
@click.option("--cluster", default=None, metavar="ADDRESS",
              help="Grade on a Dask cluster: a scheduler's address (tcp://host:8786), or 'local' to start one "
                   "worker per GPU (CPU mode: --jobs workers) here; needs judge[cluster] (docs/grading.md).")
@click.option("--junit", "junit_path", type=click.Path(dir_okay=False), help="Write JUnit XML here.")
@click.option("--json", "json_path", type=click.Path(dir_okay=False, allow_dash=True),
              help="Write the results as JSON here ('-': stdout, and nothing else there).")
@click.option("--summary", "summary_path", type=click.Path(dir_okay=False), help="Write a Markdown summary here.")
@click.option("--resume", is_flag=True, help="Skip submissions already graded in the --json FILE (same content "
              "and settings).")
@click.option("--min-pass", default=None, help="Exit 0 when at least this many results are accepted: a count "
              "(8) or a fraction (0.8, 80%) [default: all].")
@click.option("--secret-seed-env", default=SECRET_SEED_ENV, show_default=True, metavar="NAME",
              help="Environment variable holding a secret seed, mixed with the public one and never printed.")
def grade_command(challenge, files, manifest, directory, seed, interpret, device, timeout,
                  compile_timeout, no_bench, bench_budget, gpus, jobs, cluster, junit_path, json_path, summary_path,
                  resume, min_pass, secret_seed_env) -> None:
    """Grade many solutions; write JUnit, JSON and Markdown reports for CI.

    \b
    judge grade transpose alice.py bob.py     several solutions of one challenge
    judge grade --manifest grading.yaml       submissions and challenges from a manifest
    judge grade --dir submissions/            submissions/<who>/<challenge>.py

    Exit status: 0 when all are accepted (or --min-pass is met), 1 otherwise,
    2 for a usage error, 130 when interrupted (the outputs are kept).
    """
    try:
        rule = parse_min_pass(min_pass) if min_pass is not None else PassRule()
    except ValueError as exc:
        raise UserError(f"--min-pass: {exc}") from None
    entries = plan_entries(challenge, files, manifest, directory)
    specs = load_specs(entries)
    previous = read_previous(json_path) if resume else None
    remote = cluster is not None and cluster != LOCAL
    mode_interpret = interpret if remote else resolve_mode(interpret)  # a remote cluster's GPUs are not ours
    if cluster is not None:
        workers = cluster_workers(cluster, gpus, jobs, device, mode_interpret)
    else:
        slots = choose_slots(gpus, jobs, device, mode_interpret)
    settings = GradeSettings(public_seed(seed, previous), take_secret(secret_seed_env), mode_interpret, timeout,
                             compile_timeout, not no_bench, bench_budget)
    console = make_console(sys.stderr if json_path == "-" else sys.stdout)
    session = GradeSession(entries, specs, settings, GradeOutputs(json_path, junit_path, summary_path), console,
                           previous)
    if cluster is None:
        where, grade_todo = f"{len(slots)} at a time", partial(session.grade_here, slots)
    else:
        where = (f"on the Dask scheduler at {escape(cluster)}" if remote
                 else f"on a local Dask cluster of {workers[1]} worker(s)")
        grade_todo = partial(session.grade_on_cluster, cluster, *workers)
    console.print(f"grading {len(entries)} submission(s) · {'CPU (Triton interpreter)' if mode_interpret else 'GPU'}"
                  f" · seed {escape(settings.seed_label)} · {where}")
    with interrupted_once():
        completed = session.run(grade_todo)
        doc = session.document()
        session.outputs.finish(doc)
    render_table(console, doc)
    status = exit_status(doc, rule, console)
    sys.exit(status if completed else ExitCode.INTERRUPTED)
