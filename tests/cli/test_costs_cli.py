#!/usr/bin/env python3
"""Every command whose work grows with its options estimates it before starting (unit costs in
cli/shared/costs.h, measured on the project's VM) and refuses a run over --max-time at once: exit
1, one line naming the estimate and the --max-time that lets it through, no output file. A run
of ordinary size is not refused. The refused cases are sized at 8x their budget or more by the
measured costs (each would take that long), so a faster machine still refuses them."""
import os
import re
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tap import done, ok  # noqa: E402

EXE = sys.argv[1]


def run(args, budget):
    wd = tempfile.mkdtemp(prefix="posenc-costs-")
    t0 = time.time()
    try:
        p = subprocess.run([EXE, *args, "--max-time", budget], cwd=wd, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=60)
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
    (["profile", "-s", "learned", "-n", "1000000", "-d", "512", "--at", "0", "-o", "p.npy"],
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
big = os.path.join(tempfile.mkdtemp(prefix="posenc-costs-"), "dump.npy")
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
wd = tempfile.mkdtemp(prefix="posenc-costs-")
dump = os.path.join(wd, "dump.npy")
subprocess.run([EXE, "encode", "-s", "rope", "-n", "1000", "-d", "64", "-q", "-o", dump])
rc, err, secs, files = run(["check", "-s", "rope", "--against", dump], "30")
ok(rc == 0, "not refused: posenc check of a 1000 x 64 dump", err)
done()
