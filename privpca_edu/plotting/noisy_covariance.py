r"""Chapter 4's figures: noisy covariance matrices (:mod:`privpca_edu.experiments.noisy_covariance`).

Every class is a :class:`~._live.LiveFigure`; each has a ``plot_…`` function returning a static
:class:`matplotlib.figure.Figure`.  Figures compute nothing: every number drawn is a field of
the experiment result.
"""

from __future__ import annotations

import math

import numpy as np
from matplotlib import ticker
from matplotlib.collections import PolyCollection
from matplotlib.patches import Rectangle

from . import _style as S
from ._live import LiveFigure, StaticFigure, band_verts, new_figure, nice_ceil, wrap

__all__ = [
    "MECHANISMS", "NoisyCovarianceFigure", "plot_noisy_covariance", "Bingham2DFigure", "plot_bingham_2d",
    "GibbsMixingFigure", "plot_gibbs_mixing", "ModSuLQScaleFigure", "plot_mod_sulq_at_scale",
]


#: The chapter's three mechanisms (keys of :data:`._style.STYLES`).
MECHANISMS = ("AnalyzeGauss", "ModSuLQ", "PPCA")


# ---------------------------------------------------------------------------------------------
# Chapter 4, live: subspace error of AG, MOD-SuLQ, PPCA
# ---------------------------------------------------------------------------------------------
class NoisyCovarianceFigure(StaticFigure):
    """Two panels from :func:`privpca_edu.experiments.noisy_covariance.noisy_covariance_errors`.

    (a) mean error (band: min–max over the seeds) against ε for the three mechanisms, the
    capped Davis–Kahan bounds of Analyze Gauss and MOD-SuLQ dashed, the random-guess level and
    the chosen ε.  (b) at the chosen ε: every seed's error (dots), their mean (bar), the
    Davis–Kahan bound (triangle; hollow when vacuous), the random-guess level and the
    non-private PCA's own sampling error.

    Live (blitted): every artist below is created once and moved by ``_draw``; the ε axis
    spans whole decades (0.01 … 100 for the dashboard's sweep and slider), so it stays put
    while ε moves, and the header is an animated text, not a suptitle.

    Parameters
    ----------
    data : dict or None, default=None
        A result of :func:`~privpca_edu.experiments.noisy_covariance.noisy_covariance_errors` to draw at once (``None``: draw nothing until :meth:`draw`).
    """

    height = 9.0
    blit = True
    alt = ("Two panels. (a) Error ‖sin Θ‖_F to the non-private PCA against the privacy budget ε (log axis) for "
           "Analyze Gauss, MOD-SuLQ and PPCA: mean over seeds with a min–max band, the Davis–Kahan bounds of "
           "the first two dashed, the random-guess level and the chosen ε. (b) At the chosen ε: each seed's "
           "error as a dot, the mean as a bar, the Davis–Kahan bound as a triangle, per mechanism.")

    def _build(self):
        fig = self.fig
        self.ax, self.ax_at = fig.subplots(2, 1, height_ratios=[1.2, 1.0])
        ax = self.ax
        ax.set_xscale("log")
        self.fills = {}
        self.lines, self.bound_lines, self.points = {}, {}, {}
        for name in MECHANISMS:
            style = S.style(name)
            # the min–max band, updated in place (set_verts) instead of a new fill_between per move
            self.fills[name] = PolyCollection([], facecolors=style["color"], alpha=0.15, linewidths=0,
                                              edgecolors="none")
            ax.add_collection(self.fills[name], autolim=False)
            (self.lines[name],) = ax.plot([], [], marker=style["marker"], ls="-", ms=5, lw=2, color=style["color"],
                                          label=f"{style['short']}: mean error")
            (self.points[name],) = ax.plot([], [], style["marker"], ms=10, color=style["color"], mec="k", zorder=6)
            if name != "PPCA":
                (self.bound_lines[name],) = ax.plot([], [], ls=(0, (4, 2)), lw=1.5, color=style["color"],
                                                    marker=style["marker"], mfc="white", ms=5,
                                                    label=f"{style['short']}: Davis–Kahan")
        (self.l_random,) = ax.plot([], [], color=S.GREY, ls=(0, (6, 3)), lw=1.5, label="random guess")
        (self.l_max,) = ax.plot([], [], color=S.GREY, ls=":", lw=1.2, label="largest possible")
        self.vline = ax.axvline(1.0, color="0.15", lw=1.0)
        ax.set_xlabel(S.LABELS["epsilon_log"])
        ax.set_ylabel(S.LABELS["error"])
        ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0)
        self.t_sweep = ax.set_title("", loc="left")

        ax = self.ax_at
        self.x = np.arange(len(MECHANISMS))
        ax.set_xticks(self.x, [S.style(m)["label"] for m in MECHANISMS])
        ax.set_xlim(-0.6, len(self.x) - 0.4)
        self.dots = {m: ax.plot([], [], S.style(m)["marker"], ms=6, color=S.style(m)["color"], mec="k", mew=0.5,
                                zorder=4, ls="none")[0] for m in MECHANISMS}
        self.means = ax.hlines([], [], [], colors="k", lw=2.2, zorder=5)
        (self.dk_full,) = ax.plot([], [], "v", ms=9, color="k", zorder=6, label="Davis–Kahan bound")
        (self.dk_vacuous,) = ax.plot([], [], "v", ms=9, color="k", mfc="white", mec="k", zorder=6,
                                     label="Davis–Kahan: vacuous (capped)")
        self.at_random = ax.axhline(1.0, color=S.GREY, ls=(0, (6, 3)), lw=1.5, label="random guess")
        self.at_pca = ax.axhline(0.0, color="k", ls=":", lw=1.5, label="non-private PCA\nvs truth")
        self.at_text = [ax.text(xi, 0, "", ha="center", va="bottom", fontsize=S.SMALL) for xi in self.x]
        ax.set_ylabel(S.LABELS["error"] + "\n(one dot per seed)")
        ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0)
        self.t_at = ax.set_title("", loc="left")
        self._animate(list(self.fills.values()), list(self.lines.values()), list(self.points.values()),
                      list(self.bound_lines.values()), self.l_random, self.l_max, self.vline, self.t_sweep,
                      list(self.dots.values()), self.means, self.dk_full, self.dk_vacuous, self.at_random,
                      self.at_pca, self.at_text, self.t_at)
        self._spines_below()

    def _draw(self, r):
        grid = np.asarray(r["epsilon_grid"])
        top = 1.12 * r["max_distance"]
        ax = self.ax
        lo, hi = float(min(grid.min(), r["epsilon"])), float(max(grid.max(), r["epsilon"]))
        if math.isinf(hi):
            hi = float(grid.max())
        e = r["epsilon"]
        e_plot = min(max(e, lo), hi)
        for name in MECHANISMS:
            mean = np.asarray(r["sweep_mean"][name])
            self.lines[name].set_data(grid, mean)
            band = band_verts(grid, r["sweep_min"][name], r["sweep_max"][name]) if np.any(np.isfinite(mean)) else []
            self.fills[name].set_verts(band)
            self.points[name].set_data([e_plot], [float(np.mean(r["errors"][name]))])
            if name in self.bound_lines:
                self.bound_lines[name].set_data(grid, r["sweep_bound"][name])
        # whole decades: the axis (and the cached background) stays put while ε moves
        lo, hi = 10.0 ** math.floor(math.log10(lo) + 1e-9), 10.0 ** math.ceil(math.log10(hi) - 1e-9)
        self.l_random.set_data([lo, hi], [r["random_guess"]] * 2)
        self.l_max.set_data([lo, hi], [r["max_distance"]] * 2)
        self.vline.set_xdata([e_plot, e_plot])
        if ax.get_xlim() != (lo / 1.15, hi * 1.15):
            ax.set_xlim(lo / 1.15, hi * 1.15)
            S.log_decades_between(ax.xaxis, lo, hi)
        ax.set_ylim(0, top)
        ppca_note = "" if r["n_components"] == 1 else " (PPCA: live ε only, k > 1)"
        self.t_sweep.set_text(f"(a) n = {r['n_samples']}, d = {r['n_features']}, k = {r['n_components']}, "
                              f"δ = {r['delta']:.2g}, AG {r['calibration']} σ, seed {r['seed']}:\n"
                              f"mean of {r['n_seeds']} seeds, band = min–max{ppca_note}")

        ax = self.ax_at
        segs = []
        full, vac = ([], []), ([], [])
        for xi, name in zip(self.x, MECHANISMS):
            errs = np.asarray(r["errors"][name])
            jitter = np.linspace(-0.18, 0.18, len(errs)) if len(errs) > 1 else np.zeros(1)
            self.dots[name].set_data(xi + jitter, errs)
            m = float(np.mean(errs))
            segs.append([(xi - 0.28, m), (xi + 0.28, m)])
            b = r["bounds"].get(name)
            label = f"mean {m:.3f}"
            if b is not None:
                target = vac if b["vacuous"] else full
                target[0].append(xi + 0.36)
                target[1].append(b["sin_theta_bound"])
                label += "\nDK " + ("vacuous" if b["vacuous"] else f"{b['sin_theta_bound']:.3f}")
            self.at_text[list(self.x).index(xi)].set_text(label)
            high = max(float(np.max(errs)), b["sin_theta_bound"] if b is not None else 0.0)
            self.at_text[list(self.x).index(xi)].set_y(min(high + 0.03 * top, top))
        self.means.set_segments(segs)
        self.dk_full.set_data(*full)
        self.dk_vacuous.set_data(*vac)
        self.at_random.set_ydata([r["random_guess"]] * 2)
        self.at_pca.set_ydata([r["pca_error"]] * 2)
        ax.set_ylim(0, 1.2 * top)
        self.t_at.set_text(f"(b) at ε = {S.fmt(e)}: PPCA sampler {r['ppca_sampler']}")


def plot_noisy_covariance(result):
    """Static figure of :func:`~privpca_edu.experiments.noisy_covariance.noisy_covariance_errors`.

    Parameters
    ----------
    result : dict
        A result of :func:`~privpca_edu.experiments.noisy_covariance.noisy_covariance_errors`.

    Returns
    -------
    matplotlib.figure.Figure
        The figure.
    """
    return NoisyCovarianceFigure(result).fig


# ---------------------------------------------------------------------------------------------
# Chapter 4: the Bingham law in d = 2
# ---------------------------------------------------------------------------------------------
class Bingham2DFigure(StaticFigure):
    """Figure of PPCA's output law in two dimensions.

    From :func:`privpca_edu.experiments.noisy_covariance.bingham_2d`: the data with their
    principal axis and some PPCA output directions, then one histogram of the output angle per
    ε against the exact density.

    Parameters
    ----------
    data : dict or None, default=None
        A result of :func:`~privpca_edu.experiments.noisy_covariance.bingham_2d` to draw at once (``None``: draw nothing until :meth:`draw`).
    """

    height = 8.4
    n_eps = 3
    alt = ("Four panels. The first: twenty records on the unit circle in the plane with their principal axis "
           "and 25 directions drawn by PPCA. The others, one per ε: a histogram of PPCA's output direction "
           "against the exact Bingham density, concentrating on the principal axis as ε grows.")

    def __init__(self, data=None):
        if data is not None:
            self.n_eps = len(data["epsilons"])
        super().__init__(data)

    def _build(self):
        fig = self.fig
        rows = (self.n_eps + 2) // 2
        axes = fig.subplots(rows, 2).ravel()
        self.ax_data, self.ax_eps = axes[0], list(axes[1:self.n_eps + 1])
        for ax in axes[self.n_eps + 1:]:
            ax.set_visible(False)
        ax = self.ax_data
        ax.set_aspect("equal")
        ax.set_xlim(-1.15, 1.15)
        ax.set_ylim(-1.15, 1.15)
        ax.set_xlabel("feature 1")
        ax.set_ylabel("feature 2")


    def _draw(self, r):
        ax = self.ax_data
        ax.cla()
        ax.set_aspect("equal")
        ax.set_xlim(-1.15, 1.15)
        ax.set_ylim(-1.15, 1.15)
        X = np.asarray(r["X"])
        ax.scatter(X[:, 0], X[:, 1], s=14, color="0.3", zorder=3, label=f"data (n = {len(X)}, ‖x‖ = 1)")
        t = r["principal_angle"]
        ax.plot([-math.cos(t), math.cos(t)], [-math.sin(t), math.sin(t)], color="k", lw=2.2,
                label="principal axis (non-private)")
        mid = r["epsilons"][len(r["epsilons"]) // 2]
        for j, th in enumerate(np.asarray(r["samples"][mid])[:25]):
            ax.plot([-math.cos(th), math.cos(th)], [-math.sin(th), math.sin(th)], color=S.style("PPCA")["color"], lw=1.0, ls="--",
                    alpha=0.6, label=f"25 PPCA outputs at ε = {mid:g}" if j == 0 else None)
        ax.set_xlabel("feature 1")
        ax.set_ylabel("feature 2")
        ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0)
        ax.set_title("the data and PPCA's directions", loc="left")
        grid_deg = np.degrees(np.asarray(r["theta_grid"]))
        edges = np.linspace(0.0, 180.0, 61)
        for ax, eps in zip(self.ax_eps, r["epsilons"]):
            ax.cla()
            th = np.degrees(np.asarray(r["samples"][eps]))
            ax.hist(th, bins=edges, density=True, color=S.style("PPCA")["color"], alpha=0.45,
                    label="PPCA draws (exact sampler)")
            ax.plot(grid_deg, np.asarray(r["density"][eps]) * math.pi / 180.0, color="k", lw=1.5,
                    label=r"exact density $\propto \exp(\frac{\varepsilon}{2} v^\top X^\top X v)$")
            ax.axvline(math.degrees(r["principal_angle"]), color="k", ls="--", lw=1.0, label="principal axis")
            ax.set_xlim(0, 180)
            ax.xaxis.set_major_locator(ticker.MultipleLocator(45))
            ax.set_xlabel(r"output direction $\theta$ (°; $v \equiv -v$)")
            ax.set_ylabel("density per degree")
            audit = r["chi2"].get(eps)
            check = ("" if audit is None else
                     f"\nrecipe E: χ² = {audit.values['chi2']:.0f} on {audit.values['dof']} df")
            ax.set_title(f"ε = {eps:g}{check}", loc="left")
        self.ax_eps[0].legend(loc="upper left", bbox_to_anchor=(-1.3, -0.35), borderaxespad=0)


def plot_bingham_2d(result):
    """Static figure of :func:`~privpca_edu.experiments.noisy_covariance.bingham_2d`.

    Parameters
    ----------
    result : dict
        A result of :func:`~privpca_edu.experiments.noisy_covariance.bingham_2d`.

    Returns
    -------
    matplotlib.figure.Figure
        The figure.
    """
    return Bingham2DFigure(result).fig


class GibbsMixingFigure(StaticFigure):
    """Figure of the Gibbs sampler's mixing.

    From :func:`privpca_edu.experiments.noisy_covariance.gibbs_mixing`: distance of each
    Gibbs chain to the non-private PCA, sweep by sweep, from a worst-case start.

    Parameters
    ----------
    data : dict or None, default=None
        A result of :func:`~privpca_edu.experiments.noisy_covariance.gibbs_mixing` to draw at once (``None``: draw nothing until :meth:`draw`).
    """

    height = 5.2
    alt = ("Line chart: the distance ‖sin Θ‖_F of each Gibbs chain to the non-private PCA, sweep by sweep from a "
           "worst-case start, falling within a few sweeps to the level of long chains, far below the random "
           "guess.")

    def _build(self):
        self.ax = self.fig.subplots()

    def _draw(self, r):
        ax = self.ax
        ax.cla()
        D = np.asarray(r["distance"])
        sweeps = np.arange(D.shape[1])
        for c, row in enumerate(D):
            ax.plot(sweeps, row, "o-", ms=4, lw=1.2, color=S.style("PPCA")["color"], alpha=0.7,
                    label="one Gibbs chain" if c == 0 else None)
        ax.axhline(r["exact_level"], color="k", lw=1.3,
                   label=f"long chains ({r['reference_sweeps']} sweeps): the law's level")
        ax.axhline(r["random_guess"], color=S.GREY, ls=(0, (6, 3)), lw=1.2, label="random guess")
        ax.set_ylim(0, 1.1 * r["max_distance"])
        ax.set_xlabel("Gibbs sweeps completed")
        ax.set_ylabel(S.LABELS["error_to_nonprivate"])
        ax.xaxis.set_major_locator(ticker.MaxNLocator(integer=True))
        ax.legend(loc="upper left", bbox_to_anchor=(0.0, -0.16), borderaxespad=0)
        ax.set_title(f"Hoff's Gibbs sampler for PPCA, worst-case start\n(d = {r['n_features']}, "
                     f"k = {r['n_components']}, ε = {r['epsilon']:g}, n = {r['n_samples']})", loc="left")


def plot_gibbs_mixing(result):
    """Static figure of :func:`~privpca_edu.experiments.noisy_covariance.gibbs_mixing`.

    Parameters
    ----------
    result : dict
        A result of :func:`~privpca_edu.experiments.noisy_covariance.gibbs_mixing`.

    Returns
    -------
    matplotlib.figure.Figure
        The figure.
    """
    return GibbsMixingFigure(result).fig


class ModSuLQScaleFigure(StaticFigure):
    """Figure of MOD-SuLQ's noise against the signal at scale.

    From :func:`privpca_edu.experiments.noisy_covariance.mod_sulq_at_scale`: the sizes that
    decide whether a noisy covariance is useful, on one log axis.

    Parameters
    ----------
    data : dict or None, default=None
        A result of :func:`~privpca_edu.experiments.noisy_covariance.mod_sulq_at_scale` to draw at once (``None``: draw nothing until :meth:`draw`).
    """

    height = 4.6
    alt = ("Horizontal bars on a log axis: the size of MOD-SuLQ's noise, the k-th eigenvalue, the eigengap and "
           "Analyze Gauss's noise at the DPS-PCA paper's scale; MOD-SuLQ's noise is far larger than the eigengap.")

    def _build(self):
        self.ax = self.fig.subplots()

    def _draw(self, r):
        ax = self.ax
        ax.cla()
        rows = [
            (r"MOD-SuLQ noise $\|E\|_2 \approx 2\sqrt{d}\,\beta$", r["expected_spectral_norm"], S.style("ModSuLQ")["color"]),
            ("  (one simulated draw)", r["measured_spectral_norm"], S.style("ModSuLQ")["color"]),
            (r"signal: eigenvalue $\lambda_k$", r["lambda_k"], "k"),
            (r"eigengap $\lambda_k - \lambda_{k+1}$", r["eigengap"], S.GREY),
            (r"Analyze Gauss noise $\|E\|_2 \approx 2\sqrt{d}\,\sigma$", r["analyze_gauss_spectral_norm"],
             S.style("AnalyzeGauss")["color"]),
        ]
        y = np.arange(len(rows))[::-1]
        ax.barh(y, [v for _, v, _ in rows], color=[c for _, _, c in rows], height=0.6)
        ax.set_yticks(y, [name for name, _, _ in rows], fontsize=S.SMALL)
        ax.set_xscale("log")
        for yi, (_, v, _) in zip(y, rows):
            ax.text(v * 1.15, yi, f"{v:.3g}", va="center", fontsize=S.SMALL)
        top = 10.0 ** math.ceil(math.log10(max(v for _, v, _ in rows) * 1.15) + 1.0)  # room for the values
        ax.set_xlim(1e-4, top)
        S.log_decades_between(ax.xaxis, 1e-4, top)
        ax.set_xlabel(r"size (units of $X^\top X/n$, rows of norm 1; log scale)")
        ax.set_title(f"The DPS-PCA paper's scale: d = {r['n_features']}, n = {r['n_samples']:,},\n"
                     f"k = {r['n_components']}, ε = {r['epsilon']:g}, δ = {r['delta']:g}.\n"
                     f"MOD-SuLQ's noise is {r['noise_to_gap']:.0f}× the eigengap; "
                     f"Analyze Gauss's is {r['analyze_gauss_spectral_norm'] / r['eigengap']:.2f}×", loc="left")


def plot_mod_sulq_at_scale(result):
    """Static figure of :func:`~privpca_edu.experiments.noisy_covariance.mod_sulq_at_scale`.

    Parameters
    ----------
    result : dict
        A result of :func:`~privpca_edu.experiments.noisy_covariance.mod_sulq_at_scale`.

    Returns
    -------
    matplotlib.figure.Figure
        The figure.
    """
    return ModSuLQScaleFigure(result).fig
