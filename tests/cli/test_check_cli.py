#!/usr/bin/env python3
"""posenc check and the reduced-precision simulation, against dumps made here by
independent numpy code: Hugging Face's recipe (modeling_rope_utils,
LlamaRotaryEmbedding: inv_freq = 1/base**(arange(0,d,2)/d), freqs = outer(t, inv_freq),
emb = cat(freqs, freqs), cos/sin times attention_scaling, .to(dtype)), written once
correctly and once with each known mistake. Each must be diagnosed as what it is."""
import json
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(__file__))
from tap import done, error_case, ok, require_numpy, run, workdir  # noqa: E402

np = require_numpy("posenc check against numpy dumps")

EXE = os.path.abspath(sys.argv[1])
TMP = workdir()
f32, f16 = np.float32, np.float16


def path(name):
    return os.path.join(TMP, name)


# ---- the reference recipe, written from the HF and Meta sources -------------------------

def inv_freq(base, d, dtype=np.float64, denom=None, exact_pow=False):
    """1 / base ** (arange(0, d, 2) / d), every operation in dtype. numpy's float32 power
    is not always correctly rounded (one ulp off for some exponents); exact_pow rounds the
    float64 power instead, the step posenc's simulation defines."""
    denom = d if denom is None else denom
    e = (np.arange(0, d, 2).astype(dtype) / dtype(denom)).astype(dtype)
    if dtype == np.float64:
        p = base ** e
    elif exact_pow:
        p = (np.float64(base) ** e.astype(np.float64)).astype(f32).astype(dtype)
    else:
        p = (f32(base) ** e.astype(f32)).astype(dtype)
    return (dtype(1) / p).astype(dtype)


def llama3(inv, factor=8.0, low=1.0, high=4.0, orig=8192.0):
    """HF _compute_llama3_parameters, in float64."""
    inv = inv.astype(np.float64)
    wl = 2 * np.pi / inv
    low_wl, high_wl = orig / low, orig / high
    out = np.where(wl > low_wl, inv / factor, inv)
    smooth = (orig / wl - low) / (high - low)
    mid = (wl >= high_wl) & (wl <= low_wl)
    out[mid] = ((1 - smooth) * inv / factor + smooth * inv)[mid]
    return out


def yarn_att(factor):
    return 0.1 * np.log(factor) + 1.0


def yarn(inv, d, base, factor=4.0, orig=4096.0, beta_fast=32.0, beta_slow=1.0):
    """HF _compute_yarn_parameters (truncate=True)."""
    def cd(r):
        return d * np.log(orig / (r * 2 * np.pi)) / (2 * np.log(base))
    low = max(np.floor(cd(beta_fast)), 0)
    high = min(np.ceil(cd(beta_slow)), d - 1)
    if low == high:
        high += 0.001
    ramp = np.clip((np.arange(d // 2) - low) / (high - low), 0, 1)
    extrap = 1 - ramp
    return (inv / factor) * (1 - extrap) + inv * extrap


def bf16(x):
    """float32 rounded to its top 16 bits, ties to even (as torch's .to(bfloat16))."""
    u = np.asarray(x, dtype=f32).view(np.uint32).astype(np.uint64)
    u = (u + 0x7FFF + ((u >> 16) & 1)) & 0xFFFF0000
    return u.astype(np.uint32).view(f32)


def half_tables(theta, pos, att=1.0, dtype=np.float64):
    """HF: freqs = outer(t, inv_freq); emb = cat(freqs, freqs); cos, sin (half layout)."""
    t = pos.astype(dtype)
    freqs = np.outer(t, theta.astype(dtype)).astype(dtype)
    emb = np.concatenate([freqs, freqs], axis=1)
    if dtype == np.float64:
        return np.cos(emb) * att, np.sin(emb) * att
    c = np.cos(emb.astype(f32)).astype(dtype)
    s = np.sin(emb.astype(f32)).astype(dtype)
    if att != 1.0:
        c = (c.astype(f32) * f32(att)).astype(dtype)
        s = (s.astype(f32) * f32(att)).astype(dtype)
    return c, s


def interleaved(tab):
    """repeat_interleave of the first half: the interleaved layout's cos table."""
    h = tab.shape[1] // 2
    return np.repeat(tab[:, :h], 2, axis=1)


def save(name, arr):
    np.save(path(name), arr)
    return path(name)


def save_safetensors_bf16(name, tensors):
    """A .safetensors file with BF16 tensors, written by hand from the format spec."""
    header, blobs, off = {}, [], 0
    for key, arr in tensors.items():
        raw = (bf16(arr).view(np.uint32) >> 16).astype("<u2").tobytes()
        header[key] = {"dtype": "BF16", "shape": list(arr.shape), "data_offsets": [off, off + len(raw)]}
        blobs.append(raw)
        off += len(raw)
    h = json.dumps(header).encode()
    h += b" " * (-len(h) % 8)
    with open(path(name), "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h + b"".join(blobs))
    return path(name)


def check(*args):
    return run(EXE, "check", *args)


def field(r, name):
    for line in r.text.splitlines():
        if line.startswith(name + ":"):
            return line.split(":", 1)[1].strip()
    return ""


def diagnosed(r, needle, name):
    diag = field(r, "diagnosis")
    return ok(r.rc == 3 and needle in diag, name, f"rc={r.rc}\n{r.text}{r.err}")


D, N = 128, 2048
POS = np.arange(N)
LLAMA = "rope:layout=half,base=500000,scaling=llama3,factor=8,low=1,high=4,original=8192"

# ---- a correct dump passes; each kind is recognised -------------------------------------
th = llama3(inv_freq(500000.0, D))
cos, sin = half_tables(th, POS)
p = save("cache.npy", np.concatenate([cos, sin], axis=1))
r = check("-s", LLAMA, "--against", p)
ok(r.rc == 0 and field(r, "verdict").startswith("agree") and "[cos | sin], 2 x 128" in r.text,
   "correct float64 [cos | sin] cache: agree, exit 0, recognised", r.text + r.err)
ok(float(field(r, "max abs error").split()[0]) < 1e-12, "correct cache: error below 1e-12",
   r.text)

r = check("-s", LLAMA, "--against", save("cos.npy", cos))
ok(r.rc == 0 and field(r, "read as").startswith("cos table, 128 columns"), "cos table recognised",
   r.text)
r = check("-s", LLAMA, "--against", save("sin.npy", sin))
ok(r.rc == 0 and field(r, "read as").startswith("sin table"), "sin table recognised", r.text)
r = check("-s", LLAMA, "--against", save("inv.npy", th))
ok(r.rc == 0 and field(r, "read as").startswith("inverse frequencies, 64"), "inv_freq recognised",
   r.text)
freqs = np.outer(POS, th)
r = check("-s", LLAMA, "--against", save("freqs.npy", freqs))
ok(r.rc == 0 and field(r, "read as").startswith("angle table, one column per pair"),
   "HF freqs (angle per pair) recognised", r.text)
vllm = np.concatenate([np.cos(freqs), np.sin(freqs)], axis=1)
r = check("-s", LLAMA, "--against", save("vllm.npy", vllm))
ok(r.rc == 0 and "one column per pair (2 x 64" in field(r, "read as"),
   "vLLM cos_sin_cache [cos_i | sin_i] recognised", r.text)
meta = np.stack([np.cos(freqs), np.sin(freqs)], axis=2).reshape(N, D)
r = check("-s", LLAMA, "--against", save("meta.npy", meta))
ok(r.rc == 0 and "alternating" in field(r, "read as"),
   "Meta view_as_real(freqs_cis) recognised", r.text)
# rotated: a given vector, half layout (rotate_half)
x = np.linspace(-1, 2, D)
xr = np.concatenate([-x[D // 2:], x[:D // 2]])
rot = x * cos + xr * sin
vp = save("x.npy", x)
r = check("-s", LLAMA, "--against", save("rot.npy", rot), "--vector", vp)
ok(r.rc == 0 and field(r, "read as").startswith("rotated vectors"), "rotated vector (--vector)",
   r.text + r.err)
r = check("-s", LLAMA, "--against", path("rot.npy"), "--what", "rotated")
ok(r.rc == 3, "rotated vector checked as rotated ones: disagree", r.text)
# CSV dumps (as pandas to_csv writes them, with an index column)
with open(path("cos.csv"), "w") as f:
    f.write("," + ",".join(str(j) for j in range(D)) + "\n")
    for i in range(64):
        f.write(str(i) + "," + ",".join(repr(float(v)) for v in cos[i]) + "\n")
r = check("-s", LLAMA, "--against", path("cos.csv"))
ok(r.rc == 0 and field(r, "read as").startswith("cos table"), "CSV cos table agrees", r.text + r.err)

# --start: rows are positions 1000..
c2, s2 = half_tables(th, np.arange(1000, 1100))
r = check("-s", LLAMA, "--against", save("cos1000.npy", c2), "--start", "1000")
ok(r.rc == 0 and field(r, "positions") == "1000..1099", "--start 1000 agrees", r.text)

# ---- each known mistake, diagnosed as what it is ------------------------------------------
r = check("-s", LLAMA, "--against", save("layout.npy", interleaved(cos)))
diagnosed(r, "interleaved layout", "swapped layout diagnosed")

c_ns, s_ns = half_tables(inv_freq(500000.0, D), POS)
r = check("-s", LLAMA, "--against", save("noscale.npy", np.concatenate([c_ns, s_ns], axis=1)))
diagnosed(r, "llama3 scaling left out", "missing scaling diagnosed")

c_f16, _ = half_tables(llama3(inv_freq(500000.0, D), factor=16.0), POS)
r = check("-s", LLAMA, "--against", save("factor16.npy", c_f16))
ok(r.rc == 3 and "factor 16 instead of 8" in field(r, "diagnosis"), "scaling factor 16 fitted",
   r.text)

# a port that divides the positions by the linear factor twice (the factor squared): every
# pair's angle is off, so the cos table must still be read as cos from its slow pairs
LIN4 = "rope:layout=half,base=10000,scaling=linear,factor=4"
c_lin16, _ = half_tables(inv_freq(10000.0, D, f32) / f32(16), np.arange(512), dtype=f32)
r = check("-s", LIN4, "--against", save("linear_twice.npy", c_lin16))
ok(r.rc == 3 and field(r, "read as").startswith("cos table") and
   "factor 16 instead of 4" in field(r, "diagnosis") and "applied twice" in field(r, "diagnosis"),
   "linear factor applied twice: read as cos, diagnosed", r.text)

YARN = "rope:layout=half,scaling=yarn,factor=4,original=4096"
thy = yarn(inv_freq(10000.0, D), D, 10000.0)
att = yarn_att(4.0)
cy, sy = half_tables(thy, POS, att)
r = check("-s", YARN, "--against", save("yarn.npy", cy))
ok(r.rc == 0, "yarn cos with its attention factor agrees", r.text)
cy2, _ = half_tables(thy, POS, att * att)
r = check("-s", YARN, "--against", save("yarn_twice.npy", cy2))
diagnosed(r, "applied twice", "attention factor applied twice diagnosed")
cy0, _ = half_tables(thy, POS, 1.0)
r = check("-s", YARN, "--against", save("yarn_missing.npy", cy0))
diagnosed(r, "attention factor 1.1386294 missing", "attention factor missing diagnosed")

c32, s32 = half_tables(llama3(inv_freq(500000.0, D, f32)).astype(f32), POS, dtype=f32)
r = check("-s", LLAMA, "--against", save("f32.npy", np.concatenate([c32, s32], axis=1)))
# a correct float32 port of Llama 3.1 passes with the default flags: judged at its own precision
ok(r.rc == 0 and field(r, "verdict").startswith("agree up to float32 rounding"),
   "correct float32 Llama 3.1 cache agrees up to float32 rounding by default", r.text)
r = check("-s", LLAMA, "--against", save("f32.npy", np.concatenate([c32, s32], axis=1)),
          "--tol", "1e-9")
diagnosed(r, "every step in float32", "float32 angles diagnosed at an explicit --tol")

cb, sb = bf16(c32), bf16(s32)
st = save_safetensors_bf16("bf16.safetensors", {"cos": cb, "sin": sb})
r = check("-s", LLAMA, "--against", st + "#sin")
ok("safetensors BF16" in field(r, "against") and field(r, "read as").startswith("sin table"),
   "safetensors BF16 tensor read with #TENSOR", r.text + r.err)
ok(r.rc == 0 and field(r, "verdict").startswith("agree up to float32 rounding") and
   field(r, "reference").endswith("f32/bf16"),
   "bf16 sin agrees at its own precision (f32/bf16) by default", r.text)
r = check("-s", LLAMA, "--against", st + "#sin", "--tol", "1e-9")
diagnosed(r, "float32 angles, cos and sin stored as bfloat16", "bf16 cos/sin diagnosed")

c_off, _ = half_tables(th, POS + 1)
r = check("-s", LLAMA, "--against", save("off1.npy", c_off))
diagnosed(r, "positions off by +1", "positions off by one diagnosed")

# a port computing in float16 throughout (positions too): float16's largest finite value is
# 65504, so positions from 65520 (which round up past it) are infinite and cos is NaN there
P16 = np.arange(65200, 65712)
with np.errstate(over="ignore", invalid="ignore"):
    t16 = P16.astype(f16)
    ang16 = np.outer(t16, inv_freq(10000.0, D, f16, exact_pow=True)).astype(f16)
    cos16 = np.cos(np.concatenate([ang16, ang16], axis=1).astype(f32)).astype(f16).astype(f32)
nan_rows = np.flatnonzero(np.isnan(cos16).any(axis=1))
ok(len(nan_rows) and P16[nan_rows[0]] == 65520 and not np.isnan(cos16[:nan_rows[0]]).any(),
   "float16 dump: NaN from position 65520 on", P16[nan_rows[:1]])
H10K = "rope:layout=half,base=10000"
r = check("-s", H10K, "--against", save("f16_overflow.npy", cos16), "--start", "65200")
diag = field(r, "diagnosis")
ok(r.rc == 3 and field(r, "read as").startswith("cos table") and
   "every step in float16" in diag and "overflow" in r.text and "65520" in r.text,
   "float16 positions overflowing past 65504: read as cos, float16 named", r.text)
r = check("-s", H10K, "--against", path("f16_overflow.npy"), "--start", "65200",
          "--precision", "f16")
ok(r.rc == 0 and field(r, "verdict").startswith("agree") and "NaN" in r.text,
   "float16 dump with its NaN agrees with --precision f16, the NaN said", r.text)

QWEN = "rope:layout=half,base=1000000"
c_b, s_b = half_tables(inv_freq(10000.0, D), POS)
r = check("-s", QWEN, "--against", save("base.npy", np.concatenate([c_b, s_b], axis=1)))
diag = field(r, "diagnosis")
ok(r.rc == 3 and diag.startswith("base 10000") and "instead of 1000000" in diag,
   "wrong base diagnosed and fitted (10000)", r.text)

# GPT-NeoX: rotary_pct 0.25 of head 64: d_rot 16, exponent over 16; the mistake uses 64 [2d]
NEOX = "rope:layout=half,rotary=0.25"
th_w = inv_freq(10000.0, 16, denom=64)
cw, _ = half_tables(th_w, POS)
r = check("-s", NEOX, "-d", "64", "--against", save("width.npy", cw))
ok(r.rc == 3 and "rotary width 64" in field(r, "diagnosis"), "wrong rotary width diagnosed",
   r.text + r.err)
cw_ok, _ = half_tables(inv_freq(10000.0, 16), POS)
r = check("-s", NEOX, "-d", "64", "--against", save("width_ok.npy", cw_ok))
ok(r.rc == 0 and "rotated features only" in field(r, "read as"),
   "GPT-NeoX rotated-part cos table agrees (d=64 from -d)", r.text + r.err)

# a float32 dump checked against --precision f32 passes
r = check("-s", LLAMA, "--against", path("f32.npy"), "--precision", "f32")
ok(r.rc == 0, "float32 dump agrees with --precision f32", r.text)
r = check("-s", LLAMA, "--against", st + "#cos", "--precision", "f32/bf16")
ok(r.rc == 0, "bf16 dump agrees with --precision f32/bf16", r.text)

# GPT-J's create_sinusoidal_positions order: [sin | cos]
r = check("-s", LLAMA, "--against", save("sincos.npy", np.concatenate([sin, cos], axis=1)))
ok(r.rc == 3 and "cos and sin swapped" in field(r, "diagnosis")
   and field(r, "read as").startswith("cos/sin cache [cos | sin]"),
   "[sin | cos] cache: read as a cos-sin cache, cos and sin swapped", r.text)

# two mistakes at once, in float32: interleaved layout and no scaling
inv32_ns = inv_freq(500000.0, D, f32)
fr = np.outer(POS.astype(f32), inv32_ns).astype(f32)
r = check("-s", LLAMA, "--against", save("two.npy", np.repeat(np.cos(fr), 2, axis=1)))
diag = field(r, "diagnosis")
ok(r.rc == 3 and "interleaved layout" in diag and "llama3 scaling left out" in diag
   and "float32" in diag, "two mistakes in float32: layout and no scaling, both named", r.text)

# any position-vector scheme: its table (the paper's sinusoidal table, written here)
k = np.arange(8)
w = 1.0 / 10000.0 ** (2 * k / 16)
tab = np.zeros((50, 16))
tab[:, 0::2] = np.sin(np.outer(np.arange(50), w))
tab[:, 1::2] = np.cos(np.outer(np.arange(50), w))
r = check("-s", "sinusoidal", "--against", save("sinus.npy", tab))
ok(r.rc == 0 and field(r, "read as").startswith("encoding table"), "sinusoidal table agrees",
   r.text + r.err)
r = check("-s", "sinusoidal", "--against", path("sinus.npy"), "--start", "2")
diagnosed(r, "positions off by -2", "sinusoidal table with fairseq's start: offset diagnosed")

# ---- the report's files ------------------------------------------------------------------------
r = check("-s", LLAMA, "--against", path("off1.npy"), "-o", path("err.csv"))
with open(path("err.csv")) as f:
    rows = [l.strip().split(",") for l in f]
ok(r.rc == 3 and rows[0] == ["position", "abs_error", "rel_error", "column", "diagnosis_error"]
   and len(rows) == N + 1 and float(rows[1][4]) < 1e-15, "-o err.csv: per position, with the diagnosis",
   rows[:2])
r = check("-s", LLAMA, "--against", path("off1.npy"), "-o", path("err.png"), "-q")
with open(path("err.png"), "rb") as f:
    ok(r.rc == 3 and f.read(8) == b"\x89PNG\r\n\x1a\n", "-o err.png draws a figure", r.err)

# ---- exit statuses ------------------------------------------------------------------------------
wd = workdir()
error_case(EXE, "check without --against", ["check", "-s", "rope"], 2, "--against", cwd=wd)
error_case(EXE, "check without -s", ["check", "--against", path("cos.npy")], 2, "-s SPEC", cwd=wd)
error_case(EXE, "check of a missing file", ["check", "-s", "rope", "--against",
                                             os.path.join(wd, "nope.npy")], 1, "nope.npy", cwd=wd)
error_case(EXE, "check --what bad", ["check", "-s", "rope", "--against", path("cos.npy"),
                                     "--what", "tan"], 2, "--what", cwd=wd)
error_case(EXE, "check a width no form has", ["check", "-s", "rope", "-d", "64", "--against",
                                              path("cos.npy"), "--what", "cos"], 2, "is not a cos table",
           cwd=wd)
error_case(EXE, "check a missing tensor", ["check", "-s", "rope", "--against", st + "#tan"], 1,
           "tan", cwd=wd)
error_case(EXE, "encode --precision of a sinusoidal table",
           ["encode", "-s", "sinusoidal", "--precision", "f32", "-o", "-"], 2, "rope", cwd=wd)
error_case(EXE, "encode --precision f8", ["encode", "-s", "rope", "--precision", "f8", "-o", "-"],
           2, "--precision", cwd=wd)
error_case(EXE, "precision of a sinusoidal table", ["precision", "-s", "sinusoidal", "-o", "-"],
           2, "rope", cwd=wd)
error_case(EXE, "precision --precision bf16/f32 (storage finer than the arithmetic)",
           ["precision", "--precision", "bf16/f32", "-o", "-"], 2, "--precision", cwd=wd)
error_case(EXE, "precision --threshold 0", ["precision", "--threshold", "0", "-o", "-"], 2,
           "--threshold", cwd=wd)
r = run(EXE, "check", "--help")
ok(r.rc == 0 and "Exit status: 0" in r.text and "3 it disagrees" in r.text,
   "check --help documents the exit statuses", r.text[:200])

# ---- the simulation against numpy's own float32 / float16 arithmetic ---------------------------
n, d = 3000, 64
pos = np.arange(n)


def encode(*args):
    out = path("enc.npy")
    r = run(EXE, "encode", "-s", "rope:layout=half,base=10000", "-n", str(n), "-d", str(d),
            *args, "-o", out, "-q")
    return np.load(out) if r.rc == 0 else None


inv32 = inv_freq(10000.0, d, f32, exact_pow=True)
ang32 = np.outer(pos.astype(f32), inv32).astype(f32)
a = encode("--view", "angle", "--precision", "f32")
ok(a is not None and np.array_equal(a[:, :d // 2], ang32.astype(np.float64)),
   "f32 angles: bit for bit numpy's float32 recipe")
c = encode("--view", "cos", "--precision", "f32")
want = np.cos(ang32)
ulp = np.spacing(np.abs(want).astype(f32))
ok(c is not None and np.all(np.abs(c[:, :d // 2] - want) <= ulp),
   "f32 cos within an ulp of numpy's float32 cos", np.max(np.abs(c[:, :d // 2] - want) / ulp))
cb = encode("--view", "cos", "--precision", "f32/bf16")
want = bf16(np.cos(ang32.astype(np.float64)).astype(f32))
ok(cb is not None and np.mean(cb[:, :d // 2] == want) > 0.999 and
   np.all(np.abs(cb[:, :d // 2] - want) <= 2.0 ** -8),
   "f32/bf16 cos: float32 cos rounded to its top 16 bits")

inv16 = inv_freq(10000.0, d, f16)
ang16 = np.outer(pos.astype(f16), inv16).astype(f16)
a = encode("--view", "angle", "--precision", "f16")
ok(a is not None and np.array_equal(a[:, :d // 2], ang16.astype(np.float64)),
   "f16 inv_freq, positions and angles: bit for bit numpy's float16 arithmetic",
   None if a is None else np.argwhere(a[:, :d // 2] != ang16))
s = encode("--view", "sin", "--precision", "f16")
want = np.sin(ang16.astype(f32)).astype(f16).astype(np.float64)
ok(s is not None and np.mean(s[:, :d // 2] == want) > 0.999 and
   np.all(np.abs(s[:, :d // 2] - want) <= np.spacing(np.abs(want).astype(f16)).astype(np.float64)),
   "f16 sin: numpy float16 within an ulp (float32 sin rounded)")
big = run(EXE, "encode", "-s", "rope", "-n", "2", "--start", "65519", "-d", "4", "--view", "angle",
          "--precision", "f16", "-o", "-")
ok(big.rc == 0 and big.text.splitlines()[2].startswith("65520,inf"),
   "f16 positions past 65504 overflow to inf, as numpy's", big.text)

# ---- posenc precision ---------------------------------------------------------------------------
out = path("prec.csv")
r = run(EXE, "precision", "-s", "rope:layout=half,base=10000", "-n", "4096", "-d", "64",
        "--precision", "f32,f32/bf16", "--block", "1", "-o", out)
tab = np.loadtxt(out, delimiter=",", skiprows=1)
c32 = np.cos(np.outer(np.arange(4096).astype(f32), inv32).astype(f32)).astype(np.float64)
s32 = np.sin(np.outer(np.arange(4096).astype(f32), inv32).astype(f32)).astype(np.float64)
exact = np.outer(np.arange(4096), inv_freq(10000.0, d))
e32 = np.maximum(np.abs(c32 - np.cos(exact)), np.abs(s32 - np.sin(exact))).max(axis=1)
ok(r.rc == 0 and tab.shape == (4096, 3) and np.allclose(tab[:, 1], e32, rtol=0, atol=2e-7),
   "precision f32 curve: numpy's float32 error per position (within an ulp)",
   np.max(np.abs(tab[:, 1] - e32)))
first = int(np.argmax(e32 > 1e-4))
r = run(EXE, "precision", "-s", "rope:layout=half,base=10000", "-n", "4096", "-d", "64",
        "--precision", "f32", "--threshold", "1e-4", "-o", path("p.csv"))
ok(r.rc == 0 and f"first above 0.0001 at position {first}" in r.err,
   "precision reports the first position above the threshold", (first, r.err))
r = run(EXE, "precision", "-s", "rope:layout=half,base=10000", "-n", "100000", "--block", "1000",
        "-o", path("p2.csv"), "-q")
tab2 = np.loadtxt(path("p2.csv"), delimiter=",", skiprows=1)
ok(r.rc == 0 and tab2.shape == (100, 4) and tab2[0, 0] == 0 and tab2[1, 0] == 1000,
   "precision --block 1000: one row per block", tab2[:2])
# ---- Gemma 4's proportional RoPE: HF's cos cache, and the partial-rotation port ----------------
# transformers' _compute_proportional_rope_parameters with global_head_dim 512, base 1e6,
# partial_rotary_factor 0.25: 64 frequencies base^(-2i/512), then 192 zeros; cos =
# cat(freqs, freqs).cos() over the whole head.
hd, ra = 512, int(0.25 * 512 // 2)
g4_inv = np.concatenate([1.0 / (1e6 ** (np.arange(0, 2 * ra, 2) / hd)), np.zeros(hd // 2 - ra)])
pos = np.arange(300.0)
fr = np.outer(pos, g4_inv)
np.save(path("g4cos.npy"), np.cos(np.concatenate([fr, fr], axis=1)))
r = run(EXE, "check", "-s", "model:gemma-4-31b", "--layer", "global", "--against",
        path("g4cos.npy"), "--what", "cos")
ok(r.rc == 0 and "agree" in r.text, "gemma 4 global: HF's proportional cos cache agrees", r.text)
# The port that treats the factor as ordinary partial rotation: 128 columns at base^(-2i/128).
inv2 = 1.0 / (1e6 ** (np.arange(0, 128, 2) / 128))
fr2 = np.outer(pos, inv2)
wrong = np.ones((300, 512))
wrong[:, :128] = np.cos(np.concatenate([fr2, fr2], axis=1))
np.save(path("g4wrong.npy"), wrong)
r = run(EXE, "check", "-s", "model:gemma-4-31b", "--layer", "global", "--against",
        path("g4wrong.npy"), "--what", "cos")
ok(r.rc == 3 and "proportional RoPE computed as partial rotation (rotary=0.25)" in r.text,
   "gemma 4 global: the partial-rotation port is diagnosed", r.text)

# Partial rotation (GPT-NeoX rotary_pct, Phi-2 partial_rotary_factor) against the whole head:
# x rotated by HF's apply_rotary_pos_emb on its first d_rot columns (q_rot, q_pass split,
# rotate_half inside q_rot), written here from modeling_gpt_neox.py.


def rotate_part(x, d_rot, base, pos):
    th = 1.0 / base ** (np.arange(0, d_rot, 2) / d_rot)
    ang = np.outer(pos, th)
    c = np.cos(np.concatenate([ang, ang], axis=1))
    s = np.sin(np.concatenate([ang, ang], axis=1))
    xr, xp = x[:d_rot], x[d_rot:]
    half = np.concatenate([-xr[d_rot // 2:], xr[:d_rot // 2]])
    return np.concatenate([xr * c + half * s, np.tile(xp, (len(pos), 1))], axis=1)


x80 = np.linspace(-1.5, 1.0, 80)
xp80 = save("x80.npy", x80)
full = rotate_part(x80, 80, 10000.0, pos)
r = check("-s", "rope:layout=half,base=10000,rotary=0.4", "--against", save("fullrot.npy", full),
          "--what", "rotated", "--vector", xp80, "-d", "80")
diagnosed(r, "the whole head rotated (rotary fraction 0.4 left out)",
          "partial rotary ported as a whole-head rotation diagnosed")
r = check("-s", "rope:layout=half,base=10000,rotary=0.4", "--against",
          save("part04.npy", rotate_part(x80, 32, 10000.0, pos)), "--what", "rotated", "--vector",
          xp80, "-d", "80")
ok(r.rc == 0, "GPT-NeoX-style partial rotation (32 of 80) agrees", r.text + r.err)
r = check("-s", "rope:layout=half,base=10000", "--against",
          save("part05.npy", rotate_part(x80, 40, 10000.0, pos)), "--what", "rotated", "--vector",
          xp80, "-d", "80")
diagnosed(r, "partial rotation (rotary fraction 0.5): the first 40 columns",
          "a half-head rotation against a whole-head spec diagnosed")

# A LongRoPE spec holds one factor per pair: the other-width hypotheses cannot be built for it
# and are skipped, the dump is still diagnosed (an error here once stopped the whole check).
sf = np.linspace(1.0, 1.5, 32)
lf = np.linspace(1.0, 20.0, 32)
lr_spec = ("rope:layout=half,base=10000,scaling=longrope,factor=16,original=2048,short-factor="
           + "/".join(f"{v:.6g}" for v in sf) + ",long-factor=" + "/".join(f"{v:.6g}" for v in lf))
th64 = 1.0 / 10000.0 ** (np.arange(0, 64, 2) / 64)
ang = np.outer(pos, th64)  # the factors left out: plain RoPE at the same width
r = check("-s", lr_spec, "--against", save("lr_plain.npy", np.concatenate([np.cos(ang), np.sin(ang)], 1)),
          "--what", "cos-sin:pairs", "-d", "64")
ok(r.rc == 3 and field(r, "diagnosis") != "", "LongRoPE spec, a dump without its factors: diagnosed",
   f"rc={r.rc}\n{r.text}{r.err}")

# Dumps with torch's own shapes: HF's rotary_emb returns cos as (batch, seq, dim), Meta's
# torch.view_as_real(freqs_cis) is (seq, dim/2, 2).
r = check("-s", LLAMA, "--against", save("cos_b.npy", cos[None]), "--what", "cos")
ok(r.rc == 0, "HF's (1, seq, dim) cos read without its batch axis", r.text + r.err)
r = check("-s", LLAMA, "--against", save("cis_3d.npy", meta.reshape(N, D // 2, 2)))
ok(r.rc == 0 and "alternating" in field(r, "read as"),
   "view_as_real (seq, dim/2, 2) read as cos and sin alternating", r.text + r.err)

# A bfloat16 model's rotation (HF: cos and sin computed in float32, cast to bfloat16 with the
# query, q * cos + rotate_half(q) * sin with every product and the sum rounded to bfloat16),
# checked against a claimed "bf16 everywhere": the diagnosis names the storage its values show.
th128 = (1.0 / f32(10000.0) ** (np.arange(0, 128, 2, dtype=f32) / f32(128))).astype(f32)
fr = np.outer(np.arange(512, dtype=f32), th128).astype(f32)
cb = bf16(np.cos(np.concatenate([fr, fr], 1)))
sb = bf16(np.sin(np.concatenate([fr, fr], 1)))
xq = bf16(np.linspace(-2.0, 2.0, 128, dtype=f32))
xh = np.concatenate([-xq[64:], xq[:64]])
rq = bf16(bf16(xq * cb) + bf16(xh * sb))
xqp = save("xq.npy", xq.astype(np.float64))
r = check("-s", "rope:layout=half,base=10000", "--against", save("rot_bf16.npy", rq.astype(f32)),
          "--what", "rotated", "--vector", xqp, "-d", "128", "--precision", "bf16")
diagnosed(r, "stored as bfloat16 (posenc --precision f32/bf16)",
          "bfloat16 model's rotation against --precision bf16: f32/bf16 named")
r = check("-s", "rope:layout=half,base=10000", "--against", path("rot_bf16.npy"), "--what", "rotated",
          "--vector", xqp, "-d", "128")
ok(r.rc == 0 and "agree" in field(r, "verdict"), "the same rotation agrees by default (up to rounding)",
   r.text + r.err)

done()
