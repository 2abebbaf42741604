"""The book comes alive in place: ``scripts/live_book.sh``, Live Code, a slider, no network.

The module starts ``bash scripts/live_book.sh`` exactly as a reader would (free 127.0.0.1 ports),
with ``--toc`` naming only the introduction and chapter 2 and ``--build-dir`` a temporary
folder, so the build takes seconds instead of the whole book's minutes (the static book test
builds and checks every page).  Headless Chromium opens chapter 2 at the address the script
printed, clicks the rocket menu's Live Code, waits until the chapter's cells have run on the
local kernel, runs the dashboard cell again with its own "run" button, moves the ε slider with
the keyboard and waits for the figure (the PNG in the dashboard's Image widget) to change.
During the whole test every request, and every WebSocket, must go to 127.0.0.1.

The last test stops the script with SIGTERM (what Ctrl-C does too) and checks that the Jupyter
server, its kernels and the book server are gone.  Whatever happens, every process this module
started is stopped by its PID at the end.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import tempfile
import time
from pathlib import Path
from urllib.parse import urlparse

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHAPTER = "notebooks/02_dp_in_one_sitting"

pytestmark = pytest.mark.browser

LOCAL_HOSTS = {"127.0.0.1", "localhost"}
START_TIMEOUT = 600      # s: setup_env + fetch_vendor + the two-page build + both servers
LIVE_TIMEOUT = 180_000   # ms: Thebe loads, the kernel starts, the chapter's cells run

# A 32-bit rolling hash of the bytes behind an <img> (a blob: URL for an Image widget).
IMAGE_HASH_JS = """async (img) => {
  const bytes = new Uint8Array(await (await fetch(img.src)).arrayBuffer());
  let h = 0;
  for (let i = 0; i < bytes.length; i++) { h = (Math.imul(h, 31) + bytes[i]) | 0; }
  return bytes.length + ':' + h;
}"""


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # a zombie (exited, not yet reaped by its parent) counts as gone
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0] != "Z"
    except OSError:
        return True


def _descendants(pid: int) -> set[int]:
    """PIDs of every process below ``pid`` (Linux /proc; empty elsewhere)."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().split(")")[-1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    found, todo = set(), [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


class LiveBook:
    """``bash scripts/live_book.sh`` running in the background, and what it printed."""

    def __init__(self, tmp: Path, free_port):
        self.port = free_port()
        self.kernel_port = free_port()
        while self.kernel_port == self.port:
            self.kernel_port = free_port()
        toc = tmp / "toc.yml"
        toc.write_text(f"format: jb-book\nroot: book/intro\nchapters:\n  - file: {CHAPTER}\n")
        self.log_path = tmp / "live_book.log"
        self._log = open(self.log_path, "w")
        self.proc = subprocess.Popen(
            ["bash", str(ROOT / "scripts" / "live_book.sh"), "--port", str(self.port),
             "--kernel-port", str(self.kernel_port), "--toc", str(toc),
             "--build-dir", str(tmp / "build")],
            cwd=ROOT, stdout=self._log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
        )
        self.url = None
        self.server_pids: dict[str, int] = {}

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def wait_ready(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        pattern = re.compile(rf"^(http://127\.0\.0\.1:{self.port}/\S*#privpca-live-token=\S+)$", re.M)
        while time.monotonic() < deadline:
            text = self.log()
            match = pattern.search(text)
            if match:
                self.url = match.group(1)
                for name, pid in re.findall(r"\[live_book\] (Jupyter server|book server): pid (\d+)", text):
                    self.server_pids[name] = int(pid)
                return
            if self.proc.poll() is not None:
                pytest.fail(f"scripts/live_book.sh exited with {self.proc.returncode}:\n{text[-4000:]}")
            time.sleep(0.5)
        pytest.fail(f"scripts/live_book.sh printed no address within {timeout} s:\n{self.log()[-4000:]}")

    def terminate(self, timeout: float = 60) -> int | None:
        """SIGTERM to the script, as Ctrl-C or a service manager would; wait for it to exit.
        Returns its exit code (None if it had to be killed)."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
                return None
        return self.proc.returncode

    def stop(self) -> None:
        """terminate(); then each server we know of that is still there is killed by its PID."""
        self.terminate()
        for pid in self.server_pids.values():
            if _pid_alive(pid):
                os.kill(pid, signal.SIGKILL)
        self._log.close()


@pytest.fixture(scope="module")
def live_book(chromium, free_port):
    """The running live book (chromium first: no browser, no point in building)."""
    with tempfile.TemporaryDirectory(prefix="privpca-live-test-") as tmp:
        book = LiveBook(Path(tmp), free_port)
        try:
            book.wait_ready(START_TIMEOUT)
            yield book
        finally:
            book.stop()


def test_live_code_makes_chapter_2_dashboard_live_offline(live_book, chromium):
    context = chromium.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    foreign, sockets, failed, http_errors, errors = [], [], [], [], []

    def on_request(request):
        parsed = urlparse(request.url)
        if parsed.scheme not in {"data", "blob", "about"} and parsed.hostname not in LOCAL_HOSTS:
            foreign.append(request.url)

    def on_websocket(ws):
        sockets.append(ws.url)
        if urlparse(ws.url).hostname not in LOCAL_HOSTS:
            foreign.append(ws.url)

    page.on("request", on_request)
    page.on("websocket", on_websocket)
    page.on("requestfailed", lambda r: failed.append(f"{r.url} ({r.failure})"))
    page.on("response", lambda r: http_errors.append(f"{r.status} {r.url}") if r.status >= 400 else None)
    page.on("pageerror", lambda exc: errors.append(f"uncaught: {exc}"))
    page.on("console", lambda msg: errors.append(f"console: {msg.text}") if msg.type == "error" else None)
    # Nothing may leave the machine; should something try, it fails fast instead of hanging.
    page.route("**/*", lambda route: route.continue_()
               if urlparse(route.request.url).hostname in LOCAL_HOSTS
               or urlparse(route.request.url).scheme in {"data", "blob"} else route.abort())
    try:
        token = live_book.url.split("#", 1)[1]
        page.goto(f"http://127.0.0.1:{live_book.port}/{CHAPTER}.html#{token}", wait_until="load")
        page.wait_for_load_state("networkidle")

        # the rocket menu -> Live Code
        page.click(".dropdown-launch-buttons button.dropdown-toggle")
        page.click("button.btn-launch-thebe")
        status = page.locator(".thebe-launch-button")
        page.wait_for_function(
            "() => ['live', 'error'].includes("
            "document.querySelector('.thebe-launch-button')?.dataset.privpcaStatus)",
            timeout=LIVE_TIMEOUT)
        assert status.get_attribute("data-privpca-status") == "live", status.inner_text()
        # every code cell of the chapter became a Thebe cell on the kernel of live_book.sh
        assert page.locator(".thebe-cell").count() == page.locator("div.cell .cell_input").count() > 0
        assert any(f"127.0.0.1:{live_book.kernel_port}/api/kernels/" in url for url in sockets), sockets

        # run the dashboard cell (again) with its own button
        cell = page.locator("div.cell", has=page.locator(".thebe-cell", has_text="sigma_dashboard("))
        assert cell.count() == 1
        cell.locator("button.thebe-run-button").click()
        live = cell.locator(".cell_output .thebe-output")
        image = live.locator(".privpca-dashboard img.privpca-figure")
        image.wait_for(timeout=60_000)
        page.wait_for_function("(img) => img.complete && img.naturalWidth > 0", arg=image.element_handle(),
                               timeout=30_000)
        before = image.evaluate(IMAGE_HASH_JS)

        # move the ε slider (the first one) one step to the right
        readout = live.locator(".widget-slider .widget-readout").first
        assert live.locator(".widget-slider .widget-label").first.inner_text().startswith("ε")
        value_before = readout.inner_text()
        handle = live.locator(".widget-slider .noUi-handle").first
        handle.scroll_into_view_if_needed()
        handle.focus()
        page.keyboard.press("ArrowRight")
        page.wait_for_function("([el, old]) => el.textContent.trim() !== old",
                               arg=[readout.element_handle(), value_before], timeout=10_000)
        deadline = time.monotonic() + 60
        after = before
        while after == before and time.monotonic() < deadline:
            page.wait_for_timeout(200)
            after = image.evaluate(IMAGE_HASH_JS)
        assert after != before, (
            f"the figure did not change after ε moved from {value_before} to {readout.inner_text()}")
        assert float(readout.inner_text()) > float(value_before)

        assert not foreign, f"requests to hosts other than 127.0.0.1: {foreign}"
        assert not failed, f"failed requests: {failed}"
        assert not http_errors, f"HTTP errors: {http_errors}"
        assert not errors, "\n".join(errors)
    finally:
        context.close()


def test_stopping_live_book_stops_both_servers(live_book):
    kernel_server = live_book.server_pids.get("Jupyter server")
    book_server = live_book.server_pids.get("book server")
    assert kernel_server and book_server, f"the script did not print both PIDs:\n{live_book.log()[-2000:]}"
    assert _pid_alive(kernel_server) and _pid_alive(book_server)
    watched = {kernel_server, book_server} | _descendants(kernel_server)   # kernels included

    code = live_book.terminate()
    assert code == 0, f"scripts/live_book.sh exited with {code} on SIGTERM:\n{live_book.log()[-2000:]}"
    deadline = time.monotonic() + 10
    while any(_pid_alive(pid) for pid in watched) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not [pid for pid in watched if _pid_alive(pid)], "processes left running after SIGTERM"
    assert "stopping the servers" in live_book.log()
