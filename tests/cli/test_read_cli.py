#!/usr/bin/env python3
"""posenc inspect and the file scheme, run as a user runs them: fixtures are
written here byte by byte (and by numpy when it is there), values compared
exactly."""
import json
import os
import struct
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
from tap import done, error_case, numpy_python, ok, run, skip, workdir  # noqa: E402

EXE = os.path.abspath(sys.argv[1])
wd = workdir()


def path(name):
    return os.path.join(wd, name)


def write(name, data):
    with open(path(name), "wb") as f:
        f.write(data)
    return name


def npy(descr, shape, data, fortran=False, major=1):
    shape_text = "(" + ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"
    header = "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }" % (
        descr, "True" if fortran else "False", shape_text)
    lenfield = 2 if major == 1 else 4
    total = 8 + lenfield + len(header) + 1
    header += " " * ((64 - total % 64) % 64) + "\n"
    return (b"\x93NUMPY" + bytes([major, 0]) + struct.pack("<H" if major == 1 else "<I", len(header))
            + header.encode() + data)


def safetensors(tensors, metadata=None, raw_header=None):
    header, blob = {}, b""
    if metadata:
        header["__metadata__"] = metadata
    for name, dtype, shape, data in tensors:
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [len(blob), len(blob) + len(data)]}
        blob += data
    text = raw_header.encode() if raw_header else json.dumps(header, separators=(",", ":")).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    return struct.pack("<Q", len(text)) + text + blob


def csv_values(text):
    rows = [line.split(",") for line in text.strip().split("\n")]
    return rows[0], [[float(x) for x in r[1:]] for r in rows[1:]], [r[0] for r in rows[1:]]


# A GPT-2-sized table: 1024 x 768 F32 'wpe.weight', values exact in float32.
N, D = 1024, 768
wpe = [((i * 37 + j * 11) % 1001 - 500) / 256.0 for i in range(N) for j in range(D)]
wpe_bytes = struct.pack("<%df" % (N * D), *wpe)
write("gpt2.safetensors", safetensors(
    [("wte.weight", "F32", [4, D], struct.pack("<%df" % (4 * D), *([0.5] * (4 * D)))),
     ("wpe.weight", "F32", [N, D], wpe_bytes),
     ("h.0.attn.bias", "I64", [1, 1, 2, 2], struct.pack("<4q", 1, 0, 1, 1))],
    {"format": "pt"}))

r = run(EXE, "inspect", "gpt2.safetensors", cwd=wd)
lines = r.text.splitlines()
ok(r.rc == 0 and lines[0] == "gpt2.safetensors: safetensors, 3 tensors"
   and "metadata format = pt" in lines[1]
   and any(l.split() == ["wpe.weight", "F32", "(1024,", "768)", "table"] for l in lines)
   and any(l.split() == ["h.0.attn.bias", "I64", "(1,", "1,", "2,", "2)"] for l in lines),
   "inspect lists name, dtype and shape of every tensor", r.text + r.err)

r = run(EXE, "encode", "-s", "gpt2.safetensors#wpe.weight", "-o", "wpe.npy", cwd=wd)
data = open(path("wpe.npy"), "rb").read()
hl = struct.unpack("<H", data[8:10])[0]
vals = struct.unpack("<%dd" % (N * D), data[10 + hl:])
ok(r.rc == 0 and b"'shape': (1024, 768)" in data[:128] and list(vals) == wpe,
   "encode exports a 1024 x 768 F32 wpe.weight exactly as float64", r.err)

r = run(EXE, "encode", "-s", "file:path=gpt2.safetensors,tensor=wpe.weight", "--start", "3", "-n", "2",
        "-o", "-", cwd=wd)
header, vals, index = csv_values(r.text)
ok(r.rc == 0 and index == ["3", "4"] and vals == [wpe[3 * D:4 * D], wpe[4 * D:5 * D]],
   "--start and -n select rows of a file", r.err)

r = run(EXE, "encode", "-s", "file:path=gpt2.safetensors,tensor=wpe.weight,rows=2:6", "-n", "1",
        "-o", "-", cwd=wd)
header, vals, index = csv_values(r.text)
ok(r.rc == 0 and index == ["0"] and vals == [wpe[2 * D:3 * D]], "rows=2:6 skips an OPT-like offset", r.err)

# file:PATH and file:PATH#TENSOR: the short forms after the scheme's name (the spelling of
# 'help schemes'); what is after 'file:' without '=' is not a key list.
r = run(EXE, "encode", "-s", "file:gpt2.safetensors#wpe.weight", "--start", "5", "-n", "1",
        "-o", "-", cwd=wd)
header, vals, index = csv_values(r.text)
ok(r.rc == 0 and index == ["5"] and vals == [wpe[5 * D:6 * D]],
   "file:PATH#TENSOR reads that tensor's rows", r.err)
write("small.npy", npy("<f8", (2, 3), struct.pack("<6d", 0.1, -2.5, 1e-300, 3.0, 0.0, 7.25)))
r = run(EXE, "encode", "-s", "file:small.npy", "-o", "-", cwd=wd)
ok(r.rc == 0 and r.text == "position,0,1,2\n0,0.1,-2.5,1e-300\n1,3,0,7.25\n",
   "file:PATH reads a .npy table", r.text + r.err)

# Round trips: encode -o x.npy / x.csv, then file:x reproduces the matrix exactly.
r1 = run(EXE, "encode", "-s", "rope:layout=half", "-n", "50", "-d", "16", "-o", "rope.npy", cwd=wd)
r2 = run(EXE, "encode", "-s", "file:path=rope.npy", "-o", "again.npy", cwd=wd)
ok(r1.rc == 0 and r2.rc == 0 and open(path("rope.npy"), "rb").read() == open(path("again.npy"), "rb").read(),
   "encode -o x.npy then file:x.npy reproduces the NPY byte for byte", r1.err + r2.err)
r1 = run(EXE, "encode", "-s", "sinusoidal", "-n", "40", "-d", "10", "-o", "sin.csv", cwd=wd)
r2 = run(EXE, "encode", "-s", "sin.csv", "-o", "-", cwd=wd)
ok(r1.rc == 0 and r2.rc == 0 and r2.out == open(path("sin.csv"), "rb").read(),
   "encode -o x.csv then file:x.csv reproduces the CSV exactly", r1.err + r2.err)
r = run(EXE, "encode", "-s", "file:path=sin.csv", "-d", "10", "--start", "39", "-o", "-", cwd=wd)
ok(r.rc == 0 and r.text.splitlines()[1] == open(path("sin.csv")).read().splitlines()[40],
   "the last row of a CSV table", r.text + r.err)

r = run(EXE, "inspect", "rope.npy", "sin.csv", cwd=wd)
ok(r.rc == 0 and r.text.splitlines() == [
    "rope.npy: npy 1.0, dtype <f8, shape (50, 16), C order, table",
    "sin.csv: csv, 40 rows x 10 columns, header row, index column (skipped), table"],
   "inspect describes NPY and CSV files", r.text + r.err)

# pandas' DataFrame(arr).to_csv(index=False) names the columns 0, 1, ..., k-1: a header, not
# a row of values; two cells "0,1" stay a row (position 0 and a cos of 1 look the same)
write("pandas.csv", b"0,1,2,3\n0.5,0.25,1.5,2.5\n3.5,4.5,5.5,6.5\n")
r = run(EXE, "inspect", "pandas.csv", cwd=wd)
ok(r.rc == 0 and r.text.strip() == "pandas.csv: csv, 2 rows x 4 columns, header row, no index column, table",
   "a pandas 0,1,...,k-1 header row is a header", r.text + r.err)
r = run(EXE, "encode", "-s", "file:path=pandas.csv", "-o", "-", "-q", cwd=wd)
ok(r.rc == 0 and csv_values(r.text)[1] == [[0.5, 0.25, 1.5, 2.5], [3.5, 4.5, 5.5, 6.5]],
   "the pandas table's values, without its header", r.text + r.err)
write("two.csv", b"0,1\n1,0.5\n2,0.25\n")
r = run(EXE, "inspect", "two.csv", cwd=wd)
ok(r.rc == 0 and "3 rows x 1 columns, no header row, index column" in r.text,
   "0,1 over two columns stays a data row", r.text + r.err)

# A pipe is read into memory (no mmap), the format told by its first bytes.
p = subprocess.run([EXE, "encode", "-s", "file:path=/dev/stdin", "-o", "-"], input=open(path("rope.npy"), "rb").read(),
                   capture_output=True, cwd=wd)
r = run(EXE, "encode", "-s", "rope.npy", "-o", "-", cwd=wd)
ok(p.returncode == 0 and p.stdout == r.out and r.rc == 0, "an NPY file through a pipe", p.stderr)

# F16 and BF16 with exact conversions; big-endian and Fortran-order NPY.
write("half.safetensors", safetensors(
    [("bf", "BF16", [2, 2], struct.pack("<4H", 0x3F80, 0x4049, 0xC2F7, 0x0001)),
     ("hf", "F16", [2, 2], struct.pack("<4H", 0x3800, 0xFBFF, 0x0400, 0x0001))]))
r = run(EXE, "encode", "-s", "half.safetensors#bf", "-o", "-", cwd=wd)
ok(r.rc == 0 and csv_values(r.text)[1] == [[1.0, 3.140625], [-123.5, 2.0 ** -133]], "BF16 values", r.text + r.err)
r = run(EXE, "encode", "-s", "half.safetensors#hf", "-o", "-", cwd=wd)
ok(r.rc == 0 and csv_values(r.text)[1] == [[0.5, -65504.0], [2.0 ** -14, 2.0 ** -24]], "F16 values", r.text + r.err)
write("be.npy", npy(">f8", (2, 3), struct.pack(">6d", 1, 2, 3, 4, 5, 6), fortran=False, major=2))
write("fortran.npy", npy("<f4", (2, 3), struct.pack("<6f", 1, 4, 2, 5, 3, 6), fortran=True))
for name in ("be.npy", "fortran.npy"):
    r = run(EXE, "encode", "-s", name, "-o", "-", cwd=wd)
    ok(r.rc == 0 and csv_values(r.text)[1] == [[1, 2, 3], [4, 5, 6]], "reads " + name, r.text + r.err)

# Files numpy writes, in every float dtype, byte order, order and version.
py = numpy_python()
if py:
    check = subprocess.run([py, "-c", """
import json, numpy as np
a = (np.arange(15).reshape(5, 3) - 7) / 3
out = {}
for name, arr, kw in [("f8", a, {}), ("f4", a.astype("<f4"), {}), ("f2", a.astype("<f2"), {}),
                      ("bef4", a.astype(">f4"), {}), ("bef2", a.astype(">f2"), {}),
                      ("fortran", np.asfortranarray(a), {}), ("v2", a, {"version": (2, 0)}),
                      ("v3", a.astype("<f4"), {"version": (3, 0)}), ("vec", a[:, 0].copy(), {})]:
    with open(name + ".npy", "wb") as f:
        np.lib.format.write_array(f, arr, **kw)
    out[name] = [[float(x) for x in np.atleast_1d(row)] for row in arr.astype(np.float64)]
print(json.dumps(out))
"""], capture_output=True, text=True, cwd=wd)
    want = json.loads(check.stdout) if check.returncode == 0 else {}
    good, detail = bool(want), check.stderr
    for name, rows in want.items():
        r = run(EXE, "encode", "-s", "file:path=%s.npy" % name, "-o", "-", cwd=wd)
        got = csv_values(r.text)[1] if r.rc == 0 else None
        if got != rows:
            good, detail = False, f"{name}: {r.err} {got} != {rows}"
    ok(good, "reads numpy's .npy files in f8/f4/f2, both byte orders, Fortran order, v1/v2/v3, 1-D", detail)
else:
    skip("reads numpy's .npy files", "no numpy")

# Malformed files: one line naming the file and the problem, exit 1.
f8 = struct.pack("<6d", 1, 2, 3, 4, 5, 6)
good_npy = npy("<f8", (2, 3), f8)
write("truncated.npy", good_npy[:-5])
write("lying.npy", good_npy[:8] + struct.pack("<H", 5000) + good_npy[10:])
write("overflow.npy", npy("<f8", (2 ** 40, 2 ** 40), b""))
write("cube.npy", npy("<f8", (2, 2, 3), f8 + f8))
write("ints.npy", npy("<i8", (2, 3), f8))
write("nan.csv", b"position,0,1\n0,1,2\n1,nan,3\n")
write("ragged.csv", b"1,2\n3\n")
write("offsets.safetensors", safetensors([], raw_header='{"a":{"dtype":"F32","shape":[200],"data_offsets":[0,800]}}')
      + b"\0" * 8)
write("hole.safetensors", safetensors([], raw_header='{"a":{"dtype":"F32","shape":[2],"data_offsets":[8,16]}}')
      + b"\0" * 16)
write("huge.safetensors", struct.pack("<Q", 2 ** 40) + b"{}")
write("cube.safetensors", safetensors([("t", "F32", [2, 2, 3], struct.pack("<12f", *range(12)))]))
write("empty.csv", b"")
cases = [
    ("truncated NPY", "truncated.npy", "truncated: shape (2, 3) of <f8 needs 48 bytes of data, the file has 43"),
    ("lying NPY header", "lying.npy", "the header says 5000 bytes"),
    ("NPY shape overflows", "overflow.npy", "shape (1099511627776, 1099511627776) overflows"),
    ("3-D NPY", "cube.npy", "expected a 2-D array (positions x width), found 3-D (2, 2, 3)"),
    ("integer NPY", "ints.npy", "unsupported dtype '<i8'"),
    ("NaN in CSV", "nan.csv", "value nan at row 1, column 0"),
    ("ragged CSV", "ragged.csv", "line 2 has 1 cells, expected 2"),
    ("empty CSV", "empty.csv", "no data rows"),
    ("offsets out of range", "offsets.safetensors#a", "truncated: the tensors need 800 bytes of data, the file has 8"),
    ("offsets with a hole", "hole.safetensors#a", "leave a hole after byte 0"),
    ("header length over the limit", "huge.safetensors", "exceeds the limit of 100000000 bytes"),
    ("3-D tensor", "cube.safetensors#t", "found 3-D (2, 2, 3)"),
    ("integer tensor", "gpt2.safetensors#h.0.attn.bias", "has dtype I64; readable dtypes: F64, F32, F16, BF16"),
    ("wrong tensor name", "gpt2.safetensors#wpe",
     "no tensor 'wpe' (the file has 'wpe.weight', 'wte.weight', 'h.0.attn.bias')"),
    ("no tensor name", "gpt2.safetensors", "the file holds 3 tensors, name one with"),
    ("missing file", "missing.npy", "No such file or directory"),
]


def file_error(name, args, file, needle):
    """error_case, and the message names the file first: 'FILE': <what is wrong>."""
    if error_case(EXE, name, args, 1, needle, cwd=wd):
        r = run(EXE, *args, cwd=wd)
        ok(r.err.startswith("posenc: error: '%s': " % file), name + ": names the file first", r.err)


for name, spec, needle in cases:
    file = spec.split("#")[0]
    file_error(name, ["encode", "-s", spec, "-o", "-"], file, needle)
# inspect lists 3-D and integer arrays (they are valid files); the rest it refuses too.
for name, spec, needle in cases:
    file = spec.split("#")[0]
    if "3-D" not in name and "integer" not in name and "NaN" not in name and "tensor name" not in name:
        file_error("inspect: " + name, ["inspect", file], file, needle)
# torch's shapes: axes of length 1 dropped (HF's cos is (batch, seq, dim)); a last axis of 2 is a
# pair side by side (view_as_real of freqs_cis), in C order only.
vals = [float(v) for v in range(6)]
write("batch.npy", npy("<f8", (1, 2, 3), struct.pack("<6d", *vals)))
write("heads.npy", npy("<f8", (1, 2, 1, 3), struct.pack("<6d", *vals)))
write("pairs.npy", npy("<f8", (1, 3, 1, 2), struct.pack("<6d", *vals)))
write("pairs_f.npy", npy("<f8", (3, 1, 2), struct.pack("<6d", *vals), fortran=True))
write("pairs3.npy", npy("<f8", (2, 3, 2), struct.pack("<12d", *range(12))))
for name, want in (("batch.npy", [[0, 1, 2], [3, 4, 5]]), ("heads.npy", [[0, 1, 2], [3, 4, 5]]),
                   ("pairs.npy", [[0, 1], [2, 3], [4, 5]]),
                   ("pairs3.npy", [[0, 1, 2, 3, 4, 5], [6, 7, 8, 9, 10, 11]])):
    r = run(EXE, "encode", "-s", "file:path=" + name, "-o", "-", "-q", cwd=wd)
    rows = [[float(x) for x in line.split(",")[1:]] for line in r.text.splitlines()[1:]]
    ok(r.rc == 0 and rows == want, f"{name}: read as {len(want)} x {len(want[0])}", r.text + r.err)
# Fortran order: (3, 1, 2) is (3, 2) once its axis of 1 is gone (column-major, values 0 3 / 1 4 / 2 5)
r = run(EXE, "encode", "-s", "file:path=pairs_f.npy", "-o", "-", "-q", cwd=wd)
rows = [[float(x) for x in line.split(",")[1:]] for line in r.text.splitlines()[1:]]
ok(r.rc == 0 and rows == [[0, 3], [1, 4], [2, 5]], "Fortran (3, 1, 2): read as 3 x 2 column-major",
   r.text + r.err)
error_case(EXE, "rows outside the table", ["encode", "-s", "file:path=sin.csv,rows=0:41", "-o", "-"], 2,
           "'sin.csv': rows=0:41 is outside the table's 40 rows", cwd=wd)
error_case(EXE, "inspect without a file", ["inspect"], 2, "no file to inspect", cwd=wd)
# A GGUF file (llama.cpp's) is said to be one, not refused as a CSV file without tensor names.
import gguf_write  # noqa: E402
write("gpt2.gguf", gguf_write.gguf([("general.architecture", gguf_write.STRING, "gpt2")],
                                   [("position_embd.weight", [2, 3], [0.5] * 6)]))
for spec in ("gpt2.gguf#position_embd.weight", "file:path=gpt2.gguf,tensor=position_embd.weight"):
    file_error("GGUF: " + spec, ["encode", "-s", spec, "-o", "-"], "gpt2.gguf",
               "a GGUF file: tables are read from .npy, .safetensors and .csv")
file_error("inspect: GGUF", ["inspect", "gpt2.gguf"], "gpt2.gguf",
           "a GGUF file: tables are read from .npy, .safetensors and .csv")
# A sharded checkpoint's index (and any JSON document) is no table, nor a CSV file.
write("model.safetensors.index.json",
      json.dumps({"metadata": {}, "weight_map": {"wpe.weight": "gpt2.safetensors"}}).encode())
for args in (["inspect", "model.safetensors.index.json"],
             ["encode", "-s", "model.safetensors.index.json#wpe.weight", "-o", "-"]):
    file_error(args[0] + ": a checkpoint index", args, "model.safetensors.index.json",
               "a JSON file, not a table (a sharded checkpoint's index")
error_case(EXE, "inspect unknown option", ["inspect", "--frob", "x"], 2, "unknown option '--frob'", cwd=wd)
r = run(EXE, "inspect", "--help")
ok(r.rc == 0 and "Usage: posenc inspect FILE" in r.text and not r.err, "inspect --help on stdout")
r = run(EXE, "--help")
ok("inspect" in r.text, "inspect is in the command list")

done()
