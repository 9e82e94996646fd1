#!/usr/bin/env python3
"""Figure sizes in physical units, dpi, font sizes in points, styles, colour
scales (--scale, one given limit, discrete and NaN colorbars), ALiBi head
numbering and the labels of sampled grids.

Expected values are worked out here from the definitions: 1 in = 72 pt =
2.54 cm; a PNG of W pt at D dpi is W * D / 72 pixels; pHYs counts pixels
per metre (D / 0.0254); ALiBi slopes are 2^(-8 (h + 1) / H) for H a power
of two (Press et al. 2022, section 3). Texts are read from the engine's box
log (POSENC_TEXT_BOXES, see test_layout_cli.py).

Usage: test_figure_options_cli.py POSENC
"""
import math
import os
import re
import struct
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tap import ok, done, workdir, error_case  # noqa: E402

EXE = os.path.abspath(sys.argv[1])
tmp = workdir()
LOG = os.path.join(tmp, "boxes.txt")


def draw(*args, out="f.png", env=None):
    """Run posenc with the box log; (rc, stderr, path, [(size_pt, text)])."""
    if os.path.exists(LOG):
        os.remove(LOG)
    path = os.path.join(tmp, out)
    e = dict(os.environ, POSENC_TEXT_BOXES=LOG, **(env or {}))
    p = subprocess.run([EXE, *args, "-q", "-o", path], capture_output=True, env=e, timeout=300)
    texts = []
    if os.path.exists(LOG):
        for line in open(LOG, encoding="utf-8"):
            head, _, text = line.rstrip("\n").partition("\t")
            f = head.split()
            if f[0] == "text":
                texts.append((float(f[5]), text))
    return p.returncode, p.stderr.decode(), path, texts


def png_info(path):
    """(width, height, pixels per metre from pHYs or None)."""
    data = open(path, "rb").read()
    w, h = struct.unpack(">II", data[16:24])
    i = data.find(b"pHYs")
    ppm = struct.unpack(">I", data[i + 4:i + 8])[0] if i > 0 else None
    return w, h, ppm


def pdf_box(path):
    m = re.search(rb"/MediaBox \[ *0 0 ([0-9.]+) ([0-9.]+) *\]", open(path, "rb").read())
    return (float(m.group(1)), float(m.group(2))) if m else None


def near(a, b, tol=0.01):
    return a is not None and abs(a - b) <= tol


# ---- sizes ----
rc, err, path, _ = draw("encode", "-n", "32", "-d", "16", "--width", "3.5in", "--dpi", "300")
w, h, ppm = png_info(path) if rc == 0 else (0, 0, 0)
# 3.5 in at 300 dpi; the height follows the default 4:3 aspect; pHYs 300 / 0.0254.
ok((w, h) == (1050, 788) and ppm == round(300 / 0.0254), "--width 3.5in --dpi 300: 1050 x 788 px, "
   "pHYs 11811 px/m", f"{w} x {h}, {ppm}; {err}")
rc, err, path, _ = draw("encode", "-n", "32", "-d", "16", "--size", "9cmx6cm", out="f.pdf")
box = pdf_box(path) if rc == 0 else None
ok(box and near(box[0], 9 / 2.54 * 72) and near(box[1], 6 / 2.54 * 72),
   "--size 9cmx6cm: a 255.12 x 170.08 pt PDF page", f"{box} {err}")
rc, err, path, _ = draw("encode", "-n", "32", "-d", "16", "--width", "640", out="f.pdf")
box = pdf_box(path) if rc == 0 else None
ok(box and near(box[0], 460.8) and near(box[1], 345.6),
   "--width 640 (pixels at 100 dpi) is a 6.4 in page in PDF too", f"{box} {err}")
rc, err, path, _ = draw("encode", "-n", "32", "-d", "16", out="f.pdf")
box = pdf_box(path) if rc == 0 else None
ok(box and near(box[0], 460.8) and near(box[1], 345.6),
   "default PDF page: matplotlib's 6.4 x 4.8 in", f"{box}")
rc, err, path, _ = draw("encode", "-n", "32", "-d", "16", "--width", "80mm", "--height", "2in",
                        out="f.pdf")
box = pdf_box(path) if rc == 0 else None
ok(box and near(box[0], 80 / 25.4 * 72) and near(box[1], 144), "--width 80mm --height 2in",
   f"{box}")
rc, err, path, _ = draw("encode", "-n", "32", "-d", "16")
ok(rc == 0 and png_info(path)[:2] == (640, 480), "default PNG stays 640 x 480", err)
rc, err, path, texts = draw("encode", "-n", "32", "-d", "16", "--style", "paper")
w, h, ppm = png_info(path) if rc == 0 else (0, 0, 0)
# 252 pt at 300 dpi = 1050 px; labels 9 pt.
ok((w, ppm) == (1050, round(300 / 0.0254)) and (9.0, "dimension") in
   [(round(s, 3), t) for s, t in texts], "--style paper: 3.5 in at 300 dpi, 9 pt labels",
   f"{w} {ppm} {texts[:4]}")

# ---- text keeps its size in points ----
sizes = {}
for name, extra in (("default", []), ("2560px", ["--width", "2560px"]),
                    ("252pt", ["--width", "252pt"])):
    rc, err, path, texts = draw("encode", "-n", "32", "-d", "16", *extra)
    sizes[name] = sorted({round(s, 3) for s, t in texts if t in ("dimension", "position")})
ok(sizes["default"] == sizes["2560px"] == sizes["252pt"] == [10.0],
   "axis labels are 10 pt at 640 px, 2560 px and 252 pt", str(sizes))
rc, err, path, texts = draw("encode", "-n", "32", "-d", "16", "--font-size", "12", out="f.pdf")
got = {t: round(s, 3) for s, t in texts}
ok(got.get("dimension") == 12.0 and got.get("0") == 10.8,
   "--font-size 12: 12 pt labels, 10.8 pt ticks", str(got))

for args, needle in (
        (["--width", "3furlongs"], "'--width': '3furlongs' is not a length"),
        (["--width", "0.1in"], "'--width': 0.1in is outside 16..32767 points"),
        (["--size", "640"], "'--size': '640' is not a size"),
        (["--dpi", "5"], "'--dpi': 5 is outside 10..2400"),
        (["--font-size", "0"], "'--font-size': 0 is outside 2..200"),
        (["--style", "poster"], "'--style': 'poster' is not paper, slides or default"),
        (["--width", "100in", "--dpi", "600"], "outside 16..32767 pixels"),
):
    error_case(EXE, " ".join(args), ["encode", "-n", "8", "-d", "4", *args, "-o", "x.png"], 2,
               needle, cwd=workdir())

# ---- colour scales ----
learned = ["compare", "-s", "sinusoidal", "-s", "learned:seed=1,std=0.02", "-n", "64", "-d",
           "32"]
rc, err, path, texts = draw(*learned)
notes = [t for s, t in texts if "colour scale" in t.lower()]
# distances of a std-0.02 table (~0.02 sqrt(2 d) = 0.16) are far under 1/4 of sinusoidal's.
ok(rc == 0 and any("Own scale per panel" in t and "L2 distance" in t for t in notes)
   and any("relative to k = 0" in t for s, t in texts),
   "compare learned vs sinusoidal: own distance scales, relative decay, said in the figure",
   str(notes))
rc, err, path, texts = draw(*learned, "--scale", "shared")
ok(rc == 0 and any("Colour scales shared by all schemes" in t for s, t in texts)
   and not any("relative to k = 0" in t for s, t in texts), "--scale shared: one scale, said so")
rc, err, path, texts = draw("compare", "-n", "64", "-d", "32", "--scale", "panel")
ok(rc == 0 and any("Each panel has its own colour scale" in t for s, t in texts),
   "--scale panel: said so")
# Narrower than 6 in a scheme takes two rows of panels, each heatmap with its own colorbar:
# --scale shared must still give the learned table's distance bar the sinusoidal range. The
# sinusoidal table's largest L2 distance (n 64, d 32) is worked out here; a std-0.02 table's
# is about 0.02 sqrt(2 d) = 0.16. The distance bars are the rightmost texts above the decay
# panel (the lowest third), one per scheme row.
d_half = 16
sin_max = max(math.sqrt(sum(2 - 2 * math.cos(k / 10000 ** (2 * i / 32)) for i in range(d_half)))
              for k in range(64))
rc, err, path, _ = draw(*learned, "--width", "252pt", "--scale", "shared")
boxes = []
for line in open(LOG, encoding="utf-8"):
    head, _, text = line.rstrip("\n").partition("\t")
    f = head.split()
    if f[0] == "canvas":
        canvas_w, canvas_h = float(f[1]), float(f[2])
    elif f[0] == "text":
        boxes.append((float(f[1]), float(f[2]), text))
bars = {}
for x0, y0, text in boxes:
    if x0 > 0.85 * canvas_w and y0 < 0.6 * canvas_h and re.fullmatch("[0-9.]+", text):
        bars.setdefault(round(y0 / 100), []).append(float(text))
tops = [max(v) for k, v in sorted(bars.items())]
ok(rc == 0 and len(tops) == 2 and tops[0] == tops[1] and tops[1] >= 0.5 * sin_max,
   "--scale shared at 252 pt (rows of two): both distance bars reach the sinusoidal range "
   "%.3f" % sin_max, str(bars))
# The decay panel under those rows keeps a readable scale at 252 pt: at least three y tick
# labels between its title and its x label (it was a band of about 30 px with a single "0").
rc, err, path, _ = draw("compare", "-s", "sinusoidal", "-s", "sinusoidal:base=100", "-n", "256",
                        "-d", "64", "--width", "252pt")
boxes = []
for line in open(LOG, encoding="utf-8"):
    head, _, text = line.rstrip("\n").partition("\t")
    f = head.split()
    if f[0] == "text":
        boxes.append((float(f[1]), float(f[2]), float(f[3]), float(f[4]), text))
title = [b for b in boxes if b[4].startswith("decay:")]
xlab = [b for b in boxes if b[4] == "offset k"]
rows = set()
if title and xlab:
    for x0, y0, x1, y1, text in boxes:
        if y0 > title[0][3] and y1 < xlab[0][1] and re.fullmatch("[-\u2212]?[0-9.]+", text):
            rows.add(round((y0 + y1) / 2))
# one row of x tick labels, the others y tick labels
ok(rc == 0 and len(rows) - 1 >= 3, "compare at 252 pt: the decay panel below rows of two "
   "shows at least 3 y ticks", str(sorted(rows)))
rc, err, path, _ = draw("report", "-s", "sinusoidal", "-s", "learned:seed=1,std=0.02", "-n",
                        "32", "-d", "16", "--scale", "panel", out="r.pdf")
txt = subprocess.run(["pdftotext", path, "-"], capture_output=True).stdout.decode() \
    if rc == 0 else ""
ok(rc == 0 and "Each scheme on its own colour scale." in txt and "Each panel has its own axes."
   in txt, "report --scale panel: said on the pages", err)
rc, err, path, _ = draw("report", "-s", "sinusoidal", "-s", "learned:seed=1,std=0.02", "-n",
                        "32", "-d", "16", out="r.pdf")
txt = subprocess.run(["pdftotext", path, "-"], capture_output=True).stdout.decode() \
    if rc == 0 else ""
ok(rc == 0 and "relative to k = 0" in txt and "Each scheme on its own colour scale (one range"
   in txt, "report learned vs sinusoidal (auto): own scales and relative decay, said so", err)
# A file table is named by its file name in figures, not its whole path.
npy = os.path.join(tmp, "deep", "er", "gpt2_like_table.npy")
os.makedirs(os.path.dirname(npy))
subprocess.run([EXE, "encode", "-s", "learned:seed=3", "-n", "32", "-d", "16", "-q", "-o", npy])
rc, err, path, texts = draw("compare", "-s", "sinusoidal", "-s", f"file:path={npy}", "-n", "32",
                            "-d", "16")
t = [x for s, x in texts]
ok(rc == 0 and "file gpt2_like_table.npy" in t and not any(npy in x for x in t),
   "compare: a file scheme's row label is its file name", str([x for x in t if "file" in x]))
error_case(EXE, "--scale row", ["compare", "--scale", "row", "-o", "x.png"], 2,
           "'--scale': 'row' is not auto, shared or panel", cwd=workdir())

# One limit of a diverging scale: mirrored, so the bar runs -0.5..0.5 (ticks symmetric).
rc, err, path, texts = draw("encode", "-n", "32", "-d", "16", "--vmax", "0.5")
neg = sorted(float(t.replace("\u2212", "")) for s, t in texts if t.startswith("\u2212"))
pos = sorted(float(t) for s, t in texts if re.fullmatch(r"0\.\d+", t) and float(t) > 0)
ok(rc == 0 and neg and neg == pos and max(pos) <= 0.5, "--vmax 0.5 alone: the scale is "
   "-0.5..0.5, white at 0", f"neg {neg} pos {pos}")

# T5 bucket ids: whole-number ticks; ALiBi: a labelled swatch for the masked keys.
rc, err, path, texts = draw("bias", "-s", "t5", "-n", "64")
nums = [t for s, t in texts if re.fullmatch(r"\d+(\.\d+)?", t)]
ok(rc == 0 and nums and all("." not in t for t in nums), "t5: integer ticks only", str(nums))
SUPER = str.maketrans("0123456789-.", "\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077"
                      "\u2078\u2079\u207b\u00b7")
for heads in (8, 16):
    rc, err, path, texts = draw("bias", "-s", f"alibi:heads={heads}", "-n", "16")
    titles = [t for s, t in texts if t.startswith("head\u00a0")]
    want = []
    for h in range(heads):
        k = 8 * (h + 1) / heads
        want.append(f"head\u00a0{h}: m\u00a0=\u00a02" + f"{-k:g}".translate(SUPER))
    ok(rc == 0 and titles == want and "masked" in [t for s, t in texts],
       f"alibi {heads} heads: heads 0..{heads - 1} (as in CSV/NPY), slopes 2^-k, "
       f"'masked' swatch", f"{titles[:3]} want {want[:3]}")

# ---- sampled grids say so ----
rc, err, path, texts = draw("corr", "-n", "1000000", "-d", "64")
t = [x for s, x in texts]
ok(rc == 0 and "Pearson correlation (sampled)" in t and any(
    x.startswith("Sampled: each cell is the mean of") for x in t),
   "corr -n 1e6: colorbar '(sampled)' and a note", str(t[-3:]))
# one pair a cell (wide learned rows, l1: no BLAS): said in words that fit one pair
rc, err, path, texts = draw("distance", "-s", "learned", "--metric", "l1", "-n", "1200", "-d", "4096")
t = [x for s, x in texts]
ok(rc == 0 and "L1 distance (sampled)" in t and any(
    x.startswith("Sampled: each cell is one of its pairs") for x in t),
   "learned l1 d=4096: one pair a cell, said so (not 'the mean of 1 of its pairs')", str(t[-3:]))
rc, err, path, texts = draw("corr", "-n", "2000", "-d", "64")
t = [x for s, x in texts]
ok(rc == 0 and not any("ampled" in x for x in t) and "Pearson correlation (mean per cell)" in t,
   "corr -n 2000: exact cell means, no sampling note", str(t[-3:]))
# Decay over thousands of offsets on a log axis, in compare's panel as in decay (the first
# dozens of offsets would be a pixel wide on a linear one); a short one stays linear.
rc, err, path, texts = draw("compare", "-s", "rope", "-n", "5000", "-d", "32", "--panels", "decay")
t = [x for s, x in texts]
ok(rc == 0 and "offset k (log axis, k = 0 off it)" in t, "compare -n 5000: decay on a log axis",
   str(t[-6:]))
rc, err, path, texts = draw("compare", "-s", "rope", "-n", "500", "-d", "32", "--panels", "decay")
t = [x for s, x in texts]
ok(rc == 0 and "offset k" in t, "compare -n 500: decay on a linear axis", str(t[-6:]))
done()
