"""Click-to-live time of Live Code, per chapter: from the click on the rocket menu's "Live Code" to
the status line saying "live" (every dashboard of the page shows its figure and answers its
sliders), and to the first answer of a slider: right at "live", the first slider of the page's
first dashboard moves one step, and the time is taken when its figure has changed (a figure
computed by the kernel; anything the kernel still had to do before answering is in it).

Starts ``bash scripts/live_book.sh --no-build`` on free ports (a live build must exist: run the
script once without --no-build first), opens each chapter in headless Chromium with the printed
token, clicks Live Code, and reads the times.  Each chapter gets a fresh page, so a fresh kernel:
the warm one the server keeps ready, if it is ready (--pause seconds pass between two clicks, as
between a reader's clicks on two chapters, for the next one to warm up; 0 measures cold starts
after the first).

    .venv/bin/python benchmarks/bench_live_code.py [--repeats N] [--pause S] [--build-dir DIR]
                                                   [--baseline SRC] [CHAPTER ...]

CHAPTER is a notebook name such as 02_dp_in_one_sitting (default: every chapter of the live
build).  ``--baseline SRC`` compares with another version of the package: SRC is a folder holding
an earlier ``privpca_edu/`` (for example ``git archive <commit> | tar -x -C SRC``); a second
live_book.sh runs, on a temporary copy of the live build (each server writes its address into
its build), with its kernels importing the package from there (PYTHONPATH), and every repeat
measures both, one after the other, chapter by chapter, so that both see the same load.

Prints a table (pasteable Markdown): per chapter and version, the median and the maximum over
the repeats of click → live and click → first slider answer, and the machine's 1-minute load
average when the chapter's runs started.  Run it on an idle machine for numbers to quote.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--no-first-run", "--disable-quic"]
# A 32-bit rolling hash of the bytes behind an <img> (a blob: URL for an Image widget).
IMAGE_HASH_JS = """async (img) => {
  const bytes = new Uint8Array(await (await fetch(img.src)).arrayBuffer());
  let h = 0;
  for (let i = 0; i < bytes.length; i++) { h = (Math.imul(h, 31) + bytes[i]) | 0; }
  return bytes.length + ':' + h;
}"""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class LiveBook:
    """One ``live_book.sh --no-build`` (its kernels' environment extended by ``env``)."""

    def __init__(self, script, build_dir, env=None):
        self.port, kernel_port = free_port(), free_port()
        self.log = tempfile.NamedTemporaryFile("w+", prefix="bench-live-", suffix=".log", delete=False)
        self.proc = subprocess.Popen(
            ["bash", script, "--no-build", "--build-dir", build_dir, "--port", str(self.port),
             "--kernel-port", str(kernel_port)],
            cwd=ROOT, stdout=self.log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            env={**os.environ, **(env or {})})
        self.token = None

    def wait_ready(self, limit=300.0):
        deadline = time.monotonic() + limit
        while self.token is None and time.monotonic() < deadline:
            match = re.search(r"#(privpca-live-token=\S+)", Path(self.log.name).read_text())
            if match:
                self.token = match.group(1)
            elif self.proc.poll() is not None:
                raise RuntimeError(Path(self.log.name).read_text())
            time.sleep(0.5)
        if self.token is None:
            raise RuntimeError("live_book.sh did not print its address in time")

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        os.unlink(self.log.name)


def measure(browser, book, chapter):
    """(state, seconds to live, seconds to the first slider answer or None, phases)."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        page = context.new_page()
        page.goto(f"http://127.0.0.1:{book.port}/notebooks/{chapter}.html#{book.token}", wait_until="load")
        page.wait_for_load_state("networkidle")
        page.click(".dropdown-launch-buttons button.dropdown-toggle")
        started = time.perf_counter()
        page.click("button.btn-launch-thebe")
        page.wait_for_function(
            "() => ['live', 'error'].includes("
            "document.querySelector('.thebe-launch-button')?.dataset.privpcaStatus)",
            timeout=600_000, polling=50)
        live = time.perf_counter() - started
        status = page.locator(".thebe-launch-button")
        state = status.get_attribute("data-privpca-status")
        phases = status.get_attribute("data-privpca-phases") or ""
        if state != "live":
            print(f"  {chapter}: {status.inner_text()}", file=sys.stderr, flush=True)
            return state, live, None, phases
        dashboard = page.locator("div.cell.privpca-live-dashboard .thebe-output .privpca-dashboard").first
        image = dashboard.locator("img.privpca-figure").first
        handle = dashboard.locator(".widget-slider .noUi-handle").first
        if not image.count() or not handle.count():
            return state, live, None, phases
        before = image.evaluate(IMAGE_HASH_JS)
        handle.focus()
        page.keyboard.press("ArrowRight")
        after, answer = before, None
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            after = image.evaluate(IMAGE_HASH_JS)
            if after != before:
                answer = time.perf_counter() - started
                break
            page.wait_for_timeout(50)
        return state, live, answer, phases
    finally:
        context.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("chapters", nargs="*")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--pause", type=float, default=15.0)
    parser.add_argument("--build-dir", default="_build/live")
    parser.add_argument("--script", default=str(ROOT / "scripts" / "live_book.sh"),
                        help="the live_book.sh to run (to compare versions)")
    parser.add_argument("--baseline", metavar="SRC",
                        help="a folder holding another version of privpca_edu/ to compare with")
    args = parser.parse_args()
    html = (ROOT / args.build_dir / "_build" / "html").resolve()
    chapters = args.chapters or sorted(p.stem for p in (html / "notebooks").glob("*.html"))
    if not chapters:
        print(f"no live build in {html}: run bash scripts/live_book.sh once first", file=sys.stderr)
        return 2
    versions = {"this": ({}, args.build_dir)}
    scratch = None
    if args.baseline:
        baseline = Path(args.baseline).resolve()
        if not (baseline / "privpca_edu" / "__init__.py").is_file():
            print(f"--baseline: no privpca_edu/ in {baseline}", file=sys.stderr)
            return 2
        scratch = Path(tempfile.mkdtemp(prefix="bench-live-baseline-"))
        shutil.copytree(ROOT / args.build_dir, scratch / "build", symlinks=True)
        versions["baseline"] = ({"PYTHONPATH": str(baseline)}, str(scratch / "build"))

    from playwright.sync_api import sync_playwright

    # SIGTERM: stop the servers on the way out, as after Ctrl-C
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    books = {}
    try:
        for name, (env, build_dir) in versions.items():
            books[name] = LiveBook(args.script, build_dir, env)
        for book in books.values():
            book.wait_ready()
        print(f"{os.cpu_count()} CPUs; {args.repeats} repeats per chapter and version; "
              f"{args.pause:g} s between clicks", flush=True)
        rows = []
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path="/usr/bin/chromium", headless=True,
                                         args=CHROMIUM_ARGS)
            for chapter in chapters:
                load = os.getloadavg()[0]
                runs = {name: [] for name in books}
                for _ in range(args.repeats):
                    for name, book in books.items():
                        time.sleep(args.pause)
                        runs[name].append(measure(browser, book, chapter))
                for name, results in runs.items():
                    lives = [r[1] for r in results]
                    answers = [r[2] for r in results if r[2] is not None]
                    states = {r[0] for r in results}
                    row = (chapter, name, statistics.median(lives), max(lives),
                           statistics.median(answers) if answers else None, max(answers) if answers else None,
                           load, "/".join(sorted(states)))
                    rows.append(row)
                    print(f"  {chapter} {name}: live {', '.join(f'{t:.2f}' for t in lives)} s; first answer "
                          f"{', '.join('-' if r[2] is None else f'{r[2]:.2f}' for r in results)} s; "
                          f"last run's phases (ms): {results[-1][3]}", flush=True)
            browser.close()
    finally:
        for book in books.values():
            book.stop()
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)

    def fmt(value):
        return "–" if value is None else f"{value:.2f}"

    print()
    print("| chapter | version | click → live, median (max) s | click → first slider answer, median (max) s "
          "| load (1 min) | status |")
    print("|---|---|---|---|---|---|")
    for chapter, name, med, top, amed, atop, load, states in rows:
        print(f"| {chapter} | {name} | {fmt(med)} ({fmt(top)}) | {fmt(amed)} ({fmt(atop)}) | {load:.2f} | {states} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
