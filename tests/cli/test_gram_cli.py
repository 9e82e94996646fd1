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
from tap import done, ok, run, skip, workdir  # noqa: E402

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


# A large table (n >= 1024, d >= 16) is written from upper-triangle panels of the same BLAS products as
# the whole matrix (cli/shared/npy_panels.c): to an NPY file each panel's columns go straight to the
# later rows' places; to CSV they wait in a scratch file until their rows are written. Both must be the
# same cells (test_pairwise_rows.c checks the panels against the whole matrix bit for bit), in the memory
# of a few panels. numpy here computes the reference directly (differences, no Gram form).
import numpy as np  # noqa: E402

NB, DB = 1100, 24
rng = np.random.default_rng(28)
big = rng.standard_normal((NB, DB)) * (1.0 + np.arange(NB)[:, None] % 5)
big[700] = big[699] * (1.0 + 1e-9)  # a pair the Gram form cancels: recomputed from rows
big[701] = 0.0  # cosine undefined
big[702] = 3.0  # correlation undefined
npy("big.npy", big.tolist())


def reference(kind):
    out = np.empty((NB, NB))
    for i0 in range(0, NB, 100):
        a = big[i0:i0 + 100]
        if kind == "l2":
            out[i0:i0 + 100] = np.sqrt(((a[:, None, :] - big[None, :, :]) ** 2).sum(-1))
            continue
        x, y = (a, big) if kind == "cosine" else (a - a.mean(1, keepdims=True), big - big.mean(1, keepdims=True))
        nx, ny = np.linalg.norm(x, axis=1), np.linalg.norm(y, axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            c = (x @ y.T) / (nx[:, None] * ny[None, :])
        out[i0:i0 + 100] = np.clip(1.0 - c, 0.0, 2.0) if kind == "cosine" else np.clip(c, -1.0, 1.0)
    return out


# Linux starts a process's peak (ru_maxrss) at the peak of the process it was exec'ed from: this
# test's own, with its arrays. So a small fresh interpreter forks and execs posenc and reports.
MEASURE = """
import os, sys
pid = os.fork()
if pid == 0:
    os.execv(sys.argv[1], sys.argv[1:])
_, status, usage = os.wait4(pid, 0)
print(os.waitstatus_to_exitcode(status), usage.ru_maxrss * 1024)
"""


def run_rss(args):
    """Exit status and peak resident memory (bytes) of one posenc run."""
    r = subprocess.run([sys.executable, "-c", MEASURE, EXE] + args, capture_output=True, cwd=wd,
                       timeout=120)
    rc, rss = r.stdout.split()
    return int(rc), int(rss)


for kind, args in (("l2", ["distance"]), ("cosine", ["distance", "--metric", "cosine"]), ("corr", ["corr"])):
    base = args + ["-s", "file:path=big.npy", "-n", str(NB), "-q"]
    r1 = run(EXE, *base, "-o", kind + "_big.npy", cwd=wd)
    r2 = run(EXE, *base, "-o", kind + "_big.csv", cwd=wd)
    r3 = run(EXE, *base, "--dtype", "f32", "-o", kind + "_big32.npy", cwd=wd)
    if not ok(r1.rc == 0 and r2.rc == 0 and r3.rc == 0, kind + " 1100 x 1100: runs", r1.err + r2.err + r3.err):
        continue
    got = np.load(os.path.join(wd, kind + "_big.npy"))
    want = reference(kind)
    nan_same = np.array_equal(np.isnan(got), np.isnan(want))
    fin = ~np.isnan(want)
    scale = np.abs(want[fin]) if kind == "l2" else 1.0
    err = np.abs(got[fin] - want[fin]) / np.where(scale == 0, 1.0, scale)
    ok(nan_same and err.max() <= 1e-12, kind + " 1100 x 1100 (panels): within 1e-12 of numpy's direct values",
       "worst %.3g, NaN %s" % (err.max(), nan_same))
    csv = np.loadtxt(os.path.join(wd, kind + "_big.csv"), delimiter=",", skiprows=1)[:, 1:]
    ok(np.array_equal(got, csv, equal_nan=True), kind + " 1100 x 1100: NPY (in place) == CSV (in row order) bit for bit")
    ok(np.array_equal(got, got.T, equal_nan=True), kind + " 1100 x 1100: symmetric bit for bit")
    g32 = np.load(os.path.join(wd, kind + "_big32.npy"))
    ok(g32.dtype == np.float32 and np.array_equal(g32, got.astype(np.float32), equal_nan=True),
       kind + " 1100 x 1100 --dtype f32: the f64 cells rounded to float32")

# Several row panels at n = 4100 (pieces of 1536 rows and columns where OpenBLAS runs on one thread, the
# last panel 1028 rows; else panels of 768 rows): each panel's columns reach the later rows through a
# transposed tile (8 x 8 blocks, partial at the edges), its rows directly. The lower triangle must be
# the upper one mirrored bit for bit, and the cells numpy's direct distances.
NP_, DP_ = 4100, 16
many = np.random.default_rng(29).standard_normal((NP_, DP_))
many[4097] = many[5] * (1.0 + 1e-9)  # recomputed from rows, in the last panel's columns of row 5
npy("many.npy", many.tolist())
r = run(EXE, "distance", "-s", "file:path=many.npy", "-n", str(NP_), "-q", "-o", "many_l2.npy", cwd=wd)
if ok(r.rc == 0, "l2 4100 x 4100 from several panels: runs", r.err):
    got = np.load(os.path.join(wd, "many_l2.npy"))
    ok(np.array_equal(got, got.T), "l2 4100 x 4100 (several panels): symmetric bit for bit")
    worst = 0.0
    for i0 in range(0, NP_, 256):
        a = many[i0:i0 + 256]
        want = np.sqrt(((a[:, None, :] - many[None, :, :]) ** 2).sum(-1))
        sc = np.where(want == 0, 1.0, want)
        worst = max(worst, float((np.abs(got[i0:i0 + 256] - want) / sc).max()))
    ok(worst <= 1e-12, "l2 4100 x 4100 (several panels): within 1e-12 of numpy's direct values",
       "worst %.3g" % worst)

# Past 1536 rows the NPY file is written by two threads (cli/shared/npy_panels.c): one computes
# pieces of 1536 x 1536 cells on one BLAS thread while the other writes the previous piece, the
# products cut by columns. Its bytes must be those of the row-order writer (standard output, a pipe:
# whole 256-row products on the BLAS's threads), and the cells numpy's direct values. n = 3100: three
# row panels (the last 28 rows), pieces with partial edges.
def file_and_fifo(cmd, name, env=None):
    """cmd's NPY written to the file NAME (in wd) and, by a second run, into a FIFO:
    (both ran, their error output, the file's bytes, the bytes read from the FIFO)."""
    r1 = subprocess.run(cmd + ["-o", name], env=env, cwd=wd, capture_output=True, timeout=120)
    fifo = os.path.join(wd, "fifo_" + name)
    if os.path.exists(fifo):
        os.unlink(fifo)
    os.mkfifo(fifo)
    p2 = subprocess.Popen(cmd + ["-o", fifo], env=env, cwd=wd, stderr=subprocess.PIPE)
    with open(fifo, "rb") as f:
        ordered = f.read()
    err = r1.stderr.decode(errors="replace") + p2.communicate(timeout=120)[1].decode(errors="replace")
    ran = r1.returncode == 0 and p2.returncode == 0
    data = b""
    if ran:
        with open(os.path.join(wd, name), "rb") as f:
            data = f.read()
    return ran, err, data, ordered


NQ, DQ = 3100, 16
piped = np.random.default_rng(31).standard_normal((NQ, DQ)) + 0.1 * (np.arange(NQ)[:, None] % 7)
piped[3001] = piped[2] * (1.0 + 1e-9)  # an l2 cell recomputed from rows, in a later piece
npy("piped.npy", piped.tolist())
for kind, args in (("l2", ["distance"]), ("cosine", ["distance", "--metric", "cosine"]), ("corr", ["corr"])):
    base = [EXE] + args + ["-s", "file:path=piped.npy", "-n", str(NQ), "-q"]
    ran, err, data, ordered = file_and_fifo(base, kind + "_piped.npy")
    if not ok(ran, kind + " 3100 x 3100 (overlapped pieces): runs", err):
        continue
    ok(data == ordered,
       kind + " 3100 x 3100: NPY file (overlapped pieces) == NPY into a FIFO (row order), byte for byte")
    got = np.load(os.path.join(wd, kind + "_piped.npy"))
    # float32 cells: 4-byte segments, so other row ends wait for their next segment (row_pages.c)
    r3 = run(*base, "--dtype", "f32", "-o", kind + "_piped32.npy", cwd=wd)
    if ok(r3.rc == 0, kind + " 3100 x 3100 --dtype f32 (overlapped pieces): runs", r3.err):
        g32 = np.load(os.path.join(wd, kind + "_piped32.npy"))
        ok(g32.dtype == np.float32 and np.array_equal(g32, got.astype(np.float32), equal_nan=True),
           kind + " 3100 x 3100 --dtype f32 (overlapped pieces): the f64 cells rounded to float32")
    worst = 0.0
    for i0 in range(0, NQ, 256):
        a = piped[i0:i0 + 256]
        if kind == "l2":
            want = np.sqrt(((a[:, None, :] - piped[None, :, :]) ** 2).sum(-1))
            sc = np.where(want == 0, 1.0, want)
        else:
            x, y = (a, piped) if kind == "cosine" else (a - a.mean(1, keepdims=True),
                                                       piped - piped.mean(1, keepdims=True))
            c = (x[:, None, :] * y[None, :, :]).sum(-1) / (np.linalg.norm(x, axis=1)[:, None]
                                                          * np.linalg.norm(y, axis=1)[None, :])
            want = np.clip(1.0 - c, 0.0, 2.0) if kind == "cosine" else np.clip(c, -1.0, 1.0)
            sc = 1.0
        worst = max(worst, float((np.abs(got[i0:i0 + 256] - want) / sc).max()))
    ok(worst <= 1e-12, kind + " 3100 x 3100 (overlapped pieces): within 1e-12 of numpy's direct values",
       "worst %.3g" % worst)

# The same promise where the pieces' products differ from the row-order writer's in shape: d = 72
# (the diagonal pieces in 128-row products, pairwise_rows.c DIAG_STEP) and n = 2100 (the last
# columns a partial tile of the BLAS kernel, whose cells follow the product's rows: before the fix,
# 20-250 cells of the file differed from the FIFO's in the last bit at n = 2100, 4111 and 8191).
for kind, args in (("l2", ["distance"]), ("cosine", ["distance", "--metric", "cosine"]), ("corr", ["corr"])):
    for dtype in ("f64", "f32"):
        what = "%s learned 2100 x 72 %s" % (kind, dtype)
        base = [EXE] + args + ["-s", "learned", "-n", "2100", "-d", "72", "--dtype", dtype, "-q"]
        ran, err, data, ordered = file_and_fifo(base, kind + dtype + "_edge.npy")
        if ok(ran, what + ": runs", err):
            ok(data == ordered, what + ": NPY file (pieces) == NPY into a FIFO (row order), byte for byte")

# A table the library makes itself (learned) is centred in place for corr, where a file's table is
# centred in a copy (the caller keeps it): the same matrix either way, bit for bit, and numpy's
# corrcoef within 1e-12, through the overlapped pieces (n = 3100) and in row order (CSV).
r = run(EXE, "encode", "-s", "learned", "-n", str(NQ), "-d", "24", "-q", "-o", "learned.npy", cwd=wd)
r1 = run(EXE, "corr", "-s", "learned", "-n", str(NQ), "-d", "24", "-q", "-o", "lc.npy", cwd=wd)
r2 = run(EXE, "corr", "-s", "file:path=learned.npy", "-n", str(NQ), "-q", "-o", "fc.npy", cwd=wd)
r3 = run(EXE, "corr", "-s", "learned", "-n", str(NQ), "-d", "24", "-q", "-o", "lc.csv", cwd=wd)
if ok(r.rc == 0 and r1.rc == 0 and r2.rc == 0 and r3.rc == 0, "corr of a learned table 3100 x 24: runs",
      r.err + r1.err + r2.err + r3.err):
    with open(os.path.join(wd, "lc.npy"), "rb") as f1, open(os.path.join(wd, "fc.npy"), "rb") as f2:
        ok(f1.read() == f2.read(), "corr 3100 x 24: learned (centred in place) == its table as a file, byte for byte")
    got = np.load(os.path.join(wd, "lc.npy"))
    want = np.corrcoef(np.load(os.path.join(wd, "learned.npy")))
    csv = np.loadtxt(os.path.join(wd, "lc.csv"), delimiter=",", skiprows=1)[:, 1:]
    ok(float(np.abs(got - want).max()) <= 1e-12 and np.array_equal(got, csv),
       "corr 3100 x 24 (learned): within 1e-12 of numpy's corrcoef, and the CSV the same bits",
       "worst %.3g" % float(np.abs(got - want).max()))

# Wide rows: past d = 4500 one product's error bound (gamma_d) would make most l2 cells recomputed, so
# the products are summed in chunks of columns (two at d = 4608, three unequal ones at d = 9001), the
# bound following the chunk. The cells must still hold 1e-12 of numpy's direct distances, including
# a pair that cancels (recomputed from its rows).
for NW, DW in ((120, 4608), (90, 9001)):
    wide = np.random.default_rng(DW).standard_normal((NW, DW)) * 0.02
    wide[7] = wide[3] * (1.0 + 1e-9)
    npy("wide.npy", wide.tolist())
    r = run(EXE, "distance", "-s", "file:path=wide.npy", "-n", str(NW), "-q", "-o", "wide_l2.npy", cwd=wd)
    if ok(r.rc == 0, "l2 %d x %d (wide rows): runs" % (NW, DW), r.err):
        got = np.load(os.path.join(wd, "wide_l2.npy"))
        want = np.sqrt(((wide[:, None, :] - wide[None, :, :]) ** 2).sum(-1))
        err = np.abs(got - want) / np.where(want == 0, 1.0, want)
        ok(err.max() <= 1e-12 and np.array_equal(got, got.T),
           "l2 %d x %d (wide rows): within 1e-12 of numpy's direct values, symmetric" % (NW, DW),
           "worst %.3g" % err.max())

# Memory: a 4096 x 4096 matrix is 128 MiB; written from panels it takes a few panels of 32 MiB.
# (Built without a BLAS the direct kernels fill the whole matrix: no panels.)
npy("wide.npy", rng.standard_normal((4096, 16)).tolist())
with open(EXE, "rb") as f:
    SANITIZED = b"__asan_init" in f.read()
if SANITIZED:
    skip("a 4096 x 4096 matrix from panels in bounded memory", "sanitizers change memory use")
for out in ("wide_l2.npy", "wide_l2.csv") if (sys.argv[2:3] or [""])[0] != "without-blas" \
        and not SANITIZED else ():
    rc, rss = run_rss(["distance", "-s", "file:path=wide.npy", "-n", "4096", "-o", out, "-q"])
    ok(rc == 0 and rss < 96 << 20, "a 4096 x 4096 %s from panels in under 96 MiB (the matrix is 128 MiB)"
       % out[-3:].upper(), "rc %d, peak %.1f MiB" % (rc, rss / 2**20))


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
# The learned heatmap has no cliff at d = 4608: its cells stay exact means (BLAS products, chunked
# past d = 4500) while n^2 d is within the Gram budget, as at d = 4500; only beyond it are they sampled.
if BUILT_WITH == "with-blas":
    for dd in (4500, 4608):
        log = os.path.join(wd, "boxes.txt")
        if os.path.exists(log):
            os.remove(log)
        p = subprocess.run([EXE, "distance", "-s", "learned", "-n", "1024", "-d", str(dd), "-q", "-o",
                            os.path.join(wd, "wide.png")], capture_output=True, timeout=300,
                           env=dict(os.environ, POSENC_TEXT_BOXES=log))
        texts = [line.rstrip("\n").partition("\t")[2] for line in open(log, encoding="utf-8")
                 if line.startswith("text")] if os.path.exists(log) else []
        ok(p.returncode == 0 and "L2 distance (mean per cell)" in texts and
           not any("ampled" in t for t in texts),
           "learned l2 heatmap n=1024 d=%d: exact cell means, no sampling note" % dd, str(texts[-3:]))
if BUILT_WITH == "with-blas":
    ok(r.returncode == 0 and blas, "a file table's matrix opens the BLAS when it is first needed",
       sorted(names))
elif BUILT_WITH == "without-blas":
    ok(r.returncode == 0 and not blas, "built without a BLAS, nothing opens one", sorted(names))

# A CBLAS that cannot be made single-threaded (the reference BLAS: no openblas_set_num_threads) puts
# the NPY writer on whole panels of rows (1792 at n = 2100), each with its block on the diagonal
# narrower than the columns right of it: the writer transposes the block (its rows' cells left of the
# diagonal, pe_pairwise_rows_upper_cols_above()) and then the columns beyond it. posenc opens the
# library by its file name, so a link of that name to Debian's reference BLAS on LD_LIBRARY_PATH
# stands in for OpenBLAS.
NETLIB = "/usr/lib/x86_64-linux-gnu/blas/libblas.so.3"
opened = [n for n in names if "blas" in n]
if BUILT_WITH == "with-blas" and opened and os.path.exists(NETLIB):
    libdir = os.path.join(wd, "netlib")
    os.makedirs(libdir, exist_ok=True)
    os.symlink(NETLIB, os.path.join(libdir, os.path.basename(sorted(opened)[0])))
    env = dict(os.environ, LD_LIBRARY_PATH=libdir)
    x = np.random.default_rng(37).standard_normal((2100, 64))
    npy("ref_blas.npy", x.tolist())
    base = [EXE, "distance", "-s", "file:path=ref_blas.npy", "-n", "2100", "-q"]
    ran, err, data, ordered = file_and_fifo(base, "ref_blas_l2.npy", env)
    what = "l2 2100 x 64 on the reference BLAS (whole panels)"
    if ok(ran, what + ": runs", err):
        ok(data == ordered, what + ": NPY file == NPY into a FIFO, byte for byte")
        got = np.load(os.path.join(wd, "ref_blas_l2.npy"))
        ok(np.array_equal(got, got.T), what + ": symmetric bit for bit")
        worst = 0.0
        for i0 in range(0, 2100, 256):
            want = np.sqrt(((x[i0:i0 + 256, None, :] - x[None, :, :]) ** 2).sum(-1))
            worst = max(worst, float((np.abs(got[i0:i0 + 256] - want) /
                                      np.where(want == 0, 1.0, want)).max()))
        ok(worst <= 1e-12, what + ": within 1e-12 of numpy's direct values", "worst %.3g" % worst)
done()
