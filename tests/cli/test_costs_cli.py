#!/usr/bin/env python3
"""Every command whose work grows with its options estimates it before starting (unit costs in
cli/shared/costs.h, measured on the project's VM) and refuses a run over --max-time at once: exit
1, one line naming the estimate and the --max-time that lets it through, no output file. A run
of ordinary size is not refused. The refused cases are sized at 8x their budget or more by the
measured costs (each would take that long), so a faster machine still refuses them."""
import json
import os
import re
import struct
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tap import done, ok  # noqa: E402

EXE = sys.argv[1]
# Files the test makes itself (dumps, checkpoints, sparse files), removed at the end.
SCRATCH = tempfile.TemporaryDirectory(prefix="posenc-costs-")


def run(args, budget):
    """Runs posenc in a fresh folder (removed after: outputs of the allowed runs are large)."""
    with tempfile.TemporaryDirectory(prefix="posenc-costs-") as wd:
        t0 = time.time()
        try:
            p = subprocess.run([EXE, *args, "--max-time", budget], cwd=wd,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
            rc, err = p.returncode, p.stderr.decode("utf-8", "replace")
        except subprocess.TimeoutExpired:
            rc, err = None, "timed out"
        return rc, err, time.time() - t0, os.listdir(wd)


# (command line, the work it names): each estimated at 8 s or more.
REFUSED = [
    (["encode", "-n", "1000000", "-d", "512", "-o", "e.npy"], "the 1000000 x 512 matrix"),
    (["encode", "-n", "1000000", "-d", "128", "-o", "e.csv"], "the 1000000 x 128 matrix"),
    (["encode", "-n", "4096", "-d", "65536", "--raw", "-o", "e.png"], "the raw heatmap of 4096 x 65536"),
    (["corr", "-n", "20000", "-d", "64", "-o", "c.csv"], "the 20000 x 20000 correlation matrix"),
    (["corr", "-n", "16384", "-d", "64", "--raw", "-o", "c.png"], "the 16384 x 16384 correlation heatmap"),
    (["corr", "-n", "4096", "-d", "4194304", "-o", "c.png"], "the correlation figure of 4096 positions"),
    (["distance", "-s", "learned", "-n", "20000", "-d", "768", "-o", "d.npy"],
     "the 20000 x 20000 distance matrix"),
    (["distance", "-s", "learned", "--metric", "l1", "-n", "12000", "-d", "768", "-o", "d.npy"],
     "the 12000 x 12000 distance matrix"),
    (["decay", "-s", "learned", "-n", "20000", "-d", "512", "-o", "x.csv"], "the decay table of 20000 offsets"),
    (["decay", "-n", "100000000", "-d", "512", "-o", "x.npy"], "the decay table of 100000000 offsets"),
    (["bias", "-s", "t5", "-n", "20000", "-o", "b.csv"], "the 1 x 20000 x 20000 bias"),
    (["bias", "-s", "t5", "-n", "200000000", "-o", "b.png"], "the 1 x 1280 x 1280 grid of the bias figure"),
    (["profile", "-s", "learned", "-n", "1000000", "-d", "1024", "--at", "0", "-o", "p.npy",
      "--max-memory", "64G"],
     "the 1000000 x 1 profile"),
    (["scatter", "-s", "learned", "-n", "8000", "-d", "768", "--max-points", "0", "-o", "s.npy"],
     "the scatter of 31996000 pairs"),
    (["compare", "-s", "learned", "-s", "rope", "-n", "20000", "-d", "256", "-o", "c.png"],
     "the figure data of"),
    (["freqs", "-d", "16000000", "-o", "f.png"], "the frequencies of 8000000 pairs"),
    (["encode", "-s", "learned", "-n", "200000", "-d", "65536", "--dims", "0,1", "-o", "d.png"],
     "the chosen dimensions"),
]
for args, what in REFUSED:
    rc, err, secs, files = run(args, "1")
    lines = err.splitlines()
    m = re.search(r"would take about ([\d.]+) (s|min|h)", err)
    est = float(m.group(1)) * {"s": 1, "min": 60, "h": 3600}[m.group(2)] if m else 0
    ok(rc == 1 and len(lines) == 1 and lines[0].startswith(f"posenc: error: {what}")
       and "time budget of 1 s" in err and re.search(r"--max-time \d+[smh]\)$", lines[0]) and est >= 8,
       f"refused at once with its estimate: posenc {' '.join(args)}", f"rc={rc} {err!r}")
    ok(secs < 10 and not files, f"... in {secs:.1f} s, no file written", str(files))

# check: the dump's size, known before reading it (a sparse file of 2 GB: refused unread)
big = os.path.join(tempfile.mkdtemp(dir=SCRATCH.name), "dump.npy")
with open(big, "wb") as f:
    f.truncate(2_000_000_000)
rc, err, secs, files = run(["check", "-s", "rope", "--against", big], "1")
ok(rc == 1 and err.startswith("posenc: error: checking the 2000 MB dump would take about")
   and "--max-time" in err and secs < 10, "check of a 2 GB dump refused before reading it", err)
os.remove(big)

# Ordinary runs under the default budget (30 s) go through.
ALLOWED = [
    ["encode", "-n", "1000", "-d", "64", "-o", "e.npy"],
    ["encode", "-n", "300", "-d", "64", "--raw", "-o", "e.png"],
    ["encode", "-n", "1000", "-d", str(2**20), "-o", "e.png"],
    ["corr", "-n", "2000", "-d", "64", "-o", "c.csv"],
    ["distance", "-n", "5000", "-d", "64", "-o", "d.png"],
    ["distance", "-s", "learned", "-n", "1000", "-d", "64", "-o", "d.npy"],
    ["distance", "-n", "500", "--raw", "-o", "d.png"],
    ["decay", "-s", "learned", "-n", "500", "-d", "64", "-o", "x.csv"],
    ["decay", "-n", "10000", "-o", "x.png"],
    ["bias", "-s", "alibi", "-n", "300", "-o", "b.npy"],
    ["profile", "-n", "10000", "--at", "0,5", "-o", "p.csv"],
    ["scatter", "-n", "1000", "-o", "s.png"],
    ["freqs", "-s", "rope", "-s", "sinusoidal", "-o", "f.csv"],
    # a closed form's chosen columns alone: d does not count
    ["encode", "-n", "100000", "-d", str(2**24), "--dims", "0,16777215", "-o", "d.png"],
    ["compare", "-n", "1000", "-o", "c.png"],
    ["compare", "-s", "learned", "-s", "rope", "-n", "500", "-d", "64", "-o", "c.csv"],
]
for args in ALLOWED:
    rc, err, secs, files = run(args, "30")
    ok(rc == 0 and files, f"not refused: posenc {' '.join(args)}", err)
wd = tempfile.mkdtemp(dir=SCRATCH.name)
dump = os.path.join(wd, "dump.npy")
subprocess.run([EXE, "encode", "-s", "rope", "-n", "1000", "-d", "64", "-q", "-o", dump])
rc, err, secs, files = run(["check", "-s", "rope", "--against", dump], "30")
ok(rc == 0, "not refused: posenc check of a 1000 x 64 dump", err)

# ---- estimates derived from the documented unit costs (cli/shared/costs.h) ----
COSTS = {}
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "cli", "shared",
                       "costs.h"), encoding="utf-8") as f:
    for line in f:
        m = re.match(r"#define (CLI_COST_\w+)\s+([0-9.e+-]+)\s*$", line)
        if m:
            COSTS[m.group(1)] = float(m.group(2))


def estimate(err):
    """The seconds a refusal names ("would take about 41 s", "3 min", "1.5 h")."""
    m = re.search(r"would take about ([\d.]+) (s|min|h)\b", err)
    return float(m.group(1)) * {"s": 1, "min": 60, "h": 3600}[m.group(2)] if m else None


def near(err, expected):
    """The estimate shown is the expected one, rounded up to the unit it is shown in."""
    est = estimate(err)
    if est is None:
        return False
    unit = 1 if est < 90 else 60 if est < 5400 else 360
    return expected * 0.98 <= est <= expected * 1.02 + unit


BIG = ["--max-memory", "64G"]  # the time is refused, not the memory, on any machine
C = COSTS
n, d = 2_000_000, 512
rc, err, _, files = run(["encode", "-s", "rope", "--precision", "f32", "-n", str(n), "-d", str(d),
                         "-o", "e.npy", *BIG], "1")
ok(rc == 1 and err.startswith("posenc: error: the 2000000 x 512 table would take about")
   and "--max-time" in err and not files
   and near(err, n * d * (C["CLI_COST_PRECISION_VALUE"] + C["CLI_COST_NPY_WRITE_VALUE"])),
   "encode --precision -o .npy: refused, the estimate from the table's unit costs", err)
n = 200_000
rc, err, _, files = run(["encode", "-s", "rope", "--precision", "bf16", "-n", str(n), "-d", str(d),
                         "-o", "e.csv", *BIG], "1")
ok(rc == 1 and near(err, n * d * (C["CLI_COST_PRECISION_VALUE"] + C["CLI_COST_CSV_VALUE"]))
   and not files, "encode --precision -o .csv: the text counted", err)
n = 1_000_000
rc, err, _, files = run(["encode", "-s", "rope", "--view", "phase", "-n", str(n), "-d", str(d),
                         "-o", "e.npy", *BIG], "1")
ok(rc == 1 and near(err, n * d * (C["CLI_COST_ENCODE_NPY"] + C["CLI_COST_PHASE_VALUE"]))
   and not files, "encode --view phase -o .npy: the angle mod 2 pi counted", err)
n = 1_000_000
rc, err, _, files = run(["decay", "-s", "rope", "--bound", "-n", str(n), "-d", str(d), "-o",
                         "x.npy"], "1")
ok(rc == 1 and err.startswith("posenc: error: the decay table of 1000000 offsets")
   and near(err, n * d / 2 * C["CLI_COST_BOUND_TERM"]) and not files,
   "decay --bound: refused, d/2 sines, cosines and hypotenuses an offset", err)

# compare and report: the whole job against the budget, not each scheme alone
one = ["-n", "8000", "-d", "768", "-o", "c.png"]
rc1, err1, _, _ = run(["compare", "-s", "learned", *one], "1")
rc3, err3, _, files = run(["compare", "-s", "learned", "-s", "learned:seed=2", "-s",
                           "learned:seed=3", *one], "1")
e1, e3 = estimate(err1), estimate(err3)
ok(rc1 == 1 and rc3 == 1 and e1 and e3 and 3 * (e1 - 1) <= e3 <= 3 * e1
   and err3.startswith("posenc: error: the figure data of 3 schemes (8000 positions) in all")
   and not files, "compare: the refusal names the total of its schemes", f"{err1!r} {err3!r}")
budget = str(int(e1 * 1.5) + 1) if e1 else "1"
rc, err, secs, files = run(["compare", "-s", "learned", "-s", "learned:seed=2", "-s",
                            "learned:seed=3", *one], budget)
ok(rc == 1 and "would take about" in err and secs < 10 and not files,
   f"compare: three schemes each within --max-time {budget} are refused together", err)
rc, err, _, files = run(["compare", "-s", "learned", "-s", "learned:seed=2", "-n", "8000", "-d",
                         "768", "-o", "c.csv"], "1")
ok(rc == 1 and err.startswith("posenc: error: the summary of 2 schemes (8000 positions) in all")
   and not files, "compare -o .csv: the summary rows' total", err)
rc1, err1, _, _ = run(["report", "-s", "rope", "-n", "4000000", "-d", "2048", "-o", "r.html"], "1")
rc2, err2, _, files = run(["report", "-s", "rope", "-s", "rope:base=10", "-n", "4000000", "-d",
                           "2048", "-o", "r.html"], "1")
e1, e2 = estimate(err1), estimate(err2)
ok(rc1 == 1 and rc2 == 1 and e1 and e2 and 2 * (e1 - 1) <= e2 <= 2 * e1
   and err2.startswith("posenc: error: the report of 2 schemes (4000000 positions) in all")
   and not files, "report: the refusal names the total of its schemes and pages",
   f"{err1!r} {err2!r}")

# usage: the query and key rows it will read, counted from the checkpoint's shapes before
# reading any (a sparse file: its header says 80 layers of 8192-wide BF16 weights)
wd = tempfile.mkdtemp(dir=SCRATCH.name)
L, hidden, H, KV = 80, 8192, 64, 8
hd = hidden // H
with open(os.path.join(wd, "config.json"), "w") as f:
    json.dump({"model_type": "llama", "hidden_size": hidden, "num_attention_heads": H,
               "num_key_value_heads": KV, "num_hidden_layers": L,
               "max_position_embeddings": 8192, "rope_theta": 500000.0}, f)
header, off = {}, 0
for layer in range(L):
    for name, rows in (("q_proj", H * hd), ("k_proj", KV * hd)):
        size = rows * hidden * 2
        header[f"model.layers.{layer}.self_attn.{name}.weight"] = {
            "dtype": "BF16", "shape": [rows, hidden], "data_offsets": [off, off + size]}
        off += size
text = json.dumps(header).encode()
text += b" " * (-len(text) % 8)
weights = os.path.join(wd, "model.safetensors")
with open(weights, "wb") as f:
    f.write(struct.pack("<Q", len(text)) + text)
    f.truncate(8 + len(text) + off)
values = L * (H + KV) * hd * (hidden + 1)  # every row of q and k rotates (a row: hidden + 1)
rc, err, secs, files = run(["usage", "-s", "hf:" + os.path.join(wd, "config.json"), "--weights",
                            weights, "-o", "u.csv"], "1")
ok(rc == 1 and err.startswith("posenc: error: reading 6.04e+09 query and key weights would take")
   and near(err, values * C["CLI_COST_USAGE_VALUE"]) and secs < 10 and not files,
   "usage: refused before reading, the estimate from the rows' values", err)
os.remove(weights)

# precision: the computation's rows (about 19 doubles a pair, each of 2 threads) count in
# --max-memory
h = 500_000
rc, err, secs, files = run(["precision", "-s", "rope", "-d", str(2 * h), "-n", "100",
                            "--max-memory", "100M", "-o", "p.csv"], "30")
m = re.search(r"needs ([\d.]+) MiB", err)
floor = 2 * 19 * h * 8 / 2**20
ok(rc == 1 and err.startswith("posenc: error: computing the error curves at d=1000000 needs") and m
   and floor <= float(m.group(1)) <= 1.5 * floor and "--max-memory" in err and not files,
   f"precision: each thread's rows counted ({floor:.0f} MiB at least)", err)

# inspect reads a CSV file whole: refused by its size before reading it (a sparse 2 GB file)
wd = tempfile.mkdtemp(dir=SCRATCH.name)
big = os.path.join(wd, "big.csv")
with open(big, "wb") as f:
    f.truncate(2_000_000_000)
rc, err, secs, _ = run(["inspect", big], "1")
ok(rc == 1 and err.startswith("posenc: error: reading the CSV file '") and "(2000 MB)" in err
   and near(err, 2e9 * C["CLI_COST_CSV_READ_BYTE"]) and "--max-time" in err and secs < 10,
   "inspect: a 2 GB CSV file refused before reading it", err)
os.remove(big)
small = os.path.join(wd, "small.csv")
with open(small, "w") as f:
    f.write("a,b\n1,2\n")
rc, err, _, _ = run(["inspect", small], "30")
ok(rc == 0, "not refused: posenc inspect of a small CSV file", err)

# a CSV table of the file scheme is parsed whole, whatever rows it keeps: by its size too
big = os.path.join(wd, "table.csv")
with open(big, "wb") as f:
    f.truncate(2_000_000_000)
rc, err, secs, files = run(["distance", "-s", f"file:path={big},rows=0:10", "-o", "d.png"], "1")
ok(rc == 1 and err.startswith("posenc: error: reading the CSV file '") and "(2000 MB)" in err
   and near(err, 2e9 * C["CLI_COST_CSV_READ_BYTE"]) and secs < 10 and not files,
   "-s file:path=TABLE.csv: a 2 GB table refused before reading it", err)
os.remove(big)

# check's diagnosis grows with the values of the (at most 256) rows its fits use, not with the
# file: a 1 x 1000000 dump of 8 MB (a hostile width) fits every hypothesis on a million columns.
# Over the budget the verdict still comes, the diagnosis said to be left out with its estimate;
# under it (a 256 x 64 dump) it runs.
wide = os.path.join(wd, "wide.npy")
with open(wide, "wb") as f:
    header = "{'descr': '<f8', 'fortran_order': False, 'shape': (1, 1000000), }"
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
    f.write(struct.pack("<d", 1.5) * 1000000)
rc, err, secs, _ = run(["check", "-s", "rope", "--against", wide], "5")
p = subprocess.run([EXE, "check", "-s", "rope", "--against", wide, "--max-time", "5"],
                   capture_output=True, text=True, timeout=120)
diag = [l for l in p.stdout.splitlines() if l.startswith("diagnosis:")]
want = 1e6 * C["CLI_COST_CHECK_DIAGNOSE_VALUE"]
ok(rc == 3 and len(diag) == 1 and "not tried: it would take about" in diag[0]
   and "time budget of 5 s; raise the budget (--max-time" in diag[0]
   and near(diag[0], want) and secs < 30,
   "check: a diagnosis over --max-time is left out, with its estimate (the verdict kept)",
   f"rc={rc} {secs:.1f} s {p.stdout}")
narrow = os.path.join(wd, "narrow.npy")
with open(narrow, "wb") as f:
    header = "{'descr': '<f8', 'fortran_order': False, 'shape': (256, 64), }"
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
    f.write(struct.pack("<d", 1.5) * (256 * 64))
p = subprocess.run([EXE, "check", "-s", "rope", "--against", narrow], capture_output=True,
                   text=True, timeout=120)
ok(p.returncode == 3 and "diagnosis:" in p.stdout and "not tried" not in p.stdout,
   "check: a diagnosis within the budget runs", p.stdout + p.stderr)

# a list of 100000 frequencies (d = 200000), diagnosed: the float32 fit summed each pair's
# columns by scanning every column per pair, 10^10 steps (minutes; 300000 values: hours)
freqs = os.path.join(wd, "freqs.csv")
with open(freqs, "w") as f:
    f.write("".join(f"{i},1\n" for i in range(100000)))
t0 = time.time()
p = subprocess.run([EXE, "check", "-s", "rope", "--against", freqs], capture_output=True,
                   text=True, timeout=120)
secs = time.time() - t0
ok(p.returncode == 3 and "inverse frequencies, 100000 values" in p.stdout
   and "diagnosis:" in p.stdout and "not tried" not in p.stdout and secs < 30,
   f"check: a list of 100000 frequencies diagnosed in {secs:.1f} s", p.stdout + p.stderr)

# check --vector: the same for the vector's file
small = os.path.join(wd, "small.npy")
subprocess.run([EXE, "encode", "-s", "rope", "-n", "10", "-d", "8", "-q", "-o", small])
big = os.path.join(wd, "vector.csv")
with open(big, "wb") as f:
    f.truncate(2_000_000_000)
rc, err, secs, _ = run(["check", "-s", "rope", "-d", "8", "--against", small, "--vector", big], "1")
ok(rc == 1 and err.startswith("posenc: error: reading the CSV file '") and secs < 10
   and near(err, 2e9 * C["CLI_COST_CSV_READ_BYTE"]), "check --vector: refused by its size", err)
os.remove(big)

# --position-ids: a file's reading by its size, before it is read (a sparse 1 GB text file)
big = os.path.join(wd, "ids.csv")
with open(big, "wb") as f:
    f.truncate(1_000_000_000)
rc, err, secs, files = run(["encode", "-s", "mrope", "-d", "128", "--position-ids", big, "-o",
                            "e.png"], "1")
ok(rc == 1 and err.startswith("posenc: error: option '--position-ids': reading 1000 MB of text")
   and near(err, 1e9 * C["CLI_COST_IDS_CSV_BYTE"]) and secs < 10 and not files,
   "--position-ids: a 1 GB file refused before reading it", err)
os.remove(big)

# a budget under a second is shown as it is, not rounded up to the estimate's "1 s"
rc, err, _, _ = run(["encode", "-n", "50000", "-d", "512", "-o", "e.npy"], "0.5s")
ok(rc == 1 and "about 0.64 s, more than the time budget of 0.5 s" in err,
   "a budget of 0.5 s is said so", err)

# ordinary sizes of the same go through
for args in (["encode", "-s", "rope", "--precision", "f32", "-n", "1000", "-d", "64", "-o", "e.npy"],
             ["encode", "-s", "rope", "--view", "phase", "-n", "1000", "-o", "e.csv"],
             ["decay", "-s", "rope", "--bound", "-n", "1000", "-o", "x.csv"],
             ["compare", "-s", "learned", "-s", "learned:seed=2", "-s", "rope", "-n", "300",
              "-d", "64", "-o", "c.png"],
             ["precision", "-s", "rope", "-d", "128", "-n", "1000", "-o", "p.csv"]):
    rc, err, secs, files = run(args, "30")
    ok(rc == 0 and files, f"not refused: posenc {' '.join(args)}", err)
SCRATCH.cleanup()
done()
