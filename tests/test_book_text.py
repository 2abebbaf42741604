"""The book's sources speak of their subject only (the built pages are checked by the browser tests)."""

import re
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
PROCESS_WORDS = ("garbled", "our copy", "the text we had", "reachable", "workplace", "spec §", "shared/spec",
                 "reconstructed from", "lost in", "lost from")
SOURCES = sorted(ROOT.glob("notebooks/*.ipynb")) + sorted(ROOT.glob("book/*.md"))


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.name)
def test_no_source_talks_about_how_the_book_was_made(path):
    if path.suffix == ".ipynb":
        text = "\n".join(c.source for c in nbformat.read(path, as_version=4).cells)
    else:
        text = path.read_text(encoding="utf-8")
    found = [w for w in PROCESS_WORDS if re.search(r"\b" + re.escape(w), text, re.IGNORECASE)]
    assert not found, (path.name, found)


FIGURE_SOURCES = sorted((ROOT / "privpca_edu" / "plotting").glob("*.py")) + sorted(
    (ROOT / "privpca_edu" / "widgets").glob("*.py"))


@pytest.mark.parametrize("path", FIGURE_SOURCES, ids=lambda p: p.parent.name + "/" + p.name)
def test_no_figure_or_caption_talks_about_how_the_book_was_made(path):
    """Figure labels, alt text and dashboard captions are part of the pages too."""
    text = path.read_text(encoding="utf-8")
    words = PROCESS_WORDS + ("reconstructed",)
    found = [w for w in words if re.search(r"\b" + re.escape(w) + r"\b", text, re.IGNORECASE)]
    assert not found, (path.name, found)
