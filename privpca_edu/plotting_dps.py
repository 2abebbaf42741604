"""Figures of the DPS-PCA chapter (drawn from :mod:`privpca_edu.experiments.dps_pca`)."""

from __future__ import annotations

import math

import numpy as np
from matplotlib import ticker
from matplotlib.colors import ListedColormap
from matplotlib.figure import Figure
from matplotlib.patches import Patch

from .plotting import LiveFigure, _fmt

__all__ = ["DPSExplorerFigure", "plot_trajectories", "plot_theory_terms", "plot_final_vs_parameter"]

_MAP_COLORS = ListedColormap(["#e6e6e6", "#f4b6b6", "#b9e3b0"])  # vacuous, privacy dominates, "free"
_TERM_STYLE = dict(
    stat=dict(color="#9467bd", ls="--", label="bound: ξ_stat"),
    priv=dict(color="#d62728", ls="--", label="bound: ξ_stat + ξ_priv"),
    total=dict(color="k", ls="-.", label="bound: ξ_stat + ξ_priv + ξ_opt(t)"),
)


def _pow10_formatter(axis):
    axis.set_major_locator(ticker.MultipleLocator(1.0))
    axis.set_major_formatter(ticker.FuncFormatter(lambda v, _: f"{10 ** v:g}"))


class DPSExplorerFigure(LiveFigure):
    """(a) error against iteration — seeds, mean, non-private reference, Theorem 4.3's terms;
    (b) where the theorem's privacy term is below its statistical term, over (ε, n)."""

    figsize = (12.0, 4.3)

    def __init__(self, n_seeds=8, data=None):
        self.n_seeds = n_seeds
        super().__init__(data)

    def _build(self):
        fig = self.fig
        fig.subplots_adjust(left=0.055, right=0.985, bottom=0.15, top=0.8, wspace=0.25)
        self.ax, self.ax_map = fig.subplots(1, 2, gridspec_kw=dict(width_ratios=[1.35, 1]))
        ax = self.ax
        self.seed_lines = [ax.plot([], [], color="#1f77b4", lw=0.7, alpha=0.35)[0] for _ in range(self.n_seeds)]
        self.seed_lines[0].set_label("DPS-PCA, one seed each")
        (self.l_mean,) = ax.plot([], [], "o-", color="#1f77b4", lw=2.2, ms=4, label="DPS-PCA, mean over seeds")
        (self.l_free,) = ax.plot([], [], "s--", color="#2ca02c", lw=1.5, ms=3, label="no noise (ε = ∞)")
        (self.l_random,) = ax.plot([], [], ":", color="0.4", lw=1.3, label="random subspace √(k(d−k)/d)")
        self.l_terms = {key: ax.plot([], [], lw=1.4, **style)[0] for key, style in _TERM_STYLE.items()}
        self.t_silent = ax.text(0.98, 0.97, "", transform=ax.transAxes, ha="right", va="top", fontsize=8,
                                color="0.25", bbox=dict(boxstyle="round", fc="#f5f5f5", ec="0.7"))
        ax.set_xlabel("iteration t (t = 0 is the random start)")
        ax.set_ylabel("error ‖sin Θ(Q(t), Q*)‖_F")
        ax.legend(loc="center right", fontsize=7, framealpha=0.85, ncol=1)
        self._last_map = None
        self.t_a = ax.set_title("", fontsize=9)

        ax = self.ax_map
        self.im = ax.imshow(np.zeros((2, 2)), origin="lower", cmap=_MAP_COLORS, vmin=0, vmax=2, aspect="auto",
                            interpolation="nearest")
        (self.p_here,) = ax.plot([], [], "*", color="k", ms=13, label="this setting")
        ax.set_xlabel("privacy budget ε (log scale)")
        ax.set_ylabel("total records n (log scale)")
        _pow10_formatter(ax.xaxis)
        _pow10_formatter(ax.yaxis)
        handles = [Patch(color=_MAP_COLORS(2), label="privacy for free: ξ_priv ≤ ξ_stat"),
                   Patch(color=_MAP_COLORS(1), label="privacy term dominates"),
                   Patch(color=_MAP_COLORS(0), label="theorem silent (α ≥ 1 − γ)"), self.p_here]
        ax.legend(handles=handles, loc="lower right", fontsize=7, framealpha=0.9)
        self.t_b = ax.set_title("", fontsize=9)
        self.title = fig.suptitle("", fontsize=11)
        self._animate(self.seed_lines, self.l_mean, self.l_free, self.l_random, list(self.l_terms.values()),
                      self.t_silent, self.im, self.p_here, self.t_a, self.t_b)

    def _draw(self, r):
        t = r["iteration"]
        for line, run in zip(self.seed_lines, r["runs"]):
            line.set_data(t, run)
        for line in self.seed_lines[len(r["runs"]):]:
            line.set_data([], [])
        self.l_mean.set_data(t, r["mean"])
        self.l_free.set_data(t, r["nonprivate"])
        level = r["random_guess"]
        self.l_random.set_data([0, t[-1]], [level, level])
        b = r["bound"]
        tb = t[1:]
        if b["valid"]:
            stat = np.full(len(tb), b["xi_stat"])
            self.l_terms["stat"].set_data(tb, stat)
            self.l_terms["priv"].set_data(tb, stat + b["xi_priv"])
            self.l_terms["total"].set_data(tb, b["total"])
            top = 1.12 * max(level, float(np.max(r["runs"])))
            if b["xi_stat"] + b["xi_priv"] > top:
                self.t_silent.set_text(f"Theorem 4.3 holds, but its bound is loose here:\n"
                                       f"ξ_stat = {b['xi_stat']:.2g}, ξ_priv = {b['xi_priv']:.2g} (C₁ = 1)\n"
                                       f"(lines above the top of the axes)")
                self.t_silent.set_visible(True)
            else:
                self.t_silent.set_text("")
                self.t_silent.set_visible(False)
        else:
            for line in self.l_terms.values():
                line.set_data([], [])
            self.t_silent.set_text("Theorem 4.3 says nothing here:\n" + b["reason"].replace(" (", "\n("))
            self.t_silent.set_visible(True)
        ymax = 1.12 * max(level, float(np.max(r["runs"])))
        if self.ax.get_xlim() != (-0.3, t[-1] + 0.3) or abs(self.ax.get_ylim()[1] - ymax) > 0.05 * ymax:
            self.ax.set_xlim(-0.3, t[-1] + 0.3)
            self.ax.set_ylim(0, ymax)
        stuck = f", {r['stuck']} of {len(r['runs'])} seeds stuck at √k" if r["threshold_init"] else ""
        self.t_a.set_text(f"(a) ε = {_fmt(r['epsilon'])}, σ = {_fmt(r['sigma'])} ('{r['calibration']}') per entry of "
                          f"each message; final mean error {r['mean'][-1]:.3f}{stuck}")

        m = r["map"]
        lx, ly = np.log10(m["epsilon"]), np.log10(m["n_samples"])
        if m is not self._last_map:  # cached upstream: a new object only when δ, T, ŝ, N … change
            codes = np.where(~m["valid"], 0, np.where(m["ratio"] <= 1, 2, 1)).T  # rows: n, columns: ε
            self.im.set_data(codes)
            extent = (lx[0], lx[-1], ly[0], ly[-1])
            if tuple(self.im.get_extent()) != extent:
                self.im.set_extent(extent)
                self.ax_map.set_xlim(lx[0], lx[-1])
                self.ax_map.set_ylim(ly[0], ly[-1])
            self._last_map = m  # the image is animated: no background re-render needed
        eps = r["epsilon"]
        ex = math.log10(min(max(eps, m["epsilon"][0]), m["epsilon"][-1]))
        self.p_here.set_data([ex], [math.log10(r["n_samples"])])
        self.t_b.set_text(f"(b) Theorem 4.3 over (ε, n): δ = {r['delta']:g}, T = {r['n_iter']}, "
                          f"ŝ = {r['sparsity']}, N = {r['n_providers']}")
        self.title.set_text(
            f"DPS-PCA on the §5.1 model (book scale: n = {r['n_samples']}, d = {r['n_features']}, "
            f"k = {r['n_components']}, s* = {r['support_size']}, unit-norm rows)")


def plot_trajectories(result, *, title=None, label_fmt="ε = {:g}"):
    """Fig. 3 style: mean error against iteration, one line per parameter value (± 1 sd band)."""
    fig = Figure(figsize=(6.4, 4.0), dpi=90)
    ax = fig.subplots()
    for value, mean, sd in zip(result["values"], result["mean"], result["std"]):
        (line,) = ax.plot(result["iteration"], mean, "o-", ms=3.5, label=label_fmt.format(value))
        ax.fill_between(result["iteration"], mean - sd, mean + sd, color=line.get_color(), alpha=0.15, lw=0)
    ax.axhline(result["random_guess"], color="0.4", ls=":", lw=1.2, label="random subspace")
    ax.set_xlabel("iteration t")
    ax.set_ylabel("error ‖sin Θ(Q(t), Q*)‖_F")
    ax.set_ylim(0, 1.1 * result["random_guess"])
    ax.legend(fontsize=8, frameon=False)
    s = result["settings"]
    ax.set_title(title or f"n = {s['n_samples']}, d = {s['n_features']}, mean ± sd over {s['n_seeds']} seeds",
                 fontsize=9)
    fig.tight_layout()
    return fig


def plot_theory_terms(result):
    """Fig. 2 style: Theorem 4.3's terms against ε; shaded where the theorem says nothing."""
    fig = Figure(figsize=(6.4, 4.0), dpi=90)
    ax = fig.subplots()
    eps = result["epsilon"]
    ax.plot(eps, result["xi_stat"], "--", color="#9467bd", label="ξ_stat (statistical)")
    ax.plot(eps, result["xi_priv"], "-", color="#d62728", label="ξ_priv (privacy)")
    ax.plot(eps, result["xi_opt_final"], ":", color="#17becf", label="ξ_opt(T) (optimisation)")
    ax.plot(eps, result["minimax_lower"], "-", color="0.5", lw=1, label="minimax lower bound (C₂ = 1)")
    invalid = ~result["valid"]
    if invalid.any():
        ax.fill_between(eps, 0, 1, where=invalid, transform=ax.get_xaxis_transform(), color="0.85",
                        label="theorem silent")
    ax.set_xlabel("privacy budget ε")
    ax.set_ylabel("bound term (shape only: C₁ = C₂ = 1)")
    ax.set_yscale("log")
    ax.legend(fontsize=8, loc="lower left", framealpha=0.9)
    ax.set_title(f"Theorem 4.3's terms, δ = {result['delta']:g} (the paper gives no constants)", fontsize=9)
    fig.tight_layout()
    return fig


def plot_final_vs_parameter(x, curves, *, xlabel, ylabel="final error ‖sin Θ‖_F", reference=None,
                            reference_label="random subspace", title=None):
    """Fig. 4 style: final error of several methods against ε or d."""
    fig = Figure(figsize=(6.4, 4.0), dpi=90)
    ax = fig.subplots()
    styles = {"DPS-PCA": ("o-", "#1f77b4"), "PPCA": ("s-", "#ff7f0e"), "MOD-SuLQ": ("^-", "#d62728")}
    for name, values in curves.items():
        marker, color = styles.get(name, ("o-", None))
        ax.plot(x, values, marker, color=color, ms=4, label=name)
    if reference is not None:
        ax.axhline(reference, color="0.4", ls=":", lw=1.2, label=reference_label)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_ylim(bottom=0)
    ax.legend(fontsize=8, frameon=False)
    if title:
        ax.set_title(title, fontsize=9)
    fig.tight_layout()
    return fig
