#!/usr/bin/env python3
"""Every figure type at the sizes papers and posters use: no text overlaps
other text, none leaves the canvas, none is smaller than 6 pt.

The figure engine logs the box of every text it draws when
POSENC_TEXT_BOXES=FILE is set ("canvas W H UNIT" per page, then
"text X0 Y0 X1 Y1 SIZE<TAB>STRING" in device units, SIZE in points).
The boxes run from the top of the capitals to the bottom of the
descenders; two boxes overlapping by more than a hair (0.3 pt each way)
is a collision a reader would see.

Usage: test_layout_cli.py POSENC
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tap import ok, done, skip, workdir  # noqa: E402
from textboxes import (axes_boxes, cut_texts, pages, problems, row_label_boxes,  # noqa: E402
                       row_labels_left)
from textboxes import draw as draw_boxes  # noqa: E402
import subprocess  # noqa: E402

EXE = os.path.abspath(sys.argv[1])

# One of each figure type, small enough to draw fast.
FIGURES = [
    ("encode", ["encode", "-n", "64", "-d", "32"]),
    ("distance", ["distance", "-n", "64", "-d", "32"]),
    ("corr", ["corr", "-n", "64", "-d", "32"]),
    ("scatter", ["scatter", "-n", "64", "-d", "32"]),
    ("profile", ["profile", "-n", "64", "-d", "32", "--at", "0,16,32"]),
    # A legend of twelve entries right of the axes is taller than the axes at 252 pt.
    ("profile twelve", ["profile", "-s", "rope", "-n", "64", "-d", "64", "--at",
                        "0,8,16,24,32,40,48,56,63,100,200,1000"]),
    ("decay", ["decay", "-s", "rope", "--base", "10000,500000", "-n", "128", "-d", "32",
               "--bound"]),
    ("freqs", ["freqs", "-s", "rope:scaling=yarn,factor=4,original=2048",
               "-d", "64"]),
    ("bias alibi 8", ["bias", "-s", "alibi:heads=8", "-n", "32"]),
    ("bias alibi 16", ["bias", "-s", "alibi:heads=16", "-n", "32"]),
    ("bias alibi 12", ["bias", "-s", "alibi:heads=12", "-n", "64"]),
    ("bias alibi 32", ["bias", "-s", "alibi:heads=32", "-n", "256"]),
    ("bias t5", ["bias", "-s", "t5", "-n", "64"]),
    ("precision", ["precision", "-s", "rope", "--precision", "f32,bf16,f16", "-n", "4096",
                   "-d", "64"]),
    # Legend entries wider than a 252 pt column's axes ('... overflows at 65520') wrap.
    ("precision long legend", ["precision", "-s", "rope", "--precision", "f32,bf16,f16",
                               "-n", "1e5", "-d", "128"]),
    ("compare", ["compare", "-n", "64", "-d", "32"]),
    ("compare learned", ["compare", "-s", "sinusoidal", "-s", "learned:seed=1,std=0.02",
                         "-n", "64", "-d", "32"]),
    # The figures of the posts (doc/posts.md).
    ("compare panels", ["compare", "--panels", "encoding,distance", "-n", "64", "-d", "32"]),
    ("scatter triangles", ["scatter", "-n", "32", "-d", "16", "--axes", "corr,distance",
                           "--triangles"]),
    ("encode pair", ["encode", "-n", "16", "-d", "32", "--pair", "0,1"]),
    ("encode dims", ["encode", "-n", "64", "-d", "32", "--dims", "0,4,8,12"]),
    ("encode phase", ["encode", "-s", "rope", "-n", "64", "-d", "32", "--view", "phase"]),
    ("encode binary", ["encode", "-s", "binary", "-n", "16", "-d", "4"]),
    ("bias shaw", ["bias", "-s", "shaw:k=2", "-n", "12"]),
]
SIZES = [("252pt", ["--width", "252pt"]), ("504pt", ["--width", "504pt"]),
         ("default", []), ("2560px", ["--width", "2560px"])]


def draw(args, out, log):
    return draw_boxes(EXE, args, out, log)


tmp = workdir()
log = os.path.join(tmp, "boxes.txt")
for name, args in FIGURES:
    for size, size_args in SIZES:
        for ext in ("png", "pdf"):
            rc, err = draw(args + size_args, os.path.join(tmp, "f." + ext), log)
            found = problems(log) if rc == 0 and os.path.exists(log) else [err]
            boxes = sum(len(p[3]) for p in pages(log)) if rc == 0 else 0
            ok(rc == 0 and boxes > 0 and not found,
               f"{name} at {size} ({ext}): {boxes} texts, none overlapping, clipped or "
               f"below 6 pt", "\n".join(found[:12]))

# A size given in full: the legend's text shrinks to fit rather than leave the canvas.
rc, err = draw(["profile", "-s", "rope", "-n", "64", "-d", "64", "--at",
                "0,8,16,24,32,40,48,56,63,100,200,1000", "--size", "252ptx180pt"],
               os.path.join(tmp, "f.pdf"), log)
found = problems(log) if rc == 0 else [err]
texts = [b[5] for p in pages(log) for b in p[3]] if rc == 0 else []
ok(rc == 0 and not found and "from 1000" in texts,
   "profile twelve at 252x180 pt: the whole legend on the canvas", "\n".join(found[:12]))

# And a legend wider than the axes at a size given in full: wrapped, on the canvas.
rc, err = draw(["precision", "-s", "rope", "--precision", "f32,bf16,f16", "-n", "1e5", "-d",
                "128", "--size", "252ptx180pt"], os.path.join(tmp, "f.pdf"), log)
found = problems(log) if rc == 0 else [err]
texts = [b[5] for p in pages(log) for b in p[3]] if rc == 0 else []
ok(rc == 0 and not found and any(t.endswith("65520)") for t in texts),
   "precision's long legend at 252x180 pt: wrapped, whole, on the canvas", "\n".join(found[:12]))

# The report's pages, at its own (A4 landscape) size, and in paper style.
for extra in ([], ["--style", "paper"]):
    rc, err = draw(["report", "-n", "64", "-d", "32", *extra], os.path.join(tmp, "r.pdf"), log)
    found = problems(log) if rc == 0 else [err]
    ok(rc == 0 and not found, f"report {' '.join(extra) or 'default'}: every page clean",
       "\n".join(found[:12]))

# Reproducible PDFs: under SOURCE_DATE_EPOCH two runs a second apart give the same bytes,
# dated 2023-11-14 22:13:20 UTC (1700000000 s after the epoch), not today.
import time  # noqa: E402
outs = []
for k in range(2):
    env = dict(os.environ, SOURCE_DATE_EPOCH="1700000000")
    path = os.path.join(tmp, "same.pdf")
    for args in (["compare", "-n", "32", "-d", "16"], ["report", "-n", "32", "-d", "16"]):
        subprocess.run([EXE, *args, "-q", "-o", path], env=env, check=False,
                       capture_output=True)
        outs.append(open(path, "rb").read())
    if k == 0:
        time.sleep(1.1)
ok(outs[0] == outs[2] and b"/CreationDate (" in outs[0] and b"20231114221320" in outs[0],
   "compare PDF: byte-identical under SOURCE_DATE_EPOCH, CreationDate from it")
ok(outs[1] == outs[3] and b"20231114221320" in outs[1],
   "report PDF: byte-identical under SOURCE_DATE_EPOCH, CreationDate from it")

# Row labels of one model's two layer groups: each whole (a name with no space breaks after
# a hyphen, not into an ellipsis) and its lines apart from the other row's, so
# "gemma-3-27b-it local" and "gemma-3-27b-it global" never read as one label.
GEMMA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures", "hf",
                     "gemma-3-27b-it.json")
WANT_ROWS = ["gemma-3-27b-it local", "gemma-3-27b-it global"]


def row_label_groups(boxes):
    """The row labels (textboxes.row_label_boxes: rotated, left of every y label), top
    first: [(y0, y1, text)], lines joined left to right."""
    out = []
    for lines in row_label_boxes(boxes):
        text = ""
        for b in lines:
            text += b[5] if not text or text.endswith("-") else " " + b[5]
        out.append((min(b[1] for b in lines), max(b[3] for b in lines), text))
    return out


# Each row's label in its own row's height: the taller first row (under the column titles)
# keeps 'sinusoidal base=10000' whole beside the shorter second row.
CASES = [("gemma-3's two layer groups", ["-s", "hf:" + GEMMA], WANT_ROWS),
         ("base 10000 and 10", ["-s", "sinusoidal", "-s", "sinusoidal:base=10"],
          ["sinusoidal base=10000", "sinusoidal base=10"])]
for what, specs, want in CASES:
    for size, size_args in SIZES + [("slides", ["--style", "slides"]),
                                    ("paper", ["--style", "paper"])]:
        rc, err = draw(["compare", *specs, *size_args], os.path.join(tmp, "g.pdf"), log)
        got = row_label_groups(pages(log)[0][3]) if rc == 0 else []
        gap = got[1][0] - got[0][1] if len(got) == 2 else -1
        found = problems(log) if rc == 0 else []
        ok(rc == 0 and [g[2] for g in got] == want and gap >= 4.0 and not found,
           f"compare of {what} at {size}: row labels whole, {gap:.1f} pt apart",
           f"{err}{got}" + "\n".join(found[:12]))

# Twelve ALiBi heads in a 252 pt column: three columns of four rows, not two of six (a
# 350 x 794 px figure, more than twice as tall as wide); numbers on the outer panels only;
# each title the slope of its head, whole. Slopes as in Press et al.'s get_slopes for a
# count that is no power of two: 2^-1 .. 2^-8 from the 8 heads below 12, then every other
# slope of 16 heads, 2^-0.5, 2^-1.5, 2^-2.5, 2^-3.5.
SUPER = str.maketrans("0123456789-.", "\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077"
                      "\u2078\u2079\u207b\u00b7")
exps = [-(k + 1) for k in range(8)] + [-(2 * k + 1) / 2 for k in range(4)]
rc, err = draw(["bias", "-s", "alibi:heads=12", "-n", "64", "--width", "252pt"],
               os.path.join(tmp, "b.png"), log)
w, h, unit, boxes = pages(log)[0] if rc == 0 else (1, 1e9, 1, [])
titles = [b[5] for b in boxes if abs(b[4] - 9.9) < 1e-6]
want = ["m=2" + f"{e:g}".translate(SUPER) for e in exps]
found = problems(log) if rc == 0 else [err]
fifties = sum(b[5] == "50" for b in boxes)
ok(rc == 0 and h <= 1.25 * w and titles == want and not found and fifties == 4 + 3,
   f"12 ALiBi heads at 252 pt: {w:g} x {h:g} px, slopes as titles, tick numbers on 4 rows "
   f"and 3 columns only ({fifties})", f"{err}{titles}" + "\n".join(found[:12]))

# Every head's title and the axis names whole (no ellipsis) at the usual sizes, with long
# tick numbers too (-n 1e5).
for heads, n in ((12, "64"), (16, "1e5"), (32, "256")):
    for size, size_args in SIZES + [("slides", ["--style", "slides"])]:
        rc, err = draw(["bias", "-s", f"alibi:heads={heads}", "-n", n, *size_args],
                       os.path.join(tmp, "b.pdf"), log)
        texts = [b[5] for p in pages(log) for b in p[3]] if rc == 0 else []
        cut = [t for t in texts if "\u2026" in t]
        ok(rc == 0 and texts and not cut, f"{heads} ALiBi heads, -n {n} at {size}: no text cut",
           f"{err}{cut[:6]}")

# Three schemes at 10^5 positions, a label beside each scheme's two rows at 252 pt: the y
# tick numbers of the final axes ("50000" beside "0") are measured into the margin, so the
# y label stays clear of the row label.
for size, size_args in SIZES + [("paper", ["--style", "paper"])]:
    rc, err = draw(["compare", "-s", "sinusoidal", "-s", "rope", "-s", "sinusoidal:base=10",
                    "-n", "1e5", *size_args], os.path.join(tmp, "g.pdf"), log)
    found = problems(log) if rc == 0 else [err]
    ok(rc == 0 and not found, f"compare of three schemes at 1e5, {size}: no text over another",
       "\n".join(found[:12]))



# A colorbar's label whole in a 252 pt column: "L2 distance (sampled)" on two lines, or
# without "(sampled)" (the note under the figure says so), never "L2 distance (sam…".
for what, args, words in (
        ("distance of a learned table, sampled", ["distance", "-s", "learned", "-n", "100000"],
         ["L2", "distance"]),
        ("correlation, sampled", ["corr", "-n", "100000"], ["Pearson", "correlation"]),
        ("cosine distance, cell means", ["distance", "--metric", "cosine", "-n", "100000"],
         ["cosine", "distance"])):
    for ext in ("png", "pdf"):
        rc, err = draw(args + ["--width", "252pt"], os.path.join(tmp, "h." + ext), log)
        cut = cut_texts(log) if rc == 0 else [err]
        found = problems(log) if rc == 0 else []
        texts = " ".join(b[5] for p in pages(log) for b in p[3]) if rc == 0 else ""
        ok(rc == 0 and not cut and not found and all(w in texts.split() for w in words),
           f"{what} at 252 pt ({ext}): the colorbar's label whole", f"{cut}{found[:6]}")

# Five and seven schemes, long model names among them, at 252 and 504 pt: every text whole
# (a spec of one long word breaks after '=', a row label may take a smaller size), none
# over another. Each row label, its lines joined, is the scheme's name.
SEVEN = ["rope base=10000", "rope base=10", "sinusoidal base=10000", "sinusoidal base=10",
         "qwen2.5-7b-yarn", "phi-3-mini-128k", "learned (untrained init)"]
SPECS = ["-s", "rope", "-s", "rope:base=10", "-s", "sinusoidal", "-s", "sinusoidal:base=10",
         "-s", "model:qwen2.5-7b-yarn", "-s", "model:phi-3-mini-128k", "-s", "learned"]


for count, n in ((5, "256"), (7, "256"), (7, "1e5")):
    for size, size_args in SIZES[:2]:
        for ext in ("png", "pdf"):
            rc, err = draw(["compare", *SPECS[:2 * count], "-n", n, *size_args],
                           os.path.join(tmp, "c." + ext), log)
            cut = cut_texts(log) if rc == 0 else [err]
            found = problems(log) if rc == 0 else []
            got = row_labels_left(pages(log)[0][3]) if rc == 0 else []
            want = [t.replace(" ", "") for t in SEVEN[:count]]
            ok(rc == 0 and not cut and not found and got == want,
               f"compare of {count} schemes, -n {n}, at {size} ({ext}): every text whole, "
               f"row labels the schemes' names", f"{cut}{found[:6]}{got}")

# compare's decay legend in a 252 pt column: below the curves (a height left to the width
# grows for it), not over them; the PDF's layout kept it inside the axes.
for ext in ("png", "pdf"):
    rc, err = draw(["compare", *SPECS, "-n", "256", "--width", "252pt"],
                   os.path.join(tmp, "c." + ext), log)
    axes, unit = axes_boxes(log) if rc == 0 else ([], 1)
    legend = [b for p in pages(log) for b in p[3] if "(d=" in b[5]] if rc == 0 else []
    inside = [b[5] for b in legend for a in axes
              if min(a[2], b[2]) > max(a[0], b[0]) and min(a[3], b[3]) > max(a[1], b[1])]
    ok(rc == 0 and len(legend) >= 7 and not inside,
       f"compare of seven schemes at 252 pt ({ext}): the decay legend off the axes",
       f"{err if rc else ''}{inside}")

# Two scatters side by side in a 252 pt column (scatter --triangles): the height follows
# the panels, each axes at least 45 pt tall and half as tall as wide (it took the default
# figure's aspect: 350 x 155 px, axes 35 px tall).
for spec in ([], ["-s", "model:qwen2.5-7b-yarn"]):
    for ext in ("png", "pdf"):
        rc, err = draw(["scatter", "--triangles", *spec, "--width", "252pt"],
                       os.path.join(tmp, "s." + ext), log)
        axes, unit = axes_boxes(log) if rc == 0 else ([], 1)
        sizes = [((a[2] - a[0]) / unit, (a[3] - a[1]) / unit) for a in axes]
        found = problems(log) if rc == 0 else [err]
        ok(rc == 0 and len(sizes) == 2 and all(h >= 45 and h >= 0.5 * w for w, h in sizes)
           and not found, f"scatter --triangles {' '.join(spec)} at 252 pt ({ext}): panels "
           f"{', '.join(f'{w:.0f} x {h:.0f}' for w, h in sizes)} pt", "\n".join(found[:6]))

# A title listing four schemes at 252 pt: a third line, then a smaller size, not cut.
rc, err = draw(["decay", "-s", "rope", "-s", "rope:base=500000", "-s", "model:qwen2.5-7b-yarn",
                "-s", "model:phi-3-mini-128k", "--width", "252pt"], os.path.join(tmp, "d.png"),
               log)
cut = cut_texts(log) if rc == 0 else [err]
ok(rc == 0 and not cut and not problems(log), "decay of four schemes at 252 pt: the title whole",
   str(cut))

# usage's long x label in a 252 pt column: two lines within the canvas, not cut and off it.
GEN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools",
                   "synthetic-checkpoint.py")
ck = os.path.join(tmp, "ck")
made = subprocess.run([sys.executable, GEN, ck], capture_output=True)
if made.returncode == 0:
    for ext in ("png", "pdf"):
        rc, err = draw(["usage", "-s", "hf:" + os.path.join(ck, "config.json"), "--weights",
                        os.path.join(ck, "model.safetensors"), "--width", "252pt"],
                       os.path.join(tmp, "u." + ext), log)
        cut = cut_texts(log) if rc == 0 else [err]
        found = problems(log) if rc == 0 else []
        ok(rc == 0 and not cut and not found,
           f"usage at 252 pt ({ext}): the x label whole, on the canvas", f"{cut}{found[:6]}")
else:
    skip("usage at 252 pt: the x label whole, on the canvas", "no numpy for the checkpoint")

# The check itself: boxes that overlap are found (a hand-made log).
with open(log, "w") as f:
    f.write("canvas 100 100 1\ntext 10 10 50 20 9\tleft\ntext 40 12 80 22 9\tright\n"
            "text 90 90 120 99 9\tout\ntext 0 50 10 55 4\tsmall\n")
found = problems(log)
ok(any("overlaps" in p for p in found) and any("leaves" in p for p in found)
   and any("4.00 pt" in p for p in found), "the checker sees overlaps, clipping, tiny text",
   "\n".join(found))
done()
