"""The repository's root, for the course-kit builders (slides, PDF, student edition).

The answer registry is no longer here: it lives with the instructor tooling in
``instructor/answers.py`` (outside the package; see :func:`registry`).
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def registry():
    """The instructors' answer registry (``instructor.answers``) of this clone; a clear error
    where the ``instructor/`` folder is absent (an sdist, a student's copy)."""
    if not (ROOT / "instructor" / "answers.py").exists():
        raise ModuleNotFoundError(
            f"the instructor tooling (instructor/answers.py) is not in {ROOT}: it ships only in a "
            "clone of the repository, not in the wheel, the sdist or the student edition")
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    return importlib.import_module("instructor.answers")
