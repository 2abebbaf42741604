"""The tests are laid out like the package, so that the tests of a module are found where it is.

``privpca_edu/<pkg>/`` (a subpackage; ``_coursekit`` drops its underscore) has its tests in
``tests/<pkg>/``; a top-level module ``privpca_edu/<mod>.py`` has ``tests/test_<mod>.py`` (or a
folder ``tests/<mod>/``).  What tests no single module (the book, the browser, the package as a
whole) is listed below with the reason, so that every test file has a known home.
"""

import ast
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "privpca_edu"
TESTS = ROOT / "tests"

#: Test folders that mirror no subpackage.
OTHER_FOLDERS = {
    "book": "the book's sources: chapter prose and its recomputed numbers, lint, launch buttons, Binder, "
            "the Live Code kernel server (book/_ext)",
    "browser": "the built book, the course kit and JupyterLab in Chromium (the full tier only)",
}

#: Top-level test files that test no single top-level module: the package as a whole, or the
#: repository around it.
CROSS_CUTTING = {
    "test_layout.py": "this file: the layout of tests/",
    "test_doctests.py": "every docstring example of the package",
    "test_docstrings.py": "numpydoc validation of every public docstring of the package",
    "test_edges.py": "extreme legal input across estimators, audit and subspace (review reproducers)",
    "test_hardening.py": "extreme legal input across datasets and estimators",
    "test_properties.py": "Hypothesis properties of the public functions of several modules",
    "test_import_contract.py": "the import layers of all subpackages and the README's tree",
    "test_no_notes_references.py": "what the package, tests, benchmarks, notebooks and book cite",
    "test_benchmarks_smoke.py": "benchmarks/ (bench_foundation.py, bench_twins.py) run to the end",
}

#: Top-level modules whose tests have another name.
MODULE_TESTS = {
    "__init__": "test_package_namespace.py",
    "_version": "test_packaging.py",
    "cli": "test_packaging.py",
    "demo": "test_packaging.py",
}



def _conftest_lists():
    """SLOW_MODULES and SLOW_TESTS of tests/conftest.py, read from its source (literals)."""
    tree = ast.parse((TESTS / "conftest.py").read_text(encoding="utf-8"))
    return {node.targets[0].id: ast.literal_eval(node.value) for node in tree.body
            if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") in {"SLOW_MODULES", "SLOW_TESTS"}}


def _subpackages():
    return sorted(p.name.lstrip("_") for p in PACKAGE.iterdir() if (p / "__init__.py").is_file())


def _top_level_modules():
    return sorted(p.stem for p in PACKAGE.glob("*.py"))


def _test_files(folder):
    return sorted(p.name for p in folder.glob("test_*.py"))


def test_every_subpackage_has_its_test_folder():
    missing = [name for name in _subpackages() if not _test_files(TESTS / name)]
    assert not missing, f"subpackages without tests/<name>/test_*.py: {missing}"


def test_every_top_level_module_has_its_tests():
    missing = []
    for module in _top_level_modules():
        name = MODULE_TESTS.get(module, f"test_{module.lstrip('_')}.py")
        if not (TESTS / name).is_file() and not _test_files(TESTS / module.lstrip("_")):
            missing.append(f"{module}.py -> tests/{name}")
    assert not missing, missing


def test_every_test_folder_mirrors_a_subpackage_or_is_listed():
    mirrors = set(_subpackages()) | {m.lstrip("_") for m in _top_level_modules()}
    folders = sorted(p.name for p in TESTS.iterdir() if p.is_dir() and _test_files(p))
    stray = [f for f in folders if f not in mirrors and f not in OTHER_FOLDERS]
    assert not stray, f"test folders that mirror nothing in privpca_edu/ (move them, or list them): {stray}"
    stale = sorted(set(OTHER_FOLDERS) - set(folders))
    assert not stale, f"OTHER_FOLDERS lists missing folders: {stale}"


def test_every_top_level_test_file_tests_a_top_level_module_or_is_listed():
    own = {f"test_{m.lstrip('_')}.py" for m in _top_level_modules()} | set(MODULE_TESTS.values())
    stray = [f for f in _test_files(TESTS) if f not in own and f not in CROSS_CUTTING]
    assert not stray, f"top-level test files of no top-level module (move them to tests/<subpackage>/): {stray}"
    stale = sorted(f for f in CROSS_CUTTING if not (TESTS / f).is_file())
    assert not stale, f"CROSS_CUTTING lists missing files: {stale}"


def test_test_file_names_are_unique_and_the_slow_lists_name_real_files():
    # pytest imports test modules by file name (rootdir-relative "prepend" mode, no __init__.py),
    # and tests/conftest.py marks slow tests by file name: both need one file per name.
    files = sorted(TESTS.rglob("test_*.py"))
    names = [p.name for p in files]
    assert len(names) == len(set(names)), sorted(n for n in set(names) if names.count(n) > 1)
    lists = _conftest_lists()
    listed = set(lists["SLOW_MODULES"]) | {node.split("::")[0] for node in lists["SLOW_TESTS"]}
    assert listed <= set(names), f"tests/conftest.py names missing test files: {sorted(listed - set(names))}"
