#!/usr/bin/env python3
"""Draws the app's icons (a white note on the accent blue) with the standard library only.

Run once from the repository root: python3 assets/icons/make_icons.py
Writes icon-192.png, icon-512.png, icon-maskable-512.png and favicon.ico beside itself.
"""
import os
import struct
import zlib

BLUE = (11, 99, 197)
WHITE = (255, 255, 255)
LINE = (11, 99, 197)
HERE = os.path.dirname(os.path.abspath(__file__))


def inside_rounded(x, y, x0, y0, x1, y1, r):
    """Whether the pixel centre (x, y) is inside the rounded rectangle."""
    if x < x0 or x >= x1 or y < y0 or y >= y1:
        return False
    cx = min(max(x, x0 + r), x1 - r)
    cy = min(max(y, y0 + r), y1 - r)
    return (x - cx) ** 2 + (y - cy) ** 2 <= r * r


def draw(size, maskable):
    """RGBA rows of the icon. A maskable icon fills the square and keeps the note in
    the middle 60 %, inside the safe circle."""
    s = size
    pixels = []
    note = 0.30 if maskable else 0.22
    for j in range(s):
        row = bytearray()
        for i in range(s):
            x, y = i + 0.5, j + 0.5
            if maskable:
                bg = True
            else:
                bg = inside_rounded(x, y, 0, 0, s, s, s * 0.2)
            colour, alpha = BLUE, 255 if bg else 0
            nx0, nx1 = s * note, s * (1 - note)
            ny0, ny1 = s * (note - 0.04), s * (1 - note + 0.04)
            if bg and inside_rounded(x, y, nx0, ny0, nx1, ny1, s * 0.04):
                colour = WHITE
                # Four lines of text on the note, the last one shorter.
                inner = nx1 - nx0
                for k in range(4):
                    ly = ny0 + (ny1 - ny0) * (0.22 + 0.18 * k)
                    end = nx0 + inner * (0.55 if k == 3 else 0.8)
                    if abs(y - ly) <= s * 0.018 and nx0 + inner * 0.2 <= x <= end:
                        colour = LINE
            row += bytes(colour) + bytes([alpha])
        pixels.append(bytes(row))
    return pixels


def png(size, maskable):
    raw = b"".join(b"\x00" + row for row in draw(size, maskable))

    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", size, size, 8, 6, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(raw, 9))
        + chunk(b"IEND", b"")
    )


def ico(image):
    """An ICO file holding one 32x32 PNG."""
    head = struct.pack("<HHH", 0, 1, 1)
    entry = struct.pack("<BBBBHHII", 32, 32, 0, 0, 1, 32, len(image), 6 + 16)
    return head + entry + image


def main():
    files = {
        "icon-192.png": png(192, False),
        "icon-512.png": png(512, False),
        "icon-maskable-512.png": png(512, True),
        "favicon.ico": ico(png(32, False)),
    }
    for name, data in files.items():
        with open(os.path.join(HERE, name), "wb") as out:
            out.write(data)


if __name__ == "__main__":
    main()
