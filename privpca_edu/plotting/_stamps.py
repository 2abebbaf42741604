"""Text drawn once, then blended as an image: fast redraws of changing titles and labels.

Rendering text is most of the cost of a blitted frame: matplotlib lays out and rasterises every
glyph with FreeType on every draw.  Titles and value labels of a dashboard repeat (a slider
moved back, the same ε, the texts that do not depend on the moved slider), so
:class:`TextStamps` keeps each text drawn a second time as an RGBA image and blends it with the
renderer's public ``draw_image``.  A stamp is made by drawing a copy of the
text on a small transparent Agg canvas, its anchor at the same sub-pixel phase (1/64 px) as on
the figure, so that FreeType rasterises the same glyphs; blending that image "over" the
figure is what drawing the text there does (up to one level of rounding per channel, which the
blitting tests allow).  Only plain texts are stamped: no bounding box, no path effects, no clip
box, no TeX, and lines aligned as the whole text is (matplotlib's default; the package sets no
other ``multialignment``); the rest are drawn as usual.
"""

from __future__ import annotations

import math
from collections import OrderedDict

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.text import Text
from matplotlib.transforms import IdentityTransform

__all__ = ["TextStamps"]

_PHASE = 64  # FreeType positions glyphs in 1/64 px


class TextStamps:
    """A cache of rendered texts (LRU, ``max_items`` images) and the code that blends them."""

    def __init__(self, max_items=400):
        self.max_items = int(max_items)
        self._cache = OrderedDict()
        self._seen = OrderedDict()  # keys drawn once without a stamp
        self.hits = self.misses = 0

    @staticmethod
    def stampable(text):
        return (type(text) is Text and text.get_text() != "" and text.get_bbox_patch() is None
                and not text.get_path_effects() and not text.get_usetex()
                and not (text.get_clip_on() and (text.get_clip_box() is not None or text.get_clip_path() is not None)))

    def draw(self, text, renderer):
        """Draw ``text`` on ``renderer`` from its stamp; False (nothing drawn) if it cannot be stamped."""
        if not text.get_visible():
            return True
        if not self.stampable(text):
            return False
        x, y = text.get_transform().transform(text.get_unitless_position())
        if not (math.isfinite(x) and math.isfinite(y)):
            return False
        ix, fx = divmod(int(round(x * _PHASE)), _PHASE)
        iy, fy = divmod(int(round(y * _PHASE)), _PHASE)
        key = (text.get_text(), tuple(np.round(_rgba(text), 6)), hash(text.get_fontproperties()), text.get_rotation(),
               text.get_horizontalalignment(), text.get_verticalalignment(),
               text.get_linespacing(), text.get_rotation_mode(), text.get_antialiased(), renderer.dpi, fx, fy)
        stamp = self._cache.get(key)
        if stamp is None:
            self.misses += 1
            if key not in self._seen:
                # a text seen once is drawn as usual: making its stamp costs more than drawing it,
                # and most texts of a first visit never come back
                self._seen[key] = None
                while len(self._seen) > 4 * self.max_items:
                    self._seen.popitem(last=False)
                return False
            stamp = self._make(text, renderer, x, y, fx, fy)
            self._cache[key] = stamp
            while len(self._cache) > self.max_items:
                self._cache.popitem(last=False)
        else:
            self.hits += 1
            self._cache.move_to_end(key)
        image, dx, dy = stamp
        if image is not None:
            gc = renderer.new_gc()
            try:
                renderer.draw_image(gc, ix + dx, iy + dy, image)
            finally:
                gc.restore()
        return True

    @staticmethod
    def _make(text, renderer, x, y, fx, fy):
        """(image, dx, dy): the text on a transparent canvas, cropped to its pixels; (dx, dy) is
        the image's lower-left corner relative to the anchor's whole-pixel position."""
        box = text.get_window_extent(renderer)
        pad = 4
        width = int(math.ceil(box.width)) + 2 * pad + 2
        height = int(math.ceil(box.height)) + 2 * pad + 2
        # the anchor's whole-pixel position on the small canvas, the text's box starting at ~pad
        ax0 = pad + int(math.floor(x - box.x0))
        ay0 = pad + int(math.floor(y - box.y0))
        dpi = renderer.dpi
        fig = Figure(figsize=(width / dpi, height / dpi), dpi=dpi)
        fig.patch.set_alpha(0.0)
        canvas = FigureCanvasAgg(fig)
        copy = Text(ax0 + fx / _PHASE, ay0 + fy / _PHASE, text.get_text(), color=text.get_color(),
                    alpha=text.get_alpha(), fontproperties=text.get_fontproperties(),
                    horizontalalignment=text.get_horizontalalignment(),
                    verticalalignment=text.get_verticalalignment(),
                    rotation=text.get_rotation(),
                    rotation_mode=text.get_rotation_mode(), linespacing=text.get_linespacing(),
                    antialiased=text.get_antialiased(), transform=IdentityTransform())
        fig.add_artist(copy)
        canvas.draw()
        rgba = np.asarray(canvas.buffer_rgba())
        rows = np.flatnonzero(rgba[..., 3].any(axis=1))
        cols = np.flatnonzero(rgba[..., 3].any(axis=0))
        if rows.size == 0:
            return None, 0, 0
        top, bottom, left, right = rows[0], rows[-1] + 1, cols[0], cols[-1] + 1
        image = np.ascontiguousarray(rgba[top:bottom, left:right])
        # buffer rows run downwards from the top; draw_image wants the lower-left corner
        dx = left - ax0
        dy = (height - bottom) - ay0
        return image[::-1].copy(), dx, dy


def _rgba(text):
    from matplotlib.colors import to_rgba

    return to_rgba(text.get_color(), text.get_alpha())
