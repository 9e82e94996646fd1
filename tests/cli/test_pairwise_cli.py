#!/usr/bin/env python3
"""posenc distance, corr, profile and scatter, run as a user runs them."""
import csv
import io
import math
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
from tap import done, error_case, numpy_python, ok, run, skip, workdir  # noqa: E402

EXE = os.path.abspath(sys.argv[1])


def read_csv(text):
    rows = list(csv.reader(io.StringIO(text)))
    return rows[0], [[float(x) for x in r[1:]] for r in rows[1:]], [r[0] for r in rows[1:]]


# Reference rows written from doc/conventions.md §1 and §2, not by posenc.
def sin_row(p, d, base=10000.0):
    x = [0.0] * d
    for k in range((d + 1) // 2):
        w = 1.0 / base ** (2 * k / d)
        x[2 * k] = math.sin(p * w)
        if 2 * k + 1 < d:
            x[2 * k + 1] = math.cos(p * w)
    return x


def rope_row(m, d, base=10000.0):
    x = [0.0] * d
    for i in range(d // 2):
        th = 1.0 / base ** (2 * i / d)
        c, s = math.cos(m * th), math.sin(m * th)
        x[2 * i], x[2 * i + 1] = c - s, s + c
    return x


def metric(name, a, b):
    if name == "l2":
        return math.sqrt(sum((x - y) ** 2 for x, y in zip(a, b)))
    if name == "l1":
        return sum(abs(x - y) for x, y in zip(a, b))
    if name == "linf":
        return max(abs(x - y) for x, y in zip(a, b))
    if name == "cosine":
        dot = sum(x * y for x, y in zip(a, b))
        return 1 - dot / math.sqrt(sum(x * x for x in a) * sum(y * y for y in b))
    ma, mb = sum(a) / len(a), sum(b) / len(b)
    va = sum((x - ma) ** 2 for x in a)
    vb = sum((y - mb) ** 2 for y in b)
    if va == 0 or vb == 0:
        return math.nan
    return sum((x - ma) * (y - mb) for x, y in zip(a, b)) / math.sqrt(va * vb)


def close(a, b, tol=1e-12):
    return (math.isnan(a) and math.isnan(b)) or abs(a - b) <= tol


# distance: the closed form sqrt(d - 2 sum cos((m-n) theta_i)), interleaved even d
n, d = 24, 16
r = run(EXE, "distance", "-n", str(n), "-d", str(d), "-o", "-")
header, vals, index = read_csv(r.text)
ok(r.rc == 0 and header == ["position"] + [str(i) for i in range(n)] and index == [str(i) for i in range(n)],
   "distance CSV header and index", r.text[:200] + r.err)
want = [[math.sqrt(max(0.0, d - 2 * sum(math.cos((a - b) / 10000 ** (2 * i / d)) for i in range(d // 2))))
         for b in range(n)] for a in range(n)]
ok(all(close(vals[a][b], want[a][b], 1e-10) for a in range(n) for b in range(n)),
   "distance equals sqrt(d - 2 sum cos) (closed form)")

# every metric against brute force over formula rows, with --start
n, d, start = 12, 9, 5
rows = [sin_row(start + i, d) for i in range(n)]
for name in ("l2", "cosine", "l1", "linf"):
    r = run(EXE, "distance", "-n", str(n), "-d", str(d), "--start", str(start), "--metric", name, "-o", "-")
    header, vals, index = read_csv(r.text)
    ok(r.rc == 0 and header[1] == str(start) and index[0] == str(start)
       and all(close(vals[a][b], metric(name, rows[a], rows[b])) for a in range(n) for b in range(n)),
       f"distance --metric {name} --start {start}, odd d, equals brute force to 1e-12", r.err)

r = run(EXE, "corr", "-n", str(n), "-d", str(d), "--start", str(start), "-o", "-")
header, vals, index = read_csv(r.text)
ok(r.rc == 0 and all(close(vals[a][b], metric("corr", rows[a], rows[b])) for a in range(n) for b in range(n))
   and all(vals[a][a] == 1.0 for a in range(n)),
   "corr equals Pearson over formula rows to 1e-12, diagonal 1", r.err)

r = run(EXE, "corr", "-s", "rope", "-n", "6", "-d", "8", "-o", "-")
header, vals, index = read_csv(r.text)
rr = [rope_row(m, 8) for m in range(6)]
ok(r.rc == 0 and all(math.isnan(v) for v in vals[0]) and all(math.isnan(row[0]) for row in vals)
   and all(close(vals[a][b], metric("corr", rr[a], rr[b])) for a in range(1, 6) for b in range(1, 6)),
   "corr of rope: position 0 (all ones) is nan, the rest equals brute force", r.text)

r = run(EXE, "corr", "-s", "learned:seed=3", "-n", "30", "-d", "7", "-o", "-")
header, vals, index = read_csv(r.text)
ok(r.rc == 0 and all(vals[a][b] == vals[b][a] for a in range(30) for b in range(30))
   and all(-1 <= v <= 1 for row in vals for v in row), "corr of learned: symmetric, within [-1, 1]")

# NPY equals the CSV exactly
wd = workdir()
r1 = run(EXE, "distance", "-s", "rope:layout=half", "-n", "40", "-d", "12", "--metric", "cosine", "-o", "d.npy", cwd=wd)
r2 = run(EXE, "distance", "-s", "rope:layout=half", "-n", "40", "-d", "12", "--metric", "cosine", "-o", "d.csv", cwd=wd)
r3 = run(EXE, "profile", "-n", "40", "-d", "12", "--at", "3,50", "-o", "p.npy", cwd=wd)
r4 = run(EXE, "scatter", "-n", "40", "-d", "12", "-o", "s.npy", cwd=wd)
ok(r1.rc == 0 and r2.rc == 0 and r3.rc == 0 and r4.rc == 0 and "wrote d.npy" in r1.err,
   "distance, profile and scatter write npy", r1.err + r2.err + r3.err + r4.err)
npy = numpy_python()
if npy:
    check = subprocess.run([npy, "-c", """
import numpy as np
a = np.loadtxt('d.csv', delimiter=',', skiprows=1)[:, 1:]
b = np.load('d.npy')
p = np.load('p.npy'); s = np.load('s.npy')
print(b.shape, bool((a == b).all()), p.shape, s.shape)
"""], capture_output=True, text=True, cwd=wd)
    ok(check.stdout.strip() == "(40, 40) True (40, 2) (780, 4)",
       "npy shapes (n, n), (n, k), (pairs, 4); npy equals csv", check.stdout + check.stderr)
    # numpy's own corrcoef on the same rows
    r = run(EXE, "corr", "-s", "sinusoidal:base=10", "-n", "50", "-d", "32", "-o", "c.npy", cwd=wd)
    check = subprocess.run([npy, "-c", """
import numpy as np
p = np.arange(50)[:, None]; k = np.arange(16)[None, :]
w = 1.0 / 10.0 ** (2 * k / 32)
E = np.zeros((50, 32)); E[:, 0::2] = np.sin(p * w); E[:, 1::2] = np.cos(p * w)
print(float(np.abs(np.corrcoef(E) - np.load('c.npy')).max()) < 1e-12)
"""], capture_output=True, text=True, cwd=wd)
    ok(r.rc == 0 and check.stdout.strip() == "True", "corr equals numpy.corrcoef to 1e-12 (base 10)",
       check.stdout + check.stderr)
else:
    skip("npy shapes and values", "no numpy")

# profile: columns headed by the chosen positions, equal to brute force
n, d = 20, 8
rows = [sin_row(p, d) for p in range(61)]
r = run(EXE, "profile", "-n", str(n), "-d", str(d), "--at", "0,5,60", "--metric", "l1", "-o", "-")
header, vals, index = read_csv(r.text)
ok(r.rc == 0 and header == ["position", "0", "5", "60"] and len(vals) == n
   and all(close(vals[i][j], metric("l1", rows[i], rows[a])) for i in range(n) for j, a in enumerate((0, 5, 60))),
   "profile --at 0,5,60 (one outside the range) equals brute force", r.text[:300] + r.err)
r = run(EXE, "profile", "-n", "5", "-d", "4", "--start", "7", "-o", "-")
header, vals, index = read_csv(r.text)
ok(r.rc == 0 and header == ["position", "7"] and index[0] == "7" and vals[0][0] == 0.0,
   "profile without --at: from the first position", r.text)

# scatter: upper-triangle pairs in order, distance and correlation
n, d = 9, 6
rows = [sin_row(p, d) for p in range(n)]
r = run(EXE, "scatter", "-n", str(n), "-d", str(d), "--metric", "cosine", "-o", "-")
header, vals, index = read_csv(r.text)
pairs = [(i, j) for i in range(n) for j in range(i + 1, n)]
ok(r.rc == 0 and header == ["pair", "position_i", "position_j", "cosine", "corr"] and len(vals) == len(pairs)
   and all(v[0] == i and v[1] == j and close(v[2], metric("cosine", rows[i], rows[j]))
           and close(v[3], metric("corr", rows[i], rows[j])) for v, (i, j) in zip(vals, pairs)),
   "scatter: every i < j with cosine and corr equal to brute force", r.text[:300] + r.err)
r = run(EXE, "scatter", "-n", "4096", "-d", "16", "-o", "-")
header, vals, index = read_csv(r.text)
ok(r.rc == 0 and 0 < len(vals) <= 250000 and "every 6th position" in r.err and vals[0][1] == 6,
   "scatter of 4096 positions is capped at 250000 pairs by default (stride 6)", r.err)
r = run(EXE, "scatter", "-n", "300", "-d", "8", "--max-points", "0", "-q", "-o", "-")
ok(r.rc == 0 and len(r.text.splitlines()) == 1 + 300 * 299 // 2 and r.err == "",
   "scatter --max-points 0 gives every pair", r.err)

for cmd in ("distance", "corr", "profile", "scatter"):
    r = run(EXE, cmd, "--help")
    ok(r.rc == 0 and f"Usage: posenc {cmd}" in r.text and "--positions" in r.text and not r.err,
       f"{cmd} --help", r.err)
r = run(EXE, "--help")
ok(all(c in r.text for c in ("distance", "corr", "profile", "scatter")), "the commands are listed in --help")

empty = workdir()
cases = [
    ("the full 10^6 matrix", ["distance", "-s", "sinusoidal", "-n", "1000000", "-d", "512", "-o", "x.csv"], 1,
     "the 1000000 x 1000000 distance matrix needs 7.3 TiB"),
    ("corr over the budget", ["corr", "-n", "1000", "--max-memory", "1M", "-o", "x.npy"], 1, "1000 x 1000 correlation matrix needs"),
    ("alibi has no vectors", ["distance", "-s", "alibi", "-o", "x.csv"], 2, "attention bias"),
    ("t5 has no vectors", ["corr", "-s", "t5", "-o", "x.csv"], 2, "attention bias"),
    ("metric corr on distance", ["distance", "--metric", "corr", "-o", "x.csv"], 2, "--metric"),
    ("unknown metric", ["profile", "--metric", "l3", "-o", "x.csv"], 2, "'l3' is not l2, cosine, l1 or linf"),
    ("corr takes no metric", ["corr", "--metric", "l2", "-o", "x.csv"], 2, "unknown option"),
    ("bad --at", ["profile", "--at", "1,x", "-o", "x.csv"], 2, "--at"),
    ("--at past 2^53", ["profile", "--at", "9007199254740993", "-o", "x.csv"], 2, "--at"),
    ("scatter of one position", ["scatter", "-n", "1", "-o", "x.csv"], 2, "at least 2"),
    ("bad --max-points", ["scatter", "--max-points", "-3", "-o", "x.csv"], 2, "--max-points"),
    ("rope odd d", ["distance", "-s", "rope", "-d", "5", "-o", "x.csv"], 2, "even rotary width"),
    ("two schemes", ["distance", "--base", "10,100", "-o", "x.csv"], 2, "one scheme"),
]
for name, args, rc, needle in cases:
    error_case(EXE, name, args, rc, needle, cwd=empty)

# the note counts pairs in English: 2 positions make 1 pair, 3 make 3
r = run(EXE, "scatter", "-n", "2", "-d", "8", "-o", "one.png", cwd=wd)
r3 = run(EXE, "scatter", "-n", "3", "-d", "8", "-o", "three.png", cwd=wd)
ok(r.rc == 0 and "(1 pair)" in r.err and "(3 pairs)" in r3.err, "scatter: 1 pair, 3 pairs",
   r.err + r3.err)
done()
