#!/usr/bin/env python3
"""Draws Radar's app icons (web/public/icon-*.png) for the web app manifest: rings of a
radar screen, white on indigo, with a sweep dot. Pure Python (zlib), so it runs anywhere;
run it again only to change the icon."""
import math
import struct
import zlib
from pathlib import Path

INDIGO = (79, 70, 229)
WHITE = (255, 255, 255)


def pixel(x: float, y: float, size: int, maskable: bool) -> tuple:
    c = size / 2
    # A maskable icon keeps its drawing inside the middle 80%: platforms crop the rest.
    scale = 0.8 if maskable else 1.0
    dx, dy = (x - c) / (c * scale), (y - c) / (c * scale)
    r = math.hypot(dx, dy)
    stroke = 0.055
    ring = any(abs(r - k) < stroke for k in (0.3, 0.58)) and r < 0.86
    dot = math.hypot(dx - 0.35, dy + 0.35) < 0.12
    centre = r < 0.1
    return WHITE if ring or dot or centre else INDIGO


def png(size: int, maskable: bool) -> bytes:
    rows = bytearray()
    for y in range(size):
        rows.append(0)
        for x in range(size):
            # Four samples per pixel smooth the edges.
            samples = [pixel(x + ox, y + oy, size, maskable) for ox in (0.25, 0.75) for oy in (0.25, 0.75)]
            rows.extend(sum(s[i] for s in samples) // 4 for i in range(3))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", size, size, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(bytes(rows), 9)) + chunk(b"IEND", b"")


out = Path(__file__).resolve().parent.parent / "public"
for size in (192, 512):
    (out / f"icon-{size}.png").write_bytes(png(size, False))
(out / "icon-maskable-512.png").write_bytes(png(512, True))
