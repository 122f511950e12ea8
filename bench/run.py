#!/usr/bin/env python3
"""HTTP benchmark of `notes serve` against nginx serving the same files.

Generates deterministic corpora (1k and 10k notes), starts the release binary and
nginx on loopback ports, drives both with wrk (2 threads, 64 connections, fixed
duration) and writes one table to bench/RESULTS.md. Only loopback addresses are used;
every run is bounded by wrk's duration.

The servers (notes and nginx alike) run on the first half of the cores and wrk on the
other half (taskset), so both servers get the same cores and neither competes with
the load generator: on 2 cores, one each. This machine's speed also drifts by up to
2x within a minute (it shares its host), so the rows compared with nginx run in
interleaved rounds (nginx, raw, JSON, nginx, ...) and the ratio reported is the
median of the per-round ratios. Where `perf stat` can count
instructions, each row also shows the server's instructions per request, a measure
that does not drift with the host.
"""

import json
import os
import random
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BIN = REPO / "target" / "release" / "notes"
LUA = REPO / "bench" / "wrk.lua"
DURATION = os.environ.get("BENCH_DURATION", "6s")
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "3"))
THREADS, CONNECTIONS = "2", "64"


def cpu_split():
    """(server cores, load cores) as taskset lists, or None without taskset or cores."""
    cores = sorted(os.sched_getaffinity(0))
    if len(cores) < 2 or not shutil.which("taskset"):
        return None
    half = len(cores) // 2
    as_list = lambda cs: ",".join(map(str, cs))
    return as_list(cores[:half]), as_list(cores[half:])


SPLIT = cpu_split()
SERVER_CORES = len(SPLIT[0].split(",")) if SPLIT else os.cpu_count()


def on_server_cores(command, pinned=True):
    return (["taskset", "-c", SPLIT[0]] + command) if SPLIT and pinned else command


def on_load_cores(command, pinned=True):
    return (["taskset", "-c", SPLIT[1]] + command) if SPLIT and pinned else command

WORDS = (
    "garden river mountain quiet morning letter coffee window autumn winter summer "
    "spring rust async storage index public note market travel music paper light "
    "shadow forest ocean city train station bridge kitchen recipe bread butter salt "
    "été forêt musée château café déjà vu"
).split()
TAGS = ["alpha", "beta", "gamma", "delta", "work", "home", "ideas", "travel"]


def need(tool, package, required=True):
    if shutil.which(tool):
        return
    print(f"installing {package} (apt-get)", flush=True)
    subprocess.run(["apt-get", "update", "-qq"], check=required)
    installed = subprocess.run(
        ["apt-get", "install", "-y", "-qq", package],
        check=required,
        env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"},
    )
    if installed.returncode != 0:
        print(f"{package} not installed: its column stays empty", flush=True)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def note_path(i):
    return f"f{i % 20:02d}/note-{i:05d}.md"


def generate(root: Path, count: int):
    rng = random.Random(42)
    for i in range(count):
        path = root / note_path(i)
        path.parent.mkdir(parents=True, exist_ok=True)
        size = rng.randint(1024, 8192)
        words = []
        length = 0
        while length < size:
            w = rng.choice(WORDS)
            words.append(w)
            length += len(w) + 1
        tags = rng.sample(TAGS, rng.randint(0, 3))
        body = "\n\n".join(" ".join(words[j : j + 40]) for j in range(0, len(words), 40))
        text = (
            f"---\ntitle: Note {i} {rng.choice(WORDS)}\ndate: 01-02-2025\n"
            f"last_modified: 01-02-2025:10:{i % 60:02d}\ntags: [{', '.join(tags)}]\n---\n\n"
            f"# Note {i}\n\n{body}\n"
        )
        path.write_text(text)


def wait_http(url, timeout=60):
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=2) as r:
                if r.status == 200:
                    return
        except Exception:
            time.sleep(0.1)
    raise SystemExit(f"{url} did not come up")


def wait_indexed(base, count, timeout=120):
    """Waits until the start-up indexing has every note (each title holds "Note")."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            with urllib.request.urlopen(base + "/api/v1/search?q=note&limit=1", timeout=5) as r:
                if json.loads(r.read())["total"] >= count:
                    return
        except Exception:
            pass
        time.sleep(0.5)
    raise SystemExit("the start-up indexing did not finish")


def cpu_seconds(pid):
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def wait_idle(pid, timeout=90):
    """Waits until the server uses under 5% of a core over a second (background index
    merges done), so rows measure the steady state."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        before = cpu_seconds(pid)
        time.sleep(1)
        if cpu_seconds(pid) - before < 0.05:
            return
    print("warning: the server did not become idle", flush=True)


def wrk(url, mode="get", path="/", accept=None, connections=CONNECTIONS, threads=THREADS,
        token=None, pinned=True):
    env = {**os.environ, "BENCH_MODE": mode, "BENCH_PATH": path}
    if accept:
        env["BENCH_ACCEPT"] = accept
    if token:
        env["BENCH_TOKEN"] = token
    out = subprocess.run(
        on_load_cores(["wrk", "-t", threads, "-c", connections, "-d", DURATION,
                       "--timeout", "10s", "-s", str(LUA), url], pinned),
        capture_output=True, text=True, env=env, timeout=300,
    )
    return wrk_result(out)


def wrk_result(out):
    """The JSON line bench/wrk.lua prints at the end of a finished wrk run, with req/s."""
    line = [l for l in out.stdout.splitlines() if l.startswith("{")]
    if not line:
        raise SystemExit(f"wrk failed: {out.stdout}\n{out.stderr}")
    r = json.loads(line[-1])
    r["rps"] = r["requests"] / (r["duration_us"] / 1e6)
    return r


def process_tree(pid):
    """The pid and its children (nginx's workers)."""
    children = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True)
    return [pid] + [int(p) for p in children.stdout.split()]


def perf_works():
    if not shutil.which("perf"):
        return False
    probe = subprocess.run(["perf", "stat", "-x,", "-e", "instructions", "true"],
                           capture_output=True, text=True)
    return probe.returncode == 0 and "not supported" not in probe.stderr


PERF = None


def counted(pid, run_load):
    """Runs `run_load` (a wrk run) and adds the server's instructions per request when
    perf can count them, and its peak RSS so far."""
    global PERF
    if PERF is None:
        PERF = perf_works()
    perf = None
    if PERF:
        pids = ",".join(map(str, process_tree(pid)))
        perf = subprocess.Popen(["perf", "stat", "-x,", "-e", "instructions", "-p", pids],
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        time.sleep(0.2)
    result = run_load()
    if perf:
        perf.send_signal(signal.SIGINT)
        err = perf.communicate(timeout=30)[1]
        for line in err.splitlines():
            fields = line.split(",")
            if len(fields) > 2 and fields[2].startswith("instructions") and fields[0].isdigit():
                result["instr_per_req"] = int(fields[0]) / max(result["requests"], 1)
    result["rss_after_kib"] = rss_peak_kib(pid)
    return result


def rss_peak_kib(pid):
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return 0


def start_notes(notes_dir, public_dir, pinned=True):
    port = free_port()
    proc = subprocess.Popen(
        on_server_cores([str(BIN), "--notes-dir", str(notes_dir), "--public-dir",
                         str(public_dir), "serve", "--listen", f"127.0.0.1:{port}"], pinned),
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    wait_http(base + "/api/v1/notes/" + note_path(0))
    return proc, base


def start_nginx(notes_dir, work, pinned=True):
    port = free_port()
    conf = work / "nginx.conf"
    conf.write_text(f"""
user root;
worker_processes {SERVER_CORES if pinned else os.cpu_count()};
daemon off;
pid {work}/nginx.pid;
error_log {work}/nginx-error.log;
events {{ worker_connections 1024; }}
http {{
    access_log off;
    sendfile on;
    tcp_nopush on;
    keepalive_requests 100000;
    default_type text/markdown;
    server {{
        listen 127.0.0.1:{port};
        root {notes_dir};
    }}
}}
""")
    proc = subprocess.Popen(on_server_cores(["nginx", "-c", str(conf)], pinned),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    wait_http(base + "/" + note_path(0))
    return proc, base


def stop(proc):
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()


def fmt_ms(us):
    return f"{us / 1000:.2f}"


def fs_reference(folder, replace, seconds=4.0, threads=16):
    """Durable writes by the file system alone, as PUT does them (temp file, fsync,
    rename, folder fsync), from `threads` threads for `seconds`: new names, or
    replacing 32 existing files per thread. The reference for the PUT rows."""
    import threading
    folder.mkdir(parents=True, exist_ok=True)
    data = b"x" * 2000
    counts = []

    def worker(t):
        if replace:
            for i in range(32):
                (folder / f"r{t}-{i}.md").write_bytes(data)
        dir_fd = os.open(folder, os.O_RDONLY)
        done, deadline = 0, time.time() + seconds
        while time.time() < deadline:
            name = folder / (f"r{t}-{done % 32}.md" if replace else f"n{t}-{done}.md")
            temp = folder / f".tmp-ref-{t}"
            fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
            os.write(fd, data)
            os.fsync(fd)
            os.close(fd)
            os.rename(temp, name)
            os.fsync(dir_fd)
            done += 1
        os.close(dir_fd)
        counts.append(done)

    workers = [threading.Thread(target=worker, args=(t,)) for t in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    shutil.rmtree(folder)
    return sum(counts) / seconds


def median(values):
    return statistics.median(values)


def main():
    need("wrk", "wrk")
    need("nginx", "nginx")
    need("perf", "linux-perf", required=False)
    subprocess.run(["cargo", "build", "--release", "--quiet"], cwd=REPO, check=True)
    rows = []
    unpinned_rows = []
    token_ratios = {}
    fs_rates = {}
    rounds = {}
    peaks = {}
    list_p50 = {}
    list_instr = {}
    with tempfile.TemporaryDirectory(prefix="notes-bench-") as tmp:
        tmp = Path(tmp)
        for count in (1000, 10000):
            notes_dir = tmp / f"notes-{count}"
            public_dir = tmp / f"public-{count}"
            label = f"{count // 1000}k"
            print(f"corpus: {count} notes", flush=True)
            generate(notes_dir, count)
            # First start: the never-indexed folder is indexed; its peak is its own row.
            notes, nbase = start_notes(notes_dir, public_dir)
            try:
                wait_indexed(nbase, count)
                wait_idle(notes.pid)
                peaks[(count, "first start, indexing")] = rss_peak_kib(notes.pid)
            finally:
                stop(notes)
            # Before the write rows, which leave the history committing for a while.
            if count == 10000 and SPLIT:
                unpinned(notes_dir, public_dir, tmp, label, unpinned_rows, rounds)
            notes, nbase = start_notes(notes_dir, public_dir)
            nginx, xbase = start_nginx(notes_dir, tmp)
            try:
                wait_indexed(nbase, count)
                wait_idle(notes.pid)
                one = note_path(7)
                runs = {"nginx": [], "raw": [], "json": [], "token": []}
                for _ in range(ROUNDS):
                    runs["nginx"].append(counted(nginx.pid, lambda: wrk(xbase, path="/" + one)))
                    runs["raw"].append(counted(notes.pid, lambda: wrk(
                        nbase, path="/api/v1/notes/" + one, accept="text/markdown")))
                    runs["json"].append(counted(notes.pid, lambda: wrk(
                        nbase, path="/api/v1/notes/" + one)))
                    # The same GET once a token exists, sending it: a token limited to
                    # the note's folder, the one whose every path is also judged where
                    # it leads. It is revoked after, so every other row runs without
                    # tokens (auth off).
                    secret = token_create(notes_dir, one.split("/")[0])
                    runs["token"].append(counted(notes.pid, lambda: wrk(
                        nbase, path="/api/v1/notes/" + one, token=secret)))
                    token_revoke(notes_dir)
                all_answered(runs)
                rounds[label] = runs
                for name, key in (("nginx GET file", "nginx"), ("GET raw", "raw"),
                                  ("GET JSON", "json")):
                    ratio = None
                    if key != "nginx":
                        ratio = median([r["rps"] / n["rps"]
                                        for r, n in zip(runs[key], runs["nginx"])])
                    rows.append((f"{name} ({label})", middle(runs[key]), ratio))
                token_ratios[label] = median([t["rps"] / j["rps"]
                                              for t, j in zip(runs["token"], runs["json"])])
                rows.append((f"GET with folder token ({label})", middle(runs["token"]), None))
                rows.append((f"list ({label})",
                             counted(notes.pid, lambda: wrk(nbase, path="/api/v1/notes")), None))
                one_client = counted(notes.pid, lambda: wrk(
                    nbase, path="/api/v1/notes", connections="1", threads="1"))
                rows.append((f"list, 1 client ({label})", one_client, None))
                list_p50[count] = one_client["p50_us"]
                list_instr[count] = one_client.get("instr_per_req")
                rows.append((f"search ({label})",
                             counted(notes.pid, lambda: wrk(nbase, mode="search")), None))
                peaks[(count, "serving reads")] = rss_peak_kib(notes.pid)
                if count == 10000:
                    for name, mode in (("PUT new", "put_new"), ("PUT replace", "put_replace"),
                                       ("toggle", "toggle")):
                        rows.append((name, counted(notes.pid, lambda: wrk(nbase, mode=mode)), None))
                    fs_rates = {
                        "new": fs_reference(tmp / "fs-new", replace=False),
                        "replace": fs_reference(tmp / "fs-replace", replace=True),
                    }
                    written = sum(1 for _ in (notes_dir / "bench-new").glob("*.md"))
                    peaks[(count, f"after the write rows ({count + written} notes)")] = \
                        rss_peak_kib(notes.pid)
            finally:
                stop(notes)
                stop(nginx)

    rows += unpinned_rows
    lines = [
        "# HTTP benchmark",
        "",
        f"`just bench` on this machine ({os.cpu_count()} cores), wrk {THREADS} threads, "
        f"{CONNECTIONS} connections, {DURATION} per run, loopback only. "
        + (f"Servers (notes, and nginx with {SERVER_CORES} worker(s)) on core(s) {SPLIT[0]}, "
           f"wrk on core(s) {SPLIT[1]}. " if SPLIT else "No core split (taskset or a "
           "second core missing). ")
        + ("The rows marked unpinned run with nothing pinned: notes with its default "
           f"threads, nginx with {os.cpu_count()} workers, wrk on the same cores. "
           if SPLIT else "")
        + "The nginx, raw and "
        f"JSON rows ran in {ROUNDS} interleaved rounds: their req/s and latencies are the "
        "median round's, their ratio the median of the per-round ratios to nginx in the "
        "same round. `instr/req`: the server's instructions per request (perf stat), "
        "which the host's drift does not change"
        + ("." if PERF else "; this machine has no hardware counters, so the column is "
           "empty: `just bench-instructions REV` counts them under callgrind instead."),
        "",
        "| request | req/s | p50 ms | p99 ms | non-2xx | ratio to nginx | instr/req | "
        "server peak RSS after, MiB |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, r, ratio in rows:
        rss = r.get("rss_after_kib")
        instr = r.get("instr_per_req")
        lines.append(
            f"| {name} | {r['rps']:.0f} | {fmt_ms(r['p50_us'])} | {fmt_ms(r['p99_us'])} | "
            f"{r['non2xx'] + r['socket_errors']} | {'' if ratio is None else f'{ratio:.2f}'} | "
            f"{'' if instr is None else f'{instr:,.0f}'} | "
            f"{'' if rss is None else f'{rss / 1024:.1f}'} |"
        )
    lines += ["", "GET JSON with a folder token (`Authorization: Bearer`, hashed and looked "
              "up per request, the path judged where it leads) to GET JSON without tokens, "
              "median of the per-round ratios "
              "(target ≥ 0.9): "
              + ", ".join(f"{label} {ratio:.2f}" for label, ratio in token_ratios.items())]
    lines += ["", "Per-round ratios to nginx:"]
    for label, runs in rounds.items():
        for key in ("raw", "json"):
            ratios = ", ".join(f"{r['rps'] / n['rps']:.2f}"
                               for r, n in zip(runs[key], runs["nginx"]))
            lines.append(f"- {key} ({label}): {ratios}")
    puts = {name: r for name, r, _ in rows if name.startswith("PUT")}
    if fs_rates:
        lines += ["", "The file system alone (16 Python threads, same folder sequence as PUT: "
                  "temp file, fsync, rename, folder fsync; 2 KB), on the same disk in the same run:"]
        for kind, row in (("new", "PUT new"), ("replace", "PUT replace")):
            lines.append(f"- durable {kind} files: {fs_rates[kind]:.0f}/s; {row} reaches "
                         f"{puts[row]['rps'] / fs_rates[kind]:.2f}x of it")
    growth = list_p50[10000] / max(list_p50[1000], 1)
    lines += ["", f"- list p50 (1 client, warm) grows {growth:.1f}x from 1k to 10k notes "
              "(10x more notes)"
              + (f"; instructions per list grow {list_instr[10000] / list_instr[1000]:.1f}x."
                 if list_instr.get(1000) and list_instr.get(10000) else ".")]
    lines += ["", "Peak RSS (VmHWM) of `notes serve`:"]
    for (count, phase), kib in peaks.items():
        lines.append(f"- {count // 1000}k corpus, {phase}: {kib / 1024:.1f} MiB")
    lines.append("")
    text = "\n".join(lines)
    print(text)
    (REPO / "bench" / "RESULTS.md").write_text(text)


def token_create(notes_dir, prefix):
    """A token limited to the folder `prefix` for the "GET with folder token" row; the
    server sees it on its next request."""
    out = subprocess.run([str(BIN), "--notes-dir", str(notes_dir), "token", "create",
                          "--name", "bench", "--prefix", prefix],
                         capture_output=True, text=True, check=True)
    return out.stdout.strip()


def token_revoke(notes_dir):
    """Revokes the token and opens the folder again (`token off`): a folder whose last
    token is revoked stays closed, and every later row would be answered 401."""
    subprocess.run([str(BIN), "--notes-dir", str(notes_dir), "token", "off"],
                   capture_output=True, check=True)


def unpinned(notes_dir, public_dir, tmp, label, rows, rounds):
    """The raw and JSON GET rows in the layout a user runs: nothing pinned (notes with
    its default threads, nginx with a worker per core, wrk on the same cores)."""
    notes, nbase = start_notes(notes_dir, public_dir, pinned=False)
    nginx, xbase = start_nginx(notes_dir, tmp, pinned=False)
    try:
        wait_indexed(nbase, 10000)
        wait_idle(notes.pid)
        one = note_path(7)
        runs = {"nginx": [], "raw": [], "json": []}
        for _ in range(ROUNDS):
            runs["nginx"].append(counted(nginx.pid, lambda: wrk(
                xbase, path="/" + one, pinned=False)))
            runs["raw"].append(counted(notes.pid, lambda: wrk(
                nbase, path="/api/v1/notes/" + one, accept="text/markdown", pinned=False)))
            runs["json"].append(counted(notes.pid, lambda: wrk(
                nbase, path="/api/v1/notes/" + one, pinned=False)))
        all_answered(runs)
        key_label = f"{label}, unpinned"
        rounds[key_label] = runs
        for name, key in (("nginx GET file", "nginx"), ("GET raw", "raw"),
                          ("GET JSON", "json")):
            ratio = None
            if key != "nginx":
                ratio = median([r["rps"] / n["rps"] for r, n in zip(runs[key], runs["nginx"])])
            rows.append((f"{name} ({key_label})", middle(runs[key]), ratio))
    finally:
        stop(notes)
        stop(nginx)


def all_answered(runs):
    """Stops the benchmark when a compared run had answers other than 2xx (a refused
    request is cheap, and would pass for speed)."""
    for key, results in runs.items():
        for r in results:
            if r["non2xx"] or r["socket_errors"]:
                raise SystemExit(f"{key}: {r['non2xx']} answers not 2xx, "
                                 f"{r['socket_errors']} socket errors")


def middle(runs):
    """The run with the median throughput."""
    return sorted(runs, key=lambda r: r["rps"])[len(runs) // 2]


if __name__ == "__main__":
    if not BIN.parent.exists():
        BIN.parent.mkdir(parents=True)
    sys.exit(main())
