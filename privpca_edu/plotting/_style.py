r"""The book's figure style: one palette, one set of markers, one notation, one page size.

Every figure of :mod:`privpca_edu.plotting` takes its colours, markers and line styles from
:data:`STYLES` (keyed by method, estimator or role, the same key in every chapter: Analyze Gauss
is the same blue square in chapters 1, 4, 6, 9 and 10), its axis labels from :data:`LABELS`
(matplotlib mathtext, the symbols of the text) and its size from :data:`WIDTH_PX`.

Colour
    The Okabe–Ito palette (Okabe & Ito, *Color Universal Design*, 2008), designed to stay
    distinguishable under the common colour-vision deficiencies.  Colour is never the only cue:
    every series also has its own marker or line style, and where a legend would cover data
    the series are labelled directly.  ``tests/plotting/test_plotting.py`` simulates deuteranopia and
    protanopia (``colorspacious``) and requires every two series drawn on the same axes to stay
    at least :data:`MIN_CVD_DISTANCE` apart in CAM02-UCS.

Size
    Figures are drawn at the width of the book's text column, :data:`WIDTH_PX` = 688 CSS px, at
    72 dpi, so that one point of font size is one displayed pixel: the smallest text
    (:data:`SMALL`) is 11 px on the page, as tests check for every figure.  At most two panels
    sit side by side.
"""

from __future__ import annotations

import math

import matplotlib as mpl

__all__ = [
    "OKABE_ITO", "STYLES", "LABELS", "WIDTH_PX", "DPI", "WIDTH", "SMALL", "NORMAL", "TITLE", "MIN_FONT_PX",
    "MIN_CVD_DISTANCE", "GREY", "LIGHT_GREY", "ERROR", "NOTE", "style", "line_kw", "house", "house_rc", "finish_axes",
    "log_decades", "fmt",
]

#: The column width of the built book (pydata-sphinx-theme at a 1280 px window), in CSS px.
WIDTH_PX = 688
#: Figures are rendered at 72 dpi: a font of s points is s pixels tall on the page.
DPI = 72
#: Figure width: the column less the 2 × 0.1 in that ``bbox_inches="tight"`` (the inline backend) pads.
WIDTH = (WIDTH_PX - 16) / DPI  # inches
#: Font sizes (points = displayed CSS px at the column width).
SMALL, NORMAL, TITLE = 11.0, 12.0, 13.0
#: The smallest text a figure may show, in displayed CSS px (what the tests check).
MIN_FONT_PX = 11.0
#: Smallest CAM02-UCS distance between two series on one axes under simulated dichromacy.
MIN_CVD_DISTANCE = 12.0

#: Okabe–Ito's eight colours.
OKABE_ITO = {
    "black": "#000000", "orange": "#E69F00", "sky": "#56B4E9", "green": "#009E73",
    "yellow": "#F0E442", "blue": "#0072B2", "vermillion": "#D55E00", "purple": "#CC79A7",
}
_C = OKABE_ITO
GREY = "#555555"  # reference levels, records, annotations (7.5:1 on white; ≥ 21 ΔE from every
#                  Okabe–Ito colour under simulated dichromacy, where #767676 is 9 from green)
LIGHT_GREY = "#BBBBBB"
ERROR = "#B00020"
NOTE = "#7A4F00"

#: One entry per method / estimator / role: colour, marker, line style and the book's name.
#: The same key means the same look in every chapter.
STYLES = {
    # --- accounting methods of privacy.ITERATIVE_CALIBRATIONS (chapters 2 and 8)
    "paper": dict(color=_C["vermillion"], marker="o", ls="-", label="DPS-PCA's σ, basic composition",
                  short="paper"),
    "classic": dict(color=_C["orange"], marker="s", ls="--", label="classic GM, basic composition",
                    short="classic"),
    "analytic_basic": dict(color=_C["purple"], marker="^", ls="-.", label="analytic GM, basic composition",
                           short="analytic basic"),
    "advanced": dict(color=_C["sky"], marker="D", ls=(0, (5, 2, 1, 2, 1, 2)), label="analytic GM, advanced composition",
                     short="advanced"),
    "zcdp": dict(color=_C["blue"], marker="v", ls=(0, (1, 1.5)), label="zero-concentrated DP", short="zCDP"),
    "analytic_exact": dict(color=_C["green"], marker="P", ls="-", label="exact: Gaussian DP", short="exact GDP"),
    # --- covariance mechanisms and their relatives (chapters 1, 4, 6, 9, 10)
    "AnalyzeGauss": dict(color=_C["blue"], marker="s", ls="-", label="Analyze Gauss", short="AG"),
    "AnalyzeGaussPaper": dict(color=_C["sky"], marker="x", ls=":", label="Analyze Gauss (paper, not private)",
                              short="AG (paper)"),
    "ModSuLQ": dict(color=_C["orange"], marker="^", ls="--", label="MOD-SuLQ", short="MOD-SuLQ"),
    "PPCA": dict(color=_C["green"], marker="o", ls="-.", label="PPCA (Bingham)", short="PPCA"),
    "DPSPCA": dict(color=_C["vermillion"], marker="o", ls="-", label="DPS-PCA", short="DPS-PCA"),
    # --- local DP (chapter 6): the central curator is Analyze Gauss
    "dense": dict(color=_C["vermillion"], marker="o", ls="-", label="local, Algorithm 1 (dense)",
                  short="local dense"),
    "sparse": dict(color=_C["purple"], marker="D", ls="--", label="local, Algorithm 2 (sparse)",
                   short="local sparse"),
    "central": dict(color=_C["blue"], marker="s", ls="-.", label="central, Analyze Gauss", short="central AG"),
    "nonprivate": dict(color=_C["black"], marker="+", ls=":", label="non-private PCA", short="non-private"),
    # --- heavy tails (chapters 9, 10)
    "sph": dict(color=_C["vermillion"], marker="o", ls="-", label="Kendall τ, spherical", short="sph-DPPCA"),
    "wins": dict(color=_C["orange"], marker="D", ls="--", label="Kendall τ, winsorized", short="wins-DPPCA"),
    "AG": dict(color=_C["blue"], marker="s", ls="-.", label="Analyze Gauss", short="AG"),
    "SGPCA": dict(color=_C["purple"], marker="^", ls=(0, (5, 2, 1, 2, 1, 2)), label="SGPCA", short="SGPCA"),
    "NSGGD": dict(color=_C["green"], marker="v", ls=":", label="NSGGD", short="NSGGD"),
    "outliers": dict(color=_C["black"], marker="x", ls="none", label="outliers", short="outliers"),
    "records": dict(color=GREY, marker=".", ls="none", label="records", short="records"),
    # --- the encrypted protocol (chapter 7)
    "hospital": dict(color=_C["green"], marker="o", ls="-", label="hospital", short="hospital"),
    "proxy": dict(color=_C["orange"], marker="D", ls="--", label="proxy", short="proxy"),
    "data user": dict(color=_C["blue"], marker="s", ls="-", label="data user", short="data user"),
    "central party": dict(color=_C["black"], marker="^", ls="--", label="central curator", short="central"),
    "chain": dict(color=_C["vermillion"], marker="v", ls="-.", label="chain", short="chain"),
    # --- bounds and references
    "bound": dict(color=_C["black"], marker="", ls="--", label="bound", short="bound"),
    "random": dict(color=GREY, marker="", ls=(0, (6, 3)), label="random guess", short="random"),
    "selected": dict(color=_C["black"], marker="o", ls="-", label="chosen setting", short="chosen"),
}
#: The chapter 10 method names (experiments.europe.METHODS) → their STYLES key.
STYLES["Kendall (spherical)"] = STYLES["sph"]
STYLES["Kendall (winsorized)"] = STYLES["wins"]
STYLES["Analyze Gauss"] = STYLES["AG"]
STYLES["Analyze Gauss (paper, not private)"] = STYLES["AnalyzeGaussPaper"]


def style(key):
    """Look up the :data:`STYLES` entry of ``key``.

    Parameters
    ----------
    key : str
        A method or series name, e.g. ``"AG"`` or ``"Kendall (spherical)"``.

    Returns
    -------
    dict
        Its ``color``, ``marker``, ``ls``, ``label`` and ``short``.

    Raises
    ------
    KeyError
        If ``key`` has no style; the message names the known keys.
    """
    try:
        return STYLES[key]
    except KeyError:
        raise KeyError(f"no figure style for {key!r}; known: {sorted(STYLES)}") from None


def line_kw(key, *, marker=True, ls=True, **extra):
    """Build the keyword arguments for ``ax.plot`` drawing series ``key``: colour, marker, line style.

    Parameters
    ----------
    key : str
        A key of :data:`STYLES`.
    marker : bool, default=True
        Include the series' marker (if it has one).
    ls : bool, default=True
        Include its line style.
    **extra
        Further keyword arguments, which override the style's.

    Returns
    -------
    dict
        Keyword arguments for ``ax.plot``.
    """
    s = style(key)
    kw = dict(color=s["color"])
    if marker and s["marker"]:
        kw["marker"] = s["marker"]
    if ls:
        kw["linestyle"] = s["ls"]
    kw.update(extra)
    return kw


#: Axis labels and symbols: mathtext, the notation of the book's text.
LABELS = {
    "epsilon": r"privacy budget $\varepsilon$",
    "epsilon_log": r"privacy budget $\varepsilon$ (log scale)",
    "delta": r"$\delta$",
    "sigma": r"noise $\sigma$",
    "sin_theta": r"$\|\sin\Theta\|_F$",
    "error": r"error $\|\sin\Theta\|_F$",
    "error_to_nonprivate": r"error $\|\sin\Theta\|_F$ to non-private PCA",
    "projection": r"$\|UU^\top - VV^\top\|_F$",
    "max_angle": r"$\sin\theta_{\max}$",
    "random_guess": r"random guess $\sqrt{k(d-k)/d}$",
    "largest_possible": r"largest possible $\sqrt{\min(k,\,d-k)}$",
    "n": r"$n$ (records)",
    "d": r"dimension $d$",
    "k": r"$k$ (components)",
}

#: rcParams of every figure (applied while it is built and drawn).
house_rc = {
    "figure.dpi": DPI,
    "savefig.dpi": DPI,
    "font.size": NORMAL,
    "axes.titlesize": NORMAL,
    "axes.labelsize": NORMAL,
    "xtick.labelsize": SMALL,
    "ytick.labelsize": SMALL,
    "legend.fontsize": SMALL,
    "legend.title_fontsize": SMALL,
    "figure.titlesize": TITLE,
    "lines.linewidth": 2.0,
    "lines.markersize": 6.5,
    "axes.prop_cycle": mpl.cycler(color=[_C[c] for c in ("blue", "vermillion", "green", "orange", "purple", "sky")]),
    "axes.spines.top": False,
    "axes.spines.right": False,
    "legend.frameon": False,
    "mathtext.fontset": "dejavusans",
}


def house():
    """Return a context in which matplotlib uses :data:`house_rc`.

    Returns
    -------
    contextlib.AbstractContextManager
        :func:`matplotlib.rc_context` with :data:`house_rc`.
    """
    return mpl.rc_context(house_rc)


def finish_axes(fig):
    """Set tick labels at :data:`SMALL` on every axes of the figure.

    Tick labels at :data:`SMALL` on every axes, also for ticks created later (at draw time,
    outside :func:`house`).

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        The figure, changed in place.
    """
    for ax in fig.axes:
        ax.tick_params(labelsize=SMALL)
        if ax.name == "3d":
            ax.tick_params(axis="z", labelsize=SMALL)


def log_decades(axis, lo_exp, hi_exp):
    """Label a log axis with a plain number at each decade 10^lo_exp … 10^hi_exp, no minor labels.

    Parameters
    ----------
    axis : matplotlib.axis.Axis
        The (log-scaled) axis, e.g. ``ax.xaxis``, changed in place.
    lo_exp, hi_exp : int
        The first and last decade's exponents.
    """
    from matplotlib import ticker

    axis.set_major_locator(ticker.FixedLocator([10.0**e for e in range(int(lo_exp), int(hi_exp) + 1)]))
    axis.set_major_formatter(ticker.FuncFormatter(lambda v, _: f"{v:g}"))
    axis.set_minor_locator(ticker.NullLocator())


def fmt(x, digits=3):
    """Format a number for a figure text: 3 significant digits, ∞ and — for infinite / missing.

    Parameters
    ----------
    x : float or None
        The number (``None``: missing).
    digits : int, default=3
        Significant digits.

    Returns
    -------
    str
        The formatted number, ``"∞"`` or ``"—"``.
    """
    if x is None:
        return "—"
    if isinstance(x, float) and math.isinf(x):
        return "∞"
    return f"{x:.{digits}g}"



def log_decades_between(axis, lo, hi):
    """:func:`log_decades` covering the values lo … hi."""
    log_decades(axis, math.floor(math.log10(lo)), math.ceil(math.log10(hi)))


#: Colours of a verdict (a test passed / failed): also told apart by their words.
GOOD, BAD = OKABE_ITO["green"], OKABE_ITO["vermillion"]


#: Markers and line styles for series that are values of a parameter (ε = 0.5, 1, 2 …), in order.
SERIES_KEYS = ("AnalyzeGauss", "paper", "PPCA", "ModSuLQ", "advanced", "analytic_basic")


def series(i):
    """Colour, marker and line style of the i-th series of a parameter sweep."""
    return style(SERIES_KEYS[i % len(SERIES_KEYS)])


def in_house(function):
    """Decorator: build a static figure in :func:`house` and size its tick labels."""
    import functools

    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        with house():
            fig = function(*args, **kwargs)
        if hasattr(fig, "axes"):
            finish_axes(fig)
        return fig

    return wrapper
