"""Reference: encoding heatmap (positions x dims) -> 640 x 480 PNG, the numpy + matplotlib way.

Usage: ref_encode_heatmap.py OUT.png [N [D]]   (defaults n=4096 d=1024)
"""
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

from pe_notebook import figure, positional_encoding

out = sys.argv[1]
n = int(sys.argv[2]) if len(sys.argv) > 2 else 4096
d = int(sys.argv[3]) if len(sys.argv) > 3 else 1024

pe = positional_encoding(n, d)
figure()  # 640 x 480 pixels, as posenc's
plt.imshow(pe, aspect="auto", cmap="RdBu", interpolation="nearest")
plt.colorbar()
plt.xlabel("dimension")
plt.ylabel("position")
plt.title(f"sinusoidal encoding, n={n}, d={d}")
plt.savefig(out)
plt.close("all")
