#!/usr/bin/env python3
"""Concurrent writes with the history on, against the same server with it off
(`serve --history off`) in the same run: wrk with 16 connections (bench/wrk.lua's
`put_new`, `put_replace` and `toggle`), three interleaved rounds, medians reported.
Each round starts each server on a fresh folder of 200 notes in 20 folders.

Writes bench/HISTORY-LOAD.md. Usage: python3 bench/history_load.py [path/to/notes]
"""

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from report import write_keeping_notes  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
BIN = sys.argv[1] if len(sys.argv) > 1 else str(REPO / "target/release/notes")
ROUNDS = 3
SECONDS = "4s"
CONNECTIONS = "16"
MODES = [("PUT new", "put_new"), ("PUT replace", "put_replace"), ("toggle", "toggle")]


def folder(root):
    notes = Path(root) / "notes"
    for i in range(200):
        f = notes / f"f{i % 20:02d}"
        f.mkdir(parents=True, exist_ok=True)
        (f / f"note-{i:05d}.md").write_text(f"---\ntitle: n{i}\n---\nbody {i}\n")
    return notes


def serve(notes, history):
    proc = subprocess.Popen(
        [BIN, "--notes-dir", str(notes), "serve", "--listen", "127.0.0.1:0",
         "--history", history],
        cwd=notes.parent, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    line = proc.stdout.readline()
    url = next(w for w in line.split() if w.startswith("http://")).rstrip("/")
    deadline = time.time() + 30
    while time.time() < deadline:
        try:
            urllib.request.urlopen(url + "/api/v1/notes", timeout=5).read()
            break
        except OSError:
            time.sleep(0.2)
    time.sleep(1)  # the start's passes (index, history) are done for 200 notes
    return proc, url


def wrk(url, mode):
    out = subprocess.run(
        ["wrk", "-t", "2", "-c", CONNECTIONS, "-d", SECONDS, "-s",
         str(REPO / "bench/wrk.lua"), url],
        env={**os.environ, "BENCH_MODE": mode}, capture_output=True, text=True,
        timeout=60)
    line = [l for l in out.stdout.splitlines() if l.startswith("{")]
    if not line:
        raise SystemExit(f"wrk failed: {out.stdout}\n{out.stderr}")
    result = json.loads(line[-1])
    if result["non2xx"] or result["socket_errors"]:
        raise SystemExit(f"wrk {mode}: errors {result}")
    return result["requests"] * 1e6 / result["duration_us"], result["p50_us"] / 1000


def caught_up(url):
    """Seconds until the history has committed every write so far (a history lookup
    waits for the committer)."""
    start = time.time()
    urllib.request.urlopen(url + "/api/v1/history/f00/note-00000.md", timeout=600).read()
    return time.time() - start


def main():
    if shutil.which("wrk") is None:
        raise SystemExit("wrk is needed (apt-get install wrk)")
    runs = {(name, h): [] for name, _ in MODES for h in ("off", "on")}
    for _ in range(ROUNDS):
        for history in ("off", "on"):
            with tempfile.TemporaryDirectory() as tmp:
                proc, url = serve(folder(tmp), history)
                try:
                    for name, mode in MODES:
                        rate, p50 = wrk(url, mode)
                        # The writes' history is committed before the next row starts,
                        # so each row pays for its own catch-up only.
                        settle = caught_up(url) if history == "on" else 0.0
                        runs[(name, history)].append((rate, p50, settle))
                finally:
                    proc.terminate()
                    proc.wait(timeout=30)
    row = float(SECONDS.rstrip("s"))
    med = {k: (statistics.median(r for r, _, _ in v), statistics.median(p for _, p, _ in v),
               statistics.median(s for _, _, s in v),
               statistics.median(r * row / (row + s) for r, _, s in v))
           for k, v in runs.items()}
    lines = [
        "# History under concurrent writes",
        "",
        f"`just bench-history-load` on this machine ({os.cpu_count()} cores): wrk, 2 threads, "
        f"{CONNECTIONS} connections, {SECONDS} a row, {ROUNDS} rounds interleaved (history off, "
        "then on, each on a fresh folder of 200 notes); medians. After each row with the "
        "history on, the script waits until the history has committed the row's writes "
        "(a history lookup); *caught up* is how long that took, and *sustained* the row's "
        "requests over its time plus that wait.",
        "",
        "| row | history off (req/s, p50 ms) | history on (req/s, p50 ms) | on / off "
        "| caught up after (s) | sustained on (req/s) | sustained on / off |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, _ in MODES:
        (off, off_p50, _, _), (on, on_p50, settle, sustained) = (
            med[(name, "off")], med[(name, "on")])
        lines.append(f"| {name} | {off:.0f}, {off_p50:.1f} | {on:.0f}, {on_p50:.1f} "
                     f"| {on / off:.2f}× | {settle:.1f} | {sustained:.0f} "
                     f"| {sustained / off:.2f}× |")
    toggle, replace = med[("toggle", "on")][0], med[("PUT replace", "on")][0]
    lines += ["", f"Toggle against PUT replace, history on: {toggle / replace:.2f}×."]
    write_keeping_notes(REPO / "bench/HISTORY-LOAD.md", "\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
