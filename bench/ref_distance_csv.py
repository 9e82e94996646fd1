"""Reference: the pairwise L2 distance matrix as round-trip CSV, with the Gram trick on BLAS and np.savetxt.

The plain notebook way: the bare matrix, '%.17g' floats (posenc also writes a header row and a position
column, a little more text).

Usage: ref_distance_csv.py OUT.csv [N [D]]   (defaults n=4096 d=512)
"""
import sys

import numpy as np
from pe_notebook import gram_distances, positional_encoding

out = sys.argv[1]
n = int(sys.argv[2]) if len(sys.argv) > 2 else 4096
d = int(sys.argv[3]) if len(sys.argv) > 3 else 512

dist = gram_distances(positional_encoding(n, d))
np.savetxt(out, dist, fmt="%.17g", delimiter=",")
