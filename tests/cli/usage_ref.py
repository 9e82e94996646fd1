"""What posenc usage's tests share: its CSV read back by (layer, head, pair), and the
numpy reference: each pair's norm from one head's rows, HF's pairings, and the check
of every row against it."""
import csv
import io

import numpy as np

from tap import ok, run


def usage_rows(exe, *args):
    """posenc usage ARGS -o -: the run, and its CSV as {(layer, head, pair): row}."""
    r = run(exe, "usage", *args, "-o", "-")
    rows = {}
    if r.rc == 0:
        for row in csv.DictReader(io.StringIO(r.text)):
            rows[(int(row["layer"]), int(row["head"]), int(row["pair"]))] = row
    return r, rows


def pairs_of(rot, interleaved):
    """The rows of each pair: (2i, 2i+1) interleaved, rotate_half's (i, i + rot/2) else."""
    h = rot // 2
    return [(2 * i, 2 * i + 1) if interleaved else (i, i + h) for i in range(h)]


def pair_norms(W, pairs, scale=None):
    """W: [head_dim, hidden] rows of one head; the norm of each pair's two rows."""
    s = np.ones(W.shape[0]) if scale is None else scale
    return np.array([np.sqrt(s[a] ** 2 * (W[a] ** 2).sum() + s[b] ** 2 * (W[b] ** 2).sum())
                     for a, b in pairs])


def compare(name, rows, ref_q, ref_k, tol=1e-12, source="numpy computes it"):
    """ref_q[l][h] and ref_k[l][h] (the key head of query head h): arrays of pairs."""
    worst, missing = 0.0, 0
    for l, heads in enumerate(ref_q):
        for h, qv in enumerate(heads):
            for i, v in enumerate(qv):
                row = rows.get((l, h, i))
                if row is None:
                    missing += 1
                    continue
                kv = ref_k[l][h][i]
                for got, want in ((row["q"], v), (row["k"], kv), (row["qk"], v * kv)):
                    worst = max(worst, abs(float(got) - want) / max(abs(want), 1e-300))
    n = sum(len(qv) for heads in ref_q for qv in heads)
    return ok(missing == 0 and worst <= tol and len(rows) == n,
              f"{name}: every layer, head and pair as {source}",
              f"missing {missing}, rows {len(rows)} of {n}, worst rel {worst:.3g}")
