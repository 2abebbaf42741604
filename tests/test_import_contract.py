"""The package's import contract: layers and private modules (import-linter), private names, the README's tree."""

import ast
import pathlib
import re
import shutil
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "privpca_edu"
#: Package-wide private helpers every subpackage may use (argument checks, random_state handling).
SHARED_PRIVATE = {"privpca_edu._validation", "privpca_edu._version"}
#: Private names still imported across subpackages, waiting for a public home; remove an entry when fixed.
PENDING = set()


def _lint_imports():
    exe = shutil.which("lint-imports", path=str(pathlib.Path(sys.executable).parent)) or shutil.which("lint-imports")
    if exe is None:
        pytest.fail("lint-imports not found: install the test extra (pip install -e .[test])")
    return exe


def test_import_contract_is_kept():
    out = subprocess.run([_lint_imports(), "--no-cache"], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr
    assert re.search(r"Contracts: (\d+) kept, 0 broken", out.stdout), out.stdout
    assert int(re.search(r"Contracts: (\d+) kept", out.stdout).group(1)) >= 7


def test_import_contract_can_fail(tmp_path):
    # the layers upside down: experiments may not import estimators, so the contract breaks
    config = tmp_path / "upside_down.toml"
    config.write_text('[tool.importlinter]\nroot_package = "privpca_edu"\n\n[[tool.importlinter.contracts]]\n'
                      'name = "upside down"\ntype = "layers"\n'
                      'layers = ["privpca_edu.estimators", "privpca_edu.experiments"]\n', encoding="utf-8")
    out = subprocess.run([_lint_imports(), "--no-cache", "--config", str(config)], cwd=ROOT, capture_output=True,
                         text=True)
    assert out.returncode != 0 and "BROKEN" in out.stdout, out.stdout + out.stderr


def _module_name(path):
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _private_imports_across_subpackages():
    """'importer <- privpca_edu.x._y[.name]' for every private module or name imported from another subpackage."""
    found = set()
    for path in sorted(PACKAGE.rglob("*.py")):
        module = _module_name(path)
        package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ImportFrom):
                continue
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if not target.startswith("privpca_edu"):
                continue
            for alias in node.names:
                full = f"{target}.{alias.name}"
                parts = full.split(".")
                private = [i for i, p in enumerate(parts) if p.startswith("_") and not p.startswith("__")]
                if not private or ".".join(parts[: private[0] + 1]) in SHARED_PRIVATE:
                    continue
                same_subpackage = len(module.split(".")) > 1 and module.split(".")[1] == parts[1]
                if not same_subpackage:
                    found.add(f"{module} <- {full}")
    return found


def test_no_private_names_imported_across_subpackages():
    found = _private_imports_across_subpackages()
    assert not found - PENDING, "private names imported from another subpackage:\n" + "\n".join(sorted(found - PENDING))
    assert not PENDING - found, "fixed, remove from PENDING:\n" + "\n".join(sorted(PENDING - found))


# ------------------------------------------------------------------------------ README's tree
def _readme_tree():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("## What's inside", 1)[1]
    block = section.split("```", 2)[1]
    return block.splitlines()


def test_readme_tree_matches_the_package():
    lines = _readme_tree()
    assert lines[1].strip() == "privpca_edu/"
    listed, top = set(), []
    for line in lines[2:]:
        m = re.match(r"^  (\S+)\s", line + " ")
        if m:  # an entry of privpca_edu/ (two spaces in)
            listed.add(m.group(1).rstrip("/"))
            continue
        m = re.match(r"^(\S+(?: \S+/)*)\s{2,}", line)
        if m:
            top += m.group(1).split()
    on_disk = {p.name for p in PACKAGE.glob("*.py")} | {p.parent.name for p in PACKAGE.glob("*/__init__.py")}
    on_disk = {name[:-3] if name.endswith(".py") else name for name in on_disk}
    listed_names = {name[:-3] if name.endswith(".py") else name for name in listed}
    assert listed_names == on_disk, (sorted(listed_names - on_disk), sorted(on_disk - listed_names))
    for entry in top:
        assert (ROOT / entry.rstrip("/")).exists(), entry
    assert {"book/", "notebooks/", "tests/", "benchmarks/", "scripts/"} <= set(top), top
