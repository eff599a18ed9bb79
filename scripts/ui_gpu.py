# Reproduces: docs/ui.md, "The pages" (a Submit through the warm server: its wall time).
"""judge ui's Submit on a GPU, timed (docs/ui.md): the tuned transpose submitted N times through the
Flask test client, as the page does; the first spawns its worker and starts a judge server, the later
ones (once it answers) have theirs forked by it.  Writes the last result's JSON (for a screenshot of its
benchmark table) to --out.   python3 scripts/ui_gpu.py --out $OUT/ui_gpu.json"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=4)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="ui-gpu-"))
    os.environ.update(JUDGE_CACHE_DIR=str(work / "cache"), JUDGE_DATA_DIR=str(work / "data"))
    os.environ.pop("JUDGE_SERVER", None)
    from judge.challenge.catalog import SearchPath
    from judge.server import client as server_client
    from judge.ui import guard
    from judge.ui.app import Settings, create_app
    from judge.ui.pages import Catalogue
    from judge.ui.workspace import Workspace

    settings = Settings(Workspace(work / "ws"), Catalogue(SearchPath()), port=8765, token="t",
                        db_path=str(work / "history.db"))
    client = create_app(settings).test_client()
    client.environ_base["HTTP_X_JUDGE_TOKEN"] = "t"  # as the page's script sends it
    settings.workspace.write("transpose", "solution.py", (ROOT / "solutions/transpose/tuned.py").read_text())
    rows, result = [], None
    for index in range(args.repeat):
        if index == 1:  # the server the first judgement started: wait until it answers
            deadline = time.monotonic() + 60
            while server_client.ask("status") is None and time.monotonic() < deadline:
                time.sleep(0.2)
        started = time.perf_counter()
        reply = client.post("/api/run", base_url="http://127.0.0.1:8765", headers={guard.HEADER: "1"},
                            json={"ref": "transpose", "file": "solution.py", "submit": True})
        body = client.get(f"/api/run/{reply.get_json()['id']}/events", base_url="http://127.0.0.1:8765")
        events = [(b.split("event: ")[1].split("\n")[0], json.loads(b.split("data: ")[1]))
                  for b in body.get_data(as_text=True).split("\n\n") if "event: " in b]
        wall = time.perf_counter() - started
        result = events[-1][1].get("result", {})
        rows.append({"wall_s": round(wall, 3), "worker": "forked" if events[0][1].get("server") else "spawned", "verdict": result.get("verdict"),
                     "phases_s": result.get("phases_s"), "medians_ms": [b["median_ms"] for b in result.get("benchmarks", [])],
                     "flags": [b["name"] for b in result.get("benchmarks", []) if b.get("notes")]})
        print(json.dumps(rows[-1]), flush=True)
    server_client.ask("stop")
    Path(args.out).write_text(json.dumps({"runs": rows, "last_result": result}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
