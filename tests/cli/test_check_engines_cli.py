#!/usr/bin/env python3
"""posenc check against tables computed here, in numpy, the way inference engines compute
them: ggml's float32 path (llama.cpp, ggml-cpu ops.cpp ggml_rope_cache_init / rope_yarn:
theta_scale = powf(base, -2/n_dims) multiplied pair by pair, freq_factors, YaRN's ramp),
vLLM's caches (one cache for every position: dynamic NTK at max_position x factor,
Phi-3's LongRoPE with float32 factors), and transformers' reference. Correct tables agree at
their own precision without a hand-picked --tol; engine differences are named."""
import json
import math
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
from tap import done, ok, require_numpy, run, workdir  # noqa: E402

np = require_numpy("posenc check against engine-style numpy dumps")

EXE = os.path.abspath(sys.argv[1])
TMP = workdir()
f32 = np.float32


def save(name, arr):
    p = os.path.join(TMP, name)
    np.save(p, arr)
    return p


def check(*args):
    return run(EXE, "check", *args)


def field(r, name):
    for line in r.text.splitlines():
        if line.startswith(name + ":"):
            return line.split(":", 1)[1].strip()
    return ""


def ggml_cache(base, n_dims, pos, freq_scale=1.0, ff=None):
    """ggml_rope_cache_init in float32: per position theta = p, then theta *= theta_scale
    after each pair; rope_yarn without YaRN: cos(freq_scale * theta / ff). Returns the
    [cos_0..cos_h | sin_0..sin_h] cache (vLLM's packing, one column per pair)."""
    h = n_dims // 2
    ts = f32(base) ** (f32(-2.0) / f32(n_dims))
    theta = np.asarray(pos, dtype=np.float64).astype(f32)
    ang = np.empty((len(pos), h), dtype=f32)
    for i in range(h):
        t = theta if ff is None else (theta / f32(ff[i])).astype(f32)
        ang[:, i] = (f32(freq_scale) * t).astype(f32)
        theta = (theta * ts).astype(f32)
    return np.concatenate([np.cos(ang), np.sin(ang)], axis=1).astype(f32)


def torch_cache(inv, pos, att=1.0):
    """transformers / vLLM in float32: freqs = outer(t.float(), inv_freq), cos, sin."""
    a = np.outer(np.asarray(pos, dtype=np.float64).astype(f32), inv.astype(f32)).astype(f32)
    c, s = np.cos(a), np.sin(a)
    if att != 1.0:
        c, s = (c * f32(att)).astype(f32), (s * f32(att)).astype(f32)
    return np.concatenate([c, s], axis=1).astype(f32)


def exact_cache(inv, pos, att=1.0):
    a = np.outer(np.asarray(pos, dtype=np.float64), inv)
    return np.concatenate([np.cos(a) * att, np.sin(a) * att], axis=1)


def inv_f32(base, d):
    e = (np.arange(0, d, 2).astype(f32) / f32(d)).astype(f32)
    return (f32(1) / (f32(base) ** e)).astype(f32)


def inv_f64(base, d):
    return 1.0 / base ** (np.arange(0, d, 2) / d)


D = 128
P512 = np.arange(512)
PAIRS = ["--what", "cos-sin:pairs", "-d", str(D)]

# ---- ggml's float32 path ------------------------------------------------------------------
g = save("ggml_b10k.npy", ggml_cache(10000.0, D, P512))
r = check("-s", "rope:layout=half,base=10000", "--against", g, *PAIRS)
ok(r.rc == 0 and field(r, "verdict").startswith("agree up to float32 rounding") and
   "ggml" in r.text, "ggml float32 cache agrees up to float32 rounding by default", r.text)
r = check("-s", "rope:layout=half,base=10000", "--against", g, *PAIRS, "--precision", "f32")
ok(r.rc == 0, "ggml float32 cache agrees at --precision f32 (ggml's path)", r.text)
r = check("-s", "rope:layout=half,base=10000", "--against", g, *PAIRS, "--precision", "f32",
          "--engine", "hf")
ok(r.rc == 3, "--engine hf --precision f32: torch's path only, the ggml cache is off", r.text)
r = check("-s", "rope:layout=half,base=10000", "--against", g, *PAIRS, "--precision", "f32",
          "--engine", "llama.cpp")
ok(r.rc == 0, "--engine llama.cpp --precision f32: ggml's path agrees", r.text)

# far positions: float32 itself loses the table (0.1 rad at 10^6): disagree, named
far = np.arange(1000000, 1000512)
g = save("ggml_far.npy", ggml_cache(500000.0, D, far))
r = check("-s", "rope:layout=half,base=500000", "--against", g, *PAIRS, "--start", "1000000")
ok(r.rc == 3 and "float32 as ggml computes it" in field(r, "diagnosis"),
   "ggml float32 at position 1e6: disagree, diagnosed as ggml's float32 path", r.text)
r = check("-s", "rope:layout=half,base=500000", "--against", g, *PAIRS, "--start", "1000000",
          "--precision", "f32")
ok(r.rc == 0, "ggml float32 at position 1e6 agrees with --precision f32", r.text)

# llama.cpp's Llama 3.1: the llama3 scaling as float32 freq_factors (the converter's rope_freqs)
base, factor, low, high, orig = 500000.0, 8.0, 1.0, 4.0, 8192.0
ff = []
for i in range(0, D, 2):
    wl = 2 * np.pi / (1.0 / base ** (i / D))
    if wl < orig / high:
        ff.append(1.0)
    elif wl > orig / low:
        ff.append(factor)
    else:
        sm = (orig / wl - low) / (high - low)
        ff.append(1.0 / ((1 - sm) / factor + sm))
g = save("ggml_llama31.npy", ggml_cache(base, D, P512, ff=ff))
r = check("-s", "model:llama-3.1-8b", "--against", g, *PAIRS)
ok(r.rc == 0, "ggml Llama 3.1 with freq_factors agrees by default", r.text)

# ---- one length rule: dynamic NTK at the dump's own sequence length -----------------------
DYN = "rope:layout=half,base=10000,scaling=dynamic,factor=4,original=4096"
late = np.arange(5632, 6144)
g = save("ggml_late.npy", ggml_cache(10000.0, D, late))
r = check("-s", DYN, "--against", g, *PAIRS, "--start", "5632")
ok(r.rc == 3 and "dynamic scaling left out" in field(r, "diagnosis") and
   "6144" in field(r, "length"),
   "unscaled table vs dynamic NTK at length 6144: disagree, scaling left out", r.text)
r = check("-s", DYN, "--against", g, "--start", "5632")
ok(r.rc == 3 and field(r, "read as").startswith(
   "cos/sin cache [cos | sin], one column per pair (2 x 64, d=128)") and
   "dynamic scaling left out" in field(r, "diagnosis"),
   "recognised as vLLM's cos_sin_cache although the scaling is left out", r.text)
r = check("-s", DYN, "--against", g, *PAIRS, "--start", "5632", "--engine", "llama.cpp")
ok(r.rc == 0 and "no dynamic NTK" in field(r, "engine"),
   "--engine llama.cpp: no dynamic NTK, the unscaled ggml table agrees", r.text)
# HF's dynamic NTK at 6144, computed here: encode and check use the same length
grow = 4 * 6144 / 4096 - 3
hf = save("hf_dyn.npy", exact_cache(inv_f64(10000.0 * grow ** (D / (D - 2)), D), late))
r = check("-s", DYN, "--against", hf, *PAIRS, "--start", "5632")
ok(r.rc == 0, "HF dynamic NTK at sequence length 6144 agrees", r.text)
enc = os.path.join(TMP, "enc.npy")
e = run(EXE, "encode", "-q", "-s", DYN, "--start", "5632", "-n", "512", "-d", str(D), "--view",
        "cos", "-o", enc)
r = check("-s", DYN, "--against", enc, "--what", "cos", "--start", "5632")
ok(e.rc == 0 and r.rc == 0, "check agrees with encode's own dynamic table (same length)",
   r.text + e.err)

# vLLM: one dynamic cache at max_position x factor = 16384 for every position
bv = 10000.0 * (4 * 16384 / 4096 - 3) ** (D / (D - 2))
v = save("vllm_dyn.npy", torch_cache(inv_f32(bv, D), P512))
r = check("-s", DYN, "--against", v, *PAIRS)
ok(r.rc == 3 and "dynamic NTK fixed at length" in field(r, "diagnosis") and
   "base 135402" in field(r, "diagnosis"),
   "vLLM's dynamic cache vs HF at length 512: named (base 135402 at 16384)", r.text)
r = check("-s", DYN, "--against", v, *PAIRS, "--engine", "vllm")
ok(r.rc == 0, "--engine vllm: its dynamic cache agrees", r.text)

# ---- YaRN truncation ---------------------------------------------------------------------
def yarn_range(base, d, orig, bf, bs, truncate):
    """find_correction_range: the pairs turning bf and bs times in the original context."""
    def cd(rot):
        return d * math.log(orig / (rot * 2 * math.pi)) / (2 * math.log(base))
    lo, hi = cd(bf), cd(bs)
    if truncate:
        lo, hi = math.floor(lo), math.ceil(hi)
    return max(lo, 0), min(hi, d - 1)


def yarn_inv(base, d, factor, orig, truncate, bf=32.0, bs=1.0):
    lo, hi = yarn_range(base, d, orig, bf, bs, truncate)
    ramp = np.clip((np.arange(d // 2) - lo) / (hi - lo), 0, 1)
    inv = inv_f64(base, d)
    return inv / factor * ramp + inv * (1 - ramp)


YARN = "rope:layout=half,base=150000,scaling=yarn,factor=32,original=4096,truncate=0"
att = 0.1 * np.log(32) + 1
y = save("yarn_trunc.npy", exact_cache(yarn_inv(150000.0, 64, 32.0, 4096.0, True), P512, att))
r = check("-s", YARN, "--against", y, "--what", "cos-sin:pairs", "-d", "64")
ok(r.rc == 3 and "truncated" in field(r, "diagnosis"),
   "YaRN truncated where the spec says truncate=false: named", r.text)
r = check("-s", YARN, "--against", y, "--what", "cos-sin:pairs", "-d", "64", "--engine",
          "llama.cpp")
ok(r.rc == 0, "--engine llama.cpp: YaRN always truncated, agrees", r.text)

# ---- LongRoPE: the factors chosen by length, and float32 factors --------------------------
d96 = 96
short = [1.0 + 0.0137 * i for i in range(d96 // 2)]
long_ = [1.0 + 0.731 * i for i in range(d96 // 2)]
LR = ("rope:layout=half,base=10000,scaling=longrope,factor=32,original=4096,"
      "short-factor=" + "/".join(repr(x) for x in short) +
      ",long-factor=" + "/".join(repr(x) for x in long_))
lr_att = np.sqrt(1 + np.log(32) / np.log(4096))
inv_long = 1.0 / (np.array(long_) * 10000.0 ** (np.arange(0, d96, 2) / d96))
lg = save("lr_long.npy", exact_cache(inv_long, P512, lr_att))
r = check("-s", LR, "--against", lg, "--what", "cos-sin:pairs", "-d", str(d96))
ok(r.rc == 3 and "long factors" in field(r, "diagnosis"),
   "LongRoPE long factors at length 512 (HF: short): named", r.text)
r = check("-s", LR, "--against", lg, "--what", "cos-sin:pairs", "-d", str(d96), "--engine",
          "llama.cpp")
ok(r.rc == 0, "--engine llama.cpp: long factors by context size, agrees", r.text)
# vLLM / HF in float32: 1 / (float32(ext) * base ** (arange / d)) with float32 factors
e = (np.arange(0, d96, 2).astype(f32) / f32(d96)).astype(f32)
inv_s = (f32(1) / (np.array(short, dtype=f32) * (f32(10000.0) ** e)).astype(f32)).astype(f32)
pos = np.arange(2560, 3072)
sh = save("lr_short_f32.npy", torch_cache(inv_s, pos, lr_att))
r = check("-s", LR, "--against", sh, "--what", "cos-sin:pairs", "-d", str(d96), "--start",
          "2560", "--precision", "f32")
ok(r.rc == 0, "LongRoPE short factors as float32 numbers: agrees at --precision f32", r.text)

# ---- porting mistakes of 2025-26, each from a float32 numpy cache made with that mistake -----
PLAIN = "rope:layout=half,base=10000"
P1024 = np.arange(1024)
inv = inv_f32(10000.0, D)


def mistake(name, table, needle, *extra):
    r = check("-s", extra[0] if extra else PLAIN, "--against", save(name + ".npy", table),
              *PAIRS)
    ok(r.rc == 3 and needle in field(r, "diagnosis"), name + ": diagnosed as " + needle,
       r.text)


mistake("double", torch_cache(inv, 2 * P1024), "rotated twice")
bf_pos = (np.asarray(P1024, dtype=f32).view(np.uint32).astype(np.uint64) + 0x7FFF +
          ((np.asarray(P1024, dtype=f32).view(np.uint32) >> 16) & 1)) & 0xFFFF0000
bf_pos = bf_pos.astype(np.uint32).view(f32)
mistake("bf16_positions", torch_cache(inv, bf_pos), "positions in bfloat16")
u = inv.view(np.uint32).astype(np.uint64)
inv_bf = ((u + 0x7FFF + ((u >> 16) & 1)) & 0xFFFF0000).astype(np.uint32).view(f32)
mistake("bf16_inv_freq", torch_cache(inv_bf, P1024), "inv_freq in bfloat16")
mistake("chunks", torch_cache(inv, P1024 % 256), "restart at 0 every 256")
inv0 = inv.copy()
inv0[40:] = 0
mistake("zero_freq", torch_cache(inv0, P1024), "24 pairs (the first: pair 40) never turn")
thy = yarn_inv(10000.0, D, 4.0, 4096.0, True)
mistake("yarn_att_derived", torch_cache(thy.astype(f32), P1024, 0.1 * np.log(4) + 1),
        "attention factor derived from the factor",
        "rope:layout=half,base=10000,scaling=yarn,factor=4,original=4096,attention-factor=1")
# that amplitude is llama.cpp's for every YaRN model (llama-context.cpp: yarn_attn_factor =
# get_mscale(factor) / (1 + 0.1 ln factor), ggml's rope_yarn times 1 + 0.1 ln(1/freq_scale))
mistake("yarn_att_llamacpp", torch_cache(thy.astype(f32), P1024, 0.1 * np.log(4) + 1),
        "llama.cpp's YaRN amplitude, 0.1 ln(factor) + 1",
        "rope:layout=half,base=10000,scaling=yarn,factor=4,original=4096,attention-factor=1")

# ---- two mistakes at once, found as a pair; a sin table given as cos ----------------------
a = np.outer(2 * P1024, inv_f64(10000.0, D))
r = check("-s", PLAIN, "--against", save("layout_double.npy", np.repeat(np.cos(a), 2, axis=1)),
          "--what", "cos")
diag = field(r, "diagnosis")
ok(r.rc == 3 and "interleaved layout" in diag and "rotated twice" in diag,
   "layout and double rotation at once: both named", r.text)
a = np.outer(P1024, inv_f64(10000.0, D))
sn = save("sin.npy", np.sin(a))
r = check("-s", PLAIN, "--against", sn, "--what", "cos", "-d", str(D))
ok(r.rc == 3 and "holds sin, not cos" in field(r, "diagnosis"),
   "a sin table given as cos: cos and sin swapped", r.text)
r = check("-s", PLAIN, "--against", sn, "-d", str(D))
ok("if it is meant to hold cos, cos and sin are swapped" in field(r, "read as"),
   "recognised as sin: the report says it could be a swapped cos", r.text)

# bfloat16 dumps: judged at their own precision, but a 2% amplitude is no rounding
def bf16(x):
    u = np.asarray(x, dtype=f32).view(np.uint32).astype(np.uint64)
    return ((u + 0x7FFF + ((u >> 16) & 1)) & 0xFFFF0000).astype(np.uint32).view(f32)


cb = bf16(torch_cache(inv, P1024))
r = check("-s", PLAIN, "--against", save("bf16_ok.npy", cb), *PAIRS)
ok(r.rc == 0 and field(r, "reference").endswith("f32/bf16"),
   "bf16 cache (saved as float32) agrees at its own precision by default", r.text)
r = check("-s", PLAIN, "--against", save("bf16_amp.npy", bf16(torch_cache(inv, P1024, 1.02))),
          *PAIRS)
ok(r.rc == 3 and "1.02" in field(r, "diagnosis"),
   "bf16 cache with cos and sin 2% too large: not taken for rounding, amplitude fitted",
   r.text)

# proportional RoPE (Gemma 4): HF's denominator is the head width; a port that divides by the
# rotated width (proportion x head) turns its pairs too slowly
PROP = "rope:layout=half,base=1000000,scaling=proportional,proportion=0.25"
h512 = 512
turning = int(0.25 * h512 // 2)
th_bad = np.zeros(h512 // 2)
th_bad[:turning] = 1.0 / 1000000.0 ** (np.arange(0, 2 * turning, 2) / (2 * turning))
a = np.outer(P512, th_bad)
r = check("-s", PROP, "--against", save("prop_denom.npy", np.concatenate(
    [np.cos(a), np.cos(a)], axis=1)), "--what", "cos", "-d", str(h512))
ok(r.rc == 3 and "proportional denominator" in field(r, "diagnosis"),
   "proportional RoPE with the rotated width as denominator: named", r.text)

# the length rule: check agrees with encode's own LongRoPE table (issue: 2.38 before)
enc = os.path.join(TMP, "phi.npy")
e = run(EXE, "encode", "-q", "-s", "model:phi-3-mini-128k", "-n", "8192", "--view", "cos",
        "-o", enc)
r = check("-s", "model:phi-3-mini-128k", "--against", enc, "--what", "cos")
ok(e.rc == 0 and r.rc == 0 and "8192" in field(r, "length"),
   "check agrees with encode -s model:phi-3-mini-128k -n 8192 (long factors at 8192)",
   r.text + e.err)

# a float32 table of a scheme without a float32 model (sinusoidal, as Vaswani et al.'s
# PE(pos, 2i) = sin(pos / 10000^(2i/d)), PE(pos, 2i+1) = cos(...)): rounding of its angles
# bounded by the largest position; a mistake is still found
d64 = 64
w = (f32(1) / (f32(10000.0) ** (np.arange(0, d64, 2).astype(f32) / f32(d64)))).astype(f32)
ang = np.outer(P1024.astype(f32), w).astype(f32)
pe = np.empty((1024, d64), dtype=f32)
pe[:, 0::2], pe[:, 1::2] = np.sin(ang), np.cos(ang)
r = check("-s", "sinusoidal", "--against", save("sin_f32.npy", pe), "--what", "table")
ok(r.rc == 0 and field(r, "verdict").startswith("agree up to float32 rounding"),
   "float32 sinusoidal table agrees up to float32 rounding by default", r.text)
r = check("-s", "sinusoidal", "--against", save("sin_f32_off.npy", pe), "--what", "table",
          "--start", "1")
ok(r.rc == 3, "float32 sinusoidal table one position off still disagrees", r.text)

# llama.cpp's interleaved M-RoPE (Qwen3-VL, sections 24/20/20): text tokens get position 0
# on pairs 61-62, which fall outside 3 x its h and w sections (the 4th, e, axis)
ts = f32(5e6) ** (f32(-2.0) / f32(D))


def q3vl_text_cache(pos):
    """ggml's angles: theta multiplied by ts pair after pair in float32, pairs 61-62 at 0."""
    theta = pos.astype(f32)
    ang = np.empty((len(pos), D // 2), dtype=f32)
    for i in range(D // 2):
        ang[:, i] = 0 if i in (61, 62) else theta
        theta = (theta * ts).astype(f32)
    return np.concatenate([np.cos(ang), np.sin(ang)], axis=1).astype(f32)


q3 = save("q3vl.npy", q3vl_text_cache(np.arange(100000, 100512)))
r = check("-s", "rope:layout=half,base=5000000", "--against", q3, *PAIRS, "--start", "100000")
diag = field(r, "diagnosis")
ok(r.rc == 3 and "2 pairs (the first: pair 61) never turn" in diag and "ggml" in diag,
   "Qwen3-VL text in llama.cpp: pairs 61-62 at position 0 named, on ggml's float32 path",
   r.text)

# the same over a short dump from position 0: pairs 61-62 turn by 1e-4 at most in the reference
# (5e6^(-122/128) x 255), more than float32 noise but far under 1e-3; still named
q3s = save("q3vl_short.npy", q3vl_text_cache(np.arange(256)))
r = check("-s", "mrope:base=5000000,t=24,h=20,w=20,interleaved=1", "--against", q3s, *PAIRS)
diag = field(r, "diagnosis")
ok(r.rc == 3 and "2 pairs (the first: pair 61) never turn" in diag,
   "Qwen3-VL text in llama.cpp over positions 0..255: pairs 61-62 that barely turn still named",
   r.text)

# an engine's float32 cache saved as float64 (numpy's default dtype, .double()): every value a
# float32 number, so judged as the float32 dump it is; a float64 table of other numbers is
# still judged against exact values (a float32-sized error disagrees)
c32 = torch_cache(inv, P1024)
r = check("-s", PLAIN, "--against", save("f32_as_f64.npy", c32.astype(np.float64)), *PAIRS)
ok(r.rc == 0 and field(r, "verdict").startswith("agree up to float32 rounding") and
   "float32 numbers" in field(r, "against"),
   "float32 cache saved as float64 agrees at float32 by default", r.text)
ex = exact_cache(inv_f64(10000.0, D), P1024) + 3e-7
r = check("-s", PLAIN, "--against", save("f64_off.npy", ex), *PAIRS)
ok(r.rc == 3 and "float32 numbers" not in field(r, "against"),
   "a float64 table 3e-7 off is judged against exact values (disagrees)", r.text)

# ggml's rope on a float16 tensor (ops.cpp rope_f16 / rotate_pairs): the cache stays float32,
# x0 cos - x1 sin is a float32 product and sum, and only the result is rounded to float16 (a
# float32 ulp of cos or sin moves its float16 ties); saved as float32, judged as float16
cs = ggml_cache(10000.0, D, P512)
gc, gs = cs[:, :D // 2], cs[:, D // 2:]
rot16 = np.concatenate([(gc - gs).astype(f32), (gs + gc).astype(f32)], axis=1)
rot16 = rot16.astype(np.float16).astype(f32)
r = check("-s", PLAIN, "--against", save("ggml_rot_f16.npy", rot16), "--what", "rotated", "-d",
          str(D))
ok(r.rc == 0 and field(r, "verdict").startswith("agree up to float32 rounding"),
   "ggml's float16 rope of ones (float32 cache, one rounding) agrees by default", r.text)
r = check("-s", PLAIN, "--against", save("ggml_rot_f16_amp.npy", (rot16 * f32(1.01)).astype(
    np.float16).astype(f32)), "--what", "rotated", "-d", str(D))
ok(r.rc == 3, "the same 1% too long: disagree", r.text)

# vLLM's LinearScalingRotaryEmbedding (t = arange / factor in float32, then x inv_freq) with
# Gemma 3's global layers (base 1e6, linear 8) checked against a spec without the scaling: the
# factor is fitted and named
inv6 = inv_f32(1e6, D)
t8 = (np.arange(9000, 9512).astype(f32) / f32(8)).astype(f32)
a8 = np.outer(t8, inv6).astype(f32)
r = check("-s", "rope:layout=half,base=1000000", "--against",
          save("v_linear8.npy", np.concatenate([np.cos(a8), np.sin(a8)], axis=1)), *PAIRS,
          "--start", "9000")
diag = field(r, "diagnosis")
ok(r.rc == 3 and "a linear scaling the spec does not have: every angle divided by 8 " in diag,
   "a linear factor 8 missing from the spec: fitted and named", r.text)

# the same global-layer cache checked with --layer local of the model: the model's other layer
# group agrees and is named
r = check("-s", "model:gemma-3-27b", "--layer", "local", "--against",
          os.path.join(TMP, "v_linear8.npy"), *PAIRS, "--start", "9000")
ok(r.rc == 3 and field(r, "diagnosis").startswith(
    "another layer group's encoding: the dump is group 'global'"),
   "Gemma 3's global cache checked as its local layers: the global group named", r.text)

# Gemma 3's config with YaRN on its global layers (factor 4 of 32768, transformers' reference:
# yarn_inv above, amplitude 0.1 ln 4 + 1) and a max_position_embeddings of 8 x 32768, which the
# reader warns about. Checked as its local layers, a fitted base explains only part of the dump:
# the global group, which agrees, is still named; the model's warning is said once.
with open(os.path.join(os.path.dirname(__file__), "..", "fixtures", "configs",
                       "gemma-3-27b.json")) as f:
    g3 = json.load(f)
g3["text_config"]["rope_scaling"] = {"rope_type": "yarn", "factor": 4.0,
                                     "original_max_position_embeddings": 32768}
g3["text_config"]["max_position_embeddings"] = 8 * 32768
g3p = os.path.join(TMP, "gemma3_yarn.json")
with open(g3p, "w") as f:
    json.dump(g3, f)
gy = np.outer(P512, yarn_inv(1e6, 128, 4.0, 32768.0, True))
gatt = 0.1 * math.log(4) + 1
r = check("-s", "hf:" + g3p, "--layer", "local", "--against",
          save("g3_yarn_global.npy", np.concatenate([np.cos(gy) * gatt, np.sin(gy) * gatt], axis=1)),
          "--what", "cos-sin:pairs")
ok(r.rc == 3 and field(r, "diagnosis").startswith(
    "another layer group's encoding: the dump is group 'global'") and
   r.err.count("warning:") == 1,
   "a group that agrees is named where a mistake explains part of the dump; one warning",
   r.text + r.err)

# ggml NEOX with n_dims 32 of an 80-wide head (Phi-2's partial_rotary_factor 0.4) checked
# against a whole-head spec: the width is read from the 48 columns that never turn
c32 = ggml_cache(10000.0, 32, P512)
rot80 = np.ones((512, 80), dtype=f32)
rot80[:, :16] = (c32[:, :16] - c32[:, 16:]).astype(f32)
rot80[:, 16:32] = (c32[:, 16:] + c32[:, :16]).astype(f32)
r = check("-s", PLAIN, "--against", save("ggml_partial80.npy", rot80), "--what", "rotated",
          "-d", "80")
ok(r.rc == 3 and "rotary width 32 of the head's 80" in field(r, "diagnosis"),
   "a rotary width of 32 in an 80-wide head (no common fraction): read from the dump", r.text)

# a fitted parameter is given as the round number the dump was made with: ggml's float32
# theta_scale puts the exact fit's minimum a few ppm off base 1e6, which along ggml's own path
# is the base itself (a spec 1% off: base 1010000)
g6 = ggml_cache(1e6, D, np.arange(3000, 3512))
r = check("-s", "rope:layout=half,base=1010000", "--against", save("ggml_b1e6.npy", g6), *PAIRS,
          "--start", "3000")
diag = field(r, "diagnosis")
ok(r.rc == 3 and diag.startswith("base 1000000 instead of 1010000") and "part of it" not in r.text,
   "a base fitted to a ggml dump is the round 1000000 and explains all of it", r.text)

# YaRN's betas: llama.cpp's deepseek2 loader reads no rope.scaling.yarn_beta_fast/slow, so a
# config's beta_fast 1, beta_slow 1 run with 32 and 1; the correction range (ggml_rope_yarn_
# corr_dims: floor/ceil of n_dims ln(n_ctx_orig / (2 pi beta)) / (2 ln base)) is then another
def corr_dim(nd, orig, beta, base):
    return nd * math.log(orig / (beta * 2 * math.pi)) / (2 * math.log(base))


lo, hi = math.floor(corr_dim(64, 4096, 32, 50000)), math.ceil(corr_dim(64, 4096, 1, 50000))
ramp = 1 - np.clip((np.arange(32) - lo) / max(0.001, hi - lo), 0, 1)
thb = 1.0 / 50000.0 ** (np.arange(0, 64, 2) / 64)
kang = np.outer(P512, thb / 32 * (1 - ramp) + thb * ramp)
kspec = ("rope:layout=interleaved,base=50000,scaling=yarn,factor=32,original=4096,beta-fast=1,"
         "beta-slow=1,mscale=1,mscale-all-dim=1")
r = check("-s", kspec, "--against", save("yarn_betas.npy",
          np.concatenate([np.cos(kang), np.sin(kang)], axis=1)), "--what", "cos-sin:pairs", "-d", "64")
ok(r.rc == 3 and "beta_fast and beta_slow at their defaults 32 and 1" in field(r, "diagnosis"),
   "YaRN betas 1/1 in the spec, 32/1 in the dump (llama.cpp's deepseek2): named", r.text)
# The error figure's legend names the mistake by its own short label (it read "YaRN
# truncate=0": the betas shared the truncate mistake's code)
pdf = os.path.join(TMP, "betas.pdf")
r = check("-s", kspec, "--against", os.path.join(TMP, "yarn_betas.npy"), "--what",
          "cos-sin:pairs", "-d", "64", "-o", pdf)
legend = subprocess.run(["pdftotext", pdf, "-"], capture_output=True).stdout.decode() \
    if os.path.exists(pdf) else ""
ok(r.rc == 3 and "YaRN betas 32, 1" in legend and "truncate" not in legend,
   "YaRN betas: the error figure's legend says betas, not truncate", legend)
# the same cos cache in the half layout ([cos | cos]) against the interleaved spec: the layout
# explains part of it, the betas on top of it the rest (a second mistake keeps its betas)
kcos = np.cos(kang)
r = check("-s", kspec, "--against", save("yarn_betas_half.npy",
          np.concatenate([kcos, kcos], axis=1)), "--what", "cos", "-d", "64")
diag = field(r, "diagnosis")
ok(r.rc == 3 and "half layout" in diag and "beta_fast and beta_slow at their defaults" in diag
   and "explains part" not in r.text,
   "YaRN betas under the other layout: both named, the pair explains all of it", r.text)

# Llama 3.1's cache (transformers' llama3 rule restated: wavelength 2 pi / f; f / factor past
# original / low, f kept below original / high, mixed in between) checked against Llama 3's
# unscaled spec: the scaling the spec lacks, its factor fitted, is named
thl = 1.0 / 500000.0 ** (np.arange(0, D, 2) / D)
wl = 2 * math.pi / thl
sm = (8192 / wl - 1) / 3
l3 = np.where(wl < 8192 / 4, thl, np.where(wl > 8192, thl / 8, (1 - sm) * thl / 8 + sm * thl))
r = check("-s", "model:llama-3-8b", "--against", save("llama31_as_3.npy",
          exact_cache(l3, np.arange(2000, 2512))), *PAIRS, "--start", "2000")
ok(r.rc == 3 and "a llama3 scaling the spec does not have (factor 8 fitted" in field(r, "diagnosis"),
   "Llama 3.1's scaled cache against Llama 3's spec: the llama3 scaling named, factor 8", r.text)

# one length for the same spec in model and freqs (no positions: the original context,
# the state transformers builds at load time)
for spec, want in (("model:phi-3-mini-128k", 4096), (DYN, 4096)):
    m = run(EXE, "model", "-q", spec, "-o", "-")
    mlen = [ln.split(",")[2] for ln in m.text.splitlines() if ",length," in ln]
    fr = run(EXE, "freqs", "-s", spec, "-o", os.path.join(TMP, "fr.csv"))
    ok(m.rc == 0 and fr.rc == 0 and mlen and float(mlen[0]) == want and
       ("at length %d" % want) in fr.err,
       "model and freqs evaluate %s at the same length %d" % (spec.split(",")[0], want),
       m.text + fr.err)

# a float16 model's cache saved as float32: judged as float32 angles stored in float16
c16 = torch_cache(inv, P1024).astype(np.float16).astype(f32)
r = check("-s", PLAIN, "--against", save("f16_cache.npy", c16), *PAIRS)
ok(r.rc == 0 and field(r, "reference").endswith("f32/f16"),
   "float16 cache saved as float32 agrees at its own precision (f32/f16)", r.text)

# a fast sin/cos without range reduction (degree-9 Taylor series): right for small angles only
a = np.outer(P1024.astype(f32), inv).astype(f32).astype(np.float64)
fast = np.concatenate([1 - a**2 / 2 + a**4 / 24 - a**6 / 720 + a**8 / 40320,
                       a - a**3 / 6 + a**5 / 120 - a**7 / 5040 + a**9 / 362880], axis=1)
r = check("-s", PLAIN, "--against", save("fast_sincos.npy", fast.astype(f32)), *PAIRS)
ok(r.rc == 3 and "fast sin/cos" in field(r, "diagnosis"),
   "sin/cos right only below some angle: a fast sin/cos past its range", r.text)

# relative errors only where the value is not near 0 (cos and sin pass through it)
r = check("-s", "rope:layout=half,base=500000", "--against", save("far.npy",
          ggml_cache(500000.0, D, far)), *PAIRS, "--start", "1000000", "--tol", "1e-9")
ab = float(field(r, "max abs error").split()[0])
rel = float(field(r, "max rel error").split()[0])
ok(r.rc == 3 and rel <= 10 * ab + 1e-12,
   "max rel error over |value| > 0.1 only: at most 10 x the abs error", r.text)

# ---- vLLM's linear scaling divides the positions, not inv_freq -----------------------------
# LinearScalingRotaryEmbedding._compute_cos_sin_cache: t = torch.arange(max_len,
# dtype=torch.float) / scaling_factor; freqs = einsum("i,j -> ij", t, inv_freq). With a
# factor that is not a power of two the angles round otherwise than transformers' inv_freq /
# factor: about an ulp of the angle (1.6e-5 at position 500), far above 4 ulps of 1.
t = (P512.astype(f32) / f32(3)).astype(f32)
a = np.outer(t, inv_f32(10000.0, D)).astype(f32)
v = save("vllm_linear3.npy", np.concatenate([np.cos(a), np.sin(a)], axis=1).astype(f32))
spec = "rope:layout=half,base=10000,scaling=linear,factor=3"
r = check("-s", spec, "--against", v, *PAIRS)
ok(r.rc == 0 and field(r, "verdict").startswith("agree up to float32 rounding") and
   "vLLM's float32 path" in r.text, "vLLM linear x3 cache agrees by default, along vLLM's path",
   r.text)
r = check("-s", spec, "--against", v, *PAIRS, "--engine", "vllm")
ok(r.rc == 0, "vLLM linear x3 cache agrees with --engine vllm", r.text)
r = check("-s", spec, "--against", v, *PAIRS, "--engine", "hf")
ok(r.rc == 3 and "as vLLM computes linear scaling" in field(r, "diagnosis"),
   "--engine hf: the vLLM linear cache disagrees, named as vLLM's linear path", r.text)
hfl = save("hf_linear3.npy", torch_cache((inv_f32(10000.0, D) / f32(3)).astype(f32), P512))
r = check("-s", spec, "--against", hfl, *PAIRS, "--engine", "hf")
ok(r.rc == 0, "transformers' linear x3 cache (inv_freq / factor) agrees with --engine hf",
   r.text)

# ---- Llama 3's frequencies in float32, step by step ----------------------------------------
# _compute_llama3_parameters and vLLM's Llama3RotaryEmbedding in float32: wavelen = 2 pi /
# inv_freq; smooth = (original / wavelen - low) / (high - low), whose subtraction cancels;
# (1 - smooth) * inv_freq / factor + smooth * inv_freq. A Python number over a tensor is
# torch's Tensor.__rtruediv__ (torch/_tensor.py: self.reciprocal() * other), so those two
# divisions are a reciprocal, then a product. The power is torch's correctly rounded powf
# (computed in float64 and rounded here; numpy's float32 power is not).
def llama3_f32(base, dim, fac, lo, hi, orig):
    e = (np.arange(0, dim, 2).astype(f32) / f32(dim)).astype(f32)
    inv = (f32(1) / (base ** e.astype(np.float64)).astype(f32)).astype(f32)
    wl = ((f32(1) / inv).astype(f32) * f32(2 * np.pi)).astype(f32)
    sm = (((((f32(1) / wl).astype(f32) * f32(orig)).astype(f32) - f32(lo)).astype(f32) /
           f32(hi - lo)).astype(f32))
    mid = (((((f32(1) - sm).astype(f32) * inv).astype(f32) / f32(fac)).astype(f32) +
            (sm * inv).astype(f32)).astype(f32))
    return np.where(wl < f32(orig / hi), inv,
                    np.where(wl > f32(orig / lo), (inv / f32(fac)).astype(f32), mid)).astype(f32)


far = np.arange(60000, 60512)
# the second: the reciprocal and the product land 3 or more ulps from one division there
for base, dim, fac, lo, hi, orig in ((10000.0, 64, 16.0, 2.0, 8.0, 4096.0),
                                     (50000.0, 160, 64.0, 1.0, 2.0, 8192.0)):
    v = save("vllm_llama3_far.npy", torch_cache(llama3_f32(base, dim, fac, lo, hi, orig), far))
    spec = ("rope:layout=half,base=%g,scaling=llama3,factor=%g,low=%g,high=%g,original=%g"
            % (base, fac, lo, hi, orig))
    args = ["--what", "cos-sin:pairs", "-d", str(dim), "--start", "60000"]
    r = check("-s", spec, "--against", v, *args)
    ok(r.rc == 0 and field(r, "verdict").startswith("agree up to float32 rounding"),
       f"Llama 3 (base {base:g}, low {lo:g}, high {hi:g}) float32 cache at 60000+ agrees by "
       "default", r.text)
    r = check("-s", spec, "--against", v, *args, "--precision", "f32")
    ok(r.rc == 0, "... and with --precision f32", r.text)

# ---- the exact values stored as float32: as close as a float32 file can be ------------------
x = exact_cache(inv_f64(500000.0, D), np.arange(7000, 7512))
ex = save("exact_as_f32.npy", x.astype(f32))
r = check("-s", "rope:layout=half,base=500000", "--against", ex, *PAIRS, "--start", "7000")
ok(r.rc == 0 and field(r, "verdict").startswith("agree up to float32 storage"),
   "exact values stored as float32 agree by default (the storage's rounding)", r.text)
off = save("exact_off_f32.npy", (x * (1 + 1e-6)).astype(f32))
r = check("-s", "rope:layout=half,base=500000", "--against", off, *PAIRS, "--start", "7000")
ok(r.rc == 3, "the same values 1e-6 too large disagree", r.text)

# ---- YaRN and dynamic NTK in float32, step by step -------------------------------------------
# _compute_yarn_parameters: pos_freqs = base ** (arange(0, d, 2).float() / d); 1 / pos_freqs and
# 1 / (factor * pos_freqs); the ramp (arange(d/2, float32) - low) / (high - low) clamped, low and
# high Python numbers; mask = 1 - ramp; interpolation * (1 - mask) + extrapolation * mask. Where
# the mask is small a float64 ramp is tens of ulps off (truncate=0: 39 at pair 15 below).
def yarn_f32(base, dim, factor, orig, bf, bs, truncate):
    e = (np.arange(0, dim, 2).astype(f32) / f32(dim)).astype(f32)
    pf = (np.float64(f32(base)) ** e.astype(np.float64)).astype(f32)
    extra = (f32(1) / pf).astype(f32)
    inter = (f32(1) / (f32(factor) * pf).astype(f32)).astype(f32)
    low, high = yarn_range(base, dim, orig, bf, bs, truncate)
    if low == high:
        high += 0.001
    lin = ((np.arange(dim // 2).astype(f32) - f32(low)).astype(f32) / f32(high - low)).astype(f32)
    mask = (f32(1) - np.clip(lin, f32(0), f32(1))).astype(f32)
    return ((inter * (f32(1) - mask).astype(f32)).astype(f32) +
            (extra * mask).astype(f32)).astype(f32)


for base, dim, fac, orig, bf, bs, tr, start in ((1e6, 64, 64.0, 8192, 16.0, 2.0, 0, 10000),
                                                (1e4, 128, 40.0, 4096, 32.0, 1.0, 1, 30000)):
    att = 0.1 * math.log(fac) + 1
    pos = np.arange(start, start + 512)
    v = save("yarn_f32.npy", torch_cache(yarn_f32(base, dim, fac, orig, bf, bs, tr), pos, att))
    spec = ("rope:layout=half,base=%g,scaling=yarn,factor=%g,original=%d,beta-fast=%g,"
            "beta-slow=%g,truncate=%d" % (base, fac, orig, bf, bs, tr))
    r = check("-s", spec, "--against", v, "--what", "cos-sin:pairs", "-d", str(dim), "--start",
              str(start))
    ok(r.rc == 0 and field(r, "verdict").startswith("agree up to float32 rounding"),
       f"YaRN float32 cache (factor {fac:g}, truncate={tr}) at {start}+ agrees by default", r.text)

# dynamic NTK: the grown base is a Python number, its frequencies the unscaled path's float32
# steps (the exponent 2i/d rounded: 4-8 ulps off at widths such as 96 when computed in float64)
dim, start, fac, orig = 96, 4094, 2.0, 2048
seq = start + 512
basep = 10000.0 * ((fac * seq / orig) - (fac - 1)) ** (dim / (dim - 2))
e = (np.arange(0, dim, 2).astype(f32) / f32(dim)).astype(f32)
inv = (f32(1) / (np.float64(f32(basep)) ** e.astype(np.float64)).astype(f32)).astype(f32)
v = save("dyn_f32.npy", torch_cache(inv, np.arange(start, seq)))
r = check("-s", "rope:layout=half,base=10000,scaling=dynamic,factor=2,original=2048",
          "--against", v, "--what", "cos-sin:pairs", "-d", str(dim), "--start", str(start))
ok(r.rc == 0 and field(r, "verdict").startswith("agree up to float32 rounding"),
   "dynamic NTK float32 cache at d=96 agrees by default", r.text)

# llama.cpp's Llama 3: rope_freqs as convert_hf_to_gguf.py computes them, element by element in
# float32 (2 pi / freq and original / wavelen as reciprocal-then-product); at 60000+ a divisor
# one ulp off is past the fit
base, dim, fac, lo, hi, orig = 500000.0, 128, 8.0, 1.0, 4.0, 8192.0
e = (np.arange(0, dim, 2).astype(f32) / f32(dim)).astype(f32)
freqs = (f32(1) / (np.float64(f32(base)) ** e.astype(np.float64)).astype(f32)).astype(f32)
ffc = []
for fr in freqs:
    wl = f32(f32(1) / fr) * f32(2 * math.pi)
    if wl < orig / hi:
        ffc.append(f32(1))
    elif wl > orig / lo:
        ffc.append(f32(fac))
    else:
        sm = f32(f32(f32(f32(1) / wl) * f32(orig)) - f32(lo)) / f32(hi - lo)
        ffc.append(f32(f32(1) / f32(f32(f32(1) - sm) / f32(fac) + sm)))
far = np.arange(60000, 60512)
g = save("ggml_llama3_conv.npy", ggml_cache(base, dim, far, ff=[float(x) for x in ffc]))
r = check("-s", "rope:layout=half,base=500000,scaling=llama3,factor=8,low=1,high=4,original=8192",
          "--against", g, "--what", "cos-sin:pairs", "-d", str(dim), "--start", "60000",
          "--engine", "llama.cpp", "--precision", "f32")
ok(r.rc == 0, "ggml Llama 3 with the converter's float32 rope_freqs at 60000+ agrees", r.text)

# ---- rotations in bfloat16, as transformers applies them ---------------------------------------
# LlamaRotaryEmbedding returns cos.to(x.dtype), sin.to(x.dtype); apply_rotary_pos_emb computes
# q * cos + rotate_half(q) * sin in bfloat16: two products and a sum rounded at the pair's length
# (|q| up to 2.7 here), whose error a tolerance relative to max(1, |value|) took for a mistake
rng = np.random.default_rng(3)
x = bf16(rng.normal(0, 1.0, D).astype(f32) * f32(1.2))
xp = save("xq.npy", x.astype(np.float64))
a = np.outer(P512.astype(f32), inv_f32(10000.0, D)).astype(f32)
c, sn = bf16(np.cos(a)), bf16(np.sin(a))
xh = np.concatenate([-x[D // 2:], x[:D // 2]]).astype(f32)
rot = bf16(bf16(x[None, :] * np.concatenate([c, c], axis=1)) +
           bf16(xh[None, :] * np.concatenate([sn, sn], axis=1)))
r = check("-s", PLAIN, "--against", save("rot_bf16.npy", rot), "--what", "rotated", "--vector",
          xp, "-d", str(D))
ok(r.rc == 0 and field(r, "verdict").startswith("agree up to float32 rounding") and
   float(np.abs(x).max()) > 2, "a bfloat16 rotation of |q| up to %.2g agrees by default"
   % float(np.abs(x).max()), r.text)
# an amplitude 1% off is no rounding: the exact rotation x 1.01 stored as bfloat16, and the
# bfloat16 rotation with cos and sin 1% too large
a64 = np.outer(P512.astype(np.float64), inv_f64(10000.0, D))
c64, s64 = np.cos(np.concatenate([a64, a64], axis=1)), np.sin(np.concatenate([a64, a64], axis=1))
ex_rot = x[None, :].astype(np.float64) * c64 + xh[None, :].astype(np.float64) * s64
for name, dump in (("the exact rotation x 1.01 stored as bfloat16",
                     bf16((ex_rot * 1.01).astype(f32))),
                   ("a bfloat16 rotation with cos and sin x 1.01",
                    bf16(bf16(x[None, :] * np.concatenate([bf16(c * f32(1.01))] * 2, axis=1)) +
                         bf16(xh[None, :] * np.concatenate([bf16(sn * f32(1.01))] * 2, axis=1))))):
    r = check("-s", PLAIN, "--against", save("rot_amp.npy", dump), "--what", "rotated",
              "--vector", xp, "-d", str(D))
    ok(r.rc == 3, name + ": disagree", r.text)
# the same with cos and sin swapped before the rotation: named
rot_sw = x[None, :] * np.concatenate([np.sin(a), np.sin(a)], axis=1) + \
    xh[None, :] * np.concatenate([np.cos(a), np.cos(a)], axis=1)
r = check("-s", PLAIN, "--against", save("rot_swap.npy", rot_sw.astype(f32)), "--what", "rotated",
          "--vector", xp, "-d", str(D))
ok(r.rc == 3 and "cos and sin swapped in the rotation" in field(r, "diagnosis"),
   "cos and sin swapped inside a rotation: named", r.text)

# ---- float64 at large positions: one rounding of m theta ----------------------------------------
big = np.arange(2 ** 24 - 256, 2 ** 24 + 256)
r = check("-s", "rope:layout=half,base=500000", "--against",
          save("big64.npy", exact_cache(inv_f64(500000.0, D), big)), *PAIRS, "--start",
          str(2 ** 24 - 256))
ok(r.rc == 0, "an exact float64 table around 2^24 agrees by default (two ulps of the position)",
   r.text)

# ---- a one-row table is a position, not a list of frequencies ------------------------------------
seq, dim = 4096, 64
basep = 10000.0 * ((2.0 * seq / 2048) - 1.0) ** (dim / (dim - 2))
e = (np.arange(0, dim, 2).astype(f32) / f32(dim)).astype(f32)
inv1 = (f32(1) / (np.float64(f32(basep)) ** e.astype(np.float64)).astype(f32)).astype(f32)
r = check("-s", "rope:layout=half,base=10000,scaling=dynamic,factor=2,original=2048", "--against",
          save("one_row.npy", torch_cache(inv1, np.array([seq - 1]))), "--what", "cos-sin:pairs",
          "-d", str(dim), "--start", str(seq - 1))
ok(r.rc == 0 and "sequence length 4096" in r.text,
   "a one-row dynamic NTK table at 4095: evaluated at its length", r.text)


# ---- vLLM's rotary-embedding classes, each cos_sin_cache built here as vLLM builds it --------------
# vllm/model_executor/layers/rotary_embedding/base.py: inv_freq = 1.0 / (base ** (torch.arange(0,
# rd, 2, dtype=torch.float) / rd)); t = torch.arange(max_position, dtype=torch.float); freqs =
# einsum("i,j -> ij", t, inv_freq); cache = cat((cos, sin), -1).to(dtype): one column per pair.
# vLLM builds it on the GPU, where torch divides a tensor by a Python number as a product by the
# number's float32 reciprocal (ATen's div_true_kernel_cuda, "a * reciprocal(b)"); on the CPU it
# divides. The two differ where the number is not a power of two (rotary widths 80, 96, 160).
def v_div(x, num, gpu):
    x = np.asarray(x, dtype=f32)
    return (x * f32(1.0 / num)).astype(f32) if gpu else (x / f32(num)).astype(f32)


def v_pow(base, e):
    """torch's float32 pow of a Python number: the float32 base, the power correctly rounded."""
    return (np.float64(f32(base)) ** np.asarray(e, dtype=np.float64)).astype(f32)


def v_inv(base, rd, gpu=False):
    return (f32(1) / v_pow(base, v_div(np.arange(0, rd, 2), rd, gpu))).astype(f32)


def v_cache(inv, pos, t_div=None, gpu=False, mscale=None):
    t = np.asarray(pos, dtype=np.float64).astype(f32)
    if t_div is not None:
        t = v_div(t, t_div, gpu)
    a = np.outer(t, inv).astype(f32)
    c, s = np.cos(a), np.sin(a)
    if mscale is not None:
        c, s = (c * f32(mscale)).astype(f32), (s * f32(mscale)).astype(f32)
    return np.concatenate([c, s], axis=1).astype(f32)


def vcheck(name, table, spec, d, start, *extra):
    return check("-s", spec, "--against", save(name + ".npy", table), "--what", "cos-sin:pairs",
                 "-d", str(d), "--start", str(start), *extra)


# RotaryEmbedding on a GPU at rotary width 96 (Phi-3-mini-4k-instruct: hidden 3072 / 32 heads,
# rope_theta 10000, no scaling): 15 of the 48 exponents round otherwise, inv_freq up to 9 ulps off
# the CPU's; a fitted base was named before, for a correct cache
late = np.arange(20000, 20512)
gpu96 = v_cache(v_inv(10000.0, 96, gpu=True), late)
for extra in ([], ["--engine", "vllm"]):
    r = vcheck("v_gpu96", gpu96, "rope:layout=half,base=10000", 96, 20000, *extra)
    ok(r.rc == 0 and "on a GPU" in r.text,
       "vLLM's GPU cache at rotary width 96 agrees %s, along vLLM's GPU path" % (
           extra[-1] if extra else "by default"), r.text)
r = vcheck("v_gpu96", gpu96, "rope:layout=half,base=10000", 96, 20000, "--engine", "hf")
ok(r.rc == 3 and "as vLLM computes it on a GPU" in field(r, "diagnosis"),
   "--engine hf: the GPU cache disagrees, named as vLLM's GPU path", r.text)
r = vcheck("v_cpu96", v_cache(v_inv(10000.0, 96), late), "rope:layout=half,base=10000", 96, 20000,
           "--engine", "vllm")
ok(r.rc == 0, "vLLM's CPU cache at rotary width 96 agrees with --engine vllm", r.text)
# LinearScalingRotaryEmbedding on a GPU: t / 3 as t x float32(1/3), 3.6e-4 off at 10000+
r = vcheck("v_gpu_linear3", v_cache(v_inv(10000.0, D), np.arange(10000, 10512), t_div=3.0,
                                    gpu=True),
           "rope:layout=half,base=10000,scaling=linear,factor=3", D, 10000, "--engine", "vllm")
ok(r.rc == 0, "vLLM's GPU linear x3 cache (t x float32(1/3)) agrees with --engine vllm", r.text)


# DynamicNTKScalingRotaryEmbedding since PR #41277 (commit 3cfbaf33): max_len = max_position x
# factor and base x ((max_len / max_position) - (factor - 1))^(rd/(rd-2)): the bracket is 1, the
# cache unscaled over 2 x 2048 positions; --engine vllm takes the former base (factor x factor -
# factor + 1): a named disagreement, not an unexplained one
DYN2 = "rope:layout=half,base=10000,scaling=dynamic,factor=2,original=2048"
r = vcheck("v_dyn_new", v_cache(v_inv(10000.0 * ((2 * 2048 / 2048) - 1) ** (D / (D - 2)), D),
                                np.arange(3000, 3512)), DYN2, D, 3000, "--engine", "vllm")
ok(r.rc == 3 and "PR #41277" in field(r, "diagnosis") and "left out" in field(r, "diagnosis"),
   "vLLM's dynamic cache since #41277 (unscaled) with --engine vllm: named", r.text)

# the other way round: a cache grown with the sequence (transformers at 3512) under --engine vllm
r = vcheck("v_dyn_hf", v_cache(v_inv(10000.0 * (2 * 3512 / 2048 - 1) ** (D / (D - 2)), D),
                               np.arange(3000, 3512)), DYN2, D, 3000, "--engine", "vllm")
ok(r.rc == 3 and "sequence length 3512" in field(r, "diagnosis") and
   "vLLM fixes it at length 4096" in field(r, "diagnosis"),
   "--engine vllm: a dynamic table at the sequence length is named so", r.text)

# DeepseekScalingRotaryEmbedding: mscale = yarn_get_mscale(f, mscale) / yarn_get_mscale(f,
# mscale_all_dim) x attn_factor, mscale defaulting to 1 and mscale_all_dim to 0 (transformers:
# the ratio only when both are given, else 0.1 ln f + 1); YaRN's inv_freq with the correction
# range floored and ceiled (yarn_find_correction_range), the ramp over a float32 arange
def v_yarn_inv(base, rd, factor, orig, bf=32.0, bs=1.0, gpu=False):
    pf = v_pow(base, v_div(np.arange(0, rd, 2), rd, gpu))
    extra = (f32(1) / pf).astype(f32)
    inter = (f32(1) / (f32(factor) * pf).astype(f32)).astype(f32)
    lo, hi = yarn_range(base, rd, orig, bf, bs, True)
    if lo == hi:
        hi += 0.001
    ramp = np.clip(v_div((np.arange(rd // 2).astype(f32) - f32(lo)).astype(f32), hi - lo, gpu),
                   f32(0), f32(1))
    mask = (f32(1) - ramp).astype(f32)
    return ((inter * (f32(1) - mask).astype(f32)).astype(f32) +
            (extra * mask).astype(f32)).astype(f32)


def mscale(f, m=1.0):
    return 1.0 if f <= 1 else 0.1 * m * math.log(f) + 1.0


far = np.arange(50000, 50512)
# DeepSeek-V3 (model:deepseek-v3: factor 40, original 4096, mscale 1, mscale_all_dim 1, rope dim
# 64, interleaved) on a GPU: the ramp over 23 - 10 = 13 pairs is a product by float32(1/13)
ds = v_cache(v_yarn_inv(10000.0, 64, 40.0, 4096, gpu=True), far, mscale=mscale(40) / mscale(40))
r = vcheck("v_ds3", ds, "model:deepseek-v3", 64, 50000, "--engine", "vllm")
ok(r.rc == 0, "vLLM's DeepSeek-V3 cache (deepseek_yarn, on a GPU) agrees with --engine vllm",
   r.text)
# a yarn block with mscale 0.707 only: vLLM's DeepSeek class divides by mscale(f, 0) = 1
ds = v_cache(v_yarn_inv(10000.0, 64, 40.0, 4096), far, mscale=mscale(40, 0.707) / mscale(40, 0))
r = vcheck("v_ds_ms", ds, "rope:layout=interleaved,base=10000,scaling=yarn,factor=40,original=4096,"
           "mscale=0.707", 64, 50000, "--engine", "vllm")
ok(r.rc == 3 and "DeepseekScalingRotaryEmbedding" in field(r, "diagnosis") and
   "1.2608" in field(r, "diagnosis"), "DeepSeek's amplitude with mscale alone: named", r.text)
# YaRNScalingRotaryEmbedding before it read mscale / mscale_all_dim (mscale = yarn_get_mscale(f)
# x attn_factor): a yarn block with both at 1 (transformers: 1) gets 0.1 ln 16 + 1
y = v_cache(v_yarn_inv(1000000.0, 128, 16.0, 16384), far, mscale=mscale(16))
r = vcheck("v_yarn_old", y, "rope:layout=half,base=1000000,scaling=yarn,factor=16,original=16384,"
           "mscale=1,mscale-all-dim=1", D, 50000, "--engine", "vllm")
ok(r.rc == 3 and "YaRNScalingRotaryEmbedding (and MRotaryEmbedding's YaRN) before they read" in field(r, "diagnosis"),
   "vLLM's earlier YaRN amplitude 0.1 ln f + 1 where the config's ratio is 1: named", r.text)

# Phi3LongRoPEScaledRotaryEmbedding: long_short_cos_sin_cache = cat(short cache over original
# rows, long cache over max_position rows), each 1 / (float32(factors) * base ** (arange / rd))
# times the mscale sqrt(1 + ln(max_position / original) / ln(original)); the forward reads the
# long half (positions + original) when max_model_len > original. Phi-3-mini-128k (preset).
m = run(EXE, "model", "model:phi-3-mini-128k")
spec_line = [ln for ln in m.text.splitlines() if ln.strip().startswith("spec")][0]
lf = [float(v) for v in spec_line.split("long-factor=")[1].split()[0].split("/")]
sf = [float(v) for v in spec_line.split("short-factor=")[1].split()[0].split("/")]
phi_ms = math.sqrt(1 + math.log(131072 / 4096) / math.log(4096))


def v_longrope_inv(factors, gpu=True):
    e = v_div(np.arange(0, 96, 2), 96, gpu)
    return (f32(1) / (np.array(factors, dtype=f32) * v_pow(10000.0, e)).astype(f32)).astype(f32)


buf = np.concatenate([v_cache(v_longrope_inv(sf), P512, mscale=phi_ms),
                      v_cache(v_longrope_inv(lf), P512, mscale=phi_ms)])
r = vcheck("v_phi_long", buf[512:], "model:phi-3-mini-128k", 96, 0, "--engine", "vllm")
ok(r.rc == 0, "Phi-3-mini-128k's long cache (GPU) agrees with --engine vllm", r.text)
r = vcheck("v_phi_short", buf[:512], "model:phi-3-mini-128k", 96, 0, "--engine", "vllm")
ok(r.rc == 3 and "vLLM's short cache" in field(r, "diagnosis"),
   "its short cache with --engine vllm (max_model_len 131072): named vLLM's short cache", r.text)
r = vcheck("v_phi_short", buf[:512], "model:phi-3-mini-128k", 96, 0)
ok(r.rc == 0, "its short cache at positions 0..511 agrees by default (transformers: short)",
   r.text)

# DualChunkRotaryEmbedding's key cache: k_t = arange(max_position) % (chunk_size - local_size)
# (Qwen2.5-7B-Instruct-1M: chunk_size 262144, local_size 8192): a restart at 253952, no power of
# two; a chunked port restarting every 4096 from 253696 on
N1m = 262144 - 8192
pos = np.arange(N1m - 256, N1m + 256)
for period, needle in ((N1m, "every 253952 tokens"), (4096, "every 4096 tokens")):
    r = vcheck("v_dual", v_cache(v_inv(1e7, D), pos % period), "rope:layout=half,base=10000000",
               D, N1m - 256, "--engine", "vllm")
    ok(r.rc == 3 and needle in field(r, "diagnosis"),
       "positions modulo %d from %d on: named" % (period, N1m - 256), r.text)


# NTKScalingRotaryEmbedding (rope_type "ntk", vLLM only: ntk_scaling_rope.py). Fixed:
# _compute_inv_freq at base x factor, then inv_freq / factor ** (2 / rd). Mixed (mixed_b):
# a = torch.tensor(factor).log() / (rd / 2) ** mixed_b, a tensor of the default dtype, which
# vLLM's loader sets to the model's (bfloat16 here); lambda = (a * arange(1, rd/2 + 1).float() **
# mixed_b).exp(); inv_freq / lambda. posenc's scaling=ntk[,mixed-b=B].
def v_ntk_inv(base, rd, factor, mixed_b=None, gpu=True, a_dtype=f32):
    if mixed_b is None:
        return v_div(v_inv(base * factor, rd, gpu), factor ** (2 / rd), gpu)
    a = a_dtype(np.log(a_dtype(factor)))
    a = a_dtype(v_div(np.array([a], dtype=f32), (rd / 2) ** mixed_b, gpu)[0])
    k = (np.arange(1, rd // 2 + 1, dtype=np.float64) ** np.float64(f32(mixed_b))).astype(f32)
    lam = np.exp((f32(a) * k).astype(f32).astype(np.float64)).astype(f32)
    return (v_inv(base, rd, gpu) / lam).astype(f32)


def bf16_scalar(x):
    return float(bf16(np.array([x], dtype=f32))[0])


NTK = "rope:layout=half,base=10000,scaling=ntk,factor=4"
mid = np.arange(3000, 3512)
r = vcheck("v_ntk", v_cache(v_ntk_inv(10000.0, D, 4.0), mid), NTK, D, 3000, "--engine", "vllm")
ok(r.rc == 0, "vLLM's fixed NTK cache (factor 4) agrees with scaling=ntk --engine vllm", r.text)
r = vcheck("v_ntk_mixed", v_cache(v_ntk_inv(10000.0, D, 4.0, 0.625), mid), NTK + ",mixed-b=0.625",
           D, 3000, "--engine", "vllm")
ok(r.rc == 0, "vLLM's mixed NTK cache of a float32 model agrees with mixed-b=0.625", r.text)
# a bfloat16 model: a rounded to bfloat16 moves the frequencies by up to 0.3%, 1.7 at 3500
mixed = bf16(v_cache(v_ntk_inv(10000.0, D, 4.0, 0.625, a_dtype=bf16_scalar), mid))
r = vcheck("v_ntk_mixed_bf16", mixed, NTK + ",mixed-b=0.625", D, 3000, "--engine", "vllm")
ok(r.rc == 3 and "f32/bf16" in field(r, "diagnosis") and
   "in that storage type as vLLM computes it" in field(r, "diagnosis"),
   "... of a bfloat16 model (a in bfloat16): disagrees, named as vLLM's bfloat16 a", r.text)
r = vcheck("v_ntk_mixed_bf16", mixed, NTK + ",mixed-b=0.625", D, 3000, "--engine", "vllm",
           "--precision", "f32/bf16")
ok(r.rc == 0, "... and agrees with --precision f32/bf16", r.text)
r = vcheck("v_ntk_plain", v_cache(v_inv(10000.0, D, gpu=True), mid), NTK, D, 3000, "--engine",
           "vllm")
ok(r.rc == 3 and "ntk scaling left out" in field(r, "diagnosis"),
   "an unscaled cache against scaling=ntk: the scaling left out", r.text)
r = vcheck("v_ntk_f2", v_cache(v_ntk_inv(10000.0, D, 2.0), mid), NTK, D, 3000, "--engine", "vllm")
ok(r.rc == 3 and "factor 2 instead of 4" in field(r, "diagnosis"),
   "a fixed NTK cache of factor 2 against factor 4: the factor fitted", r.text)
cfg = os.path.join(TMP, "ntk_config.json")
with open(cfg, "w") as fh:
    fh.write('{"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 4096, '
             '"num_attention_heads": 32, "num_hidden_layers": 2, "max_position_embeddings": 4096, '
             '"rope_theta": 10000.0, "rope_scaling": {"rope_type": "ntk", "factor": 4.0}}')
r = run(EXE, "model", "hf:" + cfg)
ok(r.rc != 0 and "vLLM's own" in r.err and "scaling=ntk" in r.err,
   "a config with rope_type ntk: refused (transformers has none), the spec to give named", r.err)


# DynamicNTKAlphaRotaryEmbedding (HunYuan, dynamic_ntk_alpha_rope.py): base x alpha ** (rd /
# (rd - 2)) as a Python number, the cache over max_position only; a config with Hy-MT2-1.8B's keys
# (hunyuan_v1_dense, head_dim 128, rope_theta 10000, rope_scaling type dynamic, alpha 1000)
hy = os.path.join(TMP, "hunyuan.json")
with open(hy, "w") as fh:
    fh.write('{"architectures": ["HunYuanDenseV1ForCausalLM"], "model_type": "hunyuan_v1_dense", '
             '"hidden_size": 2048, "num_attention_heads": 16, "num_key_value_heads": 4, '
             '"head_dim": 128, "num_hidden_layers": 32, "max_position_embeddings": 32768, '
             '"rope_theta": 10000.0, "rope_scaling": {"type": "dynamic", "alpha": 1000.0, '
             '"factor": 1.0, "mscale": 1.0}}')
for name, base, want in (("v_hunyuan", 10000.0 * 1000.0 ** (D / (D - 2)), 0),
                         ("v_hunyuan_alpha1", 10000.0 * 1000.0, 3)):
    r = check("-s", "hf:" + hy, "--against", save(name + ".npy", v_cache(v_inv(base, D, True), mid)),
              "--what", "cos-sin:pairs", "--start", "3000", "--engine", "vllm")
    ok(r.rc == want and (want == 0 or "base 1e+07 instead of" in field(r, "diagnosis")),
       "HunYuan's alpha cache %s" % ("agrees with --engine vllm" if want == 0 else
                                      "without the exponent d/(d-2): the base fitted"), r.text)

# Gemma4RotaryEmbedding (gemma4_rope.py): rope_angles = rotary_dim // 2 frequencies at
# base ** (arange(0, 2 rope_angles, 2) / head_size), zeros for the other pairs of the head;
# Gemma 4 31B's global layers: head 512, partial 0.25, base 1e6 (model:gemma-4-31b)
g_inv = (f32(1) / v_pow(1e6, v_div(np.arange(0, 128, 2), 512, True))).astype(f32)
g_inv = np.concatenate([g_inv, np.zeros(192, dtype=f32)])
r = check("-s", "model:gemma-4-31b", "--layer", "global", "--against",
          save("v_gemma4.npy", v_cache(g_inv, mid)), "--what", "cos-sin:pairs", "--start", "3000",
          "--engine", "vllm")
ok(r.rc == 0, "vLLM's Gemma 4 global cache (proportional, 64 of 256 pairs) agrees", r.text)

# Llama4VisionRotaryEmbedding (llama4_vision_rope.py) is a 2-D table over a patch grid: pairs
# 0..21 turn with the patch column + 1, pairs 22..43 with its row + 1, each half at
# base^(-2i/44), the CLS row at 0. posenc has no such scheme: checked against a rope spec it must
# disagree (no false agreement)
inv44 = v_inv(10000.0, 44, True)
cell = np.arange(577)
ang = np.concatenate([np.outer((cell % 24 + 1).astype(f32), inv44),
                      np.outer((cell // 24 + 1).astype(f32), inv44)], axis=1).astype(f32)
ang[-1] = 0
r = check("-s", "rope:layout=interleaved,base=10000", "--against",
          save("v_llama4_vision.npy", np.concatenate([np.cos(ang), np.sin(ang)], axis=1)),
          "--what", "cos-sin:pairs", "-d", "88", "--engine", "vllm")
ok(r.rc == 3, "Llama 4's vision table against a rope spec: disagree (not modelled)", r.text)

done()
