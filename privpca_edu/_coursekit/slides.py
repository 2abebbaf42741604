"""Slide metadata for the chapters, derived from their headings (idempotent).

    python -m privpca_edu._coursekit.slides [--check] [NOTEBOOK ...]   (or scripts/slide_metadata.py)

Sets ``metadata.slideshow.slide_type`` on every cell of ``notebooks/*.ipynb``, the field that
JupyterLab's RISE extension (``jupyterlab-rise``: a chapter presented live, Alt+R) reads.  (The
lecture decks of ``scripts/build_slides.sh`` are written as slides in ``slides/*.md``; see
:mod:`.decks`.)

* the first cell (the ``#`` title) and every markdown cell that starts with a ``##`` or ``###``
  heading: ``slide`` — one slide per section; likewise a markdown cell that poses an
  ``**Exercise N.M.**``, so that each exercise gets a slide;
* a cell that shows a dashboard (``show(...)``): ``slide`` — the widget on a slide of its own;
* a collapsed solution or answer on its own (a markdown cell that is only ``<details>`` blocks):
  ``notes`` — speaker notes, not on the slide;
* a solution-check code cell (``# Solution ...`` or tagged ``solution``): ``skip``;
* everything else: ``-`` (continues the current slide).

Only that one field is written, so running it again, or after other edits to the notebooks, is
safe: it recomputes the field from the headings and leaves every other byte alone.  ``--check``
exits 1 when a notebook's slide metadata is out of date (the tests run it).
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from . import notebooks as nbio
from .answers import ROOT

SECTION = re.compile(r"\A\s*#{1,3} ")
EXERCISE = re.compile(r"^\*\*Exercise ", re.M)
WIDGET = re.compile(r"(^|\W)show\(", re.M)
ONLY_DETAILS = re.compile(r"\A\s*(<details>.*?</details>\s*)+\Z", re.S)


def slide_type(index, cell):
    src = nbio.source(cell)
    if nbio.is_solution_cell(cell):
        return "skip"
    if index == 0:
        return "slide"
    if cell["cell_type"] == "markdown":
        if SECTION.match(src) or EXERCISE.search(src):
            return "slide"
        if ONLY_DETAILS.match(src):
            return "notes"
        return "-"
    if cell["cell_type"] == "code" and WIDGET.search(src):
        return "slide"
    return "-"


def annotate(nb):
    """Set every cell's slide type in place; returns the number of cells changed."""
    changed = 0
    for i, cell in enumerate(nb["cells"]):
        want = slide_type(i, cell)
        meta = cell.setdefault("metadata", {})
        if meta.get("slideshow", {}).get("slide_type") != want:
            meta.setdefault("slideshow", {})["slide_type"] = want
            changed += 1
    return changed


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if a notebook is out of date")
    parser.add_argument("notebooks", nargs="*", type=Path)
    args = parser.parse_args(argv)
    paths = args.notebooks or sorted((ROOT / "notebooks").glob("*.ipynb"))
    stale = []
    for path in paths:
        nb = nbio.read(path)
        n = annotate(nb)
        if n and args.check:
            stale.append(f"{path.name} ({n} cells)")
        elif n:
            nbio.write(path, nb)
            print(f"[slides] {path.name}: slide metadata set on {n} cell(s)")
    if stale:
        print("[slides] slide metadata out of date: " + ", ".join(stale)
              + "\n         run: python scripts/slide_metadata.py", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
