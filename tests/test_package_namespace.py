"""The top-level namespace: lazy (PEP 562) yet complete, and its docstring, ``__all__`` and ``dir()`` agree."""

import pathlib
import subprocess
import sys
import textwrap

import pytest

import privpca_edu

PACKAGE = pathlib.Path(privpca_edu.__file__).parent
#: Public modules run as programs (``python -m privpca_edu.demo``), not attributes of the package.
SCRIPTS = {"demo", "cli"}  # command-line entry points, not attributes


def _run(code):
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, check=True)
    return out.stdout.strip().splitlines()


def test_import_loads_no_heavy_dependency_until_a_name_needs_it():
    heavy = ("numpy", "scipy", "scipy.stats", "sklearn", "matplotlib", "ipywidgets", "privpca_edu.estimators")
    lines = _run(f"""
        import sys
        heavy = {heavy!r}
        import privpca_edu
        print(sorted(m for m in heavy if m in sys.modules))
        from privpca_edu import subspace_distance
        print("sklearn" in sys.modules, "scipy.stats" in sys.modules)
        from privpca_edu import AnalyzeGauss
        print("sklearn" in sys.modules, AnalyzeGauss.__module__)
    """)
    assert lines == ["[]", "False False", "True privpca_edu.estimators.covariance"]


def test_every_public_name_resolves_and_is_listed_everywhere():
    doc = " ".join(privpca_edu.__doc__.split())
    listed = dir(privpca_edu)
    for name in privpca_edu.__all__:
        assert getattr(privpca_edu, name) is not None, name
        assert f"``{name}``" in doc, f"{name} is in __all__ but not in the docstring"
        assert name in listed, name
    assert len(set(privpca_edu.__all__)) == len(privpca_edu.__all__)
    # every estimator is the class of its defining module, and repeated lookups give the same object
    from privpca_edu.estimators import AnalyzeGauss
    assert privpca_edu.AnalyzeGauss is AnalyzeGauss
    with pytest.raises(AttributeError, match="no_such_name"):
        privpca_edu.no_such_name  # noqa: B018


def test_star_import_gives_exactly_all():
    lines = _run("""
        ns = {}
        exec("from privpca_edu import *", ns)
        import privpca_edu
        print(sorted(k for k in ns if k != "__builtins__") == sorted(privpca_edu.__all__))
    """)
    assert lines == ["True"]


def test_every_public_submodule_is_reachable_as_an_attribute():
    on_disk = {p.stem for p in PACKAGE.glob("*.py") if not p.stem.startswith("_")}
    on_disk |= {p.parent.name for p in PACKAGE.glob("*/__init__.py") if not p.parent.name.startswith("_")}
    assert on_disk - SCRIPTS == set(privpca_edu._SUBMODULES), "add the new submodule to _SUBMODULES (one line)"
