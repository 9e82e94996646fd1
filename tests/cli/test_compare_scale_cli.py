#!/usr/bin/env python3
"""compare and report at any n (issues 16 and 17): figures whose memory follows
their pixels, a summary streamed from the rows of the full matrices, and the
numbers against an independent numpy implementation of the formulas
(doc/conventions.md [6b]: the sinusoidal dot product at offset k is
sum_i cos(k w_i), so |x_m - x_{m+k}|^2 = sum_i (2 - 2 cos(k w_i))).
"""
import csv
import io
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(__file__))
from tap import done, numpy_python, ok, run, skip  # noqa: E402

EXE = os.path.abspath(sys.argv[1])
with open(EXE, "rb") as f:
    SANITIZED = b"__asan_init" in f.read()
MiB = 1 << 20


def run_timed(args, cwd):
    """(exit status, stdout, stderr, seconds) of one run."""
    t0 = time.time()
    p = subprocess.run([EXE, *args], cwd=cwd, capture_output=True, timeout=300)
    return p.returncode, p.stdout.decode(), p.stderr.decode("utf-8", "replace"), time.time() - t0


TIME = "/usr/bin/time" if os.path.exists("/usr/bin/time") else None


def run_rss_wait(args, cwd):
    """(exit status, stderr, seconds, peak RSS in bytes). Through /usr/bin/time
    when there is one: a child's ru_maxrss also counts what the forking Python
    held before exec (about 30 MiB), which would hide the difference measured."""
    t0 = time.time()
    if TIME:
        p = subprocess.run([TIME, "-f", "%M", EXE, *args], cwd=cwd, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, timeout=300)
        lines = p.stderr.decode("utf-8", "replace").splitlines()
        rss = int(lines[-1]) * 1024 if lines and lines[-1].isdigit() else 1 << 62
        err = "\n".join(l for l in lines[:-1] if not l.startswith("Command exited"))
        return p.returncode, err, time.time() - t0, rss
    p = subprocess.Popen([EXE, *args], cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    err = p.stderr.read().decode("utf-8", "replace")
    _, status, usage = os.wait4(p.pid, 0)
    return os.waitstatus_to_exitcode(status), err, time.time() - t0, usage.ru_maxrss * 1024


def summary(text):
    rows = list(csv.reader(io.StringIO(text)))
    return {row[0]: dict(zip(rows[0][1:], map(float, row[1:]))) for row in rows[1:]}


def omegas(base, d):
    return [base ** (-2 * i / d) for i in range(d // 2)]


wd = tempfile.mkdtemp(prefix="posenc-scale-")

# ---- the summary against numpy: every pair, small n (sinusoidal, rope, a file table) ----
npy = numpy_python()
if npy:
    script = r"""
import json, sys, numpy as np
n, d = 300, 24
def sinusoidal(base):
    p = np.arange(n)[:, None]; w = base ** (-2 * np.arange(d // 2) / d)
    return np.concatenate([np.sin(p * w), np.cos(p * w)], axis=1)
def rope(base):
    # the all-ones vector rotated by p theta_i in each pair: (cos - sin, sin + cos)
    p = np.arange(n)[:, None]; t = base ** (-2 * np.arange(d // 2) / d)
    return np.concatenate([np.cos(p * t) - np.sin(p * t), np.sin(p * t) + np.cos(p * t)], axis=1)
rng = np.random.default_rng(7)
table = rng.normal(0, 0.5, (n, d))
np.save('t.npy', table)
big = rng.normal(0, 0.5, (1000, d))
np.save('t2.npy', big)
out = {}
for name, E in (('sin', sinusoidal(10000.0)), ('sin10', sinusoidal(10.0)), ('rope', rope(10000.0)),
                ('table', table), ('big', big)):
    n = len(E)
    sq = (E * E).sum(1)
    D = np.sqrt(np.maximum(sq[:, None] + sq[None, :] - 2 * E @ E.T, 0))
    iu = np.triu_indices(n, 1)
    with np.errstate(invalid='ignore', divide='ignore'):
        C = np.corrcoef(E)  # NaN for a constant vector (rope at 0); posenc skips NaN cells
    dec = [float(np.mean((E[:n - k] * E[k:]).sum(1))) for k in (0, 1, 10, 100)]
    out[name] = dict(distance_min=float(D[iu].min()), distance_max=float(D[iu].max()),
                     corr_min=float(np.nanmin(C[iu])), corr_max=float(np.nanmax(C[iu])),
                     neighbour_distance=float(np.mean(np.diag(D, 1))),
                     decay_0=dec[0], decay_1=dec[1], decay_10=dec[2], decay_100=dec[3])
print(json.dumps(out))
"""
    p = subprocess.run([npy, "-c", script], capture_output=True, text=True, cwd=wd)
    want = __import__("json").loads(p.stdout) if p.returncode == 0 else {}
    ok(p.returncode == 0, "numpy reference for the summary", p.stderr[-500:])
    r = run(EXE, "compare", "-s", "sinusoidal:base=10000", "-s", "sinusoidal:base=10", "-s", "rope",
            "-s", "file:path=t.npy", "-n", "300", "-d", "24", "-o", "s.csv", cwd=wd)
    got = summary(open(os.path.join(wd, "s.csv")).read()) if r.rc == 0 else {}
    labels = dict(zip(("sin", "sin10", "rope", "table"), list(got)))
    # 1000 rows at --max-memory 16M: too big to form whole in a quarter of it, so
    # the rows of the general path a block at a time
    r2 = run(EXE, "compare", "-s", "file:path=t2.npy", "--max-memory", "16M", "-o", "s2.csv", cwd=wd)
    got.update({"big": summary(open(os.path.join(wd, "s2.csv")).read()).popitem()[1]}
               if r2.rc == 0 else {})
    labels["big"] = "big"
    for key, label in labels.items():
        bad = {c: (got[label].get(c), v) for c, v in want.get(key, {}).items()
               if not abs(got[label].get(c, math.nan) - v) <= 1e-9 * max(1.0, abs(v))}
        ok(r.rc == 0 and key in want and not bad,
           f"compare summary of {label} equals numpy over every pair (1e-9)", bad)
else:
    skip("the summary against numpy", "no numpy")

# ---- streamed pairs at n = 20000: the L2 range and neighbour distance as functions of the offset ----
n, d = 20000, 128
r = run(EXE, "compare", "-n", str(n), "-d", str(d), "-o", "-", cwd=wd)
got = summary(r.text) if r.rc == 0 else {}
for base, label in ((10000.0, "sinusoidal base=10000"), (10.0, "sinusoidal base=10")):
    w = omegas(base, d)
    if npy:
        p = subprocess.run([npy, "-c", f"""
import numpy as np
w = {base} ** (-2 * np.arange({d} // 2) / {d}); k = np.arange(1, {n})[:, None]
s = np.sqrt((2 - 2 * np.cos(k * w)).sum(1)); print(s.min(), s.max(), s[0])
"""], capture_output=True, text=True)
        lo, hi, first = map(float, p.stdout.split())
        s = got.get(label, {})
        ok(abs(s.get("distance_min", 0) - lo) < 1e-9 and abs(s.get("distance_max", 0) - hi) < 1e-9
           and abs(s.get("neighbour_distance", 0) - first) < 1e-9
           and -1 <= s.get("corr_min", 9) < s.get("corr_max", -9) <= 1,
           f"compare -n {n}: {label} distance range and neighbour distance over all offsets",
           (s, lo, hi, first))

# ---- n = 10^7: the summary's closed-form numbers, the pair columns said to be left out ----
rc, out, err, secs = run_timed(["compare", "-n", "1e7", "-o", "-"], wd)
got = summary(out) if rc == 0 else {}
s = got.get("sinusoidal base=10000", {})
w = omegas(10000.0, 128)
want = {k: math.fsum(math.cos(k * x) for x in w) for k in (0, 1, 10, 100)}
ok(rc == 0 and all(abs(s.get(f"decay_{k}", 0) - v) < 1e-9 for k, v in want.items())
   and math.isnan(s.get("distance_min", 0)) and "left empty (nan): they take every pair" in err
   and secs < 60, f"compare -n 1e7 -o csv: decay at 0, 1, 10, 100 is sum cos(k w_i), pair columns "
   f"n/a and said ({secs:.1f} s)", (rc, s, err[:300]))

# ---- figures: memory follows the pixels, not n ----
if SANITIZED:
    skip("figure memory independent of n", "sanitizers change memory use")
else:
    rss = {}
    for n in ("1e4", "1e6"):
        rc, err, secs, rss[n] = run_rss_wait(["compare", "-n", n, "-o", f"c{n}.png"], wd)
        ok(rc == 0 and secs < 60, f"compare -n {n} figure ({secs:.2f} s, {rss[n] / MiB:.0f} MiB)", err)
    ok(rss["1e6"] < rss["1e4"] + 16 * MiB,
       f"compare -n 1e6 holds about what -n 1e4 holds ({rss['1e6'] / MiB:.0f} vs "
       f"{rss['1e4'] / MiB:.0f} MiB)", rss)
    rc, err, secs, peak = run_rss_wait(["compare", "-n", "1e7", "-o", "c.png"], wd)
    ok(rc == 0 and secs < 60 and peak < 160 * MiB,
       f"compare -n 1e7 figure in {secs:.1f} s, peak RSS {peak / MiB:.0f} MiB (was refused at 9.8 GiB)",
       err)
    rc, err, secs, peak = run_rss_wait(["report", "-n", "1e6", "-s", "rope", "-s", "sinusoidal",
                                        "-o", "r.pdf"], wd)
    ok(rc == 0 and secs < 60 and peak < 128 * MiB,
       f"report -n 1e6 in {secs:.1f} s, peak RSS {peak / MiB:.0f} MiB (was refused: 2 x 7 TiB)", err)
    # A budget is honoured: the run fits in it, or is refused at once with one line.
    for args, budget in ((["compare", "-n", "1e6", "-o", "b.png"], 64),
                         (["report", "-n", "1e6", "-o", "b.pdf"], 64),
                         (["report", "-n", "1e7", "-o", "b.html"], 16)):
        rc, err, secs, peak = run_rss_wait(args + ["--max-memory", f"{budget}M"], wd)
        lines = [l for l in err.splitlines() if l.startswith("posenc: error:")]
        good = (rc == 0 and peak <= (budget + 64) * MiB) or \
            (rc == 1 and len(lines) == 1 and "--max-memory" in err and secs < 2)
        ok(good, f"--max-memory {budget}M: posenc {' '.join(args)} -> exit {rc} in {secs:.2f} s, "
           f"peak RSS {peak / MiB:.0f} MiB", err[:300])

# ---- a table's decay over every offset would take n^2 d / 2: thinned, and said ----
t0 = time.time()
r = run(EXE, "report", "-s", "learned", "-n", "12000", "-d", "64", "--max-memory", "1G", "-o", "l.html",
        cwd=wd)
secs = time.time() - t0
html = open(os.path.join(wd, "l.html"), encoding="utf-8").read() if r.rc == 0 else ""
ok(r.rc == 0 and secs < 60 and "offsets k = 0, 2, 4, ... only" in html and "are n/a" in html,
   f"report of a learned table at n=12000 in {secs:.1f} s: decay at k = 0, 2, 4, ..., pair ranges "
   f"n/a, both said", r.err[:300])

shutil.rmtree(wd, ignore_errors=True)
done()
