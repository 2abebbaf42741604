"""The course kit in a browser: a reveal.js deck presents offline (and, in test_pdf_*, the book
prints to PDF).  Everything is served from 127.0.0.1; any other request fails the test."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from urllib.parse import urlparse

import pytest


pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
SLIDES = ROOT / "_build" / "slides"
DECK = "03_subspaces.slides.html"


def _run(*cmd, timeout=900):
    env = dict(os.environ, MPLBACKEND="Agg", OPENBLAS_NUM_THREADS="1", SETUP_ENV_NO_APT="1")
    proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, f"{' '.join(cmd)} failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return proc


def _foreign(requests):
    return [u for u in requests
            if not u.startswith(("data:", "blob:", "about:")) and urlparse(u).hostname != "127.0.0.1"]


def test_slide_deck_presents_offline_with_figures_and_maths(chromium, serve):
    _run("bash", "scripts/build_slides.sh", "--chapter", "03")
    assert (SLIDES / DECK).exists() and (SLIDES / "_vendor" / "reveal.js" / "dist" / "reveal.js").exists()
    html = (SLIDES / DECK).read_text(encoding="utf-8")
    assert "unpkg.com" not in html and "cdnjs" not in html and "cdn.jsdelivr" not in html

    with serve(SLIDES) as base:
        page = chromium.new_page()
        requests, failed, errors = [], [], []
        page.on("request", lambda r: requests.append(r.url))
        page.on("requestfailed", lambda r: failed.append(r.url))
        page.on("pageerror", lambda e: errors.append(str(e)))
        try:
            page.goto(f"{base}/{DECK}", wait_until="load")
            page.wait_for_function("window.Reveal && window.Reveal.isReady && window.Reveal.isReady()",
                                   timeout=30_000)
            page.wait_for_function("window.MathJax && MathJax.startup && MathJax.startup.promise", timeout=30_000)
            page.evaluate("MathJax.startup.promise")
            assert page.evaluate("document.querySelectorAll('mjx-container').length") > 5
            assert page.evaluate("Reveal.getTotalSlides()") >= 8
            start = page.evaluate("Reveal.getIndices().h")
            found_figure = False
            for _ in range(15):
                page.keyboard.press("ArrowRight")
                page.wait_for_timeout(150)
                figure = page.evaluate(
                    "(() => { const img = Reveal.getCurrentSlide().querySelector('img');"
                    " return img ? img.complete && img.naturalWidth : 0; })()")
                if figure:
                    found_figure = True
                    break
            assert page.evaluate("Reveal.getIndices().h") > start, "the arrow key did not advance the deck"
            assert found_figure, "no slide with a rendered figure in the first 15 slides"
            maths_on_slide = page.evaluate(
                "(() => { for (const s of document.querySelectorAll('.reveal .slides > section'))"
                " if (s.querySelector('mjx-container')) return true; return false; })()")
            assert maths_on_slide
        finally:
            page.close()
    assert _foreign(requests) == [], f"requests left 127.0.0.1: {_foreign(requests)}"
    assert failed == [], f"failed requests: {failed}"
    assert errors == [], f"JavaScript errors: {errors}"


def test_pdf_of_the_whole_book(built_book):
    """scripts/build_pdf.sh on the session's book build (it reuses the executed chapters, so this
    costs the single-page build and the printing, about a minute or two, not a re-execution)."""
    from privpca_edu._coursekit import pdf

    _run("bash", "scripts/build_pdf.sh", timeout=1800)
    out = ROOT / "_build" / "pdf" / "privpca_edu_book.pdf"
    pages = pdf.pdf_pages(out)
    assert 80 <= pages <= 600, pages
    text = pdf.pdf_text(out)
    flat = pdf.flat_text(text)
    for title in pdf.chapter_titles():
        assert pdf.flat_text(title) in flat, f"chapter title missing: {title}"
    assert "Contents" in text
    # typeset maths: no TeX source left in the text (MathJax replaced every \( ... \) and $$ ... $$)
    assert "\\varepsilon" not in text and "\\frac" not in text and "\\(" not in text
    # the figures are embedded as images
    images = subprocess.run(["pdfimages", "-list", str(out)], capture_output=True, text=True, check=True).stdout
    assert len(images.splitlines()) - 2 >= 20
    # the instructor edition prints the solutions, opened
    assert "Solution 2.1" in text
