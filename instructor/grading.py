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
  (for a manual look) a notebook whose cells redefine the grading machinery or set an attribute
  of the package;
* where the exercise asks for intermediate values (a σ before a ratio, μ before Φ(μ/2), the
  eigenvalues before an exponential; ``instructor/answers.py`` declares them, the answer cell's
  template names them), checks that the student's cell defined each with the right type and
  shape and a value within its own tolerance (a salted key of its own), and that the answer
  follows from them (the exercise's formula recomputed with ``math`` only, never the package).
  An answer typed in by hand, or obtained from a patched package, fails without them.

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
             r"__class__", r"\bmonkeypatch", r"\bmock\b", r"\bimportlib\b",
             # an attribute of the package set (privacy.gaussian_sigma = ...)
             r"\b(?:pp|privpca_edu|privacy|experiments|bounds|audit|subspace|datasets|estimators|plotting|nc"
             r"|local|robust)(?:\.\w+)+\s*=(?!=)")

GRADER = f'''\
def _privpca_grade(ident, label, value, key, mistakes, checks=None, scope=None):
    """Hidden test: pass, or fail with a hint; never shows the expected value.  ``checks``: the
    exercise's intermediates (type, shape, salted key) and relations (the answer recomputed from
    them with math only), read from ``scope`` (the notebook's globals)."""
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
    def number(x, what):
        t = real_type(x)
        numpy_number = (t.__module__ == "numpy" and t.__name__ in
                        ("float64", "float32", "float16", "int64", "int32", "int16", "int8", "uint64", "uint32"))
        if t not in (real_float, real_int) and not numpy_number:
            raise AssertionError(label + ": " + what + " must be a number (int or float), got " + t.__name__)
        x = real_float(x)
        if not math.isfinite(x):
            raise AssertionError(label + ": " + what + " must be a finite number")
        return x

    def numbers(x, shape, what):
        t = real_type(x)
        if t.__module__ == "numpy" and t.__name__ == "ndarray":
            got = real_type(x.shape)
            dims = [real_int(n) for n in x.shape] if got is real_type(()) else None
            items = x.reshape(-1).tolist() if dims == B.list(shape) else None
        elif t in (real_type([]), real_type(())) and B.len(shape) == 1:
            dims, items = [B.len(x)], B.list(x)
        else:
            raise AssertionError(label + ": " + what + " must be an array of shape " + B.str(B.tuple(shape))
                                 + ", got " + t.__name__)
        if dims != B.list(shape):
            raise AssertionError(label + ": " + what + " must have shape " + B.str(B.tuple(shape)))
        return [number(item, what + "'s elements") for item in items]

    if value is None:
        raise AssertionError(label + ": not answered")
    v = number(value, "the answer")

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

    def hit(x, k, who=ident):
        if not math.isfinite(x):
            return False
        for token in cells(x, k):
            digest = pbkdf2("sha256", (who + "|" + token).encode(), B.bytes.fromhex(k["salt"]),
                            k.get("iterations", 20000)).hex()
            if digest == k["digest"]:
                return True
        return False

    if hit(v, key):
        if checks is None:
            return
        scope = {{}} if scope is None else scope
        found = {{}}
        for entry in checks["values"]:
            name = entry["name"]
            what = name + " (asked for on the way to the answer)"
            x = scope.get(name)
            if x is None:
                raise AssertionError(label + ": " + what + " is not defined; the answer must be computed "
                                     "from it in this cell")
            if entry["shape"] is None:
                items = [number(x, what)]
            else:
                items = numbers(x, entry["shape"], what)
                if entry["sorted"]:
                    items = B.sorted(items)
            for sub, k, item in B.zip(entry["ids"], entry["keys"], items):
                if not hit(item, k, sub):
                    raise AssertionError(label + ": " + what + " is not correct")
            found[name] = items[0] if entry["shape"] is None else B.tuple(items)
        for rel in checks["relations"]:
            names = {{"__builtins__": {{}}, "math": math, "max": B.max, "min": B.min, "abs": B.abs,
                      "sum": B.sum, "len": B.len}}
            try:
                r = real_float(B.eval(rel["expr"], names, B.dict(found)))
            except (ArithmeticError, ValueError, TypeError, NameError):
                r = math.nan
            tol = B.max(rel["rtol"] * B.max(B.abs(v), B.abs(r)), rel["atol"], 1e-9 * B.abs(v))
            if not (math.isfinite(r) and B.abs(r - v) <= tol):
                raise AssertionError(label + ": the answer does not follow from your "
                                     + ", ".join(B.sorted(found)) + " (the exercise's formula)")
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


def grade(ident, label, value, key, mistakes=(), checks=None, scope=None):
    """Run :data:`GRADER` outside a notebook (tests): None when it passes, else the message;
    ``scope``: the names the intermediates of ``checks`` are read from."""
    try:
        _grader()(ident, label, value, key, list(mistakes), checks, scope)
    except AssertionError as err:
        return str(err)
    return None
