#!/usr/bin/env python3
"""posenc encode, run as a user runs it: values, formats, errors."""
import csv
import io
import math
import os
import signal
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
from tap import done, error_case, numpy_python, ok, run, skip, workdir  # noqa: E402

EXE = os.path.abspath(sys.argv[1])


def read_csv(text):
    rows = list(csv.reader(io.StringIO(text)))
    return rows[0], [[float(x) for x in r[1:]] for r in rows[1:]], [r[0] for r in rows[1:]]


# Reference values, doc/conventions.md [1a] and [1d].
r = run(EXE, "encode", "-s", "sinusoidal", "-n", "3", "-d", "8", "-o", "-")
header, vals, index = read_csv(r.text)
ok(r.rc == 0 and header == ["position"] + [str(j) for j in range(8)] and index == ["0", "1", "2"],
   "encode CSV header and index column", r.text[:200])
want = [0.841471, 0.540302, 0.099833, 0.995004, 0.01, 0.99995, 0.001, 1.0]
ok(all(abs(a - b) < 5e-7 for a, b in zip(vals[1], want)), "encode sinusoidal d=8 p=1 [1a]", vals[1])
# Closed form, to 1e-12: PE(p, 2k) = sin(p / 10000^(2k/d)).
ok(all(abs(vals[p][2 * k] - math.sin(p / 10000 ** (2 * k / 8))) < 1e-12
       and abs(vals[p][2 * k + 1] - math.cos(p / 10000 ** (2 * k / 8))) < 1e-12
       for p in range(3) for k in range(4)), "encode matches the paper's formula to 1e-12")

r = run(EXE, "encode", "-s", "sinusoidal:layout=blocks", "-n", "1", "--start", "1", "-d", "5", "-o", "-")
header, vals, index = read_csv(r.text)
ok(index == ["1"] and all(abs(a - b) < 5e-7 for a, b in
                          zip(vals[0], [0.841471, 0.025116, 0.000631, 0.540302, 0.999685])),
   "encode --start 1, HF Marian odd d=5 [1d]", r.text)

r = run(EXE, "encode", "-s", "rope", "--view", "angle", "-n", "2", "--start", "10000000", "-d", "4", "-o", "-")
header, vals, index = read_csv(r.text)
ok(index == ["10000000", "10000001"] and vals[1][0] == 10000001.0 and abs(vals[1][2] - 100000.01) < 1e-8,
   "encode rope --view angle at position 10^7", r.text)

r = run(EXE, "encode", "-s", "binary", "-n", "4", "-d", "3", "-o", "-")
header, vals, index = read_csv(r.text)
ok(vals == [[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0]], "encode binary bits", r.text)

# learned: an independent Python implementation of the documented generator.
MASK = (1 << 64) - 1


def mix(z):
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return z ^ (z >> 31)


def normal(seed, k):
    state = mix((mix(seed) + k) & MASK)
    while True:
        state = (state + 0x9E3779B97F4A7C15) & MASK
        u = (mix(state) >> 11) * 2.0 ** -52 - 1.0
        state = (state + 0x9E3779B97F4A7C15) & MASK
        v = (mix(state) >> 11) * 2.0 ** -52 - 1.0
        s = u * u + v * v
        if 0 < s < 1:
            return u * math.sqrt(-2.0 * math.log(s) / s)


r = run(EXE, "encode", "-s", "learned:seed=7,std=0.5", "-n", "3", "--start", "2", "-d", "4", "-o", "-")
header, vals, index = read_csv(r.text)
ref = [[0.5 * normal(7, (2 + i) * 4 + j) for j in range(4)] for i in range(3)]
ok(all(abs(a - b) <= 1e-15 * max(1, abs(b)) for ra, rb in zip(vals, ref) for a, b in zip(ra, rb)),
   "encode learned equals the documented generator", (vals, ref))

# NPY: byte-identical to numpy's np.save of the same array.
wd = workdir()
r = run(EXE, "encode", "-s", "sinusoidal", "-n", "17", "-d", "12", "-o", "e.npy", cwd=wd)
r2 = run(EXE, "encode", "-s", "sinusoidal", "-n", "17", "-d", "12", "-o", "e.csv", cwd=wd)
r3 = run(EXE, "encode", "-s", "sinusoidal", "-n", "17", "-d", "12", "--dtype", "f32", "-o", "e32.npy", cwd=wd)
ok(r.rc == 0 and r2.rc == 0 and r3.rc == 0 and "wrote e.npy" in r.err, "encode writes npy, csv and f32 npy", r.err + r2.err + r3.err)
npy = numpy_python()
if npy:
    check = subprocess.run([npy, "-c", """
import io, numpy as np
a = np.loadtxt('e.csv', delimiter=',', skiprows=1)[:, 1:]
buf = io.BytesIO(); np.save(buf, a)
same64 = buf.getvalue() == open('e.npy', 'rb').read()
buf = io.BytesIO(); np.save(buf, a.astype(np.float32))
same32 = buf.getvalue() == open('e32.npy', 'rb').read()
b = np.load('e.npy')
print(same64, same32, b.shape, bool((a == b).all()))
"""], capture_output=True, text=True, cwd=wd)
    ok(check.stdout.strip() == "True True (17, 12) True",
       "npy is byte-identical to np.save; CSV round-trips exactly", check.stdout + check.stderr)
else:
    skip("npy is byte-identical to np.save", "no numpy")

# Overwriting a good file only on success.
open(os.path.join(wd, "keep.csv"), "w").write("precious\n")
r = run(EXE, "encode", "-s", "rope", "-d", "5", "-o", "keep.csv", cwd=wd)
ok(r.rc == 2 and open(os.path.join(wd, "keep.csv")).read() == "precious\n"
   and not [f for f in os.listdir(wd) if f.startswith(".")],
   "a failed run leaves the existing file and no temporary", os.listdir(wd))
r = run(EXE, "encode", "-n", "2", "-d", "2", "-o", "keep.csv", "-q", cwd=wd)
ok(r.rc == 0 and r.err == "" and open(os.path.join(wd, "keep.csv")).read().startswith("position,0,1\n"),
   "a successful run replaces the file, quietly with -q", r.err)

# Help and version: stdout, exit 0.
for args in (["--help"], ["-h"], ["help"], ["help", "encode"], ["encode", "--help"], ["--version"],
             ["help", "schemes"]):
    r = run(EXE, *args)
    ok(r.rc == 0 and r.text and not r.err, "posenc " + " ".join(args) + " prints to stdout, exit 0", r.err)
r = run(EXE, "encode", "--help")
ok("Usage: posenc encode" in r.text and "--view" in r.text and "--positions" in r.text, "encode --help documents options")
r = run(EXE)
ok(r.rc == 2 and "Usage:" in r.err, "no command: usage on stderr, exit 2")
# length=0 of dynamic NTK: the largest position + 1 (--start + -n), as HF's
# _compute_dynamic_ntk_parameters takes seq_len, and the help says so. At 4095..4096 that is
# 4097 > 4096: base' = 10000 (2 * 4097 / 4096 - 1)^(d / (d - 2)), the angle m / base'^(2i/d).
r = run(EXE, "help", "schemes")
ok("(0: the largest position + 1" in " ".join(r.text.split()),
   "help schemes: length=0 is the largest position + 1, not the original", r.text)
r = run(EXE, "encode", "-s", "rope:scaling=dynamic,factor=2", "--view", "angle", "--start", "4095",
        "-n", "2", "-d", "8", "-o", "-")
base = 10000.0 * (2.0 * 4097 / 4096 - 1.0) ** (8 / 6)
want = [[m / base ** (2 * (j // 2) / 8) for j in range(8)] for m in (4095, 4096)]
got = [[float(x) for x in line.split(",")[1:]] for line in r.text.splitlines()[1:]]
ok(r.rc == 0 and "sequence length 4097" in r.err and len(got) == 2
   and max(abs(g - w) / w if w else abs(g) for gr, wr in zip(got, want) for g, w in zip(gr, wr))
   < 1e-15, "dynamic scaling at positions 4095, 4096: base grown for length 4097", (got, want))
r = run(EXE, "help", "help")
ok(r.rc == 0 and "Usage: posenc" in r.text, "help help: the usage", r.err)
# a CSV whose lines end in CR alone (classic Mac), as Python's csv module reads it
cr = os.path.join(workdir(), "cr.csv")
with open(cr, "wb") as f:
    f.write(b"a,b\r1,2\r3,4\r")
r = run(EXE, "encode", "-s", "file:path=" + cr, "-o", "-")
ok(r.rc == 0 and r.text.splitlines()[1:] == ["0,1,2", "1,3,4"], "CSV with CR line ends read",
   (r.text, r.err))
# a CRLF file whose first line's CR is the 4096th byte: its LF is past the window, still CRLF
cols = 4095 // 5 + 1
head = ",".join("c%03d" % i for i in range(cols))[:4095]
head = head[:head.rfind(",")]
head += "," + "x" * (4095 - len(head) - 1)
ncol = head.count(",") + 1
with open(cr, "wb") as f:
    f.write((head + "\r\n" + ",".join(["1"] * ncol) + "\r\n" + ",".join(["2"] * ncol) +
             "\r\n").encode())
r = run(EXE, "encode", "-s", "file:path=" + cr, "-o", "-")
ok(r.rc == 0 and len(r.text.splitlines()) == 3 and len(head) + 1 == 4096,
   "CRLF file with a 4095-byte header read as CRLF", (r.err, len(head)))

# Errors: status, one line, no output file.
empty = workdir()
cases = [
    ("unknown command", ["frobnicate"], 2, "unknown command 'frobnicate'"),
    ("unknown option", ["encode", "--frob"], 2, "unknown option '--frob'"),
    ("unknown top option", ["--frob"], 2, "unknown option '--frob'"),
    ("-n 12x", ["encode", "-n", "12x", "-o", "x.csv"], 2, "'12x' is not a whole number"),
    ("-n 0", ["encode", "-n", "0", "-o", "x.csv"], 2, "too small"),
    ("-n -1", ["encode", "-n", "-1", "-o", "x.csv"], 2, "-1 is too small (at least 1)"),
    ("-n 1e99", ["encode", "-n", "1e99", "-o", "x.csv"], 2, "too large"),
    ("-d -4", ["encode", "-d", "-4", "-o", "x.csv"], 2, "-4 is too small (at least 1)"),
    ("-d missing value", ["encode", "-d"], 2, "needs a value"),
    ("--start x", ["encode", "--start", "x", "-o", "x.csv"], 2, "--start"),
    ("unknown scheme", ["encode", "-s", "sinusodal", "-o", "x.csv"], 2, "unknown scheme 'sinusodal'"),
    ("unknown key", ["encode", "-s", "rope:bse=10", "-o", "x.csv"], 2, "unknown key 'bse'"),
    ("base 1", ["encode", "-s", "sinusoidal:base=1", "-o", "x.csv"], 2, "key 'base'"),
    ("--base 1", ["encode", "--base", "1", "-o", "x.csv"], 2, "--base"),
    ("--base nan", ["encode", "--base", "nan", "-o", "x.csv"], 2, "--base"),
    ("rope odd d", ["encode", "-s", "rope", "-d", "3", "-o", "x.csv"], 2, "even rotary width"),
    ("view on sinusoidal", ["encode", "--view", "cos", "-o", "x.csv"], 2, "views"),
    ("bad view", ["encode", "-s", "rope", "--view", "tan", "-o", "x.csv"], 2, "--view"),
    ("alibi has no vectors", ["encode", "-s", "alibi", "-o", "x.csv"], 2, "attention bias"),
    ("two schemes", ["encode", "--base", "10,100", "-o", "x.csv"], 2, "one scheme"),
    ("unknown extension", ["encode", "-o", "x.txt"], 2, "unknown format"),
    ("dtype on csv", ["encode", "--dtype", "f32", "-o", "x.csv"], 2, "--dtype"),
    ("bad dtype", ["encode", "--dtype", "f16", "-o", "x.npy"], 2, "--dtype"),
    ("stray operand", ["encode", "extra", "-o", "x.csv"], 2, "unexpected argument 'extra'"),
    ("positions past 2^53", ["encode", "--start", "9007199254740992", "-n", "2", "-o", "x.csv"], 2, "2^53"),
    ("output is a directory", ["encode", "-o", "."], 2, "unknown format"),
    ("output dir.csv is a directory", ["encode", "-o", "sub.csv"], 1, "Is a directory"),
    ("missing folder", ["encode", "-o", "no/such/x.csv"], 1, "No such file or directory"),
    ("over the memory budget", ["encode", "-n", "1000000", "-d", "4096", "--max-memory", "1G", "-o", "x.npy"], 1, "needs 30.5 GiB"),
    ("bad --max-memory", ["encode", "--max-memory", "lots", "-o", "x.npy"], 2, "--max-memory"),
]
os.mkdir(os.path.join(empty, "sub.csv"))
for name, args, rc, needle in cases:
    error_case(EXE, name, args, rc, needle, cwd=empty)

r = run(EXE, "encode", "-o", "/dev/full")
ok(r.rc == 1 and r.err.startswith("posenc: error: ") and "No space left" in r.err, "/dev/full gives a write error", r.err)

# A closed pipe (posenc ... | head): a quiet end by SIGPIPE, as GNU tools end.
p = subprocess.Popen([EXE, "encode", "-n", "200000", "-d", "64", "-o", "-"],
                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
p.stdout.read(10)
p.stdout.close()
err = p.stderr.read().decode()
p.wait()
ok(p.returncode == -signal.SIGPIPE and err == "", "-o - into a closed pipe ends quietly by SIGPIPE",
   (p.returncode, err))

done()
