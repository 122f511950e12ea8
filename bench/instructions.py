#!/usr/bin/env python3
"""Instructions per request of `notes serve`, this build against a reference build.

Hardware counters (`perf stat`, used by bench/run.py) are missing on many virtual
machines. This measure needs none: each server runs under valgrind's callgrind, which
counts every user-space instruction it executes, exactly and the same on every run of
the same work. Start-up cancels out: a run serves N requests, a second run 3N, and the
row is the difference over 2N. Kernel work (system calls) is not counted.

    bench/instructions.py CURRENT_BINARY REFERENCE_BINARY [N]

The reference is another build of `notes` (`just bench-instructions REV` builds one
from a git revision). Rows: GET of a note as raw Markdown and as JSON (a 200-note
corpus, every note read in turn over one keep-alive connection), the list, a PUT of a
new note, and a public toggle. The PUT and toggle rows also count the background work
they cause (search indexing, whose merges vary from run to run), so they move by more
than the GET rows between runs. Writes bench/INSTRUCTIONS.md. Only loopback is used;
every run is bounded by its request count and a timeout.
"""

import http.client
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

NOTES = 200
# Requests per first run (the second serves three times as many): enough that the
# background work of a run (index commits and merges, timers) moves a row by well
# under 1 %.
KINDS = [
    ("GET raw", "raw", 2000),
    ("GET JSON", "json", 2000),
    ("list (200 notes)", "list", 200),
    ("PUT new", "put", 200),
    ("toggle", "toggle", 200),
]
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def corpus(dir_):
    notes = os.path.join(dir_, "notes")
    os.makedirs(notes)
    for i in range(1, NOTES + 1):
        with open(os.path.join(notes, f"n{i}.md"), "w") as f:
            f.write(f"---\ntitle: Note {i}\ntags: [a, b]\n---\n# Note {i}\n\n"
                    f"Some body text for note {i} with a few words.\n")
    return notes


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def request(conn, kind, i, tag):
    if kind == "raw":
        conn.request("GET", f"/api/v1/notes/n{i % NOTES + 1}.md",
                     headers={"Accept": "text/markdown"})
    elif kind == "json":
        conn.request("GET", f"/api/v1/notes/n{i % NOTES + 1}.md")
    elif kind == "list":
        conn.request("GET", "/api/v1/notes")
    elif kind == "put":
        body = f"---\ntitle: Put {i}\n---\n# Put {i}\n\nbody text\n".encode()
        conn.request("PUT", f"/api/v1/notes/put/{tag}-{i}.md", body=body,
                     headers={"Content-Type": "text/markdown"})
    elif kind == "toggle":
        conn.request("POST", "/api/public/toggle", body=f"path=n{i % 5 + 1}.md",
                     headers={"Content-Type": "application/x-www-form-urlencoded"})
    response = conn.getresponse()
    response.read()
    if response.status not in (200, 201):
        raise SystemExit(f"{kind}: unexpected status {response.status}")


def instructions(binary, kind, count, tag):
    """Instructions of one server run that serves `count` requests of `kind`."""
    with tempfile.TemporaryDirectory() as dir_:
        notes = corpus(dir_)
        out = os.path.join(dir_, "callgrind.out")
        port = free_port()
        server = subprocess.Popen(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", binary,
             "--notes-dir", notes, "--public-dir", os.path.join(dir_, "public"),
             "serve", "--listen", f"127.0.0.1:{port}"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + 300
            while True:
                try:
                    socket.create_connection(("127.0.0.1", port), 1).close()
                    break
                except OSError:
                    if time.monotonic() > deadline or server.poll() is not None:
                        raise SystemExit(f"{binary} did not start under valgrind")
                    time.sleep(0.2)
            # The first index pass over the corpus ends before the measured requests.
            time.sleep(5)
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
            for i in range(count):
                request(conn, kind, i, tag)
            conn.close()
            time.sleep(2)
        finally:
            server.send_signal(signal.SIGTERM)
            server.wait(300)
        with open(out) as f:
            for line in f:
                m = re.match(r"(?:summary|totals): (\d+)", line)
                if m:
                    return int(m.group(1))
    raise SystemExit("callgrind wrote no total")


def per_request(binary, kind, n):
    once = instructions(binary, kind, n, "a")
    thrice = instructions(binary, kind, 3 * n, "b")
    return (thrice - once) / (2 * n)


def main():
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    current, reference = sys.argv[1], sys.argv[2]
    scale = float(sys.argv[3]) if len(sys.argv) > 3 else 1.0
    if not shutil.which("valgrind"):
        raise SystemExit("valgrind is needed (apt-get install valgrind)")
    rows = []
    for label, kind, n in KINDS:
        n = max(10, int(n * scale))
        ref = per_request(reference, kind, n)
        cur = per_request(current, kind, n)
        rows.append((label, ref, cur))
        print(f"{label}: {cur:,.0f} vs {ref:,.0f} ({cur / ref - 1:+.1%})", flush=True)
    lines = [
        "# Instructions per request",
        "",
        "`just bench-instructions REV`: user-space instructions `notes serve` executes per "
        "request (callgrind; start-up cancelled out by two runs of N and 3N requests), "
        f"this build against the build of `{os.environ.get('BENCH_REF', 'the reference')}`, "
        "measured in the same run. PUT and toggle include the background indexing they "
        "cause, which varies between runs.",
        "",
        "| request | reference | this build | change |",
        "|---|---:|---:|---:|",
    ]
    for label, ref, cur in rows:
        lines.append(f"| {label} | {ref:,.0f} | {cur:,.0f} | {cur / ref - 1:+.1%} |")
    with open(os.path.join(ROOT, "bench", "INSTRUCTIONS.md"), "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
