"""Every public docstring passes numpydoc's validation (``numpydoc.validate.validate``).

What is public: the package and every name in ``privpca_edu.__all__`` and in the ``__all__`` of
each submodule of ``privpca_edu._SUBMODULES`` (and of the submodules those list, such as
``privpca_edu.experiments.dps_pca``); for a public class, its public methods and properties,
including those it inherits from a class of the package.  An object is validated once, under the
module that defines it, so a name re-exported in several places is reported once.

The checks are numpydoc's whole set minus the ones ``[tool.numpydoc_validation] checks`` in
``pyproject.toml`` switches off (the test reads that table; it is the one home of the choice):

* ``GL01`` (where the summary starts): the package follows PEP 257, summary on the line of the
  opening quotes; numpydoc 1.11 accepts that, earlier versions ask for the next line (scikit-learn
  leaves GL01 out for the same reason).
* ``ES01`` (no extended summary), ``EX01`` (no Examples section), ``SA01`` (no See Also section):
  sections that help in places, not everywhere: a one-line helper needs no extended summary, the
  chapters and ``tests/test_doctests.py`` carry the worked examples, and a See Also list on every
  function would be noise.  scikit-learn asks for these three on classes only; numpydoc's own
  documentation of its validation hook leaves exactly these three out in its example.

Everything else is on: a one-line summary that starts with a capital, ends with a period and
does not open with a verb in the third person (SS01-SS06); closing quotes on their own line, no
double blank lines, known sections in the standard order (GL02-GL10); every parameter documented,
in signature order, with a type and a capitalised description ending with a period (PR01-PR10); a
Returns section whenever something is returned, whose single value is a type, not a name
(RT01-RT05; RT02 stays on, unlike scikit-learn, which names returned values); Yields for
generators (YD01); See Also entries well formed where they exist (SA02-SA04).  numpydoc's own
parser warnings (an unknown section, a wrong underline) fail too.  Two refinements of PR01 (every
parameter documented), both about what is not public API: an argument whose name starts with an
underscore is private and need not be documented, and a class may document the arguments it
stores as they are under Attributes instead of Parameters (dataclasses and result types, whose
users read fields and never call the constructor).  A line ``# numpydoc ignore=CODE`` on a
``def`` line is honoured (numpydoc's per-object escape hatch); the package uses none.

``RESTRUCTURING`` lists modules that are being rewritten; names defined there are validated once
their new layout has landed (remove the entry then).
"""

import ast
import importlib
import importlib.util
import inspect
import pathlib
import tomllib
import warnings
from collections import defaultdict

import numpydoc.validate
import pytest
from numpydoc.docscrape import get_doc_object

import privpca_edu

ROOT = pathlib.Path(__file__).resolve().parents[1]
CONFIG = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["numpydoc_validation"]
CHECKS = numpydoc.validate.get_validation_checks(set(CONFIG["checks"]))

#: Modules being restructured: their names are skipped here and validated after the restructure.
#: A prefix covers the module and everything under it (``privpca_edu.datasets`` = datasets/*).
RESTRUCTURING = set()


def _ours(obj):
    module = getattr(obj, "__module__", None) or ""
    return module == "privpca_edu" or module.startswith("privpca_edu.")


def _home(obj):
    """The module that defines ``obj`` (a module is its own home)."""
    if inspect.ismodule(obj):
        return obj.__name__
    if isinstance(obj, property):
        obj = obj.fget
    return obj.__module__


def _restructuring(module_name):
    return any(module_name == p or module_name.startswith(p + ".") for p in RESTRUCTURING)


def public_objects():
    """Every public object of the package, as ``{dotted name: object}`` (each object once)."""
    found = {}  # id -> (name, object)

    def add(name, obj):
        found.setdefault(id(obj), (name, obj))

    def walk(module):
        add(module.__name__, module)
        for name in getattr(module, "__all__", ()):
            if name.startswith("__"):  # __version__
                continue
            obj = getattr(module, name)
            if inspect.ismodule(obj):
                if obj.__name__.startswith("privpca_edu."):
                    walk(obj)
            elif inspect.isclass(obj) and _ours(obj):
                add(f"{obj.__module__}.{obj.__qualname__}", obj)
                for klass in obj.__mro__:
                    if not _ours(klass):  # scikit-learn's, matplotlib's, the standard library's
                        continue
                    for attr, raw in vars(klass).items():
                        if attr.startswith("_"):
                            continue
                        if isinstance(raw, (staticmethod, classmethod)):
                            raw = raw.__func__
                        if isinstance(raw, property) or inspect.isfunction(raw):
                            add(f"{klass.__module__}.{klass.__qualname__}.{attr}", raw)
            elif callable(obj) and _ours(obj):
                add(f"{obj.__module__}.{obj.__qualname__}", obj)
            # data (constants, tables) has no docstring of its own to validate

    walk(privpca_edu)
    for sub in privpca_edu._SUBMODULES:
        walk(importlib.import_module(f"privpca_edu.{sub}"))
    return dict(sorted(found.values(), key=lambda item: item[0]))


class _Validator(numpydoc.validate.Validator):
    """numpydoc's validator, handed the object itself rather than its dotted name."""

    def __init__(self, obj_name, obj):
        super().__init__(get_doc_object(obj))
        self._dotted = obj_name

    @property
    def source_file_def_line(self):
        # numpydoc (1.8 to 1.11 at least) raises StopIteration for a module with no ``def`` or
        # ``class`` in it (an ``__init__.py`` of imports); a module's docstring starts at line 1.
        return 1 if inspect.ismodule(self.obj) else super().source_file_def_line


def _attribute_names(obj):
    if not inspect.isclass(obj):
        return set()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        doc = get_doc_object(obj)
    return {n.strip() for item in doc["Attributes"] for n in item.name.split(",")}


def docstring_errors(name, obj):
    """The ``(code, message)`` pairs numpydoc reports for ``obj`` under ``CHECKS``.

    Parameters
    ----------
    name : str
        The dotted name shown in messages.
    obj : object
        A module, class, function, method or property.

    Returns
    -------
    list of tuple of str
        The errors whose code is in ``CHECKS``, then one ``("PARSE", warning)`` per warning of
        numpydoc's parser (an unknown section, a wrong underline).
    """
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = numpydoc.validate.validate(name, validator_cls=_Validator, obj=obj)
    errors = []
    for code, message in result["errors"]:
        if code not in CHECKS:
            continue
        if code == "PR01":
            # an underscore argument is private (not part of the API); a stored argument may be
            # documented under Attributes instead (dataclasses, result types)
            missing = {m for m in ast.literal_eval(message.split(" not documented")[0].removeprefix("Parameters "))}
            missing -= {m for m in missing if m.lstrip("*").startswith("_")} | _attribute_names(obj)
            if not missing:
                continue
            message = f"Parameters {sorted(missing)} not documented"
        errors.append((code, message))
    errors += [("PARSE", str(w.message).splitlines()[0]) for w in caught if issubclass(w.category, UserWarning)]
    return errors


OBJECTS = public_objects()
BY_MODULE = defaultdict(dict)
for _name, _obj in OBJECTS.items():
    BY_MODULE[_home(_obj)][_name] = _obj
CHECKED_MODULES = sorted(m for m in BY_MODULE if not _restructuring(m))


@pytest.mark.parametrize("module", CHECKED_MODULES)
def test_public_docstrings_pass_numpydoc(module):
    failures = [
        f"{name}: {code} {message}"
        for name, obj in BY_MODULE[module].items()
        for code, message in docstring_errors(name, obj)
    ]
    assert not failures, f"{len(failures)} numpydoc error(s) in {module}:\n" + "\n".join(failures)


def test_only_the_documented_checks_are_off():
    # loosening the check set is a decision: it has to be made here and in the docstring too
    assert set(numpydoc.validate.ERROR_MSGS) - CHECKS == {"GL01", "ES01", "EX01", "SA01"}


def test_the_public_surface_is_all_enumerated():
    # the walk reaches classes, their inherited and own methods, properties, functions and the
    # modules listed in a submodule's __all__; a broken walk would make the test above vacuous
    for name in [
        "privpca_edu",
        "privpca_edu.subspace.subspace_distance",
        "privpca_edu.estimators.covariance.AnalyzeGauss",
        "privpca_edu.estimators.covariance.NoisyMatrixMechanism.sample_releases",
        "privpca_edu.experiments.dps_pca",
        "privpca_edu.widgets.dashboard.Dashboard.refresh",
        "privpca_edu.protocol.transcript.Message.kind",
    ]:
        assert name in OBJECTS, name
    assert len(OBJECTS) > 350
    assert sum(len(BY_MODULE[m]) for m in CHECKED_MODULES) > 250


def test_restructuring_entries_are_real_modules():
    # an entry that names no module would hide a typo (a module may define no public name)
    for prefix in RESTRUCTURING:
        assert importlib.util.find_spec(prefix) is not None, prefix


def test_the_checker_can_fail():
    def noisy_scale(epsilon, delta, sensitivity=1.0):
        """returns the noise scale
        for a Gaussian mechanism

        Parameters
        ----------
        epsilon: float
            privacy loss
        """
        return sensitivity / epsilon

    codes = {code for code, _ in docstring_errors("noisy_scale", noisy_scale)}
    # a lower-case summary in the third person, over two lines, without a period; delta and
    # sensitivity undocumented; "epsilon:" without the space; no Returns although it returns
    assert {"SS02", "SS03", "SS05", "SS06", "PR01", "PR10", "RT01"} <= codes, codes

    def clean_scale(epsilon, sensitivity=1.0):
        """Return the noise scale of a mechanism.

        Parameters
        ----------
        epsilon : float
            Privacy loss, > 0.
        sensitivity : float, default=1.0
            The L2 sensitivity.

        Returns
        -------
        float
            ``sensitivity / epsilon``.
        """
        return sensitivity / epsilon

    assert docstring_errors("clean_scale", clean_scale) == []


def test_an_unknown_section_fails():
    def f():
        """Return nothing.

        Derivation
        ----------
        None.
        """

    codes = {code for code, _ in docstring_errors("f", f)}
    assert {"GL06", "PARSE"} <= codes, codes


# ---------------------------------------------------------------------------------------------
# Mathematics in docstrings survives Python's string escapes
# ---------------------------------------------------------------------------------------------
#: What a LaTeX command becomes in a non-raw string: \a(lpha) \b(eta) \f(rac) \v(arepsilon) \r(ho)
#: \t(heta, au, op, imes, ilde) (the package's docstrings hold no tab of their own).
CONTROL = {"\a": r"\a", "\b": r"\b", "\f": r"\f", "\v": r"\v", "\r": r"\r", "\t": r"\t"}


def _docstrings(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            doc = ast.get_docstring(node, clean=False)
            if doc:
                yield getattr(node, "name", path.stem), node.body[0].lineno, doc


def _math_damage(doc):
    """Where the docstring's mathematics was broken by an escape: a control character, or an
    inline ``:math:`` span cut by a line break that is not indented (``\\r`` of ``\\rho`` read as
    a line end when the file was written)."""
    found = [f"{CONTROL[c]} read as a control character" for c in CONTROL if c in doc]
    for span in doc.split(":math:`")[1:]:
        body = span.split("`", 1)[0]
        if any(line[:1] not in ("", " ") for line in body.split("\n")[1:]):
            found.append(f"a line break at column 0 inside :math:`{body[:30]}...`")
    return found


def test_docstring_mathematics_is_intact():
    damaged = [f"{path.relative_to(ROOT)}:{line} {name}: {problem}"
               for path in sorted((ROOT / "privpca_edu").rglob("*.py"))
               for name, line, doc in _docstrings(path)
               for problem in _math_damage(doc)]
    assert not damaged, "\n".join(damaged)


def test_the_mathematics_check_finds_a_broken_rho():
    broken = 'def f():\n    r"""Moves Y by :math:`\\sqrt k/\nho` at most."""\n'
    doc = ast.get_docstring(ast.parse(broken).body[0], clean=False)
    assert _math_damage(doc) and _math_damage("x \\beta".replace("\\b", "\b"))
    assert _math_damage("Gram :math:`X^\top X/n`")  # \t of \top read as a tab
    assert not _math_damage(r"Moves Y by :math:`\sqrt k/\rho` at most, :math:`a +" "\n    b`.")
