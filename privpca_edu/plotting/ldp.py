r"""Figures of the chapter *Local privacy: when nobody is trusted* (from :mod:`privpca_edu.experiments.ldp`).

* :class:`LocalPrivacyFigure` — the live dashboard: one user's report before and after noise,
  error against n for local dense / local sparse / central / non-private PCA, and the measured
  errors next to Theorems 1–4 at the chosen setting.
* :func:`plot_error_curves` — one panel of the paper's Figures 1–2 (:func:`paper_figure`).
* :func:`plot_effective_sample_size` — local vs central over n, and the collapse onto n·ε²
  (local) and n·ε (central).
* :func:`format_real_data_table` — Table 1's shape as text.

Every figure states its units: errors are the projector distance
:math:`\lVert\hat U\hat U^\top - UU^\top\rVert_F = \sqrt2\,\lVert\sin\Theta(\hat U, U)\rVert_F`, the distance
Wang & Xu's experiments report (dimensionless, 0 = exact, √(2k) = orthogonal).  The model's gap parameter
(``gap``) is the relative eigengap :math:`(\lambda_k-\lambda_{k+1})/\lambda_{k+1}`; the dimension is d (Wang & Xu's p).
"""

from __future__ import annotations

import math

import numpy as np

from . import _style as S
from ._live import LiveFigure, StaticFigure, TitleBlock, band_verts, new_figure, nice_ceil, wrap

__all__ = [
    "LocalPrivacyFigure",
    "plot_error_curves",
    "plot_error_panels",
    "plot_user_report",
    "plot_effective_sample_size",
    "format_real_data_table",
    "LDP_STYLES",
]

#: The chapter's methods (keys of :data:`._style.STYLES`): colour, marker, line style, label.
LDP_STYLES = {m: S.style(m) for m in ("dense", "sparse", "central", "nonprivate")}

#: Horizontal offset of the theorem markers of panel (d) from the middle of their bar: the lower
#: bound (▼) to the left, the upper bounds (▲, ◇) to the right, so that they never hide each other.
MARKER_SHIFT = 0.17
_ERROR_LABEL = r"error $\|\hat U\hat U^\top - UU^\top\|_F$"


def _sym_limit(A):
    m = float(np.max(np.abs(A))) if np.size(A) else 1.0
    return m if m > 0 else 1.0


class LocalPrivacyFigure(LiveFigure):
    """Four panels from :func:`privpca_edu.experiments.ldp.ldp_dashboard_data`.

    (a) one user's :math:`xx^\\top` and (b) the report :math:`xx^\\top + Z` that leaves the device
    (each on its own colour scale, stated in the title); (c) error against n for the four
    methods, the chosen n marked, the central curve reaching the local error at the "matching
    n"; (d) the errors at the chosen setting with Theorems 1–4 (constants C = 1) as markers.

    Parameters
    ----------
    data : dict or None, default=None
        A result of :func:`~privpca_edu.experiments.ldp.ldp_dashboard_data` to draw at once (``None``: draw nothing until :meth:`draw`).
    """

    height = 10.4
    alt = ("Four panels. (a) and (b): heat maps of one user's x xᵀ and of the noisy report x xᵀ + Z that leaves "
           "the device, each on its own colour scale. (c) Error against the number of users n (log axis) for "
           "local Algorithm 1, local Algorithm 2, central Analyze Gauss and non-private PCA, with the chosen n "
           "and the n at which the central curator reaches the local error. (d) Bars of the four errors at the "
           "chosen setting with Theorems 1–4 as markers.")

    def _build(self):
        fig = self.fig
        gs = fig.add_gridspec(2, 2, height_ratios=[0.75, 1.0])
        self.ax_x = fig.add_subplot(gs[0, 0])
        self.ax_r = fig.add_subplot(gs[0, 1])
        self.ax_n = fig.add_subplot(gs[1, 0])
        self.ax_b = fig.add_subplot(gs[1, 1])
        for ax in (self.ax_x, self.ax_r):
            ax.set_xticks([])
            ax.set_yticks([])
        blank = np.zeros((2, 2))
        # the images fill a fixed unit square whatever p is (the axes have no ticks), so a p move
        # changes no axis limit and the cached background survives
        self.im_x = self.ax_x.imshow(blank, cmap="RdBu_r", vmin=-1, vmax=1, interpolation="nearest",
                                     extent=(0, 1, 1, 0))
        self.im_r = self.ax_r.imshow(blank, cmap="RdBu_r", vmin=-1, vmax=1, interpolation="nearest",
                                     extent=(0, 1, 1, 0))
        for ax in (self.ax_x, self.ax_r):
            ax.set_xlim(0, 1)
            ax.set_ylim(1, 0)
            ax.set_aspect("equal")
        self.ax_x.set_xlabel("feature j (red > 0 > blue)")
        self.ax_r.set_xlabel("feature j (red > 0 > blue)")
        self.ax_x.set_ylabel("feature i")
        # titles in short pieces, what ε and n change at the ends of lines (see TitleBlock)
        self.t_x = TitleBlock(self.ax_x, 2, animated=self.blit)
        self.t_r = TitleBlock(self.ax_r, 3, animated=self.blit)

        ax = self.ax_n
        ax.set_xscale("log")
        ax.set_xlim(20, 2e7)
        S.log_decades(ax.xaxis, 2, 7)
        self.lines = {}
        for m, style in LDP_STYLES.items():
            (self.lines[m],) = ax.plot([], [], **S.line_kw(m, ms=4), lw=2, label=style["short"])
        (self.l_random,) = ax.plot([20, 2e7], [1, 1], ls=(0, (6, 3)), color=S.GREY, lw=1.5, label="random guess")
        self.v_n = ax.axvline(1e6, color="0.2", lw=0.9)
        (self.p_match,) = ax.plot([], [], "*", color=S.style("central")["color"], ms=13, mec="k", zorder=6,
                                  label="central reaches\nlocal error")
        (self.h_match,) = ax.plot([], [], ":", color=S.style("central")["color"], lw=1.5)
        ax.set_xlabel(r"number of users $n$ (log scale)")
        ax.set_ylabel(_ERROR_LABEL)
        ax.legend(loc="upper left", bbox_to_anchor=(0.0, -0.2), borderaxespad=0, ncol=2)
        self.t_n = TitleBlock(ax, 4, animated=self.blit)

        ax = self.ax_b
        self.bar_keys = ["dense", "sparse", "central", "nonprivate"]
        xs = np.arange(4)
        self.bars = ax.bar(xs, np.zeros(4), color=[LDP_STYLES[m]["color"] for m in self.bar_keys], width=0.6,
                           edgecolor="k", linewidth=0.6)
        ax.set_xticks(xs, ["local\ndense", "local\nsparse", "central\nAG", "non-\nprivate"])
        # The theorem markers usually sit near 0 (the bounds at C = 1 are far below the errors): side by
        # side on each bar, not clipped by the axes and drawn above the bars, so that each stays visible.
        (self.m_lower,) = ax.plot([], [], "v", color="k", ms=9, clip_on=False, zorder=4,
                                  label="lower bound\n(Thm 1 / 3, C = 1)")
        (self.m_upper,) = ax.plot([], [], "^", color=S.OKABE_ITO["green"], mec="k", ms=10, clip_on=False, zorder=5,
                                  label="upper bound\n(Thm 2 / 4, C = 1)")
        (self.m_upper1,) = ax.plot([], [], "D", color=S.OKABE_ITO["green"], mfc="white", ms=8,
                                   label=r"same with $\lambda_1^2 \to 1$")
        (self.b_random,) = ax.plot([-0.5, 3.5], [1, 1], ls=(0, (6, 3)), color=S.GREY, lw=1.5)
        self.bar_text = [ax.text(x, 0, "", ha="center", va="bottom", fontsize=S.SMALL) for x in xs]
        ax.set_xlim(-0.5, 3.5)
        ax.legend(loc="upper left", bbox_to_anchor=(0.0, -0.2), borderaxespad=0)
        self.t_b = TitleBlock(ax, 3, animated=self.blit)
        self._animate(self.im_x, self.im_r, list(self.lines.values()), self.l_random, self.v_n,
                      self.p_match, self.h_match, self.bars, self.m_lower, self.m_upper, self.m_upper1, self.b_random,
                      self.bar_text)
        # drawn over the moving images in a full render, so animated too: the frames of the two images
        self._animate(list(self.ax_x.spines.values()), list(self.ax_r.spines.values()))
        self._spines_below(self.ax_n, self.ax_b)
        self._freeze(self.ax_n.get_legend(), self.ax_b.get_legend())
        self._ylim = None

    def _draw(self, r):
        u = r["user"]
        for im, A in ((self.im_x, u["outer"]), (self.im_r, u["report"])):
            lim = _sym_limit(A)
            im.set_data(A)
            im.set_clim(-lim, lim)
        lim_x, lim_r = _sym_limit(u["outer"]), _sym_limit(u["report"])
        self.t_r.set("(b) what they send: x xᵀ + Z,", (f"σ₁ ({r['calibration']}) = ", f"{S.fmt(u['noise_scale'])},"),
                     ("entries within ±", f"{lim_r:.3g}"))

        c = r["curves"]
        for m in ("dense", "sparse", "nonprivate"):
            self.lines[m].set_data(c["n"], c[m])
        self.lines["central"].set_data(c["n_central"], c["central"])
        level = r["random_level"]
        self.l_random.set_ydata([level, level])
        ylim = (0.0, 1.08 * r["max_error"])  # depends on (p, k) only: the cached background survives ε, n moves
        if self._ylim != ylim:
            self.ax_n.set_ylim(*ylim)
            self.ax_b.set_ylim(*ylim)
            self._ylim = ylim
        n = r["n_samples"]
        self.v_n.set_xdata([n, n])
        err = r["errors"]["dense"]
        match = r["matching_central_n"]
        if math.isfinite(match):
            self.p_match.set_data([match], [err])
            self.h_match.set_data([match, n], [err, err])
            match_txt = ("central matches it", ("with n ≈ ", f"{match:,.0f}", f" (√n = {r['sqrt_n']:,.0f})"))
        else:
            self.p_match.set_data([], [])
            self.h_match.set_data([], [])
            match_txt = ("central never reaches it", "on this grid")
        self.t_n.set((f"(c) δ = {r['delta']:g}, ε = ", f"{S.fmt(r['epsilon'])}:"),
                     (f"local error at n = {n:,}: ", f"{err:.2f};"), *match_txt)

        vals = [r["errors"][m] for m in self.bar_keys]
        for rect, v, t in zip(self.bars, vals, self.bar_text):
            rect.set_height(v)
            t.set_position((rect.get_x() + rect.get_width() / 2, v))
            t.set_text(f"{v:.2g}")
        th = r["theorem"]
        self.m_lower.set_data([-MARKER_SHIFT, 1 - MARKER_SHIFT], [th["lower_dense"]["projection_distance"], th["lower_sparse"]["projection_distance"]])
        self.m_upper.set_data([MARKER_SHIFT, 1 + MARKER_SHIFT], [th["upper_dense"]["projection_distance"], th["upper_sparse"]["projection_distance"]])
        self.m_upper1.set_data([MARKER_SHIFT, 1 + MARKER_SHIFT], [th["upper_dense"]["numerator_one_projection_distance"],
                                        th["upper_sparse"]["numerator_one_projection_distance"]])
        self.b_random.set_ydata([level, level])
        self.t_b.set(f"(d) k = {r['n_components']}, s* = {r['support_size']}: eigengap {r['eigengap']:.2g};",
                     ("noise σ₁/√n per entry = ", S.fmt(r["aggregate_noise_scale"])),
                     ("effective sample size nε² = ", f"{r['effective_sample_size']:.3g}"))
        self.t_x.set(f"(a) one user's x xᵀ (d = {r['n_features']}),", ("entries within ±", f"{lim_x:.3g}"))


_NAMES = {"n_samples": "n", "n_features": "d", "n_components": "k", "epsilon": "ε", "support_size": "s*"}
#: The synthetic model's gap parameter ``gap`` is the relative eigengap.
_GAP = r"$(\lambda_k-\lambda_{k+1})/\lambda_{k+1}$"


@S.in_house
def plot_error_curves(result, ax=None):
    """Plot one panel of Figures 1–2 of the local-privacy chapter.

    One panel of Figures 1–2 (:func:`~privpca_edu.experiments.ldp.paper_figure` or
    :func:`~privpca_edu.experiments.ldp.ldp_error_curves`): mean error ± 2 s.e. against x,
    one curve per value, non-private error dotted, random-guess level dashed.

    Parameters
    ----------
    result : dict
        A result of :func:`~privpca_edu.experiments.ldp.paper_figure` or
        :func:`~privpca_edu.experiments.ldp.ldp_error_curves`.
    ax : matplotlib.axes.Axes or None, default=None
        Draw into these axes (``None``: a new figure).

    Returns
    -------
    matplotlib.figure.Figure
        The new figure, or the figure holding ``ax``.
    """
    fig = None
    if ax is None:
        fig = new_figure(5.2)
        ax = fig.add_subplot(1, 1, 1)
    x = result["x"]
    cname = _NAMES.get(result["curve_name"], result["curve_name"])
    keys = ("AnalyzeGauss", "ModSuLQ", "PPCA", "DPSPCA", "SGPCA", "advanced")
    for i, c in enumerate(result["curve_values"]):
        st = S.style(keys[i % len(keys)])
        col = st["color"]
        m, se = result["mean"][i], result["se"][i]
        ax.errorbar(x, m, yerr=2 * np.nan_to_num(se), fmt=st["marker"], ls="-", ms=5, lw=1.8, capsize=2,
                    color=col, label=f"{cname} = {c:g}")
        ax.plot(x, result["nonprivate"][i], ":", color=col, lw=1.2)
        ax.plot(x, result["random_level"][i], "--", color=col, lw=1.0, alpha=0.6)
    if result["x_name"] in ("n_samples", "epsilon"):
        ax.set_xscale("log")
    ax.plot([], [], ":", color="0.3", label="non-private PCA")
    ax.plot([], [], "--", color="0.3", lw=1.0, label=r"random guess $\sqrt{2k(1-k/d)}$")
    xname = _NAMES.get(result["x_name"], result["x_name"])
    ax.set_xlabel(f"{xname} (number of users)" if xname == "n" else xname)
    ax.set_ylabel(_ERROR_LABEL)
    ax.set_ylim(bottom=0)
    ax.legend(loc="upper left", bbox_to_anchor=(0.0, -0.2), borderaxespad=0)
    algo = "Algorithm 1 (dense)" if result["algorithm"] == "dense" else "Algorithm 2 (sparse)"
    st = result["settings"]
    fixed = ", ".join(f"{_NAMES.get(key, key)} = {st[key]:g}" for key in ("n_features", "n_components", "epsilon",
                                                                           "support_size")
                      if key not in (result["x_name"], result["curve_name"]) and st.get(key) is not None)
    ax.set_title(f"{algo}:\n{fixed},\n{_GAP} = {st['gap']:g},\nmean of {result['n_repeats']} runs ± 2 s.e.", loc="left")
    return fig if fig is not None else ax.figure


@S.in_house
def plot_error_panels(results, title=None):
    """Plot several :func:`plot_error_curves` panels, two side by side (one figure of the paper).

    Parameters
    ----------
    results : list of dict
        Results of :func:`~privpca_edu.experiments.ldp.ldp_error_curves`, one per panel.
    title : str or None, default=None
        The figure's title (``None``: none).

    Returns
    -------
    matplotlib.figure.Figure
        The figure.
    """
    rows = (len(results) + 1) // 2
    fig = new_figure(5.6 * rows + 0.4)
    axes = np.atleast_1d(fig.subplots(rows, 2, squeeze=False)).ravel()
    for ax, res in zip(axes, results):
        plot_error_curves(res, ax=ax)
    for ax in axes[len(results):]:
        ax.set_visible(False)
    if title:
        fig.suptitle(title, fontsize=S.NORMAL)
    return fig


@S.in_house
def plot_user_report(result):
    """Plot one user's record, its outer product and its noisy report.

    One user's x (bars), x xᵀ and the report x xᵀ + Z (heatmaps with colour bars), from
    :func:`~privpca_edu.experiments.ldp.user_report_example`.

    Parameters
    ----------
    result : dict
        A result of :func:`~privpca_edu.experiments.ldp.user_report_example`.

    Returns
    -------
    matplotlib.figure.Figure
        The figure.
    """
    fig = new_figure(8.0)
    gs = fig.add_gridspec(2, 2, height_ratios=[0.7, 1.0])
    ax_x = fig.add_subplot(gs[0, :])
    ax_o, ax_r = fig.add_subplot(gs[1, 0]), fig.add_subplot(gs[1, 1])
    x = result["record"]
    ax_x.bar(np.arange(len(x)), x, color=S.GREY)
    ax_x.axhline(0, color="0.6", lw=0.8)
    ax_x.set_xlabel("feature j")
    ax_x.set_ylabel(r"value $x_j$ ($\|x\| \leq 1$)")
    ax_x.set_title(f"the record x (norm {np.linalg.norm(x):.3f})", loc="left")
    for ax, A, title in ((ax_o, result["outer"], "x xᵀ: what the server\nwould like"),
                         (ax_r, result["report"], f"x xᵀ + Z: what it gets\n(σ₁ = {result['noise_scale']:.3g})")):
        lim = _sym_limit(A)
        im = ax.imshow(A, cmap="RdBu_r", vmin=-lim, vmax=lim, interpolation="nearest")
        fig.colorbar(im, ax=ax, fraction=0.046, pad=0.04, label="entry value")
        ax.set_title(title, loc="left")
        ax.set_xlabel("feature j")
        ax.set_ylabel("feature i")
    fig.suptitle(r"One user's report: $\|x x^\top\|_F\, /\, \|Z\|_F$" + f" = {result['signal_to_noise']:.1e}\n"
                 "(note the two colour scales)")
    return fig


@S.in_house
def plot_effective_sample_size(result):
    """Plot local and central errors against n, n·ε² and n·ε (the effective sample size).

    Local vs central over n (left), and the same errors against n·ε² (local, middle) and n·ε
    (central, right): the curves of different ε collapse onto one — the effective sample size.

    Parameters
    ----------
    result : dict
        A result of :func:`~privpca_edu.experiments.ldp.effective_sample_size`.

    Returns
    -------
    matplotlib.figure.Figure
        The figure.
    """
    fig = new_figure(10.0)
    gs = fig.add_gridspec(2, 2)
    axes = [fig.add_subplot(gs[0, :]), fig.add_subplot(gs[1, 0]), fig.add_subplot(gs[1, 1])]
    n, eps = result["n"], result["epsilons"]
    markers = ("o", "s", "^", "D", "v", "P")
    shades = np.linspace(0.45, 1.0, len(eps))
    local, central = S.style("dense")["color"], S.style("central")["color"]
    for i, e in enumerate(eps):
        mk = markers[i % len(markers)]
        kw = dict(ms=5, marker=mk, alpha=float(shades[i]))
        axes[0].plot(n, result["local"][i], ls="-", color=local, label=f"local, ε = {e:g}", **kw)
        axes[0].plot(n, result["central"][i], ls="--", color=central, label=f"central, ε = {e:g}", **kw)
        axes[1].plot(n * e**2, result["local"][i], ls="-", color=local, label=f"ε = {e:g}", **kw)
        axes[2].plot(n * e, result["central"][i], ls="--", color=central, label=f"ε = {e:g}", **kw)
    for ax in axes:
        ax.set_xscale("log")
        ax.axhline(result["random_level"], color=S.GREY, ls=(0, (6, 3)), lw=1.5)
        ax.set_ylim(0, 1.1 * result["random_level"])
        ax.set_ylabel(_ERROR_LABEL)
    axes[0].plot(n, result["nonprivate"], ":", color="k", label="non-private")
    axes[0].set_xlabel(r"number of users $n$ (log scale)")
    axes[1].set_xlabel(r"$n\varepsilon^2$ (log scale)")
    axes[2].set_xlabel(r"$n\varepsilon$ (log scale)")
    axes[0].set_title("(a) same n, same ε: local needs far more users", loc="left")
    axes[1].set_title("(b) local: the curves for all ε\ncollapse on nε²", loc="left")
    axes[2].set_title("(c) central (Analyze Gauss):\nthey collapse on nε", loc="left")
    axes[0].legend(ncol=1, loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0)
    axes[1].legend(loc="lower left")
    axes[2].legend(loc="lower left")
    st = result["settings"]
    fig.suptitle(f"Effective sample size: d = {st['n_features']}, k = {st['n_components']}, {_GAP} = {st['gap']:g}, "
                 f"δ = {st['delta']:g},\ncalibration '{result['calibration']}' (random guess dashed)")
    return fig


def format_real_data_table(result):
    """Format Table 1's shape as plain text: data set, (n, d), one column per s, and the dense columns.

    Parameters
    ----------
    result : dict
        A result of :func:`~privpca_edu.experiments.ldp.real_data_table`.

    Returns
    -------
    str
        The table, one line per data set under a header.
    """
    levels = result["sparsity_levels"]
    head = f"{'data set':<15}{'(n, d)':>13}" + "".join(f"{'s = ' + str(s):>10}" for s in levels)
    head += f"{'Alg.2 dense':>13}{'Alg.1 dense':>13}{'random':>9}"
    lines = [head, "-" * len(head)]
    for row in result["rows"]:
        cells = "".join(f"{'—':>10}" if not np.isfinite(v) else f"{v:>10.3f}" for v in row["sparse"])
        n, p = row["size"]
        lines.append(f"{row['dataset']:<15}{f'({n}, {p})':>13}{cells}{row['sparse_dense_truth']:>13.3f}"
                     f"{row['dense']:>13.3f}{row['random_level']:>9.3f}")
    st = result["settings"]
    lines.append(f"k = {st['n_components']}, ε = {st['epsilon']:g}, δ = {st['delta']:g}, {st['n_repeats']} runs; "
                 f"error ‖ÛÛᵀ − UUᵀ‖_F (max √(2k) = {math.sqrt(2 * st['n_components']):.3f})")
    return "\n".join(lines)
