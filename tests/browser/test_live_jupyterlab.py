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
NOTEBOOKS = [SMOKE] + ([CHAPTER] if (ROOT / CHAPTER).exists() else [])

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


def _write_smoke_notebook(path):
    import nbformat

    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.cells = [
        nbformat.v4.new_markdown_cell(src) if kind == "markdown" else nbformat.v4.new_code_cell(src)
        for kind, src in SMOKE_CELLS
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


@pytest.mark.parametrize("notebook", NOTEBOOKS)
def test_epsilon_slider_redraws_figure(chromium, lab, notebook):
    context = chromium.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    try:
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
