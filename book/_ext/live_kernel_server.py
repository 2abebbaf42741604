"""The Jupyter server behind the live book (scripts/live_book.sh runs this file with the server's
command-line options).  Not part of the privpca_edu package, and not a Sphinx extension.

It is Jupyter Server's own ``ServerApp`` with two additions.

**Origin checked on every request, token or not.**  Jupyter Server checks a request's ``Origin``
header against ``allow_origin_pat`` only when the request is *not* token-authenticated
(``IdentityProvider.should_check_origin``): a page from any other site that somehow held the
token could start kernels and run code through their websockets.  :class:`OriginCheckingIdentityProvider`
makes the check unconditional, for the REST API (``APIHandler.prepare`` answers 404) and for the
kernel websockets (Tornado's ``check_origin``: 403).  What still passes:

* requests whose ``Origin`` equals the server's own host, or matches ``allow_origin_pat`` (the
  book's address);
* requests with no ``Origin`` header at all.  Browsers send ``Origin`` on every cross-origin
  ``fetch``/XHR and on every WebSocket handshake, so no web page can use the kernel this way; a
  *program* running on this machine can (as with any local Jupyter server), but only with the
  token, which it would have to read from the browser or from the script's output.

**Nothing but kernels.**  No server extension is loaded (JupyterLab, nbgrader, ... would be,
from the environment's configuration): the live book needs only the kernel, session and
kernelspec APIs, and the server starts in about a second instead of several.

**A warm kernel waits for the next click.**  With ``PooledKernelManager.warm_path`` set (the
script sets ``notebooks``, the chapters' folder), the server keeps one kernel started in that
folder, with the modules of ``warm_modules`` already imported (into ``sys.modules`` only: the
user namespace stays empty, and nothing is in the history).  The next request for a kernel of
the same name in the same folder gets it at once, and a new one is warmed in the background.
Starting Python, ipykernel, NumPy, SciPy, Matplotlib, scikit-learn and the package takes
seconds: this is most of what Live Code would otherwise wait for.  The waiting kernel is not
listed by the API and belongs to nobody until it is handed over.

**Kernels do not outlive their page.**  Every ``CULL_INTERVAL`` seconds, a kernel that has had
no websocket connection (its tab was closed or reloaded) for ``closed_tab_grace`` seconds is shut
down (a kernel no page has connected to yet, for ``NEVER_CONNECTED_GRACE`` seconds).  Kernels idle in an open tab are culled by Jupyter Server's own culler after
``MappingKernelManager.cull_idle_timeout`` seconds (scripts/live_book.sh sets both; the page then
shows "kernel stopped — click to restart").
"""

from __future__ import annotations

import sys
import time

import asyncio
import uuid

from jupyter_server._tz import utcnow
from jupyter_server.auth.identity import PasswordIdentityProvider
from jupyter_server.serverapp import ServerApp
from jupyter_server.services.kernels.kernelmanager import AsyncMappingKernelManager
from tornado import web
from tornado.ioloop import IOLoop, PeriodicCallback
from traitlets import Float, List, Unicode

CULL_INTERVAL = 2.0   # seconds between two looks for kernels whose page has gone
NEVER_CONNECTED_GRACE = 120.0   # seconds a kernel no page has connected to yet is kept


class OriginCheckingIdentityProvider(PasswordIdentityProvider):
    """Jupyter's token identity provider, except that ``Origin`` is checked for every request
    (Jupyter Server skips that check when the request carries the token)."""

    def should_check_origin(self, handler) -> bool:
        return True


# "package.*": the package and every module below it (what the chapters import comes from these)
WARM_MODULES = [
    "numpy", "scipy.linalg", "scipy.stats", "matplotlib.pyplot", "matplotlib_inline.backend_inline",
    "sklearn.base", "ipywidgets", "privpca_edu", "privpca_edu.widgets.*", "privpca_edu.experiments.*",
    "privpca_edu.plotting.*", "privpca_edu.bounds.*", "privpca_edu.audit.*", "privpca_edu.datasets.*",
    "privpca_edu.estimators.*", "privpca_edu.protocol.*",
]


class PooledKernelManager(AsyncMappingKernelManager):
    """Jupyter's kernel manager with one warm kernel waiting (see the module docstring)."""

    warm_path = Unicode("", config=True,
                        help="API path of the folder where the warm kernel starts ('': no warm kernel).")
    warm_kernel_name = Unicode("python3", config=True, help="name of the kernel (its kernelspec) the warm kernel runs")
    warm_modules = List(Unicode(), default_value=WARM_MODULES, config=True,
                        help="modules the warm kernel imports (a module that fails to import is skipped)")

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self._warm_id: str | None = None          # ready to hand over
        self._warming: asyncio.Task | None = None
        self._hidden: set[str] = set()            # warm or warming: nobody's yet
        self.ever_connected: set[str] = set()     # kernels a page has connected to

    def notify_connect(self, kernel_id):
        super().notify_connect(kernel_id)
        self.ever_connected.add(kernel_id)

    def warm_up(self) -> None:
        """Start warming a kernel (if none is ready or warming)."""
        if not self.warm_path or self._warm_id or (self._warming and not self._warming.done()):
            return
        self._warming = asyncio.ensure_future(self._warm())

    async def _warm(self) -> None:
        try:
            kernel_id = str(uuid.uuid4())
            self._hidden.add(kernel_id)
            await super().start_kernel(kernel_id=kernel_id, path=self.warm_path, kernel_name=self.warm_kernel_name)
            client = self.get_kernel(kernel_id).client()
            client.start_channels()
            try:
                await client.wait_for_ready(timeout=120)
                code = ("def _privpca_warm():\n"
                        "    import importlib, pkgutil\n"
                        f"    for name in {list(self.warm_modules)!r}:\n"
                        "        try:\n"
                        "            module = importlib.import_module(name.removesuffix('.*'))\n"
                        "            if name.endswith('.*') and hasattr(module, '__path__'):\n"
                        "                for info in pkgutil.walk_packages(module.__path__, module.__name__ + '.'):\n"
                        "                    try:\n"
                        "                        importlib.import_module(info.name)\n"
                        "                    except Exception:\n"
                        "                        pass\n"
                        "        except Exception:\n"
                        "            pass\n"
                        "_privpca_warm()\n"
                        "del _privpca_warm\n")
                await client.execute_interactive(code, silent=True, store_history=False, timeout=300)
            finally:
                client.stop_channels()
            if kernel_id in self:
                self._warm_id = kernel_id
                self.log.info("warm kernel %s ready in %s", kernel_id, self.warm_path)
            else:
                self._hidden.discard(kernel_id)
        except Exception as exc:
            self.log.warning("no warm kernel (%s): kernels start cold", exc)

    async def start_kernel(self, *, kernel_id=None, path=None, **kwargs):
        name = kwargs.get("kernel_name") or self.default_kernel_name
        warm = self._warm_id
        if (kernel_id is None and warm is not None and warm in self and path == self.warm_path
                and name == self.warm_kernel_name):
            self._warm_id = None
            self._hidden.discard(warm)
            self.get_kernel(warm).last_activity = utcnow()
            self.log.info("handing over warm kernel %s", warm)
            self.warm_up()
            return warm
        return await super().start_kernel(kernel_id=kernel_id, path=path, **kwargs)

    def list_kernels(self):
        """The API's list: a warm kernel nobody has been given yet is not listed."""
        return [model for model in super().list_kernels() if model["id"] not in self._hidden]

    def kernel_model(self, kernel_id):
        """A warm kernel nobody has been given yet cannot be looked at through the API."""
        if kernel_id is not None and kernel_id in self._hidden:
            raise web.HTTPError(404, f"Kernel does not exist: {kernel_id}")
        return super().kernel_model(kernel_id)


class LiveBookServerApp(ServerApp):
    """ServerApp with the origin check above and the closed-tab culler."""

    name = "privpca-live-book-server"

    closed_tab_grace = Float(
        20.0, config=True,
        help="Shut a kernel down once it has had no websocket connection for this many seconds "
             "(0 or less: never).")

    def find_server_extensions(self):
        """Load no server extension found in the environment's configuration (see above)."""
        return None

    def init_configurables(self):
        if "identity_provider_class" not in self.config.ServerApp:   # unless set explicitly
            self.identity_provider_class = OriginCheckingIdentityProvider
        if "kernel_manager_class" not in self.config.ServerApp:
            self.kernel_manager_class = PooledKernelManager
        super().init_configurables()

    def start_app(self):
        super().start_app()
        if isinstance(self.kernel_manager, PooledKernelManager):
            IOLoop.current().add_callback(self.kernel_manager.warm_up)
        if self.closed_tab_grace > 0:
            self._unconnected_since: dict[str, float] = {}
            self._shutting_down: set[str] = set()
            self._closed_tab_culler = PeriodicCallback(self._cull_closed_tabs, CULL_INTERVAL * 1000)
            self._closed_tab_culler.start()
            self.log.info("kernels without a connected page are shut down after %.0f s",
                          self.closed_tab_grace)

    async def _shut_down(self, kernel_id: str) -> None:
        try:
            await self.kernel_manager.shutdown_kernel(kernel_id)
        except Exception as exc:  # already gone, or shutting down: nothing to do
            self.log.warning("could not shut down kernel %s: %s", kernel_id, exc)
        finally:
            self._shutting_down.discard(kernel_id)

    async def _cull_closed_tabs(self):
        now = time.monotonic()
        manager = self.kernel_manager
        ever_connected = getattr(manager, "ever_connected", None)
        seen = set()
        for model in manager.list_kernels():
            kernel_id = model["id"]
            seen.add(kernel_id)
            if model.get("connections", 0) > 0:
                self._unconnected_since.pop(kernel_id, None)
                continue
            since = self._unconnected_since.setdefault(kernel_id, now)
            # a kernel no page has connected to yet (its page is still starting, on a slow
            # machine) gets NEVER_CONNECTED_GRACE seconds at least
            grace = self.closed_tab_grace
            if ever_connected is not None and kernel_id not in ever_connected:
                grace = max(grace, NEVER_CONNECTED_GRACE)
            if now - since >= grace and kernel_id not in self._shutting_down:
                self._unconnected_since.pop(kernel_id, None)
                self.log.info("shutting down kernel %s: no page connected for %.0f s",
                              kernel_id, now - since)
                # in a task of its own: a kernel slow to stop must not hold up the next look
                self._shutting_down.add(kernel_id)
                asyncio.ensure_future(self._shut_down(kernel_id))
        for kernel_id in set(self._unconnected_since) - seen:
            del self._unconnected_since[kernel_id]
        if ever_connected is not None:
            ever_connected &= seen | set(getattr(manager, "_hidden", ()))
        if isinstance(manager, PooledKernelManager):
            if manager._warm_id is not None and manager._warm_id not in manager:   # culled, or died
                manager._hidden.discard(manager._warm_id)
                manager._warm_id = None
            manager.warm_up()


def main(argv=None):
    LiveBookServerApp.launch_instance(argv=argv)


if __name__ == "__main__":
    sys.exit(main())
