#!/usr/bin/env python3
"""--raw: the bare matrix as a palette PNG, decoded here with zlib alone and
compared pixel for pixel with the colormap of the same command's CSV."""
import csv
import io
import math
import os
import struct
import subprocess
import sys
import zlib

sys.path.insert(0, os.path.dirname(__file__))
from tap import done, error_case, ok, run, workdir  # noqa: E402

EXE = os.path.abspath(sys.argv[1])
D = workdir()

# First and last entries of the maps, from matplotlib's tables (8-bit,
# rounded): viridis #440154 .. #fde725, RdBu_r #053061 .. #67001f.
VIRIDIS_ENDS = ((68, 1, 84), (253, 231, 37))
RDBU_R_ENDS = ((5, 48, 97), (103, 0, 31))


def paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def decode_png(path):
    """(width, height, palette, rows of indices) of an 8-bit palette PNG."""
    with open(path, "rb") as f:
        data = f.read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "signature"
    pos, idat, palette, ihdr = 8, b"", None, None
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind = data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + length]
        (crc,) = struct.unpack(">I", data[pos + 8 + length:pos + 12 + length])
        assert zlib.crc32(kind + body) == crc, f"CRC of {kind}"
        if kind == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"PLTE":
            palette = [tuple(body[i:i + 3]) for i in range(0, len(body), 3)]
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
        pos += 12 + length
    w, h, depth, ctype, _, _, interlace = ihdr
    assert (depth, ctype, interlace) == (8, 3, 0), f"IHDR {ihdr}"
    raw = zlib.decompress(idat)
    assert len(raw) == h * (w + 1), "data length"
    rows, prev = [], bytearray(w)
    for r in range(h):
        ft, line = raw[r * (w + 1)], bytearray(raw[r * (w + 1) + 1:(r + 1) * (w + 1)])
        for x in range(w if ft else 0):
            a = line[x - 1] if x else 0
            b, c = prev[x], prev[x - 1] if x else 0
            pred = (0, a, b, (a + b) // 2, paeth(a, b, c))[ft]
            line[x] = (line[x] + pred) & 0xFF
        rows.append(list(line))
        prev = line
    return w, h, palette, rows


def read_csv(path):
    with open(path) as f:
        rows = list(csv.reader(f))
    return [[float(x) for x in r[1:]] for r in rows[1:]]


def index(v, vmin, vmax, nan_index):
    """matplotlib's lookup: entry trunc((v - vmin) / (vmax - vmin) * 256), clamped."""
    if math.isnan(v):
        return nan_index
    t = (v - vmin) / (vmax - vmin) * 256
    return 0 if t <= 0 else 255 if t >= 255 else int(t)


def check(name, args, limits, nan_index=0, ends=VIRIDIS_ENDS):
    """Run the command to CSV and to --raw; limits(values) -> (vmin, vmax)."""
    csv_path, png_path = os.path.join(D, name + ".csv"), os.path.join(D, name + ".png")
    # the table without the colour options (figure options are usage errors with a CSV)
    table_args, skip_next = [], False
    for a in args:
        if skip_next:
            skip_next = False
        elif a in ("--vmin", "--vmax", "--cmap"):
            skip_next = True
        else:
            table_args.append(a)
    r1 = run(EXE, *table_args, "-q", "-o", csv_path)
    r2 = run(EXE, *args, "-q", "--raw", "-o", png_path)
    if not ok(r1.rc == 0 and r2.rc == 0, f"{name}: runs", r1.err + r2.err):
        return
    values = read_csv(csv_path)
    w, h, palette, rows = decode_png(png_path)
    ok((h, w) == (len(values), len(values[0])), f"{name}: one pixel per cell", f"{w}x{h}")
    ok(len(palette) == 256 and (palette[0], palette[255]) == ends, f"{name}: palette",
       f"{palette[0]} {palette[255]}")
    vmin, vmax = limits([v for row in values for v in row if not math.isnan(v)])
    bad = [(i, j, rows[i][j], index(v, vmin, vmax, nan_index))
           for i, row in enumerate(values) for j, v in enumerate(row)
           if rows[i][j] != index(v, vmin, vmax, nan_index)]
    ok(not bad, f"{name}: pixels are the colormap of the data", bad[:5])
    return rows


def data_range(xs):
    return min(xs), max(xs)


def symmetric(xs):
    h = max(abs(x) for x in xs)
    return -h, h


# distance: viridis over the data's exact range (offset table; lone column;
# rows compared directly; cosine).
check("sin", ["distance", "-n", "37", "-d", "16"], data_range)
check("sin-odd", ["distance", "-n", "29", "-d", "15", "--start", "1000"], data_range)
check("learned-l1", ["distance", "-s", "learned:seed=3", "-n", "40", "-d", "9",
                     "--metric", "l1"], data_range)
check("rope-cos", ["distance", "-s", "rope", "-n", "33", "-d", "8", "--metric", "cosine"],
      data_range)
# given limits clamp, and a given colormap is used as given
check("limits", ["distance", "-n", "30", "-d", "8", "--vmin", "1", "--vmax", "2.5"],
      lambda xs: (1.0, 2.5))
check("cmap", ["distance", "-n", "20", "-d", "8", "--cmap", "gray"], data_range,
      ends=((0, 0, 0), (255, 255, 255)))
# corr: RdBu_r over -1..1; RoPE's position 0 is constant, its NaNs the middle entry
rows = check("corr", ["corr", "-s", "rope", "-n", "25", "-d", "8"], lambda xs: (-1.0, 1.0),
             nan_index=128, ends=RDBU_R_ENDS)
ok(rows is not None and rows[0] == [128] * 25 and rows[3][0] == 128,
   "corr: a constant vector's row and column are entry 128")
check("corr-vmax", ["corr", "-n", "25", "-d", "8", "--vmax", "0.5"], lambda xs: (-0.5, 0.5),
      nan_index=128, ends=RDBU_R_ENDS)
# encode: signed tables on RdBu_r symmetric about 0, binary's 0/1 on viridis
check("encode", ["encode", "-n", "30", "-d", "12", "--start", "5"], symmetric, 128,
      RDBU_R_ENDS)
check("encode-binary", ["encode", "-s", "binary", "-n", "30", "-d", "6"], data_range)

# A table on the BLAS (n >= 1024, d >= 16): its matrix goes once through an unnamed scratch file (the
# upper triangle's products, each cell and its mirror) and is read back for the range and the rows:
# the pixels are the colormap of the cells the CSV has (the same products). Where no scratch file can
# be made (TMPDIR a missing folder), the rows are filled from products instead: the same picture.
big = check("learned-gram", ["distance", "-s", "learned:seed=5", "-n", "1030", "-d", "16"], data_range)
if big is not None:
    alt = os.path.join(D, "learned-gram-noscratch.png")
    p = subprocess.run([EXE, "distance", "-s", "learned:seed=5", "-n", "1030", "-d", "16", "-q", "--raw",
                        "-o", alt], capture_output=True, timeout=120,
                       env=dict(os.environ, TMPDIR=os.path.join(D, "missing")))
    ok(p.returncode == 0 and decode_png(alt)[3] == big,
       "learned-gram without a scratch folder: the same pixels", p.stderr.decode()[-300:])

# refusals: one error line, usage status, no file left
for name, args, needle in [
        ("--raw to CSV", ["distance", "--raw", "-o", "x.csv"], "'--raw'"),
        ("--raw with --width", ["distance", "--raw", "--width", "100", "-o", "x.png"], "--width"),
        ("unknown --cmap", ["corr", "--raw", "--cmap", "nope", "-o", "x.png"], "'nope'"),
        ("limits backwards", ["distance", "--raw", "--vmin", "3", "--vmax", "1", "-o", "x.png"],
         "vmin must be below vmax"),
        ("--vmin past the data", ["distance", "--raw", "-n", "8", "--vmin", "1e6", "-o",
                                  "x.png"], "beyond the data"),
]:
    empty = workdir()
    error_case(EXE, name, args, 2, needle, cwd=empty)

# 4097 x 4097 streams in chunks of rows: the PNG holds every row
big = os.path.join(D, "big.png")
r = run(EXE, "distance", "-n", "4097", "-d", "32", "--raw", "-q", "-o", big)
if ok(r.rc == 0, "4097 x 4097 runs", r.err):
    w, h, _, rows = decode_png(big)
    ok((w, h) == (4097, 4097) and rows[4096][4096] == 0 and rows[0][0] == 0
       and rows[4096][0] == rows[0][4096], "4097 x 4097: diagonal 0, symmetric corners")
done()
