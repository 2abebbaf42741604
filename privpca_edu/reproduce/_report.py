"""Writing a reproduction: CSV tables, PNG figures and the Markdown of ``report.md``.

CSV numbers are written with ``repr`` (shortest round-trip form), so two runs agree byte for
byte exactly when their numbers agree bit for bit.  Tables whose numbers are measured times
end in ``_timing.csv``: they are the only outputs that differ between runs.
"""

from __future__ import annotations

import csv
import json
import math
import os
import warnings
from collections import defaultdict

import numpy as np

__all__ = ["write_csv", "md_table", "fmt", "fmt_mean_sd", "Claim", "line_figure", "mean_sd", "group",
           "append_run", "runs_table"]


def _cell(value):
    if isinstance(value, (bool, np.bool_)):
        return str(bool(value))
    if isinstance(value, (float, np.floating)):
        return repr(float(value))
    if isinstance(value, (np.integer,)):
        return str(int(value))
    return str(value)


def write_csv(path, header, rows):
    """Write ``rows`` (sequences matching ``header``) to ``path``; returns the file name."""
    with open(path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow(header)
        for row in rows:
            writer.writerow([_cell(v) for v in row])
    return os.path.basename(path)


def fmt(value, digits=3):
    """A number for a Markdown table: ``digits`` significant digits, '—' for None/NaN."""
    if value is None:
        return "—"
    if isinstance(value, str):
        return value
    value = float(value)
    if math.isnan(value):
        return "—"
    if math.isinf(value):
        return "∞" if value > 0 else "−∞"
    return f"{value:.{digits}g}"


def fmt_mean_sd(mean, sd, digits=3):
    """'mean ± sd' for a Markdown table: the sd to two significant digits, the mean to the same
    decimal place but to at least ``digits`` significant digits ("1.00 ± 0.19", "2.2305 ± 0.0015",
    "0.587 ± 0.118"); the mean alone (:func:`fmt`) when the sd is 0, None or NaN."""
    if mean is None or sd is None or not math.isfinite(float(mean)) or not math.isfinite(float(sd)) or sd == 0:
        return fmt(mean, digits)
    mean, sd = float(mean), abs(float(sd))

    def decimals(value, significant):  # decimal places that show ``significant`` digits of value
        return max(0, significant - 1 - math.floor(math.log10(abs(value)))) if value else 0

    places = max(decimals(mean, digits), decimals(sd, 2))
    places = min(places, decimals(mean, digits) + 2)  # a tiny sd does not stretch the mean to 15 digits
    return f"{mean:.{places}f} ± {sd:.{places}f}"


def md_table(header, rows):
    """A GitHub-flavoured Markdown table."""
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(fmt(v) if not isinstance(v, str) else v for v in row) + " |" for row in rows]
    return "\n".join(lines)


class Claim:
    """One ordering or statement a paper makes, checked on our numbers."""

    def __init__(self, where, text, holds, detail=""):
        self.where, self.text, self.holds, self.detail = where, text, bool(holds), detail

    def markdown(self):
        verdict = "holds" if self.holds else "**does NOT hold**"
        detail = f" ({self.detail})" if self.detail else ""
        return f"- {self.where}: “{self.text}” — {verdict}{detail}."


def mean_sd(values):
    """Mean and sample standard deviation (0 for one value) of a sequence."""
    a = np.asarray(values, dtype=float)
    return float(a.mean()), float(a.std(ddof=1)) if a.size > 1 else 0.0


def group(tasks, results, experiment, keys):
    """``{tuple(point[k] for k in keys): [value, …]}`` over the tasks of one experiment (grid order)."""
    out = defaultdict(list)
    for task, res in zip(tasks, results):
        if task.experiment == experiment:
            out[tuple(task.point[k] for k in keys)].append(res.value)
    return out


def line_figure(path, title, xlabel, ylabel, series, *, hline=None, hline_label=None, logx=False, logy=False):
    """One panel of curves, saved as PNG; ``series`` maps a label to (x, y) or (x, y, err).

    The book's figure style: 672 px wide, text of at least 11 px, Okabe–Ito colours with a
    marker and a line style per curve (told apart without colour).  Drawn on a bare
    :class:`matplotlib.figure.Figure` (no pyplot state) with fixed margins, which takes a
    fraction of the time of a layout engine.  Returns the file name.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    from ..plotting import style

    GREY, WIDTH, finish_axes, house, series_style = (style.GREY, style.WIDTH, style.finish_axes, style.house,
                                                     style.series)

    with house():
        fig = Figure(figsize=(WIDTH, 0.6 * WIDTH))
        FigureCanvasAgg(fig)
        fig.subplots_adjust(left=0.1, right=0.98, bottom=0.13, top=0.91)
        ax = fig.add_subplot()
        for i, (label, curve) in enumerate(series.items()):
            look = series_style(i)
            kw = dict(color=look["color"], marker=look["marker"], linestyle=look["ls"], label=label)
            x, y = np.asarray(curve[0], float), np.asarray(curve[1], float)
            if len(curve) > 2 and curve[2] is not None:
                ax.errorbar(x, y, yerr=np.asarray(curve[2], float), capsize=3, **kw)
            else:
                ax.plot(x, y, **kw)
        if hline is not None:
            ax.axhline(hline, color=GREY, ls=(0, (4, 3)), lw=1.5, label=hline_label)
        if logx:
            ax.set_xscale("log")
        if logy:
            ax.set_yscale("log")
        ax.set(title=title, xlabel=xlabel, ylabel=ylabel)
        ax.legend()
        finish_axes(fig)
        fig.savefig(path)
    return os.path.basename(path)


# --------------------------------------------------------------------------------------------
# The runs into one output folder (OUT/runs.json), so that a rerun from the cache keeps the
# time the first run measured
# --------------------------------------------------------------------------------------------
RUNS_FILE = "runs.json"


def _read_runs(path):
    try:
        with open(path, encoding="utf-8") as fh:
            runs = json.load(fh)
    except FileNotFoundError:
        return []
    except (OSError, ValueError) as err:
        runs = err
    if not isinstance(runs, list):
        aside = f"{path}.unreadable"
        os.replace(path, aside)
        warnings.warn(f"{path} is not a list of runs ({runs!r:.80}); moved it to {aside} and started a new one",
                      stacklevel=3)
        return []
    return runs


def append_run(out, record):
    """Append ``record`` (a dict) to ``OUT/runs.json`` (a JSON list, written atomically); returns the list."""
    path = os.path.join(out, RUNS_FILE)
    runs = _read_runs(path) + [record]
    tmp = f"{path}.{os.getpid()}.tmp"
    with open(tmp, "w", encoding="utf-8") as fh:
        fh.write("[\n" + ",\n".join(json.dumps(r, ensure_ascii=False) for r in runs) + "\n]\n")  # a run a line
    os.replace(tmp, path)
    return runs


def _number(value, digits=1):
    return "—" if value is None else f"{value:.{digits}f}"


def runs_table(runs, paper, scale):
    """Markdown lines: the runs of ``paper`` at ``scale`` in ``runs`` (from ``OUT/runs.json``), one row each."""
    mine = [r for r in runs if r.get("paper", paper) == paper and r.get("scale", scale) == scale]
    rows = []
    for r in mine:
        workers = r.get("workers")
        workers = (r.get("scheduler") or "—") if workers is None else str(workers)
        load = r.get("load_average")
        load = "—" if not load else " / ".join(f"{x:.1f}" for x in load)
        rows.append((r.get("started_utc") or "—", r.get("backend") or "—", workers, str(r.get("computed", "—")),
                     str(r.get("from_cache", "—")), _number(r.get("wall_seconds")),
                     _number(r.get("cpu_seconds_computed")), load))
    lines = [f"Runs into this folder (`{RUNS_FILE}`; wall time of the whole run, CPU time of the tasks it "
             "computed, load average over 1 / 5 / 15 min when it ended):", "",
             md_table(("started (UTC)", "backend", "workers", "computed", "from cache", "wall (s)", "CPU (s)",
                       "load at end"), rows)]
    if len(mine) < len(runs):
        lines += ["", f"({len(runs) - len(mine)} runs of other papers or scales into this folder are in "
                      f"`{RUNS_FILE}`.)"]
    return lines
