r"""The live-figure base of every figure in the book: build once, move artists, blit.

Every figure of the book is a :class:`LiveFigure` subclass: ``_build`` creates the axes and
artists once, ``_draw(data)`` moves them (``set_data``, ``set_height``, ``set_verts`` …) to show
an experiment result.  The same class serves three uses:

* a static figure: ``plot_sigma_curves(result)`` returns a :class:`matplotlib.figure.Figure`
  (the last expression of a notebook cell displays it);
* a live dashboard (:mod:`privpca_edu.widgets`): the figure is redrawn **in place** on every
  slider release and rendered to PNG bytes with :meth:`LiveFigure.png`;
* an error display: :meth:`LiveFigure.show_error` writes a message over the axes, so a bad
  slider value shows what is wrong instead of a traceback.

Only matplotlib's public API is used: figures are :class:`matplotlib.figure.Figure` objects on
a plain Agg canvas (no ``pyplot``: not shown twice by the inline backend, no GUI, safe from
widget callbacks); blitting is ``copy_from_bbox`` / ``restore_region`` / ``artist.draw(renderer)``
(what ``draw_artist`` does, with the renderer wrapped so that text comes from a cache of rendered
lines, :mod:`._stamps`); PNGs are encoded by Pillow.
"""

from __future__ import annotations

import io
import math
import re
from collections import OrderedDict

import numpy as np
from matplotlib.artist import Artist
from matplotlib.backends.backend_agg import FigureCanvasAgg, RendererAgg
from matplotlib.collections import PolyCollection
from matplotlib.axes import Axes
from matplotlib.figure import Figure, SubFigure
from matplotlib.text import Text
from matplotlib.transforms import Affine2D, Bbox, ScaledTranslation
from PIL import Image

from . import _style as S
from ._stamps import StampRenderer

__all__ = ["LiveFigure", "StaticFigure", "TitleBlock", "band_verts", "new_figure", "encode_png", "nice_ceil", "wrap",
           "bar_collection", "set_bar_heights"]


def new_figure(height, *, width=None, layout="constrained"):
    """Create a pyplot-free :class:`~matplotlib.figure.Figure` of the book's column width on an Agg canvas.

    Parameters
    ----------
    height : float
        Height in inches at :data:`~._style.DPI` (72: one inch is 72 displayed px).
    width : float, optional
        Width in inches; the text column's (:data:`~._style.WIDTH`) when not given.
    layout : str or None, default "constrained"
        The figure's layout engine, as :class:`~matplotlib.figure.Figure` takes it.

    Returns
    -------
    matplotlib.figure.Figure
        The figure, drawn in the house style, with a :class:`FigureCanvasAgg` attached.
    """
    with S.house():
        fig = Figure(figsize=(width or S.WIDTH, height), dpi=S.DPI, layout=layout)
    FigureCanvasAgg(fig)
    return fig


def nice_ceil(x):
    """x rounded up to 1, 1.25, 1.5, 2, 2.5, 3, 4, 5, 6 or 8 times a power of ten: axis limits
    that stay put while a slider moves a little (the cached background survives)."""
    if not (x > 0 and math.isfinite(x)):
        return 1.0
    scale = 10.0 ** math.floor(math.log10(x))
    steps = (1.0, 1.25, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0)
    return next((m * scale for m in steps if m * scale >= x * (1 - 1e-12)), 10.0 * scale)


def wrap(text, width):
    """Greedy word wrap of ``text`` at ``width`` characters."""
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


def encode_png(rgba):
    """Encode an (h, w, 4) uint8 image as RGB PNG bytes (Pillow, zlib level 1: fast, a little larger).

    Parameters
    ----------
    rgba : array_like of uint8, shape (h, w, 4)
        The pixels, e.g. ``canvas.buffer_rgba()``; the alpha channel is dropped.

    Returns
    -------
    bytes
        The PNG file's bytes.

    Raises
    ------
    ValueError
        If ``rgba`` is not of shape (h, w, 4).

    Notes
    -----
    Pillow reads the RGBA pixels as "RGBX" (alpha skipped while unpacking): no RGB copy is made
    in numpy first.
    """
    rgba = np.ascontiguousarray(rgba, dtype=np.uint8)
    if rgba.ndim != 3 or rgba.shape[2] != 4:
        raise ValueError(f"encode_png needs an (h, w, 4) RGBA array, got shape {rgba.shape}")
    height, width = rgba.shape[:2]
    image = Image.frombytes("RGB", (width, height), rgba, "raw", "RGBX")
    out = io.BytesIO()
    image.save(out, format="PNG", compress_level=1)
    return out.getvalue()


def bar_collection(ax, color, **kw):
    """Bars as one :class:`~matplotlib.collections.PolyCollection` (see :func:`set_bar_heights`):
    one artist to draw instead of one per bar, and nothing to rebuild when their number changes."""
    kw.setdefault("edgecolors", "none")
    kw.setdefault("linewidths", 0)
    bars = PolyCollection([], facecolors=color, **kw)
    ax.add_collection(bars, autolim=False)
    return bars


def set_bar_heights(bars, x, heights, width, bottom=0.0):
    """Bars of ``width`` centred on ``x`` from ``bottom`` to ``heights`` (a bar-chart PolyCollection)."""
    x, h = np.asarray(x, dtype=float), np.asarray(heights, dtype=float)
    left, right, zero = x - width / 2, x + width / 2, np.full_like(h, bottom)
    bars.set_verts(np.stack([np.column_stack(c) for c in ((left, zero), (left, h), (right, h), (right, zero))], axis=1))


#: A word and the spaces after it (a formula in $…$ is one word, and so is "d = 200": a line
#: never breaks next to a relation sign).
_WORD = r"(?:\$[^$]*\$|[^\s$])+"
_RELATION = r"[=≈≠≤≥<>±→]"
WRAP_UNITS = re.compile(rf"\s*{_WORD}(?:\s+{_RELATION}\s+{_WORD})*(?:\s+{_RELATION})?\s*|\s+")


class TitleBlock(Artist):
    """A panel title of several lines made of short texts: a slider move redraws few glyphs.

    Rendering a line of text costs about its number of glyphs, and a title line like "local
    error at n = 1,000,000: 1.38" changes with every ε although only "1.38" did.  Here every line
    is a row of *pieces*, each its own :class:`~matplotlib.text.Text`, drawn one after the other
    on the line's baseline (each at the right end of the previous one), so a piece that did not
    change is drawn from its stamp (:mod:`._stamps`) and only the changed pieces are rasterised.
    Put what changes most often at the end of a line.  The block sits above the axes, left-aligned
    with them, as ``set_title(loc="left")`` places a title (same size, pad and line spacing).

    ``set("(c) ε = ", "4")`` with one argument per line; a line is a string or a tuple of
    pieces.  The block is one artist (added to the axes, animated when ``animated``); its pieces
    are its children.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        The axes the block sits above (it is added to them).
    rows : int
        Number of lines.
    animated : bool, default True
        Mark the block animated (drawn over a cached background, see :class:`LiveFigure`).
    fontsize : float or str, optional
        Font size; the axes title size (``rcParams["axes.titlesize"]``) when not given.
    linespacing : float, default 1.2
        Distance between baselines, in multiples of the font size.
    **text_kw
        Further :class:`~matplotlib.text.Text` properties of every piece (colour, weight, ...).
    """

    def __init__(self, ax, rows, *, animated=True, fontsize=None, linespacing=1.2, **text_kw):
        import matplotlib as mpl
        from matplotlib.font_manager import FontProperties

        super().__init__()
        self.text_kw = dict(text_kw)
        size = self.text_kw.setdefault("fontsize", fontsize if fontsize is not None else mpl.rcParams["axes.titlesize"])
        points = FontProperties(size=size).get_size_in_points()
        pad = mpl.rcParams["axes.titlepad"]
        # baselines: the last line's where a title's last line has its baseline (pad points above
        # the axes); lines linespacing × the font's height apart (DejaVu Sans: 1 em), as in a Text
        self._rise = [pad + (rows - 1 - r) * linespacing * points for r in range(rows)]
        self.pieces = [[] for _ in range(rows)]
        self._points = points
        self._linespacing = linespacing
        #: ``None``, or how many px from the right edge of the figure the block must stay (a
        #: phone layout sets it: every line then wraps between words, see :meth:`_place`).
        self.wrap_margin = None
        self._lines = [""] * rows  # the text as set, one string per line (for get_text when wrapping)
        self._shifts = {}  # piece -> its Affine2D offset along the line (px)
        self._widths = {}  # (text, dpi) -> width in px
        self.set_zorder(3)  # a text's
        self.set_animated(animated)
        ax.add_artist(self)
        self.set_clip_on(False)  # (add_artist clips to the axes patch)

    def _piece(self, row, i):
        line = self.pieces[row]
        while len(line) <= i:
            fig = self.axes.get_figure(root=False)
            shift = Affine2D()
            transform = (self.axes.transAxes + ScaledTranslation(0.0, self._rise[row] / 72.0, fig.dpi_scale_trans)
                         + shift)
            piece = Text(0.0, 1.0, "", ha="left", va="baseline", transform=transform, clip_on=False, **self.text_kw)
            piece.set_figure(fig)
            self._shifts[piece] = shift
            line.append(piece)
        return line[i]

    def wrap_at(self, margin):
        """Wrap every line between words, ``margin`` px short of the figure's right edge.

        Parameters
        ----------
        margin : float or None
            Distance in px from the figure's right edge that no line may cross; ``None``: never
            wrap (one row of pieces per line).

        Returns
        -------
        TitleBlock
            The block itself.
        """
        self.wrap_margin = None if margin is None else float(margin)
        for line in self.pieces:
            for piece in line:
                piece.set_text("")
        return self.set(*self._lines)

    def set(self, *lines):
        """Set the text, one argument per line.

        Parameters
        ----------
        *lines : str or tuple of str
            One per line, at most as many as the block's rows: a string, or a tuple of pieces
            drawn in a row; missing lines are left empty.

        Returns
        -------
        TitleBlock
            The block itself.
        """
        if len(lines) > len(self.pieces):
            raise ValueError(f"this title has {len(self.pieces)} lines, got {len(lines)}")
        for row in range(len(self.pieces)):
            parts = lines[row] if row < len(lines) else ()
            parts = (parts,) if isinstance(parts, str) else tuple(parts)
            self._lines[row] = "".join(parts)
            if self.wrap_margin is not None:  # one piece per word (a line may break between any two)
                parts = tuple(w for part in parts for w in WRAP_UNITS.findall(part))
            for i, part in enumerate(parts):
                self._piece(row, i).set_text(part)
            for piece in self.pieces[row][len(parts):]:
                piece.set_text("")
        self.stale = True
        return self

    def get_text(self):
        """Return the title as one string, e.g. for tests and alt text.

        Returns
        -------
        str
            The lines joined by newlines.
        """
        if self.wrap_margin is not None:
            return "\n".join(self._lines).rstrip("\n")
        return "\n".join("".join(p.get_text() for p in line) for line in self.pieces).rstrip("\n")

    def get_children(self):
        """Return the pieces, line after line.

        Returns
        -------
        list of matplotlib.text.Text
            Every piece (empty ones included).
        """
        return [piece for line in self.pieces for piece in line]

    def _width(self, piece, renderer):
        key = (piece.get_text(), renderer.dpi)  # every piece has the block's font
        width = self._widths.get(key)
        if width is None:
            width = self._widths[key] = piece.get_window_extent(renderer).width
            if len(self._widths) > 4000:
                self._widths.clear()
        return width

    def _place(self, renderer):
        """Put every piece at the right end of the previous one (whole-pixel widths)."""
        if self.wrap_margin is not None:
            return self._place_wrapped(renderer)
        for line in self.pieces:
            x = 0.0
            for piece in line:
                shift = self._shifts[piece]
                if shift.get_matrix()[0, 2] != x:
                    shift.clear().translate(x, 0.0)
                text = piece.get_text()
                if text:
                    x += self._width(piece, renderer)

    def _place_wrapped(self, renderer):
        """Flow the words of every line within the room left of the figure's right edge (less
        :attr:`wrap_margin` px): a line too long goes on over as many lines as it needs, and the
        block grows upwards (its last line stays where a title's last line is)."""
        left = self.axes.transAxes.transform((0.0, 1.0))[0]
        room = max(self.axes.get_figure(root=True).bbox.x1 - self.wrap_margin - left, 1.0)
        placed = []  # (piece, its row, x, its line on screen)
        visual = -1
        for row, line in enumerate(self.pieces):
            visual += 1
            x, glued = 0.0, None  # glued: the previous piece ends in "ε = " (it goes with this one)
            for piece in line:
                width = self._width(piece, renderer) if piece.get_text() else 0.0
                if x > 0 and x + width > room + 0.5:
                    visual, x = visual + 1, 0.0
                    if glued is not None and placed[glued][2] > 0:  # "ε = " moves on with its value
                        before, before_row, before_x, _ = placed[glued]
                        placed[glued] = (before, before_row, 0.0, visual)
                        x = self._width(before, renderer)
                placed.append((piece, row, x, visual))
                x += width
                if piece.get_text():
                    glued = len(placed) - 1 if re.search(_RELATION + r"\s*$", piece.get_text()) else None
        scale = renderer.dpi / 72.0
        step = self._linespacing * self._points  # points, as the rows' rises
        for piece, row, x, line in placed:
            y = ((visual - line) * step + self._rise[-1] - self._rise[row]) * scale
            shift = self._shifts[piece]
            if tuple(shift.get_matrix()[:2, 2]) != (x, y):
                shift.clear().translate(x, y)

    def get_window_extent(self, renderer=None):
        """Return the display box of the non-empty pieces, after placing them.

        Parameters
        ----------
        renderer : matplotlib.backend_bases.RendererBase, optional
            The renderer to measure with; the figure canvas's when not given.

        Returns
        -------
        matplotlib.transforms.Bbox
            The union of the pieces' boxes (a null box when the title is empty).
        """
        if renderer is None:
            renderer = self.axes.get_figure(root=True).canvas.get_renderer()
        self._place(renderer)
        boxes = [p.get_window_extent(renderer) for p in self.get_children() if p.get_text()]
        return Bbox.union(boxes) if boxes else Bbox.null()

    def draw(self, renderer):
        """Place the pieces on their baselines (wrapping if asked) and draw them.

        Parameters
        ----------
        renderer : matplotlib.backend_bases.RendererBase
            The renderer of the draw in progress.
        """
        if not self.get_visible():
            return
        self._place(renderer)
        for piece in self.get_children():
            if piece.get_text():
                piece.draw(renderer)
        self.stale = False


class LiveFigure:
    """A figure whose artists are created once and updated in place.

    Subclasses set ``height`` (inches at 72 dpi; the width is the book's column) and implement
    ``_build`` (create axes and artists) and ``_draw(data)`` (update them from an experiment
    result), and may set :attr:`alt` or override :meth:`alt_text` (what the figure shows, for
    readers who cannot see it).

    Layout: figures are laid out by matplotlib's constrained layout at their first full render,
    which is then frozen, so that later frames (whose texts change) never move the axes and a
    blitted frame is the full render of the same state.

    Fast redraws (``blit = True``).  Rendering text is most of the cost of a matplotlib frame,
    and most text (tick labels, axis labels, legends) does not change when a slider moves.
    Artists that ``_draw`` changes are marked *animated* (:meth:`_animate`); :meth:`png`
    renders everything else once into a cached background (``canvas.copy_from_bbox``), and on
    later calls only restores that background (``restore_region``) and draws the animated
    artists on top (``draw_artist``).  A background belongs to a *key*: the axis limits, the
    figure-level texts and :attr:`_static_version` (bump it after changing any non-animated
    artist, or set it to a hashable that determines every non-animated artist, e.g. which
    legend is shown).  The last :attr:`max_backgrounds` backgrounds are kept.  A new background
    is composed panel by panel where the figure allows it (:meth:`_compose_background`): a
    slider that changes one panel's limits re-renders that panel only.  Saving the
    figure (``savefig``, the inline backend) draws every artist as usual.  Animated 3-D
    artists are projected before drawing (the view must not change between frames); set
    ``blit = False`` to always draw in full.  Every line of text a live figure draws (titles
    and labels holding slider values, tick labels, legends) is blended from a cache of rendered
    lines (:class:`._stamps.StampRenderer`): text is most of the cost of a frame, and a
    dashboard's texts repeat.  ``benchmarks/bench_widgets.py --compare-plain`` measures what
    this buys against a full ``canvas.draw()`` per slider move.

    Parameters
    ----------
    data : object, optional
        A first experiment result to draw (as :meth:`draw`); nothing is drawn when ``None``.
    """

    height = 4.0
    blit = True
    max_backgrounds = 6
    #: One sentence saying what the figure shows (its alt text); see :meth:`alt_text`.
    alt = ""
    #: Lines of notes a live figure keeps room for at its bottom (its layout is frozen).
    note_lines = 2

    def __init__(self, data=None):
        self.fig = new_figure(self.height)
        self._static_version = 0
        self._backgrounds = OrderedDict()  # key → cached background (LRU)
        self._layout_frozen = False
        self._cells = None  # per-panel cells of the background (see _compose_background)
        self._base_cache = None
        self._base_pending = None
        self._stamps = None  # the StampRenderer around the canvas renderer (see _renderer)
        self._frozen = {}  # artist -> (static version, (image, x, y)) (see _freeze)
        self.data = None
        with S.house():
            self._build()
            # Message texts live in figure coordinates but belong to the first axes, so that they
            # can be animated: changing them then costs no full re-render.
            host = next((ax for ax in self.fig.axes if ax.name != "3d"), self.fig.axes[0])
            self._error = host.text(
                0.5, 0.5, "", transform=self.fig.transFigure, ha="center", va="center", color=S.ERROR,
                fontsize=S.NORMAL, zorder=100, visible=False, clip_on=False, in_layout=False,
                bbox=dict(boxstyle="round,pad=0.6", facecolor="white", edgecolor=S.ERROR, alpha=0.95),
            )
            self._note = host.text(0.005, 0.005, "", transform=self.fig.transFigure, ha="left", va="bottom",
                                   fontsize=S.SMALL, color=S.NOTE, clip_on=False, in_layout=False)
        S.finish_axes(self.fig)
        self._animate(self._error, self._note)
        self._reserve_note_space()
        self.error = None
        if data is not None:
            self.draw(data)

    # -- subclass hooks ----------------------------------------------------------------------
    def _build(self):  # pragma: no cover - abstract
        raise NotImplementedError

    def _draw(self, data):  # pragma: no cover - abstract
        raise NotImplementedError

    def alt_text(self):
        """Return what the figure shows, in words (the alt text of the image in the book).

        Returns
        -------
        str
            :attr:`alt`, or the first paragraph of the class docstring.
        """
        return self.alt or (self.__doc__ or "").strip().split("\n\n")[0].replace("\n", " ")

    def _animate(self, *artists):
        """Mark artists (or containers of artists) that ``_draw`` updates."""
        for artist in artists:
            if isinstance(artist, (list, tuple)):
                self._animate(*list(artist))
            elif self.blit:
                artist.set_animated(True)
        return artists[0] if len(artists) == 1 else artists

    def _freeze(self, *artists):
        """Artists that never change and lie outside every axes' data area (legends beside or
        below a panel): drawn from an image of themselves, made once (per :attr:`_static_version`),
        so that redrawing their panel (a new axis limit) does not lay them out again.

        They are animated (left out of the cached backgrounds) and blended like a text stamp:
        the same pixels as drawing them, to within rounding.  Nothing else may be drawn over them.
        """
        for artist in artists:
            if artist is not None and self.blit:
                artist.set_animated(True)
                self._frozen[artist] = None
        return artists[0] if len(artists) == 1 else artists

    def _draw_frozen(self, artist, renderer):
        entry = self._frozen[artist]
        if entry is None or entry[0] != self._static_version:
            width, height = self.fig.canvas.get_width_height()
            canvas = RendererAgg(width, height, self.fig.dpi)  # same size: same sub-pixel phases
            with S.house():
                artist.draw(canvas)
            rgba = np.asarray(canvas.buffer_rgba())
            alpha = rgba[..., 3]
            rows, cols = np.flatnonzero(alpha.any(axis=1)), np.flatnonzero(alpha.any(axis=0))
            if rows.size == 0:
                image = None
            else:
                top, end, first, last = rows[0], rows[-1] + 1, cols[0], cols[-1] + 1
                # buffer rows run downwards; draw_image takes rows upwards from (x, y)
                image = (np.ascontiguousarray(rgba[top:end, first:last][::-1]), first, height - end)
            entry = self._frozen[artist] = (self._static_version, image)
        if entry[1] is not None:
            image, x, y = entry[1]
            gc = renderer.new_gc()
            try:
                renderer.draw_image(gc, x, y, image)
            finally:
                gc.restore()

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
        """Show an experiment result and clear any error message.

        Parameters
        ----------
        data : object
            The experiment result the subclass's ``_draw`` reads (a dict's ``"notes"`` are shown).
        notes : iterable of str, default ()
            Caveats to show at the bottom (see :meth:`set_notes`).

        Returns
        -------
        LiveFigure
            The figure itself.
        """
        with S.house():
            self._draw(data)
        self.data = data
        self.error = None
        self._error.set_visible(False)
        notes = list(notes)
        if isinstance(data, dict):
            notes += list(data.get("notes", ()))
        self.set_notes(notes)
        return self

    def show_error(self, message):
        """Write a message in red over the axes; the last good drawing stays beneath it.

        Parameters
        ----------
        message : str or Exception
            What went wrong (wrapped at 60 characters).

        Returns
        -------
        LiveFigure
            The figure itself.
        """
        self.error = str(message)
        self._error.set_text("Cannot draw this setting:\n" + wrap(self.error, 60))
        self._error.set_visible(True)
        return self

    def set_notes(self, notes):
        """Show caveats the reader should see (weak δ, ...) in brown at the bottom.

        Parameters
        ----------
        notes : iterable of str
            The notes; empty and repeated ones are dropped, the first two are shown.

        Returns
        -------
        LiveFigure
            The figure itself.
        """
        seen = []
        for n in notes:
            if n and n not in seen:
                seen.append(n)
        self._note.set_text("\n".join(wrap(n, 100) for n in seen[:2]))
        self._reserve_note_space()
        return self

    def _reserve_note_space(self):
        """Keep the bottom of the figure free for the notes: two lines in a live figure (its
        layout is frozen at the first render, later notes must fit), as many as shown otherwise."""
        engine = self.fig.get_layout_engine()
        if self._layout_frozen or engine is None or not hasattr(engine, "set"):
            return
        lines = self.note_lines if self.blit else (self._note.get_text().count("\n") + 1 if self._note.get_text() else 0)
        bottom = lines * 1.25 * S.SMALL / (self.fig.get_figheight() * 72.0)
        engine.set(rect=(0.0, bottom, 1.0, 1.0 - bottom))

    def _key(self):
        limits = tuple((ax.get_xlim(), ax.get_ylim()) for ax in self.fig.axes)
        texts = tuple((t.get_text(), t.get_visible()) for t in self.fig.texts)
        return limits, texts, self._static_version

    def _renderer(self):
        """The canvas's Agg renderer wrapped in the figure's :class:`._stamps.StampRenderer`."""
        renderer = self.fig.canvas.get_renderer()
        if self._stamps is None:
            self._stamps = StampRenderer(renderer)
        elif self._stamps.renderer is not renderer:  # a new canvas size or dpi (savefig): new buffer
            self._stamps.renderer = renderer
        return self._stamps

    def _full_draw(self):
        """What ``canvas.draw()`` does, with texts from the stamp cache."""
        renderer = self._renderer()
        with S.house():
            renderer.clear()
            self.fig.draw(renderer)
        if not self._layout_frozen:
            # the layout of the first render is kept: later frames never move the axes
            self.fig.set_layout_engine("none")
            self._layout_frozen = True
            self._backgrounds.clear()
            self._cells = None

    # -- backgrounds composed per panel ------------------------------------------------------
    def _axes_in_draw_order(self):
        """Top-level axes in the order a full render draws them (figure, then subfigure children
        sorted by zorder, as ``Figure.draw`` sorts them)."""
        order = []

        def walk(container):
            children = [c for c in container.get_children() if c is not container.patch and not c.get_animated()]
            for child in sorted(children, key=lambda c: c.get_zorder()):
                if isinstance(child, Axes):
                    order.append(child)
                elif isinstance(child, SubFigure):
                    walk(child)

        walk(self.fig)
        return order

    def _figure_level_extents(self, renderer):
        """Window extents of what the figure (or a subfigure) draws itself: texts, legends,
        lines, patches, images (not the axes, not the background patches)."""
        boxes = []

        def walk(container):
            for child in container.get_children():
                if child is container.patch or isinstance(child, Axes) or not child.get_visible():
                    continue
                if isinstance(child, SubFigure):
                    walk(child)
                elif not child.get_animated():
                    box = child.get_window_extent(renderer)
                    if box is not None and np.isfinite(box.get_points()).all() and box.width * box.height > 0:
                        boxes.append(box)

        walk(self.fig)
        return boxes

    def _make_cells(self):
        """Split the figure into one rectangle (*cell*) per panel, or per group of overlapping
        panels, so that a panel whose axis limits change is re-rendered alone (see
        :meth:`_compose_background`).  ``False`` when the figure does not split (3-D axes, one
        panel)."""
        renderer = self.fig.canvas.get_renderer()
        axes = self._axes_in_draw_order()
        if len(axes) < 2 or any(ax.name != "rectilinear" for ax in axes):
            return False
        width, height = self.fig.canvas.get_width_height()
        pad = 3  # anti-aliased edges; a panel drawing outside its cell is caught in _render_cell anyway

        def extent(group):
            boxes = []
            for ax in group:
                extra = [c for c in ax.get_children() if c.get_visible() and not c.get_animated()]
                box = ax.get_tightbbox(renderer, bbox_extra_artists=extra)
                if box is not None:
                    boxes.append(box)
            x0 = max(0, math.floor(min(b.x0 for b in boxes)) - pad)
            y0 = max(0, math.floor(min(b.y0 for b in boxes)) - pad)
            x1 = min(width, math.ceil(max(b.x1 for b in boxes)) + pad)
            y1 = min(height, math.ceil(max(b.y1 for b in boxes)) + pad)
            return [x0, y0, x1, y1]

        def overlap(a, b):
            return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]

        groups = [[ax] for ax in axes]
        while True:  # merge panels whose drawings overlap (twin axes, a legend over a neighbour)
            boxes = [extent(g) for g in groups]
            pair = next(((i, j) for i in range(len(groups)) for j in range(i + 1, len(groups))
                         if overlap(boxes[i], boxes[j])), None)
            if pair is None:
                break
            i, j = pair
            merged = set(groups[i]) | set(groups[j])
            groups = [g for k, g in enumerate(groups) if k not in pair] + [[ax for ax in axes if ax in merged]]
        if len(groups) < 2:
            return False
        # Grow every cell towards its neighbours, by up to half the gap (tick labels that get
        # longer after a limit change stay inside), but never over what the figure draws itself.
        figure_boxes = [[b.x0, b.y0, b.x1, b.y1] for b in self._figure_level_extents(renderer)]
        grown = []
        for i, (x0, y0, x1, y1) in enumerate(boxes):
            # a neighbouring panel: up to half the gap; what the figure draws: up to its edge
            obstacles = [(b, 0.5) for j, b in enumerate(boxes) if j != i] + [(b, 1.0) for b in figure_boxes]
            left, bottom, right, top = 0.0, 0.0, float(width), float(height)
            for b, share in obstacles:
                if b[1] < y1 and y0 < b[3]:  # beside it
                    if b[2] <= x0:
                        left = max(left, x0 - share * (x0 - b[2]))
                    if b[0] >= x1:
                        right = min(right, x1 + share * (b[0] - x1))
                if b[0] < x1 and x0 < b[2]:  # above or below it
                    if b[3] <= y0:
                        bottom = max(bottom, y0 - share * (y0 - b[3]))
                    if b[1] >= y1:
                        top = min(top, y1 + share * (b[1] - y1))
            grown.append([math.ceil(left), math.ceil(bottom), math.floor(right), math.floor(top)])
        clean = all(not overlap(a, b) for i, a in enumerate(grown) for b in grown[i + 1:]) and all(
            not overlap(a, b) for a in grown for b in figure_boxes) and all(
            g[0] <= b[0] and g[1] <= b[1] and g[2] >= b[2] and g[3] >= b[3] for g, b in zip(grown, boxes))
        cells = grown if clean else boxes
        if any(overlap(a, b) for a in cells for b in figure_boxes):
            return False
        return [(tuple(group), tuple(int(v) for v in cell), OrderedDict()) for group, cell in zip(groups, cells)]

    def _base_key(self):
        return tuple((t.get_text(), t.get_visible()) for t in self.fig.texts), self._static_version

    def _base(self, key):
        """The figure with no axes drawn (its background, subfigure patches, figure texts): what
        every cell is drawn on.  Cached under the figure-level part of the key."""
        if self._base_cache is not None and self._base_cache[0] == key:
            return self._base_cache
        axes = self.fig.axes
        shown = [ax.get_visible() for ax in axes]
        try:
            for ax in axes:
                ax.set_visible(False)
            self._full_draw()
        finally:
            for ax, visible in zip(axes, shown):
                ax.set_visible(visible)
        canvas = self.fig.canvas
        # a figure text that has grown into a panel's cell would be drawn under the panel: no cells
        boxes = self._figure_level_extents(canvas.get_renderer())
        usable = not any(b.x0 < x1 and x0 < b.x1 and b.y0 < y1 and y0 < b.y1
                         for b in boxes for _, (x0, y0, x1, y1), _ in self._cells)
        self._base_cache = (key, canvas.copy_from_bbox(self.fig.bbox), np.array(canvas.buffer_rgba()), usable)
        return self._base_cache

    def _render_cell(self, group, cell, base):
        """Draw one group of panels (non-animated artists) on the bare figure and copy its cell;
        ``None`` if anything it draws falls outside the cell (the caller then draws in full)."""
        canvas = self.fig.canvas
        canvas.restore_region(base[1])
        renderer = self._renderer()
        with S.house():
            for ax in group:
                ax.draw(renderer)
        x0, y0, x1, y1 = cell
        now, before = np.asarray(canvas.buffer_rgba()), base[2]
        top, bottom = now.shape[0] - y1, now.shape[0] - y0  # buffer rows run downwards
        if not (np.array_equal(now[:top], before[:top]) and np.array_equal(now[bottom:], before[bottom:])
                and np.array_equal(now[top:bottom, :x0], before[top:bottom, :x0])
                and np.array_equal(now[top:bottom, x1:], before[top:bottom, x1:])):
            return None
        return canvas.copy_from_bbox(Bbox.from_extents(x0, y0, x1, y1))

    def _compose_background(self):
        """Put the background of the current state in the canvas from per-panel pieces; False
        if it cannot (the caller draws the figure in full).

        A full render of a multi-panel figure redraws every panel's ticks, labels and legends
        although a slider usually changes the limits of one panel only.  Each panel (a group of
        axes whose drawings overlap) owns a rectangle of the figure, its *cell*; the panel's
        non-animated artists are drawn alone on the bare figure (:meth:`_base`) and the cell is
        cached under that panel's limits.  Nothing else draws in a cell (checked pixel by pixel
        when a cell is drawn), so the cells pasted on the bare figure are the full render.
        """
        if self._cells is None:
            self._cells = self._make_cells()
        if not self._cells:
            return False
        key = self._base_key()
        if self._base_cache is not None and self._base_cache[0] != key and self._base_pending != key:
            # Every cell is invalid (a legend changed, a figure text): one full render costs less
            # than the bare figure plus every panel.  Cells come back at the next miss of this state.
            self._base_pending = key
            return False
        base = self._base(key)
        if not base[3]:
            return False
        pieces = []
        for group, cell, cache in self._cells:
            key = (tuple((ax.get_xlim(), ax.get_ylim()) for ax in group), base[0])
            if key not in cache:
                cache[key] = self._render_cell(group, cell, base)
                while len(cache) > self.max_backgrounds:
                    cache.popitem(last=False)
            cache.move_to_end(key)
            if cache[key] is None:
                return False
            pieces.append(cache[key])
        canvas = self.fig.canvas
        canvas.restore_region(base[1])
        for piece in pieces:
            canvas.restore_region(piece)
        return True

    def render(self):
        """Render the figure into the canvas buffer (blitting when possible)."""
        canvas = self.fig.canvas
        messages = (self._note, self._error)
        if not self._layout_frozen:
            self._full_draw()
        dynamic = [[a for a in ax.get_children()
                    if a.get_animated() and a.get_visible() and all(a is not m for m in messages)]
                   for ax in self.fig.axes]
        if not self.blit or not any(dynamic):
            # A subclass that animates nothing gets a full draw every time: never a stale image.
            self._full_draw()
        else:
            key = self._key()
            background = self._backgrounds.get(key)
            if background is None:
                if not self._compose_background():
                    self._full_draw()  # animated artists are skipped here
                self._backgrounds[key] = canvas.copy_from_bbox(self.fig.bbox)
                while len(self._backgrounds) > self.max_backgrounds:
                    self._backgrounds.popitem(last=False)
            else:
                self._backgrounds.move_to_end(key)
                canvas.restore_region(background)
            renderer = self._renderer()
            for group in dynamic:
                for artist in sorted(group, key=lambda a: a.get_zorder()):
                    if hasattr(artist, "do_3d_projection"):  # 3-D collections project in Axes3D.draw,
                        artist.do_3d_projection()  # which the blitting path does not run
                    if artist in self._frozen:
                        self._draw_frozen(artist, renderer)
                    else:
                        artist.draw(renderer)  # = figure.draw_artist, texts from their stamps
        renderer = self._renderer()
        for message in messages:  # last, on top of every axes (animated ones are not in the draw)
            if message.get_visible() and message.get_animated():
                message.draw(renderer)

    def png(self):
        """Render the figure and return its PNG bytes.

        Returns
        -------
        bytes
            The rendered figure as a PNG file.
        """
        self.render()
        return encode_png(np.asarray(self.fig.canvas.buffer_rgba()))

    def _repr_png_(self):  # a LiveFigure is displayable by itself in a notebook
        return self.png()


class StaticFigure(LiveFigure):
    """A figure drawn once (a notebook's static figure): a full redraw on every update.

    Its ``_draw`` may clear and refill the axes (``cla``), which suits a figure drawn once.
    """

    blit = False


def band_verts(x, low, high):
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
