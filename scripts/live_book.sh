#!/usr/bin/env bash
# The book, live in place: every chapter's "Live Code" button runs the chapter on a local kernel.
#
#   bash scripts/live_book.sh [--port N] [--kernel-port N] [--no-build | --fresh] [--toc FILE]
#                             [--build-dir DIR] [--idle-timeout S] [--closed-tab-grace S]
#
#   --port N          serve the book on 127.0.0.1:N (default 8001; 0: any free port, printed)
#   --kernel-port N   run the Jupyter server on 127.0.0.1:N (default 8890; 0: any free port)
#                     A port that is in use is refused at once, before anything is built.
#   --no-build        reuse the live build from an earlier run (fails if there is none)
#   --fresh           delete the earlier live build first: every notebook is executed again
#                     (by default only pages and notebooks that changed are rebuilt/re-run)
#   --toc FILE        build only the pages of this table of contents (default _toc.yml)
#   --build-dir DIR   where the live build goes (default _build/live; the pages are in
#                     DIR/_build/html).  The static build (_build/html) is never touched.
#   --idle-timeout S  shut down a kernel that has run nothing for S seconds although its page is
#                     still open (default 1800 = 30 min; the page then says "kernel stopped —
#                     click to restart")
#   --closed-tab-grace S
#                     shut down a kernel S seconds after its page was closed or reloaded
#                     (default 20)
#
# Steps: scripts/setup_env.sh and scripts/fetch_vendor.sh (as build_book.sh); the book built with
# PRIVPCA_BOOK_LIVE=1 (book/_ext/live_code.py: every chapter gets "Live Code", loaded from the
# local copy of Thebe; notebooks are executed in cache mode, so a rebuild re-executes only the
# notebooks that changed); a Jupyter server on 127.0.0.1 (book/_ext/live_kernel_server.py:
# Jupyter Server plus the origin check and the culler described below) with a fresh random
# token and no terminals; the book served on 127.0.0.1.  The script prints the address to open:
# it carries the token in its "#privpca-live-token=..." fragment (a fragment never reaches a
# server); every page of the live book stores it in the browser's localStorage for this site and
# removes it from the address bar.
#
# What protects the kernel (which can run any code as this user):
#   * it listens on 127.0.0.1 only: nothing outside this machine can connect;
#   * every request needs the token (a new one at every start, dead when the script stops);
#   * every request that carries an Origin header, token or not, must come from the book's own
#     address (http://127.0.0.1:PORT or http://localhost:PORT): REST calls from another origin
#     get 404, kernel websockets 403.  Browsers send Origin on every cross-origin request and
#     WebSocket, so no page of another site or port can use the kernel, even holding the token.
#     (Jupyter Server itself skips this check for token-authenticated requests.)
#   * not protected against: a program running on this machine that holds the token (from this
#     script's output or the browser's storage for the book's site) can use the kernel, as with
#     any local Jupyter server.
# One kernel waits, started in notebooks/ with NumPy, SciPy, Matplotlib, scikit-learn and the
# package imported, so that Live Code does not wait for that (a new one is warmed after each
# click); each dashboard first shows the figure the build saved for it (DIR/live-start) and is
# computed again as soon as its kernel is idle.  Kernels end when their page has been closed for
# --closed-tab-grace seconds, after --idle-timeout seconds without activity, and all of them when
# the script stops.
#
# Ctrl-C or SIGTERM stops both servers (the kernels end with the Jupyter server); so does either
# server dying.  Exit code: 0 after a requested stop, 1 if a server failed, 2 for bad arguments
# (a port in use included).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

port=8001
kernel_port=8890
build=1
fresh=0
toc=""
build_dir="_build/live"
idle_timeout=1800
closed_tab_grace=20
usage() {
    echo "usage: bash scripts/live_book.sh [--port N] [--kernel-port N] [--no-build | --fresh] [--toc FILE]"
    echo "                                 [--build-dir DIR] [--idle-timeout S] [--closed-tab-grace S]"
}
need_value() { [ "$2" -ge 2 ] || { echo "$1 needs a value" >&2; usage >&2; exit 2; }; }
while [ $# -gt 0 ]; do
    case "$1" in
        --port) need_value "$1" $#; port="$2"; shift 2 ;;
        --port=*) port="${1#--port=}"; shift ;;
        --kernel-port) need_value "$1" $#; kernel_port="$2"; shift 2 ;;
        --kernel-port=*) kernel_port="${1#--kernel-port=}"; shift ;;
        --no-build) build=0; shift ;;
        --fresh) fresh=1; shift ;;
        --toc) need_value "$1" $#; toc="$2"; shift 2 ;;
        --toc=*) toc="${1#--toc=}"; shift ;;
        --build-dir) need_value "$1" $#; build_dir="$2"; shift 2 ;;
        --build-dir=*) build_dir="${1#--build-dir=}"; shift ;;
        --idle-timeout) need_value "$1" $#; idle_timeout="$2"; shift 2 ;;
        --idle-timeout=*) idle_timeout="${1#--idle-timeout=}"; shift ;;
        --closed-tab-grace) need_value "$1" $#; closed_tab_grace="$2"; shift 2 ;;
        --closed-tab-grace=*) closed_tab_grace="${1#--closed-tab-grace=}"; shift ;;
        -h|--help) usage; exit 0 ;;
        *) echo "unknown argument: $1" >&2; usage >&2; exit 2 ;;
    esac
done
for value in "$port" "$kernel_port"; do
    case "$value" in ''|*[!0-9]*) echo "ports must be numbers, got '$value'" >&2; exit 2 ;; esac
    [ "$value" -le 65535 ] || { echo "ports must be at most 65535, got $value" >&2; exit 2; }
done
for value in "$idle_timeout" "$closed_tab_grace"; do
    case "$value" in
        ''|*[!0-9]*) echo "--idle-timeout and --closed-tab-grace take whole seconds, got '$value'" >&2; exit 2 ;;
    esac
done
[ "$port" = 0 ] || [ "$port" != "$kernel_port" ] || { echo "--port and --kernel-port must differ" >&2; exit 2; }
[ "$build" -eq 1 ] || [ "$fresh" -eq 0 ] || { echo "--no-build and --fresh exclude each other" >&2; exit 2; }
if [ -n "$toc" ]; then
    [ -f "$toc" ] || { echo "--toc: no such file: $toc" >&2; exit 2; }
    toc="$(cd "$(dirname "$toc")" && pwd)/$(basename "$toc")"
fi
case "$build_dir" in /*) ;; *) build_dir="$ROOT/$build_dir" ;; esac
html="$build_dir/_build/html"
# Each dashboard's starting figure, saved by the build's notebook runs and shown at once by Live
# Code's kernels, which compute it again only when idle (privpca_edu/widgets/dashboard.py).
start_frames="$build_dir/live-start"

log() { printf '[live_book] %s\n' "$*"; }
die() { printf '[live_book] ERROR: %s\n' "$*" >&2; exit 1; }

PY="$ROOT/.venv/bin/python"
port_free() {
    "$PY" - "$1" <<'EOF'
import socket, sys
with socket.socket() as s:
    # as the servers do: a port left in TIME_WAIT by a previous run is free
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        s.bind(("127.0.0.1", int(sys.argv[1])))
    except OSError:
        sys.exit(1)
EOF
}

any_free_port() {  # a port that is free on 127.0.0.1 now, other than $1
    "$PY" - "$1" <<'EOF'
import socket, sys
while True:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    if str(port) != sys.argv[1]:
        print(port)
        break
EOF
}
refuse_port() {  # port option
    printf '[live_book] ERROR: port %s is in use on 127.0.0.1: choose another with %s N (%s 0: any free port)\n' \
        "$1" "$2" "$2" >&2
    exit 2
}
check_ports() {  # a port in use is refused at once, naming the option that changes it
    port_free "$port" || refuse_port "$port" --port
    port_free "$kernel_port" || refuse_port "$kernel_port" --kernel-port
}

# Ports first (seconds, not minutes, after the start): 0 means "any free port"; a port in use is
# refused before anything is installed or built.
[ -x "$PY" ] || bash scripts/setup_env.sh
if [ "$port" = 0 ]; then
    port="$(any_free_port "$kernel_port")"
    log "--port 0: the book will be served on port $port"
fi
if [ "$kernel_port" = 0 ]; then
    kernel_port="$(any_free_port "$port")"
    log "--kernel-port 0: the Jupyter server will listen on port $kernel_port"
fi
check_ports
bash scripts/setup_env.sh
bash scripts/fetch_vendor.sh

# --- 1. the live build ----------------------------------------------------------------------
if [ "$build" -eq 1 ]; then
    if [ "$fresh" -eq 1 ]; then
        rm -rf "$build_dir"
    fi
    # The saved starting figures belong to the package source they were drawn with (a kernel
    # only uses a figure whose key, which includes that source, matches).  The notebooks run in
    # cache mode, so a changed package alone would not redraw them: when the source differs from
    # the one stamped in the last build (or no figures were saved), run the notebooks again.
    source_stamp="$(.venv/bin/python -c 'from privpca_edu._version import source_digest; print(source_digest())')"
    if [ -d "$build_dir/_build" ] && [ "$(cat "$start_frames/SOURCE" 2>/dev/null)" != "$source_stamp" ]; then
        log "the package changed since the last live build (or it saved no starting figures): its notebooks run again"
        rm -rf "$build_dir/_build/.jupyter_cache" "$build_dir/_build/.doctrees" "$start_frames"
    fi
    mkdir -p "$start_frames"
    log "building the live book into ${html#"$ROOT"/} (notebooks run in cache mode)"
    t0=$(date +%s)
    toc_args=()
    [ -n "$toc" ] && toc_args=(--toc "$toc")
    # Headless plotting and one BLAS thread for the build's own notebook runs, as build_book.sh.
    if ! MPLBACKEND=Agg OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 PRIVPCA_BOOK_LIVE=1 \
        PRIVPCA_LIVE_START_SAVE="$start_frames" \
        .venv/bin/jupyter-book build . --path-output "$build_dir" "${toc_args[@]}"; then
        die "the live build failed (see above)"
    fi
    echo "$source_stamp" > "$start_frames/SOURCE"
    log "built in $(( $(date +%s) - t0 )) s"
fi
[ -f "$html/_static/privpca-live/build.json" ] \
    || die "no live build in ${html#"$ROOT"/} (run without --no-build first)"
check_ports   # again: the build took a while, and something else may have taken a port since

# --- 2. the two servers ---------------------------------------------------------------------
tmp="$(mktemp -d "${TMPDIR:-/tmp}/privpca-live-book.XXXXXX")"
kernel_pid=""
book_pid=""
stopping=0
stop_pid() {  # stop one server we started: SIGTERM, then SIGKILL after 15 s
    local pid="$1" i
    [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || return 0
    kill -TERM "$pid" 2>/dev/null || true
    for i in $(seq 1 150); do
        kill -0 "$pid" 2>/dev/null || return 0
        sleep 0.1
    done
    kill -KILL "$pid" 2>/dev/null || true
}
cleanup() {
    [ "$stopping" -eq 1 ] && return
    stopping=1
    trap - INT TERM
    # Stop the servers whatever happens to this script's output (a closed pipe, as when Ctrl-C
    # also ends a `| tee`, must not end the clean-up half way).
    trap '' PIPE
    set +e
    [ -n "$book_pid$kernel_pid" ] && log "stopping the servers"
    stop_pid "$book_pid"
    stop_pid "$kernel_pid"       # the Jupyter server shuts its kernels down on SIGTERM
    wait 2>/dev/null || true
    rm -f "$html/_static/privpca-live/kernel.json"
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 0' INT TERM

# The servers run in sessions of their own: Ctrl-C in the terminal reaches only this script
# (whose trap stops them), not JupyterLab's "shutdown? (y/n)" prompt.
detach=()
command -v setsid >/dev/null 2>&1 && detach=(setsid)

token="$("$PY" -c 'import secrets; print(secrets.token_urlsafe(32))')"
origin_pat="^http://(127\\.0\\.0\\.1|localhost):$port\$"
allow_root=()
[ "$(id -u)" -eq 0 ] && allow_root=(--ServerApp.allow_root=True)
# The token goes through the environment (JUPYTER_TOKEN), not the command line that `ps` shows.
# book/_ext/live_kernel_server.py: Jupyter Server with the origin check for token-carrying
# requests and the closed-tab culler (see above).  Run as a file, so that book/_ext is on the
# server's import path only, not on the kernels'.
JUPYTER_TOKEN="$token" \
JUPYTER_CONFIG_DIR="$tmp/config" JUPYTER_RUNTIME_DIR="$tmp/runtime" IPYTHONDIR="$tmp/ipython" \
MPLBACKEND="module://matplotlib_inline.backend_inline" PRIVPCA_LIVE_START="$start_frames" \
    "${detach[@]}" "$PY" "$ROOT/book/_ext/live_kernel_server.py" --no-browser \
    --ServerApp.ip=127.0.0.1 --ServerApp.port="$kernel_port" --ServerApp.port_retries=0 \
    --ServerApp.root_dir="$ROOT" \
    --ServerApp.allow_origin_pat="$origin_pat" \
    --ServerApp.allow_remote_access=False \
    --ServerApp.terminals_enabled=False \
    --MappingKernelManager.cull_idle_timeout="$idle_timeout" \
    --MappingKernelManager.cull_connected=True \
    --MappingKernelManager.cull_interval=30 \
    --LiveBookServerApp.closed_tab_grace="$closed_tab_grace" \
    --PooledKernelManager.warm_path=notebooks \
    "${allow_root[@]}" \
    </dev/null >"$tmp/jupyter-server.log" 2>&1 &
kernel_pid=$!
log "Jupyter server: pid $kernel_pid on http://127.0.0.1:$kernel_port/ (log: $tmp/jupyter-server.log)"

wait_http() {  # url pid seconds
    "$PY" - "$1" "$2" "$3" <<'EOF'
import os, sys, time, urllib.request
url, pid, limit = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
deadline = time.monotonic() + limit
while time.monotonic() < deadline:
    try:
        os.kill(pid, 0)
    except OSError:
        sys.exit(f"the server (pid {pid}) exited before answering {url}")
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            if response.status == 200:
                sys.exit(0)
    except OSError:
        pass
    time.sleep(0.2)
sys.exit(f"{url} did not answer within {limit:.0f} s")
EOF
}
# /api answers without a token (it only gives the server's version).
if ! wait_http "http://127.0.0.1:$kernel_port/api" "$kernel_pid" 120; then
    tail -n 30 "$tmp/jupyter-server.log" >&2 || true
    die "the Jupyter server did not start"
fi

mkdir -p "$html/_static/privpca-live"
printf '{"baseUrl": "http://127.0.0.1:%s/", "wsUrl": "ws://127.0.0.1:%s/"}\n' "$kernel_port" "$kernel_port" \
    >"$html/_static/privpca-live/kernel.json"

"${detach[@]}" "$PY" -m http.server --bind 127.0.0.1 --directory "$html" "$port" \
    </dev/null >"$tmp/book-server.log" 2>&1 &
book_pid=$!
log "book server: pid $book_pid on http://127.0.0.1:$port/"
wait_http "http://127.0.0.1:$port/" "$book_pid" 30 || die "the book server did not start"

start_page="book/intro.html"
[ -f "$html/$start_page" ] || start_page="index.html"
log "ready. Open this address: it carries the kernel's access token, which every page of the"
log "book keeps for this site. On any chapter, the rocket menu -> Live Code makes its dashboards"
log "live. Only pages served from http://127.0.0.1:$port can use the kernel. Kernels stop"
log "${closed_tab_grace} s after their page closes and after ${idle_timeout} s idle. Ctrl-C stops both servers."
echo "http://127.0.0.1:$port/$start_page#privpca-live-token=$token"

# Until a signal (trap -> exit 0) or until a server dies (exit 1).
while kill -0 "$kernel_pid" 2>/dev/null && kill -0 "$book_pid" 2>/dev/null; do
    sleep 1 &
    wait $! || true
done
kill -0 "$kernel_pid" 2>/dev/null || { tail -n 20 "$tmp/jupyter-server.log" >&2 || true; die "the Jupyter server stopped"; }
die "the book server stopped"
