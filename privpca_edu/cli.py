"""The ``privpca`` command (installed with the package).

``privpca demo [--epsilon E] [--delta D] [--seed S]``
    The one-screen comparison of ``python -m privpca_edu.demo``.
``privpca reproduce PAPER [--scale quick|book|paper] ...``
    ``python -m privpca_edu.reproduce``: a paper's experiments, CSV tables, figures and report.md.
``privpca notebooks DIR [--force]``
    Write the book's ten chapters (Jupyter notebooks) into DIR, to open in JupyterLab.
"""

from __future__ import annotations

import os
import shutil
import sys
from importlib import resources

COMMANDS = {
    "demo": "four estimators on the same data, side by side (python -m privpca_edu.demo)",
    "reproduce": "rerun a paper's experiments and write a report (python -m privpca_edu.reproduce)",
    "notebooks": "write the book's ten chapters (Jupyter notebooks) into a folder",
}


def chapter_files():
    """Paths of the ten chapter notebooks shipped with the package, in order.

    In a wheel they are package data (``privpca_edu/_notebooks``, copied at build time from the
    repository's ``notebooks/``, their one source); in a clone or an editable install they are
    read from ``notebooks/`` directly.
    """
    try:
        packaged = resources.files("privpca_edu") / "_notebooks"
        found = sorted(str(p) for p in packaged.iterdir() if p.name.endswith(".ipynb")) if packaged.is_dir() else []
    except (FileNotFoundError, NotADirectoryError, TypeError):
        found = []
    if not found:
        source = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "notebooks")
        if os.path.isdir(source):
            found = sorted(os.path.join(source, f) for f in os.listdir(source) if f.endswith(".ipynb"))
    return found


def write_notebooks(directory, *, force=False):
    """Copy the chapters into ``directory`` (created if needed); returns the written paths.

    Existing files are kept unless ``force`` (a student's edited copy is never overwritten silently).
    """
    files = chapter_files()
    if not files:
        raise FileNotFoundError("this installation has no chapter notebooks (a wheel built without them?)")
    os.makedirs(directory, exist_ok=True)
    clashes = [os.path.basename(f) for f in files if os.path.exists(os.path.join(directory, os.path.basename(f)))]
    if clashes and not force:
        raise FileExistsError(f"{directory} already has {', '.join(clashes)}; pass --force to overwrite")
    written = []
    for f in files:
        target = os.path.join(directory, os.path.basename(f))
        shutil.copyfile(f, target)
        written.append(target)
    return written


def _notebooks(argv):
    import argparse

    parser = argparse.ArgumentParser(prog="privpca notebooks", description=COMMANDS["notebooks"])
    parser.add_argument("directory", help="where to write them (created if missing)")
    parser.add_argument("--force", action="store_true", help="overwrite chapters already there")
    args = parser.parse_args(argv)
    try:
        written = write_notebooks(args.directory, force=args.force)
    except (FileExistsError, FileNotFoundError) as exc:
        print(f"privpca notebooks: {exc}", file=sys.stderr)
        return 1
    for path in written:
        print(path)
    print(f"{len(written)} chapters in {args.directory}; open them with:  jupyter lab {args.directory}"
          "   (JupyterLab and the book's extras: pip install 'privpca_edu[book]')")
    return 0


def _usage(stream):
    print("usage: privpca COMMAND [ARGS]   (privpca COMMAND --help for its options)\n", file=stream)
    for name, text in COMMANDS.items():
        print(f"  {name:<10} {text}", file=stream)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv or argv[0] in ("-h", "--help"):
        _usage(sys.stdout if argv else sys.stderr)
        return 0 if argv else 2
    if argv[0] == "--version":
        from ._version import __version__

        print(f"privpca_edu {__version__}")
        return 0
    command, rest = argv[0], argv[1:]
    if command == "demo":
        from .demo import main as demo

        return demo(rest, prog="privpca demo") or 0
    if command == "reproduce":
        from .reproduce.__main__ import main as reproduce

        return reproduce(rest, prog="privpca reproduce")
    if command == "notebooks":
        return _notebooks(rest)
    print(f"privpca: unknown command {command!r}", file=sys.stderr)
    _usage(sys.stderr)
    return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
