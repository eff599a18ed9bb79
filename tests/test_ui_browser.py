"""judge ui in a real browser: the system's headless Chromium through selenium (no browser download).
Deselected by default; run with ``python -m pytest -m browser`` (.ci/run does, after the rest).

Open the catalogue, search, open a challenge, write a solution in the editor, run it in CPU
mode and see the verdict and the case table; a wrong one shows its first failing case with
the smallest failing size; an edit made on disk reaches the editor.  Skipped cleanly where
Chromium, its driver, selenium or the ui extra is missing.  With $JUDGE_UI_SCREENSHOTS set to
a folder, it saves the pages' screenshots there (docs/img/ui/ holds them).
"""

from __future__ import annotations

import os
import shutil
import threading
from pathlib import Path
from urllib.parse import quote

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.slow]

pytest.importorskip("flask", reason="the ui extra (pip install -e '.[ui]') is not installed")
webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed (pip install -e '.[browser]')")
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")
if not (CHROMIUM and DRIVER):
    pytest.skip("no chromium and chromedriver (apt-get install chromium chromium-driver)", allow_module_level=True)

from selenium.common.exceptions import StaleElementReferenceException  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
TILED = (ROOT / "solutions" / "transpose" / "tiled.py").read_text()
WRONG = (ROOT / "tests" / "solutions" / "transpose_wrong_edge.py")
JUDGING_S = 90  # one judgement in CPU mode takes 4-10 s here; a loaded CI machine more


LEETGPU_STATEMENT = """<p>Add two vectors: \\( C_i = A_i + B_i \\) for \\( 0 \\le i < N \\), so that
$$\\sum_i C_i = \\sum_i A_i + \\sum_i B_i.$$</p>
<svg width="260" height="90" viewBox="0 0 260 90" xmlns="http://www.w3.org/2000/svg" style="display:block; margin:10px auto;">
  <style>text { fill: #cccccc; } body { display: none; }</style>
  <defs><marker id="arrow" markerWidth="8" markerHeight="6" refX="8" refY="3" orient="auto">
    <polygon points="0 0, 8 3, 0 6" fill="#888"/></marker></defs>
  <rect x="10" y="20" width="60" height="30" fill="#2a4d69" rx="4"/><text x="40" y="40" text-anchor="middle">A + B</text>
  <line x1="75" y1="35" x2="180" y2="35" stroke="#888" stroke-width="2" marker-end="url(#arrow)"/>
  <rect x="185" y="20" width="60" height="30" fill="#4b86b4" rx="4"/><text x="215" y="40" text-anchor="middle">C</text>
</svg>
<h2>Constraints</h2><ul><li>1 &le; <code>N</code> &le; 100,000,000</li></ul>
<script>window.pwned = 1</script><p onmouseover="window.pwned = 2">hover</p>
"""


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    from werkzeug.serving import make_server

    from judge.challenge.catalog import SearchPath
    from judge.ui.app import Settings, create_app
    from judge.ui.pages import Catalogue
    from judge.ui.workspace import Workspace

    tmp = tmp_path_factory.mktemp("ui")
    mine = tmp / "my_challenges"  # a user folder (--challenges-dir) with a statement in math
    mine.mkdir()
    spec = (ROOT / "tests" / "specs" / "tiny_transpose.yaml").read_text()
    (mine / "math_transpose.yaml").write_text(spec.replace("name: tiny_transpose", "name: math_transpose").replace(
        "statement: Transpose a rows x cols float32 matrix.",
        'statement: "Write $y_{j,i} = x_{i,j}$ for every element, so that $$\\\\sum_i y_{0,i} = \\\\sum_i x_{i,0}.$$"'))
    leetgpu = tmp / "leetgpu"  # a LeetGPU folder whose statement draws a diagram and writes math, as theirs do
    shutil.copytree(ROOT / "tests" / "leetgpu" / "challenges", leetgpu)
    (leetgpu / "easy" / "1_vec_add" / "challenge.html").write_text(LEETGPU_STATEMENT)
    httpd = make_server("127.0.0.1", 0, None, threaded=True)
    settings = Settings(Workspace(tmp / "ws"), Catalogue(SearchPath((mine,)), [leetgpu]), port=httpd.server_port,
                        interpret=True, db_path=str(tmp / "history.db"))
    httpd.app = create_app(settings)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield settings
    httpd.shutdown()


@pytest.fixture(scope="module")
def browser():
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1400,1000",
                "--disable-gpu"):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service(DRIVER), options=options)
    yield driver
    driver.quit()


def _shot(driver, name: str) -> None:
    folder = os.environ.get("JUDGE_UI_SCREENSHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        height = driver.execute_script("return document.documentElement.scrollHeight")
        driver.set_window_size(1400, min(max(height + 120, 1000), 2400))  # the whole page, history included
        driver.save_screenshot(str(Path(folder) / f"{name}.png"))
        driver.set_window_size(1400, 1000)


def _wait(driver, seconds, condition):
    # The page redraws as results come in: an element found a moment ago may be gone; look again.
    return WebDriverWait(driver, seconds, poll_frequency=0.2, ignored_exceptions=[StaleElementReferenceException]).until(
        lambda d: condition(d))


def _type_solution(driver, source: str) -> None:
    """As typing does (not setValue, which the page treats as a load and does not save)."""
    driver.execute_script("const cm = document.querySelector('.CodeMirror').CodeMirror;"
                          "cm.execCommand('selectAll'); cm.replaceSelection(arguments[0]);", source)


def _log_in(server, browser) -> None:
    """The printed URL, then the page it refreshes to (wait for it: a refresh still due would undo a later get)."""
    browser.get(f"http://127.0.0.1:{server.port}/?token={server.token}")
    _wait(browser, 20, lambda d: d.current_url == f"http://127.0.0.1:{server.port}/" and
          d.find_elements(By.CSS_SELECTOR, "#catalogue a.challenge-link"))


def _open_transpose(server, browser) -> None:
    """A fresh load of the challenge's page (the previous test may have left the browser on it), token first
    (with pytest-xdist this test may be the first its browser runs)."""
    _log_in(server, browser)
    browser.get(f"http://127.0.0.1:{server.port}/#/c/transpose")
    _wait(browser, 20, lambda d: d.find_elements(By.CSS_SELECTOR, ".CodeMirror") and not d.find_elements(By.ID, "verdict"))


def _verdict(driver) -> str:
    return driver.find_element(By.ID, "verdict").text


def test_catalogue_search_challenge_run_and_history(server, browser):
    base = f"http://127.0.0.1:{server.port}"
    browser.get(f"{base}/?token={server.token}")
    _wait(browser, 20, lambda d: d.find_elements(By.CSS_SELECTOR, "#catalogue a.challenge-link"))
    assert browser.current_url == f"{base}/"  # the token went into this origin's localStorage and left the address bar
    assert browser.execute_script("return localStorage.getItem('judge-ui-token')") == server.token
    assert not browser.get_cookies()  # no cookie: it would go to every port of this host
    _shot(browser, "catalogue")
    browser.find_element(By.ID, "search").send_keys("transp")
    names = _wait(browser, 10, lambda d: [a.text for a in d.find_elements(By.CSS_SELECTOR, "#catalogue a.challenge-link")])
    assert "transpose" in names and "matmul" not in names
    browser.find_element(By.XPATH, "//table[@id='catalogue']//a[text()='transpose']").click()
    _wait(browser, 20, lambda d: d.find_elements(By.CSS_SELECTOR, ".CodeMirror") and
          "transposes a matrix" in d.find_element(By.ID, "statement").text)
    assert "solve(input, output, rows, cols)" in browser.find_element(By.ID, "facts").text

    _type_solution(browser, TILED)
    draft = server.workspace.root / "transpose" / "solution.py"
    _wait(browser, 10, lambda d: draft.read_text() == TILED)  # saved as a file a terminal's judge run sees
    browser.find_element(By.ID, "run").click()
    _wait(browser, JUDGING_S, lambda d: _verdict(d).startswith(("ACCEPTED", "WRONG", "RUNTIME", "INVALID", "internal")))
    assert _verdict(browser).startswith("ACCEPTED"), _verdict(browser)
    rows = browser.find_elements(By.CSS_SELECTOR, "#cases tbody tr")
    assert len(rows) >= 10 and all(r.get_attribute("class") == "accepted" for r in rows)
    _wait(browser, 20, lambda d: d.find_elements(By.CSS_SELECTOR, "#history-chart circle"))
    _shot(browser, "challenge-accepted")


def test_a_wrong_solution_shows_its_first_failing_case(server, browser):
    _open_transpose(server, browser)
    _type_solution(browser, WRONG.read_text())
    browser.find_element(By.ID, "submit").click()
    _wait(browser, JUDGING_S, lambda d: _verdict(d).startswith(("ACCEPTED", "WRONG", "RUNTIME", "INVALID", "internal")))
    assert _verdict(browser).startswith("WRONG_ANSWER"), _verdict(browser)
    failure = browser.find_element(By.ID, "failure").text
    assert failure.startswith("first failing case:") and "smallest failing size:" in failure
    # (the accepted version of the test above is there too when it ran first, on this server)
    _wait(browser, 20, lambda d: d.find_elements(By.CSS_SELECTOR, "#history-chart circle.rejected"))
    versions = browser.find_elements(By.CSS_SELECTOR, "#versions tbody tr")
    assert versions and "wrong_answer" in versions[0].text
    _shot(browser, "challenge-wrong")


def test_an_edit_made_on_disk_reaches_the_editor(server, browser):
    _open_transpose(server, browser)
    (server.workspace.root / "transpose" / "solution.py").write_text("# edited in a terminal\n")
    _wait(browser, 10, lambda d: d.execute_script(
        "return document.querySelector('.CodeMirror').CodeMirror.getValue()") == "# edited in a terminal\n")


def test_a_gpu_result_shows_its_benchmark_table(server, browser):
    """No GPU here: the page draws a GPU run's JSON (docs/json-schema.md's example) as it would arrive."""
    _open_transpose(server, browser)
    bench = {"name": "square-8192", "params": {"rows": 8192, "cols": 8192}, "verdict": "accepted", "message": "",
             "median_ms": 0.1340, "ci_low_ms": 0.1338, "ci_high_ms": 0.1343, "calls": 17, "gbps": 4006.5,
             "tflops": None, "peak_kind": "copy bandwidth", "pct_of_peak": 95.4, "torch_median_ms": 0.4642,
             "vs_torch": "3.46× torch", "notes": []}
    result = {"verdict": "accepted", "message": "all 22 tests passed", "mode": "gpu", "device": "NVIDIA H200",
              "seed": 1, "notes": [], "benchmarks": [bench],
              "tests": [{"name": "edge-1", "params": {"rows": 1, "cols": 1}, "verdict": "accepted", "message": "",
                         "time_ms": 0.09}]}
    browser.execute_script("showResult({result: arguments[0], history_warning: null})", result)
    row = browser.find_element(By.CSS_SELECTOR, "#bench tbody tr").text
    for shown in ("square-8192", "134.0 µs (133.8 µs … 134.3 µs)", "4007", "95.4% copy bandwidth", "464.2 µs",
                  "3.46× torch"):
        assert shown in row, row


def test_a_user_challenge_with_math_in_its_statement(server, browser):
    browser.get(f"http://127.0.0.1:{server.port}/?token={server.token}")
    _wait(browser, 20, lambda d: d.find_elements(By.CSS_SELECTOR, "#catalogue a.challenge-link"))
    from selenium.webdriver.support.ui import Select

    Select(browser.find_element(By.ID, "source")).select_by_value("user")
    names = _wait(browser, 10, lambda d: [a.text for a in d.find_elements(By.CSS_SELECTOR, "#catalogue a.challenge-link")])
    assert names == ["math_transpose"]
    browser.find_element(By.XPATH, "//table[@id='catalogue']//a[text()='math_transpose']").click()
    _wait(browser, 20, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#statement .katex")) == 2)
    assert "$" not in browser.find_element(By.ID, "statement").text  # every formula was rendered
    assert browser.find_elements(By.CSS_SELECTOR, "#statement .katex-display")  # $$...$$ as a display formula


def test_a_hostile_statement_runs_no_script(server, browser):
    """A challenge folder is someone else's text: its statement's markdown, math and links must not run script
    in the page that holds the token (the script could save a draft and start a run: code on this machine)."""
    spec = (ROOT / "tests" / "specs" / "tiny_transpose.yaml").read_text()
    import http.server

    heard = []  # what another server of this host (another user's, say) receives from the page

    class Listener(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            heard.append(str(self.headers))
            self.send_response(404)
            self.end_headers()

        def log_message(self, *args):
            pass

    listener = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Listener)
    threading.Thread(target=listener.serve_forever, daemon=True).start()
    hostile = ('![$" onerror="window.pwned=1//$](x) [t](http://x ($" onmouseover="window.pwned=2" x="$)) '
               '[j](javascript:window.pwned=3) <img src=x onerror="window.pwned=4"> '
               '$\\\\href{javascript:window.pwned=5}{click}$ '
               f'![p](http://127.0.0.1:{listener.server_port}/p.png)')
    path = Path(server.catalogue.search.user_dirs[0]) / "hostile_transpose.yaml"
    path.write_text(spec.replace("name: tiny_transpose", "name: hostile_transpose").replace(
        "statement: Transpose a rows x cols float32 matrix.", "statement: " + __import__("json").dumps(hostile)))
    try:
        _log_in(server, browser)
        browser.get(f"http://127.0.0.1:{server.port}/#/c/hostile_transpose")
        _wait(browser, 20, lambda d: d.find_elements(By.CSS_SELECTOR, "#statement img"))
        assert browser.current_url.endswith("#/c/hostile_transpose")
        for link in browser.find_elements(By.CSS_SELECTOR, "#statement a, #statement img"):
            browser.execute_script("arguments[0].dispatchEvent(new MouseEvent('mouseover'))", link)  # no click: a link leaves
        import time

        time.sleep(1)
        assert browser.current_url.endswith("#/c/hostile_transpose")
        assert browser.execute_script("return window.pwned") is None
        assert not [headers for headers in heard if server.token in headers]  # the token went to no other port
        assert not browser.execute_script(
            "return [...document.querySelectorAll('#statement *')].filter((e) => [...e.attributes].some("
            "(a) => a.name.startsWith('on') || /^\\s*javascript:/i.test(a.value))).map((e) => e.outerHTML)")
    finally:
        path.unlink()
        listener.shutdown()


def test_arriving_from_another_site_with_the_token_opens_the_page(server, browser, tmp_path):
    """judge ui --open's private file, or the URL clicked in a chat: the token URL reached from another site.
    (With the token in a SameSite=Strict cookie, a 303 to / kept the chain cross-site and / answered 403.)"""
    browser.get(f"http://127.0.0.1:{server.port}/static/app.css")  # this origin, to forget its token
    browser.execute_script("localStorage.clear()")
    page = tmp_path / "open.html"
    page.write_text(f'<!doctype html><meta http-equiv="refresh" content="0;url=http://127.0.0.1:{server.port}/'
                    f'?token={server.token}">')
    browser.get(page.as_uri())
    _wait(browser, 20, lambda d: d.find_elements(By.CSS_SELECTOR, "#catalogue a.challenge-link"))
    assert browser.current_url == f"http://127.0.0.1:{server.port}/"


def test_a_leetgpu_challenge_shows_its_own_statement_with_its_diagram_and_math(server, browser):
    """A LeetGPU folder's challenge.html, not judge show's text: its SVG diagram, its math rendered, and
    neither its script nor its handlers nor its style block (which would hide the page) act."""
    _log_in(server, browser)
    ref = next(c.ref for c in server.catalogue.items() if c.name == "1_vec_add")
    browser.get(f"http://127.0.0.1:{server.port}/#/c/{quote(ref, safe='')}")
    _wait(browser, 20, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#statement .katex")) == 3)
    assert browser.find_elements(By.CSS_SELECTOR, "#statement .katex-display")
    assert len(browser.find_elements(By.CSS_SELECTOR, "#statement svg rect")) == 2
    assert browser.find_element(By.CSS_SELECTOR, "#statement svg line").get_attribute("marker-end") == \
        "url(#statement-arrow)"
    assert browser.find_element(By.TAG_NAME, "body").is_displayed()
    hover = browser.find_element(By.XPATH, "//div[@id='statement']//p[text()='hover']")
    browser.execute_script("arguments[0].dispatchEvent(new MouseEvent('mouseover'))", hover)
    assert browser.execute_script("return window.pwned") is None


def test_stop_ends_a_judgement_that_hangs(server, browser):
    _open_transpose(server, browser)
    _type_solution(browser, (ROOT / "tests" / "solutions" / "transpose_hang.py").read_text())
    draft = server.workspace.root / "transpose" / "solution.py"
    _wait(browser, 10, lambda d: "time.sleep" in draft.read_text() or "while" in draft.read_text())
    browser.find_element(By.ID, "run").click()
    _wait(browser, 20, lambda d: d.find_elements(By.ID, "stop"))
    # the live case table is one table: its rows' tbody is the table's own, not a tbody inside another
    assert browser.find_elements(By.CSS_SELECTOR, "#cases > tbody") and \
        not browser.find_elements(By.CSS_SELECTOR, "#cases tbody tbody")
    import time

    time.sleep(3)  # the worker starts, then hangs in its first call
    status = browser.find_element(By.ID, "status").text
    browser.find_element(By.ID, "stop").click()
    _wait(browser, 20, lambda d: _verdict(d).startswith("STOPPED"))
    assert "nothing was recorded" in _verdict(browser), status
    assert not browser.find_elements(By.CSS_SELECTOR, "#cases tbody tbody")
