"""``judge ui``: the browser workspace (judge/ui/, the optional ``ui`` extra; docs/ui.md)."""

from __future__ import annotations

import click

from judge.cli.base import UserError, current_search_path, main_group
from judge.cli.history import history_options

MISSING_EXTRA = ("judge ui needs the optional 'ui' extra (Flask, which serves the page, and nh3): install it with "
                 "pip install -e '.[ui]' in a checkout of the judge, or pip install 'judge[ui]'; "
                 "every other command works without it.")

EXPOSED_WARNING = (
    "WARNING: judge ui is listening on {host}, not on 127.0.0.1: anyone who can reach this machine on port "
    "{port} and learns the token (it travels in plain HTTP, readable on the network) can run any code on this "
    "machine as you, read and write the drafts, and use its GPU. Bind another address only on a network you "
    "trust, or reach a remote machine through 'ssh -L {port}:127.0.0.1:{port} host' instead.")


@main_group.command("ui")
@click.option("--workspace", type=click.Path(file_okay=False), default="judge-workspace", show_default=True,
              help="The folder of the drafts, one subfolder per challenge (created if missing).")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="The address to listen on. Anything but 127.0.0.1 lets other machines run code here.")
@click.option("--port", type=click.IntRange(0, 65535), default=8765, show_default=True,
              help="The port (0: any free one).")
@click.option("--leetgpu", "leetgpu_dirs", multiple=True, type=click.Path(exists=True, file_okay=False),
              metavar="DIR", help="A LeetGPU checkout's challenges/ folder to list too (repeatable).")
@click.option("--kernelbench", "kernelbench_dirs", multiple=True, type=click.Path(exists=True, file_okay=False),
              metavar="DIR", help="A KernelBench checkout's KernelBench/ folder (or one level) to list too (repeatable).")
@click.option("--interpret", is_flag=True,
              help="Judge through Triton's interpreter on the CPU (automatic without a CUDA GPU).")
@click.option("--open", "open_browser", is_flag=True, help="Open the page in the default browser.")
@history_options
def ui_command(workspace, host, port, leetgpu_dirs, kernelbench_dirs, interpret, open_browser, db_path,
               no_history) -> None:
    """A local browser workspace: the catalogue, statements, an editor whose drafts are files in
    --workspace, Run and Submit through the same judge as 'judge run', and the history.

    It prints a URL with a secret token; the page runs code, so keep the token private.
    """
    try:
        import flask  # noqa: F401
        import nh3  # noqa: F401 - LeetGPU statements' sanitizer
    except ImportError:
        raise UserError(MISSING_EXTRA) from None
    from werkzeug.serving import make_server

    from judge.ui.app import Settings, create_app
    from judge.ui.pages import Catalogue
    from judge.ui.workspace import Workspace

    folder = Workspace(workspace)
    folder.root.mkdir(parents=True, exist_ok=True)
    from judge.base.paths import cache_dir

    catalogue = Catalogue(current_search_path(), leetgpu_dirs, kernelbench_dirs, cache_dir=cache_dir() / "ui")
    settings = Settings(folder, catalogue, host=host, port=port, interpret=interpret, db_path=db_path,
                        no_history=no_history)
    try:
        server = make_server(host, port, None, threaded=True, request_handler=_redacting_handler())
    except OSError as exc:
        raise UserError(f"cannot listen on {host}:{port}: {exc}; --port 0 picks a free port") from None
    settings.port = server.server_port  # the guard's Host rule needs the real port (--port 0)
    server.app = create_app(settings)
    opening = _announce(settings, open_browser)
    try:
        server.serve_forever()
    finally:
        server.server_close()
        if opening is not None:
            opening.unlink(missing_ok=True)


POLLS = ("/api/status", "/api/draft/mtime?")  # what the open page polls (judge/ui/static/app.js, editor.js)


def _redacting_handler():
    """Werkzeug's request log, with the token of a URL (?token=...) left out: the log may be kept in a file."""
    import re

    from werkzeug.serving import WSGIRequestHandler

    class Redacting(WSGIRequestHandler):
        def log_request(self, code="-", size="-") -> None:
            if str(code) == "200" and getattr(self, "path", "").startswith(POLLS):
                return  # the page asks these every 1.5 s: a line each would bury the rest
            hide = lambda text: re.sub(r"([?&]token=)[^&\s]*", r"\1…", text)  # noqa: E731
            self.requestline = hide(getattr(self, "requestline", ""))
            if hasattr(self, "path"):  # logged after the reply: the request is done with it
                self.path = hide(self.path)
            super().log_request(code, size)

    return Redacting


def _announce(settings, open_browser: bool):
    """Prints the URL; with --open, opens it through a private file (returned, to be removed at the end)."""
    shown = "127.0.0.1" if settings.host in ("0.0.0.0", "::") else settings.host
    url = f"http://{shown}:{settings.port}/?token={settings.token}"
    if settings.host not in ("127.0.0.1", "localhost", "::1"):
        click.echo(EXPOSED_WARNING.format(host=settings.host, port=settings.port), err=True)
    click.echo(f"judge ui: drafts in {settings.workspace.root}\nopen {url}\n(Ctrl-C stops it)", err=True)
    if not open_browser:
        return None
    import webbrowser

    # Not the URL itself: the browser's command line (xdg-open URL, firefox URL) is readable by every user of the
    # machine (ps), and the token lets its reader run code as you. A file only you can read leads there instead.
    page = _opening_page(url)
    webbrowser.open(page.as_uri())
    return page


def _opening_page(url: str):
    import html
    import os
    import tempfile
    from pathlib import Path

    fd, name = tempfile.mkstemp(prefix="judge-ui-", suffix=".html")  # mode 0600
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        target = html.escape(url)
        out.write(f'<!doctype html><meta charset="utf-8"><meta http-equiv="refresh" content="0;url={target}">'
                  f'<title>judge ui</title><a href="{target}">open judge ui</a>\n')
    return Path(name)
