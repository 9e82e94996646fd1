"""Reference: the whole numpy process for a learned (Gaussian) table: matrix -> NPY, or its heatmap -> PNG.

The table is drawn with numpy's generator (N(0, 0.02^2), like posenc's `-s learned`), the matrix computed
the fastest idiomatic way (Gram trick on BLAS for l2 and cosine, np.corrcoef for corr) and saved with
np.save, or drawn at 640 x 480 with imshow.

Usage: ref_learned.py OUT.npy|OUT.png [N [D [l2|cosine|corr]]]   (defaults n=8192 d=768 l2)
"""
import sys

import numpy as np

from pe_notebook import cosine_distances, gram_distances, learned_table

out = sys.argv[1]
n = int(sys.argv[2]) if len(sys.argv) > 2 else 8192
d = int(sys.argv[3]) if len(sys.argv) > 3 else 768
metric = sys.argv[4] if len(sys.argv) > 4 else "l2"

table = learned_table(n, d)
if metric == "l2":
    mat = gram_distances(table)
elif metric == "cosine":
    mat = cosine_distances(table)
else:
    mat = np.corrcoef(table)
if out.endswith(".npy"):
    np.save(out, mat)
else:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from pe_notebook import figure

    figure()
    plt.imshow(mat, cmap="RdBu_r" if metric == "corr" else "viridis")
    plt.colorbar(label=metric)
    plt.xlabel("position")
    plt.ylabel("position")
    plt.title(f"{metric}, learned table {n} x {d}")
    plt.savefig(out)
    plt.close("all")
