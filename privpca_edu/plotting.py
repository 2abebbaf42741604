r"""Matplotlib figures drawn from the results of :mod:`privpca_edu.experiments`.

Every figure of the book is a :class:`LiveFigure` subclass: ``_build`` creates the axes and
artists once, ``_draw(data)`` moves them (``set_data``, ``set_height``, ``set_verts`` …) to show
an experiment result.  The same class serves three uses:

* a static figure: ``plot_sigma_curves(result)`` returns a :class:`matplotlib.figure.Figure`
  (the last expression of a notebook cell displays it);
* a live dashboard (:mod:`privpca_edu.widgets`): the figure is redrawn **in place** on every
  slider release and rendered to PNG bytes with :meth:`LiveFigure.png`;
* an error display: :meth:`LiveFigure.show_error` writes a message over the axes, so a bad
  slider value shows what is wrong instead of a traceback.

Figures are created with :class:`matplotlib.figure.Figure` (not ``pyplot``): they are not
shown twice by the inline backend, need no GUI and are safe to redraw from widget callbacks.
"""

from __future__ import annotations

import io
import math

import numpy as np
from matplotlib import ticker
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

__all__ = [
    "LiveFigure",
    "AttackFigure",
    "SigmaFigure",
    "PlanesFigure",
    "AnglesFigure",
    "plot_membership_attack",
    "plot_sigma_curves",
    "plot_planes",
    "plot_principal_angles",
    "METHOD_STYLES",
    "DISTANCE_LABELS",
]

#: Colour and label of every accounting method of privacy.ITERATIVE_CALIBRATIONS.
METHOD_STYLES = {
    "paper": dict(color="#d62728", label="DPS-PCA's σ, basic composition", short="paper"),
    "classic": dict(color="#ff7f0e", label="classic GM, basic composition", short="classic"),
    "analytic_basic": dict(color="#8c564b", label="analytic GM, basic composition", short="analytic_basic"),
    "advanced": dict(color="#9467bd", label="analytic GM, advanced composition", short="advanced"),
    "zcdp": dict(color="#1f77b4", label="zero-concentrated DP", short="zcdp"),
    "analytic_exact": dict(color="#2ca02c", label="exact: Gaussian DP", short="analytic_exact"),
}

#: Axis labels of the three subspace distances (privpca_edu.subspace.DISTANCE_KINDS).
DISTANCE_LABELS = {
    "sin_theta": "‖sin Θ‖_F",
    "projection": "‖UUᵀ − VVᵀ‖_F",
    "max_angle": "sin θ_max",
}

_ERROR_COLOR = "#b00020"
_NOTE_COLOR = "#8a5a00"


def _log_axis(axis, lo_exp, hi_exp):
    """Log axis with labelled decades only: plain numbers, no mathtext (fast to redraw)."""
    axis.set_major_locator(ticker.FixedLocator([10.0**e for e in range(lo_exp, hi_exp + 1)]))
    axis.set_major_formatter(ticker.FuncFormatter(lambda v, _: f"{v:g}"))
    axis.set_minor_locator(ticker.NullLocator())


def _fmt(x, digits=3):
    if x is None:
        return "—"
    if isinstance(x, float) and math.isinf(x):
        return "∞"
    return f"{x:.{digits}g}"


class LiveFigure:
    """A figure whose artists are created once and updated in place.

    Subclasses set ``figsize`` and implement ``_build`` (create axes and artists) and
    ``_draw(data)`` (update them from an experiment result).

    Fast redraws (``blit = True``).  Rendering text is most of the cost of a matplotlib frame,
    and most text (tick labels, axis labels, legends) does not change when a slider moves.
    Artists that ``_draw`` changes are marked *animated* (:meth:`_animate`); :meth:`png`
    renders everything else once into a cached background, and on later calls only restores
    that background and draws the animated artists on top.  The background is re-rendered
    whenever an axis limit, a figure-level text or :attr:`_static_version` changes (bump it
    after changing any non-animated artist).  Saving the figure (``savefig``, the inline
    backend) draws every artist as usual.  Animated 3-D artists are projected before drawing
    (the view must not change between frames); set ``blit = False`` to always draw in full.
    """

    figsize = (10.0, 3.6)
    dpi = 90
    blit = True

    def __init__(self, data=None):
        self.fig = Figure(figsize=self.figsize, dpi=self.dpi)
        FigureCanvasAgg(self.fig)
        self._static_version = 0
        self._background = None
        self._background_key = None
        self._build()
        # Message texts live in figure coordinates but belong to the first axes, so that they can
        # be animated: changing them then costs no full re-render.
        host = next((ax for ax in self.fig.axes if ax.name != "3d"), self.fig.axes[0])
        self._error = host.text(
            0.5, 0.5, "", transform=self.fig.transFigure, ha="center", va="center", color=_ERROR_COLOR,
            fontsize=12, zorder=100, visible=False, clip_on=False,
            bbox=dict(boxstyle="round,pad=0.6", facecolor="white", edgecolor=_ERROR_COLOR, alpha=0.95),
        )
        self._note = host.text(0.005, 0.005, "", transform=self.fig.transFigure, ha="left", va="bottom",
                               fontsize=8, color=_NOTE_COLOR, clip_on=False)
        self._animate(self._error, self._note)
        self.error = None
        if data is not None:
            self.draw(data)

    # -- subclass hooks ----------------------------------------------------------------------
    def _build(self):  # pragma: no cover - abstract
        raise NotImplementedError

    def _draw(self, data):  # pragma: no cover - abstract
        raise NotImplementedError

    def _animate(self, *artists):
        """Mark artists (or containers of artists) that ``_draw`` updates."""
        for artist in artists:
            if isinstance(artist, (list, tuple)):
                self._animate(*list(artist))
            elif self.blit:
                artist.set_animated(True)
        return artists[0] if len(artists) == 1 else artists

    # -- public ------------------------------------------------------------------------------
    def draw(self, data, notes=()):
        """Show ``data`` (an experiment result) and clear any error message."""
        self._draw(data)
        self.error = None
        self._error.set_visible(False)
        notes = list(notes)
        if isinstance(data, dict):
            notes += list(data.get("notes", ()))
        self.set_notes(notes)
        return self

    def show_error(self, message):
        """Write ``message`` in red over the axes (the last good drawing stays beneath it)."""
        self.error = str(message)
        self._error.set_text("Cannot draw this setting:\n" + _wrap(self.error, 70))
        self._error.set_visible(True)
        return self

    def set_notes(self, notes):
        """A small brown line at the bottom: caveats the reader should see (weak δ, …)."""
        seen = []
        for n in notes:
            if n and n not in seen:
                seen.append(n)
        self._note.set_text("  ·  ".join(_wrap(n, 160) for n in seen[:3]))
        return self

    def _key(self):
        limits = tuple((ax.get_xlim(), ax.get_ylim()) for ax in self.fig.axes)
        texts = tuple((t.get_text(), t.get_visible()) for t in self.fig.texts)
        suptitle = self.fig._suptitle.get_text() if self.fig._suptitle is not None else None
        return limits, texts, suptitle, self._static_version

    def render(self):
        """Render the figure into the canvas buffer (blitting when possible)."""
        canvas = self.fig.canvas
        messages = (self._note, self._error)
        dynamic = [[a for a in ax.get_children()
                    if a.get_animated() and a.get_visible() and all(a is not m for m in messages)]
                   for ax in self.fig.axes]
        if not self.blit or not any(dynamic):
            # A subclass that animates nothing gets a full draw every time: never a stale image.
            canvas.draw()
        else:
            key = self._key()
            if self._background is None or key != self._background_key:
                canvas.draw()  # animated artists are skipped here
                self._background = canvas.copy_from_bbox(self.fig.bbox)
                self._background_key = key
            else:
                canvas.restore_region(self._background)
            for group in dynamic:
                for artist in sorted(group, key=lambda a: a.get_zorder()):
                    if hasattr(artist, "do_3d_projection"):  # 3-D collections project in Axes3D.draw,
                        artist.do_3d_projection()  # which the blitting path does not run
                    self.fig.draw_artist(artist)
        for message in messages:  # last, on top of every axes (animated ones are not in the draw)
            if message.get_visible() and message.get_animated():
                self.fig.draw_artist(message)

    def png(self):
        """Render the figure and return PNG bytes (zlib level 1: fast, a little larger)."""
        from PIL import Image

        self.render()
        canvas = self.fig.canvas
        width, height = canvas.get_width_height()
        image = Image.frombuffer("RGBA", (width, height), canvas.buffer_rgba(), "raw", "RGBA", 0, 1)
        buf = io.BytesIO()
        image.convert("RGB").save(buf, format="png", compress_level=1)
        return buf.getvalue()

    def _repr_png_(self):  # a LiveFigure is displayable by itself in a notebook
        return self.png()


def _wrap(text, width):
    words, lines, line = str(text).split(), [], ""
    for w in words:
        if line and len(line) + 1 + len(w) > width:
            lines.append(line)
            line = w
        else:
            line = f"{line} {w}" if line else w
    if line:
        lines.append(line)
    return "\n".join(lines)


def _set_bars(ax, bars, x, heights, width, **style):
    """Update a bar container in place; rebuild it only if the number of bars changed."""
    if bars is not None and len(bars) == len(heights):
        for rect, xi, h in zip(bars, x, heights):
            rect.set_x(xi - width / 2)
            rect.set_height(h)
        return bars
    if bars is not None:
        bars.remove()
    return ax.bar(x, heights, width=width, **style)


# ---------------------------------------------------------------------------------------------
# Chapter 1: the membership / reconstruction attack
# ---------------------------------------------------------------------------------------------
class AttackFigure(LiveFigure):
    """Three panels from :func:`privpca_edu.experiments.membership_attack`.

    (a) Alice's record next to the released top component; (b) membership-attack accuracy
    against ε with the two privacy bounds; (c) utility (distance to the non-private
    components) against ε with the random-guess level.
    """

    figsize = (12.0, 3.9)

    def _build(self):
        fig = self.fig
        fig.subplots_adjust(left=0.055, right=0.99, bottom=0.2, top=0.8, wspace=0.3)
        self.ax_rec, self.ax_acc, self.ax_util = fig.subplots(1, 3)
        ax = self.ax_rec
        ax.axhline(0, color="0.6", lw=0.8)
        ax.set_xlabel("coordinate of the record (feature index)")
        ax.set_ylabel("value (records have norm ≤ 1)")
        ax.set_ylim(-1.05, 1.05)
        self.bars_alice = self.bars_release = None
        # proxy handles: the bars are rebuilt when d changes, the legend (background) is not
        ax.legend(handles=[Rectangle((0, 0), 1, 1, color="0.55"), Rectangle((0, 0), 1, 1, color="#1f77b4")],
                  labels=["Alice's record", "released top component"], loc="lower left", fontsize=7, frameon=False)
        ax.xaxis.set_major_locator(ticker.MaxNLocator(integer=True, nbins=6))

        ax = self.ax_acc
        ax.set_xscale("log")
        _log_axis(ax.xaxis, -2, 2)
        ax.set_xlim(0.01, 100)
        ax.set_ylim(0.45, 1.03)
        ax.axhline(0.5, color="0.6", lw=0.8, ls=":")
        ax.text(90, 0.49, "chance", color="0.45", fontsize=8, va="top", ha="right")
        (self.l_bound_dp,) = ax.plot([], [], color="0.55", ls=":", lw=1.5, label="bound (e^ε+δ)/(1+e^ε)")
        (self.l_bound_gdp,) = ax.plot([], [], color="k", ls="--", lw=1.5, label="bound Φ(μ/2), μ = Δ/σ")
        (self.l_acc_m,) = ax.plot([], [], "o-", color="#d62728", ms=3.5, lw=1.8, label="attack on released matrix")
        (self.p_acc_c,) = ax.plot([], [], "s", color="#ff7f0e", ms=6, zorder=6, label="attack on released PCs (at ε)")
        self.v_acc = ax.axvline(1.0, color="#1f77b4", lw=1.2)
        (self.p_acc,) = ax.plot([], [], "o", color="#1f77b4", ms=7, zorder=5)
        ax.set_xlabel("privacy budget ε (log scale)")
        ax.set_ylabel("attack accuracy (fraction right)")
        ax.legend(loc="upper left", fontsize=7, frameon=False)

        ax = self.ax_util
        ax.set_xscale("log")
        _log_axis(ax.xaxis, -2, 2)
        ax.set_xlim(0.01, 100)
        (self.l_random,) = ax.plot([0.01, 100], [1, 1], color="0.45", ls="--", lw=1.2, label="random guess √(k(d−k)/d)")
        (self.l_util,) = ax.plot([], [], "o-", color="#2ca02c", ms=3.5, lw=1.8, label="private vs non-private PCs")
        self.v_util = ax.axvline(1.0, color="#1f77b4", lw=1.2)
        (self.p_util,) = ax.plot([], [], "o", color="#1f77b4", ms=7, zorder=5)
        ax.set_xlabel("privacy budget ε (log scale)")
        ax.set_ylabel("error ‖sin Θ‖_F (0 = no change)")
        # labelled in place (a legend would cover the curve at one n or another)
        self.t_random = ax.text(0.012, 1.0, "random guess √(k(d−k)/d)", fontsize=7.5, color="0.35", va="bottom")
        # the header changes with n, d, k: an (animated) axes text placed in figure coordinates
        self.title = self.ax_acc.text(0.5, 0.985, "", transform=fig.transFigure, ha="center", va="top",
                                      fontsize=11)
        self.t_rec = self.ax_rec.set_title("", fontsize=9)
        self.t_acc = self.ax_acc.set_title("", fontsize=9)
        self.t_util = self.ax_util.set_title("", fontsize=9)
        self._animate(self.l_bound_dp, self.l_bound_gdp, self.l_acc_m, self.p_acc_c, self.v_acc, self.p_acc,
                      self.l_random, self.l_util, self.v_util, self.p_util, self.t_rec, self.t_acc, self.t_util,
                      self.title, self.t_random)

    def _draw(self, r):
        d = r["n_features"]
        x = np.arange(d)
        self.bars_alice = _set_bars(self.ax_rec, self.bars_alice, x - 0.2, r["alice"], 0.4,
                                    color="0.55", label="Alice's record", animated=self.blit)
        self.bars_release = _set_bars(self.ax_rec, self.bars_release, x + 0.2, r["released_component"], 0.4,
                                      color="#1f77b4", label="released top component", animated=self.blit)
        width = next((w for w in (10, 30) if d <= w), d)  # two frames: the cached background survives
        self.ax_rec.set_xlim(-0.7, width - 0.3)
        self.t_rec.set_text(f"(a) reconstruction: |cos(release, Alice)| = {r['cosine']:.2f}\n"
                            f"(no noise: {r['cosine_nonprivate']:.2f})")

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
        self.t_acc.set_text(f"(b) membership at ε = {_fmt(e)}: accuracy {acc_m:.2f} ± "
                            f"{2 * r['accuracy_se']['matrix']:.2f} (PCs {r['accuracy']['components']:.2f})\n"
                            f"bound Φ(μ/2) = {r['bound']['gdp']:.3f}, (e^ε+δ)/(1+e^ε) = {r['bound']['dp']:.3f}")

        self.l_util.set_data(eps, c["utility"])
        level = r["random_level"]
        self.l_random.set_ydata([level, level])
        self.t_random.set_y(level + 0.01)
        # two fixed heights (k = 1 always has level < 1): the cached background rarely changes
        self.ax_util.set_ylim(0, 1.1 if level <= 1.0 else 2.2)
        self.v_util.set_xdata([e_plot, e_plot])
        self.p_util.set_data([e_plot], [r["utility"]])
        self.t_util.set_text(f"(c) utility: error {r['utility']:.3f} (random guess {level:.2f})\n"
                             f"noise σ = {_fmt(r['noise_scale'])} per entry of XᵀX/n")
        self.title.set_text(f"One person in a PCA release — n = {r['n_samples']} records, d = {d}, "
                            f"k = {r['n_components']}, δ = {r['delta']:g} (Analyze Gauss, analytic σ)")


def plot_membership_attack(result):
    """Static figure of :func:`privpca_edu.experiments.membership_attack`."""
    return AttackFigure(result).fig


# ---------------------------------------------------------------------------------------------
# Chapter 2: σ for each accounting method
# ---------------------------------------------------------------------------------------------
class SigmaFigure(LiveFigure):
    """Two panels from :func:`privpca_edu.experiments.sigma_curves`.

    (a) per-step σ against ε (log–log) for each method; dotted where privacy.py warns that the
    method's proof does not hold (the shaded region ε/T ≥ 1); black crosses: the spec's
    §2.2 reference table when δ, T and Δ match it.  (b) σ at the chosen ε, one bar per method.
    """

    figsize = (11.0, 4.0)

    def _build(self):
        fig = self.fig
        fig.subplots_adjust(left=0.085, right=0.985, bottom=0.16, top=0.86, wspace=0.3)
        gs = fig.add_gridspec(1, 9)
        self.ax = fig.add_subplot(gs[0, :5])
        self.ax_bar = fig.add_subplot(gs[0, 6:])
        ax = self.ax
        ax.set_xscale("log")
        ax.set_yscale("log")
        _log_axis(ax.xaxis, -2, 2)
        ax.set_xlim(0.01, 100)
        self.shade = Rectangle((1.0, 0.0), 1e3, 1.0, transform=ax.get_xaxis_transform(),
                               facecolor="#f2d0d0", edgecolor="none", alpha=0.5, zorder=0)
        ax.add_patch(self.shade)
        self.shade_text = ax.text(1.0, 0.98, "  classic proofs need ε/T < 1", transform=ax.get_xaxis_transform(),
                                  fontsize=7.5, color="#8b0000", va="top", ha="left")
        self.lines, self.lines_bad, self.points = {}, {}, {}
        for m, style in METHOD_STYLES.items():
            (self.lines[m],) = ax.plot([], [], lw=1.8, color=style["color"], label=style["short"])
            (self.lines_bad[m],) = ax.plot([], [], lw=1.5, ls=":", color=style["color"])
            (self.points[m],) = ax.plot([], [], "o", ms=6, color=style["color"], zorder=5)
        (self.ref,) = ax.plot([], [], "x", color="k", ms=7, mew=1.8, zorder=6, label="spec §2.2 table")
        self.vline = ax.axvline(1.0, color="0.2", lw=1.0)
        ax.set_xlabel("total privacy budget ε (log scale)")
        ax.set_ylabel("per-step noise σ (units of Δ, log scale)")
        ax.legend(loc="lower left", fontsize=7, frameon=True, framealpha=0.85, ncol=2, columnspacing=1.0)
        self.ax_title = ax.set_title("", fontsize=9.5)

        ax = self.ax_bar
        names = list(METHOD_STYLES)
        self.bar_names = names
        y = np.arange(len(names))[::-1]
        ax.set_xscale("log")
        self.bars = ax.barh(y, np.ones(len(names)), left=1.0, color=[METHOD_STYLES[m]["color"] for m in names],
                            height=0.6)
        ax.set_yticks(y, [METHOD_STYLES[m]["short"] for m in names], fontsize=8.5)
        self.bar_text = [ax.text(1.0, yi, "", va="center", ha="left", fontsize=8) for yi in y]
        ax.set_xlabel("σ at the chosen ε (log scale, as the left y-axis)")
        ax.set_ylim(-0.6, len(names) - 0.4)
        self.bar_title = ax.set_title("", fontsize=9.5)
        self.title = fig.suptitle("How much noise does (ε, δ)-DP cost? Same guarantee, six accountings",
                                  fontsize=11)
        self._animate(list(self.lines.values()), list(self.lines_bad.values()), list(self.points.values()),
                      self.ref, self.vline, self.shade, self.shade_text, self.ax_title, self.bars,
                      self.bar_text, self.bar_title)

    def _draw(self, r):
        eps = r["epsilons"]
        ymin, ymax = np.inf, 0.0
        for m in METHOD_STYLES:
            visible = m in r["sigma"]
            for artist in (self.lines[m], self.lines_bad[m], self.points[m]):
                artist.set_visible(visible)
            if not visible:
                continue
            s, ok = r["sigma"][m], r["valid"][m]
            good = np.where(ok, s, np.nan)
            # the dotted part overlaps the solid one by one grid point so the curve is continuous
            bad_mask = ~ok | np.r_[~ok[1:], False]
            bad = np.where(bad_mask, s, np.nan)
            self.lines[m].set_data(eps, good)
            self.lines_bad[m].set_data(eps, bad)
            finite = s[np.isfinite(s) & (s > 0)]
            if finite.size:
                ymin, ymax = min(ymin, finite.min()), max(ymax, finite.max())
        e = r["epsilon"]
        e_plot = min(max(e, 0.01), 100.0)
        for m, s in r["sigma_at"].items():
            self.points[m].set_data([e_plot], [s])
        self.vline.set_xdata([e_plot, e_plot])
        T = r["proof_limit"]
        self.shade.set_x(T)
        self.shade.set_visible(T < 100)
        self.shade_text.set_position((T, 0.98))
        self.shade_text.set_visible(T < 30)
        ref = r["reference"]
        self.ref.set_data([row["epsilon"] for row in ref], [row["sigma"] for row in ref])
        lo, hi = self.ax.get_ylim()
        if np.isfinite(ymin) and (ymin < lo or ymax > hi or ymax < hi / 100 or ymin > lo * 100):
            # decades only, and only when the curves leave the frame or shrink a lot: the cached
            # background (ticks, labels) then survives most slider moves
            lo = 10.0 ** math.floor(math.log10(ymin))
            hi = 10.0 ** math.ceil(math.log10(ymax))
            self.ax.set_ylim(lo, hi)
            _log_axis(self.ax.yaxis, int(round(math.log10(lo))), int(round(math.log10(hi))))
            self.ax_bar.set_xlim(lo, hi * 30)  # room for the labels right of the bars
            _log_axis(self.ax_bar.xaxis, int(round(math.log10(lo))), int(round(math.log10(hi))))
        steps = "step" if r["n_steps"] == 1 else "steps"
        self.ax_title.set_text(f"σ so that T = {r['n_steps']} Gaussian {steps} of sensitivity "
                               f"Δ = {r['sensitivity']:.4g} are ({_fmt(e)}, {r['delta']:.3g})-DP in total")

        values = [r["sigma_at"].get(m, np.nan) for m in self.bar_names]
        lo = self.ax_bar.get_xlim()[0]
        for rect, text, m, v in zip(self.bars, self.bar_text, self.bar_names, values):
            rect.set_x(lo)
            rect.set_width(0.0 if not np.isfinite(v) or v <= lo else v - lo)
            rect.set_hatch(None if r["valid_at"].get(m, True) else "///")
            label = "" if not np.isfinite(v) else f" {v:.4g}"
            if m in r["reference_at"]:
                label += f"  (table {r['reference_at'][m]:.2f})"
            if not r["valid_at"].get(m, True):
                label += "  no proof"
            text.set_text(label)
            text.set_x(lo if not np.isfinite(v) else max(v, lo))
        self.bar_title.set_text(f"σ at ε = {_fmt(e)}: smaller is better")


def plot_sigma_curves(result):
    """Static figure of :func:`privpca_edu.experiments.sigma_curves`."""
    return SigmaFigure(result).fig


# ---------------------------------------------------------------------------------------------
# Chapter 3: subspaces
# ---------------------------------------------------------------------------------------------
def _distance_bars(ax):
    kinds = list(DISTANCE_LABELS)
    x = np.arange(len(kinds))
    bars = ax.bar(x, np.zeros(len(kinds)), color=["#1f77b4", "#ff7f0e", "#2ca02c"], width=0.6)
    ax.set_xticks(x, [DISTANCE_LABELS[k] for k in kinds])
    levels = ax.hlines(np.zeros(len(kinds)), x - 0.35, x + 0.35, colors="k", linestyles="--", lw=1.3,
                       label="random subspace (√E D²)")
    texts = [ax.text(xi, 0, "", ha="center", va="bottom", fontsize=9) for xi in x]
    ax.set_ylabel("distance (dimensionless)")
    ax.legend(loc="upper left", fontsize=8, frameon=False)
    return kinds, x, bars, levels, texts


def _update_distance_bars(ax, parts, r):
    kinds, x, bars, levels, texts = parts
    for rect, text, xi, kind in zip(bars, texts, x, kinds):
        v = r["distances"][kind]
        rect.set_height(v)
        text.set_text(f"{v:.3f}")
        inside = v > 0.2  # inside the bar, clear of the dashed random-level marks
        text.set_y(v / 2 if inside else v + 0.02)
        text.set_color("white" if inside else "black")
        text.set_va("center" if inside else "bottom")
    levels.set_segments([[(xi - 0.35, r["random_level"][k]), (xi + 0.35, r["random_level"][k])]
                         for xi, k in zip(x, kinds)])
    ax.set_ylim(0, 1.75)


class PlanesFigure(LiveFigure):
    """From :func:`privpca_edu.experiments.plane_distances`: the two subspaces in 3-D and the
    three distances as bars (dashed: where a random subspace would be)."""

    figsize = (10.0, 4.2)

    def _build(self):
        from mpl_toolkits.mplot3d.art3d import Poly3DCollection

        fig = self.fig
        fig.subplots_adjust(left=0.0, right=0.98, bottom=0.12, top=0.8, wspace=0.15)
        self.ax3 = fig.add_subplot(1, 2, 1, projection="3d", computed_zorder=False)
        ax = self.ax3
        ax.set_xlim(-1, 1)
        ax.set_ylim(-1, 1)
        ax.set_zlim(-1, 1)
        ax.set_box_aspect((1, 1, 1))
        ax.view_init(elev=22, azim=-58)
        ax.set_xlabel("x₁")
        ax.set_ylabel("x₂")
        ax.set_zlabel("x₃")
        ax.set_xticks([-1, 0, 1])
        ax.set_yticks([-1, 0, 1])
        ax.set_zticks([-1, 0, 1])
        self.poly_u = Poly3DCollection([np.zeros((4, 3))], facecolor="#1f77b4", edgecolor="#1f77b4", alpha=0.3)
        self.poly_v = Poly3DCollection([np.zeros((4, 3))], facecolor="#ff7f0e", edgecolor="#ff7f0e", alpha=0.3)
        ax.add_collection3d(self.poly_u)
        ax.add_collection3d(self.poly_v)
        (self.line_u,) = ax.plot([], [], [], color="#1f77b4", lw=3, label="U (reference)")
        (self.line_v,) = ax.plot([], [], [], color="#ff7f0e", lw=3, label="V (rotated)")
        (self.shared,) = ax.plot([], [], [], color="k", lw=1.5, ls="--", label="shared line")
        (self.normal_u,) = ax.plot([], [], [], color="#1f77b4", lw=1, ls=":")
        (self.normal_v,) = ax.plot([], [], [], color="#ff7f0e", lw=1, ls=":")
        self._legend_mode = None
        self.t3 = ax.set_title("", fontsize=9.5)
        self.ax_bar = fig.add_subplot(1, 2, 2)
        self.bar_parts = _distance_bars(self.ax_bar)
        self.t_bar = self.ax_bar.set_title("", fontsize=9.5)
        self.title = self.ax_bar.text(0.5, 0.985, "", transform=fig.transFigure, ha="center", va="top", fontsize=11)
        self._animate(self.poly_u, self.poly_v, self.line_u, self.line_v, self.shared, self.normal_u,
                      self.normal_v, self.t3, self.t_bar, self.title, self.bar_parts[2], self.bar_parts[3],
                      self.bar_parts[4])

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
            self.ax3.legend(handles, labels, loc="upper left", fontsize=8, frameon=False)
            self._legend_mode = planes
            self._static_version += 1
        what = "planes" if planes else "lines"
        angles = ", ".join(f"{a:.1f}°" for a in r["angles_deg"])
        self.t3.set_text(f"two {what} through 0 in R³ — principal angles: {angles}")
        _update_distance_bars(self.ax_bar, self.bar_parts, r)
        D = r["distances"]["sin_theta"]
        self.t_bar.set_text(f"‖P−Q‖_F/√2 = {r['projection_frobenius'] / math.sqrt(2):.3f} = ‖sin Θ‖_F = {D:.3f}\n"
                            f"largest possible ‖sin Θ‖_F here: √min(k, d−k) = {r['max_possible']:.3f}")
        self.title.set_text(f"Rotate a {'plane' if planes else 'line'}: tilt {r['tilt_x']:.0f}° about x₁, "
                            f"{r['tilt_y']:.0f}° about x₂")


def plot_planes(result):
    """Static figure of :func:`privpca_edu.experiments.plane_distances`."""
    return PlanesFigure(result).fig


class AnglesFigure(LiveFigure):
    """From :func:`privpca_edu.experiments.angle_distances`: the sines of the two principal
    angles, and the three distances with the random-subspace level for this d."""

    figsize = (10.0, 3.6)

    def _build(self):
        fig = self.fig
        fig.subplots_adjust(left=0.08, right=0.98, bottom=0.16, top=0.83, wspace=0.3)
        self.ax_sin, self.ax_bar = fig.subplots(1, 2)
        ax = self.ax_sin
        self.sin_bars = ax.bar([0, 1], [0, 0], color=["#9467bd", "#8c564b"], width=0.55)
        ax.set_xticks([0, 1], ["sin θ₁", "sin θ₂"])
        ax.set_ylim(0, 1.15)
        ax.set_ylabel("sine of the principal angle")
        self.sin_text = [ax.text(x, 0, "", ha="center", va="bottom", fontsize=9) for x in (0, 1)]
        self.t_sin = ax.set_title("", fontsize=9.5)
        self.bar_parts = _distance_bars(self.ax_bar)
        self.t_bar = self.ax_bar.set_title("", fontsize=9.5)
        self.title = fig.suptitle("Two planes in R^d with two independent angles", fontsize=11)
        self._animate(self.sin_bars, self.sin_text, self.t_sin, self.t_bar, self.bar_parts[2],
                      self.bar_parts[3], self.bar_parts[4])

    def _draw(self, r):
        angles = np.radians(r["angles_deg"])
        for rect, text, a in zip(self.sin_bars, self.sin_text, angles):
            rect.set_height(math.sin(a))
            text.set_text(f"{math.sin(a):.3f}")
            text.set_y(math.sin(a) + 0.02)
        self.t_sin.set_text("principal angles " + ", ".join(f"{a:.1f}°" for a in r["angles_deg"]))
        _update_distance_bars(self.ax_bar, self.bar_parts, r)
        self.t_bar.set_text(f"d = {r['n_features']}: a random plane sits at ‖sin Θ‖_F ≈ "
                            f"{r['random_level']['sin_theta']:.3f}")


def plot_principal_angles(result):
    """Static figure of :func:`privpca_edu.experiments.angle_distances`."""
    return AnglesFigure(result).fig
