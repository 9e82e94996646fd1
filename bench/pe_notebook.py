"""What the reference scripts share, written as a competent numpy user writes it.

- positional_encoding(): the sinusoidal encoding of Vaswani et al. (interleaved sin/cos), vectorised, float64.
- gram_distances(): all pairwise L2 distances with the Gram-matrix trick on BLAS (|a|^2 + |b|^2 - 2 a.b,
  one `a @ a.T`), the fastest idiomatic numpy way (scipy's cdist is single-threaded and has no BLAS).
- cosine_distances(): 1 - cos from the same Gram matrix.
- learned_table(): a Gaussian table like posenc's `-s learned` (N(0, 0.02^2)), from numpy's generator.
- figure(): a matplotlib figure of exactly W x H pixels (posenc's default is 640 x 480 at 100 dpi), or of
  posenc's own size when the harness passes it (PE_BENCH_PIXELS).
"""
import numpy as np


def positional_encoding(n, d, base=10000.0):
    pos = np.arange(n)[:, np.newaxis]
    i = np.arange(d // 2)[np.newaxis, :]
    angles = pos / np.power(base, 2 * i / d)
    pe = np.empty((n, d))
    pe[:, 0::2] = np.sin(angles)
    pe[:, 1::2] = np.cos(angles)
    return pe


def gram_distances(x):
    sq = np.einsum("ij,ij->i", x, x)
    d2 = x @ x.T  # BLAS syrk
    d2 *= -2.0
    d2 += sq[:, None]
    d2 += sq[None, :]
    np.maximum(d2, 0.0, out=d2)
    return np.sqrt(d2, out=d2)


def cosine_distances(x):
    norm = np.sqrt(np.einsum("ij,ij->i", x, x))
    g = x @ x.T
    g /= norm[:, None]
    g /= norm[None, :]
    np.subtract(1.0, g, out=g)
    return g


def learned_table(n, d, std=0.02):
    return np.random.default_rng(0).normal(0.0, std, size=(n, d))


def figure(width=640, height=480, dpi=100):
    """A figure of width x height pixels, or of the size bench/run found posenc's figure to have
    (PE_BENCH_PIXELS=WxH), so that both draw the same number of pixels."""
    import os

    import matplotlib.pyplot as plt
    size = os.environ.get("PE_BENCH_PIXELS", "")
    if "x" in size:
        width, height = (int(v) for v in size.split("x"))
    return plt.figure(figsize=(width / dpi, height / dpi), dpi=dpi)
