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

**Kernels do not outlive their page.**  Every ``CULL_INTERVAL`` seconds, a kernel that has had
no websocket connection (its tab was closed or reloaded) for ``closed_tab_grace`` seconds is shut
down.  Kernels idle in an open tab are culled by Jupyter Server's own culler after
``MappingKernelManager.cull_idle_timeout`` seconds (scripts/live_book.sh sets both; the page then
shows "kernel stopped — click to restart").
"""

from __future__ import annotations

import sys
import time

from jupyter_server.auth.identity import PasswordIdentityProvider
from jupyter_server.serverapp import ServerApp
from tornado.ioloop import PeriodicCallback
from traitlets import Float

CULL_INTERVAL = 2.0   # seconds between two looks for kernels whose page has gone


class OriginCheckingIdentityProvider(PasswordIdentityProvider):
    """Jupyter's token identity provider, except that ``Origin`` is checked for every request
    (Jupyter Server skips that check when the request carries the token)."""

    def should_check_origin(self, handler) -> bool:
        return True


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
        super().init_configurables()

    def start_app(self):
        super().start_app()
        if self.closed_tab_grace > 0:
            self._unconnected_since: dict[str, float] = {}
            self._closed_tab_culler = PeriodicCallback(self._cull_closed_tabs, CULL_INTERVAL * 1000)
            self._closed_tab_culler.start()
            self.log.info("kernels without a connected page are shut down after %.0f s",
                          self.closed_tab_grace)

    async def _cull_closed_tabs(self):
        now = time.monotonic()
        manager = self.kernel_manager
        seen = set()
        for model in manager.list_kernels():
            kernel_id = model["id"]
            seen.add(kernel_id)
            if model.get("connections", 0) > 0:
                self._unconnected_since.pop(kernel_id, None)
                continue
            since = self._unconnected_since.setdefault(kernel_id, now)
            if now - since >= self.closed_tab_grace:
                self._unconnected_since.pop(kernel_id, None)
                self.log.info("shutting down kernel %s: no page connected for %.0f s",
                              kernel_id, now - since)
                try:
                    await manager.shutdown_kernel(kernel_id)
                except Exception as exc:  # already gone, or shutting down: nothing to do
                    self.log.warning("could not shut down kernel %s: %s", kernel_id, exc)
        for kernel_id in set(self._unconnected_since) - seen:
            del self._unconnected_since[kernel_id]


def main(argv=None):
    LiveBookServerApp.launch_instance(argv=argv)


if __name__ == "__main__":
    sys.exit(main())
