"""The Python package against the program (the same arguments' NPY, CSV and figures) and against
independent numpy formulas (doc/conventions.md). Run by tests/python/run.py, which names the
program in $POSENC and the native library in $POSENC_PYTHON_LIBRARY."""
import doctest
import errno
import io
import os
import re
import signal
import subprocess
import threading
import time

import numpy as np
import pytest

import posenc

POSENC = os.environ["POSENC"]
README = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "README.md")


def cli(tmp_path, *args):
    """The program's output file for ARGS (the last argument is the file name)."""
    out = tmp_path / args[-1]
    subprocess.run([POSENC, *args[:-1], "-q", "-o", str(out)], check=True, cwd=tmp_path)
    return out.read_bytes()


def npy_bytes(a):
    buf = io.BytesIO()
    np.save(buf, a)
    return buf.getvalue()


def test_done_means_shape():
    a = posenc.encode("rope:scaling=llama3,base=500000", n=4, d=8)
    assert a.shape == (4, 8) and a.dtype == np.float64
    a[0, 0] = 2.0  # an ordinary, writable array
    assert a.flags.writeable and a.flags.aligned and a.flags.c_contiguous


@pytest.mark.parametrize("call, args", [
    (lambda: posenc.encode("rope:scaling=llama3,base=500000", n=64, d=16),
     ("encode", "-s", "rope:scaling=llama3,base=500000", "-n", "64", "-d", "16")),
    (lambda: posenc.encode("rope:layout=half", n=33, d=10, view="sin", start=5),
     ("encode", "-s", "rope:layout=half", "--view", "sin", "-n", "33", "-d", "10", "--start", "5")),
    (lambda: posenc.encode("sinusoidal:freq=t2t,layout=blocks", n=7, d=9, dtype="f32"),
     ("encode", "-s", "sinusoidal:freq=t2t,layout=blocks", "-n", "7", "-d", "9", "--dtype", "f32")),
    (lambda: posenc.distance("sinusoidal", n=40, d=12, metric="cosine"),
     ("distance", "-s", "sinusoidal", "-n", "40", "-d", "12", "--metric", "cosine")),
    (lambda: posenc.corr("learned:seed=3", n=20, d=8),
     ("corr", "-s", "learned:seed=3", "-n", "20", "-d", "8")),
    (lambda: posenc.profile(n=30, d=8, at=[0, 7, 29]),
     ("profile", "-n", "30", "-d", "8", "--at", "0,7,29")),
    (lambda: posenc.scatter("rope", n=12, d=8),
     ("scatter", "-s", "rope", "-n", "12", "-d", "8")),
    (lambda: posenc.decay("rope", base=[10000, 500000], d=64, max_offset=50, bound=True),
     ("decay", "-s", "rope", "--base", "10000,500000", "-d", "64", "--max-offset", "50", "--bound")),
    (lambda: posenc.bias("alibi:heads=6", n=9), ("bias", "-s", "alibi:heads=6", "-n", "9")),
    (lambda: posenc.bias("t5:bidirectional=0", n=20), ("bias", "-s", "t5:bidirectional=0", "-n", "20")),
    (lambda: posenc.precision("rope", n=100, d=16, precision=["f32", "bf16"]),
     ("precision", "-s", "rope", "-n", "100", "-d", "16", "--precision", "f32,bf16")),
])
def test_npy_identical_to_the_program(tmp_path, call, args):
    assert npy_bytes(call()) == cli(tmp_path, *args, "x.npy")


def test_sinusoidal_closed_form():
    n, d, base = 50, 16, 10000.0
    got = posenc.encode("sinusoidal", n=n, d=d)
    p = np.arange(n, dtype=np.float64)[:, None]
    k = np.arange(d // 2, dtype=np.float64)[None, :]
    angle = p / base ** (2 * k / d)  # Vaswani et al. 3.5: PE(p, 2k) = sin(p / 10000^(2k/d))
    want = np.empty((n, d))
    want[:, 0::2] = np.sin(angle)
    want[:, 1::2] = np.cos(angle)
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)


def test_rope_cos_from_inv_freq():
    # HF LlamaRotaryEmbedding: inv_freq = 1 / base**(arange(0, d, 2) / d); emb = cat(freqs, freqs)
    n, d, base = 300, 32, 500000.0
    inv_freq = 1.0 / base ** (np.arange(0, d, 2, dtype=np.float64) / d)
    freqs = np.outer(np.arange(n, dtype=np.float64), inv_freq)
    emb = np.concatenate([freqs, freqs], axis=1)
    np.testing.assert_allclose(posenc.encode("rope:layout=half,base=500000", n=n, d=d, view="cos"),
                               np.cos(emb), rtol=0, atol=1e-12)
    np.testing.assert_allclose(posenc.encode("rope:layout=half,base=500000", n=n, d=d, view="sin"),
                               np.sin(emb), rtol=0, atol=1e-12)


def test_learned_table_distance_matches_numpy_and_program(tmp_path):
    table = np.random.default_rng(7).normal(0, 0.02, size=(48, 24)).astype(np.float32)
    got = posenc.distance(table)
    t = table.astype(np.float64)
    want = np.sqrt(((t[:, None, :] - t[None, :, :]) ** 2).sum(-1))
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)
    np.save(tmp_path / "wpe.npy", table)
    assert npy_bytes(got) == cli(tmp_path, "distance", "-s", "file:path=wpe.npy", "wpe-d.npy")


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.float16])
def test_tables_from_memory_every_float(dtype):
    table = np.random.default_rng(1).normal(size=(12, 6)).astype(dtype)
    assert np.array_equal(posenc.encode(table), table.astype(np.float64))
    # Views are read through their strides, not copied first.
    view = table[::3, ::-2]
    assert np.array_equal(posenc.encode(view), view.astype(np.float64))


def test_bfloat16_bits():
    x = np.random.default_rng(2).normal(size=(5, 4)).astype(np.float32)
    bits = (x.view(np.uint32) >> 16).astype(np.uint16)  # truncation: exactly representable
    want = (bits.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    assert np.array_equal(posenc.encode(bits, bfloat16=True), want)
    with pytest.raises(ValueError, match="bfloat16=True"):
        posenc.encode(bits)


def test_bad_tables():
    with pytest.raises(ValueError, match="2-D"):
        posenc.encode(np.zeros((2, 3, 4)))
    with pytest.raises(ValueError, match="dtype"):
        posenc.encode(np.zeros((2, 3), dtype=np.int32))
    bad = np.zeros((4, 3))
    bad[2, 1] = np.nan
    with pytest.raises(ValueError, match="value nan at row 2, column 1"):
        posenc.distance(bad)


def test_freqs_columns_exact(tmp_path):
    cols = posenc.freqs("rope:scaling=llama3,base=500000", d=128, frame=False)
    text = cli(tmp_path, "freqs", "-s", "rope:scaling=llama3,base=500000", "-d", "128",
               "--table", "long", "f.csv").decode()
    lines = text.strip().splitlines()
    assert list(cols) == lines[0].split(",")
    for j, name in enumerate(cols):
        cells = [r.split(",")[j] for r in lines[1:]]
        if name in ("model", "group", "scaling", "regime", "axis"):
            assert list(cols[name]) == cells, name
        else:
            assert np.array_equal(cols[name], np.array([float(c) for c in cells])), name
    theta = 500000.0 ** (-np.arange(0, 128, 2) / 128)
    np.testing.assert_allclose(cols["theta"], theta, rtol=1e-15)
    np.testing.assert_allclose(cols["wavelength"], 2 * np.pi / theta, rtol=1e-15)


def test_freqs_dataframe_with_pandas(tmp_path):
    pd = pytest.importorskip("pandas")
    df = posenc.freqs("rope", d=16)
    want = pd.read_csv(io.BytesIO(cli(tmp_path, "freqs", "-s", "rope", "-d", "16", "--table", "long",
                                       "f.csv")),
                       float_precision="round_trip", dtype={"group": str})
    # the text columns are text: a spec's empty group is '' (as in the dict), not NaN
    want["group"] = want["group"].fillna("")
    pd.testing.assert_frame_equal(df, want)
    assert list(df["group"].unique()) == [""]
    assert list(df["model"].unique()) == ["rope base=10000"]
    both = posenc.freqs(["mrope:t=2,h=1,w=1", "rope"], d=8)
    assert both["axis"].tolist() == ["t", "t", "h", "w"] + [""] * (len(both) - 4)


def test_alibi_closed_form():
    b = posenc.bias("alibi:heads=8", n=6)
    assert b.shape == (8, 6, 6)
    i, j = np.meshgrid(np.arange(6), np.arange(6), indexing="ij")
    for h in range(8):
        m = 2.0 ** -(h + 1)  # Press et al.: slopes 2^(-8/H), 2^(-16/H), ... for H = 8
        want = np.where(j <= i, -m * (i - j), -np.inf)
        assert np.array_equal(b[h], want)


def test_decay_sinusoidal_closed_form():
    d, base = 32, 10000.0
    got = posenc.decay("sinusoidal", d=d, max_offset=40)
    w = base ** (-2 * np.arange(d // 2) / d)
    want = np.cos(np.outer(np.arange(41), w)).sum(1)
    np.testing.assert_allclose(got[:, 0], want, rtol=0, atol=1e-12)


def test_model_groups():
    m = posenc.model("model:gemma-3-27b")
    assert [g.name for g in m.groups] == ["local", "global"]
    assert m.facts["layers"] == 62
    assert m.group("local")["head_dim"] == 128
    assert m.group("global")["base"] == 1000000
    assert repr(m).startswith("model:gemma-3-27b: model_type gemma3_text")


def test_check_agree_and_disagree():
    n, d = 64, 16
    inv_freq = 1.0 / 10000.0 ** (np.arange(0, d, 2) / d)
    freqs = np.outer(np.arange(n), inv_freq)
    cos_half = np.cos(np.concatenate([freqs, freqs], axis=1))
    ok = posenc.check("rope:layout=half", cos_half)
    assert ok.agree and ok.verdict == "agree" and ok.diagnosis is None
    assert ok.errors.shape[0] == n
    assert "verdict:        agree" in repr(ok)
    # The same cache checked as the interleaved layout: posenc names the mistake.
    bad = posenc.check("rope", cos_half.astype(np.float32))
    assert not bad and bad.verdict == "disagree" and bad.status == 3
    assert "layout" in bad.diagnosis
    assert repr(bad).splitlines()[0].startswith("against:        array (")
    assert bad.errors[:, 0].max() > 0.1


def test_check_judges_an_array_at_its_dtype(tmp_path):
    """A float32, float16 or bfloat16 array is a dump stored in that format, as the same
    values in an .npy or .safetensors file are: exact cos values rounded to float32 agree up
    to float32 storage (at 1e-9 against exact values they would disagree)."""
    n, d = 64, 16
    inv_freq = 1.0 / 10000.0 ** (np.arange(0, d, 2) / d)
    cos = np.repeat(np.cos(np.outer(np.arange(n), inv_freq)), 2, axis=1)
    r = posenc.check("rope", cos.astype(np.float32))
    assert r.agree and r.fields["verdict"].startswith("agree up to float32 storage"), repr(r)
    np.save(tmp_path / "c.npy", cos.astype(np.float32))
    out = subprocess.run([POSENC, "check", "-s", "rope", "--against", "c.npy"], cwd=tmp_path,
                         capture_output=True, text=True).stdout
    assert re.search("verdict: +(.*)", out).group(1) == r.fields["verdict"]
    f16 = posenc.check("rope", cos.astype(np.float16))
    assert f16.agree and "f32/f16" in f16.fields["verdict"], repr(f16)
    # bfloat16 by round to nearest even of the float32 bits
    u = cos.astype(np.float32).view(np.uint32).astype(np.uint64)
    bf = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    b = posenc.check("rope", bf, bfloat16=True)
    assert b.agree and "f32/bf16" in b.fields["verdict"], repr(b)


def test_warnings_reach_python(tmp_path):
    """What the program warns of on stderr is a PosencWarning at the caller's line, not lost
    with the standard error the functions do not show."""
    err = subprocess.run([POSENC, "encode", "-s", "model:deepseek-v3", "-n", "4", "-d", "128",
                          "-o", "x.npy"], cwd=tmp_path, capture_output=True, text=True).stderr
    want = [ln[len("posenc: warning: "):] for ln in err.splitlines()
            if ln.startswith("posenc: warning: ")]
    assert len(want) == 1 and "head width 128 instead of its own 64" in want[0]
    with pytest.warns(posenc.PosencWarning) as got:
        a = posenc.encode("model:deepseek-v3", n=4, d=128)
    assert a.shape == (4, 128)
    assert [str(w.message) for w in got] == want
    assert got[0].filename == __file__
    with pytest.warns(posenc.PosencWarning, match="rope_scaling.factor"):
        posenc.freqs("model:qwen2.5-7b-yarn")
    with pytest.warns(posenc.PosencWarning, match="rope_scaling.factor"):
        posenc.plot("decay", "model:qwen2.5-7b-yarn", max_offset=8)
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        posenc.encode("rope", n=4, d=8)  # notes ("wrote ...") are not warnings
        posenc.encode("model:gemma-3-27b", n=4, layer="global")  # the group asked for


def test_layer_group_choice_is_a_warning():
    """Gemma 3 27B (tests/fixtures/hf/gemma-3-27b-it.json's model) has local layers, five in
    six, and global ones; without layer= a table is of the first group, which a notebook
    user is told as the command line's user is."""
    with pytest.warns(posenc.PosencWarning, match=r"2 layer groups; showing 'local' "
                      r"\(layers 0-4,6-10,.*layer= picks another"):
        a = posenc.encode("model:gemma-3-27b", n=4)
    # local layers: rope_local_base_freq 10000, head_dim 128, no scaling; the default
    # view rotates the all-ones vector: pair (i, i + 64) becomes (cos - sin, cos + sin)
    inv = 1.0 / 10000.0 ** (np.arange(0, 128, 2) / 128)
    angle = np.arange(4)[:, None] * inv
    assert a.shape == (4, 128)
    assert np.allclose(a[:, :64], np.cos(angle) - np.sin(angle), rtol=0, atol=1e-14)
    assert np.allclose(a[:, 64:], np.cos(angle) + np.sin(angle), rtol=0, atol=1e-14)


def test_position_ids_from_memory(tmp_path):
    """M-RoPE's (t, h, w) ids as an integer array (n x 3 or 3 x n, as torch holds them) are
    what --position-ids reads from a file; pair k turns by its axis's id times theta_k."""
    ids = np.array([[0, 0, 0], [1, 2, 3], [4, 5, 6], [7, 7, 7]])
    spec, d = "mrope:t=1,h=1,w=1", 6
    a = posenc.encode(spec, n=4, d=d, view="angle", position_ids=ids)
    theta = 10000.0 ** (-np.arange(0, d, 2) / d)
    ref = ids * theta  # pair 0 by t, 1 by h, 2 by w
    assert np.allclose(a, np.concatenate([ref, ref], axis=1), rtol=1e-15, atol=0)
    assert np.array_equal(posenc.encode(spec, n=4, d=d, view="angle", position_ids=ids.T), a)
    (tmp_path / "ids.csv").write_text("t,h,w\n" + "".join("%d,%d,%d\n" % tuple(r) for r in ids))
    assert npy_bytes(a) == cli(tmp_path, "encode", "-s", spec, "-n", "4", "-d", str(d), "--view",
                               "angle", "--position-ids", "ids.csv", "a.npy")
    with pytest.raises(ValueError, match="n x 3"):
        posenc.encode(spec, n=4, d=d, position_ids=np.zeros((4, 2)))
    with pytest.raises(ValueError, match="whole number"):
        posenc.encode(spec, n=1, d=d, position_ids=np.array([[0.5, 0, 0]]))
    with pytest.raises(TypeError, match="file name"):
        posenc.plot("usage", "model:llama-3.1-8b", weights=np.zeros((2, 2)))


def test_list_options_from_numpy():
    """A range, a numpy array or numpy scalars are a list option as a list is."""
    want = posenc.profile(n=20, d=8, at=[0, 5, 10])
    assert np.array_equal(posenc.profile(n=20, d=8, at=np.array([0, 5, 10])), want)
    assert np.array_equal(posenc.profile(n=20, d=8, at=range(0, 15, 5)), want)
    assert np.array_equal(posenc.profile(n=20, d=8, at=[np.int64(0), np.int32(5), 10]), want)
    two = posenc.decay("rope", d=8, base=np.array([10000.0, 500000.0]), max_offset=3)
    assert np.array_equal(two, posenc.decay("rope", d=8, base=[10000, 500000], max_offset=3))
    f = posenc.encode("rope", n=3, d=4, view="angle", start=np.int64(2))
    assert np.array_equal(f, posenc.encode("rope", n=3, d=4, view="angle", start=2))


def test_check_takes_torch_shapes():
    """HF's rotary_emb returns cos as (batch, seq, dim); Meta's view_as_real(freqs_cis) is
    (seq, dim/2, 2): both are checked as the program reads such files."""
    n, d = 64, 16
    inv_freq = 1.0 / 10000.0 ** (np.arange(0, d, 2) / d)
    freqs = np.outer(np.arange(n), inv_freq)
    cos_half = np.cos(np.concatenate([freqs, freqs], axis=1))
    assert posenc.check("rope:layout=half", cos_half[None]).agree
    assert posenc.check("rope:layout=half", cos_half[None, None]).agree
    cis = np.stack([np.cos(freqs), np.sin(freqs)], axis=2)
    r = posenc.check("rope", cis, what="cos-sin:alternate")
    assert r.agree, repr(r)
    with pytest.raises(ValueError, match="2-D"):
        posenc.check("rope", np.zeros((2, 3, 4)))


def test_figures(tmp_path):
    fig = posenc.plot("distance", "sinusoidal", n=64, d=16)
    png = fig._repr_png_()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    assert (int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")) == (640, 480)
    assert png == cli(tmp_path, "distance", "-s", "sinusoidal", "-n", "64", "-d", "16", "d.png")
    assert "<svg" in fig._repr_svg_()
    fig.save(tmp_path / "d.pdf")
    assert (tmp_path / "d.pdf").read_bytes()[:5] == b"%PDF-"
    small = posenc.plot("decay", ["rope", np.ones((20, 8))], d=8, width="3.5in", dpi=200)
    png = small.png()
    assert int.from_bytes(png[16:20], "big") == 700


def test_errors():
    with pytest.raises(ValueError, match="scheme 'rope:bogus=1'"):
        posenc.encode("rope:bogus=1")
    with pytest.raises(ValueError, match="option '-n'"):
        posenc.encode(n="12x")
    with pytest.raises(MemoryError, match="more than the memory budget of 16.0 MiB"):
        posenc.distance("sinusoidal", n=100000, d=8, max_memory="16M")
    with pytest.raises(OSError) as e:
        posenc.encode("file:path=/nonexistent/wpe.npy")
    assert e.value.errno == errno.ENOENT and "'/nonexistent/wpe.npy'" in str(e.value)


def test_a_nul_inside_an_argument_is_refused():
    # C strings end at a NUL: 'rope\0...' reached the program as 'rope' and gave a table of
    # another spec than the one asked for.
    for call in (lambda: posenc.encode("rope\0base=10", n=2, d=4),
                 lambda: posenc.encode("rope", n=2, d=4, view="cos\0x"),
                 lambda: posenc.run("encode", "-s", "rope", "-n", "2\0junk")):
        with pytest.raises(ValueError, match="NUL"):
            call()


def test_a_spec_of_another_type_is_a_type_error():
    # An int was iterated ("'int' object is not iterable"), a dict's keys taken for specs,
    # bytes read as a 0-D table.
    for spec in (5, {"rope": 1}, b"rope", [None], [3.5]):
        with pytest.raises(TypeError, match="a spec is a str .* or a numpy array, not"):
            posenc.encode(spec, n=2, d=4)
    for against in (None, 5, b"cos.npy"):
        with pytest.raises(TypeError, match="not"):
            posenc.check("rope", against)
    # True or False for an option that takes a value: True passed the bare option, which took
    # the next argument for its value ("option '--start': '-o' is not a whole number").
    for opts in ({"n": True, "d": 4}, {"start": True, "n": 4, "d": 8},
                 {"positions": True, "d": 8}, {"base": False, "n": 4, "d": 8}):
        with pytest.raises(TypeError, match="takes a value, not True or False"):
            posenc.encode("rope", **opts)
    # the options without a value still take True
    assert posenc.decay("rope", d=8, max_offset=4, bound=True) is not None


def test_a_file_option_takes_a_name_or_an_array_not_any_text(tmp_path):
    # vector=[1, 1, 1, 1] was made the text '1,1,1,1' and looked for as a file; an object
    # its repr. An array for weights= (a checkpoint, read by the program) is refused.
    # A list is a table, as for against: cos and sin of position m rotate (1, 1) to
    # (cos m - sin m, sin m + cos m), written here for d = 2 (theta 1).
    m = np.arange(3.0)
    rotated = np.stack([np.cos(m) - np.sin(m), np.sin(m) + np.cos(m)], axis=1)
    assert posenc.check("rope", rotated, what="rotated", vector=[1.0, 1.0]).agree
    with pytest.raises(TypeError, match="a table is a numpy array, not object"):
        posenc.check("rope", rotated, what="rotated", vector=object())
    with pytest.raises(TypeError, match="weights= takes a file name, not ndarray"):
        posenc.plot("usage", "model:llama-3.1-8b", weights=np.zeros((2, 3)))
    # a path object is a name
    np.save(tmp_path / "r.npy", rotated)
    np.save(tmp_path / "x.npy", np.ones(2))
    assert posenc.check("rope", tmp_path / "r.npy", what="rotated", vector=tmp_path / "x.npy").agree


def test_save_names_the_file_asked_for(tmp_path):
    fig = posenc.plot("distance", "sinusoidal", n=8, d=4)
    target = tmp_path / "missing" / "d.png"
    with pytest.raises(FileNotFoundError) as e:
        fig.save(target)
    assert e.value.errno == errno.ENOENT and e.value.filename == str(target)
    assert not list(tmp_path.iterdir())


def test_in_process_runs_agree():
    before = posenc._native._fork
    posenc.set_fork(False)
    try:
        a = posenc.corr("learned", n=30, d=8)
        with pytest.raises(ValueError):
            posenc.encode("nosuch")
    finally:
        posenc.set_fork(before)
    assert npy_bytes(a) == npy_bytes(posenc.corr("learned", n=30, d=8))


def test_in_process_runs_read_files_anew(tmp_path):
    """Run after run in one process, a config.json edited in between and another
    --position-ids file are read as they are now, not as the first run kept them."""
    before = posenc._native._fork
    posenc.set_fork(False)
    try:
        cfg = tmp_path / "config.json"
        spec = "hf:" + str(cfg)

        def write(theta):
            cfg.write_text('{"model_type": "llama", "hidden_size": 64, "num_attention_heads": 4, '
                           '"num_hidden_layers": 1, "rope_theta": %r}' % theta)

        write(500000.0)
        assert posenc.model(spec).groups[0]["base"] == 500000
        write(10000.0)
        assert posenc.model(spec).groups[0]["base"] == 10000
        # head width 16, half layout: column 1 is pair 1, theta_1 = 10000^(-2/16)
        a = posenc.encode(spec, n=2, view="angle")
        assert a.shape == (2, 16) and a[1, 1] == pytest.approx(10000.0 ** (-2 / 16), rel=1e-15)
        mrope = "mrope:t=1,h=1,w=1"
        one = posenc.encode(mrope, n=1, d=6, view="angle", position_ids=np.array([[1, 2, 3]]))
        two = posenc.encode(mrope, n=1, d=6, view="angle", position_ids=np.array([[4, 5, 6]]))
        theta = 10000.0 ** (-np.arange(0, 6, 2) / 6)
        assert np.allclose(one[0, :3], [1, 2, 3] * theta, rtol=1e-15, atol=0)
        assert np.allclose(two[0, :3], [4, 5, 6] * theta, rtol=1e-15, atol=0)
    finally:
        posenc.set_fork(before)


FORKED = os.environ.get("POSENC_PYTHON_FORK", "1") != "0"


@pytest.mark.skipif(not FORKED, reason="in-process runs (POSENC_PYTHON_FORK=0) end before Ctrl-C")
def test_ctrl_c_stops_a_long_run():
    timer = threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT))
    start = time.monotonic()
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        posenc.precision("rope", n=10**9, d=128, max_time="2h")  # minutes of work
    assert time.monotonic() - start < 10


@pytest.mark.skipif(not FORKED, reason="a long run, left out of the in-process (leak) run")
def test_the_gil_is_free_during_a_run():
    ticks = []
    result = []
    t = threading.Thread(target=lambda: result.append(posenc.precision("rope", n=5 * 10**5, d=64)))
    t.start()
    while t.is_alive():
        ticks.append(1)
        time.sleep(0.001)
    t.join()
    assert result and len(ticks) > 20


def test_help_shows_docstrings():
    assert "The encoding matrix" in posenc.encode.__doc__
    text = io.StringIO()
    import pydoc
    text.write(pydoc.render_doc(posenc.encode, renderer=pydoc.plaintext))
    assert "bit for bit" in text.getvalue()


def test_version_is_the_program_s():
    out = subprocess.run([POSENC, "--version"], capture_output=True, text=True).stdout
    assert out.strip() == "posenc " + posenc.__version__


def test_readme_from_python(tmp_path, monkeypatch):
    text = open(README, encoding="utf-8").read()
    section = text.split("## From Python", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```pycon\n(.*?)```", section, re.S)
    assert blocks, "the README's 'From Python' section has no pycon block"
    monkeypatch.chdir(tmp_path)
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    for i, block in enumerate(blocks):
        test = parser.get_doctest(block, {"__name__": "readme"}, "README From Python %d" % i, README, 0)
        runner.run(test, out=lambda s: print(s, end=""))
    assert runner.failures == 0 and runner.tries > 0


def test_run_any_command_line(tmp_path):
    # Sinusoidal distances are streamed from the offset kernel (lib/io/write_offset.c), also
    # into memory, where the stream has no file descriptor.
    r = posenc.run("distance", "-n", "40", "-d", "12", "-o", "d.csv")
    assert r.status == 0 and r.stderr == "posenc: wrote d.csv (40 x 40 table)\n"
    assert bytes(r.files["d.csv"]) == cli(tmp_path, "distance", "-n", "40", "-d", "12", "d.csv")
    t = np.arange(12.0).reshape(4, 3)
    r = posenc.run("encode", "-s", "file:path=mine", "-o", "-", tables={"mine": t})
    assert r.stdout.splitlines()[2] == "1,3,4,5"
    r = posenc.run("encode", "-s", "nosuch")
    assert r.status == 2 and r.stderr.startswith("posenc: error: ")


def test_tables_count_against_the_budget():
    table = np.zeros((1000, 1000), dtype=np.float32)
    with pytest.raises(MemoryError, match=r"'array': the 1000 x 1000 table needs 7.6 MiB as float64, "
                                          r"more than the limit of 1.0 MiB"):
        posenc.encode(table, max_memory="1M")


@pytest.mark.skipif(not FORKED, reason="in-process runs convert the table in this process")
def test_a_table_is_not_copied_by_python():
    import tracemalloc
    table = np.ones((2000, 2000), dtype=np.float32)[::2, ::-1]  # a strided view of 8 MB
    tracemalloc.start()
    try:
        out = posenc.encode(table)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert out.shape == (1000, 2000) and out[0, 0] == 1.0
    assert peak < 1 << 20, peak  # neither a contiguous copy nor the float64 table: read in place


@pytest.mark.parametrize("command, spec, kw, args", [
    ("encode", "rope", dict(n=64, d=16, view="cos"), ["-s", "rope", "-n", "64", "-d", "16", "--view", "cos"]),
    ("corr", "sinusoidal:base=10", dict(n=32, d=8, cmap="magma"),
     ["-s", "sinusoidal:base=10", "-n", "32", "-d", "8", "--cmap", "magma"]),
    ("scatter", "sinusoidal", dict(n=24, d=8, style="slides"), ["-n", "24", "-d", "8", "--style", "slides"]),
    ("profile", "sinusoidal", dict(n=64, d=8, at=[0, 32], size="4inx3in", dpi=80),
     ["-n", "64", "-d", "8", "--at", "0,32", "--size", "4inx3in", "--dpi", "80"]),
    ("decay", "rope", dict(base=[10000, 500000], d=32, max_offset=64, bound=True, title="Decay"),
     ["-s", "rope", "--base", "10000,500000", "-d", "32", "--max-offset", "64", "--bound", "--title", "Decay"]),
    ("freqs", "rope:scaling=yarn,factor=4,original=4096", dict(d=64, font_size=12),
     ["-s", "rope:scaling=yarn,factor=4,original=4096", "-d", "64", "--font-size", "12"]),
    ("bias", "alibi:heads=4", dict(n=16, width=500), ["-s", "alibi:heads=4", "-n", "16", "--width", "500"]),
    ("compare", ["sinusoidal", "rope"], dict(n=32, d=16, style="paper"),
     ["-s", "sinusoidal", "-s", "rope", "-n", "32", "-d", "16", "--style", "paper"]),
    ("precision", "rope", dict(n=2000, d=16, precision=["f32", "bf16"]),
     ["-s", "rope", "-n", "2000", "-d", "16", "--precision", "f32,bf16"]),
    ("model", "model:llama-3.1-8b", {}, ["-s", "model:llama-3.1-8b"]),
    ("encode", "sinusoidal", dict(n=40, d=16, raw=True), ["-n", "40", "-d", "16", "--raw"]),
])
def test_every_figure_is_the_program_s(tmp_path, command, spec, kw, args):
    assert posenc.plot(command, spec, **kw).png() == cli(tmp_path, command, *args, "f.png")
