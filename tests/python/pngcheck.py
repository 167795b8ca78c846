# SPDX-License-Identifier: GPL-3.0-or-later
"""A PNG reader for the picture tests (Python standard library only).

    python3 pngcheck.py FILE.png WIDTH HEIGHT

exits 0 when FILE.png is a valid PNG (signature, chunk CRCs, IHDR, image
data that inflates to exactly the scanlines the header announces) of
WIDTH x HEIGHT pixels that is not a blank canvas: at least MIN_COLOURS
distinct colours, MIN_INK of the pixels differ from the most common
(background) colour, and MIN_DATA of the pixels are coloured (the curves;
axes, grid and text are grey) -- so a figure of empty axes fails too.
Otherwise it prints why and exits 1.
"""

import struct
import sys
import zlib
from collections import Counter

try:  # only to go faster: rows with filters Sub and Up at once
    import numpy as np
except ImportError:
    np = None

MIN_COLOURS = 4
MIN_INK = 0.005
MIN_DATA = 0.001


class PNGError(Exception):
    pass


def _unfilter(f, line, prev, bpp):
    """Undo the filter of one scanline (PNG specification, section 9)."""
    if f == 0:
        return line
    if np is not None and f in (1, 2):
        cur = np.frombuffer(bytes(line), dtype=np.uint8).astype(np.int64)
        if f == 2:
            cur += np.frombuffer(bytes(prev), dtype=np.uint8)
        else:
            n = len(cur) // bpp * bpp
            cur[:n] = np.cumsum(cur[:n].reshape(-1, bpp), axis=0).reshape(-1)
        return bytearray((cur & 255).astype(np.uint8).tobytes())
    n = len(line)
    if f == 4:  # Paeth, inlined: the slowest filter to undo byte by byte
        for i in range(n):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        return line
    for i in range(n):
        a = line[i - bpp] if i >= bpp else 0
        if f == 1:
            line[i] = (line[i] + a) & 255
        elif f == 2:
            line[i] = (line[i] + prev[i]) & 255
        else:
            line[i] = (line[i] + ((a + prev[i]) >> 1)) & 255
    return line


def read_png(data):
    """(width, height, Counter of pixel colours) of PNG bytes."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise PNGError("no PNG signature")
    pos, chunks = 8, []
    while pos < len(data):
        if pos + 8 > len(data):
            raise PNGError("truncated chunk header")
        length, ctype = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        crc = data[pos + 8 + length:pos + 12 + length]
        if len(body) != length or len(crc) != 4:
            raise PNGError("truncated %r chunk" % ctype)
        if zlib.crc32(ctype + body) & 0xFFFFFFFF != struct.unpack(">I", crc)[0]:
            raise PNGError("bad CRC in the %r chunk" % ctype)
        chunks.append((ctype, body))
        pos += 12 + length
        if ctype == b"IEND":
            break
    if not chunks or chunks[0][0] != b"IHDR" or chunks[-1][0] != b"IEND":
        raise PNGError("IHDR must come first and IEND last")
    w, h, depth, ctype_, _, _, interlace = struct.unpack(">IIBBBBB", chunks[0][1])
    channels = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}.get(ctype_)
    if channels is None or interlace != 0 or (depth != 8 and not (ctype_ == 3 and depth in
                                                                     (1, 2, 4))):
        raise PNGError("unsupported PNG: colour type %d, depth %d, interlace %d"
                       % (ctype_, depth, interlace))
    palette = b"".join(b for t, b in chunks if t == b"PLTE")
    raw = zlib.decompress(b"".join(b for t, b in chunks if t == b"IDAT"))
    stride = (w * channels * depth + 7) // 8
    if len(raw) != h * (stride + 1):
        raise PNGError("image data holds %d bytes, the header needs %d"
                       % (len(raw), h * (stride + 1)))
    bpp = max(1, channels * depth // 8)
    prev, rows = bytearray(stride), []
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if f > 4:
            raise PNGError("unknown filter %d in row %d" % (f, y))
        line = _unfilter(f, line, prev, bpp)
        prev = line
        rows.append(bytes(line))
    return w, h, _colour_counts(rows, w, ctype_, depth, channels, palette)


def _colour_counts(rows, w, ctype_, depth, channels, palette):
    """Counter of pixel colours (tuples of the channel values; palette: RGB)."""
    if ctype_ == 3:
        per = 8 // depth
        counts = Counter()
        for line in rows:
            counts.update((line[x // per] >> (8 - depth * (x % per + 1))) & ((1 << depth) - 1)
                          for x in range(w))
        return Counter({tuple(palette[3 * k:3 * k + 3]): n for k, n in counts.items()})
    if np is not None:
        px = np.frombuffer(b"".join(rows), dtype=np.uint8).reshape(-1, channels)
        code = np.zeros(len(px), dtype=np.int64)
        for c in range(channels):
            code = code * 256 + px[:, c]
        vals, num = np.unique(code, return_counts=True)
        return Counter({tuple(int(v) >> (8 * (channels - 1 - c)) & 255 for c in range(channels)):
                        int(n) for v, n in zip(vals, num)})
    return Counter(tuple(line[x * channels:(x + 1) * channels]) for line in rows
                   for x in range(w))


def check(path, width, height):
    """None if the file is a valid, non-blank PNG of the size; else why not."""
    try:
        with open(path, "rb") as fp:
            w, h, counts = read_png(fp.read())
    except (OSError, PNGError, zlib.error, struct.error) as e:
        return "%s: %s" % (path, e)
    if (w, h) != (width, height):
        return "%s: %d x %d pixels, expected %d x %d" % (path, w, h, width, height)
    ink = 1.0 - counts.most_common(1)[0][1] / float(w * h)
    if len(counts) < MIN_COLOURS or ink < MIN_INK:
        return "%s: a blank canvas (%d colours, %.2f%% of the pixels off the background)" % (
            path, len(counts), 100 * ink)
    coloured = sum(n for px, n in counts.items() if len(px) >= 3 and
                   (len(px) < 4 or px[3] > 128) and max(px[:3]) - min(px[:3]) > 60)
    if coloured < MIN_DATA * w * h:
        return "%s: no curves (%d coloured pixels; axes and text alone are grey)" % (
            path, coloured)
    return None


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit("usage: pngcheck.py FILE.png WIDTH HEIGHT")
    why = check(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]))
    if why:
        print(why, file=sys.stderr)
        sys.exit(1)
