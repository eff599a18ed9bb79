# Reproduces: docs/ui.md, "How it is built" (a CUDA and a Triton Submit on a GPU, docs/img/ui/challenge-gpu-*.png).
"""judge ui's Submit of a CUDA and a Triton draft from the page, on a GPU (docs/ui.md's GPU screenshot).

On the GPU machine:   python3 scripts/ui_submit_gpu.py --out $OUT
  serves judge ui on a free port and Submits solutions/transpose/tiled.cu (CUDA) and solutions/transpose/tuned.py
  (Triton) as a user does: with Chromium and chromedriver (and selenium) there, through the page itself (the
  language switch, the editor, Submit), saving a screenshot of each verdict; without them, through the requests
  the page makes (POST /api/run with the text on screen, then its event stream).  Either way it writes
  ui_submit.json: each Submit's wall time, verdict and result (its benchmark table's rows).  No judge server is
  used or started (JUDGE_SERVER=0): each Submit spawns its worker; scripts/ui_gpu.py times the served path.
Here, afterwards:     python3 scripts/ui_submit_gpu.py --draw $OUT/ui_submit.json --out docs/img/ui
  draws each result of that file in the page (its own showResult) in the local headless Chromium and saves
  challenge-gpu-<language>.png, for a GPU machine without a browser.
--interpret judges in CPU mode (a dry run of the script without a GPU: no benchmark, and CUDA needs nvcc).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
SUBMITS = [("cuda", "solution.cu", ROOT / "solutions/transpose/tiled.cu"),
           ("triton", "solution.py", ROOT / "solutions/transpose/tuned.py")]
FINAL = ("ACCEPTED", "WRONG", "RUNTIME", "INVALID", "COMPILE", "TIME", "internal", "NOT JUDGED", "STOPPED")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", required=True, help="the folder for ui_submit.json and the screenshots")
    parser.add_argument("--draw", help="a ui_submit.json to draw in the local browser instead of judging")
    parser.add_argument("--interpret", action="store_true", help="CPU mode (a dry run without a GPU)")
    parser.add_argument("--api", action="store_true", help="the page's requests even where a browser is found")
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="ui-submit-"))
    # No judge server: each Submit spawns its worker (scripts/ui_gpu.py times the served path), and none is
    # left running after the script (one started as the last judgement ended outlived it)
    os.environ.update(JUDGE_CACHE_DIR=str(work / "cache"), JUDGE_DATA_DIR=str(work / "data"), JUDGE_SERVER="0")
    settings, stop = _serve(work, args.interpret)
    try:
        if args.draw:
            return _draw(settings, json.loads(Path(args.draw).read_text()), out)
        browser = None if args.api else _browser()
        runs = [(_submit_in_page if browser else _submit_by_api)(settings, browser, lang, file, source, out)
                for lang, file, source in SUBMITS]
        if browser:
            browser.quit()
        (out / "ui_submit.json").write_text(json.dumps({"runs": runs}, indent=1))
        for run in runs:
            print(json.dumps({k: run[k] for k in ("language", "how", "wall_s", "verdict")} |
                             {"medians_ms": [b.get("median_ms") for b in run["result"].get("benchmarks", [])]}))
        return 0 if all(r["verdict"] == "accepted" for r in runs) else 1
    finally:
        stop()


def _serve(work: Path, interpret: bool):
    import logging

    from werkzeug.serving import make_server

    from judge.challenge.catalog import SearchPath
    from judge.ui.app import Settings, create_app
    from judge.ui.pages import Catalogue
    from judge.ui.workspace import Workspace

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    settings = Settings(Workspace(work / "ws"), Catalogue(SearchPath()), port=port, interpret=interpret,
                        db_path=str(work / "history.db"))
    logging.getLogger("werkzeug").setLevel(logging.WARNING)  # no line per request
    settings.app = create_app(settings)  # read back by _last_result
    httpd = make_server("127.0.0.1", port, settings.app, threaded=True)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return settings, httpd.shutdown


def _browser():
    chromium, driver = shutil.which("chromium") or shutil.which("chromium-browser"), shutil.which("chromedriver")
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        return None
    if not (chromium and driver):
        return None
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1600,1000", "--disable-gpu"):
        options.add_argument(arg)
    return webdriver.Chrome(service=Service(driver), options=options)


def _submit_in_page(settings, browser, lang: str, file: str, source: Path, out: Path) -> dict:
    """As a user: open the challenge, pick the language, put the solution in the editor, Submit, wait."""
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    def wait(seconds, condition):
        return WebDriverWait(browser, seconds, 0.2, ignored_exceptions=[StaleElementReferenceException]).until(condition)

    base = f"http://127.0.0.1:{settings.port}"
    browser.get(f"{base}/?token={settings.token}")
    wait(60, lambda d: d.find_elements(By.CSS_SELECTOR, "#catalogue a.challenge-link"))
    browser.get(f"{base}/#/c/transpose")
    wait(30, lambda d: d.find_elements(By.ID, f"lang-{lang}"))
    browser.find_element(By.ID, f"lang-{lang}").click()
    wait(30, lambda d: d.find_element(By.ID, f"lang-{lang}").get_attribute("aria-pressed") == "true")
    browser.execute_script("const cm = document.querySelector('.CodeMirror').CodeMirror;"
                           "cm.execCommand('selectAll'); cm.replaceSelection(arguments[0]);", source.read_text())
    started = time.perf_counter()
    browser.find_element(By.ID, "submit").click()
    wait(30, lambda d: d.find_elements(By.ID, "stop") or _verdict(d).startswith(FINAL))
    wait(600, lambda d: _verdict(d).startswith(FINAL))
    wall = time.perf_counter() - started
    time.sleep(1)  # the history below it
    browser.save_screenshot(str(out / f"challenge-gpu-{lang}.png"))
    result = _last_result(settings)
    return {"language": lang, "how": "page", "wall_s": round(wall, 2), "verdict": result.get("verdict"),
            "shown": _verdict(browser), "result": result}


def _verdict(driver) -> str:
    from selenium.webdriver.common.by import By

    found = driver.find_elements(By.ID, "verdict")
    return found[0].text if found else ""


def _last_result(settings) -> dict:
    """The result the page just showed: the last judgement's last event (the server runs in this process)."""
    judgement = settings.app.extensions["judgements"].current
    kind, data = judgement.events[-1]
    return data.get("result", {"verdict": kind, "message": json.dumps(data)})


def _submit_by_api(settings, _browser, lang: str, file: str, source: Path, out: Path) -> dict:
    """The page's own requests: the text on screen with Submit, then the event stream to its last event."""
    started = time.perf_counter()
    body = json.dumps({"ref": "transpose", "file": file, "submit": True, "text": source.read_text()}).encode()
    request = urllib.request.Request(f"http://127.0.0.1:{settings.port}/api/run", data=body, method="POST",
                                     headers={"Content-Type": "application/json", "X-Judge-UI": "1",
                                              "X-Judge-Token": settings.token})
    number = json.load(urllib.request.urlopen(request, timeout=60))["id"]
    events = _events(settings, number)
    result = events[-1][1].get("result", {"verdict": events[-1][0], "message": json.dumps(events[-1][1])})
    return {"language": lang, "how": "api", "wall_s": round(time.perf_counter() - started, 2),
            "verdict": result.get("verdict"), "server": events[0][1].get("server"), "result": result}


def _events(settings, number: int) -> list:
    url = f"http://127.0.0.1:{settings.port}/api/run/{number}/events?token={settings.token}"
    text = urllib.request.urlopen(url, timeout=900).read().decode()
    return [(block.split("event: ")[1].split("\n")[0], json.loads(block.split("data: ")[1]))
            for block in text.split("\n\n") if "event: " in block]


def _draw(settings, doc: dict, out: Path) -> int:
    """Each result of a GPU machine's ui_submit.json drawn by the page (showResult), screenshot saved."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    browser = _browser()
    if browser is None:
        print("no chromium, chromedriver or selenium here: nothing drawn", file=sys.stderr)
        return 2
    try:
        base = f"http://127.0.0.1:{settings.port}"
        browser.get(f"{base}/?token={settings.token}")
        WebDriverWait(browser, 60).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#catalogue a.challenge-link"))
        for run in doc["runs"]:
            browser.get(f"{base}/#/c/transpose")
            WebDriverWait(browser, 30).until(lambda d: d.find_elements(By.ID, f"lang-{run['language']}"))
            browser.find_element(By.ID, f"lang-{run['language']}").click()
            WebDriverWait(browser, 30).until(
                lambda d: d.find_element(By.ID, f"lang-{run['language']}").get_attribute("aria-pressed") == "true")
            source = dict((lang, path) for lang, _, path in SUBMITS)[run["language"]]
            browser.execute_script("const cm = document.querySelector('.CodeMirror').CodeMirror; cm.setValue(arguments[0]);"
                                   "showResult({result: arguments[1], history_warning: null}, {submit: true,"
                                   " server: arguments[2]})", source.read_text(), run["result"], run.get("server"))
            browser.save_screenshot(str(out / f"challenge-gpu-{run['language']}.png"))
    finally:
        browser.quit()
    return 0


if __name__ == "__main__":
    sys.exit(main())
