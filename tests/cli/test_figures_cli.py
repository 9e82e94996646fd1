#!/usr/bin/env python3
"""Figures of encode, distance, corr and compare: well-formed PNG/SVG/PDF of the
asked size, default file names, and the compare summary against closed forms."""
import csv
import io
import math
import os
import struct
import sys
import xml.dom.minidom

sys.path.insert(0, os.path.dirname(__file__))
from tap import done, error_case, ok, run, workdir  # noqa: E402

EXE = os.path.abspath(sys.argv[1])
wd = workdir()


def png_size(path):
    data = open(path, "rb").read(32)
    if data[:8] != b"\x89PNG\r\n\x1a\n" or data[12:16] != b"IHDR":
        return None
    return struct.unpack(">II", data[16:24])


def well_formed(path):
    data = open(path, "rb").read()
    if path.endswith(".png"):
        return png_size(path) is not None and data.endswith(b"IEND\xaeB`\x82")
    if path.endswith(".svg"):
        try:
            xml.dom.minidom.parseString(data)
            return True
        except Exception:
            return False
    return data.startswith(b"%PDF-") and data.rstrip().endswith(b"%%EOF")


jobs = [
    ("encode", ["encode", "-n", "100", "-d", "32"]),
    ("encode rope cos", ["encode", "-s", "rope:layout=half", "--view", "cos", "-n", "64", "-d", "16"]),
    ("encode 10^6 positions", ["encode", "-s", "rope", "-n", "1000000", "-d", "64"]),
    ("encode learned", ["encode", "-s", "learned", "-n", "20000", "-d", "8"]),
    ("distance", ["distance", "-n", "100", "-d", "32"]),
    ("distance cosine", ["distance", "--metric", "cosine", "-n", "300", "-d", "32"]),
    ("distance 10^6 positions", ["distance", "-n", "1000000", "-d", "512"]),
    ("corr", ["corr", "-s", "sinusoidal:base=10", "-n", "100", "-d", "32"]),
    ("corr learned", ["corr", "-s", "learned", "-n", "50", "-d", "16"]),
    ("compare", ["compare", "-n", "64", "-d", "32"]),
    ("compare three", ["compare", "-s", "rope", "--base", "10000,500000", "-s", "binary", "-n", "32", "-d", "16"]),
]
for name, args in jobs:
    for ext in ("png", "svg", "pdf"):
        out = f"f.{ext}"
        r = run(EXE, *args, "-o", out, cwd=wd)
        path = os.path.join(wd, out)
        ok(r.rc == 0 and os.path.exists(path) and well_formed(path),
           f"{name} writes a well-formed {ext}", r.err)
        if os.path.exists(path):
            os.remove(path)

r = run(EXE, "distance", "-n", "50", "-d", "8", "--width", "900", "--height", "700", "-o", "s.png", cwd=wd)
ok(r.rc == 0 and png_size(os.path.join(wd, "s.png")) == (900, 700), "--width/--height set the PNG size",
   (r.err, png_size(os.path.join(wd, "s.png"))))
r = run(EXE, "encode", "-n", "50", "-d", "8", "--title", "My title", "--cmap", "magma", "-o", "t.svg", cwd=wd)
ok(r.rc == 0 and well_formed(os.path.join(wd, "t.svg")), "--title and --cmap", r.err)

for cmd in ("encode", "distance", "corr", "compare"):
    d = workdir()
    r = run(EXE, cmd, "-n", "40", "-d", "8", cwd=d)
    ok(r.rc == 0 and os.listdir(d) == [f"{cmd}.png"] and f"posenc: wrote {cmd}.png" in r.err,
       f"{cmd} without -o writes {cmd}.png and says so", (os.listdir(d), r.err))

# The compare summary against closed forms (doc/conventions.md [6b], [7a]).
r = run(EXE, "compare", "-n", "256", "-d", "128", "-o", "-")
rows = list(csv.reader(io.StringIO(r.text)))
head, body = rows[0], {row[0]: dict(zip(rows[0][1:], map(float, row[1:]))) for row in rows[1:]}
ok(r.rc == 0 and list(body) == ["sinusoidal base=10000", "sinusoidal base=10"] and head[0] == "scheme",
   "compare -o - summarises base 10000 and base 10", r.text[:300])
s = body.get("sinusoidal base=10000", {})
theta = [10000 ** (-2 * i / 128) for i in range(64)]
near = math.sqrt(128 - 2 * sum(math.cos(t) for t in theta))
ok(abs(s.get("decay_1", 0) - 62.093684) < 5e-7 and abs(s.get("decay_10", 0) - 42.820023) < 5e-7
   and abs(s.get("decay_100", 0) - 30.543455) < 5e-7 and s.get("decay_0") == 64,
   "compare decay at 0, 1, 10, 100 [6b]", s)
ok(abs(s.get("wavelength_min", 0) - 2 * math.pi) < 1e-12
   and abs(s.get("wavelength_max", 0) - 2 * math.pi / theta[63]) < 1e-9,
   "compare wavelengths 2 pi .. 2 pi 10000^(126/128) [7a]", s)
ok(abs(s.get("neighbour_distance", 0) - near) < 1e-12 and abs(s.get("distance_min", 0) - near) < 1e-12,
   "compare neighbour distance sqrt(d - 2 sum cos theta_i)", (s.get("neighbour_distance"), near))
ok(-1 <= s.get("corr_min", 9) < s.get("corr_max", -9) <= 1, "compare correlation range inside [-1, 1]", s)

empty = workdir()
for name, args, rc, needle in [
    ("unknown colormap", ["distance", "--cmap", "jet", "-o", "x.png"], 2, "unknown colormap 'jet'"),
    ("vmin above vmax", ["encode", "--vmin", "1", "--vmax", "0", "-o", "x.png"], 2, "vmin must be below vmax"),
    ("compare to npy", ["compare", "-o", "x.npy"], 2, "not 'x.npy'"),
    ("compare --raw", ["compare", "--raw", "-o", "x.png"], 2, "--raw"),
    ("compare of alibi", ["compare", "-s", "alibi", "-o", "x.png"], 2, "attention bias"),
    ("compare of nine schemes", ["compare", "--base", "2,3,4,5,6,7,8,9,10", "-o", "x.png"], 2, "at most 8"),
    ("--base for learned only", ["compare", "-s", "learned", "--base", "10", "-o", "x.png"], 2, "--base"),
    ("figure into a missing folder", ["distance", "-o", "no/such/x.png"], 1, "No such file"),
]:
    error_case(EXE, name, args, rc, needle, cwd=empty)

done()
