"""The package as a pip user gets it: sdist and wheel built once, installed outside the repository.

One build per test session (``python -m build``: the sdist, then the wheel from the sdist, about
20–30 s on two cores; ``pip wheel`` when ``build`` is missing), then a virtual environment in a
temporary folder with no pip of its own: the wheel is installed into it by this interpreter's pip
(``pip --python``), and it borrows this environment's dependencies through a ``.pth`` line (a
folder listed in a ``.pth`` file is not itself scanned for ``.pth`` files, so the repository's
editable install does not leak in).  The optional extras are hidden there by stubs that fail to
import, so the commands run as they would without ``[scale]`` and ``[crypto]``.
"""

from __future__ import annotations

import filecmp
import json
import os
import re
import runpy
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import zipfile
from pathlib import Path

import pytest

import privpca_edu

ROOT = Path(__file__).resolve().parents[1]
HIDDEN_EXTRAS = ("tqdm", "distributed", "dask", "phe", "gmpy2")

pytestmark = pytest.mark.skipif(not (ROOT / "pyproject.toml").exists() or not (ROOT / "setup.py").exists(),
                                reason="needs the source tree (pyproject.toml, setup.py)")


def _run(cmd, **kwargs):
    kwargs.setdefault("capture_output", True)
    kwargs.setdefault("text", True)
    kwargs.setdefault("timeout", 600)
    return subprocess.run([str(c) for c in cmd], **kwargs)


@pytest.fixture(scope="module")
def dists(tmp_path_factory):
    out = tmp_path_factory.mktemp("dist")
    try:
        import build  # noqa: F401
        cmd = [sys.executable, "-m", "build", "--outdir", out, ROOT]
    except ImportError:
        cmd = [sys.executable, "-m", "pip", "wheel", "--no-deps", "-w", out, ROOT]
    proc = _run(cmd, cwd=out)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    shutil.rmtree(ROOT / "build", ignore_errors=True)  # setuptools' scratch folder in the tree
    wheels, sdists = sorted(out.glob("*.whl")), sorted(out.glob("*.tar.gz"))
    assert len(wheels) == 1
    return {"wheel": wheels[0], "sdist": sdists[0] if sdists else None}


@pytest.fixture(scope="module")
def venv(dists, tmp_path_factory):
    """A fresh environment outside the repository holding the wheel (and this one's dependencies)."""
    where = tmp_path_factory.mktemp("venv")
    env_dir = where / "env"
    proc = _run([sys.executable, "-m", "venv", "--without-pip", env_dir])
    assert proc.returncode == 0, proc.stderr
    python = env_dir / "bin" / "python"
    site = Path(_run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"]).stdout.strip())
    stubs = where / "no_extras"
    for name in HIDDEN_EXTRAS:
        (stubs / name).mkdir(parents=True)
        (stubs / name / "__init__.py").write_text(f"raise ModuleNotFoundError(\"No module named '{name}'\", name='{name}')\n")
    (site / "a_hide_extras.pth").write_text(f"{stubs}\n")
    (site / "b_dependencies.pth").write_text(f"{sysconfig.get_paths()['purelib']}\n")
    proc = _run([sys.executable, "-m", "pip", "--python", python, "install", "--no-deps", "--no-index",
                 "--disable-pip-version-check", dists["wheel"]])
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    work = where / "outside"
    work.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env.update(MPLBACKEND="Agg", OPENBLAS_NUM_THREADS="1", PYTHONNOUSERSITE="1")
    return {"python": python, "bin": env_dir / "bin", "cwd": work, "env": env}


def _privpca(venv, *args, timeout=600):
    return _run([venv["bin"] / "privpca", *args], cwd=venv["cwd"], env=venv["env"], timeout=timeout)


def test_the_installed_package_is_the_wheel_without_the_course_kit(venv):
    proc = _run([venv["python"], "-c", "import privpca_edu, importlib.util as u; print(privpca_edu.__file__); "
                 "print(u.find_spec('privpca_edu._coursekit') is None); print(privpca_edu.__version__)"],
                cwd=venv["cwd"], env=venv["env"])
    path, no_kit, version = proc.stdout.split()
    assert proc.returncode == 0 and path.startswith(str(venv["python"].parents[1])), proc.stderr
    assert no_kit == "True" and version == privpca_edu.__version__


def test_privpca_demo(venv):
    proc = _privpca(venv, "demo")
    assert proc.returncode == 0, proc.stderr
    rows = {line.split()[0]: line for line in proc.stdout.splitlines() if line.strip()}
    assert " yes " in rows["AnalyzeGauss"] and " yes " in rows["ModSuLQ"]
    assert "Traceback" not in proc.stderr


def test_privpca_reproduce_without_the_scale_extra(venv):
    out = venv["cwd"] / "dps"
    proc = _privpca(venv, "reproduce", "dps-pca", "--scale", "quick", "--n-jobs", "1", "--out", out)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "Traceback" not in proc.stderr
    assert re.search(r"dps-pca \(quick\): \d+/\d+ tasks", proc.stderr)  # the plain progress line, no tqdm
    assert (out / "report.md").is_file() and "report:" in proc.stdout


def test_a_missing_extra_is_one_line_and_notebooks_never_overwrite(venv):
    # one interpreter for the three refusals (each start of the package costs seconds)
    script = """
import contextlib, io, json, sys
from privpca_edu.cli import main
out = []
for args in (["reproduce", "dpdpca"], ["reproduce", "dps-pca", "--backend", "dask"], ["notebooks", "edited"]):
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = main([*args, "--scale", "quick", "--out", "never"] if args[0] == "reproduce" else args)
    out.append((code, err.getvalue()))
print(json.dumps(out))
"""
    (venv["cwd"] / "edited").mkdir(exist_ok=True)
    (venv["cwd"] / "edited" / "01_why_private_pca.ipynb").write_text("{}")  # a student's edited copy
    proc = _run([venv["python"], "-c", script], cwd=venv["cwd"], env=venv["env"])
    assert proc.returncode == 0, proc.stderr[-3000:]
    (crypto, scale, notebooks) = json.loads(proc.stdout.strip().splitlines()[-1])
    for (code, err), extra in ((crypto, "crypto"), (scale, "scale")):
        lines = err.strip().splitlines()
        assert code == 2 and len(lines) == 1 and f"privpca_edu[{extra}]" in lines[0], err
    assert notebooks[0] == 1 and "--force" in notebooks[1]
    assert (venv["cwd"] / "edited" / "01_why_private_pca.ipynb").read_text() == "{}"


def test_privpca_notebooks_writes_the_ten_chapters(venv):
    target = venv["cwd"] / "chapters"
    proc = _privpca(venv, "notebooks", target)
    assert proc.returncode == 0, proc.stderr
    written = sorted(p.name for p in target.glob("*.ipynb"))
    source = sorted(p.name for p in (ROOT / "notebooks").glob("*.ipynb"))
    assert written == source and len(written) == 10
    assert all(filecmp.cmp(target / name, ROOT / "notebooks" / name, shallow=False) for name in written)


def test_sdist_holds_the_test_suite_and_twine_accepts_both(dists):
    if dists["sdist"] is None:
        pytest.skip("the 'build' package (extra [release]) is needed for the sdist")
    with tarfile.open(dists["sdist"]) as tar:
        names = {n.split("/", 1)[1] for n in tar.getnames() if "/" in n}
    for needed in ("tests/conftest.py", "tests/book/chapter_prose.py", "notebooks/02_dp_in_one_sitting.ipynb",
                   "_config.yml", "_toc.yml", "privpca_edu/_coursekit/answers.py", "CITATION.cff", "CHANGELOG.md",
                   "LICENSE", "setup.py"):
        assert needed in names, needed
    assert not any(n.startswith((".ci/", ".git/", "book/_vendor/", "instructor/")) or "__pycache__" in n for n in names)
    with zipfile.ZipFile(dists["wheel"]) as whl:
        wnames = whl.namelist()
    assert not any(n.startswith(("tests/", "privpca_edu/_coursekit/", "instructor/")) for n in wnames)
    assert sum(n.startswith("privpca_edu/_notebooks/") and n.endswith(".ipynb") for n in wnames) == 10
    twine = pytest.importorskip("twine")  # noqa: F841
    proc = _run([sys.executable, "-m", "twine", "check", "--strict", dists["sdist"], dists["wheel"]])
    assert proc.returncode == 0, proc.stdout + proc.stderr


# ---------------------------------------------------------------------------------------------
# metadata sources (cheap: no build)
# ---------------------------------------------------------------------------------------------
def _setup_helpers():
    return runpy.run_path(str(ROOT / "setup.py"), run_name="setup_helpers")  # setup() runs only as __main__


def test_project_urls_follow_the_one_repository_setting():
    helpers = _setup_helpers()
    config = (ROOT / "_config.yml").read_text(encoding="utf-8")
    url = helpers["repository_url"](config)
    assert helpers["project_urls"](url) == ({} if not url else helpers["project_urls"](url))
    published = config.replace('repository:\n  url: ""', 'repository:\n  url: "https://github.com/ORG/privpca_edu"')
    assert published != config, "_config.yml's repository.url line moved: update this test"
    urls = helpers["project_urls"](helpers["repository_url"](published))
    assert urls["Source"] == "https://github.com/ORG/privpca_edu"
    assert urls["Issues"] == "https://github.com/ORG/privpca_edu/issues"


def test_long_description_is_the_readme_pypi_sections_without_repository_commands():
    text = _setup_helpers()["readme_section"]((ROOT / "README.md").read_text(encoding="utf-8"))
    assert "pip install privpca_edu" in text and "privpca notebooks" in text and "BudgetAccountant" in text
    assert "scripts/" not in text and ".venv/" not in text


def test_one_version_source():
    tomllib = pytest.importorskip("tomllib")
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "version" not in project["project"] and "version" in project["project"]["dynamic"]
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "privpca_edu._version.__version__"}
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert re.search(r"^## (\S+)", changelog, flags=re.M).group(1) == privpca_edu.__version__
    assert not re.search(r"^version:", (ROOT / "CITATION.cff").read_text(encoding="utf-8"), flags=re.M)


def test_citation_names_the_package_and_the_four_papers():
    yaml = pytest.importorskip("yaml")
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))
    assert cff["cff-version"] == "1.2.0" and cff["type"] == "software" and "privpca_edu" in cff["title"]
    refs = {(r["authors"][0]["family-names"], r["year"]) for r in cff["references"]}
    assert refs == {("Ge", 2018), ("Wang", 2019), ("Kim", 2025), ("Wang", 2018)}
    assert any("2507.15232" in str(r.get("identifiers")) for r in cff["references"])
