"""Charts of ``judge rank`` and ``judge sweep`` (matplotlib, an optional extra).

``pip install 'judge[plot]'`` brings matplotlib; without it the commands say
so before judging anything.  Drawing uses the Agg backend (no display) and
works on the plain dicts that ``--json`` prints, so tests draw from fake data.
The format follows the file's extension (.png, .svg, .pdf).
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["PlotUnavailable", "require_matplotlib", "rank_chart", "sweep_chart", "write_plot"]

SOLUTION_COLOURS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22")
UNITS = {"gbps": "GB/s", "tflops": "TFLOP/s", "ms": "ms"}


class PlotUnavailable(RuntimeError):
    """matplotlib is missing, or the file cannot be written (the message says which)."""


def require_matplotlib():
    """pyplot on the Agg backend, or PlotUnavailable with the install hint."""
    try:
        import matplotlib
    except ImportError:
        raise PlotUnavailable("plots need matplotlib: pip install 'judge[plot]'") from None
    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt


def write_plot(chart, doc: dict, plot_path: str | None) -> str | None:
    """Draw ``doc`` into ``plot_path`` with ``chart`` (rank_chart, sweep_chart) and note it in
    ``doc["plot"]``; a warning for stderr when it could not be done (the results still count)."""
    if plot_path is None:
        return None
    try:
        chart(doc, plot_path)
    except PlotUnavailable as exc:
        return f"warning: no plot: {exc}"
    doc["plot"] = plot_path
    return None


def _save(fig, path: str) -> None:
    plt = require_matplotlib()
    try:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(path, dpi=130, bbox_inches="tight")
    except (OSError, ValueError) as exc:
        raise PlotUnavailable(f"cannot write the plot {path}: {exc}") from None
    finally:
        plt.close(fig)


def _short(path: str, all_paths: list[str]) -> str:
    names = [Path(p).name for p in all_paths]
    name = Path(path).name
    return name if names.count(name) == 1 else path


# -- rank -------------------------------------------------------------------------
def rank_metric(doc: dict) -> str:
    """GB/s for memory-bound challenges, TFLOP/s for compute-bound ones, else time."""
    cases = [c for s in doc["ranking"] for c in (s.get("cases") or [])]
    if doc["bound"] == "compute" and cases and all(c.get("tflops") for c in cases):
        return "tflops"
    if cases and all(c.get("gbps") for c in cases):
        return "gbps"
    return "ms"


def _bar_value(case: dict, metric: str) -> tuple[float, float, float]:
    """(value, lower error, upper error) of one case's bar; rates flip the time interval."""
    if metric == "ms":
        m = case["median_ms"]
        return m, m - case["ci_low_ms"], case["ci_high_ms"] - m
    rate = case[metric]
    low, high = rate * case["median_ms"] / case["ci_high_ms"], rate * case["median_ms"] / case["ci_low_ms"]
    return rate, rate - low, high - rate


def rank_chart(doc: dict, path: str) -> None:
    """Horizontal bars per accepted solution, one panel per benchmark case, best on top.

    Error bars are the 95 % CIs; the torch baseline (dashed) and the copy bound
    or fp32 peak (dotted) are vertical lines.
    """
    plt = require_matplotlib()
    ranked = [s for s in doc["ranking"] if s["rank"] is not None and s.get("cases")]
    if not ranked:
        raise PlotUnavailable("nothing to plot: no accepted solution was timed")
    metric = rank_metric(doc)
    names = [_short(s["solution"], [r["solution"] for r in doc["ranking"]]) for s in ranked]
    cases = doc["cases"]
    fig, axes = plt.subplots(1, len(cases), figsize=(6.0 * len(cases), 1.6 + 0.55 * len(ranked)),
                             squeeze=False, layout="constrained")
    for index, (ax, case) in enumerate(zip(axes[0], cases)):
        _rank_panel(ax, doc, ranked, names, case["name"], metric, show_names=index == 0)
    fig.suptitle(_rank_title(doc, metric), fontsize=11)
    _footnote(fig, doc)
    _save(fig, path)


def _rank_panel(ax, doc, ranked, names, case_name, metric, show_names) -> None:
    values, errors, labels = [], [[], []], []
    for s in ranked:
        case = next(c for c in s["cases"] if c["name"] == case_name)
        value, lower, upper = _bar_value(case, metric)
        values.append(value)
        errors[0].append(lower)
        errors[1].append(upper)
        pct = case.get("pct_of_peak") if metric != "ms" else None
        labels.append(_label(value, metric) + (f" · {pct:.{0 if pct >= 10 else 1}f}% of peak" if pct is not None
                                               else ""))
    y = list(range(len(ranked)))
    colours = [SOLUTION_COLOURS[i % len(SOLUTION_COLOURS)] for i in y]
    ax.barh(y, values, xerr=errors, color=colours, capsize=3, height=0.6)
    ax.set_yticks(y, [f"#{s['rank']} {n}" for s, n in zip(ranked, names)] if show_names else [""] * len(y))
    ax.invert_yaxis()  # the best on top
    for yi, value, label in zip(y, values, labels):
        ax.annotate(label, (value, yi), xytext=(6, 0), textcoords="offset points", va="center", fontsize=8)
    _reference_lines(ax, doc, case_name, metric)
    ax.set_title(case_name, fontsize=10)
    ax.set_xlabel(f"{UNITS[metric]} ({'higher' if metric != 'ms' else 'lower'} is better)")
    if metric == "ms" and max(values) / min(values) > 50:
        ax.set_xscale("log")
    ax.margins(x=0.18)
    ax.grid(axis="x", alpha=0.3)


def _label(value: float, metric: str) -> str:
    """``0.1342 ms`` / ``2.10 µs`` for times; rates without their unit (the axis has it)."""
    from judge.report.ranking_tables import format_rate
    from judge.report.benchmark_table import format_time

    return format_time(value) if metric == "ms" else format_rate(value)


def _with_unit(value: float, metric: str) -> str:
    return _label(value, metric) if metric == "ms" else f"{_label(value, metric)} {UNITS[metric]}"


def _reference_lines(ax, doc: dict, case_name: str, metric: str) -> None:
    for ref in doc["references"]:
        ref_case = next((c for c in ref["cases"] if c["name"] == case_name), None)
        if ref_case is None:
            continue
        value = _reference_value(doc, ref_case["median_ms"], case_name, metric)
        style = "--" if ref["name"] == "torch" else ":"
        colour = "black" if ref["name"] == "torch" else "red"
        ax.axvline(value, linestyle=style, color=colour, linewidth=1.2,
                   label=f"{ref['name']}: {_with_unit(value, metric)}")
    if doc["references"]:  # where the bars are short: the slowest is at the bottom
        ax.legend(loc="upper right" if metric == "ms" else "lower right", fontsize=8, framealpha=0.9)


def _reference_value(doc: dict, median_ms: float, case_name: str, metric: str) -> float:
    """A reference time as the panel's metric, converted with a ranked solution's own rate."""
    if metric == "ms":
        return median_ms
    for s in doc["ranking"]:
        for c in s.get("cases") or []:
            if c["name"] == case_name and c.get(metric):
                return c[metric] * c["median_ms"] / median_ms  # same bytes (or FLOPs), other time
    return float("nan")


def _rank_title(doc: dict, metric: str) -> str:
    what = {"gbps": "bandwidth", "tflops": "throughput", "ms": "median time"}[metric]
    return f"{doc['challenge']} on {doc['device']}: {what} per solution (95% CI), seed {doc['seed']}"


def _footnote(fig, doc: dict) -> None:
    rejected = [f"{Path(s['solution']).name} ({s['verdict']})" for s in doc["ranking"] if s["rank"] is None]
    parts = []
    if doc.get("method"):
        parts.append(f"{doc['method']['rounds']} interleaved rounds, stopped: {doc['method']['stop_reason']}")
    if rejected:
        parts.append("rejected: " + ", ".join(rejected))
    if parts:
        fig.text(0.01, -0.02, " · ".join(parts), fontsize=8, color="dimgray", va="top")


# -- sweep ------------------------------------------------------------------------
def sweep_chart(doc: dict, path: str) -> None:
    """One line per solution (95 % CI band), torch dashed, the peak dotted, against size."""
    plt = require_matplotlib()
    metric = doc["metric"]
    live = [s for s in doc["series"] if s["verdict"] == "accepted" and s["points"]]
    if not live:
        raise PlotUnavailable("nothing to plot: no solution was timed")
    xs = [size["x"] for size in doc["sizes"]]
    fig, ax = plt.subplots(figsize=(8, 5), layout="constrained")
    names = [s["name"] for s in doc["series"]]
    colour = iter(SOLUTION_COLOURS * 4)
    for series in live:
        _sweep_line(ax, series, xs, metric, _short(series["name"], names),
                    "black" if series["kind"] == "torch" else next(colour))
    peak = doc.get("peak")
    _sweep_axes(ax, doc, xs, metric)
    if peak and peak.get("value") and metric != "ms":
        ax.axhline(peak["value"], color="red", linestyle=":", linewidth=1.5,
                   label=f"{peak['name']}: {peak['value']:.0f} {UNITS[metric]}")
        ax.set_ylim(0, max(ax.get_ylim()[1], peak["value"] * 1.08))  # room above the peak line
    ax.legend(fontsize=8, loc="best")
    failed = [f"{Path(s['name']).name} ({s['verdict']})" for s in doc["series"] if s["verdict"] != "accepted"]
    if failed:
        fig.text(0.01, -0.02, "not shown: " + ", ".join(failed), fontsize=8, color="dimgray", va="top")
    _save(fig, path)


def _sweep_line(ax, series: dict, xs: list, metric: str, label: str, colour: str) -> None:
    key = ("rate", "rate_low", "rate_high") if metric != "ms" else ("median_ms", "ci_low_ms", "ci_high_ms")
    ys = [p[key[0]] for p in series["points"]]
    style = "--" if series["kind"] == "torch" else "-"
    ax.plot(xs, ys, style, marker="o", color=colour, label=label + (" (reference)" if series["kind"] == "torch"
                                                                     else ""))
    ax.fill_between(xs, [p[key[1]] for p in series["points"]], [p[key[2]] for p in series["points"]],
                    color=colour, alpha=0.2, linewidth=0)


def _sweep_axes(ax, doc: dict, xs: list, metric: str) -> None:
    square = not doc["x_label"].startswith("size")
    if square:
        ax.set_xscale("log", base=2)
    ax.set_xticks(xs, [str(x) if square else s["label"] for x, s in zip(xs, doc["sizes"])],
                  rotation=0 if square else 25, ha="center" if square else "right")
    ax.minorticks_off()
    ax.set_xlabel(doc["x_label"])
    ax.set_ylabel(f"{UNITS[metric]} ({'higher' if metric != 'ms' else 'lower'} is better)")
    if metric == "ms":
        ax.set_yscale("log")
    else:
        ax.set_ylim(bottom=0)
    ax.set_title(f"{doc['challenge']} on {doc['device']}: {UNITS[metric]} against size (median, 95% CI band)",
                 fontsize=11)
    ax.grid(alpha=0.3)
