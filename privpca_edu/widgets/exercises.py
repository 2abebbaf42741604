"""Check a student's number against an exercise's answer key without showing the answer.

An exercise cell in the book reads ::

    answer_2_1 = None
    widgets.check_answer("2.1", answer_2_1, hint="sigma = 2T/eps * sqrt(2 log(2T/delta))")

The expected value is *not* in the cell, the page or this module.  The package ships only an
answer key per exercise (``answer_keys.json`` next to this file): a salted, deliberately slow hash
(PBKDF2-HMAC-SHA256) of the *bucket* the expected value falls in, at the precision the exercise
asks for.  The keys are written by ``python -m instructor.answers --write`` from the instructors'
registry (``instructor/answers.py`` in a clone of the repository, outside this package), which
recomputes every expected value with the package itself; neither the wheel, the sdist nor the
student edition ship it.  A term's assignments (``scripts/build_assignments.sh --term SEED``) draw
their own parameters and ship their own key file, which the assignment selects with
:func:`use_answer_keys` (or the environment variable ``PRIVPCA_EDU_ANSWER_KEYS``).

How a float is checked at a tolerance without storing it
--------------------------------------------------------
Three schemes, chosen per exercise by the registry:

``rel`` (relative tolerance ``rtol``)
    Put values on a logarithmic grid of step ``h = -log(1 - rtol)`` (slightly larger than
    ``log(1 + rtol)``, so both sides of the tolerance are covered) and store the hash of the
    expected value's cell ``k_e = floor(log|e| / h)`` together with its sign.  A student's value
    ``v`` lies in cell ``k_v``; it passes when the hash of ``k_v - 1``, ``k_v`` or ``k_v + 1``
    matches.  If ``|v/e - 1| <= rtol`` then ``|log|v| - log|e|| <= h``, so ``|k_v - k_e| <= 1``
    and the answer **passes**; if ``|log|v| - log|e|| >= 2h`` (a relative error of about
    ``2 rtol`` or more) then ``|k_v - k_e| >= 2`` and it **fails**.  Between the two it depends on
    where ``e`` sits in its cell: the check has the exercise's precision, not a sharper one.
``abs`` (absolute tolerance ``atol``, for answers that are 0)
    The same with the linear grid ``k = floor(v / atol)``.
``int`` (an exact count)
    The hash of the integer itself; a value passes only when it is that integer.

What this protects, and what it does not: the expected value cannot be read from the notebook,
the page or the key file — only cells of width ``h`` are hashed, with a per-exercise salt, so there
is no table to look it up in.  A student who writes a loop over every cell of a plausible range
can still find it (each guess costs about 10 ms of hashing by design); graded work therefore uses
the nbgrader assignments, whose parameters change every term and whose hidden tests (on the
instructor's machine only) repeat this very check with their own code, so that they accept exactly
the answers :func:`check_answer` accepts.
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import os
from importlib import resources

__all__ = ["check_answer", "answer_key", "key_accepts", "use_answer_keys", "ANSWER_KEYS_FILE"]

#: The key file, next to this module (package data).
ANSWER_KEYS_FILE = "answer_keys.json"
_ITERATIONS = 20_000
_SCHEMES = ("rel", "abs", "int")
#: Environment variable naming a key file to use instead of the package's (a term's assignment).
KEYS_ENV = "PRIVPCA_EDU_ANSWER_KEYS"
_override = None


def use_answer_keys(keys=None):
    """Check answers against other keys than the book's: ``keys`` is a key file (a term's
    ``answer_keys.json`` from ``scripts/build_assignments.sh --term``; relative to the current
    directory) or the ``{id: key}`` mapping itself (a term's assignment carries its chapter's keys
    in its first cell); ``None`` goes back to the book's keys."""
    global _override
    if keys is not None and not isinstance(keys, dict):
        path = os.path.abspath(os.fspath(keys))
        if not os.path.isfile(path):
            raise FileNotFoundError(f"use_answer_keys: no key file at {path}")
        with open(path, encoding="utf-8") as fh:
            keys = json.load(fh)["exercises"]
    if keys is not None:
        for ident, key in keys.items():
            if not isinstance(key, dict) or key.get("scheme") not in _SCHEMES:
                raise ValueError(f"use_answer_keys: {ident!r} is not an answer key: {key!r}")
    _override = keys
    _keys.cache_clear()


@functools.lru_cache(maxsize=1)
def _keys():
    if _override is not None:
        return _override
    path = os.environ.get(KEYS_ENV)
    if path:
        with open(path, encoding="utf-8") as fh:
            return json.load(fh)["exercises"]
    text = resources.files(__package__).joinpath(ANSWER_KEYS_FILE).read_text(encoding="utf-8")
    return json.loads(text)["exercises"]


def _digest(exercise, salt, token, iterations=_ITERATIONS):
    return hashlib.pbkdf2_hmac("sha256", f"{exercise}|{token}".encode(), bytes.fromhex(salt),
                               iterations).hex()


def _cells(value, scheme, step):
    """The grid cell(s) of ``value`` that a key for ``scheme`` can match (as hash tokens)."""
    if scheme == "int":
        nearest = round(value)
        if abs(value - nearest) > 1e-9 * max(1.0, abs(value)):
            return []
        return [str(int(nearest))]
    if scheme == "abs":
        k = math.floor(value / step)
        return [f"a{j}" for j in (k - 1, k, k + 1)]
    if value == 0.0:
        return ["zero"]
    sign = "+" if value > 0 else "-"
    k = math.floor(math.log(abs(value)) / step)
    return [f"{sign}{j}" for j in (k - 1, k, k + 1)]


def _expected_cell(value, scheme, step):
    if scheme == "int":
        return str(int(round(value)))
    if scheme == "abs":
        return f"a{math.floor(value / step)}"
    if value == 0.0:
        return "zero"
    return f"{'+' if value > 0 else '-'}{math.floor(math.log(abs(value)) / step)}"


def answer_key(exercise, expected, *, rtol=1e-2, atol=0.0, salt=None, iterations=_ITERATIONS):
    """The key (a JSON-able dict) that lets :func:`check_answer` recognise ``expected``.

    ``atol > 0`` selects the absolute grid (use it for answers that are 0), ``rtol == 0`` and
    ``atol == 0`` an exact integer, otherwise the relative grid.  Used by the instructors'
    registry to write ``answer_keys.json``; the salt is derived from the exercise id (or given:
    a term build derives it from the term too), so keys are reproducible and a regenerated file
    only changes where an answer changed.  ``iterations``: of PBKDF2 (tests use fewer).
    """
    if not isinstance(exercise, str) or not exercise:
        raise TypeError(f"exercise must be a non-empty string, got {exercise!r}")
    expected = float(expected)
    if not math.isfinite(expected):
        raise ValueError(f"expected answer of {exercise} must be finite, got {expected}")
    if not (0 <= rtol < 0.5) or not (atol >= 0) or not math.isfinite(atol):
        raise ValueError(f"rtol must be in [0, 0.5) and atol finite and >= 0; got rtol={rtol}, atol={atol}")
    if atol > 0:
        scheme, step = "abs", float(atol)
    elif rtol == 0:
        scheme, step = "int", 0.0
        if expected != round(expected):
            raise ValueError(f"{exercise}: rtol=0 and atol=0 need an integer answer, got {expected}")
    else:
        scheme, step = "rel", -math.log1p(-rtol)
    if salt is None:
        salt = hashlib.sha256(f"privpca_edu answer key {exercise}".encode()).hexdigest()[:32]
    key = {"scheme": scheme, "step": step, "salt": salt,
           "digest": _digest(exercise, salt, _expected_cell(expected, scheme, step), iterations)}
    if iterations != _ITERATIONS:
        key["iterations"] = int(iterations)
    return key


def key_accepts(exercise, value, key):
    """True when ``value`` matches ``key`` (see the module docstring for the precision)."""
    if key["scheme"] not in _SCHEMES:
        raise ValueError(f"unknown answer-key scheme {key['scheme']!r} for {exercise}")
    iterations = key.get("iterations", _ITERATIONS)
    return any(_digest(exercise, key["salt"], token, iterations) == key["digest"]
               for token in _cells(value, key["scheme"], key["step"]))


def check_answer(exercise, answer, *, hint="", name=None):
    """Print whether ``answer`` is right for ``exercise`` (an id such as ``"2.1"``).

    ``None`` means "not answered yet".  Returns ``True``/``False`` (``None`` when unanswered), so
    a cell can also ``assert`` it.  Never raises on a wrong answer: a notebook run top to bottom
    must not stop at an exercise.  ``hint`` is printed after a wrong answer; ``name`` (default
    ``"Exercise <id>"``) labels the message.

    Parameters
    ----------
    exercise : str
        The exercise's id, such as ``"2.1"``.
    answer : object
        The student's answer (``None``: not answered yet).
    hint : str, default=""
        Printed after a wrong answer.
    name : str or None, default=None
        Label of the message (``None``: ``"Exercise <id>"``).

    Returns
    -------
    bool or None
        Whether the answer is right (``None`` when unanswered), so a cell can also ``assert`` it.
    """
    if not isinstance(exercise, str):
        raise TypeError("check_answer(exercise, answer): exercise is an id such as '2.1'; "
                        f"got {exercise!r} (expected values are no longer passed to check_answer)")
    keys = _keys()
    if exercise not in keys:
        raise ValueError(f"no answer key for exercise {exercise!r}; known: {', '.join(sorted(keys))}")
    name = name or f"Exercise {exercise}"
    if answer is None:
        print(f"{name}: not answered yet — replace None by your number and run the cell again.")
        return None
    try:
        value = float(answer)
    except (TypeError, ValueError):
        print(f"{name}: expected a number, got {answer!r}.")
        return False
    if not math.isfinite(value):
        print(f"{name} = {value}: not quite — the answer is a finite number.")
        return False
    ok = key_accepts(exercise, value, keys[exercise])
    if ok:
        print(f"{name} = {value:.6g}: correct.")
    else:
        print(f"{name} = {value:.6g}: not quite." + (f" Hint: {hint}" if hint else ""))
    return ok
