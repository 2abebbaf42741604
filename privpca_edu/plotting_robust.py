"""Figures of the *Heavy tails and outliers* chapter (drawn from :mod:`privpca_edu.experiments.robust`).

* :class:`HeavyTailsFigure` — the explorer: (a) the data in the plane of the first true direction
  v₁ and the outlier direction u, with the shadow of each method's estimated 2-D subspace on that
  plane; (b) every method's error,
  with the reconstructed Theorem 3.4 bound on the Kendall bars.
* :class:`BreakdownFigure` — the breakdown demo: (a) 2-D data with outliers dragged in, the two
  first components; (b) error against the outlier fraction, with Theorem 3.3's guarantee.
* :func:`plot_error_vs_n`, :func:`plot_error_vs_epsilon` — static versions of the paper's Figs 2–5.

Changing text (values of the sliders) lives in animated axes titles, never in the suptitle, so
a slider move only redraws the animated artists (see :class:`privpca_edu.plotting.LiveFigure`).
"""

from __future__ import annotations

import math

import numpy as np
from matplotlib.figure import Figure

from .plotting import LiveFigure, _fmt, _nice_ceil

__all__ = ["HeavyTailsFigure", "BreakdownFigure", "plot_error_vs_n", "plot_error_vs_epsilon", "ROBUST_STYLES"]

#: Colour, marker and short label of each method of experiments.robust.METHODS.
ROBUST_STYLES = {
    "sph": dict(color="#1f77b4", marker="o", short="sph-DPPCA"),
    "wins": dict(color="#17becf", marker="s", short="wins-DPPCA"),
    "AG": dict(color="#d62728", marker="^", short="AG"),
    "SGPCA": dict(color="#9467bd", marker="D", short="SGPCA"),
    "NSGGD": dict(color="#ff7f0e", marker="v", short="NSGGD"),
}
_FAMILY_TITLES = {"gaussian": "Gaussian", "t": "multivariate t₁ (Cauchy)", "contaminated": "5 % contaminated Gaussian"}
_LIMIT = 40.0  # half-width of the explorer's scatter window (data units)


def _df_label(df):
    return "∞ (Gaussian)" if math.isinf(df) else f"{df:g}" + (" (Cauchy)" if df == 1 else "")


class HeavyTailsFigure(LiveFigure):
    """(a) data in the (v₁, u) plane with the shadow of each method's estimated plane; (b) errors and the bound."""

    figsize = (12.0, 4.6)

    def _build(self):
        fig = self.fig
        fig.subplots_adjust(left=0.06, right=0.985, bottom=0.2, top=0.84, wspace=0.28)
        gs = fig.add_gridspec(1, 20)
        self.ax_sc = fig.add_subplot(gs[0, :8])
        self.ax = fig.add_subplot(gs[0, 10:])
        ax = self.ax_sc
        ax.set_xlim(-_LIMIT, _LIMIT)
        ax.set_ylim(-_LIMIT, _LIMIT)
        ax.set_aspect("equal", adjustable="box")
        ax.axhline(0, color="0.85", lw=0.8, zorder=0)
        ax.axvline(0, color="0.85", lw=0.8, zorder=0)
        self.sc_clean = ax.scatter([], [], s=5, color="0.55", alpha=0.5, lw=0, label="records")
        self.sc_out = ax.scatter([], [], s=9, color="#d62728", alpha=0.7, lw=0, label="outliers")
        (self.l_truth,) = ax.plot([-0.95 * _LIMIT, 0.95 * _LIMIT], [0, 0], "k--", lw=1.2,
                                  label="shadow of the true plane (v₁ axis)")
        t = np.linspace(0, 2 * np.pi, 73)
        self._circle = np.vstack([np.cos(t), np.sin(t)])
        self.l_dir = {}
        for m in ("sph", "AG", "NSGGD"):
            st = ROBUST_STYLES[m]
            (self.l_dir[m],) = ax.plot([], [], color=st["color"], lw=2.0, label=f"{st['short']}: shadow of its plane")
        ax.set_xlabel("coordinate along v₁ (true 1st direction)")
        ax.set_ylabel("coordinate along u (outlier direction, ⊥ v₁, v₂)")
        self.leg_sc = ax.legend(loc="lower left", fontsize=6.5, framealpha=0.85, markerscale=2)
        self.t_sc = ax.set_title("", fontsize=9)

        ax = self.ax
        self.names = list(ROBUST_STYLES)
        x = np.arange(len(self.names))
        self.bars = ax.bar(x, np.zeros(len(x)), width=0.62, color=[ROBUST_STYLES[m]["color"] for m in self.names],
                           alpha=0.85)
        (self.dots,) = ax.plot([], [], "o", color="k", ms=3, alpha=0.6, label="one data set each")
        (self.l_bound,) = ax.plot([], [], "-", color="k", lw=2.5, label="Thm 3.4 bound (reconstructed, C = 1)")
        self.l_one = ax.axhline(1.0, color="0.4", ls=":", lw=1.2, label="1 = orthogonal (useless)")
        ax.set_xticks(x, [ROBUST_STYLES[m]["short"] for m in self.names], fontsize=8.5)
        ax.set_ylim(0, 1.32)
        ax.set_yticks(np.linspace(0, 1, 6))
        ax.set_xlim(-0.6, len(x) - 0.4)
        ax.set_ylabel("error ‖sin Θ(V̂, V)‖₂ (largest angle's sine)")
        self.leg_bar = ax.legend(loc="upper center", fontsize=7, framealpha=0.9, ncol=3, columnspacing=1.0)
        self.t_bar = ax.set_title("", fontsize=9)
        self.title = fig.suptitle("Heavy tails and outliers: who still finds the top-2 subspace?", fontsize=11)
        self._animate(self.sc_clean, self.sc_out, list(self.l_dir.values()), self.t_sc, self.bars, self.dots,
                      self.l_bound, self.t_bar)
        # drawn over moving artists in a full render, so animated too: the true plane's shadow and
        # the "orthogonal" line (over the scatter and the bound marks) and both legends
        self._animate(self.l_truth, self.l_one, self.leg_sc, self.leg_bar)
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
        self.t_sc.set_text(f"(a) one data set: n = {r['n_samples']}, d = {r['n_features']}, t with ν = "
                           f"{_df_label(r['df'])}, {int(out.sum())} outliers"
                           + (f"\n{outside} records beyond the window" if outside else "\n "))
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
        self.t_bar.set_text(f"(b) ε = {_fmt(r['epsilon'])}, δ = {r['delta']:.0e}, η = {100 * r['contamination']:.0f} %, "
                            f"mean of {r['n_reps']} data sets:\n"
                            + "  ".join(f"{ROBUST_STYLES[m]['short']} {h:.2f}" for m, h in zip(self.names, means)))


class BreakdownFigure(LiveFigure):
    """(a) 2-D data, outliers, the two first components; (b) error against the outlier fraction."""

    figsize = (12.0, 4.4)

    def _build(self):
        fig = self.fig
        fig.subplots_adjust(left=0.06, right=0.985, bottom=0.15, top=0.84, wspace=0.28)
        gs = fig.add_gridspec(1, 20)
        self.ax_sc = fig.add_subplot(gs[0, :8])
        self.ax = fig.add_subplot(gs[0, 10:])
        ax = self.ax_sc
        ax.set_aspect("equal", adjustable="box")
        self.sc_clean = ax.scatter([], [], s=8, color="0.5", alpha=0.6, lw=0, label="records")
        self.sc_out = ax.scatter([], [], s=12, color="#d62728", alpha=0.8, lw=0, label="outliers")
        (self.l_truth,) = ax.plot([], [], "k--", lw=1.2, label="true v₁")
        (self.l_ag,) = ax.plot([], [], color=ROBUST_STYLES["AG"]["color"], lw=2.4, label="covariance (AG) 1st PC")
        (self.l_kd,) = ax.plot([], [], color=ROBUST_STYLES["sph"]["color"], lw=2.4, label="Kendall τ (sph) 1st PC")
        ax.set_xlabel("x₁ (true direction v₁)")
        ax.set_ylabel("x₂ (outliers pull along this axis)")
        self.leg_sc = ax.legend(loc="lower left", fontsize=7, framealpha=0.85, markerscale=1.5)
        self.t_sc = ax.set_title("", fontsize=9)

        ax = self.ax
        (self.c_ag,) = ax.plot([], [], "-", color=ROBUST_STYLES["AG"]["color"], lw=2, label="covariance PCA (AG)")
        (self.c_kd,) = ax.plot([], [], "-", color=ROBUST_STYLES["sph"]["color"], lw=2, label="Kendall's τ (sph)")
        (self.c_bound,) = ax.plot([], [], "--", color="k", lw=1.3,
                                  label="Thm 3.3 bound on the change (reconstructed, explicit)")
        self.v_guar = ax.axvline(0.0, color="#2ca02c", lw=1.5, label="guaranteed fraction (Thm 3.3)")
        (self.p_ag,) = ax.plot([], [], "o", color=ROBUST_STYLES["AG"]["color"], ms=8)
        (self.p_kd,) = ax.plot([], [], "o", color=ROBUST_STYLES["sph"]["color"], ms=8)
        ax.set_xlim(0, 0.5)
        ax.set_ylim(0, 1.05)
        ax.set_xlabel("fraction of records replaced by outliers")
        ax.set_ylabel("error |sin θ| of the 1st component")
        self.leg_b = ax.legend(loc="center right", fontsize=7, framealpha=0.9)
        self.t_b = ax.set_title("", fontsize=9)
        self.title = fig.suptitle("Breakdown: how many outliers does it take to turn the first component?",
                                  fontsize=11)
        self._limit = None
        self._animate(self.sc_clean, self.sc_out, self.l_truth, self.l_ag, self.l_kd, self.t_sc, self.c_ag, self.c_kd,
                      self.c_bound, self.v_guar, self.p_ag, self.p_kd, self.t_b)
        self._animate(self.leg_sc, self.leg_b)  # the moving lines pass under the legends
        self._spines_below()

    def _draw(self, r):
        X, out = r["X"], r["outlier"]
        self.sc_clean.set_offsets(X[~out])
        self.sc_out.set_offsets(X[out] if out.any() else np.empty((0, 2)))
        # a "nice" half-width (1, 1.25, 1.5, 2, … × 10^k): the frame stays put while the outliers are
        # dragged a little, so the cached background (ticks) survives most distance moves
        lim = _nice_ceil(float(max(4 * math.sqrt(r["spike"]), 1.25 * r["distance"] * 1.3)))
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
                          f"{r['loss']['sph']:.2f}\ncovariance can break at 1/n = {r['covariance_breakdown']:.3f}; "
                          f"Kendall is guaranteed up to {g:.3f}")


def _family_axes(n_panels, width=4.2, height=3.6):
    fig = Figure(figsize=(width * n_panels, height), dpi=90)
    axes = fig.subplots(1, n_panels, squeeze=False)[0]
    return fig, axes


def plot_error_vs_n(results, *, d_index=0, title=None):
    """Figs 2–4: one panel per law, mean loss (± 1 SE) against n (log axis), one line per method.

    ``results``: :func:`privpca_edu.experiments.robust.figures_2_to_4` (or a dict with one family).
    """
    fams = list(results)
    fig, axes = _family_axes(len(fams))
    for ax, fam in zip(axes, fams):
        r = results[fam]
        ns = r["n_samples"]
        for m in r["methods"]:
            st = ROBUST_STYLES[m]
            mean, se = r["mean"][m][d_index], r["se"][m][d_index]
            ax.errorbar(ns, mean, yerr=se, marker=st["marker"], ms=4, color=st["color"], lw=1.5, capsize=2,
                        label=st["short"])
        ax.set_xscale("log")
        ax.set_xticks(ns, [str(n) for n in ns])
        ax.minorticks_off()
        ax.set_ylim(0, 1.05)
        ax.set_xlabel("sample size n (log scale)")
        ax.set_title(f"{_FAMILY_TITLES.get(fam, fam)}, d = {r['n_features'][d_index]}", fontsize=9.5)
    axes[0].set_ylabel("mean error ‖sin Θ(V̂, V)‖₂")
    axes[-1].legend(fontsize=7.5, loc="upper right", framealpha=0.9)
    r0 = results[fams[0]]
    fig.suptitle(title or f"Error against n (ε = {r0['epsilon']:g}, δ = {r0['delta']:g}, "
                          f"{r0['settings']['n_reps']} data sets per point, ± 1 SE)", fontsize=10.5)
    fig.tight_layout()
    return fig


def plot_error_vs_epsilon(results, *, title=None):
    """Fig. 5: one panel per law, mean loss (± 1 SE) against ε (log axis), one line per method."""
    fams = list(results)
    fig, axes = _family_axes(len(fams))
    for ax, fam in zip(axes, fams):
        r = results[fam]
        eps = r["epsilons"]
        for m in r["methods"]:
            st = ROBUST_STYLES[m]
            ax.errorbar(eps, r["mean"][m], yerr=r["se"][m], marker=st["marker"], ms=4, color=st["color"], lw=1.5,
                        capsize=2, label=st["short"])
        ax.set_xscale("log")
        ax.set_xticks(eps, [f"{e:g}" for e in eps])
        ax.minorticks_off()
        ax.set_ylim(0, 1.05)
        ax.set_xlabel("privacy budget ε (log scale)")
        ax.set_title(f"{_FAMILY_TITLES.get(fam, fam)}, n = {r['n_samples']}, d = {r['n_features']}", fontsize=9.5)
    axes[0].set_ylabel("mean error ‖sin Θ(V̂, V)‖₂")
    axes[-1].legend(fontsize=7.5, loc="lower left", framealpha=0.9)
    r0 = results[fams[0]]
    fig.suptitle(title or f"Error against ε (δ = {r0['delta']:g}, {r0['settings']['n_reps']} data sets per point, "
                          "± 1 SE)", fontsize=10.5)
    fig.tight_layout()
    return fig

