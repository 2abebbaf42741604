"""Writing a reproduction: CSV tables, PNG figures and the Markdown of ``report.md``.

CSV numbers are written with ``repr`` (shortest round-trip form), so two runs agree byte for
byte exactly when their numbers agree bit for bit.  Tables whose numbers are measured times
end in ``_timing.csv``: they are the only outputs that differ between runs.
"""

from __future__ import annotations

import csv
import math
import os
from collections import defaultdict

import numpy as np

__all__ = ["write_csv", "md_table", "fmt", "Claim", "line_figure", "mean_sd", "group"]


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
    """One panel of curves: ``series`` maps a label to (x, y) or (x, y, err). Returns the file name."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5.2, 3.6), layout="constrained")
    for label, curve in series.items():
        x, y = np.asarray(curve[0], float), np.asarray(curve[1], float)
        if len(curve) > 2 and curve[2] is not None:
            ax.errorbar(x, y, yerr=np.asarray(curve[2], float), marker="o", ms=3, capsize=2, label=label)
        else:
            ax.plot(x, y, marker="o", ms=3, label=label)
    if hline is not None:
        ax.axhline(hline, color="0.5", ls="--", lw=1, label=hline_label)
    if logx:
        ax.set_xscale("log")
    if logy:
        ax.set_yscale("log")
    ax.set(title=title, xlabel=xlabel, ylabel=ylabel)
    ax.legend(fontsize=7)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return os.path.basename(path)
