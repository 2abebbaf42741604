"""The whole book as one PDF, offline: a single-page build printed by Debian's Chromium.

    python -m privpca_edu._coursekit.pdf [--student] [--out PATH]     (scripts/build_pdf.sh)

1. The sources are copied to a temporary folder (:func:`.student.prepare`; with ``--student``
   every solution is stripped).  When the last book build left executed chapters in
   ``_build/jupyter_execute/notebooks`` (newer than the sources), those are used and nothing is
   executed again; otherwise the build executes every chapter (several minutes).
2. ``jupyter-book build --builder singlehtml``: every page in one HTML file, MathJax and the
   widget manager from the book's vendored copies.
3. That page is served on 127.0.0.1 and opened in /usr/bin/chromium (Playwright, headless); the
   script waits for MathJax to finish and every figure to load, opens the collapsed solutions
   (instructor edition), hides the site's navigation, inserts a table of contents that links to
   each chapter, and prints A4 with a PDF outline (bookmarks).  A request to any other host fails
   the build.
4. ``pdfinfo`` / ``pdftotext`` (Debian ``poppler-utils``) confirm the page count and that every
   chapter's title is in the text.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from urllib.parse import urlparse

from . import student
from .answers import ROOT

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--no-first-run", "--disable-quic"]
DEFAULT_OUT = ROOT / "_build" / "pdf" / "privpca_edu_book.pdf"

PRINT_CSS = """
@page { size: A4; margin: 16mm 14mm 18mm 14mm; }
.bd-header, .bd-header-article, .header-article, .bd-sidebar-primary, .bd-sidebar-secondary,
.bd-footer, .bd-footer-article, .bd-footer-content, .prev-next-area, .headerlink,
#pst-back-to-top, .bd-search, .search-button, .theme-switch-button, .skip-link,
.bd-header-announcement, .cell_input .copybtn, button.copybtn { display: none !important; }
.bd-main, .bd-content, .bd-article-container, .bd-container, .bd-container__inner, .bd-page-width,
.bd-article { max-width: none !important; width: 100% !important; padding: 0 !important; margin: 0 !important; }
section.privpca-chapter { break-before: page; }
#privpca-toc { break-after: page; }
#privpca-toc h2 { break-before: avoid; }
#privpca-toc li { margin: 0.3em 0; font-size: 1.1em; }
img, figure, .cell_output, table, mjx-container[display="true"] { break-inside: avoid; }
img { max-width: 100% !important; height: auto !important; }
"""

TOC_JS = """
() => {
  /* the single-page builder marks each document with <span id="document-..."> before its section */
  const heads = Array.from(document.querySelectorAll('span[id^="document-"] + section'))
    .map(s => s.querySelector(':scope > h1, :scope > h2, :scope > h3'))
    .filter(h => h);
  const nav = document.createElement('nav');
  nav.id = 'privpca-toc';
  const h = document.createElement('h2');
  h.textContent = 'Contents';
  const ol = document.createElement('ol');
  heads.forEach((head, i) => {
    const section = head.closest('section');
    if (!section.id) section.id = 'privpca-ch-' + i;
    const li = document.createElement('li');
    const a = document.createElement('a');
    a.href = '#' + section.id;
    a.textContent = head.textContent.replace(/[#¶]\\s*$/, '').trim();
    section.classList.add('privpca-chapter');
    li.appendChild(a);
    ol.appendChild(li);
  });
  nav.append(h, ol);
  const first = document.querySelector('article') || document.querySelector('main');
  first.insertBefore(nav, first.firstChild);
  return heads.length;
}
"""


def chapter_titles():
    """The title of every page of the book: the first '# ' line of each chapter and page."""
    titles = []
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        first = "".join(cells[0]["source"]).strip().splitlines()[0]
        titles.append(first.lstrip("#").strip())
    return titles


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def _serve(directory):
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1",
                             "--directory", str(directory)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        base = f"http://127.0.0.1:{port}"
        for _ in range(100):
            try:
                urllib.request.urlopen(base + "/", timeout=2).close()
                break
            except OSError:
                time.sleep(0.1)
        yield base
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def build_singlehtml(src, log):
    cmd = [str(Path(sys.executable).parent / "jupyter-book"), "build", str(src), "--builder", "singlehtml"]
    with open(log, "w", encoding="utf-8") as fh:
        proc = subprocess.run(cmd, stdout=fh, stderr=subprocess.STDOUT)
    site = Path(src) / "_build" / "singlehtml"
    if proc.returncode != 0 or not (site / root_page()).exists():
        raise RuntimeError(f"jupyter-book build --builder singlehtml failed; see {log}")
    # The page is written as <root document>.html (book/intro.html) but its links to _static/
    # and _images/ are relative to the site's top (index.html is only a redirect): put it there.
    html = (site / root_page()).read_text(encoding="utf-8")
    (site / "index.html").write_text(add_widget_state(html, Path(src) / "notebooks"), encoding="utf-8")
    return site


def add_widget_state(html, notebooks):
    """``html`` with what the single-page builder leaves out for widgets: the saved widget state
    of every chapter (merged; model ids are unique) and the scripts that render it — require.js
    and the local widget manager, set up as ``_config.yml`` and book/_ext/book_assets.py set them
    up for each chapter's own page."""
    sys.path.insert(0, str(ROOT / "book" / "_ext"))
    try:
        import book_assets
    finally:
        sys.path.pop(0)
    state = {}
    for path in sorted(Path(notebooks).glob("*.ipynb")):
        meta = json.loads(path.read_text(encoding="utf-8"))["metadata"]
        state.update(meta.get("widgets", {}).get("application/vnd.jupyter.widget-state+json", {})
                     .get("state", {}))
    if not state:
        return html
    blob = json.dumps({"version_major": 2, "version_minor": 0, "state": state}).replace("</", "<\\/")
    head = (f'<script>{book_assets.ASSETS_PATH_JS}</script>\n'
            f'<script>{book_assets.MATHJAX2_SHIM_JS}</script>\n'
            '<script src="_static/requirejs/require.js"></script>\n'
            f'<script data-jupyter-widgets-cdn="_static/no-widget-cdn/" src="_static/{book_assets.WIDGET_MANAGER}"></script>\n'
            f'<script type="application/vnd.jupyter.widget-state+json">{blob}</script>\n')
    return html.replace("</head>", head + "</head>", 1)


def root_page():
    """Where the single-page builder writes the book: its root document's path."""
    root = re.search(r"(?m)^root:\s*(\S+)", (ROOT / "_toc.yml").read_text(encoding="utf-8")).group(1)
    return root + ".html"


def print_pdf(site, out, *, open_solutions=True):
    """Print the single page of ``site`` to ``out`` with Chromium; returns the number of chapters."""
    from playwright.sync_api import sync_playwright

    foreign = []
    with _serve(site) as base, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page()
            page.on("request", lambda r: foreign.append(r.url) if not r.url.startswith(("data:", "blob:"))
                    and urlparse(r.url).hostname != "127.0.0.1" else None)
            page.goto(f"{base}/index.html", wait_until="load", timeout=120_000)
            page.wait_for_function("window.MathJax && MathJax.startup && MathJax.startup.promise",
                                   timeout=120_000)
            page.evaluate("MathJax.startup.promise")
            # every saved widget view rendered by the local widget manager (it inserts a
            # div.widget-subarea before each view's script; the dashboards' figures are in them)
            views = page.evaluate("document.querySelectorAll("
                                  "'script[type=\"application/vnd.jupyter.widget-view+json\"]').length")
            page.wait_for_function(f"document.querySelectorAll('.widget-subarea > .jupyter-widgets').length >= {views}",
                                   timeout=120_000)
            page.wait_for_function("Array.from(document.images).every(i => i.complete)", timeout=120_000)
            if open_solutions:
                page.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")
            page.add_style_tag(content=PRINT_CSS)
            chapters = page.evaluate(TOC_JS)
            page.emulate_media(media="print")
            out.parent.mkdir(parents=True, exist_ok=True)
            page.pdf(path=str(out), format="A4", print_background=True, outline=True, tagged=True,
                     display_header_footer=True, header_template="<span></span>",
                     footer_template='<div style="font-size:8px;width:100%;text-align:center">'
                                     '<span class="pageNumber"></span> / <span class="totalPages"></span></div>',
                     margin={"top": "16mm", "bottom": "18mm", "left": "14mm", "right": "14mm"})
        finally:
            browser.close()
    if foreign:
        raise RuntimeError(f"the book page requested other hosts: {sorted(set(foreign))[:5]}")
    return chapters


def pdf_text(path):
    return subprocess.run(["pdftotext", "-layout", str(path), "-"], capture_output=True, text=True,
                          check=True).stdout


def flat_text(text):
    """Whitespace collapsed and line-end hyphens joined ("MOD-\\nSuLQ" -> "MOD-SuLQ")."""
    return re.sub(r"-\s+", "-", " ".join(text.split()))


def pdf_pages(path):
    info = subprocess.run(["pdfinfo", str(path)], capture_output=True, text=True, check=True).stdout
    return int(re.search(r"^Pages:\s+(\d+)", info, re.M).group(1))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--student", action="store_true", help="no solutions (the student edition)")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    out = args.out or (DEFAULT_OUT.with_name("privpca_edu_book_student.pdf") if args.student else DEFAULT_OUT)
    t0 = time.monotonic()
    tmp = Path(tempfile.mkdtemp(prefix="privpca_edu-pdf."))
    try:
        executed = ROOT / "_build" / "jupyter_execute" / "notebooks"
        student.prepare(tmp, strip=args.student, executed=executed)
        reuse = "'off'" in (tmp / "_config.yml").read_text(encoding="utf-8")
        print("[pdf] " + ("using the executed chapters of the last book build" if reuse else
                          "no executed chapters from a book build: executing every chapter (several minutes)"))
        log = ROOT / "_build" / "pdf" / "singlehtml-build.log"
        log.parent.mkdir(parents=True, exist_ok=True)
        site = build_singlehtml(tmp, log)
        print(f"[pdf] single-page build in {time.monotonic() - t0:.0f} s; printing with {CHROMIUM}")
        chapters = print_pdf(site, out, open_solutions=not args.student)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    text = flat_text(pdf_text(out))
    missing = [t for t in chapter_titles() if flat_text(t) not in text]
    pages = pdf_pages(out)
    print(f"[pdf] {out.relative_to(ROOT) if out.is_relative_to(ROOT) else out}: {pages} pages, "
          f"{chapters} sections in the contents, {out.stat().st_size / 1e6:.1f} MB, "
          f"{time.monotonic() - t0:.0f} s")
    if missing:
        print(f"[pdf] chapter titles missing from the PDF text: {missing}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
