"""The whole book as one PDF, offline: a single-page build printed by Debian's Chromium.

    python -m privpca_edu._coursekit.pdf [--student] [--out PATH]     (scripts/build_pdf.sh)

1. The sources are copied to a temporary folder (:func:`.student.prepare`; with ``--student``
   every solution is stripped).  When the last book build left executed chapters in
   ``_build/jupyter_execute/notebooks`` (newer than the sources), those are used and nothing is
   executed again; otherwise the build executes every chapter (several minutes).
2. ``jupyter-book build --builder singlehtml``: every page in one HTML file, MathJax and the
   widget manager from the book's vendored copies.
3. That page is served on 127.0.0.1 and opened in /usr/bin/chromium (Playwright, headless); the
   script waits for MathJax to finish and every figure to load, then prepares the page for paper
   (:data:`PREPARE_JS`): every collapsed block opened (the instructor edition's solutions, hidden
   cells), each dashboard replaced by its static figure (no sliders on paper), each figure kept
   on one page with its caption, code and outputs wrapped instead of cut, a text output longer
   than :data:`MAX_OUTPUT_LINES` lines shortened with an explicit "… (N more lines)" marker, and a
   table of contents inserted.  A request to any other host fails the build.
4. It prints A4 twice: the first print finds the page of every chapter and section (an
   invisible marker in each heading, located with ``pdftotext``); the second, with the markers
   gone and the same layout, writes those page numbers into the contents.  ``pypdf`` then
   replaces Chromium's outline by one bookmark per chapter and per section.
5. ``pdfinfo`` / ``pdftotext`` (Debian ``poppler-utils``) confirm the page count and that every
   chapter's title is in the text; ``pdffonts`` that every font is embedded.
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
#privpca-toc ol { padding-left: 2.6em; }
#privpca-toc li a { display: flex; text-decoration: none; color: inherit; }
#privpca-toc .toc-title { flex: 1 1 auto; }
#privpca-toc .toc-page { flex: 0 0 3em; text-align: right; font-variant-numeric: tabular-nums; }
.privpca-mark { position: absolute; font-size: 3px; line-height: 1; color: #fff; white-space: nowrap; }
/* code and outputs wrap instead of running off the page (and out of the text) */
pre, .highlight pre, div.highlight, .cell_output pre, .output pre {
  white-space: pre-wrap !important; overflow-wrap: anywhere !important; word-break: break-all;
  overflow: visible !important; max-height: none !important; }
code { overflow-wrap: anywhere !important; }   /* inline code: broken only where it must be */
pre { font-size: 8.5pt !important; line-height: 1.35 !important; }
.privpca-more { font-style: italic; color: #555; }
/* figures: scaled so that a figure and its caption take at most about half a page, kept together */
img { max-width: 100% !important; height: auto !important; }
.cell_output img, .privpca-static img { max-height: 100mm !important; width: auto !important;
  max-width: 100% !important; display: block; margin: 0 auto; }
figure img { max-height: 100mm !important; width: auto !important; }
/* everything else may break across pages (the theme keeps some blocks whole: half-empty pages) */
.cell, .cell_input, .cell_output, .output, table, .table-wrapper, .pst-scrollable-table-container,
details, .admonition, div.highlight, pre, div[class^="highlight-"] { break-inside: auto !important;
  overflow: visible !important; }   /* a scroll container cannot be split across pages */
.privpca-figure-group, figure, img, mjx-container[display="true"], tr { break-inside: avoid !important; }
#jb-print-toc { display: none !important; }
.privpca-figure-group.privpca-long { break-inside: auto !important; }
.privpca-figure-group > *:not(:last-child) { break-after: avoid; }
.privpca-figure-group > p { orphans: 4; widows: 2; }   /* the theme's own list, without page numbers */
h1, h2, h3, h4 { break-after: avoid; }
details > summary { list-style: none; }
"""

MAX_OUTPUT_LINES = 40

# Prepares the single page for paper; returns the number of dashboards replaced by their figure,
# of outputs shortened and of figure groups.
PREPARE_JS = r"""
(maxLines) => {
  document.querySelectorAll('details').forEach(d => d.open = true);
  document.querySelectorAll('.toggle-hidden').forEach(e => e.classList.remove('toggle-hidden'));
  let dashboards = 0, shortened = 0, groups = 0;
  // a dashboard: its live view -> the static figure saved with it (in <noscript>, as text here)
  document.querySelectorAll('noscript').forEach(ns => {
    const html = ns.textContent || '';
    if (!html.includes('privpca-figure')) return;
    const area = ns.closest('.cell_output') || ns.parentElement;
    const holder = document.createElement('div');
    holder.className = 'privpca-static';
    holder.innerHTML = html;
    area.querySelectorAll('.widget-subarea, .jupyter-widgets, script[type="application/vnd.jupyter.widget-view+json"]')
        .forEach(e => e.remove());
    ns.replaceWith(holder);
    dashboards += 1;
  });
  // a long text output: its first lines and an explicit marker, never a silent cut
  document.querySelectorAll('.cell_output pre, .output pre').forEach(pre => {
    const lines = pre.textContent.replace(/\n$/, '').split('\n');
    if (lines.length <= maxLines) return;
    const keep = maxLines - 1;
    pre.textContent = lines.slice(0, keep).join('\n') + '\n';
    const more = document.createElement('span');
    more.className = 'privpca-more';
    more.textContent = `… (${lines.length - keep} more lines)`;
    pre.appendChild(more);
    shortened += 1;
  });
  // a figure and its caption ("Figure N.M." in the next paragraph) on one page
  document.querySelectorAll('p > strong:first-child').forEach(strong => {
    if (!/^Figure \d+\.\d+\./.test(strong.textContent)) return;
    const caption = strong.parentElement;
    let prev = caption.previousElementSibling;
    while (prev && !prev.classList.contains('cell') && prev.tagName !== 'P') prev = prev.previousElementSibling;
    if (!prev || !prev.classList.contains('cell')) {
      const cellAbove = caption.closest('section') && caption.parentElement.previousElementSibling;
      prev = cellAbove && cellAbove.classList && cellAbove.classList.contains('cell') ? cellAbove : null;
    }
    if (!prev || !prev.querySelector('.cell_output img')) return;
    // the figure with its caption, and with the cell's code when that is a few lines only
    const group = document.createElement('div');
    group.className = 'privpca-figure-group';
    const input = prev.querySelector('.cell_input');
    const output = prev.querySelector('.cell_output');
    if (!input || (input.querySelector('pre') || input).textContent.trim().split('\n').length <= 4 || !output) {
      prev.parentElement.insertBefore(group, prev);
      group.append(prev, caption);
    } else {
      output.parentElement.insertBefore(group, output);
      group.append(output, caption);
    }
    groups += 1;
  });
  return [dashboards, shortened, groups];
}
"""

TOC_JS = """
() => {
  /* the single-page builder marks each document with <span id="document-..."> before its section */
  const heads = Array.from(document.querySelectorAll('span[id^="document-"] + section'))
    .map(s => s.querySelector(':scope > h1, :scope > h2, :scope > h3'))
    .filter(h => h);
  const clean = el => el.textContent.replace(/[#¶]\\s*$/, '').replace(/\\s+/g, ' ').trim();
  const nav = document.createElement('nav');
  nav.id = 'privpca-toc';
  const h = document.createElement('h2');
  h.textContent = 'Contents';
  const ol = document.createElement('ol');
  const outline = [];
  let mark = 0;
  const marker = head => {
    const m = document.createElement('span');
    m.className = 'privpca-mark';
    m.textContent = `@@PPM${String(mark).padStart(4, '0')}@@`;
    head.insertBefore(m, head.firstChild);
    return mark++;
  };
  heads.forEach((head, i) => {
    const section = head.closest('section');
    if (!section.id) section.id = 'privpca-ch-' + i;
    section.classList.add('privpca-chapter');
    const li = document.createElement('li');
    const a = document.createElement('a');
    a.href = '#' + section.id;
    const t = document.createElement('span');
    t.className = 'toc-title';
    t.textContent = clean(head);
    const p = document.createElement('span');
    p.className = 'toc-page';
    p.id = 'privpca-toc-page-' + i;
    p.textContent = '000';
    a.append(t, p);
    li.appendChild(a);
    ol.appendChild(li);
    const entry = {title: clean(head), mark: marker(head), sections: []};
    section.querySelectorAll(':scope > section > h2, :scope > section > h3, :scope > section > h4').forEach(h2 => {
      entry.sections.push({title: clean(h2), mark: marker(h2)});
    });
    outline.push(entry);
  });
  nav.append(h, ol);
  const first = document.querySelector('article') || document.querySelector('main');
  first.insertBefore(nav, first.firstChild);
  return outline;
}
"""

# the second print: page numbers into the contents, markers gone (absolutely positioned: the
# layout does not move)
FILL_TOC_JS = """
(pages) => {
  pages.forEach((page, i) => {
    const el = document.getElementById('privpca-toc-page-' + i);
    if (el) el.textContent = String(page);
  });
  document.querySelectorAll('.privpca-mark').forEach(m => m.remove());
}
"""

# Laid out at the printed width, a figure group (code, figure, caption: kept on one page) taller
# than ``limit`` CSS px gets a smaller figure.  With every unbreakable block at most half the
# text area, the page before one is never more than half empty.
FIT_JS = r"""
(limit) => {
  let shrunk = 0, long = 0;
  document.querySelectorAll('.privpca-figure-group').forEach(g => {
    const total = g.getBoundingClientRect().height;
    if (total <= limit) return;
    const imgs = Array.from(g.querySelectorAll('img'));
    const img = imgs.reduce((a, b) => a.getBoundingClientRect().height >= b.getBoundingClientRect().height ? a : b);
    const h = img.getBoundingClientRect().height;
    // a smaller figure, but never below 60 % of its size: text in figures must stay readable
    const target = Math.max(h - (total - limit), 0.6 * h);
    img.style.setProperty('max-height', target + 'px', 'important');
    shrunk += 1;
    if (g.getBoundingClientRect().height > limit) {
      // still too tall (a long caption): the figure stays with the first lines of its caption,
      // the rest of the caption may go on to the next page
      g.classList.add('privpca-long');
      long += 1;
    }
  });
  return [shrunk, long];
}
"""

# the printed text area: A4 less the margins of _print, in CSS px (96 per inch)
TEXT_WIDTH_PX = round((210 - 14 - 14) / 25.4 * 96)
TEXT_HEIGHT_PX = round((297 - 16 - 18) / 25.4 * 96)

MARK = re.compile(r"@@PPM(\d{4})@@")


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


def _print(page, out):
    page.pdf(path=str(out), format="A4", print_background=True, outline=False, tagged=True,
             display_header_footer=True, header_template="<span></span>",
             footer_template='<div style="font-size:8px;width:100%;text-align:center">'
                             '<span class="pageNumber"></span> / <span class="totalPages"></span></div>',
             margin={"top": "16mm", "bottom": "18mm", "left": "14mm", "right": "14mm"})


def page_texts(path):
    """The text of every page (pdftotext, page by page), without the footer's "N / M"."""
    text = subprocess.run(["pdftotext", "-layout", str(path), "-"], capture_output=True, text=True,
                          check=True).stdout
    pages = text.split("\f")
    if pages and not pages[-1].strip():
        pages.pop()
    return [re.sub(r"\n\s*\d+ / \d+\s*\n*\Z", "\n", p) for p in pages]


def marker_pages(path):
    """{marker number: 1-based page} of the invisible heading markers of the first print."""
    found = {}
    for number, text in enumerate(page_texts(path), 1):
        for m in MARK.finditer(text):
            found.setdefault(int(m.group(1)), number)
    return found


def write_outline(path, outline):
    """Replace the PDF's outline by one bookmark per chapter (with its page) and, under it, one
    per section."""
    import logging

    from pypdf import PdfReader, PdfWriter

    logging.getLogger("pypdf").setLevel(logging.ERROR)   # Chromium's xref quirks are harmless
    writer = PdfWriter(clone_from=PdfReader(str(path)))
    for entry in outline:
        parent = writer.add_outline_item(title=entry["title"], page_number=entry["page"] - 1)
        for sec in entry["sections"]:
            writer.add_outline_item(title=sec["title"], page_number=sec["page"] - 1, parent=parent)
    writer.page_mode = "/UseOutlines"
    tmp = Path(str(path) + ".tmp")
    with open(tmp, "wb") as fh:
        writer.write(fh)
    tmp.replace(path)


def print_pdf(site, out, *, open_solutions=True):
    """Print the single page of ``site`` to ``out`` with Chromium; returns the outline
    [{'title', 'page', 'sections': [{'title', 'page'}]}] written into the PDF.  (Every collapsed
    block is opened: in the student edition the solutions are already gone.)"""
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
            # div.widget-subarea before each view's script); then replaced by its static figure
            views = page.evaluate("document.querySelectorAll("
                                  "'script[type=\"application/vnd.jupyter.widget-view+json\"]').length")
            page.wait_for_function(f"document.querySelectorAll('.widget-subarea > .jupyter-widgets').length >= {views}",
                                   timeout=120_000)
            page.wait_for_function("Array.from(document.images).every(i => i.complete)", timeout=120_000)
            dashboards, shortened, groups = page.evaluate(PREPARE_JS, MAX_OUTPUT_LINES)
            page.add_style_tag(content=PRINT_CSS)
            outline = page.evaluate(TOC_JS)
            page.wait_for_function("Array.from(document.images).every(i => i.complete)", timeout=120_000)
            page.emulate_media(media="print")
            page.set_viewport_size({"width": TEXT_WIDTH_PX, "height": TEXT_HEIGHT_PX})
            page.wait_for_timeout(500)
            shrunk, long_captions = page.evaluate(FIT_JS, 0.47 * TEXT_HEIGHT_PX)
            out.parent.mkdir(parents=True, exist_ok=True)
            first = out.with_suffix(".pass1.pdf")
            _print(page, first)
            pages = marker_pages(first)
            first.unlink()
            missing = []
            for entry in outline:
                entry["page"] = pages.get(entry["mark"])
                for sec in entry["sections"]:
                    sec["page"] = pages.get(sec["mark"])
                missing += [e["title"] for e in [entry] + entry["sections"] if e["page"] is None]
            if missing:
                raise RuntimeError(f"headings not found in the printed text: {missing[:5]}")
            page.evaluate(FILL_TOC_JS, [e["page"] for e in outline])
            _print(page, out)
        finally:
            browser.close()
    if foreign:
        raise RuntimeError(f"the book page requested other hosts: {sorted(set(foreign))[:5]}")
    write_outline(out, outline)
    print(f"[pdf] {dashboards} dashboards as their static figure, {groups} figures kept with their "
          f"caption ({shrunk} scaled down to fit half a page; {long_captions} with a caption continued on "
          f"the next page), {shortened} long outputs shortened")
    return outline


def fonts_not_embedded(path):
    """The fonts ``pdffonts`` lists as not embedded."""
    rows = subprocess.run(["pdffonts", str(path)], capture_output=True, text=True, check=True).stdout.splitlines()[2:]
    # columns: name type encoding emb sub uni object ID; "emb" is the 3rd field from the right + 2
    return [r for r in rows if r.split()[-5] != "yes"]


def page_fill(path, resolution=12):
    """For every page, the fraction of the text area (between the margins) down to its last
    inked row: 1.0 = used to the bottom, 0.1 = nine tenths empty."""
    from PIL import Image

    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(["pdftoppm", "-r", str(resolution), "-gray", str(path), f"{tmp}/p"], check=True)
        fills = []
        for png in sorted(Path(tmp).glob("p-*.pgm"), key=lambda p: int(p.stem.split("-")[-1])):
            im = Image.open(png)
            w, h = im.size
            top, bottom = round(h * 16 / 297), round(h * (297 - 18) / 297)
            px = im.load()
            last = top
            for y in range(top, bottom):
                if any(px[x, y] < 200 for x in range(w)):
                    last = y
            fills.append((last - top + 1) / (bottom - top))
    return fills


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
        outline = print_pdf(site, out, open_solutions=not args.student)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    text = flat_text(pdf_text(out))
    missing = [t for t in chapter_titles() if flat_text(t) not in text]
    pages = pdf_pages(out)
    print(f"[pdf] {out.relative_to(ROOT) if out.is_relative_to(ROOT) else out}: {pages} pages, "
          f"{len(outline)} entries in the contents, "
          f"{sum(len(e['sections']) for e in outline) + len(outline)} bookmarks, {out.stat().st_size / 1e6:.1f} MB, "
          f"{time.monotonic() - t0:.0f} s")
    if missing:
        print(f"[pdf] chapter titles missing from the PDF text: {missing}", file=sys.stderr)
        return 1
    bad_fonts = fonts_not_embedded(out)
    if bad_fonts:
        print(f"[pdf] fonts not embedded: {bad_fonts}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
