"""The sinusoidal encoding as notebooks and tutorials write it (Vaswani et al., interleaved sin/cos).

Shared by the reference scripts of the benchmark so each of them stays a few lines, like a notebook cell.
"""
import numpy as np


def positional_encoding(n, d, base=10000.0):
    pos = np.arange(n)[:, np.newaxis]
    i = np.arange(d // 2)[np.newaxis, :]
    angles = pos / np.power(base, 2 * i / d)
    pe = np.zeros((n, d))
    pe[:, 0::2] = np.sin(angles)
    pe[:, 1::2] = np.cos(angles)
    return pe
