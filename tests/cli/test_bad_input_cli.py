#!/usr/bin/env python3
"""Bad input to every command, table-driven.

Each case runs in a fresh empty folder (some with a pre-existing output file,
the sentinel, whose bytes and mtime must survive) and must end with:
- the exit status of its class: 2 for a usage error, 1 for a runtime error;
- exactly one 'posenc: error:' line on stderr, naming the problem (a
  substring of the case), and nothing else there but a usage hint;
- no crash: no signal, no sanitizer or UBSan report;
- no file created in the folder and no existing one changed.

Unwritable folders: the suite may run as root, for whom chmod 0500 does not
stop a write. As root the unwritable cases use a path whose parent is a
regular file (ENOTDIR), a new name under /proc (ENOENT) and under /sys
(EACCES even for root); otherwise a chmod 0500 folder as well.
"""
import os
import resource
import json
import shutil
import struct
import signal
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
from tap import done, ok, skip  # noqa: E402

EXE = os.path.abspath(sys.argv[1])
SENTINEL = b"position,0\n0,sentinel\n"
OLD = 1000000000  # 2001-09-09: a sentinel's mtime, changed by any write

BAD_STDERR = ("Sanitizer", "runtime error:", "Segmentation", "Aborted", "core dumped",
              "Assertion", "malloc(", "double free")

# (name, args, exit status, needle, options)
# options: "keep": the -o target exists beforehand (the sentinel);
#          "setup": a function of the folder run first (its files must not change).


def file_named(name):
    def setup(wd):
        with open(os.path.join(wd, name), "wb") as f:
            f.write(SENTINEL)
    return setup


def folder_named(name):
    def setup(wd):
        os.mkdir(os.path.join(wd, name))
    return setup


def npy_bytes(descr, shape, payload):
    """An NPY 1.0 file, written by hand (no numpy needed)."""
    header = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (descr, shape)
    pad = 64 - (10 + len(header) + 1) % 64
    header = (header + " " * pad + "\n").encode()
    return b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header + payload


def files(**contents):
    def setup(wd):
        for name, data in contents.items():
            with open(os.path.join(wd, name.replace("_", ".")), "wb") as f:
                f.write(data if isinstance(data, bytes) else data.encode())
    return setup


F64 = npy_bytes("<f8", "(4, 2)", bytes(64))
NAN = npy_bytes("<f8", "(1, 2)", b"\x00" * 8 + b"\x00\x00\x00\x00\x00\x00\xf8\x7f")
INT = npy_bytes("<i8", "(2, 2)", bytes(32))
F32 = npy_bytes("<f4", "(1000, 400)", bytes(1600000))

BIG = npy_bytes("<f8", "(2, 2)", struct.pack("<4d", 1.7e308, -1.7e308, -1.7e308, 1.7e308))
BIG2 = npy_bytes("<f8", "(2, 2)", struct.pack("<4d", 1e200, 1e200, -1e200, 3e200))
TINY = npy_bytes("<f8", "(2, 2)", struct.pack("<4d", 1e-200, 1e-200, -1e-200, 3e-200))


def safetensors_bytes(header, data):
    raw = json.dumps(header).encode()
    return struct.pack("<Q", len(raw)) + raw + data


EVIL = safetensors_bytes({"wpe\x1b[31m\nposenc: error: forged\u009b2J":
                          {"dtype": "F64", "shape": [1, 1], "data_offsets": [0, 8]}}, bytes(8))
# A header of 96 MB (under the format's 100 MB limit): one tensor, padded with metadata.
HUGE_HEADER = safetensors_bytes({"__metadata__": {"pad": "x" * (96 * 1000 * 1000 - 120)},
                                 "wpe": {"dtype": "F64", "shape": [1, 1], "data_offsets": [0, 8]}},
                                bytes(8))

USAGE, RUNTIME = 2, 1
K = {"keep": True}

CASES = [
    # ---- commands, options, operands ----
    ("unknown command", ["frobnicate"], USAGE, "unknown command 'frobnicate'", {}),
    ("help of an unknown command", ["help", "frobnicate"], USAGE, "unknown command 'frobnicate'", {}),
    ("help with two topics", ["help", "layers", "extra"], USAGE, "one topic", {}),
    ("unknown top-level option", ["--frob"], USAGE, "unknown option '--frob'", {}),
    ("unknown long option", ["encode", "--frob", "-o", "out.csv"], USAGE, "unknown option '--frob'", K),
    ("unknown short option", ["distance", "-x", "-o", "out.csv"], USAGE, "unknown option '-x'", K),
    ("missing value", ["encode", "-n"], USAGE, "option '-n' needs a value", {}),
    ("missing long value", ["decay", "-o", "out.csv", "--max-offset"], USAGE, "'--max-offset' needs a value", K),
    ("stray operand", ["encode", "-o", "out.csv", "extra"], USAGE, "unexpected argument 'extra'", K),
    ("option of another command", ["corr", "--metric", "l1", "-o", "out.csv"], USAGE,
     "unknown option '--metric'", K),
    # ---- malformed and out-of-range numbers ----
    ("-n 0", ["encode", "-n", "0", "-o", "out.csv"], USAGE, "'-n': 0 is too small", K),
    ("-n -1", ["encode", "-n", "-1", "-o", "out.csv"], USAGE, "'-n': -1 is too small (at least 1)", K),
    ("-n 1e99", ["distance", "-n", "1e99", "-o", "out.csv"], USAGE, "'-n': 1e99 is too large", K),
    ("-n 2.5", ["corr", "-n", "2.5", "-o", "out.csv"], USAGE, "'-n': '2.5' is not a whole number", K),
    ("-n 12x", ["scatter", "-n", "12x", "-o", "out.csv"], USAGE, "'-n': '12x'", K),
    ("-n empty", ["profile", "-n", "", "-o", "out.csv"], USAGE, "'-n': ''", K),
    ("-n 2^64", ["bias", "-n", "18446744073709551616", "-o", "out.csv"], USAGE, "too large", K),
    ("-n hex", ["encode", "-n", "0x10", "-o", "out.csv"], USAGE, "'-n': '0x10'", K),
    ("-d 0", ["encode", "-d", "0", "-o", "out.csv"], USAGE, "'-d': 0 is too small", K),
    ("-d -4", ["distance", "-d", "-4", "-o", "out.csv"], USAGE, "'-d': -4 is too small (at least 1)", K),
    ("-d 2^25", ["encode", "-d", "33554432", "-o", "out.csv"], USAGE, "'-d': 33554432 is too large", K),
    ("-d 3 for rope", ["encode", "-s", "rope", "-d", "3", "-o", "out.csv"], USAGE, "even", K),
    ("-d 1 for rope freqs", ["freqs", "-d", "1", "-o", "out.csv"], USAGE, "d=1", K),
    ("dynamic scaling at d=2", ["encode", "-s", "rope:scaling=dynamic,factor=2", "-d", "2",
                                "-o", "out.csv"], USAGE, "dynamic scaling needs a rotary width", K),
    ("-d 5 for rope decay", ["decay", "-s", "rope", "-d", "5", "-o", "out.csv"], USAGE, "even", K),
    ("--base 1", ["encode", "--base", "1", "-o", "out.csv"], USAGE, "'--base': 1 must be > 1", K),
    ("--base nan", ["decay", "--base", "nan", "-o", "out.csv"], USAGE, "'--base': 'nan' is not finite", K),
    ("--base inf", ["freqs", "--base", "inf", "-o", "out.csv"], USAGE, "'--base': 'inf'", K),
    ("--base -5", ["encode", "--base", "-5", "-o", "out.csv"], USAGE, "'--base': -5 must be > 1", K),
    ("--base list with a hole", ["decay", "--base", "10,,20", "-o", "out.csv"], USAGE, "'--base'", K),
    ("--base 1e400", ["encode", "--base", "1e400", "-o", "out.csv"], USAGE, "'--base': '1e400'", K),
    ("base=0.5 in a spec", ["encode", "-s", "sinusoidal:base=0.5", "-o", "out.csv"], USAGE,
     "key 'base': 0.5 must be > 1", K),
    ("base=nan in a spec", ["distance", "-s", "rope:base=nan", "-o", "out.csv"], USAGE,
     "key 'base': 'nan' is not finite", K),
    ("--start -1", ["encode", "--start", "-1", "-o", "out.csv"], USAGE, "'--start': -1 is too small (at least 0)", K),
    ("--start past 2^53", ["encode", "--start", "9007199254740992", "-o", "out.csv"], USAGE, "2^53", K),
    ("positions run past 2^53", ["distance", "--start", "9007199254740990", "-n", "10", "-o", "out.csv"],
     USAGE, "2^53", K),
    ("--max-offset -1", ["decay", "--max-offset", "-1", "-o", "out.csv"], USAGE, "'--max-offset': -1 is too small (at least 0)", K),
    ("--max-offset beyond -n", ["decay", "-n", "5", "--max-offset", "10", "-o", "out.csv"], USAGE,
     "'--max-offset': 10 needs at least 11 positions", K),
    ("--max-points -5", ["scatter", "--max-points", "-5", "-o", "out.csv"], USAGE, "'--max-points'", K),
    ("scatter -n 1", ["scatter", "-n", "1", "-o", "out.csv"], USAGE, "at least 2 positions", K),
    ("--at with a hole", ["profile", "--at", "1,,2", "-o", "out.csv"], USAGE, "'--at'", K),
    ("--at not a number", ["profile", "--at", "x", "-o", "out.csv"], USAGE, "'--at': 'x'", K),
    ("--at past 2^53", ["profile", "--at", "9007199254740993", "-o", "out.csv"], USAGE, "'--at'", K),
    ("--length 0", ["freqs", "--length", "0", "-o", "out.csv"], USAGE, "'--length': 0 must be > 0", K),
    ("--train-length nan", ["freqs", "--train-length", "nan", "-o", "out.csv"], USAGE, "'--train-length'", K),
    ("--max-memory 0", ["encode", "--max-memory", "0", "-o", "out.csv"], USAGE, "'--max-memory': '0'", K),
    ("--max-memory 5Q", ["encode", "--max-memory", "5Q", "-o", "out.csv"], USAGE, "'--max-memory': '5Q'", K),
    ("--width 5", ["encode", "--width", "5", "-o", "out.csv"], USAGE, "'--width': 5 is outside 16..32767 pixels", K),
    ("--height 1e9", ["distance", "--height", "1e9", "-o", "out.csv"], USAGE, "'--height'", K),
    ("--vmin nan", ["corr", "--vmin", "nan", "-o", "out.csv"], USAGE, "'--vmin': 'nan' is not finite", K),
    ("--vmax text", ["distance", "--vmax", "big", "-o", "out.csv"], USAGE, "'--vmax': 'big'", K),
    # ---- unknown schemes, keys, values, colormaps, metrics, views ----
    ("unknown scheme", ["encode", "-s", "fourier", "-o", "out.csv"], USAGE, "unknown scheme 'fourier'", K),
    ("unknown key", ["encode", "-s", "sinusoidal:bsae=10", "-o", "out.csv"], USAGE, "unknown key 'bsae'", K),
    ("key without value", ["distance", "-s", "sinusoidal:base", "-o", "out.csv"], USAGE, "'base'", K),
    ("key given twice", ["encode", "-s", "rope:base=10,base=20", "-o", "out.csv"], USAGE,
     "key 'base' is given twice", K),
    ("empty scheme name", ["encode", "-s", ":base=3", "-o", "out.csv"], USAGE, "empty scheme name", K),
    ("nothing after ':'", ["corr", "-s", "rope:", "-o", "out.csv"], USAGE, "nothing after ':'", K),
    ("unknown layout", ["encode", "-s", "sinusoidal:layout=diag", "-o", "out.csv"], USAGE, "key 'layout'", K),
    ("unknown scaling", ["freqs", "-s", "rope:scaling=bogus", "-o", "out.csv"], USAGE, "key 'scaling'", K),
    ("rotary 2", ["encode", "-s", "rope:rotary=2", "-o", "out.csv"], USAGE, "key 'rotary'", K),
    ("yarn factor 0", ["freqs", "-s", "rope:scaling=yarn,factor=0", "-o", "out.csv"], USAGE, "key 'factor'", K),
    ("learned std -1", ["encode", "-s", "learned:std=-1", "-o", "out.csv"], USAGE, "key 'std'", K),
    ("learned seed -1", ["encode", "-s", "learned:seed=-1", "-o", "out.csv"], USAGE, "key 'seed'", K),
    ("alibi heads 0", ["bias", "-s", "alibi:heads=0", "-o", "out.csv"], USAGE, "key 'heads'", K),
    ("t5 buckets 0", ["bias", "-s", "t5:buckets=0", "-o", "out.csv"], USAGE, "key 'buckets'", K),
    ("alibi form", ["bias", "-s", "alibi:form=weird", "-o", "out.csv"], USAGE, "key 'form'", K),
    ("unknown colormap", ["distance", "--cmap", "rainbow-ish", "-o", "out.csv"], USAGE,
     "unknown colormap 'rainbow-ish'", K),
    ("unknown metric", ["distance", "--metric", "hamming", "-o", "out.csv"], USAGE, "'--metric': 'hamming'", K),
    ("corr is not a --metric", ["profile", "--metric", "corr", "-o", "out.csv"], USAGE, "'--metric': 'corr'", K),
    ("unknown view", ["encode", "-s", "rope", "--view", "tan", "-o", "out.csv"], USAGE, "'--view': 'tan'", K),
    ("unknown dtype", ["encode", "--dtype", "f16", "-o", "out.npy"], USAGE, "'--dtype': 'f16'", {}),
    # ---- contradictory options ----
    ("--view for sinusoidal", ["encode", "--view", "cos", "-o", "out.csv"], USAGE, "only for rope", K),
    ("--dtype f32 with CSV", ["encode", "--dtype", "f32", "-o", "out.csv"], USAGE, "'--dtype'", K),
    ("--raw with CSV", ["distance", "--raw", "-o", "out.csv"], USAGE, "'--raw'", K),
    ("freqs -n", ["freqs", "-n", "5", "-o", "out.csv"], USAGE, "'-n'", K),
    ("bias -d", ["bias", "-d", "4", "-o", "out.csv"], USAGE, "'-d'", K),
    ("bias --start", ["bias", "--start", "3", "-o", "out.csv"], USAGE, "'--start'", K),
    ("--bound for sinusoidal", ["decay", "--bound", "-o", "out.csv"], USAGE, "'--bound'", K),
    ("two schemes to encode", ["encode", "-s", "sinusoidal", "-s", "rope", "-o", "out.csv"], USAGE,
     "one scheme, 2 given", K),
    ("two bases to distance", ["distance", "--base", "10,20", "-o", "out.csv"], USAGE, "one scheme, 2 given", K),
    ("a bias scheme to encode", ["encode", "-s", "alibi", "-o", "out.csv"], USAGE, "attention bias", K),
    ("a bias scheme to corr", ["corr", "-s", "t5", "-o", "out.csv"], USAGE, "attention bias", K),
    ("a vector scheme to bias", ["bias", "-s", "rope", "-o", "out.csv"], USAGE, "not an attention bias", K),
    ("learned has no freqs", ["freqs", "-s", "learned", "-o", "out.csv"], USAGE, "has no frequencies", K),
    # ---- sizes whose n*d or n*n overflow size_t, or exceed the budget ----
    ("n*d overflows size_t", ["encode", "-n", "9007199254740992", "-d", "16777216", "-o", "out.csv"],
     RUNTIME, "needs", K),
    ("n*n overflows size_t (distance)", ["distance", "-n", "4294967296", "-o", "out.csv"], RUNTIME,
     "needs", K),
    ("n*n overflows size_t (corr)", ["corr", "-n", "4294967297", "-o", "out.npy"], RUNTIME, "needs", {}),
    ("n*n overflows size_t (bias)", ["bias", "-s", "t5", "-n", "4294967296", "-o", "out.csv"], RUNTIME,
     "needs", K),
    ("heads*n*n overflows (alibi)", ["bias", "-s", "alibi:heads=65536", "-n", "2147483648", "-o", "out.csv"],
     RUNTIME, "needs", K),
    ("every pair of 2^53 positions", ["scatter", "-n", "9007199254740992", "--max-points", "0",
                                      "-o", "out.csv"], RUNTIME, "needs", K),
    ("a profile of 2^53 rows", ["profile", "-n", "9007199254740992", "--at", "0", "-o", "out.csv"],
     RUNTIME, "needs", K),
    ("a decay table of 2^53 offsets", ["decay", "--max-offset", "9007199254740990", "-o", "out.csv"],
     RUNTIME, "needs", K),
    ("learned decay of 2^50 rows", ["decay", "-s", "learned", "--max-offset", "1125899906842624",
                                    "-o", "out.csv"], RUNTIME, "needs", K),
    ("freqs over a small budget", ["freqs", "-d", "16777216", "--max-memory", "1M", "-o", "out.csv"],
     RUNTIME, "needs", K),
    ("encode over a small budget", ["encode", "-n", "100000", "-d", "64", "--max-memory", "1M",
                                    "-o", "out.npy"], RUNTIME, "needs", {}),
    ("distance over a small budget", ["distance", "-n", "1000", "--max-memory", "1M", "-o", "out.csv"],
     RUNTIME, "needs", K),
    # ---- files: the file scheme and inspect ----
    ("missing file", ["encode", "-s", "file:path=none.npy", "-o", "out.csv"], RUNTIME,
     "'none.npy': No such file or directory", K),
    ("file is a directory", ["distance", "-s", "file:path=d.npy", "-o", "out.csv"], RUNTIME,
     "Is a directory", {"setup": folder_named("d.npy"), "keep": True}),
    ("truncated NPY", ["encode", "-s", "file:path=t.npy", "-o", "out.csv"], RUNTIME, "'t.npy'",
     {"setup": files(t_npy=F64[:-9]), "keep": True}),
    ("NPY of integers", ["corr", "-s", "file:path=i.npy", "-o", "out.csv"], RUNTIME, "dtype '<i8'",
     {"setup": files(i_npy=INT), "keep": True}),
    ("NaN in a table", ["distance", "-s", "file:path=n.npy", "-o", "out.csv"], RUNTIME, "value nan",
     {"setup": files(n_npy=NAN), "keep": True}),
    ("NPY has no tensors", ["encode", "-s", "m.npy#wpe", "-o", "out.csv"], RUNTIME, "one unnamed array",
     {"setup": files(m_npy=F64), "keep": True}),
    ("ragged CSV", ["encode", "-s", "file:path=r.csv", "-o", "out.npy"], RUNTIME, "line 3",
     {"setup": files(r_csv="a,b\n1,2\n3\n")}),
    ("CSV cell not a number", ["scatter", "-s", "file:path=x.csv", "-o", "out.npy"], RUNTIME, "'x'",
     {"setup": files(x_csv="position,0,1\n0,1,2\n1,x,4\n")}),
    ("empty CSV", ["encode", "-s", "file:path=e.csv", "-o", "out.npy"], RUNTIME, "'e.csv'",
     {"setup": files(e_csv="")}),
    ("-d other than the file's", ["encode", "-s", "file:path=m.npy", "-d", "3", "-o", "out.csv"], USAGE,
     "'-d': 3 differs from the 2 columns", {"setup": files(m_npy=F64), "keep": True}),
    ("--start past the file", ["encode", "-s", "file:path=m.npy", "--start", "4", "-o", "out.csv"], USAGE,
     "'--start': 4 is past the 4 rows", {"setup": files(m_npy=F64), "keep": True}),
    ("rows= past the file", ["encode", "-s", "file:path=m.npy,rows=2:9", "-o", "out.csv"], USAGE,
     "rows=2:9", {"setup": files(m_npy=F64), "keep": True}),
    ("file table over the budget", ["encode", "-s", "file:path=h.npy", "--max-memory", "2M",
                                    "-o", "out.csv"], RUNTIME, "the 1000 x 400 table needs 3.1 MiB",
     {"setup": files(h_npy=F32), "keep": True}),
    # its first bytes already cannot be a table: said at once, not at the limit
    ("an endless stream", ["encode", "-s", "file:path=/dev/zero", "--max-memory", "4M", "-o", "out.csv"],
     RUNTIME, "not a text table (binary data", K),
    ("inspect without a file", ["inspect"], USAGE, "no file", {}),
    ("inspect a missing file", ["inspect", "none.npy"], RUNTIME, "'none.npy': No such file", {}),
    ("inspect a directory", ["inspect", "d"], RUNTIME, "Is a directory", {"setup": folder_named("d")}),
    ("inspect a bad safetensors", ["inspect", "s.safetensors"], RUNTIME, "header length",
     {"setup": files(s_safetensors=b"\xff" * 8 + b"{}")}),
    ("inspect an unknown option", ["inspect", "--frob", "x.npy"], USAGE, "'--frob'", {}),
    # ---- compare and figures ----
    ("compare an unknown scheme", ["compare", "-s", "foo", "-o", "out.csv"], USAGE, "unknown scheme 'foo'", K),
    ("compare to NPY", ["compare", "-o", "out.npy"], USAGE, "'out.npy'", {"setup": files(out_npy=SENTINEL)}),
    ("compare one position", ["compare", "-n", "1", "-o", "out.csv"], USAGE, "at least 2 positions", K),
    ("compare a bias", ["compare", "-s", "alibi", "-s", "t5", "-o", "out.csv"], USAGE, "attention bias", K),
    ("compare over the budget", ["compare", "-n", "20000", "--max-memory", "1M", "-o", "out.csv"],
     RUNTIME, "needs", K),
    ("figure grid over the budget", ["distance", "-n", "100000", "--width", "32767", "--height", "32767",
                                     "-o", "out.png"], RUNTIME, "grid of the figure needs",
     {"setup": files(out_png=SENTINEL)}),
    ("encode figure over the budget", ["encode", "-n", "10", "-d", "16777216", "--max-memory", "64M",
                                       "-o", "out.png"], RUNTIME,
     "the figure of 10 x 16777216 needs", {"setup": files(out_png=SENTINEL)}),
    ("--vmin above --vmax", ["corr", "--vmin", "1", "--vmax", "0", "-o", "out.png"], USAGE, "vmin",
     {"setup": files(out_png=SENTINEL)}),
    ("--raw SVG", ["distance", "--raw", "-o", "out.svg"], USAGE, "'--raw'", {}),
    ("report to CSV", ["report", "-o", "out.csv"], USAGE, "'out.csv'", K),
    ("report to stdout", ["report", "-o", "-"], USAGE, "'-'", {}),
    ("report --raw", ["report", "--raw", "-o", "out.html"], USAGE, "'--raw'", {}),
    ("report of a bias", ["report", "-s", "alibi", "-o", "out.pdf"], USAGE, "attention bias",
     {"setup": files(out_pdf=SENTINEL)}),
    ("report in a missing folder", ["report", "-o", "nodir/out.pdf"], RUNTIME, "No such file or directory", {}),
    ("report over the budget", ["report", "-n", "10000000", "--max-memory", "16M", "-o", "out.pdf"],
     RUNTIME, "needs", {"setup": files(out_pdf=SENTINEL)}),
    ("report past 2^24 positions", ["report", "-n", "100000000", "-o", "out.pdf"],
     RUNTIME, "at most 16777216 positions", {"setup": files(out_pdf=SENTINEL)}),
    # ---- output paths ----
    ("unknown extension", ["encode", "-o", "out.txt"], USAGE, "'out.txt': unknown format", {}),
    ("empty output name", ["encode", "-o", ""], USAGE, "'-o'", {}),
    ("output is a directory", ["encode", "-o", "d.csv"], RUNTIME, "'d.csv': Is a directory",
     {"setup": folder_named("d.csv")}),
    ("output in a missing folder", ["distance", "-o", "nodir/out.csv"], RUNTIME,
     "'nodir/out.csv': No such file or directory", {}),
    ("parent is a regular file", ["corr", "-o", "f.csv/out.csv"], RUNTIME, "Not a directory",
     {"setup": file_named("f.csv")}),
    ("new file under /proc", ["decay", "-o", "/proc/posenc-test.csv"], RUNTIME, "'/proc/posenc-test.csv'", {}),
    ("new file under /sys", ["freqs", "-o", "/sys/posenc-test.csv"], RUNTIME, "'/sys/posenc-test.csv'", {}),
    ("/dev/full (encode)", ["encode", "-o", "/dev/full"], RUNTIME, "No space left on device", {}),
    ("/dev/full (bias)", ["bias", "-o", "/dev/full"], RUNTIME, "No space left on device", {}),
    ("/dev/full (scatter)", ["scatter", "-o", "/dev/full"], RUNTIME, "No space left on device", {}),
    # ---- issue 17, class 7: numbers that are not what they say ----
    ("-n 1.0000000000000001", ["encode", "-n", "1.0000000000000001", "-o", "out.csv"], USAGE,
     "'-n': '1.0000000000000001' is not a whole number", K),
    ("--start 2^52 + 0.5", ["encode", "--start", "4503599627370497.5", "-o", "out.csv"], USAGE,
     "'--start': '4503599627370497.5' is not a whole number", K),
    ("-d 64.000000000000001", ["distance", "-d", "64.000000000000001", "-o", "out.csv"], USAGE,
     "'-d': '64.000000000000001' is not a whole number", K),
    ("-n 1e-1", ["corr", "-n", "1e-1", "-o", "out.csv"], USAGE, "'-n': '1e-1' is not a whole number", K),
    ("-n 1e20 (a float past 2^64)", ["encode", "-n", "1e20", "-o", "out.csv"], USAGE, "'-n': 1e20 is too large", K),
    ("-n 1e999999999", ["encode", "-n", "1e999999999", "-o", "out.csv"], USAGE, "too large", K),
    ("--max-offset 2.5e0", ["decay", "--max-offset", "2.5e0", "-o", "out.csv"], USAGE, "'--max-offset'", K),
    ("--at 1.5", ["profile", "--at", "0,1.5", "-o", "out.csv"], USAGE, "'--at': '1.5'", K),
    ("--max-points 10.5", ["scatter", "--max-points", "10.5", "-o", "out.csv"], USAGE,
     "'--max-points': '10.5' is not a whole number", K),
    ("--max-memory 0.1 bytes", ["encode", "--max-memory", "0.1", "-o", "out.csv"], USAGE, "'--max-memory'", K),
    ("start= with a fraction", ["encode", "-s", "sinusoidal:start=4503599627370497.5", "-o", "out.csv"], USAGE,
     "key 'start'", K),
    # ---- class 7: the extension decides the format ----
    ("CSV into .html (encode)", ["encode", "-o", "out.html"], USAGE, "encode does not write HTML",
     {"setup": file_named("out.html")}),
    ("CSV into .htm (decay)", ["decay", "-o", "out.htm"], USAGE, "decay does not write HTML", {}),
    ("CSV into .HTML (compare)", ["compare", "-o", "out.HTML"], USAGE, "does not write HTML", {}),
    ("NPY into .html (bias)", ["bias", "-o", "x.html"], USAGE, "bias does not write HTML", {}),
    ("freqs into .html", ["freqs", "-o", "x.html"], USAGE, "freqs does not write HTML", {}),
    # ---- class 7: @FILE lists stop at nothing silently ----
    ("@FILE with a NUL byte", ["freqs", "-s", "rope:scaling=longrope,long-factor=@f.txt,short-factor=1",
                               "-d", "8", "-o", "out.csv"], USAGE, "NUL byte at offset 4",
     {"setup": files(f_txt=b"1 2 \x00 3 4"), "keep": True}),
    ("@FILE NUL at the start", ["freqs", "-s", "rope:scaling=longrope,long-factor=1/1/1/1,short-factor=@g.txt",
                                "-d", "8", "-o", "out.csv"], USAGE, "NUL byte at offset 0",
     {"setup": files(g_txt=b"\x001 1 1 1"), "keep": True}),
    ("@FILE of 17 MiB", ["freqs", "-s", "rope:scaling=longrope,long-factor=@/dev/zero,short-factor=1",
                         "-d", "8", "-o", "out.csv"], USAGE, "longer than 16 MiB", K),
    # ---- class 4: hard links are not split ----
    ("output with two hard links", ["encode", "-n", "2", "-d", "2", "-o", "out.csv"], RUNTIME,
     "it has 2 hard links", {"setup": lambda wd: os.link(os.path.join(wd, "out.csv"), os.path.join(wd, "twin.csv")),
                             "keep": True, "setup_after_keep": True}),
    ("a symlink loop", ["encode", "-o", "loop.csv"], RUNTIME, "Too many levels of symbolic links",
     {"setup": lambda wd: (os.symlink("loop2.csv", os.path.join(wd, "loop.csv")),
                           os.symlink("loop.csv", os.path.join(wd, "loop2.csv")))}),
    # ---- class 6: values whose squares are not finite ----
    ("table near DBL_MAX (distance)", ["distance", "-s", "file:path=b.npy", "-o", "out.csv"], RUNTIME,
     "value 1.7e+308 at row 0, column 0 is too large", {"setup": files(b_npy=BIG), "keep": True}),
    ("table near DBL_MAX (corr)", ["corr", "-s", "file:path=b.npy", "-o", "out.png"], RUNTIME, "too large",
     {"setup": files(b_npy=BIG, out_png=SENTINEL)}),
    ("table of 1e200 (decay)", ["decay", "-s", "file:path=c.npy", "-o", "out.csv"], RUNTIME,
     "value 3e+200 at row 1, column 1", {"setup": files(c_npy=BIG2), "keep": True}),
    ("table of 1e-200 (scatter)", ["scatter", "-s", "file:path=t.npy", "-o", "out.csv"], RUNTIME,
     "every value is below 1e-150", {"setup": files(t_npy=TINY), "keep": True}),
    ("table near DBL_MAX (compare)", ["compare", "-s", "file:path=b.npy", "-o", "out.csv"], RUNTIME,
     "too large", {"setup": files(b_npy=BIG), "keep": True}),
    ("learned std 1e-300", ["distance", "-s", "learned:std=1e-300", "-o", "out.csv"], USAGE, "key 'std'", K),
    # ---- class 1: the budget holds, and says how to raise it ----
    ("decay -d 2^20 over 16M", ["decay", "-d", "1048576", "--max-memory", "16M", "-o", "out.csv"], RUNTIME,
     "--max-memory", K),
    ("encode --raw -d 2^24 over 16M", ["encode", "--raw", "-d", "16777216", "--max-memory", "16M",
                                       "-o", "out.png"], RUNTIME, "raise the budget (--max-memory",
     {"setup": file_named("out.png")}),
    ("alibi 4096 heads figure over 16M", ["bias", "-s", "alibi:heads=4096", "--max-memory", "16M",
                                          "-o", "out.png"], RUNTIME, "raise the budget",
     {"setup": file_named("out.png")}),
    ("compare -d 100000 CSV over 16M", ["compare", "-d", "100000", "--max-memory", "16M", "-o", "out.csv"],
     RUNTIME, "raise the budget", K),
    ("report d=10^6 over 16M", ["report", "-d", "1000000", "--max-memory", "16M", "-o", "out.pdf"], RUNTIME,
     "raise the budget", {"setup": file_named("out.pdf")}),
    ("compare -n 1e9 figure", ["compare", "-n", "1e9", "-o", "out.png"],
     RUNTIME, "at most 16777216 positions",
     {"setup": file_named("out.png")}),
    ("distance --raw -n 1e6 over 16M", ["distance", "--raw", "-n", "1000000", "--max-memory", "16M",
                                        "-o", "out.png"], RUNTIME, "raise the budget",
     {"setup": file_named("out.png")}),
    ("96 MB safetensors header over 16M", ["encode", "-s", "h.safetensors#wpe", "--max-memory", "16M",
                                           "-o", "out.csv"], RUNTIME, "the safetensors header of 91.6 MiB needs",
     {"setup": files(h_safetensors=HUGE_HEADER), "keep": True}),
    # ---- class 5: file text reaches the terminal escaped ----
    ("a tensor name with escapes", ["encode", "-s", "e.safetensors#nope", "-o", "out.csv"], RUNTIME,
     "'wpe\\x1b[31m\\nposenc: error: forged\\u009b2J'", {"setup": files(e_safetensors=EVIL), "keep": True}),
    ("a file name with escapes", ["encode", "-s", "file:path=x\x1b]0;t\x07.npy", "-o", "out.csv"], RUNTIME,
     "'x\\x1b]0;t\\x07.npy': No such file", K),
    ("a CSV cell with escapes", ["encode", "-s", "file:path=x.csv", "-o", "out.npy"], RUNTIME, "\\x1b[2J",
     {"setup": files(x_csv="position,0,1\n0,1,2\n1,\x1b[2J\nposenc: error: x,4\n")}),
    # ---- clear lines for what a second pair of eyes tried ----
    ("a hexadecimal base", ["encode", "-s", "rope:base=0x10", "-n", "2", "-d", "4", "-o", "out.csv"],
     USAGE, "key 'base': '0x10' is not a number", {}),
    ("a budget in KiB said in KiB", ["encode", "-s", "file:path=m.npy", "--max-memory", "1K", "-o",
                                     "out.csv"], RUNTIME, "more than the limit of 1.0 KiB",
     {"setup": files(m_npy=npy_bytes("<f8", "(64, 4)", bytes(2048))), "keep": True}),
    ("a 100 kB spec echoed short", ["encode", "-s", "rope:base=" + "7" * 100000 + "x", "-n", "2",
                                    "-d", "4", "-o", "out.csv"], USAGE, "bytes ...] 777", {}),
    ("precision's points counted in its estimate", ["precision", "--block", "1", "-n", "1e8",
                                                     "-o", "out.png"], RUNTIME,
     "larger blocks (--block)", {}),
    ("layers of T5's stacks", ["layers", "-s", "model:t5-base", "-o", "out.csv"], USAGE,
     "are stacks of layers, not a list of them", {}),
]


def listing(wd):
    out = {}
    for root, dirs, files in os.walk(wd):
        for name in dirs + files:
            p = os.path.join(root, name)
            st = os.lstat(p)
            data = b""
            if os.path.isfile(p) and not os.path.islink(p):
                with open(p, "rb") as f:
                    data = f.read()
            out[os.path.relpath(p, wd)] = (st.st_mode, st.st_mtime_ns, data)
    return out


def target_of(args):
    for i, a in enumerate(args):
        if a == "-o" and i + 1 < len(args):
            return args[i + 1]
    return None


def check(name, args, want_rc, needle, opts, preexec=None, stdin=None):
    wd = tempfile.mkdtemp(prefix="posenc-bad-")
    try:
        if "setup" in opts and not opts.get("setup_after_keep"):
            opts["setup"](wd)
        if opts.get("keep"):
            path = os.path.join(wd, target_of(args))
            with open(path, "wb") as f:
                f.write(SENTINEL)
            os.utime(path, (OLD, OLD))
        if opts.get("setup_after_keep"):
            opts["setup"](wd)
        before = listing(wd)
        try:
            proc = subprocess.run([EXE, *args], cwd=wd, capture_output=True, timeout=120,
                                  preexec_fn=preexec, stdin=stdin)
            rc, err = proc.returncode, proc.stderr.decode("utf-8", "replace")
        except subprocess.TimeoutExpired:
            rc, err = "timeout", ""
        after = listing(wd)
        lines = [l for l in err.splitlines() if l]
        errors = [l for l in lines if l.startswith("posenc: error:")]
        others = [l for l in lines if not l.startswith("posenc: error:") and not l.startswith("Try 'posenc")]
        problems = []
        if rc != want_rc:
            problems.append(f"exit status {rc}, want {want_rc}")
        if len(errors) != 1:
            problems.append(f"{len(errors)} error lines")
        elif needle not in errors[0]:
            problems.append(f"the error does not name {needle!r}")
        if others:
            problems.append(f"other stderr lines: {others[:3]}")
        if any(b in err for b in BAD_STDERR):
            problems.append("a crash or sanitizer report")
        if after != before:
            changed = sorted(set(after) ^ set(before)) or sorted(
                k for k in after if after[k] != before.get(k))
            problems.append(f"files changed: {changed}")
        ok(not problems, f"{name}: posenc {' '.join(args)}", "; ".join(problems) + f"\nstderr: {err!r}")
    finally:
        shutil.rmtree(wd, ignore_errors=True)


for name, args, rc, needle, opts in CASES:
    check(name, args, rc, needle, dict(opts))

# "-0" is zero: --start takes it; -n says 0 is too small, as for "0"
r = subprocess.run([EXE, "encode", "-s", "rope", "-d", "4", "-n", "2", "--start", "-0", "-o",
                    "-"], capture_output=True, text=True, timeout=120)
ok(r.returncode == 0 and r.stdout.splitlines()[1] == "0,1,1,1,1",
   "--start -0 is position 0 (the all-ones vector unrotated)", r.stdout + r.stderr)
r = subprocess.run([EXE, "encode", "-s", "rope", "-n", "-0", "-o", "-"], capture_output=True,
                   text=True, timeout=120)
ok(r.returncode == USAGE and "'-n': -0 is too small (at least 1)" in r.stderr,
   "-n -0 is too small, as 0 is", r.stderr)

# ==== issue 29 ====
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gguf_write import gguf, STRING, UINT32, INT32, FLOAT32, ARRAY  # noqa: E402


def gguf_llama(extra_kvs=(), tensors=()):
    kvs = [("general.architecture", STRING, "llama"), ("llama.context_length", UINT32, 4096),
           ("llama.embedding_length", UINT32, 4096), ("llama.block_count", UINT32, 2),
           ("llama.attention.head_count", UINT32, 32), ("llama.rope.dimension_count", UINT32, 128),
           ("llama.rope.freq_base", FLOAT32, 10000.0)]
    keys = {k for k, _, _ in extra_kvs}
    return gguf([kv for kv in kvs if kv[0] not in keys] + list(extra_kvs), list(tensors))


LLAMA_CFG = json.dumps({"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32,
                        "num_hidden_layers": 2, "max_position_embeddings": 4096})
FIG_OPTS = [["--dpi", "300"], ["--style", "paper"], ["--width", "3in"], ["--height", "200"],
            ["--size", "300x200"], ["--font-size", "12"], ["--cmap", "magma"], ["--title", "x"],
            ["--vmin", "0"], ["--vmax", "1"]]
CASES29 = [
    # 8. wrong messages
    ("a config that is not JSON", ["freqs", "-s", "hf:c.json", "-o", "f.csv"], RUNTIME,
     "not JSON: invalid JSON at byte 1", {"setup": files(c_json="{,}")}),
    ("invalid UTF-8 in --title", ["encode", "-n", "4", "-d", "4", "--title", "\udcff", "-o", "e.png"], USAGE,
     "'--title': the text is not valid UTF-8", {}),
    ("invalid UTF-8 in label=", ["encode", "-s", "sinusoidal:label=\udcfe", "-n", "4", "-d", "4", "-o", "e.png"],
     USAGE, "its label is not valid UTF-8", {}),
    # 9. lenient input
    ("hf:c.json,, (an empty override)", ["freqs", "-s", "hf:c.json,,", "-o", "f.csv"], USAGE,
     "an empty key after ','", {"setup": files(c_json=LLAMA_CFG)}),
    ("hf:c.json, (an empty override)", ["freqs", "-s", "hf:c.json,", "-o", "f.csv"], USAGE,
     "an empty key after ','", {"setup": files(c_json=LLAMA_CFG)}),
    ("check --start past 2^53", ["check", "-s", "rope", "-d", "4", "--against", "d.npy", "--start",
                                 "9007199254740990"], USAGE, "pass 2^53",
     {"setup": files(d_npy=npy_bytes("<f8", "(4, 4)", bytes(128)))}),
    # the table's shape was read from the freed table (heap use after free under ASan)
    ("check --vector of a table", ["check", "-s", "rope", "--what", "rotated", "--vector", "v.csv",
                                   "--against", "a.csv"], RUNTIME,
     "'v.csv': expected one vector, found a 2 x 2 table",
     {"setup": files(v_csv="1,2\n3,4\n", a_csv="1,1\n1,1\n")}),
    ("malformed position ids: exit 1", ["encode", "-s", "mrope", "-d", "128", "--position-ids", "i.csv",
                                        "-o", "e.csv"], RUNTIME, "line 1: is not three numbers",
     {"setup": files(i_csv="0,0\n")}),
    ("position ids rounded before the whole test", ["encode", "-s", "mrope", "-d", "128", "--position-ids",
                                                    "i.csv", "-o", "e.csv"], RUNTIME,
     "4503599627370496.5 is not a whole number", {"setup": files(i_csv="0,0,0\n4503599627370496.5,1,1\n")}),
    ("gguf: negative M-RoPE sections", ["freqs", "-s", "gguf:m.gguf", "-o", "f.csv"], RUNTIME,
     "dimension_sections[1]: -8 is not a whole number",
     {"setup": files(m_gguf=gguf_llama([("llama.rope.dimension_sections", ARRAY, (INT32, [16, -8, 24, 0]))]))}),
    ("gguf: NaN M-RoPE sections", ["freqs", "-s", "gguf:m.gguf", "-o", "f.csv"], RUNTIME,
     "dimension_sections[0]: nan",
     {"setup": files(m_gguf=gguf_llama([("llama.rope.dimension_sections", ARRAY,
                                          (FLOAT32, [float("nan"), 24.0, 24.0, 0.0]))]))}),
    ("gguf: a 2-D rope_freqs", ["freqs", "-s", "gguf:m.gguf", "-o", "f.csv"], RUNTIME,
     "not a one-dimensional F32 tensor",
     {"setup": files(m_gguf=gguf_llama(tensors=[("rope_freqs.weight", [32, 2], [1.0] * 64)]))}),
    ("gguf: context_length -5", ["freqs", "-s", "gguf:m.gguf", "-o", "f.csv"], RUNTIME,
     "context_length: -5 is not a whole number",
     {"setup": files(m_gguf=gguf_llama([("llama.context_length", INT32, -5)]))}),
    # 10. options that do not apply
    ("--layer with a plain spec", ["encode", "-s", "rope", "--layer", "0", "-n", "4", "-d", "4", "-o", "e.csv"],
     USAGE, "option '--layer' picks a layer of a model spec", {}),
    ("model --config into a .csv", ["model", "model:llama-3.1-8b", "--config", "c.csv"], USAGE,
     "writes JSON, into a .json file", {}),
] + [(f"{o[0]} with a CSV output", ["encode", "-n", "4", "-d", "4", *o, "-o", "e.csv"], USAGE,
      f"option '{o[0] if o[0] != '--size' else '--width'}' applies to figures", K) for o in FIG_OPTS] + [
    (f"{o[0]} with -o -", ["freqs", *o, "-o", "-"], USAGE, "applies to figures", {}) for o in FIG_OPTS[:3]]
for name, args, rc, needle, opts in CASES29:
    # (str arguments reach the program through os.fsencode: "\udcff" is the byte 0xff)
    check(name, args, rc, needle, dict(opts))

# Unwritable folder: chmod 0500 stops everyone but root.
if os.geteuid() != 0:
    def ro_folder(wd):
        os.mkdir(os.path.join(wd, "ro"))
        os.chmod(os.path.join(wd, "ro"), 0o500)
    check("unwritable folder", ["encode", "-o", "ro/out.csv"], RUNTIME, "Permission denied",
          {"setup": ro_folder})
else:
    skip("unwritable folder (chmod 0500)", "running as root; covered by f.csv/out.csv, /proc and /sys")


# A file size limit (a quota, ulimit -f): the write fails part-way, the
# temporary file goes, and the existing target keeps its bytes.
def limit_fsize():
    resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))


check("file size limit (ulimit -f) during CSV", ["encode", "-n", "1000", "-o", "out.csv"], RUNTIME,
      "File too large", {"keep": True}, preexec=limit_fsize)
check("file size limit during NPY", ["corr", "-n", "100", "-o", "out.npy"], RUNTIME,
      "File too large", {"setup": file_named("out.npy")}, preexec=limit_fsize)
check("file size limit during a long bias CSV", ["bias", "-n", "64", "-o", "out.csv"], RUNTIME,
      "File too large", {"keep": True}, preexec=limit_fsize)
# The NPY file of a learned table, written in place by two threads in pieces
# (npy_panels.c, through row_pages.c): the failing positioned write ends it.
check("file size limit during a learned NPY in pieces",
      ["distance", "-s", "learned", "-n", "2000", "-d", "16", "-o", "out.npy"], RUNTIME,
      "File too large", {"setup": file_named("out.npy")}, preexec=limit_fsize)


# -o - into a pipe whose reader has gone (| head): a quiet SIGPIPE death, as GNU
# tools end; no message, no file. Not an error a user should see.
def closed_pipe(name, args):
    wd = tempfile.mkdtemp(prefix="posenc-bad-")
    try:
        r, w = os.pipe()
        os.close(r)
        proc = subprocess.run([EXE, *args], cwd=wd, stdout=w, stderr=subprocess.PIPE, timeout=120)
        os.close(w)
        err = proc.stderr.decode("utf-8", "replace")
        lines = [l for l in err.splitlines() if l]
        good = (proc.returncode == -signal.SIGPIPE and not lines
                and not any(b in err for b in BAD_STDERR) and os.listdir(wd) == [])
        ok(good, f"closed pipe: posenc {' '.join(args)}", f"rc={proc.returncode} stderr={err!r}")
    finally:
        shutil.rmtree(wd, ignore_errors=True)


closed_pipe("encode", ["encode", "-n", "2000", "-o", "-"])
closed_pipe("distance", ["distance", "-n", "300", "-o", "-"])
closed_pipe("bias", ["bias", "-n", "64", "-o", "-"])
closed_pipe("freqs", ["freqs", "-o", "-"])
closed_pipe("decay", ["decay", "-o", "-"])

print(f"# {len(CASES)} table cases", flush=True)
done()
