"""``privpca_edu.show_versions()``: what a bug report needs (after ``sklearn.show_versions``)."""

import platform
import sys
from importlib import metadata

#: The libraries whose versions change the package's numbers or figures.
DEPENDENCIES = ("numpy", "scipy", "scikit-learn", "matplotlib", "ipywidgets", "threadpoolctl")


def _versions():
    out = {}
    for name in DEPENDENCIES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = "not installed"
    return out


def show_versions(file=None):
    """Print the versions of Python, the package and its dependencies, the BLAS, and the fast paths.

    Paste its output into a bug report: the numbers a chapter prints depend on these.  The last
    block says whether each optional speed-up is in use here (see
    :func:`privpca_edu.estimators.fast_paths`) and, if not, what runs instead.

    Parameters
    ----------
    file : file-like, optional
        Where to print (default ``sys.stdout``).

    Examples
    --------
    >>> import privpca_edu
    >>> privpca_edu.show_versions()  # doctest: +SKIP
    """
    from threadpoolctl import threadpool_info

    from . import __version__
    from .estimators import fast_paths

    file = sys.stdout if file is None else file
    lines = ["System:", f"    python: {sys.version.split()[0]} ({sys.executable})",
             f"   machine: {platform.platform()}", "", "Python dependencies:",
             f"    privpca_edu: {__version__}"]
    lines += [f"  {name:>13s}: {version}" for name, version in _versions().items()]
    lines += ["", "BLAS and OpenMP (threadpoolctl):"]
    pools = threadpool_info()
    lines += [f"  {p.get('internal_api')} {p.get('version')}, {p.get('num_threads')} thread(s): {p.get('filepath')}"
              for p in pools] or ["  none found"]
    lines += ["", "Fast paths:"]
    for name, path in fast_paths().items():
        state = "in use" if path["available"] else f"not available; instead {path['fallback']}"
        lines.append(f"  {name}: {state} ({path['used_for']})")
    print("\n".join(lines), file=file)
