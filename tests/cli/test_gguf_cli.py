#!/usr/bin/env python3
"""-s gguf:FILE: GGUF files written here by a small writer from the GGUF specification
(gguf_write.py), read back as the model they describe; every inverse frequency against
a reference computed here (llama.cpp's frequency divisors, HF's formulas) to 1e-15;
malformed files are one-line errors."""
import csv
import io
import math
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(__file__))
from gguf_write import (ARRAY, BOOL, FLOAT32, INT32, STRING, UINT32, UINT64, gguf)  # noqa: E402
from tap import done, error_case, long_columns, ok, run, workdir  # noqa: E402

EXE = os.path.abspath(sys.argv[1])
TMP = workdir()
REL = 1e-15


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def write(name, data):
    path = os.path.join(TMP, name + ".gguf")
    with open(path, "wb") as f:
        f.write(data)
    return path


def freqs(spec, *extra):
    r = run(EXE, "freqs", "-q", "-s", spec, "--table", "long", "-o", "-", *extra)
    rows = list(csv.reader(io.StringIO(r.text)))
    if r.rc or not rows:
        return r, None
    cols, scaled = long_columns(rows)
    return r, cols[scaled[0]] if len(scaled) == 1 else cols["theta"]


def summary(spec, *extra):
    r = run(EXE, "model", "-q", spec, "-o", "-", *extra)
    out = {}
    for row in list(csv.reader(io.StringIO(r.text)))[1:]:
        out.setdefault(row[0], {})[row[1]] = row[2]
    return r, out


def close(a, b):
    return a is not None and len(a) == len(b) and \
        all(abs(x - y) <= REL * abs(y) for x, y in zip(a, b))


vocab = (ARRAY, (STRING, ["<s>", "</s>", "hello", ""] * 50))

# Llama 3.1 8B as llama.cpp's converter writes it: the llama3 scaling as per-pair divisors.
base, d, factor, low, high, orig = 500000.0, 128, 8.0, 1.0, 4.0, 8192
ff = []
for i in range(0, d, 2):
    wl = 2 * math.pi / (1.0 / base ** (i / d))
    if wl < orig / high:
        ff.append(1.0)
    elif wl > orig / low:
        ff.append(factor)
    else:
        s = (orig / wl - low) / (high - low)
        ff.append(1.0 / ((1 - s) / factor + s))
llama = write("llama31", gguf([
    ("general.architecture", STRING, "llama"),
    ("general.alignment", UINT32, 32),
    ("tokenizer.ggml.tokens", *vocab),
    ("llama.context_length", UINT32, 131072),
    ("llama.embedding_length", UINT32, 4096),
    ("llama.block_count", UINT32, 32),
    ("llama.attention.head_count", UINT32, 32),
    ("llama.rope.dimension_count", UINT32, 128),
    ("llama.rope.freq_base", FLOAT32, base),
], [("token_embd.weight", [4, 2], [0.0] * 8), ("rope_freqs.weight", [64], ff)]))
want = [1.0 / (f32(x) * base ** (i / d)) for i, x in zip(range(0, d, 2), ff)]
r, got = freqs("gguf:" + llama)
ok(r.rc == 0 and close(got, want), "llama 3.1 gguf: 1 / (rope_freqs[i] base^(2i/d)) to 1e-15",
   r.err)
r, s = summary("gguf:" + llama)
g = s.get("all", {})
ok(g.get("layout") == "interleaved" and g.get("attention_factor") == "1" and
   s["model"]["layers"] == "32",
   "llama gguf: llama.cpp's norm layout (interleaved), attention factor 1, 32 layers", s)
# the divisors are llama3 within float32: the same frequencies as the HF config, to 1e-7
r, hf = freqs("model:llama-3.1-8b")
ok(hf is not None and got is not None and all(abs(a - b) <= 2e-7 * b for a, b in zip(got, hf)),
   "llama 3.1 gguf agrees with its config.json within float32")

# Qwen2.5 7B with its YaRN recipe
qwen = write("qwen-yarn", gguf([
    ("general.architecture", STRING, "qwen2"),
    ("qwen2.context_length", UINT32, 32768),
    ("qwen2.embedding_length", UINT32, 3584),
    ("qwen2.block_count", UINT32, 28),
    ("qwen2.attention.head_count", UINT32, 28),
    ("qwen2.rope.freq_base", FLOAT32, 1000000.0),
    ("qwen2.rope.scaling.type", STRING, "yarn"),
    ("qwen2.rope.scaling.factor", FLOAT32, 4.0),
    ("qwen2.rope.scaling.original_context_length", UINT32, 32768),
]))
r1, s1 = summary("gguf:" + qwen)
r2, s2 = summary("model:qwen2.5-7b-yarn")
keys = ["rotary_dim", "layout", "base", "factor", "original", "yarn_low", "yarn_high",
        "attention_factor"]
ok(r1.rc == 0 and all(s1["all"].get(k) == s2["all"].get(k) for k in keys),
   "qwen2 yarn gguf equals the config.json reading", (s1.get("all"), r1.err))
r, got = freqs("gguf:" + qwen)
r, hf = freqs("model:qwen2.5-7b-yarn")
ok(got is not None and got == hf, "qwen2 yarn gguf: the same inverse frequencies, bit for bit")

# Phi-3 mini 128k: the LongRoPE lists as tensors
long_f = [1.0 + 0.5 * i for i in range(48)]
short_f = [1.0 + 0.01 * i for i in range(48)]
att = math.sqrt(1 + math.log(32) / math.log(4096))
phi = write("phi3", gguf([
    ("general.architecture", STRING, "phi3"),
    ("phi3.context_length", UINT32, 131072),
    ("phi3.embedding_length", UINT32, 3072),
    ("phi3.attention.head_count", UINT32, 32),
    ("phi3.rope.dimension_count", UINT32, 96),
    ("phi3.rope.freq_base", FLOAT32, 10000.0),
    ("phi3.rope.scaling.original_context_length", UINT32, 4096),
    ("phi3.rope.scaling.attn_factor", FLOAT32, att),
], [("rope_factors_long.weight", [48], long_f), ("rope_factors_short.weight", [48], short_f)]))
r, got = freqs("gguf:" + phi, "--length", "4096")
ok(close(got, [1 / (f32(e) * 10000.0 ** (i / 96)) for e, i in zip(short_f, range(0, 96, 2))]),
   "phi3 gguf: short factors up to the original context", r.err)
r, got = freqs("gguf:" + phi)
ok(close(got, [1 / (f32(e) * 10000.0 ** (i / 96)) for e, i in zip(short_f, range(0, 96, 2))]),
   "phi3 gguf: without --length, the original context (short factors), as the reference "
   "loads it", r.err)
r, got = freqs("gguf:" + phi, "--length", "8192")
ok(close(got, [1 / (f32(e) * 10000.0 ** (i / 96)) for e, i in zip(long_f, range(0, 96, 2))]),
   "phi3 gguf: long factors past it")
r, s = summary("gguf:" + phi)
ok(float(s["all"]["attention_factor"]) == f32(att), "phi3 gguf: its attn_factor (float32)", s)

# MiniCPM4 as conversion/minicpm.py writes it: TextModel's rope.scaling.type "longrope" (no
# factor, no original length, no attn_factor) beside the two factor tensors. llama.cpp runs
# the tensors with freq_scale 1 and, without YaRN, attn_factor alone (1 when absent).
mc_d, mc_base = 128, 10000.0
mc_long = [1.0 + 0.25 * i for i in range(mc_d // 2)]
mc_short = [1.0 + 0.02 * i for i in range(mc_d // 2)]
MC = [("general.architecture", STRING, "minicpm"), ("minicpm.context_length", UINT32, 32768),
      ("minicpm.embedding_length", UINT32, 4096), ("minicpm.block_count", UINT32, 32),
      ("minicpm.attention.head_count", UINT32, 32),
      ("minicpm.rope.freq_base", FLOAT32, mc_base),
      ("minicpm.rope.scaling.type", STRING, "longrope")]
MC_T = [("rope_factors_long.weight", [mc_d // 2], mc_long),
        ("rope_factors_short.weight", [mc_d // 2], mc_short)]
mc = write("minicpm-longrope", gguf(MC, MC_T))
r, got = freqs("gguf:" + mc)
ok(r.rc == 0 and close(got, [1 / (f32(e) * mc_base ** (i / mc_d))
                             for e, i in zip(mc_short, range(0, mc_d, 2))]),
   "minicpm gguf with rope.scaling.type longrope: theta_i / short_i within the context", r.err)
r, s = summary("gguf:" + mc)
ok(r.rc == 0 and s["all"].get("attention_factor") == "1",
   "minicpm longrope gguf: attention factor 1 (no attn_factor in the file)", s)
error_case(EXE, "gguf longrope type without the factor tensors",
           ["model", "gguf:" + write("longrope-bare", gguf(MC)), "-o", "-"], 1,
           "'longrope' without rope_factors")

# Gemma 3: local layers at llama.cpp's 10000, global at freq_base with linear 8
GEMMA3 = [
    ("general.architecture", STRING, "gemma3"),
    ("gemma3.context_length", UINT32, 131072),
    ("gemma3.embedding_length", UINT32, 5376),
    ("gemma3.block_count", UINT32, 62),
    ("gemma3.attention.head_count", UINT32, 32),
    ("gemma3.attention.key_length", UINT32, 128),
    ("gemma3.rope.freq_base", FLOAT32, 1000000.0),
    ("gemma3.rope.scaling.type", STRING, "linear"),
    ("gemma3.rope.scaling.factor", FLOAT32, 8.0),
]
gemma = write("gemma3", gguf(GEMMA3 + [("gemma3.attention.sliding_window", UINT32, 1024)]))
r1, s1 = summary("gguf:" + gemma)
r2, s2 = summary("model:gemma-3-27b")
ok(all(s1.get(g, {}).get(k) == s2[g].get(k) for g in ("local", "global")
       for k in ("layers", "base", "scaling", "factor", "rotary_dim")),
   "gemma3 gguf: the same local and global groups as its config.json", (s1, r1.err))
# gemma3.cpp: without attention.sliding_window (the converter leaves it out for
# sliding_window_pattern 1), or with 0, swa_type is NONE: every layer at freq_base, scaled
for name, extra in (("no window key", []),
                    ("window 0", [("gemma3.attention.sliding_window", UINT32, 0)]),
                    ("no window, a pattern key (not read then)",
                     [("gemma3.attention.sliding_window_pattern", UINT32, 6)])):
    r, s = summary("gguf:" + write("gemma3-nowin", gguf(GEMMA3 + extra)))
    ok(r.rc == 0 and s.get("all", {}).get("layers") == "0-61" and
       s["all"].get("base") == "1000000" and s["all"].get("factor") == "8",
       "gemma3 gguf, %s: no sliding layers, every layer at 1e6 with linear 8" % name, s)

bloom = write("bloom", gguf([
    ("general.architecture", STRING, "bloom"),
    ("bloom.attention.head_count", UINT32, 112),
    ("bloom.block_count", UINT32, 70),
    ("bloom.attention.max_alibi_bias", FLOAT32, 8.0),
]))
r, s = summary("gguf:" + bloom)
ok(s.get("all", {}).get("heads") == "112", "bloom gguf: ALiBi with 112 heads", s)
# llama.cpp's kv-cache mask holds -|i - j| for a visible key and ggml's soft_max adds it times
# the head's slope; head 0's is m0 = 2^(-max_bias / n_head_log2) = 2^(-8/64) (112 heads: the
# power of two below is 64). bias(i, j) = -m0 (i - j), the paper's form, not BLOOM's m0 j
r = run(EXE, "bias", "-s", "gguf:" + bloom, "-n", "3", "-o", "-")
rows = [x for x in csv.reader(io.StringIO(r.text))][1:]
m0 = 2.0 ** (-8.0 / 64)
want = {(i, j): (-m0 * (i - j) if j <= i else -math.inf) for i in range(3) for j in range(3)}
got = {(int(x[1]), int(x[2])): float(x[3]) for x in rows if x[0] == "0"}
ok(r.rc == 0 and len(got) == 9 and all(abs(got[k] - v) <= 1e-15 or got[k] == v
                                       for k, v in want.items()),
   "bloom gguf bias: llama.cpp's -m (i - j) (mask -|i - j| times the slope)", (got, r.err))

# ---- malformed files --------------------------------------------------------------
good = open(qwen, "rb").read()
cases = [
    ("bad magic", b"GGUX" + good[4:], "not a GGUF file"),
    ("big-endian", b"GGUF" + struct.pack(">I", 3) + good[8:], "big-endian"),
    ("version 1", b"GGUF" + struct.pack("<I", 1) + good[8:], "version 1"),
    ("truncated", good[:40], "truncated"),
    ("empty", b"", "truncated"),
    ("huge counts", b"GGUF" + struct.pack("<IQQ", 3, 0, 1 << 60), "cannot fit"),
    ("string past end", b"GGUF" + struct.pack("<IQQ", 3, 0, 1) + struct.pack("<Q", 1 << 40) +
     b"\0" * 32,
     "runs past the end"),
    ("unknown type", gguf([("general.architecture", 77, 0)]) if False else
     b"GGUF" + struct.pack("<IQQ", 3, 0, 1) + struct.pack("<Q", 1) + b"k" +
     struct.pack("<I", 77) + b"\0" * 8, "unknown value type 77"),
    ("no architecture", gguf([("general.name", STRING, "x")]), "general.architecture"),
    ("unknown architecture", gguf([("general.architecture", STRING, "rwkv9")]),
     "'rwkv9' is not one"),
    ("tensor past end", gguf([("general.architecture", STRING, "llama"),
                              ("llama.attention.head_count", UINT32, 32),
                              ("llama.embedding_length", UINT32, 4096)],
                             [("rope_freqs.weight", [64], [1.0] * 64)])[:-8],
     "rope_freqs.weight"),
    ("array past end", gguf([("general.architecture", STRING, "llama"),
                             ("x", ARRAY, (UINT64, [1, 2]))], alignment=1)[:-4],
     "run past the end"),
    ("wrong type", gguf([("general.architecture", STRING, "llama"),
                         ("llama.rope.freq_base", STRING, "big")]), "freq_base: is not a number"),
    ("bool alignment", gguf([("general.alignment", BOOL, True)]), "general.alignment"),
    # the older linear-scaling key, when it is not a number, is an error (it was skipped, and
    # the model built with the error message left behind: found by fuzz_gguf)
    ("scale_linear string", gguf([("general.architecture", STRING, "qwen2"),
                                  ("qwen2.attention.head_count", UINT32, 4),
                                  ("qwen2.embedding_length", UINT32, 128),
                                  ("qwen2.rope.scale_linear", STRING, "2")]),
     "qwen2.rope.scale_linear: is not a number"),
]
for name, data, needle in cases:
    path = write(name.replace(" ", "-"), data)
    error_case(EXE, "gguf " + name, ["freqs", "-s", "gguf:" + path, "-o", "-"], 1, needle)
# SmolLM3 as llama.cpp reads it: llama_model_rope_type says NORM (pairs 2i, 2i+1: the
# converter permutes q/k as for LLaMA), and its loader hard-codes n_no_rope_layer_step = 4,
# so layer il rotates only if (il + 1) % 4 != 0. Independent: the layer lists from that rule.
smol = write("smollm3", gguf([
    ("general.architecture", STRING, "smollm3"),
    ("smollm3.context_length", UINT32, 65536),
    ("smollm3.embedding_length", UINT32, 2048),
    ("smollm3.block_count", UINT32, 8),
    ("smollm3.attention.head_count", UINT32, 16),
    ("smollm3.rope.freq_base", FLOAT32, 5000000.0),
]))
r, s = summary("gguf:" + smol)
rope_layers = [i for i in range(8) if (i + 1) % 4 != 0]
nope_layers = [i for i in range(8) if (i + 1) % 4 == 0]
ok(r.rc == 0 and s.get("rope", {}).get("layout") == "interleaved" and
   s["rope"].get("layers") == "0-2,4-6" and s.get("nope", {}).get("layers") == "3,7" and
   rope_layers == [0, 1, 2, 4, 5, 6] and nope_layers == [3, 7],
   "smollm3 gguf: NORM layout (interleaved), NoPE on every 4th layer (3, 7)", (s, r.err))
# Llama 4 with attention.sliding_window = 0: llama4.cpp sets n_no_rope_layer_step to n_layer
# ("always use rope"), and (il + 1) % n_layer != 0 leaves the last layer unrotated
l4 = write("llama4-noswa", gguf([
    ("general.architecture", STRING, "llama4"),
    ("llama4.context_length", UINT32, 8192),
    ("llama4.embedding_length", UINT32, 1024),
    ("llama4.block_count", UINT32, 4),
    ("llama4.attention.head_count", UINT32, 8),
    ("llama4.attention.sliding_window", UINT32, 0),
    ("llama4.rope.freq_base", FLOAT32, 500000.0),
]))
r, s = summary("gguf:" + l4)
ok(r.rc == 0 and s.get("rope", {}).get("layers") == "0-2" and
   s.get("nope", {}).get("layers") == "3",
   "llama4 gguf with sliding_window 0: every layer but the last rotates, as llama.cpp runs it",
   (s, r.err))

# Gemma 4 as llama.cpp reads it: attention.sliding_window_pattern one flag per layer (true:
# sliding), sliding layers with their own base (freq_base_swa), head (key_length_swa) and
# rotary width (rope.dimension_count_swa).
flags = [True, True, True, True, True, False] * 2
g4 = write("gemma4", gguf([
    ("general.architecture", STRING, "gemma4"),
    ("gemma4.context_length", UINT32, 131072),
    ("gemma4.embedding_length", UINT32, 2560),
    ("gemma4.block_count", UINT32, 12),
    ("gemma4.attention.head_count", UINT32, 8),
    ("gemma4.attention.key_length", UINT32, 512),
    ("gemma4.attention.key_length_swa", UINT32, 256),
    ("gemma4.rope.dimension_count", UINT32, 512),
    ("gemma4.rope.dimension_count_swa", UINT32, 256),
    ("gemma4.rope.freq_base", FLOAT32, 1000000.0),
    ("gemma4.rope.freq_base_swa", FLOAT32, 10000.0),
    ("gemma4.attention.sliding_window_pattern", ARRAY, (BOOL, flags)),
]))
r, s = summary("gguf:" + g4)
want_local = ",".join(str(i) for i, f in enumerate(flags) if f)
ok(r.rc == 0 and s.get("local", {}).get("base") == "10000" and
   s["local"].get("head_dim") == "256" and s.get("global", {}).get("head_dim") == "512" and
   s["global"].get("layers") == "5,11" and s["local"].get("layers") == "0-4,6-10" and
   want_local == "0,1,2,3,4,6,7,8,9,10",
   "gemma4 gguf: sliding_window_pattern flags, local base/head/rotary from the _swa keys",
   (s, r.err))
# A rotary width whose fraction of the head rounds low: 30 / 44 * 44 is 29.999..., so the
# spec's rotary=30/44 gave int(44 * rotary) = 29 and every command refused the file (the
# config.json reader already wrote the smallest fraction that gives 30 back). Also on the
# sliding layers' own widths (26 of 46), on gemma4, whose graph turns hparams.n_rot(il).
r30 = write("rotary-30-of-44", gguf([
    ("general.architecture", STRING, "gemma4"),
    ("gemma4.context_length", UINT32, 4096),
    ("gemma4.embedding_length", UINT32, 88),
    ("gemma4.block_count", UINT32, 6),
    ("gemma4.attention.head_count", UINT32, 2),
    ("gemma4.attention.key_length", UINT32, 44),
    ("gemma4.rope.dimension_count", UINT32, 30),
    ("gemma4.attention.key_length_swa", UINT32, 46),
    ("gemma4.rope.dimension_count_swa", UINT32, 26),
    ("gemma4.rope.freq_base", FLOAT32, 1000000.0),
    ("gemma4.attention.sliding_window", UINT32, 512),
    ("gemma4.attention.sliding_window_pattern", ARRAY, (BOOL, [True] * 5 + [False])),
]))
r, s = summary("gguf:" + r30)
ok(r.rc == 0 and s.get("global", {}).get("rotary_dim") == "30" and
   s.get("local", {}).get("rotary_dim") == "26",
   "gguf rope.dimension_count 30 of key_length 44 (26 of 46 sliding): 30 and 26 rotated",
   (s, r.err))
for group, b, width in (("global", 1000000.0, 30), ("local", 10000.0, 26)):
    r, th = freqs("gguf:" + r30, "--layer", group)
    ok(r.rc == 0 and close([float(t) for t in th or []],
                           [b ** (-2.0 * i / width) for i in range(width // 2)]),
       f"gguf 30 of 44 ({group}): theta_i = base^(-2i/{width}) for {width // 2} pairs", r.err)
# Without rope.dimension_count_swa, load_hparams (llama-model.cpp) sets n_rot_swa to the main
# n_rot whatever attention.key_length_swa says, and the graph turns hparams.n_rot(il) dims: 30
# of the 46-wide sliding head here; a main n_rot wider than the sliding head cannot run
# (ggml_rope_ext asserts n_dims <= the head) and is refused.
def no_swa_rot(name, head_swa):
    return write(name, gguf([
        ("general.architecture", STRING, "gemma3"),
        ("gemma3.context_length", UINT32, 4096),
        ("gemma3.embedding_length", UINT32, 88),
        ("gemma3.block_count", UINT32, 6),
        ("gemma3.attention.head_count", UINT32, 2),
        ("gemma3.attention.key_length", UINT32, 44),
        ("gemma3.rope.dimension_count", UINT32, 30),
        ("gemma3.attention.key_length_swa", UINT32, head_swa),
        ("gemma3.rope.freq_base", FLOAT32, 1000000.0),
        ("gemma3.attention.sliding_window", UINT32, 512),
    ]))


r, th = freqs("gguf:" + no_swa_rot("swa-rot-default", 46), "--layer", "local")
ok(r.rc == 0 and close([float(t) for t in th or []],
                       [10000.0 ** (-2.0 * i / 30) for i in range(15)]),
   "gguf key_length_swa 46 without dimension_count_swa: the sliding layers turn n_rot = 30 "
   "dims at 10000, as load_hparams defaults n_rot_swa", r.err)
r = run(EXE, "model", "gguf:" + no_swa_rot("swa-rot-too-wide", 24))
ok(r.rc == 1 and "key_length_swa" in r.err and "30" in r.err,
   "gguf key_length_swa 24 narrower than n_rot 30, no dimension_count_swa: refused", r.err)
# a period in sliding_window_pattern overrides the architecture's (cohere2: 4)
c2 = write("cohere2-p3", gguf([
    ("general.architecture", STRING, "cohere2"),
    ("cohere2.context_length", UINT32, 8192),
    ("cohere2.embedding_length", UINT32, 1024),
    ("cohere2.block_count", UINT32, 6),
    ("cohere2.attention.head_count", UINT32, 8),
    ("cohere2.rope.freq_base", FLOAT32, 50000.0),
    ("cohere2.rope.freq_base_swa", FLOAT32, 10000.0),
    ("cohere2.attention.sliding_window_pattern", UINT32, 3),
]))
r, s = summary("gguf:" + c2)
# cohere2.cpp rotates the sliding layers only (ggml_rope_ext under is_swa), with the graph's
# freq_base: the loader reads freq_base_swa, but the call that would use it is commented out
ok(r.rc == 0 and s.get("nope", {}).get("layers") == "2,5" and
   s.get("rope", {}).get("layers") == "0-1,3-4" and s["rope"].get("base") == "50000",
   "cohere2 sliding_window_pattern 3: every 3rd layer global and without RoPE, the others at "
   "freq_base", (s, r.err))
# yarn_beta_*: llama.cpp reads them only for some architectures (grok); qwen2 runs 32/1
def yarn_file(arch, name):
    return write(name, gguf([
        ("general.architecture", STRING, arch),
        (arch + ".context_length", UINT32, 131072),
        (arch + ".embedding_length", UINT32, 4096),
        (arch + ".block_count", UINT32, 4),
        (arch + ".attention.head_count", UINT32, 32),
        (arch + ".rope.freq_base", FLOAT32, 1000000.0),
        (arch + ".rope.scaling.type", STRING, "yarn"),
        (arch + ".rope.scaling.factor", FLOAT32, 4.0),
        (arch + ".rope.scaling.original_context_length", UINT32, 32768),
        (arch + ".rope.scaling.yarn_beta_fast", FLOAT32, 8.0),
        (arch + ".rope.scaling.yarn_beta_slow", FLOAT32, 0.5),
    ]))
r, s = summary("gguf:" + yarn_file("qwen2", "qwen2-betas"))
ok(r.rc == 0 and "beta-fast=32 " in s["all"]["spec"] + " " and
   "beta-slow=1 " in s["all"]["spec"] + " ",
   "qwen2 gguf: yarn_beta keys not read (llama.cpp's 32/1)", s.get("all"))
r, s = summary("gguf:" + yarn_file("grok", "grok-betas"))
ok(r.rc == 0 and "beta-fast=8" in s["all"]["spec"] and "beta-slow=0.5" in s["all"]["spec"],
   "grok gguf: yarn_beta keys read", s.get("all"))

# posenc model A B: one model from two sources, the differing position fields listed
r = run(EXE, "model", "model:llama-3.1-8b", "gguf:" + llama)
lines = {ln.split()[0]: ln for ln in r.text.splitlines() if ln.startswith("  ")}
fr = [ln for ln in r.text.splitlines() if "inverse frequencies" in ln]
worst = float(fr[0].split("difference")[1].split()[0]) if fr else 1.0
ok(r.rc == 0 and "half | interleaved" in lines.get("layout", "") and
   "llama3 | longrope" in lines.get("scaling", "") and 0 < worst < 2.5e-7 and
   "8192 | 131072" in r.text,
   "model config vs gguf: layout, scaling type, training context differ; frequencies "
   "within float32", r.text + r.err)
r = run(EXE, "model", "gguf:" + smol, "gguf:" + smol)
ok(r.rc == 0 and "no position-related field differs" in r.text and "group nope" in r.text,
   "model A A: nothing differs", r.text + r.err)

error_case(EXE, "gguf over --max-memory", ["freqs", "-s", "gguf:" + llama, "--max-memory", "1K"],
           1, "memory budget")
error_case(EXE, "gguf missing", ["freqs", "-s", "gguf:" + os.path.join(TMP, "none.gguf")], 1,
           "cannot open")
# ---- metadata llama.cpp refuses or reads otherwise: refused, not half read ------------------
LLAMA_KV = [
    ("general.architecture", STRING, "llama"),
    ("llama.context_length", UINT32, 4096),
    ("llama.embedding_length", UINT32, 4096),
    ("llama.block_count", UINT32, 2),
    ("llama.attention.head_count", UINT32, 32),
    ("llama.rope.freq_base", FLOAT32, 10000.0),
]
FREQS = [("rope_freqs.weight", [64], [1.0] * 64)]
dup = write("dupkey", gguf(LLAMA_KV + [("llama.rope.freq_base", FLOAT32, 10.0)]))
error_case(EXE, "gguf with a key twice (gguf.cpp refuses it)",
           ["model", "gguf:" + dup, "-o", "-"], 1, "'llama.rope.freq_base' appears twice")
bad_type = write("badtype", gguf(LLAMA_KV + [("llama.rope.scaling.type", STRING, "frob")],
                                 FREQS))
error_case(EXE, "gguf scaling type checked beside rope_freqs",
           ["model", "gguf:" + bad_type, "-o", "-"], 1, "'frob' is not none, linear, yarn or longrope")
both = write("both", gguf(LLAMA_KV + [("llama.rope.scaling.type", STRING, "linear"),
                                      ("llama.rope.scaling.factor", FLOAT32, 4.0)], FREQS))
error_case(EXE, "gguf linear scaling with rope_freqs (llama.cpp applies both)",
           ["model", "gguf:" + both, "-o", "-"], 1, "llama.cpp would apply both")
none = write("none", gguf(LLAMA_KV + [("llama.rope.scaling.type", STRING, "none")], FREQS))
r = run(EXE, "model", "gguf:" + none, "-o", "-")
ok(r.rc == 0, "gguf scaling type none beside rope_freqs is read", r.err)
for key in ("context_length", "block_count"):
    kv = [x if x[0] != "llama." + key else (x[0], UINT32, 0) for x in LLAMA_KV]
    error_case(EXE, "gguf %s 0" % key, ["model", "gguf:" + write(key + "0", gguf(kv)), "-o", "-"],
               1, "llama.%s: 0 is not a whole number > 0" % key)
fifo = os.path.join(TMP, "fifo.gguf")
os.mkfifo(fifo)
error_case(EXE, "gguf FIFO refused without waiting for a writer",
           ["model", "gguf:" + fifo, "-o", "-"], 1, "not a regular file")

# ---- architectures as llama.cpp's per-architecture code reads them ---------------------------
def arch_file(arch, layers, extra=(), name=None):
    return write(name or arch + str(layers), gguf([
        ("general.architecture", STRING, arch),
        (arch + ".context_length", UINT32, 4096),
        (arch + ".embedding_length", UINT32, 1024),
        (arch + ".block_count", UINT32, layers),
        (arch + ".attention.head_count", UINT32, 8),
        (arch + ".rope.freq_base", FLOAT32, 10000.0),
    ] + list(extra)))


# baichuan.cpp: 32 layers (7B) rotate, 40 (13B) take ALiBi of max bias 8, others neither
r, s = summary("gguf:" + arch_file("baichuan", 32))
ok(r.rc == 0 and s["all"]["spec"].startswith("rope"), "baichuan 32 layers: RoPE", s)
r, s = summary("gguf:" + arch_file("baichuan", 40))
ok(r.rc == 0 and s["all"]["spec"].startswith("alibi heads=8"), "baichuan 40 layers: ALiBi", s)
error_case(EXE, "baichuan 36 layers", ["model", "gguf:" + arch_file("baichuan", 36), "-o", "-"],
           1, "other sizes get no positional encoding")
error_case(EXE, "gpt2 (no RoPE in llama.cpp)", ["model", "gguf:" + arch_file("gpt2", 2), "-o",
                                                "-"], 1, "applies no RoPE to it")
# layouts from llama_model_rope_type: NORM interleaved, NEOX half; GLM-4 NORM unless M-RoPE
for arch, layout in (("mistral3", "interleaved"), ("ernie4_5", "interleaved"),
                     ("hunyuan-dense", "half"), ("seed_oss", "half"), ("glm4", "interleaved")):
    r, s = summary("gguf:" + arch_file(arch, 2))
    ok(r.rc == 0 and s.get("all", {}).get("layout") == layout, f"{arch} gguf: {layout}", s)
sec = (ARRAY, (UINT32, [16, 24, 24, 0]))
r, s = summary("gguf:" + arch_file("glm4", 2, [("glm4.rope.dimension_sections", *sec)], "glm4v"))
ok(r.rc == 0 and s.get("all", {}).get("layout") == "half", "glm4 gguf with sections: M-RoPE, half",
   s)
r = run(EXE, "model", "gguf:" + arch_file("qwen3vl", 2, [("qwen3vl.rope.dimension_sections",
                                                          *sec)]))
ok(r.rc == 0 and "interleaved=1" in r.text, "qwen3vl gguf: interleaved M-RoPE sections", r.text)
# exaone4.cpp: sliding layers (pattern 4), and RoPE only there, in the 64-layer 32B alone
r, s = summary("gguf:" + arch_file("exaone4", 64))
ok(r.rc == 0 and s.get("nope", {}).get("layers", "").startswith("3,7,11"),
   "exaone4 64 layers: every 4th layer without RoPE", s)
r, s = summary("gguf:" + arch_file("exaone4", 30))
ok(r.rc == 0 and s.get("all", {}).get("layers") == "0-29", "exaone4 30 layers: every layer", s)
# YaRN keys: betas read by grok and mistral3 only, the log multiplier by deepseek2/32,
# glm-dsa and mistral3 only; llama-context.cpp's amplitude get_mscale(f, 1) /
# get_mscale(f, log_mul) times rope.scaling.attn_factor
yk = lambda a: [(a + ".rope.scaling.type", STRING, "yarn"),  # noqa: E731
                (a + ".rope.scaling.factor", FLOAT32, 16.0),
                (a + ".rope.scaling.original_context_length", UINT32, 4096),
                (a + ".rope.scaling.yarn_beta_fast", FLOAT32, 16.0),
                (a + ".rope.scaling.yarn_log_multiplier", FLOAT32, 0.5)]
r, s = summary("gguf:" + arch_file("mistral3", 2, yk("mistral3"), "m3yarn"))
want = (0.1 * math.log(16) + 1) / (0.1 * f32(0.5) * math.log(16) + 1)
ok(r.rc == 0 and "beta-fast=16" in s["all"]["spec"] and
   abs(float(s["all"]["attention_factor"]) - want) <= 1e-6 * want,
   "mistral3 gguf: its betas and log multiplier read", s)
r, s = summary("gguf:" + arch_file("qwen2", 2, yk("qwen2"), "q2yarn"))
want = 0.1 * math.log(16) + 1
ok(r.rc == 0 and "beta-fast=32" in s["all"]["spec"] and
   abs(float(s["all"]["attention_factor"]) - want) <= 1e-12 * want,
   "qwen2 gguf: betas and log multiplier not read (llama.cpp's defaults)", s)

# Mistral 7B (converted as llama), Qwen2/Qwen3 and their MoE, StarCoder2 and PhiMoE: their
# loaders (src/models/<arch>.cpp load_arch_hparams) never read attention.sliding_window, and
# phi3.cpp reads it only to switch SWA off (swa_type NONE, n_swa 0, "Phi SWA is currently
# disabled"): llama.cpp attends in full there, so no window is stated
for arch in ("llama", "qwen2", "qwen2moe", "qwen3", "qwen3moe", "starcoder2", "phi3", "phimoe"):
    r, s = summary("gguf:" + arch_file(arch, 4, [(arch + ".attention.sliding_window", UINT32,
                                                  4096)], arch + "_win"))
    ok(r.rc == 0 and "sliding_window" not in s.get("model", {}) and
       "sliding_layers" not in s.get("model", {}),
       f"{arch} gguf with attention.sliding_window: no window (llama.cpp's loader sets none)",
       (r.err, s.get("model")))

# olmo2.cpp (Olmo 3): sliding layers when the file has a window, plain RoPE at the main base
# there (freq_scale 1, ext_factor 0), the rope block on every 4th layer
ol = [("olmo2.rope.scaling.type", STRING, "yarn"), ("olmo2.rope.scaling.factor", FLOAT32, 8.0),
      ("olmo2.rope.scaling.original_context_length", UINT32, 8192)]
r, s = summary("gguf:" + arch_file("olmo2", 8, ol + [("olmo2.attention.sliding_window", UINT32,
                                                      4096)], "olmo3"))
ok(r.rc == 0 and s.get("local", {}).get("layers") == "0-2,4-6" and
   s["local"].get("scaling") == "none" and s.get("global", {}).get("scaling") == "yarn",
   "olmo2 gguf with a window (Olmo 3): sliding layers unscaled, every 4th with yarn", s)
r, s = summary("gguf:" + arch_file("olmo2", 8, ol, "olmo2nowin"))
ok(r.rc == 0 and s.get("all", {}).get("scaling") == "yarn", "olmo2 gguf without a window: one "
   "group", s)
# deepseek2/32 write 0.1 x mscale_all_dim, which their loaders divide by 0.1 again
ds = [("deepseek32.rope.scaling.type", STRING, "yarn"),
      ("deepseek32.rope.scaling.factor", FLOAT32, 40.0),
      ("deepseek32.rope.scaling.original_context_length", UINT32, 4096),
      ("deepseek32.rope.scaling.yarn_log_multiplier", FLOAT32, 0.1)]
r, s = summary("gguf:" + arch_file("deepseek32", 2, ds))
ok(r.rc == 0 and abs(float(s["all"]["attention_factor"]) - 1) < 1e-6,
   "deepseek32 gguf: log multiplier 0.1 is mscale_all_dim 1, factor 1", s)
# granite.cpp: rope.scaling.finetuned false means no RoPE
error_case(EXE, "granite with rope.scaling.finetuned false",
           ["model", "gguf:" + arch_file("granite", 2, [("granite.rope.scaling.finetuned", BOOL,
                                                          False)]), "-o", "-"], 1,
           "applies no RoPE then")
# llama-model.cpp: a factor without a scaling type is linear
r, s = summary("gguf:" + arch_file("llama", 2, [("llama.rope.scaling.factor", FLOAT32, 4.0)],
                                   "llamafac"))
ok(r.rc == 0 and s["all"].get("scaling") == "linear" and s["all"].get("factor") == "4",
   "llama gguf: a factor without a type is linear", s)
# the next-token-prediction layers are not part of the main stack
r, s = summary("gguf:" + arch_file("glm4moe", 4, [("glm4moe.nextn_predict_layers", UINT32, 1)]))
ok(r.rc == 0 and s["all"].get("layers") == "0-2", "glm4moe gguf: nextn_predict_layers not counted",
   s)

# ---- hybrids and per-layer architectures, as llama.cpp's converter writes them ----------------
# Each file below carries the keys conversion/*.py (llama.cpp de3ff815) writes from a published
# config.json (tests/fixtures/hf, SOURCES.md); the expected layers and angles are restated here
# from the config and from llama.cpp's loader and ggml's rope (theta_i = base^(-2i/n_rot)).
import json  # noqa: E402

FIX = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "fixtures", "hf")


def fixture(name):
    c = json.load(open(os.path.join(FIX, name)))
    return c.get("text_config", c)


def ranges(idx):
    """posenc's layer list: runs of consecutive layers as a-b."""
    out, idx = [], sorted(idx)
    i = 0
    while i < len(idx):
        j = i
        while j + 1 < len(idx) and idx[j + 1] == idx[j] + 1:
            j += 1
        out.append(str(idx[i]) if i == j else "%d-%d" % (idx[i], idx[j]))
        i = j + 1
    return ",".join(out)


def thetas(spec, group):
    r, th = freqs(spec, "--layer", group)
    return r, [float(t) for t in th or []]


def rope_theta(base, n_rot):
    return [f32(base) ** (-2.0 * i / n_rot) for i in range(n_rot // 2)]


def text_kv(arch, c, block_count):
    """TextModel.set_gguf_parameters: the keys every converter starts from."""
    kv = [("general.architecture", STRING, arch), (arch + ".block_count", UINT32, block_count),
          (arch + ".context_length", UINT32, c["max_position_embeddings"]),
          (arch + ".embedding_length", UINT32, c["hidden_size"]),
          (arch + ".attention.head_count", UINT32, c["num_attention_heads"])]
    if c.get("num_key_value_heads") is not None:
        kv.append((arch + ".attention.head_count_kv", UINT32, c["num_key_value_heads"]))
    if c.get("head_dim") is not None:
        kv += [(arch + ".attention.key_length", UINT32, c["head_dim"]),
               (arch + ".attention.value_length", UINT32, c["head_dim"])]
    return kv


# Qwen 3.5 (qwen35, qwen35moe; conversion/qwen.py Qwen3_5TextModel): one MTP layer appended to
# block_count, attention.recurrent_layers from layer_types (False for the MTP layer),
# full_attention_interval, rope.dimension_count = head_dim x partial_rotary_factor, the M-RoPE
# sections padded to 4. qwen35.cpp: RoPE (IMROPE) in the non-recurrent layers only.
for fname, arch in (("qwen3.5-27b.json", "qwen35"), ("qwen3.5-35b-a3b.json", "qwen35moe")):
    c = fixture(fname)
    rp, n, mtp = c["rope_parameters"], c["num_hidden_layers"], c["mtp_num_hidden_layers"]
    n_rot = int(c["head_dim"] * rp["partial_rotary_factor"])
    kv = text_kv(arch, c, n + mtp) + [
        (arch + ".rope.dimension_sections", ARRAY, (INT32, rp["mrope_section"] + [0])),
        (arch + ".rope.freq_base", FLOAT32, rp["rope_theta"]),
        (arch + ".attention.recurrent_layers", ARRAY,
         (BOOL, [t == "linear_attention" for t in c["layer_types"]] + [False] * mtp)),
        (arch + ".full_attention_interval", UINT32, c["full_attention_interval"]),
        (arch + ".rope.dimension_count", UINT32, n_rot),
        (arch + ".nextn_predict_layers", UINT32, mtp)]
    path = write(arch, gguf(kv))
    attn = [i for i, t in enumerate(c["layer_types"]) if t == "full_attention"]
    rest = [i for i in range(n) if i not in attn]
    r, s = summary("gguf:" + path)
    ok(r.rc == 0 and s["model"]["layers"] == str(n) and s.get("rope", {}).get("layers") ==
       ranges(attn) and s.get("nope", {}).get("layers") == ranges(rest) and
       s["rope"].get("rotary_dim") == str(n_rot) and s["rope"].get("head_dim") == "256" and
       s["rope"].get("layout") == "half",
       f"{fname} as {arch} gguf: RoPE over {n_rot} of 256 in the {len(attn)} full-attention "
       f"layers, the {len(rest)} Gated DeltaNet layers without, the MTP layer not listed",
       (s, r.err))
    r, th = thetas("gguf:" + path, "rope")
    ok(r.rc == 0 and close(th, rope_theta(rp["rope_theta"], n_rot)),
       f"{arch} gguf: theta_i = 1e7^(-2i/{n_rot})", r.err)
    r = run(EXE, "model", "gguf:" + path)
    ok(r.rc == 0 and "t=11,h=11,w=10,interleaved=1" in r.text,
       f"{arch} gguf: the interleaved M-RoPE sections noted", r.text + r.err)
kv = [x for x in kv if not x[0].endswith("dimension_sections")]
error_case(EXE, "qwen35moe gguf without rope.dimension_sections (the loader requires them)",
           ["model", "gguf:" + write("q35nosec", gguf(kv)), "-o", "-"], 1,
           "dimension_sections: missing")

# Qwen3-Next-80B-A3B (qwen3next): config.json has no layer_types; the converter takes
# AutoConfig's, full attention where (i + 1) % full_attention_interval == 0. Files without
# attention.recurrent_layers fall back to that interval (qwen3next.cpp), default 4.
c = fixture("qwen3-next-80b-a3b-thinking.json")
n, every = c["num_hidden_layers"], c["full_attention_interval"]
n_rot = int(c["head_dim"] * c["partial_rotary_factor"])
attn = [i for i in range(n) if (i + 1) % every == 0]
kv = text_kv("qwen3next", c, n + 1) + [
    ("qwen3next.rope.freq_base", FLOAT32, c["rope_theta"]),
    ("qwen3next.attention.recurrent_layers", ARRAY,
     (BOOL, [i not in attn for i in range(n)] + [False])),
    ("qwen3next.full_attention_interval", UINT32, every),
    ("qwen3next.rope.dimension_count", UINT32, n_rot),
    ("qwen3next.nextn_predict_layers", UINT32, 1)]
for name, keys in (("recurrent_layers", kv),
                   ("only the interval", [x for x in kv if "recurrent" not in x[0]]),
                   ("neither (default 4)", [x for x in kv if "recurrent" not in x[0] and
                                            "interval" not in x[0]])):
    path = write("qwen3next", gguf(keys))
    r, s = summary("gguf:" + path)
    ok(r.rc == 0 and s.get("rope", {}).get("layers") == ranges(attn) and
       s.get("nope", {}).get("layers") == ranges([i for i in range(n) if i not in attn]) and
       s["rope"].get("rotary_dim") == "64",
       "qwen3next gguf (%s): RoPE in layers 3, 7, ..., 47 only" % name, (s, r.err))
r, th = thetas("gguf:" + path, "rope")
ok(r.rc == 0 and close(th, rope_theta(c["rope_theta"], n_rot)),
   "qwen3next gguf: theta_i = 1e7^(-2i/64)", r.err)
r = run(EXE, "model", "gguf:" + path, "hf:" + os.path.join(FIX, "qwen3-next-80b-a3b-thinking.json"))
ok(r.rc == 0 and "no position-related field differs" in r.text,
   "qwen3next gguf and its config.json: the same groups and angles", r.text + r.err)

# Llama-3.3-Nemotron-Super-49B (deci; conversion/deci.py): per-layer head counts from
# block_configs (n_heads_in_group None: 0 kv heads, and 0 heads unless replace_with_linear),
# the llama3 scaling as rope_freqs.weight. deci.cpp rotates only where both counts are above 0.
c = fixture("llama-3.3-nemotron-super-49b-v1.json")
heads, kvh = [], []
for b in c["block_configs"]:
    g = b["attention"]["n_heads_in_group"]
    kvh.append(0 if g is None else c["num_attention_heads"] // g)
    heads.append(c["num_attention_heads"] if g is not None or
                 b["attention"]["replace_with_linear"] else 0)
d = c["hidden_size"] // c["num_attention_heads"]
rs = c["rope_scaling"]
ff = []
for i in range(0, d, 2):
    fq = f32(1.0 / f32(f32(c["rope_theta"]) ** f32(i / d)))
    wl = 2 * math.pi / fq
    lo, hi = rs["original_max_position_embeddings"] / rs["low_freq_factor"], \
        rs["original_max_position_embeddings"] / rs["high_freq_factor"]
    if wl < hi:
        ff.append(1.0)
    elif wl > lo:
        ff.append(rs["factor"])
    else:
        sm = (rs["original_max_position_embeddings"] / wl - rs["low_freq_factor"]) / \
            (rs["high_freq_factor"] - rs["low_freq_factor"])
        ff.append(1 / ((1 - sm) / rs["factor"] + sm))
deci = write("deci49b", gguf([
    ("general.architecture", STRING, "deci"),
    ("deci.rope.freq_base", FLOAT32, c["rope_theta"]),
    ("deci.attention.head_count_kv", ARRAY, (INT32, kvh)),
    ("deci.attention.head_count", ARRAY, (INT32, heads)),
    ("deci.block_count", UINT32, len(heads)),
    ("deci.context_length", UINT32, c["max_position_embeddings"]),
    ("deci.embedding_length", UINT32, c["hidden_size"]),
    ("deci.attention.key_length", UINT32, d),
    ("deci.attention.value_length", UINT32, d),
    ("deci.rope.dimension_count", UINT32, d),
], [("rope_freqs.weight", [d // 2], ff)]))
attn = [i for i in range(len(heads)) if heads[i] > 0 and kvh[i] > 0]
r, s = summary("gguf:" + deci)
ok(r.rc == 0 and len(attn) == 49 and s.get("rope", {}).get("layers") == ranges(attn) and
   s.get("nope", {}).get("layers") == ranges([i for i in range(80) if i not in attn]),
   "deci gguf (Nemotron Super 49B): per-layer head counts, the 31 attention-free layers "
   "without positional encoding", (s.get("nope"), r.err))
r, th = thetas("gguf:" + deci, "rope")
ok(r.rc == 0 and close(th, [1.0 / (f32(x) * f32(c["rope_theta"]) ** (i / d))
                            for x, i in zip(ff, range(0, d, 2))]),
   "deci gguf: 1 / (rope_freqs[i] base^(2i/d)) in the attention layers", r.err)
bad = write("deci-short", gguf([x for x in [("general.architecture", STRING, "deci"),
                                            ("deci.block_count", UINT32, 80),
                                            ("deci.embedding_length", UINT32, 8192),
                                            ("deci.attention.head_count", ARRAY,
                                             (INT32, heads[:79]))]]))
error_case(EXE, "gguf head_count array not one per layer", ["model", "gguf:" + bad, "-o", "-"],
           1, "79 values, not one per layer (block_count 80)")

# Laguna-XS.2 (laguna; conversion/laguna.py): per-layer head counts, sliding_window, the
# full layers' yarn over 64 of 128, rope.freq_base_swa and rope.dimension_count_swa for the
# sliding ones. laguna.cpp: a full layer first in every 4 (dense_first); sliding layers turn
# plainly (freq_scale 1, ext_factor 0) at freq_base_swa over n_rot_swa; betas not read (32, 1).
c = fixture("laguna-xs.2-fp8.json")
fa, sa = c["rope_parameters"]["full_attention"], c["rope_parameters"]["sliding_attention"]
n_rot, n_swa = int(c["head_dim"] * fa["partial_rotary_factor"]), \
    int(c["head_dim"] * sa["partial_rotary_factor"])
lag = write("laguna", gguf([
    ("general.architecture", STRING, "laguna"),
    ("laguna.block_count", UINT32, c["num_hidden_layers"]),
    ("laguna.context_length", UINT32, c["max_position_embeddings"]),
    ("laguna.embedding_length", UINT32, c["hidden_size"]),
    ("laguna.attention.head_count", ARRAY, (UINT32, c["num_attention_heads_per_layer"])),
    ("laguna.attention.head_count_kv", UINT32, c["num_key_value_heads"]),
    ("laguna.attention.key_length", UINT32, c["head_dim"]),
    ("laguna.rope.scaling.type", STRING, "yarn"),
    ("laguna.rope.scaling.factor", FLOAT32, fa["factor"]),
    ("laguna.rope.scaling.original_context_length", UINT32,
     fa["original_max_position_embeddings"]),
    ("laguna.rope.scaling.yarn_attn_factor", FLOAT32, fa["attention_factor"]),
    ("laguna.rope.scaling.yarn_beta_fast", FLOAT32, fa["beta_fast"]),
    ("laguna.rope.scaling.yarn_beta_slow", FLOAT32, fa["beta_slow"]),
    ("laguna.rope.freq_base", FLOAT32, fa["rope_theta"]),
    ("laguna.rope.freq_base_swa", FLOAT32, sa["rope_theta"]),
    ("laguna.attention.sliding_window", UINT32, c["sliding_window"]),
    ("laguna.rope.dimension_count", UINT32, n_rot),
    ("laguna.rope.dimension_count_swa", UINT32, n_swa),
]))
full = [i for i, t in enumerate(c["layer_types"]) if t == "full_attention"]
r, s = summary("gguf:" + lag)
ok(r.rc == 0 and s.get("global", {}).get("layers") == ranges(full) and
   s.get("local", {}).get("layers") == ranges([i for i in range(40) if i not in full]) and
   s["global"].get("rotary_dim") == "64" and s["local"].get("rotary_dim") == "128" and
   s["local"].get("scaling") == "none",
   "laguna gguf: full layers 0, 4, ... with yarn over 64, sliding layers plain over 128",
   (s, r.err))
r, th = thetas("gguf:" + lag, "local")
ok(r.rc == 0 and close(th, rope_theta(sa["rope_theta"], n_swa)),
   "laguna gguf: sliding layers theta_i = 10000^(-2i/128)", r.err)
# ggml's rope_yarn with llama.cpp's betas 32 and 1: corr_dim(r) = n ln(orig / (2 pi r)) /
# (2 ln base), the ramp 1 - clamp((i - floor(corr(32))) / (ceil(corr(1)) - floor(corr(32))))
# mixing theta_i (ramp 1) and theta_i / factor
fb = f32(fa["rope_theta"])
cd = [n_rot * math.log(fa["original_max_position_embeddings"] / (b * 2 * math.pi)) /
      (2 * math.log(fb)) for b in (32, 1)]
lo, hi = max(0.0, math.floor(cd[0])), min(n_rot - 1.0, math.ceil(cd[1]))
want = []
for i in range(n_rot // 2):
    ramp = 1 - min(1.0, max(0.0, (i - lo) / max(0.001, hi - lo)))
    t = fb ** (-2.0 * i / n_rot)
    want.append(t / f32(fa["factor"]) * (1 - ramp) + t * ramp)
r, th = freqs("gguf:" + lag, "--layer", "global")
ok(r.rc == 0 and close(th, want), "laguna gguf: full layers as ggml's rope_yarn turns them "
   "(betas 32 and 1: laguna.cpp does not read the file's)", r.err)

# LFM2-1.2B (lfm2; conversion/lfm2.py: head_count_kv per layer, 0 for the conv layers), the
# values of https://huggingface.co/LiquidAI/LFM2-1.2B/blob/main/config.json: 16 layers,
# hidden 2048, 32 heads, 8 kv heads, full attention at 2, 5, 8, 10, 12 and 14, rope_theta 1e6,
# 128000 positions. lfm2.cpp: is_recr = n_head_kv(il) == 0; NEOX RoPE at freq_base in the
# others, sliding window or not.
attn = [2, 5, 8, 10, 12, 14]
LFM2 = [("general.architecture", STRING, "lfm2"), ("lfm2.block_count", UINT32, 16),
        ("lfm2.context_length", UINT32, 128000), ("lfm2.embedding_length", UINT32, 2048),
        ("lfm2.attention.head_count", UINT32, 32),
        ("lfm2.attention.head_count_kv", ARRAY, (UINT32, [8 if i in attn else 0
                                                          for i in range(16)])),
        ("lfm2.rope.freq_base", FLOAT32, 1000000.0)]
for name, extra in (("", []), (" with a sliding window", [("lfm2.attention.sliding_window",
                                                            UINT32, 4096)])):
    path = write("lfm2", gguf(LFM2 + extra))
    r, s = summary("gguf:" + path)
    ok(r.rc == 0 and s.get("rope", {}).get("layers") == ranges(attn) and
       s.get("nope", {}).get("layers") == ranges([i for i in range(16) if i not in attn]) and
       s["rope"].get("layout") == "half" and s["rope"].get("rotary_dim") == "64",
       "lfm2 gguf%s: the 6 attention layers rotate (NEOX, 64 wide), the 10 conv layers not"
       % name, (s, r.err))
r, th = thetas("gguf:" + path, "rope")
ok(r.rc == 0 and close(th, rope_theta(1e6, 64)), "lfm2 gguf: theta_i = 1e6^(-2i/64)", r.err)
lfm2moe = write("lfm2moe", gguf([(k.replace("lfm2.", "lfm2moe."), t, v if k !=
                                  "general.architecture" else "lfm2moe") for k, t, v in LFM2]))
r, s = summary("gguf:" + lfm2moe)
ok(r.rc == 0 and s.get("rope", {}).get("layers") == ranges(attn),
   "lfm2moe gguf: the same rule (llama_model_lfm2moe uses lfm2's graph)", (s, r.err))

# Granite 4.0 H (granitehybrid; conversion/granite.py GraniteHybridModel): head_count_kv 0 in
# the Mamba-2 layers, rope.scaling.finetuned false for a hybrid (context 2^20): no RoPE at all
# in granite-hybrid.cpp. Bamba (finetuned true, attn_rotary_emb as rope.dimension_count):
# NORM RoPE in the attention layers only.
def granite_h(fine, rot=None):
    kv = [("general.architecture", STRING, "granitehybrid"),
          ("granitehybrid.block_count", UINT32, 32),
          ("granitehybrid.context_length", UINT32, 2 ** 20 if not fine else 4096),
          ("granitehybrid.embedding_length", UINT32, 4096),
          ("granitehybrid.attention.head_count", UINT32, 32),
          ("granitehybrid.attention.head_count_kv", ARRAY,
           (UINT32, [8 if i in (9, 18, 27) else 0 for i in range(32)])),
          ("granitehybrid.rope.freq_base", FLOAT32, 10000.0),
          ("granitehybrid.rope.scaling.finetuned", BOOL, fine)]
    if rot:
        kv.append(("granitehybrid.rope.dimension_count", UINT32, rot))
    return write("granitehybrid", gguf(kv))


error_case(EXE, "granitehybrid with rope.scaling.finetuned false (Granite 4.0 H)",
           ["model", "gguf:" + granite_h(False), "-o", "-"], 1, "applies no RoPE then")
r, s = summary("gguf:" + granite_h(True, 64))
ok(r.rc == 0 and s.get("rope", {}).get("layers") == "9,18,27" and
   s["rope"].get("layout") == "interleaved" and s["rope"].get("rotary_dim") == "64" and
   s.get("nope", {}).get("layers") == ranges([i for i in range(32) if i not in (9, 18, 27)]),
   "granitehybrid gguf with RoPE (Bamba): NORM over 64 in the attention layers only", (s, r.err))

# PLaMo 2 (conversion/plamo.py): head_count and head_count_kv 0 in the Mamba layers, layer 0
# among them. load_hparams reads key_length and rope.dimension_count only when n_head(0) > 0,
# so n_rot stays 0 and ggml rotates nothing: refused with that reason.
pl2 = write("plamo2", gguf([
    ("general.architecture", STRING, "plamo2"), ("plamo2.block_count", UINT32, 4),
    ("plamo2.attention.head_count_kv", ARRAY, (UINT32, [0, 4, 0, 4])),
    ("plamo2.attention.head_count", ARRAY, (UINT32, [0, 32, 0, 32])),
    ("plamo2.context_length", UINT32, 2048), ("plamo2.embedding_length", UINT32, 2048),
    ("plamo2.attention.key_length", UINT32, 128), ("plamo2.rope.freq_base", FLOAT32, 10000.0)]))
error_case(EXE, "plamo2 gguf: layer 0 without heads gives llama.cpp a rotary width of 0",
           ["model", "gguf:" + pl2, "-o", "-"], 1, "a rotary width of 0")

# no RoPE anywhere in the graph: refused with what the model has
c = fixture("nemotron-3-super-120b-a12b-fp8.json")
for arch, needle in (("nemotron_h", "Mamba-2 layers and attention layers without"),
                     ("nemotron_h_moe", "Mamba-2 layers and attention layers without"),
                     ("kimi-linear", "Kimi Delta Attention"), ("bert", "learned position"),
                     ("starcoder", "pos_embd"), ("jamba", "Mamba layers")):
    error_case(EXE, "%s gguf refused" % arch,
               ["model", "gguf:" + write(arch, gguf(text_kv(arch, c, 4))), "-o", "-"], 1,
               needle)

# ---- per-layer rules of other loaders and graphs, restated -----------------------------------
def rule(arch, layers, extra=(), base=1e6):
    kv = [("general.architecture", STRING, arch), (arch + ".context_length", UINT32, 4096),
          (arch + ".embedding_length", UINT32, 1024), (arch + ".block_count", UINT32, layers),
          (arch + ".attention.head_count", UINT32, 8), (arch + ".rope.freq_base", FLOAT32, base)]
    kv += [(arch + "." + k, t, v) for k, t, v in extra]
    return summary("gguf:" + write("rule-" + arch, gguf(kv)))


n = 8
lin = [("rope.scaling.type", STRING, "linear"), ("rope.scaling.factor", FLOAT32, 4.0)]
cases = [
    # cohere2moe.cpp: load_swa_pattern(4, dense_first) and RoPE in sliding layers or in the
    # leading dense blocks
    ("cohere2moe", [("attention.sliding_window", UINT32, 4096),
                    ("leading_dense_block_count", UINT32, 1)],
     {"rope": [i for i in range(n) if i % 4 != 0 or i < 1], "nope": [4]}),
    # exaone-moe.cpp: sliding layers (period 4) rotate, at freq_base
    ("exaone-moe", [("attention.sliding_window", UINT32, 128)],
     {"rope": [i for i in range(n) if i % 4 != 3], "nope": [3, 7]}),
    # smallthinker.cpp with a window: dense first in every 4, RoPE elsewhere at freq_base_swa
    ("smallthinker", [("attention.sliding_window", UINT32, 4096),
                      ("rope.freq_base_swa", FLOAT32, 5000.0)],
     {"rope": [i for i in range(n) if i % 4 != 0], "nope": [0, 4], "base": "5000"}),
    # ... and without: n_no_rope_layer_step = n_layer, every layer
    ("smallthinker", [], {"all": list(range(n))}),
    # afmoe.cpp: n_no_rope_layer_step 4 with or without a window
    ("afmoe", [], {"rope": [i for i in range(n) if (i + 1) % 4 != 0], "nope": [3, 7]}),
    # muse-glimmer.cpp: RoPE on sliding layers only, at freq_base_swa
    ("muse-glimmer", [("attention.sliding_window", UINT32, 4096),
                      ("rope.freq_base_swa", FLOAT32, 5000.0)],
     {"rope": [i for i in range(n) if i % 4 != 3], "nope": [3, 7], "base": "5000"}),
    # mellum.cpp: sliding layers at freq_base with freq_scale 1
    ("mellum", lin + [("attention.sliding_window", UINT32, 4096),
                      ("rope.freq_base_swa", FLOAT32, 5000.0)],
     {"local": [i for i in range(n) if i % 4 != 3], "global": [3, 7], "lbase": "1000000"}),
    # modern-bert.cpp: with a window, a global layer first in every 3, locals at 10000
    # (hparams' default rope_freq_base_train_swa)
    ("modern-bert", [("attention.sliding_window", UINT32, 128)],
     {"local": [i for i in range(n) if i % 3 != 0], "global": [0, 3, 6], "lbase": "10000"}),
    # plamo3.cpp: period 8, locals at freq_base_swa (default 10000)
    ("plamo3", [("attention.sliding_window", UINT32, 128)],
     {"local": list(range(7)), "global": [7], "lbase": "10000"}),
    # minimax-01.cpp: lightning attention but every 8th layer
    ("minimax-01", [], {"rope": [7], "nope": list(range(7))}),
    # falcon-h1.cpp: attention beside Mamba-2 in every layer
    ("falcon-h1", [], {"all": list(range(n))}),
]
for arch, extra, want in cases:
    r, s = rule(arch, n, extra)
    good = r.rc == 0 and all(s.get(g, {}).get("layers") == ranges(v)
                             for g, v in want.items() if "base" not in g)
    if "base" in want:
        good = good and s.get("rope", {}).get("base") == want["base"]
    if "lbase" in want:
        good = good and s.get("local", {}).get("base") == want["lbase"]
    if "local" in want:
        good = good and s["local"].get("scaling") == "none" and \
            s["global"].get("base") == "1000000"
    ok(good, "%s gguf: %s" % (arch, ", ".join(
        "%s %s" % (g, ranges(v) if "base" not in g else v) for g, v in want.items())), (s, r.err))
flags = [False, True, True] * 2
r, s = rule("granite_swa", 6, [("attention.sliding_window", UINT32, 128),
                               ("attention.sliding_window_pattern", ARRAY, (BOOL, flags)),
                               ("attention.rope_pattern", ARRAY, (BOOL, [True, False] * 3))])
ok(r.rc == 0 and s.get("rope", {}).get("layers") == "0,2,4" and
   s.get("nope", {}).get("layers") == "1,3,5",
   "granite_swa gguf: RoPE where attention.rope_pattern says, every layer at freq_base",
   (s, r.err))
r, s = rule("maple", 6, [("attention.sliding_window", UINT32, 4096),
                         ("attention.sliding_window_pattern", ARRAY, (BOOL, flags))])
ok(r.rc == 0 and s.get("rope", {}).get("layers") == "1-2,4-5" and
   s.get("nope", {}).get("layers") == "0,3", "maple gguf: RoPE in the sliding layers only",
   (s, r.err))
error_case(EXE, "maple gguf without its sliding_window_pattern",
           ["model", "gguf:" + arch_file("maple", 6, name="maple-nopat"), "-o", "-"], 1,
           "loader requires it")
# maple.cpp turns hparams.n_rot(il): rope.dimension_count_swa (16 here, head 128) in the sliding
# layers, which posenc's sliding spec would not carry: refused rather than shown at 128
maple_rot = [("general.architecture", STRING, "maple"), ("maple.context_length", UINT32, 4096),
             ("maple.embedding_length", UINT32, 1024), ("maple.block_count", UINT32, 6),
             ("maple.attention.head_count", UINT32, 8), ("maple.rope.freq_base", FLOAT32, 1e6),
             ("maple.attention.sliding_window", UINT32, 4096),
             ("maple.attention.sliding_window_pattern", ARRAY, (BOOL, flags)),
             ("maple.rope.dimension_count_swa", UINT32, 16)]
error_case(EXE, "maple gguf whose rope.dimension_count_swa differs from the main width",
           ["model", "gguf:" + write("maple-rot", gguf(maple_rot)), "-o", "-"], 1,
           "dimension_count_swa")
r, s = rule("plamo", 2, [("rope.dimension_count", UINT32, 64)])
ok(r.rc == 0 and s.get("all", {}).get("rotary_dim") == "128",
   "plamo gguf: plamo.cpp rotates the whole head whatever rope.dimension_count says", s)
# talkie.cpp passes hparams.rope_type, which llama_model_rope_type lists with the NEOX
# architectures: pairs (i, i + d/2)
r, s = rule("talkie", 2)
ok(r.rc == 0 and s.get("all", {}).get("layout") == "half",
   "talkie gguf: llama.cpp's NEOX pairing (half), not NORM", s)
error_case(EXE, "llama gguf with rope.dimension_count below the head (llama.cpp: invalid n_rot)",
           ["model", "gguf:" + arch_file("llama", 2, [("llama.rope.dimension_count", UINT32,
                                                       64)], name="llama-nrot"), "-o", "-"], 1,
           "invalid n_rot")
# ALiBi: mpt.cpp and jais.cpp read attention.max_alibi_bias (0 or absent: none); bloom,
# refact and baichuan hard-code 8 whatever the file holds
error_case(EXE, "mpt gguf without max_alibi_bias (no ALiBi in llama.cpp's graph)",
           ["model", "gguf:" + arch_file("mpt", 2, name="mpt-nobias"), "-o", "-"], 1,
           "has no ALiBi")
# jina-bert-v2: bert.cpp's graph without a causal mask (the converter writes
# causal_attention false) and the mask's ALiBi term -|i - j|: symmetric, not posenc's causal
# ALiBi, so refused as the config.json reader refuses JinaBERT's
error_case(EXE, "jina-bert-v2 gguf refused (symmetric ALiBi in an encoder)",
           ["model", "gguf:" + arch_file("jina-bert-v2", 4, [("jina-bert-v2.attention.causal",
                                                               BOOL, False)]), "-o", "-"], 1,
           "symmetric ALiBi")
r, s = rule("refact", 2, [("attention.max_alibi_bias", FLOAT32, 4.0)])
ok(r.rc == 0 and s.get("all", {}).get("spec", "").startswith("alibi heads=8"),
   "refact gguf: ALiBi of max bias 8 (refact.cpp sets it)", s)

# ---- architectures added from llama.cpp de3ff815 (src/models/<arch>.cpp) ----------------------
# gemma3n.cpp: load_swa_pattern(5) (the converter writes layer_types as flags), sliding layers
# at rope.freq_base_swa unscaled. Shape of google/gemma-3n-E4B-it's text_config
# (https://huggingface.co/google/gemma-3n-E4B-it/blob/main/config.json): 35 layers, head 256,
# rope_theta 1e6, rope_local_base_freq 1e4, every 5th layer full.
n = 35
flags5 = [i % 5 != 4 for i in range(n)]
r, s = rule("gemma3n", n, [("attention.key_length", UINT32, 256),
                           ("attention.sliding_window", UINT32, 512),
                           ("rope.freq_base_swa", FLOAT32, 10000.0),
                           ("attention.sliding_window_pattern", ARRAY, (BOOL, flags5))])
ok(r.rc == 0 and s.get("local", {}).get("layers") == ranges([i for i in range(n) if flags5[i]])
   and s.get("global", {}).get("layers") == ranges([i for i in range(n) if not flags5[i]]) and
   s["local"].get("base") == "10000" and s["global"].get("base") == "1000000",
   "gemma3n gguf: 28 sliding layers at 1e4, 7 full ones at 1e6", (s, r.err))
gem = os.path.join(TMP, "rule-gemma3n.gguf")
r, s = rule("gemma3n", n, [("attention.key_length", UINT32, 256),
                           ("attention.sliding_window", UINT32, 512),
                           ("rope.freq_base_swa", FLOAT32, 10000.0)])
ok(r.rc == 0 and s.get("local", {}).get("layers") == ranges([i for i in range(n) if flags5[i]]),
   "gemma3n gguf without the pattern key: llama.cpp's period 5", (s, r.err))
for grp, b in (("local", 1e4), ("global", 1e6)):
    r, th = thetas("gguf:" + gem, grp)
    ok(r.rc == 0 and close(th, rope_theta(b, 256)), "gemma3n gguf %s: theta_i = %g^(-2i/256)"
       % (grp, b), r.err)

# mimo2.cpp: the sliding_window_pattern array over block_count (MTP layer included), sliding
# layers at rope.freq_base_swa unscaled, rope.dimension_count = head_dim x partial factor
pat = [0, 1, 1, 1, 1, 0] + [1]
r, s = rule("mimo2", 7, [("attention.key_length", UINT32, 192),
                         ("rope.dimension_count", UINT32, 64),
                         ("nextn_predict_layers", UINT32, 1),
                         ("attention.sliding_window", UINT32, 128),
                         ("rope.freq_base_swa", FLOAT32, 10000.0),
                         ("attention.sliding_window_pattern", ARRAY, (BOOL, [bool(x) for x in pat]))],
            base=5e6)
ok(r.rc == 0 and s.get("local", {}).get("layers") == "1-4" and
   s.get("global", {}).get("layers") == "0,5" and s["local"].get("base") == "10000" and
   s["global"].get("rotary_dim") == "64" and s["local"].get("rotary_dim") == "64",
   "mimo2 gguf: sliding layers 1-4 at 1e4, full 0,5 at 5e6, 64 of 192 turned", (s, r.err))
error_case(EXE, "mimo2 gguf without its sliding_window_pattern",
           ["model", "gguf:" + arch_file("mimo2", 6, name="mimo2-nopat"), "-o", "-"], 1,
           "loader requires it")


def yarn_mla(arch, msc_all):
    return write("yarn-" + arch, gguf([
        ("general.architecture", STRING, arch), (arch + ".context_length", UINT32, 1048576),
        (arch + ".embedding_length", UINT32, 4096), (arch + ".block_count", UINT32, 4),
        (arch + ".attention.head_count", UINT32, 32),
        (arch + ".attention.head_count_kv", UINT32, 1),
        (arch + ".attention.key_length", UINT32, 576),
        (arch + ".rope.dimension_count", UINT32, 64),
        (arch + ".rope.freq_base", FLOAT32, 10000.0),
        (arch + ".rope.scaling.type", STRING, "yarn"),
        (arch + ".rope.scaling.factor", FLOAT32, 128.0),
        (arch + ".rope.scaling.original_context_length", UINT32, 8192),
        (arch + ".rope.scaling.yarn_log_multiplier", FLOAT32, 0.1 * msc_all)]))


# mistral4 (conversion/mistral3.py Mistral4Model, a DeepseekV2Model): deepseek2's loader divides
# the 0.1 x mscale_all_dim back; llama-context.cpp's mscale = mscale_all_dim case is for
# deepseek2 alone, so mistral4's factor is get_mscale(f, 1) / get_mscale(f, L)
L = f32(f32(0.1 * 0.707) / f32(0.1))
want = (0.1 * math.log(128.0) + 1) / (0.1 * L * math.log(128.0) + 1)
for arch, w in (("mistral4", want), ("deepseek2", 1.0)):
    r, s = summary("gguf:" + yarn_mla(arch, 0.707))
    got = float(s.get("all", {}).get("spec", "attention-factor=nan").split("attention-factor=")[1]
                .split()[0].split(",")[0]) if r.rc == 0 else float("nan")
    ok(r.rc == 0 and s["all"].get("layout") == "interleaved" and abs(got - w) <= 1e-12 * w,
       "%s gguf yarn: attention factor %.12g" % (arch, w), (s, r.err))
# deepseek2.cpp, deepseek32.cpp and glm-dsa.cpp scale the logits by mscale^2 (kq_scale), mscale =
# attn_factor_org x (1 + 0.1 rope_yarn_log_mul ln(1 / freq_scale)), attn_factor_org the angles'
# factor: deepseek2 (mscale taken as mscale_all_dim) 1 x (1 + 0.1 L ln 128); deepseek32
# get_mscale(f, 1) / get_mscale(f, L) x get_mscale(f, L); glm-dsa reads no log multiplier:
# (1 + 0.1 ln 128) x 1. mistral3.cpp's kq_scale has none.
lg = math.log(128.0)
for arch, w in (("deepseek2", (1 + 0.1 * L * lg) ** 2), ("deepseek32", (1 + 0.1 * lg) ** 2),
                ("glm-dsa", (1 + 0.1 * lg) ** 2), ("mistral4", None)):
    r, s = summary("gguf:" + yarn_mla(arch, 0.707))
    got = s.get("model", {}).get("softmax_scale_factor")
    ok(r.rc == 0 and (got is None if w is None else got is not None
                      and abs(float(got) - w) <= 1e-12 * w),
       "%s gguf yarn: logits scaled by %s" % (arch, "nothing more" if w is None else "%.12g" % w),
       (got, r.err))

# hunyuan-vl.cpp: base = rope_theta x alpha^(d / (d - 2)) in float (the converter writes
# rope_theta and rope.scaling.alpha for xdrope; tencent/HunyuanOCR: 1e4, alpha 1000, d 128)
hv = write("hunyuan_vl", gguf([
    ("general.architecture", STRING, "hunyuan_vl"), ("hunyuan_vl.context_length", UINT32, 32768),
    ("hunyuan_vl.embedding_length", UINT32, 1024), ("hunyuan_vl.block_count", UINT32, 2),
    ("hunyuan_vl.attention.head_count", UINT32, 16),
    ("hunyuan_vl.attention.key_length", UINT32, 128),
    ("hunyuan_vl.rope.freq_base", FLOAT32, 10000.0),
    ("hunyuan_vl.rope.scaling.alpha", FLOAT32, 1000.0),
    ("hunyuan_vl.rope.scaling.type", STRING, "none"),
    ("hunyuan_vl.rope.scaling.factor", FLOAT32, 1.0),
    ("hunyuan_vl.rope.dimension_sections", ARRAY, (INT32, [16, 16, 16, 16]))]))
hb = f32(f32(10000.0) * f32(f32(1000.0) ** f32(128.0 / 126.0)))
r, th = thetas("gguf:" + hv, "all")
ok(r.rc == 0 and close(th, [hb ** (-2.0 * i / 128) for i in range(64)]),
   "hunyuan_vl gguf: base 1e4 x 1000^(128/126) = %.9g, NEOX" % hb, r.err)
r = run(EXE, "model", "gguf:" + hv)
ok(r.rc == 0 and "fourth axis" in r.text and "-s mrope" not in r.text,
   "hunyuan_vl gguf: XD-RoPE's fourth axis noted, no mrope spec offered", r.text + r.err)

# cogvlm.cpp: ggml_rope(..., n_embd_head, NEOX): base 10000 and no scaling whatever the file
r, s = rule("cogvlm", 2, [("rope.scaling.type", STRING, "linear"),
                          ("rope.scaling.factor", FLOAT32, 4.0)], base=5e5)
ok(r.rc == 0 and s.get("all", {}).get("base") == "10000" and
   s["all"].get("scaling") == "none" and s["all"].get("layout") == "half" and
   s["all"].get("rotary_dim") == "128", "cogvlm gguf: ggml_rope's 10000, unscaled, whole head",
   (s, r.err))
# deepseek2.cpp's OCR branch: NEOX over n_embd / n_head, freq_scale 1, base asserted 10000
r, s = rule("deepseek2-ocr", 2, [("rope.dimension_count", UINT32, 64)] + lin, base=10000.0)
ok(r.rc == 0 and s.get("all", {}).get("layout") == "half" and
   s["all"].get("rotary_dim") == "128" and s["all"].get("scaling") == "none",
   "deepseek2-ocr gguf: NEOX over the whole 128-wide head, unscaled", (s, r.err))
error_case(EXE, "deepseek2-ocr gguf with freq_base 5e5 (the graph asserts 10000)",
           ["model", "gguf:" + write("ds2ocr-base", gguf([
               ("general.architecture", STRING, "deepseek2-ocr"),
               ("deepseek2-ocr.embedding_length", UINT32, 1024),
               ("deepseek2-ocr.attention.head_count", UINT32, 8),
               ("deepseek2-ocr.rope.freq_base", FLOAT32, 5e5)])), "-o", "-"], 1,
           "asserts 10000")
for arch, layout in (("plm", "interleaved"), ("paddleocr", "half")):
    r, s = rule(arch, 2, [("rope.dimension_count", UINT32, 64)])
    ok(r.rc == 0 and s.get("all", {}).get("layout") == layout and
       s["all"].get("rotary_dim") == "64", "%s gguf: %s, 64 of 128 turned" % (arch, layout),
       (s, r.err))

# deepseek4 (conversion/deepseek.py DeepseekV4Model) from DeepSeek-V4-Flash's config.json
# (tests/fixtures/hf/deepseek-v4-flash.json, SOURCES.md): head 512, qk_rope_head_dim 64,
# rope_theta 1e4, compress_rope_theta 160000, yarn factor 16 over 65536, window 128, its 43
# compress_ratios (the MTP layer's is not written here). rope.scaling.attn_factor 1.5 is not
# in the config: added to see it ignored.
# deepseek4.cpp: compress ratio 0: freq_base, freq_scale 1, no YaRN; 4 or 128:
# compress_rope_freq_base with the YaRN mix and attn_factor 1 / (1 + 0.1 ln f), which
# cancels ggml's rope_yarn magnitude, so the attention factor is 1
c = fixture("deepseek-v4-flash.json")
ratios, ys = c["compress_ratios"][:c["num_hidden_layers"]], c["rope_scaling"]
ds4 = write("deepseek4", gguf([
    ("general.architecture", STRING, "deepseek4"),
    ("deepseek4.context_length", UINT32, c["max_position_embeddings"]),
    ("deepseek4.embedding_length", UINT32, c["hidden_size"]),
    ("deepseek4.block_count", UINT32, len(ratios)),
    ("deepseek4.attention.head_count", UINT32, c["num_attention_heads"]),
    ("deepseek4.attention.head_count_kv", UINT32, c["num_key_value_heads"]),
    ("deepseek4.attention.key_length", UINT32, c["head_dim"]),
    ("deepseek4.rope.dimension_count", UINT32, c["qk_rope_head_dim"]),
    ("deepseek4.rope.freq_base", FLOAT32, c["rope_theta"]),
    ("deepseek4.rope.scaling.type", STRING, ys["type"]),
    ("deepseek4.rope.scaling.factor", FLOAT32, ys["factor"]),
    ("deepseek4.rope.scaling.original_context_length", UINT32,
     ys["original_max_position_embeddings"]),
    ("deepseek4.rope.scaling.attn_factor", FLOAT32, 1.5),
    ("deepseek4.attention.sliding_window", UINT32, c["sliding_window"]),
    ("deepseek4.attention.compress_rope_freq_base", FLOAT32, c["compress_rope_theta"]),
    ("deepseek4.attention.compress_ratios", ARRAY, (UINT32, ratios))]))
r, s = summary("gguf:" + ds4)
ok(r.rc == 0 and s.get("local", {}).get("layers") ==
   ranges([i for i, x in enumerate(ratios) if x == 0]) and
   s.get("global", {}).get("layers") == ranges([i for i, x in enumerate(ratios) if x]) and
   s["local"].get("layout") == "interleaved" and s["local"].get("scaling") == "none" and
   s["global"].get("attention_factor") == "1",
   "deepseek4 gguf: ratio-0 layers local and unscaled, compressed ones yarn with factor 1",
   (s, r.err))
r, th = thetas("gguf:" + ds4, "local")
ok(r.rc == 0 and close(th, rope_theta(10000.0, 64)),
   "deepseek4 gguf: ratio-0 layers theta_i = 10000^(-2i/64)", r.err)
fb, nr = f32(c["compress_rope_theta"]), c["qk_rope_head_dim"]
cd = [nr * math.log(ys["original_max_position_embeddings"] / (b * 2 * math.pi)) /
      (2 * math.log(fb)) for b in (32, 1)]
lo, hi = max(0.0, math.floor(cd[0])), min(nr - 1.0, math.ceil(cd[1]))
want = []
for i in range(nr // 2):
    ramp = 1 - min(1.0, max(0.0, (i - lo) / max(0.001, hi - lo)))
    t = fb ** (-2.0 * i / nr)
    want.append(t / ys["factor"] * (1 - ramp) + t * ramp)
r, th = freqs("gguf:" + ds4, "--layer", "global")
ok(r.rc == 0 and close(th, want),
   "deepseek4 gguf: compressed layers as rope_yarn turns them at 160000", r.err)
error_case(EXE, "deepseek4 gguf without compress_ratios (the loader throws)",
           ["model", "gguf:" + write("ds4-noratios", gguf([
               ("general.architecture", STRING, "deepseek4"),
               ("deepseek4.embedding_length", UINT32, 4096),
               ("deepseek4.block_count", UINT32, 2),
               ("deepseek4.attention.head_count", UINT32, 64),
               ("deepseek4.attention.compress_rope_freq_base", FLOAT32, 160000.0)])), "-o", "-"],
           1, "compress_ratios: missing")

# rows whose graphs turn n_rot at the main spec in every attention layer (a toy shape: no
# published config here); bailingmoe3's converter gives KDA layers head_count_kv 0 and full
# attention every layer_group_size-th layer and in the tail (group 4 of 6 layers: 3, 4, 5)
for arch, layout, extra, want in (
        ("minimax-m3", "half", [], {"all": list(range(6))}),
        ("hrm_text", "half", [], {"all": list(range(6))}),
        ("hy_v4", "interleaved", [], {"all": list(range(6))}),
        ("bailingmoe3", "interleaved",
         [("attention.head_count_kv", ARRAY, (UINT32, [0, 0, 0, 1, 1, 1]))],
         {"rope": [3, 4, 5], "nope": [0, 1, 2]})):
    r, s = rule(arch, 6, [("rope.dimension_count", UINT32, 64)] + extra)
    g = "all" if "all" in want else "rope"
    ok(r.rc == 0 and all(s.get(k, {}).get("layers") == ranges(v) for k, v in want.items()) and
       s[g].get("layout") == layout and s[g].get("rotary_dim") == "64",
       "%s gguf: %s, 64 of 128 turned at the main spec" % (arch, layout), (s, r.err))
    r, th = thetas("gguf:" + os.path.join(TMP, "rule-" + arch + ".gguf"), g)
    ok(r.rc == 0 and close(th, rope_theta(1e6, 64)), "%s gguf: theta_i = 1e6^(-2i/64)" % arch,
       r.err)

# ---- architectures of llama.cpp de3ff815 read from their loaders and graphs ------------------
def layer_kinds(types):
    return ([i for i, t in enumerate(types) if t == "sliding_attention"],
            [i for i, t in enumerate(types) if t != "sliding_attention"])


# step35 (conversion/step3.py Step35Model, src/models/step35.cpp). Shape of stepfun-ai's
# Step-3.7-Flash config.json (https://huggingface.co/stepfun-ai/Step-3.7-Flash, the
# converter's example; abridged copy vendored by ai-dynamo/aiconfigurator,
# aic-core/src/aiconfigurator_core/model_configs/stepfun-ai--Step-3.7-Flash_config.json at
# e10f03afeef31daef314e480efd2a5d059ff3fd9): 45 layers and 3 MTP layers, 64 heads, 8 KV
# heads, head 128, window 512, its layer_types. That copy has no rope keys: rope_theta
# [5e6 full, 1e4 sliding] is the value other Step 3.x configs carry (assumed), the
# partial_rotary_factors 0.5 / 1.0 are what the converter asserts, the llama3 recipe is the
# converter's defaults (factor 8, low 1, high 4, original 8192). The converter writes no
# rope.dimension_count, so n_rot is the head (128); load_arch_hparams halves it for the
# full layers only after rope.dimension_count_swa defaulted to 128; rope_freqs.weight
# (head/2 = 64 values, the llama3 factors over the full layers' 64 dims, padded with 1)
# turns the full layers, which read its first 32 values; sliding ones take no factors,
# freq_base_swa and freq_scale 1.
STEP_TYPES = (["full_attention"] + ["sliding_attention"] * 3) * 11 + ["full_attention"]
n, mtp, hd = 45, 3, 128
types = STEP_TYPES + ["full_attention"] * mtp  # the converter pads the MTP layers as full
fb, sb, rot_full = 5e6, 1e4, hd // 2
sff = []
for i in range(0, rot_full, 2):
    wl = 2 * math.pi * f32(fb) ** (i / rot_full)
    if wl < 8192 / 4.0:
        sff.append(1.0)
    elif wl > 8192 / 1.0:
        sff.append(8.0)
    else:
        sm = (8192 / wl - 1.0) / (4.0 - 1.0)
        sff.append(1.0 / ((1 - sm) / 8.0 + sm))
sff += [1.0] * (hd // 2 - len(sff))
step = write("step35", gguf([
    ("general.architecture", STRING, "step35"), ("step35.block_count", UINT32, n + mtp),
    ("step35.context_length", UINT32, 65536), ("step35.embedding_length", UINT32, 4096),
    ("step35.attention.head_count", ARRAY, (UINT32, [64] * (n + mtp))),
    ("step35.attention.head_count_kv", ARRAY, (UINT32, [8] * (n + mtp))),
    ("step35.attention.key_length", UINT32, hd), ("step35.attention.value_length", UINT32, hd),
    ("step35.rope.freq_base", FLOAT32, fb), ("step35.rope.freq_base_swa", FLOAT32, sb),
    ("step35.attention.sliding_window", UINT32, 512),
    ("step35.attention.sliding_window_pattern", ARRAY,
     (BOOL, [t == "sliding_attention" for t in types])),
    ("step35.nextn_predict_layers", UINT32, mtp)], [("rope_freqs.weight", [hd // 2], sff)]))
sl, fl = layer_kinds(STEP_TYPES)
r, s = summary("gguf:" + step)
ok(r.rc == 0 and s["model"]["layers"] == "45" and
   s.get("local", {}).get("layers") == ranges(sl) and
   s.get("global", {}).get("layers") == ranges(fl) and
   s["local"].get("rotary_dim") == "128" and s["global"].get("rotary_dim") == "64" and
   s["local"].get("scaling") == "none" and s["local"].get("base") == "10000",
   "step35 gguf: 33 sliding layers turn 128 dims at 1e4, 12 full ones 64 dims with rope_freqs",
   (s, r.err))
r, got = freqs("gguf:" + step, "--layer", "global")
want = [1.0 / (f32(x) * f32(fb) ** (i / rot_full)) for i, x in zip(range(0, rot_full, 2), sff)]
ok(r.rc == 0 and close(got, want),
   "step35 gguf full layers: 1 / (rope_freqs[i] 5e6^(2i/64)), the tensor's first 32 values",
   r.err)
r, th = thetas("gguf:" + step, "local")
ok(r.rc == 0 and close(th, rope_theta(sb, hd)), "step35 gguf sliding layers: 1e4^(-2i/128)",
   r.err)

# spark2_5 (conversion/spark2_5.py, src/models/spark2-5.cpp): rope.dimension_count =
# head_dim x the full layers' partial_rotary_factor, rope.dimension_count_swa = head_dim x the
# sliding ones'; rope.freq_base / freq_base_swa from the two rope_parameters. The graph turns
# n_rot(il) at get_rope_freq_base/scale(il) (the loader copies the main scale) with no factor
# tensor. Sizes: Spark2_5Config's defaults, the shape of XHToken/Spark-X2.5-1.7B
# (https://huggingface.co/XHToken/Spark-X2.5-1.7B, the converter's example; the
# configuration file as found vendored in the code index, its path not known): 28 layers,
# 8 heads, 2 KV heads, head 256, window 512, every 4th layer full; full 5e6 x 0.25, sliding
# 1e4 x 1.0. A linear factor 2 added to see the main scaling carried to both.
n, hd = 28, 256
types = ["sliding_attention" if (i + 1) % 4 else "full_attention" for i in range(n)]
spark = write("spark2_5", gguf([
    ("general.architecture", STRING, "spark2_5"), ("spark2_5.block_count", UINT32, n),
    ("spark2_5.context_length", UINT32, 8192), ("spark2_5.embedding_length", UINT32, 2048),
    ("spark2_5.attention.head_count", UINT32, 8), ("spark2_5.attention.head_count_kv", UINT32, 2),
    ("spark2_5.attention.key_length", UINT32, hd), ("spark2_5.rope.freq_base", FLOAT32, 5e6),
    ("spark2_5.rope.freq_base_swa", FLOAT32, 1e4),
    ("spark2_5.rope.scaling.type", STRING, "linear"),
    ("spark2_5.rope.scaling.factor", FLOAT32, 2.0),
    ("spark2_5.attention.sliding_window", UINT32, 512),
    ("spark2_5.attention.sliding_window_pattern", ARRAY,
     (BOOL, [t == "sliding_attention" for t in types])),
    ("spark2_5.rope.dimension_count", UINT32, int(hd * 0.25)),
    ("spark2_5.rope.dimension_count_swa", UINT32, int(hd * 1.0))]))
sl, fl = layer_kinds(types)
r, s = summary("gguf:" + spark)
ok(r.rc == 0 and s.get("local", {}).get("layers") == ranges(sl) and
   s.get("global", {}).get("layers") == ranges(fl) and
   s["local"].get("rotary_dim") == "256" and s["global"].get("rotary_dim") == "64" and
   s["local"].get("scaling") == "linear" and s["global"].get("scaling") == "linear",
   "spark2_5 gguf: sliding layers 256 dims at 1e4, full ones 64 at 5e6, both linear x2",
   (s, r.err))
for grp, b, d in (("local", 1e4, hd), ("global", 5e6, 64)):
    r, got = freqs("gguf:" + spark, "--layer", grp)
    ok(r.rc == 0 and close(got, [t / 2.0 for t in rope_theta(b, d)]),
       "spark2_5 gguf %s: %g^(-2i/%d) / 2" % (grp, b, d), r.err)
error_case(EXE, "spark2_5 gguf without its sliding_window_pattern (get_arr throws)",
           ["model", "gguf:" + arch_file("spark2_5", 4, name="spark-nopat"), "-o", "-"], 1,
           "loader requires it")

# dots3note (conversion/dots3.py, a DeepseekV2Model; src/models/dots3note.cpp): MLA, NORM;
# key_length = kv_lora_rank + qk_rope_head_dim, key_length_swa the sliding layers' own, one
# rope.dimension_count (the converter requires swa_qk_rope_head_dim == qk_rope_head_dim);
# sliding layers at the required rope.freq_base_swa, full ones at freq_base, both with the
# main freq_scale and no factor tensor. A toy shape (no published config found): 8 layers,
# ranks 512 / 256, rope 64, full 1e6, sliding 1e4.
dtypes = ["full_attention", "sliding_attention", "sliding_attention", "sliding_attention"] * 2
d3 = [("general.architecture", STRING, "dots3note"), ("dots3note.block_count", UINT32, 8),
      ("dots3note.context_length", UINT32, 131072), ("dots3note.embedding_length", UINT32, 4096),
      ("dots3note.attention.head_count", ARRAY,
       (UINT32, [32 if t == "full_attention" else 16 for t in dtypes])),
      ("dots3note.attention.head_count_kv", UINT32, 1),
      ("dots3note.attention.key_length", UINT32, 512 + 64),
      ("dots3note.attention.key_length_swa", UINT32, 256 + 64),
      ("dots3note.rope.dimension_count", UINT32, 64),
      ("dots3note.rope.freq_base", FLOAT32, 1e6),
      ("dots3note.attention.sliding_window", UINT32, 4096),
      ("dots3note.attention.sliding_window_pattern", ARRAY,
       (BOOL, [t == "sliding_attention" for t in dtypes]))]
dots = write("dots3note", gguf(d3 + [("dots3note.rope.freq_base_swa", FLOAT32, 1e4)]))
sl, fl = layer_kinds(dtypes)
r, s = summary("gguf:" + dots)
ok(r.rc == 0 and s.get("local", {}).get("layers") == ranges(sl) and
   s.get("global", {}).get("layers") == ranges(fl) and
   s["local"].get("layout") == "interleaved" and s["local"].get("rotary_dim") == "64" and
   s["global"].get("rotary_dim") == "64" and s["local"].get("base") == "10000",
   "dots3note gguf: NORM, 64 dims everywhere, sliding layers at 1e4", (s, r.err))
for grp, b in (("local", 1e4), ("global", 1e6)):
    r, th = thetas("gguf:" + dots, grp)
    ok(r.rc == 0 and close(th, rope_theta(b, 64)), "dots3note gguf %s: %g^(-2i/64)" % (grp, b),
       r.err)
error_case(EXE, "dots3note gguf without rope.freq_base_swa (its loader requires it)",
           ["model", "gguf:" + write("dots-nobase", gguf(d3)), "-o", "-"], 1,
           "freq_base_swa: missing")

# gemma4-assistant (conversion/gemma.py Gemma4AssistantModel: Gemma4Model's keys plus
# nextn_predict_layers = block_count): gemma4's per-layer rope (sliding 1e4 over
# rope.dimension_count_swa of key_length_swa, full at freq_base with rope_freqs), applied
# to its queries alone. A toy 4-layer shape.
ga = write("gemma4-assistant", gguf([
    ("general.architecture", STRING, "gemma4-assistant"),
    ("gemma4-assistant.block_count", UINT32, 4),
    ("gemma4-assistant.nextn_predict_layers", UINT32, 4),
    ("gemma4-assistant.context_length", UINT32, 131072),
    ("gemma4-assistant.embedding_length", UINT32, 1024),
    ("gemma4-assistant.attention.head_count", UINT32, 4),
    ("gemma4-assistant.attention.key_length", UINT32, 512),
    ("gemma4-assistant.attention.key_length_swa", UINT32, 256),
    ("gemma4-assistant.rope.dimension_count", UINT32, 512),
    ("gemma4-assistant.rope.dimension_count_swa", UINT32, 256),
    ("gemma4-assistant.rope.freq_base", FLOAT32, 1e6),
    ("gemma4-assistant.rope.freq_base_swa", FLOAT32, 1e4),
    ("gemma4-assistant.attention.sliding_window", UINT32, 512),
    ("gemma4-assistant.attention.sliding_window_pattern", ARRAY,
     (BOOL, [True, True, True, False]))]))
r, s = summary("gguf:" + ga)
ok(r.rc == 0 and s.get("local", {}).get("layers") == "0-2" and
   s.get("global", {}).get("layers") == "3" and s["local"].get("head_dim") == "256",
   "gemma4-assistant gguf: gemma4's sliding and full layers, all of them nextn", (s, r.err))
r = run(EXE, "model", "gguf:" + ga)
ok(r.rc == 0 and "only its queries turn here" in r.text,
   "gemma4-assistant gguf: noted that the keys are the target's", r.text + r.err)

# rows that turn n_rot at the main spec in every attention layer, with their layouts
# (llama_model_rope_type: eagle3 and pockettts NORM; qwen4exp and qwen3tts IMROPE; dflash
# NEOX, M-RoPE with degenerate sections, or NORM unscaled for a DSpark drafter)
sec4 = [("rope.dimension_sections", ARRAY, (INT32, [24, 20, 20, 0]))]
for arch, extra, layout, grp, layers in (
        ("eagle3", [], "interleaved", "all", "0"),
        ("pockettts", [], "interleaved", "all", "0"),
        ("qwen3tts", sec4, "half", "all", "0"),
        ("qwen4exp", sec4, "half", "rope", "3"),
        ("dflash", [], "half", "all", "0-3")):
    nl = 1 if arch in ("eagle3", "pockettts", "qwen3tts") else 4
    r, s = rule(arch, nl, [("rope.dimension_count", UINT32, 128)] + extra)
    ok(r.rc == 0 and s.get(grp, {}).get("layout") == layout and
       s[grp].get("layers") == layers, "%s gguf: %s, layers %s" % (arch, layout, layers),
       (s, r.err))
r = run(EXE, "model", "gguf:" + os.path.join(TMP, "rule-qwen3tts.gguf"))
ok(r.rc == 0 and "interleaved=1" in r.text and "Qwen3-TTS talker" in r.text,
   "qwen3tts gguf: qwen3vl's IMROPE sections, noted as the talker's", r.text + r.err)
r, s = rule("dflash", 2, [("rope.dimension_count", UINT32, 64),
                          ("hyper_connection.count", UINT32, 4)] + lin, base=1e4)
ok(r.rc == 0 and s.get("all", {}).get("layout") == "interleaved" and
   s["all"].get("scaling") == "none",
   "dflash gguf with hyper_connection.count (DSpark for DeepSeek-V4): NORM, unscaled",
   (s, r.err))
r = run(EXE, "model", "gguf:" + write("dflash-mrope", gguf([
    ("general.architecture", STRING, "dflash"), ("dflash.block_count", UINT32, 2),
    ("dflash.embedding_length", UINT32, 1024), ("dflash.attention.head_count", UINT32, 8),
    ("dflash.rope.dimension_sections", ARRAY, (INT32, [64, 0, 0, 0]))])))
ok(r.rc == 0 and "-s mrope" not in r.text and "without a causal mask" in r.text,
   "dflash gguf with degenerate sections: no mrope spec offered, the draft noted",
   r.text + r.err)
error_case(EXE, "pockettts gguf with n_rot below the head (its graph asserts)",
           ["model", "gguf:" + arch_file("pockettts", 2, [("pockettts.rope.dimension_count",
                                                           UINT32, 64)], name="ptts-nrot"),
            "-o", "-"], 1, "invalid n_rot")
error_case(EXE, "clip gguf refused (a quantize-only placeholder for encoders)",
           ["model", "gguf:" + arch_file("clip", 2), "-o", "-"], 1, "not a text model")

# load_hparams reads rope.dimension_count_swa for every architecture, and hparams.n_rot() is
# layer 0's width; gemma3.cpp (like most graphs) passes that one width to every layer, so a
# differing dimension_count_swa with layer 0 sliding (gemma3: il % 6 < 5) turns it in every
# layer, which posenc's per-group specs cannot say: refused. cohere2moe (dense first: layer 0
# full, n_rot(0) = 64; RoPE on its sliding layers) turns 64 everywhere: read, 64 dims.
error_case(EXE, "gemma3 gguf: dimension_count_swa 32 unlike 64 with layer 0 sliding: refused",
           ["model", "gguf:" + arch_file("gemma3", 6, [
               ("gemma3.attention.key_length", UINT32, 128),
               ("gemma3.rope.dimension_count", UINT32, 64),
               ("gemma3.rope.dimension_count_swa", UINT32, 32),
               ("gemma3.attention.sliding_window", UINT32, 512)], name="g3-rotswa"),
            "-o", "-"], 1, "layer 0's width in every")
cm = arch_file("cohere2moe", 8, [("cohere2moe.attention.key_length", UINT32, 128),
                                 ("cohere2moe.rope.dimension_count", UINT32, 64),
                                 ("cohere2moe.rope.dimension_count_swa", UINT32, 32),
                                 ("cohere2moe.attention.sliding_window", UINT32, 512)],
               name="c2m-rotswa")
r, th = freqs("gguf:" + cm, "--layer", "rope")
ok(r.rc == 0 and close([float(t) for t in th or []], rope_theta(1e4, 64)),
   "cohere2moe gguf: layer 0 full, so its n_rot 64 turns every sliding layer: 1e4^(-2i/64)",
   r.err)

# ---- the magnitude: llama.cpp's attention factor on every group ------------------------------
# llama-context.cpp (de3ff815): cparams.yarn_attn_factor is hparams.yarn_attn_factor (1; grok.cpp
# reads rope.scaling.yarn_attn_factor); with YaRN (ext_factor != 0) it becomes
# get_mscale(f, 1) [/ get_mscale(f, log_mul)] / (1 + 0.1 ln f), f = 1 / freq_scale; then it is
# always multiplied by rope.scaling.attn_factor. ggml's rope_yarn (ggml-cpu/ops.cpp) multiplies
# cos and sin by it, and when ext_factor != 0 by 1 + 0.1 ln(1 / freq_scale) of the call too.
def get_mscale(scale, m=1.0):
    return 1.0 if scale <= 1 else 0.1 * m * math.log(scale) + 1.0


def ctx_attn(yarn, factor, attn=1.0, yarn_attn=1.0):
    a = get_mscale(factor) / (1 + 0.1 * math.log(factor)) if yarn else yarn_attn
    return a * attn


def rope_mag(ctx, freq_scale, ext):
    return ctx * (1 + 0.1 * math.log(1 / freq_scale)) if ext else ctx


def att(s, group):
    return float(s.get(group, {}).get("attention_factor", "nan"))


def near(x, y):
    return abs(x - y) <= 1e-12 * abs(y)


A = 1.5
G3A = GEMMA3[:7] + [("gemma3.attention.sliding_window", UINT32, 1024),
                    ("gemma3.rope.scaling.attn_factor", FLOAT32, A)]
# gemma3.cpp: global layers at freq_scale 1/8, sliding ones at get_rope_freq_scale's
# rope_freq_scale_train_swa (1: its loader does not copy the main one), both with the context's
# attn_factor; linear: no YaRN, so attn_factor alone on both
g3lin = write("gemma3-lin-attn", gguf(G3A + GEMMA3[7:]))
r, s = summary("gguf:" + g3lin)
ok(r.rc == 0 and s.get("global", {}).get("scaling") == "linear" and
   s["global"].get("factor") == "8" and
   near(att(s, "global"), rope_mag(ctx_attn(0, 8, A), 1 / 8, 0)) and
   s.get("local", {}).get("scaling") == "none" and
   near(att(s, "local"), rope_mag(ctx_attn(0, 8, A), 1, 0)),
   "gemma3 gguf, linear 8 with attn_factor 1.5: cos and sin x1.5 on global and local layers",
   (s, r.err))
# posenc encode: cos(m theta_i) x 1.5, theta_i = 1e6^(-2i/128) / 8 (global), 1e4^(-2i/128)
# (local); layout half: columns i and i + 64 are pair i
for group, th in (("global", [f32(1e6) ** (-2.0 * i / 128) / 8 for i in range(64)]),
                  ("local", [1e4 ** (-2.0 * i / 128) for i in range(64)])):
    r = run(EXE, "encode", "-s", "gguf:" + g3lin, "--layer", group, "-n", "4", "--view", "cos",
            "-o", "-")
    rows = list(csv.reader(io.StringIO(r.text)))[1:]
    good = r.rc == 0 and len(rows) == 4
    for m_, row in enumerate(rows):
        vals = [float(x) for x in row[1:]]
        good = good and len(vals) == 128 and all(
            abs(vals[c] - A * math.cos(m_ * th[c % 64])) <= 1e-12 for c in range(128))
    ok(good, "gguf encode, %s group: cos values 1.5 cos(m theta_i) (attn_factor 1.5)" % group,
       r.text[:300] + r.err)
# YaRN: the global layers get get_mscale(8) x 1.5 (rope_yarn's 1 + 0.1 ln 8 undoing the
# division); the sliding ones, at freq_scale 1, the context's value: 1.5
g3yarn = write("gemma3-yarn-attn", gguf(G3A + [
    ("gemma3.rope.scaling.type", STRING, "yarn"), ("gemma3.rope.scaling.factor", FLOAT32, 8.0),
    ("gemma3.rope.scaling.original_context_length", UINT32, 16384)]))
r, s = summary("gguf:" + g3yarn)
ok(r.rc == 0 and s.get("global", {}).get("scaling") == "yarn" and
   near(att(s, "global"), rope_mag(ctx_attn(1, 8, A), 1 / 8, 1)) and
   s.get("local", {}).get("scaling") == "none" and
   near(att(s, "local"), rope_mag(ctx_attn(1, 8, A), 1, 1)),
   "gemma3 gguf, yarn 8 with attn_factor 1.5: global (0.1 ln 8 + 1) x 1.5, local 1.5",
   (s, r.err))
# no scaling key at all: llama.cpp's type "linear" with freq_scale 1, attn_factor alone
r, s = summary("gguf:" + write("gemma3-attn", gguf(G3A)))
ok(r.rc == 0 and s.get("global", {}).get("scaling") == "none" and
   near(att(s, "global"), A) and near(att(s, "local"), A),
   "gemma3 gguf, no scaling, attn_factor 1.5: 1.5 on every layer", (s, r.err))
# the spec the reader writes for it is one a user can write
r = run(EXE, "freqs", "-s", "rope:base=10000,scaling=linear,factor=8,attention-factor=1.5",
        "-o", os.path.join(TMP, "lin-attn.csv"))
ok(r.rc == 0 and "attention factor 1.5 " in r.err, "rope spec: linear with attention-factor",
   r.err)
# gemma2.cpp copies the main scale into the sliding layers (get_rope_freq_scale): the main
# spec there, magnitude included
r, s = rule("gemma2", 4, lin + [("rope.scaling.attn_factor", FLOAT32, A),
                                ("rope.freq_base_swa", FLOAT32, 1e4)])
ok(r.rc == 0 and s.get("local", {}).get("scaling") == "linear" and near(att(s, "local"), A) and
   near(att(s, "global"), A), "gemma2 gguf, linear with attn_factor 1.5: 1.5 on both",
   (s, r.err))
# olmo2.cpp (and mellum.cpp, laguna.cpp) pass attn_factor 1 with freq_scale 1 and ext_factor 0
# to the sliding layers: 1 there whatever the file says
ol_a = [("olmo2.attention.sliding_window", UINT32, 4096),
        ("olmo2.rope.scaling.attn_factor", FLOAT32, A)]
r, s = summary("gguf:" + arch_file("olmo2", 8, ol + ol_a, "olmo3-attn"))
ok(r.rc == 0 and near(att(s, "global"), rope_mag(ctx_attn(1, 8, A), 1 / 8, 1)) and
   att(s, "local") == 1.0, "olmo2 gguf, yarn with attn_factor 1.5: global (0.1 ln 8 + 1) x 1.5, "
   "sliding layers 1 (olmo2.cpp passes 1)", (s, r.err))
r, s = summary("gguf:" + arch_file("olmo2", 8, [
    ("olmo2.rope.scaling.type", STRING, "linear"),
    ("olmo2.rope.scaling.factor", FLOAT32, 4.0)] + ol_a, "olmo3-lin-attn"))
ok(r.rc == 0 and near(att(s, "global"), A) and att(s, "local") == 1.0,
   "olmo2 gguf, linear with attn_factor 1.5: global 1.5, sliding layers 1", (s, r.err))
# deepseek4.cpp: dsv4_rope_attn_factor is 1 without YaRN (the ratio-0 layers)
r, s = summary("gguf:" + ds4)
ok(r.rc == 0 and att(s, "local") == 1.0 and att(s, "global") == 1.0,
   "deepseek4 gguf with attn_factor 1.5: 1 on both groups (its graph's own)", (s, r.err))
# muse-glimmer.cpp turns its sliding layers (the only rotating ones) at get_rope_freq_scale's
# rope_freq_scale_train_swa, which its loader leaves at 1: unscaled, at freq_base_swa, with the
# context's magnitude (yarn: get_mscale(4) / (1 + 0.1 ln 4) x 1.25 = 1.25)
r, s = rule("muse-glimmer", 8, [
    ("attention.sliding_window", UINT32, 4096), ("rope.freq_base_swa", FLOAT32, 5000.0),
    ("rope.scaling.type", STRING, "yarn"), ("rope.scaling.factor", FLOAT32, 4.0),
    ("rope.scaling.original_context_length", UINT32, 1024),
    ("rope.scaling.attn_factor", FLOAT32, 1.25)])
ok(r.rc == 0 and s.get("rope", {}).get("scaling") == "none" and
   near(att(s, "rope"), rope_mag(ctx_attn(1, 4, 1.25), 1, 1)),
   "muse-glimmer gguf, yarn: sliding layers unscaled, attention factor 1.25", (s, r.err))
r, th = thetas("gguf:" + os.path.join(TMP, "rule-muse-glimmer.gguf"), "rope")
ok(r.rc == 0 and close(th, rope_theta(5000.0, 128)),
   "muse-glimmer gguf, yarn: sliding layers theta_i = 5000^(-2i/128)", r.err)
# the factor tensors: rope_freqs.weight (freq_scale 1, no YaRN) with attn_factor alone
r, s = summary("gguf:" + write("freqs-attn", gguf(
    LLAMA_KV + [("llama.rope.scaling.attn_factor", FLOAT32, A)], FREQS)))
ok(r.rc == 0 and near(att(s, "all"), A), "llama gguf, rope_freqs.weight with attn_factor 1.5: "
   "1.5", (s, r.err))
# grok.cpp: yarn_beta_fast 8 without the key ("defaults for old GGUFs"), beta_slow 1;
# rope.scaling.yarn_attn_factor read into hparams, which YaRN replaces; yarn_ext_factor read,
# and one that is neither llama.cpp's 1 with yarn nor 0 without is refused
GROK = [("general.architecture", STRING, "grok"), ("grok.context_length", UINT32, 8192),
        ("grok.embedding_length", UINT32, 1024), ("grok.block_count", UINT32, 2),
        ("grok.attention.head_count", UINT32, 8), ("grok.rope.freq_base", FLOAT32, 1e4),
        ("grok.rope.scaling.yarn_attn_factor", FLOAT32, 2.0),
        ("grok.rope.scaling.attn_factor", FLOAT32, A)]
GY = [("grok.rope.scaling.type", STRING, "yarn"), ("grok.rope.scaling.factor", FLOAT32, 4.0),
      ("grok.rope.scaling.original_context_length", UINT32, 2048)]
r, s = summary("gguf:" + write("grok-nobetas", gguf(GROK + GY)))
spec = s.get("all", {}).get("spec", "") + " "
ok(r.rc == 0 and "beta-fast=8 " in spec and "beta-slow=1 " in spec and
   near(att(s, "all"), rope_mag(ctx_attn(1, 4, A), 1 / 4, 1)),
   "grok gguf, yarn without beta keys: beta_fast 8, beta_slow 1; yarn_attn_factor replaced, "
   "get_mscale(4) x 1.5", (s, r.err))
r, s = summary("gguf:" + write("grok-ext1", gguf(GROK + GY + [
    ("grok.rope.scaling.yarn_ext_factor", FLOAT32, 1.0)])))
ok(r.rc == 0 and s.get("all", {}).get("scaling") == "yarn", "grok gguf, yarn_ext_factor 1: yarn",
   (s, r.err))
r, s = summary("gguf:" + write("grok-lin", gguf(GROK + [
    ("grok.rope.scaling.type", STRING, "linear"), ("grok.rope.scaling.factor", FLOAT32, 4.0)])))
ok(r.rc == 0 and near(att(s, "all"), rope_mag(ctx_attn(0, 4, A, yarn_attn=2.0), 1 / 4, 0)),
   "grok gguf, linear: yarn_attn_factor 2 x attn_factor 1.5 = 3", (s, r.err))
error_case(EXE, "grok gguf, yarn_ext_factor 0.5 (a partial YaRN mix)",
           ["model", "gguf:" + write("grok-ext05", gguf(GROK + GY + [
               ("grok.rope.scaling.yarn_ext_factor", FLOAT32, 0.5)])), "-o", "-"], 1,
           "yarn_ext_factor: 0.5 with scaling 'yarn'")


# The window of the sliding layers, as the facts the hf: reader gives (sliding_window,
# sliding_layers; attention_chunk_size for chunked layers): hparams.n_swa as each loader
# sets it, in the layers llama.cpp's is_swa(il) marks.
def window_column(spec):
    r = run(EXE, "layers", "-q", "-s", spec, "-o", "-")
    rows = list(csv.DictReader(io.StringIO(r.text)))
    return r, [row["sliding_window"] for row in rows]


def set_swa_pattern(n_layer, period, dense_first=False):
    """llama-hparams.cpp's set_swa_pattern: the sliding layers of a period."""
    return [il for il in range(n_layer)
            if (il % period != 0 if dense_first else il % period < period - 1)]


# gemma3.cpp: n_swa = attention.sliding_window (STANDARD), load_swa_pattern(6)
slide = set_swa_pattern(62, 6)
r, col = window_column("gguf:" + gemma)
ok(r.rc == 0 and col == ["1024" if il in slide else "" for il in range(62)] and
   col[:6] == ["1024"] * 5 + [""],
   "gemma3 gguf, sliding_window 1024: layers CSV 1024 in layers 0-4,6-10,..., empty in 5,11,...",
   (col, r.err))
r, s = summary("gguf:" + gemma)
ok(r.rc == 0 and s["model"].get("sliding_window") == "1024" and
   s["model"].get("sliding_layers") == ranges(slide) and
   s["model"]["sliding_layers"].startswith("0-4,6-10,") and
   s["model"]["sliding_layers"].endswith(",60-61"),
   "gemma3 gguf: model facts sliding_window 1024, sliding_layers " + ranges(slide), s.get("model"))
r = run(EXE, "model", "gguf:" + gemma)
ok(r.rc == 0 and any(line.split()[:2] == ["sliding_window", "1024"] and "positions back" in line
                     for line in r.text.splitlines()),
   "gemma3 gguf: posenc model prints the window and what it means", r.text)
for name, extra in (("no window key", []),
                    ("window 0", [("gemma3.attention.sliding_window", UINT32, 0)])):
    f = write("gemma3-nowin-facts", gguf(GEMMA3 + extra))
    r, col = window_column("gguf:" + f)
    r2, s = summary("gguf:" + f)
    ok(r.rc == 0 and r2.rc == 0 and col == [""] * 62 and "sliding_window" not in s["model"] and
       "sliding_layers" not in s["model"],
       "gemma3 gguf, %s: no sliding layers, no window fact" % name, (col, s.get("model")))

# the loaders' own windows: gemma2.cpp 4096 unless the file says; exaone4.cpp 4096 in the
# 64-layer model unless the file says; smallthinker.cpp 4096 whatever the file says
for arch, layers, extra, want, period, first in (
        ("gemma2", 8, [], "4096", 2, False),
        ("gemma2", 8, [("gemma2.attention.sliding_window", UINT32, 2048)], "2048", 2, False),
        ("exaone4", 64, [], "4096", 4, False),
        ("exaone4", 64, [("exaone4.attention.sliding_window", UINT32, 1024)], "1024", 4, False),
        ("smallthinker", 8, [("smallthinker.attention.sliding_window", UINT32, 2048)], "4096",
         4, True),
        ("olmo2", 8, [("olmo2.attention.sliding_window", UINT32, 4096)], "4096", 4, False)):
    slide = set_swa_pattern(layers, period, first)
    f = arch_file(arch, layers, extra, name="win-%s-%d" % (arch, len(extra)))
    r, col = window_column("gguf:" + f)
    r2, s = summary("gguf:" + f)
    ok(r.rc == 0 and col == [want if il in slide else "" for il in range(layers)] and
       s.get("model", {}).get("sliding_layers") == ranges(slide),
       "%s gguf %d layers%s: window %s in layers %s" %
       (arch, layers, " with the file's window" if extra else "", want, ranges(slide)),
       (col, r.err, r2.err))
for arch, layers, extra in (("exaone4", 30, [("exaone4.attention.sliding_window", UINT32, 4096)]),
                            ("smallthinker", 8, []), ("olmo2", 8, [])):
    r, s = summary("gguf:" + arch_file(arch, layers, extra, name="nowin-" + arch))
    ok(r.rc == 0 and "sliding_window" not in s.get("model", {}),
       "%s gguf %d layers%s: no sliding layers, no window" %
       (arch, layers, "" if extra else " without a window"), s.get("model"))
# gpt-oss (openai-moe.cpp): the file's window, even layers sliding
r, s = summary("gguf:" + arch_file("gpt-oss", 6, [("gpt-oss.attention.sliding_window", UINT32,
                                                    128)]))
ok(r.rc == 0 and s["model"].get("sliding_window") == "128" and
   s["model"].get("sliding_layers") == ranges(set_swa_pattern(6, 2)) == "0,2,4",
   "gpt-oss gguf: window 128 in layers 0,2,4", s.get("model"))
# modern-bert.cpp: SYMMETRIC, window/2 on each side, a global layer first in every 3
r = run(EXE, "model", "gguf:" + arch_file("modern-bert", 6, [
    ("modern-bert.attention.sliding_window", UINT32, 128)], name="win-modern-bert"))
line = [x for x in r.text.splitlines() if x.split()[:1] == ["sliding_window"]]
r2, s = summary("gguf:" + os.path.join(TMP, "win-modern-bert.gguf"))
ok(r.rc == 0 and len(line) == 1 and line[0].split()[1] == "128" and "each side" in line[0] and
   s["model"].get("sliding_layers") == ranges(set_swa_pattern(6, 3, True)) == "1-2,4-5",
   "modern-bert gguf: symmetric window 128 (64 on each side) in layers 1-2,4-5", (line, s))
# llama4.cpp: CHUNKED, n_swa 8192 set by the loader unless the file's window is 0
for name, extra, want in (("no window key", [], "8192"),
                          ("window 4096", [("llama4.attention.sliding_window", UINT32, 4096)],
                           "8192"),
                          ("window 0", [("llama4.attention.sliding_window", UINT32, 0)], None)):
    f = arch_file("llama4", 8, extra, name="chunk-llama4-%d" % len(extra))
    r, s = summary("gguf:" + f)
    r2, col = window_column("gguf:" + f)
    ok(r.rc == 0 and s["model"].get("attention_chunk_size") == want and
       "sliding_window" not in s["model"] and col == [""] * 8,
       "llama4 gguf, %s: attention_chunk_size %s, no sliding window" % (name, want),
       (s.get("model"), r.err))
# the real files
for path, want, layers in (("gemma3_27b.gguf", "1024", ranges(set_swa_pattern(62, 6))),
                           ("gpt_oss_120b.gguf", "128", ranges(set_swa_pattern(36, 2)))):
    real = os.path.join("/work/shared/engine-dumps/gguf", path)
    if not os.path.exists(real):
        ok(True, "# SKIP %s not here" % real)
        continue
    r, s = summary("gguf:" + real)
    ok(r.rc == 0 and s["model"].get("sliding_window") == want and
       s["model"].get("sliding_layers") == layers,
       "%s: window %s in layers %s" % (path, want, layers), (s.get("model"), r.err))

done()
