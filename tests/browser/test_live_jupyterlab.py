"""Live use, as in a lecture: JupyterLab runs a notebook, a student moves the ε slider, the figure
changes.

JupyterLab starts on a free 127.0.0.1 port with throw-away config/runtime/settings folders and
no token, serving a temporary copy of notebooks/ (nothing is written back to the repository;
autosave is off as well).  Headless Chromium opens the notebook, runs all cells, waits for the
kernel, focuses the ε slider's handle (ipywidgets 8 draws sliders with noUiSlider) and presses
an arrow key; the figure produced by the slider's cell must change.

Notebooks checked: a minimal notebook written by this test (the infrastructure: JupyterLab,
ipywidgets, the kernel, inline figures, the installed package) and, when it exists, the
chapter notebook notebooks/02_dp_in_one_sitting.ipynb.

Latency as a student feels it (:func:`test_slider_release_to_new_image_latency`): in a notebook
holding the dashboards of chapters 1, 6 and 8 at their book defaults, the ε slider is moved 15
times by keyboard; the time from each key release to the dashboard's new image (its ``src``
replaced) is measured in the page, and p50 / p95 are printed with the kernel-side compute +
render time of the same updates and the machine's load.  Only "every move produced a new
image" is asserted: the times depend on the machine and its load.
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.browser

CHAPTER = "notebooks/02_dp_in_one_sitting.ipynb"
SMOKE = "live_smoke.ipynb"
TIMING = "live_timing.ipynb"
NOTEBOOKS = [SMOKE] + ([CHAPTER] if (ROOT / CHAPTER).exists() else [])

#: Dashboards whose slider-to-image latency is measured: (name, constructor call as in the chapter).
TIMED_DASHBOARDS = [
    ("ch. 1 attack_dashboard", "widgets.attack_dashboard(epsilon=1.0, n_samples=20)"),
    ("ch. 6 ldp_dashboard", "widgets.ldp_dashboard(epsilon=4.0, n_samples=1_000_000, n_features=20, support_size=4, "
                            "n_components=2)"),
    ("ch. 8 dps_pca_dashboard", "widgets.dps_pca_dashboard(epsilon=1.0, delta=0.3, sparsity=20, n_iter=10)"),
]
MOVES = 15

TIMING_CELLS = [
    ("markdown", "# Slider latency\n\nThe dashboards of chapters 1, 6 and 8 at the book's defaults."),
    ("code", "%matplotlib inline\nfrom privpca_edu import widgets\n_timed = {}"),
] + [("code", f"_timed[{name!r}] = {call}\nwidgets.show(_timed[{name!r}])") for name, call in TIMED_DASHBOARDS]

SMOKE_CELLS = [
    ("markdown", "# Live smoke test\n\nAn ε slider drives Analyze Gauss on a 2-d point cloud."),
    ("code", "%matplotlib inline\nimport numpy as np\nimport matplotlib.pyplot as plt\n"
             "import ipywidgets as widgets\nimport privpca_edu as pp"),
    ("code", """\
rng = np.random.default_rng(0)
X = rng.normal(size=(500, 2)) * [0.5, 0.15]
X /= np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None]

def show(epsilon=0.01):
    v = pp.AnalyzeGauss(n_components=1, epsilon=epsilon, delta=1e-5, random_state=0).fit(X).components_[0]
    fig, ax = plt.subplots(figsize=(3, 3))
    ax.scatter(X[:, 0], X[:, 1], s=2)
    ax.plot([-v[0], v[0]], [-v[1], v[1]], "r-", lw=3)
    ax.set_title(f"epsilon = {epsilon:.3f}")
    plt.show()

widgets.interact(show, epsilon=widgets.FloatLogSlider(value=0.01, base=10, min=-3, max=-0.1, step=0.1,
                                                      description="ε", continuous_update=False));"""),
]

# State of the open notebook, read through the application object that
# --LabApp.expose_app_in_browser=True puts on window.
NOTEBOOK_STATE_JS = """
() => {
  const app = window.jupyterapp;
  const panel = app && app.shell && app.shell.currentWidget;
  if (!panel || !panel.content || !panel.sessionContext || !panel.context || !panel.context.isReady) {
    return {ready: false};
  }
  const kernel = panel.sessionContext.session && panel.sessionContext.session.kernel;
  const cells = panel.content.widgets.filter(
    c => c.model.type === 'code' && c.model.sharedModel.getSource().trim() !== '');
  const errors = [];
  for (const c of cells) {
    for (const o of c.model.outputs.toJSON()) {
      if (o.output_type === 'error') { errors.push(o.ename + ': ' + o.evalue); }
    }
  }
  return {
    ready: true,
    kernel: kernel ? kernel.status : null,
    cells: cells.length,
    pending: cells.filter(c => c.model.executionCount === null).length,
    errors: errors,
  };
}
"""


def _write_smoke_notebook(path, cells=SMOKE_CELLS):
    import nbformat

    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.cells = [
        nbformat.v4.new_markdown_cell(src) if kind == "markdown" else nbformat.v4.new_code_cell(src)
        for kind, src in cells
    ]
    nbformat.write(nb, str(path))


@pytest.fixture(scope="module")
def lab(chromium, jupyter_lab, tmp_path_factory):
    """A JupyterLab server on a temporary copy of notebooks/ plus the smoke notebook."""
    root = tmp_path_factory.mktemp("lab-root")
    if (ROOT / "notebooks").is_dir():
        shutil.copytree(ROOT / "notebooks", root / "notebooks",
                        ignore=shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__"))
    _write_smoke_notebook(root / SMOKE)
    _write_smoke_notebook(root / TIMING, TIMING_CELLS)
    with jupyter_lab(root) as base:
        yield base


def _wait_state(page, predicate, timeout, what):
    deadline = time.monotonic() + timeout
    state = None
    while time.monotonic() < deadline:
        state = page.evaluate(NOTEBOOK_STATE_JS)
        if state.get("errors"):
            pytest.fail(f"a cell raised: {state['errors']}")
        if predicate(state):
            return state
        time.sleep(0.25)
    pytest.fail(f"timed out after {timeout} s waiting for {what}; last state {state}")


def _figure_signature(cell) -> bytes:
    """What the slider's cell currently draws: the <img> sources, or the canvas pixels."""
    images = cell.locator(".jp-OutputArea-output img")
    if images.count():
        return "|".join(images.nth(i).get_attribute("src") or "" for i in range(images.count())).encode()
    canvases = cell.locator(".jp-OutputArea-output canvas")
    if canvases.count():
        return b"".join(canvases.nth(i).screenshot() for i in range(canvases.count()))
    return b""


def _open_and_run(page, lab, notebook):
    """Open ``notebook`` in JupyterLab, run all its cells from empty outputs; return its panel."""
    # ?reset: a fresh workspace, so no tab of an earlier test is restored next to this one.
    page.goto(f"{lab}/lab/tree/{notebook}?reset", wait_until="domcontentloaded")
    _wait_state(page, lambda s: s.get("ready") and s.get("kernel") == "idle", 120,
                "the notebook to open and its kernel to be idle")
    # Look only inside this notebook's panel.
    page.evaluate("() => window.jupyterapp.shell.currentWidget.node.setAttribute('data-privpca-test', 'current')")
    panel = page.locator("[data-privpca-test=current]")

    # Start from empty outputs, so "every cell has an execution count" means "ran now".
    # The commands' promises are not awaited here: the polling below has the time limits.
    page.evaluate("() => { window.jupyterapp.commands.execute('notebook:clear-all-cell-outputs'); }")
    _wait_state(page, lambda s: s["pending"] == s["cells"], 30, "the outputs to be cleared")
    page.evaluate("() => { window.jupyterapp.commands.execute('notebook:run-all-cells'); }")
    state = _wait_state(page, lambda s: s["pending"] == 0 and s["kernel"] == "idle", 600,
                        "all cells to run")
    assert state["cells"] > 0
    return panel


@pytest.mark.parametrize("notebook", NOTEBOOKS)
def test_epsilon_slider_redraws_figure(chromium, lab, notebook):
    context = chromium.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    try:
        panel = _open_and_run(page, lab, notebook)

        sliders = panel.locator(".jp-OutputArea-output .widget-slider")
        sliders.first.wait_for(state="attached", timeout=60_000)
        target = None
        for i in range(sliders.count()):
            # text_content, not inner_text: JupyterLab hides cells far outside the viewport, and
            # a hidden element has no inner text
            label = (sliders.nth(i).locator(".widget-label").first.text_content() or "").strip().lower()
            if "ε" in label or "epsilon" in label or "eps" in label:
                target = sliders.nth(i)
                break
        assert target is not None, "no slider labelled ε / epsilon in the notebook's outputs: " + repr(
            [sliders.nth(i).text_content() for i in range(sliders.count())])

        target.evaluate("el => el.closest('.jp-Cell').setAttribute('data-privpca-test', 'slider-cell')")
        cell = panel.locator("[data-privpca-test=slider-cell]")
        # JupyterLab skips rendering cells far outside the viewport, and Playwright's own
        # scrolling needs a visible element: scroll with the DOM instead, then wait.
        target.evaluate("el => el.scrollIntoView({block: 'center'})")
        target.wait_for(state="visible", timeout=30_000)
        _wait_for(lambda: _figure_signature(cell) != b"", 60, "the slider's figure to appear")
        before = _figure_signature(cell)

        handle = target.locator(".noUi-handle").first
        at_max = handle.get_attribute("aria-valuenow") == handle.get_attribute("aria-valuemax")
        handle.focus()
        handle.press("ArrowLeft" if at_max else "ArrowRight")

        def redrawn():
            state = page.evaluate(NOTEBOOK_STATE_JS)
            if state.get("errors"):
                pytest.fail(f"a cell raised after the slider moved: {state['errors']}")
            after = _figure_signature(cell)
            return state.get("kernel") == "idle" and after != b"" and after != before

        _wait_for(redrawn, 120, "the figure to change after the slider moved")
    finally:
        context.close()


def _wait_for(condition, timeout, what):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.25)
    pytest.fail(f"timed out after {timeout} s waiting for {what}")


# In the page: note when the focused slider handle's key is released and when the dashboard's
# <img> gets a new src (the Image widget's view sets it when the PNG bytes arrive).
WATCH_JS = """
(dashboard) => {
  const img = dashboard.querySelector('img.privpca-figure');
  const handle = dashboard.querySelector('.noUi-handle');
  const log = {released: [], images: []};
  window.__privpcaLatency = log;
  new MutationObserver(() => log.images.push(performance.now()))
    .observe(img, {attributes: true, attributeFilter: ['src']});
  handle.addEventListener('keyup', () => log.released.push(performance.now()), true);
  return img.getAttribute('src') !== null;
}
"""

# Kernel side: the same updates' total, compute and render (+ PNG) times (Dashboard.timings), as JSON.
KERNEL_TIMINGS_JS = """
async ([name, moves]) => {
  const kernel = window.jupyterapp.shell.currentWidget.sessionContext.session.kernel;
  const code = 'import json\\nprint(json.dumps([[t["total"] * 1e3, t["compute"] * 1e3, (t["draw"] + t["encode"]) * 1e3] ' +
               'for t in _timed[' + JSON.stringify(name) + '].timings[-' + moves + ':]]))';
  const future = kernel.requestExecute({code: code, silent: false, store_history: false});
  let text = '';
  future.onIOPub = (msg) => { if (msg.header.msg_type === 'stream') { text += msg.content.text; } };
  await future.done;
  return text;
}
"""


def _percentile(values, q):
    import numpy as np

    return float(np.percentile(np.asarray(values, dtype=float), q))


def test_slider_release_to_new_image_latency(chromium, lab, capsys):
    # What a student waits for: ε slider key released -> the dashboard's new figure in the page.
    import json
    import os

    context = chromium.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    report = []
    try:
        panel = _open_and_run(page, lab, TIMING)
        dashboards = panel.locator(".jp-OutputArea-output .privpca-dashboard")
        dashboards.first.wait_for(state="attached", timeout=60_000)
        assert dashboards.count() == len(TIMED_DASHBOARDS), dashboards.count()
        for index, (name, _) in enumerate(TIMED_DASHBOARDS):
            dashboard = dashboards.nth(index)
            dashboard.evaluate("el => el.scrollIntoView({block: 'center'})")
            slider = dashboard.locator(".widget-slider").first  # every timed dashboard's first slider is ε
            label = (slider.locator(".widget-label").first.text_content() or "").lower()
            assert "ε" in label or "epsilon" in label, (name, label)
            handle = slider.locator(".noUi-handle").first
            handle.wait_for(state="visible", timeout=30_000)
            assert dashboard.evaluate(WATCH_JS), f"{name}: no figure image before the moves"
            # move towards the end with more room, so every move is a value not seen before
            now, low, high = (float(handle.get_attribute(a)) for a in ("aria-valuenow", "aria-valuemin",
                                                                       "aria-valuemax"))
            key = "ArrowRight" if high - now >= now - low else "ArrowLeft"
            handle.focus()
            readout = slider.locator(".widget-readout").first
            values = [readout.text_content()]
            for move in range(MOVES):
                handle.press(key)
                _wait_for(lambda: page.evaluate("() => window.__privpcaLatency.images.length") > move, 120,
                          f"{name}: a new image after move {move + 1}")
                _wait_state(page, lambda s: s["kernel"] == "idle", 60, "the kernel to be idle")
                values.append(readout.text_content())
            log = page.evaluate("() => window.__privpcaLatency")
            # every move: a new slider value and exactly one new image, after its key release
            assert len(set(values)) == MOVES + 1, (name, values)
            assert len(log["released"]) == MOVES and len(log["images"]) == MOVES, (name, log)
            waits = [image - released for released, image in zip(log["released"], log["images"])]
            assert all(w > 0 for w in waits), (name, waits)
            kernel = json.loads(page.evaluate(KERNEL_TIMINGS_JS, [name, MOVES]).strip() or "[]")
            report.append((name, waits, kernel))
    finally:
        context.close()
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    with capsys.disabled():
        print(f"\nslider key release -> new image in JupyterLab + Chromium, {MOVES} ε moves each "
              f"(load average {load:.2f} on {os.cpu_count()} CPUs):")
        for name, waits, kernel in report:
            line = f"  {name:<26} p50 {_percentile(waits, 50):6.0f} ms   p95 {_percentile(waits, 95):6.0f} ms"
            if kernel:
                total, compute, render = zip(*kernel)
                line += (f"   (in the kernel: update p50 {_percentile(total, 50):4.0f} ms, p95 "
                         f"{_percentile(total, 95):4.0f} ms; compute p50 {_percentile(compute, 50):4.0f} ms, "
                         f"render p50 {_percentile(render, 50):4.0f} ms)")
            print(line)
