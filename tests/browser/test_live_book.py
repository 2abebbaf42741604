"""The book comes alive in place: ``scripts/live_book.sh``, Live Code, a slider, no network; what
the kernel's life looks like in the page; what another origin can do.

The module starts ``bash scripts/live_book.sh`` exactly as a reader would, with ``--port 0
--kernel-port 0`` (the script picks free ports and prints them), ``--toc`` naming only the
introduction and chapter 1, ``--build-dir`` a temporary folder (the build takes seconds instead of
the whole book's minutes) and ``--closed-tab-grace 3``.  Headless Chromium then

* follows a reader: opens the exact address the script printed (the introduction), clicks
  chapter 1 in the sidebar, the rocket menu's Live Code, waits until the dashboards are live
  (only the cells they need run: the others keep the build's output), moves the ε slider with the
  keyboard and waits for the figure (the PNG in the dashboard's Image widget) to change.  Every
  request and WebSocket must go to 127.0.0.1;
* kills the kernel process (Jupyter restarts it) and shuts a kernel down through the API: each
  time the status line says so, each dashboard says "kernel stopped — click to restart", and a
  click brings the dashboard back;
* closes the page: its kernel is shut down within seconds;
* from a page on another port that holds the token, tries to start a kernel and to open a
  kernel's websocket to run code: both are refused, and nothing runs.

A port in use is refused at once.  The last test stops the script with SIGTERM (what Ctrl-C does
too) and checks that the Jupyter server, its kernels and the book server are gone.  Whatever
happens, every process this module started is stopped by its PID at the end.
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path
from urllib.parse import urlparse

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHAPTER = "notebooks/01_why_private_pca"

pytestmark = pytest.mark.browser

LOCAL_HOSTS = {"127.0.0.1", "localhost"}
START_TIMEOUT = 600      # s: setup_env + fetch_vendor + the two-page build + both servers
LIVE_TIMEOUT = 180_000   # ms: Thebe loads, the kernel starts, the dashboards' cells run
GRACE = 3                # s: --closed-tab-grace

# A 32-bit rolling hash of the bytes behind an <img> (a blob: URL for an Image widget).
IMAGE_HASH_JS = """async (img) => {
  const bytes = new Uint8Array(await (await fetch(img.src)).arrayBuffer());
  let h = 0;
  for (let i = 0; i < bytes.length; i++) { h = (Math.imul(h, 31) + bytes[i]) | 0; }
  return bytes.length + ':' + h;
}"""
STATUS_IN = "(states) => states.includes(document.querySelector('.thebe-launch-button')?.dataset.privpcaStatus)"


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
    """``bash scripts/live_book.sh --port 0 --kernel-port 0`` in the background, and what it printed."""

    def __init__(self, tmp: Path):
        toc = tmp / "toc.yml"
        toc.write_text(f"format: jb-book\nroot: book/intro\nchapters:\n  - file: {CHAPTER}\n")
        self.log_path = tmp / "live_book.log"
        self._log = open(self.log_path, "w")
        self.proc = subprocess.Popen(
            ["bash", str(ROOT / "scripts" / "live_book.sh"), "--port", "0", "--kernel-port", "0",
             "--toc", str(toc), "--build-dir", str(tmp / "build"), "--closed-tab-grace", str(GRACE)],
            cwd=ROOT, stdout=self._log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
        )
        self.url = self.token = None
        self.port = self.kernel_port = None
        self.server_pids: dict[str, int] = {}

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def wait_ready(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        pattern = re.compile(r"^(http://127\.0\.0\.1:(\d+)/\S*#privpca-live-token=(\S+))$", re.M)
        while time.monotonic() < deadline:
            text = self.log()
            match = pattern.search(text)
            if match:
                self.url, self.port, self.token = match.group(1), int(match.group(2)), match.group(3)
                for name, pid, port in re.findall(
                        r"\[live_book\] (Jupyter server|book server): pid (\d+) on http://127\.0\.0\.1:(\d+)/", text):
                    self.server_pids[name] = int(pid)
                    if name == "Jupyter server":
                        self.kernel_port = int(port)
                assert f"--port 0: the book will be served on port {self.port}" in text
                assert f"--kernel-port 0: the Jupyter server will listen on port {self.kernel_port}" in text
                return
            if self.proc.poll() is not None:
                pytest.fail(f"scripts/live_book.sh exited with {self.proc.returncode}:\n{text[-4000:]}")
            time.sleep(0.5)
        pytest.fail(f"scripts/live_book.sh printed no address within {timeout} s:\n{self.log()[-4000:]}")

    def api(self, method: str, path: str) -> object:
        """A request to the Jupyter server as a local program makes it (token, no Origin)."""
        request = urllib.request.Request(f"http://127.0.0.1:{self.kernel_port}{path}?token={self.token}",
                                         method=method, data=b"{}" if method == "POST" else None)
        with urllib.request.urlopen(request, timeout=60) as response:
            text = response.read().decode()
        return json.loads(text) if text else None

    def kernels(self) -> list[dict]:
        return self.api("GET", "/api/kernels")

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
def live_book(chromium):
    """The running live book (chromium first: no browser, no point in building)."""
    with tempfile.TemporaryDirectory(prefix="privpca-live-test-") as tmp:
        book = LiveBook(Path(tmp))
        try:
            book.wait_ready(START_TIMEOUT)
            yield book
        finally:
            book.stop()


class Watch:
    """Everything a page requests, fails at or logs; nothing may leave the machine."""

    def __init__(self, page):
        self.foreign, self.sockets, self.failed, self.http_errors, self.errors = [], [], [], [], []
        page.on("request", self._request)
        page.on("websocket", self._websocket)
        page.on("requestfailed", lambda r: self.failed.append(f"{r.url} ({r.failure})"))
        page.on("response", lambda r: self.http_errors.append(f"{r.status} {r.url}") if r.status >= 400 else None)
        page.on("pageerror", lambda exc: self.errors.append(f"uncaught: {exc}"))
        page.on("console", lambda msg: self.errors.append(f"console: {msg.text}") if msg.type == "error" else None)
        # should something try to leave the machine, it fails fast instead of hanging
        page.route("**/*", lambda route: route.continue_()
                   if urlparse(route.request.url).hostname in LOCAL_HOSTS
                   or urlparse(route.request.url).scheme in {"data", "blob"} else route.abort())

    def _request(self, request):
        parsed = urlparse(request.url)
        if parsed.scheme not in {"data", "blob", "about"} and parsed.hostname not in LOCAL_HOSTS:
            self.foreign.append(request.url)

    def _websocket(self, ws):
        self.sockets.append(ws.url)
        if urlparse(ws.url).hostname not in LOCAL_HOSTS:
            self.foreign.append(ws.url)

    def assert_clean(self):
        assert not self.foreign, f"requests to hosts other than 127.0.0.1: {self.foreign}"
        assert not self.failed, f"failed requests: {self.failed}"
        assert not self.http_errors, f"HTTP errors: {self.http_errors}"
        assert not self.errors, "\n".join(self.errors)


def _go_live(page) -> float:
    """Rocket menu -> Live Code on the open chapter; wait until live; the click-to-live seconds."""
    page.click(".dropdown-launch-buttons button.dropdown-toggle")
    page.click("button.btn-launch-thebe")
    status = page.locator(".thebe-launch-button")
    try:
        page.wait_for_function(STATUS_IN, arg=["live", "error"], timeout=LIVE_TIMEOUT)
    except Exception:
        pytest.fail(f"not live after {LIVE_TIMEOUT / 1000:.0f} s: {status.get_attribute('data-privpca-status')}: "
                    f"{status.inner_text()} ({status.get_attribute('title')})")
    assert status.get_attribute("data-privpca-status") == "live", status.inner_text()
    return float(status.get_attribute("data-privpca-seconds"))


def _dashboard(page):
    return page.locator("div.cell.privpca-live-dashboard", has=page.locator(".thebe-cell", has_text="attack_dashboard("))


def _slider_changes_figure(page) -> None:
    """Move the dashboard's ε slider one step right; the figure must change."""
    live = _dashboard(page).locator(".cell_output .thebe-output")
    image = live.locator(".privpca-dashboard img.privpca-figure")
    image.wait_for(timeout=60_000)
    page.wait_for_function("(img) => img.complete && img.naturalWidth > 0", arg=image.element_handle(),
                           timeout=30_000)
    before = image.evaluate(IMAGE_HASH_JS)
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
    assert after != before, f"the figure did not change after ε moved from {value_before} to {readout.inner_text()}"
    assert float(readout.inner_text()) > float(value_before)


def _kernel_pids(live_book, kernel_ids) -> set[int]:
    """The processes of these kernels (their command line names kernel-<id>.json)."""
    pids = set()
    for pid in _descendants(live_book.server_pids["Jupyter server"]):
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        if any(f"kernel-{kernel_id}.json".encode() in cmdline for kernel_id in kernel_ids):
            pids.add(pid)
    return pids


def test_printed_address_to_a_live_slider_in_chapter_1(live_book, chromium):
    context = chromium.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    watch = Watch(page)
    try:
        # the exact address the script printed: the introduction, not a chapter
        assert urlparse(live_book.url).path == "/book/intro.html"
        page.goto(live_book.url, wait_until="load")
        page.wait_for_load_state("networkidle")
        assert "privpca-live-token" not in page.url, "the token stays in the address bar"
        assert page.evaluate("localStorage.getItem('privpca-live-token')") == live_book.token
        # as a reader: chapter 1 from the sidebar
        page.locator("nav.bd-docs-nav a.reference.internal", has_text="Why private PCA").first.click()
        page.wait_for_url(re.compile(rf"/{CHAPTER}\.html"))
        page.wait_for_load_state("networkidle")
        seconds = _go_live(page)
        print(f"chapter 1: click to live in {seconds:.2f} s")
        # every code cell became a Thebe cell on the kernel of live_book.sh ...
        assert page.locator(".thebe-cell").count() == page.locator("div.cell .cell_input").count() > 0
        assert any(f"127.0.0.1:{live_book.kernel_port}/api/kernels/" in url for url in watch.sockets), watch.sockets
        # ... but only the dashboards and what they need ran; the rest keeps the build's output
        ran = page.locator("div.cell.privpca-live-run").count()
        assert 0 < ran < page.locator("div.cell").count()
        assert page.locator("div.cell:not(.privpca-live-run) .cell_output").first.inner_text().strip()
        _slider_changes_figure(page)
        watch.assert_clean()
    finally:
        context.close()


def test_kernel_stopping_is_shown_and_a_click_restarts(live_book, chromium):
    context = chromium.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    try:
        page.goto(f"http://127.0.0.1:{live_book.port}/{CHAPTER}.html#privpca-live-token={live_book.token}",
                  wait_until="load")
        _go_live(page)
        status = page.locator(".thebe-launch-button")
        covers = page.locator("div.cell.privpca-live-dashboard button.privpca-kernel-stopped")
        n_dashboards = page.locator("div.cell.privpca-live-dashboard").count()
        assert n_dashboards >= 1 and covers.count() == 0

        # 1. the kernel process dies (Jupyter starts a new one: everything computed is lost)
        connected = [k["id"] for k in live_book.kernels() if k["connections"] > 0]
        before = _kernel_pids(live_book, connected)
        assert connected and before
        for pid in before:
            os.kill(pid, signal.SIGKILL)
        page.wait_for_function(STATUS_IN, arg=["stopped"], timeout=60_000)
        assert "restart" in status.inner_text()
        assert covers.count() == n_dashboards
        assert all(text == "kernel stopped — click to restart" for text in covers.all_inner_texts())
        covers.first.click()
        page.wait_for_function(STATUS_IN, arg=["live", "error"], timeout=LIVE_TIMEOUT)
        assert status.get_attribute("data-privpca-status") == "live", status.inner_text()
        assert covers.count() == 0
        _slider_changes_figure(page)

        # 2. the kernel is shut down (as the idle culler does): a click starts a new one
        for kernel in live_book.kernels():
            if kernel["connections"] > 0:                         # this page's kernel
                live_book.api("DELETE", f"/api/kernels/{kernel['id']}")
        page.wait_for_function(STATUS_IN, arg=["stopped"], timeout=60_000)
        assert covers.count() == n_dashboards
        covers.first.click()                                   # reloads the page, starts again
        page.wait_for_load_state("load")
        page.wait_for_function(STATUS_IN, arg=["live", "error"], timeout=LIVE_TIMEOUT)
        assert status.get_attribute("data-privpca-status") == "live", status.inner_text()
        _slider_changes_figure(page)
    finally:
        context.close()


def test_closing_the_page_shuts_its_kernel_down(live_book, chromium):
    context = chromium.new_context()
    page = context.new_page()
    page.goto(f"http://127.0.0.1:{live_book.port}/{CHAPTER}.html#privpca-live-token={live_book.token}")
    _go_live(page)
    ours = {k["id"] for k in live_book.kernels() if k["connections"] > 0}
    assert ours
    context.close()
    deadline = time.monotonic() + GRACE + 20
    while ours & {k["id"] for k in live_book.kernels()} and time.monotonic() < deadline:
        time.sleep(0.5)
    assert not ours & {k["id"] for k in live_book.kernels()}, f"the kernel outlived its page: {live_book.kernels()}"


def test_another_origin_with_the_token_cannot_use_the_kernel(live_book, chromium, serve, tmp_path):
    """A page served on another port, holding the token, tries what a browser lets a page do:
    start a kernel (a no-cors POST, and a CORS request with the token in a header) and run code
    through an existing kernel's websocket.  All are refused, and the code never runs."""
    before = {k["id"] for k in live_book.kernels()}
    kernel = live_book.api("POST", "/api/kernels")           # a kernel the book's page could use
    marker = tmp_path / "ran.txt"
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "index.html").write_text("<!doctype html><title>another site</title>")
    try:
        with serve(tmp_path / "site") as other:
            assert urlparse(other).port != live_book.port
            context = chromium.new_context()
            page = context.new_page()
            page.goto(other + "/index.html")
            result = page.evaluate("""async ([base, token, kernelId, code]) => {
              const out = {};
              try {
                await fetch(`${base}/api/kernels?token=${token}`, {method: 'POST', mode: 'no-cors', body: '{}'});
                out.noCors = 'sent';
              } catch (e) { out.noCors = 'failed'; }
              try {
                const r = await fetch(`${base}/api/kernels`, {method: 'POST', body: '{}',
                                      headers: {'Authorization': `token ${token}`}});
                out.cors = r.status;
              } catch (e) { out.cors = 'blocked'; }
              out.websocket = await new Promise((resolve) => {
                const ws = new WebSocket(`${base.replace('http', 'ws')}/api/kernels/${kernelId}/channels?token=${token}`);
                ws.onopen = () => {
                  ws.send(JSON.stringify({header: {msg_id: 'x1', username: 'x', session: 's1',
                    msg_type: 'execute_request', version: '5.3', date: ''}, parent_header: {}, metadata: {},
                    channel: 'shell', buffers: [], content: {code, silent: false, store_history: false,
                    user_expressions: {}, allow_stdin: false, stop_on_error: true}}));
                  setTimeout(() => resolve('opened'), 3000);
                };
                ws.onerror = () => resolve('refused');
                setTimeout(() => resolve('no answer'), 20000);
              });
              return out;
            }""", [f"http://127.0.0.1:{live_book.kernel_port}", live_book.token, kernel["id"],
                   f"open({str(marker)!r}, 'w').write('x')"])
            context.close()
        assert result["websocket"] == "refused", result
        assert result["cors"] == "blocked", result
        time.sleep(1)
        assert not marker.exists(), "code from another origin ran in the kernel"
        assert {k["id"] for k in live_book.kernels()} - before == {kernel["id"]}, "another origin started a kernel"
    finally:
        live_book.api("DELETE", f"/api/kernels/{kernel['id']}")


def test_a_port_in_use_is_refused_at_once(free_port):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        started = time.monotonic()
        result = subprocess.run(["bash", str(ROOT / "scripts" / "live_book.sh"), "--port", str(port),
                                 "--kernel-port", str(free_port())],
                                cwd=ROOT, capture_output=True, text=True, timeout=120)
        elapsed = time.monotonic() - started
    assert result.returncode == 2, result.stdout + result.stderr
    assert f"port {port} is in use" in result.stderr and "--port 0" in result.stderr, result.stderr
    assert elapsed < 30, f"refused only after {elapsed:.0f} s"
    assert "building" not in result.stdout


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
