#!/usr/bin/env python3
"""The learned table's numbers, bit for bit, against the generator written again here from its
definition (lib/scheme/encode_learned.c's header and doc/models.md): element k (position * d + column)
is a normal variate of Marsaglia's polar method fed by the splitmix64 stream whose state starts at
mix(mix(seed) + k); a uniform in [-1, 1) is the top 53 bits times 2^-52 minus 1; the logarithm is
x = m 2^e (frexp, m moved to [sqrt(1/2), sqrt(2))) and log m = 2 atanh((m-1)/(m+1)) from 13 odd terms
of its series, e log 2 in two parts. Python's floats are IEEE doubles rounded to nearest, without
fused operations, so the same operations give the same bits.

The table defines every learned matrix, so a faster generator must give exactly these numbers: small
tables (many rejected candidates, both halves of the logarithm's range), a far window (--start), other
seeds and scales, and a table large enough to be generated on several threads, sampled at its chunk
boundaries."""
import math
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from npyread import load_npy  # noqa: E402
from tap import done, ok, run, workdir  # noqa: E402

EXE = os.path.abspath(sys.argv[1])
wd = workdir()
M64 = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15


def mix(z):
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return z ^ (z >> 31)


seen = {"rejected": 0, "twice": 0, "thrice": 0, "low": 0, "high": 0}


def log_portable(x):
    m, e = math.frexp(x)
    seen["low" if m < 0.70710678118654752440 else "high"] += 1
    if m < 0.70710678118654752440:
        m *= 2.0
        e -= 1
    f = (m - 1.0) / (m + 1.0)
    f2 = f * f
    series = 1.0 / 27.0
    for k in range(25, 0, -2):
        series = 1.0 / k + f2 * series
    ln2_hi, ln2_lo = 6.93147180369123816490e-01, 1.90821492927058770002e-10
    return e * ln2_hi + (2.0 * f * series + e * ln2_lo)


def normal(key, k):
    state = mix((key + k) & M64)
    tries = 0
    while True:
        tries += 1
        # the generator takes two candidates at once, then goes on one by one
        seen["twice"] += tries == 3
        seen["thrice"] += tries == 4
        state = (state + GOLDEN) & M64
        u = (mix(state) >> 11) * 2.0 ** -52 - 1.0
        state = (state + GOLDEN) & M64
        v = (mix(state) >> 11) * 2.0 ** -52 - 1.0
        s = u * u + v * v
        if 0.0 < s < 1.0:
            return u * math.sqrt(-2.0 * log_portable(s) / s)
        seen["rejected"] += 1


def table(spec, n, d, start=0):
    out = os.path.join(wd, "t.npy")
    args = ["encode", "-s", spec, "-n", str(n), "-d", str(d), "-o", out, "-q"]
    if start:
        args += ["--start", str(start)]
    r = run(EXE, *args)
    if r.rc != 0:
        return None, r.err
    shape, vals = load_npy(out)
    return vals if shape == (n, d) else None, shape


def check(name, spec, n, d, start=0, seed=0, std=0.02, sample=None):
    vals, info = table(spec, n, d, start)
    if vals is None:
        ok(False, name, info)
        return
    key = mix(seed)
    idx = sample if sample is not None else range(n * d)
    bad = [(i, vals[i], std * normal(key, start * d + i)) for i in idx
           if vals[i] != std * normal(key, start * d + i)]
    ok(not bad, name + " (%d numbers)" % len(idx), "\n".join("%d: %r != %r" % b for b in bad[:5]))


check("learned 40 x 33, seed 0: the same bits", "learned", 40, 33)
check("learned window from position 1000, seed 5, std 0.3", "learned:seed=5,std=0.3", 30, 17,
      start=1000, seed=5, std=0.3)
check("learned, largest seed, d = 1", "learned:seed=18446744073709551615", 200, 1,
      seed=18446744073709551615)
# Generated on several threads (chunks of 2^18 / d rows): its first, boundary and last rows.
n, d = 20000, 16
rows = list(range(0, 3)) + list(range(16382, 16387)) + list(range(n - 3, n))
check("learned 20000 x 16 (threaded chunks): rows at the edges", "learned", n, d,
      sample=[r * d + j for r in rows for j in range(d)])
# The small table exercised the rejection and both halves of the logarithm's range.
ok(seen["rejected"] > 50 and seen["low"] > 50 and seen["high"] > 50,
   "the checked numbers include rejected candidates and both halves of the logarithm", seen)
ok(seen["twice"] > 5 and seen["thrice"] > 0,
   "and numbers whose first two or three candidates were rejected", seen)
done()
