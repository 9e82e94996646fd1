"""Extra reference (labelled, not the fair one): L2 distance heatmap with scipy's cdist -> 640 x 480 PNG.

cdist runs on one thread without BLAS: the way many tutorials write it, slower than the Gram trick of
ref_distance_heatmap.py.

Usage: ref_distance_heatmap_cdist.py OUT.png [N [D]]   (defaults n=4096 d=512)
"""
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
from scipy.spatial.distance import cdist

from pe_notebook import figure, positional_encoding

out = sys.argv[1]
n = int(sys.argv[2]) if len(sys.argv) > 2 else 4096
d = int(sys.argv[3]) if len(sys.argv) > 3 else 512

pe = positional_encoding(n, d)
dist = cdist(pe, pe)
figure()
plt.imshow(dist, cmap="viridis")
plt.colorbar(label="L2 distance")
plt.xlabel("position")
plt.ylabel("position")
plt.title(f"distance between positions, n={n}, d={d}")
plt.savefig(out)
plt.close("all")
