"""privpca_edu.privacy as a package: its docstring and __all__ agree, and every name is public there."""

import importlib
import re

import pytest

import privpca_edu
from privpca_edu import privacy


def test_docstring_and_all_agree():
    documented = {m.split(".")[-1] for m in re.findall(r":(?:func|class|data):`~?([\w.]+)`", privacy.__doc__)}
    assert documented == set(privacy.__all__), (sorted(documented - set(privacy.__all__)),
                                                sorted(set(privacy.__all__) - documented))
    assert len(privacy.__all__) == len(set(privacy.__all__))


def test_every_name_is_importable_from_the_package_and_lives_in_a_private_module():
    for name in privacy.__all__:
        obj = getattr(privacy, name)
        module = getattr(obj, "__module__", None)
        if module is not None and callable(obj):
            assert module.startswith(("privpca_edu.privacy._", "privpca_edu._validation")), (name, module)


def test_the_old_homes_are_gone():
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("privpca_edu.accounting")
    assert "accounting" not in privpca_edu.__all__
    assert privpca_edu.PrivacyRecord is privacy.PrivacyRecord
