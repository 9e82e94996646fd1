#!/usr/bin/env python3
"""Proportional RoPE (Gemma 4's global layers) and layer groups of different head widths.

The reference is written here from transformers' _compute_proportional_rope_parameters
(modeling_rope_utils.py) and Gemma4TextAttention / Gemma4TextRotaryEmbedding
(models/gemma4/modeling_gemma4.py), not from posenc's code:
    rope_angles = int(partial_rotary_factor * head_dim // 2)
    inv_freq    = [1 / base ** (2i / head_dim) for i < rope_angles] + [0] * (head_dim // 2 - rope_angles)
    inv_freq   /= factor                      (block's factor, default 1)
    head_dim    = global_head_dim for full-attention layers with rope_type proportional
cos/sin are cat(freqs, freqs) over the whole head (rotate_half): pair i is (i, i + head_dim/2).
The fixture is the position-related part of google/gemma-4-31B-it's config.json."""
import csv
import io
import json
import math
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from npyread import load_npy  # noqa: E402
from tap import done, error_case, long_columns, ok, run, workdir  # noqa: E402

EXE = os.path.abspath(sys.argv[1])
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
G4 = os.path.join(ROOT, "tests", "fixtures", "configs", "gemma-4-31b.json")
TMP = workdir()


def proportional(head_dim, base, proportion=1.0, factor=1.0):
    angles = int(proportion * head_dim // 2)
    rotated = [1.0 / (base ** (i / head_dim)) for i in range(0, 2 * angles, 2)]
    return [f / factor for f in rotated + [0.0] * (head_dim // 2 - angles)]


def default(head_dim, base):
    return [1.0 / (base ** (i / head_dim)) for i in range(0, head_dim, 2)]


def freqs(spec, *extra):
    r = run(EXE, "freqs", "-q", "-s", spec, "--table", "long", "-o", "-", *extra)
    rows = list(csv.reader(io.StringIO(r.text)))
    if r.rc or not rows:
        return r, {}
    return r, long_columns(rows)[0]


def summary(spec, *extra):
    r = run(EXE, "model", "-q", spec, "-o", "-", *extra)
    out = {}
    for row in list(csv.reader(io.StringIO(r.text)))[1:]:
        out.setdefault(row[0], {})[row[1]] = row[2]
    return r, out


def close(a, b, rel=1e-15):
    return len(a) == len(b) and all(abs(x - y) <= rel * abs(y) for x, y in zip(a, b))


with open(G4) as f:
    cfg = json.load(f)["text_config"]
full = cfg["rope_parameters"]["full_attention"]
sliding = cfg["rope_parameters"]["sliding_attention"]

# ---- the frequencies of each group ---------------------------------------------------
want_g = proportional(cfg["global_head_dim"], full["rope_theta"], full["partial_rotary_factor"])
want_l = default(cfg["head_dim"], sliding["rope_theta"])
for spec in ("hf:" + G4, "model:gemma-4-31b"):
    r, c = freqs(spec, "--layer", "global")
    ok(r.rc == 0 and close(c.get("proportional_theta", []), want_g),
       f"{spec} global: 256 inverse frequencies, 64 turning, 192 zero (to 1e-15)", r.err)
    ok(c.get("proportional_theta", [1])[64:] == [0.0] * 192 and
       close(c.get("theta", []), default(512, 1e6)),
       f"{spec} global: pairs 64..255 exactly 0; unscaled column base^(-2i/512)")
    r, c = freqs(spec, "--layer", "local")
    ok(r.rc == 0 and close(c.get("theta", []), want_l) and "proportional_theta" not in c,
       f"{spec} local: 128 frequencies of base 10000 over 256", r.err)

# ---- posenc model ---------------------------------------------------------------------
r, s = summary("model:gemma-4-31b")
g, lo = s.get("global", {}), s.get("local", {})
ok(r.rc == 0 and g.get("head_dim") == "512" and g.get("turning_pairs") == "64" and
   g.get("static_pairs") == "192" and g.get("scaling") == "proportional" and
   float(g.get("attention_factor", 0)) == 1.0, "model: global 512 wide, 64 turning, 192 static",
   g)
ok(lo.get("head_dim") == "256" and lo.get("scaling") == "none" and
   lo.get("layers") == "0-4,6-10,12-16,18-22,24-28,30-34,36-40,42-46,48-52,54-58" and
   g.get("layers") == "5,11,17,23,29,35,41,47,53,59", "model: layer_types give the groups", s)
# The longest wavelength of a turning pair: 2 pi 1e6^(126/512).
want = 2 * math.pi * 1e6 ** (126 / 512)
ok(abs(float(g.get("scaled_wavelength_max", 0)) - want) <= 1e-12 * want,
   f"model: longest turning wavelength {want:.6f}", g.get("scaled_wavelength_max"))
r = run(EXE, "model", "model:gemma-4-31b", "-o", os.path.join(TMP, "w.png"))
ok(r.rc == 0 and os.path.getsize(os.path.join(TMP, "w.png")) > 1000,
   "model: wavelength figure (static pairs have no wavelength: left out)", r.err)

# ---- the encoding: widths per group and the angles ------------------------------------
npy = os.path.join(TMP, "g.npy")
r = run(EXE, "encode", "-q", "-s", "model:gemma-4-31b", "--layer", "global", "--view", "angle",
        "--start", "100000", "-n", "3", "-o", npy)
shape, vals = load_npy(npy) if r.rc == 0 else ((0, 0), ())
exact = True
for row in range(3):
    m = 100000 + row
    for i in range(256):
        a = m * want_g[i]  # one correctly rounded product, as torch.outer in float64
        exact &= vals[row * 512 + i] == a and vals[row * 512 + i + 256] == a
ok(r.rc == 0 and shape == (3, 512) and exact,
   "encode global: 512 columns, angle m theta_i at columns i and i+256, bit for bit", r.err)
r = run(EXE, "encode", "-q", "-s", "model:gemma-4-31b", "--layer", "local", "-n", "2", "-o", npy)
ok(r.rc == 0 and load_npy(npy)[0] == (2, 256), "encode local: 256 columns (head_dim)", r.err)
r = run(EXE, "encode", "-q", "-s", "model:gemma-4-31b", "--layer", "5", "--view", "cos", "-n", "2",
        "-o", npy)
shape, vals = load_npy(npy) if r.rc == 0 else ((0, 0), ())
ok(r.rc == 0 and shape == (2, 512) and vals[512 + 64] == 1.0 and
   vals[512] == math.cos(1.0) and vals[512 + 256] == math.cos(1.0),
   "encode layer 5 (global), cos: static pairs are 1, pair 0 is cos(1) at 0 and 256", r.err)
r = run(EXE, "encode", "-q", "-s", "model:gemma-4-31b", "--layer", "global", "-d", "128", "-n",
        "2", "-o", npy)
ok(r.rc == 0 and load_npy(npy)[0] == (2, 128), "-d overrides a group's head= width", r.err)
r = run(EXE, "encode", "-q", "-s", "rope:head=12", "-n", "2", "-o", npy)
ok(r.rc == 0 and load_npy(npy)[0] == (2, 12), "rope:head=12 is the default width", r.err)

# ---- Python's int(p * d // 2) in odd cases, and factor --------------------------------
for p, d in ((0.3, 10), (0.7, 10), (0.25, 6), (1.0, 8), (0.0, 8)):
    r, c = freqs(f"rope:scaling=proportional,proportion={p!r}", "-d", str(d))
    ok(r.rc == 0 and close(c.get("proportional_theta", []), proportional(d, 10000.0, p)),
       f"proportion {p} of d {d}: {int(p * d // 2)} turning pairs", c.get("proportional_theta"))
r, c = freqs("rope:scaling=proportional,proportion=0.5,factor=4,base=500", "-d", "16")
ok(r.rc == 0 and close(c.get("proportional_theta", []), proportional(16, 500.0, 0.5, 4.0)),
   "factor divides the turning pairs", r.err)

# ---- compare and report of a model whose groups differ in width ------------------------
r = run(EXE, "compare", "-q", "-s", "model:gemma-4-31b", "-n", "512", "-o",
        os.path.join(TMP, "c.csv"))
with open(os.path.join(TMP, "c.csv")) as f:
    labels = [line.split(",")[0] for line in f.readlines()[1:]]
ok(r.rc == 0 and labels == ["gemma-4-31b local", "gemma-4-31b global"],
   "compare: both groups, each at its own width", r.err)
r = run(EXE, "compare", "-q", "-s", "model:gemma-4-31b", "-n", "512", "-o",
        os.path.join(TMP, "c.png"))
ok(r.rc == 0, "compare figure of 256- and 512-wide groups", r.err)
html = os.path.join(TMP, "r.html")
r = run(EXE, "report", "-q", "-s", "model:gemma-4-31b", "-n", "256", "-o", html)
text = open(html).read() if r.rc == 0 else ""
ok(r.rc == 0 and "d = 256/512" in text, "report: both widths said", r.err)

# ---- the config reader's rules ---------------------------------------------------------
def write(name, doc):
    path = os.path.join(TMP, name + ".json")
    with open(path, "w") as f:
        json.dump(doc, f)
    return path


small = {"model_type": "gemma4_text", "head_dim": 64, "global_head_dim": 128, "hidden_size": 512,
         "num_attention_heads": 8, "num_hidden_layers": 4, "max_position_embeddings": 4096,
         "layer_types": ["sliding_attention"] * 3 + ["full_attention"],
         "rope_parameters": {"full_attention": {"partial_rotary_factor": 0.5, "rope_theta": 1e6,
                                                "rope_type": "proportional", "factor": 2.0},
                             "sliding_attention": {"rope_theta": 1e4, "rope_type": "default"}}}
r, c = freqs("hf:" + write("small", small), "--layer", "3")
ok(r.rc == 0 and close(c.get("proportional_theta", []), proportional(128, 1e6, 0.5, 2.0)),
   "a small gemma4_text: global_head_dim 128, factor 2", r.err)
nop = json.loads(json.dumps(small))
del nop["rope_parameters"]["full_attention"]["partial_rotary_factor"]
r, c = freqs("hf:" + write("no-partial", nop), "--layer", "global")
rw = run(EXE, "freqs", "-s", "hf:" + os.path.join(TMP, "no-partial.json"), "-o", "-")
ok(r.rc == 0 and "partial_rotary_factor: missing" in rw.err and
   close(c.get("proportional_theta", []), proportional(128, 1e6, 1.0, 2.0)),
   "no partial_rotary_factor: every pair turns, with the reference's warning", r.err)
wrong = json.loads(json.dumps(small))
wrong["rope_parameters"]["full_attention"]["rope_type"] = "default"
error_case(EXE, "global_head_dim with a type that does not read it",
           ["freqs", "-s", "hf:" + write("wrong", wrong), "--layer", "global", "-o", "-"], 1,
           "only proportional reads global_head_dim")
same = dict(json.loads(json.dumps(wrong)), global_head_dim=64)
r, c = freqs("hf:" + write("same", same), "--layer", "global")
ok(r.rc == 0 and close(c.get("theta", []), default(64, 1e6)),
   "global_head_dim equal to head_dim: any type; Gemma 4's default RoPE ignores "
   "partial_rotary_factor", r.err)
nolt = {k: v for k, v in small.items() if k != "layer_types"}
error_case(EXE, "gemma4 without layer_types",
           ["freqs", "-s", "hf:" + write("nolt", nolt), "-o", "-"], 1, "layer_types: missing")
noglobal = {k: v for k, v in small.items() if k != "global_head_dim"}
noglobal["hidden_size"] = 1024  # the reference's fallback 1024 // 8 = 128 is not head_dim 64
error_case(EXE, "gemma4 without global_head_dim, hidden/heads differs",
           ["freqs", "-s", "hf:" + write("noglobal", noglobal), "-o", "-"], 1,
           "global_head_dim: missing")

r = run(EXE, "help", "models")
ok(r.rc == 0 and "gemma-4-31b" in r.text and "Gemma 4 31B" in r.text, "help models lists Gemma 4")

# ---- the spec grammar ------------------------------------------------------------------
error_case(EXE, "proportion above 1", ["freqs", "-s", "rope:scaling=proportional,proportion=1.5"],
           2, "proportion")
error_case(EXE, "proportion without its scaling", ["freqs", "-s", "rope:proportion=0.5"], 2,
           "needs scaling=proportional")
error_case(EXE, "head=1", ["encode", "-s", "rope:head=1", "-n", "2", "-o", npy], 2, "head")

done()
