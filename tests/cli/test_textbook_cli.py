#!/usr/bin/env python3
"""The textbook schemes and their analyses against the reference code, restated here in numpy:

- ALiBi: Press et al.'s get_slopes (ofirpress/attention_with_linear_biases
  fairseq/models/transformer.py, as HF bloom's build_alibi_tensor) and MPT's slopes
  (HF models/mpt/modeling_mpt.py build_mpt_alibi_tensor: 1 / 2^(k B / n2), k = 1..n2, n2 the
  power of two at or above the head count, then concat(slopes[1::2], slopes[::2])[:heads]),
  every head count 1..64; the bias tensor of both forms with its causal mask.
- T5: HF T5Attention._relative_position_bucket (models/t5/modeling_t5.py), whose log step runs on
  float32 tensors, for every offset -1199..1199.
- Sinusoids: HF create_sinusoidal_embeddings (distilbert) and Marian's _init_weight (paper
  frequencies, interleaved and [sin | cos]), tensor2tensor get_timing_signal_1d (Whisper's
  sinusoids) and fairseq SinusoidalPositionalEmbedding.get_embedding with padding_idx 1.
- Analyses from those tables: distance (l2, l1, linf, cosine), corr (numpy.corrcoef), profile,
  scatter, decay (mean dot product over pairs) and RoFormer's bound over the rotated width.
- precision: the float32/bfloat16/float16 recipe of the man page (PRECISION) step by step,
  float16 by numpy, bfloat16 by rounding float32 bits to nearest even.
"""
import csv
import io
import math
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from tap import done, ok, require_numpy, run, workdir  # noqa: E402

np = require_numpy("textbook references")
EXE = os.path.abspath(sys.argv[1])
TMP = workdir()


def npy(*args):
    path = os.path.join(TMP, "out.npy")
    r = run(EXE, *args, "-q", "-o", path)
    return np.load(path) if r.rc == 0 else None


def table(*args):
    r = run(EXE, *args, "-o", "-")
    rows = list(csv.reader(io.StringIO(r.text)))
    return rows[0], np.array([[float(x) for x in row] for row in rows[1:]])


# ---- ALiBi ------------------------------------------------------------------------------------
def press_slopes(n):
    def power_of_2(n):
        start = 2 ** (-2 ** -(math.log2(n) - 3))
        return [start * start ** i for i in range(n)]
    if math.log2(n).is_integer():
        return power_of_2(n)
    c = 2 ** math.floor(math.log2(n))
    return power_of_2(c) + press_slopes(2 * c)[0::2][:n - c]


def mpt_slopes(n, bias_max):
    n2 = 2 ** math.ceil(math.log2(n))
    s = 1.0 / 2.0 ** (np.arange(1, n2 + 1) * (bias_max / n2))
    return s if n2 == n else np.concatenate([s[1::2], s[::2]])[:n]


def alibi_ref(slopes, n, official):
    i, j = np.arange(n)[:, None], np.arange(n)[None, :]
    rel = (j + 0 * i) if official else (j - i)
    return np.where(j > i, -np.inf, np.asarray(slopes)[:, None, None] * rel[None])


worst, bad = 0.0, []
for heads in range(1, 65):
    for rule, official, want_slopes in (("press", 0, press_slopes(heads)),
                                        ("mpt", 1, mpt_slopes(heads, 8)),
                                        ("mpt,bias-max=12.5", 0, mpt_slopes(heads, 12.5))):
        spec = f"alibi:heads={heads},slopes={rule},form={'official' if official else 'paper'}"
        got = npy("bias", "-s", spec, "-n", "4")
        want = alibi_ref(want_slopes, 4, official)
        if got is None or got.shape != want.shape or not np.array_equal(np.isinf(got), np.isinf(want)):
            bad.append(spec)
            continue
        fin = np.isfinite(want)
        worst = max(worst, float(np.max(np.abs(got[fin] - want[fin]) / np.maximum(np.abs(want[fin]), 1e-300))))
ok(not bad and worst < 1e-14, "alibi heads 1..64: get_slopes and MPT's (bias-max 8, 12.5), both "
   "forms, keys after the query -inf", f"failed {bad[:5]}; worst relative difference {worst:g}")
# MPT's order past a power of two, by hand: 6 heads, B = 12 -> n2 = 8, step 1.5; the even k
# (2, 4, 6, 8) first, then k = 1, 3.
got = npy("bias", "-s", "alibi:heads=6,slopes=mpt,bias-max=12", "-n", "2")
want = [2.0 ** -3, 2.0 ** -6, 2.0 ** -9, 2.0 ** -12, 2.0 ** -1.5, 2.0 ** -4.5]
ok(got is not None and np.allclose(-got[:, 1, 0], want, rtol=1e-15, atol=0),
   "alibi slopes=mpt 6 heads bias-max 12: 2^-3, 2^-6, 2^-9, 2^-12, 2^-1.5, 2^-4.5",
   None if got is None else -got[:, 1, 0])


# ---- T5 ---------------------------------------------------------------------------------------
def t5_ref(rel, buckets, max_distance, bidirectional):
    rel = np.asarray(rel, dtype=np.int64)
    out = np.zeros_like(rel)
    if bidirectional:
        buckets //= 2
        out += (rel > 0).astype(np.int64) * buckets
        rel = np.abs(rel)
    else:
        rel = -np.minimum(rel, 0)
    exact = buckets // 2
    with np.errstate(divide="ignore"):
        x = (np.log(rel.astype(np.float32) / np.float32(exact)) /
             np.float32(math.log(max_distance / exact)) * np.float32(buckets - exact))
    large = np.minimum(exact + np.where(rel < exact, 0, x).astype(np.int64), buckets - 1)
    return out + np.where(rel < exact, rel, large)


n = 1200
rel = np.arange(-(n - 1), n)
for buckets, max_distance in ((32, 128), (128, 128), (16, 500)):
    for bidirectional in (1, 0):
        spec = f"t5:buckets={buckets},max-distance={max_distance},bidirectional={bidirectional}"
        got = npy("bias", "-s", spec, "-n", str(n), "--dtype", "f32")
        # offsets -(n-1)..-1 from the last query's row, 0..n-1 from the first query's
        row = None if got is None else np.concatenate([got[n - 1, :n - 1], got[0]])
        want = t5_ref(rel, buckets, max_distance, bidirectional)
        ok(row is not None and np.array_equal(row, want),
           f"{spec}: the bucket of every offset -{n - 1}..{n - 1}",
           None if row is None else rel[np.nonzero(row != want)[0][:10]])


# ---- sinusoidal tables --------------------------------------------------------------------------
def paper_angles(pos, d, base):
    return np.array([[p / base ** (2 * (j // 2) / d) for j in range(d)] for p in pos])


def hf_interleaved(pos, d, base):
    a = paper_angles(pos, d, base)
    out = np.zeros_like(a)
    out[:, 0::2], out[:, 1::2] = np.sin(a[:, 0::2]), np.cos(a[:, 1::2])
    return out


def marian(pos, d, base):
    a = paper_angles(pos, d, base)
    out = np.zeros_like(a)
    s = d // 2 if d % 2 == 0 else d // 2 + 1
    out[:, :s], out[:, s:] = np.sin(a[:, 0::2]), np.cos(a[:, 1::2])
    return out


def t2t(pos, d, base):
    k = d // 2
    inv = np.exp(np.arange(k) * -(math.log(base) / max(k - 1, 1)))
    t = np.asarray(pos, dtype=np.float64)[:, None] * inv[None, :]
    return np.pad(np.concatenate([np.sin(t), np.cos(t)], axis=1), [[0, 0], [0, d % 2]])


def fairseq(rows, d):
    """get_embedding(rows, d, padding_idx=1): row 1 zeroed; token t is row t + 2."""
    e = t2t(range(rows), d, 10000.0)
    e[1, :] = 0
    return e


worst, bad = 0.0, []
for d in (1, 2, 5, 8, 9, 64):
    for base in (10000.0, 10.0):
        for start in (0, 1000):
            pos = np.arange(start, start + 24)
            for spec, ref in (("sinusoidal", hf_interleaved), ("sinusoidal:layout=blocks", marian),
                              ("sinusoidal:layout=blocks,freq=t2t", t2t)):
                if ref is t2t and d < 2:
                    continue
                sep = "," if ":" in spec else ":"
                got = npy("encode", "-s", f"{spec}{sep}base={base:g}", "-n", "24", "-d", str(d),
                          "--start", str(start))
                want = ref(pos, d, base)
                if got is None or got.shape != want.shape:
                    bad.append((spec, d, base, start))
                    continue
                worst = max(worst, float(np.max(np.abs(got - want))))
ok(not bad and worst < 1e-12, "sinusoidal tables: HF interleaved, Marian blocks, tensor2tensor; "
   "d = 1..64, odd and even, base 10 and 10000, from positions 0 and 1000",
   f"failed {bad[:4]}; worst {worst:g}")
for d in (16, 15):
    got = npy("encode", "-s", "sinusoidal:layout=blocks,freq=t2t,start=2", "-n", "30", "-d", str(d))
    want = fairseq(32, d)[2:]
    ok(got is not None and got.shape == want.shape and np.max(np.abs(got - want)) < 1e-13,
       f"fairseq get_embedding d={d}: token t is row t + 2 (padding_idx 1)",
       None if got is None else np.max(np.abs(got - want)))


# ---- analyses of a restated table ---------------------------------------------------------------
def metric(X, name):
    diff = X[:, None, :] - X[None, :, :]
    if name == "l2":
        return np.sqrt((diff ** 2).sum(-1))
    if name == "l1":
        return np.abs(diff).sum(-1)
    if name == "linf":
        return np.abs(diff).max(-1)
    norm = np.linalg.norm(X, axis=1)
    return 1.0 - X @ X.T / np.outer(norm, norm)


for spec, d, ref in (("sinusoidal", 13, hf_interleaved), ("sinusoidal:layout=blocks,freq=t2t", 12, t2t)):
    start, n = 37, 20
    X = ref(np.arange(start, start + n + 4), d, 10000.0)
    common = ["-s", spec, "-d", str(d), "--start", str(start)]
    for name in ("l2", "l1", "linf", "cosine"):
        want = metric(X, name)
        got = npy("distance", *common, "-n", str(n), "--metric", name)
        ok(got is not None and np.max(np.abs(got - want[:n, :n])) < 1e-12,
           f"distance --metric {name}, {spec} d={d} from {start}",
           None if got is None else np.max(np.abs(got - want[:n, :n])))
        at = [start, start + 5, start + n + 3]  # the last one outside the range
        head, prof = table("profile", *common, "-n", str(n), "--metric", name,
                           "--at", ",".join(map(str, at)))
        wp = want[[a - start for a in at]][:, :n].T
        ok(head == ["position"] + [str(a) for a in at] and
           np.array_equal(prof[:, 0], np.arange(start, start + n)) and
           np.max(np.abs(prof[:, 1:] - wp)) < 1e-12, f"profile --metric {name}: one column per --at",
           head)
        head, sc = table("scatter", *common, "-n", str(n), "--metric", name)
        i, j = sc[:, 1].astype(int) - start, sc[:, 2].astype(int) - start
        corr = np.corrcoef(X[:n])
        ok(head == ["pair", "position_i", "position_j", name, "corr"] and len(sc) == n * (n - 1) // 2
           and np.all(i < j) and np.max(np.abs(sc[:, 3] - want[i, j])) < 1e-12 and
           np.max(np.abs(sc[:, 4] - corr[i, j])) < 1e-12, f"scatter --metric {name}: pairs i < j",
           head)
    got = npy("corr", *common, "-n", str(n))
    ok(got is not None and np.max(np.abs(got - np.corrcoef(X[:n]))) < 1e-12,
       f"corr: numpy.corrcoef of {spec} d={d}", None if got is None else got[:2, :2])
    K = 12
    head, dec = table("decay", *common, "-n", str(n), "--max-offset", str(K))
    want = [np.mean([X[m] @ X[m + k] for m in range(n - k)]) for k in range(K + 1)]
    ok(np.max(np.abs(dec[:, 1] - want)) < 1e-12,
       f"decay: mean dot product of positions k apart, {spec} d={d} (odd: the lone sine column)",
       dec[:3, 1])

# RoFormer's bound over the rotated width: rotary=0.5 of d=128 rotates 64 features.
head, bound = table("decay", "-s", "rope:rotary=0.5", "-d", "128", "--max-offset", "300", "--bound")
theta = 1.0 / 10000.0 ** (np.arange(0, 64, 2) / 64)
S = np.cumsum(np.exp(1j * np.outer(np.arange(301), theta)), axis=1)
want = np.abs(S).mean(axis=1)
ok(bound[0, 1] == 16.5 and np.max(np.abs(bound[:, 1] - want)) < 1e-12,
   "decay --bound with rotary=0.5, d=128: (1/32) sum_j |S_j| over 32 pairs, 16.5 at k = 0",
   bound[:3, 1])


# ---- precision ----------------------------------------------------------------------------------
def bf16(x):
    b = np.atleast_1d(np.asarray(x, dtype=np.float32)).view(np.uint32).astype(np.uint64)
    b = (b + np.uint64(0x7FFF) + ((b >> np.uint64(16)) & np.uint64(1))) & np.uint64(0xFFFF0000)
    return b.astype(np.uint32).view(np.float32)


def f16(x):
    with np.errstate(over="ignore"):
        return np.asarray(x, dtype=np.float32).astype(np.float16).astype(np.float32)


ROUND = {"f32": lambda x: np.asarray(x, dtype=np.float32), "bf16": bf16, "f16": f16}


def rope_error(compute, store, m, d, base):
    """The largest |cos - exact|, |sin - exact| of position m, the man page's steps 1-9."""
    r, s = ROUND[compute], ROUND[store]
    i2 = np.arange(0, d, 2)
    e = r(r(i2.astype(np.float32)) / r(np.float32(d)))
    p = r((float(np.float32(base)) ** e.astype(np.float64)).astype(np.float32))
    theta = r(np.float32(1) / p)
    with np.errstate(over="ignore", invalid="ignore"):
        angle = r(r(np.float32(m)) * theta).astype(np.float64)
        c = s(r(np.cos(angle).astype(np.float32)))
        sn = s(r(np.sin(angle).astype(np.float32)))
    exact = m * (1.0 / base ** (i2 / d))
    return max(np.max(np.abs(c - np.cos(exact))), np.max(np.abs(sn - np.sin(exact))))


precisions = ["f32", "bf16", "f16", "f32/bf16", "f32/f16"]
for start in (0, 1000, 40000, 70000):
    head, got = table("precision", "-q", "-s", "rope:base=500000", "-d", "64", "-n", "3",
                      "--start", str(start), "--block", "1", "--precision", ",".join(precisions))
    good = head == ["position"] + precisions
    detail = []
    for row in got:
        m = int(row[0])
        for name, v in zip(precisions, row[1:]):
            compute, store = (name.split("/") + [name])[:2]
            w = rope_error(compute, store, m, 64, 500000.0)
            # the float64 exact angle m theta is itself off by up to ~1e-16 m
            same = (math.isinf(v) and not math.isfinite(w)) or abs(v - w) <= 1e-13 + 1e-15 * m
            good = good and same
            if not same:
                detail.append((m, name, v, w))
    ok(good, f"precision from {start}: the largest cos/sin error of each precision per position "
       "(float16 overflows past 65504)", detail[:6])

done()
