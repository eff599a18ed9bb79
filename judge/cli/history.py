"""``judge leaderboard`` and ``judge history``, and the options of run/rank/watch that record results
(judge/history/recording.py records them)."""

from __future__ import annotations

from pathlib import Path

import click

from judge.report.console import make_console
from judge.cli.base import user_errors, challenge_argument, current_search_path, json_option, load_spec_or_exit, main_group

__all__ = ["db_option", "history_options"]


def db_option(func):
    return click.option("--db", "db_path", type=click.Path(dir_okay=False), default=None,
                        help="History database [default: $JUDGE_DB, else history.db in $JUDGE_DATA_DIR, "
                             "$XDG_DATA_HOME/judge or ~/.local/share/judge].")(func)


def history_options(func):
    """--db and --no-history, for commands whose results are recorded."""
    func = click.option("--no-history", is_flag=True, help="Do not record the result in the history.")(func)
    return db_option(func)


def _open_existing(db_path: str | None):
    """The database if it exists (None otherwise: reading never creates one)."""
    from judge.history.store import HistoryError, connect, default_db_path

    path = default_db_path(db_path)
    if not path.exists():
        return path, None
    with user_errors(HistoryError):
        return path, connect(path)


def _require_known_or_recorded(name: str, recorded: bool) -> None:
    """An unknown name with nothing recorded is a typo: the catalogue's error (exit 2), not an empty table."""
    from judge.challenge.catalog import list_entries

    if not recorded and name not in {entry.name for entry in list_entries(current_search_path())}:
        load_spec_or_exit(name)


def _challenge_name(challenge: str) -> str:
    """A spec file's challenge name, or the name as given (history outlives spec files)."""
    if challenge.endswith((".yaml", ".yml")):
        return load_spec_or_exit(challenge).name
    return challenge


@main_group.command("leaderboard")
@challenge_argument
@click.option("--device", "device_filter", default=None, metavar="NAME",
              help="Only results on devices whose name contains NAME (e.g. H200).")
@json_option
@db_option
def leaderboard_command(challenge, device_filter, as_json, db_path) -> None:
    """The best accepted GPU result per solution (by content hash) per device, ranked.

    Scores are geometric means over the benchmark cases of median times, from
    the local history of 'judge run' and 'judge rank'.
    """
    from judge.history.store import accepted_runs, benchmarks_of, untimed_accepted
    from judge.history.leaderboard import build_leaderboard
    from judge.report.ranking_tables import document_to_json, render_leaderboard

    name = _challenge_name(challenge)
    path, conn = _open_existing(db_path)
    doc = {"challenge": name, "database": str(path), "device_filter": device_filter, "boards": [],
           "warnings": [], "cpu_runs": 0}
    if conn is not None:
        try:
            runs = accepted_runs(conn, name)
            doc.update(build_leaderboard(runs, benchmarks_of(conn, [r["id"] for r in runs]), device_filter))
            doc["cpu_runs"] = untimed_accepted(conn, name)
        finally:
            conn.close()
    _require_known_or_recorded(name, bool(doc["boards"] or doc["cpu_runs"]))
    if as_json:
        click.echo(document_to_json(doc))
    else:
        render_leaderboard(make_console(), doc)


@main_group.command("history")
@click.argument("challenge", required=False, metavar="[CHALLENGE]")
@click.option("--limit", type=click.IntRange(1), default=20, show_default=True, help="How many runs to show.")
@json_option
@db_option
def history_command(challenge, limit, as_json, db_path) -> None:
    """The most recent recorded runs (of CHALLENGE when given), newest first."""
    from judge.history.store import recent_runs
    from judge.report.ranking_tables import document_to_json, render_history

    path, conn = _open_existing(db_path)
    rows, name = [], _challenge_name(challenge) if challenge else None
    if conn is not None:
        rows = recent_runs(conn, name, limit)
        conn.close()
    if name is not None:
        _require_known_or_recorded(name, bool(rows))
    if as_json:
        click.echo(document_to_json({"database": str(path), "runs": rows}))
    else:
        render_history(make_console(), rows, str(Path(path)))
