#!/usr/bin/env python3
"""M-RoPE position ids per axis: the mrope scheme's text=/grid/tstep= layout and
--position-ids FILE, checked against an independent numpy implementation of Hugging Face
transformers' Qwen2-VL / Qwen2.5-VL get_rope_index (modeling_qwen2_vl.py,
modeling_qwen2_5_vl.py) and apply_multimodal_rotary_pos_emb, written here from those
formulas:

  - text tokens: t = h = w = st_idx + i, st_idx = (last chunk's max id) + 1, or 0;
  - a grid of T x H x W LLM tokens (image_grid_thw with h, w divided by the merge size):
    t = st_idx + text_len + t_index, h = ... + row, w = ... + column, row-major, with
    t_index = frame (Qwen2-VL) or long(frame * second_per_grid_t * tokens_per_second)
    (Qwen2.5-VL);
  - inv_freq = 1 / base^(2i/d); pair i takes the axis of its mrope_section chunk;
    cos/sin at columns i and i + d/2 (rotate_half).

The angles are compared bit for bit (both form pos * theta once); cos and sin against
cos/sin of the exact real product pos * theta (the reference's float64 product plus its
rounding error, from fractions) to 1e-15 relative, floored at 1 for values near 0."""
import csv
import io
import math
import os
import sys
from fractions import Fraction

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from tap import done, error_case, ok, run, workdir  # noqa: E402

EXE = os.path.abspath(sys.argv[1])
TMP = workdir()
REL = 1e-15


# ---- the reference ------------------------------------------------------------------
def get_rope_index(segments):
    """Position ids (3, n) of one sequence: segments are ("text", n) or
    ("grid", T, H, W, second_per_grid_t, tokens_per_second); tokens_per_second None is
    Qwen2-VL (t_index = frame)."""
    chunks = []
    pending_text = 0

    def st_idx():
        return int(chunks[-1].max()) + 1 if chunks else 0

    for seg in segments:
        if seg[0] == "text":
            pending_text += seg[1]
            continue
        _, T, H, W, spgt, tps = seg
        text_len = pending_text
        pending_text = 0
        s = st_idx()
        chunks.append(np.broadcast_to(np.arange(text_len), (3, text_len)) + s)
        if tps is None:
            t_index = np.repeat(np.arange(T), H * W)
        else:
            t_index = (np.repeat(np.arange(T), H * W) * spgt * tps).astype(np.int64)
        h_index = np.tile(np.repeat(np.arange(H), W), T)
        w_index = np.tile(np.arange(W), T * H)
        chunks.append(np.stack([t_index, h_index, w_index]) + text_len + s)
    if pending_text:
        s = st_idx()
        chunks.append(np.broadcast_to(np.arange(pending_text), (3, pending_text)) + s)
    return np.concatenate(chunks, axis=1)


def axis_of(i, sections, interleaved):
    t, h, w = sections
    if interleaved:  # Qwen3-VL apply_interleaved_mrope
        return 1 if i % 3 == 1 and i < 3 * h else 2 if i % 3 == 2 and i < 3 * w else 0
    return 0 if i < t else 1 if i < t + h else 2


def inv_freq(d, base):
    """1 / base^(2i/d) with the C library's pow (numpy's own power differs from it in the
    last bit for some exponents; both are within an ulp of the real value)."""
    return np.array([1.0 / math.pow(base, k / d) for k in range(0, d, 2)])


def tables(ids, d, base, sections, interleaved=False):
    """angle, cos, sin, rotated tables (n x d) of the reference."""
    half = d // 2
    inv = inv_freq(d, base)
    n = ids.shape[1]
    ang = np.empty((n, d))
    cos = np.empty((n, d))
    sin = np.empty((n, d))
    for q in range(n):
        for i in range(half):
            p = float(ids[axis_of(i, sections, interleaved), q])
            hi = p * inv[i]
            lo = float(Fraction(p) * Fraction(float(inv[i])) - Fraction(hi))
            c, s = math.cos(hi) - math.sin(hi) * lo, math.sin(hi) + math.cos(hi) * lo
            ang[q, i] = ang[q, i + half] = hi
            cos[q, i] = cos[q, i + half] = c
            sin[q, i] = sin[q, i + half] = s
    rot = np.concatenate([cos[:, :half] - sin[:, :half], sin[:, :half] + cos[:, :half]], 1)
    return {"angle": ang, "cos": cos, "sin": sin, "rotated": rot}


# ---- helpers -------------------------------------------------------------------------
def encode(spec, d, view, *extra):
    r = run(EXE, "encode", "-s", spec, "-d", str(d), "--view", view, "-o", "-", *extra)
    rows = list(csv.reader(io.StringIO(r.text)))[1:]
    return r, np.array([[float(x) for x in row[1:]] for row in rows]) if rows else None


def worst_rel(got, want):
    if got is None or got.shape != want.shape:
        return float("inf")
    return float(np.max(np.abs(got - want) / np.maximum(np.abs(want), 1.0)))


def check_views(name, spec, d, ids, base, sections, extra=(), interleaved=False):
    want = tables(ids, d, base, sections, interleaved)
    for view in ("angle", "cos", "sin", "rotated"):
        r, got = encode(spec, d, view, *extra)
        if view == "angle":
            good = got is not None and got.shape == want[view].shape and \
                np.array_equal(got, want[view])
            ok(r.rc == 0 and good, f"{name}: {view} view equals the reference bit for bit",
               f"{r.err} shape {None if got is None else got.shape}")
        else:
            w = worst_rel(got, want[view])
            ok(r.rc == 0 and w <= REL, f"{name}: {view} view within 1e-15 relative", f"{r.err} {w}")
    return want


def ids_from_angles(got, d, base, sections):
    """The ids posenc used, read back from its angle view: pair i's angle / theta_i."""
    inv = inv_freq(d, base)
    half = d // 2
    ids = np.zeros((3, got.shape[0]), dtype=np.int64)
    for i in range(half):
        ids[axis_of(i, sections, False)] = np.rint(got[:, i] / inv[i]).astype(np.int64)
    return ids


# ---- 1. a hand-worked sequence: text, an image grid, text (Qwen2-VL) ----------------
# 3 text tokens, an image of 1 x 2 x 3 LLM tokens (image_grid_thw (1, 4, 6), merge 2),
# 2 text tokens. By hand: text 0,1,2; the image starts at st_idx + text_len = 3:
# t = 3, h = 3 + row, w = 3 + column; the largest id of the image is 3 + 2 = 5, so the
# text after it is 6, 7.
HAND = np.array([
    [0, 1, 2, 3, 3, 3, 3, 3, 3, 6, 7],   # t
    [0, 1, 2, 3, 3, 3, 4, 4, 4, 6, 7],   # h
    [0, 1, 2, 3, 4, 5, 3, 4, 5, 6, 7],   # w
])
ok(np.array_equal(get_rope_index([("text", 3), ("grid", 1, 2, 3, None, None), ("text", 2)]),
                  HAND), "the numpy get_rope_index gives the hand-worked ids")
SPEC = "mrope:base=10000,t=1,h=1,w=1,text=3,frames=1,height=2,width=3"
r, got = encode(SPEC, 6, "angle", "-n", "11")
ok(r.rc == 0 and got is not None and np.array_equal(ids_from_angles(got, 6, 10000, (1, 1, 1)), HAND),
   "mrope text=3 + 1x2x3 grid + text: posenc's ids (read back from the angles) are the "
   "hand-worked ones", r.err)
ok("text 0..2 at t = h = w = token" in r.err and "a 1x2x3 grid 3..8" in r.err
   and "text from 9 on at t = h = w = 6" in r.err and "last (7,7,7)" in r.err,
   "stderr says which position ids were used", r.err)
r = run(EXE, "encode", "-q", "-s", SPEC, "-d", "6", "-n", "11", "-o", "-")
ok(r.rc == 0 and r.err == "", "-q: no note", r.err)

# ---- 2. Qwen2-VL 7B / Qwen2.5-VL 7B sections: image, video ---------------------------
# mrope_section [16, 24, 24], rope_theta 1e6, head 128 (the Qwen2.5-VL-7B-Instruct config,
# tests/fixtures/configs/qwen2.5-vl-7b.json). tokens_per_second 2 is that model's
# vision_config value; second_per_grid_t = temporal_patch_size / fps = 2 / 2 = 1.0 for a
# 2 fps video, 2 / 4 = 0.5 at 4 fps.
QWEN = "mrope:base=1000000,t=16,h=24,w=24"
cases = [
    ("Qwen2-VL image: 5 text, 1x4x6 grid, 4 text", [("text", 5), ("grid", 1, 4, 6, None, None),
                                                     ("text", 4)], ",text=5,frames=1,height=4,width=6"),
    ("Qwen2-VL video: 2 text, 3x2x2 grid, 3 text", [("text", 2), ("grid", 3, 2, 2, None, None),
                                                     ("text", 3)], ",text=2,frames=3,height=2,width=2"),
    ("Qwen2.5-VL video at 2 fps (tstep = 2 x 1.0): 3 text, 4x2x3 grid, 5 text",
     [("text", 3), ("grid", 4, 2, 3, 1.0, 2), ("text", 5)],
     ",text=3,frames=4,height=2,width=3,tstep=2"),
    ("Qwen2.5-VL video at 4 fps (tstep = 2 x 0.5): 0 text, 5x2x2 grid, 2 text",
     [("grid", 5, 2, 2, 0.5, 2), ("text", 2)], ",frames=5,height=2,width=2,tstep=1"),
    ("Qwen2.5-VL image (second_per_grid_t 0): 4 text, 1x3x3 grid, 3 text",
     [("text", 4), ("grid", 1, 3, 3, 0.0, 2), ("text", 3)], ",text=4,frames=1,height=3,width=3,tstep=0"),
]
for name, segs, keys in cases:
    ids = get_rope_index(segs)
    n = ids.shape[1]
    check_views(name, QWEN + keys, 128, ids, 1e6, (16, 24, 24), ("-n", str(n)))
# --start: a window of the same sequence
ids = get_rope_index(cases[2][1])
want = tables(ids, 128, 1e6, (16, 24, 24))["angle"][7:20]
r, got = encode(QWEN + cases[2][2], 128, "angle", "--start", "7", "-n", "13")
ok(r.rc == 0 and got is not None and np.array_equal(got, want),
   "--start 7 -n 13: tokens 7..19 of the sequence", r.err)
# interleaved (Qwen3-VL's assignment of pairs) with a grid
ids = get_rope_index(cases[0][1])
check_views("interleaved pairs, Qwen2-VL image layout", QWEN + cases[0][2] + ",interleaved=1",
            128, ids, 1e6, (16, 24, 24), ("-n", str(ids.shape[1])), interleaved=True)

# ---- 3. --position-ids FILE: any sequence (two images, a video) ----------------------
SEQ = [("text", 4), ("grid", 1, 2, 3, None, None), ("text", 3), ("grid", 2, 3, 2, 1.0, 2),
       ("text", 2), ("grid", 1, 1, 4, None, None), ("text", 1)]
ids = get_rope_index(SEQ)
n = ids.shape[1]
csv_path = os.path.join(TMP, "ids.csv")
with open(csv_path, "w") as f:
    f.write("t,h,w\n")
    for q in range(n):
        f.write("%d,%d,%d\n" % tuple(ids[:, q]))
npy_path = os.path.join(TMP, "ids.npy")
np.save(npy_path, ids.astype(np.float64))           # shape (3, n): position_ids[:, 0, :]
npy_t_path = os.path.join(TMP, "ids_t.npy")
np.save(npy_t_path, ids.T.astype(np.float64))       # shape (n, 3)
for path, what in ((csv_path, "CSV t,h,w"), (npy_path, "NPY (3, n)"), (npy_t_path, "NPY (n, 3)")):
    check_views(f"--position-ids {what}, text/image/text/video/text/image/text", QWEN, 128, ids,
                1e6, (16, 24, 24), ("--position-ids", path))
r = run(EXE, "encode", "-s", QWEN, "-d", "128", "--position-ids", csv_path, "-o", "-")
ok(r.rc == 0 and len(r.text.splitlines()) == n + 1 and
   f"rows 0..{n - 1} of {csv_path}" in r.err and "first (0,0,0)" in r.err,
   "--position-ids: one row per token, and stderr names the file", r.err)
want = tables(ids, 128, 1e6, (16, 24, 24))["angle"][5:12]
r, got = encode(QWEN, 128, "angle", "--position-ids", csv_path, "--start", "5", "-n", "7")
ok(r.rc == 0 and got is not None and np.array_equal(got, want),
   "--position-ids with --start 5 -n 7: tokens 5..11 of the file", r.err)

# Another command on the same ids: pairwise L2 distances of the rotated vectors.
rot = tables(ids, 128, 1e6, (16, 24, 24))["rotated"]
ref = np.sqrt(np.maximum(((rot[:, None, :] - rot[None, :, :]) ** 2).sum(-1), 0))
r = run(EXE, "distance", "-s", QWEN, "-d", "128", "--position-ids", npy_path, "-o", "-")
rows = list(csv.reader(io.StringIO(r.text)))[1:]
got = np.array([[float(x) for x in row[1:]] for row in rows]) if rows else None
w = float(np.max(np.abs(got - ref))) if got is not None and got.shape == ref.shape else float("inf")
ok(r.rc == 0 and w <= 1e-12, "distance --position-ids: L2 of the rotated vectors (1e-12)",
   f"{r.err} {w}")

r = run(EXE, "encode", "-q", "-s", "mrope:t=2,h=3,w=3", "-n", "2", "-o", "-")
ok(r.rc == 0 and r.text.splitlines()[0].count(",") == 16,
   "mrope without -d: the width its sections fix, 2 (t + h + w) = 16", r.err)

# ---- 4. errors -----------------------------------------------------------------------
def write(name, text, mode="w"):
    p = os.path.join(TMP, name)
    with open(p, mode) as f:
        f.write(text)
    return p


E = os.path.join(TMP, "empty")
os.makedirs(E, exist_ok=True)
out = ["-o", "x.csv"]
error_case(EXE, "--position-ids with rope", ["encode", "-s", "rope", "--position-ids", csv_path] + out,
           2, "mrope specs", cwd=E)
error_case(EXE, "--position-ids with freqs", ["freqs", "-s", "mrope", "--position-ids", csv_path] + out,
           2, "'freqs' does not encode positions", cwd=E)
# The help lists the option where it is taken, and only there.
TAKERS = ("encode", "distance", "corr", "profile", "scatter", "decay", "compare", "report")
for cmd in TAKERS + ("freqs", "check", "model", "layers", "plan", "precision", "bias", "usage"):
    r = run(EXE, cmd, "--help")
    listed = "--position-ids" in r.text
    ok(r.rc == 0 and listed == (cmd in TAKERS),
       f"{cmd} --help {'lists' if cmd in TAKERS else 'does not list'} --position-ids", r.text[:120])
error_case(EXE, "--position-ids with a grid", ["encode", "-s", QWEN + ",frames=1,height=2,width=2",
                                               "--position-ids", csv_path] + out, 2, "one or the other", cwd=E)
error_case(EXE, "--position-ids: four columns",
           ["encode", "-s", QWEN, "--position-ids", write("four.csv", "0,0,0,0\n")] + out, 1,
           "line 1: is not three numbers", cwd=E)
error_case(EXE, "--position-ids: a word on line 3",
           ["encode", "-s", QWEN, "--position-ids", write("word.csv", "t,h,w\n0,0,0\n1,x,1\n")] + out,
           1, "line 3", cwd=E)
error_case(EXE, "--position-ids: not whole",
           ["encode", "-s", QWEN, "--position-ids", write("half.csv", "0,0,0\n1,1.5,1\n")] + out,
           1, "token 1, h: 1.5 is not a whole number", cwd=E)
# judged on the digits: 2^52 + 0.5 rounds to a whole double, but is not a whole number
error_case(EXE, "--position-ids: 4503599627370496.5 is not whole",
           ["encode", "-s", QWEN, "--position-ids", write("big.csv", "0,0,0\n4503599627370496.5,0,0\n")] + out,
           1, "token 1, t: 4503599627370496.5 is not a whole number", cwd=E)
error_case(EXE, "--position-ids: negative",
           ["encode", "-s", QWEN, "--position-ids", write("neg.csv", "0,-1,0\n")] + out,
           1, "token 0, h: -1", cwd=E)
error_case(EXE, "--position-ids: empty", ["encode", "-s", QWEN, "--position-ids",
                                          write("none.csv", "t,h,w\n")] + out, 1, "no position ids", cwd=E)
error_case(EXE, "--position-ids: missing file", ["encode", "-s", QWEN, "--position-ids",
                                                 os.path.join(TMP, "nope.csv")] + out, 1,
           "No such file", cwd=E)
np.save(os.path.join(TMP, "int.npy"), ids.astype(np.int64))
error_case(EXE, "--position-ids: an int64 NPY", ["encode", "-s", QWEN, "--position-ids",
                                                 os.path.join(TMP, "int.npy")] + out, 1,
           "astype(float)", cwd=E)
np.save(os.path.join(TMP, "wide.npy"), np.zeros((4, 5)))
error_case(EXE, "--position-ids: a 4 x 5 NPY", ["encode", "-s", QWEN, "--position-ids",
                                                os.path.join(TMP, "wide.npy")] + out, 1, "n x 3", cwd=E)
error_case(EXE, "--position-ids: -n past the tokens",
           ["encode", "-s", QWEN, "--position-ids", csv_path, "-n", str(n + 1)] + out, 2,
           f"past the {n} tokens", cwd=E)
error_case(EXE, "--position-ids: --start past the tokens",
           ["encode", "-s", QWEN, "--position-ids", csv_path, "--start", str(n)] + out, 2,
           f"past the {n} tokens", cwd=E)
error_case(EXE, "text= without a grid", ["encode", "-s", QWEN + ",text=3"] + out, 2,
           "key 'text' places a patch grid", cwd=E)
error_case(EXE, "tstep= without a grid", ["encode", "-s", QWEN + ",tstep=2"] + out, 2,
           "key 'tstep'", cwd=E)
error_case(EXE, "ids past 2^53", ["encode", "-s", QWEN + ",frames=2,height=1,width=1,tstep=1000000",
                                   "--start", "9007199254740000", "-n", "3"] + out, 2,
           "pass 2^53", cwd=E)
error_case(EXE, "a grid past 2^53", ["encode", "-s", QWEN + ",frames=1073741824,height=1073741824,"
                                     "width=1073741824"] + out, 2, "patches pass 2^53", cwd=E)
error_case(EXE, "mrope has no precision view", ["encode", "-q", "-s", QWEN, "-d", "128", "--precision", "f32"] + out,
           2, "precision", cwd=E)

# ---- 5. hf:/model: of Qwen2-VL / Qwen2.5-VL ------------------------------------------
r = run(EXE, "model", "model:qwen2.5-vl-7b")
ok(r.rc == 0 and "-s mrope:base=1000000,t=16,h=24,w=24 with text=N,frames=F,height=H,width=W"
   in r.text and "--position-ids FILE" in r.text,
   "model:qwen2.5-vl-7b: the note gives the mrope spec of its sections and theta", r.text)
# text positions of the model spec are the mrope spec's text positions, bit for bit
r1 = run(EXE, "encode", "-q", "-s", "model:qwen2.5-vl-7b", "-n", "64", "-o", "-")
r2 = run(EXE, "encode", "-q", "-s", QWEN, "-d", "128", "-n", "64", "-o", "-")
ok(r1.rc == 0 and r1.out.split(b"\n")[1:] == r2.out.split(b"\n")[1:],
   "model:qwen2.5-vl-7b on text equals mrope on text", r1.err + r2.err)
# with --position-ids or a grid, the model spec is its mrope spec (same ids, same tables)
r1, a = encode("model:qwen2.5-vl-7b", 128, "angle", "--position-ids", csv_path)
r2, b = encode(QWEN, 128, "angle", "--position-ids", csv_path)
ok(r1.rc == 0 and a is not None and b is not None and np.array_equal(a, b),
   "model:qwen2.5-vl-7b --position-ids: the model's mrope spec", r1.err)
r1, a = encode("model:qwen2.5-vl-7b" + cases[0][2], 128, "angle", "-n", "33")
want = tables(get_rope_index(cases[0][1]), 128, 1e6, (16, 24, 24))["angle"]
ok(r1.rc == 0 and a is not None and np.array_equal(a, want),
   "model:qwen2.5-vl-7b,text=5,frames=1,height=4,width=6: the model's mrope spec with a grid",
   r1.err)
error_case(EXE, "grid keys on a model without M-RoPE", ["encode", "-s", "model:llama-3.1-8b,text=5",
                                                        "-o", "x.csv"], 2, "unknown key 'text'", cwd=E)
import json  # noqa: E402
qcfg = {"model_type": "qwen2_vl", "hidden_size": 3584, "num_attention_heads": 28,
        "max_position_embeddings": 32768, "rope_theta": 1000000.0,
        "vision_config": {"tokens_per_second": 2},
        "rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 24]}}
qpath = os.path.join(TMP, "qwen.json")
with open(qpath, "w") as f:
    json.dump(qcfg, f)
r = run(EXE, "model", "hf:" + qpath)
ok(r.rc == 0 and "tstep=2 x second_per_grid_t" in r.text,
   "hf: with vision_config.tokens_per_second: the note says tstep", r.text)
for name, sec, needle in (("sections not filling d/2", [16, 24, 23], "16 + 24 + 23 pairs"),
                          ("two sections", [32, 32], "not a list of 3"),
                          ("a fraction", [16, 24.5, 23.5], "mrope_section[1]")):
    bad = dict(qcfg, rope_scaling={"type": "mrope", "mrope_section": sec})
    bpath = os.path.join(TMP, "bad-mrope.json")
    with open(bpath, "w") as f:
        json.dump(bad, f)
    error_case(EXE, "hf: mrope_section " + name, ["model", "hf:" + bpath], 1, needle)

# GGUF (llama.cpp's qwen2vl: {arch}.rope.dimension_sections, four entries)
from gguf_write import ARRAY, FLOAT32, INT32, STRING, UINT32, gguf  # noqa: E402
kv = [("general.architecture", STRING, "qwen2vl"), ("qwen2vl.rope.freq_base", FLOAT32, 1e6),
      ("qwen2vl.attention.head_count", UINT32, 28), ("qwen2vl.embedding_length", UINT32, 3584),
      ("qwen2vl.context_length", UINT32, 32768), ("qwen2vl.block_count", UINT32, 28),
      ("qwen2vl.rope.dimension_sections", ARRAY, (INT32, [16, 24, 24, 0]))]
gpath = os.path.join(TMP, "qwen2vl.gguf")
with open(gpath, "wb") as f:
    f.write(gguf(kv))
r = run(EXE, "model", "gguf:" + gpath)
ok(r.rc == 0 and "-s mrope:base=1000000,t=16,h=24,w=24 with text=N" in r.text,
   "gguf: qwen2vl: the note gives the mrope spec of its sections", r.text + r.err)
r2 = run(EXE, "model", gpath)
ok(r2.rc == 0 and r2.text == r.text, "posenc model FILE.gguf reads it as gguf:FILE.gguf", r2.err)
r1, a = encode("gguf:" + gpath, 128, "angle", "--position-ids", npy_path)
r2, b = encode(QWEN, 128, "angle", "--position-ids", npy_path)
ok(r1.rc == 0 and a is not None and b is not None and np.array_equal(a, b),
   "gguf: qwen2vl with --position-ids: its mrope spec", r1.err)

done()
