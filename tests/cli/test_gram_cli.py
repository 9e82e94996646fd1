#!/usr/bin/env python3
"""The matrices of a general (file) table, which posenc computes from BLAS products when it is built
with a CBLAS (the Gram-matrix path), against an independent computation here: every pair summed with
math.fsum from the table's own values, no Gram form.

l2 must hold 1e-12 relative everywhere, including pairs whose Gram form cancels (rows that differ by
1e-9 of their size: |a|^2 + |b|^2 - 2 a.b loses every digit there, so posenc must recompute them);
cosine and correlation hold 1e-12 absolute (they are in [0, 2] and [-1, 1]). A zero row has an undefined
cosine and a constant row an undefined correlation: NaN, as the direct path gives."""
import math
import os
import struct
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
from npyread import load_npy  # noqa: E402
from tap import done, ok, run, workdir  # noqa: E402

EXE = os.path.abspath(sys.argv[1])
wd = workdir()
N, D = 150, 40


def value(i, j):
    # Deterministic, varied magnitudes and signs; not low-rank.
    return math.sin(0.37 * i * i + 1.3 * j) * (1.0 + (i % 7)) + 0.01 * ((i * 31 + j * 17) % 13)


rows = [[value(i, j) for j in range(D)] for i in range(N)]
for i in range(10, 20):  # near-duplicates of row 9: the Gram form cancels completely
    rows[i] = [x * (1.0 + 1e-9 * (i - 9) * ((j % 3) - 1)) for j, x in enumerate(rows[9])]
rows[30] = [0.0] * D  # zero row: cosine undefined
rows[31] = [2.5] * D  # constant row: correlation undefined
rows[40] = [1e3 + 1e-3 * math.cos(j) for j in range(D)]  # large mean, small spread (corr)


def npy(name, data):
    header = "{'descr': '<f8', 'fortran_order': False, 'shape': (%d, %d), }" % (len(data), len(data[0]))
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    with open(os.path.join(wd, name), "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        f.write(struct.pack("<%dd" % (len(data) * len(data[0])), *[x for r in data for x in r]))


npy("table.npy", rows)


def l2(a, b):
    return math.sqrt(math.fsum((x - y) ** 2 for x, y in zip(a, b)))


def norm(a):
    return math.sqrt(math.fsum(x * x for x in a))


def cosine(a, b):
    na, nb = norm(a), norm(b)
    if na == 0 or nb == 0:
        return math.nan
    return min(2.0, max(0.0, 1.0 - math.fsum(x * y for x, y in zip(a, b)) / (na * nb)))


def corr(a, b):
    ma, mb = math.fsum(a) / D, math.fsum(b) / D
    ca, cb = [x - ma for x in a], [y - mb for y in b]
    if all(x == a[0] for x in a) or all(y == b[0] for y in b):
        return math.nan
    return min(1.0, max(-1.0, math.fsum(x * y for x, y in zip(ca, cb)) / (norm(ca) * norm(cb))))


def check(name, args, ref, rel):
    out = os.path.join(wd, name + ".npy")
    r = run(EXE, *args, "-s", "file:path=table.npy", "-n", str(N), "-o", out, "-q", cwd=wd)
    if not ok(r.rc == 0, name + ": runs", r.err):
        return
    shape, flat = load_npy(out)
    ok(shape == (N, N), name + ": N x N", shape)
    worst, where, nan_bad = 0.0, None, []
    for i in range(N):
        for j in range(N):
            got, want = flat[i * N + j], ref(rows[i], rows[j])
            if math.isnan(want) or math.isnan(got):
                if not (math.isnan(want) and math.isnan(got)):
                    nan_bad.append((i, j, got, want))
                continue
            err = abs(got - want) / (abs(want) if rel else 1.0) if want != 0 or not rel else abs(got)
            if err > worst:
                worst, where = err, (i, j, got, want)
    ok(worst <= 1e-12, "%s: within 1e-12 %s of fsum (worst %.2e)" % (name, "relative" if rel else
                                                                    "absolute", worst), where)
    ok(not nan_bad, name + ": NaN exactly where undefined", nan_bad[:5])
    sym = all(flat[i * N + j] == flat[j * N + i] or (math.isnan(flat[i * N + j]) and
                                                   math.isnan(flat[j * N + i]))
              for i in range(N) for j in range(i))
    ok(sym, name + ": symmetric bit for bit")
    return flat


flat = check("l2", ["distance"], l2, True)
if flat:
    ok(all(flat[i * N + i] == 0.0 for i in range(N)), "l2: zero diagonal exactly")
    # The near-duplicates: distances of 1e-9 of the rows' size, exact to 1e-12 of themselves.
    ok(0 < flat[9 * N + 10] < 1e-7 * norm(rows[9]), "l2: a cancelling pair is tiny and not 0",
       flat[9 * N + 10])
check("cosine", ["distance", "--metric", "cosine"], cosine, False)
check("corr", ["corr"], corr, False)


def libraries_opened(args):
    """The shared libraries the dynamic loader opened while posenc ran (glibc's LD_DEBUG=files)."""
    env = dict(os.environ, LD_DEBUG="files", LD_DEBUG_OUTPUT=os.path.join(wd, "ld"))
    for f in os.listdir(wd):
        if f.startswith("ld."):
            os.unlink(os.path.join(wd, f))
    r = subprocess.run([EXE] + args + ["-q"], env=env, capture_output=True, timeout=120)
    names = set()
    for f in os.listdir(wd):
        if f.startswith("ld."):
            for line in open(os.path.join(wd, f), errors="replace"):
                if "file=" in line:
                    names.add(line.split("file=", 1)[1].split()[0])
    return r, names


# The BLAS is opened at the first Gram product, not at start: OpenBLAS's thread pool would
# otherwise cost every process tens of milliseconds of spinning CPU.
BUILT_WITH = sys.argv[2] if len(sys.argv) > 2 else ""
r, names = libraries_opened(["distance", "-s", "sinusoidal", "-n", "256", "-d", "64",
                             "-o", os.path.join(wd, "s.png")])
ok(r.returncode == 0 and names and not [n for n in names if "blas" in n],
   "an analytic figure opens no BLAS library", sorted(names))
r, names = libraries_opened(["distance", "-s", "file:path=" + os.path.join(wd, "table.npy"),
                             "-n", str(N), "-o", os.path.join(wd, "t.npy")])
blas = [n for n in names if "blas" in n]
if BUILT_WITH == "with-blas":
    ok(r.returncode == 0 and blas, "a file table's matrix opens the BLAS when it is first needed",
       sorted(names))
elif BUILT_WITH == "without-blas":
    ok(r.returncode == 0 and not blas, "built without a BLAS, nothing opens one", sorted(names))
done()
