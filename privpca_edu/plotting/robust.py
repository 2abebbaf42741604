"""Figures of the *Heavy tails and outliers* chapter (drawn from :mod:`privpca_edu.experiments.robust`).

* :class:`HeavyTailsFigure` — the explorer: (a) the data in the plane of the first true direction
  v₁ and the outlier direction u, with the shadow of each method's estimated 2-D subspace on that
  plane; (b) every method's error,
  with Theorem 3.4's bound (constant C = 1) on the Kendall bars.
* :class:`BreakdownFigure` — the breakdown demo: (a) 2-D data with outliers dragged in, the two
  first components; (b) error against the outlier fraction, with Theorem 3.3's guarantee.
* :func:`plot_error_vs_n`, :func:`plot_error_vs_epsilon` — static versions of the paper's Figs 2–5.

Changing text (values of the sliders) lives in animated axes titles, never in the suptitle, so
a slider move only redraws the animated artists (see :class:`privpca_edu.plotting.LiveFigure`).
"""

from __future__ import annotations

import math

import numpy as np

from . import _style as S
from ._live import LiveFigure, StaticFigure, band_verts, new_figure, nice_ceil, wrap

__all__ = ["HeavyTailsFigure", "BreakdownFigure", "plot_error_vs_n", "plot_error_vs_epsilon", "ROBUST_STYLES"]

#: Colour, marker and short label of each method of experiments.robust.METHODS.
ROBUST_STYLES = {m: S.style(m) for m in ("sph", "wins", "AG", "SGPCA", "NSGGD")}
#: The paper's error, the spectral norm ‖sin Θ‖₂ = sin θ_max (its theorems bound it; see the chapter).
_ERROR = r"error $\|\sin\Theta(\hat V, V)\|_2$"
_FAMILY_TITLES = {"gaussian": "Gaussian", "t": "multivariate t₁ (Cauchy)", "contaminated": "5 % contaminated Gaussian"}
_LIMIT = 40.0  # half-width of the explorer's scatter window (data units)


def _df_label(df):
    return "∞ (Gaussian)" if math.isinf(df) else f"{df:g}" + (" (Cauchy)" if df == 1 else "")


class HeavyTailsFigure(LiveFigure):
    """(a) data in the (v₁, u) plane with the shadow of each method's estimated plane; (b) errors and the bound.

    Parameters
    ----------
    data : dict or None, default=None
        A result of :func:`~privpca_edu.experiments.robust.heavy_tails_explorer` to draw at once (``None``: draw nothing until :meth:`draw`).
    """

    height = 10.6
    alt = ("Two panels. (a) One data set projected on the plane of the first true direction v₁ and the outlier "
           "direction u: records as grey dots, outliers as black crosses, and for three methods (Kendall τ "
           "spherical, Analyze Gauss, NSGGD) the shadow of its estimated plane. (b) Bars of each method's mean "
           "error ‖sin Θ‖₂ (the sine of the largest principal angle) with one dot per data set, and Theorem 3.4's bound (constant C = 1) on the Kendall bars.")

    def _build(self):
        fig = self.fig
        self.ax_sc, self.ax = fig.subplots(2, 1, height_ratios=[1.25, 1.0])
        ax = self.ax_sc
        ax.set_xlim(-_LIMIT, _LIMIT)
        ax.set_ylim(-_LIMIT, _LIMIT)
        ax.set_aspect("equal", adjustable="box")
        ax.axhline(0, color="0.85", lw=0.8, zorder=0)
        ax.axvline(0, color="0.85", lw=0.8, zorder=0)
        self.sc_clean = ax.scatter([], [], s=6, color=S.GREY, alpha=0.5, lw=0, label="records")
        self.sc_out = ax.scatter([], [], s=22, color="k", marker="x", alpha=0.8, lw=1.0, label="outliers")
        (self.l_truth,) = ax.plot([-0.95 * _LIMIT, 0.95 * _LIMIT], [0, 0], "k--", lw=1.2,
                                  label="true plane\n(the $v_1$ axis)")
        t = np.linspace(0, 2 * np.pi, 73)
        self._circle = np.vstack([np.cos(t), np.sin(t)])
        self.l_dir = {}
        for m in ("sph", "AG", "NSGGD"):
            st = ROBUST_STYLES[m]
            (self.l_dir[m],) = ax.plot([], [], color=st["color"], ls=st["ls"], lw=2.2, label=st["short"])
        ax.set_xlabel(r"coordinate along $v_1$ (true 1st direction)")
        ax.set_ylabel(r"along $u$ (outliers, $\perp v_1, v_2$)")
        ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0, markerscale=1.5,
                  title="shadow of the\nestimated plane:", alignment="left")
        self.t_sc = ax.set_title("", loc="left")

        ax = self.ax
        self.names = list(ROBUST_STYLES)
        x = np.arange(len(self.names))
        self.bars = ax.bar(x, np.zeros(len(x)), width=0.62, color=[ROBUST_STYLES[m]["color"] for m in self.names],
                           alpha=0.85, edgecolor="k", linewidth=0.6)
        (self.dots,) = ax.plot([], [], "o", color="k", ms=3, alpha=0.6, label="one data set each")
        (self.l_bound,) = ax.plot([], [], "-", color="k", lw=2.5, label="Thm 3.4 bound\n(constant C = 1)")
        self.l_one = ax.axhline(1.0, color=S.GREY, ls=":", lw=1.5, label="1 = orthogonal\n(useless)")
        ax.set_xticks(x, [ROBUST_STYLES[m]["short"].replace("-", "-\n") for m in self.names])
        ax.set_ylim(0, 1.08)
        ax.set_yticks(np.linspace(0, 1, 6))
        ax.set_xlim(-0.6, len(x) - 0.4)
        self.bar_values = [ax.text(i, 0, "", ha="center", va="bottom", fontsize=S.SMALL) for i in x]
        ax.set_ylabel(_ERROR)
        ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0)
        self.t_bar = ax.set_title("", loc="left")
        self._animate(self.sc_clean, self.sc_out, list(self.l_dir.values()), self.t_sc, self.bars, self.dots,
                      self.l_bound, self.t_bar, self.bar_values)
        # drawn over moving artists in a full render, so animated too: the true plane's shadow and
        # the "orthogonal" line (over the scatter and the bound marks) and both legends
        self._animate(self.l_truth, self.l_one)
        self._spines_below()

    def _draw(self, r):
        sc = r["scatter"]
        pts = np.column_stack([sc["x"], sc["y"]])
        out = sc["outlier"]
        self.sc_clean.set_offsets(pts[~out])
        self.sc_out.set_offsets(pts[out] if out.any() else np.empty((0, 2)))
        outside = int(np.sum(np.any(np.abs(pts) > _LIMIT, axis=1)))
        for m, line in self.l_dir.items():
            # image of the estimated plane's unit circle on the (v₁, u) plane, scaled to the window:
            # a horizontal segment = the plane contains v₁ and nothing of u; a circle = it contains both
            shadow = 0.95 * _LIMIT * (r["directions"][m] @ self._circle)
            line.set_data(shadow[0], shadow[1])
        self.t_sc.set_text(f"(a) one data set: n = {r['n_samples']}, d = {r['n_features']},\nt with ν = "
                           f"{_df_label(r['df'])}, {int(out.sum())} outliers"
                           + (f"; {outside} records beyond the window" if outside else ""))
        means = [r["mean"][m] for m in self.names]
        for rect, h in zip(self.bars, means):
            rect.set_height(h)
        xs, ys = [], []
        for i, m in enumerate(self.names):
            v = r["losses"][m]
            xs += list(i + np.linspace(-0.18, 0.18, len(v)))
            ys += list(v)
        self.dots.set_data(xs, ys)
        bx, by = [], []
        for i, m in enumerate(self.names):
            if m in r["bound"]:
                bx += [i - 0.31, i + 0.31, np.nan]
                by += [r["bound"][m]] * 2 + [np.nan]
        self.l_bound.set_data(bx, by)
        # one animated text per panel: text rendering is most of a frame's cost
        self.t_bar.set_text(f"(b) ε = {S.fmt(r['epsilon'])}, δ = {r['delta']:.0e}, η = {100 * r['contamination']:.0f} %, "
                            f"mean of {r['n_reps']} data sets:\n"
                            + "  ".join(f"{ROBUST_STYLES[m]['short']} {h:.2f}" for m, h in zip(self.names, means)))
        for text, m, h in zip(self.bar_values, self.names, means):
            text.set_text(f"{h:.2f}")
            text.set_y(min(h, 1.0) + 0.02)


class BreakdownFigure(LiveFigure):
    """(a) 2-D data, outliers, the two first components; (b) error against the outlier fraction.

    Parameters
    ----------
    data : dict or None, default=None
        A result of :func:`~privpca_edu.experiments.robust.breakdown_demo` to draw at once (``None``: draw nothing until :meth:`draw`).
    """

    height = 10.0
    alt = ("Two panels. (a) Two-dimensional records as grey dots and outliers as black crosses dragged along the "
           "second axis, with the true first direction and the first components of covariance PCA (Analyze "
           "Gauss) and of Kendall's τ. (b) Error of the first component against the fraction of outliers for "
           "both methods (‖sin Θ‖₂, which for one component is |sin θ|), with Theorem 3.3's bound and the fraction up to "
           "which Kendall's τ is guaranteed.")

    def _build(self):
        fig = self.fig
        self.ax_sc, self.ax = fig.subplots(2, 1, height_ratios=[1.2, 1.0])
        ax = self.ax_sc
        ax.set_aspect("equal", adjustable="box")
        ag, kd = ROBUST_STYLES["AG"], ROBUST_STYLES["sph"]
        self.sc_clean = ax.scatter([], [], s=8, color=S.GREY, alpha=0.6, lw=0, label="records")
        self.sc_out = ax.scatter([], [], s=26, color="k", marker="x", alpha=0.8, lw=1.0, label="outliers")
        (self.l_truth,) = ax.plot([], [], "k:", lw=1.5, label="true $v_1$")
        (self.l_ag,) = ax.plot([], [], color=ag["color"], ls=ag["ls"], lw=2.4, label="covariance\n1st PC")
        (self.l_kd,) = ax.plot([], [], color=kd["color"], ls=kd["ls"], lw=2.4, label="Kendall τ (sph)\n1st PC")
        ax.set_xlabel(r"$x_1$ (true direction $v_1$)")
        ax.set_ylabel(r"$x_2$ (outliers pull along it)")
        ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0, markerscale=1.5)
        self.t_sc = ax.set_title("", loc="left")

        ax = self.ax
        (self.c_ag,) = ax.plot([], [], color=ag["color"], ls=ag["ls"], lw=2.2, label="covariance\nPCA")
        (self.c_kd,) = ax.plot([], [], color=kd["color"], ls=kd["ls"], lw=2.2, label="Kendall's τ\n(sph)")
        (self.c_bound,) = ax.plot([], [], ":", color="k", lw=1.8,
                                  label="Thm 3.3 bound\n(book's constant)")
        self.v_guar = ax.axvline(0.0, color=S.OKABE_ITO["green"], lw=1.5, ls=(0, (1, 1)),
                                 label="guaranteed\nfraction (Thm 3.3)")
        (self.p_ag,) = ax.plot([], [], ag["marker"], color=ag["color"], mec="k", ms=9)
        (self.p_kd,) = ax.plot([], [], kd["marker"], color=kd["color"], mec="k", ms=9)
        ax.set_xlim(0, 0.5)
        ax.set_ylim(0, 1.05)
        ax.set_xlabel("fraction of records replaced by outliers")
        ax.set_ylabel(r"error $\|\sin\Theta\|_2 = |\sin\theta|$" + "\nof the 1st component")
        ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0)
        self.t_b = ax.set_title("", loc="left")
        self._limit = None
        self._animate(self.sc_clean, self.sc_out, self.l_truth, self.l_ag, self.l_kd, self.t_sc, self.c_ag, self.c_kd,
                      self.c_bound, self.v_guar, self.p_ag, self.p_kd, self.t_b)
        self._spines_below()

    def _draw(self, r):
        X, out = r["X"], r["outlier"]
        self.sc_clean.set_offsets(X[~out])
        self.sc_out.set_offsets(X[out] if out.any() else np.empty((0, 2)))
        # a "nice" half-width (1, 1.25, 1.5, 2, … × 10^k): the frame stays put while the outliers are
        # dragged a little, so the cached background (ticks) survives most distance moves
        lim = nice_ceil(float(max(4 * math.sqrt(r["spike"]), 1.25 * r["distance"] * 1.3)))
        if self._limit != lim:
            self.ax_sc.set_xlim(-lim, lim)
            self.ax_sc.set_ylim(-lim, lim)
            self._limit = lim
        self.l_truth.set_data([-lim, lim], [0, 0])
        for line, key in ((self.l_ag, "AG"), (self.l_kd, "sph")):
            c = r["directions"][key]
            line.set_data([-lim * c[0], lim * c[0]], [-lim * c[1], lim * c[1]])
        privacy = "no noise (ε = ∞)" if math.isinf(r["epsilon"]) else f"ε = {r['epsilon']:g}"
        self.t_sc.set_text(f"(a) n = {r['n_samples']}, {r['n_outliers']} outliers at distance {r['distance']:.3g}\n"
                           f"{privacy}")
        f = r["fractions"]
        self.c_ag.set_data(f, r["curves"]["AG"])
        self.c_kd.set_data(f, r["curves"]["sph"])
        self.c_bound.set_data(f, r["bound_curve"])
        g = r["guaranteed_fraction"]
        self.v_guar.set_xdata([g, g])
        self.p_ag.set_data([r["fraction"]], [r["loss"]["AG"]])
        self.p_kd.set_data([r["fraction"]], [r["loss"]["sph"]])
        self.t_b.set_text(f"(b) {100 * r['fraction']:.0f} % outliers: error AG {r['loss']['AG']:.2f}, Kendall "
                          f"{r['loss']['sph']:.2f}\ncovariance can break at 1/n = {r['covariance_breakdown']:.3f};\n"
                          f"Kendall is guaranteed up to {g:.3f}")


def _family_axes(n_panels):
    """Two panels per row, one more slot for the legend when the count is odd."""
    rows = (n_panels + 2) // 2
    fig = new_figure(4.3 * rows + 0.6)
    axes = fig.subplots(rows, 2, squeeze=False).ravel()
    for ax in axes[n_panels:]:
        ax.axis("off")
    return fig, axes[:n_panels], (axes[n_panels] if len(axes) > n_panels else None)


def _legend(fig, axes, spare):
    handles, labels = axes[0].get_legend_handles_labels()
    if spare is not None:
        spare.legend(handles, labels, loc="center", title="method")
    else:
        fig.legend(handles, labels, loc="outside lower center", ncol=len(labels))


@S.in_house
def plot_error_vs_n(results, *, d_index=0, title=None):
    """Plot Figs 2–4: one panel per law, mean loss (± 1 SE) against n, one line per method.

    ``results``: :func:`privpca_edu.experiments.robust.figures_2_to_4` (or a dict with one family).

    Parameters
    ----------
    results : dict
        A result of :func:`~privpca_edu.experiments.robust.figures_2_to_4` (or a dict with one family).
    d_index : int, default=0
        Which of the dimensions d of the results to plot.
    title : str or None, default=None
        The figure's title (``None``: one stating the settings).

    Returns
    -------
    matplotlib.figure.Figure
        The figure.
    """
    fams = list(results)
    fig, axes, spare = _family_axes(len(fams))
    for ax, fam in zip(axes, fams):
        r = results[fam]
        ns = r["n_samples"]
        for m in r["methods"]:
            st = ROBUST_STYLES[m]
            mean, se = r["mean"][m][d_index], r["se"][m][d_index]
            ax.errorbar(ns, mean, yerr=se, marker=st["marker"], ls=st["ls"], ms=5, color=st["color"], lw=1.6,
                        capsize=2, label=st["short"])
        ax.set_xscale("log")
        ax.set_xticks(ns, [str(n) for n in ns])
        ax.minorticks_off()
        ax.set_ylim(0, 1.05)
        ax.set_xlabel(r"sample size $n$ (log scale)")
        ax.set_ylabel(_ERROR)
        ax.set_title(wrap(f"{_FAMILY_TITLES.get(fam, fam)}, d = {r['n_features'][d_index]}", 40), loc="left")
    _legend(fig, axes, spare)
    r0 = results[fams[0]]
    fig.suptitle(title or f"Error against n (ε = {r0['epsilon']:g}, δ = {r0['delta']:g}, "
                          f"{r0['settings']['n_reps']} data sets per point, ± 1 SE)")
    return fig


@S.in_house
def plot_error_vs_epsilon(results, *, title=None):
    """Plot Fig. 5: one panel per law, mean loss (± 1 SE) against ε (log axis), one line per method.

    Parameters
    ----------
    results : dict
        A result of :func:`~privpca_edu.experiments.robust.figure5`.
    title : str or None, default=None
        The figure's title (``None``: one stating the settings).

    Returns
    -------
    matplotlib.figure.Figure
        The figure.
    """
    fams = list(results)
    fig, axes, spare = _family_axes(len(fams))
    for ax, fam in zip(axes, fams):
        r = results[fam]
        eps = r["epsilons"]
        for m in r["methods"]:
            st = ROBUST_STYLES[m]
            ax.errorbar(eps, r["mean"][m], yerr=r["se"][m], marker=st["marker"], ls=st["ls"], ms=5,
                        color=st["color"], lw=1.6, capsize=2, label=st["short"])
        ax.set_xscale("log")
        ax.set_xticks(eps, [f"{e:g}" for e in eps])
        ax.minorticks_off()
        ax.set_ylim(0, 1.05)
        ax.set_xlabel(S.LABELS["epsilon_log"])
        ax.set_ylabel(_ERROR)
        ax.set_title(wrap(f"{_FAMILY_TITLES.get(fam, fam)}, n = {r['n_samples']}, d = {r['n_features']}", 40),
                     loc="left")
    _legend(fig, axes, spare)
    r0 = results[fams[0]]
    fig.suptitle(title or f"Error against ε (δ = {r0['delta']:g}, {r0['settings']['n_reps']} data sets per point, "
                          "± 1 SE)")
    return fig

