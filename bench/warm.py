"""The warm-notebook time of a reference script: its work run again and again in one Python process.

A notebook user pays the imports once per session; what each new figure costs is the cell itself. This
imports numpy, scipy and matplotlib first, runs the script once to warm up (matplotlib builds its font cache
and first renderer then), then RUNS more times, and prints the median wall and CPU seconds of those runs
(CPU: the whole process, BLAS threads included) as `warm_seconds=` and `warm_cpu=` lines.

Usage: warm.py RUNS SCRIPT OUT [ARGS...]
"""
import os
import runpy
import statistics
import sys
import time

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot  # noqa: F401  (imports excluded from the timing)
import numpy  # noqa: F401
import scipy.spatial.distance  # noqa: F401

runs = int(sys.argv[1])
script = sys.argv[2]
sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
sys.argv = [script] + sys.argv[3:]
walls, cpus = [], []
for i in range(runs + 1):
    w0, c0 = time.perf_counter(), time.process_time()
    runpy.run_path(script, run_name="__main__")
    w1, c1 = time.perf_counter(), time.process_time()
    if i > 0:
        walls.append(w1 - w0)
        cpus.append(c1 - c0)
print(f"warm_seconds={statistics.median(walls):.4f}")
print(f"warm_cpu={statistics.median(cpus):.4f}")
