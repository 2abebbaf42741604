"""The static book, as a reader's browser sees it.

A session fixture builds the book from a clean _build with ``jupyter-book build . -W -n
--keep-going`` (exit 0 and no warning in the log), serves _build/html on 127.0.0.1, and every
page is opened in headless Chromium.  On every page: no console error, no uncaught exception,
no failed request, no request to anything but 127.0.0.1 (the site must work offline), MathJax
typesets the page's maths (from the local copy), and every saved widget view is rendered (by the
local widgets HTML manager), once, with its images loaded.
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urlparse

import pytest
import yaml
from bs4 import BeautifulSoup

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.browser


def _toc_docnames() -> list[str]:
    """Every document of _toc.yml, in reading order."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    names = [toc["root"]]

    def walk(entries):
        for entry in entries or []:
            if "file" in entry:
                names.append(entry["file"])
            walk(entry.get("sections"))

    for part in toc.get("parts", []):
        walk(part.get("chapters"))
    walk(toc.get("chapters"))
    return names


# The book's pages plus the pages Sphinx always writes.
PAGES = [f"{name}.html" for name in _toc_docnames()] + ["index.html", "genindex.html", "search.html"]

LOCAL_HOSTS = {"127.0.0.1", "localhost"}


def test_every_built_page_is_checked(built_book):
    """The parametrised list below covers every HTML page that the build wrote."""
    built = {
        p.relative_to(built_book).as_posix()
        for p in built_book.rglob("*.html")
        if p.relative_to(built_book).parts[0] not in {"_static", "_sources", "_images"}
    }
    assert built == set(PAGES), (
        f"pages built but not checked: {sorted(built - set(PAGES))}; "
        f"pages expected but not built: {sorted(set(PAGES) - built)}"
    )


# The book speaks of its subject, never of how it was made.
PROCESS_WORDS = ("garbled", "our copy", "the text we had", "reachable", "workplace", "spec §", "shared/spec")


def test_no_page_talks_about_how_the_book_was_made(built_book):
    offenders = []
    for page in PAGES:
        text = BeautifulSoup((built_book / page).read_text(encoding="utf-8"), "html.parser").get_text(" ").lower()
        offenders += [f"{page}: {word!r}" for word in PROCESS_WORDS if re.search(r"\b" + re.escape(word), text)]
    assert not offenders, offenders


def test_no_launch_or_repository_button_without_a_repository(built_book):
    """_config.yml ships with ``repository.url`` empty: no page may offer Binder, Live Code or a
    repository link (each would point at a repository that does not exist), nor load sphinx-thebe's
    Thebe from unpkg.com.  (tests/book/test_book_launch.py checks the buttons when the URL is set.)"""
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    assert not config["repository"]["url"], "this test is about the shipped default: no repository"
    offenders = {}
    for path in PAGES:
        text = (built_book / path).read_text()
        soup = BeautifulSoup(text, "html.parser")
        found = [el.get("class") for el in soup.select(
            ".dropdown-launch-buttons, .btn-launch-thebe, .btn-source-repository-button")]
        header = soup.select_one(".article-header-buttons")
        if header is not None:
            found += [a["href"] for a in header.select("a[href]")
                      if urlparse(a["href"]).scheme in {"http", "https"}]
        found += [word for word in ("mybinder.org/v2/", "x-thebe-config", "unpkg.com", "sphinx-thebe.js",
                                    "privpcaThebeConfig") if word in text]
        if found:
            offenders[path] = found
    assert not offenders, f"launch or repository links in the default build: {offenders}"


@pytest.fixture
def page_log(chromium):
    """A fresh page with listeners recording console errors, page errors and requests."""
    context = chromium.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    log = {"console": [], "pageerror": [], "failed": [], "foreign": [], "http_errors": [], "requests": 0}

    def on_console(msg):
        if msg.type == "error":
            log["console"].append(f"{msg.text} @ {msg.location.get('url', '')}")

    def on_request(request):
        log["requests"] += 1
        parsed = urlparse(request.url)
        if parsed.scheme in {"data", "blob", "about"}:
            return
        if parsed.hostname not in LOCAL_HOSTS:
            log["foreign"].append(request.url)

    def on_response(response):
        if response.status >= 400:
            log["http_errors"].append(f"{response.status} {response.url}")

    page.on("console", on_console)
    page.on("pageerror", lambda exc: log["pageerror"].append(str(exc)))
    page.on("request", on_request)
    page.on("requestfailed", lambda req: log["failed"].append(f"{req.url} ({req.failure})"))
    page.on("response", on_response)
    # Block anything that is not local, so a regression cannot hang the test on the network.
    page.route(
        "**/*",
        lambda route: route.continue_()
        if urlparse(route.request.url).hostname in LOCAL_HOSTS or urlparse(route.request.url).scheme in {"data", "blob"}
        else route.abort(),
    )
    try:
        yield page, log
    finally:
        context.close()


@pytest.mark.parametrize("path", PAGES)
def test_page_renders_offline(built_book, book_url, page_log, path):
    page, log = page_log
    html_file = built_book / path
    assert html_file.exists(), f"{path} was not built"
    source = html_file.read_text()

    page.goto(f"{book_url}/{path}", wait_until="load")
    page.wait_for_load_state("networkidle")

    has_math = 'class="math notranslate nohighlight"' in source
    n_views = source.count('type="application/vnd.jupyter.widget-view+json"')

    if has_math:
        # MathJax 3 replaces every \( \) and \[ \] with an <mjx-container>.
        page.wait_for_selector("mjx-container", state="attached", timeout=30_000)
        page.wait_for_function(
            "() => document.querySelectorAll('span.math, div.math').length === 0 || "
            "[...document.querySelectorAll('span.math, div.math')].every(el => el.querySelector('mjx-container'))",
            timeout=30_000,
        )
        assert page.locator("mjx-merror").count() == 0, "MathJax reported a TeX error"
        assert page.locator("mjx-container").count() > 0

    if n_views:
        # The HTML manager inserts a div.widget-subarea before each view's <script> tag and
        # renders the view into it.
        page.wait_for_function(
            f"() => document.querySelectorAll('.widget-subarea > .jupyter-widgets').length >= {n_views}",
            timeout=30_000,
        )
        page.wait_for_load_state("networkidle")
        rendered = page.locator(".widget-subarea")
        assert rendered.count() == n_views, (
            f"{n_views} saved widget views but {rendered.count()} rendered "
            "(it should be one each: more means the widget manager ran more than once)"
        )
        for i in range(n_views):
            view = rendered.nth(i)
            assert view.locator(".jupyter-widgets").first.is_visible(), f"widget view {i} is not visible"
        # Every image (figures inside Output widgets included) has actually loaded.
        broken = page.evaluate(
            "() => [...document.images].filter(img => !(img.complete && img.naturalWidth > 0)).map(img => img.src.slice(0, 80))"
        )
        assert not broken, f"images that did not load: {broken}"

    _check_figures(page, path)

    problems = []
    for key, label in [("foreign", "requests to hosts other than 127.0.0.1"),
                       ("failed", "failed requests"),
                       ("http_errors", "HTTP errors"),
                       ("pageerror", "uncaught exceptions"),
                       ("console", "console errors")]:
        if log[key]:
            problems.append(f"{label}: {log[key]}")
    assert not problems, f"{path}:\n" + "\n".join(problems)


AXE = ROOT / "tests" / "browser" / "_vendor" / "axe-core" / "axe.min.js"


def _check_figures(page, path):
    """Every figure has alt text (axe-core's ``image-alt`` rule) and is shown at ≥ 0.8 of the
    width it was drawn at (its text was sized for that width), at a 1280 px window."""
    if not AXE.exists():
        pytest.fail(f"{AXE} is missing: run scripts/fetch_vendor.sh (it fetches axe-core from npm)")
    page.add_script_tag(path=str(AXE))
    result = page.evaluate("async () => await axe.run(document, {runOnly: {type: 'rule', values: ['image-alt']}})")
    violations = [(node["html"][:120]) for v in result["violations"] for node in v["nodes"]]
    assert not violations, f"{path}: images without alt text: {violations}"
    sizes = page.evaluate(
        "() => [...document.querySelectorAll('main img, article img')]"
        ".filter(img => img.naturalWidth > 200 && img.getBoundingClientRect().width > 0)"
        ".map(img => [img.getBoundingClientRect().width, img.naturalWidth, (img.getAttribute('src') || '').slice(0, 60)])"
    )
    # a 2x image (drawn at twice the pixel density) is meant to be shown at half its width
    shrunk = [(shown, natural, src) for shown, natural, src in sizes
              if shown < 0.8 * natural and not abs(shown - natural / 2) <= 0.05 * natural]
    assert not shrunk, f"{path}: figures shown below 0.8 of their natural width (text too small): {shrunk}"


def test_chapter_figures_are_there_without_javascript(built_book, book_url, chromium):
    """With JavaScript off every dashboard's figure (the explorable's default frame, or a saved
    widget's <noscript> copy) is shown, with its alt text."""
    context = chromium.new_context(viewport={"width": 1280, "height": 900}, java_script_enabled=False)
    page = context.new_page()
    try:
        for name in _toc_docnames():
            path = f"{name}.html"
            source = (built_book / path).read_text()
            n_views = (source.count('type="application/vnd.jupyter.widget-view+json"')
                       + source.count('<div class="privpca-explorable"'))
            if not n_views:
                continue
            page.goto(f"{book_url}/{path}", wait_until="load")
            shown = page.evaluate(
                "() => [...document.querySelectorAll('img.privpca-figure')]"
                ".filter(img => img.complete && img.naturalWidth > 0 && img.getBoundingClientRect().width > 0"
                " && (img.getAttribute('alt') || '').length > 40).length"
            )
            assert shown >= n_views, f"{path}: {n_views} dashboards, {shown} figures visible without JavaScript"
    finally:
        context.close()


# --- a phone -------------------------------------------------------------------------------

PHONE = {"width": 390, "height": 844}     # a common phone's CSS viewport

# What may be wider than the text column: only code (it scrolls inside its own box, and breaking
# a line of code would change its meaning).  Everything else must fit: a display equation or a
# table that needs a scroll bar hides some of its terms or columns.
_OVERFLOW_JS = """() => {
  const inCode = el => el.closest('pre, div.highlight');
  const label = el => {
    const section = el.closest('section[id]');
    return (section ? '#' + section.id + ': ' : '') + (el.innerText || el.textContent || '').replace(/\\s+/g, ' ').trim().slice(0, 60);
  };
  const root = document.documentElement;
  const out = {page: root.scrollWidth > root.clientWidth + 1 ? [root.scrollWidth, root.clientWidth] : null,
               wide: [], math: [], tables: []};
  if (out.page) {
    // the outermost elements that stick out of the window, to say what made the page scroll
    const clipped = el => {
      for (let a = el.parentElement; a && a !== document.body; a = a.parentElement) {
        if (['auto', 'scroll', 'hidden', 'clip'].includes(getComputedStyle(a).overflowX)) return true;
      }
      return false;
    };
    for (const el of document.querySelectorAll('body *')) {
      const r = el.getBoundingClientRect();
      if (r.width > 0 && r.right > root.clientWidth + 1 && !clipped(el)
          && !(el.parentElement && el.parentElement.getBoundingClientRect().right > root.clientWidth + 1)) {
        out.wide.push([el.tagName.toLowerCase() + '.' + String(el.className).split(' ')[0], Math.round(r.right), label(el)]);
      }
    }
  }
  for (const el of document.querySelectorAll('mjx-container[display]')) {
    if (inCode(el)) continue;
    const inner = el.querySelector('mjx-math');
    const width = Math.max(el.scrollWidth, inner ? inner.getBoundingClientRect().width : 0);
    if (width > el.clientWidth + 1) out.math.push([Math.round(width), el.clientWidth, label(el.closest('div.math, p, dd, li') || el)]);
  }
  for (const table of document.querySelectorAll('table')) {
    if (inCode(table) || table.getClientRects().length === 0) continue;
    const width = table.getBoundingClientRect().width, room = table.parentElement.clientWidth;
    if (width > room + 1) out.tables.push([Math.round(width), room, label(table)]);
  }
  return out;
}"""


def test_every_page_fits_a_phone(built_book, book_url, chromium):
    """At a 390 px wide window no page scrolls sideways, and no display equation or table is
    wider than the column it sits in (code blocks may scroll inside their own box)."""
    context = chromium.new_context(viewport=PHONE, device_scale_factor=1)
    page = context.new_page()
    page.route("**/*", lambda route: route.continue_()
               if urlparse(route.request.url).hostname in LOCAL_HOSTS else route.abort())
    problems = {}
    try:
        for path in PAGES:
            page.goto(f"{book_url}/{path}", wait_until="load")
            page.wait_for_load_state("networkidle")
            if 'class="math notranslate nohighlight"' in (built_book / path).read_text():
                page.wait_for_function(
                    "() => [...document.querySelectorAll('span.math, div.math')].every(el => el.querySelector('mjx-container'))",
                    timeout=30_000,
                )
            found = page.evaluate(_OVERFLOW_JS)
            messages = []
            if found["page"]:
                messages.append(f"the page scrolls sideways ({found['page'][0]} px in a {found['page'][1]} px window),"
                                f" because of: {found['wide'][:5]}")
            messages += [f"display equation {w} px in a {room} px column: {text}" for w, room, text in found["math"]]
            messages += [f"table {w} px in a {room} px column: {text}" for w, room, text in found["tables"]]
            if messages:
                problems[path] = messages
    finally:
        context.close()
    assert not problems, "too wide for a 390 px phone:\n" + "\n".join(
        f"{path}:\n    " + "\n    ".join(messages) for path, messages in problems.items())
