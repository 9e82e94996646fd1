"""Reference: posenc compare's figure in numpy + matplotlib: base 10000 vs base 10 -> PNG of posenc's size.

The same nine panels as `posenc compare`: per base a row of encoding, L2 distance and correlation heatmaps
and a distance-vs-correlation scatter of position pairs (the upper triangle, thinned to at most 250 000
points, drawn as pixel markers: the fast matplotlib way), and below them the decay curves PE(0).PE(k).

Usage: ref_compare.py OUT.png [N [D]]   (defaults n=1024 d=512)
"""
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

from pe_notebook import figure, gram_distances, positional_encoding

out = sys.argv[1]
n = int(sys.argv[2]) if len(sys.argv) > 2 else 1024
d = int(sys.argv[3]) if len(sys.argv) > 3 else 512

fig = figure(1440, 860)
grid = fig.add_gridspec(3, 4)
iu = np.triu_indices(n, 1)
step = max(1, len(iu[0]) // 250000)
decay = fig.add_subplot(grid[2, :])
for row, base in enumerate((10000, 10)):
    pe = positional_encoding(n, d, base=base)
    dist = gram_distances(pe)
    corr = np.corrcoef(pe)
    for col, (data, cmap, title) in enumerate(((pe, "RdBu", "encoding"), (dist, "viridis", "L2 distance"),
                                              (corr, "RdBu_r", "correlation"))):
        ax = fig.add_subplot(grid[row, col])
        im = ax.imshow(data, aspect="auto" if col == 0 else "equal", cmap=cmap, interpolation="nearest")
        fig.colorbar(im, ax=ax)
        ax.set_title(f"{title}, base {base}")
    ax = fig.add_subplot(grid[row, 3])
    ax.plot(dist[iu][::step], corr[iu][::step], ",", alpha=0.3)
    ax.set_xlabel("L2 distance")
    ax.set_ylabel("correlation")
    decay.plot(pe @ pe[0] / (d // 2), label=f"base {base}", linewidth=0.8)
decay.set_xlabel("offset k")
decay.legend()
fig.tight_layout()
fig.savefig(out)
plt.close("all")
