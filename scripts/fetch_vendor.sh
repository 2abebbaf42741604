#!/usr/bin/env bash
# Fetch the JavaScript that the static book serves itself, so that the built site loads nothing
# from the internet: require.js, the Jupyter widgets HTML manager (its "embed-amd" build, which
# renders the widget state saved in executed notebooks), MathJax 3 and Thebe (the "Live Code"
# button: it connects the page's code cells to a Jupyter kernel, see book/_ext/live_code.py).
#
#   bash scripts/fetch_vendor.sh          # fetch when missing or when the pins below changed
#   bash scripts/fetch_vendor.sh slides   # reveal.js for the slide decks, into _vendor/slides/
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
SET="${1:-book}"
case "$SET" in
    book)
        DEST="$ROOT/book/_vendor"
        # name  npm spec (exact versions, checked to exist with `npm view`)  file the book loads
        PINS=(
            "requirejs     requirejs@2.3.7                      require.js"
            "html-manager  @jupyter-widgets/html-manager@1.0.6  dist/embed-amd.js"
            "mathjax       mathjax@3.2.2                        es5/tex-mml-chtml.js"
            "thebe         thebe@0.9.3                          lib/index.js"
        )
        # Bump when the patches applied to Thebe below change (the stamp then no longer matches).
        THEBE_PATCH="thebe-offline-patch 1" ;;
    slides)
        # scripts/build_slides.sh copies reveal.js next to the decks (with the book's MathJax,
        # require.js and widget manager); the git-ignored _vendor/ is never served by the book
        DEST="$ROOT/_vendor/slides"
        PINS=("reveal.js     reveal.js@6.0.2                      dist/reveal.js")
        THEBE_PATCH="" ;;
    *) echo "usage: bash scripts/fetch_vendor.sh [book|slides]" >&2; exit 2 ;;
esac
STAMP="$DEST/.versions"

log() { printf '[fetch_vendor] %s\n' "$*"; }
die() { printf '[fetch_vendor] ERROR: %s\n' "$*" >&2; exit 1; }

want="$(printf '%s\n' "${PINS[@]}" ${THEBE_PATCH:+"$THEBE_PATCH"} | tr -s ' ')"

# axe-core: the accessibility checker the browser tests inject into every page of the built book
# (tests/browser/test_static_book.py).  Not part of the site: unpacked into the git-ignored
# tests/browser/_vendor/axe-core/, fetched once per pinned version.
AXE_SPEC="axe-core@4.10.2"
AXE_DEST="$ROOT/tests/browser/_vendor/axe-core"
fetch_axe() {
    if [ -z "${FETCH_VENDOR_FORCE:-}" ] && [ -s "$AXE_DEST/axe.min.js" ] \
            && [ "$(cat "$AXE_DEST/.version" 2>/dev/null)" = "$AXE_SPEC" ]; then
        return 0
    fi
    command -v npm >/dev/null 2>&1 || die "npm is not installed (Debian: apt-get install -y npm; it ships with Node.js)"
    local tmp_axe tarball
    tmp_axe="$(mktemp -d)"
    log "npm pack $AXE_SPEC"
    if ! tarball="$(cd "$tmp_axe" && npm pack --silent "$AXE_SPEC" 2>"$tmp_axe/npm.err" | tail -n 1)"; then
        cat "$tmp_axe/npm.err" >&2
        rm -rf "$tmp_axe"
        die "npm pack $AXE_SPEC failed"
    fi
    mkdir -p "$AXE_DEST"
    tar -xzf "$tmp_axe/$tarball" -C "$tmp_axe" || die "could not unpack $tarball"
    [ -s "$tmp_axe/package/axe.min.js" ] || die "$AXE_SPEC has no axe.min.js"
    cp "$tmp_axe/package/axe.min.js" "$tmp_axe/package/LICENSE" "$AXE_DEST/"
    echo "$AXE_SPEC" >"$AXE_DEST/.version"
    rm -rf "$tmp_axe"
}
fetch_axe

complete() {
    [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$want" ] || return 1
    local line name spec file
    for line in "${PINS[@]}"; do
        read -r name spec file <<<"$line"
        [ -s "$DEST/$name/$file" ] || return 1
    done
}

if [ -z "${FETCH_VENDOR_FORCE:-}" ] && complete; then
    log "${DEST#"$ROOT"/} is up to date ($(printf '%s ' $(printf '%s\n' "${PINS[@]}" | awk '{print $2}')))"
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

if [ "$SET" = book ]; then
# The widget manager must be the AMD build: it defines its modules for require.js (that is how
# the page's embed script finds "@jupyter-widgets/controls" without any CDN).
grep -q 'define("@jupyter-widgets/html-manager"' "$tmp/out/html-manager/dist/embed-amd.js" \
    || die "html-manager/dist/embed-amd.js is not the AMD (require.js) build"
grep -q 'define("@jupyter-widgets/controls"' "$tmp/out/html-manager/dist/embed-amd.js" \
    || die "html-manager/dist/embed-amd.js does not bundle @jupyter-widgets/controls"

# Thebe 0.9 (with thebe-core 0.5 bundled in lib/index.js) has three addresses on public CDNs
# compiled in: require.js, fetched from cdnjs the first time a widget is displayed (even for
# the built-in ipywidgets); the base URL for widget libraries it does not bundle (jsdelivr);
# and MathJax 2 (cdnjs) for LaTeX outputs.  Each string literal is replaced by a local value:
# require.js and the widget-library base come from window.privpcaThebeAssets, which the book's
# loader (book/_ext/static/privpca-thebe.js) sets to this site's own _static/ URLs before it
# loads Thebe; MathJax 2 becomes "" (no LaTeX typesetter in Thebe outputs: the page already
# runs MathJax 3, which cannot share the page with MathJax 2).  Each pattern must occur exactly
# as often as expected, so a different Thebe build fails here instead of silently calling out.
thebe_js="$tmp/out/thebe/lib/index.js"
patch_literal() {  # literal, replacement expression, expected count
    local found
    found="$(grep -o -F "\"$1\"" "$thebe_js" | wc -l)"
    [ "$found" -eq "$3" ] || die "thebe lib/index.js: expected $3 copies of \"$1\", found $found"
    LITERAL="\"$1\"" REPLACEMENT="$2" perl -0pi -e 's/\Q$ENV{LITERAL}\E/$ENV{REPLACEMENT}/g' "$thebe_js"
}
patch_literal "https://cdnjs.cloudflare.com/ajax/libs/require.js/2.3.6/require.min.js" \
    '(window.privpcaThebeAssets||{}).requirejs' 1
patch_literal "https://cdn.jsdelivr.net/npm/" '(window.privpcaThebeAssets||{}).widgetsCdn' 2
patch_literal "https://cdnjs.cloudflare.com/ajax/libs/mathjax/2.7.5/MathJax.js" '""' 2
if grep -l -E 'cdnjs\.cloudflare\.com|cdn\.jsdelivr\.net|unpkg\.com' "$tmp/out/thebe/lib/"*.js "$tmp/out/thebe/lib/thebe.css" >&2; then
    die "thebe still names a CDN in the files listed above"
fi

# Trim what the book never serves: source maps, the non-AMD bundle, the TypeScript build and
# the r.js optimiser (~15 MB).  Licences and package.json files stay.
find "$tmp/out/html-manager/dist" -name '*.map' -delete
rm -rf "$tmp/out/html-manager/dist/embed.js" "$tmp/out/html-manager/dist/embed.js.LICENSE.txt" \
    "$tmp/out/html-manager/lib" "$tmp/out/requirejs/bin"
find "$tmp/out/thebe/lib" -name '*.map' -delete
rm -rf "$tmp/out/thebe/lib/types" "$tmp/out/thebe/src"
# Sphinx would read a README.md inside the static folder as a page: keep none.
find "$tmp/out" -maxdepth 2 -iname 'README*' -delete
fi

printf '%s\n' "$want" >"$tmp/out/.versions"
rm -rf "$DEST"
mkdir -p "$(dirname "$DEST")"
mv "$tmp/out" "$DEST"
log "installed into ${DEST#"$ROOT"/}: $(du -sh "$DEST" | cut -f1)"
