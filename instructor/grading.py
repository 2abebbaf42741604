"""The hidden tests' grader: the same check as ``check_answer``, in code of its own.

Each hidden test of an assignment (``instructor/assignments.py``) contains :data:`GRADER` and one
call ``_privpca_grade("<id>", "<label>", <variable>, KEY, MISTAKES)`` where ``KEY`` is the
exercise's answer key (a salted hash of the grid cell of the expected value, exactly what
:func:`privpca_edu.widgets.check_answer` reads) and ``MISTAKES`` the keys of typical wrong
answers with a hint each.  So the hidden test

* accepts exactly the values ``check_answer`` accepts (same key, same grid: one tolerance);
* never contains the expected value, so ``nbgrader generate_feedback`` cannot print it; a wrong
  answer gets a hint ("off by about √2", "wrong order of magnitude", "δ entered as ε?");
* uses no code of the package, so redefining ``check_answer`` or monkeypatching
  ``privpca_edu`` changes nothing; it also refuses a value that is not a plain number and fails
  (for a manual look) a notebook whose cells redefine the grading machinery.

What it cannot do: nbgrader runs the student's code and the tests in one Python process, so a
student who studies this code can still defeat it (by replacing ``hashlib`` or ``builtins``, say).
The integrity scan makes that visible rather than impossible: see the instructors page.
"""

from __future__ import annotations

import functools
import hashlib

CANARY = hashlib.pbkdf2_hmac("sha256", b"privpca_edu", b"grader", 1).hex()

#: Factors f such that "student value × f is right" earns a hint (the value itself stays hidden).
#: Written as code, not as numbers: the feedback shows this code, and √2 = 1.41421… is an answer.
FACTOR_HINTS = """(
        (2 ** 0.5, "off by a factor of about √2 (too small)"),
        (2 ** -0.5, "off by a factor of about √2 (too large)"),
        (2.0, "off by a factor of 2 (too small)"),
        (0.5, "off by a factor of 2 (too large)"),
        (-1.0, "wrong sign"),
    ) + tuple((10.0 ** p, "wrong order of magnitude (off by a power of ten: a percentage, or a unit?)")
              for p in (-6, -3, -2, -1, 1, 2, 3, 6))"""

# Code of a notebook cell that tampers with what grades it.  The chapters use none of these.
TAMPERING = (r"\bcheck_answer\s*=", r"\bkey_accepts\s*=", r"\b_privpca_grade\b", r"\bexercises\.\w+\s*=",
             r"\bwidgets\.\w+\s*=", r"\bhashlib\b", r"\bbuiltins\b", r"sys\.modules", r"\bsetattr\s*\(",
             r"__class__", r"\bmonkeypatch")

GRADER = f'''\
def _privpca_grade(ident, label, value, key, mistakes):
    """Hidden test: pass, or fail with a hint; never shows the expected value."""
    import builtins as B, hashlib, math, re
    real_float, real_int = (0.0).__class__, (0).__class__
    real_type = real_float.__class__
    pbkdf2 = hashlib.pbkdf2_hmac
    if (real_type(pbkdf2).__name__ != "builtin_function_or_method"
            or pbkdf2("sha256", b"privpca_edu", b"grader", 1).hex() != "{CANARY}"):
        raise AssertionError(label + ": the grading tools were replaced; this submission needs a manual check")
    try:
        history = get_ipython().user_ns.get("In", [])
    except NameError:
        history = []
    for src in history:
        if "_privpca_grade(" in src:
            continue
        for pattern in {TAMPERING!r}:
            if re.search(pattern, src):
                raise AssertionError(label + ": a cell of this notebook redefines the grading machinery ("
                                     + pattern + "); it needs a manual check")
    if value is None:
        raise AssertionError(label + ": not answered")
    t = real_type(value)
    numpy_number = (t.__module__ == "numpy" and t.__name__ in
                    ("float64", "float32", "float16", "int64", "int32", "int16", "int8", "uint64", "uint32"))
    if t not in (real_float, real_int) and not numpy_number:
        raise AssertionError(label + ": the answer must be a number (int or float), got " + t.__name__)
    v = real_float(value)
    if not math.isfinite(v):
        raise AssertionError(label + ": the answer must be a finite number")

    def cells(x, k):
        scheme, step = k["scheme"], k["step"]
        if scheme == "int":
            r = B.round(x)
            return [B.str(real_int(r))] if B.abs(x - r) <= 1e-9 * B.max(1.0, B.abs(x)) else []
        if scheme == "abs":
            j = math.floor(x / step)
            return ["a" + B.str(i) for i in (j - 1, j, j + 1)]
        if x == 0.0:
            return ["zero"]
        j = math.floor(math.log(B.abs(x)) / step)
        return [("+" if x > 0 else "-") + B.str(i) for i in (j - 1, j, j + 1)]

    def hit(x, k):
        if not math.isfinite(x):
            return False
        for token in cells(x, k):
            digest = pbkdf2("sha256", (ident + "|" + token).encode(), B.bytes.fromhex(k["salt"]),
                            k.get("iterations", 20000)).hex()
            if digest == k["digest"]:
                return True
        return False

    if hit(v, key):
        return
    for hint, k in mistakes:
        if hit(v, k):
            raise AssertionError(label + ": not correct. Hint: " + hint)
    for factor, hint in {FACTOR_HINTS}:
        if hit(v * factor, key):
            raise AssertionError(label + ": not correct. Hint: " + hint)
    raise AssertionError(label + ": not correct")
'''


@functools.lru_cache(maxsize=1)
def _grader():
    namespace = {}
    exec(GRADER, namespace)  # noqa: S102 - our own code
    return namespace["_privpca_grade"]


def grade(ident, label, value, key, mistakes=()):
    """Run :data:`GRADER` outside a notebook (tests): None when it passes, else the message."""
    try:
        _grader()(ident, label, value, key, list(mistakes))
    except AssertionError as err:
        return str(err)
    return None
