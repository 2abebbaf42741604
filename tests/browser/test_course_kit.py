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
SIZE = {"width": 1280, "height": 720}

# Everything of the current slide that lies outside the 1280x720 frame, or that scrolls or is
# clipped inside its own box (a code block wider than its box, a figure taller than the slide).
OVERFLOW_JS = """
() => {
  const frame = document.querySelector('.reveal .slides').getBoundingClientRect();
  const slide = Reveal.getCurrentSlide();
  const bad = [];
  const name = el => el.tagName.toLowerCase() + (el.className && el.className.baseVal === undefined
                     && el.className ? '.' + String(el.className).split(' ')[0] : '');
  for (const el of [slide, ...slide.querySelectorAll('*')]) {
    if (el.closest('aside.notes, mjx-assistive-mml')) continue;
    const r = el.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) continue;
    if (r.bottom > frame.bottom + 1 || r.right > frame.right + 1 || r.left < frame.left - 1
        || r.top < frame.top - 1)
      bad.push(`${name(el)} at [${Math.round(r.left)}, ${Math.round(r.top)}, ${Math.round(r.right)}, ${Math.round(r.bottom)}]`);
    if (el.scrollWidth > el.clientWidth + 1 && el.clientWidth > 0 && getComputedStyle(el).overflowX !== 'visible')
      bad.push(`${name(el)} scrolls sideways (${el.scrollWidth} > ${el.clientWidth})`);
    if (el.scrollHeight > el.clientHeight + 1 && el.clientHeight > 0 && getComputedStyle(el).overflowY !== 'visible')
      bad.push(`${name(el)} scrolls down (${el.scrollHeight} > ${el.clientHeight})`);
  }
  return bad;
}
"""


def _run(*cmd, timeout=900):
    env = dict(os.environ, MPLBACKEND="Agg", OPENBLAS_NUM_THREADS="1", SETUP_ENV_NO_APT="1")
    proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, f"{' '.join(cmd)} failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return proc


def _foreign(requests):
    return [u for u in requests
            if not u.startswith(("data:", "blob:", "about:")) and urlparse(u).hostname != "127.0.0.1"]


def _walk_deck(chromium, base, deck):
    """Open every slide of ``deck`` at 1280x720; returns (slides, overflowing slides, slides
    with a rendered figure, slides with typeset maths, requests, failed requests, JS errors)."""
    page = chromium.new_page(viewport=SIZE)
    requests, failed, errors = [], [], []
    page.on("request", lambda r: requests.append(r.url))
    page.on("requestfailed", lambda r: failed.append(r.url))
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        page.goto(f"{base}/{deck}", wait_until="load")
        page.wait_for_function("window.Reveal && Reveal.isReady && Reveal.isReady()", timeout=30_000)
        page.wait_for_function("window.MathJax && MathJax.startup && MathJax.startup.promise", timeout=30_000)
        page.evaluate("MathJax.startup.promise")
        page.wait_for_function("Array.from(document.images).every(i => i.complete)", timeout=30_000)
        assert page.evaluate("Reveal.getScale()") == pytest.approx(1.0), "the deck is not laid out at 1280x720"
        n = page.evaluate("Reveal.getTotalSlides()")
        overflow, figures, maths = {}, 0, 0
        for i in range(n):
            page.evaluate(f"Reveal.slide({i})")
            bad = page.evaluate(OVERFLOW_JS)
            if bad:
                title = page.evaluate("(Reveal.getCurrentSlide().querySelector('h1, h2') || {}).textContent")
                overflow[f"{i + 1} ({title})"] = bad[:4]
            figures += page.evaluate("(() => { const i = Reveal.getCurrentSlide().querySelector('img');"
                                     " return i && i.complete && i.naturalWidth > 0 ? 1 : 0; })()")
            maths += page.evaluate("Reveal.getCurrentSlide().querySelector('mjx-container') ? 1 : 0")
        page.keyboard.press("Home")
        page.keyboard.press("ArrowRight")
        assert page.evaluate("Reveal.getIndices().h") == 1, "the arrow key did not advance the deck"
        return n, overflow, figures, maths, requests, failed, errors
    finally:
        page.close()


def test_every_slide_of_every_deck_fits_1280x720_offline(built_book, chromium, serve):
    """scripts/build_slides.sh and --student; then every slide of every deck, in Chromium at
    1280x720: nothing outside the frame, nothing scrolling, and no request off 127.0.0.1.
    Cost: the two builds (about 20 s, figures from the session's book build) and about 1 s per deck."""
    from privpca_edu._coursekit import decks

    _run("bash", "scripts/build_slides.sh")
    _run("bash", "scripts/build_slides.sh", "--student")
    sources = decks.sources()
    assert len(sources) == 5
    for folder in (SLIDES, SLIDES / "student"):
        for src in sources:
            html = (folder / f"{src.stem}.html").read_text(encoding="utf-8")
            assert "unpkg.com" not in html and "cdn" not in html.lower()
        with serve(folder) as base:
            for src in sources:
                n, overflow, figures, maths, requests, failed, errors = _walk_deck(chromium, base, f"{src.stem}.html")
                assert n >= 15, (folder, src.name, n)
                assert overflow == {}, f"{folder.name}/{src.stem}.html: slides overflow 1280x720: {overflow}"
                assert figures >= 2 and maths >= 3, (src.name, figures, maths)
                assert _foreign(requests) == [], f"requests left 127.0.0.1: {_foreign(requests)}"
                assert failed == [] and errors == [], (failed, errors)


def test_student_decks_have_no_notes_and_no_solutions(built_book):
    """The instructor decks carry speaker notes on every slide and the solutions in an appendix;
    the student decks (build_slides.sh --student) neither, and no exercise's answer."""
    from privpca_edu._coursekit import decks

    for src in decks.sources():
        slides = decks.parse(src.read_text(encoding="utf-8"), src.name)
        teacher = (SLIDES / f"{src.stem}.html").read_text(encoding="utf-8")
        student = (SLIDES / "student" / f"{src.stem}.html").read_text(encoding="utf-8")
        assert teacher.count('<aside class="notes">') == len(slides)
        exercises = [s for s in slides if s["kind"] == "exercise"]
        assert exercises and teacher.count('data-kind="solution"') == len(exercises)
        assert "<aside" not in student and 'data-kind="solution"' not in student
        for s in exercises:
            assert s["title"] in student
    assert decks.leaks(SLIDES / "student") == []
    # the check can fail: the instructor decks are full of what it looks for
    assert decks.leaks(SLIDES)


def _code_lines(notebook):
    """Every non-blank line of every code cell, without its whitespace."""
    from privpca_edu._coursekit import notebooks as nbio

    for cell in notebook["cells"]:
        if cell["cell_type"] != "code" or "remove-input" in cell.get("metadata", {}).get("tags", []):
            continue
        for line in nbio.source(cell).splitlines():
            squeezed = "".join(line.split())
            if squeezed:
                yield line, squeezed


def _check_pdf(out, *, student):
    import re

    from pypdf import PdfReader

    from privpca_edu._coursekit import notebooks as nbio
    from privpca_edu._coursekit import pdf
    from privpca_edu._coursekit import student as st

    pages = pdf.page_texts(out)
    assert 80 <= len(pages) <= 600, len(pages)
    text = "\n".join(pages)
    flat = pdf.flat_text(text)
    titles = pdf.chapter_titles()
    for title in titles:
        assert pdf.flat_text(title) in flat, f"chapter title missing: {title}"
    # typeset maths: no TeX source left in the text
    assert "\\varepsilon" not in text and "\\frac" not in text and "\\(" not in text
    # fonts embedded, figures embedded as images
    assert pdf.fonts_not_embedded(out) == []
    images = subprocess.run(["pdfimages", "-list", str(out)], capture_output=True, text=True, check=True).stdout
    captions = sum(len(re.findall(r"\*\*Figure \d+\.\d+\.\*\*", nbio.source(c)))
                   for path in sorted((ROOT / "notebooks").glob("*.ipynb")) for c in nbio.read(path)["cells"])
    assert captions >= 30 and len(images.splitlines()) - 2 >= captions

    # bookmarks: one per chapter (in the book's order) and one per section, none doubled
    reader = PdfReader(str(out))
    top, children = [], {}
    for item in reader.outline:
        if isinstance(item, list):
            children[top[-1][0]] = [(c.title, reader.get_destination_page_number(c) + 1) for c in item]
        else:
            top.append((item.title, reader.get_destination_page_number(item) + 1))
    top_titles = [t for t, _ in top]
    assert len(set(top_titles)) == len(top_titles), "a chapter bookmark is doubled"
    chapter_pages = {}
    for title in titles:
        match = [(t, p) for t, p in top if pdf.flat_text(t) == pdf.flat_text(title)]
        assert len(match) == 1, f"bookmarks for {title!r}: {match}"
        chapter_pages[title] = match[0][1]
        sections = children.get(match[0][0], [])
        assert len(sections) >= 4 and len({t for t, _ in sections}) == len(sections), (title, sections)
        for sec, page in sections:   # (maths in a heading is typeset: compare its words)
            words = re.findall(r"[A-Za-z]{3,}", sec)[:4]
            assert all(w in pages[page - 1] for w in words), (sec, page)

    # the contents: every chapter with the page number where it starts
    toc_end = min(p for _, p in top) - 1
    entries = {}
    for line in "\n".join(pages[:toc_end]).splitlines():
        m = re.match(r"^\s*\d+\.\s+(.*?)\s{2,}(\d+)\s*$", line)
        if m:
            entries[pdf.flat_text(m.group(1))] = int(m.group(2))
    assert len(entries) == len(top), (entries, top_titles)
    for title, page in chapter_pages.items():
        assert entries.get(pdf.flat_text(title)) == page, f"{title}: contents say {entries.get(pdf.flat_text(title))}, starts on {page}"
        assert pdf.flat_text(title) in pdf.flat_text(pages[page - 1])

    # every code line of every chapter is in the text (wrapped lines are joined again)
    squeezed = "".join(text.split())
    missing = []
    executed = ROOT / "_build" / "jupyter_execute" / "notebooks"
    for path in sorted(executed.glob("*.ipynb")):
        nb = nbio.read(path)
        if student:
            nb, _ = nbio.strip_solutions(nb, keep_outputs=True)
        missing += [f"{path.name}: {line}" for line, sq in _code_lines(nb) if sq not in squeezed]
    assert missing == [], f"{len(missing)} code lines not in the PDF text, e.g. {missing[:5]}"

    # no page more than half empty, except the last page of a chapter (or of the contents)
    starts = sorted({p for _, p in top})
    fills = pdf.page_fill(out)
    assert len(fills) == len(pages)
    sparse = [(i + 1, round(f, 2)) for i, f in enumerate(fills)
              if f < 0.5 and (i + 2) not in starts and i + 1 < len(fills)]
    assert sparse == [], f"pages more than half empty (page, fraction used): {sparse}"

    # solutions: printed, opened, in the instructor edition; none in the student edition
    if not student:
        assert "Solution 2.1" in text
    else:
        leak = re.search(r"Solution \d+\.\d+", text)
        assert not leak, f"a solution in the student PDF: {leak.group(0)}"
        bounds = starts + [len(pages) + 1]
        names = [p.name for p in sorted((ROOT / "notebooks").glob("*.ipynb"))]
        for title, name in zip(titles, names):
            page = chapter_pages[title]
            end = bounds[bounds.index(page) + 1] - 1
            found = st.find_answers("\n".join(pages[page - 1:end]), name)
            assert found == [], f"answers of {name} in the student PDF: {found[:3]}"
    return len(pages), len(top), sum(len(c) for c in children.values())


def test_pdf_of_the_whole_book(built_book):
    """scripts/build_pdf.sh on the session's book build (it reuses the executed chapters, so this
    costs the single-page build and two prints, about two minutes, not a re-execution): nothing
    cut (every code line in the text), contents with page numbers, one bookmark per chapter and
    section, no half-empty page, fonts embedded, the solutions printed."""
    _run("bash", "scripts/build_pdf.sh", timeout=1800)
    _check_pdf(ROOT / "_build" / "pdf" / "privpca_edu_book.pdf", student=False)


def test_student_pdf_has_no_solutions(built_book):
    """scripts/build_pdf.sh --student: the same checks, and no solution and no exercise's answer
    in any chapter's pages (about two minutes)."""
    _run("bash", "scripts/build_pdf.sh", "--student", timeout=1800)
    _check_pdf(ROOT / "_build" / "pdf" / "privpca_edu_book_student.pdf", student=True)
