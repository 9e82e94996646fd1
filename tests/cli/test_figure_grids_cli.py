#!/usr/bin/env python3
"""Heatmap figures are computed at the heatmap's own pixels: every pixel the exact mean of the
matrix over the part it covers, checked against numpy from the formulas (not against posenc).

Encode rows: pixel row y of R covers positions [y n / R, (y + 1) n / R), the positions cut at its
ends weighted by the part inside. Distance cells: the pairs of the row and column ranges of
pe_pairwise_grid() (the first n % R ranges one position longer). The gray colormap with limits
well inside black and white lets the picture be read back as LUT indices, and the black frame
round the heatmap gives its pixel rectangle."""
import os
import struct
import subprocess
import sys
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tap import done, ok, run, skip, workdir  # noqa: E402

try:
    import numpy as np
except ImportError:  # pragma: no cover - Debian's python3-numpy is a test dependency
    np = None

EXE = sys.argv[1]
D = workdir()


def read_rgb(path):
    """(height, width, 3) uint8 of an 8-bit RGB PNG without row filters (posenc's figures)."""
    with open(path, "rb") as f:
        data = f.read()
    pos, idat, ihdr = 8, b"", None
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    w, h, depth, ctype = ihdr[:4]
    assert (depth, ctype) == (8, 2), ihdr
    raw = np.frombuffer(zlib.decompress(idat), np.uint8).reshape(h, 1 + 3 * w)
    assert not raw[:, 0].any(), "row filters"
    return raw[:, 1:].reshape(h, w, 3)


def heatmap_rect(img):
    """(top, bottom, left, right) of the pixels inside the black frame, found along the middle
    row and column of the heatmap: the widest gap between black pixels (the frame's sides; text
    such as a title that reaches the middle column is black too, but lies outside)."""
    black = (img == 0).all(axis=2)
    h, w = black.shape

    def widest_gap(line):
        at = np.nonzero(line)[0]
        k = int(np.argmax(np.diff(at)))
        return at[k] + 1, at[k + 1]

    left, right = widest_gap(black[h // 2])
    top, bottom = widest_gap(black[:, (left + right) // 2])
    return top, bottom, left, right


def lut_index(v, vmin, vmax):
    """matplotlib's lookup: entry trunc((v - vmin) / (vmax - vmin) * 256), clamped."""
    t = np.floor((v - vmin) / (vmax - vmin) * 256)
    return np.clip(t, 0, 255)


def sinusoidal(n, d):
    p = np.arange(n, dtype=np.float64)[:, None]
    w = 10000.0 ** (-np.arange(0, d, 2, dtype=np.float64) / d)
    pe = np.empty((n, d))
    pe[:, 0::2] = np.sin(p * w)
    pe[:, 1::2] = np.cos(p * w)
    return pe


def area_weights(n, rows):
    """W[y, p]: the part of position p inside pixel row y, over the row's length n / rows."""
    y = np.arange(rows, dtype=np.int64)[:, None]
    p = np.arange(n, dtype=np.int64)[None, :]
    lo, hi = y * n, (y + 1) * n
    overlap = np.clip(np.minimum(hi, (p + 1) * rows) - np.maximum(lo, p * rows), 0, None)
    return overlap / float(n)


def nearest(count, out):
    """The cell each of out pixels shows of count cells: floor((o + 0.5) count / out)."""
    return ((2 * np.arange(out) + 1) * count) // (2 * out)


def compare(name, got, want):
    diff = np.abs(got.astype(int) - want.astype(int))
    ok(diff.max() <= 1, f"{name}: every pixel is its exact mean (LUT index within 1)",
       f"max diff {diff.max()}, {int((diff > 1).sum())} pixels off")


def encode_case(n, d):
    path = os.path.join(D, f"enc{n}.png")
    r = run(EXE, "encode", "-s", "sinusoidal", "-n", str(n), "-d", str(d), "--cmap", "gray",
            "--vmin", "-2", "--vmax", "2", "-q", "-o", path)
    if not ok(r.rc == 0, f"encode n={n}: runs", r.err):
        return
    img = read_rgb(path)
    top, bottom, left, right = heatmap_rect(img)
    rows, width = bottom - top, right - left
    ok(rows < n, f"encode n={n}: fewer pixel rows than positions", f"{rows}")
    means = area_weights(n, rows) @ sinusoidal(n, d)
    want = lut_index(means, -2.0, 2.0)[:, nearest(d, width)]
    compare(f"encode n={n} (prime)" if n == 4093 else f"encode n={n}",
            img[top:bottom, left:right, 0], want)


def sampled_dims(d, cols, per=16):
    """The dimensions a sampled pixel column averages (encode_figure.c): for each of the cols
    shares of d (the first d % cols one longer), the centres of `per` equal parts, each moved by one
    where needed so that they alternate even and odd."""
    out = []
    for x in range(cols):
        q, e = divmod(d, cols)
        lo, hi = x * q + min(x, e), (x + 1) * q + min(x + 1, e)
        L = hi - lo
        picks = []
        for s in range(min(per, L)):
            j = lo + (2 * s + 1) * L // (2 * min(per, L))
            if L >= 2 and j % 2 != s % 2:
                j = j + 1 if j + 1 < hi else j - 1
            picks.append(j)
        out.append(picks)
    return out


def encode_wide_case(n, d, sampled):
    """Pixel columns over many dimensions: their exact area means, or (d beyond the exact budget)
    the mean of 16 sampled dimensions, as the figure's note says."""
    path, log = os.path.join(D, f"encw{d}.png"), os.path.join(D, f"encw{d}.boxes")
    p = subprocess.run([EXE, "encode", "-s", "sinusoidal", "-n", str(n), "-d", str(d), "--cmap",
                        "gray", "--vmin", "-2", "--vmax", "2", "-q", "-o", path],
                       capture_output=True, env=dict(os.environ, POSENC_TEXT_BOXES=log), timeout=120)
    if not ok(p.returncode == 0, f"encode d={d}: runs", p.stderr.decode()):
        return
    # the text box log (figure engine): one "text ... \tTEXT" line per string drawn
    texts = [ln.rstrip("\n").partition("\t")[2] for ln in open(log, encoding="utf-8")
             if ln.startswith("text")]
    said = any(t.startswith("Sampled: each pixel column is the mean of 16 of its dimensions")
               for t in texts)
    ok(said == sampled, f"encode d={d}: the note says sampled: {sampled}", str(texts[-2:]))
    img = read_rgb(path)
    top, bottom, left, right = heatmap_rect(img)
    rows, width = bottom - top, right - left
    W = area_weights(n, rows)
    p = np.arange(n, dtype=np.float64)[:, None]
    if sampled:
        picks = sampled_dims(d, width)
        flat = np.array([j for ps in picks for j in ps])
        k = (flat // 2).astype(np.float64)
        f = 10000.0 ** (-2 * k / d)
        vals = W @ np.where(flat % 2 == 0, np.sin(p * f), np.cos(p * f))
        means, at = np.empty((rows, width)), 0
        for x, ps in enumerate(picks):
            means[:, x] = vals[:, at:at + len(ps)].mean(axis=1)
            at += len(ps)
    else:
        means = (W @ sinusoidal(n, d)) @ area_weights(d, width).T
    compare(f"encode d={d} ({'16 sampled dimensions' if sampled else 'exact'} per pixel column)",
            img[top:bottom, left:right, 0], lut_index(means, -2.0, 2.0))


def range_starts(n, parts):
    q, r = divmod(n, parts)
    a = np.arange(parts + 1)
    return a * q + np.minimum(a, r)


def distance_case(n, d):
    path = os.path.join(D, f"dist{n}.png")
    r = run(EXE, "distance", "-s", "sinusoidal", "-n", str(n), "-d", str(d), "--cmap", "gray",
            "--vmin", "-1", "--vmax", "9", "-q", "-o", path)
    if not ok(r.rc == 0, f"distance n={n}: runs", r.err):
        return
    img = read_rgb(path)
    top, bottom, left, right = heatmap_rect(img)
    rows, cols = bottom - top, right - left
    ok(rows < n and cols < n, f"distance n={n}: fewer pixels than positions", f"{rows}x{cols}")
    pe = sinusoidal(n, d)
    sq = (pe * pe).sum(axis=1)
    dist = np.sqrt(np.maximum(sq[:, None] + sq[None, :] - 2 * pe @ pe.T, 0))
    rb, cb = range_starts(n, rows), range_starts(n, cols)
    # cell sums from a summed-area table of the full matrix
    s = np.zeros((n + 1, n + 1))
    s[1:, 1:] = dist.cumsum(0).cumsum(1)
    sums = s[rb[1:]][:, cb[1:]] - s[rb[:-1]][:, cb[1:]] - s[rb[1:]][:, cb[:-1]] + \
        s[rb[:-1]][:, cb[:-1]]
    means = sums / np.outer(np.diff(rb), np.diff(cb))
    compare(f"distance n={n}", img[top:bottom, left:right, 0], lut_index(means, -1.0, 9.0))


if np is None:
    skip("heatmap grids against numpy", "numpy is not installed")
else:
    encode_case(4093, 16)
    encode_case(4096, 16)
    encode_case(1000, 6)
    encode_wide_case(1000, 4096, False)
    encode_wide_case(1000, 32768, True)
    distance_case(1000, 16)
    distance_case(997, 16)
done()
