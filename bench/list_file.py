#!/usr/bin/env python3
"""The note list at 100k notes against nginx sending the same bytes as a file, in the
same run: `GET /api/v1/notes` from `notes serve` (history off, once its first start is
idle) and the list's body saved as a file under nginx (one worker, sendfile on), one
connection each (wrk), rounds interleaved (notes, nginx, notes, ...), medians.

The corpus (bench/corpus.py) is made once and cached in target/bench-corpus-100k.
Loopback only; every run is bounded in time. Writes bench/LIST.md.
Usage: python3 bench/list_file.py [path/to/notes]
"""

import os
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import corpus  # noqa: E402
from files import start_nginx, wrk_result  # noqa: E402
from report import write_keeping_notes  # noqa: E402
from run import free_port, stop, wait_http  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
BIN = sys.argv[1] if len(sys.argv) > 1 else str(REPO / "target/release/notes")
COUNT = int(os.environ.get("LIST_NOTES", "100000"))
ROUNDS = 3
DURATION = "5s"


def idle(pid, limit=600):
    """Waits until the process used under 5 % of a core for a second (its first start's
    indexing done), at most `limit` seconds."""
    tick = os.sysconf("SC_CLK_TCK")

    def cpu():
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / tick

    deadline = time.time() + limit
    before = cpu()
    while time.time() < deadline:
        time.sleep(1)
        now = cpu()
        if now - before < 0.05:
            return
        before = now
    raise SystemExit("the server never went idle")


def wrk(url):
    out = subprocess.run(
        ["wrk", "-t", "1", "-c", "1", "-d", DURATION, "--timeout", "10s", "-s",
         str(REPO / "bench/wrk.lua"), url],
        capture_output=True, text=True, timeout=120,
        env={**os.environ, "BENCH_MODE": "get", "BENCH_PATH": "/" + url.split("/", 3)[3]})
    r = wrk_result(out)
    if r["non2xx"] or r["socket_errors"]:
        raise SystemExit(f"wrk {url}: errors {r}")
    return r["requests"] * 1e6 / r["duration_us"], r["p50_us"] / 1000


def main():
    notes = corpus.corpus(COUNT)
    port = free_port()
    server = subprocess.Popen(
        [BIN, "--notes-dir", str(notes), "serve", "--listen", f"127.0.0.1:{port}",
         "--history", "off"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryDirectory() as tmp:
        try:
            wait_http(base + "/api/v1/notes")
            idle(server.pid)
            body = urllib.request.urlopen(base + "/api/v1/notes", timeout=60).read()
            root = Path(tmp) / "root"
            root.mkdir()
            (root / "list.json").write_bytes(body)
            nginx, nginx_base = start_nginx(root, Path(tmp) / "nginx", 1, None, "list.json")
            try:
                runs = {"notes": [], "nginx": []}
                for _ in range(ROUNDS):
                    runs["notes"].append(wrk(base + "/api/v1/notes"))
                    runs["nginx"].append(wrk(nginx_base + "/list.json"))
            finally:
                stop(nginx)
        finally:
            stop(server)
    med = {k: (statistics.median(r for r, _ in v), statistics.median(p for _, p in v))
           for k, v in runs.items()}
    (n_rate, n_p50), (x_rate, x_p50) = med["notes"], med["nginx"]
    lines = [
        "# The note list against a file",
        "",
        f"`just bench-list` on this machine ({os.cpu_count()} cores): `GET /api/v1/notes` "
        f"at {COUNT:,} notes ({len(body) / 1e6:.1f} MB) from `notes serve --history off` "
        "once its first start is idle, against nginx (1 worker, sendfile on) sending the "
        f"same bytes as a file; wrk, 1 connection, {DURATION} a run, {ROUNDS} rounds "
        "interleaved, medians.",
        "",
        "| server | req/s | p50 ms |",
        "|---|---|---|",
        f"| notes | {n_rate:.1f} | {n_p50:.1f} |",
        f"| nginx | {x_rate:.1f} | {x_p50:.1f} |",
        "",
        f"notes against nginx, p50: {n_p50 / x_p50:.2f}× (target ≤ 1.5×).",
    ]
    write_keeping_notes(REPO / "bench/LIST.md", "\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
