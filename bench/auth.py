#!/usr/bin/env python3
"""The cost of the token check with no token (auth off): this build against a build
from before the check existed, both serving copies of one folder in the same run.

    bench/auth.py CURRENT_BINARY REFERENCE_BINARY REFERENCE_LABEL

The rows are the HTTP benchmark's (bench/run.py, whose helpers this reuses): GET raw,
GET JSON, the list (64 connections and 1 client), search, and an attachment download,
on a 1k-note corpus. Beside them, this build's GET JSON with a token
against the same GET with none (target ≥ 0.9). Each row runs in interleaved rounds, the two builds back to
back row by row in alternating order, so both see the same drift of the host; the ratio reported is
the median of the per-round ratios (current / reference, req/s). Beside it, the
server's CPU time per request (from /proc, clock ticks), which the host's other load
moves less than the request rate. The target (issue 18):
no row more than 5 % slower, that is every ratio ≥ 0.95. Writes bench/AUTH.md. Only
loopback is used; every run is bounded by wrk's duration.
"""

import os
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import run  # noqa: E402

ROUNDS = int(os.environ.get("BENCH_ROUNDS", "5"))
COUNT = 1000
IMAGE = "bench-files/photo.png"


def start(binary, notes_dir, public_dir):
    run.BIN = Path(binary)
    return run.start_notes(notes_dir, public_dir)


def rows(base):
    """(row name, wrk run) of every row, for a server at `base`."""
    one = "/api/v1/notes/" + run.note_path(7)
    return [
        ("GET raw", lambda: run.wrk(base, path=one, accept="text/markdown")),
        ("GET JSON", lambda: run.wrk(base, path=one)),
        ("list", lambda: run.wrk(base, path="/api/v1/notes")),
        ("list, 1 client", lambda: run.wrk(base, path="/api/v1/notes", connections="1",
                                           threads="1")),
        ("search", lambda: run.wrk(base, mode="search")),
        ("GET attachment (100 KiB)", lambda: run.wrk(base, path="/api/v1/files/" + IMAGE)),
    ]


def main():
    if len(sys.argv) < 4:
        raise SystemExit(__doc__)
    current, reference, label = sys.argv[1], sys.argv[2], sys.argv[3]
    run.need("wrk", "wrk")
    results = {}
    cpu = {}
    token_ratios = []
    with tempfile.TemporaryDirectory(prefix="notes-auth-") as tmp:
        tmp = Path(tmp)
        image = os.urandom(100 * 1024)
        servers = {}
        try:
            for name, binary in (("reference", reference), ("current", current)):
                # One folder each (a server owns its folder), the same notes in both.
                notes_dir = tmp / f"notes-{name}"
                run.generate(notes_dir, COUNT)
                (notes_dir / IMAGE).parent.mkdir(parents=True, exist_ok=True)
                (notes_dir / IMAGE).write_bytes(image)
                proc, base = start(binary, notes_dir, tmp / f"public-{name}")
                servers[name] = (proc, base)
                run.wait_indexed(base, COUNT)
                run.wait_idle(proc.pid)
            names = ["reference", "current"]
            for round_ in range(ROUNDS):
                print(f"round {round_ + 1}/{ROUNDS}", flush=True)
                for i, (row, _) in enumerate(rows("")):
                    # Row by row, the order of the two builds alternating, so a drift
                    # of the host within a round falls on both alike.
                    for name in names if (round_ + i) % 2 == 0 else names[::-1]:
                        pid = servers[name][0].pid
                        before = run.cpu_seconds(pid)
                        r = rows(servers[name][1])[i][1]()
                        if r["non2xx"] or r["socket_errors"]:
                            raise SystemExit(f"{name} {row}: errors {r}")
                        results.setdefault((row, name), []).append(r["rps"])
                        cpu_us = (run.cpu_seconds(pid) - before) / r["requests"] * 1e6
                        cpu.setdefault((row, name), []).append(cpu_us)
                # This build's GET JSON with a token sent (hashed and looked up per
                # request) beside the same GET with no token, back to back.
                proc, base = servers["current"]
                one = "/api/v1/notes/" + run.note_path(7)
                plain = run.wrk(base, path=one)
                run.BIN = Path(current)
                secret = run.token_create(tmp / "notes-current")
                with_token = run.wrk(base, path=one, token=secret)
                run.token_revoke(tmp / "notes-current")
                token_ratios.append(with_token["rps"] / plain["rps"])
        finally:
            for proc, _ in servers.values():
                run.stop(proc)

    lines = [
        "# Token check with auth off",
        "",
        f"`just bench-auth` on this machine ({os.cpu_count()} cores): this build against "
        f"the build of `{label}` (before tokens existed), both serving a copy "
        f"of the same {COUNT}-note folder with no token, wrk {run.THREADS} threads and "
        f"{run.CONNECTIONS} connections (the 1-client row: 1), {run.DURATION} per run, "
        f"{ROUNDS} interleaved rounds. Ratio: the median of the per-round ratios "
        "(this build / reference, req/s); target ≥ 0.95 on every row. CPU µs/request: "
        "the server's CPU time over the run (from /proc) per request, median round; its "
        "ratio is the reference's over this build's (above 1: this build uses less).",
        "",
        "| request | reference req/s | this build req/s | ratio | per round | "
        "CPU µs/request, reference | this build | CPU ratio (reference / this) |",
        "|---|---:|---:|---:|---|---:|---:|---:|",
    ]
    worst = None
    for row, _ in rows(""):
        ref, cur = results[(row, "reference")], results[(row, "current")]
        ratios = [c / r for c, r in zip(cur, ref)]
        ratio = statistics.median(ratios)
        worst = ratio if worst is None else min(worst, ratio)
        ref_cpu, cur_cpu = cpu[(row, "reference")], cpu[(row, "current")]
        cpu_ratio = statistics.median([r / c for r, c in zip(ref_cpu, cur_cpu) if c > 0])
        lines.append(
            f"| {row} | {statistics.median(ref):.0f} | {statistics.median(cur):.0f} | "
            f"{ratio:.2f} | {', '.join(f'{x:.2f}' for x in ratios)} | "
            f"{statistics.median(ref_cpu):.1f} | {statistics.median(cur_cpu):.1f} | "
            f"{cpu_ratio:.2f} |")
    lines += ["", f"Lowest ratio: {worst:.2f} "
              f"({'met' if worst >= 0.95 else 'NOT met'}: no row more than 5 % slower)."]
    token = statistics.median(token_ratios)
    lines += ["", f"This build's GET JSON with a token (`Authorization: Bearer`) to the same "
              f"GET with no token, back to back in each round: {token:.2f} (per round: "
              f"{', '.join(f'{x:.2f}' for x in token_ratios)}; target ≥ 0.9).", ""]
    text = "\n".join(lines)
    print(text)
    (run.REPO / "bench" / "AUTH.md").write_text(text)


if __name__ == "__main__":
    sys.exit(main())
