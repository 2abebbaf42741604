"""Binder's configuration: what repo2docker builds from this repository, and that it runs the
chapters.

repo2docker reads ``binder/`` (and then ignores the configuration files at the repository root):
``binder/runtime.txt`` picks the Python, ``binder/requirements.txt`` (every package exactly
pinned, nothing but what the chapters need) is pip-installed before the repository is copied
into the image, and ``binder/postBuild`` installs the package, once, without dependencies.
Three checks, from cheap to slow:

1. the files follow repo2docker's documented rules and this project's: exact pins only, no local
   path in requirements.txt (it would make repo2docker copy the repository first and rebuild the
   environment at every push), none of the development tools, every dependency the package and
   the chapters declare;
2. ``jupyter-repo2docker --no-build`` (no Docker needed: it prints the Dockerfile it would build)
   chooses Python X.Y, installs binder/requirements.txt *before* it copies the repository, runs
   postBuild after, and installs the package nowhere else.  repo2docker is pip-installed once
   into a virtual environment kept in ~/.cache/privpca_edu/ and reused;
3. (marked ``binder``) the environment installs into a fresh virtual environment made with a
   Python matching runtime.txt, postBuild runs in it, ``pip check`` passes, and chapters 1 and 2
   execute in it from start to end.  pip's download cache is used, so only the first run
   downloads.  Skipped (with the reason) only when no Python X.Y is found on this machine.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[2]
BINDER = ROOT / "binder"
REPO2DOCKER = "jupyter-repo2docker==2026.4.0"
CACHE = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "privpca_edu"
PIP_ENV = {**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1", "PYTHONNOUSERSITE": "1"}
CHAPTERS = ["notebooks/01_why_private_pca.ipynb", "notebooks/02_dp_in_one_sitting.ipynb"]

# development tools that must stay out of Binder's image (the root requirements.txt has them)
NOT_ON_BINDER = {"pytest", "hypothesis", "nbmake", "playwright", "pytest-playwright", "nbgrader",
                 "dask", "distributed", "jupyter-book", "sphinx", "ipympl", "jupyterlab-mathjax3",
                 "jupyterlab-rise", "tqdm", "colorspacious"}


def runtime_version() -> str:
    text = (BINDER / "runtime.txt").read_text().strip()
    match = re.fullmatch(r"python-(\d+\.\d+)", text)
    assert match, f"binder/runtime.txt must read python-X.Y (repo2docker's format), not {text!r}"
    return match.group(1)


def binder_requirements() -> list[Requirement]:
    lines = [line.split("#", 1)[0].strip() for line in (BINDER / "requirements.txt").read_text().splitlines()]
    return [Requirement(line) for line in lines if line]


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


def test_binder_folder_follows_repo2docker_rules():
    assert BINDER.is_dir()
    for name in ("environment.yml", "Pipfile", "Pipfile.lock", "Dockerfile", "project.toml", "default.nix",
                 "setup.py", "install.R", "apt.txt"):
        assert not (BINDER / name).exists(), f"binder/{name} would make repo2docker build differently"
    # runtime.txt at the root would be ignored (binder/ wins): one place only
    assert not (ROOT / "runtime.txt").exists(), "runtime.txt belongs in binder/ (repo2docker ignores the root's)"
    runtime_version()
    post_build = BINDER / "postBuild"
    assert os.access(post_build, os.X_OK), "binder/postBuild must be executable"
    commands = [line.strip() for line in post_build.read_text().splitlines()
                if line.strip() and not line.lstrip().startswith("#")]
    installs = [c for c in commands if "pip install" in c]
    assert installs == ["python -m pip install --no-cache-dir --no-deps ."], installs


def test_binder_requirements_are_exact_pins_of_what_the_chapters_need():
    text = (BINDER / "requirements.txt").read_text()
    requirements = binder_requirements()
    names = [canonicalize_name(r.name) for r in requirements]
    assert len(names) == len(set(names)), "a package is listed twice"
    for req in requirements:
        specs = list(req.specifier)
        assert len(specs) == 1 and specs[0].operator == "==" and "*" not in specs[0].version, (
            f"{req} is not an exact pin (name==version)")
        assert not req.url and not req.marker, f"{req}: plain pins only"
    # no local path: repo2docker would copy the repository before installing, so every commit
    # would rebuild the environment (and the package would be installed twice)
    for line in text.splitlines():
        stripped = line.split("#", 1)[0].strip()
        assert not stripped.startswith((".", "-e", "/", "file:")), f"local path in binder/requirements.txt: {line}"
    forbidden = sorted(set(names) & {canonicalize_name(n) for n in NOT_ON_BINDER})
    assert not forbidden, f"development tools in Binder's environment: {forbidden}"
    # everything the package needs, and the chapters' extras (JupyterLab, Paillier for chapter 7)
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    wanted = {canonicalize_name(Requirement(r).name) for r in project["dependencies"]}
    wanted |= {canonicalize_name(Requirement(r).name) for r in project["optional-dependencies"]["crypto"]}
    wanted |= {"jupyterlab", "ipywidgets", "ipykernel"}
    missing = sorted(wanted - set(names))
    assert not missing, f"binder/requirements.txt lacks {missing}"
    # and each pin satisfies the package's own range
    pins = {canonicalize_name(r.name): next(iter(r.specifier)).version for r in requirements}
    for line in project["dependencies"] + project["optional-dependencies"]["crypto"]:
        req = Requirement(line)
        assert req.specifier.contains(pins[canonicalize_name(req.name)]), (
            f"binder pins {req.name}=={pins[canonicalize_name(req.name)]}, pyproject.toml asks {req}")


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


def test_repo2docker_installs_the_environment_before_the_repository(repo2docker):
    result = subprocess.run([str(repo2docker), "--no-build", "--debug", str(ROOT)],
                            cwd=ROOT, capture_output=True, text=True, timeout=300)
    output = result.stdout + result.stderr
    assert result.returncode == 0, output[-3000:]
    version = runtime_version()
    assert f"python={version}" in output, f"repo2docker did not choose Python {version}:\n{output[:2000]}"
    lines = output.splitlines()

    def where(pattern: str) -> list[int]:
        return [i for i, line in enumerate(lines) if re.search(pattern, line)]

    copy_requirements = where(r"^COPY .*src/binder/requirements\.txt ")
    install = where(r'^RUN .*pip install --no-cache-dir -r "?binder/requirements\.txt"?')
    copy_repository = where(r"^COPY .* src/ \$\{REPO_DIR\}/")
    post_build = where(r"^RUN \./binder/postBuild")
    assert len(copy_requirements) == len(install) == len(copy_repository) == len(post_build) == 1, output[-4000:]
    # the environment's layers come before the repository's: a notebook commit reuses them
    assert copy_requirements[0] < install[0] < copy_repository[0] < post_build[0]
    # the package is installed once, by postBuild: no other pip install in the Dockerfile
    pip_runs = where(r"^RUN .*pip install")
    assert pip_runs == install, [lines[i] for i in pip_runs]


@pytest.mark.binder
def test_binder_environment_runs_chapters_1_and_2(tmp_path):
    version = runtime_version()
    candidates = [sys.executable, shutil.which(f"python{version}"), shutil.which("python3")]
    python = None
    for candidate in dict.fromkeys(c for c in candidates if c):
        if _version_of(candidate) == version:
            python = _make_venv(candidate, tmp_path / "binder-env")
            if python is not None:
                break
    if python is None:
        pytest.skip(f"no Python {version} (binder/runtime.txt) that can create a virtual environment was found "
                    f"(looked at {', '.join(c for c in candidates if c)})")
    # as repo2docker's Dockerfile: pip install -r binder/requirements.txt, then binder/postBuild
    # from the repository root (unlike Binder, pip may use its download cache, and skips
    # compiling .pyc files, which only costs time here)
    _pip(python, "--no-compile", "-r", "binder/requirements.txt")
    env = {**PIP_ENV, "PATH": f"{python.parent}{os.pathsep}{os.environ.get('PATH', '')}",
           "VIRTUAL_ENV": str(python.parent.parent)}
    for name in ("PYTHONPATH", "JUPYTER_PATH", "JUPYTER_CONFIG_PATH"):
        env.pop(name, None)
    # the kernel found must be the environment's own (not one from ~/.local/share/jupyter)
    env.update(JUPYTER_DATA_DIR=str(tmp_path / "jupyter-data"), JUPYTER_CONFIG_DIR=str(tmp_path / "jupyter-config"),
               IPYTHONDIR=str(tmp_path / "ipython"))
    post = subprocess.run([str(BINDER / "postBuild")], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=600)
    assert post.returncode == 0, post.stdout[-3000:] + post.stderr[-3000:]
    check = subprocess.run([str(python), "-m", "pip", "check"], capture_output=True, text=True, env=PIP_ENV)
    assert check.returncode == 0, check.stdout + check.stderr
    # nothing beyond the pins (postBuild's --no-deps installed the package alone)
    frozen = subprocess.run([str(python), "-m", "pip", "list", "--format=freeze", "--exclude-editable"],
                            capture_output=True, text=True, env=PIP_ENV).stdout.split()
    installed = {canonicalize_name(line.split("==")[0]) for line in frozen}
    pinned = {canonicalize_name(r.name) for r in binder_requirements()}
    assert installed - pinned - {"pip", "setuptools", "wheel"} == {"privpca-edu"}, installed - pinned
    # the chapters, executed in that environment by its own kernel, from their folder
    run = subprocess.run(
        [str(python), "-I", "-c",
         "import sys, nbformat, nbclient, privpca_edu\n"
         "assert privpca_edu.__file__.startswith(sys.prefix), privpca_edu.__file__\n"
         "for path in sys.argv[1:]:\n"
         "    nb = nbformat.read(path, as_version=4)\n"
         "    nbclient.NotebookClient(nb, timeout=600, kernel_name='python3',\n"
         "                            resources={'metadata': {'path': 'notebooks'}}).execute()\n"
         "    print('ran', path)\n",
         *CHAPTERS],
        cwd=ROOT, env={**env, "MPLBACKEND": "Agg", "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1",
                       "MKL_NUM_THREADS": "1"},
        capture_output=True, text=True, timeout=1200)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-5000:]
    assert run.stdout.split("\n")[:2] == [f"ran {c}" for c in CHAPTERS]
