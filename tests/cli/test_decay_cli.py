#!/usr/bin/env python3
"""posenc decay, run as a user runs it: doc/conventions.md §6 numbers, NPY, errors."""
import csv
import io
import math
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from npyread import load_npy  # noqa: E402
from tap import done, error_case, ok, run, workdir  # noqa: E402

EXE = os.path.abspath(sys.argv[1])
TMP = workdir()


def table(text):
    rows = list(csv.reader(io.StringIO(text)))
    return rows[0], [[float(x) for x in r] for r in rows[1:]]


def near(a, b, tol):
    return abs(a - b) <= tol


r = run(EXE, "decay", "-s", "rope", "-s", "sinusoidal", "--max-offset", "100", "-o", "-")
head, rows = table(r.text)
ok(r.rc == 0 and head == ["offset", "rope", "sinusoidal"], "decay CSV header: offset, labels", head)
ok(len(rows) == 101 and [x[0] for x in rows] == list(range(101)), "decay rows are offsets 0..100")
six_b = {0: 64, 1: 62.093684, 2: 57.381861, 10: 42.820023, 50: 34.955011, 100: 30.543455}
ok(all(near(rows[k][2], v, 5e-7) for k, v in six_b.items()), "decay sinusoidal d=128 [6b]",
   [rows[k][2] for k in six_b])
six_c = {0: 128, 1: 124.187368, 10: 85.640046, 100: 61.086909}
ok(all(near(rows[k][1], v, 5e-7) for k, v in six_c.items()), "decay rope all-ones d=128 [6c]",
   [rows[k][1] for k in six_c])
ok(all(abs(x[1] - 2 * x[2]) <= 1e-12 * abs(x[1]) for x in rows),
   "decay rope all-ones is exactly twice sinusoidal")

r = run(EXE, "decay", "-s", "rope", "--bound", "--max-offset", "250", "-o", "-")
_, rows = table(r.text)
ref = {0: 32.5, 1: 31.5382, 2: 28.9560, 5: 20.8454, 10: 17.9541, 20: 15.2424, 50: 12.6295,
       100: 10.2273, 200: 7.2448, 250: 6.5482}
ok(r.rc == 0 and all(near(rows[k][1], v, 5e-5) for k, v in ref.items()),
   "decay --bound RoFormer bound d=128 [6a]", [rows[k][1] for k in ref])
r = run(EXE, "decay", "-s", "rope", "-d", "256", "--bound", "--max-offset", "250", "-o", "-")
_, rows = table(r.text)
ref = {0: 64.5, 10: 36.2177, 100: 18.6161, 250: 12.7884}
ok(r.rc == 0 and all(near(rows[k][1], v, 5e-5) for k, v in ref.items()),
   "decay --bound d=256 [6a]", [rows[k][1] for k in ref])

path = os.path.join(TMP, "decay.npy")
r = run(EXE, "decay", "-s", "sinusoidal", "--base", "10000,10", "-d", "8", "--max-offset", "3",
        "-o", path)
shape, v = load_npy(path)
ok(r.rc == 0 and shape == (4, 2), "decay --base 10000,10 NPY shape (K+1, schemes)", shape)
want = [sum(math.cos(k * b ** (-2 * i / 8)) for i in range(4)) for k in range(4)
        for b in (10000.0, 10.0)]
ok(all(near(a, b, 1e-12) for a, b in zip(v, want)), "decay --base: sum cos(k w_i) per base", v)

r = run(EXE, "decay", "-s", "binary", "-d", "2", "-n", "4", "-o", "-")
_, rows = table(r.text)
# positions 0..3 are (0,0) (1,0) (0,1) (1,1): mean dot products by hand
ok(r.rc == 0 and [x[1] for x in rows] == [1.0, 1.0 / 3.0, 0.5, 0.0],
   "decay binary: mean over pairs, -n 4 gives offsets 0..3", rows)

r = run(EXE, "decay", "--help")
ok(r.rc == 0 and r.text.startswith("Usage: posenc decay"), "decay --help")

for name, args, needle in [
    ("decay of alibi", ["decay", "-s", "alibi"], "attention bias"),
    ("decay of t5", ["decay", "-s", "t5"], "attention bias"),
    ("--bound of sinusoidal", ["decay", "-s", "sinusoidal", "--bound"], "only for rope"),
    ("--max-offset beyond -n", ["decay", "-n", "5", "--max-offset", "5"], "--max-offset"),
    ("--max-offset not a number", ["decay", "--max-offset", "x"], "--max-offset"),
]:
    empty = workdir()
    error_case(EXE, name, args + ["-o", "out.csv"], 2, needle, cwd=empty)

done()
