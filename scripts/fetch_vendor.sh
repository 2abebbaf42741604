#!/usr/bin/env bash
# Fetch the JavaScript that the static book serves itself, so that the built site loads nothing
# from the internet: require.js, the Jupyter widgets HTML manager (its "embed-amd" build, which
# renders the widget state saved in executed notebooks) and MathJax 3.
#
#   bash scripts/fetch_vendor.sh          # fetch when missing or when the pins below changed
#   FETCH_VENDOR_FORCE=1 bash scripts/fetch_vendor.sh   # fetch again regardless
#
# The packages come from the npm registry with `npm pack` (no node_modules, no install
# scripts) and are unpacked into book/_vendor/<name>/ (git-ignored, ~25 MB: fetched, never
# committed).  _config.yml lists book/_vendor in html_static_path, so Sphinx copies it to
# _build/html/_static/ and `mathjax_path` / `nb_ipywidgets_js` point there.
#
# Idempotent: a stamp file records the pinned versions; when it matches and the key files are
# present nothing is downloaded.  Fails loudly (non-zero exit, message on stderr) when npm is
# missing, a download fails, or an unpacked package lacks the file the book needs.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DEST="$ROOT/book/_vendor"
STAMP="$DEST/.versions"

# name  npm spec (exact versions, checked to exist with `npm view`)  file the book loads
PINS=(
    "requirejs     requirejs@2.3.7                      require.js"
    "html-manager  @jupyter-widgets/html-manager@1.0.6  dist/embed-amd.js"
    "mathjax       mathjax@3.2.2                        es5/tex-mml-chtml.js"
)

log() { printf '[fetch_vendor] %s\n' "$*"; }
die() { printf '[fetch_vendor] ERROR: %s\n' "$*" >&2; exit 1; }

want="$(printf '%s\n' "${PINS[@]}" | tr -s ' ')"

complete() {
    [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$want" ] || return 1
    local line name spec file
    for line in "${PINS[@]}"; do
        read -r name spec file <<<"$line"
        [ -s "$DEST/$name/$file" ] || return 1
    done
}

if [ -z "${FETCH_VENDOR_FORCE:-}" ] && complete; then
    log "book/_vendor is up to date ($(printf '%s ' $(awk '{print $2}' <<<"$want")))"
    exit 0
fi

command -v npm >/dev/null 2>&1 || die "npm is not installed (Debian: apt-get install -y npm; it ships with Node.js)"

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/out"

for line in "${PINS[@]}"; do
    read -r name spec file <<<"$line"
    log "npm pack $spec"
    # npm prints the tarball's name on stdout; its warnings go to stderr.
    if ! tarball="$(cd "$tmp" && npm pack --silent "$spec" 2>"$tmp/npm.err" | tail -n 1)"; then
        cat "$tmp/npm.err" >&2
        die "npm pack $spec failed"
    fi
    [ -n "$tarball" ] && [ -f "$tmp/$tarball" ] || { cat "$tmp/npm.err" >&2; die "npm pack $spec produced no tarball"; }
    mkdir -p "$tmp/out/$name"
    tar -xzf "$tmp/$tarball" -C "$tmp/out/$name" --strip-components=1 \
        || die "could not unpack $tarball"
    [ -s "$tmp/out/$name/$file" ] || die "$spec has no $file"
done

# The widget manager must be the AMD build: it defines its modules for require.js (that is how
# the page's embed script finds "@jupyter-widgets/controls" without any CDN).
grep -q 'define("@jupyter-widgets/html-manager"' "$tmp/out/html-manager/dist/embed-amd.js" \
    || die "html-manager/dist/embed-amd.js is not the AMD (require.js) build"
grep -q 'define("@jupyter-widgets/controls"' "$tmp/out/html-manager/dist/embed-amd.js" \
    || die "html-manager/dist/embed-amd.js does not bundle @jupyter-widgets/controls"

# Trim what the book never serves: source maps, the non-AMD bundle, the TypeScript build and
# the r.js optimiser (~15 MB).  Licences and package.json files stay.
find "$tmp/out/html-manager/dist" -name '*.map' -delete
rm -rf "$tmp/out/html-manager/dist/embed.js" "$tmp/out/html-manager/dist/embed.js.LICENSE.txt" \
    "$tmp/out/html-manager/lib" "$tmp/out/requirejs/bin"
# Sphinx would read a README.md inside the static folder as a page: keep none.
find "$tmp/out" -maxdepth 2 -iname 'README*' -delete

printf '%s\n' "$want" >"$tmp/out/.versions"
rm -rf "$DEST"
mkdir -p "$(dirname "$DEST")"
mv "$tmp/out" "$DEST"
log "installed into book/_vendor: $(du -sh "$DEST" | cut -f1)"
