#!/usr/bin/env python3
"""Transformer-XL's relative sinusoid (-s xl) and Shaw et al.'s clipped relative positions
(-s shaw), against references written here from the sources' code:

- xl: kimiyoung/transformer-xl pytorch/mem_transformer.py PositionalEmbedding: inv_freq =
  1 / base ** (arange(0, d, 2) / d), sinusoid_inp = outer(pos_seq, inv_freq), pos_emb =
  cat([sin, cos], -1); pos_seq are distances (klen-1 .. 0), clamped at clamp_len.
- shaw: tensor2tensor layers/common_attention.py _generate_relative_positions_matrix:
  distance_mat = range_k[None, :] - range_q[:, None], clipped to +-max_relative_position, plus
  max_relative_position.
"""
import csv
import io
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
from npyread import load_npy  # noqa: E402
from tap import done, error_case, ok, run, skip, workdir  # noqa: E402

EXE = os.path.abspath(sys.argv[1])
TMP = workdir()
try:
    import numpy as np
except ImportError:
    np = None


def table(text):
    rows = list(csv.reader(io.StringIO(text)))
    return rows[0], np.array([[float(x) for x in r[1:]] for r in rows[1:]])


def xl_ref(positions, d, base=10000.0, clamp=0):
    pos = np.array(positions, dtype=np.float64)
    if clamp > 0:
        pos = np.minimum(pos, clamp)
    inv_freq = 1.0 / (base ** (np.arange(0.0, d, 2.0) / d))
    inp = np.outer(pos, inv_freq)
    return np.concatenate([np.sin(inp), np.cos(inp)], axis=-1)


def shaw_ref(n, k):
    r = np.arange(n)
    return np.clip(r[None, :] - r[:, None], -k, k) + k


if np is None:
    skip("xl and shaw against numpy", "numpy is not installed")
    done()

# ---- xl ---------------------------------------------------------------------------------
# doc/conventions.md [12]: R_1 of d = 8 is the sines then the cosines of 1, 0.1, 0.01, 0.001,
# correctly rounded (posenc forms the exact product k * inv_freq).
r = run(EXE, "encode", "-s", "xl", "-n", "2", "-d", "8", "-o", "-")
ok(r.text.splitlines()[-1] == "1,0.8414709848078965,0.09983341664682815,0.009999833334166664,"
   "0.0009999998333333417,0.5403023058681398,0.9950041652780258,0.9999500004166653,"
   "0.9999995000000417", "[12] xl R_1, d=8, to the last digit", r.text)
# doc/conventions.md [13]: shaw k = 2, n = 6.
r = run(EXE, "bias", "-s", "shaw:k=2", "-n", "6", "-o", "-")
ok([l.split(",", 1)[1] for l in r.text.splitlines()[1:]] ==
   ["2,3,4,4,4,4", "1,2,3,4,4,4", "0,1,2,3,4,4", "0,0,1,2,3,4", "0,0,0,1,2,3", "0,0,0,0,1,2"],
   "[13] shaw k=2, n=6 by hand", r.text)
for d, base, start, n in [(8, 10000.0, 0, 40), (16, 10.0, 5, 30), (2, 10000.0, 0, 5)]:
    r = run(EXE, "encode", "-s", f"xl:base={base:g}", "-d", str(d), "-n", str(n), "--start",
            str(start), "-o", "-")
    head, got = table(r.text)
    want = xl_ref(range(start, start + n), d, base)
    ok(r.rc == 0 and head[0] == "distance" and got.shape == want.shape
       and np.abs(got - want).max() < 1e-13,
       f"xl d={d} base={base:g}: R_k of the reference, k = {start}..{start + n - 1}",
       np.abs(got - want).max() if got.shape == want.shape else got.shape)
r = run(EXE, "encode", "-s", "xl:clamp=3", "-d", "4", "-n", "6", "-o", "-")
_, got = table(r.text)
ok(r.rc == 0 and np.abs(got - xl_ref(range(6), 4, clamp=3)).max() < 1e-13,
   "xl clamp=3: distances past 3 use R_3 (clamp_len)")

# Its geometry: l2 distance and Pearson correlation of the R_k, and the decay curve (mean of
# R_m . R_(m+k) over the pairs, k apart).
n, d = 64, 16
R = xl_ref(range(n), d)
r = run(EXE, "distance", "-s", "xl", "-n", str(n), "-d", str(d), "-o", "-")
_, got = table(r.text)
want = np.sqrt(((R[:, None, :] - R[None, :, :]) ** 2).sum(-1))
ok(r.rc == 0 and np.abs(got - want).max() < 1e-12, "xl distance matrix = numpy's",
   np.abs(got - want).max())
r = run(EXE, "corr", "-s", "xl", "-n", str(n), "-d", str(d), "-o", "-")
_, got = table(r.text)
ok(r.rc == 0 and np.abs(got - np.corrcoef(R)).max() < 1e-12, "xl correlation = corrcoef")
r = run(EXE, "decay", "-s", "xl", "-n", str(n), "-d", str(d), "--max-offset", "10", "-o", "-")
_, got = table(r.text)
want = np.array([np.mean([R[m] @ R[m + k] for m in range(n - k)]) for k in range(11)])
ok(r.rc == 0 and np.abs(got[:, 0] - want).max() < 1e-11,
   "xl decay: R_m . R_(m+k) averaged, = sum cos(k w)", np.abs(got[:, 0] - want).max())
r = run(EXE, "freqs", "-s", "xl", "-d", str(d), "-q", "-o", "-")
_, got = table(r.text)
want = 1.0 / 10000.0 ** (np.arange(0.0, d, 2.0) / d)
# numpy's power and libm's pow may differ in the last bit.
ok(r.rc == 0 and np.abs(got[:, 0] / want - 1).max() < 4e-16, "xl freqs: inv_freq",
   got[:, 0] - want)
# A figure of every analysis that takes position vectors.
for cmd in (["encode"], ["distance"], ["corr"], ["scatter"], ["profile", "--at", "0"],
            ["decay"], ["freqs"], ["compare", "-s", "sinusoidal:layout=blocks"]):
    out = os.path.join(TMP, f"xl-{cmd[0]}.png")
    size = [] if cmd[0] == "freqs" else ["-n", "32"]
    r = run(EXE, *cmd, "-s", "xl", *size, "-d", "16", "-q", "-o", out)
    ok(r.rc == 0 and os.path.getsize(out) > 0, f"xl: {cmd[0]} draws", r.err)
error_case(EXE, "xl with an odd width", ["encode", "-s", "xl", "-d", "5", "-o", "x.csv"], 2,
           "xl needs an even width d", cwd=workdir())
error_case(EXE, "xl is no attention bias", ["bias", "-s", "xl", "-o", "x.csv"], 2,
           "gives position vectors, not an attention bias", cwd=workdir())
error_case(EXE, "xl has no views", ["encode", "-s", "xl", "--view", "angle", "-o", "x.csv"], 2,
           "views", cwd=workdir())

# ---- shaw -------------------------------------------------------------------------------
for k, n in [(2, 9), (1, 4), (3, 12), (16, 40)]:
    r = run(EXE, "bias", "-s", f"shaw:k={k}", "-n", str(n), "-o", "-")
    head, got = table(r.text)
    ok(r.rc == 0 and head[0] == "query" and np.array_equal(got, shaw_ref(n, k)),
       f"shaw k={k}: clip(j - i, {k}) + {k} for n={n}", r.text[:200])
npy = os.path.join(TMP, "shaw.npy")
r = run(EXE, "bias", "-s", "shaw:k=4", "-n", "300", "-q", "-o", npy)
shape, values = load_npy(npy)
ok(r.rc == 0 and shape == (300, 300)
   and np.array_equal(np.array(values).reshape(shape), shaw_ref(300, 4)), "shaw as NPY, n=300")
pdf = os.path.join(TMP, "shaw.pdf")
r = run(EXE, "bias", "-s", "shaw", "-n", "8", "-o", pdf)
words = subprocess.run(["pdftotext", pdf, "-"], capture_output=True, text=True).stdout.split()
# 8 x 8 cells with ids 0..4: each id's count in the map, and the key's ticks beside them.
counts = np.bincount(shaw_ref(8, 2).ravel())
ok(r.rc == 0 and all(words.count(str(b)) >= c for b, c in enumerate(counts)),
   "shaw map: its ids written in the cells", words)
# A large map: block means, as T5's (the ids of a block average).
png = os.path.join(TMP, "shaw-big.png")
r = run(EXE, "bias", "-s", "shaw:k=8", "-n", "5000", "-q", "-o", png)
ok(r.rc == 0, "shaw n=5000 drawn from block means", r.err)
for name, args, needle in [
        ("shaw k=0", ["bias", "-s", "shaw:k=0", "-o", "x.csv"], "key 'k'"),
        ("shaw as vectors", ["encode", "-s", "shaw", "-o", "x.csv"], "is an attention bias"),
        ("shaw decay", ["decay", "-s", "shaw", "-o", "x.csv"], "is an attention bias"),
        ("shaw freqs", ["freqs", "-s", "shaw", "-o", "x.csv"], "has no frequencies")]:
    error_case(EXE, name, args, 2, needle, cwd=workdir())

done()
