#!/usr/bin/env python3
"""What a folder token costs a read: GET of one note (JSON and raw) with a `--prefix`
token against the same GET on a server without tokens, both this build, each serving
its own copy of one folder, in the same run.

    bench/tokens.py BINARY

Three interleaved rounds (BENCH_ROUNDS): in each, the two servers take the same row back
to back, in alternating order, so a drift of the host falls on both alike. The ratio is
the median of the per-round ratios (with token / without, req/s); target ≥ 0.9 for GET
JSON. Writes bench/TOKENS.md. Only loopback is used; every run is bounded by wrk's
duration.
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
import run  # noqa: E402

ROUNDS = int(os.environ.get("BENCH_ROUNDS", "3"))
COUNT = 1000
NOTE = run.note_path(7)
FOLDER = NOTE.split("/")[0]


def folder_token(binary, notes_dir):
    out = subprocess.run([binary, "--notes-dir", str(notes_dir), "token", "create",
                          "--name", "bench", "--prefix", FOLDER],
                         capture_output=True, text=True, check=True)
    return out.stdout.strip()


def rows(base, token):
    one = "/api/v1/notes/" + NOTE
    return [
        ("GET JSON", lambda: run.wrk(base, path=one, token=token)),
        ("GET raw", lambda: run.wrk(base, path=one, accept="text/markdown", token=token)),
    ]


def main():
    if len(sys.argv) < 2:
        raise SystemExit(__doc__)
    binary = sys.argv[1]
    run.need("wrk", "wrk")
    run.BIN = Path(binary)
    results = {}
    with tempfile.TemporaryDirectory(prefix="notes-tokens-") as tmp:
        tmp = Path(tmp)
        servers = {}
        try:
            for name in ("without tokens", "folder token"):
                notes_dir = tmp / name.replace(" ", "-")
                run.generate(notes_dir, COUNT)
                token = folder_token(binary, notes_dir) if name == "folder token" else None
                if token is None:
                    proc, base = run.start_notes(notes_dir, tmp / "public-plain")
                else:
                    proc, base = start_with_token(notes_dir, tmp, token)
                servers[name] = (proc, base, token)
                run.wait_idle(proc.pid)
            names = list(servers)
            for round_ in range(ROUNDS):
                print(f"round {round_ + 1}/{ROUNDS}", flush=True)
                for i in range(len(rows("", None))):
                    for name in names if (round_ + i) % 2 == 0 else names[::-1]:
                        proc, base, token = servers[name]
                        row, measure = rows(base, token)[i]
                        r = measure()
                        if r["non2xx"] or r["socket_errors"]:
                            raise SystemExit(f"{name} {row}: errors {r}")
                        results.setdefault((row, name), []).append(r["rps"])
        finally:
            for proc, _, _ in servers.values():
                run.stop(proc)

    lines = [
        "# GET with a folder token",
        "",
        f"`just bench` on this machine ({os.cpu_count()} cores): this build serving a "
        f"{COUNT}-note folder with no token, and a copy of it with one `--prefix {FOLDER}` "
        f"token sent on every request; GET of `{NOTE}`, wrk {run.THREADS} threads and "
        f"{run.CONNECTIONS} connections, {run.DURATION} per run, {ROUNDS} interleaved "
        "rounds. Ratio: the median of the per-round ratios (folder token / no tokens, "
        "req/s); target ≥ 0.9 on GET JSON.",
        "",
        "| request | no tokens req/s | folder token req/s | ratio | per round |",
        "|---|---:|---:|---:|---|",
    ]
    verdicts = []
    for row, _ in rows("", None):
        plain, scoped = results[(row, "without tokens")], results[(row, "folder token")]
        ratios = [s / p for s, p in zip(scoped, plain)]
        ratio = statistics.median(ratios)
        if row == "GET JSON":
            verdicts.append(ratio >= 0.9)
        lines.append(
            f"| {row} | {statistics.median(plain):.0f} | {statistics.median(scoped):.0f} | "
            f"{ratio:.2f} | {', '.join(f'{x:.2f}' for x in ratios)} |")
    lines += ["", f"GET JSON with a folder token ≥ 0.9×: {'met' if all(verdicts) else 'NOT met'}.",
              ""]
    text = "\n".join(lines)
    print(text)
    (run.REPO / "bench" / "TOKENS.md").write_text(text)


def start_with_token(notes_dir, tmp, token):
    """`run.start_notes` waits for an anonymous GET, which a server with tokens refuses;
    this waits for the same GET with the token."""
    port = run.free_port()
    proc = subprocess.Popen(
        run.on_server_cores([str(run.BIN), "--notes-dir", str(notes_dir), "--public-dir",
                             str(tmp / "public-token"), "serve", "--listen",
                             f"127.0.0.1:{port}"]),
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    deadline = time.time() + 60
    while time.time() < deadline:
        try:
            req = urllib.request.Request(base + "/api/v1/notes/" + NOTE,
                                         headers={"Authorization": f"Bearer {token}"})
            with urllib.request.urlopen(req, timeout=2) as r:
                if r.status == 200:
                    return proc, base
        except Exception:
            time.sleep(0.1)
    run.stop(proc)
    raise SystemExit(f"{base} did not come up")


if __name__ == "__main__":
    sys.exit(main())
