"""The Jupyter server behind scripts/live_book.sh (book/_ext/live_kernel_server.py), without a
browser: what another origin can do with the token, and how long kernels live.

The server is started exactly as the script starts it (same file, same security options), on a
free 127.0.0.1 port, with the book's origin ``http://127.0.0.1:<book port>``.  Requests carry the
``Origin`` header a browser would send (browsers send it on every cross-origin request and on
every WebSocket handshake; no page script can remove or forge it).

* With the token, another origin can neither start a kernel (REST: 404) nor run code in one
  (kernel websocket: 403), and nothing it asked for happens; the book's origin can do both with
  the same token, and nobody can do anything without it.  With Jupyter Server's own identity
  provider instead (everything else the same), the other origin gets in: that is what the module
  changes.
* A kernel whose page has gone (no websocket for ``closed_tab_grace`` seconds) is shut down.
* A warm kernel waits in the chapters' folder with the modules imported and an empty namespace,
  hidden from the API until it is handed over; then the next one is warmed.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import os
import secrets
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path

import pytest

tornado_websocket = pytest.importorskip("tornado.websocket")
from tornado.httpclient import HTTPRequest  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
SERVER = ROOT / "book" / "_ext" / "live_kernel_server.py"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Server:
    def __init__(self, tmp: Path, stock: bool = False, grace: float = 0, warm_path: str = ""):
        self.port, self.book_port, self.other_port = _free_port(), _free_port(), _free_port()
        self.token = secrets.token_urlsafe(32)
        self.base = f"http://127.0.0.1:{self.port}"
        self.book_origin = f"http://127.0.0.1:{self.book_port}"
        self.other_origin = f"http://127.0.0.1:{self.other_port}"
        env = {**os.environ, "JUPYTER_TOKEN": self.token, "JUPYTER_CONFIG_DIR": str(tmp / "config"),
               "JUPYTER_RUNTIME_DIR": str(tmp / "runtime"), "IPYTHONDIR": str(tmp / "ipython"),
               "JUPYTER_PLATFORM_DIRS": "1"}
        command = [sys.executable, str(SERVER), f"--LiveBookServerApp.closed_tab_grace={grace}",
                   f"--PooledKernelManager.warm_path={warm_path}"]
        self.log_path = tmp / "server.log"
        if stock:   # Jupyter Server's own identity provider: its origin check as shipped
            command.append("--ServerApp.identity_provider_class="
                           "jupyter_server.auth.identity.PasswordIdentityProvider")
        # the options of scripts/live_book.sh
        command += ["--no-browser", "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={self.port}",
                    "--ServerApp.port_retries=0", f"--ServerApp.root_dir={tmp}",
                    f"--ServerApp.allow_origin_pat=^http://(127\\.0\\.0\\.1|localhost):{self.book_port}$",
                    "--ServerApp.allow_remote_access=False", "--ServerApp.terminals_enabled=False"]
        if os.geteuid() == 0:
            command.append("--ServerApp.allow_root=True")
        self.log = open(tmp / "server.log", "w")
        self.proc = subprocess.Popen(command, cwd=tmp, env=env, stdout=self.log, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL)
        deadline = time.monotonic() + 90
        while True:
            try:
                with urllib.request.urlopen(self.base + "/api", timeout=2):
                    break
            except OSError:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    self.stop()
                    pytest.fail("the server did not start:\n" + (tmp / "server.log").read_text()[-3000:])
                time.sleep(0.2)

    def request(self, method: str, path: str, origin: str | None = None, token: bool = True,
                body: dict | None = None) -> tuple[int, object]:
        url = self.base + path + (f"?token={self.token}" if token else "")
        data = json.dumps(body).encode() if body is not None else (b"{}" if method == "POST" else None)
        req = urllib.request.Request(url, data=data, method=method,
                                     headers={"Content-Type": "application/json"})
        if origin:
            req.add_header("Origin", origin)
        try:
            with urllib.request.urlopen(req, timeout=60) as response:
                text = response.read().decode()
                return response.status, json.loads(text) if text else None
        except urllib.error.HTTPError as error:
            return error.code, error.read().decode(errors="replace")

    def kernels(self) -> list[dict]:
        status, kernels = self.request("GET", "/api/kernels")
        assert status == 200, kernels
        return kernels

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()


@pytest.fixture
def server(tmp_path):
    srv = Server(tmp_path)
    yield srv
    srv.stop()


def _execute(server: Server, kernel_id: str, origin: str, code: str, timeout: float = 60) -> str:
    """Run ``code`` through the kernel's websocket with this Origin; return its stdout.
    Raises tornado's HTTPClientError if the handshake is refused."""

    async def run():
        url = f"ws://127.0.0.1:{server.port}/api/kernels/{kernel_id}/channels?token={server.token}"
        ws = await tornado_websocket.websocket_connect(
            HTTPRequest(url, headers={"Origin": origin}, connect_timeout=30, request_timeout=60))
        msg_id = uuid.uuid4().hex
        ws.write_message(json.dumps({
            "header": {"msg_id": msg_id, "username": "test", "session": uuid.uuid4().hex,
                       "msg_type": "execute_request", "version": "5.3", "date": ""},
            "parent_header": {}, "metadata": {}, "channel": "shell", "buffers": [],
            "content": {"code": code, "silent": False, "store_history": False,
                        "user_expressions": {}, "allow_stdin": False, "stop_on_error": True},
        }))
        out = []
        while True:
            raw = await asyncio.wait_for(ws.read_message(), timeout)
            assert raw is not None, "the websocket closed"
            msg = json.loads(raw)
            if msg.get("parent_header", {}).get("msg_id") != msg_id:
                continue
            if msg["msg_type"] == "stream":
                out.append(msg["content"]["text"])
            if msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
                ws.close()
                return "".join(out)

    # in a thread of its own: the browser tests' Playwright may already run an event loop here
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, run()).result()


def test_other_origin_with_the_token_can_neither_start_a_kernel_nor_run_code(server, tmp_path):
    # another origin, holding the token: no kernel, no session
    status, body = server.request("POST", "/api/kernels", origin=server.other_origin)
    assert status == 404, (status, body)
    status, body = server.request("POST", "/api/sessions", origin=server.other_origin,
                                  body={"path": "x.ipynb", "type": "notebook", "kernel": {"name": "python3"}})
    assert status == 404, (status, body)
    status, body = server.request("GET", "/api/contents", origin=server.other_origin)
    assert status == 404, (status, body)
    assert server.kernels() == []

    # the book's origin with the same token: a kernel, and code runs in it
    status, kernel = server.request("POST", "/api/kernels", origin=server.book_origin)
    assert status == 201, (status, kernel)
    assert _execute(server, kernel["id"], server.book_origin, "print(6 * 7)") == "42\n"

    # the other origin cannot reach that kernel's websocket either, and its code never runs
    marker = tmp_path / "ran.txt"
    with pytest.raises(Exception) as refused:
        _execute(server, kernel["id"], server.other_origin, f"open({str(marker)!r}, 'w').write('x')")
    assert getattr(refused.value, "code", None) == 403, repr(refused.value)
    time.sleep(1)
    assert not marker.exists()
    # nor list or stop kernels
    assert server.request("GET", "/api/kernels", origin=server.other_origin)[0] == 404
    assert server.request("DELETE", f"/api/kernels/{kernel['id']}", origin=server.other_origin)[0] == 404
    assert [k["id"] for k in server.kernels()] == [kernel["id"]]

    # and without the token even the book's origin gets nothing
    status, _ = server.request("POST", "/api/kernels", origin=server.book_origin, token=False)
    assert status == 403
    assert len(server.kernels()) == 1


def test_jupyter_servers_own_check_lets_the_other_origin_in_with_the_token(tmp_path):
    """What live_kernel_server.py changes: Jupyter Server skips the Origin check for requests
    that carry the token (so without OriginCheckingIdentityProvider the test above would fail)."""
    stock = Server(tmp_path, stock=True)
    try:
        status, body = stock.request("POST", "/api/kernels", origin=stock.other_origin)
        assert status == 201, (status, body)
        stock.request("DELETE", f"/api/kernels/{body['id']}")
    finally:
        stock.stop()


def test_kernel_of_a_closed_page_is_shut_down(tmp_path):
    srv = Server(tmp_path, grace=2)
    try:
        status, kernel = srv.request("POST", "/api/kernels", origin=srv.book_origin)
        assert status == 201
        # a page connects, runs something, and goes away (the websocket closes)
        assert _execute(srv, kernel["id"], srv.book_origin, "print(1)") == "1\n"
        deadline = time.monotonic() + 30
        while srv.kernels() and time.monotonic() < deadline:
            time.sleep(0.5)
        assert srv.kernels() == [], "the kernel outlived its page"
    finally:
        srv.stop()


def test_a_warm_kernel_is_handed_over_at_once(tmp_path):
    (tmp_path / "notebooks").mkdir()
    srv = Server(tmp_path, grace=30, warm_path="notebooks")
    try:
        deadline = time.monotonic() + 240
        while "warm kernel" not in srv.log_path.read_text() and time.monotonic() < deadline:
            time.sleep(0.5)
        assert "ready in notebooks" in srv.log_path.read_text(), srv.log_path.read_text()[-3000:]
        assert srv.kernels() == [], "the waiting kernel is listed"
        started = time.monotonic()
        status, kernel = srv.request("POST", "/api/kernels", origin=srv.book_origin,
                                     body={"name": "python3", "path": "notebooks"})
        handed_over = time.monotonic() - started
        assert status == 201, kernel
        assert "handing over warm kernel" in srv.log_path.read_text()
        out = _execute(srv, kernel["id"], srv.book_origin,
                       "import os, sys\n"
                       "print('scipy.linalg' in sys.modules, 'privpca_edu.widgets' in sys.modules, "
                       "os.path.basename(os.getcwd()), 'importlib' in dir(), 'np' in dir())")
        assert out == "True True notebooks False False\n", out
        assert [k["id"] for k in srv.kernels()] == [kernel["id"]]
        print(f"warm kernel handed over in {handed_over:.2f} s")
        # a kernel elsewhere (another folder) starts cold, as Jupyter starts it
        status, cold = srv.request("POST", "/api/kernels", origin=srv.book_origin, body={"name": "python3"})
        assert status == 201
        assert _execute(srv, cold["id"], srv.book_origin, "import sys; print('scipy.linalg' in sys.modules)") \
            == "False\n"
    finally:
        srv.stop()
