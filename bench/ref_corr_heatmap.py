"""Reference: Pearson correlation between position vectors -> 640 x 480 PNG, with np.corrcoef.

Usage: ref_corr_heatmap.py OUT.png [N [D]]   (defaults n=4096 d=512)
"""
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

from pe_notebook import figure, positional_encoding

out = sys.argv[1]
n = int(sys.argv[2]) if len(sys.argv) > 2 else 4096
d = int(sys.argv[3]) if len(sys.argv) > 3 else 512

pe = positional_encoding(n, d)
corr = np.corrcoef(pe)  # rows are the variables: one per position
figure()  # 640 x 480 pixels, as posenc's
plt.imshow(corr, cmap="RdBu_r", vmin=-1, vmax=1)
plt.colorbar(label="Pearson r")
plt.xlabel("position")
plt.ylabel("position")
plt.title(f"correlation between positions, n={n}, d={d}")
plt.savefig(out)
plt.close("all")
