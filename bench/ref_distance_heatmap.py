"""Reference: pairwise L2 distance heatmap -> 640 x 480 PNG, Gram-matrix trick on BLAS + matplotlib.

Usage: ref_distance_heatmap.py OUT.png [N [D]]   (defaults n=4096 d=512)
"""
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

from pe_notebook import figure, gram_distances, positional_encoding

out = sys.argv[1]
n = int(sys.argv[2]) if len(sys.argv) > 2 else 4096
d = int(sys.argv[3]) if len(sys.argv) > 3 else 512

dist = gram_distances(positional_encoding(n, d))
figure()
plt.imshow(dist, cmap="viridis")
plt.colorbar(label="L2 distance")
plt.xlabel("position")
plt.ylabel("position")
plt.title(f"distance between positions, n={n}, d={d}")
plt.savefig(out)
plt.close("all")
