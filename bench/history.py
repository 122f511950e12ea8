#!/usr/bin/env python3
"""History benchmark: what recording every change in .notes/history.git costs.

1. PUT cost with the history on and off (`serve --history off`): sequential PUTs over
   one keep-alive connection, new notes then replacements of existing ones, in
   alternating rounds so both servers see the same disk conditions;
2. `GET /api/v1/history/{path}` of a note with 1,000 versions: p50 and p95;
3. the size of `.notes/history.git` after 10k PUTs of 2 KB notes (100 folders), as the
   server left it (packed in the background), after `notes history --prune` (a pack,
   nothing dropped) and after `git gc`.

Writes bench/HISTORY.md. Usage: python3 bench/history.py [path/to/notes] [PUTS]
"""

import http.client
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from report import write_keeping_notes  # noqa: E402

BIN = sys.argv[1] if len(sys.argv) > 1 else "target/release/notes"
PUTS = int(sys.argv[2]) if len(sys.argv) > 2 else 500
ROUNDS = 3
VERSIONS = 1000
SIZE_PUTS = 10_000
WORDS = "notes history version restore trash garden winter budget idea draft".split()


def body(rng, size=2048):
    text = []
    while sum(len(w) + 1 for w in text) < size:
        text.append(rng.choice(WORDS))
    return ("---\ntitle: Bench\n---\n" + " ".join(text))[:size] + "\n"


class Server:
    def __init__(self, notes, *extra):
        self.proc = subprocess.Popen(
            [BIN, "--notes-dir", notes, "serve", "--listen", "127.0.0.1:0", *extra],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        line = self.proc.stdout.readline()
        url = next(w for w in line.split() if w.startswith("http://"))
        host, port = url[len("http://"):].split(":")
        self.conn = http.client.HTTPConnection(host, int(port))

    def request(self, method, path, data=None, headers=None):
        self.conn.request(method, path, body=data, headers=headers or {})
        r = self.conn.getresponse()
        payload = r.read()
        if r.status >= 300:
            raise SystemExit(f"{method} {path}: {r.status} {payload[:200]!r}")
        return payload

    def put(self, path, text):
        self.request("PUT", f"/api/v1/notes/{path}", text.encode(),
                     {"Content-Type": "text/markdown"})

    def stop(self):
        self.conn.close()
        self.proc.terminate()
        self.proc.wait()


def timed_puts(server, paths, rng):
    start = time.perf_counter()
    for path in paths:
        server.put(path, body(rng))
    return (time.perf_counter() - start) / len(paths) * 1000


def put_rows(tmp, rng):
    """Mean ms per PUT, new and replace, history on and off (best of ROUNDS)."""
    results = {("on", "new"): [], ("on", "replace"): [], ("off", "new"): [],
               ("off", "replace"): []}
    for round_ in range(ROUNDS):
        for mode in ("off", "on"):
            notes = os.path.join(tmp, f"put-{mode}-{round_}")
            server = Server(notes, "--history", mode)
            paths = [f"f{i % 10}/n{i}.md" for i in range(PUTS)]
            server.put("warm.md", body(rng))
            results[(mode, "new")].append(timed_puts(server, paths, rng))
            results[(mode, "replace")].append(timed_puts(server, paths, rng))
            server.stop()
    return {k: min(v) for k, v in results.items()}


def history_lookup(tmp, rng):
    notes = os.path.join(tmp, "versions")
    server = Server(notes)
    for i in range(VERSIONS):
        server.put("ideas/busy.md", body(rng, 512))
    for i in range(200):
        server.put(f"other/n{i}.md", body(rng, 512))
    times = []
    for _ in range(300):
        start = time.perf_counter()
        payload = server.request("GET", "/api/v1/history/ideas/busy.md")
        times.append((time.perf_counter() - start) * 1000)
    assert payload.count(b'"id"') == VERSIONS, "the history lists every version"
    server.stop()
    times.sort()
    return statistics.median(times), times[int(len(times) * 0.95)]


def du(path):
    total = 0
    for root, _, files in os.walk(path):
        for name in files:
            total += os.lstat(os.path.join(root, name)).st_blocks * 512
    return total


def store_size(tmp, rng):
    notes = os.path.join(tmp, "size")
    server = Server(notes)
    start = time.perf_counter()
    for i in range(SIZE_PUTS):
        server.put(f"f{i % 100:02d}/n{i % 2000}.md", body(rng))
    elapsed = time.perf_counter() - start
    server.stop()
    store = os.path.join(notes, ".notes", "history.git")
    written = du(store)
    subprocess.run([BIN, "--notes-dir", notes, "history", "--prune", "--json"], check=True,
                   stdout=subprocess.DEVNULL)
    pruned = du(store)
    subprocess.run(["git", "--git-dir", store, "gc", "--quiet", "--prune=now"], check=True)
    packed = du(store)
    return written, pruned, packed, elapsed


def main():
    rng = random.Random(17)
    with tempfile.TemporaryDirectory(dir=os.environ.get("BENCH_TMP")) as tmp:
        rows = put_rows(tmp, rng)
        p50, p95 = history_lookup(tmp, rng)
        written, pruned, packed, elapsed = store_size(tmp, rng)
    mib = lambda b: f"{b / 1024 / 1024:.1f} MiB"
    lines = [
        "# History benchmark",
        "",
        f"`just bench-history` (bench/history.py) on this machine ({os.cpu_count()} cores, "
        "the notes folder on the local disk). Sequential PUTs of 2 KB notes over one "
        f"keep-alive connection, {PUTS} new notes then {PUTS} replacements, best of "
        f"{ROUNDS} alternating rounds; `--history off` is the reference.",
        "",
        "| PUT | history off (ms) | history on (ms) | throughput ratio (on / off) |",
        "|---|---|---|---|",
    ]
    for kind in ("new", "replace"):
        off, on = rows[("off", kind)], rows[("on", kind)]
        lines.append(f"| {kind} | {off:.2f} | {on:.2f} | {off / on:.2f}× |")
    lines += [
        "",
        f"`GET /api/v1/history/{{path}}` of a note with {VERSIONS} versions (and 200 other "
        f"notes' changes in the store), 300 requests: p50 {p50:.2f} ms, p95 {p95:.2f} ms "
        "(target: p50 ≤ 10 ms).",
        "",
        f"`.notes/history.git` after {SIZE_PUTS} PUTs of 2 KB notes (2,000 notes in 100 "
        f"folders, {SIZE_PUTS / elapsed:.0f} PUT/s): {mib(written)} as the server left it "
        "(packed in the background after every 1,000 changes, the changes since then "
        f"in the small packs of their settles, the log, the index), {mib(pruned)} after `notes history --prune` (packed, "
        f"nothing dropped), {mib(packed)} after `git gc`.",
        "",
    ]
    report = "\n".join(lines)
    write_keeping_notes(Path("bench/HISTORY.md"), report)
    print(report)


if __name__ == "__main__":
    main()
