r"""Chapter 3's figures: distances between subspaces (:mod:`privpca_edu.experiments.subspaces`)."""

from __future__ import annotations

import math

import numpy as np

from . import _style as S
from ._live import LiveFigure, bar_collection, nice_ceil, set_bar_heights

__all__ = ["PlanesFigure", "AnglesFigure", "DISTANCE_LABELS"]

#: Axis labels of the three subspace distances (privpca_edu.subspace.DISTANCE_KINDS), mathtext.
DISTANCE_LABELS = {kind: S.LABELS[kind] for kind in ("sin_theta", "projection", "max_angle")}
_DISTANCE_KEYS = {"sin_theta": "AnalyzeGauss", "projection": "ModSuLQ", "max_angle": "PPCA"}
_HATCHES = {"sin_theta": "", "projection": "//", "max_angle": ".."}


def _distance_bars(ax):
    kinds = list(DISTANCE_LABELS)
    x = np.arange(len(kinds))
    bars = [bar_collection(ax, S.style(_DISTANCE_KEYS[k])["color"], hatch=_HATCHES[k], edgecolors="k",
                           linewidths=0.6) for k in kinds]
    ax.set_xticks(x, [DISTANCE_LABELS[k] for k in kinds])
    levels = ax.hlines(np.zeros(len(kinds)), x - 0.4, x + 0.4, colors="k", linestyles="--", lw=1.5,
                       label=r"random subspace, $\sqrt{E\,D^2}$")
    texts = [ax.text(xi, 0, "", ha="center", va="bottom", fontsize=S.SMALL) for xi in x]
    ax.set_ylabel("distance")
    ax.set_xlim(-0.6, len(kinds) - 0.4)
    ax.legend(loc="upper left", bbox_to_anchor=(0.0, -0.14), borderaxespad=0)
    return kinds, x, bars, levels, texts


def _update_distance_bars(ax, parts, r):
    """Bars, values and random-subspace levels; the y-axis always shows every bar and level."""
    kinds, x, bars, levels, texts = parts
    top = max([r["distances"][k] for k in kinds] + [r["random_level"][k] for k in kinds] + [1e-9])
    ymax = nice_ceil(1.12 * top)  # room for the value labels above the bars
    ax.set_ylim(0, ymax)
    for bar, text, xi, kind in zip(bars, texts, x, kinds):
        v = r["distances"][kind]
        set_bar_heights(bar, [xi], [v], 0.6)
        text.set_text(f"{v:.3f}")
        level = r["random_level"][kind]
        # above the bar, or above the dashed level when that is just over the bar
        y = v if not (0 <= level - v < 0.08 * ymax) else level
        text.set_y(y + 0.01 * ymax)
    levels.set_segments([[(xi - 0.4, r["random_level"][k]), (xi + 0.4, r["random_level"][k])]
                         for xi, k in zip(x, kinds)])


class PlanesFigure(LiveFigure):
    """Figure of two subspaces of R³ and their distances.

    From :func:`privpca_edu.experiments.plane_distances`: the two subspaces in 3-D and the
    three distances as bars (dashed: where a random subspace would be).

    Parameters
    ----------
    data : dict or None, default=None
        A result of :func:`~privpca_edu.experiments.plane_distances` to draw at once (``None``: draw nothing until :meth:`draw`).
    """

    height = 5.0
    alt = ("Two panels. Left: two planes (or lines) through the origin in three dimensions, the reference U "
           "and the rotated V, with the line they share. Right: bars of the three distances between them, "
           "‖sin Θ‖_F, ‖UUᵀ − VVᵀ‖_F and sin θ_max, each with a dashed mark at the level of a random subspace.")

    def _build(self):
        from mpl_toolkits.mplot3d.art3d import Poly3DCollection

        fig = self.fig
        self.ax3 = fig.add_subplot(1, 2, 1, projection="3d", computed_zorder=False)
        ax = self.ax3
        ax.set_xlim(-1, 1)
        ax.set_ylim(-1, 1)
        ax.set_zlim(-1, 1)
        ax.set_box_aspect((1, 1, 1), zoom=0.9)
        ax.view_init(elev=22, azim=-58)
        ax.set_xlabel("$x_1$", labelpad=-8)
        ax.set_ylabel("$x_2$", labelpad=-8)
        ax.set_zlabel("$x_3$", labelpad=-8)
        for axis in (ax.xaxis, ax.yaxis, ax.zaxis):
            axis.set_ticks([-1, 0, 1])
        ax.tick_params(pad=-3)
        cu, cv = S.style("AnalyzeGauss")["color"], S.style("paper")["color"]
        self.poly_u = Poly3DCollection([np.zeros((4, 3))], facecolor=cu, edgecolor=cu, alpha=0.3)
        self.poly_v = Poly3DCollection([np.zeros((4, 3))], facecolor=cv, edgecolor=cv, alpha=0.3, hatch="//")
        ax.add_collection3d(self.poly_u)
        ax.add_collection3d(self.poly_v)
        (self.line_u,) = ax.plot([], [], [], color=cu, lw=3)
        (self.line_v,) = ax.plot([], [], [], color=cv, lw=3, ls="--")
        (self.shared,) = ax.plot([], [], [], color="k", lw=1.5, ls=":")
        (self.normal_u,) = ax.plot([], [], [], color=cu, lw=1, ls=":")
        (self.normal_v,) = ax.plot([], [], [], color=cv, lw=1, ls=":")
        self._legend_mode = None
        self.t3 = ax.set_title("", loc="left")
        self.ax_bar = fig.add_subplot(1, 2, 2)
        self.bar_parts = _distance_bars(self.ax_bar)
        self.t_bar = self.ax_bar.set_title("", loc="left")
        self._animate(self.poly_u, self.poly_v, self.line_u, self.line_v, self.shared, self.normal_u,
                      self.normal_v, self.t3, self.t_bar, self.bar_parts[2], self.bar_parts[3], self.bar_parts[4])

    @staticmethod
    def _square(basis):
        a, b = basis[:, 0], basis[:, 1]
        return np.array([a + b, a - b, -a - b, -a + b]) * 0.95

    def _draw(self, r):
        U, V, k = r["U"], r["V"], r["n_components"]
        planes = k == 2
        for artist in (self.poly_u, self.poly_v, self.shared, self.normal_u, self.normal_v):
            artist.set_visible(planes)
        for artist in (self.line_u, self.line_v):
            artist.set_visible(not planes)
        if planes:
            self.poly_u.set_verts([self._square(U)])
            self.poly_v.set_verts([self._square(V)])
            line = r["shared_line"]
            if line is None:  # the planes coincide: every line is shared
                self.shared.set_data_3d([], [], [])
            else:
                seg = np.array([-line, line]) * 1.2
                self.shared.set_data_3d(seg[:, 0], seg[:, 1], seg[:, 2])
            for artist, n in zip((self.normal_u, self.normal_v), r["normals"]):
                seg = np.array([np.zeros(3), n * 0.9])
                artist.set_data_3d(seg[:, 0], seg[:, 1], seg[:, 2])
        else:
            for artist, B in ((self.line_u, U), (self.line_v, V)):
                seg = np.array([-B[:, 0], B[:, 0]])
                artist.set_data_3d(seg[:, 0], seg[:, 1], seg[:, 2])
        if self._legend_mode != planes:
            handles = [self.line_u, self.line_v] if not planes else [self.poly_u, self.poly_v, self.shared]
            labels = ["U (reference)", "V (rotated)"] + (["shared line"] if planes else [])
            self.ax3.legend(handles, labels, loc="upper left", bbox_to_anchor=(0.0, -0.02), borderaxespad=0,
                            ncol=2)
            self._legend_mode = planes
            self._static_version = ("legend", planes)  # the background of each legend is kept
        what = "planes" if planes else "lines"
        angles = ", ".join(f"{a:.0f}°" for a in r["angles_deg"])
        self.t3.set_text(f"two {what} in R³, tilted {r['tilt_x']:.0f}°\nabout x₁, {r['tilt_y']:.0f}° about x₂;"
                         f"\nprincipal angles {angles}")
        _update_distance_bars(self.ax_bar, self.bar_parts, r)
        D = r["distances"]["sin_theta"]
        self.t_bar.set_text(r"$\|UU^\top - VV^\top\|_F/\sqrt{2} = \|\sin\Theta\|_F$" + f" = {D:.3f}\n"
                            f"largest possible: √min(k, 3−k) = {r['max_possible']:.3f}")


class AnglesFigure(LiveFigure):
    """Figure of two planes' principal angles and distances.

    From :func:`privpca_edu.experiments.angle_distances`: the sines of the two principal
    angles, and the three distances with the random-subspace level for this d.

    Parameters
    ----------
    data : dict or None, default=None
        A result of :func:`~privpca_edu.experiments.angle_distances` to draw at once (``None``: draw nothing until :meth:`draw`).
    """

    height = 4.6
    alt = ("Two panels. Left: bars of sin θ₁ and sin θ₂, the sines of the two principal angles between two "
           "planes in R^d. Right: bars of the three distances ‖sin Θ‖_F, ‖UUᵀ − VVᵀ‖_F and sin θ_max, each "
           "with a dashed mark at the level of a random plane in this dimension d.")

    def _build(self):
        fig = self.fig
        self.ax_sin, self.ax_bar = fig.subplots(1, 2, width_ratios=[0.7, 1.0])
        ax = self.ax_sin
        self.sin_bars = [bar_collection(ax, S.style(key)["color"], hatch=h, edgecolors="k", linewidths=0.6)
                         for key, h in (("advanced", ""), ("analytic_basic", "//"))]
        ax.set_xticks([0, 1], [r"$\sin\theta_1$", r"$\sin\theta_2$"])
        ax.set_xlim(-0.6, 1.6)
        ax.set_ylim(0, 1.15)
        ax.set_ylabel("sine of the principal angle")
        self.sin_text = [ax.text(x, 0, "", ha="center", va="bottom", fontsize=S.SMALL) for x in (0, 1)]
        self.t_sin = ax.set_title("", loc="left")
        self.bar_parts = _distance_bars(self.ax_bar)
        self.t_bar = self.ax_bar.set_title("", loc="left")
        self._animate(self.sin_bars, self.sin_text, self.t_sin, self.t_bar, self.bar_parts[2],
                      self.bar_parts[3], self.bar_parts[4])

    def _draw(self, r):
        angles = np.radians(r["angles_deg"])
        for x, (bar, text, a) in enumerate(zip(self.sin_bars, self.sin_text, angles)):
            set_bar_heights(bar, [x], [math.sin(a)], 0.55)
            text.set_text(f"{math.sin(a):.3f}")
            text.set_y(math.sin(a) + 0.02)
        self.t_sin.set_text("angles " + ", ".join(f"{a:.0f}°" for a in r["angles_deg"]))
        _update_distance_bars(self.ax_bar, self.bar_parts, r)
        self.t_bar.set_text(f"d = {r['n_features']}: a random plane has\n" + r"$\|\sin\Theta\|_F \approx$"
                            + f" {r['random_level']['sin_theta']:.3f}")
