"""Reference: 2x2 comparison of two bases (rows: base 10000, base 10; columns: encoding, distance) -> PNG.

Usage: ref_compare.py OUT.png [N [D]]   (defaults n=1024 d=512)
"""
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
from scipy.spatial.distance import cdist

from pe_notebook import positional_encoding

out = sys.argv[1]
n = int(sys.argv[2]) if len(sys.argv) > 2 else 1024
d = int(sys.argv[3]) if len(sys.argv) > 3 else 512

fig, axes = plt.subplots(2, 2, figsize=(12, 10))
for row, base in enumerate((10000, 10)):
    pe = positional_encoding(n, d, base=base)
    im = axes[row, 0].imshow(pe, aspect="auto", cmap="RdBu", interpolation="nearest")
    fig.colorbar(im, ax=axes[row, 0])
    axes[row, 0].set_title(f"encoding, base {base}")
    axes[row, 0].set_xlabel("dimension")
    axes[row, 0].set_ylabel("position")
    im = axes[row, 1].imshow(cdist(pe, pe), cmap="viridis")
    fig.colorbar(im, ax=axes[row, 1])
    axes[row, 1].set_title(f"distance, base {base}")
    axes[row, 1].set_xlabel("position")
    axes[row, 1].set_ylabel("position")
fig.tight_layout()
fig.savefig(out, dpi=100)
