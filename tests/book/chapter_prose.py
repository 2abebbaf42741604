"""Helpers of the tests that recompute the numbers a chapter's prose quotes.

Each such test reads the chapter's markdown (whitespace collapsed, so line breaks in the notebook
do not matter), checks that a quoted string is still there, and compares the number it shows
with a fresh computation, to within half a unit of its last printed digit.
"""

import re

import nbformat


def markdown_prose(notebook):
    """The markdown cells of ``notebook`` (a path) as one string, runs of whitespace as one space."""
    cells = nbformat.read(notebook, as_version=4).cells
    return re.sub(r"\s+", " ", "\n".join(c.source for c in cells if c.cell_type == "markdown"))


def assert_said(prose, text, chapter):
    """Fail unless the chapter's prose contains ``text`` (whitespace-insensitive)."""
    assert re.sub(r"\s+", " ", text) in prose, f"chapter {chapter} no longer says {text!r}: update the prose and this test"


def half_unit(number_text):
    """Half a unit of the last digit of a decimal as printed ("1.37" → 0.005, "0.0075" → 0.00005)."""
    decimals = len(number_text.split(".")[1]) if "." in number_text else 0
    return 0.5 * 10.0**-decimals


def assert_within_spread(values, mean, sd, what):
    """The mean of a few recomputed repetitions lies within 4 standard errors (quoted sd / √reps) of a
    quoted mean, plus half a unit of its third decimal; an sd below 0.001 counts as 0.001."""
    got = sum(values) / len(values)
    tol = 4 * max(sd, 1e-3) / len(values) ** 0.5 + 5e-4
    assert abs(got - mean) <= tol, (what, got, mean, tol)
