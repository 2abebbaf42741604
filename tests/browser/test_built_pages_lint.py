"""Book lint on the built pages (the session's one strict build, ``built_book``; no second build).

* No page shows a Python warning or traceback in a cell's output: no stderr stream at all, and no
  ``file.py:123: SomeWarning``, ``Traceback (most recent call last)`` or ``File "…", line …`` text.
  A chapter that needs a setting outside a proof catches the warning and says so in its prose.
* Captions against their figures (best effort, from the image itself, since a PNG carries no
  style metadata): every colour of the book's palette that a figure's caption names is drawn in
  that figure, and the panel positions a caption names exist in the figure's layout, found from its
  panels' frames: a *middle* panel needs three side by side, *top*/*bottom* two rows.
  Markers are not checked (too small to find reliably in the pixels).

Cost: parsing the built pages and decoding about forty PNGs, a few seconds.
"""

from __future__ import annotations

import base64
import io
import json
import re
from pathlib import Path

import numpy as np
import pytest
from bs4 import BeautifulSoup

from privpca_edu.plotting._style import OKABE_ITO

pytestmark = pytest.mark.browser

CHAPTERS = "notebooks/*.html"

# ------------------------------------------------------------------------------ warnings
RAW_WARNING = [
    re.compile(r"\.py:\d+: \w*(Warning|Error)\b"),
    re.compile(r"Traceback \(most recent call last\)"),
    re.compile(r'File "[^"]+", line \d+'),
    re.compile(r"/(?:home|work|tmp|usr|opt|root)/\S+\.py\b"),
]


def _pages(built_book: Path):
    pages = sorted(built_book.glob(CHAPTERS))
    assert len(pages) >= 10, pages
    return pages


def raw_warnings(html: str) -> list[str]:
    """Warning or traceback text in the cell outputs of one built page."""
    soup = BeautifulSoup(html, "html.parser")
    found = []
    for out in soup.select("div.cell_output"):
        for stderr in out.select(".stderr, .output.error, .output.traceback"):
            found.append("stderr/error output: " + stderr.get_text(" ")[:160])
        text = out.get_text(" ")
        for pattern in RAW_WARNING:
            for m in pattern.finditer(text):
                found.append(text[max(0, m.start() - 60): m.end() + 60].replace("\n", " "))
    return found


def test_no_page_prints_a_raw_warning_or_traceback(built_book):
    offenders = {}
    for page in _pages(built_book):
        found = raw_warnings(page.read_text(encoding="utf-8"))
        if found:
            offenders[page.name] = found[:3]
    assert not offenders, f"raw warnings or tracebacks on the built pages: {offenders}"


def test_the_warning_lint_catches_a_raw_warning():
    html = ('<div class="cell_output docutils container"><div class="output stderr highlight-myst-ansi">'
            "<pre>/work/x/privpca_edu/estimators/kendall.py:483: PrivacyWarning: the classic Gaussian mechanism"
            "</pre></div></div>")
    assert len(raw_warnings(html)) >= 2
    assert raw_warnings('<div class="cell_output"><pre>PrivacyWarning: caught and printed on purpose</pre></div>') == []


# ------------------------------------------------------------------------------ captions
#: Colour words of the captions → the palette colour they name.
COLOUR_WORDS = {
    "vermillion": OKABE_ITO["vermillion"], "orange": OKABE_ITO["orange"], "green": OKABE_ITO["green"],
    "sky blue": OKABE_ITO["sky"], "blue": OKABE_ITO["blue"], "yellow": OKABE_ITO["yellow"],
    "reddish purple": OKABE_ITO["purple"], "pink": OKABE_ITO["purple"],
}
_COLOUR = re.compile(r"(?<!light )(?<!dark )\b(" + "|".join(sorted(COLOUR_WORDS, key=len, reverse=True)) + r")\b")
_PANEL = re.compile(r"\*\(?((?:top|bottom) (?:left|right)|left|middle|right|top|bottom)\b[^*]{0,20}\*", re.I)
#: Pixels within this RGB distance of a palette colour count as drawn in it (antialiased edges are not).
COLOUR_TOLERANCE = 36
#: A colour counts as drawn when at least this many pixels have it (a short line segment has ~30).
MIN_PIXELS = 12


def caption_colours(caption: str) -> set[str]:
    """The palette colours a caption says are drawn: not those of a sentence about what appears only
    in some settings ("When …", "… would …"), of a colour map ("blue negative") or of a key listing
    alternatives ("green: real data")."""
    found = set()
    for sentence in re.split(r"(?<=[.;])\s+", caption.replace("sky-blue", "sky blue")):
        if re.search(r"\b(when|whenever|if|would)\b", sentence, re.I):
            continue
        for m in _COLOUR.finditer(sentence):
            if not re.match(r"\s*(:|negative|positive)", sentence[m.end():]):
                found.add(m.group(1))
    return found


def caption_panels(caption) -> set[str]:
    """Panel positions a caption names in italics (*left*, *top right:* …); ``caption`` is its
    markdown text or its HTML paragraph."""
    if isinstance(caption, str):
        return {m.group(1).lower() for m in _PANEL.finditer(caption)}
    return {m.group(1).lower() for em in caption.find_all("em") if (m := _PANEL.match("*" + em.get_text() + "*"))}


def _decode(png: bytes) -> np.ndarray:
    from PIL import Image

    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB")).astype(int)


def colour_pixels(image: np.ndarray, hex_colour: str) -> int:
    """Pixels drawn in the colour, opaque or blended with the white page (alpha ≥ ½: bars with
    alpha, the antialiased core of thin or dotted lines)."""
    rgb = np.array([int(hex_colour[i:i + 2], 16) for i in (1, 3, 5)])
    ink, page = 255.0 - rgb, 255.0 - image  # distance from white
    alpha = page @ ink / max(ink @ ink, 1.0)
    residual = np.abs(page - alpha[..., None] * ink).sum(axis=2)
    return int(((residual <= COLOUR_TOLERANCE) & (alpha >= 0.5) & (alpha <= 1.1)).sum())


def panel_grid(image: np.ndarray) -> list[int]:
    """Panels per row, top to bottom, from the frames' bottom edges: dark horizontal runs of at
    least 60 px whose row above is not dark (the top edge of a frame or a thick line is skipped)."""
    dark = image.max(axis=2) < 90
    runs = []
    for y in range(1, dark.shape[0]):
        row = dark[y]
        if row.sum() < 60:
            continue
        edges = np.flatnonzero(np.diff(np.r_[0, row.astype(int), 0]))
        for x0, x1 in zip(edges[::2], edges[1::2]):
            if x1 - x0 >= 60 and not dark[y + 1:y + 2, x0:x1].mean() > 0.5:
                runs.append((y, x0, x1))
    # an axes' bottom spine: the lowest run of a column span; merge runs closer than 8 px in y
    panels = []
    for y, x0, x1 in runs:
        for p in panels:
            if abs(p[1] - x0) < 12 and abs(p[2] - x1) < 12 and 0 <= y - p[0] < 8:
                p[0] = y
                break
        else:
            panels.append([y, x0, x1])
    # a run with the same span further down, joined to it by a dark left edge, makes it the top edge
    # of a closed frame (heat maps keep all four spines): keep bottoms only; rows = clusters within 25 px
    def is_top(p):
        return any(q is not p and abs(q[1] - p[1]) < 12 and abs(q[2] - p[2]) < 12 and q[0] > p[0] + 20
                   and dark[p[0]:q[0], max(p[1] - 1, 0):p[1] + 2].any(axis=1).mean() > 0.9 for q in panels)

    bottoms = sorted(p for p in panels if not is_top(p))
    rows: list[list] = []
    for y, x0, x1 in bottoms:
        if rows and abs(rows[-1][0][0] - y) <= 25:
            rows[-1].append((y, x0, x1))
        else:
            rows.append([(y, x0, x1)])
    return [len({(round(x0 / 20), round(x1 / 20)) for _, x0, x1 in row}) for row in rows]


def panels_fit(panels: set[str], grid: list[int]) -> list[str]:
    problems = []
    widest = max(grid, default=0)
    if "middle" in panels and widest < 3:
        problems.append(f"'middle' panel, but at most {widest} panels side by side")
    # (no check of 'left'/'right' alone: a 3-D panel has no flat frame to find, so a 3-D panel beside
    # a 2-D one would look like a single panel)
    if panels & {"top", "bottom", "top left", "top right", "bottom left", "bottom right"} and len(grid) < 2:
        problems.append("'top'/'bottom' panels, but one row of panels")
    return problems


def _widget_images(soup: BeautifulSoup, script) -> list[bytes]:
    """The PNGs of the Image widgets under a saved widget view (by the page's widget state)."""
    state_tag = soup.find("script", type="application/vnd.jupyter.widget-state+json")
    if state_tag is None:
        return []
    state = json.loads(state_tag.string)["state"]
    out, todo, seen = [], [json.loads(script.string)["model_id"]], set()
    while todo:
        mid = todo.pop()
        if mid in seen or mid not in state:
            continue
        seen.add(mid)
        model = state[mid]
        for buffer in model.get("buffers", []):
            if buffer.get("path") == ["value"] and model["model_name"] == "ImageModel":
                out.append(base64.b64decode(buffer["data"]))
        value = model["state"].get("value")
        if model["model_name"] == "ImageModel" and isinstance(value, str) and value:
            try:
                out.append(base64.b64decode(value))
            except ValueError:
                pass
        refs = json.dumps(model["state"])
        todo += re.findall(r"IPY_MODEL_([0-9a-f]+)", refs)
    return out


def figures_with_captions(built_book: Path):
    """(page, figure number, caption text, list of PNGs of the outputs just above the caption)."""
    for page in _pages(built_book):
        soup = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
        for strong in soup.find_all("strong"):
            m = re.fullmatch(r"Figure (\d+\.\d+)\.", strong.get_text().strip())
            if not m:
                continue
            paragraph = strong.find_parent("p")
            caption = paragraph.get_text(" ")
            images: list[bytes] = []
            for element in strong.find_all_previous(["img", "script"]):
                if element.name == "img" and element.find_parent("div", class_="cell_output"):
                    src = element.get("src", "")
                    if src.startswith("data:image/png;base64,"):
                        images.append(base64.b64decode(src.split(",", 1)[1]))
                    elif src.endswith(".png"):
                        images.append((page.parent / src).read_bytes())
                    break
                if element.name == "script" and element.get("type") == "application/vnd.jupyter.widget-view+json":
                    images += _widget_images(soup, element)
                    break
            yield page.name, m.group(1), caption, images, caption_panels(paragraph)


@pytest.fixture(scope="module")
def figures(built_book):
    return list(figures_with_captions(built_book))


def test_every_numbered_figure_of_the_checked_chapters_has_its_image(figures):
    found = {number for _, number, _, images, _ in figures if images}
    for number in ("6.3", "6.4", "8.1", "8.2", "8.4", "9.1", "9.2"):
        assert number in found, f"Figure {number}: no image found above its caption"


def test_caption_colours_are_drawn_in_the_figure(figures):
    problems = []
    for page, number, caption, images, _ in figures:
        if not images:
            continue
        pictures = [_decode(png) for png in images]
        for word in sorted(caption_colours(caption)):
            if max(colour_pixels(p, COLOUR_WORDS[word]) for p in pictures) < MIN_PIXELS:
                problems.append(f"{page} Figure {number}: the caption says {word!r}, the figure has no such colour")
    assert not problems, problems


def test_caption_panel_positions_exist_in_the_figure(figures):
    problems = []
    for page, number, caption, images, panels in figures:
        if not images or not panels:
            continue
        grid = panel_grid(_decode(images[0]))
        problems += [f"{page} Figure {number}: {p} (panels per row: {grid})" for p in panels_fit(panels, grid)]
    assert not problems, problems


def test_the_caption_lint_catches_a_wrong_caption():
    assert caption_colours("local (vermillion, solid) and central (blue, dashed); light blue regions") == {
        "vermillion", "blue"}
    assert caption_colours("red positive, blue negative. When it applies, its bound (pink) is drawn.") == set()
    assert caption_panels("*left* for k, *middle* for d, *right* for ε") == {"left", "middle", "right"}
    assert panels_fit({"left", "middle", "right"}, [2, 1])  # Figure 6.4 as it was captioned
    assert not panels_fit({"top left", "top right", "bottom"}, [2, 1])
    two_rows = np.full((300, 600, 3), 255)
    for y, x0, x1 in ((120, 40, 280), (120, 320, 560), (280, 40, 560)):
        two_rows[y, x0:x1] = 0
        two_rows[y - 100, x0:x1] = 0
        two_rows[y - 100:y, x0] = 0
    assert panel_grid(two_rows) == [2, 1]
    blank = np.full((50, 50, 3), 255)
    assert colour_pixels(blank, OKABE_ITO["green"]) == 0
    blank[10:20, 10:20] = (0.85 * np.array([230, 159, 0]) + 0.15 * 255).astype(int)  # an orange bar, alpha 0.85
    assert colour_pixels(blank, OKABE_ITO["orange"]) == 100 and colour_pixels(blank, OKABE_ITO["vermillion"]) == 0
