"""The static book's dashboards move (precomputed explorables), fit a phone, and pass axe-core.

The book is built once for the browser tests (conftest.py's ``built_book``); these tests add only
page visits.  What they show, with JavaScript on and no kernel:

* every dashboard: three ArrowRight presses on its first slider each swap in a new frame within
  1 s, whose alt text names the new value; the swaps' p95 is ≤ 100 ms;
* a frame of the page shows the numbers the live dashboard computes for that state;
* at 390 px every figure is shown at ≥ 0.75 of its natural width (the phone layout) and no page
  scrolls sideways;
* axe-core over every page at 1280 and 390 px: no critical or serious violation in the book's
  own content (the theme's are reported apart, in the test output, and do not fail).
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from urllib.parse import urlparse

import pytest
from bs4 import BeautifulSoup

from test_static_book import AXE, PAGES, PHONE, _toc_docnames  # noqa: F401 - same page list

pytestmark = pytest.mark.browser

LOCAL_HOSTS = {"127.0.0.1", "localhost"}

# every dashboard of the book, by the page that shows it
EXPECTED = {
    "notebooks/01_why_private_pca.html": 1, "notebooks/02_dp_in_one_sitting.html": 1,
    "notebooks/03_subspaces.html": 2, "notebooks/04_noisy_covariance.html": 1,
    "notebooks/05_auditing.html": 1, "notebooks/06_local_privacy.html": 1,
    "notebooks/07_encrypted_distributed.html": 1, "notebooks/08_dps_pca.html": 1,
    "notebooks/09_heavy_tails.html": 2, "notebooks/10_europe_map.html": 1,
}


def _new_page(chromium, viewport):
    context = chromium.new_context(viewport=viewport, device_scale_factor=1)
    page = context.new_page()
    page.route("**/*", lambda route: route.continue_()
               if urlparse(route.request.url).hostname in LOCAL_HOSTS
               or urlparse(route.request.url).scheme in {"data", "blob"} else route.abort())
    return context, page


def _explorables(built_book, path):
    soup = BeautifulSoup((built_book / path).read_text(encoding="utf-8"), "html.parser")
    return [json.loads(div.select_one("script.privpca-x-data").string)
            for div in soup.select("div.privpca-explorable")]


def test_every_dashboard_is_an_explorable(built_book):
    found = {path: len(_explorables(built_book, path)) for path in EXPECTED}
    assert found == EXPECTED
    for path in EXPECTED:
        text = (built_book / path).read_text(encoding="utf-8")
        assert "application/vnd.jupyter.widget-view+json" not in text, f"{path} still has a widget view"
        for data in _explorables(built_book, path):
            for frame in data["frames"].values():
                for name in (frame["w"], frame["n"]):
                    assert (built_book / "_static" / "privpca-explorables" / data["key"] / name).exists()


def test_arrow_keys_swap_the_frames(built_book, book_url, chromium):
    context, page = _new_page(chromium, {"width": 1280, "height": 900})
    problems, swaps = [], []
    try:
        for path in EXPECTED:
            page.goto(f"{book_url}/{path}", wait_until="load")
            page.wait_for_function("() => (window.privpcaExplorables || {}).ready >= "
                                   f"{EXPECTED[path]}", timeout=10_000)
            roots = page.locator("div.privpca-explorable")
            for r in range(roots.count()):
                root = roots.nth(r)
                data = _explorables(built_book, path)[r]
                first = next(c for c in data["controls"] if c["kind"] == "range" and len(c["labels"]) > 1)
                slider = root.locator(f'input[type=range][data-name="{first["name"]}"]')
                assert slider.get_attribute("aria-label"), f"{path}: first slider has no accessible name"
                img = root.locator("img.privpca-x-frame")
                slider.focus()
                for press in range(3):
                    before = img.get_attribute("src")
                    index = int(slider.input_value())
                    assert index + 1 < len(first["labels"]), f"{path}: first slider at its end after {press}"
                    label = first["labels"][index + 1]
                    page.keyboard.press("ArrowRight")
                    try:
                        page.wait_for_function(
                            "([img, before]) => img.getAttribute('src') !== before && img.complete",
                            arg=[img.element_handle(), before], timeout=1000)
                    except Exception:  # noqa: BLE001 - reported below with the page
                        problems.append(f"{path} #{r}: press {press + 1} did not change the figure within 1 s")
                        continue
                    alt = img.get_attribute("alt")
                    if f"{first['symbol']} = {label}" not in alt:
                        problems.append(f"{path} #{r}: alt text does not name {first['symbol']} = {label}: {alt[:80]}")
            swaps += page.evaluate("() => window.privpcaExplorables.swaps")  # (one page's)
    finally:
        context.close()
    assert not problems, "\n".join(problems)
    swaps = sorted(swaps)
    p95 = swaps[min(len(swaps) - 1, math.ceil(0.95 * len(swaps)) - 1)]
    print(f"\n[explorables] {len(swaps)} swaps, median {swaps[len(swaps) // 2]:.1f} ms, p95 {p95:.1f} ms")
    assert p95 <= 100, f"swap p95 {p95:.0f} ms > 100 ms ({swaps})"


def test_a_precomputed_frame_shows_the_live_dashboards_numbers(built_book):
    """Chapter 1's frame at ε = 10, n = 50 names the numbers the live dashboard computes there."""
    from privpca_edu import widgets
    from privpca_edu.widgets import explorable

    data = _explorables(built_book, "notebooks/01_why_private_pca.html")[0]
    names = [c["name"] for c in data["controls"]]
    labels = {c["name"]: c["labels"] for c in data["controls"]}
    state = [c["default"] for c in data["controls"]]
    state[names.index("epsilon")] = labels["epsilon"].index("10")
    state[names.index("n_samples")] = labels["n_samples"].index("50")
    frame = data["frames"][",".join(map(str, state))]
    live = widgets.attack_dashboard(epsilon=1.0, n_samples=20)  # as the chapter's cell
    live.set_values(epsilon=10.0, n_samples=50)
    titles = "; ".join(explorable._texts(live.figure))
    assert frame["alt"].startswith(explorable.state_phrase(live.controls, live.params()) + ": " + titles)
    assert re.search(r"accuracy \d\.\d\d", frame["alt"])


# --- a phone -------------------------------------------------------------------------------

_FIGURES_JS = """() => [...document.querySelectorAll('main img, article img')]
  .filter(img => img.naturalWidth > 200 && img.getBoundingClientRect().width > 0)
  .map(img => [img.getBoundingClientRect().width, img.naturalWidth, (img.currentSrc || img.src).slice(-40)])"""


def test_phone_figures_are_drawn_for_the_column(built_book, book_url, chromium):
    context, page = _new_page(chromium, PHONE)
    problems = {}
    try:
        for path in PAGES:
            page.goto(f"{book_url}/{path}", wait_until="load")
            page.wait_for_load_state("networkidle")
            sizes = page.evaluate(_FIGURES_JS)
            small = [s for s in sizes if s[0] < 0.75 * s[1]]
            root = page.evaluate("() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]")
            if small:
                problems[path] = f"figures below 0.75 of their natural width: {small}"
            if root[0] > root[1] + 1:
                problems[path] = problems.get(path, "") + f" the page scrolls sideways ({root})"
            if path in EXPECTED:  # the explorables' phone frames are picked, and swap too
                slider = page.locator("div.privpca-explorable input[type=range]:not([disabled])").first
                page.wait_for_function("() => (window.privpcaExplorables || {}).ready > 0", timeout=10_000)
                slider.focus()
                page.keyboard.press("ArrowRight")
                page.wait_for_timeout(300)
                after = page.evaluate(_FIGURES_JS)
                if any(s[0] < 0.75 * s[1] for s in after):
                    problems[path] = problems.get(path, "") + f" after a swap: {after}"
    finally:
        context.close()
    assert not problems, "\n".join(f"{k}: {v}" for k, v in problems.items())


# --- axe-core ------------------------------------------------------------------------------

THEME = ("bd-header", "bd-sidebar", "bd-footer", "bd-header-article", "prev-next", "bd-toc", "search-button",
         "theme-switch", "navbar", "bd-search", "header-article", "sidebar", "primary-toggle", "secondary-toggle",
         "article-header-buttons", "dropdown", "bd-sidenav", "skip-link", "bd-article-container > .bd-header")


def _is_theme(node):
    html = node["html"]
    target = " ".join(str(t) for t in node["target"])
    return any(word in target or word in html for word in THEME) or "#pst-" in target


@pytest.mark.parametrize("viewport", [{"width": 1280, "height": 900}, PHONE], ids=["1280", "390"])
def test_axe_every_page(built_book, book_url, chromium, viewport):
    if not AXE.exists():
        pytest.fail(f"{AXE} is missing: run scripts/fetch_vendor.sh (it fetches axe-core from npm)")
    context, page = _new_page(chromium, viewport)
    ours, theirs = [], []
    try:
        for path in PAGES:
            page.goto(f"{book_url}/{path}", wait_until="load")
            page.wait_for_load_state("networkidle")
            page.add_script_tag(path=str(AXE))
            result = page.evaluate("async () => await axe.run(document, {resultTypes: ['violations']})")
            for violation in result["violations"]:
                if violation["impact"] not in ("critical", "serious"):
                    continue
                for node in violation["nodes"]:
                    entry = f"{path}: {violation['id']} ({violation['impact']}): {node['html'][:100]}"
                    (theirs if _is_theme(node) else ours).append(entry)
    finally:
        context.close()
    if theirs:
        print(f"\n[axe {viewport['width']} px] the theme's own (not failing): {len(theirs)}\n  "
              + "\n  ".join(sorted(set(theirs))[:40]))
    assert not ours, f"{len(ours)} critical/serious axe violations in the book's content:\n" + "\n".join(ours[:60])
