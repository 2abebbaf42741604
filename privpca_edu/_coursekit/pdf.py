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
section > h1 { break-before: page; }
#privpca-toc { break-after: page; }
#privpca-toc h1 { break-before: avoid; }
#privpca-toc li { margin: 0.3em 0; font-size: 1.1em; }
img, figure, .cell_output, table, mjx-container[display="true"] { break-inside: avoid; }
img { max-width: 100% !important; height: auto !important; }
"""

TOC_JS = """
(title) => {
  const heads = Array.from(document.querySelectorAll('main section > h1, article section > h1'));
  const nav = document.createElement('nav');
  nav.id = 'privpca-toc';
  const h = document.createElement('h1');
  h.textContent = 'Contents';
  const t = document.createElement('p');
  t.innerHTML = '<strong>' + title + '</strong>';
  const ol = document.createElement('ol');
  heads.forEach((head, i) => {
    const section = head.closest('section');
    if (!section.id) section.id = 'privpca-ch-' + i;
    const li = document.createElement('li');
    const a = document.createElement('a');
    a.href = '#' + section.id;
    a.textContent = head.textContent.replace(/[#¶]\\s*$/, '').trim();
    li.appendChild(a);
    ol.appendChild(li);
  });
  nav.append(t, h, ol);
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
    page = Path(src) / "_build" / "singlehtml" / "index.html"
    if proc.returncode != 0 or not page.exists():
        raise RuntimeError(f"jupyter-book build --builder singlehtml failed; see {log}")
    return page.parent


def print_pdf(site, out, *, open_solutions=True):
    """Print ``site``/index.html to ``out`` with Chromium; returns the number of chapters."""
    from playwright.sync_api import sync_playwright

    title = "Private PCA, hands on"
    foreign = []
    with _serve(site) as base, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page()
            page.on("request", lambda r: foreign.append(r.url) if not r.url.startswith(("data:", "blob:"))
                    and urlparse(r.url).hostname != "127.0.0.1" else None)
            page.goto(base + "/index.html", wait_until="load", timeout=120_000)
            page.wait_for_function("window.MathJax && MathJax.startup && MathJax.startup.promise",
                                   timeout=120_000)
            page.evaluate("MathJax.startup.promise")
            page.wait_for_function("Array.from(document.images).every(i => i.complete)", timeout=120_000)
            if open_solutions:
                page.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")
            page.add_style_tag(content=PRINT_CSS)
            chapters = page.evaluate(TOC_JS, title)
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
    text = pdf_text(out)
    missing = [t for t in chapter_titles() if re.sub(r"\s+", " ", t) not in re.sub(r"\s+", " ", text)]
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
