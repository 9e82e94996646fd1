"""Reference: the pairwise L2 distance matrix as round-trip CSV, with cdist and np.savetxt.

The plain notebook way: the bare matrix, '%.17g' floats (posenc also writes a header row and a position
column, a little more text).

Usage: ref_distance_csv.py OUT.csv [N [D]]   (defaults n=4096 d=512)
"""
import sys

import numpy as np
from scipy.spatial.distance import cdist

from pe_notebook import positional_encoding

out = sys.argv[1]
n = int(sys.argv[2]) if len(sys.argv) > 2 else 4096
d = int(sys.argv[3]) if len(sys.argv) > 3 else 512

pe = positional_encoding(n, d)
dist = cdist(pe, pe)
np.savetxt(out, dist, fmt="%.17g", delimiter=",")
