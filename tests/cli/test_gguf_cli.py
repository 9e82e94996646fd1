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
from tap import done, error_case, ok, run, workdir  # noqa: E402

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



def long_columns(rows):
    """freqs' long table as columns: theta, wavelength and NAME_theta per scaling (not none)."""
    head, body = rows[0], [dict(zip(rows[0], x)) for x in rows[1:]]
    cols, scaled = {}, []
    first = body[0]["scaling"] if body else "none"
    for x in body:
        if x["scaling"] == first:
            cols.setdefault("theta", []).append(float(x["theta"]))
            cols.setdefault("wavelength", []).append(float(x["wavelength"]))
        if x["scaling"] != "none":
            name = x["scaling"] + "_theta"
            if name not in cols:
                scaled.append(name)
            cols.setdefault(name, []).append(float(x["scaled_theta"]))
    return cols, scaled

def freqs(spec, *extra):
    r = run(EXE, "freqs", "-q", "-s", spec, "-o", "-", *extra)
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
ok(close(got, [1 / (f32(e) * 10000.0 ** (i / 96)) for e, i in zip(long_f, range(0, 96, 2))]),
   "phi3 gguf: freqs at the model's context 131072: long factors", r.err)
r, got = freqs("gguf:" + phi, "--length", "8192")
ok(close(got, [1 / (f32(e) * 10000.0 ** (i / 96)) for e, i in zip(long_f, range(0, 96, 2))]),
   "phi3 gguf: long factors past it")
r, s = summary("gguf:" + phi)
ok(float(s["all"]["attention_factor"]) == f32(att), "phi3 gguf: its attn_factor (float32)", s)

# Gemma 3: local layers at llama.cpp's 10000, global at freq_base with linear 8
gemma = write("gemma3", gguf([
    ("general.architecture", STRING, "gemma3"),
    ("gemma3.context_length", UINT32, 131072),
    ("gemma3.embedding_length", UINT32, 5376),
    ("gemma3.block_count", UINT32, 62),
    ("gemma3.attention.head_count", UINT32, 32),
    ("gemma3.attention.key_length", UINT32, 128),
    ("gemma3.rope.freq_base", FLOAT32, 1000000.0),
    ("gemma3.rope.scaling.type", STRING, "linear"),
    ("gemma3.rope.scaling.factor", FLOAT32, 8.0),
]))
r1, s1 = summary("gguf:" + gemma)
r2, s2 = summary("model:gemma-3-27b")
ok(all(s1.get(g, {}).get(k) == s2[g].get(k) for g in ("local", "global")
       for k in ("layers", "base", "scaling", "factor", "rotary_dim")),
   "gemma3 gguf: the same local and global groups as its config.json", (s1, r1.err))

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
error_case(EXE, "gguf over --max-memory", ["freqs", "-s", "gguf:" + llama, "--max-memory", "1K"],
           1, "memory budget")
error_case(EXE, "gguf missing", ["freqs", "-s", "gguf:" + os.path.join(TMP, "none.gguf")], 1,
           "cannot open")
done()
