"""Book lint on the notebooks' sources: a symbol of the notation page is defined before a chapter uses it.

The notation page (book/notation.md) names, for every symbol, the chapter that introduces it.  In
that chapter the symbol's first use in the text — after the title and the "What you will learn"
cell, which preview the chapter — must be the sentence that defines it, or come after it.
:data:`DEFINITIONS` holds, for each (chapter, symbol), the words that define it; a symbol the
notation page introduces in a chapter without an entry here fails, so a new entry on the page
needs its definition named.  (The built pages are linted in tests/browser/test_built_pages_lint.py.)
Cost: reading six notebooks, well under a second.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NOTATION = ROOT / "book" / "notation.md"

#: (notebook, symbol as the notation page writes it) → the words of the chapter that define it
#: (None: the chapter does not use the symbol at all).
DEFINITIONS = {
    ("01_why_private_pca.ipynb", "n"): "A clinic holds $n$ records",
    ("01_why_private_pca.ipynb", "d"): r"$x_1,\dots,x_n\in\mathbb R^d$",
    ("01_why_private_pca.ipynb", "X"): "the rows of the data matrix $X$",
    ("01_why_private_pca.ipynb", "B"): "every row has norm at most $B = 1$",
    ("01_why_private_pca.ipynb", "k"): r"publishes the top-$k$ eigenvectors of $\hat A$",
    ("01_why_private_pca.ipynb", r"\Sigma"): None,  # chapter 1 writes the matrix A (the page says so)
    ("01_why_private_pca.ipynb", r"\Phi"): r"($\Phi$ is the standard normal CDF",
    ("02_dp_in_one_sitting.ipynb", "D"): "Two data sets $D$ and $D'$ are **neighbours**",
    ("02_dp_in_one_sitting.ipynb", "T"): "the $T$ steps of an iterative method",
    ("02_dp_in_one_sitting.ipynb", r"\varepsilon"): r"**$(\varepsilon,\delta)$-differentially private**",
    ("02_dp_in_one_sitting.ipynb", r"\Delta"): r"\Delta \;=\; \sup_{D\simeq D'}",
    ("02_dp_in_one_sitting.ipynb", r"\sigma"): r"add Gaussian noise: $M(D) = f(D) + \mathcal N(0, \sigma^2 I)$",
    ("03_subspaces.ipynb", "U"): r"matrix $\hat U$ with orthonormal columns",
    ("06_local_privacy.ipynb", "s^*"): "this chapter writes $d$ and $s^*$",
    ("07_encrypted_distributed.ipynb", "L"): "$L$ owners",
    ("08_dps_pca.ipynb", r"\hat s"): r"we keep only the $\hat s$ rows",
    ("08_dps_pca.ipynb", "N"): "With $N$ providers",
    ("09_heavy_tails.ipynb", r"\eta"): "replaces a fraction η of the records",
}
#: Symbols the chapters also write as a Unicode letter in running text.
UNICODE = {r"\eta": "η", r"\Delta": "Δ", r"\Phi": "Φ", r"\varepsilon": "ε", r"\sigma": "σ"}
#: How far before its defining words a first use may stand in the same cell: a display followed by
#: "where … is …", or a sentence that names the symbol before saying what it is.
SAME_CELL_WINDOW = 400


def introduced_symbols():
    """(symbol, notebook) for each simple symbol of the notation page, with the chapter that introduces it."""
    text = NOTATION.read_text(encoding="utf-8")
    part = text.split("## Symbols", 1)[1].split("### Where the papers use other letters", 1)[0]
    out = []
    for head, body in re.findall(r"^(\$[^\n]*?\$)\n((?:: |  ).*?)(?=\n\n|\Z)", part, flags=re.M | re.S):
        intro = re.search(r"\[Chapter \d+\]\(\.\./notebooks/(\d\d_[^)]*\.ipynb)\)", body)
        symbol = re.match(r"\$([^$]+)\$", head).group(1)
        if intro and re.fullmatch(r"[A-Za-z]|\\[A-Za-z]+|s\^\*|\\hat s", symbol):
            out.append((symbol, intro.group(1)))
    return out


def _token(symbol):
    if re.fullmatch(r"[A-Za-z]", symbol):
        return re.compile(r"(?<![\\A-Za-z])" + re.escape(symbol) + r"(?![A-Za-z])")
    return re.compile(re.escape(symbol) + r"(?![A-Za-z])")


def _cells(notebook):
    """The chapter's markdown cells after its title and objectives, code spans removed."""
    cells = json.loads((ROOT / "notebooks" / notebook).read_text(encoding="utf-8"))["cells"]
    for index, cell in enumerate(cells):
        text = "".join(cell["source"])
        if cell["cell_type"] != "markdown" or text.lstrip().startswith(("# ", "## What you will learn")):
            continue
        yield index, re.sub(r"\s+", " ", re.sub(r"`[^`]*`", "", text))


def first_use(notebook, symbol):
    """(cell index, offset) of the first use of ``symbol`` in maths (or as its Unicode letter)."""
    token, letter = _token(symbol), UNICODE.get(symbol)
    pattern = re.compile(r"\$\$(.+?)\$\$|\$([^$\n]+?)\$" + (f"|({re.escape(letter)})" if letter else ""), re.S)
    for index, text in _cells(notebook):
        for m in pattern.finditer(text):
            body = m.group(1) or m.group(2)
            if body is None or token.search(body):
                return index, m.start()
    return None


def definition(notebook, words):
    words = re.sub(r"\s+", " ", words)
    for index, text in _cells(notebook):
        at = text.find(words)
        if at >= 0:
            return index, at
    return None


def test_the_notation_page_lists_the_symbols_this_lint_checks():
    listed = set(introduced_symbols())
    assert {(s, nb) for nb, s in DEFINITIONS} == listed, (
        "every symbol the notation page introduces in a chapter needs its defining words in DEFINITIONS: "
        f"missing {sorted(listed - {(s, nb) for nb, s in DEFINITIONS})}, "
        f"stale {sorted({(s, nb) for nb, s in DEFINITIONS} - listed)}")


#: Uses before the definition that the lint has found and that are still to be fixed in the chapter
#: (strict: the test fails once the chapter is fixed, so that the entry is removed).
KNOWN = {}


def _params():
    for key in sorted(DEFINITIONS):
        marks = [pytest.mark.xfail(strict=True, reason=KNOWN[key])] if key in KNOWN else []
        yield pytest.param(*key, marks=marks, id=f"{key[0][:2]}-{key[1]}")


@pytest.mark.parametrize("notebook,symbol", list(_params()))
def test_symbols_are_defined_before_they_are_used(notebook, symbol):
    if DEFINITIONS[notebook, symbol] is None:  # named on the page, but the chapter writes another letter
        assert first_use(notebook, symbol) is None
        return
    where = definition(notebook, DEFINITIONS[notebook, symbol])
    assert where is not None, f"{notebook} no longer says {DEFINITIONS[notebook, symbol]!r}"
    used = first_use(notebook, symbol)
    assert used is not None
    (def_cell, def_at), (use_cell, use_at) = where, used
    assert use_cell > def_cell or (use_cell == def_cell and use_at >= def_at - SAME_CELL_WINDOW), (
        f"{notebook}: ${symbol}$ is used in cell {use_cell} before the words that define it "
        f"({DEFINITIONS[notebook, symbol]!r}, cell {def_cell})")


def test_the_lint_catches_a_use_before_the_definition(tmp_path, monkeypatch):
    """The check fails on chapter 8 as it was: √N σ/n two cells before N was defined."""
    nb = json.loads((ROOT / "notebooks" / "08_dps_pca.ipynb").read_text(encoding="utf-8"))
    early = next(i for i, c in enumerate(nb["cells"]) if "## The idea in plain words" in "".join(c["source"]))
    nb["cells"][early]["source"].append("\n(total noise $\\sqrt N\\sigma/n$)\n")
    (tmp_path / "notebooks").mkdir()
    (tmp_path / "notebooks" / "08_dps_pca.ipynb").write_text(json.dumps(nb), encoding="utf-8")
    monkeypatch.setattr(__import__(__name__), "ROOT", tmp_path)
    with pytest.raises(AssertionError, match="used in cell"):
        test_symbols_are_defined_before_they_are_used("08_dps_pca.ipynb", "N")
