"""Launch buttons follow the one repository setting (book/_ext/live_code.py).

A two-page book (an introduction and a small notebook, not executed) is built with the project's
own _config.yml and extensions three ways, side by side: with ``repository.url`` empty (the
shipped default), with it set, and as a live build (``PRIVPCA_BOOK_LIVE=1``, what
scripts/live_book.sh does).  The whole book is built, and its default pages checked the same way,
by the browser tests.
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

ROOT = Path(__file__).resolve().parents[1]
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


def _start_build(tmp: Path, repository_url: str, live: bool = False):
    """Start building the two-page book with _config.yml's settings and extensions."""
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
    (book / "_config.yml").write_text(yaml.safe_dump(config, allow_unicode=True))
    (book / "_toc.yml").write_text("format: jb-book\nroot: intro\nchapters:\n  - file: chapter\n")
    (book / "intro.md").write_text("# Introduction\n\nSee [the chapter](chapter.ipynb).\n")
    (book / "chapter.ipynb").write_text(json.dumps(NOTEBOOK))
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
        "repository": _start_build(tmp / "repository", REPO),
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


def test_repository_url_turns_binder_live_code_and_repository_button_on(builds):
    html = builds["repository"]
    text, soup = _page(html, "chapter.html")
    binder = [a["href"] for a in soup.select(".dropdown-launch-buttons a[href]")]
    assert binder == [
        f"https://mybinder.org/v2/gh/example-org/privpca_edu/{BRANCH}?urlpath=lab/tree/chapter.ipynb"]
    assert [a["href"] for a in soup.select("a.btn-source-repository-button")] == [REPO]
    live = soup.select(".dropdown-launch-buttons button.btn-launch-thebe")
    assert len(live) == 1 and live[0]["onclick"] == "initThebeSBT()"
    assert _thebe_config(text) == {
        "mode": "binder", "kernelName": "python3", "path": "chapter.ipynb",
        "binder": {"repo": "example-org/privpca_edu", "repoProvider": "github", "ref": BRANCH,
                   "binderUrl": "https://mybinder.org"},
    }
    for needle in ("unpkg.com", "x-thebe-config", "sphinx-thebe.js"):
        assert needle not in text
    # a page that is not a notebook has nothing to launch, but links the repository
    text, soup = _page(html, "intro.html")
    assert not soup.select(".dropdown-launch-buttons") and "privpcaThebeConfig" not in text
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


@pytest.mark.parametrize("url, expected", [
    ("https://github.com/org/repo", {"repo": "org/repo", "repoProvider": "github"}),
    ("https://github.com/org/repo.git/", {"repo": "org/repo", "repoProvider": "github"}),
    ("https://gitlab.com/group/repo", {"repo": "group/repo", "repoProvider": "gitlab"}),
    ("https://git.example.edu/teaching/repo.git",
     {"repo": "https://git.example.edu/teaching/repo.git", "repoProvider": "git"}),
])
def test_binder_options_for_repository_urls(url, expected):
    assert _load_live_code()._repository_parts(url) == expected
