"""Writing a benchmark's report: the generated part above, the sections written by hand
below it (from the first `## ` heading on) kept as they are."""

from pathlib import Path


def write_keeping_notes(out: Path, generated: str) -> None:
    """Writes `generated` to `out`, followed by the hand-written `## ` sections the file
    already has."""
    kept = out.read_text().partition("\n## ") if out.exists() else ("", "", "")
    text = generated
    if kept[1]:
        text = text.rstrip("\n") + "\n\n## " + kept[2]
    out.write_text(text)
