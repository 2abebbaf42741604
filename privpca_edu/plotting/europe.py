"""Figures of the Europe-map chapter (drawn from :mod:`privpca_edu.experiments.europe`)."""

from __future__ import annotations

import math

import numpy as np
from matplotlib import patheffects
from matplotlib.colors import to_rgba_array

from . import _style as S
from ._live import LiveFigure, StaticFigure, band_verts, new_figure, nice_ceil, wrap

__all__ = ["EuropeMapFigure", "plot_europe_map", "plot_similarity_table", "MIN_LABELLED_SIZE"]

#: Populations with at least this many people get a code at their centroid in the PC panels
#: (the geography panel labels all of them).
MIN_LABELLED_SIZE = 8
_HALO = [patheffects.withStroke(linewidth=1.6, foreground="white")]
_PRIVATE_TAG = "NOT PRIVATE"


def _source_banner(source):
    if source == "simulated":
        return "SIMULATED data — a population-genetics simulation of the POPRES design, not real people"
    return f"REAL data — {source}: 1387 Europeans (POPRES), 20 genetic principal components"


def _limits(points, pad=0.08):
    lo, hi = points.min(axis=0), points.max(axis=0)
    span = np.maximum(hi - lo, 1e-12)
    return lo - pad * span, hi + pad * span


class EuropeMapFigure(LiveFigure):
    """Three panels from :func:`privpca_edu.experiments.europe.europe_map`.

    (a) where the populations live (longitude, latitude; marker area ∝ sample size); (b) the
    non-private PCA map, turned rigidly to line up with (a); (c) the private map, Procrustes
    aligned (translation, rotation/reflection, scale) to (b), with the similarity scores.  Each
    person is a dot coloured by where their population lives; codes sit at population
    centroids.  Panels (a) and (b) depend only on the data and live in the cached background;
    a slider move redraws (c) alone (``set_offsets`` on one scatter, ``set_position`` on the
    labels).

    Parameters
    ----------
    data : dict or None, default=None
        A result of :func:`~privpca_edu.experiments.europe.europe_map` to draw at once (``None``: draw nothing until :meth:`draw`).
    """

    height = 10.2
    alt = ("Three maps. (a) Where the 37 European populations live, by longitude and latitude, marker area "
           "proportional to the people sampled. (b) The non-private PCA map of the people (first two principal "
           "components), turned to line up with (a). (c) The private map of the chosen method, aligned to (b); "
           "each person is a dot coloured by where their population lives, with population codes at the "
           "centroids; the similarity scores are printed beside it.")

    def _build(self):
        fig = self.fig
        (self.ax_geo, self.ax_np), (self.ax_priv, self.ax_text) = fig.subplots(2, 2)
        self.title = fig.suptitle("", fontweight="bold")
        self.ax_geo.set_xlabel("longitude (degrees east)")
        self.ax_geo.set_ylabel("latitude (degrees north)")
        self.ax_geo.set_title("(a) where the 37 populations live\n(marker area ∝ people sampled)", loc="left")
        for ax, which in ((self.ax_np, "non-private"), (self.ax_priv, "private")):
            ax.set_xlabel("axis 1 (≈ east–west, PC units)")
            ax.set_ylabel("axis 2 (≈ north–south)")
            ax.axhline(0, color="0.88", lw=0.7, zorder=0)
            ax.axvline(0, color="0.88", lw=0.7, zorder=0)
        self.ax_text.axis("off")
        self.t_np = self.ax_np.set_title("", loc="left")
        self.ax_priv.set_title("(c) the private map", loc="left")
        self.t_priv = self.ax_text.text(0.02, 0.98, "", transform=self.ax_text.transAxes, ha="left", va="top",
                                        fontsize=S.NORMAL, linespacing=1.5)
        self.sc_np = self.ax_np.scatter([], [], s=5, linewidths=0, alpha=0.75)
        self.sc_priv = self.ax_priv.scatter([], [], s=5, linewidths=0, alpha=0.75)
        self._animate(self.sc_priv, self.t_priv)
        self._data_id = None
        self.geo_artists = []
        self.np_labels = []
        self.priv_labels = []

    def _setup_data(self, r):
        """(Re)draw everything that depends only on the data set (not on the sliders)."""
        for artist in self.geo_artists + self.np_labels + self.priv_labels:
            artist.remove()
        colors = to_rgba_array(list(r["colors"]))
        self.sc_np.set_offsets(r["nonprivate"])
        self.sc_np.set_facecolors(colors)
        self.sc_priv.set_facecolors(colors)
        # (a) geography
        ax = self.ax_geo
        xy = np.asarray(r["geography_centroids"])
        sizes = np.asarray(r["population_sizes"], dtype=float)
        pop_colors = to_rgba_array(list(r["population_colors"]))
        self.geo_artists = [ax.scatter(xy[:, 0], xy[:, 1], s=8 + 1.6 * sizes, c=pop_colors, edgecolors="0.3",
                                       linewidths=0.5, alpha=0.9, zorder=2)]
        for (x, y), code, size in zip(xy, r["codes"], sizes):
            self.geo_artists.append(ax.text(x, y + 0.55, code, fontsize=S.SMALL,
                                            ha="center", va="bottom", zorder=3, path_effects=_HALO))
        ax.set_xlim(-12, 40)
        ax.set_ylim(33, 64)
        ax.set_aspect(1 / math.cos(math.radians(47.0)), adjustable="box")
        # (b) non-private map and (c)'s frame: same limits, equal aspect, centred
        lo, hi = _limits(np.asarray(r["nonprivate"]))
        half = np.maximum(np.abs(lo), np.abs(hi))
        for ax in (self.ax_np, self.ax_priv):
            ax.set_xlim(-half[0], half[0])
            ax.set_ylim(-half[1], half[1])
            ax.set_aspect("equal", adjustable="box")
        keep = [i for i, size in enumerate(r["population_sizes"]) if size >= MIN_LABELLED_SIZE]
        self._label_index = keep
        self.np_labels = [self.ax_np.text(*r["nonprivate_centroids"][i], r["codes"][i], fontsize=S.SMALL, ha="center",
                                          va="center", zorder=4, path_effects=_HALO, fontweight="bold")
                          for i in keep]
        # no halo here: a stroked text costs twice as much to redraw, and these move on every slider change
        self.priv_labels = [self.ax_priv.text(0, 0, r["codes"][i], fontsize=S.SMALL, ha="center", va="center", zorder=4,
                                              fontweight="bold", color="0.05") for i in keep]
        self._animate(self.priv_labels)
        self.t_np.set_text(f"(b) non-private PCA (PC1, PC2), turned\nto match (a): t₀ vs geography = "
                           f"{r['t0_geography_nonprivate']:.3f}\n(a random plane: t₀ ≈ "
                           f"{r['random_plane']['t0_nonprivate']:.2f} vs this map)")
        self.title.set_text(wrap(_source_banner(r["source"]), 80))
        self.title.set_color(S.OKABE_ITO["purple"] if r["source"] == "simulated" else S.OKABE_ITO["green"])
        self._static_version += 1

    def _draw(self, r):
        data_id = (r["source"], len(r["colors"]), float(np.asarray(r["nonprivate"])[0, 0]))
        if data_id != self._data_id:
            self._setup_data(r)
            self._data_id = data_id
        self.sc_priv.set_offsets(r["private"])
        centroids = r["private_centroids"]
        for text, i in zip(self.priv_labels, self._label_index):
            text.set_position(centroids[i])
        s = r["scores"]
        tag = "" if r["is_private"] else f" — {_PRIVATE_TAG}"
        self.t_priv.set_text(
            f"(c) private map:\n{r['method']}{tag}\n"
            f"ε = {S.fmt(r['epsilon'])}, δ = {r['delta']:.2g}\n\n"
            f"sin θ_max to the non-private\ndirections: {s['sin_theta']:.3f}\n"
            f"t₀ vs non-private map: {s['t0_nonprivate']:.3f}\n"
            f"t₀ vs geography: {s['t0_geography']:.3f}")
        self.t_priv.set_color(S.ERROR if not r["is_private"] else "black")


def plot_europe_map(result):
    """Static figure of :func:`privpca_edu.experiments.europe.europe_map`.

    Parameters
    ----------
    result : dict
        A result of :func:`~privpca_edu.experiments.europe.europe_map`.

    Returns
    -------
    matplotlib.figure.Figure
        The figure.
    """
    return EuropeMapFigure(result).fig


@S.in_house
def plot_similarity_table(table, *, reference=None, title=None):
    """Plot t₀ and ‖sin Θ‖₂ against ε, mean ± sd over draws, one line per method.

    Parameters
    ----------
    table : dict
        A result of :func:`~privpca_edu.experiments.europe.similarity_table`.
    reference : dict or None, default=None
        Reference runs on the real data, ε → (t₀ sph, t₀ AG, sin sph, sin AG), drawn as black
        crosses on the "Kendall (spherical)" and "Analyze Gauss (paper, not private)" curves.
    title : str or None, default=None
        The figure's title (``None``: one stating the settings).

    Returns
    -------
    matplotlib.figure.Figure
        The figure.
    """
    fig = new_figure(9.0)
    gs = fig.add_gridspec(2, 2, width_ratios=[1.0, 0.55])
    ax_t, ax_s = fig.add_subplot(gs[0, 0]), fig.add_subplot(gs[1, 0])
    ax_key = fig.add_subplot(gs[:, 1])
    ax_key.axis("off")
    eps = table["epsilons"]
    methods = list(table["methods"])
    for i, m in enumerate(methods):
        st = S.STYLES.get(m) or S.series(i)
        style = dict(color=st["color"], marker=st["marker"], ls=st["ls"], ms=6, capsize=3, lw=1.8)
        ax_t.errorbar(eps, table[m]["t0_nonprivate"], yerr=table[m]["t0_nonprivate_sd"], label=m, **style)
        ax_s.errorbar(eps, table[m]["sin_theta"], yerr=table[m]["sin_theta_sd"], label=m, **style)
    if reference:
        ref_eps = np.array(sorted(reference))
        cols = {"Kendall (spherical)": (0, 2), "Analyze Gauss (paper, not private)": (1, 3)}
        first = True
        for m, (ct, cs) in cols.items():
            if m not in methods:
                continue
            kw = dict(marker="x", color="k", ls="none", ms=7, mew=1.6, zorder=5)
            ax_t.plot(ref_eps, [reference[e][ct] for e in ref_eps], label="reference runs (20 draws)" if first else None,
                      **kw)
            ax_s.plot(ref_eps, [reference[e][cs] for e in ref_eps], **kw)
            first = False
    level = table.get("random_plane")
    if level:
        kw = dict(color=S.GREY, ls=(0, (6, 3)), lw=1.5)
        ax_t.axhline(level["t0_nonprivate"], label="random plane", **kw)
        ax_s.axhline(level["sin_theta"], **kw)
    for ax in (ax_t, ax_s):
        ax.set_xscale("log")
        ax.set_xlabel(S.LABELS["epsilon_log"])
        ax.set_ylim(0, 1.05)
    ax_t.set_ylabel(r"$t_0$ with the non-private map" + "\n(1 = same map)")
    ax_s.set_ylabel(r"$\sin\theta_{\max}$ to the non-private" + "\ndirections (1 = orthogonal)")
    handles, labels = ax_t.get_legend_handles_labels()
    ax_key.legend(handles, [wrap(label, 22) for label in labels], loc="center left", title="method",
                  alignment="left")
    ax_t.set_title("(a) does the private map look like the non-private one?", loc="left")
    ax_s.set_title("(b) are the private directions close to the\nnon-private ones?", loc="left")
    fig.suptitle(title or f"{table['source']} data: mean ± sd over {table['n_draws']} releases, "
                          f"δ = {table['delta']:g}")
    return fig
