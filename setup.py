"""Build hooks that pyproject.toml cannot express (everything else is declared there).

* ``long_description``: the README's sections between ``<!-- pypi-start -->`` and
  ``<!-- pypi-end -->`` (what a pip user needs; the repository's own commands stay out).
* ``project_urls``: derived from THE repository setting, ``repository.url`` in ``_config.yml``
  (the book's Binder and repository buttons follow the same line); none while it is empty.
* The ten chapters: ``notebooks/*.ipynb`` (their one source) are copied into the wheel as
  ``privpca_edu/_notebooks/`` so that ``privpca notebooks DIR`` works after ``pip install``.
"""

import glob
import os
import re
import shutil

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = os.path.dirname(os.path.abspath(__file__))


def readme_section(text):
    """The PyPI-facing part of README.md: every ``<!-- pypi-start -->`` … ``<!-- pypi-end -->`` block, in order."""
    blocks = re.findall(r"<!-- pypi-start -->\n(.*?)<!-- pypi-end -->", text, flags=re.S)
    if not blocks:
        raise RuntimeError("README.md has no <!-- pypi-start --> ... <!-- pypi-end --> section")
    return "\n".join(b.strip() + "\n" for b in blocks)


def repository_url(config_text):
    """``repository.url`` of _config.yml ("" when unset); a tiny parser: setup needs no YAML library."""
    match = re.search(r"^repository:\s*\n((?:[ \t]+.*\n?)*)", config_text, flags=re.M)
    if match is None:
        return ""
    url = re.search(r"^[ \t]+url:[ \t]*[\"']?([^\"'#\s]*)", match.group(1), flags=re.M)
    return url.group(1).rstrip("/") if url else ""


def project_urls(url):
    """The project URLs PyPI shows, all from the one repository URL."""
    if not url:
        return {}
    urls = {"Homepage": url, "Source": url, "Changelog": f"{url}/blob/main/CHANGELOG.md"}
    if "github.com/" in url or "gitlab" in url:
        urls["Issues"] = f"{url}/issues"
    return urls


class build_py_with_chapters(build_py):
    def run(self):
        super().run()
        target = os.path.join(self.build_lib, "privpca_edu", "_notebooks")
        os.makedirs(target, exist_ok=True)
        for path in sorted(glob.glob(os.path.join(ROOT, "notebooks", "*.ipynb"))):
            shutil.copyfile(path, os.path.join(target, os.path.basename(path)))


def _read(name):
    with open(os.path.join(ROOT, name), encoding="utf-8") as fh:
        return fh.read()


if __name__ == "__main__":
    setup(
        long_description=readme_section(_read("README.md")),
        long_description_content_type="text/markdown",
        project_urls=project_urls(repository_url(_read("_config.yml"))),
        cmdclass={"build_py": build_py_with_chapters},
    )
