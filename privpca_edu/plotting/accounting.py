r"""Chapter 2's figure: σ for each accounting method (:mod:`privpca_edu.experiments.accounting`)."""

from __future__ import annotations

import math

import numpy as np
from matplotlib.lines import Line2D
from matplotlib.patches import Rectangle

from . import _style as S
from ._live import LiveFigure

__all__ = ["SigmaFigure", "plot_sigma_curves", "ACCOUNTING_METHODS"]

#: The accounting methods of privacy.ITERATIVE_CALIBRATIONS, in the order drawn (STYLES keys).
ACCOUNTING_METHODS = ("paper", "classic", "analytic_basic", "advanced", "zcdp", "analytic_exact")


class SigmaFigure(LiveFigure):
    """Two panels from :func:`privpca_edu.experiments.sigma_curves`.

    (a) per-step σ against ε (log–log) for each method; dotted where privpca_edu.privacy warns that the
    method's proof does not hold (the shaded region ε/T ≥ 1); black crosses: DPS-PCA's
    reference table when δ, T and Δ match it.  (b) σ at the chosen ε, one bar per method.

    Parameters
    ----------
    data : dict or None, default=None
        A result of :func:`~privpca_edu.experiments.sigma_curves` to draw at once (``None``: draw nothing until :meth:`draw`).
    """

    height = 8.4
    alt = ("Two panels. (a) Per-step Gaussian noise σ against the total privacy budget ε, both on log axes, "
           "one falling curve per accounting method (DPS-PCA's σ, classic and analytic Gaussian mechanism with "
           "basic composition, advanced composition, zero-concentrated DP, exact Gaussian DP), each with its "
           "own colour, line style and marker; the exact Gaussian-DP curve is lowest. (b) Horizontal bars: σ at "
           "the chosen ε for each method, smaller is better.")

    def _build(self):
        fig = self.fig
        self.ax, self.ax_bar = fig.subplots(2, 1, height_ratios=[1.35, 1.0])
        ax = self.ax
        ax.set_xscale("log")
        ax.set_yscale("log")
        S.log_decades(ax.xaxis, -2, 2)
        ax.set_xlim(0.01, 100)
        self.shade = Rectangle((1.0, 0.0), 1e3, 1.0, transform=ax.get_xaxis_transform(),
                               facecolor="#EEEEEE", edgecolor="none", zorder=0)
        ax.add_patch(self.shade)
        self.shade_text = ax.text(1.0, 0.98, " classic proofs\n need ε/T < 1", transform=ax.get_xaxis_transform(),
                                  fontsize=S.SMALL, color="0.25", va="top", ha="left")
        self.lines, self.lines_bad, self.points = {}, {}, {}
        handles = []
        for m in ACCOUNTING_METHODS:
            st = S.style(m)
            (self.lines[m],) = ax.plot([], [], lw=2, color=st["color"], ls=st["ls"], marker=st["marker"],
                                       ms=5.5, markevery=0.1)
            (self.lines_bad[m],) = ax.plot([], [], lw=1.2, ls=":", color=st["color"])
            (self.points[m],) = ax.plot([], [], st["marker"], ms=9, color=st["color"], mec="k", zorder=5)
            handles.append(Line2D([], [], color=st["color"], ls=st["ls"], marker=st["marker"], lw=2, ms=6,
                                  label=st["short"]))
        (self.ref,) = ax.plot([], [], "x", color="k", ms=9, mew=2, zorder=6)
        handles.append(Line2D([], [], color="k", marker="x", ls="none", ms=9, mew=2, label="DPS-PCA's\ntable"))
        handles.append(Line2D([], [], color=S.GREY, ls=":", lw=1.2, label="no proof"))
        self.vline = ax.axvline(1.0, color="0.2", lw=1.0)
        ax.set_xlabel(S.LABELS["epsilon_log"])
        ax.set_ylabel(r"per-step $\sigma$ (units of $\Delta$)")
        ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0, handlelength=2.6)
        self.ax_title = ax.set_title("", loc="left")

        ax = self.ax_bar
        names = list(ACCOUNTING_METHODS)
        self.bar_names = names
        y = np.arange(len(names))[::-1]
        ax.set_xscale("log")
        self.bars = ax.barh(y, np.ones(len(names)), left=1.0, color=[S.style(m)["color"] for m in names],
                            height=0.62, edgecolor="k", linewidth=0.6)
        ax.set_yticks(y, [S.style(m)["short"] for m in names])
        self.bar_text = [ax.text(1.0, yi, "", va="center", ha="left", fontsize=S.SMALL) for yi in y]
        ax.set_xlabel(r"$\sigma$ at the chosen $\varepsilon$ (log scale)")
        ax.set_ylim(-0.6, len(names) - 0.4)
        self.bar_title = ax.set_title("", loc="left")
        self._animate(list(self.lines.values()), list(self.lines_bad.values()), list(self.points.values()),
                      self.ref, self.vline, self.shade, self.shade_text, self.ax_title, self.bars,
                      self.bar_text, self.bar_title)
        self._spines_below()  # the bars start on the left spine: both renders draw it under them

    def _draw(self, r):
        eps = r["epsilons"]
        ymin, ymax = np.inf, 0.0
        for m in ACCOUNTING_METHODS:
            visible = m in r["sigma"]
            for artist in (self.lines[m], self.lines_bad[m], self.points[m]):
                artist.set_visible(visible)
            if not visible:
                continue
            s, ok = r["sigma"][m], r["valid"][m]
            good = np.where(ok, s, np.nan)
            # the dotted part overlaps the solid one by one grid point so the curve is continuous
            bad_mask = ~ok | np.r_[~ok[1:], False]
            bad = np.where(bad_mask, s, np.nan)
            self.lines[m].set_data(eps, good)
            self.lines_bad[m].set_data(eps, bad)
            finite = s[np.isfinite(s) & (s > 0)]
            if finite.size:
                ymin, ymax = min(ymin, finite.min()), max(ymax, finite.max())
        e = r["epsilon"]
        e_plot = min(max(e, 0.01), 100.0)
        for m, s in r["sigma_at"].items():
            self.points[m].set_data([e_plot], [s])
        self.vline.set_xdata([e_plot, e_plot])
        T = r["proof_limit"]
        self.shade.set_x(T)
        self.shade.set_visible(T < 100)
        self.shade_text.set_position((T, 0.98))
        self.shade_text.set_visible(T < 20)
        ref = r["reference"]
        self.ref.set_data([row["epsilon"] for row in ref], [row["sigma"] for row in ref])
        lo, hi = self.ax.get_ylim()
        if np.isfinite(ymin) and (ymin < lo or ymax > hi or ymax < hi / 100 or ymin > lo * 100):
            # decades only, and only when the curves leave the frame or shrink a lot: the cached
            # background (ticks, labels) then survives most slider moves
            lo = 10.0 ** math.floor(math.log10(ymin))
            hi = 10.0 ** math.ceil(math.log10(ymax))
            self.ax.set_ylim(lo, hi)
            S.log_decades(self.ax.yaxis, int(round(math.log10(lo))), int(round(math.log10(hi))))
            self.ax_bar.set_xlim(lo, hi * 300)  # room for the labels right of the bars
            S.log_decades(self.ax_bar.xaxis, int(round(math.log10(lo))), int(round(math.log10(hi))))
        steps = "step" if r["n_steps"] == 1 else "steps"
        self.ax_title.set_text(f"(a) T = {r['n_steps']} Gaussian {steps} of sensitivity Δ = {r['sensitivity']:.4g},\n"
                               f"({S.fmt(e)}, {r['delta']:.3g})-DP in total")

        values = [r["sigma_at"].get(m, np.nan) for m in self.bar_names]
        lo = self.ax_bar.get_xlim()[0]
        for rect, text, m, v in zip(self.bars, self.bar_text, self.bar_names, values):
            rect.set_x(lo)
            rect.set_width(0.0 if not np.isfinite(v) or v <= lo else v - lo)
            rect.set_hatch(None if r["valid_at"].get(m, True) else "///")
            label = "" if not np.isfinite(v) else f" {v:.4g}"
            if m in r["reference_at"]:
                label += f"  (table {r['reference_at'][m]:.2f})"
            if not r["valid_at"].get(m, True):
                label += "  no proof"
            text.set_text(label)
            text.set_x(lo if not np.isfinite(v) else max(v, lo))
        self.bar_title.set_text(f"(b) σ at ε = {S.fmt(e)}: smaller is better")


def plot_sigma_curves(result):
    """Static figure of :func:`privpca_edu.experiments.sigma_curves`.

    Parameters
    ----------
    result : dict
        A result of :func:`~privpca_edu.experiments.sigma_curves`.

    Returns
    -------
    matplotlib.figure.Figure
        The figure.
    """
    return SigmaFigure(result).fig
