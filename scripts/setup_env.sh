#!/usr/bin/env bash
# Create or refresh the project's environment: .venv at the repository root with the package
# (editable, all extras) and requirements.txt, plus, from Debian when run as root, npm (the
# book's vendored JavaScript), Chromium for the browser tests and poppler-utils (pdftotext) for
# the PDF test; without root, one line names what is missing.
#
# Idempotent and cheap to re-run: pip runs only when pyproject.toml or requirements.txt changed
# since the last successful install (a hash is kept in .venv/.setup_env.stamp), and apt runs
# only when npm, /usr/bin/chromium or pdftotext is missing.  Never runs `playwright install` (it downloads a
# browser build, which this network does not allow): the tests use /usr/bin/chromium.
#
# Environment:
#   PYTHON=python3.11   interpreter used to create .venv (default: python3)
#   SETUP_ENV_FORCE=1   reinstall the Python packages even if the stamp matches
#   SETUP_ENV_NO_APT=1  never call apt-get
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
VENV="$ROOT/.venv"
PY="$VENV/bin/python"
STAMP="$VENV/.setup_env.stamp"
PYTHON="${PYTHON:-python3}"
EXTRAS="test,book,browser,crypto,course,scale,accounting,release"

log() { printf '[setup_env] %s\n' "$*"; }
now() { date +%s; }
t_start=$(now)

# Several sessions may share one work tree: let one setup run at a time (the others wait,
# then find the stamp up to date).
if command -v flock >/dev/null 2>&1; then
    lock="${TMPDIR:-/tmp}/privpca_edu-setup-$(printf '%s' "$ROOT" | sha256sum | cut -c1-12).lock"
    exec 9>"$lock"
    if ! flock -n 9; then
        log "another setup_env.sh is running for $ROOT; waiting for it"
        flock 9
    fi
fi

# --- 1. Debian packages: npm for the book, Chromium and poppler for the tests and the PDF ----
# npm (Node.js): scripts/fetch_vendor.sh fetches the book's JavaScript with it (build_book.sh,
# live_book.sh); chromium (+ driver, fonts): the browser tests and scripts/build_pdf.sh;
# poppler-utils: pdftotext/pdfinfo, with which the PDF test reads the result.  Only what is
# missing is installed, and only as root with apt-get; otherwise one line says what is missing
# and what needs it, and the rest of the set-up goes on (building the book needs no Chromium).
missing=()
need_pkgs=()
command -v npm >/dev/null 2>&1 || { missing+=("npm (the book's JavaScript: build_book.sh)"); need_pkgs+=(nodejs npm); }
[ -x /usr/bin/chromium ] || { missing+=("chromium (browser tests, PDF)"); need_pkgs+=(chromium chromium-driver fonts-liberation); }
command -v pdftotext >/dev/null 2>&1 || { missing+=("pdftotext (PDF test)"); need_pkgs+=(poppler-utils); }
missing_line() { local IFS=';'; printf '%s' "${missing[*]}" | sed 's/;/; /g'; }
if [ ${#missing[@]} -eq 0 ]; then
    log "npm $(npm --version 2>/dev/null || echo '?'), chromium $(dpkg-query -W -f='${Version}' chromium 2>/dev/null || echo '?'), pdftotext: present"
elif [ -n "${SETUP_ENV_NO_APT:-}" ] || [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    log "missing: $(missing_line) -- install as root: apt-get install -y ${need_pkgs[*]}"
else
    log "installing Debian packages ${need_pkgs[*]}"
    t0=$(now)
    export DEBIAN_FRONTEND=noninteractive
    if apt-get -o DPkg::Lock::Timeout=300 update -qq \
        && apt-get -o DPkg::Lock::Timeout=300 install -y -qq "${need_pkgs[@]}" >/dev/null; then
        log "installed ${need_pkgs[*]} in $(( $(now) - t0 )) s"
    else
        log "apt-get failed; missing: $(missing_line)"
        if [ "${CI:-}" = "true" ]; then
            log "CI=true: failing, since the tests need them"
            exit 1
        fi
    fi
fi

# --- 2. the virtual environment -------------------------------------------------------------
if [ -x "$PY" ] && "$PY" -c 'import sys' >/dev/null 2>&1; then
    log "venv: $VENV exists ($("$PY" --version 2>&1))"
else
    if [ -e "$VENV" ]; then
        log "venv: $VENV is broken (its interpreter does not run); recreating it"
        rm -rf "$VENV"
    fi
    if ! "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
        log "venv: $PYTHON is missing or older than 3.11 (numpy 2.4 needs 3.11); set PYTHON=..."
        exit 1
    fi
    log "venv: creating $VENV with $("$PYTHON" --version 2>&1)"
    "$PYTHON" -m venv "$VENV"
fi

# --- 3. Python packages ---------------------------------------------------------------------
# The stamp covers everything that decides what gets installed: the two dependency files, the
# extras, where the repository lives (the editable install points there) and the interpreter.
want="$(
    {
        cat pyproject.toml requirements.txt
        printf 'extras=%s\nroot=%s\n' "$EXTRAS" "$ROOT"
        "$PY" -c 'import sys; print(sys.version)'
    } | sha256sum | cut -d' ' -f1
)"
have="$(cat "$STAMP" 2>/dev/null || true)"
# -I: ignore the current directory, so this finds the *installed* (editable) package.
installed_here() {
    "$PY" -I -c 'import importlib.util as u, sys
s = u.find_spec("privpca_edu")
sys.exit(s is None or s.origin is None or not s.origin.startswith(sys.argv[1]))' "$ROOT/" 2>/dev/null
}
if [ "$want" = "$have" ] && [ -z "${SETUP_ENV_FORCE:-}" ] && installed_here; then
    log "python packages: up to date (stamp matches pyproject.toml + requirements.txt); pip skipped"
else
    log "python packages: installing -e .[$EXTRAS] and requirements.txt (a few minutes the first time)"
    t0=$(now)
    export PIP_DISABLE_PIP_VERSION_CHECK=1
    # requirements.txt ends with a plain "." so that Binder installs the package; here the
    # package is installed editable instead, so that line is left out of the same resolve.
    reqs="$VENV/.requirements-without-self.txt"
    grep -vE '^[[:space:]]*\.[[:space:]]*$' requirements.txt >"$reqs"
    # pip's full output (build-backend chatter included) goes to a log, shown only on failure.
    pip_log="$VENV/setup_env-pip.log"
    if ! { "$PY" -m pip install --upgrade pip \
            && "$PY" -m pip install --progress-bar off -e ".[$EXTRAS]" -r "$reqs"; } >"$pip_log" 2>&1; then
        log "pip install FAILED; last lines of $pip_log:"
        tail -n 60 "$pip_log" | grep -v 'is ignored: it is neither a file nor a directory' >&2 || true
        exit 1
    fi
    echo "$want" >"$STAMP"
    log "python packages: installed in $(( $(now) - t0 )) s"
fi
"$PY" - <<'EOF'
import importlib.metadata as md
names = ["numpy", "scipy", "matplotlib", "scikit-learn", "ipywidgets", "jupyterlab", "jupyter-book", "pytest",
         "hypothesis", "nbmake", "numpydoc", "phe", "gmpy2", "playwright", "nbgrader", "jupyterlab-rise", "joblib", "tqdm",
         "dask", "distributed", "dp-accounting", "build", "twine"]
vers = []
for name in names:
    try:
        vers.append(f"{name} {md.version(name)}")
    except md.PackageNotFoundError:
        vers.append(f"{name} MISSING")
print("[setup_env] versions: " + ", ".join(vers))
EOF
log "done in $(( $(now) - t_start )) s; interpreter: $PY"
