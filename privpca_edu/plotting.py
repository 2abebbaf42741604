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

import functools
import math
import struct
import zlib
from collections import OrderedDict

import numpy as np
from matplotlib import ticker
from matplotlib.backends.backend_agg import FigureCanvasAgg, RendererAgg
from matplotlib.collections import PolyCollection
from matplotlib.figure import Figure
from matplotlib.legend import Legend
from matplotlib.offsetbox import DrawingArea, HPacker, TextArea, VPacker
from matplotlib.patches import Rectangle

try:  # matplotlib ≥ 3.11 renders text glyph by glyph; the glyph cache below builds on that
    from matplotlib.backends.backend_agg import get_hinting_flag
    from matplotlib.ft2font import FT2Font, RenderMode

    _GLYPH_API = all(hasattr(FT2Font, name) for name in ("_layout", "_render_glyph", "_set_transform"))
except ImportError:  # pragma: no cover - older matplotlib: plain Agg text
    _GLYPH_API = False

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


class _GlyphCachingRenderer(RendererAgg):
    """Agg renderer that remembers rasterised glyphs: the same pixels, 2–4× faster text.

    Text is most of the cost of a frame: matplotlib lays out and rasterises every glyph with
    FreeType on every draw (~35 µs per glyph, ~6 ms for a two-line title).  A glyph rasterised
    at pixel offset (i + f/64, j + g/64) is the one rasterised at (f/64, g/64) moved by whole
    pixels (i, j), so this renderer keeps each glyph's bitmap per font, size, angle and
    sub-pixel phase (f, g), and each line's layout per string and font, and only blends the
    cached bitmaps.  Text extents (what alignment needs) come from the same cached layout and
    per-glyph metrics instead of a second FreeType layout.  The output is pixel-identical to
    :class:`RendererAgg` (tests compare them); mathtext (``$…$``) takes the ordinary path.
    """

    _glyphs = {}  # shared by every figure: the same fonts everywhere
    _layouts = {}
    _metrics = {}
    _lines = {}
    _max_glyphs = 60_000
    _max_layouts = 8_000
    _max_lines = 8_000

    def _items(self, s, prop, flags, features=None, language=None):
        """``FT2Font._layout`` of one line: (font, glyph index, x, y) per glyph (cached)."""
        size = prop.get_size_in_points()
        key = (s, hash(prop), size, self.dpi, flags, features, language)
        items = self._layouts.get(key)
        if items is None:
            font = self._prepare_font(prop)
            items = tuple((item.ft_object, item.glyph_index, item.x, item.y)
                          for item in font._layout(s, flags=flags, features=features, language=language))
            if len(self._layouts) >= self._max_layouts:
                self._layouts.clear()
            self._layouts[key] = items
        return items

    def get_text_width_height_descent(self, s, prop, ismath):
        # What FT2Font.set_text measures (Agg's own method), from the cached layout and each
        # glyph's cached advance and vertical extent: the pen runs from min(0, x₀) to the last
        # glyph's x plus its advance; height and descent are those of the glyphs' control boxes.
        if ismath or not s or not s.isprintable():
            return super().get_text_width_height_descent(s, prop, ismath)
        flags = get_hinting_flag()
        items = self._items(s, prop, flags)
        if not items:
            return super().get_text_width_height_descent(s, prop, ismath)
        size, metrics = prop.get_size_in_points(), self._metrics
        y_min, y_max = math.inf, -math.inf
        for font, index, _, dy in items:
            key = (font.fname, font.face_index, size, self.dpi, index, flags)
            m = metrics.get(key)
            if m is None:
                font.set_size(size, self.dpi)  # also resets the transform glyph drawing sets
                glyph = font.load_glyph(index, flags)
                m = metrics[key] = (glyph.horiAdvance, glyph.bbox[1], glyph.bbox[3])
            py = round(dy * 64)
            y_min, y_max = min(y_min, py + m[1]), max(y_max, py + m[2])
        end = round(items[-1][2] * 64) + m[0]
        start = min(0, round(items[0][2] * 64))
        if y_min > y_max:  # pragma: no cover - as FT2Font: an empty box
            y_min = y_max = 0
        return (end - start) / 64.0, (y_max - y_min) / 64.0, -y_min / 64.0

    def draw_text(self, gc, x, y, s, prop, angle, ismath=False, mtext=None):
        if ismath:
            return super().draw_text(gc, x, y, s, prop, angle, ismath=ismath, mtext=mtext)
        flags = get_hinting_flag()
        features = mtext.get_fontfeatures() if mtext is not None else None
        language = mtext.get_language() if mtext is not None else None
        items = self._items(s, prop, flags, features, language)
        if not items:
            return
        size = prop.get_size_in_points()
        cos, sin = math.cos(math.radians(angle)), math.sin(math.radians(angle))
        antialiased = gc.get_antialiased()
        height = self.height
        # where each glyph goes, as RendererAgg._draw_text_glyphs_and_boxes (dy upwards): whole
        # pixels (i) and 1/64 phase (f) of the 26.6 FreeType position
        places = [divmod(round(0x40 * (x + dx * cos - dy * sin)), 0x40)
                  + divmod(round(0x40 * (height - y + dx * sin + dy * cos)), 0x40) for _, _, dx, dy in items]
        ix0, iy0 = places[0][0], places[0][2]
        line_key = (s, hash(prop), size, self.dpi, flags, features, language, angle, antialiased,
                    tuple((ix - ix0, fx, iy - iy0, fy) for ix, fx, iy, fy in places))
        line = self._lines.get(line_key)
        if line is None:
            line = self._compose(items, places, size, cos, sin, antialiased, flags, angle)
            if len(self._lines) >= self._max_lines:
                self._lines.clear()
            self._lines[line_key] = line
        draw, top0 = self._renderer.draw_text_image, int(height) - iy0
        for image, left, top in line:  # draw_text_image's y is downwards, the bitmap's bottom side
            draw(image, ix0 + left, top0 + top + image.shape[0], 0, gc)

    def _compose(self, items, places, size, cos, sin, antialiased, flags, angle):
        """The line as a few images to blend in turn: runs of consecutive glyphs of which no two
        cover a common pixel, each merged into one image.  Blending such a run once is blending
        its glyphs one by one (every pixel gets one glyph's coverage or none), and the runs keep
        the glyphs' order where they overlap: the pixels are Agg's."""
        glyphs, matrix, bitmaps = self._glyphs, None, []
        for (font, index, _, _), (_, fx, _, fy) in zip(items, places):
            gkey = (font.fname, font.face_index, size, self.dpi, index, angle, fx, fy, antialiased, flags)
            glyph = glyphs.get(gkey)
            if glyph is None:
                font.set_size(size, self.dpi)
                if matrix is None:
                    matrix = (0x10000 * np.array([[cos, -sin], [sin, cos]])).round().astype(int)
                font._set_transform(matrix, [fx, fy])
                bitmap = font._render_glyph(index, flags, RenderMode.NORMAL if antialiased else RenderMode.MONO)
                buffer = np.array(bitmap.buffer)  # a copy: FreeType reuses its glyph slot
                if not antialiased:
                    buffer *= 0xFF
                if len(glyphs) >= self._max_glyphs:
                    glyphs.clear()
                glyph = glyphs[gkey] = (buffer, bitmap.left, bitmap.top)
            bitmaps.append(glyph)
        ix0, iy0 = places[0][0], places[0][2]
        # (bitmap, left column, top row) of each visible glyph, relative to the first glyph's
        # (ix, iy), rows downwards
        parts = [(b, ix - ix0 + left, iy0 - iy - top) for (b, left, top), (ix, _, iy, _) in zip(bitmaps, places)
                 if b.size]
        runs, run = [], []

        def close():
            if not run:
                return
            x0, y0 = min(p[1] for p in run), min(p[2] for p in run)
            x1 = max(p[1] + p[0].shape[1] for p in run)
            y1 = max(p[2] + p[0].shape[0] for p in run)
            image = np.zeros((y1 - y0, x1 - x0), dtype=np.uint8)
            for b, cx, cy in run:
                window = image[cy - y0:cy - y0 + b.shape[0], cx - x0:cx - x0 + b.shape[1]]
                np.maximum(window, b, out=window)  # no common pixel: max is the glyph's own value
            runs.append((image, x0, y0))
            run.clear()

        def overlaps(part):
            b, cx, cy = part
            for b2, cx2, cy2 in run:
                xa, xb = max(cx, cx2), min(cx + b.shape[1], cx2 + b2.shape[1])
                ya, yb = max(cy, cy2), min(cy + b.shape[0], cy2 + b2.shape[0])
                if xa < xb and ya < yb and np.any((b[ya - cy:yb - cy, xa - cx:xb - cx] > 0)
                                                  & (b2[ya - cy2:yb - cy2, xa - cx2:xb - cx2] > 0)):
                    return True
            return False

        for part in parts:
            if overlaps(part):
                close()
            run.append(part)
        close()
        return tuple(runs)


@functools.lru_cache(maxsize=1)
def _glyph_cache_works():
    """Whether :class:`_GlyphCachingRenderer` draws exactly what Agg draws here (checked once).

    It relies on private FreeType wrappers of matplotlib ≥ 3.11; on any other version, or if
    a single pixel or text extent differs, figures fall back to the plain Agg renderer.
    """
    if not _GLYPH_API:
        return False
    try:
        from matplotlib.font_manager import FontProperties

        images = []
        for renderer in (RendererAgg, _GlyphCachingRenderer):
            fig = Figure(figsize=(3.0, 1.0), dpi=90)
            fig.text(0.013, 0.31, "ε = 0.37 ‖sin Θ‖_F √(k(d−k)/d) ₁²", fontsize=9.3)
            fig.text(0.52, 0.77, "Rotated 0.5°, 12 %", fontsize=8, rotation=33, ha="center")
            fig.text(0.5, 0.5, "AVAVAV To Wa, Tj ‖P−Q‖ — μ̂ ± ∞", fontsize=7.5, ha="center", va="center")
            r = renderer(270, 90, 90)
            fig.draw(r)
            fig.draw(r)  # second draw: from the cache
            images.append(np.asarray(r.buffer_rgba()).copy())
        if not np.array_equal(*images):
            return False
        plain, cached = RendererAgg(10, 10, 90), _GlyphCachingRenderer(10, 10, 90)
        for size in (6.5, 7, 7.5, 8, 9, 9.5, 11, 12.5):
            prop = FontProperties(size=size)
            for text in ("x", "T", "AVAVAV To Wa", " lead", "trail ", "‖P−Q‖_F/√2 = 0.500 — (c) ε, δ, μ̂, σ₁, xᵀ, R³",
                         "Gaussian-DP: 1e-05, 12,345 ∞ ± √ °"):
                for _ in range(2):  # second time: from the cache
                    if cached.get_text_width_height_descent(text, prop, False) != \
                            plain.get_text_width_height_descent(text, prop, False):
                        return False
        return True
    except Exception:  # pragma: no cover - an internal API changed: never break a figure for speed
        return False


class _Canvas(FigureCanvasAgg):
    """An Agg canvas drawing with :class:`_GlyphCachingRenderer` (savefig and PNGs alike)."""

    def get_renderer(self):
        if not _glyph_cache_works():
            return super().get_renderer()
        w, h = self.get_width_height(physical=True)
        key = w, h, self.figure.dpi
        if self._lastKey != key:
            self.renderer = _GlyphCachingRenderer(w, h, self.figure.dpi)
            self._lastKey = key
        return self.renderer


def new_figure(figsize, dpi=90):
    """A pyplot-free :class:`~matplotlib.figure.Figure` on the fast-text Agg canvas."""
    fig = Figure(figsize=figsize, dpi=dpi)
    _Canvas(fig)
    return fig


def _nice_ceil(x):
    """x rounded up to 1, 1.25, 1.5, 2, 2.5, 3, 4, 5, 6 or 8 times a power of ten: axis limits
    that stay put while a slider moves a little (the cached background survives)."""
    if not (x > 0 and math.isfinite(x)):
        return 1.0
    scale = 10.0 ** math.floor(math.log10(x))
    steps = (1.0, 1.25, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0)
    return next((m * scale for m in steps if m * scale >= x * (1 - 1e-12)), 10.0 * scale)


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
    that background and draws the animated artists on top.  A background belongs to a *key*:
    the axis limits, the figure-level texts and :attr:`_static_version` (bump it after changing
    any non-animated artist, or set it to a hashable that determines every non-animated
    artist, e.g. which legend is shown).  The last :attr:`max_backgrounds` backgrounds are
    kept, so going back to limits seen before (a slider moved back and forth across a
    threshold) costs no full render.  Saving the figure (``savefig``, the inline backend)
    draws every artist as usual.  Animated 3-D artists are projected before drawing (the
    view must not change between frames); set ``blit = False`` to always draw in full.

    Text is drawn by a glyph-caching Agg renderer (:class:`_GlyphCachingRenderer`, the same
    pixels as Agg) and the PNG is encoded without filters at zlib level 1 (:func:`_encode_png`).
    """

    figsize = (10.0, 3.6)
    dpi = 90
    blit = True
    max_backgrounds = 6

    def __init__(self, data=None):
        self.fig = new_figure(self.figsize, self.dpi)
        self._static_version = 0
        self._backgrounds = OrderedDict()  # key → cached background (LRU)
        self._legend_parts = {}  # id(legend) → (legend, the artists it draws), see _draw_legend
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

    def _spines_below(self, *axes, zorder=None):
        """Draw the axes frame under the data (markers at the edge, vertical lines) in every render.

        Blitting draws animated artists over the whole cached background, so a non-animated
        artist drawn above an animated one in a full render (a spine, zorder 2.5, over a line,
        zorder 2) would not be above it in a blitted frame.  Putting the spines below the
        lowest zorder of the data makes both renders agree.
        """
        for ax in axes or self.fig.axes:
            z = zorder if zorder is not None else min(
                (a.get_zorder() for a in ax.get_children() if a.get_animated()), default=2.0)
            for spine in ax.spines.values():
                spine.set_zorder(min(spine.get_zorder(), z - 0.01))

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
            background = self._backgrounds.get(key)
            if background is None:
                canvas.draw()  # animated artists are skipped here
                self._backgrounds[key] = canvas.copy_from_bbox(self.fig.bbox)
                while len(self._backgrounds) > self.max_backgrounds:
                    self._backgrounds.popitem(last=False)
                self._legend_parts.clear()  # lay the legends out again once
            else:
                self._backgrounds.move_to_end(key)
                canvas.restore_region(background)
            renderer = canvas.get_renderer()
            for group in dynamic:
                for artist in sorted(group, key=lambda a: a.get_zorder()):
                    if hasattr(artist, "do_3d_projection"):  # 3-D collections project in Axes3D.draw,
                        artist.do_3d_projection()  # which the blitting path does not run
                    if isinstance(artist, Legend):
                        self._draw_legend(artist, renderer)
                    else:
                        self.fig.draw_artist(artist)
        for message in messages:  # last, on top of every axes (animated ones are not in the draw)
            if message.get_visible() and message.get_animated():
                self.fig.draw_artist(message)

    def _draw_legend(self, legend, renderer):
        """Draw an animated legend; after its first layout, replay its parts without laying out.

        An animated legend (one that moving artists pass under) is redrawn in every frame, and
        ``Legend.draw`` spends most of its ~3 ms placing its boxes again.  Its place is fixed
        (a fixed ``loc``, the same axes): the first draw after a background render lays it out,
        and later frames draw its frame, texts and handles directly, in the order
        ``Legend.draw`` does, with the transforms that layout left (the same pixels).
        """
        parts = self._legend_parts.get(id(legend))
        if parts is not None and parts[0] is legend:
            for part in parts[1]:
                part.draw(renderer)
            return
        legend.draw(renderer)
        parts = _legend_parts(legend)
        if parts is not None:
            self._legend_parts[id(legend)] = (legend, parts)

    def png(self):
        """Render the figure and return PNG bytes (RGB, zlib level 1: fast, a little larger)."""
        self.render()
        return _encode_png(np.asarray(self.fig.canvas.buffer_rgba()))

    def _repr_png_(self):  # a LiveFigure is displayable by itself in a notebook
        return self.png()


def _legend_parts(legend):
    """The artists ``legend.draw`` draws, in its order, or None if the legend may move or has
    boxes this walk does not know (then it is always drawn in full)."""
    try:
        if legend._loc in (0, "best") or legend._mode == "expand" or legend.shadow or not legend.get_visible():
            return None
        box = legend._legend_box
    except AttributeError:  # pragma: no cover - matplotlib's internals moved: draw in full
        return None
    parts = [legend.legendPatch]

    def walk(box):
        if isinstance(box, TextArea):
            parts.append(box._text)
        elif isinstance(box, DrawingArea):
            parts.extend(box._children)
        elif type(box) in (VPacker, HPacker):
            for child in box.get_visible_children():
                if walk(child) is False:
                    return False
        else:  # PaddedBox, AuxTransformBox, …: not replayed
            return False
        return True

    try:
        return parts if walk(box) else None
    except AttributeError:  # pragma: no cover
        return None


def _png_chunk(tag, data):
    return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF)


def _encode_png(rgba):
    """An (h, w, 4) uint8 image as RGB PNG bytes: no row filters, zlib level 1.

    Twice as fast as PIL's encoder (which tries every row filter) for the same size on these
    mostly white plots; any PNG reader decodes it (tests read it back with PIL).
    """
    height, width = rgba.shape[:2]
    rows = np.empty((height, 1 + 3 * width), dtype=np.uint8)
    rows[:, 0] = 0  # filter type "None" for every row
    rows[:, 1:].reshape(height, width, 3)[...] = rgba[..., :3]
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)  # 8-bit RGB, no interlace
    return (b"\x89PNG\r\n\x1a\n" + _png_chunk(b"IHDR", header)
            + _png_chunk(b"IDAT", zlib.compress(rows.tobytes(), 1)) + _png_chunk(b"IEND", b""))


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


def _bar_collection(ax, color):
    """Bars as one :class:`~matplotlib.collections.PolyCollection` (see :func:`_set_bar_heights`):
    one artist to draw instead of one per bar, and nothing to rebuild when their number changes."""
    bars = PolyCollection([], facecolors=color, edgecolors="none", linewidths=0)
    ax.add_collection(bars, autolim=False)
    return bars


def _set_bar_heights(bars, x, heights, width):
    """Bars of ``width`` centred on ``x`` from 0 to ``heights`` (a bar-chart PolyCollection)."""
    x, h = np.asarray(x, dtype=float), np.asarray(heights, dtype=float)
    left, right, zero = x - width / 2, x + width / 2, np.zeros_like(h)
    bars.set_verts(np.stack([np.column_stack(c) for c in ((left, zero), (left, h), (right, h), (right, zero))], axis=1))


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
        self.zero = ax.axhline(0, color="0.6", lw=0.8)
        ax.set_xlabel("coordinate of the record (feature index)")
        ax.set_ylabel("value (records have norm ≤ 1)")
        ax.set_ylim(-1.05, 1.05)
        self.bars_alice = _bar_collection(ax, "0.55")
        self.bars_release = _bar_collection(ax, "#1f77b4")
        # the zero line and the legend are drawn over the bars, so they are animated too
        handles = [Rectangle((0, 0), 1, 1, color="0.55"), Rectangle((0, 0), 1, 1, color="#1f77b4")]
        self.leg_rec = ax.legend(handles=handles, labels=["Alice's record", "released top component"], loc="lower left",
                                 fontsize=7, frameon=False)
        ax.xaxis.set_major_locator(ticker.MaxNLocator(integer=True, nbins=6))

        ax = self.ax_acc
        ax.set_xscale("log")
        _log_axis(ax.xaxis, -2, 2)
        ax.set_xlim(0.01, 100)
        ax.set_ylim(0.45, 1.03)
        ax.axhline(0.5, color="0.6", lw=0.8, ls=":")
        self.t_chance = ax.text(90, 0.49, "chance", color="0.45", fontsize=8, va="top", ha="right")
        (self.l_bound_dp,) = ax.plot([], [], color="0.55", ls=":", lw=1.5, label="bound (e^ε+δ)/(1+e^ε)")
        (self.l_bound_gdp,) = ax.plot([], [], color="k", ls="--", lw=1.5, label="bound Φ(μ/2), μ = Δ/σ")
        (self.l_acc_m,) = ax.plot([], [], "o-", color="#d62728", ms=3.5, lw=1.8, label="attack on released matrix")
        (self.p_acc_c,) = ax.plot([], [], "s", color="#ff7f0e", ms=6, zorder=6, label="attack on released PCs (at ε)")
        self.v_acc = ax.axvline(1.0, color="#1f77b4", lw=1.2)
        (self.p_acc,) = ax.plot([], [], "o", color="#1f77b4", ms=7, zorder=5)
        ax.set_xlabel("privacy budget ε (log scale)")
        ax.set_ylabel("attack accuracy (fraction right)")
        self.leg_acc = ax.legend(loc="upper left", fontsize=7, frameon=False)  # over the ε line: animated

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
        # Everything that can overlap a moving artist is animated too (the zero line, the legends,
        # "chance"): a blitted frame then stacks them exactly as a full render does.
        self._animate(self.bars_alice, self.bars_release, self.zero, self.leg_rec, self.leg_acc, self.t_chance,
                      self.l_bound_dp, self.l_bound_gdp, self.l_acc_m, self.p_acc_c, self.v_acc, self.p_acc,
                      self.l_random, self.l_util, self.v_util, self.p_util, self.t_rec, self.t_acc, self.t_util,
                      self.title, self.t_random)
        self._spines_below()

    def _draw(self, r):
        d = r["n_features"]
        x = np.arange(d)
        _set_bar_heights(self.bars_alice, x - 0.2, r["alice"], 0.4)
        _set_bar_heights(self.bars_release, x + 0.2, r["released_component"], 0.4)
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
        (self.ref,) = ax.plot([], [], "x", color="k", ms=7, mew=1.8, zorder=6, label="DPS-PCA reference table")
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
            self._static_version = ("legend", planes)  # the background of each legend is kept
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
