#!/usr/bin/env python3
"""`notes sync` against plain git on the same kind of repository, in the same run: a
10k-note notebook and bare remotes on loopback paths, three interleaved rounds, medians.

Rows (each `notes sync` a whole command, as a user runs it):
- no-op: `notes sync` with nothing new on either side, against `git fetch` of a remote
  of the same size with nothing new (target ≤ 2×);
- 10 in: another machine pushed 10 changed notes; `notes sync` brings them in, against
  `git fetch` + `git merge` (which checks the files out) in a plain clone (target ≤ 3×);
- 10 out: 10 notes changed here (`notes put`, not timed); `notes sync` sends them,
  against `git add -A` + `git commit` + `git push` in the plain clone (target ≤ 3×).
The notebook syncs with remote R; the plain clone works with remote H, a copy of R, and
another clone of each pushes the same 10 changes to both.

Also timed once: the first sync of the 10k notes into an empty notebook, against
`git clone` of the same remote.

Writes bench/SYNC.md. Usage: python3 bench/sync.py [path/to/notes]
"""

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from report import write_keeping_notes  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
BIN = sys.argv[1] if len(sys.argv) > 1 else str(REPO / "target/release/notes")
NOTES = int(os.environ.get("SYNC_BENCH_NOTES", "10000"))
ROUNDS = 3
NOOP_REPEATS = 5
CHANGED = 10

ENV = {
    **os.environ,
    "GIT_AUTHOR_NAME": "bench",
    "GIT_AUTHOR_EMAIL": "bench@example.invalid",
    "GIT_COMMITTER_NAME": "bench",
    "GIT_COMMITTER_EMAIL": "bench@example.invalid",
    "GIT_TERMINAL_PROMPT": "0",
    "NO_COLOR": "1",
}


def run(args, cwd=None, env=None, stdin=None):
    out = subprocess.run(args, cwd=cwd, env=env or ENV, input=stdin,
                         capture_output=True, timeout=1800)
    if out.returncode != 0:
        raise SystemExit(f"{args} failed: {out.stderr.decode(errors='replace')}")
    return out.stdout.decode(errors="replace")


def timed(args, cwd=None, env=None):
    start = time.perf_counter()
    run(args, cwd=cwd, env=env)
    return time.perf_counter() - start


def git(cwd, *args):
    return run(["git", "-C", str(cwd), *args])


def note_text(i, extra=""):
    body = "".join(f"Line {k} of note {i}: some words to make it a note.\n" for k in range(8))
    return f"---\ntitle: Note {i}\ndate: 03-02-2026\ntags: [bench]\n---\n\n# Note {i}\n\n{body}{extra}"


def rel(i):
    return f"f{i % 100:02d}/note-{i:05d}.md"


class Notebook:
    def __init__(self, root):
        self.notes = Path(root) / "notes"
        self.notes.mkdir(parents=True)
        self.env = {**ENV, "NOTES_DIR": str(self.notes),
                    "NOTES_PUBLIC_DIR": str(Path(root) / "public")}

    def cmd(self, *args):
        return [BIN, *args]

    def sync(self, *args):
        return timed(self.cmd("sync", *args), cwd=self.notes.parent, env=self.env)

    def put(self, note, text):
        run(self.cmd("put", "--quiet", note), cwd=self.notes.parent, env=self.env,
            stdin=text.encode())


def change(clone, indexes, tag):
    """Edits the notes `indexes` in a working clone, commits and pushes them."""
    git(clone, "pull", "--quiet", "--ff-only", "origin", "main")
    for i in indexes:
        (clone / rel(i)).write_text(note_text(i, f"\n{tag}\n"))
    git(clone, "commit", "--quiet", "-am", tag)
    git(clone, "push", "--quiet", "origin", "HEAD:main")


def main():
    if not Path(BIN).is_file():
        raise SystemExit(f"{BIN}: no such binary (just bench-sync builds it)")
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        # The remote R: 10k notes in 100 folders, one commit.
        seed = tmp / "seed"
        git(tmp, "init", "--quiet", "--initial-branch=main", str(seed))
        for i in range(NOTES):
            path = seed / rel(i)
            path.parent.mkdir(exist_ok=True)
            path.write_text(note_text(i))
        git(seed, "add", "-A")
        git(seed, "commit", "--quiet", "-m", "seed")
        remote = tmp / "R.git"
        hand = tmp / "H.git"
        run(["git", "clone", "--quiet", "--bare", str(seed), str(remote)])
        run(["git", "clone", "--quiet", "--bare", str(seed), str(hand)])

        # First sync of the 10k notes, and git clone of the same remote.
        book = Notebook(tmp / "book")
        first_sync = book.sync("--remote", str(remote))
        first_clone = timed(["git", "clone", "--quiet", str(hand), str(tmp / "plain")])
        plain = tmp / "plain"
        writer_r, writer_h = tmp / "writer-r", tmp / "writer-h"
        run(["git", "clone", "--quiet", str(remote), str(writer_r)])
        run(["git", "clone", "--quiet", str(hand), str(writer_h)])

        runs = {key: [] for key in
                ["noop notes", "noop git", "in notes", "in git", "out notes", "out git"]}
        for r in range(ROUNDS):
            # No-op: nothing new on either side.
            for _ in range(NOOP_REPEATS):
                runs["noop notes"].append(book.sync())
                runs["noop git"].append(timed(["git", "-C", str(plain), "fetch", "--quiet",
                                               "origin"]))
            # 10 in: the same 10 notes changed by another machine on both remotes.
            changed = [(r * 997 + k * 101) % NOTES for k in range(CHANGED)]
            change(writer_r, changed, f"round {r} from elsewhere")
            change(writer_h, changed, f"round {r} from elsewhere")
            runs["in notes"].append(book.sync())
            start = time.perf_counter()
            git(plain, "fetch", "--quiet", "origin")
            git(plain, "merge", "--quiet", "--ff-only", "origin/main")
            runs["in git"].append(time.perf_counter() - start)
            for i in changed:
                assert f"round {r} from elsewhere" in (book.notes / rel(i)).read_text(), rel(i)
            # 10 out: 10 other notes changed here.
            mine = [(r * 991 + k * 103 + 50) % NOTES for k in range(CHANGED)]
            for i in mine:
                book.put(rel(i), note_text(i, f"\nround {r} from here\n"))
                (plain / rel(i)).write_text(note_text(i, f"\nround {r} from here\n"))
            runs["out notes"].append(book.sync())
            start = time.perf_counter()
            git(plain, "add", "-A")
            git(plain, "commit", "--quiet", "-m", f"round {r}")
            git(plain, "push", "--quiet", "origin", "HEAD:main")
            runs["out git"].append(time.perf_counter() - start)
            pushed = run(["git", "--git-dir", str(remote), "show", f"main:{rel(mine[0])}"])
            assert f"round {r} from here" in pushed, pushed

    med = {k: statistics.median(v) for k, v in runs.items()}
    rows = [
        ("no-op", "`git fetch`", "noop", 2.0),
        (f"{CHANGED} changed notes in", "`git fetch` + `git merge`", "in", 3.0),
        (f"{CHANGED} changed notes out", "`git add -A` + `git commit` + `git push`", "out", 3.0),
    ]
    lines = [
        "# Sync against plain git",
        "",
        f"`just bench-sync` on this machine ({os.cpu_count()} cores), binary `{Path(BIN).name}` "
        f"from `{Path(BIN).parent.name}`: a notebook of {NOTES} notes in 100 folders and bare "
        f"remotes on loopback paths; {ROUNDS} rounds interleaved (the no-op {NOOP_REPEATS} "
        "times a round), medians of whole commands as a user runs them.",
        "",
        "| row | `notes sync` (ms) | git by hand | git (ms) | ratio | target |",
        "|---|---|---|---|---|---|",
    ]
    for name, what, key, target in rows:
        notes_ms, git_ms = med[f"{key} notes"] * 1000, med[f"{key} git"] * 1000
        ratio = notes_ms / git_ms
        verdict = "met" if ratio <= target else "missed"
        lines.append(f"| {name} | {notes_ms:.0f} | {what} | {git_ms:.0f} | {ratio:.2f}× "
                     f"| ≤ {target:.0f}× ({verdict}) |")
    lines += [
        "",
        f"First sync of the {NOTES} notes into an empty notebook: {first_sync:.1f} s; "
        f"`git clone` of the same remote: {first_clone:.1f} s.",
    ]
    write_keeping_notes(REPO / "bench/SYNC.md", "\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
