"""The package version: the one place it is written (pyproject.toml reads it from here).

:func:`source_digest` identifies the exact source a process runs (caches of computed figures
and data are keyed by it).
"""

import functools
import hashlib
from pathlib import Path

__version__ = "0.1.0"


@functools.lru_cache(maxsize=8)
def source_digest(exclude=()):
    """Return a digest of the package's Python source (computed once per process and ``exclude``).

    Parameters
    ----------
    exclude : tuple of str, default ()
        Files left out, as paths relative to the package folder (e.g. ``"widgets/explorable.py"``).

    Returns
    -------
    str
        The hex SHA-256 of every ``.py`` file's relative path and bytes, in sorted order.
    """
    root = Path(__file__).resolve().parent
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        relative = path.relative_to(root).as_posix()
        if relative in exclude:
            continue
        digest.update(relative.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()
