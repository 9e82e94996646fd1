#!/usr/bin/env python3
"""CLI tests of posenc decay, freqs and bias: CSV and NPY output against the
reference numbers of research/formulas.md, and the error paths (exit 2, one
'posenc: error:' line, no output file). Prints TAP. Standard library only.

Usage: cli_curves.py PATH/TO/posenc
"""
import ast
import csv
import io
import math
import os
import shutil
import struct
import subprocess
import sys
import tempfile

POSENC = os.path.abspath(sys.argv[1])
TMP = tempfile.mkdtemp(prefix="posenc-cli-curves-")
results = []


def run(*args):
    p = subprocess.run([POSENC, *args], capture_output=True, text=True, cwd=TMP)
    return p.returncode, p.stdout, p.stderr


def table(text):
    rows = list(csv.reader(io.StringIO(text)))
    return rows[0], [[float(x) for x in r] for r in rows[1:]]


def load_npy(path):
    with open(path, "rb") as f:
        raw = f.read()
    assert raw[:6] == b"\x93NUMPY", "not an NPY file"
    major = raw[6]
    if major == 1:
        (hlen,) = struct.unpack("<H", raw[8:10])
        start = 10
    else:
        (hlen,) = struct.unpack("<I", raw[8:12])
        start = 12
    header = ast.literal_eval(raw[start:start + hlen].decode("latin1"))
    code = {"<f8": "d", "<f4": "f"}[header["descr"]]
    data = raw[start + hlen:]
    values = struct.unpack("<%d%s" % (len(data) // struct.calcsize(code), code), data)
    return header["shape"], values


def near(a, b, tol):
    return abs(a - b) <= tol


def check(name, cond, detail=""):
    results.append((name, bool(cond), detail))


def test(fn):
    try:
        fn()
    except Exception as e:  # a crash inside a test is that test's failure
        check(fn.__name__, False, "%s: %s" % (type(e).__name__, e))
    return fn


def usage_error(name, args, needle):
    out = os.path.join(TMP, "never.csv")
    rc, _, err = run(*args, "-o", out)
    lines = err.strip().splitlines()
    check(name, rc == 2 and lines and lines[0].startswith("posenc: error: ") and needle in err
          and not os.path.exists(out), "rc %d, stderr %r" % (rc, err))


@test
def decay_csv_matches_6b_6c():
    rc, out, err = run("decay", "-s", "rope", "-s", "sinusoidal", "--max-offset", "100", "-o", "-")
    head, rows = table(out)
    check("decay: header offset,rope,sinusoidal", rc == 0 and head == ["offset", "rope", "sinusoidal"],
          str(head))
    check("decay: 101 rows, offsets 0..100", len(rows) == 101 and [r[0] for r in rows] == list(range(101)))
    six_b = {0: 64, 1: 62.093684, 2: 57.381861, 10: 42.820023, 50: 34.955011, 100: 30.543455}
    check("decay: sinusoidal [6b]", all(near(rows[k][2], v, 5e-7) for k, v in six_b.items()))
    six_c = {0: 128, 1: 124.187368, 10: 85.640046, 100: 61.086909}
    check("decay: rope all-ones [6c]", all(near(rows[k][1], v, 5e-7) for k, v in six_c.items()))
    check("decay: rope is twice sinusoidal",
          all(abs(r[1] - 2 * r[2]) <= 1e-12 * abs(r[1]) for r in rows))


@test
def decay_bound_matches_6a():
    rc, out, _ = run("decay", "-s", "rope", "--bound", "--max-offset", "250", "-o", "-")
    head, rows = table(out)
    ref = {0: 32.5, 1: 31.5382, 2: 28.9560, 5: 20.8454, 10: 17.9541, 20: 15.2424, 50: 12.6295,
           100: 10.2273, 200: 7.2448, 250: 6.5482}
    check("decay --bound: RoFormer bound [6a], d 128",
          rc == 0 and all(near(rows[k][1], v, 5e-5) for k, v in ref.items()))
    rc, out, _ = run("decay", "-s", "rope", "-d", "256", "--bound", "--max-offset", "250", "-o", "-")
    _, rows = table(out)
    ref = {0: 64.5, 10: 36.2177, 100: 18.6161, 250: 12.7884}
    check("decay --bound: d 256", rc == 0 and all(near(rows[k][1], v, 5e-5) for k, v in ref.items()))


@test
def decay_bases_and_npy():
    path = os.path.join(TMP, "decay.npy")
    rc, _, err = run("decay", "-s", "sinusoidal", "--base", "10000,10", "-d", "8", "--max-offset", "3",
                     "-o", path)
    shape, v = load_npy(path)
    check("decay --base: NPY (K+1, schemes)", rc == 0 and tuple(shape) == (4, 2), str(shape))
    # d 8: sum over w = base^(-2i/8), i < 4, of cos(k w)
    ok = True
    for k in range(4):
        for j, base in enumerate((10000.0, 10.0)):
            want = sum(math.cos(k * base ** (-2 * i / 8)) for i in range(4))
            ok &= near(v[k * 2 + j], want, 1e-12)
    check("decay --base: closed form per base", ok)
    rc, out, _ = run("decay", "-s", "binary", "-d", "2", "-n", "4", "-o", "-")
    _, rows = table(out)
    check("decay: binary mean over pairs by hand",
          rc == 0 and [r[1] for r in rows] == [1.0, 1.0 / 3.0, 0.5, 0.0], str(rows))


@test
def decay_errors():
    usage_error("decay: alibi has no vectors", ["decay", "-s", "alibi"], "attention bias")
    usage_error("decay: --bound needs rope", ["decay", "-s", "sinusoidal", "--bound"], "rope")
    usage_error("decay: offset beyond -n", ["decay", "-n", "5", "--max-offset", "5"], "--max-offset")
    usage_error("decay: bad --max-offset", ["decay", "--max-offset", "x"], "--max-offset")


@test
def freqs_default_rope():
    rc, out, err = run("freqs", "-o", "-")
    head, rows = table(out)
    check("freqs: columns", rc == 0 and head == [
        "pair", "theta", "wavelength", "linear_theta", "linear_ratio", "dynamic_theta",
        "dynamic_ratio", "yarn_theta", "yarn_ratio", "llama3_theta", "llama3_ratio"], str(head))
    check("freqs: 64 pairs", len(rows) == 64 and rows[63][0] == 63)
    wl = {0: (6.2832, 5e-5), 1: (7.2557, 5e-5), 32: (628.32, 5e-3), 63: (54410.1, 5e-2)}
    check("freqs: wavelengths [7a]", all(near(rows[i][2], v, t) for i, (v, t) in wl.items()))
    yarn = {0: 1, 20: 1, 21: 0.971154, 33: 0.625, 45: 0.278846, 46: 0.25, 63: 0.25}
    check("freqs: yarn ratios [3c]", all(near(rows[i][8], v, 5e-7) for i, v in yarn.items()))
    check("freqs: linear ratio 1/4", all(r[4] == 0.25 for r in rows))
    check("freqs: stderr yarn attention factor, low/high [3c]",
          "attention factor 1.1386294" in err and "low 20, high 46" in err, err)
    check("freqs: stderr critical dimension [7b]", "critical dimension 92 of 128" in err, err)


@test
def freqs_llama31_and_dynamic():
    path = os.path.join(TMP, "llama.csv")
    rc, _, err = run("freqs", "-s", "rope:base=500000,scaling=llama3", "-o", path)
    with open(path) as f:
        head, rows = table(f.read())
    smooth = [0.828168, 0.643743, 0.493507, 0.371122, 0.271425, 0.190211]
    ok = rc == 0 and head[3:] == ["llama3_theta", "llama3_ratio"]
    ok &= all(rows[i][4] == 1.0 for i in range(29))
    ok &= all(near(rows[29 + i][4], v, 5e-7) for i, v in enumerate(smooth))
    ok &= all(near(rows[i][4], 0.125, 1e-15) for i in range(35, 64))
    ok &= near(rows[20][3], 0.01656044, 5e-9) and near(rows[63][3], 3.068926e-07, 5e-14)
    check("freqs: llama3 for Llama 3.1 [3d]", ok)
    check("freqs: LLaMA-3 critical dimension 70", "critical dimension 70 of 128" in err, err)
    rc, _, err = run("freqs", "-s", "rope:scaling=dynamic,factor=2", "--length", "8192", "-o", "-")
    check("freqs --length: dynamic base [3b]", rc == 0 and "effective base 30527.7367" in err, err)
    rc, _, err = run("freqs", "-s", "rope:scaling=longrope,factor=32,long-factor=1/2,short-factor=1/1",
                     "-d", "4", "-o", "-")
    check("freqs: longrope attention factor [3e]", rc == 0 and "attention factor 1.1902381" in err, err)
    path = os.path.join(TMP, "freqs.npy")
    rc, _, _ = run("freqs", "-s", "sinusoidal", "-d", "8", "-o", path)
    shape, v = load_npy(path)
    check("freqs: sinusoidal NPY (pairs, 2)", rc == 0 and tuple(shape) == (4, 2)
          and near(v[2], 0.1, 1e-16) and near(v[7], 2 * math.pi * 1000, 1e-9))


@test
def freqs_errors():
    usage_error("freqs: learned has no frequencies", ["freqs", "-s", "learned"], "no frequencies")
    usage_error("freqs: alibi has no frequencies", ["freqs", "-s", "alibi"], "no frequencies")
    usage_error("freqs: odd rotary width", ["freqs", "-d", "7"], "even rotary width")
    usage_error("freqs: -n does not apply", ["freqs", "-n", "5"], "-n")
    usage_error("freqs: --length must be positive", ["freqs", "--length", "0"], "--length")


@test
def bias_alibi():
    rc, out, _ = run("bias", "-s", "alibi", "-n", "4", "-o", "-")
    rows = list(csv.reader(io.StringIO(out)))
    check("bias: long CSV header", rc == 0 and rows[0] == ["head", "query", "key", "bias"], str(rows[:1]))
    check("bias: 8 x 4 x 4 rows", len(rows) == 1 + 8 * 16)
    paper = [[0, "-inf", "-inf", "-inf"], [-0.5, 0, "-inf", "-inf"], [-1, -0.5, 0, "-inf"],
             [-1.5, -1, -0.5, 0]]
    got = [[r[3] for r in rows[1 + 4 * i:5 + 4 * i]] for i in range(4)]
    want = [[str(x) if isinstance(x, str) else "%g" % x for x in line] for line in paper]
    check("bias: paper form head 0 [4b]", got == want, str(got))
    path = os.path.join(TMP, "alibi.npy")
    rc, _, _ = run("bias", "-s", "alibi:heads=6,form=official", "-n", "4", "-o", path)
    shape, v = load_npy(path)
    ok = rc == 0 and tuple(shape) == (6, 4, 4)
    # heads=6: slopes [0.25, 0.0625, 0.015625, 0.00390625, 0.5, 0.125] [4a]; head 4 is m = 0.5
    for i in range(4):
        for j in range(4):
            want = -math.inf if j > i else 0.5 * j
            ok &= v[(4 * 4 + i) * 4 + j] == want
    check("bias: NPY (heads, n, n), official form [4b]", ok)
    rc, out, _ = run("bias", "-s", "alibi:heads=12", "-n", "2", "-o", "-")
    rows = list(csv.reader(io.StringIO(out)))[1:]
    slopes = [-float(r[3]) for r in rows if r[1] == "1" and r[2] == "0"]
    want = [0.5, 0.25, 0.125, 0.0625, 0.03125, 0.015625, 0.0078125, 0.00390625,
            0.70710678, 0.35355339, 0.17677670, 0.08838835]
    check("bias: 12-head slopes [4a]", len(slopes) == 12
          and all(near(a, b, 5e-9) for a, b in zip(slopes, want)), str(slopes))


@test
def bias_t5():
    path = os.path.join(TMP, "t5.npy")
    rc, _, _ = run("bias", "-s", "t5", "-n", "1200", "-o", path)
    shape, v = load_npy(path)
    n = 1200
    rel = [-1000, -200, -128, -127, -100, -64, -45, -32, -23, -16, -15, -12, -11, -9, -8, -7, -1, 0,
           1, 7, 8, 11, 12, 15, 16, 32, 64, 127, 200, 1000]
    bidir = [15, 15, 15, 15, 15, 14, 12, 12, 11, 10, 9, 9, 8, 8, 8, 7, 1, 0, 17, 23, 24, 24, 25, 25,
             26, 28, 30, 31, 31, 31]
    causal = [31, 31, 31, 31, 30, 26, 23, 21, 18, 16, 15, 12, 11, 9, 8, 7, 1, 0, 0, 0, 0, 0, 0, 0,
              0, 0, 0, 0, 0, 0]

    def at(values, r):  # query 1100 for negative offsets, 100 for positive ones
        q = 1100 if r < 0 else 100
        return values[q * n + q + r]

    check("bias: t5 NPY (n, n)", rc == 0 and tuple(shape) == (n, n))
    check("bias: t5 bidirectional table [5]", all(at(v, r) == b for r, b in zip(rel, bidir)))
    rc, _, _ = run("bias", "-s", "t5:bidirectional=0", "-n", "1200", "-o", path)
    _, v = load_npy(path)
    check("bias: t5 causal table [5]", rc == 0 and all(at(v, r) == b for r, b in zip(rel, causal)))
    rc, out, _ = run("bias", "-s", "t5", "-n", "3", "-o", "-")
    check("bias: t5 CSV query rows, key columns",
          out == "query,0,1,2\n0,0,17,18\n1,1,0,17\n2,2,1,0\n", repr(out))


@test
def bias_errors():
    usage_error("bias: sinusoidal is not a bias", ["bias", "-s", "sinusoidal"], "not an attention bias")
    usage_error("bias: rope is not a bias", ["bias", "-s", "rope"], "not an attention bias")
    usage_error("bias: -d does not apply", ["bias", "-d", "8"], "-d")
    usage_error("bias: t5 with too few buckets", ["bias", "-s", "t5:buckets=2"], "t5")


@test
def help_and_table():
    rc, out, _ = run("--help")
    check("posenc --help lists decay, freqs, bias",
          rc == 0 and all("  %s " % c in out for c in ("decay", "freqs", "bias")))
    for c in ("decay", "freqs", "bias"):
        rc, out, _ = run(c, "--help")
        check("posenc %s --help" % c, rc == 0 and out.startswith("Usage: posenc %s" % c))


shutil.rmtree(TMP, ignore_errors=True)
print("TAP version 13")
print("1..%d" % len(results))
for i, (name, ok, detail) in enumerate(results, 1):
    print("%s %d - %s" % ("ok" if ok else "not ok", i, name))
    if not ok and detail:
        for line in detail.splitlines()[:10]:
            print("# " + line)
