"""Reference: the Gram matrix a @ a.T of a 8192 x 768 Gaussian table with numpy's BLAS (dsyrk), saved as NPY.

posenc computes the full distance matrix of the same kind of table (`-s learned`); the target of issue 6 is
within 2x of the BLAS Gram matrix.  Prints on stdout the BLAS library numpy loaded and the seconds spent in
the Gram product alone, as `key=value` lines the harness shows in its notes.

Usage: ref_gram.py OUT.npy [N [D]]   (defaults n=8192 d=768)
"""
import sys
import time

import numpy as np

out = sys.argv[1]
n = int(sys.argv[2]) if len(sys.argv) > 2 else 8192
d = int(sys.argv[3]) if len(sys.argv) > 3 else 768

a = np.random.default_rng(0).normal(0.0, 0.02, size=(n, d))
t0 = time.perf_counter()
gram = a @ a.T  # numpy calls BLAS syrk for a matrix times its own transpose
t1 = time.perf_counter()
np.save(out, gram)

with open("/proc/self/maps") as maps:
    blas = sorted({line.split()[-1] for line in maps if "blas" in line.lower() and "/" in line})
print("blas=" + (";".join(blas) or "unknown"))
print(f"gram_seconds={t1 - t0:.3f}")
