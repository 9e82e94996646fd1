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
from gguf_write import (ARRAY, BOOL, FLOAT32, STRING, UINT32, UINT64, gguf)  # noqa: E402
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
# sliding layers' own widths (26 of 46).
r30 = write("rotary-30-of-44", gguf([
    ("general.architecture", STRING, "gemma3"),
    ("gemma3.context_length", UINT32, 4096),
    ("gemma3.embedding_length", UINT32, 88),
    ("gemma3.block_count", UINT32, 6),
    ("gemma3.attention.head_count", UINT32, 2),
    ("gemma3.attention.key_length", UINT32, 44),
    ("gemma3.rope.dimension_count", UINT32, 30),
    ("gemma3.attention.key_length_swa", UINT32, 46),
    ("gemma3.rope.dimension_count_swa", UINT32, 26),
    ("gemma3.rope.freq_base", FLOAT32, 1000000.0),
    ("gemma3.attention.sliding_window", UINT32, 512),
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
# cohere2.cpp rotates the sliding layers only (ggml_rope_ext under is_swa), at freq_base_swa
ok(r.rc == 0 and s.get("nope", {}).get("layers") == "2,5" and
   s.get("rope", {}).get("layers") == "0-1,3-4" and s["rope"].get("base") == "10000",
   "cohere2 sliding_window_pattern 3: every 3rd layer global and without RoPE", (s, r.err))
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
           ["model", "gguf:" + bad_type, "-o", "-"], 1, "'frob' is not none, linear or yarn")
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

done()
