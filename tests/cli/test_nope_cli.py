#!/usr/bin/env python3
"""The nope scheme (no positional encoding) run as a user runs it.

NoPE adds nothing to the token embeddings, so posenc shows the all-zero
table; what each analysis gives follows by hand: every row is the zero
vector, so l2/l1/linf distances are 0, every dot product is 0 (decay flat
at 0), cosine distance and Pearson correlation divide 0 by 0 (NaN, as
numpy's corrcoef of constant rows gives nan), and there are no
frequencies, views or biases to ask for.
"""
import csv
import io
import math
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from npyread import load_npy  # noqa: E402
from tap import done, ok, run, workdir  # noqa: E402

EXE = os.path.abspath(sys.argv[1])
TMP = workdir()


def cells(text):
    rows = list(csv.reader(io.StringIO(text)))
    return rows[0], [[float(x) for x in r[1:]] for r in rows[1:]]


path = os.path.join(TMP, "nope.npy")
r = run(EXE, "encode", "-q", "-s", "nope", "-n", "5", "-d", "6", "-o", path)
arr = load_npy(path) if r.rc == 0 else None
ok(arr is not None and arr[0] == (5, 6) and len(arr[1]) == 30 and all(x == 0.0 for x in arr[1]),
   "encode nope: a 5 x 6 table of zeros", r.err)

for metric in ("l2", "l1", "linf"):
    r = run(EXE, "distance", "-s", "nope", "--metric", metric, "-n", "7", "-d", "8", "-o", "-")
    _, m = cells(r.text)
    ok(r.rc == 0 and len(m) == 7 and all(x == 0.0 for row in m for x in row),
       f"distance --metric {metric}: every pair 0", r.err)

for args, what in ((["distance", "--metric", "cosine"], "cosine distance"),
                   (["corr"], "Pearson correlation")):
    r = run(EXE, *args, "-s", "nope", "-n", "4", "-d", "8", "-o", "-")
    _, m = cells(r.text)
    ok(r.rc == 0 and len(m) == 4 and all(math.isnan(x) for row in m for x in row),
       f"{what} of zero vectors: NaN everywhere (0/0)", r.text + r.err)

# Past the size where the blocked kernels and threads take over.
r = run(EXE, "decay", "-s", "nope", "-d", "64", "--max-offset", "600", "-o", "-")
head, m = cells(r.text)
ok(r.rc == 0 and head == ["offset", "nope"] and len(m) == 601 and all(x == [0.0] for x in m),
   "decay nope: flat at 0 for offsets 0..600", r.err)

r = run(EXE, "compare", "-s", "nope", "-n", "32", "-d", "16", "-o", "-")
rows = list(csv.DictReader(io.StringIO(r.text)))
ok(r.rc == 0 and len(rows) == 1 and float(rows[0]["distance_max"]) == 0.0
   and math.isnan(float(rows[0]["corr_max"])) and float(rows[0]["decay_1"]) == 0.0
   and math.isnan(float(rows[0]["wavelength_min"])),
   "compare nope: distance 0, correlation NaN, decay 0, no wavelengths", r.text + r.err)

for args, needle in ((["freqs", "-s", "nope"], "has no frequencies"),
                     (["bias", "-s", "nope"], "not an attention bias"),
                     (["encode", "-s", "nope", "--view", "cos", "-o", "-"], "views"),
                     (["decay", "-s", "nope", "--bound", "-o", "-"], "only for rope"),
                     (["encode", "-s", "nope:base=10", "-o", "-"], "unknown key 'base' for nope")):
    r = run(EXE, *args)
    ok(r.rc == 2 and r.err.startswith("posenc: error:") and needle in r.err
       and len(r.err.splitlines()) <= 2, f"{' '.join(args[:3])}: usage error naming why", r.err)

r = run(EXE, "encode", "-s", "nope:label=no position", "-n", "2", "-d", "2", "-o", "-")
ok(r.rc == 0 and r.text.splitlines()[1:] == ["0,0,0", "1,0,0"], "nope takes label=", r.text)

# A hybrid model: Qwen 3.5 27B (tests/fixtures/hf/SOURCES.md) has full
# attention with RoPE in every fourth layer (3, 7, ..., 63: rope_theta 1e7,
# head_dim 256, partial_rotary_factor 0.25, so 64 rotated dims, 32 pairs)
# and Gated DeltaNet linear attention, without positions, in the others.
# Without --layer, a command shows the RoPE layers, the NoPE ones only when
# asked for.
QWEN = "hf:" + os.path.join(os.path.dirname(__file__), "..", "fixtures", "hf", "qwen3.5-27b.json")
r = run(EXE, "freqs", "-s", QWEN, "-o", "-")
rows = list(csv.DictReader(io.StringIO(r.text)))
want = [1e7 ** (-2 * i / 64) for i in range(32)]
ok(r.rc == 0 and len(rows) == 32
   and all(abs(float(x["theta"]) - w) <= 1e-15 * w for x, w in zip(rows, want))
   and "showing 'rope' (layers 3,7,11," in r.err,
   "hybrid model: freqs shows the RoPE layers' 32 pairs, theta_i = 1e7^(-2i/64), and says so",
   r.text[:200] + r.err)
# decay of the all-ones query and key over the 256-wide head: the 192
# unrotated dims add 1 each, each rotated pair 2 cos(m theta_i)
r = run(EXE, "decay", "-s", QWEN, "--max-offset", "4", "-o", "-")
lines = r.text.splitlines()
ok(r.rc == 0 and lines[0] == "offset,qwen3.5-27b rope" and len(lines) == 6
   and all(abs(float(lines[1 + m].split(",")[1])
               - (192 + sum(2 * math.cos(m * t) for t in want))) <= 1e-12 for m in range(5)),
   "hybrid model: decay has the RoPE group only, 192 + sum 2cos(m theta_i)", r.text[:200] + r.err)
r = run(EXE, "freqs", "-s", QWEN, "--layer", "nope")
ok(r.rc == 2 and "has no frequencies" in r.err, "--layer nope still selects the NoPE layers", r.err)

done()
