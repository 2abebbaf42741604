r"""Chapter 1's figure: one person in a PCA release (:mod:`privpca_edu.experiments.attack`)."""

from __future__ import annotations

import numpy as np
from matplotlib import ticker
from matplotlib.patches import Rectangle

from . import _style as S
from ._live import LiveFigure, TitleBlock, bar_collection, set_bar_heights

__all__ = ["AttackFigure"]


class AttackFigure(LiveFigure):
    """Three panels from :func:`privpca_edu.experiments.membership_attack`.

    (a) Alice's record next to the released top component; (b) membership-attack accuracy
    against ε with the two privacy bounds; (c) utility (distance to the non-private
    components) against ε with the random-guess level.

    Parameters
    ----------
    data : dict or None, default=None
        A result of :func:`~privpca_edu.experiments.membership_attack` to draw at once (``None``: draw nothing until :meth:`draw`).
    """

    height = 7.6
    alt = ("Three panels. (a) Bars of Alice's record next to the released top principal component, "
           "coordinate by coordinate. (b) Membership-attack accuracy against the privacy budget ε on a log "
           "axis, with the two bounds (e^ε+δ)/(1+e^ε) and Φ(μ/2) above it; a vertical line marks the chosen ε. "
           "(c) Error ‖sin Θ‖_F of the private components against ε, falling from the random-guess level "
           "towards 0 as ε grows.")

    def _build(self):
        fig = self.fig
        top, bottom = fig.subfigures(2, 1, height_ratios=[0.8, 1.25])
        self.ax_rec = top.subplots()
        self.ax_acc, self.ax_util = bottom.subplots(1, 2)
        ax = self.ax_rec
        self.zero = ax.axhline(0, color=S.GREY, lw=0.8)
        ax.set_xlabel("coordinate of the record (feature index)")
        ax.set_ylabel("value")
        ax.set_ylim(-1.05, 1.05)
        self.bars_alice = bar_collection(ax, S.LIGHT_GREY, edgecolors=S.GREY, linewidths=0.8)
        self.bars_release = bar_collection(ax, S.style("AnalyzeGauss")["color"], hatch="//", edgecolors="white",
                                           linewidths=0)
        handles = [Rectangle((0, 0), 1, 1, facecolor=S.LIGHT_GREY, edgecolor=S.GREY),
                   Rectangle((0, 0), 1, 1, facecolor=S.style("AnalyzeGauss")["color"], hatch="//",
                             edgecolor="white")]
        ax.legend(handles=handles, labels=["Alice's record", "released top\ncomponent"], loc="upper left",
                  bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
        ax.xaxis.set_major_locator(ticker.MaxNLocator(integer=True, nbins=8))

        ax = self.ax_acc
        ax.set_xscale("log")
        S.log_decades(ax.xaxis, -2, 2)
        ax.set_xlim(0.01, 100)
        ax.set_ylim(0.45, 1.03)
        ax.axhline(0.5, color=S.GREY, lw=0.8, ls=":")
        # the curves pass over "chance": animated, so a blitted frame stacks them as a full render does
        self.t_chance = ax.text(0.012, 0.51, "chance", color=S.GREY, fontsize=S.SMALL, va="bottom", ha="left")
        (self.l_bound_dp,) = ax.plot([], [], color=S.GREY, ls=":", lw=2, label=r"bound $(e^\varepsilon+\delta)/(1+e^\varepsilon)$")
        (self.l_bound_gdp,) = ax.plot([], [], color="k", ls="--", lw=1.5, label=r"bound $\Phi(\mu/2)$, $\mu = \Delta/\sigma$")
        (self.l_acc_m,) = ax.plot([], [], **S.line_kw("paper", ms=4), label="attack on the released matrix")
        (self.p_acc_c,) = ax.plot([], [], "D", color=S.OKABE_ITO["orange"], ms=7, zorder=6,
                                  label="attack on the released PCs")
        self.v_acc = ax.axvline(1.0, color=S.GREY, lw=1.0)
        (self.p_acc,) = ax.plot([], [], "o", color=S.style("paper")["color"], mec="k", ms=8, zorder=5)
        ax.set_xlabel(S.LABELS["epsilon_log"])
        ax.set_ylabel("attack accuracy")
        ax.legend(loc="upper left", bbox_to_anchor=(0.0, -0.2), borderaxespad=0)

        ax = self.ax_util
        ax.set_xscale("log")
        S.log_decades(ax.xaxis, -2, 2)
        ax.set_xlim(0.01, 100)
        (self.l_random,) = ax.plot([0.01, 100], [1, 1], color=S.GREY, ls=(0, (6, 3)), lw=1.5)
        (self.l_util,) = ax.plot([], [], **S.line_kw("PPCA", ls=False, ms=4), ls="-",
                                 label="private vs non-private PCs")
        self.v_util = ax.axvline(1.0, color=S.GREY, lw=1.0)
        (self.p_util,) = ax.plot([], [], "o", color=S.style("PPCA")["color"], mec="k", ms=8, zorder=5)
        ax.set_xlabel(S.LABELS["epsilon_log"])
        ax.set_ylabel(S.LABELS["error"])
        ax.legend(loc="upper left", bbox_to_anchor=(0.0, -0.2), borderaxespad=0)
        # labelled in place (a legend would cover the curve at one n or another)
        self.t_random = ax.text(100, 1.0, "random guess", fontsize=S.SMALL, color=S.GREY, va="bottom",
                                ha="right")
        # titles in short pieces, what ε changes at the ends of lines (see TitleBlock)
        self.t_rec = TitleBlock(self.ax_rec, 1, animated=self.blit)
        self.t_acc = TitleBlock(self.ax_acc, 2, animated=self.blit)
        self.t_util = TitleBlock(self.ax_util, 2, animated=self.blit)
        self._animate(self.bars_alice, self.bars_release, self.zero, self.t_chance, self.l_bound_dp, self.l_bound_gdp, self.l_acc_m,
                      self.p_acc_c, self.v_acc, self.p_acc, self.l_random, self.l_util, self.v_util, self.p_util,
                      self.t_random)
        self._spines_below()
        self._freeze(*(ax.get_legend() for ax in (self.ax_rec, self.ax_acc, self.ax_util)))

    def _draw(self, r):
        d = r["n_features"]
        x = np.arange(d)
        set_bar_heights(self.bars_alice, x - 0.2, r["alice"], 0.4)
        set_bar_heights(self.bars_release, x + 0.2, r["released_component"], 0.4)
        width = next((w for w in (10, 30) if d <= w), d)  # two frames: the cached background survives
        self.ax_rec.set_xlim(-0.7, width - 0.3)
        self.t_rec.set((f"(a) n = {r['n_samples']}, d = {d}, k = {r['n_components']}, δ = {r['delta']:g}: "
                        "|cos(release, Alice)| = ", f"{r['cosine']:.2f}",
                        f" (no noise: {r['cosine_nonprivate']:.2f})"))

        c = r["curve"]
        eps = c["epsilon"]
        self.l_bound_dp.set_data(eps, c["bound_dp"])
        self.l_bound_gdp.set_data(eps, c["bound_gdp"])
        self.l_acc_m.set_data(eps, c["accuracy_matrix"])
        e = r["epsilon"]
        e_plot = min(max(e, 0.01), 100.0)
        acc_m = r["accuracy"]["matrix"]
        self.v_acc.set_xdata([e_plot, e_plot])
        self.p_acc.set_data([e_plot], [acc_m])
        self.p_acc_c.set_data([e_plot], [r["accuracy"]["components"]])
        self.t_acc.set(("(b) membership at ε = ", f"{S.fmt(e)}:"),
                       ("accuracy ", f"{acc_m:.2f} ± {2 * r['accuracy_se']['matrix']:.2f}", ", bound ",
                        f"{r['bound']['gdp']:.2f}"))

        self.l_util.set_data(eps, c["utility"])
        level = r["random_level"]
        self.l_random.set_ydata([level, level])
        self.t_random.set_y(level + 0.01)
        # two fixed heights (k = 1 always has level < 1): the cached background rarely changes
        self.ax_util.set_ylim(0, 1.1 if level <= 1.0 else 2.2)
        self.v_util.set_xdata([e_plot, e_plot])
        self.p_util.set_data([e_plot], [r["utility"]])
        self.t_util.set(("(c) utility: error ", f"{r['utility']:.3f}"),
                        ("σ per entry of XᵀX/n = ", S.fmt(r["noise_scale"])))
