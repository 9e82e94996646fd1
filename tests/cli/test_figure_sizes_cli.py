#!/usr/bin/env python3
"""Figures of the model presets at the sizes people use (a 252 pt column, a 504 pt page,
the default, --style paper and slides), read as a reviewer would, from the engine's text
box log (textboxes.py):

- compare's row labels, the schemes' names, are never smaller than the tick labels beside
  them, whole, with no word broken across lines where the name fits otherwise;
- every axis has at least two number labels, at the places their values give (a
  96-dimension encoding 45 pt wide had "0" alone under it);
- a --layout too wide for the canvas is refused in one line that names the layout that
  fits, and that layout draws;
- nothing overlaps, leaves the canvas or is under 6 pt.

Usage: test_figure_sizes_cli.py POSENC
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tap import ok, done, workdir  # noqa: E402
from textboxes import (axes_boxes, cut_texts, draw, number, pages,  # noqa: E402
                       pages_with_axes, problems, row_label_boxes, tick_labels)

EXE = os.path.abspath(sys.argv[1])
tmp = workdir()
log = os.path.join(tmp, "boxes.txt")


def tick_pt(boxes):
    """The tick labels' size: that of the plain numbers drawn."""
    return max((b[4] for b in boxes if number(b[5]) is not None), default=0)


def axis_findings(path):
    """Axes with fewer than two number labels on a side, or labels out of order."""
    found = []
    axes, unit = axes_boxes(path)
    boxes = [b for p in pages(path) for b in p[3]]
    for a in axes:
        xs, ys = tick_labels(boxes, a, unit)
        for side, ticks in (("x", xs), ("y", ys)):
            values = [v for _, v in ticks]
            if len(ticks) < 2:
                found.append(f"axes at {a[0]:.0f},{a[1]:.0f}: {side} ticks {values}")
            elif not (values == sorted(values) or values == sorted(values, reverse=True)):
                found.append(f"axes at {a[0]:.0f},{a[1]:.0f}: {side} ticks out of order {values}")
    return found


# (a) Row labels at least the tick labels' size, whole, each word on one line unless even
# at the ticks' size it is longer than its row (then broken after a hyphen). Paper style
# had "rope base=10000 scaling=yarn factor=4 original=2048" at 7.2 pt beside 8.1 pt ticks,
# and "gemma-3-" over "27b global" at 9.9 pt.
ROWS = [
    (["-s", "rope:scaling=yarn,factor=4,original=2048", "-s", "rope"],
     ["rope base=10000 scaling=yarn factor=4 original=2048", "rope base=10000"]),
    (["-s", "model:gemma-3-27b", "-s", "model:llama-3.1-8b"],
     ["gemma-3-27b local", "gemma-3-27b global", "llama-3.1-8b"]),
    (["-s", "model:qwen2.5-vl-7b", "-s", "model:phi-3-mini-128k"],
     ["qwen2.5-vl-7b", "phi-3-mini-128k"]),
]
for specs, names in ROWS:
    for size, ext in ((["--style", "paper"], "png"), (["--style", "paper"], "pdf"),
                      (["--width", "252pt"], "png"), (["--style", "slides"], "png")):
        out = os.path.join(tmp, "r." + ext)
        rc, err = draw(EXE, ["compare", *specs, "-n", "128", *size], out, log)
        boxes = pages(log)[0][3] if rc == 0 else []
        groups = row_label_boxes(boxes)
        got = ["".join(b[5] + ("" if b[5].endswith("-") else " ") for b in g).strip()
               for g in groups]
        tick = tick_pt(boxes)
        small = [f"{b[5]!r} {b[4]:.2f} pt" for g in groups for b in g if b[4] < tick - 1e-3]
        # a word broken across lines only at the smallest size
        small += [f"{b[5]!r} broken at {b[4]:.2f} pt" for g in groups for b in g
                  if b[5].endswith("-") and b[4] > tick + 1e-3]
        found = (problems(log) + cut_texts(log)) if rc == 0 else [err]
        ok(rc == 0 and got == names and not small and not found,
           f"compare {' '.join(specs)} {' '.join(size)} ({ext}): row labels whole, each word "
           f"on one line, at least the ticks' {tick:.2f} pt", f"{got}{small}{found[:6]}")

# (b) Two number labels or more on every axis, where their values put them: phi-3's
# encoding (d=96, cells -0.5 .. 95.5) in a 252 pt column.
out = os.path.join(tmp, "phi.png")
rc, err = draw(EXE, ["compare", "-s", "model:phi-3-mini-128k", "-s", "rope", "-n", "256",
                     "--width", "252pt"], out, log)
found = axis_findings(log) if rc == 0 else [err]
ok(rc == 0 and not found and not problems(log),
   "compare of phi-3 at 252 pt: two tick labels or more on every axis", "\n".join(found))
if rc == 0:
    axes, unit = axes_boxes(log)
    boxes = pages(log)[0][3]
    x0, _, x1, _ = axes[0]
    xs, _ = tick_labels(boxes, axes[0], unit)
    # a label's centre at its cell's centre: x0 + (v + 0.5) / 96 of the width
    off = [abs(c - (x0 + (v + 0.5) / 96 * (x1 - x0))) for c, v in xs]
    ok(len(xs) >= 2 and max(off) <= 1.5 and xs[-1][1] >= 48,
       f"phi-3's encoding: dimension labels {[v for _, v in xs]} at their cells "
       f"(off by {max(off, default=0):.2f} px at most)", str(xs))

# (c) Four panels abreast do not fit 3.5 in: refused in one line naming the layout that
# does, which draws; at 504 pt they fit.
rc, err = draw(EXE, ["compare", "--layout", "1x4", "--width", "252pt"],
               os.path.join(tmp, "l.png"), log)
ok(rc == 1 and err.count("\n") == 1 and err.startswith("posenc: error: ")
   and "--layout 2x2" in err and "--width" in err,
   "compare --layout 1x4 at 252 pt: one line naming --layout 2x2", err)
# Where rows of two do not fit either (150 pt), they are not offered.
rc, err = draw(EXE, ["compare", "--layout", "1x4", "--width", "150pt"],
               os.path.join(tmp, "l.png"), log)
rc2, err2 = draw(EXE, ["compare", "--layout", "2x2", "--width", "150pt"],
                 os.path.join(tmp, "l.png"), log)
ok(rc == 1 and rc2 == 1 and err.count("\n") == 1 and "--layout" not in err and "--width" in err,
   "compare --layout 1x4 at 150 pt: no layout offered where 2x2 does not fit either", err + err2)
for layout, width in (("2x2", "252pt"), ("1x4", "504pt")):
    for ext in ("png", "pdf"):
        rc, err = draw(EXE, ["compare", "--layout", layout, "--width", width],
                       os.path.join(tmp, "l." + ext), log)
        found = (problems(log) + axis_findings(log)) if rc == 0 else [err]
        ok(rc == 0 and not found, f"compare --layout {layout} at {width} ({ext}): drawn, "
           "every axis with two tick labels", "\n".join(found[:6]))

# The report's scaled / unscaled ratio of a constant scaling (Gemma 3's global layers, linear
# x8: 0.125 for every pair) on an axis that reaches the unscaled ratio 1, not 0.120 .. 0.130.
rc, err = draw(EXE, ["report", "-s", "model:gemma-3-27b", "-n", "128"],
               os.path.join(tmp, "rep.pdf"), log)
ticks = []
for w, h, unit, boxes, axes in (pages_with_axes(log) if rc == 0 else []):
    if any(b[5] == "scaled / unscaled" for b in boxes) and len(axes) == 2:
        ticks = [v for _, v in tick_labels(boxes, max(axes), unit)[1]]
ok(rc == 0 and len(ticks) >= 2 and min(ticks) <= 0.2 and max(ticks) >= 1.0,
   f"report of gemma-3: the scaled / unscaled axis labelled {min(ticks, default=0)} .. "
   f"{max(ticks, default=0)}, to 1",
   err + str(ticks))

# A panel title under a row of panels stands nearer its own axes than the tick labels above
# it: freqs' stack of Gemma 3's layer groups put "gemma-3-27b local" as near the first
# panel's ticks as its own panel, where it read as that panel's x label.
for size in ([], ["--width", "252pt"], ["--style", "slides"]):
    rc, err = draw(EXE, ["freqs", "-s", "model:gemma-3-27b", *size], os.path.join(tmp, "f.png"),
                   log)
    gaps = []
    for w, h, unit, boxes, axes in (pages_with_axes(log) if rc == 0 else []):
        named = [b for b in boxes if b[5] in ("gemma-3-27b local", "gemma-3-27b global")]
        # the titles, not the legend's entries (smaller)
        for t in (b for b in named if b[4] == max(c[4] for c in named)):
            below = min((a[1] for a in axes if a[1] >= t[3]), default=None)
            above = max((b[3] for b in boxes if number(b[5]) is not None and b[3] <= t[1]),
                        default=None)
            if below is not None and above is not None:
                gaps.append((round((below - t[3]) / unit, 1), round((t[1] - above) / unit, 1)))
    ok(rc == 0 and len(gaps) == 2 and all(down < 0.75 * up for down, up in gaps),
       f"freqs of gemma-3 {' '.join(size)}: layer titles nearer their axes than the ticks above "
       f"(pt below, above: {gaps})", err)

# A reference line keeps a label: "critical pair (dim 68)" is longer than phi-3's wavelength
# axes are tall at 252 pt and in paper style, and the dashed line stood unlabelled; its words
# before the parenthesis fit.
for spec in ("model:phi-3-mini-128k", "model:llama-3.1-8b"):
    for size in (["--width", "252pt"], ["--style", "paper"], []):
        rc, err = draw(EXE, ["freqs", "-s", spec, *size], os.path.join(tmp, "q.png"), log)
        texts = [b[5] for p in pages(log) for b in p[3]] if rc == 0 else []
        ok(rc == 0 and any(t.startswith("critical pair") for t in texts) and not problems(log),
           f"freqs {spec} {' '.join(size)}: the critical pair's line labelled",
           err + str([t for t in texts if "critical" in t]))

# Every figure type of a hybrid (gemma-3), an M-RoPE (qwen2.5-vl) and a scaled (llama-3.1)
# preset at the sizes people use.
FIGURES = [["encode"], ["distance"], ["corr"], ["decay"], ["scatter"], ["freqs"],
           ["compare", "-s", "rope"]]
SIZES = [["--width", "252pt"], ["--width", "504pt"], [], ["--style", "slides"]]
for spec in ("model:gemma-3-27b", "model:qwen2.5-vl-7b", "model:llama-3.1-8b"):
    bad = []
    for fig in FIGURES:
        n = [] if fig[0] == "freqs" else ["-n", "256"]
        for size in SIZES:
            rc, err = draw(EXE, [fig[0], "-s", spec, *fig[1:], *n, *size],
                           os.path.join(tmp, "m.png"), log)
            found = (problems(log) + axis_findings(log)) if rc == 0 else [err.strip()]
            bad += [f"{fig[0]} {' '.join(size)}: {f}" for f in found]
    ok(not bad, f"{spec}: every figure at 252 pt, 504 pt, the default and slides clean, "
       "two tick labels on every axis", "\n".join(bad[:12]))
done()
