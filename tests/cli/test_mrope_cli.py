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
r = run(EXE, "encode", "-s", "mrope:t=1,h=1,w=1", "-n", "3", "-o", os.path.join(TMP, "t.csv"))
ok(r.rc == 0 and "tokens 0..2: text, t = h = w = token (plain RoPE)\nposenc: wrote" in r.err,
   "text positions: the note ends its line (no escaped '\\n' before the next)", r.err)

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
           2, "freqs: option '--position-ids' does not apply (freqs does not encode positions", cwd=E)
# The help lists the option where it is taken, and only there.
TAKERS = ("encode", "distance", "corr", "profile", "scatter", "decay", "compare", "report",
          "check")
for cmd in TAKERS + ("freqs", "model", "layers", "plan", "precision", "bias", "usage"):
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
# Three tokens (1 text, a 1x1x2 grid) as position_ids[:, 0, :] are a 3 x 3 array, as are
# three saved one per row: refused unless both readings give the same ids.
ids3 = get_rope_index([("text", 1), ("grid", 1, 1, 2, None, None)])
ok(ids3.tolist() == [[0, 1, 1], [0, 1, 1], [0, 1, 2]], "3-token reference ids, by hand")
np.save(os.path.join(TMP, "three.npy"), ids3.astype(np.float64))
error_case(EXE, "--position-ids: a 3 x 3 NPY of two readings",
           ["encode", "-s", QWEN, "--position-ids", os.path.join(TMP, "three.npy")] + out, 1,
           "a 3 x 3 array is three tokens", cwd=E)
sym = np.array([[0, 1, 2], [1, 1, 2], [2, 2, 2]])
np.save(os.path.join(TMP, "sym.npy"), sym.astype(np.float64))
check_views("--position-ids: a 3 x 3 NPY read alike either way", QWEN, 128, sym, 1e6,
            (16, 24, 24), ("--position-ids", os.path.join(TMP, "sym.npy")))
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

# ---- 6. check: M-RoPE dumps, right and wrong -----------------------------------------
# The dumps are restated here from the references: transformers' Qwen2-VL rotary embedding
# (inv_freq = 1 / base ** (arange(0, d, 2).float() / d) in float32, freqs = inv_freq @
# position_ids per axis in float32, cos/sin of cat(freqs, freqs), cast to the model's
# dtype), apply_multimodal_rotary_pos_emb's mrope_section split and Qwen3-VL's
# apply_interleaved_mrope; vLLM's MRotaryEmbedding (cos_sin_cache[positions] split by
# sections: [cos pairs | sin pairs]); llama.cpp's ggml_mrope_cache_init (ggml-cpu ops.cpp:
# per axis theta = position, times theta_scale = powf(base, -2/n_dims) pair by pair,
# sectors t/h/w/e, IMROPE's interleaving).
f32 = np.float32
CSEG = [("text", 6), ("grid", 1, 5, 7, None, None), ("text", 5)]
CIDS = get_rope_index(CSEG)
CN = CIDS.shape[1]
CGRID = ",text=6,frames=1,height=5,width=7"
Q2 = "mrope:base=1000000,t=16,h=24,w=24" + CGRID      # Qwen2-VL / Qwen2.5-VL sections
Q3 = "mrope:base=1000000,t=24,h=20,w=20,interleaved=1" + CGRID   # Qwen3-VL


def bf16(x):
    """float32 -> bfloat16 (round to nearest even), as float32 numbers."""
    b = np.asarray(x, f32).view(np.uint32).astype(np.uint64)
    b = ((b + 0x7FFF + ((b >> 16) & 1)) >> 16) << 16
    return b.astype(np.uint32).view(f32)


def torch_inv(d, base):
    """inv_freq as torch computes it in float32 (pow and division correctly rounded)."""
    e = (np.arange(0, d, 2).astype(f32) / f32(d)).astype(f32)
    pf = (np.float64(f32(base)) ** e.astype(np.float64)).astype(f32)
    return (1.0 / pf.astype(np.float64)).astype(f32)


def hf_pairs(ids, d, base, sections, interleaved=False, inv=None):
    """float32 cos, sin per pair (n x d/2) of the reference, each pair at its axis's id."""
    inv = torch_inv(d, base) if inv is None else inv
    freqs = [(ids[a].astype(f32).astype(np.float64)[:, None] * inv.astype(np.float64)[None, :])
             .astype(f32) for a in range(3)]
    ang = np.stack([freqs[axis_of(i, sections, interleaved)][:, i] for i in range(d // 2)], 1)
    a64 = ang.astype(np.float64)
    return np.cos(a64).astype(f32), np.sin(a64).astype(f32)


def ggml_pairs(ids, d, base, sections, imrope=False):
    """float32 cos, sin per pair of ggml_mrope_cache_init (the 4th position, e, is 0)."""
    ts = f32(np.float64(f32(base)) ** np.float64(f32(-2.0) / f32(d)))
    n, h = ids.shape[1], d // 2
    c = np.empty((n, h), f32)
    s = np.empty((n, h), f32)
    sec = list(sections) + [0]
    for q in range(n):
        th = [f32(ids[0, q]), f32(ids[1, q]), f32(ids[2, q]), f32(0)]
        for i in range(h):
            k = i % sum(sec)
            if imrope:
                a = (1 if k % 3 == 1 and k < 3 * sec[1] else 2 if k % 3 == 2 and k < 3 * sec[2]
                     else 0 if k % 3 == 0 and k < 3 * sec[0] else 3)
            else:
                a = 0 if k < sec[0] else 1 if k < sec[0] + sec[1] else 2 if k < sum(sec[:3]) else 3
            c[q, i] = f32(math.cos(float(th[a])))
            s[q, i] = f32(math.sin(float(th[a])))
            th = [f32(v * ts) for v in th]
    return c, s


def rot_half(c, s, x=None):
    """apply_rotary_pos_emb on x (ones): x * cat(c, c) + rotate_half(x) * cat(s, s), float32."""
    n, h = c.shape
    x = np.ones(2 * h, f32) if x is None else x.astype(f32)
    C = np.concatenate([c, c], 1)
    S = np.concatenate([s, s], 1)
    rh = np.concatenate([-x[h:], x[:h]])
    return ((x[None, :] * C).astype(f32) + (rh[None, :] * S).astype(f32)).astype(f32)


def rot_pairs_interleaved(c, s):
    """GPT-J's rotate_every_two on ones: pairs (2i, 2i+1)."""
    out = np.empty((c.shape[0], 2 * c.shape[1]), f32)
    out[:, 0::2] = (c - s).astype(f32)
    out[:, 1::2] = (s + c).astype(f32)
    return out


def dump(name, arr):
    p = os.path.join(TMP, name + ".npy")
    np.save(p, arr)
    return p


def check(spec, arr, name, *extra):
    r = run(EXE, "check", "-s", spec, "--against", dump(name, arr), *extra)
    diag = ""
    for line in r.text.splitlines():
        if line.startswith("diagnosis:"):
            diag = line
    return r, diag


SEC2, SEC3 = (16, 24, 24), (24, 20, 20)

# Qwen2.5-VL video (get_rope_index with second_per_grid_t 1, tokens_per_second 2: frames two
# temporal ids apart) checked against a spec without tstep: the step is named
VIDS = get_rope_index([("text", 2), ("grid", 3, 2, 2, 1.0, 2), ("text", 20)])
cv, sv = hf_pairs(VIDS, 128, 1e6, SEC2)
r = run(EXE, "check", "-s", "mrope:base=1000000,t=16,h=24,w=24,text=2,frames=3,height=2,width=2",
        "--against", dump("q25_video", rot_half(cv, sv)), "--what", "table")
ok(r.rc == 3 and "video frames 2 temporal ids apart" in r.text,
   "check: a Qwen2.5-VL video table (tstep 2) against tstep 1: the temporal step named",
   r.text + r.err)
r = run(EXE, "check", "-s",
        "mrope:base=1000000,t=16,h=24,w=24,text=2,frames=3,height=2,width=2,tstep=2",
        "--against", dump("q25_video2", rot_half(cv, sv)), "--what", "table")
ok(r.rc == 0, "check: the same with tstep=2 agrees", r.text + r.err)

c2, s2 = hf_pairs(CIDS, 128, 1e6, SEC2)
c3, s3 = hf_pairs(CIDS, 128, 1e6, SEC3, interleaved=True)
AGREE32 = "verdict:        agree up to float32 rounding"

# right: each form of the reference agrees, float32 and bfloat16 without flags
r, _ = check(Q2, rot_half(c2, s2), "q2_table", "--what", "table")
ok(r.rc == 0 and AGREE32 in r.text and "M-RoPE ids (t,h,w) of 6 text tokens, a 1x5x7 grid" in r.text,
   "check: Qwen2-VL's float32 table (the all-ones vector rotated) agrees up to float32 "
   "rounding, and the report says which ids", r.text + r.err)
r, _ = check(Q2, rot_half(c2, s2), "q2_auto")
ok(r.rc == 0 and "read as:        rotated vectors" in r.text and AGREE32 in r.text,
   "check: the same table recognised without --what", r.text + r.err)
r, _ = check(Q3, np.concatenate([c3, c3], 1), "q3_cos", "--what", "cos")
ok(r.rc == 0 and AGREE32 in r.text, "check --what cos: Qwen3-VL's interleaved cos (float32) agrees",
   r.text + r.err)
r, _ = check(Q2, bf16(np.concatenate([c2, c2, s2, s2], 1)), "q2_cossin_bf16", "--what", "cos-sin")
ok(r.rc == 0 and AGREE32 in r.text and "f32/bf16" in r.text,
   "check --what cos-sin: HF's cos and sin cast to bfloat16 agree without --precision",
   r.text + r.err)
ids_npy = os.path.join(TMP, "check_ids.npy")
np.save(ids_npy, CIDS.astype(np.float64))
r, _ = check("mrope:base=1000000,t=16,h=24,w=24", np.concatenate([c2, s2], 1), "vllm_cache",
             "--what", "cos-sin:pairs", "--position-ids", ids_npy)
ok(r.rc == 0 and AGREE32 in r.text and "from the rows of " + ids_npy in r.text,
   "check --position-ids: vLLM's M-RoPE cos_sin_cache rows agree", r.text + r.err)
want = tables(CIDS, 128, 1e6, SEC2)
r, _ = check(Q2, want["angle"][:, :64], "exact_angle", "--what", "angle:pairs")
ok(r.rc == 0 and "verdict:        agree (every |error| <= 1e-09" in r.text,
   "check --what angle:pairs: the exact angles agree at 1e-9", r.text + r.err)
r, _ = check(Q2, inv_freq(128, 1e6)[None, :], "invfreq", "--what", "inv-freq")
ok(r.rc == 0 and "agree" in r.text, "check --what inv-freq: M-RoPE's frequencies", r.text + r.err)
xv = np.random.default_rng(7).standard_normal(128).astype(f32)
xpath = os.path.join(TMP, "x.csv")
np.savetxt(xpath, xv[None, :].astype(np.float64), delimiter=",", fmt="%.9g")
r, _ = check(Q2, rot_half(c2, s2, xv), "q2_rot_x", "--vector", xpath)
ok(r.rc == 0 and AGREE32 in r.text, "check --vector: a float32 q rotated by Qwen2-VL's tables agrees",
   r.text + r.err)
gc, gs = ggml_pairs(CIDS, 128, 1e6, SEC2)
r, _ = check(Q2, rot_half(gc, gs), "ggml_mrope", "--what", "rotated")
ok(r.rc == 0 and AGREE32 in r.text and "ggml's float32 path" in r.text,
   "check: llama.cpp's GGML_ROPE_TYPE_MROPE (float32, theta_scale products) agrees on ggml's "
   "path", r.text + r.err)

# wrong: each mistake named
wrong = [
    ("base 10000 for 1e6", Q2, rot_half(*hf_pairs(CIDS, 128, 1e4, SEC2)), (), r"base 10000"),
    ("ids off by one", Q2, rot_half(*hf_pairs(CIDS + 1, 128, 1e6, SEC2)), ("--what", "table"),
     r"position ids off by \+1"),
    ("GPT-J's pairs (2i, 2i+1)", Q2, rot_pairs_interleaved(c2, s2), (), r"interleaved layout"),
    ("Qwen2-VL's sections checked as Qwen3-VL's interleaving",
     "mrope:base=1000000,t=16,h=24,w=24,interleaved=1" + CGRID, rot_half(c2, s2), (),
     r"M-RoPE pairs in sections 16/24/24 .* as Qwen2-VL's .* instead of interleaved 16/24/24"),
    ("Qwen3-VL's interleaving checked as sections", "mrope:base=1000000,t=24,h=20,w=20" + CGRID,
     rot_half(c3, s3), (), r"M-RoPE pairs interleaved 24/20/20 .* as Qwen3-VL's "
     r"apply_interleaved_mrope has them, instead of in sections 24/20/20"),
    ("sections 24/20/20 for 16/24/24", Q2, rot_half(*hf_pairs(CIDS, 128, 1e6, SEC3)), (),
     r"M-RoPE pairs in sections 24/20/20 \(the first 24 pairs on t, the next 20 on h, the last "
     r"20 on w\) \(fitted pair by pair\) instead of in sections 16/24/24"),
    ("1-D positions", Q2, rot_half(*hf_pairs(np.broadcast_to(np.arange(CN), (3, CN)), 128, 1e6,
                                             SEC2)), (), r"1-D positions for M-RoPE"),
    ("[sin | cos]", Q2, np.concatenate([s2, s2, c2, c2], 1), ("--what", "cos-sin"),
     r"cos and sin swapped"),
    ("inv_freq in bfloat16", Q2, rot_half(*hf_pairs(CIDS, 128, 1e6, SEC2,
                                                    inv=bf16(torch_inv(128, 1e6)))), (),
     r"inv_freq in bfloat16"),
    # text tokens 2000.. of the same sequence: pairs 61 and 62 turn visibly there
    ("llama.cpp's IMROPE (pairs 61, 62 on its 4th position, 0)", Q3,
     rot_half(*ggml_pairs(get_rope_index(CSEG[:2] + [("text", 2040)])[:, 2000:2040], 128, 1e6,
                          SEC3, imrope=True)), ("--start", "2000"),
     r"2 pairs \(the first: pair 61\) never turn"),
]
for name, spec, arr, extra, pattern in wrong:
    import re  # noqa: E402
    r, diag = check(spec, arr, "w_" + str(abs(hash(name)) % 10**8), *extra)
    ok(r.rc == 3 and re.search(pattern, diag) is not None and "partly" not in diag,
       f"check: {name}: disagrees and is named", r.text + r.err)
# The same llama.cpp dump with --engine llama.cpp: its axis rule (the fourth position, 0, past
# the interleaved sections; ggml-cpu's rope multi, llama-graph.cpp's set_input) agrees.
imrope = rot_half(*ggml_pairs(get_rope_index(CSEG[:2] + [("text", 2040)])[:, 2000:2040], 128, 1e6,
                              SEC3, imrope=True))
r, diag = check(Q3, imrope, "imrope_engine", "--start", "2000", "--engine", "llama.cpp")
ok(r.rc == 0 and "agree" in r.text, "check --engine llama.cpp: its IMROPE dump agrees", r.text + r.err)
# Fitted sections: on a 6x8 grid pairs 40-43 (base 1e6) on h or on w differ by ~1e-6 in cos,
# a trillionth of the errors of the pairs on the wrong axis: the fit must still tell them.
GSEG = [("text", 5), ("grid", 1, 6, 8, None, None), ("text", 7)]
GIDS = get_rope_index(GSEG)
GGRID = ",text=5,frames=1,height=6,width=8"
for name, spec, secs, inter, pattern in [
        ("Qwen2-VL's 16/24/24 for 24/20/20", "mrope:base=1000000,t=16,h=24,w=24" + GGRID,
         SEC3, False, r"sections 24/20/20 \(the first 24 pairs on t.*\(fitted pair by pair\) "
         r"instead of in sections 16/24/24"),
        ("24/20/20 for Qwen2-VL's 16/24/24", "mrope:base=1000000,t=24,h=20,w=20" + GGRID,
         SEC2, False, r"sections 16/24/24 \(the first 16 pairs on t.*\(fitted pair by pair\) "
         r"instead of in sections 24/20/20"),
        ("Qwen3-VL's interleaved 24/20/20 for Qwen2-VL's 16/24/24",
         "mrope:base=1000000,t=24,h=20,w=20,interleaved=1" + GGRID, SEC2, False,
         r"sections 16/24/24 .*\(fitted pair by pair; Qwen2-VL's .* instead of interleaved "
         r"24/20/20")]:
    r, diag = check(spec, np.concatenate([hf_pairs(GIDS, 128, 1e6, secs, inter)[0]] * 2, 1),
                    "fit_" + str(abs(hash(name)) % 10**8), "--what", "cos")
    ok(r.rc == 3 and re.search(pattern, diag) is not None and "every step in float32" in diag
       and "explains part" not in r.text,
       f"check: {name}: the sections fitted pair by pair reproduce the dump", r.text + r.err)
r, diag = check(Q3, np.concatenate([s3, s3], 1), "sin_for_cos", "--what", "cos")
ok(r.rc == 3 and "holds sin, not cos" in diag and "(the dump matches that exactly)" in r.text,
   "check --what cos: a sin table named, and the diagnosis reproduces the dump", r.text)

# --position-ids: mrope only, every row a token of the file
error_case(EXE, "check --position-ids with rope", ["check", "-s", "rope", "--against",
                                                   dump("r", rot_half(c2, s2)), "--position-ids",
                                                   ids_npy], 2, "mrope specs", cwd=E)
error_case(EXE, "check --position-ids: more rows than tokens",
           ["check", "-s", "mrope:base=1000000,t=16,h=24,w=24", "--against", dump("r", rot_half(c2, s2)),
            "--position-ids", ids_npy, "--start", "3"], 2, f"pass the {CN} tokens", cwd=E)


# Qwen 3.5 (tests/fixtures/hf/qwen3.5-27b.json): interleaved 11/11/10 of 64 rotated dims,
# rope_theta 1e7, on its full-attention layers only; its linear-attention layers ('nope')
# have no positions, so grid keys there are an unknown key, not an M-RoPE table.
Q35 = "hf:" + os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures", "hf",
                           "qwen3.5-27b.json") + ",text=1,frames=1,height=1,width=2"
ids35 = get_rope_index([("text", 1), ("grid", 1, 1, 2, None, None), ("text", 1)])
check_views("Qwen 3.5 layer 3 (full attention), text/1x1x2 grid/text", Q35, 64, ids35, 1e7,
            (11, 11, 10), ("--layer", "3", "-n", "4"), interleaved=True)
for layer in ("nope", "0"):
    error_case(EXE, f"Qwen 3.5 --layer {layer}: grid keys on a layer without positions",
               ["encode", "-s", Q35, "--layer", layer] + out, 2, "unknown key 'text' for nope",
               cwd=E)

# ---- freqs and compare: each pair's theta (every axis the same) and its axis ----------
CFG = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures", "configs")
for name, spec, extra, d, base, sec, inter, crit in [
        ("Qwen2.5-VL-7B config, sections 16/24/24",
         "hf:" + os.path.join(CFG, "qwen2.5-vl-7b.json") + ",interleaved=0", (), 128, 1e6,
         (16, 24, 24), False,
         # 2 ceil(64 log_1e6(128000 / 2 pi)) = 2 ceil(45.96) at max_position_embeddings
         "critical dimension 92 of 128 for training length 128000"),
        ("Qwen 3.5 layer 3, interleaved 11/11/10 of its 64 rotated dims", Q35, ("--layer", "3"),
         64, 1e7, (11, 11, 10), True, None)]:
    r = run(EXE, "freqs", "-s", spec, *extra, "-o", "-")
    rows = list(csv.DictReader(io.StringIO(r.text)))
    th = inv_freq(d, base)
    good = r.rc == 0 and len(rows) == d // 2
    good = good and all(float(x["theta"]) == th[i] for i, x in enumerate(rows))
    good = good and [x["axis"] for x in rows] == ["thw"[axis_of(i, sec, inter)]
                                                  for i in range(d // 2)]
    ok(good and (crit is None or crit in r.err),
       f"freqs {name}: {d // 2} pairs at the width the sections fill, theta bit for bit, "
       "each pair's axis", r.err)
# a Qwen2.5-VL config given YaRN: the mrope scheme has no scaling, so its spec is refused
# rather than drawn unscaled
with open(os.path.join(CFG, "qwen2.5-vl-7b.json")) as f:
    yarn_cfg = json.load(f)
yarn_cfg["rope_scaling"] = {"type": "yarn", "factor": 3.90625, "mrope_section": [16, 24, 24],
                            "original_max_position_embeddings": 32768}
yarn_path = os.path.join(TMP, "vl-yarn.json")
with open(yarn_path, "w") as f:
    json.dump(yarn_cfg, f)
error_case(EXE, "freqs of a YaRN-scaled Qwen2.5-VL's mrope spec: refused, not unscaled",
           ["freqs", "-s", "hf:" + yarn_path + ",interleaved=0", "-o", "x.csv"], 2,
           "its RoPE has yarn scaling, which the mrope scheme does not take", cwd=E)
r = run(EXE, "freqs", "-s", "hf:" + yarn_path, "-q", "-o", "-")
ok(r.rc == 0 and "yarn_theta" in r.text.splitlines()[0], "its text positions: the YaRN table",
   r.err)
r = run(EXE, "compare", "-s", "mrope:base=1000000", "-s", "rope:base=1000000,layout=half",
        "-n", "16", "-o", "-")
rows = list(csv.DictReader(io.StringIO(r.text)))
th = inv_freq(128, 1e6)
ok(r.rc == 0 and len(rows) == 2 and all(float(x["wavelength_min"]) == 2 * math.pi / th[0] and
                                        float(x["wavelength_max"]) == 2 * math.pi / th[63]
                                        for x in rows) and "left empty" not in r.err,
   "compare: mrope's wavelength_min/max are 2 pi / theta of pairs 0 and 63, as rope's",
   r.text + r.err)

done()
