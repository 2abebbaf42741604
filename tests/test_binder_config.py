"""Binder's configuration: what repo2docker builds from this repository, and that it installs.

Binder runs repo2docker on the repository: ``runtime.txt`` picks the Python, ``requirements.txt``
is pip-installed into it, then the package itself (``pip install .``, because there is a
pyproject.toml).  Three checks, from cheap to slow:

1. the files follow repo2docker's documented rules (no ``binder/`` or ``.binder/`` folder, which
   would make it ignore the files at the root; no environment.yml, Pipfile or Dockerfile, which
   would choose another build; ``runtime.txt`` reads ``python-X.Y``; every line of
   requirements.txt is a requirement, and ``.`` installs the package);
2. ``jupyter-repo2docker --no-build`` (no Docker needed: it prints the Dockerfile it would build)
   chooses Python X.Y and installs requirements.txt.  repo2docker is pip-installed once into a
   virtual environment kept in ~/.cache/privpca_edu/ and reused;
3. requirements.txt and the package install into a fresh virtual environment made with a Python
   matching runtime.txt, the way repo2docker's Dockerfile does it, and the result imports and
   passes ``pip check``.  pip's download cache is used, so only the first run downloads.  Skipped
   (with the reason) only when no Python X.Y is found on this machine.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[1]
REPO2DOCKER = "jupyter-repo2docker==2026.4.0"
CACHE = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "privpca_edu"
PIP_ENV = {**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1", "PYTHONNOUSERSITE": "1"}


def runtime_version() -> str:
    text = (ROOT / "runtime.txt").read_text().strip()
    match = re.fullmatch(r"python-(\d+\.\d+)", text)
    assert match, f"runtime.txt must read python-X.Y (repo2docker's format), not {text!r}"
    return match.group(1)


def _version_of(python: str) -> str | None:
    try:
        out = subprocess.run([python, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                             capture_output=True, text=True, timeout=30)
    except OSError:
        return None
    return out.stdout.strip() if out.returncode == 0 else None


def _make_venv(python: str, where: Path) -> Path | None:
    """A virtual environment made by ``python`` (with pip); None if that interpreter cannot."""
    shutil.rmtree(where, ignore_errors=True)
    result = subprocess.run([python, "-m", "venv", str(where)], capture_output=True, text=True)
    exe = where / "bin" / "python"
    if result.returncode != 0 or not exe.exists():
        return None
    return exe


def _pip(python: Path, *args: str, cwd: Path = ROOT, timeout: float = 1500) -> None:
    result = subprocess.run([str(python), "-m", "pip", "install", "--progress-bar", "off", *args],
                            cwd=cwd, env=PIP_ENV, capture_output=True, text=True, timeout=timeout)
    assert result.returncode == 0, (
        f"pip install {' '.join(args)} failed:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}")


def test_files_follow_repo2docker_rules():
    for folder in ("binder", ".binder"):
        assert not (ROOT / folder).exists(), (
            f"{folder}/ exists: repo2docker would read its configuration from there and ignore "
            "requirements.txt and runtime.txt at the root")
    for name in ("environment.yml", "Pipfile", "Pipfile.lock", "Dockerfile", "project.toml", "default.nix"):
        assert not (ROOT / name).exists(), f"{name} would make repo2docker build differently"
    runtime_version()
    post_build = ROOT / "postBuild"
    if post_build.exists():
        assert os.access(post_build, os.X_OK), "postBuild must be executable"
    lines = [line.split("#", 1)[0].strip() for line in (ROOT / "requirements.txt").read_text().splitlines()]
    lines = [line for line in lines if line]
    assert "." in lines, "requirements.txt must end with '.' so that Binder installs the package"
    for line in lines:
        if line != ".":
            Requirement(line)          # raises InvalidRequirement on anything pip would reject
    names = {Requirement(line).name.lower() for line in lines if line != "."}
    # what the live chapters need on Binder: JupyterLab and the widgets
    assert {"jupyterlab", "ipywidgets"} <= names


@pytest.fixture(scope="module")
def repo2docker() -> Path:
    """``jupyter-repo2docker`` in a virtual environment of its own, kept in the cache folder."""
    where = CACHE / "repo2docker-venv"
    exe = where / "bin" / "jupyter-repo2docker"
    stamp = where / "installed.txt"
    if not (exe.exists() and stamp.exists() and stamp.read_text() == REPO2DOCKER):
        python = _make_venv(sys.executable, where)
        assert python is not None, f"could not create a virtual environment with {sys.executable}"
        _pip(python, REPO2DOCKER, timeout=600)
        stamp.write_text(REPO2DOCKER)
    return exe


def test_repo2docker_builds_from_runtime_and_requirements(repo2docker):
    result = subprocess.run([str(repo2docker), "--no-build", "--debug", str(ROOT)],
                            cwd=ROOT, capture_output=True, text=True, timeout=300)
    output = result.stdout + result.stderr
    assert result.returncode == 0, output[-3000:]
    version = runtime_version()
    assert f"python={version}" in output, f"repo2docker did not choose Python {version}:\n{output[:2000]}"
    assert re.search(r'pip install --no-cache-dir -r "?requirements\.txt"?', output), output[-3000:]
    assert "environment.yml" not in output.replace("environment.lock", "")


def test_requirements_install_with_the_runtime_python(tmp_path):
    version = runtime_version()
    candidates = [sys.executable, shutil.which(f"python{version}"), shutil.which("python3")]
    python = None
    for candidate in dict.fromkeys(c for c in candidates if c):
        if _version_of(candidate) == version:
            python = _make_venv(candidate, tmp_path / "binder-env")
            if python is not None:
                break
    if python is None:
        pytest.skip(f"no Python {version} (runtime.txt) that can create a virtual environment was found "
                    f"(looked at {', '.join(c for c in candidates if c)})")
    # as repo2docker's Dockerfile: pip install -r requirements.txt, then pip install .
    # (from the repository root; unlike Binder, pip may use its download cache, and skips
    # compiling .pyc files, which only costs time here)
    _pip(python, "--no-compile", "-r", "requirements.txt")
    _pip(python, "--no-compile", ".")
    check = subprocess.run([str(python), "-m", "pip", "check"], capture_output=True, text=True, env=PIP_ENV)
    assert check.returncode == 0, check.stdout + check.stderr
    probe = subprocess.run(
        [str(python), "-I", "-c",
         "import privpca_edu, ipywidgets, jupyterlab, matplotlib, sys; "
         "assert privpca_edu.__file__.startswith(sys.prefix), privpca_edu.__file__; "
         "print(sys.version_info[:2], ipywidgets.__version__, jupyterlab.__version__)"],
        capture_output=True, text=True, cwd=tmp_path)
    assert probe.returncode == 0, probe.stderr
