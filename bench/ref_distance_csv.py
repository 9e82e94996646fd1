"""Reference: the pairwise L2 distance matrix as round-trip CSV, with cdist and np.savetxt.

Same layout as posenc's CSV: a header row, the position in the first column, '%.17g' floats.

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
table = np.column_stack([np.arange(n), dist])
header = "position," + ",".join(str(j) for j in range(n))
np.savetxt(out, table, fmt="%.17g", delimiter=",", header=header, comments="")
