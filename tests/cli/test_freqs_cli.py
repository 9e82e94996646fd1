#!/usr/bin/env python3
"""posenc freqs, run as a user runs it: doc/conventions.md §3 and §7 numbers, NPY, errors."""
import csv
import io
import math
import os
import re
import sys

sys.path.insert(0, os.path.dirname(__file__))
from npyread import load_npy  # noqa: E402
from pngrgb import png_rows  # noqa: E402
from tap import done, error_case, ok, run, workdir  # noqa: E402

EXE = os.path.abspath(sys.argv[1])
TMP = workdir()


COLUMNS = ["model", "group", "d", "d_rot", "pair", "theta", "wavelength", "scaling", "factor",
           "scaled_theta", "scaled_wavelength", "ratio", "regime"]
NUMERIC = {"d", "d_rot", "pair", "theta", "wavelength", "factor", "scaled_theta",
           "scaled_wavelength", "ratio", "llama3_theta", "llama3_ratio"}


def table(text):
    """The long table: its header and its rows as dicts, numeric columns as floats."""
    rows = list(csv.reader(io.StringIO(text)))
    if not rows:
        return [], []
    out = []
    for r in rows[1:]:
        d = dict(zip(rows[0], r))
        for k in NUMERIC & d.keys():
            d[k] = float(d[k])
        out.append(d)
    return rows[0], out


def variant(rows, scaling, key):
    return [x[key] for x in rows if x["scaling"] == scaling]


def near(a, b, tol):
    return abs(a - b) <= tol


r = run(EXE, "freqs", "--table", "long", "-o", "-")
head, rows = table(r.text)
ok(r.rc == 0 and head == COLUMNS, "freqs: the same columns whatever the scaling", head)
ok([x["scaling"] for x in rows[::64]] == ["linear", "dynamic", "yarn", "llama3"] and
   len(rows) == 256, "freqs default rope: 64 rows per default variant")
ok([x["pair"] for x in rows[:64]] == list(range(64)), "freqs: one row per pair")
wl = {0: (6.2832, 5e-5), 1: (7.2557, 5e-5), 32: (628.32, 5e-3), 63: (54410.1, 5e-2)}
ok(all(near(rows[i]["wavelength"], v, t) for i, (v, t) in wl.items()), "freqs wavelengths [7a]")
yr = variant(rows, "yarn", "ratio")
yarn = {0: 1, 20: 1, 21: 0.971154, 33: 0.625, 45: 0.278846, 46: 0.25, 63: 0.25}
ok(all(near(yr[i], v, 5e-7) for i, v in yarn.items()), "freqs yarn factor 4 ratios [3c]",
   [yr[i] for i in yarn])
reg = variant(rows, "yarn", "regime")
ok(reg == ["kept"] * 21 + ["ramped"] * 25 + ["interpolated"] * 18,
   "freqs yarn regimes: pairs 0..20 kept, 21..45 ramped, 46..63 interpolated", reg)
ok(all(x == 0.25 for x in variant(rows, "linear", "ratio")) and
   set(variant(rows, "linear", "regime")) == {"interpolated"}, "freqs linear ratio 1/4")
ok(all(near(x["scaled_wavelength"], 2 * math.pi / x["scaled_theta"], 1e-9 * x["scaled_wavelength"])
       for x in rows), "freqs scaled_wavelength = 2 pi / scaled_theta")
ok("attention factor 1.1386294" in r.err and "low 20, high 46" in r.err,
   "freqs reports yarn's attention factor and low/high [3c]", r.err)
ok("critical dimension" not in r.err and "training" not in r.err,
   "freqs of plain rope invents no training length", r.err)
r = run(EXE, "freqs", "--train-length", "4096", "-o", "-")
ok("critical dimension 92 of 128" in r.err, "freqs reports LLaMA-2's critical dimension [7b]",
   r.err)
r = run(EXE, "freqs", "-s", "sinusoidal", "-o", "-")
ok(r.rc == 0 and "critical dimension" not in r.err and "4096" not in r.err,
   "freqs -s sinusoidal: no invented training length 4096 or critical dimension", r.err)

path = os.path.join(TMP, "llama.csv")
r = run(EXE, "freqs", "-s", "rope:base=500000,scaling=llama3", "--table", "long", "-o", path)
with open(path) as f:
    head, rows = table(f.read())
smooth = [0.828168, 0.643743, 0.493507, 0.371122, 0.271425, 0.190211]
ratio = [x["ratio"] for x in rows]
good = r.rc == 0 and head == COLUMNS and len(rows) == 64
good = good and all(ratio[i] == 1.0 for i in range(29))
good = good and all(near(ratio[29 + i], v, 5e-7) for i, v in enumerate(smooth))
good = good and all(near(ratio[i], 0.125, 1e-15) for i in range(35, 64))
good = good and near(rows[20]["scaled_theta"], 0.01656044, 5e-9)
good = good and near(rows[63]["scaled_theta"], 3.068926e-07, 5e-14)
ok(good, "freqs llama3 for Llama 3.1 [3d]")
ok([x["regime"] for x in rows] == ["kept"] * 29 + ["ramped"] * 6 + ["interpolated"] * 29,
   "freqs llama3 regimes: 29 kept, 6 on the smooth ramp, 29 interpolated")
ok("critical dimension 70 of 128" in r.err, "freqs LLaMA-3 critical dimension 70", r.err)

r = run(EXE, "freqs", "-s", "rope:scaling=dynamic,factor=2", "--length", "8192", "-o", "-")
ok(r.rc == 0 and "effective base 30527.7367" in r.err, "freqs --length 8192: dynamic base [3b]",
   r.err)
r = run(EXE, "freqs", "-s", "rope:scaling=dynamic,factor=2", "--length", "16384", "-q", "-o", "-")
ok(r.rc == 0 and r.err == "", "freqs -q says nothing on stderr", r.err)
r = run(EXE, "freqs", "-s", "rope:scaling=longrope,factor=32,long-factor=1/2,short-factor=1/1",
        "-d", "4", "-o", "-")
ok(r.rc == 0 and "attention factor 1.1902381" in r.err, "freqs longrope attention factor [3e]",
   r.err)
r = run(EXE, "freqs", "-s", "rope:base=1000000,scaling=yarn,original=32768", "-o", "-")
ok(r.rc == 0 and "low 23, high 40" in r.err and "critical dimension 80 of 128" in r.err,
   "freqs Qwen2.5-style yarn low/high and critical dimension", r.err)

# one scheme: by default the wide table, variants side by side (as the NPY), the columns
# named after the scaling; --table long gives the long table of several schemes
r = run(EXE, "freqs", "-s", "rope:base=500000,scaling=llama3", "-o", "-")
head, rows = table(r.text)
ok(r.rc == 0 and head == ["pair", "theta", "wavelength", "llama3_theta", "llama3_ratio"]
   and len(rows) == 64 and near(rows[63]["llama3_theta"], 3.068926e-07, 5e-14)
   and near(rows[63]["llama3_ratio"], 0.125, 1e-15), "freqs one scheme: the wide table [3d]",
   head)
r = run(EXE, "freqs", "-d", "8", "-o", "-")
head, rows = table(r.text)
ok(r.rc == 0 and head == ["pair", "theta", "wavelength", "linear_theta", "linear_ratio",
                          "dynamic_theta", "dynamic_ratio", "yarn_theta", "yarn_ratio",
                          "llama3_theta", "llama3_ratio"] and len(rows) == 4,
   "freqs plain rope wide: the four default variants side by side", head)
r = run(EXE, "freqs", "-s", "rope", "-s", "sinusoidal", "--table", "wide", "-o", "-")
ok(r.rc == 2 and "--table long" in r.err, "freqs --table wide of two schemes is refused", r.err)
r = run(EXE, "freqs", "--table", "long", "-o", os.path.join(TMP, "x.png"))
ok(r.rc == 2 and "--table" in r.err, "freqs --table with a figure is refused", r.err)
r = run(EXE, "freqs", "--table", "tall", "-o", "-")
ok(r.rc == 2 and "tall" in r.err, "freqs --table takes long or wide", r.err)

path = os.path.join(TMP, "freqs.npy")
r = run(EXE, "freqs", "-s", "sinusoidal", "-d", "8", "-o", path)
shape, v = load_npy(path)
ok(r.rc == 0 and shape == (4, 2) and near(v[2], 0.1, 1e-16)
   and near(v[7], 2 * math.pi * 1000, 1e-9), "freqs sinusoidal NPY (pairs, 2)", (shape, v))

# ---- M-RoPE: theta_i = base^(-2i/d) on every axis, and the axis of each pair ----------
# restated from transformers: Qwen2-VL's apply_multimodal_rotary_pos_emb splits the d-wide
# cos/sin (cat(freqs, freqs)) into chunks mrope_section * 2 and takes chunk j from axis
# j % 3; Qwen3-VL's apply_interleaved_mrope (modeling_qwen3_vl.py, 00709b86) starts from
# the temporal freqs and overwrites freqs[..., offset:3 * section[dim]:3] with axis dim's,
# offsets 1 (h) and 2 (w), over the d/2 pairs.
def hf_axes(sections, d, interleaved):
    if interleaved:
        axis = [0] * (d // 2)
        for dim, offset in enumerate((1, 2), start=1):
            idx = range(d // 2)[slice(offset, sections[dim] * 3, 3)]
            for i in idx:
                axis[i] = dim
        return axis
    cols = []
    for j, n in enumerate(list(sections) * 2):
        cols += [j % 3] * n
    assert cols[:d // 2] == cols[d // 2:]
    return cols[:d // 2]


def theta_closed(base, d):
    return [1.0 / math.pow(base, k / d) for k in range(0, d, 2)]


MROPE = [  # spec, base, sections, interleaved, d, pairs per axis counted by hand
    ("mrope:base=1000000", 1e6, (16, 24, 24), False, 128, [16, 24, 24]),
    ("mrope:base=5000000,t=24,h=20,w=20,interleaved=1", 5e6, (24, 20, 20), True, 128,
     [24, 20, 20]),
    # interleaved with 3h = 3w = 72 past the 64 pairs: h and w take 21 each, t the other 22
    ("mrope:t=16,h=24,w=24,interleaved=1", 1e4, (16, 24, 24), True, 128, [22, 21, 21]),
]
for spec, base, sec, inter, d, counts in MROPE:
    r = run(EXE, "freqs", "-s", spec, "-o", "-")
    rows = list(csv.DictReader(io.StringIO(r.text)))
    head = list(rows[0]) if rows else []
    want_axes = ["thw"[a] for a in hf_axes(sec, d, inter)]
    want = theta_closed(base, d)
    ok(r.rc == 0 and head == ["pair", "theta", "wavelength", "axis"] and len(rows) == d // 2,
       f"freqs {spec}: the wide table with an axis column, a row per pair", (head, r.err))
    ok(all(abs(float(x["theta"]) - w) <= 1e-15 * w and
           abs(float(x["wavelength"]) - 2 * math.pi / w) <= 1e-15 * 2 * math.pi / w
           for x, w in zip(rows, want)), f"freqs {spec}: theta = base^(-2i/d), 2 pi / theta")
    ok([x["axis"] for x in rows] == want_axes,
       f"freqs {spec}: each pair's axis as transformers assigns it",
       "".join(x["axis"] for x in rows) + "\n" + "".join(want_axes))
    ok([want_axes.count(a) for a in "thw"] == counts and
       "%d pairs turn with the temporal id (t), %d with the height id (h), %d with the width "
       "id (w)" % tuple(counts) in r.err, f"freqs {spec}: pairs per axis {counts}", r.err)
# Qwen2-VL at base 1e6: pair 32 at 1e6^(-1/2) = 1e-3; the critical dimension as rope's
r = run(EXE, "freqs", "-s", "mrope:base=1000000", "--train-length", "32768", "-o", "-")
rows = list(csv.DictReader(io.StringIO(r.text)))
ok(r.rc == 0 and near(float(rows[32]["theta"]), 1e-3, 1e-18) and
   "critical dimension 80 of 128" in r.err,
   "freqs mrope base 1e6: pair 32 at 0.001, critical dimension 2 ceil(39.65) = 80", r.err)
# the long table: mrope's rows name their axis, rope's leave it empty
r = run(EXE, "freqs", "-s", "mrope:t=24,h=20,w=20,interleaved=1", "-s", "rope", "-d", "128",
        "-o", "-")
head, rows = table(r.text)
mr = [x for x in rows if x["model"].startswith("mrope")]
ok(r.rc == 0 and head == COLUMNS + ["axis"] and len(mr) == 64 and
   [x["axis"] for x in mr] == ["thw"[a] for a in hf_axes((24, 20, 20), 128, True)] and
   {x["axis"] for x in rows if x["model"].startswith("rope")} == {""} and
   {x["scaling"] for x in mr} == {"none"},
   "freqs long table: an axis column, t/h/w for mrope, empty for rope", r.err)
path = os.path.join(TMP, "two.csv")
r = run(EXE, "freqs", "-s", "rope", "-s", "rope:base=10", "-o", path)
with open(path) as f:
    head = f.readline().strip().split(",")
ok(r.rc == 0 and head == COLUMNS and "x 13 table" in r.err,
   "freqs long table without mrope: the 13 columns it always had", r.err)
path = os.path.join(TMP, "mrope.npy")
r = run(EXE, "freqs", "-s", "mrope:t=24,h=20,w=20,interleaved=1", "-o", path)
shape, v = load_npy(path)
ok(r.rc == 0 and shape == (64, 3) and
   [int(v[3 * i + 2]) for i in range(64)] == hf_axes((24, 20, 20), 128, True) and
   v[3] == theta_closed(1e4, 128)[1], "freqs mrope NPY (pairs, 3): theta, wavelength, axis",
   (shape, r.err))


# the figure: one colour per axis (tab10 blue, orange, green at the markers' alpha 0.9)
def axis_columns(path):
    """x of the pixels of each axis's marker colour, past the legend's left column."""
    w, h, px = png_rows(path)
    tab10 = [(31, 119, 180), (255, 127, 14), (44, 160, 44)]
    out = []
    for c in tab10:
        m = [round(0.9 * v + 0.1 * 255) for v in c]
        out.append(sorted(x for y in range(h) for x in range(120, w)
                          if all(abs(px[y][x][j] - m[j]) <= 10 for j in range(3))))
    return (w, h), out


for spec, inter in (("mrope", False), ("mrope:t=24,h=20,w=20,interleaved=1", True)):
    png = os.path.join(TMP, "mrope.png")
    r = run(EXE, "freqs", "-s", spec, "-o", png)
    size, xs = axis_columns(png) if r.rc == 0 else ((0, 0), [[], [], []])
    good = r.rc == 0 and size == (640, 480) and all(len(x) > 100 for x in xs)
    if inter:  # the axes alternate over the whole width; pairs 60..63 are temporal
        good = good and all(x[-1] - x[0] > 300 for x in xs) and xs[0][-1] > max(xs[1][-1],
                                                                                 xs[2][-1])
    else:  # t's pairs, then h's, then w's, left to right
        good = good and xs[0][-1] < xs[1][0] + 15 and xs[1][-1] < xs[2][0] + 15
    ok(good, f"freqs {spec} figure: 640 x 480, the pairs coloured by axis "
       f"({'alternating' if inter else 't, then h, then w'})",
       (size, [(len(x), x[:1], x[-1:]) for x in xs], r.err))


# Several schemes share a top panel of each one's own wavelengths. A plain rope has no scaling
# of its own (its table's linear/dynamic/yarn/llama3 variants only illustrate), so its line is
# the unscaled 2 pi / theta: at pair 0 the same 2 pi as YaRN's (which keeps the fast pairs,
# pairs 0..20 at factor 4 over 4096), where linear x4 would put it at 8 pi.
svg = os.path.join(TMP, "two.svg")
r = run(EXE, "freqs", "-q", "-s", "rope", "-s", "rope:scaling=yarn,factor=4,original=4096",
        "-o", svg)
data_paths = {}
if r.rc == 0:
    with open(svg) as f:
        for style, d in re.findall(r'<path style="([^"]*)" d="([^"]*)"', f.read()):
            pts = [tuple(map(float, m)) for m in re.findall(r"[ML] ([-\d.]+) ([-\d.]+)", d)]
            colour = re.search(r"stroke:(rgb\([^)]*\))", style)
            if colour and len(pts) >= 32:  # data lines, not legend samples or axes
                data_paths.setdefault(colour.group(1), []).append(pts)
blue = data_paths.get("rgb(12.156863%,46.666667%,70.588235%)", [])
orange = data_paths.get("rgb(100%,49.803922%,5.490196%)", [])
ok(r.rc == 0 and blue and orange and abs(blue[0][0][1] - orange[0][0][1]) < 0.01 and
   abs(blue[0][0][0] - orange[0][0][0]) < 0.01,
   "freqs of two schemes: a plain rope's top-panel line is its own (unscaled) wavelengths",
   (r.err, blue[:1] and blue[0][:2], orange[:1] and orange[0][:2]))

r = run(EXE, "freqs", "--help")
ok(r.rc == 0 and r.text.startswith("Usage: posenc freqs"), "freqs --help")

for name, args, needle in [
    ("freqs of learned", ["freqs", "-s", "learned"], "no frequencies"),
    ("freqs of alibi", ["freqs", "-s", "alibi"], "no frequencies"),
    ("freqs odd rotary width", ["freqs", "-d", "7"], "even rotary width"),
    ("freqs -n", ["freqs", "-n", "5"], "'-n'"),
    ("freqs --length 0", ["freqs", "--length", "0"], "--length"),
    ("freqs NPY of two schemes", ["freqs", "-s", "rope", "-s", "sinusoidal", "-o", "x.npy"],
     "one scheme"),
    ("freqs longrope list length", ["freqs", "-s",
                                    "rope:scaling=longrope,long-factor=1/2,short-factor=1/1"],
     "d_rot/2"),
]:
    empty = workdir()
    error_case(EXE, name, args + ([] if "-o" in args else ["-o", "out.csv"]), 2, needle,
               cwd=empty)

# YaRN to the last bit of transformers' _compute_yarn_parameters run in float64 (and vLLM's
# YaRNScalingRotaryEmbedding, the same form): pos_freqs = base ** (2i / d), extrapolation
# 1 / pos_freqs, interpolation 1 / (factor * pos_freqs) (theta / factor differs in the last
# bit for about one pair in ten), ramp over truncated correction dims, then
# interpolation * (1 - e) + extrapolation * e with e = 1 - ramp. math.pow is the C library's
# pow, as posenc's; numpy's ** may round otherwise.
def hf_yarn(base, d, factor, orig, beta_fast=32.0, beta_slow=1.0):
    def corr(r):
        return (d * math.log(orig / (r * 2 * math.pi))) / (2 * math.log(base))
    low, high = max(math.floor(corr(beta_fast)), 0), min(math.ceil(corr(beta_slow)), d - 1)
    if low == high:
        high += 0.001
    out = []
    for i in range(d // 2):
        pf = math.pow(base, (2 * i) / d)
        ramp = min(max((i - low) / (high - low), 0.0), 1.0)
        e = 1.0 - ramp
        out.append(1.0 / (factor * pf) * (1.0 - e) + 1.0 / pf * e)
    return out


bad = []
for base in (10000.0, 500000.0, 1000000.0):
    for d in (64, 128):
        for factor in (3.0, 4.0, 40.0):
            r = run(EXE, "freqs", "-q", "-s", "rope:base=%r,scaling=yarn,factor=%r,original=4096"
                    % (base, factor), "-d", str(d), "-o", "-")
            got = [float(x["yarn_theta"]) for x in csv.DictReader(io.StringIO(r.text))]
            want = hf_yarn(base, d, factor, 4096.0)
            bad += [(base, d, factor, i) for i, (g, w) in enumerate(zip(got, want)) if g != w]
            if len(got) != d // 2:
                bad.append((base, d, factor, "rows %d" % len(got)))
ok(not bad, "yarn frequencies: transformers' float64 form bit for bit (18 cases, 864 pairs)",
   bad[:5])
# A million-token length is written whole (%g gave "1.04858e+06"); dynamic NTK at 2^21 over
# an original 4096, factor 4: base 10000 (4 x 2^21 / 4096 - 3)^(128/126).
r = run(EXE, "freqs", "-s", "model:phi-3-mini-128k", "--length", "1048576", "-o",
        os.path.join(TMP, "m.csv"))
ok(r.rc == 0 and "long factors at length 1048576" in r.err, "freqs: length 1048576 in full", r.err)
r = run(EXE, "freqs", "-s", "rope:scaling=dynamic,factor=4,original=4096", "-d", "128",
        "--length", "2097152", "-o", os.path.join(TMP, "d.csv"))
grown = 10000 * (4 * 2097152 / 4096 - 3) ** (128 / 126)
ok(r.rc == 0 and "effective base %.10g at length 2097152" % grown in r.err,
   "freqs: dynamic base at length 2097152, both in full", r.err)
done()
