"""A deterministic corpus of generated notes for the scale benchmark, made once and
cached under `target/bench-corpus-<N>/notes` (a `complete` file beside it says the
generation finished; an interrupted one is made again). `BENCH_CORPUS_DIR` puts the
corpora in another folder instead of `target/`: a tmpfs such as `/dev/shm` on a machine
that pages out page cache left untouched (the 1M corpus is read from disk again there).

Each note is about 5.5 KB: front matter (title, date, last_modified, tags), a heading,
paragraphs of words drawn from a vocabulary of 30,000 made-up words with a Zipf-like
frequency (a few words everywhere, most words rare, as in prose), a few wikilinks and
Markdown links to other notes. Notes are spread over 50 folders with 10 subfolders each.
"""

import os
import random
import shutil
from itertools import accumulate
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CORPUS_DIR = Path(os.environ.get("BENCH_CORPUS_DIR") or REPO / "target")
SYLLABLES = [a + b for a in "bcdfghjklmnprstvz" for b in ["a", "e", "i", "o", "u", "ai", "ou"]]
TAGS = [f"tag{i}" for i in range(200)]
FOLDERS = 50
SUBFOLDERS = 10


def vocabulary(rng, size=30_000):
    words, seen = [], set()
    while len(words) < size:
        w = "".join(rng.choice(SYLLABLES) for _ in range(rng.randint(1, 4)))
        if w not in seen:
            seen.add(w)
            words.append(w)
    return words


def note_path(i):
    return f"area{i % FOLDERS:02d}/part{(i // FOLDERS) % SUBFOLDERS}/note-{i:06d}.md"


def note_name(i):
    return f"note-{i:06d}"


def generate(root: Path, count: int):
    rng = random.Random(19)
    words = vocabulary(rng)
    weights = list(accumulate(1.0 / (rank + 1) for rank in range(len(words))))
    for folder in range(FOLDERS):
        for sub in range(SUBFOLDERS):
            (root / f"area{folder:02d}" / f"part{sub}").mkdir(parents=True, exist_ok=True)
    for i in range(count):
        size = rng.randint(4000, 7000)
        drawn = rng.choices(words, cum_weights=weights, k=int(size / 7.2))
        paragraphs = []
        for start in range(0, len(drawn), 60):
            chunk = drawn[start : start + 60]
            chunk[0] = chunk[0].capitalize()
            paragraphs.append(" ".join(chunk) + ".")
        links = []
        for _ in range(rng.randint(1, 5)):
            target = rng.randrange(count)
            if rng.random() < 0.6:
                links.append(f"See [[{note_name(target)}]].")
            else:
                links.append(f"Also [{rng.choice(words)}](/{note_path(target)}).")
        tags = rng.sample(TAGS, rng.randint(0, 4))
        title = f"Note {i} {rng.choice(words)} {rng.choice(words)}"
        day = 1 + i % 28
        text = (
            f"---\ntitle: {title}\ndate: 2025-{1 + i % 12:02d}-{day:02d}\n"
            f"last_modified: 2025-{1 + i % 12:02d}-{day:02d}T10:{i % 60:02d}:00Z\n"
            f"tags: [{', '.join(tags)}]\n---\n\n# {title}\n\n"
            + "\n\n".join(paragraphs[:2])
            + "\n\n"
            + " ".join(links)
            + "\n\n"
            + "\n\n".join(paragraphs[2:])
            + "\n"
        )
        (root / note_path(i)).write_text(text)


def corpus(count: int) -> Path:
    """The notes folder of the corpus of `count` notes, generated when missing."""
    base = CORPUS_DIR / f"bench-corpus-{count // 1000}k"
    notes = base / "notes"
    done = base / "complete"
    if not done.exists():
        if base.exists():
            shutil.rmtree(base)
        notes.mkdir(parents=True)
        print(f"generating {count} notes in {notes} (once)", flush=True)
        generate(notes, count)
        done.write_text(f"{count}\n")
    return notes


if __name__ == "__main__":
    import sys

    for n in sys.argv[1:] or ["10000", "100000"]:
        print(corpus(int(n)))
