"""Reference: dot product PE(0) . PE(k) against the offset k, for two bases -> 640 x 480 PNG.

Usage: ref_decay.py OUT.png [D [MAX_OFFSET]]   (defaults d=512, offsets 0..10000, bases 10000 and 10)
"""
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

from pe_notebook import figure, positional_encoding

out = sys.argv[1]
d = int(sys.argv[2]) if len(sys.argv) > 2 else 512
max_offset = int(sys.argv[3]) if len(sys.argv) > 3 else 10000

offsets = np.arange(max_offset + 1)
figure()  # 640 x 480 pixels, as posenc's
for base in (10000, 10):
    pe = positional_encoding(max_offset + 1, d, base=base)
    plt.plot(offsets, pe @ pe[0], label=f"base {base}", linewidth=0.8)
plt.xlabel("offset k")
plt.ylabel("PE(0) . PE(k)")
plt.title(f"dot product against offset, d={d}")
plt.legend()
plt.grid(alpha=0.3)
plt.savefig(out)
plt.close("all")
