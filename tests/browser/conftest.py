"""Fixtures for the browser tests: Debian's Chromium driven by Playwright, the built book served
on 127.0.0.1, and a throw-away JupyterLab server.

Everything here talks only to this machine (127.0.0.1).  Chromium is /usr/bin/chromium from
Debian's package (scripts/setup_env.sh installs it); Playwright's own browser download is never
used.  The tests skip, with the reason, only when that binary or the playwright module is
missing.

Environment:
    PRIVPCA_BOOK_BUILT=1   reuse an existing _build/html instead of building the book afresh
                           (quick local iteration; the default and CI always rebuild).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BUILD_HTML = ROOT / "_build" / "html"
BUILD_LOG = ROOT / "_build" / "book-build.log"
CHROMIUM = Path("/usr/bin/chromium")

# Flags for Chromium in this sandbox (root, no GPU, no network but loopback): without the
# background-networking ones Chromium keeps trying to reach Google's services.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]

# Lines of the build log that contain "WARNING" but are not warnings about the book:
# ipykernel >= 7 logs this notice whenever a kernel talks TCP on loopback, which is how
# myst-nb runs every notebook.
HARMLESS_LOG_LINES = [
    re.compile(r"\[IPKernelApp\] WARNING \| Kernel is running over TCP without encryption"),
]


def _venv_tool(name: str) -> str:
    """A console script installed next to the running interpreter (the project's .venv)."""
    candidate = Path(sys.executable).parent / name
    if candidate.exists():
        return str(candidate)
    found = shutil.which(name)
    if found is None:
        pytest.fail(f"{name} is not installed next to {sys.executable} nor on PATH")
    return found


def free_port() -> int:
    """A TCP port on 127.0.0.1 that is free right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="session", name="free_port")
def _free_port_fixture():
    """The free_port function, for test modules (they cannot import this conftest by name)."""
    return free_port


def wait_for_http(url: str, timeout: float, proc: subprocess.Popen | None = None) -> None:
    """Poll ``url`` until it answers 200, the process dies, or ``timeout`` seconds pass."""
    deadline = time.monotonic() + timeout
    last_error: Exception | None = None
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"server exited with code {proc.returncode} before answering {url}")
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.status == 200:
                    return
        except (urllib.error.URLError, ConnectionError, OSError) as exc:
            last_error = exc
        time.sleep(0.2)
    raise TimeoutError(f"{url} did not answer within {timeout} s (last error: {last_error})")


def stop_process(proc: subprocess.Popen, timeout: float = 10) -> None:
    """Stop one process we started, by its PID: SIGTERM, then SIGKILL if it lingers."""
    if proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=timeout)


@contextlib.contextmanager
def static_server(directory: Path):
    """Serve ``directory`` with ``python -m http.server`` on a free 127.0.0.1 port."""
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1",
         "--directory", str(directory)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        base = f"http://127.0.0.1:{port}"
        wait_for_http(base + "/", timeout=20, proc=proc)
        yield base
    finally:
        stop_process(proc)


# Hard limits, so that a hung browser or server fails the run instead of eating CI's time.
TEST_TIME_LIMIT = 900        # seconds per browser test (its own waits are much shorter)
BUILD_TIME_LIMIT = 1800      # seconds for the whole book build


@pytest.fixture(autouse=True)
def _watchdog(request):
    """Fail a browser test that runs longer than TEST_TIME_LIMIT seconds (SIGALRM)."""
    if not hasattr(signal, "SIGALRM"):
        yield
        return

    def on_alarm(signum, frame):
        raise TimeoutError(f"{request.node.nodeid} ran longer than {TEST_TIME_LIMIT} s")

    previous = signal.signal(signal.SIGALRM, on_alarm)
    signal.alarm(TEST_TIME_LIMIT)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


# --- Chromium ------------------------------------------------------------------------------

@pytest.fixture(scope="session")
def chromium():
    """A headless Debian Chromium driven by Playwright (sync API)."""
    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} is missing (Debian package 'chromium'; scripts/setup_env.sh installs it)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("the playwright Python package is missing (scripts/setup_env.sh installs it)")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
        )
        try:
            yield browser
        finally:
            browser.close()


# --- the static book -----------------------------------------------------------------------

def build_book() -> str:
    """Build the book from a clean _build with the strict flags; return the build log."""
    env = dict(os.environ)
    env.update(MPLBACKEND="Agg", OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1",
               MKL_NUM_THREADS="1", PYTHONDONTWRITEBYTECODE="1")
    fetch = subprocess.run(["bash", str(ROOT / "scripts" / "fetch_vendor.sh")], cwd=ROOT, env=env,
                           capture_output=True, text=True)
    assert fetch.returncode == 0, f"scripts/fetch_vendor.sh failed:\n{fetch.stdout}\n{fetch.stderr}"
    # a clean static build, as scripts/build_book.sh (the live build in _build/live stays)
    for folder in ("html", "jupyter_execute", ".doctrees"):
        shutil.rmtree(ROOT / "_build" / folder, ignore_errors=True)
    started = time.monotonic()
    try:
        build = subprocess.run(
            [_venv_tool("jupyter-book"), "build", ".", "-W", "-n", "--keep-going"],
            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            timeout=BUILD_TIME_LIMIT,
        )
    except subprocess.TimeoutExpired as exc:
        output = exc.output.decode(errors="replace") if isinstance(exc.output, bytes) else (exc.output or "")
        pytest.fail(f"the book build took longer than {BUILD_TIME_LIMIT} s:\n{output[-3000:]}")
    log = build.stdout
    BUILD_LOG.parent.mkdir(parents=True, exist_ok=True)
    BUILD_LOG.write_text(log + f"\n[exit code {build.returncode}, {time.monotonic() - started:.0f} s]\n")
    if build.returncode != 0:
        problems = [line for line in log.splitlines() if "WARNING" in line or "ERROR" in line
                    or "Error" in line or "Traceback" in line]
        pytest.fail(
            "jupyter-book build -W -n --keep-going failed (exit %d); full log in %s; problems:\n%s"
            % (build.returncode, BUILD_LOG.relative_to(ROOT), "\n".join(problems[:40]) or "\n".join(log.splitlines()[-20:])),
            pytrace=False,
        )
    return log


def unexpected_warnings(log: str) -> list[str]:
    return [
        line for line in log.splitlines()
        if "WARNING" in line and not any(p.search(line) for p in HARMLESS_LOG_LINES)
    ]


@pytest.fixture(scope="session")
def built_book() -> Path:
    """_build/html of a strict build (fresh unless PRIVPCA_BOOK_BUILT=1 and a build exists)."""
    if not CHROMIUM.exists():
        # no point spending minutes on a build that no browser can look at
        pytest.skip(f"{CHROMIUM} is missing (Debian package 'chromium'; scripts/setup_env.sh installs it)")
    reuse = os.environ.get("PRIVPCA_BOOK_BUILT") == "1" and (BUILD_HTML / "index.html").exists()
    if reuse:
        log = BUILD_LOG.read_text() if BUILD_LOG.exists() else ""
    else:
        log = build_book()
    bad = unexpected_warnings(log)
    assert not bad, "the book build logged warnings:\n" + "\n".join(bad)
    return BUILD_HTML


@pytest.fixture(scope="session")
def serve():
    """``with serve(directory) as base_url:`` serves a folder on 127.0.0.1 (stopped afterwards)."""
    return static_server


@pytest.fixture(scope="session")
def book_url(built_book):
    with static_server(built_book) as base:
        yield base


# --- JupyterLab ----------------------------------------------------------------------------

@pytest.fixture(scope="session")
def jupyter_lab():
    """``with jupyter_lab(root_dir) as base_url:`` starts (and afterwards stops) a JupyterLab."""
    return _jupyter_lab


@contextlib.contextmanager
def _jupyter_lab(root_dir: Path):
    """Start JupyterLab on a free 127.0.0.1 port with throw-away config, runtime and settings
    folders, no token and no autosave; stop it by PID afterwards."""
    port = free_port()
    tmp = Path(tempfile.mkdtemp(prefix="privpca-lab-"))
    settings = tmp / "user-settings" / "@jupyterlab"
    (settings / "docmanager-extension").mkdir(parents=True)
    (settings / "apputils-extension").mkdir(parents=True)
    # Nothing the test does may be written back to a notebook.
    (settings / "docmanager-extension" / "plugin.jupyterlab-settings").write_text(
        json.dumps({"autosave": False}))
    # No "get notified about Jupyter news?" toast, no update check.
    (settings / "apputils-extension" / "notification.jupyterlab-settings").write_text(
        json.dumps({"fetchNews": "false", "checkForUpdates": False}))
    env = dict(os.environ)
    env.update(
        JUPYTER_CONFIG_DIR=str(tmp / "config"),
        JUPYTER_RUNTIME_DIR=str(tmp / "runtime"),
        IPYTHONDIR=str(tmp / "ipython"),
        MPLBACKEND="module://matplotlib_inline.backend_inline",
        OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1",
    )
    log_path = tmp / "jupyterlab.log"
    with open(log_path, "w") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "jupyter", "lab", "--no-browser",
             "--ip", "127.0.0.1", "--port", str(port), "--port-retries=0",
             f"--ServerApp.root_dir={root_dir}",
             "--ServerApp.token=", "--ServerApp.password=",
             "--ServerApp.allow_root=True", "--ServerApp.disable_check_xsrf=True",
             "--LabApp.expose_app_in_browser=True", "--LabApp.news_url=",
             "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
             f"--LabApp.user_settings_dir={tmp / 'user-settings'}",
             f"--LabApp.workspaces_dir={tmp / 'workspaces'}"],
            cwd=root_dir, env=env, stdout=log, stderr=subprocess.STDOUT,
        )
    try:
        base = f"http://127.0.0.1:{port}"
        try:
            wait_for_http(base + "/api/status", timeout=90, proc=proc)
        except Exception:
            raise RuntimeError("JupyterLab did not start:\n" + log_path.read_text()[-4000:])
        yield base
    finally:
        stop_process(proc)
        shutil.rmtree(tmp, ignore_errors=True)
