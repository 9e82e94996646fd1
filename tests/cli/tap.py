"""A minimal TAP producer and helpers to run the posenc program in tests.

Every temporary folder a test makes with tempfile (workdir() or its own mkdtemp) lies in one
folder of this process, removed when the process ends, also when the test runner stops it with
SIGTERM (a timeout): a suite run leaves nothing in /tmp (its files reach a GiB). With
POSENC_KEEP_TEST_FILES=1 the folder is kept and named on stderr, to look at a failure.
"""
import atexit
import os
import shutil
import signal
import subprocess
import sys
import tempfile

_count = 0
_failed = 0

_root = tempfile.mkdtemp(prefix="posenc-test-")
tempfile.tempdir = _root


def _cleanup():
    if os.environ.get("POSENC_KEEP_TEST_FILES"):
        print(f"# test files kept in {_root}", file=sys.stderr)
    else:
        shutil.rmtree(_root, ignore_errors=True)


def _stopped(signum, frame):
    sys.exit(128 + signum)  # through atexit


atexit.register(_cleanup)
signal.signal(signal.SIGTERM, _stopped)


def ok(cond, name, detail=""):
    global _count, _failed
    _count += 1
    if cond:
        print(f"ok {_count} - {name}")
    else:
        _failed += 1
        print(f"not ok {_count} - {name}")
        for line in str(detail).splitlines()[:20]:
            print(f"#   {line}")
    sys.stdout.flush()
    return cond


def skip(name, why):
    global _count
    _count += 1
    print(f"ok {_count} - {name} # SKIP {why}")


def done():
    print(f"1..{_count}")
    sys.exit(1 if _failed else 0)


class Run:
    def __init__(self, proc):
        self.rc = proc.returncode
        self.out = proc.stdout
        self.err = proc.stderr.decode("utf-8", "replace")

    @property
    def text(self):
        return self.out.decode("utf-8", "replace")


def run(exe, *args, cwd=None, stdin=None):
    proc = subprocess.run([exe, *args], capture_output=True, cwd=cwd, stdin=stdin, timeout=120)
    return Run(proc)


def workdir():
    return tempfile.mkdtemp(prefix="posenc-cli-")


def numpy_python():
    """A Python interpreter that has numpy: this one, or Debian's."""
    try:
        import numpy  # noqa: F401
        return sys.executable
    except ImportError:
        pass
    for cand in ("/usr/bin/python3",):
        if os.path.exists(cand):
            r = subprocess.run([cand, "-c", "import numpy"], capture_output=True)
            if r.returncode == 0:
                return cand
    return None


def require_numpy(name):
    """numpy, imported; without it the script runs again under a Python that has it
    (Debian's), or, if there is none, reports @name skipped and exits."""
    try:
        import numpy
        return numpy
    except ImportError:
        py = numpy_python()
        if py and os.path.realpath(py) != os.path.realpath(sys.executable):
            _cleanup()  # exec skips atexit; the new process makes its own folder
            os.execv(py, [py, *sys.argv])
        skip(name, "numpy is not installed")
        done()


def error_case(exe, name, args, want_rc, needle, cwd=None):
    """A failing run: exit status, one 'posenc: error:' line naming the problem,
    and no file left in cwd (the folder must start empty or as given)."""
    before = set(os.listdir(cwd)) if cwd else None
    r = run(exe, *args, cwd=cwd)
    lines = [l for l in r.err.splitlines() if l]
    first = lines[0] if lines else ""
    good = (r.rc == want_rc and first.startswith("posenc: error: ") and needle in first
            and len([l for l in lines if l.startswith("posenc: error")]) == 1)
    if cwd:
        after = set(os.listdir(cwd))
        good = good and after == before
    return ok(good, f"error: {name}", f"rc={r.rc} want {want_rc}; stderr={r.err!r}; "
              f"needle={needle!r}" + (f"; files {sorted(set(os.listdir(cwd)) - before)}" if cwd else ""))


def long_columns(rows):
    """freqs' long table as columns: theta, wavelength and NAME_theta per scaling (not none)."""
    head, body = rows[0], [dict(zip(rows[0], x)) for x in rows[1:]]
    cols, scaled = {}, []
    first = body[0]["scaling"] if body else "none"
    for x in body:
        if x["scaling"] == first:
            cols.setdefault("theta", []).append(float(x["theta"]))
            cols.setdefault("wavelength", []).append(float(x["wavelength"]))
        if x["scaling"] != "none":
            name = x["scaling"] + "_theta"
            if name not in cols:
                scaled.append(name)
            cols.setdefault(name, []).append(float(x["scaled_theta"]))
    return cols, scaled
