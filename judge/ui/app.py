"""The web application of ``judge ui`` (Flask): the page, its JSON API and the judgements' event
stream.  Every request passes ``_guard`` first (judge/ui/guard.py says why each rule is there)."""

from __future__ import annotations

import json
import secrets
import threading
import time
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path

from flask import Flask, Response, abort, jsonify, request, send_from_directory

from judge.ui import guard
from judge.ui.judgements import Busy, Judgements
from judge.ui.pages import (LANGUAGES, LEETGPU_STARTERS, Catalogue, best_results, challenge_page, own_versions,
                            starter_text)
from judge.ui.workspace import MAX_DRAFT_BYTES, Workspace, WorkspaceError

__all__ = ["Settings", "create_app"]

STATIC = Path(__file__).resolve().parent / "static"


@dataclass
class Settings:
    workspace: Workspace
    catalogue: Catalogue
    host: str = "127.0.0.1"
    port: int = 8765
    token: str = field(default_factory=lambda: secrets.token_urlsafe(24))
    interpret: bool = False  # CPU mode even on a GPU machine (as judge run --interpret)
    db_path: str | None = None
    no_history: bool = False


def create_app(settings: Settings) -> Flask:
    app = Flask(__name__, static_folder=None)
    app.config["judge_ui"] = settings
    # A request body is at most a draft as JSON (each byte escaped at worst) and its names: 413 beyond.
    app.config["MAX_CONTENT_LENGTH"] = 6 * MAX_DRAFT_BYTES + 65536
    app.extensions["drafts_lock"] = threading.Lock()  # a draft's save against a Run's save-and-start
    app.extensions["judgements"] = Judgements(record=lambda result, judgement: _record(settings, result, judgement))
    hosts = guard.allowed_hosts(settings.host, settings.port)
    app.before_request(lambda: _guard(settings, hosts))
    app.after_request(_security_headers)
    _page_routes(app, settings)
    _api_routes(app, settings)
    _draft_routes(app, settings)
    _history_routes(app, settings)
    _run_routes(app, settings)
    return app


def _guard(settings: Settings, hosts: frozenset):
    if not guard.host_allowed(request.host, hosts):
        abort(Response(f"judge ui answers only to {', '.join(sorted(hosts))}\n", 403, mimetype="text/plain"))
    if not guard.needs_token(request.path):
        return None  # the page's shell, scripts and styles: public code, nothing of the user's
    given = request.headers.get(guard.TOKEN_HEADER) or \
        (request.args.get("token") if guard.stream_path(request.path) else None)
    if not guard.token_matches(given, settings.token):
        _fail(403, "judge ui needs the token that 'judge ui' printed: open the URL it printed, with ?token=...",
              token=False)
    if request.method not in ("GET", "HEAD"):
        if not guard.origin_allowed(request.headers.get("Origin"), request.host) or \
                request.headers.get(guard.HEADER) != "1":
            abort(Response("cross-origin request refused\n", 403, mimetype="text/plain"))
    return None


def _security_headers(reply: Response) -> Response:
    reply.headers.update(guard.SECURITY_HEADERS)
    if request.path.startswith("/api/") or request.path == "/":
        reply.headers["Cache-Control"] = "no-store"  # drafts and paths: kept in no cache
    return reply


def _page_routes(app: Flask, settings: Settings) -> None:
    @app.get("/")
    def index():  # the shell: with ?token=... (the printed URL) its script keeps the token and drops it from the URL
        return send_from_directory(STATIC, "index.html", max_age=0)

    @app.get("/static/<path:name>")
    def static_file(name):
        return send_from_directory(STATIC, name, max_age=0)

    @app.get("/favicon.ico")
    def favicon():  # browsers ask for it whatever the page links: answered, not refused (a 403 in the console)
        return send_from_directory(STATIC, "favicon.svg", max_age=0, mimetype="image/svg+xml")


def _api_routes(app: Flask, settings: Settings) -> None:
    @app.get("/api/challenges")
    def challenges():
        items = settings.catalogue.items()
        with _history(settings) as conn:
            best = best_results(conn, sorted({i.name for i in items}))
        catalogue = settings.catalogue
        return jsonify({"challenges": [{**asdict(i), "best": best.get(i.name),
                                        "link": i.name if catalogue.resolve(i.name) == i.ref else i.ref} for i in items],
                        "workspace": str(settings.workspace.root), "mode": _mode(settings)})

    @app.get("/api/catalogue-progress")
    def catalogue_progress():
        """How far the listing of a LeetGPU folder has come (while /api/challenges lists it): the page's
        "loading the challenges…" says it."""
        return jsonify(settings.catalogue.progress)

    @app.get("/api/status")
    def status():
        """The header's line on every page, and the judgement running now (a reloaded page follows it again)."""
        judgements: Judgements = app.extensions["judgements"]
        running = judgements.running()
        return jsonify({"mode": _mode(settings), "workspace": str(settings.workspace.root),
                        "judgement": running.about() if running is not None else None, "now": time.time()})

    @app.get("/api/challenge")
    def challenge():
        spec = _spec_or_404(settings, request.args.get("ref", ""))
        drafts = settings.workspace.files(spec.name)
        return jsonify({**challenge_page(spec), "ref": request.args["ref"],
                        "listed_as": settings.catalogue.resolve(request.args["ref"]), "drafts": drafts,
                        "language": _first_language(settings, spec, drafts)})


def _draft_routes(app: Flask, settings: Settings) -> None:
    @app.get("/api/draft")
    def read_draft():
        ref, file = request.args.get("ref", ""), request.args.get("file", "solution.py")
        spec = _spec_or_404(settings, ref)
        with _workspace_errors():
            draft = settings.workspace.read(spec.name, file)
            if draft is None:  # judge init's starter, which the page saves (a GET never writes: an image could ask)
                return jsonify({"file": file, "path": str(settings.workspace.path_of(spec.name, file)),
                                "text": starter_text(spec, file), "mtime_ns": None, "exists": False})
        return jsonify({"file": file, "path": str(draft.path), "text": draft.text, "mtime_ns": draft.mtime_ns,
                        "exists": True})

    @app.get("/api/starter")
    def starter():
        """The starter of a draft file, whatever the draft holds now (the page's "Reset to starter")."""
        spec = _spec_or_404(settings, request.args.get("ref", ""))
        file = request.args.get("file", "")
        with _workspace_errors():
            settings.workspace.path_of(spec.name, file)  # a draft's name, as for the others
        return jsonify({"file": file, "text": starter_text(spec, file)})

    @app.get("/api/draft/mtime")
    def draft_mtime():
        spec = _spec_or_404(settings, request.args.get("ref", ""))
        with _workspace_errors():
            return jsonify({"mtime_ns": settings.workspace.mtime_ns(spec.name, request.args.get("file", ""))})

    @app.put("/api/draft")
    def write_draft():
        body = request.get_json(silent=True) or {}
        spec = _spec_or_404(settings, str(body.get("ref", "")))
        with _workspace_errors(), app.extensions["drafts_lock"]:
            path = settings.workspace.path_of(spec.name, str(body.get("file", "")))
            if app.extensions["judgements"].judging(path):  # the worker may load it again (a restart): it stays
                _fail(409, f"{path.name} is being judged: it is saved when the verdict is in", judging=True)
            draft = settings.workspace.write(spec.name, str(body.get("file", "")), str(body.get("text", "")))
        return jsonify({"path": str(draft.path), "mtime_ns": draft.mtime_ns})


def _history_routes(app: Flask, settings: Settings) -> None:
    @app.get("/api/history")
    def history():
        from judge.history.leaderboard import build_leaderboard
        from judge.history.store import accepted_runs, benchmarks_of, kept_sources, recent_runs

        spec = _spec_or_404(settings, request.args.get("ref", ""))
        doc = {"runs": [], "versions": [], "leaderboard": {"boards": [], "warnings": []}}
        with _history(settings) as conn:
            if conn is not None:
                runs = list(reversed(recent_runs(conn, spec.name, 500)))
                accepted = accepted_runs(conn, spec.name)
                kept = kept_sources(conn, {r["solution_hash"] for r in runs})
                doc = {"runs": [_run_row(r) for r in runs],
                       "versions": [{**v, "has_source": v["solution_hash"] in kept} for v in own_versions(runs)],
                       "leaderboard": build_leaderboard(accepted, benchmarks_of(conn, [r["id"] for r in accepted]))}
        return jsonify(doc)

    @app.get("/api/history/source")
    def history_source():
        """The text of one version of this challenge's solutions (the page opens, diffs and restores it)."""
        from judge.history.store import source_of

        spec = _spec_or_404(settings, request.args.get("ref", ""))
        with _history(settings) as conn:
            text = None if conn is None else source_of(conn, request.args.get("hash", ""), spec.name)
        if text is None:
            _fail(404, "this version's text was not kept (recorded before judge kept solutions' texts, over "
                       "1 MB, or not UTF-8)")
        return jsonify({"text": text})


def _run_routes(app: Flask, settings: Settings) -> None:
    judgements: Judgements = app.extensions["judgements"]

    @app.post("/api/run")
    def start_run():
        """Run (the tests), Submit (then the benchmark) or Profile (``profile``: the kernels of one benchmark case,
        as judge profile; not recorded) of the text on the page's screen, ``text``: it is saved first, and the
        history records that text; without ``text``, the draft as saved."""
        body = request.get_json(silent=True) or {}
        ref, file, text = str(body.get("ref", "")), str(body.get("file", "")), body.get("text")
        profile = bool(body.get("profile"))
        case, seed = body.get("case"), body.get("seed")  # one case of an earlier run again (its seed: its values)
        if case is not None and not (isinstance(case, str) and type(seed) is int and 0 <= seed < 2**63):
            _fail(400, "a case is judged again with the name and the seed of the run it failed in")
        submit = bool(body.get("submit")) and not profile and case is None
        spec = _spec_or_404(settings, ref)
        # Saved and started under the drafts' lock: a save of the page's still in flight cannot land in between
        # and have the worker judge other text than the one recorded.
        with _workspace_errors(), app.extensions["drafts_lock"]:
            path = settings.workspace.path_of(spec.name, file)
            running = judgements.running()
            if running is not None:
                return _busy(running)
            if isinstance(text, str):
                draft = settings.workspace.read(spec.name, file)
                if draft is None or draft.text != text:
                    settings.workspace.write(spec.name, file, text)
            if not path.is_file():
                return jsonify({"error": f"{path.name} is not saved yet"}), 400
            try:
                options = _options(settings, submit, profile) if case is None else _case_options(settings, case, seed)
                judgement = judgements.start(spec, str(path), options, ref=ref, file=file, submit=submit,
                                             profile=profile, source=text if isinstance(text, str) else None, case=case)
            except Busy as exc:
                return _busy(exc.running)
        return jsonify({**judgement.about(), "mtime_ns": path.stat().st_mtime_ns}), 202

    @app.post("/api/run/<int:number>/stop")
    def stop_run(number: int):
        if number not in judgements.by_id:
            abort(404)
        if not judgements.stop(number):
            return jsonify({"error": "this judgement has ended already"}), 409
        return jsonify({"stopping": number}), 202

    @app.get("/api/run/<int:number>/events")
    def run_events(number: int):
        judgement = judgements.by_id.get(number)
        if judgement is None:
            abort(404)
        try:
            start = max(int(request.headers.get("Last-Event-ID", -1)) + 1, 0)
        except ValueError:
            abort(400)
        return Response(_event_stream(judgement, start), mimetype="text/event-stream",
                        headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})


def _busy(running):
    """A Run refused while another judgement runs: which one, so the page can follow it instead."""
    about = running.about()
    return jsonify({"error": f"busy: {about['name']} ({about['file'] or about['path']}) is being judged; "
                             "Run and Submit come back when its verdict is in", "busy": True,
                    "judgement": about}), 409


def _first_language(settings: Settings, spec, drafts: list[str]) -> str:
    """The language the page opens in: the draft edited last, else the first a LeetGPU folder ships a starter
    for, else Triton."""
    edited = [(settings.workspace.mtime_ns(spec.name, file) or 0, key) for key, (_, file) in LANGUAGES.items()
              if file in drafts]
    if edited:
        return max(edited)[1]
    if getattr(spec, "shipped", False):
        for key, starter in LEETGPU_STARTERS.items():
            if (Path(spec.source) / "starter" / starter).is_file():
                return key
    return "triton"


def _event_stream(judgement, start: int):
    for item in judgement.follow(start):
        if item is None:
            yield ": still judging\n\n"
            continue
        index, kind, data = item
        yield f"id: {index}\nevent: {kind}\ndata: {json.dumps(data, default=str)}\n\n"


def _options(settings: Settings, submit: bool, profile: bool = False):
    """Run: correctness only (the quick check); Submit: the full judgement with the benchmark, as judge run;
    Profile: judge profile's defaults (its largest benchmark case, CUPTI, and ncu where it is installed)."""
    if profile:
        from judge.judging.profile import ProfileOptions

        return ProfileOptions(interpret=settings.interpret)
    from judge.judging.runner import Options

    return Options(interpret=settings.interpret, benchmark=submit)


def _case_options(settings: Settings, case: str, seed: int):
    """One case of an earlier run judged again alone, as judge run --case NAME --seed SEED: its sizes and values."""
    from judge.judging.runner import Options

    return Options(interpret=settings.interpret, benchmark=False, seed=seed, only_case=case)


def _mode(settings: Settings) -> str:
    import torch

    return "gpu" if torch.cuda.is_available() and not settings.interpret else "cpu"


def _record(settings: Settings, result: dict, judgement) -> str | None:
    """The history's row of a Run or Submit, with the text the page had on screen."""
    from judge.history.recording import record_results

    if judgement.case is not None:  # one case's verdict is no result of the challenge's
        return None
    return record_results(settings.db_path, settings.no_history, "run", [result],
                          kind="submit" if judgement.submit else "run", source=judgement.source)


def _spec_or_404(settings: Settings, ref: str):
    try:
        return settings.catalogue.load(ref)
    except LookupError as exc:
        _fail(404, str(exc))


def _fail(status: int, message: str, **extra) -> None:
    """End the request with ``{"error": message}`` as JSON, which the page's api() shows."""
    abort(Response(json.dumps({"error": message, **extra}), status, mimetype="application/json"))


@contextmanager
def _workspace_errors():
    """WorkspaceError (a name that leaves the workspace) as a 400 with its message."""
    try:
        yield
    except WorkspaceError as exc:
        _fail(400, str(exc))


@contextmanager
def _history(settings: Settings):
    """The history database, or None where there is none yet (reading never creates one); closed after."""
    from judge.history.store import HistoryError, connect, default_db_path

    path = default_db_path(settings.db_path)
    try:
        conn = connect(path) if path.exists() else None
    except HistoryError:  # a database this judge cannot read: the pages show no history rather than fail
        conn = None
    try:
        yield conn
    finally:
        if conn is not None:
            conn.close()


def _run_row(run: dict) -> dict:
    keep = ("id", "created_at", "command", "kind", "solution_path", "solution_hash", "verdict", "message", "mode",
            "device", "tests_passed", "tests_total", "score_ms", "score_ci_low_ms", "score_ci_high_ms")
    return {k: run.get(k) for k in keep}
