#!/usr/bin/env python3
"""File tables cost their own size once, not twice, and exports stream (issues 16, 17).

A learned table read from a file is converted straight into the float64
matrix the analyses use: the file's bytes are never held whole beside it
(NPY and safetensors are read from their headers into the matrix, CSV is
parsed as its text arrives). Each case runs `posenc encode`, which writes
the loaded rows back out without another copy, and checks the peak RSS of
the process (unsanitized builds only: sanitizers keep shadow memory)
against the size of the float64 table, and the values against numpy,
which wrote the files (np.save, np.savetxt, the safetensors layout).
"""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
from tap import done, numpy_python, ok, skip, workdir  # noqa: E402

EXE = os.path.abspath(sys.argv[1])
wd = workdir()
MiB = 1 << 20

with open(EXE, "rb") as f:
    _image = f.read()
SANITIZED = b"__asan_init" in _image or b"__ubsan_handle" in _image


# A child's peak RSS starts at its parent's peak (fork copies the counters),
# so posenc is started by a small launcher process, not by this one.
LAUNCH = """import os, sys
pid = os.fork()
if pid == 0:
    fd = os.open(os.devnull, os.O_WRONLY)
    os.dup2(fd, 1)
    os.execv(sys.argv[1], sys.argv[1:])
_, status, usage = os.wait4(pid, 0)
print(os.waitstatus_to_exitcode(status), usage.ru_maxrss * 1024)
"""


def run_rss(args):
    """Runs posenc in wd; returns (exit status, stderr, peak RSS in bytes)."""
    p = subprocess.run([sys.executable, "-S", "-c", LAUNCH, EXE, *args], cwd=wd,
                       capture_output=True, text=True, timeout=120)
    rc, rss = p.stdout.split()
    return int(rc), p.stderr, int(rss)


def baseline():
    """The process's own cost (libraries, start-up), with no table at all."""
    return run_rss(["encode", "-n", "4", "-d", "4", "-o", "base.npy", "-q"])[2]


py = numpy_python()
if py is None:
    skip("peak RSS of file tables", "numpy is not installed")
    done()

# The files, written by numpy: a float64 NPY of 96 MiB (large enough that the
# process's fixed cost does not hide a second copy, quick to write and read),
# a float32 safetensors with the tensor in the middle of the file, a
# Fortran-order big-endian float32 NPY, and a CSV as np.savetxt writes it
# (with a 'pos' index column).
ROWS, COLS = 16384, 768
gen = r"""
import json, struct, sys
import numpy as np
rng = np.random.default_rng(16)
a = rng.standard_normal((%d, %d))
np.save("t64.npy", a)
b = (a[:, :512] * 3).astype(np.float32)
head = np.arange(24, dtype=np.float32)
tail = np.ones(8, dtype=np.float16)
header = {"__metadata__": {"format": "pt"},
          "a.head": {"dtype": "F32", "shape": [24], "data_offsets": [0, 96]},
          "wpe.weight": {"dtype": "F32", "shape": list(b.shape), "data_offsets": [96, 96 + b.nbytes]},
          "z.tail": {"dtype": "F16", "shape": [8], "data_offsets": [96 + b.nbytes, 112 + b.nbytes]}}
text = json.dumps(header).encode()
text += b" " * ((8 - len(text) %% 8) %% 8)
with open("t32.safetensors", "wb") as f:
    f.write(struct.pack("<Q", len(text)) + text + head.tobytes() + b.tobytes() + tail.tobytes())
np.savetxt("wide.csv", a[:3, :].repeat(130, axis=1), delimiter=",", fmt="%%.17g")
np.save("fortran.npy", np.asfortranarray(a[:6000, :300].astype(">f4")))
np.savetxt("t.csv", np.hstack([np.arange(3000)[:, None], a[:3000]]), delimiter=",", fmt="%%.17g", header="pos," + ",".join("c%%d" %% j for j in range(%d)),
           comments="")
""" % (ROWS, COLS, COLS)
r = subprocess.run([py, "-c", gen], cwd=wd, capture_output=True, text=True)
if not ok(r.returncode == 0, "numpy writes the fixture files", r.stderr):
    done()

check = r"""
import sys
import numpy as np
rng = np.random.default_rng(16)
a = rng.standard_normal((%d, %d))
which = sys.argv[1]
got = np.load(sys.argv[2])
if which == "npy":
    want = a
elif which == "safetensors":
    want = (a[:, :512] * 3).astype(np.float32).astype(np.float64)[100:9000]
elif which == "fortran":
    want = a[:6000, :300].astype(">f4").astype(np.float64)[7:5999]
elif which == "wide":
    want = a[:3, :].repeat(130, axis=1)
else:
    want = np.loadtxt("t.csv", delimiter=",", skiprows=1)[:, 1:]
ok = got.dtype == np.float64 and got.shape == want.shape and np.array_equal(got, want)
print("exact" if ok else "differ: %%s %%s %%s" %% (got.dtype, got.shape, want.shape))
""" % (ROWS, COLS)


def values_exact(which, out):
    r = subprocess.run([py, "-c", check, which, out], cwd=wd, capture_output=True, text=True)
    return r.stdout.strip() == "exact", r.stdout + r.stderr


base = baseline()
CASES = [
    # (name, spec, rows x cols of the table read, numpy's check)
    ("float64 NPY (np.save)", "file:path=t64.npy", ROWS * COLS, "npy"),
    ("float32 safetensors, one tensor of three, rows=100:9000",
     "file:path=t32.safetensors,tensor=wpe.weight,rows=100:9000", 8900 * 512, "safetensors"),
    ("Fortran-order big-endian float32 NPY, rows=7:5999", "file:path=fortran.npy,rows=7:5999",
     5992 * 300, "fortran"),
    ("CSV (np.savetxt %.17g, index column)", "file:path=t.csv", 3000 * COLS, "csv"),
]
for name, spec, cells, which in CASES:
    table = cells * 8
    rc, err, rss = run_rss(["encode", "-s", spec, "-o", "out.npy", "-q"])
    ok(rc == 0, "%s: encode reads it" % name, err)
    if rc == 0:
        good, detail = values_exact(which, os.path.join(wd, "out.npy"))
        ok(good, "%s: every value exactly numpy's" % name, detail)
    # Beyond the process's own cost: the table, plus bounded buffers (a
    # second copy of a table of this size would add 100%).
    extra = rss - base
    if SANITIZED:
        skip("%s: peak RSS about the table's size" % name, "sanitized build")
    else:
        ok(extra <= 1.15 * table + 4 * MiB,
           "%s: peak RSS %.1f MiB above the process's own %.1f MiB, for a %.1f MiB table"
           % (name, extra / MiB, base / MiB, table / MiB),
           "a second copy of the table (or the file) is held")

# The NPY read and written back unchanged is np.save's file byte for byte.
run_rss(["encode", "-s", "file:path=t64.npy", "-o", "again.npy", "-q"])
r = subprocess.run(["cmp", "t64.npy", "again.npy"], cwd=wd, capture_output=True, text=True)
ok(r.returncode == 0, "np.save's 96 MiB NPY read and written back byte for byte", r.stdout)

# Lines longer than the reader's 1 MiB buffer (3 rows of 99840 values,
# about 2 MiB of text each) are read whole, and refused past the budget.
rc, err, rss = run_rss(["encode", "-s", "file:path=wide.csv", "-o", "wide.npy", "-q"])
good, detail = values_exact("wide", os.path.join(wd, "wide.npy")) if rc == 0 else (False, err)
ok(good, "CSV lines of 2 MiB: every value exactly numpy's", detail)
rc, err, rss = run_rss(["encode", "-s", "file:path=wide.csv", "--max-memory", "1M", "-o", "no.npy"])
ok(rc == 1 and "a line of more than" in err and "--max-memory" in err,
   "CSV lines of 2 MiB at --max-memory 1M: refused", err)

# Exports of computed schemes stream blocks of rows: an n x d matrix of 98 MiB
# costs about one 16 MiB block; the values are the sinusoidal formula's
# (Vaswani et al. 2017, 3.5), computed here by numpy.
rc, err, rss = run_rss(["encode", "-s", "sinusoidal", "-n", "200000", "-d", "64", "-o", "enc.npy", "-q"])
ok(rc == 0, "encode -n 200000 -d 64 -o enc.npy", err)
if SANITIZED:
    skip("encode export: peak RSS one block, not the matrix", "sanitized build")
else:
    ok(rss - base <= 40 * MiB, "encode export of a 97.7 MiB matrix: peak RSS %.1f MiB above the process's own"
       % ((rss - base) / MiB))
formula = r'''
import numpy as np
got = np.load("enc.npy")
p = np.arange(200000, dtype=np.float64)[:, None]
w = 1.0 / 10000.0 ** (np.arange(0, 64, 2) / 64.0)
want = np.empty((200000, 64))
want[:, 0::2] = np.sin(p * w)
want[:, 1::2] = np.cos(p * w)
# numpy's sin(p * w) rounds p * w first: up to 2e5 * 2^-53 in the angle.
err = np.abs(got - want).max()
print("close" if got.shape == want.shape and err < 1e-10 else "differ %g" % err)
'''
r = subprocess.run([py, "-c", formula], cwd=wd, capture_output=True, text=True)
ok(r.stdout.strip() == "close", "encode export streamed: the sinusoidal formula's values (numpy)",
   r.stdout + r.stderr)

# The ALiBi tensor streams too: 4 heads x 2048 x 2048 (128 MiB), against
# Press et al. 2022's bias -m_h (i - j) for keys j <= i (masked, -inf,
# after), m_h = 2^(-8 (h + 1) / heads): powers of two, so exact.
rc, err, rss = run_rss(["bias", "-s", "alibi:heads=4", "-n", "2048", "-o", "alibi.npy", "-q"])
ok(rc == 0, "bias -s alibi:heads=4 -n 2048 -o alibi.npy", err)
if not SANITIZED:
    ok(rss - base <= 40 * MiB, "ALiBi export of a 128 MiB tensor: peak RSS %.1f MiB above the process's own"
       % ((rss - base) / MiB))
alibi = r'''
import numpy as np
got = np.load("alibi.npy")
i = np.arange(2048)[:, None]
j = np.arange(2048)[None, :]
m = 2.0 ** (-8.0 * (np.arange(4) + 1) / 4)
want = np.where(j <= i, -m[:, None, None] * (i - j), -np.inf)
print("exact" if got.shape == want.shape and np.array_equal(got, want) else "differ")
'''
r = subprocess.run([py, "-c", alibi], cwd=wd, capture_output=True, text=True)
ok(r.stdout.strip() == "exact", "ALiBi export streamed: the paper's biases exactly (numpy)", r.stdout + r.stderr)

# The budget holds before the table is allocated: a CSV is parsed as it
# arrives, and past --max-memory its rows are counted, not kept.
for spec, need in (("file:path=t.csv", "the 3000 x 768 table needs 17.6 MiB"),
                   ("file:path=t64.npy", "the 16384 x 768 table needs 96.0 MiB")):
    rc, err, rss = run_rss(["encode", "-s", spec, "--max-memory", "8M", "-o", "no.npy"])
    lines = [l for l in err.splitlines() if l]
    ok(rc == 1 and len(lines) == 1 and need in lines[0] and "--max-memory" in lines[0]
       and not os.path.exists(os.path.join(wd, "no.npy")),
       "%s at --max-memory 8M: refused, saying what it needs" % spec, err)
    if not SANITIZED:
        ok(rss - base <= 10 * MiB, "%s at --max-memory 8M: peak RSS %.1f MiB above the process's own (the budget and a 1 MiB buffer)"
           % (spec, (rss - base) / MiB))

done()
