"""posenc from Python: Transformer positional encodings as numpy arrays and inline figures.

Every function runs the posenc program's own command in memory (no files, no subprocess):
the arrays are those the program writes as NPY for the same arguments, bit for bit, and the
figures those it draws. A spec is posenc's text (``'rope:scaling=llama3,base=500000'``,
``'hf:config.json'``, ``'model:llama-3.1-8b'``) or a 2-D numpy array (positions x width:
float64, float32, float16, or bfloat16 bit patterns as uint16 with ``bfloat16=True``), read in
place and copied once into float64. Keyword options are the program's long options
(``max_offset=16`` is ``--max-offset 16``, ``bound=True`` is ``--bound``, lists, ranges and 1-D
arrays are joined with commas); ``n`` and ``d`` are ``-n`` and ``-d``; ``position_ids`` and
``check``'s ``vector`` take arrays as well as files. ``man posenc`` and ``posenc COMMAND --help``
describe each. Errors raise ValueError (bad spec or option), MemoryError (over the memory
budget, ``max_memory='4G'``) or OSError (files), with posenc's message; the program's
warnings are issued as PosencWarning.

    >>> import posenc
    >>> posenc.encode('sinusoidal', n=3, d=4).shape
    (3, 4)
"""
import csv
import io
import os

import numpy as np

from . import _native
from ._figure import Figure
from ._native import PosencWarning, Result, set_fork

__version__ = "0.1.0"
__all__ = [
    "encode", "distance", "corr", "profile", "scatter", "decay", "freqs", "bias", "model",
    "check", "precision", "plot", "run", "Figure", "Model", "Check", "Result", "PosencWarning",
    "set_fork",
]


def _value(v):
    if isinstance(v, bool):
        return ""
    if isinstance(v, (float, np.floating)):
        # float() first: numpy 2's repr of a scalar is 'np.float64(...)'; a float32 is
        # written as the double it holds
        return repr(float(v))
    if isinstance(v, np.integer):
        return str(int(v))
    if isinstance(v, (list, tuple, range)):
        return ",".join(_value(x) for x in v)
    if isinstance(v, np.ndarray):
        return _value(v.tolist())
    if isinstance(v, os.PathLike):
        return os.fspath(v)
    return str(v)


def _ids_table(v):
    """Position ids (t, h, w) as the float64 table the program reads: ids are integers, as
    torch holds them, and the tables from memory are floats."""
    a = np.asarray(v)
    if a.dtype.kind in "iu":
        if a.size and np.abs(a).max() >= 2**53:
            raise ValueError("position_ids: ids beyond 2^53 are not exact as floats")
        a = a.astype(np.float64)
    return a


def _options(options, tables):
    """Keyword options as the program's: n -> -n, max_offset -> --max-offset VALUE, flags."""
    args = []
    for key, v in options.items():
        if key not in _FLAGS and isinstance(v, bool):
            # True would pass the bare option, and the program would take the next argument
            # for its value.
            raise TypeError("%s=%r: %s takes a value, not True or False" % (key, v, key))
        if v is None or v is False:
            continue
        flag = "-" + key if len(key) == 1 else "--" + key.replace("_", "-")
        if key in _TABLE_OPTIONS and not isinstance(v, (str, os.PathLike)):
            args += [flag, tables.name(_ids_table(v) if key == "position_ids" else v)]
        elif key in _FILE_OPTIONS and not isinstance(v, (str, os.PathLike)):
            raise TypeError("%s= takes a file name, not %s (only %s take arrays)"
                            % (key, type(v).__name__, " and ".join(_TABLE_OPTIONS)))
        elif v is True:
            args.append(flag)
        else:
            args += [flag, _value(v)]
    return args


# The options whose value is a file the program reads that may be an array from memory,
# and those that take only a file (a checkpoint; a 3-D activations array).
_TABLE_OPTIONS = ("vector", "position_ids")
_FILE_OPTIONS = ("weights", "activations", "config")

# The program's options that take no value (no_argument in cli/); every other option
# takes one, so a bool given to it is a mistake.
_FLAGS = ("bound", "fold_bias", "quiet", "raw", "triangles", "wide")


def _is_table(x):
    return isinstance(x, (np.ndarray, list, tuple)) or hasattr(x, "__array__")


def _spec_type_error(x):
    return TypeError("a spec is a str ('rope', 'model:NAME') or a numpy array, not %s"
                     % type(x).__name__)


def _specs(spec, tables):
    if spec is None:
        return []
    if isinstance(spec, (str, np.ndarray)) or hasattr(spec, "__array__"):
        spec = [spec]
    elif not isinstance(spec, (list, tuple)):
        raise _spec_type_error(spec)
    args = []
    for s in spec:
        if not isinstance(s, str) and not _is_table(s):
            raise _spec_type_error(s)
        if isinstance(s, str):
            args += ["-s", s]
        else:
            args += ["-s", "file:path=" + tables.name(s)]
    return args


def _command(command, spec, options, bfloat16=False):
    tables = _native.Tables(bfloat16)
    args = [command] + _specs(spec, tables) + _options(options, tables)
    return args, tables


def _array(command, spec, options, bfloat16=False):
    args, tables = _command(command, spec, options, bfloat16)
    name = command + ".npy"
    r = _native.check(_native.run(args + ["-o", name], tables))
    return _native.npy(r.files[name])


def run(*args, tables=None, bfloat16=False):
    """Run any posenc command line in memory: ``run('freqs', '-s', 'rope', '-o', 'f.csv')``.

    ``tables`` maps names to numpy arrays that ``-s file:path=NAME`` and ``--against NAME``
    read. Returns a Result: ``status`` (the exit status), ``stdout``, ``stderr`` and
    ``files`` (each output by the name given to -o, as bytes-like); it does not raise for
    the command's own errors.
    """
    t = _native.Tables(bfloat16)
    for name, array in (tables or {}).items():
        entry, keep = _native._table(array, name, bfloat16)
        t.entries.append(entry)
        t.keep.append(keep)
    return _native.run(list(args), t)


def encode(spec="sinusoidal", n=None, d=None, *, start=None, view=None, precision=None, dtype=None,
           bfloat16=False, **options):
    """The encoding matrix: one row per position start..start+n-1, one column per dimension.

    spec: a scheme spec (default 'sinusoidal') or a 2-D array (a table from memory).
    n, d: positions and width (the program's defaults when None).
    start: the first position. view: RoPE's 'angle', 'phase' (the angle mod 2 pi), 'cos',
    'sin' or 'rotated' (the default: the all-ones vector rotated to each position) table.
    precision: 'f32', 'bf16', 'f16' or 'COMPUTE/STORE' ('f32/bf16'): the table as an
    implementation in that precision computes it. dtype: 'f32' for a float32 array.
    Returns a numpy array (n, d), equal bit for bit to `posenc encode ... -o x.npy`.
    """
    return _array("encode", spec, dict(n=n, d=d, start=start, view=view, precision=precision,
                                       dtype=dtype, **options), bfloat16)


def distance(spec="sinusoidal", n=None, d=None, *, start=None, metric=None, bfloat16=False, **options):
    """The n x n matrix of distances between the position vectors of positions start..start+n-1.

    metric: 'l2' (default), 'cosine', 'l1' or 'linf'. spec as for encode (an array is a learned
    table). Returns what `posenc distance ... -o x.npy` writes.
    """
    return _array("distance", spec, dict(n=n, d=d, start=start, metric=metric, **options), bfloat16)


def corr(spec="sinusoidal", n=None, d=None, *, start=None, bfloat16=False, **options):
    """The n x n Pearson correlations of the position vectors (numpy.corrcoef of the table).

    A constant vector has no correlation: its row and column are nan. Returns what
    `posenc corr ... -o x.npy` writes.
    """
    return _array("corr", spec, dict(n=n, d=d, start=start, **options), bfloat16)


def profile(spec="sinusoidal", n=None, d=None, *, at=None, start=None, metric=None, bfloat16=False,
            **options):
    """The distance from each position in ``at`` (a list) to every position: (n, len(at))."""
    return _array("profile", spec, dict(n=n, d=d, at=at, start=start, metric=metric, **options),
                  bfloat16)


def scatter(spec="sinusoidal", n=None, d=None, *, start=None, metric=None, bfloat16=False, **options):
    """Distance and correlation of the pairs i < j: rows (position_i, position_j, distance, corr)."""
    return _array("scatter", spec, dict(n=n, d=d, start=start, metric=metric, **options), bfloat16)


def decay(spec="sinusoidal", d=None, *, max_offset=None, bound=False, base=None, n=None, start=None,
          bfloat16=False, **options):
    """Dot product versus relative offset 0..max_offset, one column per scheme.

    spec: one spec or array, or a list of them (one column each; ``base=[10000, 500000]``
    repeats a sinusoidal or rope spec per base). bound: RoFormer's relative upper bound
    for RoPE in each column instead of the dot product (rope specs only). Returns what
    `posenc decay ... -o x.npy` writes.
    """
    return _array("decay", spec, dict(d=d, max_offset=max_offset, bound=bound, base=base, n=n,
                                      start=start, **options), bfloat16)


def bias(spec="alibi", n=None, **options):
    """Attention biases: ALiBi (heads, n, n) with -inf over masked keys, T5 bucket ids (n, n)."""
    return _array("bias", spec, dict(n=n, **options))


def precision(spec="rope", n=None, d=None, *, precision=None, start=None, threshold=None, block=None,
              **options):
    """Largest error of reduced-precision RoPE cos/sin tables by position, one column per precision.

    precision: a list such as ['f32', 'f32/bf16', 'bf16', 'f16']. Rows are blocks of ``block``
    positions (each the block's largest error), as `posenc precision ... -o x.npy` writes.
    """
    return _array("precision", spec, dict(n=n, d=d, precision=precision, start=start,
                                          threshold=threshold, block=block, **options))


def _number(text):
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def _csv(command, spec, options, bfloat16=False, allowed=(0,)):
    args, tables = _command(command, spec, options, bfloat16)
    name = command + ".csv"
    r = _native.check(_native.run(args + ["-o", name], tables), allowed)
    rows = list(csv.reader(io.StringIO(bytes(r.files[name]).decode("utf-8"))))
    return rows, r


def freqs(spec="rope", d=None, *, length=None, train_length=None, frame=None, table="long",
          **options):
    """The per-pair frequency table of `posenc freqs -o x.csv`: one long table with the same
    columns whatever the scaling (model, group, d, d_rot, pair, theta, wavelength, scaling,
    factor, scaled_theta, scaled_wavelength, ratio, regime, and axis when an mrope spec is
    among them: its pairs' position axis, t, h or w), a row per scaling variant and pair (plain
    rope shows linear, dynamic, yarn and llama3). table="wide" gives the CLI's default for one
    scheme instead: a row per pair, each variant's NAME_theta and NAME_ratio (mrope: then axis).

    Returns a pandas DataFrame when pandas is installed (frame=None or True; the CSV read by
    pandas.read_csv with round-trip floats, its text columns as str, '' where empty), else (or with frame=False) a dict of numpy
    columns: text columns as str, pair, d and d_rot as int64, the others float64, read back
    exactly (the CSV holds each float's shortest round-trip text).
    """
    rows, r = _csv("freqs", spec,
                   dict(d=d, length=length, train_length=train_length, table=table, **options))
    if frame is not False:
        try:
            import pandas
        except ImportError:
            if frame:
                raise
        else:
            text = bytes(r.files["freqs.csv"]).decode("utf-8")
            # the text columns as text: an empty group (a spec, not a model) or axis (not
            # mrope) is '', as in the dict, not NaN, and a group named '0' stays '0'
            named = [c for c in rows[0] if c in _FREQS_TEXT]
            df = pandas.read_csv(io.StringIO(text), float_precision="round_trip",
                                 dtype={c: str for c in named})
            for c in named:
                df[c] = df[c].fillna("")
            return df
    header, body = rows[0], rows[1:]
    cols = {}
    for j, name in enumerate(header):
        values = [row[j] for row in body]
        if name in _FREQS_TEXT:
            cols[name] = np.array(values, dtype=str)
        elif name in ("pair", "d", "d_rot"):
            cols[name] = np.array([int(v) for v in values], dtype=np.int64)
        else:
            cols[name] = np.array([float(v) for v in values], dtype=np.float64)
    return cols


# freqs' columns that hold text
_FREQS_TEXT = ("model", "group", "scaling", "regime", "axis")


class Model:
    """A model's positional encoding: ``facts`` of the model, ``groups`` of layers, each with
    its facts (head width, layout, base, scaling and every derived number); its repr is the
    text of `posenc model SPEC`."""

    class Group:
        def __init__(self, name, facts):
            self.name = name
            self.facts = facts

        def __getitem__(self, key):
            return self.facts[key]

        def __repr__(self):
            return "<posenc.Model.Group %s: %d facts>" % (self.name, len(self.facts))

    def __init__(self, facts, groups, text):
        self.facts = facts
        self.groups = groups
        self._text = text

    def group(self, name):
        """The layer group of that name ('all', 'local', 'global', ...); KeyError if none."""
        for g in self.groups:
            if g.name == name:
                return g
        raise KeyError(name)

    def __repr__(self):
        return self._text.rstrip("\n")


def model(spec, *, layer=None, length=None, **options):
    """What a model's positional encoding is, per layer group (hf:config.json, gguf:FILE,
    model:NAME or a rope spec): a Model with ``facts``, ``groups`` (each ``.name`` and
    ``.facts``, values as numbers where they are numbers), as `posenc model -o x.csv` lists.

    layer: only this layer group ('local', 'global', ...) or the group of layer N.
    length: the sequence length dynamic NTK and LongRoPE are evaluated at (default: the
    spec's length=, else the original context).
    """
    opts = dict(layer=layer, length=length, **options)
    rows, _ = _csv("model", spec, opts)
    facts, groups = {}, []
    for group, key, value in rows[1:]:
        if group == "model":
            facts[key] = _number(value)
            continue
        if not groups or groups[-1].name != group:
            groups.append(Model.Group(group, {}))
        groups[-1].facts[key] = _number(value)
    args, tables = _command("model", spec, opts)
    text = _native.check(_native.run(args, tables)).stdout
    return Model(facts, groups, text)


class Check:
    """The result of checking another implementation's RoPE dump against posenc's exact table.

    ``verdict`` ('agree' or 'disagree'), ``agree`` (bool), ``diagnosis`` (the known mistake
    that explains the dump, or None), ``fields`` (every line of the report by its name),
    ``errors`` (a row per position: abs_error, rel_error, column, and diagnosis_error
    when a mistake is named, as `posenc check -o x.npy` writes). Its repr is the program's report.
    """

    def __init__(self, text, errors, status):
        self._text = text.rstrip("\n")
        self.errors = errors
        self.status = status
        self.agree = status == 0
        self.fields = {}
        key = None
        for line in self._text.splitlines():
            if line.startswith(" ") and key:
                self.fields[key] += "\n" + line.strip()
            elif ":" in line:
                key, _, value = line.partition(":")
                key = key.strip()
                self.fields[key] = value.strip()
        self.verdict = self.fields.get("verdict", "").split(" ")[0]
        self.diagnosis = self.fields.get("diagnosis")

    def __bool__(self):
        return self.agree

    def __repr__(self):
        return self._text


def check(spec, against, *, what=None, start=None, d=None, tol=None, precision=None, vector=None,
          bfloat16=False, **options):
    """Compare another implementation's RoPE dump with posenc's exact table of SPEC.

    against: the dump as an array (row r = position start + r; float64/32/16, or bfloat16
    bits as uint16 with bfloat16=True) or a file ('cos.npy', 'model.safetensors#TENSOR').
    what: 'cos', 'sin', 'angle', 'inv-freq', 'cos-sin', 'rotated', 'table' (with
    ':full', ':pairs', ':alternate'), recognised when None. vector: --vector (array or file).
    Returns a Check (a disagreement is a result, not an exception).
    """
    tables = _native.Tables(bfloat16)
    args = ["check"] + _specs(spec, tables)
    if isinstance(against, (str, os.PathLike)):
        args += ["--against", os.fspath(against)]
    else:
        args += ["--against", tables.name(against)]
    args += _options(dict(what=what, start=start, d=d, tol=tol, precision=precision, vector=vector,
                          **options), tables)
    r = _native.check(_native.run(args + ["-o", "check.npy"], tables), allowed=(0, 3))
    return Check(r.stdout, _native.npy(r.files["check.npy"]), r.status)


def plot(command, spec=None, *, bfloat16=False, **options):
    """The figure a command draws, as a Figure (shown inline in Jupyter; ``.save('x.pdf')``).

    command: 'encode', 'distance', 'corr', 'scatter', 'profile', 'decay', 'freqs', 'bias',
    'compare', 'precision', 'check', 'model', 'layers', 'usage'. spec and options as for the functions above,
    with the figure options: width, height or size ('3.5inx2.5in'), dpi, font_size,
    style ('paper', 'slides'), cmap, vmin, vmax, title, raw (PNG of the values only).
    The arguments are checked now; the figure is drawn when first shown or saved.
    """
    tables = _native.Tables(bfloat16)
    against = options.pop("against", None)
    args = [command] + _specs(spec, tables)
    if against is not None:
        args += ["--against", against if isinstance(against, str) else tables.name(against)]
    args += _options(options, tables)
    fig = Figure(command, args[1:], tables, " ".join(a for a in args[1:]))
    fig.png()
    return fig
