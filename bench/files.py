#!/usr/bin/env python3
"""Attachment download benchmark: `GET /api/v1/files/{path}` of a 100 KiB image from
`notes serve` against nginx serving the same file, in the same run.

One file of random bytes (`media/photo.png`, 102400 bytes) in a fresh notes folder;
`notes serve` and nginx (a config generated in the temp dir: loopback ephemeral port,
`sendfile on`, pid, logs and temp paths in the temp dir, `daemon off`) serve it; wrk
drives each with the same threads, connections and duration, in alternating rounds
(nginx, notes, nginx, notes, ...), and the ratio reported is the median of the
per-round ratios. Two layouts, each matching nginx's workers to what notes uses (one
event loop per core it may run on):

- 1 worker: both servers pinned to the first core (taskset), wrk on the second, so
  the load generator never takes the server's core;
- 2 workers: no pinning; servers and wrk share both cores.

Every wrk run is bounded by its duration (and a timeout); only loopback addresses are
used. Writes bench/FILES.md, keeping the sections written by hand below its table.
"""

import os
import pwd
import secrets
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from report import write_keeping_notes  # noqa: E402
from run import free_port, stop, wait_http, wrk_result  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
# BENCH_NOTES_BIN: another build to measure (an older one, for a before/after).
BIN = Path(os.environ.get("BENCH_NOTES_BIN", REPO / "target" / "release" / "notes"))
LUA = REPO / "bench" / "wrk.lua"
DURATION = os.environ.get("BENCH_DURATION", "10s")
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "3"))
THREADS, CONNECTIONS = "2", "64"
SIZE = 100 * 1024
FILE = "media/photo.png"
NGINX = shutil.which("nginx") or "/usr/sbin/nginx"


def layouts():
    """(name, workers, server cores, load cores): taskset lists, or None for no pinning."""
    cores = sorted(os.sched_getaffinity(0))
    found = []
    if len(cores) >= 2 and shutil.which("taskset"):
        found.append(("1 worker", 1, str(cores[0]), ",".join(map(str, cores[1:]))))
    found.append((f"{len(cores)} workers", len(cores), None, None))
    return found


def pinned(cores, command):
    return ["taskset", "-c", cores] + command if cores else command


def start_notes(notes_dir, public_dir, cores):
    port = free_port()
    proc = subprocess.Popen(
        pinned(cores, [str(BIN), "--notes-dir", str(notes_dir), "--public-dir",
                       str(public_dir), "serve", "--listen", f"127.0.0.1:{port}"]),
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    wait_http(base + "/api/v1/files/" + FILE)
    return proc, base


def start_nginx(notes_dir, work, workers, cores, probe=FILE):
    """nginx on a loopback ephemeral port with everything it writes under `work`, ready
    once it serves `probe`; run as root, its workers run as the same user as notes (not
    nginx's default `nobody`)."""
    work.mkdir()
    port = free_port()
    user = f"user {pwd.getpwuid(os.geteuid()).pw_name};" if os.geteuid() == 0 else ""
    conf = work / "nginx.conf"
    conf.write_text(f"""
{user}
worker_processes {workers};
daemon off;
pid {work}/nginx.pid;
error_log {work}/error.log;
events {{ worker_connections 1024; }}
http {{
    access_log off;
    sendfile on;
    tcp_nopush on;
    keepalive_requests 100000;
    client_body_temp_path {work}/client_body;
    proxy_temp_path {work}/proxy;
    fastcgi_temp_path {work}/fastcgi;
    uwsgi_temp_path {work}/uwsgi;
    scgi_temp_path {work}/scgi;
    types {{ image/png png; application/json json; }}
    server {{
        listen 127.0.0.1:{port};
        root {notes_dir};
    }}
}}
""")
    proc = subprocess.Popen(
        pinned(cores, [NGINX, "-p", str(work), "-c", str(conf), "-e", str(work / "error.log")]),
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    wait_http(base + "/" + probe)
    return proc, base


def fetch(url):
    with urllib.request.urlopen(url, timeout=5) as r:
        return r.status, r.headers.get("Content-Type"), r.read()


def wrk(url, path, cores):
    env = {**os.environ, "BENCH_MODE": "get", "BENCH_PATH": path}
    out = subprocess.run(
        pinned(cores, ["wrk", "-t", THREADS, "-c", CONNECTIONS, "-d", DURATION,
                       "--timeout", "10s", "-s", str(LUA), url]),
        capture_output=True, text=True, env=env, timeout=120,
    )
    r = wrk_result(out)
    r["errors"] = r["non2xx"] + r["socket_errors"]
    return r


TICK = os.sysconf("SC_CLK_TCK")


def tree(pid):
    """`pid` and its descendants (nginx's master and its workers)."""
    found = [pid]
    for task in Path(f"/proc/{pid}/task").iterdir():
        children = (task / "children").read_text().split()
        for child in children:
            found += tree(int(child))
    return found


def cpu_seconds(pid):
    """User and system CPU time of `pid` and its descendants, all threads, so far."""
    total = 0
    for p in tree(pid):
        try:
            fields = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
        except FileNotFoundError:
            continue
        total += int(fields[11]) + int(fields[12])
    return total / TICK


def timed(proc, run):
    """`run()`'s wrk result with the server's CPU time per request (µs): the cost of
    an answer, which other work on a shared machine does not change as much as the
    requests per second it leaves room for."""
    before = cpu_seconds(proc.pid)
    r = run()
    r["cpu_us"] = (cpu_seconds(proc.pid) - before) * 1e6 / max(r["requests"], 1)
    return r


def rss_kib(pid):
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def measure(tmp, notes_dir, layout):
    name, workers, server_cores, load_cores = layout
    notes, nbase = start_notes(notes_dir, tmp / "public", server_cores)
    nginx, xbase = start_nginx(notes_dir, tmp / f"nginx-{workers}", workers, server_cores)
    try:
        expected = (notes_dir / FILE).read_bytes()
        for base, path in ((nbase, "/api/v1/files/" + FILE), (xbase, "/" + FILE)):
            status, media, body = fetch(base + path)
            if status != 200 or media != "image/png" or body != expected:
                raise SystemExit(f"{base}{path}: {status} {media}, {len(body)} bytes")
        runs = {"nginx": [], "notes": []}
        loads = []
        for n in range(ROUNDS):
            print(f"{name}: round {n + 1}/{ROUNDS}", flush=True)
            # The machine is shared: the 1-minute load average before each round says
            # how much other work its two runs competed with.
            loads.append(os.getloadavg()[0])
            runs["nginx"].append(timed(nginx, lambda: wrk(xbase, "/" + FILE, load_cores)))
            runs["notes"].append(
                timed(notes, lambda: wrk(nbase, "/api/v1/files/" + FILE, load_cores)))
        rss = rss_kib(notes.pid)
    finally:
        stop(notes)
        stop(nginx)
    ratios = [s["rps"] / n["rps"] for s, n in zip(runs["notes"], runs["nginx"])]
    cpu_ratios = [n["cpu_us"] / s["cpu_us"] if s["cpu_us"] else 0.0
                  for s, n in zip(runs["notes"], runs["nginx"])]
    return {"name": name, "workers": workers, "server_cores": server_cores,
            "load_cores": load_cores, "runs": runs, "ratios": ratios, "loads": loads,
            "cpu_ratios": cpu_ratios, "cpu_ratio": statistics.median(cpu_ratios),
            "ratio": statistics.median(ratios), "rss_kib": rss}


def middle(runs):
    """The run with the median throughput."""
    return sorted(runs, key=lambda r: r["rps"])[len(runs) // 2]


def report(results, load):
    lines = [
        "# Attachment download benchmark",
        "",
        "Generated by `just bench-files` (`bench/files.py`): `GET /api/v1/files/media/photo.png` "
        f"from `notes serve` against nginx serving the same file, a {SIZE}-byte `.png` of "
        f"random bytes. wrk {THREADS} threads, {CONNECTIONS} connections, {DURATION} per run, "
        f"{ROUNDS} rounds alternating nginx and notes, loopback only; release build; "
        f"{os.cpu_count()} cores, load average {load} before the run. req/s and latencies "
        "are the median round's; the ratio is the median of the per-round ratios "
        "(notes / nginx). Target: notes ≥ 0.8× nginx."
        + (f" notes build: `{BIN}`." if "BENCH_NOTES_BIN" in os.environ else ""),
        "",
        "nginx: generated config in a temp dir (`nginx -p TMP -c TMP/nginx.conf`, `daemon off`), "
        "`sendfile on`, `tcp_nopush on`, `access_log off`, `keepalive_requests 100000`, "
        "`worker_processes` as many as the event loops of notes (one per core it may run on).",
        "",
        "| layout | server | req/s | MiB/s | p50 ms | p99 ms | errors | notes / nginx | CPU µs / req | nginx / notes CPU |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for res in results:
        for server in ("nginx", "notes"):
            r = middle(res["runs"][server])
            mib = r["rps"] * SIZE / (1 << 20)
            ratio = f"**{res['ratio']:.2f}**" if server == "notes" else ""
            cpu_ratio = f"**{res['cpu_ratio']:.2f}**" if server == "notes" else ""
            cpu = statistics.median(x["cpu_us"] for x in res["runs"][server])
            lines.append(
                f"| {res['name']} | {server} | {r['rps']:.0f} | {mib:.0f} | "
                f"{r['p50_us'] / 1000:.2f} | {r['p99_us'] / 1000:.2f} | "
                f"{sum(x['errors'] for x in res['runs'][server])} | {ratio} | "
                f"{cpu:.1f} | {cpu_ratio} |")
    lines += [
        "",
        "CPU µs / req: the server's user and system CPU time (every thread; nginx's "
        "master and workers) during its runs, over the requests answered, median of the "
        "rounds; nginx / notes CPU is the median of the per-round quotients: the "
        "throughput ratio the two would have on an otherwise idle core. It moves far less "
        "than req/s when other work shares the machine.",
        "",
        "Layouts and per-round figures:",
    ]
    for res in results:
        where = (f"servers on core {res['server_cores']}, wrk on core(s) {res['load_cores']}"
                 if res["server_cores"] else "no pinning: servers and wrk share every core")
        per_round = ", ".join(
            f"{n['rps']:.0f} / {s['rps']:.0f} = {r:.2f} (CPU {c:.2f}, load {load:.1f})"
            for n, s, r, c, load in zip(res["runs"]["nginx"], res["runs"]["notes"],
                                        res["ratios"], res["cpu_ratios"], res["loads"]))
        lines.append(f"- {res['name']} ({where}); nginx / notes req/s per round, with the "
                     f"CPU-time quotient and the 1-minute load average before the round: {per_round}; "
                     f"notes RSS after its runs: {res['rss_kib'] / 1024:.1f} MiB")
    lines += [
        "",
        "Commands (per layout, `taskset -c` prefixes only in the 1-worker layout):",
        "",
        "```",
        f"notes --notes-dir TMP/notes --public-dir TMP/public serve --listen 127.0.0.1:PORT",
        f"nginx -p TMP/nginx-N -c TMP/nginx-N/nginx.conf -e TMP/nginx-N/error.log",
        f"wrk -t {THREADS} -c {CONNECTIONS} -d {DURATION} --timeout 10s -s bench/wrk.lua URL"
        "   # BENCH_PATH=/api/v1/files/media/photo.png or /media/photo.png",
        "```",
        "",
    ]
    return "\n".join(lines)


def main():
    if not shutil.which("wrk"):
        raise SystemExit("wrk is missing: `just bench-files` installs it")
    if not Path(NGINX).exists():
        raise SystemExit("nginx is missing: `just bench-files` installs it")
    load = "{:.2f} {:.2f} {:.2f}".format(*os.getloadavg())
    with tempfile.TemporaryDirectory(prefix="notes-bench-files-") as tmp:
        tmp = Path(tmp)
        notes_dir = tmp / "notes"
        (notes_dir / "media").mkdir(parents=True)
        (notes_dir / FILE).write_bytes(secrets.token_bytes(SIZE))
        (notes_dir / "index.md").write_text("# Photos\n\n![photo](media/photo.png)\n")
        # A version is kept in memory once it has settled (unchanged for a second).
        time.sleep(1.1)
        results = [measure(tmp, notes_dir, layout) for layout in layouts()]
    text = report(results, load)
    print(text)
    write_keeping_notes(REPO / "bench" / "FILES.md", text)


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    sys.exit(main())
