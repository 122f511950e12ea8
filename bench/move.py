#!/usr/bin/env python3
"""Move benchmark: `notes serve` over 10k generated notes, 50 of which link to one
note (wikilinks by name, with labels and headings, and relative Markdown links from
sub-folders); every other note links to three others. Times `POST /api/v1/move` of
that note back and forth (each move rewrites the 50 notes) and writes bench/MOVE.md.

Usage: python3 bench/move.py [path/to/notes] [NOTES] [LINKING] [MOVES]
"""

import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

BIN = sys.argv[1] if len(sys.argv) > 1 else "target/release/notes"
NOTES = int(sys.argv[2]) if len(sys.argv) > 2 else 10_000
LINKING = int(sys.argv[3]) if len(sys.argv) > 3 else 50
MOVES = int(sys.argv[4]) if len(sys.argv) > 4 else 10
TARGET_MS = 1000

WORDS = ("notes link move rename folder index search page public rust async "
         "bread recipe garden winter travel budget meeting draft idea").split()


def text(rng, words):
    return " ".join(rng.choice(WORDS) for _ in range(words))


def generate(root, rng):
    """Writes the notes; returns the path of the note the others link to."""
    paths = [f"f{i % 100:02d}/note-{i:05d}.md" for i in range(NOTES)]
    target = "hub/target-note.md"
    linking = set(rng.sample(range(NOTES), LINKING))
    for i, path in enumerate(paths):
        links = " ".join(f"[[note-{rng.randrange(NOTES):05d}]]" for _ in range(3))
        body = f"# Note {i}\n\n{text(rng, 120)}\n\nSee {links}.\n"
        if i in linking:
            style = i % 3
            if style == 0:
                body += "\nAbout [[target-note]] and [[target-note#Setup|the setup]].\n"
            elif style == 1:
                body += "\nRead [the hub](../hub/target-note.md#setup) first.\n"
            else:
                body += "\n![[target-note]]\n"
        full = os.path.join(root, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w") as f:
            f.write(f"---\ntitle: Note {i}\ndate: 01-01-2026\ntags: [bench]\n---\n\n{body}")
    full = os.path.join(root, target)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "w") as f:
        f.write("---\ntitle: Target\n---\n\n# Setup\n\nThe note everyone links to.\n")
    return target


def request(base, method, path, body=None):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(base + path, data=data, method=method)
    if data is not None:
        req.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            return r.status, json.loads(r.read() or b"null")
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"null")


def main():
    rng = random.Random(15)
    with tempfile.TemporaryDirectory() as tmp:
        notes = os.path.join(tmp, "notes")
        target = generate(notes, rng)
        server = subprocess.Popen(
            [BIN, "--notes-dir", notes, "--public-dir", os.path.join(tmp, "public"),
             "serve", "--listen", "127.0.0.1:0"],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        try:
            line = server.stdout.readline()
            base = next(w for w in line.split() if w.startswith("http://")).rstrip("/")
            # Let the first indexing of the folder finish, so it does not share the CPU.
            deadline = time.time() + 120
            while time.time() < deadline:
                status, _ = request(base, "GET", "/api/v1/search?q=target")
                if status == 200:
                    break
                time.sleep(0.5)
            time.sleep(3)
            request(base, "GET", "/api/v1/notes")
            times, here = [], target
            for n in range(MOVES):
                there = f"moved/round-{n}/renamed-{n}.md" if n % 2 == 0 else target
                start = time.perf_counter()
                status, body = request(base, "POST", "/api/v1/move", {"from": here, "to": there})
                elapsed = (time.perf_counter() - start) * 1000
                if status != 200:
                    sys.exit(f"move {here} -> {there}: {status} {body}")
                if len(body["rewritten"]) < LINKING:
                    sys.exit(f"only {len(body['rewritten'])} notes rewritten: {body}")
                times.append(elapsed)
                here = there
        finally:
            server.terminate()
            server.wait(timeout=30)
    median, worst = statistics.median(times), max(times)
    verdict = "met" if median <= TARGET_MS else "missed"
    report = f"""# Move benchmark

`just bench-move`: `notes serve` over {NOTES:,} generated notes (each linking to three
others), {LINKING} of which link to one note (wikilinks by name, with a label and a
heading, embeds, relative Markdown links from another folder). `POST /api/v1/move` of
that note to another folder and name, and back, {MOVES} times; each move rewrites the
{LINKING} notes.

| moves | median | fastest | slowest | target |
|---:|---:|---:|---:|---|
| {MOVES} | {median:.0f} ms | {min(times):.0f} ms | {worst:.0f} ms | ≤ {TARGET_MS} ms ({verdict}) |

Machine: {os.cpu_count()} CPUs, shared with other work while measured.
"""
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "MOVE.md")
    with open(out, "w") as f:
        f.write(report)
    print(report)


if __name__ == "__main__":
    main()
