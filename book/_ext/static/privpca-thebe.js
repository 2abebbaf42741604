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
 *      _static/privpca-live/kernel.json, its token from the #privpca-live-token=... fragment of
 *      the address the script printed, remembered in localStorage), "binder" to a Binder
 *      kernel for the repository in window.privpcaThebeConfig;
 *   4. runs the page's cells in order, stopping at the first error, so the dashboards come alive.
 * The button under the title tells what is happening; its data-privpca-status attribute is
 * "loading", "connecting", "running", "live" or "error" (the browser tests wait on it).
 */
(function () {
  "use strict";

  var config = window.privpcaThebeConfig;
  if (!config) {
    return;
  }
  var TOKEN_KEY = "privpca-live-token";
  var root = new URL(document.documentElement.dataset.content_root || "./", document.baseURI);

  function staticUrl(path) {
    return new URL("_static/" + path, root).href;
  }

  // A token handed over in the address (#privpca-live-token=...) is kept for the whole site
  // and removed from the address bar, so it is not bookmarked or copied along with the link.
  (function takeTokenFromAddress() {
    var match = /(?:^#|&)privpca-live-token=([^&]+)/.exec(window.location.hash);
    if (!match) {
      return;
    }
    try {
      window.localStorage.setItem(TOKEN_KEY, decodeURIComponent(match[1]));
    } catch (err) {
      window.privpcaLiveToken = decodeURIComponent(match[1]);
    }
    history.replaceState(null, "", window.location.pathname + window.location.search);
  })();

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
      button.textContent = text;
    }
    if (state === "error") {
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

  function markCells() {
    document.querySelectorAll("div.cell").forEach(function (cell) {
      var source = cell.querySelector(".cell_input pre");
      if (!source) {
        return; // a cell whose code is not on the page
      }
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

  async function start() {
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
      kernelOptions: {kernelName: config.kernelName, path: config.path},
      codeMirrorConfig: {mode: "python", theme: "default", lineNumbers: false},
    }, connection));
    if (!started || !started.session) {
      throw new Error("the kernel did not start");
    }
    setStatus("running", "Running this page's cells…");
    var results = await thebe.notebook.executeAll(true);
    var failed = results.some(function (r) { return r === null || (r && r.error); });
    if (failed) {
      setStatus("error", "A cell raised an error (shown below it); the cells after it did not run.");
      return;
    }
    setStatus("live", config.mode === "local"
      ? "Live: this page runs on your local kernel. Edit a cell and press Shift-Enter or ‘run’."
      : "Live: this page runs on a Binder kernel. Edit a cell and press Shift-Enter or ‘run’.");
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
})();
