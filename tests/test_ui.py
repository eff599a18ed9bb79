"""judge ui without a browser: the safety rules (pure), the statement's HTML, the workspace's
confinement, and the web API through Flask's test client (one judgement through the event stream).
Skipped where the ui extra (Flask) is not installed, except the pure rules and the extra's message."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from judge.ui import guard
from judge.ui.statement import statement_html
from judge.ui.workspace import Workspace, WorkspaceError

ROOT = Path(__file__).resolve().parent.parent
BASE = "http://127.0.0.1:8765"
TOKEN = "t0ken-for-tests"
WRONG = '''import triton
import triton.language as tl

@triton.jit
def k(inp, out, rows, cols, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < rows * cols
    tl.store(out + (offs % cols) * rows + offs // cols, tl.load(inp + offs, mask=mask), mask=mask)

def solve(input, output, rows, cols):
    k[((rows * cols) // 64,)](input, output, rows, cols, BLOCK=64)  # one block short: N // BLOCK
'''


def test_hosts_that_name_this_server_and_no_other():
    allowed = guard.allowed_hosts("127.0.0.1", 8765)
    assert guard.host_allowed("127.0.0.1:8765", allowed) and guard.host_allowed("localhost:8765", allowed)
    assert not guard.host_allowed("evil.example:8765", allowed)  # DNS rebinding: the attacker's name
    assert not guard.host_allowed("127.0.0.1:9999", allowed) and not guard.host_allowed(None, allowed)
    assert guard.host_allowed("anything:1", guard.allowed_hosts("0.0.0.0", 8765))


def test_origins_and_tokens():
    assert guard.origin_allowed(None, "127.0.0.1:8765")
    assert guard.origin_allowed("http://127.0.0.1:8765", "127.0.0.1:8765")
    assert not guard.origin_allowed("http://evil.example", "127.0.0.1:8765")
    assert not guard.origin_allowed("null", "127.0.0.1:8765")
    assert guard.token_matches("abc", "abc") and not guard.token_matches("abd", "abc")
    assert not guard.token_matches(None, "abc") and not guard.token_matches("", "abc")


def test_statement_math_survives_markdown_and_html_is_escaped():
    out = statement_html("Sum $a_i * b_i$ over *i*: $$\\sum_j x_j$$ <script>alert(1)</script>")
    assert "$a_i * b_i$" in out and "$$\\sum_j x_j$$" in out and "<em>i</em>" in out
    assert "<script>" not in out and "&lt;script&gt;" in out


def test_drafts_stay_inside_the_workspace(tmp_path):
    space = Workspace(tmp_path / "ws")
    draft = space.write("transpose", "solution.py", "x = 1\n")
    assert draft.path == (tmp_path / "ws" / "transpose" / "solution.py").resolve()
    assert space.read("transpose", "solution.py").text == "x = 1\n"
    for bad in ("../x.py", "../../etc/x.py", "/tmp/x.py", "a/b.py", ".hidden.py", "notes.txt", "", "..", "x.py\0"):
        with pytest.raises(WorkspaceError):
            space.write("transpose", bad, "boom")
    # a challenge name is only ever a folder name: a LeetGPU path or ../ cannot climb out
    assert space.path_of("../../etc", "solution.py").parent == (tmp_path / "ws" / "etc").resolve()
    outside = tmp_path / "outside"
    outside.mkdir()
    (tmp_path / "ws" / "linked").symlink_to(outside)  # a link inside the workspace that leads out
    with pytest.raises(WorkspaceError):
        space.write("linked", "solution.py", "boom")
    assert not any(outside.iterdir()) and not (tmp_path / "x.py").exists()


def test_judge_ui_without_the_extra_says_how_to_install_it(monkeypatch):
    import sys

    from judge.cli import main

    monkeypatch.setitem(sys.modules, "flask", None)  # import flask raises ImportError
    done = CliRunner().invoke(main, ["ui", "--port", "0"])
    assert done.exit_code == 2
    assert "pip install -e '.[ui]'" in done.output and "Traceback" not in done.output


# -- the web API ---------------------------------------------------------------------------------------
def _has_flask() -> bool:
    try:
        import flask  # noqa: F401
    except ImportError:
        return False
    return True


needs_ui = pytest.mark.skipif(not _has_flask(), reason="the ui extra (pip install -e '.[ui]') is not installed")


@pytest.fixture
def ui(tmp_path):
    if not _has_flask():
        pytest.skip("the ui extra (pip install -e '.[ui]') is not installed")
    from judge.challenge.catalog import SearchPath
    from judge.ui.app import Settings, create_app
    from judge.ui.pages import Catalogue

    settings = Settings(Workspace(tmp_path / "ws"), Catalogue(SearchPath(), [ROOT / "tests/leetgpu/challenges"]),
                        port=8765, token=TOKEN, interpret=True, db_path=str(tmp_path / "history.db"))
    app = create_app(settings)
    client = app.test_client()
    client.environ_base["HTTP_X_JUDGE_TOKEN"] = TOKEN  # as the page's script sends it
    return app, client, settings


def _put(client, body, **headers):
    return client.put("/api/draft", base_url=BASE, data=json.dumps(body),
                      headers={"Content-Type": "application/json", guard.HEADER: "1", **headers})


def test_every_request_needs_the_token_and_this_servers_name(ui):
    app, client, _ = ui
    stranger = app.test_client()
    assert stranger.get("/api/challenges", base_url=BASE).status_code == 403
    assert stranger.get("/api/challenges?token=" + TOKEN, base_url=BASE).status_code == 403  # only in the header
    first = stranger.get(f"/?token={TOKEN}", base_url=BASE)  # the printed URL: the page's shell, which keeps it
    assert first.status_code == 200 and b"/static/app.js" in first.data and "Set-Cookie" not in first.headers
    assert stranger.get("/api/challenges", base_url=BASE).status_code == 403  # still nothing without the header
    assert stranger.get("/api/challenges", base_url=BASE, headers={guard.TOKEN_HEADER: TOKEN}).status_code == 200
    assert stranger.get("/api/challenges", base_url=BASE, headers={guard.TOKEN_HEADER: TOKEN + "x"}).status_code == 403
    assert client.get("/api/challenges", base_url="http://evil.example:8765").status_code == 403
    assert client.get("/", base_url="http://evil.example:8765").status_code == 403
    assert client.get("/static/app.js", base_url=BASE).status_code == 200


def test_the_token_never_rides_in_a_cookie_and_the_stream_takes_it_in_its_url(ui):
    """A cookie goes to every port of 127.0.0.1, whoever listens there (another user's server on a shared
    machine, visited once, would have had the token and could run code as you); the page keeps the token in
    its origin's localStorage (host and port) and sends it as a header.  EventSource sends no headers: a
    judgement's stream alone takes the token in its URL."""
    app, _, settings = ui
    from judge.ui.judgements import Judgement

    judgement = Judgement(5, "transpose", "s.py")
    judgement.add("result", {"result": {}}, last=True)
    app.extensions["judgements"].by_id[5] = judgement
    browser = app.test_client()
    browser.set_cookie("judge_ui_token_8765", TOKEN, domain="127.0.0.1")  # the old design's cookie: no longer enough
    assert browser.get("/api/challenges", base_url=BASE).status_code == 403
    assert browser.get("/api/run/5/events", base_url=BASE).status_code == 403
    assert browser.get(f"/api/run/5/events?token={TOKEN}", base_url=BASE).status_code == 200
    assert browser.get(f"/api/run/5/stop?token={TOKEN}", base_url=BASE).status_code == 403
    script = (ROOT / "judge/ui/static/app.js").read_text()
    assert "localStorage" in script and "document.cookie" not in script


def test_changes_need_this_servers_own_page(ui):
    _, client, settings = ui
    body = {"ref": "transpose", "file": "solution.py", "text": "x = 1\n"}
    assert _put(client, body, Origin="http://evil.example").status_code == 403
    no_header = client.put("/api/draft", base_url=BASE, json=body)  # a form or simple fetch cannot add X-Judge-UI
    assert no_header.status_code == 403
    assert _put(client, body, Origin=BASE).status_code == 200
    assert (settings.workspace.root / "transpose" / "solution.py").read_text() == "x = 1\n"


def test_no_draft_is_written_outside_the_workspace(ui, tmp_path):
    _, client, _ = ui
    for name in ("../escape.py", "../../escape.py", str(tmp_path / "escape.py"), "sub/escape.py"):
        reply = _put(client, {"ref": "transpose", "file": name, "text": "boom"})
        assert reply.status_code == 400, name
    assert not list(tmp_path.rglob("escape.py"))
    assert _put(client, {"ref": str(tmp_path), "file": "solution.py", "text": "boom"}).status_code == 404


def test_a_leetgpu_folder_is_listed_again_only_when_one_of_its_files_changes(tmp_path, monkeypatch):
    """Issue 49 item 10: the catalogue imported every challenge.py of a LeetGPU checkout on every visit
    (1.5-1.8 s; 24 s on a first start with only "loading the challenges…" on screen)."""
    import shutil

    from judge.challenge.catalog import SearchPath
    from judge.ui import pages

    folder, source = tmp_path / "challenges", ROOT / "tests/leetgpu/challenges"
    for part in ("core", "easy/1_vec_add", "easy/2_count_positive"):  # two challenges: each listing is quick
        shutil.copytree(source / part, folder / part, ignore=shutil.ignore_patterns("__pycache__"))
    listed = []
    real = pages._leetgpu_items
    monkeypatch.setattr(pages, "_leetgpu_items", lambda root, progress=None: listed.append(root) or real(root, progress))
    catalogue = pages.Catalogue(SearchPath(), [folder], cache_dir=tmp_path / "cache")
    first = [i.name for i in catalogue.items()]
    assert "1_vec_add" in first and catalogue.items() == catalogue.items() and len(listed) == 1
    again = pages.Catalogue(SearchPath(), [folder], cache_dir=tmp_path / "cache")  # the next judge ui: from disk
    assert [i.name for i in again.items()] == first and len(listed) == 1
    shutil.rmtree(folder / "easy" / "1_vec_add")  # a change: listed again, in memory and from disk
    assert "1_vec_add" not in [i.name for i in catalogue.items()] and len(listed) == 2
    assert "1_vec_add" not in [i.name for i in again.items()] and len(listed) == 2


def test_a_leetgpu_challenge_opens_by_its_name_and_its_listing_says_how_far_it_is(ui):
    """Issue 49 items 10 and 11: #/c/3_matrix_transpose said "no challenge" (only the encoded path worked), and
    a first listing showed no progress."""
    app, client, settings = ui
    seen = []
    real = settings.catalogue._progress_of
    settings.catalogue._progress_of = lambda root: (lambda done, total: (seen.append((done, total)),
                                                                         real(root)(done, total)))
    listed = {c["name"]: c for c in client.get("/api/challenges", base_url=BASE).get_json()["challenges"]}
    assert seen[0] == (0, seen[-1][1]) and seen[-1][0] == seen[-1][1] > 0  # each folder, then the end
    assert client.get("/api/catalogue-progress", base_url=BASE).get_json() == {}  # none under way now
    assert listed["1_vec_add"]["link"] == "1_vec_add" and listed["transpose"]["link"] == "transpose"
    page = client.get("/api/challenge?ref=1_vec_add", base_url=BASE)
    assert page.status_code == 200 and page.get_json()["signature"] == "solve(A, B, C, N)"
    assert page.get_json()["listed_as"] == listed["1_vec_add"]["ref"]
    draft = client.get("/api/draft?ref=1_vec_add&file=solution.py", base_url=BASE)
    assert draft.status_code == 200


def test_catalogue_and_challenge_page(ui):
    _, client, settings = ui
    listed = client.get("/api/challenges", base_url=BASE).get_json()
    by_name = {c["name"]: c for c in listed["challenges"]}
    assert by_name["transpose"]["source"] == "built-in" and by_name["transpose"]["best"] is None
    assert by_name["1_vec_add"]["source"] == "LeetGPU"
    page = client.get("/api/challenge?ref=transpose", base_url=BASE).get_json()
    assert page["signature"] == "solve(input, output, rows, cols)" and "<code>" in page["statement_html"]
    assert page["c_prototype"].startswith('extern "C" void solve(') and page["benchmarks"]
    leet = client.get("/api/challenge", base_url=BASE, query_string={"ref": by_name["1_vec_add"]["ref"]}).get_json()
    assert leet["leetgpu"] and leet["signature"] == "solve(A, B, C, N)"
    # its own challenge.html, not judge show's text: its markup kept, sanitized
    assert leet["statement_kind"] == "html" and "<code>C[i] = A[i] + B[i]</code>" in leet["statement_html"]
    assert "<h2>Requirements</h2>" in leet["statement_html"] and "&amp; nothing else" in leet["statement_html"]
    assert client.get("/api/challenge?ref=/etc", base_url=BASE).status_code == 404
    draft = client.get("/api/draft?ref=transpose&file=solution.py", base_url=BASE).get_json()  # judge init's starter
    assert "def solve(input, output, rows, cols)" in draft["text"] and not draft["exists"]
    # a GET writes nothing (a statement's image could make one); the page saves the starter with a PUT
    assert not Path(draft["path"]).exists() and draft["mtime_ns"] is None
    saved = _put(client, {"ref": "transpose", "file": "solution.py", "text": draft["text"]}).get_json()
    again = client.get("/api/draft?ref=transpose&file=solution.py", base_url=BASE).get_json()
    assert again["exists"] and again["text"] == draft["text"] and Path(again["path"]).is_file()
    assert client.get("/api/draft/mtime?ref=transpose&file=solution.py", base_url=BASE).get_json()["mtime_ns"] == \
        saved["mtime_ns"] == again["mtime_ns"]


def test_a_second_judgement_is_told_busy(ui):
    app, client, settings = ui
    from judge.ui.judgements import Judgement

    app.extensions["judgements"].current = Judgement(7, "transpose", "solution.py")  # still running
    settings.workspace.write("transpose", "solution.py", "x = 1\n")
    reply = client.post("/api/run", base_url=BASE, json={"ref": "transpose", "file": "solution.py"},
                        headers={guard.HEADER: "1"})
    assert reply.status_code == 409 and "busy" in reply.get_json()["error"]


@pytest.mark.slow
def test_a_run_streams_its_cases_then_the_result_and_records_it(ui):
    _, client, settings = ui
    settings.workspace.write("transpose", "solution.py", WRONG)
    started = client.post("/api/run", base_url=BASE, json={"ref": "transpose", "file": "solution.py"},
                          headers={guard.HEADER: "1"})
    assert started.status_code == 202
    events = _stream(client, started.get_json()["id"])
    kinds = [kind for kind, _ in events]
    assert kinds[0] == "started" and kinds[-1] == "result" and "case" in kinds
    result = events[-1][1]["result"]
    assert result["verdict"] == "wrong_answer" and result["mode"] == "interpret"
    failed = next(t for t in result["tests"] if t["verdict"] != "accepted")
    assert failed["smallest_failing"]
    history = client.get("/api/history?ref=transpose", base_url=BASE).get_json()
    assert [r["verdict"] for r in history["runs"]] == ["wrong_answer"] and len(history["versions"]) == 1
    best = {c["name"]: c["best"] for c in client.get("/api/challenges", base_url=BASE).get_json()["challenges"]}
    assert best["transpose"]["last_verdict"] == "wrong_answer"
    # Issue 49 item 6: the failed case again, alone (judge run --case NAME --seed SEED): the same sizes, not recorded
    again = client.post("/api/run", base_url=BASE, headers={guard.HEADER: "1"}, json={
        "ref": "transpose", "file": "solution.py", "case": failed["name"], "seed": result["seed"]})
    alone = _stream(client, again.get_json()["id"])[-1][1]["result"]
    assert [(t["name"], t["params"], t["verdict"]) for t in alone["tests"]] == \
        [(failed["name"], failed["params"], "wrong_answer")]
    assert len(client.get("/api/history?ref=transpose", base_url=BASE).get_json()["runs"]) == 1
    for bad in ({"case": failed["name"]}, {"case": 3, "seed": 1}, {"case": "x", "seed": -1}):
        assert client.post("/api/run", base_url=BASE, headers={guard.HEADER: "1"},
                           json={"ref": "transpose", "file": "solution.py", **bad}).status_code == 400


@needs_ui
def test_judge_ui_serves_the_url_it_prints(tmp_path):
    """The command itself: a free port, the URL with its token on stderr, the page behind it, Ctrl-C's end."""
    import signal
    import subprocess
    import sys
    import urllib.error
    import urllib.request

    proc = subprocess.Popen([sys.executable, "-m", "judge", "ui", "--port", "0", "--workspace", str(tmp_path / "ws"),
                             "--db", str(tmp_path / "h.db")], stderr=subprocess.PIPE, text=True, cwd=tmp_path,
                            env={**os.environ, "PYTHONPATH": os.pathsep.join(  # this checkout's judge, not one installed
                                [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])})
    try:
        url = next(line.split()[1] for line in proc.stderr if line.startswith("open http://127.0.0.1:"))
        page = urllib.request.urlopen(url, timeout=30)  # the shell, whose script keeps the token
        assert page.status == 200 and b"/static/app.js" in page.read()
        api = url.split("?")[0] + "api/challenges"
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(api, timeout=30)  # no token
        assert refused.value.code == 403
        token = url.split("token=")[1]
        assert urllib.request.urlopen(urllib.request.Request(api, headers={"X-Judge-Token": token}), timeout=30).status == 200
        status = url.split("?")[0] + "api/status"  # what the page polls every 1.5 s: not logged
        assert urllib.request.urlopen(urllib.request.Request(status, headers={"X-Judge-Token": token}), timeout=30).status == 200
        assert (tmp_path / "ws").is_dir()
    finally:
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=30) == 130
    log = proc.stderr.read()
    assert "GET /?token=" in log and url.split("token=")[1] not in log  # the request log leaves the token out
    assert "GET /api/challenges" in log and "/api/status" not in log


@needs_ui
def test_another_address_is_announced_with_a_warning(capsys, tmp_path):
    from judge.challenge.catalog import SearchPath
    from judge.cli.ui import _announce
    from judge.ui.app import Settings
    from judge.ui.pages import Catalogue

    _announce(Settings(Workspace(tmp_path), Catalogue(SearchPath()), host="0.0.0.0", port=8765, token="abc"), False)
    err = capsys.readouterr().err
    assert err.startswith("WARNING: judge ui is listening on 0.0.0.0") and "run any code on this machine" in err
    assert "ssh -L 8765:127.0.0.1:8765" in err and "?token=abc" in err


# -- attacks (red team) ----------------------------------------------------------------------------------
def _attributes(html_text: str) -> list[tuple[str, list]]:
    from html.parser import HTMLParser

    found = []

    class Collect(HTMLParser):
        def handle_starttag(self, tag, attrs):
            found.append((tag, [name for name, _ in attrs]))

    Collect().feed(html_text)
    return found


@pytest.mark.parametrize("statement", [
    '![$" onerror="alert(1)//$](x)',  # math in an image's alt text: the quote closed the attribute
    '[a](http://x ($" onmouseover="alert(1)" x="$))',  # math in a link's title
    "[a](http://x '$\" onmouseover=\"alert(1)\" x=\"$')",
    '![\\(" onerror="alert(1)//\\)](x)',
    '![$$" onerror="alert(1)//$$](x)',
])
def test_math_in_an_attribute_cannot_add_one(statement):
    out = statement_html(statement)
    for tag, names in _attributes(out):
        assert not any(n.startswith("on") for n in names), (tag, names, out)
        assert set(names) <= {"src", "alt", "href", "title"}, (tag, names, out)


def test_a_statement_naming_the_math_marker_is_not_an_error():
    out = statement_html("a \u2063MATH7\u2063 b $x$ ![\u2063MATH0\u2063](y)")
    assert "$x$" in out and "MATH7" in out


def test_a_planted_partial_file_link_cannot_redirect_a_save(tmp_path):
    """A workspace cloned from elsewhere may hold links: the file written beside the draft must not follow one."""
    space = Workspace(tmp_path / "ws")
    (tmp_path / "ws" / "transpose").mkdir(parents=True)
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    (tmp_path / "ws" / "transpose" / ".solution.py.partial").symlink_to(victim)
    space.write("transpose", "solution.py", "x = 1\n")
    assert victim.read_text() == "precious\n"
    assert space.read("transpose", "solution.py").text == "x = 1\n"
    assert not (tmp_path / "ws" / "transpose" / "solution.py").is_symlink()


def test_the_page_forbids_inline_script_framing_and_referrers(ui):
    """Defence in depth behind the escaping: an event handler that slips into the statement does not run,
    another site cannot frame the page (clicks on Run), and no address leaves in a Referer."""
    _, client, _ = ui
    for path in ("/", "/api/challenges", "/static/app.js"):
        reply = client.get(path, base_url=BASE)
        policy = reply.headers.get("Content-Security-Policy", "")
        assert "script-src 'self'" in policy and "unsafe-inline' ;" not in policy, path
        assert "'unsafe-eval'" not in policy and "frame-ancestors 'none'" in policy, path
        assert "img-src 'self' data:;" in policy, path  # no image from another port of this host (its cookie)
        assert reply.headers.get("X-Content-Type-Options") == "nosniff", path
        assert reply.headers.get("Referrer-Policy") == "no-referrer", path
    assert client.get("/api/challenges", base_url=BASE).headers.get("Cache-Control") == "no-store"


def test_a_bad_last_event_id_is_a_400_not_a_crash(ui):
    app, client, _ = ui
    from judge.ui.judgements import Judgement

    judgement = Judgement(3, "transpose", "solution.py")
    judgement.add("result", {"result": {}}, last=True)
    app.extensions["judgements"].by_id[3] = judgement
    assert client.get("/api/run/3/events", base_url=BASE, headers={"Last-Event-ID": "x"}).status_code == 400
    assert client.get("/api/run/3/events", base_url=BASE, headers={"Last-Event-ID": "-1"}).status_code == 200


def test_a_folder_in_the_current_directory_does_not_stand_in_for_a_challenge(ui, tmp_path, monkeypatch):
    """judge ui --workspace . makes ./transpose/ (the drafts), and a cloned repository may hold ./transpose/
    challenge.py: opening the built-in transpose must load the built-in, never run a folder's challenge.py."""
    _, client, _ = ui
    here = tmp_path / "cwd"
    (here / "transpose").mkdir(parents=True)
    (here / "transpose" / "challenge.py").write_text(f"open({str(tmp_path / 'ran')!r}, 'w').write('x')\n")
    (here / "transpose" / "challenge.html").write_text("<p>not transpose</p>")
    monkeypatch.chdir(here)
    page = client.get("/api/challenge?ref=transpose", base_url=BASE)
    assert page.status_code == 200 and page.get_json()["name"] == "transpose" and not page.get_json()["leetgpu"]
    assert not (tmp_path / "ran").exists()


@needs_ui
def test_open_passes_the_browser_a_private_file_not_the_token(monkeypatch, tmp_path, capsys):
    """--open: a browser's command line is readable by every user of the machine (ps); the token is not on it."""
    import stat
    import webbrowser

    from judge.challenge.catalog import SearchPath
    from judge.cli.ui import _announce
    from judge.ui.app import Settings
    from judge.ui.pages import Catalogue

    opened = []
    monkeypatch.setattr(webbrowser, "open", opened.append)
    page = _announce(Settings(Workspace(tmp_path), Catalogue(SearchPath()), port=8765, token="s3cret"), True)
    try:
        assert opened == [page.as_uri()] and "s3cret" not in opened[0]
        assert stat.S_IMODE(page.stat().st_mode) == 0o600
        assert 'url=http://127.0.0.1:8765/?token=s3cret"' in page.read_text()
    finally:
        page.unlink()


def test_math_openers_without_closers_take_linear_time():
    """A statement of unclosed \\[ or \\( made every opener scan to the end: quadratic, in a regex that holds the GIL,
    so opening that challenge froze every request of the server (60,000 openers: about 25 s before, 1 s now)."""
    import time

    for opener in ("\\[", "\\("):
        began = time.perf_counter()
        statement_html(opener * 60_000)
        assert time.perf_counter() - began < 8, opener
    assert "$$x_1$$" in statement_html("$$x_1$$") and "$a_i$" in statement_html("a $a_i$ b")


@pytest.mark.parametrize("target", ["http://127.0.0.1:9999/", "//127.0.0.1:9999/x", "http://0x7f000001:9999/",
                                    "http://2130706433:9999/", "http://127.1:9999/", "http://localhost:9999/",
                                    "http://[::1]:9999/", "HTTP://127.0.0.1./", "http:127.0.0.1:9999/",
                                    "http:\\\\127.0.0.1:9999/", "http://x@127.0.0.1:9999/",
                                    "http://%31%32%37.0.0.1:9999/"])
def test_a_statement_links_to_no_other_server_of_this_machine(target):
    """Browsers send this server's cookie (the token) to every port of 127.0.0.1: a statement's link there, once
    clicked, would hand it to whoever listens (another user of the machine); such links stay text."""
    out = statement_html(f"[docs]({target}) and <{target}>")
    assert "href" not in out, out
    assert 'href="https://example.com/a"' in statement_html("[ok](https://example.com/a)")
    assert 'href="#sizes"' in statement_html("[ok](#sizes)")


def test_a_leetgpu_statement_keeps_its_diagrams_and_math_and_loses_what_could_act(tmp_path):
    """A LeetGPU folder's challenge.html is shown as its HTML (issue 30), through an allow-list: its SVG
    diagrams (ids prefixed, arrows still pointing at them), tables, links out and math stay; scripts,
    handlers, style blocks, positioned styles, frames, javascript: links and links to this machine
    (they would carry the cookie to another port) go."""
    from judge.ui.statement import leetgpu_statement_html

    page = leetgpu_statement_html(
        '<p>Compute \\( y = \\frac{a}{b} \\) and $$\\sum_i x_i$$ &lt;tag&gt;</p>'
        '<svg width="300" viewBox="0 0 300 100" style="display:block; margin:20px auto; position:fixed" '
        'onload="alert(1)"><defs><marker id="arrow" orient="auto"><path d="M0,0 L6,3 z"/></marker></defs>'
        '<style>body { display: none }</style><rect x="1" y="2" fill="#1a1a1a" rx="6"/>'
        '<line x1="0" x2="9" marker-end="url(#arrow)"/><text x="5" text-anchor="middle">key &#x2192;</text>'
        '<foreignObject><iframe src="http://evil.example"></iframe></foreignObject>'
        '<use href="#arrow"/><a href="javascript:alert(2)"><text>j</text></a></svg>'
        '<table><tr><th colspan="2">N</th><td onclick="x()">1</td></tr></table>'
        '<script>window.pwned = 1</script><img src="x" onerror="alert(3)">'
        '<a href="https://arxiv.org/abs/1707.06347" target="_blank">paper</a>'
        '<a href="http://127.0.0.1:8888/">local</a><a href="HTTP://0x7f.1:9/">hex</a>'
        '<div style="position:absolute; top:0; color:red" id="results">fake</div>')
    for kept in ('\\( y = \\frac{a}{b} \\)', '$$\\sum_i x_i$$', '&lt;tag&gt;', 'viewBox="0 0 300 100"',
                 '<marker id="statement-arrow"', 'marker-end="url(#statement-arrow)"', '<rect x="1" y="2"',
                 'text-anchor="middle">key →</text>', '<th colspan="2">N</th>', 'href="https://arxiv.org/abs/1707.06347"',
                 'rel="noopener noreferrer"', '<div style="color:red">fake</div>'):
        assert kept in page, kept
    fetching = leetgpu_statement_html(  # style and paint that would request a URL of this server (with the cookie)
        '<p style="color:blue; background-color:url(/api/draft?ref=x)">a</p><svg><line marker-end="url(http://e/x#a)" '
        'stroke="URL(#s)"/><rect style="fill:url(/api/challenges)"/></svg><p style="color:\\72 ed">b</p>')
    assert fetching == ('<p style="color:blue">a</p><svg><line stroke="url(#statement-s)"></line><rect></rect></svg>'
                        '<p>b</p>')
    for gone in ("onload", "onclick", "onerror", "<script", "pwned", "<style", "display: none", "<iframe", "evil",
                 "foreignObject", "<use", "javascript:", "<img", "127.0.0.1", "0x7f", "position", 'id="results"'):
        assert gone not in page, gone


def _stream(client, number: int) -> list:
    """The judgement's events, to its last (the test client reads the whole stream)."""
    stream = client.get(f"/api/run/{number}/events", base_url=BASE)
    return [(block.split("event: ")[1].split("\n")[0], json.loads(block.split("data: ")[1]))
            for block in stream.get_data(as_text=True).split("\n\n") if "event: " in block]


@pytest.mark.slow
def start_hanging(app, client, settings) -> int:
    """A judgement of a solve() that never returns, a moment into its first call: its number."""
    import time

    settings.workspace.write("transpose", "solution.py", (ROOT / "tests/solutions/transpose_hang.py").read_text())
    started = client.post("/api/run", base_url=BASE, json={"ref": "transpose", "file": "solution.py"},
                          headers={guard.HEADER: "1"})
    number = started.get_json()["id"]
    judgement = app.extensions["judgements"].by_id[number]
    deadline = time.monotonic() + 120
    while not any(kind == "started" for kind, _ in judgement.events) and time.monotonic() < deadline:
        time.sleep(0.1)
    time.sleep(2)  # in its first call now
    return number


def test_stop_ends_a_hanging_judgement_at_once_and_records_nothing(ui):
    """The page's Stop (issue 30): a solve() that hangs would hold the workspace until its time-out; stopped,
    its worker is killed within a second or two, the judgement ends "stopped" and no history row is kept."""
    import threading
    import time

    app, client, settings = ui
    number = start_hanging(app, client, settings)
    stopping = time.monotonic()
    assert client.post(f"/api/run/{number}/stop", base_url=BASE).status_code == 403  # a write: the page's header
    assert client.post(f"/api/run/{number}/stop", base_url=BASE, headers={guard.HEADER: "1"}).status_code == 202
    events = _stream(client, number)
    assert events[-1][0] == "stopped" and time.monotonic() - stopping < 15, events[-3:]
    assert client.post(f"/api/run/{number}/stop", base_url=BASE, headers={guard.HEADER: "1"}).status_code == 409
    assert client.post("/api/run/99/stop", base_url=BASE, headers={guard.HEADER: "1"}).status_code == 404
    assert client.get("/api/history?ref=transpose", base_url=BASE).get_json()["runs"] == []
    assert not [t for t in threading.enumerate() if t.name.startswith("judge-cancel")]
    settings.workspace.write("transpose", "solution.py", (ROOT / "solutions/transpose/tiled.py").read_text())
    again = client.post("/api/run", base_url=BASE, json={"ref": "transpose", "file": "solution.py"},
                        headers={guard.HEADER: "1"})
    assert again.status_code == 202 and _stream(client, again.get_json()["id"])[-1][1]["result"]["verdict"] == "accepted"


@pytest.mark.slow
def test_a_judgement_uses_the_judge_server_and_starts_one_when_none_answers(ui, tmp_path, monkeypatch):
    """Run / Submit go through the warm server as judge run does (issue 30): with none, the judgement spawns its
    worker and starts a server as it ends; the next judgement's worker is forked by that server."""
    import subprocess
    import sys
    import time

    _, client, settings = ui
    env = {"JUDGE_CACHE_DIR": str(tmp_path / "cache"), "PYTHONPATH": str(ROOT)}
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    for name in ("JUDGE_SERVER", "CI"):
        monkeypatch.delenv(name, raising=False)
    settings.workspace.write("transpose", "solution.py", (ROOT / "solutions/transpose/tiled.py").read_text())

    def judged() -> dict:
        started = client.post("/api/run", base_url=BASE, json={"ref": "transpose", "file": "solution.py"},
                              headers={guard.HEADER: "1"})
        events = _stream(client, started.get_json()["id"])
        assert events[-1][1]["result"]["verdict"] == "accepted", events[-1]
        return events[0][1]

    try:
        assert judged()["server"] is False
        from judge.server import client as server_client

        deadline = time.monotonic() + 120
        while server_client.ask("status") is None and time.monotonic() < deadline:
            time.sleep(0.3)
        assert server_client.ask("status") is not None, "no server was started after the judgement"
        assert judged()["server"] is True
        log = "".join(p.read_text() for p in (tmp_path / "cache" / "server").glob("*.log"))
        assert "worker pid" in log
    finally:
        subprocess.run([sys.executable, "-m", "judge", "server", "stop"], env={**os.environ, **env}, cwd=ROOT,
                       capture_output=True, timeout=60)


def test_request_bodies_and_kept_judgements_are_bounded(ui):
    """Red team leftovers of issue 30: a body of any size was read whole, and every judgement's events were kept
    for the server's life."""
    app, client, settings = ui
    from judge.ui.judgements import KEEP, Judgement
    from judge.ui.workspace import MAX_DRAFT_BYTES

    huge = client.put("/api/draft", base_url=BASE, data=b"x" * (6 * MAX_DRAFT_BYTES + 70000),
                      headers={"Content-Type": "application/json", guard.HEADER: "1"})
    assert huge.status_code == 413
    judgements = app.extensions["judgements"]
    for number in range(1, 3 * KEEP):
        judgements.by_id[number] = Judgement(number, "transpose", "s.py", done=True)
    judgements._ids = iter(range(3 * KEEP, 4 * KEEP))
    settings.workspace.write("transpose", "solution.py", "def solve(*a):\n    pass\n")
    started = client.post("/api/run", base_url=BASE, json={"ref": "transpose", "file": "solution.py"},
                          headers={guard.HEADER: "1"})
    assert started.status_code == 202 and len(judgements.by_id) == KEEP
    assert max(judgements.by_id) == started.get_json()["id"] and min(judgements.by_id) == 2 * KEEP + 1
    _stream(client, started.get_json()["id"])


# -- issue 42: what a new user tripped on --------------------------------------------------------------------
def _leetgpu_ref(client, name: str) -> str:
    listed = client.get("/api/challenges", base_url=BASE).get_json()["challenges"]
    return next(c["ref"] for c in listed if c["name"] == name)


def test_a_leetgpu_challenge_with_a_model_argument_opens(ui):
    """easy/41_simple_inference's shape: the page failed with AttributeError ('Module' has no 'c_type')."""
    _, client, _ = ui
    ref = _leetgpu_ref(client, "9_simple_inference")
    page = client.get("/api/challenge", base_url=BASE, query_string={"ref": ref})
    assert page.status_code == 200, page.get_data(as_text=True)
    info = page.get_json()
    assert info["c_prototype"].startswith("not possible (parameter 'model' (a torch.nn.Module)")
    assert [p["kind"] for p in info["parameters"]] == ["tensor", "module", "tensor"]
    # no challenge.html: its docstring, said to be that, and the example as LeetGPU writes one
    assert "has no challenge.html" in info["statement_html"] and "nn.Linear" in info["statement_html"]
    assert info["example"].startswith("Input:  input = [[1.0, 2.0]]\n        model: Linear(in_features=2")
    assert "\nOutput: output = [[2.6, 2.7]]" in info["example"]
    assert info["language"] == "pytorch"  # the only starter it ships
    draft = client.get("/api/draft", base_url=BASE, query_string={"ref": ref, "file": "solution_pytorch.py"})
    assert draft.get_json()["text"].startswith('import torch')  # its own starter.pytorch.py
    cuda = client.get("/api/draft", base_url=BASE, query_string={"ref": ref, "file": "solution.cu"}).get_json()
    assert cuda["text"].startswith("// A CUDA C++ solve() cannot take this challenge's arguments")


def test_a_folder_without_statement_or_starters_gets_them_made_from_its_signature(ui):
    _, client, _ = ui
    ref = _leetgpu_ref(client, "2_count_positive")
    info = client.get("/api/challenge", base_url=BASE, query_string={"ref": ref}).get_json()
    assert "2_count_positive has no challenge.html" in info["statement_html"] and info["language"] == "triton"
    assert info["example"] == "Input:  data = [1.0, -2.0, 3.0, 0.0]\n        N = 4\nOutput: count = [2]"
    texts = {file: client.get("/api/draft", base_url=BASE, query_string={"ref": ref, "file": file}).get_json()["text"]
             for file in ("solution.py", "solution_pytorch.py", "solution.cu")}
    compile(texts["solution.py"], "solution.py", "exec")  # Python that runs (it was "n = ", a syntax error)
    compile(texts["solution_pytorch.py"], "solution_pytorch.py", "exec")
    assert "@triton.jit" in texts["solution.py"] and "n = count.numel()" in texts["solution.py"]
    assert 'extern "C" void solve(const float* data, int* count, int N)' in texts["solution.cu"]
    # a built-in: LeetGPU's example block beside its markdown; the catalogue's languages and their files
    transpose = client.get("/api/challenge?ref=transpose", base_url=BASE).get_json()
    assert transpose["example"].splitlines() == ["Input:  input = [[1.0, 2.0, 3.0],", "                 [4.0, 5.0, 6.0]]",
                                                 "        rows = 2, cols = 3", "Output: output = [[1.0, 4.0],",
                                                 "                  [2.0, 5.0],", "                  [3.0, 6.0]]"]
    assert [(lang["label"], lang["file"]) for lang in transpose["languages"]] == \
        [("Triton", "solution.py"), ("PyTorch", "solution_pytorch.py"), ("CUDA", "solution.cu")]
    leet = client.get("/api/challenge", base_url=BASE, query_string={"ref": _leetgpu_ref(client, "1_vec_add")})
    assert leet.get_json()["example"] is None  # its challenge.html has its own examples


def test_the_status_the_icon_and_a_busy_reply_say_which_judgement_runs(ui):
    app, client, settings = ui
    from judge.ui.judgements import Judgement

    status = client.get("/api/status", base_url=BASE).get_json()
    assert status["mode"] == "cpu" and status["workspace"] == str(settings.workspace.root)
    assert status["judgement"] is None
    icon = app.test_client().get("/favicon.ico", base_url=BASE)  # no token: it was a 403 in the console
    assert icon.status_code == 200 and icon.mimetype == "image/svg+xml"
    path = settings.workspace.path_of("transpose", "solution.py")
    app.extensions["judgements"].current = Judgement(7, "transpose", str(path), ref="transpose", file="solution.py")
    status = client.get("/api/status", base_url=BASE).get_json()
    assert status["judgement"]["id"] == 7 and status["judgement"]["file"] == "solution.py"
    busy = client.post("/api/run", base_url=BASE, headers={guard.HEADER: "1"},
                       json={"ref": "transpose", "file": "solution.py", "text": "x = 2\n"})
    assert busy.status_code == 409 and busy.get_json()["judgement"]["id"] == 7
    # the file being judged is not changed under its worker (which may load it again); the page saves it later
    refused = _put(client, {"ref": "transpose", "file": "solution.py", "text": "x = 3\n"})
    assert refused.status_code == 409 and refused.get_json()["judging"] and not path.exists()
    assert _put(client, {"ref": "transpose", "file": "solution.cu", "text": "// x\n"}).status_code == 200


@pytest.mark.slow
def test_run_judges_the_text_it_is_sent_and_the_history_keeps_it_as_a_run(ui):
    _, client, settings = ui
    settings.workspace.write("transpose", "solution.py", "stale = True\n")
    tiled = (ROOT / "solutions/transpose/tiled.py").read_text()
    started = client.post("/api/run", base_url=BASE, headers={guard.HEADER: "1"},
                          json={"ref": "transpose", "file": "solution.py", "text": tiled})
    assert started.status_code == 202 and started.get_json()["file"] == "solution.py"
    assert settings.workspace.read("transpose", "solution.py").text == tiled  # saved first
    events = _stream(client, started.get_json()["id"])
    kinds = [kind for kind, _ in events]
    assert kinds.count("case_started") == kinds.count("case") and events[-1][1]["result"]["verdict"] == "accepted"
    assert events[0][1]["call_timeout_s"] == 60.0 and events[0][1]["compile_timeout_s"] == 180.0
    history = client.get("/api/history?ref=transpose", base_url=BASE).get_json()
    assert [r["kind"] for r in history["runs"]] == ["run"]
    version = history["versions"][0]
    assert version["has_source"] and version["kinds"] == {"run": 1}
    text = client.get("/api/history/source", base_url=BASE,
                      query_string={"ref": "transpose", "hash": version["solution_hash"]}).get_json()["text"]
    assert text == tiled
    assert client.get("/api/history/source", base_url=BASE,
                      query_string={"ref": "matmul", "hash": version["solution_hash"]}).status_code == 404
    too_big = client.post("/api/run", base_url=BASE, headers={guard.HEADER: "1"},
                          json={"ref": "transpose", "file": "solution.py", "text": "#" * 1_200_000})
    assert too_big.status_code == 400 and "at most 1000000 bytes" in too_big.get_json()["error"]
    assert settings.workspace.read("transpose", "solution.py").text == tiled  # nothing judged, nothing lost


def test_a_version_s_tests_are_counted_out_of_its_best_run_s_total():
    """The page showed "18/0": the total of the version's first run (a compile error: no tests), its best passed."""
    from judge.ui.pages import own_versions

    def run(number, passed, total, kind, verdict="wrong_answer"):
        return {"id": number, "solution_hash": "h", "solution_path": "/w/solution.py", "verdict": verdict,
                "tests_passed": passed, "tests_total": total, "score_ms": None, "created_at": f"2026-11-2{number}",
                "kind": kind, "command": "run"}

    version, = own_versions([run(1, 0, 0, "run", "compile_error"), run(2, 18, 18, "submit", "accepted"),
                             run(3, 3, 18, None)])
    assert (version["best_passed"], version["tests_total"]) == (18, 18)
    assert version["kinds"] == {"run": 1, "submit": 1, "terminal": 1} and version["runs"] == 3
    only, = own_versions([run(1, 0, 5, "run")])
    assert (only["best_passed"], only["tests_total"]) == (0, 5)


# -- Profile (issue 41): judge profile's report on the page ------------------------------------------------------
def _recorded_profile(solution: str) -> dict:
    """judge profile --json's report of the swizzled CuTe transpose, built from CUPTI's records of it on an H200
    (tests/data/profile/), as profile_solution builds it."""
    from judge.timing import kernel_profile

    sample = json.loads((ROOT / "tests/data/profile/cupti_transpose_cute_swizzle.json").read_text())
    return {"challenge": "transpose", "solution": solution, "case": sample["case"], "seed": 7,
            "device": "NVIDIA H200", "peaks": {"copy_gbps": 4175.0}, "check": "correct", "notes": [],
            "cupti": kernel_profile.cupti_report(sample["cupti_calls"], 2 * 8192 * 8192 * 4, 0, "memory",
                                                 {"copy_gbps": 4175.0}),
            "ncu": {"status": "not found", "problem": "Nsight Compute (ncu) was not found"}}


def _profile(client, text: str) -> tuple[int, list]:
    started = client.post("/api/run", base_url=BASE, headers={guard.HEADER: "1"},
                          json={"ref": "transpose", "file": "solution.py", "text": text, "profile": True})
    assert started.status_code == 202, started.get_json()
    body = started.get_json()
    assert body["profile"] is True and body["submit"] is False
    return body["id"], _stream(client, body["id"])


def test_profile_streams_judge_profiles_report_of_the_text_on_screen_and_records_nothing(ui, monkeypatch):
    from judge.judging import profile
    from judge.worker import forked

    _, client, settings = ui
    settings.interpret = False  # a GPU machine's judge ui; profile_solution is the recorded one below
    asked = {}

    def recorded(spec, solution, options, status):
        asked.update(spec=spec.name, solution=solution, text=Path(solution).read_text(), options=options,
                     server=forked.SERVER)
        status("recording 5 calls of solve() on square-8192 with CUPTI")
        return _recorded_profile(solution)

    monkeypatch.setattr(profile, "profile_solution", recorded)
    tiled = (ROOT / "solutions/transpose/tiled.py").read_text()
    _, events = _profile(client, tiled)
    assert [kind for kind, _ in events] == ["status", "profile"], events
    report = events[-1][1]["report"]
    assert report["cupti"]["kernels"][0]["short_name"] == "transpose_cute_swizzle"
    assert asked["spec"] == "transpose" and asked["text"] == tiled  # the text on screen, saved first
    assert asked["options"].interpret is False and asked["options"].case is None and asked["server"] is None
    assert client.get("/api/history?ref=transpose", base_url=BASE).get_json()["runs"] == []  # no verdict


@pytest.mark.slow
def test_profile_in_cpu_mode_says_it_needs_a_gpu(ui):
    """judge ui --interpret (and any machine without a GPU): the page's Profile gets judge profile's paragraph."""
    _, client, _ = ui
    _, events = _profile(client, (ROOT / "solutions/transpose/tiled.py").read_text())
    assert events[-1][0] == "profile_error", events
    message = events[-1][1]["message"]
    assert "needs an NVIDIA GPU" in message and "CPU mode" in message
    assert client.get("/api/history?ref=transpose", base_url=BASE).get_json()["runs"] == []
