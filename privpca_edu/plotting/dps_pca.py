"""Figures of the DPS-PCA chapter (drawn from :mod:`privpca_edu.experiments.dps_pca`)."""

from __future__ import annotations

import math

import numpy as np
from matplotlib import ticker
from matplotlib.colors import ListedColormap
from matplotlib.patches import Patch

from . import _style as S
from ._live import LiveFigure, StaticFigure, band_verts, new_figure, nice_ceil, wrap

__all__ = ["DPSExplorerFigure", "plot_trajectories", "plot_theory_terms", "plot_final_vs_parameter"]

# vacuous, privacy dominates, "free": light grey, light orange, light sky blue (told apart under
# colour-vision deficiencies by lightness as well as hue)
_MAP_COLORS = ListedColormap(["#E6E6E6", "#F5C87A", "#9ED3F2"])
_XI = {key: rf"\xi_{{\mathrm{{{key}}}}}" for key in ("stat", "priv", "opt")}
_TERM_STYLE = dict(
    stat=dict(color=S.OKABE_ITO["purple"], ls="--", label=rf"bound: ${_XI['stat']}$"),
    priv=dict(color=S.OKABE_ITO["vermillion"], ls=(0, (5, 2, 1, 2)), label=rf"bound: ${_XI['stat']} + {_XI['priv']}$"),
    total=dict(color="k", ls=":", label=rf"bound: ${_XI['stat']} + {_XI['priv']} + {_XI['opt']}(t)$"),
)


def _symbols(text):
    """The theorem's conditions as the book writes them (α, γ, ρ, ≥)."""
    for word, symbol in (("alpha", "α"), ("gamma", "γ"), ("rho", "ρ"), (">=", "≥"), ("<=", "≤")):
        text = text.replace(word, symbol)
    return text


def _pow10_formatter(axis):
    axis.set_major_locator(ticker.MultipleLocator(1.0))
    axis.set_major_formatter(ticker.FuncFormatter(lambda v, _: f"{10 ** v:g}"))


class DPSExplorerFigure(LiveFigure):
    """Figure of the DPS-PCA explorer: error by iteration and the regime map.

    (a) error against iteration — seeds, mean, non-private reference, Theorem 4.3's terms;
    (b) where the theorem's privacy term is below its statistical term, over (ε, n).

    Parameters
    ----------
    n_seeds : int, default=8
        Number of seed trajectories drawn in panel (a).
    data : dict or None, default=None
        A result of :func:`~privpca_edu.experiments.dps_pca.dps_pca_explorer` to draw at once (``None``: draw nothing until :meth:`draw`).
    """

    height = 9.6
    alt = ("Two panels. (a) Error ‖sin Θ‖_F of DPS-PCA against the iteration t: one thin line per seed, their "
           "mean, the noise-free run, the random-subspace level and Theorem 4.3's bound terms. (b) A map over "
           "the privacy budget ε and the number of records n (log axes) of where Theorem 4.3's privacy term is "
           "below its statistical term (privacy for free), where it dominates, and where the theorem says "
           "nothing; a star marks the chosen setting. A boxed warning appears when δ exceeds 1/n.")

    def __init__(self, n_seeds=8, data=None):
        self.n_seeds = n_seeds
        super().__init__(data)

    def _build(self):
        fig = self.fig
        self.ax, self.ax_map = fig.subplots(2, 1, height_ratios=[1.1, 1.0])
        ax = self.ax
        dps = S.style("DPSPCA")["color"]
        self.seed_lines = [ax.plot([], [], color=dps, lw=0.8, alpha=0.4)[0] for _ in range(self.n_seeds)]
        self.seed_lines[0].set_label("one seed each")
        (self.l_mean,) = ax.plot([], [], "o-", color=dps, lw=2.4, ms=5, label="mean over seeds")
        (self.l_free,) = ax.plot([], [], "s--", color=S.OKABE_ITO["blue"], lw=1.8, ms=4, label=r"no noise ($\varepsilon = \infty$)")
        (self.l_random,) = ax.plot([], [], ls=(0, (6, 3)), color=S.GREY, lw=1.5, label="random subspace")
        self.l_terms = {key: ax.plot([], [], lw=1.6, **style)[0] for key, style in _TERM_STYLE.items()}
        self.t_silent = ax.text(0.98, 0.97, "", transform=ax.transAxes, ha="right", va="top", fontsize=S.SMALL,
                                color="0.25", bbox=dict(boxstyle="round", fc="#f5f5f5", ec="0.7"))
        ax.set_xlabel(r"iteration $t$ ($t = 0$ is the random start)")
        ax.set_ylabel(r"error $\|\sin\Theta(Q^{(t)}, Q^*)\|_F$")
        ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0, title="DPS-PCA", alignment="left")
        self._last_map = None
        self.t_a = ax.set_title("", loc="left")

        ax = self.ax_map
        self.im = ax.imshow(np.zeros((2, 2)), origin="lower", cmap=_MAP_COLORS, vmin=0, vmax=2, aspect="auto",
                            interpolation="nearest")
        (self.p_here,) = ax.plot([], [], "*", color="k", ms=15, mec="white", label="this setting")
        ax.set_xlabel(S.LABELS["epsilon_log"])
        ax.set_ylabel(r"total records $n$ (log scale)")
        _pow10_formatter(ax.xaxis)
        _pow10_formatter(ax.yaxis)
        # the key sits outside the map (the map is redrawn in every frame and would cover it)
        handles = [Patch(facecolor=_MAP_COLORS(2), edgecolor="0.5", label=f"privacy for free:\n${_XI['priv']} \\leq {_XI['stat']}$"),
                   Patch(facecolor=_MAP_COLORS(1), edgecolor="0.5", label="privacy term\ndominates"),
                   Patch(facecolor=_MAP_COLORS(0), edgecolor="0.5",
                         label="theorem silent\n" + r"($\alpha \geq 1 - \gamma$" + "\n" + r"or $\hat s < s^*$)"),
                   self.p_here]
        ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0)
        self.t_b = ax.set_title("", loc="left")
        # a weak δ is said in plain view, under the map's key (not in the small note line)
        self.t_weak = ax.text(1.02, 0.0, "", transform=ax.transAxes, ha="left", va="bottom", fontsize=S.SMALL,
                              color=S.ERROR, clip_on=False, in_layout=False, visible=False,
                              bbox=dict(boxstyle="round,pad=0.4", fc="white", ec=S.ERROR, lw=1.5))
        self._animate(self.seed_lines, self.l_mean, self.l_free, self.l_random, list(self.l_terms.values()),
                      self.t_silent, self.im, self.p_here, self.t_a, self.t_b, self.t_weak)
        self._spines_below()

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
        # the theorem bounds Q^(t) for t = 1..T, and Q^(1) is the start: iteration t − 1 here
        tb = t[:-1]
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
            self.t_silent.set_text("Theorem 4.3 says nothing here:\n" + wrap(_symbols(b["reason"]), 40))
            self.t_silent.set_visible(True)
        ymax = 1.12 * max(level, float(np.max(r["runs"])))
        if self.ax.get_xlim() != (-0.3, t[-1] + 0.3) or abs(self.ax.get_ylim()[1] - ymax) > 0.05 * ymax:
            self.ax.set_xlim(-0.3, t[-1] + 0.3)
            self.ax.set_ylim(0, ymax)
        stuck = f", {r['stuck']} of {len(r['runs'])} seeds stuck at √k" if r["threshold_init"] else ""
        self.t_a.set_text(f"(a) DPS-PCA on the §5.1 model: n = {r['n_samples']}, d = {r['n_features']}, "
                          f"k = {r['n_components']}, s* = {r['support_size']}\n"
                          f"ε = {S.fmt(r['epsilon'])}, σ = {S.fmt(r['sigma'])} ('{r['calibration']}') per entry of "
                          f"each message;\nfinal mean error {r['mean'][-1]:.3f}{stuck}")

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
        warning = r.get("delta_warning", "")
        self.t_weak.set_text(warning)
        self.t_weak.set_visible(bool(warning))


@S.in_house
def plot_trajectories(result, *, title=None, label_fmt="ε = {:g}"):
    """Fig. 3 style: mean error against iteration, one line per parameter value (± 1 sd band).

    Parameters
    ----------
    result : dict
        A result of :func:`~privpca_edu.experiments.dps_pca.figure3a` or
        :func:`~privpca_edu.experiments.dps_pca.figure3b`.
    title : str or None, default=None
        The figure's title (``None``: one stating the settings).
    label_fmt : str, default="ε = {:g}"
        Format of each line's label, given the parameter value.

    Returns
    -------
    matplotlib.figure.Figure
        The figure.
    """
    fig = new_figure(4.8)
    ax = fig.subplots()
    for i, (value, mean, sd) in enumerate(zip(result["values"], result["mean"], result["std"])):
        st = S.series(i)
        (line,) = ax.plot(result["iteration"], mean, marker=st["marker"], ls=st["ls"], color=st["color"], ms=5,
                          label=label_fmt.format(value))
        ax.fill_between(result["iteration"], mean - sd, mean + sd, color=line.get_color(), alpha=0.15, lw=0)
    ax.axhline(result["random_guess"], color=S.GREY, ls=(0, (6, 3)), lw=1.5, label="random subspace")
    ax.set_xlabel(r"iteration $t$")
    ax.set_ylabel(r"error $\|\sin\Theta(Q^{(t)}, Q^*)\|_F$")
    ax.set_ylim(0, 1.1 * result["random_guess"])
    ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0)
    s = result["settings"]
    ax.set_title(title or f"n = {s['n_samples']}, d = {s['n_features']}, mean ± sd over {s['n_seeds']} seeds",
                 loc="left")
    return fig


@S.in_house
def plot_theory_terms(result):
    """Fig. 2 style: Theorem 4.3's terms against ε; shaded where the theorem says nothing.

    Parameters
    ----------
    result : dict
        A result of :func:`~privpca_edu.experiments.dps_pca.figure2_theory`.

    Returns
    -------
    matplotlib.figure.Figure
        The figure.
    """
    fig = new_figure(4.8)
    ax = fig.subplots()
    eps = result["epsilon"]
    ax.plot(eps, result["xi_stat"], "--", color=S.OKABE_ITO["purple"], label=f"${_XI['stat']}$ (statistical)")
    ax.plot(eps, result["xi_priv"], "-", color=S.OKABE_ITO["vermillion"], label=f"${_XI['priv']}$ (privacy)")
    ax.plot(eps, result["xi_opt_final"], ":", color=S.OKABE_ITO["blue"], lw=2.4,
            label=f"${_XI['opt']}(T)$ (optimisation)")
    ax.plot(eps, result["minimax_lower"], "-.", color="k", lw=1.2, label="minimax lower\nbound ($C_2 = 1$)")
    invalid = ~result["valid"]
    if invalid.any():
        ax.fill_between(eps, 0, 1, where=invalid, transform=ax.get_xaxis_transform(), color="0.88",
                        label="theorem silent")
    ax.set_xlabel(S.LABELS["epsilon"])
    ax.set_ylabel(r"bound term (shape only: $C_1 = C_2 = 1$)")
    ax.set_yscale("log")
    ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0)
    ax.set_title(f"Theorem 4.3's terms, δ = {result['delta']:g}\n(the paper gives no constants)", loc="left")
    return fig


_FINAL_STYLES = {"DPS-PCA": "DPSPCA", "PPCA": "PPCA", "MOD-SuLQ": "ModSuLQ"}


@S.in_house
def plot_final_vs_parameter(x, curves, *, xlabel, ylabel=r"final error $\|\sin\Theta\|_F$", reference=None,
                            reference_label="random subspace", title=None):
    r"""Fig. 4 style: final error of several methods against ε or d.

    Parameters
    ----------
    x : array_like
        The ε or d values.
    curves : dict of str to array_like
        Method name → final error at each x.
    xlabel : str
        Label of the x axis.
    ylabel : str, default=r"final error $\|\sin\Theta\|_F$"
        Label of the y axis.
    reference : float or None, default=None
        A level drawn as a dashed line (e.g. the random-subspace error).
    reference_label : str, default="random subspace"
        Its legend entry.
    title : str or None, default=None
        The figure's title (``None``: none).

    Returns
    -------
    matplotlib.figure.Figure
        The figure.
    """
    fig = new_figure(4.8)
    ax = fig.subplots()
    for i, (name, values) in enumerate(curves.items()):
        st = S.style(_FINAL_STYLES[name]) if name in _FINAL_STYLES else S.series(i)
        ax.plot(x, values, marker=st["marker"], ls=st["ls"], color=st["color"], ms=6, label=name)
    if reference is not None:
        ax.axhline(reference, color=S.GREY, ls=(0, (6, 3)), lw=1.5, label=reference_label)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_ylim(bottom=0)
    ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0)
    if title:
        ax.set_title(wrap(title, 60), loc="left")
    return fig
