#!/usr/bin/env python3
"""posenc bias, run as a user runs it: doc/conventions.md §4 and §5, long CSV, NPY, errors."""
import csv
import io
import math
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from npyread import load_npy  # noqa: E402
from tap import done, error_case, ok, run, workdir  # noqa: E402

EXE = os.path.abspath(sys.argv[1])
TMP = workdir()

r = run(EXE, "bias", "-s", "alibi", "-n", "4", "-o", "-")
rows = list(csv.reader(io.StringIO(r.text)))
ok(r.rc == 0 and rows[0] == ["head", "query", "key", "bias"], "bias alibi long CSV header", rows[:1])
ok(len(rows) == 1 + 8 * 16 and rows[1][:3] == ["0", "0", "0"] and rows[-1][:3] == ["7", "3", "3"],
   "bias alibi: heads x n x n rows, head-major")
paper = [["0", "-inf", "-inf", "-inf"], ["-0.5", "0", "-inf", "-inf"], ["-1", "-0.5", "0", "-inf"],
         ["-1.5", "-1", "-0.5", "0"]]
got = [[x[3] for x in rows[1 + 4 * i:5 + 4 * i]] for i in range(4)]
ok(got == paper, "bias alibi paper form, head 0 (m=0.5) [4b]", got)

path = os.path.join(TMP, "alibi.npy")
r = run(EXE, "bias", "-s", "alibi:heads=6,form=official", "-n", "4", "-o", path)
shape, v = load_npy(path)
# 6 heads: slopes [0.25, 0.0625, 0.015625, 0.00390625, 0.5, 0.125] [4a]; head 4 has m = 0.5
good = r.rc == 0 and shape == (6, 4, 4)
good = good and all(v[(16 + i) * 4 + j] == (-math.inf if j > i else 0.5 * j)
                    for i in range(4) for j in range(4))
ok(good, "bias alibi NPY (heads, n, n), official form [4b]", shape)

# the figure is said as the NPY is shaped: one ALiBi head is still (1, n, n), T5 (n, n)
for spec, shape in (("alibi:heads=1", "1 x 4 x 4"), ("t5", "4 x 4")):
    said = []
    for out in ("x.npy", "x.png"):
        r = run(EXE, "bias", "-s", spec, "-n", "4", "-o", os.path.join(TMP, out))
        said.append(r.rc == 0 and f"({shape} " in r.err)
    ok(all(said), f"bias {spec}: the figure and the NPY both said {shape}", said)

r = run(EXE, "bias", "-s", "alibi:heads=12", "-n", "2", "-o", "-")
rows = list(csv.reader(io.StringIO(r.text)))[1:]
slopes = [-float(x[3]) for x in rows if x[1] == "1" and x[2] == "0"]
want = [0.5, 0.25, 0.125, 0.0625, 0.03125, 0.015625, 0.0078125, 0.00390625,
        0.70710678, 0.35355339, 0.17677670, 0.08838835]
ok(len(slopes) == 12 and all(abs(a - b) < 5e-9 for a, b in zip(slopes, want)),
   "bias alibi 12 heads: slopes of the official get_slopes [4a]", slopes)

n = 1200
rel = [-1000, -200, -128, -127, -100, -64, -45, -32, -23, -16, -15, -12, -11, -9, -8, -7, -1, 0,
       1, 7, 8, 11, 12, 15, 16, 32, 64, 127, 200, 1000]
bidir = [15, 15, 15, 15, 15, 14, 12, 12, 11, 10, 9, 9, 8, 8, 8, 7, 1, 0, 17, 23, 24, 24, 25, 25,
         26, 28, 30, 31, 31, 31]
causal = [31, 31, 31, 31, 30, 26, 23, 21, 18, 16, 15, 12, 11, 9, 8, 7, 1, 0, 0, 0, 0, 0, 0, 0,
          0, 0, 0, 0, 0, 0]


def at(values, r):
    q = 1100 if r < 0 else 100  # the query row; the key column is q + r
    return values[q * n + q + r]


path = os.path.join(TMP, "t5.npy")
r = run(EXE, "bias", "-s", "t5", "-n", str(n), "-o", path)
shape, v = load_npy(path)
ok(r.rc == 0 and shape == (n, n), "bias t5 NPY (n, n)", shape)
ok(all(at(v, x) == b for x, b in zip(rel, bidir)), "bias t5 bidirectional bucket table [5]",
   [at(v, x) for x in rel])
r = run(EXE, "bias", "-s", "t5:bidirectional=0", "-n", str(n), "-o", path)
shape, v = load_npy(path)
ok(r.rc == 0 and all(at(v, x) == b for x, b in zip(rel, causal)), "bias t5 causal table [5]",
   [at(v, x) for x in rel])
r = run(EXE, "bias", "-s", "t5", "-n", "3", "-o", "-")
ok(r.text == "query,0,1,2\n0,0,17,18\n1,1,0,17\n2,2,1,0\n",
   "bias t5 CSV: query rows, key columns, bucket of key - query", r.text)

r = run(EXE, "bias", "--help")
ok(r.rc == 0 and r.text.startswith("Usage: posenc bias"), "bias --help")
r = run(EXE, "--help")
ok(r.rc == 0 and all(f"  {c} " in r.text for c in ("bias", "decay", "freqs")),
   "posenc --help lists bias, decay and freqs")

for name, args, needle in [
    ("bias of sinusoidal", ["bias", "-s", "sinusoidal"], "not an attention bias"),
    ("bias of rope", ["bias", "-s", "rope"], "not an attention bias"),
    ("bias -d", ["bias", "-d", "8"], "'-d'"),
    ("bias t5 with 2 buckets", ["bias", "-s", "t5:buckets=2"], "buckets"),
]:
    empty = workdir()
    error_case(EXE, name, args + ["-o", "out.csv"], 2, needle, cwd=empty)

done()
