"""What the config.json reader's tests share: published configs from tests/fixtures/hf, configs
written for a test, `posenc model`'s summary as a dict, a group's frequencies from `posenc
freqs`, and transformers' default inverse frequencies restated with numpy.

Call setup(sys.argv[1]) once (the posenc binary) before the others: it gives the binary's
absolute path and a new work folder."""
import csv
import io
import json
import math
import os

import numpy as np

from tap import run, workdir

HERE = os.path.dirname(os.path.abspath(__file__))
FIX = os.path.join(os.path.dirname(HERE), "fixtures", "hf")
REL = 1e-15
# what a read of an unknown model_type warns, and the reference line of a remote-code row
UNKNOWN = "not in posenc's table"
REMOTE = "the checkpoint's own modeling file"
_exe = None
_tmp = None


def setup(exe):
    """(posenc's absolute path, a new work folder), kept for the functions below."""
    global _exe, _tmp
    _exe, _tmp = os.path.abspath(exe), workdir()
    return _exe, _tmp


def fix(name):
    """The hf: spec of a published config in tests/fixtures/hf."""
    return "hf:" + os.path.join(FIX, name + ".json")


def load(name):
    with open(os.path.join(FIX, name + ".json")) as f:
        return json.load(f)


def write(name, doc):
    """The hf: spec of @doc written as NAME.json in the test's folder."""
    path = os.path.join(_tmp, name + ".json")
    with open(path, "w") as f:
        json.dump(doc, f)
    return "hf:" + path


def summary(spec):
    """`posenc model SPEC`: the run and its CSV as {group: {fact: value}}."""
    r = run(_exe, "model", spec, "-o", "-")
    out = {}
    for row in list(csv.reader(io.StringIO(r.text)))[1:]:
        out.setdefault(row[0], {})[row[1]] = row[2]
    return r, out


def freqs(spec, group="all", column="theta"):
    """A column of freqs' long table for one layer group: "theta" or "scaled_theta" of the
    first scaling shown (the model's own), or "NAME_theta" for the scaled frequencies of
    scaling NAME. None when the command fails."""
    r = run(_exe, "freqs", "-q", "-s", spec, "--layer", group, "--table", "long", "-o", "-")
    rows = list(csv.DictReader(io.StringIO(r.text)))
    if r.rc or not rows:
        return None
    if column in ("theta", "scaled_theta"):
        first = rows[0]["scaling"]
        return np.array([float(x[column]) for x in rows if x["scaling"] == first])
    got = [float(x["scaled_theta"]) for x in rows if x["scaling"] + "_theta" == column]
    return np.array(got) if got else None


def inv_freq(base, dim):
    """1 / base^(arange(0, dim, 2) / dim) in float64: _compute_default_rope_parameters, and
    the rotary embedding of nearly every remote modeling file."""
    return 1.0 / (base ** (np.arange(0, dim, 2, dtype=np.int64).astype(np.float64) / dim))


def close(got, want, rel=REL):
    """Every element of @got within @rel of @want (and the same shape)."""
    if got is None or np.shape(got) != np.shape(want):
        return False
    want = np.asarray(want)
    return bool(np.all(np.abs(np.asarray(got) - want) <= rel * np.abs(want)))


def layers(text):
    """A layer list as posenc writes it ("0-3,5") as a list of numbers."""
    out = []
    for part in filter(None, text.split(",")):
        a, _, b = part.partition("-")
        out += list(range(int(a), int(b or a) + 1))
    return out


def remote_ok(r, s):
    """Read by its registry row: no unknown-type warning, and the reference line names the
    model's own modeling file."""
    return (r.rc == 0 and UNKNOWN not in r.err and
            REMOTE in s.get("model", {}).get("reference", ""))


def press_slopes(n):
    """ALiBi's head slopes (Press et al.; BLOOM's build_alibi_tensor, Baichuan's
    _get_interleave, Jais's _get_alibi_slopes): powers of 2^(-8/c) for the closest power of
    two c <= n, then every other slope of 2c heads."""
    def power_of_2(k):
        start = 2.0 ** (-(2.0 ** -(math.log2(k) - 3)))
        return [start * start ** i for i in range(k)]
    if math.log2(n).is_integer():
        return power_of_2(n)
    c = 2 ** math.floor(math.log2(n))
    return power_of_2(c) + press_slopes(2 * c)[0::2][:n - c]


def llama3(base, dim, factor, low, high, original):
    """_compute_llama3_parameters restated (the smoothed band agrees to a few ulps: the
    blend may be associated otherwise, so compare at 4e-15)."""
    inv = inv_freq(base, dim)
    wl = 2 * math.pi / inv
    lo, hi = original / low, original / high
    out = np.where(wl > lo, inv / factor, inv)
    smooth = (original / wl - low) / (high - low)
    mid = (wl >= hi) & (wl <= lo)
    return np.where(mid, (1 - smooth) * inv / factor + smooth * inv, out)


def bias_slopes(spec):
    """Each head's slope from `posenc bias` of 2 positions: |b[1,1] - b[1,0]|."""
    path = os.path.join(_tmp, "b.npy")
    r = run(_exe, "bias", "-s", spec, "-n", "2", "-o", path)
    if r.rc:
        return None
    b = np.load(path)
    return np.abs(b[:, 1, 1] - b[:, 1, 0])
