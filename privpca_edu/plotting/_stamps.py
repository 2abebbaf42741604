"""Text lines drawn once, then blended as images: fast redraws of titles, labels, ticks, legends.

Rendering text is most of the cost of a matplotlib frame: Agg lays out, hints and rasterises
every glyph with FreeType on every draw (about 2 ms for a 40-character line on the book's
machines).  A dashboard's texts repeat: tick labels, axis labels and legends every time a panel
is redrawn, titles whose slider value comes back, the lines of a title that did not change.
:class:`StampRenderer` wraps the canvas's Agg renderer and answers every ``draw_text`` call (one
line of text; a multi-line text makes one call per line) from a cache of *stamps*: the line as
Agg draws it on a small transparent canvas, blended onto the figure with the renderer's public
``draw_image``.  Everything else is passed to the wrapped renderer.

Exactness.  Agg places glyphs at ``round(64 · position)`` (FreeType's 1/64 px), so a line drawn
at a position shifted by whole pixels is the same raster, shifted.  A stamp is drawn at the same
fractional position as the text on the figure and keyed by it; blending it "over" the figure is
what drawing the text there does (plain text: the same pixels; mathtext: within a few levels of
rounding).  Texts with a clip path, TeX, or a line whose stamp would not fit its canvas are drawn
as usual.
"""

from __future__ import annotations

import math
from collections import OrderedDict

import matplotlib as mpl
import numpy as np
from matplotlib.backend_bases import RendererBase
from matplotlib.backends.backend_agg import RendererAgg

__all__ = ["StampRenderer"]


def _forward(name):
    def method(self, *args, **kwargs):
        return getattr(self.renderer, name)(*args, **kwargs)

    method.__name__ = name
    method.__doc__ = f"The wrapped renderer's ``{name}``."
    return method


class StampRenderer(RendererBase):
    """An Agg renderer whose ``draw_text`` blends cached stamps (an LRU of ``max_items`` lines).

    A :class:`~matplotlib.backend_bases.RendererBase` (``isinstance`` checks hold): pass it
    wherever matplotlib expects the canvas's renderer (``artist.draw(renderer)``,
    ``figure.draw(renderer)``).  Every method of the renderer interface but ``draw_text``, and
    every other attribute (``width``, ``buffer_rgba``, ``copy_from_bbox``, ...), is the wrapped
    renderer's.  ``hits`` and ``misses`` count cache look-ups; ``direct`` counts lines drawn
    without a stamp.

    Parameters
    ----------
    renderer : matplotlib.backends.backend_agg.RendererAgg
        The canvas's renderer (``canvas.get_renderer()``).
    max_items : int, default 2000
        Number of stamps kept (least recently used dropped first).
    """

    def __init__(self, renderer, max_items=2000):
        # RendererBase.__init__ is not called: its state (TeX manager, rasterising depth) is the
        # wrapped renderer's, reached through __getattr__ and the forwarded methods.
        self.renderer = renderer
        self.max_items = int(max_items)
        self._cache = OrderedDict()
        self.hits = self.misses = self.direct = 0

    def __getattr__(self, name):  # everything but draw_text: the wrapped Agg renderer
        if name == "renderer":  # (not set yet: no recursion)
            raise AttributeError(name)
        return getattr(self.renderer, name)

    def draw_text(self, gc, x, y, s, prop, angle, ismath=False, mtext=None):
        renderer = self.renderer
        clip_path, _ = gc.get_clip_path()
        if ismath == "TeX" or clip_path is not None or not (math.isfinite(x) and math.isfinite(y)):
            self.direct += 1
            return renderer.draw_text(gc, x, y, s, prop, angle, ismath=ismath, mtext=mtext)
        up = renderer.height - y  # Agg's y runs downwards; FreeType's (and draw_image's) upwards
        ix, iy = math.floor(x), math.floor(up)
        fx, fy = x - ix, up - iy
        key = (s, bool(ismath), hash(prop), float(angle), tuple(gc.get_rgb()), gc.get_alpha(), gc.get_forced_alpha(),
               gc.get_antialiased(), gc.get_snap(), fx, fy, renderer.dpi, _text_options(mtext),
               mpl.rcParams["text.hinting"], mpl.rcParams["text.hinting_factor"], mpl.rcParams["text.kerning_factor"])
        stamp = self._cache.get(key)
        if stamp is None:
            self.misses += 1
            stamp = self._make(gc, fx, fy, s, prop, angle, ismath, mtext)
            self._cache[key] = stamp
            while len(self._cache) > self.max_items:
                self._cache.popitem(last=False)
        else:
            self.hits += 1
            self._cache.move_to_end(key)
        if stamp is False:  # did not fit its canvas: drawn as usual
            self.direct += 1
            return renderer.draw_text(gc, x, y, s, prop, angle, ismath=ismath, mtext=mtext)
        image, dx, dy = stamp
        if image is None:  # blank (spaces)
            return None
        blend = renderer.new_gc()
        try:
            blend.set_clip_rectangle(gc.get_clip_rectangle())
            renderer.draw_image(blend, ix + dx, iy + dy, image)
        finally:
            blend.restore()
        return None

    def _make(self, gc, fx, fy, s, prop, angle, ismath, mtext):
        """(image, dx, dy): the line drawn by Agg on a transparent canvas at the sub-pixel phase
        (fx, fy), cropped to its pixels, the image's lower-left corner at (dx, dy) from the
        anchor's whole-pixel position; ``(None, 0, 0)`` if blank, ``False`` if it did not fit."""
        dpi = self.renderer.dpi
        em = prop.get_size_in_points() * dpi / 72.0
        # generous bounds in the line's own frame (along the baseline, and up from it): no glyph
        # is wider than ~1 em; mathtext may stack fractions; checked below, never trusted
        length = em * (len(s) + 2) + 8
        below, above = (2.0 if ismath else 1.0) * em + 4, (3.0 if ismath else 1.6) * em + 4
        c, sn = math.cos(math.radians(angle)), math.sin(math.radians(angle))
        corners = [(u * c - v * sn, u * sn + v * c) for u in (-em - 4, length) for v in (-below, above)]
        left = math.floor(min(p[0] for p in corners)) - 2
        bottom = math.floor(min(p[1] for p in corners)) - 2
        width = math.ceil(max(p[0] for p in corners)) + 2 - left
        height = math.ceil(max(p[1] for p in corners)) + 2 - bottom
        if width * height > 8_000_000:
            return False
        canvas = RendererAgg(width, height, dpi)
        ax0, ay0 = -left, -bottom  # the anchor's whole-pixel position on the small canvas (upwards)
        line = canvas.new_gc()
        try:
            line.copy_properties(gc)
            line.set_clip_rectangle(None)
            line.set_clip_path(None)
            canvas.draw_text(line, ax0 + fx, height - (ay0 + fy), s, prop, angle, ismath=ismath, mtext=mtext)
        finally:
            line.restore()
        rgba = np.asarray(canvas.buffer_rgba())
        alpha = rgba[..., 3]
        if alpha[0].any() or alpha[-1].any() or alpha[:, 0].any() or alpha[:, -1].any():
            return False
        rows = np.flatnonzero(alpha.any(axis=1))
        if rows.size == 0:
            return None, 0, 0
        cols = np.flatnonzero(alpha.any(axis=0))
        top, end, first, last = rows[0], rows[-1] + 1, cols[0], cols[-1] + 1
        # buffer rows run downwards from the top; draw_image takes rows upwards from (x, y)
        image = np.ascontiguousarray(rgba[top:end, first:last][::-1])
        return image, first - ax0, (height - end) - ay0


# The renderer interface, forwarded: RendererBase's own methods would otherwise answer (its
# defaults, not the wrapped Agg renderer's), since __getattr__ only sees names not found.
for _name in [n for n in vars(RendererBase) if not n.startswith("__") and n != "draw_text"]:
    setattr(StampRenderer, _name, _forward(_name))
del _name


def _text_options(mtext):
    """What else of the Text artist Agg's layout reads (OpenType features, language)."""
    if mtext is None:
        return None
    options = []
    for name in ("get_fontfeatures", "get_language"):
        getter = getattr(mtext, name, None)
        value = getter() if getter is not None else None
        options.append(tuple(value) if isinstance(value, list) else value)
    return tuple(options)
