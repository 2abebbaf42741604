r"""Figures of the chapters *Noisy covariance* (4) and *Auditing privacy claims* (5).

Same design as :mod:`privpca_edu.plotting` (whose :class:`~privpca_edu.plotting.LiveFigure`
every class here subclasses): ``_build`` creates axes and artists once, ``_draw(result)`` moves
them to show a result of :mod:`privpca_edu.experiments.noisy_covariance` or
:mod:`privpca_edu.experiments.auditing`; errors are written over the figure by the dashboard.
Each class has a ``plot_…`` function returning a static :class:`matplotlib.figure.Figure`.

Figures compute nothing: every number drawn is a field of the experiment result.
"""

from __future__ import annotations

import math

import numpy as np
from matplotlib import ticker
from matplotlib.collections import PolyCollection
from matplotlib.patches import Rectangle

from .plotting import LiveFigure, _nice_ceil

__all__ = [
    "CHAPTER_METHOD_STYLES",
    "ChapterFigure",
    "NoisyCovarianceFigure",
    "plot_noisy_covariance",
    "Bingham2DFigure",
    "plot_bingham_2d",
    "GibbsMixingFigure",
    "plot_gibbs_mixing",
    "ModSuLQScaleFigure",
    "plot_mod_sulq_at_scale",
    "GdpAuditFigure",
    "plot_gdp_audit",
    "OutputEpsilonFigure",
    "plot_output_epsilon",
    "SamplerDensityFigure",
    "plot_sampler_density",
]

#: Colour and label of the chapter's three mechanisms.
CHAPTER_METHOD_STYLES = {
    "AnalyzeGauss": dict(color="#1f77b4", label="Analyze Gauss"),
    "ModSuLQ": dict(color="#ff7f0e", label="MOD-SuLQ"),
    "PPCA": dict(color="#2ca02c", label="PPCA (Bingham)"),
}
_GREY = "0.45"
_BAD = "#b00020"
_GOOD = "#1a7f37"


class ChapterFigure(LiveFigure):
    """Base of this module's static figures: a full redraw on every update (``blit = False``).

    Their ``_draw`` clears and refills the axes (``cla``), which suits a figure drawn once.
    The two live figures (:class:`NoisyCovarianceFigure`, :class:`GdpAuditFigure`) blit
    instead: every artist ``_draw`` changes is created once, updated in place and animated,
    and the texts holding slider values are animated axes texts (never a suptitle).
    """

    blit = False


def _num(x, digits=3):
    if x is None:
        return "—"
    if isinstance(x, float) and math.isinf(x):
        return "∞"
    return f"{x:.{digits}g}"


def _band_verts(x, low, high):
    """Polygons of a min–max band (as ``fill_between``), split where a value is not finite."""
    x, low, high = (np.asarray(a, dtype=float) for a in (x, low, high))
    ok = np.isfinite(x) & np.isfinite(low) & np.isfinite(high)
    polys, start = [], None
    for i in range(len(x) + 1):
        if i < len(x) and ok[i]:
            start = i if start is None else start
        elif start is not None:
            sl = slice(start, i)
            polys.append(np.concatenate([np.column_stack([x[sl], low[sl]]),
                                         np.column_stack([x[sl], high[sl]])[::-1]]))
            start = None
    return polys


def _decades(axis, lo, hi):
    """Log axis with a labelled tick at each decade between lo and hi, plain numbers."""
    lo_e, hi_e = math.floor(math.log10(lo)), math.ceil(math.log10(hi))
    axis.set_major_locator(ticker.FixedLocator([10.0**e for e in range(lo_e, hi_e + 1)]))
    axis.set_major_formatter(ticker.FuncFormatter(lambda v, _: f"{v:g}"))
    axis.set_minor_locator(ticker.NullLocator())


# ---------------------------------------------------------------------------------------------
# Chapter 4, live: subspace error of AG, MOD-SuLQ, PPCA
# ---------------------------------------------------------------------------------------------
class NoisyCovarianceFigure(ChapterFigure):
    """Two panels from :func:`privpca_edu.experiments.noisy_covariance.noisy_covariance_errors`.

    (a) mean error (band: min–max over the seeds) against ε for the three mechanisms, the
    capped Davis–Kahan bounds of Analyze Gauss and MOD-SuLQ dashed, the random-guess level and
    the chosen ε.  (b) at the chosen ε: every seed's error (dots), their mean (bar), the
    Davis–Kahan bound (triangle; hollow when vacuous), the random-guess level and the
    non-private PCA's own sampling error.

    Live (blitted): every artist below is created once and moved by ``_draw``; the ε axis
    spans whole decades (0.01 … 100 for the dashboard's sweep and slider), so it stays put
    while ε moves, and the header is an animated text, not a suptitle.
    """

    figsize = (11.5, 5.0)
    blit = True

    def _build(self):
        fig = self.fig
        fig.subplots_adjust(left=0.06, right=0.985, bottom=0.27, top=0.85, wspace=0.9)
        gs = fig.add_gridspec(1, 5)
        self.ax = fig.add_subplot(gs[0, :3])
        self.ax_at = fig.add_subplot(gs[0, 3:])
        ax = self.ax
        ax.set_xscale("log")
        self.fills = {}
        self.lines, self.bound_lines, self.points = {}, {}, {}
        for name, style in CHAPTER_METHOD_STYLES.items():
            # the min–max band, updated in place (set_verts) instead of a new fill_between per move
            self.fills[name] = PolyCollection([], facecolors=style["color"], alpha=0.15, linewidths=0,
                                              edgecolors="none")
            ax.add_collection(self.fills[name], autolim=False)
            (self.lines[name],) = ax.plot([], [], "o-", ms=3.5, lw=1.8, color=style["color"],
                                          label=f"{style['label']}: mean error")
            (self.points[name],) = ax.plot([], [], "o", ms=8, color=style["color"], mec="k", zorder=6)
            if name != "PPCA":
                (self.bound_lines[name],) = ax.plot([], [], ls="--", lw=1.4, color=style["color"],
                                                    label=f"{style['label']}: Davis–Kahan bound")
        (self.l_random,) = ax.plot([], [], color=_GREY, ls=(0, (6, 3)), lw=1.2, label="random guess √(k(d−k)/d)")
        (self.l_max,) = ax.plot([], [], color="0.7", ls=":", lw=1.0, label="largest possible √min(k, d−k)")
        self.vline = ax.axvline(1.0, color="0.15", lw=1.0)
        ax.set_xlabel("privacy budget ε (log scale)")
        ax.set_ylabel("error ‖sin Θ‖_F to non-private PCA")
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.14), fontsize=7.5, frameon=False, ncol=3)
        self.t_sweep = ax.set_title("", fontsize=9.5)

        ax = self.ax_at
        self.x = np.arange(len(CHAPTER_METHOD_STYLES))
        ax.set_xticks(self.x, [s["label"] for s in CHAPTER_METHOD_STYLES.values()], fontsize=8.5)
        ax.set_xlim(-0.6, len(self.x) - 0.4)
        self.dots = ax.scatter([], [], s=22, zorder=4, edgecolors="k", linewidths=0.4)
        self.means = ax.hlines([], [], [], colors="k", lw=2.2, zorder=5)
        (self.dk_full,) = ax.plot([], [], "v", ms=9, color="k", zorder=6, label="Davis–Kahan bound")
        (self.dk_vacuous,) = ax.plot([], [], "v", ms=9, mfc="white", mec="k", zorder=6,
                                     label="Davis–Kahan: vacuous (capped)")
        self.at_random = ax.axhline(1.0, color=_GREY, ls=(0, (6, 3)), lw=1.2, label="random guess")
        self.at_pca = ax.axhline(0.0, color="#9467bd", ls=":", lw=1.3, label="non-private PCA vs truth")
        self.at_text = [ax.text(xi, 0, "", ha="center", va="bottom", fontsize=7.5) for xi in self.x]
        ax.set_ylabel("error ‖sin Θ‖_F (one dot per seed)")
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.14), fontsize=7.5, frameon=False, ncol=2)
        self.t_at = ax.set_title("", fontsize=9.5)
        # the header holds n, d, k, δ, seed: an animated text where a suptitle would be
        self.title = ax.text(0.5, 0.98, "", transform=fig.transFigure, ha="center", va="top", fontsize=11)
        self._animate(list(self.fills.values()), list(self.lines.values()), list(self.points.values()),
                      list(self.bound_lines.values()), self.l_random, self.l_max, self.vline, self.t_sweep,
                      self.dots, self.means, self.dk_full, self.dk_vacuous, self.at_random, self.at_pca,
                      self.at_text, self.t_at, self.title)
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
        for name, style in CHAPTER_METHOD_STYLES.items():
            mean = np.asarray(r["sweep_mean"][name])
            self.lines[name].set_data(grid, mean)
            band = _band_verts(grid, r["sweep_min"][name], r["sweep_max"][name]) if np.any(np.isfinite(mean)) else []
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
            _decades(ax.xaxis, lo, hi)
        ax.set_ylim(0, top)
        ppca_note = "" if r["n_components"] == 1 else " (PPCA: live ε only, k > 1)"
        self.t_sweep.set_text(f"(a) error against ε: mean of {r['n_seeds']} seeds, band = min–max{ppca_note}")

        ax = self.ax_at
        xs, ys, colors, segs = [], [], [], []
        full, vac = ([], []), ([], [])
        names = list(CHAPTER_METHOD_STYLES)
        for xi, name in zip(self.x, names):
            errs = np.asarray(r["errors"][name])
            jitter = np.linspace(-0.18, 0.18, len(errs)) if len(errs) > 1 else np.zeros(1)
            xs += list(xi + jitter)
            ys += list(errs)
            colors += [CHAPTER_METHOD_STYLES[name]["color"]] * len(errs)
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
            high = max(max(ys[-len(errs):]), b["sin_theta_bound"] if b is not None else 0.0)
            self.at_text[list(self.x).index(xi)].set_y(min(high + 0.03 * top, top))
        self.dots.set_offsets(np.column_stack([xs, ys]))
        self.dots.set_facecolor(colors)
        self.means.set_segments(segs)
        self.dk_full.set_data(*full)
        self.dk_vacuous.set_data(*vac)
        self.at_random.set_ydata([r["random_guess"]] * 2)
        self.at_pca.set_ydata([r["pca_error"]] * 2)
        ax.set_ylim(0, 1.2 * top)
        self.t_at.set_text(f"(b) at ε = {_num(e)}: PPCA sampler {r['ppca_sampler']}")
        self.title.set_text(
            f"Noisy covariance on the spiked model — n = {r['n_samples']}, d = {r['n_features']}, "
            f"k = {r['n_components']}, δ = {r['delta']:.2g} (AG: {r['calibration']} σ), data seed {r['seed']}")


def plot_noisy_covariance(result):
    """Static figure of :func:`~privpca_edu.experiments.noisy_covariance.noisy_covariance_errors`."""
    return NoisyCovarianceFigure(result).fig


# ---------------------------------------------------------------------------------------------
# Chapter 4: the Bingham law in d = 2
# ---------------------------------------------------------------------------------------------
class Bingham2DFigure(ChapterFigure):
    """From :func:`privpca_edu.experiments.noisy_covariance.bingham_2d`: the data with their
    principal axis and some PPCA output directions, then one histogram of the output angle per
    ε against the exact density."""

    figsize = (12.0, 3.9)
    n_eps = 3

    def __init__(self, data=None):
        if data is not None:
            self.n_eps = len(data["epsilons"])
        super().__init__(data)

    def _build(self):
        fig = self.fig
        fig.subplots_adjust(left=0.06, right=0.99, bottom=0.16, top=0.8, wspace=0.35)
        axes = fig.subplots(1, self.n_eps + 1)
        self.ax_data, self.ax_eps = axes[0], list(axes[1:])
        ax = self.ax_data
        ax.set_aspect("equal")
        ax.set_xlim(-1.15, 1.15)
        ax.set_ylim(-1.15, 1.15)
        ax.set_xlabel("feature 1")
        ax.set_ylabel("feature 2")
        self.title = fig.suptitle("", fontsize=11)

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
            ax.plot([-math.cos(th), math.cos(th)], [-math.sin(th), math.sin(th)], color="#2ca02c", lw=0.8,
                    alpha=0.45, label=f"25 PPCA outputs at ε = {mid:g}" if j == 0 else None)
        ax.set_xlabel("feature 1")
        ax.set_ylabel("feature 2")
        ax.legend(loc="lower left", fontsize=6.5, frameon=True, framealpha=0.85)
        ax.set_title("the data and PPCA's directions", fontsize=9)
        grid_deg = np.degrees(np.asarray(r["theta_grid"]))
        edges = np.linspace(0.0, 180.0, 61)
        for ax, eps in zip(self.ax_eps, r["epsilons"]):
            ax.cla()
            th = np.degrees(np.asarray(r["samples"][eps]))
            ax.hist(th, bins=edges, density=True, color="#2ca02c", alpha=0.45, label="PPCA draws (exact sampler)")
            ax.plot(grid_deg, np.asarray(r["density"][eps]) * math.pi / 180.0, color="k", lw=1.5,
                    label="exact density ∝ exp(ε/2 · vᵀXᵀXv)")
            ax.axvline(math.degrees(r["principal_angle"]), color="k", ls="--", lw=1.0, label="principal axis")
            ax.set_xlim(0, 180)
            ax.xaxis.set_major_locator(ticker.MultipleLocator(45))
            ax.set_xlabel("output direction θ (°; v ≡ −v)")
            ax.set_ylabel("density (per degree)")
            audit = r["chi2"].get(eps)
            check = ("" if audit is None else
                     f"\nrecipe E: χ² = {audit.values['chi2']:.0f} on {audit.values['dof']} df")
            ax.set_title(f"ε = {eps:g}{check}", fontsize=9)
        self.ax_eps[0].legend(loc="upper left", fontsize=6.5, frameon=True, framealpha=0.85)
        self.title.set_text("PPCA in the plane: the output direction is drawn from a Bingham law "
                            "that concentrates on the principal axis as ε grows")


def plot_bingham_2d(result):
    """Static figure of :func:`~privpca_edu.experiments.noisy_covariance.bingham_2d`."""
    return Bingham2DFigure(result).fig


class GibbsMixingFigure(ChapterFigure):
    """From :func:`privpca_edu.experiments.noisy_covariance.gibbs_mixing`: distance of each
    Gibbs chain to the non-private PCA, sweep by sweep, from a worst-case start."""

    figsize = (6.5, 3.8)

    def _build(self):
        self.fig.subplots_adjust(left=0.12, right=0.97, bottom=0.15, top=0.85)
        self.ax = self.fig.subplots()
        self.title = self.ax.set_title("", fontsize=9.5)

    def _draw(self, r):
        ax = self.ax
        ax.cla()
        D = np.asarray(r["distance"])
        sweeps = np.arange(D.shape[1])
        for c, row in enumerate(D):
            ax.plot(sweeps, row, "o-", ms=3, lw=1.0, color="#2ca02c", alpha=0.6,
                    label="one Gibbs chain" if c == 0 else None)
        ax.axhline(r["exact_level"], color="k", lw=1.3,
                   label=f"long chains ({r['reference_sweeps']} sweeps): the law's level")
        ax.axhline(r["random_guess"], color=_GREY, ls=(0, (6, 3)), lw=1.2, label="random guess")
        ax.set_ylim(0, 1.1 * r["max_distance"])
        ax.set_xlabel("Gibbs sweeps completed")
        ax.set_ylabel("‖sin Θ‖_F to non-private PCA")
        ax.xaxis.set_major_locator(ticker.MaxNLocator(integer=True))
        ax.legend(loc="center right", fontsize=7.5, frameon=True, framealpha=0.85)
        ax.set_title(f"Hoff's Gibbs sampler for PPCA (d = {r['n_features']}, k = {r['n_components']}, "
                     f"ε = {r['epsilon']:g}, n = {r['n_samples']}), worst-case start", fontsize=9.5)


def plot_gibbs_mixing(result):
    """Static figure of :func:`~privpca_edu.experiments.noisy_covariance.gibbs_mixing`."""
    return GibbsMixingFigure(result).fig


class ModSuLQScaleFigure(ChapterFigure):
    """From :func:`privpca_edu.experiments.noisy_covariance.mod_sulq_at_scale`: the sizes that
    decide whether a noisy covariance is useful, on one log axis."""

    figsize = (8.5, 3.6)

    def _build(self):
        self.fig.subplots_adjust(left=0.33, right=0.97, bottom=0.18, top=0.84)
        self.ax = self.fig.subplots()

    def _draw(self, r):
        ax = self.ax
        ax.cla()
        rows = [
            ("MOD-SuLQ noise ‖E‖₂ ≈ 2√d β", r["expected_spectral_norm"], "#ff7f0e"),
            ("  (one simulated draw)", r["measured_spectral_norm"], "#ffbb78"),
            ("signal: eigenvalue λ_k", r["lambda_k"], "k"),
            ("eigengap λ_k − λ_{k+1}", r["eigengap"], "0.4"),
            ("Analyze Gauss noise ‖E‖₂ ≈ 2√d σ", r["analyze_gauss_spectral_norm"], "#1f77b4"),
        ]
        y = np.arange(len(rows))[::-1]
        ax.barh(y, [v for _, v, _ in rows], color=[c for _, _, c in rows], height=0.6)
        ax.set_yticks(y, [name for name, _, _ in rows], fontsize=8.5)
        ax.set_xscale("log")
        for yi, (_, v, _) in zip(y, rows):
            ax.text(v * 1.15, yi, f"{v:.3g}", va="center", fontsize=8)
        ax.set_xlim(1e-4, 30)
        _decades(ax.xaxis, 1e-4, 10)
        ax.set_xlabel("size (units of XᵀX/n, rows of norm 1; log scale)")
        ax.set_title(f"The DPS-PCA paper's scale: d = {r['n_features']}, n = {r['n_samples']:,}, "
                     f"k = {r['n_components']}, ε = {r['epsilon']:g}, δ = {r['delta']:g}\n"
                     f"MOD-SuLQ's noise is {r['noise_to_gap']:.0f}× the eigengap; "
                     f"Analyze Gauss's is {r['analyze_gauss_spectral_norm'] / r['eigengap']:.2f}×", fontsize=9.5)


def plot_mod_sulq_at_scale(result):
    """Static figure of :func:`~privpca_edu.experiments.noisy_covariance.mod_sulq_at_scale`."""
    return ModSuLQScaleFigure(result).fig


# ---------------------------------------------------------------------------------------------
# Chapter 5, live: recipe C
# ---------------------------------------------------------------------------------------------
class GdpAuditFigure(ChapterFigure):
    """Two panels from :func:`privpca_edu.experiments.auditing.gdp_audit`.

    (a) the estimate μ̂ with its ± 4 SE band against the claimed μ (the region where the audit
    flags is shaded) and, when not hidden, the true μ of the mechanism as built.
    (b) the (ε, δ) curves: the claimed one, the one μ̂ implies (band: μ̂ ∓ 4 SE) and the
    advertised point (ε, δ).

    Live (blitted): the error bar and the band are updated in place; the legends, which the
    moving lines pass under, are animated too; the μ axis ends at a "nice" number (1, 1.25,
    1.5, 2, … × 10^k), so it rarely moves (and re-renders the background); the header is an
    animated text.
    """

    figsize = (11.5, 4.2)
    blit = True

    def __init__(self, data=None, show_truth=True):
        self.show_truth = show_truth
        super().__init__(data)

    def _build(self):
        fig = self.fig
        fig.subplots_adjust(left=0.03, right=0.985, bottom=0.14, top=0.78, wspace=0.2)
        self.ax_mu, self.ax_curve = fig.subplots(1, 2)
        ax = self.ax_mu
        ax.set_yticks([])
        ax.set_ylim(-1, 1)
        self.flag_zone = Rectangle((1.0, 0.0), 1e6, 1.0, transform=ax.get_xaxis_transform(), facecolor="#f2d0d0",
                                   edgecolor="none", alpha=0.7, zorder=0, label="audit flags μ̂ here")
        ax.add_patch(self.flag_zone)
        self.claim_line = ax.axvline(1.0, color="k", lw=2.0, label="claimed μ (largest μ allowed by (ε, δ))")
        self.true_line = ax.axvline(1.0, color="#9467bd", ls=":", lw=1.6, label="true μ of the mechanism as built")
        self.err = ax.errorbar([0], [0], xerr=[[0], [0]], fmt="o", ms=9, color="#1f77b4", capsize=7, lw=2.2,
                               label="estimate μ̂ ± 4 SE")
        self.verdict = ax.text(0.5, 0.78, "", transform=ax.transAxes, ha="center", fontsize=13, weight="bold")
        ax.set_xlabel("μ: Gaussian-DP parameter along the worst direction (dimensionless)")
        self.leg_mu = ax.legend(loc="lower right", fontsize=7, frameon=True, framealpha=0.85)
        self.t_mu = ax.set_title("", fontsize=9.5)

        ax = self.ax_curve
        ax.set_yscale("log")
        self.band = PolyCollection([], facecolors="#1f77b4", alpha=0.18, linewidths=0, edgecolors="none")
        ax.add_collection(self.band, autolim=False)
        (self.l_claim,) = ax.plot([], [], color="k", lw=2.0, label="claimed: δ(ε) of μ_claimed")
        (self.l_hat,) = ax.plot([], [], color="#1f77b4", lw=1.8, label="implied by μ̂")
        (self.l_true,) = ax.plot([], [], color="#9467bd", ls=":", lw=1.5, label="true (as built)")
        (self.p_claim,) = ax.plot([], [], "*", ms=13, color="k", zorder=6, label="advertised (ε, δ)")
        ax.set_xlabel("ε")
        ax.set_ylabel("δ(ε) (log scale)")
        self.leg_curve = ax.legend(loc="lower left", fontsize=7, frameon=True, framealpha=0.85)
        self.t_curve = ax.set_title("", fontsize=9.5)
        # the header holds the mechanism and the claim: an animated text where a suptitle would be
        self.title = ax.text(0.5, 0.98, "", transform=fig.transFigure, ha="center", va="top", fontsize=11)
        # The shaded zone, the lines, the error bar, the curves and the band move, and the legends are
        # drawn over them in a full render: so the legends are animated as well.
        self._animate(self.flag_zone, self.claim_line, self.true_line, self.err.lines, self.verdict,
                      self.leg_mu, self.t_mu,
                      self.band, self.l_claim, self.l_hat, self.l_true, self.p_claim, self.leg_curve,
                      self.t_curve, self.title)
        self._spines_below()

    def _draw(self, r):
        mu_hat, se, claim, thr = r["mu_hat"], r["se"], r["mu_claimed"], r["threshold"]
        truth = r["mu_true"] if self.show_truth else None
        hi = _nice_ceil(max(mu_hat + 5 * se, thr, claim, truth or 0.0) * 1.25)
        ax = self.ax_mu
        self.flag_zone.set_x(thr)
        self.claim_line.set_xdata([claim, claim])
        self.true_line.set_visible(truth is not None)
        if truth is not None:
            self.true_line.set_xdata([truth, truth])
        data_line, caplines, barcols = self.err.lines
        left, right = mu_hat - 4 * se, mu_hat + 4 * se
        data_line.set_data([mu_hat], [0])
        caplines[0].set_data([left], [0])
        caplines[1].set_data([right], [0])
        barcols[0].set_segments([[(left, 0), (right, 0)]])
        ax.set_xlim(0, hi)
        ok = r["passed"]
        self.verdict.set_text("PASS: consistent with the claim" if ok else "FLAGGED: spends more than it claims")
        self.verdict.set_color(_GOOD if ok else _BAD)
        self.t_mu.set_text(f"(a) recipe C: μ̂ = {mu_hat:.3f} ± {se:.3f} (N = {r['n_draws']:,} per data set)\n"
                           f"claimed μ = {claim:.3f}; the audit flags μ̂ above {thr:.3f}")

        ax = self.ax_curve
        eps = np.asarray(r["curve_epsilon"])
        floor = 1e-12

        def clip(v):
            return np.maximum(np.asarray(v, dtype=float), floor)

        self.band.set_verts(_band_verts(eps, clip(r["delta_low"]), clip(r["delta_high"])))
        self.l_claim.set_data(eps, clip(r["delta_claimed"]))
        self.l_hat.set_data(eps, clip(r["delta_hat"]))
        self.l_true.set_visible(truth is not None)
        self.l_true.set_data(eps, clip(r["delta_true"]))
        self.p_claim.set_data([r["epsilon"]], [r["delta"]])
        if ax.get_xlim() != (0, float(eps.max())):
            ax.set_xlim(0, float(eps.max()))
            ax.set_ylim(floor, 1.5)
            _decades(ax.yaxis, floor, 1.0)
            ax.yaxis.set_major_locator(ticker.FixedLocator([10.0**e for e in range(-12, 1, 2)]))
        self.t_curve.set_text(f"(b) privacy curves. At δ = {r['delta']:.2g} the claim is ε = {r['epsilon']:g};\n"
                              f"μ̂ implies ε ≈ {r['epsilon_hat']:.2f}, and at least {r['epsilon_lower']:.2f} "
                              "(from μ̂ − 4 SE)")
        mult = "" if r["sigma_multiplier"] == 1 else f", noise × {r['sigma_multiplier']:g}"
        self.title.set_text(f"Auditing “{r['mechanism']}”{mult}: worst-case pair n = {r['n_samples']}, "
                            f"d = {r['n_features']}, claim (ε, δ) = ({r['epsilon']:g}, {r['delta']:.2g})")


def plot_gdp_audit(result, show_truth=True):
    """Static figure of :func:`~privpca_edu.experiments.auditing.gdp_audit`."""
    return GdpAuditFigure(result, show_truth=show_truth).fig


# ---------------------------------------------------------------------------------------------
# Chapter 5: recipes D and E
# ---------------------------------------------------------------------------------------------
class OutputEpsilonFigure(ChapterFigure):
    """From :func:`privpca_edu.experiments.auditing.output_epsilon_demo`: the distribution of the
    audited statistic on D and D′ and the event the audit chose."""

    figsize = (7.0, 3.8)

    def _build(self):
        self.fig.subplots_adjust(left=0.11, right=0.97, bottom=0.15, top=0.85)
        self.ax = self.fig.subplots()

    def _draw(self, r):
        ax = self.ax
        ax.cla()
        edges = np.asarray(r["edges"])
        ax.stairs(r["hist"], edges, color="#1f77b4", lw=1.6, label="on D (three rows on e₁)")
        ax.stairs(r["hist_prime"], edges, color="#d62728", lw=1.6, label="on D′ (last row moved to e₂)")
        if r["threshold"] is not None:
            ax.axvline(r["threshold"], color="k", ls="--", lw=1.2, label="event chosen on the first half")
        ax.set_yscale("log")
        ax.set_xlabel("statistic s = |⟨v̂, e₁⟩| of the released direction")
        ax.set_ylabel("fraction of draws per bin (log scale)")
        ax.legend(loc="upper left", fontsize=7.5, frameon=True, framealpha=0.85)
        verdict = "PASS" if r["passed"] else "FLAGGED"
        ax.set_title(f"{r['mechanism']} (claims ε = {r['epsilon']:g}): "
                     f"certified ε ≥ {r['epsilon_lb']:.2f} → {verdict}",
                     fontsize=9.5, color=_GOOD if r["passed"] else _BAD)


def plot_output_epsilon(result):
    """Static figure of :func:`~privpca_edu.experiments.auditing.output_epsilon_demo`."""
    return OutputEpsilonFigure(result).fig


class SamplerDensityFigure(ChapterFigure):
    """From :func:`privpca_edu.experiments.auditing.sampler_density_demo`: one panel per sampler,
    the angle of its draws against the exact density of the law it claims to sample."""

    figsize = (12.0, 3.6)
    n_panels = 3

    def __init__(self, data=None):
        if data is not None:
            self.n_panels = len(data["samplers"])
        super().__init__(data)

    def _build(self):
        self.fig.subplots_adjust(left=0.06, right=0.99, bottom=0.16, top=0.78, wspace=0.25)
        axes = self.fig.subplots(1, self.n_panels)
        self.axes = list(np.atleast_1d(axes))
        self.title = self.fig.suptitle("", fontsize=11)

    def _draw(self, r):
        grid_deg = np.degrees(np.asarray(r["theta_grid"]))
        edges = np.linspace(0.0, 180.0, 61)
        dens = np.asarray(r["density"]) * math.pi / 180.0
        for ax, name in zip(self.axes, r["samplers"]):
            ax.cla()
            ax.hist(np.degrees(r["theta"][name]), bins=edges, density=True, color="#2ca02c", alpha=0.45,
                    label="sampler's draws")
            ax.plot(grid_deg, dens, color="k", lw=1.5, label="exact Bingham density")
            ax.set_xlim(0, 180)
            ax.xaxis.set_major_locator(ticker.MultipleLocator(45))
            ax.set_xlabel("direction θ (degrees)")
            ax.set_ylabel("density (per degree)")
            audit = r["chi2"][name]
            ok = audit.passed
            ax.set_title(f"{name}\nE[x₁²] = {r['moment'][name]:.3f} (exact {r['exact_moment']:.4f}); "
                         f"χ² = {audit.values['chi2']:.0f} → {'PASS' if ok else 'FLAGGED'}", fontsize=8.5,
                         color=_GOOD if ok else _BAD)
        self.axes[0].legend(loc="upper right", fontsize=7, frameon=True, framealpha=0.85)
        psi = ", ".join(f"{p:g}" for p in r["psi"])
        self.title.set_text(f"Recipe E: exact-density test of three rejection samplers for p(x) ∝ exp(−xᵀΨx), "
                            f"Ψ = diag({psi}), {r['n_draws']:,} draws each")


def plot_sampler_density(result):
    """Static figure of :func:`~privpca_edu.experiments.auditing.sampler_density_demo`."""
    return SamplerDensityFigure(result).fig
