#!/usr/bin/env python3
"""posenc check of dumps written as text: what the digits say about the numbers.

The dumps are made here by numpy from Hugging Face's recipe
(LlamaRotaryEmbedding: inv_freq = 1 / base ** (arange(0, d, 2) / d), freqs =
outer(t, inv_freq), emb = cat(freqs, freqs), cos = emb.cos(); a float32 port does
every step in float32) and written the ways people write them: np.savetxt with
its default "%.18e" (float32 numbers exactly), "%.9g", str() of numpy float32
(the shortest digits that name the float32: what pandas writes), "%.6f" and
"%.4f" of float64 values. A text dump cannot be closer to the exact values than
its last digit: half a unit of it is allowed for, and said. Float32 numbers are
judged as a float32 .npy is."""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
from tap import done, ok, require_numpy, run, workdir  # noqa: E402

np = require_numpy("posenc check of text dumps")

EXE = os.path.abspath(sys.argv[1])
TMP = workdir()
N, D = 2048, 64
SPEC = "rope:layout=half"


def path(name):
    return os.path.join(TMP, name)


def cos_table(dtype, base=10000.0, interleaved=False):
    inv = (dtype(1) / (dtype(base) ** (np.arange(0, D, 2).astype(dtype) / dtype(D)))).astype(dtype)
    freqs = np.outer(np.arange(N).astype(dtype), inv).astype(dtype)
    emb = np.repeat(freqs, 2, axis=1) if interleaved else np.concatenate([freqs, freqs], axis=1)
    return np.cos(emb).astype(dtype)


def write(name, table, fmt=None, shortest=False):
    if shortest:
        with open(path(name), "w") as f:
            for row in table:
                f.write(",".join(str(x) for x in row) + "\n")
    elif fmt:
        np.savetxt(path(name), table, delimiter=",", fmt=fmt)
    else:
        np.savetxt(path(name), table, delimiter=",")
    return path(name)


def check(name, *extra):
    return run(EXE, "check", "-s", SPEC, "--against", path(name), "--what", "cos", *extra)


exact = cos_table(np.float64)
port = cos_table(np.float32)
ok(np.abs(port.astype(np.float64) - exact).max() > 1e-5,
   "the float32 port is far from exact at these positions (what float32 angles cost)")

# float32 numbers, however written: judged as a float32 .npy is
np.save(path("port.npy"), port)
npy = check("port.npy")
for name, how in (("f32_savetxt.csv", {}), ("f32_9g.csv", {"fmt": "%.9g"}),
                  ("f32_shortest.csv", {"shortest": True})):
    write(name, port, **how)
    r = check(name)
    ok(r.rc == 0 and "float32 numbers" in r.text and "agree up to float32 rounding" in r.text
       and "computed in f32" in r.text,
       f"{name}: a float32 port written as text agrees up to float32 rounding, as its .npy",
       r.text + r.err)
    ok(r.text.split("reference:")[1] == npy.text.split("reference:")[1],
       f"{name}: the same report as the .npy from the reference on", (r.text, npy.text))

# bfloat16 numbers written as float32 text (a bf16 cache .float() then printed)
bf = port.view(np.uint32)
bf = ((bf + 0x7FFF + ((bf >> 16) & 1)) & 0xFFFF0000).view(np.float32)
r = check(write("bf16.csv", bf, shortest=True).split(os.sep)[-1])
ok(r.rc == 0 and "bfloat16 numbers" in r.text and "agree" in r.text,
   "bfloat16 values written as text: read as bfloat16 storage", r.text + r.err)

# a float32 port with a mistake is still named
write("f32_interleaved.csv", cos_table(np.float32, interleaved=True), fmt="%.9g")
r = check("f32_interleaved.csv")
ok(r.rc == 3 and "float32 numbers" in r.text and "interleaved" in r.text.split("diagnosis:")[-1],
   "a float32 port with the interleaved layout, as text: disagree, the layout named",
   r.text + r.err)

# float64 values rounded by the format: half a unit of the last digit is allowed
for name, fmt, said, allowed in (("f64_6f.csv", "%.6f", "6 decimals", 5e-7),
                                 ("f64_4f.csv", "%.4f", "4 decimals", 5e-5),
                                 ("f64_9g.csv", "%.9g", "9 significant digits", 5e-9),
                                 ("f64_8g.csv", "%.8g", "8 significant digits", 5e-8),
                                 ("f64_7g.csv", "%.7g", "7 significant digits", 5e-7)):
    write(name, exact, fmt=fmt)
    err = np.abs(np.loadtxt(path(name), delimiter=",") - exact).max()
    r = check(name)
    plus = ("plus %.3g" % allowed if "decimals" in said else
            "plus half a unit of the value's last digit (%s: at most %.3g"
            % (said.replace(" digits", ""), allowed))
    ok(r.rc == 0 and said in r.text and "agree (every |error| <= 1e-09" in r.text
       and plus in r.text and err > (1e-9 if allowed > 5e-9 else 1e-10),
       f"{name}: exact values written with {fmt} (error {err:.2g}) agree, "
       f"plus {allowed:g} for the digits", r.text + r.err)

# Significant digits round each value by half a unit of its own last digit: 0.54 in
# "%g" by up to 5e-7, 1.2e-5 by 5e-11, not by the 5e-6 of a value from 1 up. (Allowing
# the largest for every value passed a float32 port written with "%g", 8 units of the
# 6th digit off below 1, as exact values; and a value near 0 off by 3e-6.)
m = 128
write("f32_g.csv", port[:m], fmt="%g")
f32err = np.abs(port[:m].astype(np.float64) - exact[:m])
ok(f32err.max() > 2e-6, "the float32 port's first 128 rows are 2e-6 off somewhere",
   f32err.max())
r = check("f32_g.csv")
ok(r.rc == 3 and "6 significant digits" in r.text and "disagree" in r.text
   and "computed in reduced precision: every step in float32" in r.text
   and "partly" not in r.text,
   "a float32 port written with %g: disagree with the exact values, float32 named whole",
   r.text + r.err)
write("f32_6f.csv", port[:m], fmt="%.6f")
r = check("f32_6f.csv")
ok(r.rc == 3 and "6 decimals" in r.text
   and "diagnosis:      computed in reduced precision: every step in float32" in r.text,
   "a float32 port written with %.6f: float32 named, not 'partly' (the digits' "
   "rounding is in every error)", r.text + r.err)
near0 = exact[:m].copy()
i, j = np.unravel_index(np.argmin(np.abs(near0) + (np.abs(near0) < 1e-8)), near0.shape)
ok(abs(near0[i, j]) < 1e-2, "a cos value near 0 in the table", near0[i, j])
near0[i, j] += 3e-6
write("f64_g_near0.csv", near0, fmt="%g")
r = check("f64_g_near0.csv")
ok(r.rc == 3 and f"position {i}, column {j}" in r.text and "disagree" in r.text,
   f"exact values in %g, one near 0 ({exact[i, j]:.3g}) off by 3e-6: disagree there",
   r.text + r.err)
write("f64_g.csv", exact[:m], fmt="%g")
r = check("f64_g.csv")
ok(r.rc == 0 and "agree" in r.text, "the exact values in %g agree", r.text + r.err)

# The error figure's tolerance line, digits allowed for: 1e-9 + 5e-7 for "%.6f" at any
# value; for "%g" half a unit of the 6th digit of a value from 0.1 to 1, also 5e-7 (it
# was 5e-6, the unit of values from 1 up: every error of a disagreeing float32 port lay
# under the line)
def pdf_text(name):
    return subprocess.run(["pdftotext", path(name), "-"], capture_output=True,
                          text=True).stdout


for dump, fig, line in (("f32_g.csv", "f32_g.pdf", "tolerance 5.01e-07 (a value from 0.1 to 1)"),
                        ("f32_6f.csv", "f32_6f.pdf", "tolerance 5.01e-07")):
    r = check(dump, "-o", path(fig))
    ok(r.rc == 3 and line in pdf_text(fig), f"{dump}: the figure's line reads '{line}'",
       pdf_text(fig) + r.err)

# the allowance is only the digits': a wrong base written with 4 decimals disagrees
write("f64_4f_base.csv", cos_table(np.float64, base=12000.0), fmt="%.4f")
r = check("f64_4f_base.csv")
ok(r.rc == 3 and "4 decimals" in r.text and "disagree" in r.text and "base" in r.text,
   "a wrong base written with 4 decimals: disagree, the base named", r.text + r.err)

# a given tolerance is the user's: the digits are not added to it
r = check("f64_6f.csv", "--tol", "1e-9")
ok(r.rc == 3 and "plus" not in r.text, "--tol 1e-9 with 6 decimals: disagree", r.text + r.err)

# Fixed decimals round every value by the same amount whatever its size: an angle
# of 2000 written with %.6f is off by 5e-7 at most, not 5e-7 x 2000.
angles = np.outer(np.arange(N, dtype=np.float64),
                  1.0 / 10000.0 ** (np.arange(0, D, 2, dtype=np.float64) / D))
write("ang_6f.csv", angles, fmt="%.6f")
r = run(EXE, "check", "-s", "rope", "--against", path("ang_6f.csv"), "--what", "angle:pairs")
ok(r.rc == 0 and "agree (every |error| <= 1e-09 * max(1, |value|) plus 5e-07" in r.text,
   "angles up to 2047 written with %.6f agree, plus 5e-07 for the digits", r.text + r.err)
off = angles.copy()
off[2000, 0] += 2e-5  # 40 units of the last decimal: no rounding makes it
write("ang_6f_off.csv", off, fmt="%.6f")
r = run(EXE, "check", "-s", "rope", "--against", path("ang_6f_off.csv"), "--what", "angle:pairs")
ok(r.rc == 3 and "disagree" in r.text and "position 2000, column 0" in r.text,
   "an angle of 2000 off by 2e-5 with %.6f disagrees (5e-7 is not relative to 2000)",
   r.text + r.err)
# integers: d = 2 angles are the positions; 1.4 m rounded is up to 25 from m
write("ang_int.csv", np.round(1.4 * np.arange(64.0))[:, None], fmt="%d")
r = run(EXE, "check", "-s", "rope", "-d", "2", "--against", path("ang_int.csv"), "--what",
        "angle:pairs")
ok(r.rc == 3 and "disagree" in r.text and "0 decimals" in r.text,
   "integer angles 1.4 m for m disagree (half a unit of 0 decimals is 0.5, not 50%)",
   r.text + r.err)

# The digits are sampled over every column: 16384 x 32 values sampled every 32nd
# would be column 0 alone, the positions (whole numbers) of an angle table, and a
# full-precision dump of the wrong base read as 0 decimals, 0.5 allowed.
wide = np.outer(np.arange(16384, dtype=np.float64),
                1.0 / 10001.0 ** (np.arange(0, D, 2, dtype=np.float64) / D))
write("ang_base.csv", wide)
r = run(EXE, "check", "-s", "rope", "--against", path("ang_base.csv"), "--what", "angle:pairs")
ok(r.rc == 3 and "decimals" not in r.text and "base 10001" in r.text,
   "full-precision angles of base 10001 at 16384 x 32: disagree, the base named", r.text + r.err)

# A first column of consecutive integers under no header is an index to the CSV reader
# (pandas' to_csv(header=False)), but np.savetxt's "%.17g" or "%g" writes an angle
# table's pair 0 (theta_0 = base^0 = 1) as the positions 0, 1, 2, ...: that column was
# dropped, and a correct table disagreed with 'positions off by -15'. Both readings are
# tried; the one nearer the spec is checked, and the against line says which.
ang128 = angles[:128]
for name, fmt in (("ang_17g.csv", "%.17g"), ("ang_g.csv", "%g")):
    write(name, ang128, fmt=fmt)
    ok(open(path(name)).read().split("\n")[2].startswith("2,"),
       f"{name}: column 0 is written 0, 1, 2, ... (whole numbers as integers)", "")
    r = run(EXE, "check", "-s", "rope", "--against", path(name))
    ok(r.rc == 0 and "shape (128, 32)" in r.text and "first column (consecutive integers, "
       "not named an index) read as values" in r.text and "angle table, one column per pair (32, "
       "d=64)" in r.text and "agree" in r.text,
       f"{name}: an exact angle table written with {fmt} agrees, its first column kept",
       r.text + r.err)
# np.savetxt(header=..., comments=""): a header of column names, the first "pair0", is no
# index name, so that column may be data too and is read both ways; a header cell that names
# an index ("position", as pandas' index label) keeps it an index, read once.
names = ",".join("pair%d" % i for i in range(ang128.shape[1]))
np.savetxt(path("ang_named.csv"), ang128, delimiter=",", fmt="%.17g", header=names, comments="")
r = run(EXE, "check", "-s", "rope", "--against", path("ang_named.csv"))
ok(r.rc == 0 and "shape (128, 32)" in r.text and "read as values" in r.text and
   "agree" in r.text,
   "an angle table under a header of column names: its first column kept, agree",
   r.text + r.err)
with open(path("cos_position.csv"), "w") as f:
    f.write("position," + ",".join("c%d" % j for j in range(exact.shape[1])) + "\n")
    for i, row in enumerate(exact[:128]):
        f.write(f"{i}," + ",".join(repr(float(x)) for x in row) + "\n")
r = check("cos_position.csv")
ok(r.rc == 0 and "shape (128, 64)" in r.text and "read as values" not in r.text and
   "skipped as an index" not in r.text and "agree" in r.text,
   "a cos table whose header names its first column 'position': an index, read once",
   r.text + r.err)
wrong = np.outer(np.arange(128.0), 1.0 / 10001.0 ** (np.arange(0, D, 2, dtype=np.float64) / D))
write("ang_17g_base.csv", wrong, fmt="%.17g")
r = run(EXE, "check", "-s", "rope", "--against", path("ang_17g_base.csv"))
ok(r.rc == 3 and "shape (128, 32)" in r.text and "base 10001 instead of 10000" in r.text,
   "the same of base 10001: disagree, the base named (not positions off)", r.text + r.err)
with open(path("cos_index.csv"), "w") as f:
    for i, row in enumerate(exact[:128]):
        f.write(f"{i}," + ",".join(repr(float(x)) for x in row) + "\n")
r = check("cos_index.csv")
ok(r.rc == 0 and "shape (128, 64)" in r.text and "skipped as an index" in r.text
   and "agree" in r.text,
   "a cos table with an index column 0, 1, 2, ... and no header: the index skipped",
   r.text + r.err)
# The second reading opens the dump again: a FIFO's would wait for a writer that never
# comes (check hung), a pipe's bytes are gone. Those are read once, the column an index.
fifo = path("ang_fifo.csv")
os.mkfifo(fifo)
writer = subprocess.Popen(["cp", path("ang_17g.csv"), fifo])
try:
    p = subprocess.run([EXE, "check", "-s", "rope", "--against", fifo], capture_output=True,
                       text=True, timeout=30)
    hung = False
except subprocess.TimeoutExpired:
    hung = True  # in its second opening: cp was done
writer.wait()
ok(not hung and p.returncode == 3 and "shape (128, 31)" in p.stdout
   and "skipped as an index" in p.stdout,
   "an angle table through a FIFO: read once, its first column an index (no hang)",
   "hung" if hung else p.stdout + p.stderr)
with open(path("ang_17g.csv"), "rb") as f:
    r = run(EXE, "check", "-s", "rope", "--against", "/dev/stdin", stdin=f)
ok(r.rc == 0 and "read as values" in r.text,
   "the same table on stdin from a regular file: read both ways", r.text + r.err)

# too few digits to check by: whole numbers, 2 decimals, 3 significant digits are judged
# against the exact values as they are, and the report says why nothing is allowed for
write("ones.csv", np.ones((2, 1)), fmt="%d")
r = run(EXE, "check", "-s", "rope", "-d", "2", "--against", path("ones.csv"), "--what",
        "cos:pairs")
ok(r.rc == 3 and "0 decimals: too few to allow for" in r.text and "plus" not in r.text,
   "a row of 1s is no cos table of positions 0, 1 (cos 1 = 0.54): disagree", r.text + r.err)
for name, fmt, said in (("f64_2f.csv", "%.2f", "2 decimals: too few"),
                        ("f64_3g.csv", "%.3g", "3 significant digits: too few")):
    write(name, exact, fmt=fmt)
    r = check(name)
    ok(r.rc == 3 and said in r.text and "plus" not in r.text,
       f"{name}: exact values written with {fmt}: too few digits, judged as they are", r.text)

# full precision (np.savetxt of float64, "%.17g"): as before, 1e-9, nothing added
for name, fmt in (("f64_full.csv", None), ("f64_17g.csv", "%.17g")):
    write(name, exact, fmt=fmt)
    r = check(name)
    ok(r.rc == 0 and "agree (every |error| <= 1e-09 * max(1, |value|))" in r.text
       and "float32" not in r.text and "decimals" not in r.text,
       f"{name}: full-precision float64 text agrees at 1e-9, nothing allowed for", r.text)

done()
