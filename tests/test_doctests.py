"""The docstring examples run, and none of them teaches a leak.

Every ``>>>`` example in the package is executed (a wrong example is a bug a student copies),
and no example scales the data by a quantity computed from all of it — its largest row norm, a
pooled mean or standard deviation — before a private fit: the bound must be public.
"""

import doctest
import importlib
import inspect
import pkgutil
import re

import numpy as np
import pytest

import privpca_edu

MODULES = sorted(
    m.name for m in pkgutil.walk_packages(privpca_edu.__path__, prefix="privpca_edu.")
    if not m.name.endswith("__main__")
)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_run(name):
    module = importlib.import_module(name)
    state = np.get_printoptions()
    try:
        result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE, verbose=False)
    finally:
        np.set_printoptions(**state)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples in {name} failed"


# X /= np.linalg.norm(X, axis=1).max(), X /= max(1, ...max()), X - X.mean(axis=0), X / X.std(...)
_LEAKY = re.compile(r"norm\([^)]*axis=1\)\s*\.max\(\)|\.mean\(axis=0\)|\.std\(axis=0\)")


@pytest.mark.parametrize("name", MODULES)
def test_no_example_scales_by_the_private_data(name):
    module = importlib.import_module(name)
    for obj_name, obj in [(name, module), *inspect.getmembers(module)]:
        doc = inspect.getdoc(obj) if (inspect.isclass(obj) or inspect.isfunction(obj) or obj is module) else None
        if not doc or getattr(obj, "__module__", name) != name:
            continue
        for line in doc.splitlines():
            line = line.strip()
            if line.startswith(">>>") or line.startswith("..."):
                assert not _LEAKY.search(line), f"{name}.{obj_name}: example scales by the data itself: {line}"
