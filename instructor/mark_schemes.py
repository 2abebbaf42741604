"""The open exercises' mark schemes, read from ``instructor/mark_schemes.md``.

Each scheme is a section ``## Exercise X.Y (<notebook stem>, N points)`` with bullet points
``- K point(s): what earns them`` (summing to N) and a model answer.  The assignments give each
open exercise a manually graded cell worth N points whose source version holds the scheme.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path

PATH = Path(__file__).with_name("mark_schemes.md")
HEAD = re.compile(r"^## Exercise (\d+\.\d+) \((\w+), (\d+) points?\)\s*$", re.M)
CRITERION = re.compile(r"^- (\d+) points?: ", re.M)


@dataclass(frozen=True)
class Scheme:
    id: str
    notebook: str
    points: int
    text: str

    def criteria_points(self):
        return sum(int(m.group(1)) for m in CRITERION.finditer(self.text))


@functools.lru_cache(maxsize=1)
def schemes():
    text = PATH.read_text(encoding="utf-8")
    heads = list(HEAD.finditer(text))
    out = []
    for m, nxt in zip(heads, heads[1:] + [None]):
        body = text[m.end():nxt.start() if nxt else len(text)].strip()
        out.append(Scheme(m.group(1), m.group(2) + ".ipynb", int(m.group(3)), body))
    return tuple(out)
