"""Launch buttons follow the one repository setting (book/_ext/live_code.py).

Three builds with the project's own _config.yml and extensions, side by side, notebooks not
executed: a two-page book (an introduction and a small notebook) with ``repository.url`` empty
(the shipped default) and as a live build (``PRIVPCA_BOOK_LIVE=1``, what scripts/live_book.sh
does), and a temporary copy of the whole book with a dummy ``repository.url`` (what turns Binder
on), in which every chapter must get its Binder and Live Code buttons.  The whole book is built
with the shipped settings, and its default pages checked the same way, by the browser tests.

Which cells Live Code runs (``needed_cells``) is checked on small cases here and on the real
chapters by the browser tests.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from bs4 import BeautifulSoup

ROOT = Path(__file__).resolve().parents[2]
REPO = "https://github.com/example-org/privpca_edu"
BRANCH = "teaching"


def _load_live_code():
    spec = importlib.util.spec_from_file_location("live_code", ROOT / "book" / "_ext" / "live_code.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


NOTEBOOK = {
    "cells": [
        {"cell_type": "markdown", "metadata": {}, "source": ["# A chapter\n"]},
        {"cell_type": "code", "execution_count": 1, "metadata": {}, "source": ["1 + 1"],
         "outputs": [{"output_type": "execute_result", "execution_count": 1, "metadata": {},
                      "data": {"text/plain": ["2"]}}]},
    ],
    "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
                 "language_info": {"name": "python"}},
    "nbformat": 4, "nbformat_minor": 5,
}


def _start_build(tmp: Path, repository_url: str, live: bool = False, whole_book: bool = False):
    """Start building the two-page book (or a copy of the whole book) with _config.yml's settings
    and extensions."""
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    config["repository"]["url"] = repository_url
    config["repository"]["branch"] = BRANCH
    config["execute"] = {"execute_notebooks": "off"}
    config["html"]["favicon"] = str(ROOT / config["html"]["favicon"])
    sphinx = config["sphinx"]
    sphinx["local_extensions"] = {name: str(ROOT / path) for name, path in sphinx["local_extensions"].items()}
    sphinx["config"]["html_static_path"] = []            # the fetched JavaScript is not needed here
    sphinx["config"]["html_extra_path"] = [str(ROOT / p) for p in sphinx["config"]["html_extra_path"]]
    book = tmp / "book"
    book.mkdir(parents=True)
    if whole_book:
        shutil.copy2(ROOT / "_toc.yml", book / "_toc.yml")
        shutil.copytree(ROOT / "book", book / "book", ignore=shutil.ignore_patterns("_vendor", "_ext"))
        shutil.copytree(ROOT / "notebooks", book / "notebooks",
                        ignore=shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__"))
        # the instructors' page includes the mark schemes from instructor/ (not part of the book)
        shutil.copytree(ROOT / "instructor", book / "instructor", ignore=shutil.ignore_patterns("__pycache__"))
    else:
        (book / "_toc.yml").write_text("format: jb-book\nroot: intro\nchapters:\n  - file: chapter\n")
        (book / "intro.md").write_text("# Introduction\n\nSee [the chapter](chapter.ipynb).\n")
        (book / "chapter.ipynb").write_text(json.dumps(NOTEBOOK))
    (book / "_config.yml").write_text(yaml.safe_dump(config, allow_unicode=True))
    env = {k: v for k, v in os.environ.items() if k != "PRIVPCA_BOOK_LIVE"}
    if live:
        env["PRIVPCA_BOOK_LIVE"] = "1"
    jupyter_book = Path(sys.executable).parent / "jupyter-book"
    proc = subprocess.Popen([str(jupyter_book if jupyter_book.exists() else shutil.which("jupyter-book")),
                             "build", str(book), "-W", "-n", "--keep-going"],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return proc, book / "_build" / "html"


@pytest.fixture(scope="module")
def builds(tmp_path_factory):
    """The three builds, run side by side (each is mostly Sphinx start-up): name -> html folder."""
    tmp = tmp_path_factory.mktemp("launch-books")
    started = {
        "default": _start_build(tmp / "default", ""),
        "repository": _start_build(tmp / "repository", REPO, whole_book=True),
        "live": _start_build(tmp / "live", "", live=True),
    }
    html = {}
    try:
        for name, (proc, folder) in started.items():
            output, _ = proc.communicate(timeout=300)
            assert proc.returncode == 0, f"{name} build failed:\n{output[-3000:]}"
            html[name] = folder
    finally:
        for proc, _ in started.values():
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    return html


def _page(html: Path, name: str) -> tuple[str, BeautifulSoup]:
    text = (html / name).read_text()
    return text, BeautifulSoup(text, "html.parser")


def _thebe_config(text: str) -> dict:
    match = re.search(r"window\.privpcaThebeConfig = (\{.*?\});", text)
    assert match, "no Live Code configuration on the page"
    return json.loads(match.group(1))


def test_shipped_config_has_no_repository():
    """The default this module's first case is about: no repository address in _config.yml."""
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    assert config["repository"]["url"] == ""
    assert "use_repository_button" not in config["html"], "the repository button follows repository.url"


def test_no_repository_means_no_launch_or_repository_button(builds):
    html = builds["default"]
    for name in ("intro.html", "chapter.html"):
        text, soup = _page(html, name)
        assert not soup.select(".dropdown-launch-buttons, .btn-launch-thebe, .btn-source-repository-button")
        header = soup.select_one(".article-header-buttons")
        assert header is not None
        assert not [a["href"] for a in header.select("a[href]") if a["href"].startswith(("http:", "https:"))]
        for needle in ("mybinder.org/v2/", "github.com", "privpcaThebeConfig", "x-thebe-config", "unpkg.com",
                       "sphinx-thebe", "privpca-thebe"):
            assert needle not in text, f"{name} mentions {needle}"
    assert not (html / "_static" / "privpca-live" / "build.json").exists()
    # the favicon: linked from the pages, and at the site root for browsers that ask there
    assert soup.select_one('link[rel="icon"]')["href"].endswith("_static/favicon.svg")
    assert (html / "_static" / "favicon.svg").exists() and (html / "favicon.ico").exists()


def _toc_files() -> list[str]:
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    found = [toc["root"]]

    def walk(node):
        if isinstance(node, dict):
            if "file" in node:
                found.append(node["file"])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(toc.get("parts", toc.get("chapters", [])))
    return found


def test_repository_url_turns_binder_live_code_and_repository_button_on(builds):
    """The whole book, copied, with a dummy repository.url: every chapter can be launched."""
    html = builds["repository"]

    def source(page: str) -> str | None:      # notebooks: .ipynb files and MyST-NB text notebooks
        if (ROOT / f"{page}.ipynb").exists():
            return f"{page}.ipynb"
        md = ROOT / f"{page}.md"
        return f"{page}.md" if md.exists() and "file_format: mystnb" in md.read_text()[:300] else None

    chapters = [f for f in _toc_files() if source(f)]
    assert len([c for c in chapters if c.startswith("notebooks/")]) >= 10
    for chapter in chapters:
        text, soup = _page(html, f"{chapter}.html")
        binder = [a["href"] for a in soup.select(".dropdown-launch-buttons a[href]")]
        assert binder == [
            f"https://mybinder.org/v2/gh/example-org/privpca_edu/{BRANCH}?urlpath=lab/tree/{source(chapter)}"], chapter
        assert [a["href"] for a in soup.select("a.btn-source-repository-button")] == [REPO]
        live = soup.select(".dropdown-launch-buttons button.btn-launch-thebe")
        assert len(live) == 1 and live[0]["onclick"] == "initThebeSBT()", chapter
        assert _thebe_config(text) == {
            "mode": "binder", "kernelName": "python3", "path": source(chapter),
            "binder": {"repo": "example-org/privpca_edu", "repoProvider": "github", "ref": BRANCH,
                       "binderUrl": "https://mybinder.org"},
        }
        for needle in ("unpkg.com", "x-thebe-config", "sphinx-thebe.js", "privpca-live-token.js"):
            assert needle not in text
    # a page that is not a notebook has nothing to launch, but links the repository
    for page in [f for f in _toc_files() if f not in chapters]:
        text, soup = _page(html, f"{page}.html")
        assert not soup.select(".dropdown-launch-buttons") and "privpcaThebeConfig" not in text, page
        assert [a["href"] for a in soup.select("a.btn-source-repository-button")] == [REPO]


def test_live_build_offers_live_code_on_the_local_kernel_only(builds):
    html = builds["live"]
    text, soup = _page(html, "chapter.html")
    live = soup.select(".dropdown-launch-buttons button.btn-launch-thebe")
    assert [b["onclick"] for b in live] == ["initThebeSBT()"]
    assert not soup.select(".dropdown-launch-buttons a[href]"), "no Binder link without a repository"
    assert _thebe_config(text) == {"mode": "local", "kernelName": "python3", "path": "chapter.ipynb"}
    assert soup.select('script[src*="privpca-thebe.js"]') and soup.select('link[href*="privpca-thebe.css"]')
    assert json.loads((html / "_static" / "privpca-live" / "build.json").read_text()) == {"mode": "local"}
    text, soup = _page(html, "intro.html")
    assert not soup.select(".dropdown-launch-buttons") and "privpcaThebeConfig" not in text
    # every page, chapter or not, takes the token from the address scripts/live_book.sh prints
    for name in ("intro.html", "chapter.html"):
        assert _page(html, name)[1].select('script[src*="privpca-live-token.js"]'), name
    assert not _page(builds["default"], "intro.html")[1].select('script[src*="privpca-live-token.js"]')


@pytest.mark.parametrize("url, expected", [
    ("https://github.com/org/repo", {"repo": "org/repo", "repoProvider": "github"}),
    ("https://github.com/org/repo.git/", {"repo": "org/repo", "repoProvider": "github"}),
    ("https://gitlab.com/group/repo", {"repo": "group/repo", "repoProvider": "gitlab"}),
    ("https://git.example.edu/teaching/repo.git",
     {"repo": "https://git.example.edu/teaching/repo.git", "repoProvider": "git"}),
])
def test_binder_options_for_repository_urls(url, expected):
    assert _load_live_code()._repository_parts(url) == expected


@pytest.mark.parametrize("sources, targets, expected", [
    # imports, a slow table nobody needs, the dashboard: imports and dashboard only
    (["import numpy as np\nfrom privpca_edu import widgets", "for e in (1, 2):\n    print(slow(e))",
      "w = widgets.dash(eps=1.0)\nwidgets.show(w)"], {2}, {0, 2}),
    # a name bound by an earlier cell (data), and the latest cell that changed it (X[0] = ...)
    (["%matplotlib inline\nimport numpy as np", "X = np.ones(3)", "X[0] = 5", "print(X.sum())",
      "show(X)"], {4}, {0, 1, 2, 4}),
    # a name the cell binds itself before reading it does not pull in earlier cells
    (["rng = 1", "rng = make_rng(2)\nshow(rng)"], {1}, {1}),
    # a name read inside a function body counts as read
    (["import math", "def f():\n    return math.pi", "show(f())"], {2}, {0, 1, 2}),
    # a cell that is not Python: everything before it runs
    (["a = 1", "b = 2", "%%bash\necho hi\nfi(", "show(1)"], {2}, {0, 1, 2}),
])
def test_live_code_runs_only_the_cells_dashboards_need(sources, targets, expected):
    assert _load_live_code().needed_cells(sources, targets) == expected


def test_live_code_runs_only_the_needed_part_of_a_setup_cell():
    setup = ("%matplotlib inline\nimport numpy as np\n# a slow demonstration\nfor s in range(10):\n"
             "    print(slow(s))\nSOURCE = 'synthetic'\nunused = np.ones(3)\n")
    plan = _load_live_code().plan_cells([setup, "print(np.pi)", "show(dash(SOURCE))"], {2})
    assert plan == {0: "%matplotlib inline\nimport numpy as np\nSOURCE = 'synthetic'\n", 2: None}
