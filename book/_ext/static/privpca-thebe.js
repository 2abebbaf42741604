/* Live Code for the privpca_edu book (added by book/_ext/live_code.py to pages with Live Code).
 *
 * The rocket menu's "Live Code" calls sphinx-book-theme's initThebeSBT(), which puts a
 * .thebe-launch-button under the page title and calls window.initThebe() (defined here).  On the
 * first click this script
 *   1. loads Thebe from this site's _static/thebe/ (scripts/fetch_vendor.sh fetched it from npm
 *      and made it take require.js and widget code from window.privpcaThebeAssets, set below,
 *      instead of from CDNs);
 *   2. marks every code cell of the page (MyST-NB's div.cell) as a Thebe cell, giving each one
 *      an output element (Thebe pairs sources and outputs by position);
 *   3. connects: "local" to the Jupyter server of scripts/live_book.sh (its address from
 *      _static/privpca-live/kernel.json, its token from localStorage, where
 *      privpca-live-token.js put it from the address the script printed), "binder" to a Binder
 *      kernel for the repository in window.privpcaThebeConfig;
 *   4. runs, in page order and stopping at the first error, only the cells the build marked
 *      "privpca-live-run" (the dashboards and the cells they need; book/_ext/live_code.py):
 *      every other cell keeps the output the build computed, and runs with its own "run"
 *      button, or with "Run every cell" under the status line.
 * The button under the title tells what is happening; its data-privpca-status attribute is
 * "loading", "connecting", "running", "live", "stopped" or "error" (the browser tests wait on it)
 * and, once live, data-privpca-seconds holds the time from the click.
 *
 * Kernel life: if the kernel dies, is restarted or shut down (scripts/live_book.sh stops idle
 * kernels), or the server goes away, the status line says so and each dashboard is covered by
 * "kernel stopped — click to restart".  A click runs the marked cells again on the restarted
 * kernel or, if the kernel is gone, reloads the page and starts Live Code on a new one.
 */
(function () {
  "use strict";

  var config = window.privpcaThebeConfig;
  if (!config) {
    return;
  }
  var TOKEN_KEY = "privpca-live-token";
  var AUTOSTART_KEY = "privpca-live-autostart";
  var root = new URL(document.documentElement.dataset.content_root || "./", document.baseURI);

  function staticUrl(path) {
    return new URL("_static/" + path, root).href;
  }

  function storedToken() {
    try {
      return window.localStorage.getItem(TOKEN_KEY) || window.privpcaLiveToken || "";
    } catch (err) {
      return window.privpcaLiveToken || "";
    }
  }

  function statusButton() {
    return document.querySelector(".thebe-launch-button");
  }

  function setStatus(state, text) {
    var button = statusButton();
    if (button) {
      button.dataset.privpcaStatus = state;
      button.classList.toggle("privpca-live-error", state === "error");
      button.classList.toggle("privpca-live-stopped", state === "stopped");
      button.textContent = text;
    }
    if (state === "error" || state === "stopped") {
      console.warn("[Live Code]", text);
    }
  }

  function loadScript(src) {
    return new Promise(function (resolve, reject) {
      var script = document.createElement("script");
      script.src = src;
      script.async = true;
      script.onload = resolve;
      script.onerror = function () {
        reject(new Error("could not load " + src));
      };
      document.head.appendChild(script);
    });
  }

  function loadStyle(href) {
    var link = document.createElement("link");
    link.rel = "stylesheet";
    link.href = href;
    document.head.appendChild(link);
  }

  var pageCells = []; // the div.cell elements that became Thebe cells, in page order

  function markCells() {
    document.querySelectorAll("div.cell").forEach(function (cell) {
      var source = cell.querySelector(".cell_input pre");
      if (!source) {
        return; // a cell whose code is not on the page
      }
      pageCells.push(cell);
      source.setAttribute("data-executable", "true");
      source.setAttribute("data-language", "python");
      var output = cell.querySelector(".cell_output");
      if (!output) {
        output = document.createElement("div");
        output.className = "cell_output docutils container";
        cell.appendChild(output);
      }
      output.setAttribute("data-output", "");
      cell.querySelectorAll("button.copybtn").forEach(function (button) {
        button.remove();
      });
    });
  }

  async function connectionOptions() {
    if (config.mode === "binder") {
      return {useBinder: true, binderOptions: config.binder};
    }
    var response;
    try {
      response = await fetch(staticUrl("privpca-live/kernel.json"), {cache: "no-store"});
    } catch (err) {
      response = null;
    }
    if (!response || !response.ok) {
      throw new Error("no local kernel is running for this book: start it with " +
                      "`bash scripts/live_book.sh` and open the address it prints");
    }
    var kernel = await response.json();
    var token = storedToken();
    if (!token) {
      throw new Error("this page has no access key for the local kernel: open the address " +
                      "that scripts/live_book.sh printed (it ends with #privpca-live-token=...)");
    }
    return {
      useBinder: false,
      serverSettings: {baseUrl: kernel.baseUrl, wsUrl: kernel.wsUrl, token: token, appendToken: true},
    };
  }

  // --- what runs: the cells the build marked (a page built without marks runs every cell) ----
  function cellIds(all) {
    var cells = (window.thebe.notebook && window.thebe.notebook.cells) || [];
    var marked = document.querySelector("div.cell.privpca-live-run") !== null;
    return cells.filter(function (cell, i) {
      return all || !marked || (pageCells[i] && pageCells[i].classList.contains("privpca-live-run"));
    }).map(function (cell) { return cell.id; });
  }

  // Runs the cells in order, stopping at the first error.  Unless all: of a cell needed only
  // for some of its names, only the statements binding them (config.parts, by the cell's place
  // among the page's code cells; book/_ext/live_code.py).
  async function runCells(all) {
    var notebook = window.thebe.notebook;
    var cells = notebook.cells || [];
    var parts = (!all && config.parts) || {};
    var ids = cellIds(all);
    for (var i = 0; i < cells.length; i++) {
      if (ids.indexOf(cells[i].id) < 0) {
        continue;
      }
      var code = Object.prototype.hasOwnProperty.call(parts, String(i)) ? parts[String(i)] : cells[i].source;
      var result = await cells[i].execute(code);
      if (result === null || (result && result.error)) {
        return false;
      }
    }
    return true;
  }

  function liveText() {
    return (config.mode === "local" ? "Live: this page's dashboards run on your local kernel."
                                    : "Live: this page's dashboards run on a Binder kernel.") +
      " Other cells show the book's saved output until you run them (‘run’, or Shift-Enter" +
      " in an edited cell; a cell that needs an earlier one’s results needs that one run first," +
      " or ‘Run every cell’).";
  }

  function addRunEverything() {
    var status = statusButton();
    if (!status || document.querySelector(".privpca-run-every-cell")) {
      return;
    }
    var button = document.createElement("button");
    button.type = "button";
    button.className = "privpca-run-every-cell";
    button.textContent = "Run every cell";
    button.title = "run all the page's cells in order, as in JupyterLab";
    button.onclick = async function () {
      button.disabled = true;
      setStatus("running", "Running every cell of this page…");
      var ok = await runCells(true);
      button.disabled = false;
      if (kernelStopped) {
        return;
      }
      if (ok) {
        setStatus("live", liveText());
      } else {
        setStatus("error", "A cell raised an error (shown below it); the cells after it did not run.");
      }
    };
    status.insertAdjacentElement("afterend", button);
  }

  // --- kernel life -------------------------------------------------------------------------
  var session = null;
  var kernelStopped = false;
  var STOPPED = config.mode === "local"
    ? "The kernel stopped (idle kernels are stopped after a while; or it died, or scripts/live_book.sh was stopped)."
    : "The kernel stopped (Binder stops idle kernels after about ten minutes; or it died).";

  function dashboards() {
    return pageCells.filter(function (cell) { return cell.classList.contains("privpca-live-dashboard"); });
  }

  function showStopped(why) {
    if (kernelStopped) {
      return;
    }
    kernelStopped = true;
    setStatus("stopped", why + " The dashboards no longer answer. Click here to restart them.");
    dashboards().forEach(function (cell) {
      if (cell.querySelector(".privpca-kernel-stopped")) {
        return;
      }
      var cover = document.createElement("button");
      cover.type = "button";
      cover.className = "privpca-kernel-stopped";
      cover.textContent = "kernel stopped — click to restart";
      cover.onclick = restart;
      var output = cell.querySelector(".cell_output") || cell;
      output.insertAdjacentElement("afterbegin", cover);
    });
  }

  function watchKernel(started) {
    session = started;
    var connection = started.connection;
    connection.statusChanged.connect(function (_, status) {
      if (status === "dead") {
        showStopped(STOPPED);
      } else if (status === "restarting" || status === "autorestarting") {
        showStopped("The kernel restarted: everything it had computed is lost.");
      }
    });
    connection.connectionStatusChanged.connect(function (_, status) {
      if (status === "disconnected") {
        showStopped(STOPPED);
      }
    });
  }

  async function restart() {
    var connection = session && session.connection;
    var usable = connection && !connection.isDisposed && connection.kernel &&
      connection.kernel.connectionStatus === "connected" &&
      ["idle", "busy", "starting"].indexOf(connection.kernel.status) >= 0;
    if (!usable) {
      // The kernel is gone: a fresh page on a fresh kernel (edits to cells are lost with it).
      try {
        window.sessionStorage.setItem(AUTOSTART_KEY, window.location.pathname);
      } catch (err) {
        // no session storage: the reader clicks Live Code again
      }
      window.location.reload();
      return;
    }
    // The kernel restarted: run the dashboards again on it.
    document.querySelectorAll(".privpca-kernel-stopped").forEach(function (cover) { cover.remove(); });
    kernelStopped = false;
    setStatus("running", "Running this page's dashboards again…");
    if (await runCells(false)) {
      if (!kernelStopped) {
        setStatus("live", liveText());
      }
    } else if (!kernelStopped) {
      setStatus("error", "A cell raised an error (shown below it); the cells after it did not run.");
    }
  }

  async function start() {
    var clicked = performance.now();
    setStatus("loading", "Loading Thebe…");
    // Read by the patched Thebe bundle (see scripts/fetch_vendor.sh) when it loads.
    window.privpcaThebeAssets = {
      requirejs: staticUrl("requirejs/require.js"),
      widgetsCdn: staticUrl("no-widget-cdn/"),
    };
    var connection = await connectionOptions();
    loadStyle(staticUrl("thebe/lib/thebe.css"));
    await loadScript(staticUrl("thebe/lib/index.js"));
    var thebe = window.thebe;
    var phases = {thebe: performance.now() - clicked};

    bootstrapped = true; // from here on the page is changed: no second attempt in this page
    markCells();
    setStatus("connecting", config.mode === "local" ? "Connecting to the local kernel…"
                                                    : "Starting a Binder kernel (this can take minutes)…");
    thebe.on("status", function (event, data) {
      if (data && data.message && statusButton() && statusButton().dataset.privpcaStatus === "connecting") {
        statusButton().title = data.message;
      }
    });
    var started = await thebe.bootstrap(Object.assign({
      requestKernel: true,
      predefinedOutput: true,
      mountStatusWidget: false,
      mountActivateWidget: false,
      mountRestartButton: false,
      mathjaxUrl: "",
      // A path of its own for this page's session: Jupyter gives every session for the same path
      // the same kernel, so a second tab, or a reload while the last page's kernel is being shut
      // down, would otherwise share (or lose) a kernel.  The kernel still starts in the
      // notebook's folder.
      kernelOptions: {kernelName: config.kernelName, path: config.path.replace(/(\.[A-Za-z0-9]+)?$/, function (ext) {
        return "-live-" + Math.random().toString(36).slice(2, 10) + (ext || "");
      })},
      codeMirrorConfig: {mode: "python", theme: "default", lineNumbers: false},
    }, connection));
    if (!started || !started.session) {
      throw new Error("the kernel did not start");
    }
    watchKernel(started.session);
    phases.kernel = performance.now() - clicked;
    setStatus("running", "Running this page's dashboards…");
    var ok = await runCells(false);
    if (kernelStopped) {
      return;
    }
    if (!ok) {
      setStatus("error", "A cell raised an error (shown below it); the cells after it did not run.");
      return;
    }
    setStatus("live", liveText());
    var button = statusButton();
    if (button) {
      // for benchmarks/bench_live_code.py: the time from the click, and when Thebe had loaded
      // and the kernel had started (milliseconds)
      phases.live = performance.now() - clicked;
      button.dataset.privpcaSeconds = (phases.live / 1000).toFixed(2);
      button.dataset.privpcaPhases = JSON.stringify(phases, function (k, v) {
        return typeof v === "number" ? Math.round(v) : v;
      });
    }
    addRunEverything();
  }

  // The Live Code item keeps the focus, and with it its tooltip, over the status line: let go.
  function releaseLaunchItem() {
    window.setTimeout(function () {
      var item = document.querySelector("button.btn-launch-thebe");
      if (item && document.activeElement === item) {
        item.blur();
      }
    }, 100);
  }

  var starting = null;
  var bootstrapped = false;
  window.initThebe = function () {
    releaseLaunchItem();
    if (kernelStopped) {
      restart();
      return starting;
    }
    if (!starting) {
      starting = start().catch(function (err) {
        var message = "Live Code failed: " + (err && err.message ? err.message : err);
        if (config.mode === "local" && bootstrapped) {
          message += ". If scripts/live_book.sh was restarted, open the address it printed this " +
                     "time: its access key changes at every start.";
        }
        setStatus("error", message);
        if (!bootstrapped) {
          starting = null; // nothing on the page changed yet: a second click tries again
        }
      });
    } else if (statusButton() && !statusButton().dataset.privpcaStatus) {
      setStatus("loading", "Loading Thebe…");
    }
    return starting;
  };

  // The status line is a button: once the kernel stopped, clicking it restarts.
  document.addEventListener("click", function (event) {
    if (kernelStopped && event.target === statusButton()) {
      restart();
    }
  });

  // After "click to restart" reloaded the page because its kernel was gone: start again.
  (function autostart() {
    var wanted = null;
    try {
      wanted = window.sessionStorage.getItem(AUTOSTART_KEY);
      window.sessionStorage.removeItem(AUTOSTART_KEY);
    } catch (err) {
      return;
    }
    if (wanted !== window.location.pathname) {
      return;
    }
    var go = function () {
      if (typeof window.initThebeSBT === "function") {
        window.initThebeSBT();
      }
    };
    if (document.readyState === "complete") {
      go();
    } else {
      window.addEventListener("load", go);
    }
  })();
})();
