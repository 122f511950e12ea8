#!/usr/bin/env python3
"""Scale benchmark: the measures of issue 19 at 10k and 100k generated notes.

The corpora (bench/corpus.py) are made once and cached in target/bench-corpus-<N>k
(or under BENCH_CORPUS_DIR).
For each size: `notes reindex` on the folder (wall and CPU time, peak RSS, index size),
then `notes serve` on the folder without its `.notes` (a first start: time until every
note is searchable, peak RSS), each SCALE_RUNS times (3; the median run is reported,
with the range), then the warm list, the web `/`, the list with 8 clients, search, and
the peak RSS after them. Writes bench/SCALE.md (the hand-written sections
below the table are kept).

With SCALE_REFERENCE (a build of another revision, SCALE_REFERENCE_REV; `just
bench-scale` gives it eb391c1, main before the work on issue 19), each run of the two
timed passes is preceded by the same pass of that build, and the table adds that build's
times and the ratio of the two, turn by turn: both builds of a turn meet the same load
of this shared machine, so the ratio moves far less with it than the times do.

Loopback only; every loop is bounded in count and in time. The machine is shared with
other work, so the CPU seconds the process used are shown beside each wall time.
"""

import contextlib
import json
import os
import random
import shutil
import socket
import statistics
import subprocess
import sys
import threading
import time
import urllib.parse
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import corpus  # noqa: E402
import report  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
BIN = REPO / "target" / "release" / "notes"
SIZES = [int(n) for n in os.environ.get("SCALE_SIZES", "10000,100000").split(",")]
# `just bench-scale-1m` writes its own report (SCALE_OUT=bench/SCALE-1M.md).
OUT = REPO / os.environ.get("SCALE_OUT", "bench/SCALE.md")
# The two timed passes (`notes reindex`, the first start) are run this many times each
# and the median reported with the range: one run is one draw of this shared machine's
# load (the same binary's reindex at 100k took 9-15 s from one hour to the next).
RUNS = int(os.environ.get("SCALE_RUNS", "3"))
# Per loop: at most this many requests, and at most this many seconds.
MAX_REQUESTS = 40
MAX_SECONDS = 30.0
# The reference build run in turns with this one, and its revision (see above).
REFERENCE = os.environ.get("SCALE_REFERENCE")
REFERENCE_REV = os.environ.get("SCALE_REFERENCE_REV", "reference")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def status(pid):
    out = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        out[key] = value.strip()
    return out


def peak_mib(pid):
    return int(status(pid)["VmHWM"].split()[0]) / 1024


class Sampler:
    """The highest anonymous and file-backed RSS of a process, sampled every 0.1 s
    (the kernel keeps the peak of their sum only, VmHWM). File-backed pages are the
    mapped files (the search index, the program): the kernel can drop them at any
    time and read them again; anonymous memory is the heap and stacks. Also the most
    descriptors it held open at once (each search index segment holds some)."""

    def __init__(self, pid):
        self.pid, self.anon, self.file, self.fds = pid, 0, 0, 0
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        while not self.stopped.wait(0.1):
            try:
                s = status(self.pid)
            except OSError:
                return
            self.anon = max(self.anon, int(s["RssAnon"].split()[0]) / 1024)
            # Files mapped from a tmpfs (a corpus in `BENCH_CORPUS_DIR=/dev/shm`)
            # are counted as shared memory, not as files.
            mapped = sum(int(s[k].split()[0]) for k in ("RssFile", "RssShmem"))
            self.file = max(self.file, mapped / 1024)
            with contextlib.suppress(OSError):
                self.fds = max(self.fds, len(os.listdir(f"/proc/{self.pid}/fd")))

    def peaks(self, row, key):
        row[key + "_anon"], row[key + "_file"] = self.anon, self.file

    def stop(self):
        self.stopped.set()
        self.thread.join()


def cpu_seconds(pid):
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def size_mb(folder: Path):
    total = sum(f.stat().st_size for f in folder.rglob("*") if f.is_file())
    return total / 1e6


def get(url, timeout=60):
    started = time.perf_counter()
    with urllib.request.urlopen(url, timeout=timeout) as r:
        r.read()
        assert r.status == 200, url
    return (time.perf_counter() - started) * 1000


def p50(url, max_requests=MAX_REQUESTS, max_seconds=MAX_SECONDS):
    get(url)  # warm
    times, deadline = [], time.time() + max_seconds
    while len(times) < max_requests and time.time() < deadline:
        times.append(get(url))
    return statistics.median(times), len(times)


def p50_clients(url, clients=8, per_client=5, max_seconds=MAX_SECONDS):
    get(url)
    times, lock, deadline = [], threading.Lock(), time.time() + max_seconds

    def client():
        for _ in range(per_client):
            if time.time() > deadline:
                return
            ms = get(url)
            with lock:
                times.append(ms)

    threads = [threading.Thread(target=client) for _ in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return statistics.median(times), len(times)


def search_p50(base, words):
    get(f"{base}/api/v1/search?q=note")
    times, deadline = [], time.time() + MAX_SECONDS
    for word in words:
        if time.time() > deadline:
            break
        times.append(get(f"{base}/api/v1/search?q={word}"))
    return statistics.median(times), len(times)


def read_all(notes: Path):
    """Reads every note once, so the reindex after it finds them in the page cache
    (its wall time is then the program's, not the disk's)."""
    for note in notes.rglob("*.md"):
        note.read_bytes()


def reindex_once(notes: Path, binary=None):
    shutil.rmtree(notes / ".notes" / "index", ignore_errors=True)
    read_all(notes)
    started = time.perf_counter()
    proc = subprocess.Popen([str(binary or BIN), "--notes-dir", str(notes), "reindex"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, code, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - started
    if code != 0:
        raise SystemExit("notes reindex failed")
    return {
        "reindex": wall,
        "reindex_cpu": usage.ru_utime + usage.ru_stime,
        "reindex_rss": usage.ru_maxrss / 1024,
    }


def lower_middle(ordered):
    """The median of a sorted list: the lower middle one of an even count."""
    return ordered[(len(ordered) - 1) // 2]


def median_run(runs, key):
    """The run whose `key` is the median (the lower middle one of an even count), with
    every run's `key` in `<key>_runs`."""
    ordered = sorted(runs, key=lambda run: run[key])
    row = dict(lower_middle(ordered))
    row[key + "_runs"] = [run[key] for run in ordered]
    return row


def against_reference(row, key, runs, references):
    """The reference build's median run of `key` as `<key>_ref` (its times and range),
    and this build's time over the reference's turn by turn, as `<key>_ratio` (the
    median, with every turn's in `<key>_ratio_runs`)."""
    if not references:
        return
    reference = median_run(references, key)
    row[key + "_ref"] = reference[key]
    row[key + "_ref_cpu"] = reference[key + "_cpu"]
    row[key + "_ref_runs"] = reference[key + "_runs"]
    ratios = sorted(run[key] / ref[key] for run, ref in zip(runs, references))
    row[key + "_ratio"] = lower_middle(ratios)
    row[key + "_ratio_runs"] = ratios


def reindex(notes: Path):
    """`notes reindex`, RUNS times (each after the reference build's, when there is
    one): the median run's times, the highest peak RSS."""
    runs, references = [], []
    for _ in range(RUNS):
        if REFERENCE:
            references.append(reindex_once(notes, REFERENCE))
        runs.append(reindex_once(notes))
    row = median_run(runs, "reindex")
    against_reference(row, "reindex", runs, references)
    row["reindex_rss"] = max(run["reindex_rss"] for run in runs)
    row["index_mb"] = size_mb(notes / ".notes" / "index")
    row["notes_mb"] = sum(f.stat().st_size for f in notes.rglob("*.md")) / 1e6
    return row


@contextlib.contextmanager
def running_server(notes: Path, binary=None):
    """`notes serve` on `notes` (public pages beside it) on a free loopback port, its
    memory sampled: the process, its base URL and the sampler; stopped on leaving."""
    port = free_port()
    proc = subprocess.Popen(
        [str(binary or BIN), "--notes-dir", str(notes),
         "--public-dir", str(notes.parent / "public"),
         "serve", "--listen", f"127.0.0.1:{port}"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    sampler = Sampler(proc.pid)
    try:
        yield proc, f"http://127.0.0.1:{port}", sampler
    finally:
        sampler.stop()
        proc.terminate()
        proc.wait()


def limit_seconds(count):
    """The longest the first start and the first list may take: 900 s per 100k notes."""
    return 900 * max(1, count // 100_000)


@contextlib.contextmanager
def first_start(notes: Path, count: int, binary=None):
    """`notes serve` on `notes` without its `.notes` (and no public pages): the server
    once every note is searchable, as `running_server` gives it, and the row of the
    first start (time until then, CPU, peak RSS)."""
    shutil.rmtree(notes / ".notes", ignore_errors=True)
    shutil.rmtree(notes.parent / "public", ignore_errors=True)
    started = time.perf_counter()
    with running_server(notes, binary) as (proc, base, sampler):
        # Every title holds the word "Note": fully indexed once it finds them all.
        limit = limit_seconds(count)
        deadline = time.time() + limit
        while True:
            if time.time() > deadline:
                raise SystemExit(f"the first start did not index every note in {limit} s")
            try:
                with urllib.request.urlopen(base + "/api/v1/search?q=note&limit=1",
                                            timeout=10) as r:
                    if json.loads(r.read())["total"] >= count:
                        break
            except Exception:
                pass
            time.sleep(0.25)
        row = {
            "indexed": time.perf_counter() - started,
            "indexed_cpu": cpu_seconds(proc.pid),
        }
        if binary is None:
            history_recorded(base, notes, deadline, row, started, proc.pid)
        row["rss_first"] = peak_mib(proc.pid)
        yield proc, base, sampler, row


def history_recorded(base, notes: Path, deadline, row, started, pid):
    """Waits until the history holds every note (the start records them in path order:
    the last path's history answers), and puts the time since `started`, its CPU and
    its ratio to the time until indexed into `row`."""
    last = max(str(f.relative_to(notes)) for f in notes.rglob("*.md")
               if ".notes" not in f.parts)
    url = base + "/api/v1/history/" + urllib.parse.quote(last)
    while True:
        if time.time() > deadline:
            raise SystemExit("the first start did not record the history in time")
        try:
            with urllib.request.urlopen(url, timeout=60) as r:
                if r.status == 200:
                    break
        except Exception:
            pass
        time.sleep(0.25)
    row["recorded"] = time.perf_counter() - started
    row["recorded_cpu"] = cpu_seconds(pid)
    row["recorded_ratio"] = row["recorded"] / row["indexed"]


def serve(notes: Path, count: int, words):
    """The first start RUNS times (the median run's times, the highest peak RSS), then,
    on the server of the last one, the lists, the web `/` and the searches."""
    starts, references = [], []

    def reference_start():
        if REFERENCE:
            with first_start(notes, count, REFERENCE) as (_, _, _, start):
                references.append(start)

    for _ in range(RUNS - 1):
        reference_start()
        with first_start(notes, count) as (_, _, _, start):
            starts.append(start)
    reference_start()
    with first_start(notes, count) as (proc, base, sampler, start):
        starts.append(start)
        row = median_run(starts, "indexed")
        against_reference(row, "indexed", starts, references)
        recorded = median_run(starts, "recorded")
        for key in ("recorded", "recorded_cpu", "recorded_runs"):
            row[key] = recorded[key]
        ratios = sorted(run["recorded_ratio"] for run in starts)
        row["recorded_ratio"], row["recorded_ratio_runs"] = lower_middle(ratios), ratios
        row["rss_first"] = max(run["rss_first"] for run in starts)
        limit = limit_seconds(count)
        # Background work of the first start (history, merges) done before timing.
        until_idle(proc.pid)
        row["rss_first"] = max(row["rss_first"], peak_mib(proc.pid))
        row["history_mb"] = size_mb(notes / ".notes" / "history.git")
        row["history_notes_mb"] = sum(
            f.stat().st_size for f in notes.rglob("*.md") if ".notes" not in f.parts) / 1e6
        # Each p50 with the server's CPU time per request (steadier than wall time
        # on a shared machine; the warm-up request is counted in).
        def measured(key, run):
            before = cpu_seconds(proc.pid)
            row[key], requests = run()
            row[key + "_cpu"] = (cpu_seconds(proc.pid) - before) * 1000 / (requests + 1)

        # The first list waits for the list of every note to be built (a read of
        # each note's front matter; minutes at 1M notes when they are not all in the
        # page cache).
        row["list_first"] = get(base + "/api/v1/notes", timeout=limit)
        measured("list", lambda: p50(base + "/api/v1/notes"))
        measured("web", lambda: p50(base + "/"))
        measured("list8", lambda: p50_clients(base + "/api/v1/notes"))
        row["rss_list"] = peak_mib(proc.pid)
        sampler.peaks(row, "rss_list")
        row["fds_first"] = sampler.fds
        measured("search", lambda: search_p50(base, words))
    return row


def until_idle(pid, limit=1800):
    """Waits until the process uses (almost) no CPU for a second; the seconds waited."""
    started, deadline = time.perf_counter(), time.time() + limit
    while time.time() < deadline:
        before = cpu_seconds(pid)
        time.sleep(1)
        if cpu_seconds(pid) - before < 0.05:
            break
    return time.perf_counter() - started - 1


def restart(notes: Path, words):
    """`notes serve` again on the folder the first start left (index, history and
    their caches there): its work until idle, its peak RSS, then the same requests."""
    row = {}
    with running_server(notes) as (proc, base, sampler):
        deadline = time.time() + 60
        while True:
            try:
                get(base + "/api/v1/openapi.json", timeout=5)
                break
            except Exception:
                if time.time() > deadline:
                    raise SystemExit("the restarted server did not answer in 60 s")
                time.sleep(0.1)
        row["restart"] = until_idle(proc.pid)
        row["restart_cpu"] = cpu_seconds(proc.pid)
        row["rss_restart"] = peak_mib(proc.pid)
        p50(base + "/api/v1/notes")
        p50(base + "/")
        search_p50(base, words)
        row["rss_restart_served"] = peak_mib(proc.pid)
        sampler.peaks(row, "rss_restart_served")
    return row


def query_words():
    """Words of the corpus's vocabulary from common to rare, 200 queries."""
    vocab = corpus.vocabulary(random.Random(19))
    ranks = [3, 30, 300, 3000, 20000]
    return [vocab[r + i] for i in range(40) for r in ranks]


ROWS = [
    ("`GET /api/v1/notes`, first after the first start", "list_first", "ms", "—"),
    ("`GET /api/v1/notes` warm, 1 client, p50", "list", "ms", "≤ 80 ms at 100k"),
    ("web `/` (100 notes shown), 1 client, p50", "web", "ms", "≤ 10 ms at 100k"),
    ("list, 8 clients, p50", "list8", "ms", "≤ 25 ms at 10k"),
    ("start → fully indexed (serve on a new folder), median run", "indexed", "s",
     "≤ 15 s at 100k"),
    ("start → history recorded (every note in the history), median run", "recorded", "s",
     "—"),
    ("history recorded / fully indexed, each run (median, range)", "recorded_ratio",
     "ratio", "≤ 2 (issue 44)"),
    ("history store after the first start (notes' size)", "history_mb", "MB",
     "≤ 1.0× the notes (issue 44)"),
    ("`notes reindex` (the notes read once before: in the page cache), median run",
     "reindex", "s", "≤ 10 s at 100k"),
    ("peak RSS, serve, first start until idle, history recorded (highest of the runs)",
     "rss_first", "MiB", "≤ 64 MiB at 10k, ≤ 128 MiB at 100k (issue 44)"),
    ("peak RSS, serve, after the lists", "rss_list", "MiB", "≤ 128 MiB at 100k"),
    ("restart (serve again on that folder) until idle", "restart", "s", "—"),
    ("peak RSS, restart until idle", "rss_restart", "MiB", "—"),
    ("peak RSS, restart, then lists, web `/` and searches", "rss_restart_served", "MiB",
     "≤ 128 MiB at 100k"),
    ("peak RSS, `notes reindex` (highest of the runs)", "reindex_rss", "MiB", "—"),
    ("open files, first start and lists, peak", "fds_first", "files", "—"),
    ("index size (notes' size)", "index_mb", "MB", "not much larger than the notes"),
    ("search p50, 1 client", "search", "ms", "≤ 5 ms at 100k"),
]

# With a reference build: its two timed passes, each after this build's row, and the
# ratios, against the targets' own baseline (issue 19 measured 21.5 s for `notes
# reindex` at 100k on a quiet machine, and about 25 s for the first start).
REFERENCE_ROWS = {
    "indexed": [
        (f"start → fully indexed, the build of {REFERENCE_REV}, in turns with this one",
         "indexed_ref", "s", "≈ 25 s at 100k in issue 19"),
        (f"start → fully indexed, this build's time / {REFERENCE_REV}'s (median of the "
         "turns, range)", "indexed_ratio", "ratio", "≤ 0.60 at 100k (15 s / 25 s)"),
    ],
    "reindex": [
        (f"`notes reindex`, the build of {REFERENCE_REV}, in turns with this one",
         "reindex_ref", "s", "21.5 s at 100k, 1.27 s at 10k in issue 19"),
        (f"`notes reindex`, this build's time / {REFERENCE_REV}'s (median of the turns, "
         "range)", "reindex_ratio", "ratio", "≤ 0.47 at 100k (10 s / 21.5 s)"),
    ],
}


def table_rows():
    """The rows of the table: `ROWS`, and after the timed passes the reference's when
    there is one."""
    out = []
    for row in ROWS:
        out.append(row)
        if REFERENCE:
            out.extend(REFERENCE_ROWS.get(row[1], []))
    return out


def cell(row, key, unit):
    if key not in row:
        return "—"
    value = row[key]
    if key == "index_mb":
        return f"{value:.0f} MB ({row['notes_mb']:.0f} MB)"
    if key == "history_mb":
        return (f"{value:.0f} MB ({row['history_notes_mb']:.0f} MB: "
                f"{value / row['history_notes_mb']:.2f}×)")
    if unit == "files":
        return f"{value}"
    if unit == "ratio":
        runs = row[key + "_runs"]
        return f"{value:.2f} ({len(runs)} turns, {runs[0]:.2f}–{runs[-1]:.2f})"
    if unit == "s":
        runs = row.get(key + "_runs", [])
        spread = (f"; {len(runs)} runs, {runs[0]:.1f}–{runs[-1]:.1f} s"
                  if len(runs) > 1 else "")
        return f"{value:.1f} s (CPU {row[key + '_cpu']:.1f} s{spread})"
    if unit == "MiB":
        if key + "_anon" in row:
            return (f"{value:.0f} MiB (anonymous ≤ {row[key + '_anon']:.0f}, "
                    f"files ≤ {row[key + '_file']:.0f})")
        return f"{value:.0f} MiB"
    ms = f"{value:.1f} ms" if value >= 10 else f"{value:.2f} ms"
    if key == "list_first":
        return ms
    return f"{ms} (CPU {row[key + '_cpu']:.2f} ms/req)"


def corpus_home():
    """Where the corpora are, as the report names it: relative to the repository
    when they are under it."""
    try:
        return str(corpus.CORPUS_DIR.relative_to(REPO))
    except ValueError:
        return str(corpus.CORPUS_DIR)


def size_name(count):
    return f"{count // 1_000_000}M" if count >= 1_000_000 else f"{count // 1000}k"


def main():
    if not BIN.exists():
        raise SystemExit(f"{BIN} missing: cargo build --release")
    words = query_words()
    rows = {}
    for count in SIZES:
        notes = corpus.corpus(count)
        print(f"{count} notes: notes reindex", flush=True)
        row = reindex(notes)
        print(f"{count} notes: serve", flush=True)
        row.update(serve(notes, count, words))
        print(f"{count} notes: serve again", flush=True)
        row.update(restart(notes, words))
        rows[count] = row
        print(json.dumps(row), flush=True)
    write_report(rows)


def write_report(rows):
    """Writes the table of `rows` (size → row) to OUT, keeping its hand-written notes."""
    header = " | ".join(f"{size_name(n)} notes" for n in SIZES)
    lines = [
        "# Scale: " + " and ".join(size_name(n) for n in SIZES) + " notes",
        "",
        f"Generated by `{os.environ.get('SCALE_RECIPE', 'just bench-scale')}` "
        "(bench/scale.py) on this machine "
        f"({os.cpu_count()} cores, shared with other work: wall times vary with its "
        "load, the CPU time the process used does less: it is shown beside each "
        "figure, per request for the HTTP rows). Corpora: bench/corpus.py, "
        "~5.5 KB notes with front matter, tags, links, 500 folders; cached in "
        f"`{corpus_home()}/bench-corpus-<N>k`."
        + (f" The timed passes of the build of {REFERENCE_REV} ran in turns with "
           "this build's, each just before." if REFERENCE else ""),
        "",
        f"| measure | {header} | target (issue 19) |",
        "|---|" + "---|" * len(SIZES) + "---|",
    ]
    for label, key, unit, target in table_rows():
        cells = " | ".join(cell(rows[n], key, unit) for n in SIZES)
        lines.append(f"| {label} | {cells} | {target} |")
    report.write_keeping_notes(OUT, "\n".join(lines) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
