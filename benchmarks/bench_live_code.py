"""Click-to-live time of Live Code, per chapter: from the click on the rocket menu's "Live Code" to
the status line saying "live" (every dashboard of the page answering its sliders).

Starts ``bash scripts/live_book.sh --no-build`` on free ports (a live build must exist: run the
script once without --no-build first), opens each chapter in headless Chromium with the printed
token, clicks Live Code, and reads the time.  Each chapter gets a fresh page, so a fresh kernel:
the warm one the server keeps ready, if it is ready (--pause seconds pass between two clicks, as
between a reader's clicks on two chapters, for the next one to warm up; 0 measures cold starts
after the first).

    .venv/bin/python benchmarks/bench_live_code.py [--repeats N] [--pause S] [--build-dir DIR] [CHAPTER ...]

CHAPTER is a notebook name such as 02_dp_in_one_sitting (default: every chapter of _toc.yml's
live build).  Prints one line per chapter: the median and the range over the repeats, and the
machine's load average before it started.  Run it on an idle machine for numbers to quote.
"""

from __future__ import annotations

import argparse
import os
import re
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


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("chapters", nargs="*")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--pause", type=float, default=15.0)
    parser.add_argument("--build-dir", default="_build/live")
    parser.add_argument("--script", default=str(ROOT / "scripts" / "live_book.sh"),
                        help="the live_book.sh to run (to compare versions)")
    args = parser.parse_args()
    html = (ROOT / args.build_dir / "_build" / "html").resolve()
    chapters = args.chapters or sorted(p.stem for p in (html / "notebooks").glob("*.html"))
    if not chapters:
        print(f"no live build in {html}: run bash scripts/live_book.sh once first", file=sys.stderr)
        return 2

    from playwright.sync_api import sync_playwright

    port, kernel_port = free_port(), free_port()
    log = tempfile.NamedTemporaryFile("w+", prefix="bench-live-", suffix=".log", delete=False)
    proc = subprocess.Popen(["bash", args.script, "--no-build", "--build-dir", args.build_dir,
                             "--port", str(port), "--kernel-port", str(kernel_port)],
                            cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    try:
        token = None
        deadline = time.monotonic() + 300
        while token is None and time.monotonic() < deadline:
            match = re.search(r"#(privpca-live-token=\S+)", Path(log.name).read_text())
            if match:
                token = match.group(1)
            elif proc.poll() is not None:
                print(Path(log.name).read_text(), file=sys.stderr)
                return 1
            time.sleep(0.5)
        load = os.getloadavg()
        print(f"load average before: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; {os.cpu_count()} CPUs; "
              f"{args.repeats} repeats per chapter")
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path="/usr/bin/chromium", headless=True,
                                         args=CHROMIUM_ARGS)
            for chapter in chapters:
                times, state, phases = [], "?", ""
                for _ in range(args.repeats):
                    time.sleep(args.pause)
                    context = browser.new_context(viewport={"width": 1280, "height": 900})
                    page = context.new_page()
                    page.goto(f"http://127.0.0.1:{port}/notebooks/{chapter}.html#{token}", wait_until="load")
                    page.wait_for_load_state("networkidle")
                    page.click(".dropdown-launch-buttons button.dropdown-toggle")
                    started = time.perf_counter()
                    page.click("button.btn-launch-thebe")
                    page.wait_for_function(
                        "() => ['live', 'error'].includes("
                        "document.querySelector('.thebe-launch-button')?.dataset.privpcaStatus)",
                        timeout=600_000, polling=50)
                    times.append(time.perf_counter() - started)
                    state = page.locator(".thebe-launch-button").get_attribute("data-privpca-status")
                    phases = page.locator(".thebe-launch-button").get_attribute("data-privpca-phases") or ""
                    if state != "live":
                        print(f"  {chapter}: {page.locator('.thebe-launch-button').inner_text()}", flush=True)
                    context.close()
                print(f"{chapter:28s} {state:5s} median {statistics.median(times):6.2f} s  "
                      f"(min {min(times):.2f}, max {max(times):.2f})  last run, ms from the click: {phases}", flush=True)
            browser.close()
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                proc.kill()
        os.unlink(log.name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
