#!/usr/bin/env python3
"""The figures of the posts posenc began from (doc/posts.md), as a student draws them: the table
beside its distance matrix (compare --panels/--layout), the point cloud with correlation across
and both triangles (scatter --axes/--triangles), titles that name the base. Numbers are checked
against numpy written here from the formulas; figures by their text (PDF text is searchable) and
their shape."""
import csv
import io
import os
import re
import struct
import subprocess
import sys
from fractions import Fraction

sys.path.insert(0, os.path.dirname(__file__))
from tap import done, error_case, ok, run, workdir  # noqa: E402

EXE = os.path.abspath(sys.argv[1])
TMP = workdir()
try:
    import numpy as np
except ImportError:  # the suite runs with a python that has numpy (tests/meson.build)
    np = None


def png_size(path):
    with open(path, "rb") as f:
        head = f.read(24)
    return struct.unpack(">II", head[16:24])


def pdf_words(path):
    """Words of a PDF with their boxes: (text, x0, y0, x1, y1)."""
    r = subprocess.run(["pdftotext", "-bbox", path, "-"], capture_output=True, text=True)
    return [(m.group(5), *map(float, m.group(1, 2, 3, 4))) for m in re.finditer(
        r'<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)</word>',
        r.stdout)]


def pdf_text(path):
    return subprocess.run(["pdftotext", path, "-"], capture_output=True, text=True).stdout


def sinusoidal(n, d, base=10000.0):
    """Vaswani et al. 3.5: column 2k sin(p / base^(2k/d)), 2k+1 cos."""
    p = np.arange(n)[:, None]
    k = np.arange(d // 2)[None, :]
    a = p / base ** (2 * k / d)
    pe = np.zeros((n, d))
    pe[:, 0::2], pe[:, 1::2] = np.sin(a), np.cos(a)
    return pe


# ---- compare --panels / --layout ----------------------------------------------------------

two = os.path.join(TMP, "two.png")
r = run(EXE, "compare", "-s", "sinusoidal", "--panels", "encoding,distance", "-o", two)
ok(r.rc == 0 and r.err == f"posenc: wrote {two} (comparison of 1 scheme)\n",
   "compare --panels encoding,distance: one scheme", r.err)
w, h = png_size(two)
ok(w > 2 * h, "a single row of two panels is as tall as its panels, not the default", (w, h))
pdf = os.path.join(TMP, "two.pdf")
r = run(EXE, "compare", "-s", "sinusoidal", "--panels", "encoding,distance", "--style", "paper",
        "-q", "-o", pdf)
t = pdf_text(pdf)
ok(r.rc == 0 and "encoding" in t and "L2 distance" in t and "correlation" not in t
   and "decay" not in t, "only the panels asked for are drawn", t)
words = pdf_words(pdf)
enc = [x for x in words if x[0] == "encoding"]
dist = [x for x in words if x[0] == "distance"]
ok(enc and dist and enc[0][1] < dist[0][1] and abs(enc[0][2] - dist[0][2]) < 1,
   "the table left, its distance matrix right, one row", (enc, dist))
# --style paper's page is two columns wide (504 pt) for a figure of panels.
with open(pdf, "rb") as f:
    box = re.search(rb"/MediaBox \[ ?0 0 ([\d.]+) ([\d.]+) ?\]", f.read())
ok(box and abs(float(box.group(1)) - 504) < 0.5, "--style paper: 504 pt wide", box)

stack = os.path.join(TMP, "stack.pdf")
r = run(EXE, "compare", "-s", "sinusoidal", "--panels", "distance,encoding", "--layout", "2x1",
        "-q", "-o", stack)
words = pdf_words(stack)
enc = [x for x in words if x[0] == "encoding"]
dist = [x for x in words if x[0] == "distance"]
ok(r.rc == 0 and enc and dist and dist[0][2] < enc[0][2] - 50,
   "--layout 2x1 with --panels distance,encoding: the distance above the encoding", (enc, dist))
r = run(EXE, "compare", "--panels", "decay", "-q", "-o", os.path.join(TMP, "decay.pdf"))
t = pdf_text(os.path.join(TMP, "decay.pdf"))
ok(r.rc == 0 and "decay" in t and "encoding" not in t, "--panels decay: the curves alone", t)
for name, args, needle in [
        ("unknown panel", ["--panels", "encoding,heat"], "'heat' is not a panel"),
        ("a panel twice", ["--panels", "distance,distance"], "'distance' is given twice"),
        ("too small a layout", ["--layout", "1x3"], "room for 3 panels, not the 4"),
        ("an empty row", ["--panels", "encoding,distance", "--layout", "2x2"], "leaves a row empty"),
        ("a malformed layout", ["--layout", "2by2"], "not ROWSxCOLUMNS"),
        ("panels for the summary", ["--panels", "encoding", "-o", "s.csv"], "the summary (.csv)"),
        ("only decay, arranged", ["--panels", "decay", "--layout", "1x1"], "--panels chose none")]:
    error_case(EXE, "compare " + name, ["compare"] + args, 2, needle, cwd=workdir())

# ---- titles say the base ------------------------------------------------------------------

for cmd in (["encode"], ["distance"], ["scatter"], ["profile", "--at", "0"]):
    out = os.path.join(TMP, cmd[0] + ".pdf")
    r = run(EXE, *cmd, "-s", "sinusoidal", "-n", "16", "-d", "8", "-q", "-o", out)
    ok(r.rc == 0 and "sinusoidal base=10000" in pdf_text(out),
       f"{cmd[0]}: the default sinusoidal's title says base=10000", pdf_text(out)[:300])
out = os.path.join(TMP, "rope.pdf")
r = run(EXE, "encode", "-s", "rope:layout=half", "--view", "angle", "-n", "16", "-d", "8", "-q",
        "-o", out)
ok(r.rc == 0 and "rope base=10000 layout=half" in pdf_text(out), "rope: the base too",
   pdf_text(out)[:300])
r = run(EXE, "encode", "-s", "sinusoidal", "-n", "2", "-d", "2", "-o", "-")
ok(r.text.startswith("position,0,1\n"), "CSV headers keep the label (no base added)")
r = run(EXE, "decay", "-s", "sinusoidal:label=mine", "-n", "16", "-d", "8", "-q", "-o",
        os.path.join(TMP, "mine.pdf"))
t = pdf_text(os.path.join(TMP, "mine.pdf"))
ok(r.rc == 0 and "mine" in t and "base=" not in t, "a label= is kept as given", t[:300])

# ---- scatter --axes / --triangles ---------------------------------------------------------

if np is not None:
    n, d = 12, 8
    r = run(EXE, "scatter", "-s", "sinusoidal", "-n", str(n), "-d", str(d), "--triangles",
            "-o", "-")
    rows = list(csv.reader(io.StringIO(r.text)))
    ok(r.rc == 0 and rows[0] == ["pair", "position_i", "position_j", "l2", "corr"],
       "scatter --triangles: CSV header", rows[:1])
    pe = sinusoidal(n, d)
    want_pairs = [(i, j) for i in range(n) for j in range(i + 1, n)] + \
                 [(i, j) for i in range(n) for j in range(i)]
    got_pairs = [(int(float(x[1])), int(float(x[2]))) for x in rows[1:]]
    ok(got_pairs == want_pairs, "every pair i != j, the upper triangle first, row-major",
       got_pairs[:5])
    dist = np.sqrt(((pe[:, None, :] - pe[None, :, :]) ** 2).sum(-1))
    corr = np.corrcoef(pe)
    err = max(max(abs(float(x[3]) - dist[i, j]), abs(float(x[4]) - corr[i, j]))
              for x, (i, j) in zip(rows[1:], got_pairs))
    ok(err < 1e-12, "both triangles equal numpy's distance and corrcoef", err)

sc = os.path.join(TMP, "axes.pdf")
r = run(EXE, "scatter", "-n", "32", "-d", "16", "--axes", "corr,distance", "-q", "-o", sc)
words = pdf_words(sc)
pear = [x for x in words if x[0] == "Pearson"]
l2 = [x for x in words if x[0] == "L2"]
# Across: a horizontal word (wider than tall); up: a rotated one.
ok(r.rc == 0 and pear and l2 and pear[0][3] - pear[0][1] > pear[0][4] - pear[0][2]
   and l2[0][4] - l2[0][2] > l2[0][3] - l2[0][1],
   "--axes corr,distance: the correlation across, the distance up", (pear, l2))
tri = os.path.join(TMP, "tri.pdf")
r = run(EXE, "scatter", "-n", "32", "-d", "16", "--axes", "corr,distance", "--triangles", "-o",
        tri)
t = pdf_text(tri)
ok(r.rc == 0 and "upper triangle (i < j)" in t and "lower triangle (i > j)" in t
   and "(992 pairs, both triangles)" in r.err, "--triangles: two panels", r.err + t[:300])
for name, args, needle in [
        ("bad axes", ["--axes", "corr,corr"], "--axes takes distance,corr"),
        ("axes of a table", ["--axes", "corr,distance", "-o", "s.csv"], "arranges a figure"),
        ("triangles past max-points", ["-n", "100", "--triangles", "--max-points", "100"],
         "4950 pairs exceed --max-points 100")]:
    error_case(EXE, "scatter " + name, ["scatter"] + args, 2, needle, cwd=workdir())

# ---- the binary counter: digits in the cells, a two-colour key ------------------------------

binpdf = os.path.join(TMP, "binary.pdf")
r = run(EXE, "encode", "-s", "binary", "-n", "16", "-d", "4", "-o", binpdf)
words = [x[0] for x in pdf_words(binpdf)]
# Bit j of position p (the counter), 32 ones and 32 zeros in the cells; besides them the ticks
# (position 0..15 in fives, dimensions 0..3, the key's 0 and 1).
ones = sum(((p >> j) & 1) for p in range(16) for j in range(4))
ok(r.rc == 0 and words.count("1") >= ones and words.count("0") >= 64 - ones,
   "encode -s binary -n 16 -d 4: a digit in every cell", words)
ok("bit" in words and not any(w in words for w in ("0.2", "0.4", "0.5", "0.6", "0.8")),
   "binary: a key of two colours (0 and 1), no 0..1 colour bar", words)
r = run(EXE, "encode", "-s", "binary", "-n", "16", "-d", "4", "-o", os.path.join(TMP, "b.png"))
ok(r.rc == 0, "binary as PNG", r.err)
# Too many cells for digits: the key stays two colours, no digits.
bigpdf = os.path.join(TMP, "binary-big.pdf")
r = run(EXE, "encode", "-s", "binary", "-n", "256", "-d", "8", "-q", "-o", bigpdf)
words = [x[0] for x in pdf_words(bigpdf)]
ok(r.rc == 0 and words.count("1") < 5, "binary n=256: no digits where they have no room", words)

# ---- teaching views: chosen dimensions, a pair turning, the angle mod 2 pi ------------------

if np is not None:
    r = run(EXE, "encode", "-s", "sinusoidal", "-n", "20", "-d", "16", "--dims", "0,5,15",
            "-o", "-")
    rows = list(csv.reader(io.StringIO(r.text)))
    got = np.array([[float(x) for x in row[1:]] for row in rows[1:]])
    ok(r.rc == 0 and rows[0] == ["position", "0", "5", "15"]
       and np.abs(got - sinusoidal(20, 16)[:, [0, 5, 15]]).max() < 1e-15,
       "encode --dims 0,5,15: those columns, headed by their numbers", rows[:2])
    # RoPE's angle m theta_i mod 2 pi, theta_i = base^(-2i/d), each pair's two columns alike.
    n, d = 300, 8
    r = run(EXE, "encode", "-s", "rope", "-n", str(n), "-d", str(d), "--view", "phase", "-o", "-")
    rows = list(csv.reader(io.StringIO(r.text)))
    got = np.array([[float(x) for x in row[1:]] for row in rows[1:]])
    theta = 10000.0 ** (-np.arange(0, d, 2) / d)
    want = np.repeat(np.mod(np.arange(n)[:, None] * theta[None, :], 2 * np.pi), 2, axis=1)
    err = np.abs(got - want)
    err = np.minimum(err, 2 * np.pi - err)  # 2 pi - 1e-16 and 0 are the same angle
    ok(r.rc == 0 and got.min() >= 0 and got.max() < 2 * np.pi and err.max() < 1e-12,
       "encode --view phase: m theta mod 2 pi, in [0, 2 pi)", err.max())

# Far positions: the phase of the angle view's double x is x mod 2 pi taken exactly (fractions,
# 2 pi to 40 digits), not mod the double nearest 2 pi, whose 2.4e-16 shortfall, once per turn,
# grows to 4e-8 at 10^9. The angle view is the product m theta_i rounded once, theta_i =
# 1 / 10000^(2i/d) (HF's inv_freq); column 0 (theta 1) is the position itself.
two_pi = Fraction("6.283185307179586476925286766559005768394")
for start in (10**6, 2**24, 123456789, 10**9):
    d = 8
    r = run(EXE, "encode", "-s", "rope", "--start", str(start), "-n", "2", "-d", str(d),
            "--view", "phase", "-o", "-")
    rows = list(csv.reader(io.StringIO(r.text)))
    worst = 0.0
    for k, row in enumerate(rows[1:]):
        for j, cell in enumerate(row[1:]):
            x = float(start + k) * (1.0 / 10000.0 ** ((2 * (j // 2)) / d))
            want = float(Fraction(x) % two_pi)
            worst = max(worst, abs(float(cell) - want))
    ok(r.rc == 0 and len(rows) == 3 and worst <= 4.5e-16,
       f"encode --view phase at position {start}: the angle mod 2 pi to the last bit", worst)

pdf = os.path.join(TMP, "pair.pdf")
r = run(EXE, "encode", "-s", "sinusoidal", "-n", "16", "-d", "64", "--pair", "2,3", "-o", pdf)
t = " ".join(pdf_text(pdf).split())
w1 = 1 / 10000 ** (2 / 64)
ok(r.rc == 0 and f"turns the pair by {w1:.6g} rad" in t and "PE(t+k) = T_k PE(t)" in t,
   "encode --pair 2,3: each step turns by w_1 = 10000^(-2/64), said", t)
words = [x[0] for x in pdf_words(pdf)]
ok(all(str(p) in words for p in range(16)), "--pair: every position numbered", words)
pdf = os.path.join(TMP, "pair-learned.pdf")
r = run(EXE, "encode", "-s", "learned", "-n", "16", "-d", "8", "--pair", "0,1", "-o", pdf)
ok(r.rc == 0 and "do not turn by one angle" in " ".join(pdf_text(pdf).split()),
   "--pair of an untrained learned table: no rotation, said")
for name, args, needle in [
        ("a pair as CSV", ["--pair", "0,1", "-o", "x.csv"], "'--dims 0,1 -o FILE.csv'"),
        ("a dimension past d", ["-d", "8", "--dims", "8"], "dimension 8 is past the width d=8"),
        ("nine dimensions", ["--dims", "0,1,2,3,4,5,6,7,8"], "1 to 8 dimensions"),
        ("three for a pair", ["--pair", "0,1,2"], "not two dimensions"),
        ("dims and pair", ["--dims", "0", "--pair", "0,1"], "choose one"),
        ("phase with dims", ["-s", "rope", "--view", "phase", "--dims", "0"], "every dimension"),
        ("phase of sinusoidal", ["--view", "phase"], "views"),
        ("phase as raw", ["-s", "rope", "--view", "phase", "--raw"], "'--raw'")]:
    error_case(EXE, "encode " + name, ["encode"] + args, 2, needle, cwd=workdir())
r = run(EXE, "encode", "-s", "rope", "-n", "5000", "-d", "64", "--view", "phase", "-q", "-o",
        os.path.join(TMP, "phase.png"))
ok(r.rc == 0, "--view phase of more positions than pixels (each pixel one cell)", r.err)

# Curves that differ only in their base: the title names it once, no ellipsis at 252 pt.
pdf = os.path.join(TMP, "decay-bases.pdf")
r = run(EXE, "decay", "-s", "rope", "--base", "10000,500000,1000000", "-d", "128", "--style",
        "paper", "-q", "-o", pdf)
t = " ".join(pdf_text(pdf).split())
ok(r.rc == 0 and "rope base=10000, 500000, 1000000 (d=128)" in t and "\u2026" not in t,
   "decay of three bases: 'rope base=10000, 500000, 1000000' in the title", t[:200])
# A pair figure without a size is about square, so the circle is round and large.
sq = os.path.join(TMP, "pair-square.png")
r = run(EXE, "encode", "-n", "16", "-d", "32", "--pair", "0,1", "--width", "252pt", "-q", "-o", sq)
w, h = png_size(sq)
ok(r.rc == 0 and 1.1 < h / w < 1.3, "--pair: a figure a little taller than wide", (w, h))

# ---- row labels of six models in a 7 in column ---------------------------------------------
# Names without spaces as long as their row ended in an ellipsis, and a label filling its
# row ran into the next ("deepseek...phi-3-mini..."): each is whole (broken after a hyphen),
# and the rows' labels stand apart.
six = os.path.join(TMP, "six.pdf")
r = run(EXE, "compare", "-q", "-s", "model:llama-3.1-8b", "-s", "model:phi-3-mini-128k", "-s",
        "model:deepseek-v3", "-s", "model:qwen2.5-7b-yarn", "-s", "model:gemma-3-27b", "-n",
        "256", "--style", "paper", "-o", six)
left = sorted((w for w in pdf_words(six) if w[3] < 30), key=lambda w: w[2]) if r.rc == 0 else []
rows = []
for w in left:  # words whose vertical extents overlap are one row's label
    if rows and w[2] <= rows[-1]["hi"]:
        rows[-1]["words"].append(w)
        rows[-1]["hi"] = max(rows[-1]["hi"], w[4])
    else:
        rows.append({"lo": w[2], "hi": w[4], "words": [w]})
names = ["".join(x[0] for x in sorted(g["words"], key=lambda x: (x[1], -x[4]))) for g in rows]
gaps = [b["lo"] - a["hi"] for a, b in zip(rows, rows[1:])]
ok(names == ["llama-3.1-8b", "phi-3-mini-128k", "deepseek-v3", "qwen2.5-7b-yarn",
             "gemma-3-27blocal", "gemma-3-27bglobal"] and gaps and min(gaps) > 3,
   "compare --style paper: six row labels whole and apart", (names, gaps))

# ---- x tick labels clear of the colorbars ---------------------------------------------------
# At 1048576 positions the last tick label "1000000" reaches past the axes' right edge by
# more than the gap to a colorbar: the correlation column's bar, as tall as the grid, hid its
# last digits. No colormap pixel (a saturated one: the labels are black) lies in its box.
tpdf = os.path.join(TMP, "ticks.pdf")
r = run(EXE, "compare", "-q", "-s", "rope", "-s", "rope:base=500000", "-n", "1048576", "-d",
        "16", "--panels", "distance,correlation", "-o", tpdf)
subprocess.run(["pdftoppm", "-r", "144", tpdf, os.path.join(TMP, "ticks")], check=False)
ppm = os.path.join(TMP, "ticks-1.ppm")
covered = []
if r.rc == 0 and os.path.exists(ppm):
    raw = open(ppm, "rb").read()
    parts = raw.split(maxsplit=4)  # P6, width, height, 255, pixels
    pw, ph, px = int(parts[1]), int(parts[2]), parts[4]
    for w in pdf_words(tpdf):
        if w[0] != "1000000":
            continue
        n = 0
        for y in range(int(w[2] * 2) + 1, int(w[4] * 2)):
            for x in range(int(w[1] * 2) + 1, int(w[3] * 2)):
                c = px[3 * (y * pw + x):3 * (y * pw + x) + 3]
                n += max(c) - min(c) > 80
        if n:
            covered.append((w, n))
ok(r.rc == 0 and os.path.exists(ppm) and not covered,
   "compare at 1048576 positions: no colorbar over a tick label", covered)

# The scatter's pairs are a sample past a few hundred positions: said, with the whole count
# n (n - 1) / 2 (4096 positions: 8386560 pairs); all 2016 pairs of 64 positions, no note.
spdf = os.path.join(TMP, "scatter.pdf")
r = run(EXE, "compare", "-q", "-s", "rope", "-n", "4096", "-d", "16", "-o", spdf)
m = re.search(r"Scatter: (\d+) of the (\d+) pairs", " ".join(pdf_text(spdf).split())) \
    if r.rc == 0 else None
ok(m and int(m.group(2)) == 4096 * 4095 // 2 and 0 < int(m.group(1)) < int(m.group(2)),
   "compare: the scatter's sample is said", m and m.group(0))
r = run(EXE, "compare", "-q", "-s", "rope", "-n", "64", "-d", "16", "-o", spdf)
ok(r.rc == 0 and "Scatter:" not in pdf_text(spdf), "compare: every pair drawn, nothing said")

done()
