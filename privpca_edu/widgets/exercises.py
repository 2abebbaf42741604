"""A tiny helper for the book's exercises: compare a student's number with the expected one."""

from __future__ import annotations

import math

__all__ = ["check_answer"]


def check_answer(answer, expected, *, rtol=1e-2, atol=0.0, name="your answer", hint=""):
    """Print whether ``answer`` matches ``expected`` (``None`` means "not answered yet").

    Returns ``True``/``False`` (``None`` when unanswered), so a cell can also ``assert`` it.
    Never raises on a wrong answer: a notebook run top to bottom must not stop at an exercise.
    """
    if answer is None:
        print(f"{name}: not answered yet — replace None by your number and run the cell again.")
        return None
    try:
        value = float(answer)
    except (TypeError, ValueError):
        print(f"{name}: expected a number, got {answer!r}.")
        return False
    ok = math.isclose(value, float(expected), rel_tol=rtol, abs_tol=atol)
    if ok:
        print(f"{name} = {value:.6g}: correct.")
    else:
        print(f"{name} = {value:.6g}: not quite." + (f" Hint: {hint}" if hint else ""))
    return ok
