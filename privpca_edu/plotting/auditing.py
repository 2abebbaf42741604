r"""Chapter 5's figures: auditing privacy claims (:mod:`privpca_edu.experiments.auditing`).

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
    "GdpAuditFigure", "plot_gdp_audit", "OutputEpsilonFigure", "plot_output_epsilon", "SamplerDensityFigure",
    "plot_sampler_density",
]



# ---------------------------------------------------------------------------------------------
# Chapter 5, live: recipe C
# ---------------------------------------------------------------------------------------------
class GdpAuditFigure(StaticFigure):
    """Two panels from :func:`privpca_edu.experiments.auditing.gdp_audit`.

    (a) the estimate μ̂ with its ± 4 SE band against the claimed μ (the region where the audit
    flags is shaded) and, when not hidden, the true μ of the mechanism as built.
    (b) the (ε, δ) curves: the claimed one, the one μ̂ implies (band: μ̂ ∓ 4 SE) and the
    advertised point (ε, δ).

    Live (blitted): the error bar and the band are updated in place; the legends, which the
    moving lines pass under, are animated too; the μ axis ends at a "nice" number (1, 1.25,
    1.5, 2, … × 10^k), so it rarely moves (and re-renders the background); the header is an
    animated text.

    Parameters
    ----------
    data : dict or None, default=None
        A result of :func:`~privpca_edu.experiments.auditing.gdp_audit` to draw at once (``None``: draw nothing until :meth:`draw`).
    show_truth : bool, default=True
        Mark the true μ of the mechanism as built (hide it for an exercise).
    """

    height = 8.0
    blit = True
    alt = ("Two panels. (a) The audit's estimate μ̂ of the Gaussian-DP parameter with its ± 4 standard-error bar, "
           "against the claimed μ (a vertical line) and the shaded region where the audit flags the mechanism; "
           "a verdict, PASS or FLAGGED, above. (b) Privacy curves δ(ε) on a log axis: the claimed one, the one μ̂ "
           "implies with its band, the true one, and the advertised point (ε, δ) as a star.")

    def __init__(self, data=None, show_truth=True):
        self.show_truth = show_truth
        super().__init__(data)

    def _build(self):
        fig = self.fig
        self.ax_mu, self.ax_curve = fig.subplots(2, 1, height_ratios=[0.75, 1.25])
        ax = self.ax_mu
        ax.set_yticks([])
        ax.set_ylim(-1, 1)
        self.flag_zone = Rectangle((1.0, 0.0), 1e6, 1.0, transform=ax.get_xaxis_transform(), facecolor="#EEEEEE",
                                   edgecolor="0.6", hatch="//", zorder=0, label="audit flags μ̂ here")
        ax.add_patch(self.flag_zone)
        self.claim_line = ax.axvline(1.0, color="k", lw=2.0, label=r"claimed $\mu$ (largest" + "\n" + r"allowed by $(\varepsilon, \delta)$)")
        self.true_line = ax.axvline(1.0, color=S.OKABE_ITO["purple"], ls=":", lw=2, label=r"true $\mu$ as built")
        self.err = ax.errorbar([0], [0], xerr=[[0], [0]], fmt="o", ms=9, color=S.OKABE_ITO["blue"], capsize=7, lw=2.2,
                               label=r"estimate $\hat\mu \pm 4$ SE")
        self.verdict = ax.text(0.02, 0.8, "", transform=ax.transAxes, ha="left", fontsize=S.TITLE, weight="bold")
        ax.set_xlabel(r"$\mu$: Gaussian-DP parameter along the worst direction")
        ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0)
        self.t_mu = ax.set_title("", loc="left")

        ax = self.ax_curve
        ax.set_yscale("log")
        self.band = PolyCollection([], facecolors=S.OKABE_ITO["blue"], alpha=0.18, linewidths=0, edgecolors="none")
        ax.add_collection(self.band, autolim=False)
        (self.l_claim,) = ax.plot([], [], color="k", lw=2.0, label=r"claimed $\delta(\varepsilon)$")
        (self.l_hat,) = ax.plot([], [], color=S.OKABE_ITO["blue"], ls="--", lw=2, label=r"implied by $\hat\mu$" + "\n(band: ± 4 SE)")
        (self.l_true,) = ax.plot([], [], color=S.OKABE_ITO["purple"], ls=":", lw=2, label="true (as built)")
        (self.p_claim,) = ax.plot([], [], "*", ms=14, color="k", zorder=6, label=r"advertised $(\varepsilon, \delta)$")
        ax.set_xlabel(r"$\varepsilon$")
        ax.set_ylabel(r"$\delta(\varepsilon)$ (log scale)")
        ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0)
        self.t_curve = ax.set_title("", loc="left")
        # the legends sit outside the axes: nothing moving passes under them
        self._animate(self.flag_zone, self.claim_line, self.true_line, self.err.lines, self.verdict, self.t_mu,
                      self.band, self.l_claim, self.l_hat, self.l_true, self.p_claim, self.t_curve)
        self._spines_below()

    def _draw(self, r):
        mu_hat, se, claim, thr = r["mu_hat"], r["se"], r["mu_claimed"], r["threshold"]
        truth = r["mu_true"] if self.show_truth else None
        hi = nice_ceil(max(mu_hat + 5 * se, thr, claim, truth or 0.0) * 1.25)
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
        self.verdict.set_color(S.GOOD if ok else S.BAD)
        mult = "" if r["sigma_multiplier"] == 1 else f", noise × {r['sigma_multiplier']:g}"
        self.t_mu.set_text(f"(a) auditing “{r['mechanism']}”{mult}\n"
                           f"worst-case pair n = {r['n_samples']}, d = {r['n_features']}, "
                           f"claim (ε, δ) = ({r['epsilon']:g}, {r['delta']:.2g})\n"
                           f"recipe C: μ̂ = {mu_hat:.3f} ± {se:.3f} (N = {r['n_draws']:,} per data set);\n"
                           f"claimed μ = {claim:.3f}; the audit flags μ̂ above {thr:.3f}")

        ax = self.ax_curve
        eps = np.asarray(r["curve_epsilon"])
        floor = 1e-12

        def clip(v):
            return np.maximum(np.asarray(v, dtype=float), floor)

        self.band.set_verts(band_verts(eps, clip(r["delta_low"]), clip(r["delta_high"])))
        self.l_claim.set_data(eps, clip(r["delta_claimed"]))
        self.l_hat.set_data(eps, clip(r["delta_hat"]))
        self.l_true.set_visible(truth is not None)
        self.l_true.set_data(eps, clip(r["delta_true"]))
        self.p_claim.set_data([r["epsilon"]], [r["delta"]])
        if ax.get_xlim() != (0, float(eps.max())):
            ax.set_xlim(0, float(eps.max()))
            ax.set_ylim(floor, 1.5)
            S.log_decades_between(ax.yaxis, floor, 1.0)
            ax.yaxis.set_major_locator(ticker.FixedLocator([10.0**e for e in range(-12, 1, 2)]))
        self.t_curve.set_text(f"(b) privacy curves. At δ = {r['delta']:.2g} the claim is ε = {r['epsilon']:g};\n"
                              f"μ̂ implies ε ≈ {r['epsilon_hat']:.2f}, and at least {r['epsilon_lower']:.2f} "
                              "(from μ̂ − 4 SE)")


def plot_gdp_audit(result, show_truth=True):
    """Static figure of :func:`~privpca_edu.experiments.auditing.gdp_audit`.

    Parameters
    ----------
    result : dict
        A result of :func:`~privpca_edu.experiments.auditing.gdp_audit`.
    show_truth : bool, default=True
        Mark the true μ of the mechanism as built.

    Returns
    -------
    matplotlib.figure.Figure
        The figure.
    """
    return GdpAuditFigure(result, show_truth=show_truth).fig


# ---------------------------------------------------------------------------------------------
# Chapter 5: recipes D and E
# ---------------------------------------------------------------------------------------------
class OutputEpsilonFigure(StaticFigure):
    """Figure of the output-ε audit.

    From :func:`privpca_edu.experiments.auditing.output_epsilon_demo`: the distribution of the
    audited statistic on D and D′ and the event the audit chose.

    Parameters
    ----------
    data : dict or None, default=None
        A result of :func:`~privpca_edu.experiments.auditing.output_epsilon_demo` to draw at once (``None``: draw nothing until :meth:`draw`).
    """

    height = 5.4
    alt = ("Two step histograms on a log axis: the audited statistic |⟨v̂, e₁⟩| of the released direction on data "
           "set D and on its neighbour D′, with the event the audit chose as a dashed line; the title gives the "
           "certified lower bound on ε and the verdict.")

    def _build(self):
        self.ax = self.fig.subplots()

    def _draw(self, r):
        ax = self.ax
        ax.cla()
        edges = np.asarray(r["edges"])
        ax.stairs(r["hist"], edges, color=S.OKABE_ITO["blue"], lw=2, label=r"on $D$ (three rows on $e_1$)")
        ax.stairs(r["hist_prime"], edges, color=S.OKABE_ITO["vermillion"], lw=2, ls="--",
                  label=r"on $D'$ (last row moved to $e_2$)")
        if r["threshold"] is not None:
            ax.axvline(r["threshold"], color="k", ls="--", lw=1.2, label="event chosen on the first half")
        ax.set_yscale("log")
        ax.set_xlabel(r"statistic $s = |\langle \hat v, e_1\rangle|$ of the released direction")
        ax.set_ylabel("fraction of draws per bin")
        ax.legend(loc="upper left", bbox_to_anchor=(0.0, -0.2), borderaxespad=0)
        verdict = "PASS" if r["passed"] else "FLAGGED"
        ax.set_title(f"{r['mechanism']} (claims ε = {r['epsilon']:g}):\n"
                     f"certified ε ≥ {r['epsilon_lb']:.2f} → {verdict}",
                     loc="left", color=S.GOOD if r["passed"] else S.BAD)


def plot_output_epsilon(result):
    """Static figure of :func:`~privpca_edu.experiments.auditing.output_epsilon_demo`.

    Parameters
    ----------
    result : dict
        A result of :func:`~privpca_edu.experiments.auditing.output_epsilon_demo`.

    Returns
    -------
    matplotlib.figure.Figure
        The figure.
    """
    return OutputEpsilonFigure(result).fig


def _display_name(name):
    """A sampler's name with its formula as mathtext."""
    return name.replace("(xᵀΩx)^{d/2}", r"$(x^\top\Omega x)^{d/2}$")


class SamplerDensityFigure(StaticFigure):
    """Figure of the samplers' densities.

    From :func:`privpca_edu.experiments.auditing.sampler_density_demo`: one panel per sampler,
    the angle of its draws against the exact density of the law it claims to sample.

    Parameters
    ----------
    data : dict or None, default=None
        A result of :func:`~privpca_edu.experiments.auditing.sampler_density_demo` to draw at once (``None``: draw nothing until :meth:`draw`).
    """

    height = 9.0
    n_panels = 3
    alt = ("One panel per rejection sampler: a histogram of the angle of its draws against the exact Bingham "
           "density it claims to sample, with its second moment, a χ² statistic and a PASS or FLAGGED verdict.")

    def __init__(self, data=None):
        if data is not None:
            self.n_panels = len(data["samplers"])
        super().__init__(data)

    def _build(self):
        rows = (self.n_panels + 1) // 2
        axes = np.atleast_1d(self.fig.subplots(rows, 2)).ravel()
        self.axes = list(axes[:self.n_panels])
        self.spare = list(axes[self.n_panels:])
        for ax in self.spare:
            ax.axis("off")
        self.title = self.fig.suptitle("", fontsize=S.TITLE)

    def _draw(self, r):
        grid_deg = np.degrees(np.asarray(r["theta_grid"]))
        edges = np.linspace(0.0, 180.0, 61)
        dens = np.asarray(r["density"]) * math.pi / 180.0
        for ax, name in zip(self.axes, r["samplers"]):
            ax.cla()
            ax.hist(np.degrees(r["theta"][name]), bins=edges, density=True, color=S.style("PPCA")["color"], alpha=0.45,
                    label="sampler's draws")
            ax.plot(grid_deg, dens, color="k", lw=1.5, label="exact Bingham density")
            ax.set_xlim(0, 180)
            ax.xaxis.set_major_locator(ticker.MultipleLocator(45))
            ax.set_xlabel(r"direction $\theta$ (degrees)")
            ax.set_ylabel("density per degree")
            audit = r["chi2"][name]
            ok = audit.passed
            ax.set_title(wrap(_display_name(name), 34) + f"\nE[x₁²] = {r['moment'][name]:.3f} (exact {r['exact_moment']:.4f})\n"
                         f"χ² = {audit.values['chi2']:.0f} → {'PASS' if ok else 'FLAGGED'}", loc="left",
                         fontsize=S.SMALL, color=S.GOOD if ok else S.BAD)
        handles, labels = self.axes[0].get_legend_handles_labels()
        (self.spare[0] if self.spare else self.axes[0]).legend(handles, labels, loc="center")
        psi = ", ".join(f"{p:g}" for p in r["psi"])
        self.title.set_text(f"Recipe E: exact-density test of rejection samplers\n"
                            f"for p(x) ∝ exp(−xᵀΨx), Ψ = diag({psi}), {r['n_draws']:,} draws each")


def plot_sampler_density(result):
    """Static figure of :func:`~privpca_edu.experiments.auditing.sampler_density_demo`.

    Parameters
    ----------
    result : dict
        A result of :func:`~privpca_edu.experiments.auditing.sampler_density_demo`.

    Returns
    -------
    matplotlib.figure.Figure
        The figure.
    """
    return SamplerDensityFigure(result).fig
