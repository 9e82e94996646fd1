#!/usr/bin/env python3
"""Figures of decay, freqs, bias, profile and scatter, run as a user runs them:
PNG (signature, IHDR size = --width/--height), SVG (well-formed XML), PDF (framing
and its title), the default <command>.png, and no file left behind by a failure."""
import os
import re
import struct
import sys
import xml.dom.minidom

sys.path.insert(0, os.path.dirname(__file__))
from tap import done, error_case, ok, run, workdir  # noqa: E402

EXE = os.path.abspath(sys.argv[1])

PNG_SIG = b"\x89PNG\r\n\x1a\n"

# One case per figure type: (name, arguments, words the PDF title must hold).
CASES = [
    ("decay", ["decay"], ["sinusoidal", "d=128"]),
    ("decay of several schemes", ["decay", "-s", "rope", "-s", "sinusoidal", "-d", "64",
                                  "--max-offset", "100"], ["rope", "sinusoidal", "d=64"]),
    ("decay --bound", ["decay", "-s", "rope", "--bound", "--max-offset", "300"],
     ["rope", "d=128"]),
    ("freqs of rope with its scalings", ["freqs"], ["rope", "d=128"]),
    ("freqs of yarn", ["freqs", "-s", "rope:scaling=yarn,factor=8,original=2048", "-d", "64"],
     ["yarn", "d=64"]),
    ("freqs of sinusoidal", ["freqs", "-s", "sinusoidal", "-d", "32"], ["sinusoidal", "d=32"]),
    ("freqs of mrope by axis", ["freqs", "-s", "mrope:t=24,h=20,w=20,interleaved=1"],
     ["mrope", "interleaved=1", "d=128"]),
    ("freqs of mrope beside rope", ["freqs", "-s", "mrope", "-s", "rope:base=1000000"],
     ["wavelength per pair", "d=128"]),
    ("bias alibi", ["bias"], ["alibi", "0..15"]),
    ("bias alibi 5 heads", ["bias", "-s", "alibi:heads=5", "-n", "8"], ["alibi", "0..7"]),
    ("bias t5", ["bias", "-s", "t5", "-n", "40"], ["t5", "0..39"]),
    ("profile", ["profile"], ["sinusoidal", "d=64", "0..127", "from position 0"]),
    ("profile of three positions", ["profile", "-s", "rope", "-n", "300", "-d", "32",
                                    "--at", "0,100,5000", "--metric", "cosine"],
     ["rope", "d=32", "0..299"]),
    ("scatter", ["scatter"], ["sinusoidal", "d=64", "0..127"]),
    ("scatter over --max-points", ["scatter", "-n", "3000", "-d", "16", "--max-points",
                                   "30000"], ["every", "position", "0..2999"]),
]


def png_size(data):
    """(width, height) from the IHDR chunk, or None if this is no PNG."""
    if len(data) < 33 or data[:8] != PNG_SIG or data[12:16] != b"IHDR":
        return None
    return struct.unpack(">II", data[16:24])


def pdf_title(data):
    """The /Title of a PDF's info dictionary, as text (cairo writes UTF-16 hex or a literal)."""
    m = re.search(rb"/Title\s*<([0-9A-Fa-f]+)>", data)
    if m:
        raw = bytes.fromhex(m.group(1).decode())
        return raw[2:].decode("utf-16-be") if raw[:2] == b"\xfe\xff" else raw.decode("latin-1")
    m = re.search(rb"/Title\s*\(((?:[^()\\]|\\.)*)\)", data)
    return m.group(1).decode("latin-1") if m else None


def svg_ok(path):
    try:
        doc = xml.dom.minidom.parse(path)
    except Exception as e:  # noqa: BLE001 - any parse failure is the finding
        return False, str(e)
    root = doc.documentElement
    return root.tagName == "svg", root.getAttribute("width") + " x " + root.getAttribute("height")


for name, args, words in CASES:
    tmp = workdir()
    png = os.path.join(tmp, "f.png")
    r = run(EXE, *args, "--width", "500", "--height", "420", "-o", png)
    data = open(png, "rb").read() if os.path.exists(png) else b""
    ok(r.rc == 0 and png_size(data) == (500, 420),
       f"{name}: PNG, IHDR 500 x 420 as --width/--height asked",
       f"rc={r.rc} size={png_size(data)} err={r.err!r}")
    ok("posenc: wrote " + png in r.err, f"{name}: says what it wrote", r.err)

    svg = os.path.join(tmp, "f.svg")
    r = run(EXE, *args, "--width", "600pt", "--height", "300pt", "-o", svg)
    good, why = svg_ok(svg) if r.rc == 0 and os.path.exists(svg) else (False, r.err)
    ok(good and why.startswith("600"), f"{name}: SVG parses as XML, 600 wide", why)

    pdf = os.path.join(tmp, "f.pdf")
    r = run(EXE, *args, "-o", pdf)
    data = open(pdf, "rb").read() if os.path.exists(pdf) else b""
    ok(r.rc == 0 and data.startswith(b"%PDF-") and data.rstrip().endswith(b"%%EOF"),
       f"{name}: PDF starts with %PDF- and ends with %%EOF", r.err)
    title = pdf_title(data) or ""
    ok(all(w in title for w in words), f"{name}: the title names {', '.join(words)}",
       repr(title))

# --title replaces the title; -q writes quietly.
tmp = workdir()
pdf = os.path.join(tmp, "t.pdf")
r = run(EXE, "freqs", "--title", "Wavelengths of RoPE", "-q", "-o", pdf)
ok(r.rc == 0 and pdf_title(open(pdf, "rb").read()) == "Wavelengths of RoPE"
   and "posenc:" not in r.err,
   "freqs --title sets the title; -q says nothing", r.err)

# Without -o: <command>.png in the current folder, and a "posenc: wrote" line.
for cmd in ("decay", "freqs", "bias", "profile", "scatter"):
    tmp = workdir()
    r = run(EXE, cmd, cwd=tmp)
    path = os.path.join(tmp, cmd + ".png")
    data = open(path, "rb").read() if os.path.exists(path) else b""
    size = png_size(data)
    ok(r.rc == 0 and size is not None and os.listdir(tmp) == [cmd + ".png"],
       f"{cmd} without -o writes {cmd}.png here", f"rc={r.rc} {os.listdir(tmp)} {r.err!r}")
    ok(f"posenc: wrote {cmd}.png" in r.err, f"{cmd} without -o says 'posenc: wrote {cmd}.png'",
       r.err)
    if cmd in ("decay", "profile", "scatter"):
        ok(size == (640, 480), f"{cmd}.png has the default size 640 x 480", size)

# The PNG is what libpng (through numpy-free parsing) reads: a complete IEND at the end.
tmp = workdir()
path = os.path.join(tmp, "b.png")
r = run(EXE, "bias", "-s", "alibi:heads=64", "-n", "12", "-o", path)
data = open(path, "rb").read() if os.path.exists(path) else b""
ok(r.rc == 0 and data.endswith(b"IEND\xaeB`\x82"), "64 ALiBi heads: one complete PNG", r.err)

# 10^5 positions: block means, not a 10^10-cell tensor (the memory budget would refuse it).
for spec in ("alibi", "t5"):
    tmp = workdir()
    path = os.path.join(tmp, "big.png")
    r = run(EXE, "bias", "-s", spec, "-n", "100000", "--max-memory", "200M", "-o", path)
    data = open(path, "rb").read() if os.path.exists(path) else b""
    ok(r.rc == 0 and png_size(data) is not None and "block means" in r.err,
       f"bias {spec} -n 100000 draws block means within 200 MB", r.err)

# Failures leave no file: usage errors before any work, and a figure that cannot be drawn.
for name, args, rc, needle in [
    ("decay of alibi", ["decay", "-s", "alibi"], 2, "attention bias"),
    ("decay --raw", ["decay", "--raw"], 2, "--raw"),
    ("freqs --raw", ["freqs", "--raw"], 2, "--raw"),
    ("bias --raw", ["bias", "--raw"], 2, "--raw"),
    ("profile --raw", ["profile", "--raw"], 2, "--raw"),
    ("scatter --raw", ["scatter", "--raw"], 2, "--raw"),
    ("bias --cmap unknown", ["bias", "--cmap", "nope"], 2, "--cmap"),
    ("bias --vmin above --vmax", ["bias", "--vmin", "1", "--vmax", "0"], 2, "vmin"),
    ("profile --cmap unknown", ["profile", "--cmap", "nope"], 2, "--cmap"),
    ("freqs of learned", ["freqs", "-s", "learned"], 2, "no frequencies"),
    ("scatter of one position", ["scatter", "-n", "1"], 2, "2 positions"),
    ("decay too small to draw", ["decay", "--width", "16", "--height", "16"], 1, "figure"),
    ("bias too small to draw", ["bias", "--width", "16", "--height", "16"], 1, "figure"),
]:
    for ext in (".png", ".pdf"):
        empty = workdir()
        error_case(EXE, f"{name} ({ext})", args + ["-o", "out" + ext], rc, needle, cwd=empty)
    empty = workdir()
    error_case(EXE, f"{name} (default output)", args, rc, needle, cwd=empty)

# A failed figure leaves the previous file untouched.
tmp = workdir()
path = os.path.join(tmp, "keep.png")
with open(path, "wb") as f:
    f.write(b"previous")
r = run(EXE, "scatter", "--width", "16", "--height", "16", "-o", path)
ok(r.rc == 1 and open(path, "rb").read() == b"previous" and os.listdir(tmp) == ["keep.png"],
   "a failed figure keeps the previous file and leaves no temporary", r.err)

done()
