#!/usr/bin/env python3
"""The one hand-written piece left of the server runtime, against the library's way:
kept attachments sent with `sendfile` from their sealed memory file (`own`) or written
by hyper like any other body (`library`), chosen by `NOTES_SERVER_RUNTIME=own|library`
in the same binary, in the same run. (The per-core event loops and the reads on the
event loop went: they bought no row 15 %; the run that decided is kept in
bench/SERVER.md.)

    bench/server.py BINARY [PROFILE]

Rows users feel, each keep-alive with 1 and 16 connections: GET /api/v1/notes (the
list), GET of one note (JSON), GET of a 100 KiB attachment, PUT of a note (replacing
one of 32). Each server serves its own copy of 1,000 generated notes. Rounds
(BENCH_ROUNDS, 3) interleave the servers row by row, in alternating order; a ratio
is the median of the per-round ratios (own / library, req/s). Writes the table of
bench/SERVER.md, keeping its hand-written sections. Loopback only; every run is
bounded by wrk's duration.
"""

import os
import secrets
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import run  # noqa: E402
from report import write_keeping_notes  # noqa: E402

ROUNDS = int(os.environ.get("BENCH_ROUNDS", "3"))
DURATION = os.environ.get("BENCH_DURATION", "4s")
COUNT = 1000
NOTE = run.note_path(7)
FILE = "media/photo.png"
SIZE = 100 * 1024
MODES = {"own": "own", "library": "library"}
# (row, wrk mode, path)
ROWS = [
    ("GET list", "get", "/api/v1/notes"),
    ("GET note", "get", "/api/v1/notes/" + NOTE),
    ("GET attachment 100 KiB", "get", "/api/v1/files/" + FILE),
    ("PUT note", "put_replace", "/"),
]
CONNECTIONS = ("1", "16")


def start(mode, notes_dir, public_dir):
    port = run.free_port()
    env = {**os.environ, "NOTES_SERVER_RUNTIME": MODES[mode]}
    proc = subprocess.Popen(
        run.on_server_cores([str(run.BIN), "--notes-dir", str(notes_dir), "--public-dir",
                             str(public_dir), "serve", "--listen", f"127.0.0.1:{port}"]),
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env,
    )
    base = f"http://127.0.0.1:{port}"
    run.wait_http(base + "/api/v1/files/" + FILE)
    return proc, base


def measure(base, mode, path, connections):
    env = {**os.environ, "BENCH_MODE": mode, "BENCH_PATH": path}
    threads = "1" if connections == "1" else "2"
    out = subprocess.run(
        run.on_load_cores(["wrk", "-t", threads, "-c", connections, "-d", DURATION,
                           "--timeout", "10s", "-s", str(run.LUA), base]),
        capture_output=True, text=True, env=env, timeout=120,
    )
    return run.wrk_result(out)


def main():
    if len(sys.argv) < 2:
        raise SystemExit(__doc__)
    run.BIN = Path(sys.argv[1])
    profile = sys.argv[2] if len(sys.argv) > 2 else "release"
    run.need("wrk", "wrk")
    photo = secrets.token_bytes(SIZE)
    results = {}
    with tempfile.TemporaryDirectory(prefix="notes-server-") as tmp:
        tmp = Path(tmp)
        servers = {}
        try:
            for mode in MODES:
                notes_dir = tmp / mode.replace(" ", "-")
                run.generate(notes_dir, COUNT)
                (notes_dir / "media").mkdir()
                (notes_dir / FILE).write_bytes(photo)
                servers[mode] = start(mode, notes_dir, tmp / f"public-{mode.replace(' ', '-')}")
                run.wait_idle(servers[mode][0].pid)
            for mode, (_, base) in servers.items():
                with urllib.request.urlopen(base + "/api/v1/files/" + FILE, timeout=5) as r:
                    if r.read() != photo:
                        raise SystemExit(f"{mode}: the attachment came back changed")
            cases = [(row, c) for row in ROWS for c in CONNECTIONS]
            for round_ in range(ROUNDS):
                print(f"round {round_ + 1}/{ROUNDS}", flush=True)
                for i, ((row, wrk_mode, path), conns) in enumerate(cases):
                    names = list(MODES)
                    order = names if (round_ + i) % 2 == 0 else names[::-1]
                    for mode in order:
                        r = measure(servers[mode][1], wrk_mode, path, conns)
                        if r["non2xx"] or r["socket_errors"]:
                            raise SystemExit(f"{mode} {row} c{conns}: errors {r}")
                        results.setdefault((row, conns, mode), []).append(r)
        finally:
            for proc, _ in servers.values():
                run.stop(proc)

    cores = run.SPLIT[0] if run.SPLIT else "all"
    lines = [
        "# The server runtime: own against the library's way",
        "",
        f"`just bench-server` on this machine ({os.cpu_count()} cores; server on core(s) "
        f"{cores}, wrk on the rest): one `{profile}` build, run twice: "
        "`NOTES_SERVER_RUNTIME=own` (kept attachments sent with `sendfile` from their "
        "sealed memory file) and `NOTES_SERVER_RUNTIME=library` (hyper writes every "
        f"body). {COUNT} generated notes each; keep-alive; {DURATION} per run, {ROUNDS} "
        "interleaved rounds; ratio = median of the per-round ratios own / library "
        "(req/s). The piece stays only while it buys ≥ 1.15 on the attachment rows.",
        "",
        "| request | conns | own req/s | library req/s | own p99 ms | library p99 ms "
        "| ratio | per round |",
        "|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    for row, _, _ in ROWS:
        for conns in CONNECTIONS:
            own, lib = results[(row, conns, "own")], results[(row, conns, "library")]
            ratios = [a["rps"] / b["rps"] for a, b in zip(own, lib)]
            lines.append(
                f"| {row} | {conns} | {statistics.median(r['rps'] for r in own):.0f} | "
                f"{statistics.median(r['rps'] for r in lib):.0f} | "
                f"{statistics.median(r['p99_us'] for r in own) / 1000:.2f} | "
                f"{statistics.median(r['p99_us'] for r in lib) / 1000:.2f} | "
                f"{statistics.median(ratios):.2f} | "
                f"{', '.join(f'{x:.2f}' for x in ratios)} |")
    lines.append("")
    text = "\n".join(lines)
    print(text)
    write_keeping_notes(run.REPO / "bench" / "SERVER.md", text)


if __name__ == "__main__":
    started = time.time()
    main()
    print(f"{time.time() - started:.0f} s", file=sys.stderr)
