"""The native part: posenc's commands run in memory through libposenc-python (cli/library.c).

Every public function builds the command line the program would get and calls posenc_run():
the very code of the program runs, its output files are kept in memory, and the tables the
caller holds are read where the command line names them. By default each run happens in a
forked child process, so that the interpreter stays responsive (the GIL is free while the
parent waits), Ctrl-C stops a long run at once (the child is killed), and whatever the run
allocates goes with the child. POSENC_PYTHON_FORK=0 (or set_fork(False)) runs in the calling
thread instead: the GIL is released during the call (ctypes), but Ctrl-C waits for the end.
"""
import ctypes
import errno as _errno
import io
import mmap
import os
import signal
import struct
import sys
import warnings

import numpy as np

_LIBNAME = "libposenc-python.so"

# enum cli_mem_dtype (cli/shared/memio.h)
_F64, _F32, _F16, _BF16 = 0, 1, 2, 3


class _MemTable(ctypes.Structure):
    _fields_ = [
        ("name", ctypes.c_char_p),
        ("data", ctypes.c_void_p),
        ("dtype", ctypes.c_int),
        ("rows", ctypes.c_size_t),
        ("cols", ctypes.c_size_t),
        ("row_stride", ctypes.c_ssize_t),
        ("col_stride", ctypes.c_ssize_t),
    ]


class _CMemFile(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("data", ctypes.c_void_p), ("len", ctypes.c_size_t)]


class _CResult(ctypes.Structure):
    _fields_ = [
        ("status", ctypes.c_int),
        ("out", ctypes.c_void_p),
        ("out_len", ctypes.c_size_t),
        ("err", ctypes.c_void_p),
        ("err_len", ctypes.c_size_t),
        ("nfiles", ctypes.c_size_t),
        ("files", ctypes.POINTER(_CMemFile)),
    ]


def _find_library():
    here = os.path.dirname(os.path.abspath(__file__))
    candidates = []
    if os.environ.get("POSENC_PYTHON_LIBRARY"):
        candidates.append(os.environ["POSENC_PYTHON_LIBRARY"])
    candidates.append(os.path.join(here, _LIBNAME))
    # Run from a source tree (PYTHONPATH=python) after `meson setup build && ninja -C build`.
    candidates.append(os.path.join(here, "..", "..", "build", "cli", _LIBNAME))
    for path in candidates:
        if os.path.isfile(path):
            return path
    raise ImportError(
        "posenc: %s not found (looked in %s); install the package with "
        "'pip install --no-build-isolation .' or set POSENC_PYTHON_LIBRARY" % (_LIBNAME, ", ".join(candidates))
    )


_lib = ctypes.CDLL(_find_library())
_lib.posenc_run.argtypes = [
    ctypes.c_int,
    ctypes.POINTER(ctypes.c_char_p),
    ctypes.POINTER(_MemTable),
    ctypes.c_size_t,
    ctypes.POINTER(ctypes.POINTER(_CResult)),
]
_lib.posenc_run.restype = ctypes.c_int
_lib.posenc_result_free.argtypes = [ctypes.POINTER(_CResult)]
_lib.posenc_result_free.restype = None
_lib.posenc_result_write.argtypes = [ctypes.POINTER(_CResult), ctypes.c_int]
_lib.posenc_result_write.restype = ctypes.c_int
library_path = _lib._name

_fork = os.environ.get("POSENC_PYTHON_FORK", "1") != "0"


def set_fork(on):
    """Run each command in a forked child (True, the default) or in the calling thread."""
    global _fork
    _fork = bool(on)


class Result:
    """What one run wrote: exit status, standard output and error, and the output files."""

    def __init__(self, status, stdout, stderr, files):
        self.status = status
        self.stdout = stdout
        self.stderr = stderr
        self.files = files  # name -> bytes-like (memoryview of the result)

    def __repr__(self):
        return "<posenc.Result status=%d files=%s>" % (self.status, sorted(self.files))


# ---- tables from memory ------------------------------------------------------------------


def _torch_shape(a):
    """Past two axes, those of length 1 dropped, leading ones first (torch's batch and head
    axes: HF's cos is (batch, seq, dim)), and a last axis of 2 left over taken as pairs side by
    side (view_as_real(freqs_cis) is (seq, dim/2, 2)): the rule of the file readers."""
    if a.ndim <= 2:
        return a
    dims = list(a.shape)
    while len(dims) > 2 and 1 in dims:
        dims.pop(dims.index(1))
    if len(dims) == 3 and dims[2] == 2:
        dims = [dims[0], dims[1] * 2]
    return a.reshape(dims) if len(dims) == 2 else a


def _table(array, name, bfloat16):
    """A numpy array as a table the run reads in place (the C side makes the one float64 copy)."""
    if not isinstance(array, (np.ndarray, list, tuple)) and not hasattr(array, "__array__"):
        raise TypeError("a table is a numpy array, not %s" % type(array).__name__)
    a = _torch_shape(np.asarray(array))
    if a.ndim == 1:
        a = a.reshape(-1, 1)
    if a.ndim != 2:
        raise ValueError("a table must be a 2-D array (positions x width), not %d-D %s" % (a.ndim, a.shape))
    if a.dtype == np.uint16:
        if not bfloat16:
            raise ValueError("a uint16 table is read as bfloat16 bit patterns only with bfloat16=True")
        code = _BF16
    elif a.dtype.kind == "f" and a.dtype.itemsize in (8, 4, 2):
        if bfloat16:
            raise ValueError("bfloat16=True takes the table as uint16 bit patterns, not %s" % a.dtype)
        code = {8: _F64, 4: _F32, 2: _F16}[a.dtype.itemsize]
    else:
        raise ValueError("a table's dtype must be float64, float32, float16 (or uint16 with "
                         "bfloat16=True), not %s" % a.dtype)
    if not a.dtype.isnative:
        a = a.astype(a.dtype.newbyteorder("="))
    t = _MemTable(name.encode(), a.ctypes.data, code, a.shape[0], a.shape[1], a.strides[0], a.strides[1])
    return t, a


class Tables:
    """The in-memory tables of one call: each array gets a name the command line uses."""

    def __init__(self, bfloat16=False):
        self.bfloat16 = bfloat16
        self.entries = []
        self.keep = []

    def name(self, array):
        name = "array" if not self.entries else "array-%d" % (len(self.entries) + 1)
        t, a = _table(array, name, self.bfloat16)
        self.entries.append(t)
        self.keep.append(a)
        return name


# ---- running -----------------------------------------------------------------------------


def _argv(args):
    argv = (ctypes.c_char_p * (len(args) + 2))()
    argv[0] = b"posenc"
    for i, a in enumerate(args):
        argv[i + 1] = os.fsencode(a) if isinstance(a, str) else a
    argv[len(args) + 1] = None
    return argv


def _call(args, tables):
    argv = _argv(args)
    n = len(tables.entries) if tables else 0
    arr = (_MemTable * max(n, 1))(*(tables.entries if tables else []))
    res = ctypes.POINTER(_CResult)()
    if _lib.posenc_run(len(args) + 1, argv, arr, n, ctypes.byref(res)) != 0:
        raise MemoryError("posenc: out of memory")
    return res


def _in_process(args, tables):
    res = _call(args, tables)
    try:
        r = res.contents
        out = ctypes.string_at(r.out, r.out_len) if r.out_len else b""
        err = ctypes.string_at(r.err, r.err_len) if r.err_len else b""
        files = {}
        for i in range(r.nfiles):
            f = r.files[i]
            data = bytearray(f.len)  # writable, so that arrays made on it are too
            if f.len:
                ctypes.memmove((ctypes.c_char * f.len).from_buffer(data), f.data, f.len)
            files[f.name.decode("utf-8", "surrogateescape")] = memoryview(data)
        return Result(r.status, out.decode("utf-8", "replace"), err.decode("utf-8", "replace"), files)
    finally:
        _lib.posenc_result_free(res)


def _parse(buf):
    if len(buf) < 32 or bytes(buf[:16]) != b"posenc-result\n\0\0":
        raise RuntimeError("posenc: the run handed back no result")
    status, nfiles = struct.unpack_from("=qQ", buf, 16)
    at = 32
    view = memoryview(buf)

    def block():
        nonlocal at
        (length,) = struct.unpack_from("=Q", buf, at)
        at += 8
        at += (64 - at % 64) % 64
        b = view[at : at + length]
        at += length
        return b

    out = bytes(block()).decode("utf-8", "replace")
    err = bytes(block()).decode("utf-8", "replace")
    files = {}
    for _ in range(nfiles):
        name = bytes(block()).decode("utf-8", "surrogateescape")
        files[name] = block()
    return Result(int(status), out, err, files)


def _forked(args, tables):
    fd = os.memfd_create("posenc-result", os.MFD_CLOEXEC)
    try:
        pid = os.fork()
        if pid == 0:  # the child: run, hand the result back, leave at once
            code = 127
            try:
                signal.signal(signal.SIGINT, signal.SIG_DFL)
                res = _call(args, tables)
                code = 0 if _lib.posenc_result_write(res, fd) == 0 else 125
            except MemoryError:
                code = 124
            finally:
                os._exit(code)
        try:
            _, wstatus = os.waitpid(pid, 0)
        except BaseException:  # Ctrl-C (KeyboardInterrupt) or any other: stop the run
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            raise
        if os.WIFSIGNALED(wstatus):
            sig = os.WTERMSIG(wstatus)
            if sig == signal.SIGINT:
                raise KeyboardInterrupt
            raise RuntimeError("posenc: the run ended by signal %d (%s)" % (sig, signal.Signals(sig).name))
        code = os.waitstatus_to_exitcode(wstatus)
        if code == 124:
            raise MemoryError("posenc: out of memory")
        if code == 125:
            raise OSError("posenc: the run could not hand its result back (no space for it in memory?)")
        if code != 0:
            raise RuntimeError("posenc: the run failed without a result (exit status %d)" % code)
        size = os.lseek(fd, 0, os.SEEK_END)
        # A private writable mapping: arrays made on it are writable and not copied.
        mm = mmap.mmap(fd, size, flags=mmap.MAP_PRIVATE, prot=mmap.PROT_READ | mmap.PROT_WRITE)
    finally:
        os.close(fd)
    return _parse(mm)


def run(args, tables=None):
    """Run ``posenc ARGS...`` in memory; returns a Result (never raises for the run's own errors)."""
    args = [str(a) for a in args]
    for a in args:
        if "\0" in a:
            # The program's argument would end at the NUL: another spec or value than asked.
            raise ValueError("argument %r holds a NUL character" % a)
    return _forked(args, tables) if _fork else _in_process(args, tables)


# ---- results -----------------------------------------------------------------------------

_STRERRORS = sorted(
    ((os.strerror(code), code) for code in _errno.errorcode if code not in (_errno.ENOMEM,)),
    key=lambda t: -len(t[0]),
)


def error_from(result):
    """The exception for a failed run: its message is posenc's, without the 'posenc: error: '."""
    lines = [ln for ln in result.stderr.splitlines() if ln.startswith("posenc: error: ")]
    msg = lines[-1][len("posenc: error: ") :] if lines else (result.stderr.strip() or "posenc failed (exit status %d)" % result.status)
    if result.status == 2:
        return ValueError(msg)
    if "memory budget" in msg or "out of memory" in msg or "--max-memory" in msg:
        return MemoryError(msg)
    for text, code in _STRERRORS:
        if text in msg:
            return OSError(code, msg)
    return ValueError(msg)


class PosencWarning(UserWarning):
    """A warning of the program ("posenc: warning: ..." on its standard error)."""


def _caller_level():
    """The stacklevel of the first frame outside this package, so a warning names the
    caller's line whichever function of the package ran the command."""
    level, f = 1, sys._getframe(1)
    while f is not None and f.f_globals.get("__name__", "").partition(".")[0] == "posenc":
        level, f = level + 1, f.f_back
    return level


def check(result, allowed=(0,)):
    if result.status not in allowed:
        raise error_from(result)
    # The program's warnings (a model read two ways, -d changing a model's width) would
    # otherwise be lost with its standard error: a result that needs one gets it.
    # So is which layer group of a model it showed (Gemma 3's local layers, not its
    # global ones), which the program only notes: in a notebook that is a warning.
    for line in result.stderr.splitlines():
        if line.startswith("posenc: warning: "):
            warnings.warn(line[len("posenc: warning: "):], PosencWarning,
                          stacklevel=_caller_level())
        elif line.startswith("posenc: ") and " layer groups; showing " in line:
            warnings.warn(line[len("posenc: "):].replace("--layer picks", "layer= picks"),
                          PosencWarning, stacklevel=_caller_level())
    return result


def npy(data):
    """An NPY file's array, made on the result's memory (no copy)."""
    f = io.BytesIO(bytes(data[:16]))
    major, minor = np.lib.format.read_magic(f)
    if major == 1:
        (hlen,) = struct.unpack_from("<H", data, 8)
        start = 10 + hlen
    else:
        (hlen,) = struct.unpack_from("<I", data, 8)
        start = 12 + hlen
    f = io.BytesIO(bytes(data[:start]))
    np.lib.format.read_magic(f)
    if major == 1:
        shape, fortran, dtype = np.lib.format.read_array_header_1_0(f)
    else:
        shape, fortran, dtype = np.lib.format.read_array_header_2_0(f)
    count = int(np.prod(shape)) if shape else 1
    a = np.frombuffer(data, dtype=dtype, count=count, offset=start) if count else np.empty(0, dtype)
    return a.reshape(shape, order="F" if fortran else "C")
