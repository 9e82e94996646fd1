#!/usr/bin/env python3
"""Issue 17: hostile sizes, files that change, careful overwrites, terminal safety.

Each class is reproduced in several forms, not only the example:
1. memory: every command at hostile sizes under `ulimit -v` (RLIMIT_AS) refuses
   with one error line or completes, within seconds; with --max-memory the
   refusal says how to raise the budget, and a run the budget admits stays
   within it (peak RSS; unsanitized builds only);
2. unbounded work: figures of n = 1e14 and of a prime n near 2^53 finish at once;
3. inputs that change while read: truncation, growth, removal; never SIGBUS;
4. overwriting: mode and owner kept, symlinks followed (atomically), hard links
   refused, every catchable fatal signal removes the temporary file;
5. file text printed escaped (inspect listings, error lines);
6. non-finite results: compare's summary has no silent NaN;
7. write errors on --help/--version/help; the FIFO and /dev/full cases;
8. a reader that stops early: a quiet SIGPIPE end.
"""
import json
import os
import resource
import shutil
import signal
import stat
import struct
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(__file__))
from tap import done, ok, skip  # noqa: E402

EXE = os.path.abspath(sys.argv[1])
with open(EXE, "rb") as f:
    _image = f.read()
SANITIZED = b"__asan_init" in _image or b"__ubsan_handle" in _image
BAD = ("Sanitizer", "runtime error:", "Segmentation", "Aborted", "core dumped", "Bus error")
MiB = 1 << 20


def run(args, cwd, preexec=None, timeout=60, stdin=None):
    """(exit status or "timeout", stdout, stderr, seconds, 0)."""
    t0 = time.time()
    try:
        p = subprocess.run([EXE, *args], cwd=cwd, capture_output=True, preexec_fn=preexec,
                           stdin=stdin, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "timeout", b"", "", time.time() - t0, 0
    return p.returncode, p.stdout, p.stderr.decode("utf-8", "replace"), time.time() - t0, 0


def run_rss(args, cwd, preexec=None):
    """(exit status, stderr, seconds, peak RSS bytes) of one run."""
    t0 = time.time()
    p = subprocess.Popen([EXE, *args], cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                         preexec_fn=preexec)
    err = p.stderr.read().decode("utf-8", "replace")
    _, status, usage = os.wait4(p.pid, 0)
    return os.waitstatus_to_exitcode(status), err, time.time() - t0, usage.ru_maxrss * 1024


def folder():
    return tempfile.mkdtemp(prefix="posenc-hostile-")


def one_error(err):
    lines = [l for l in err.splitlines() if l and not l.startswith("Try 'posenc")]
    return len(lines) == 1 and lines[0].startswith("posenc: error: ")


# ---- 1. hostile sizes under ulimit -v: refuse with one line, or finish, within seconds ----
HOSTILE = [
    ["encode", "-n", "1e9", "-d", "4096", "-o", "o.csv"],
    ["encode", "-n", "1e7", "-d", "1024", "-o", "o.npy"],
    ["encode", "-n", "1e14", "-d", "16384", "-o", "o.png"],
    ["encode", "--raw", "-d", "16777216", "-o", "o.png"],
    ["distance", "-n", "1e6", "-o", "o.csv"],
    ["distance", "-n", "1e5", "-s", "learned", "-o", "o.npy"],
    ["corr", "-s", "learned", "-n", "1e6", "-o", "o.png"],
    ["scatter", "-n", "1e6", "--max-points", "0", "-o", "o.csv"],
    ["profile", "-n", "1e9", "--at", "0,1,2", "-o", "o.csv"],
    ["decay", "-d", "1048576", "-o", "o.csv"],
    ["decay", "--max-offset", "1e9", "-o", "o.csv"],
    ["freqs", "-d", "16777216", "-o", "o.csv"],
    ["bias", "-s", "alibi:heads=4096", "-o", "o.png"],
    ["bias", "-s", "alibi:heads=64", "-n", "1e5", "-o", "o.npy"],
    ["compare", "-n", "1e9", "-o", "o.png"],
    ["compare", "-d", "100000", "-o", "o.csv"],
    ["compare", "-n", "1e6", "-o", "o.csv"],
    ["report", "-d", "1000000", "-o", "o.pdf"],
    ["report", "-n", "1e8", "-o", "o.html"],
]
AS_LIMIT = 1 << 30  # 1 GiB of address space


def limit_as():
    resource.setrlimit(resource.RLIMIT_AS, (AS_LIMIT, AS_LIMIT))


if SANITIZED:
    skip("hostile sizes under ulimit -v", "sanitizers reserve terabytes of address space")
else:
    for args in HOSTILE:
        wd = folder()
        try:
            rc, err, secs, rss = run_rss(args, wd, preexec=limit_as)
            left = [f for f in os.listdir(wd) if f.startswith(".")]
            good = ((rc == 1 and one_error(err)) or rc == 0) and secs < 20 and not left \
                and not any(b in err for b in BAD)
            ok(good, f"ulimit -v 1G: posenc {' '.join(args)} -> exit {rc} in {secs:.2f} s, "
               f"peak RSS {rss / MiB:.0f} MiB",
               f"rc={rc} secs={secs:.1f} left={left} stderr={err[:400]!r}")
        finally:
            shutil.rmtree(wd, ignore_errors=True)

# --max-memory 16M: the examples of the issue refuse at once, say how to raise the
# budget, and stay within it (plus the program's own ~64 MiB of code, stacks, fonts).
BUDGET = [
    ["compare", "-n", "1e7", "-o", "c.png"],
    ["decay", "-d", "1048576", "-o", "d.csv"],
    ["encode", "--raw", "-d", "16777216", "-o", "e.png"],
    ["bias", "-s", "alibi:heads=4096", "-o", "b.png"],
    ["compare", "-d", "100000", "-o", "c.csv"],
    ["report", "-d", "1000000", "-o", "r.pdf"],
    ["distance", "--raw", "-n", "1000000", "-o", "d.png"],
    ["encode", "-n", "1e6", "-d", "64", "-o", "e.npy"],
]
for args in BUDGET:
    wd = folder()
    try:
        rc, err, secs, rss = run_rss(args + ["--max-memory", "16M"], wd)
        cap = 16 * MiB + 64 * MiB
        good = rc == 1 and one_error(err) and "--max-memory" in err and secs < 5 \
            and (SANITIZED or rss <= cap) and os.listdir(wd) == []
        ok(good, f"--max-memory 16M: posenc {' '.join(args)} refused in {secs:.2f} s, "
           f"peak RSS {rss / MiB:.0f} MiB", f"rc={rc} rss={rss} stderr={err!r}")
    finally:
        shutil.rmtree(wd, ignore_errors=True)

# The advice works: the budget the refusal names lets the same run through.
wd = folder()
try:
    rc, err, _, _ = run_rss(["decay", "-d", "1048576", "--max-memory", "16M", "-o", "d.csv"], wd)
    import re
    m = re.search(r"--max-memory (\d+[MG])\)", err)
    rc2, err2, secs, rss = run_rss(["decay", "-d", "1048576", "--max-memory", m.group(1), "-o", "d.csv"],
                                   wd) if m else (None, "", 0, 0)
    ok(m is not None and rc2 == 0 and os.path.exists(os.path.join(wd, "d.csv")),
       f"the advised --max-memory {m.group(1) if m else '?'} lets decay -d 2^20 through "
       f"({secs:.2f} s, {rss / MiB:.0f} MiB)", f"{err!r} {err2!r}")
finally:
    shutil.rmtree(wd, ignore_errors=True)

# ---- 2. unbounded work: large and prime n draw at once ----
for n in ["1e14", "9007199254740881", "9007199254740992", "999999999999989"]:
    wd = folder()
    try:
        rc, err, secs, rss = run_rss(["encode", "-n", n, "-d", "64", "-o", "e.png"], wd)
        ok(rc == 0 and secs < 10, f"encode -n {n} -d 64 figure in {secs:.2f} s", err)
    finally:
        shutil.rmtree(wd, ignore_errors=True)
for args in (["encode", "-s", "rope", "-n", "9007199254740881", "-o", "e.png"],
             ["encode", "-n", "1e15", "--width", "1200", "--height", "8000", "-o", "e.png"]):
    wd = folder()
    try:
        rc, err, secs, rss = run_rss(args, wd)
        ok(rc == 0 and secs < 20, f"posenc {' '.join(args)} in {secs:.2f} s", err)
    finally:
        shutil.rmtree(wd, ignore_errors=True)


# ---- 3. inputs that change while they are read ----
def npy_f64(path, rows, cols):
    header = "{'descr': '<f8', 'fortran_order': False, 'shape': (%d, %d), }" % (rows, cols)
    pad = 64 - (10 + len(header) + 1) % 64
    header = (header + " " * pad + "\n").encode()
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header)
        chunk = struct.pack("<d", 0.5) * (cols * 1024)
        for _ in range(rows // 1024):
            f.write(chunk)


def changing(name, action, want):
    """Runs encode on a 256 MiB table while @action changes it; never a signal."""
    wd = folder()
    try:
        src = os.path.join(wd, "t.npy")
        npy_f64(src, 32768, 1024)
        outcomes = []
        for delay in (0.0, 0.005, 0.02, 0.05, 0.1):
            shutil.copy(src, os.path.join(wd, "x.npy"))
            p = subprocess.Popen([EXE, "encode", "-s", "file:path=x.npy", "--raw", "-o", "o.png", "-q"],
                                 cwd=wd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            time.sleep(delay)
            action(os.path.join(wd, "x.npy"))
            err = p.stderr.read().decode("utf-8", "replace")
            rc = p.wait()
            outcomes.append((rc, err.strip()))
            if os.path.exists(os.path.join(wd, "x.npy")):
                os.unlink(os.path.join(wd, "x.npy"))
        signals = [o for o in outcomes if not isinstance(o[0], int) or o[0] < 0]
        wrong = [o for o in outcomes if o[0] not in (0, 1) or (o[0] == 1 and not (
            one_error(o[1]) and any(w in o[1] for w in want)))]
        ok(not signals and not wrong,
           f"{name} while it is read: exit 0 or one clear error, never a signal "
           f"({sorted(set(o[0] for o in outcomes))})", f"{outcomes}")
    finally:
        shutil.rmtree(wd, ignore_errors=True)


def truncate(path):
    os.truncate(path, 4096)


def grow(path):
    with open(path, "ab") as f:
        f.write(b"\0" * (1 << 20))


def remove(path):
    os.unlink(path)


def rewrite(path):
    with open(path, "r+b") as f:
        f.seek(1 << 20)
        f.write(b"\x01" * 4096)


changing("a table truncated", truncate, ["shrank", "changed", "truncated", "No such file"])
changing("a table that grows", grow, ["changed size", "changed", "bytes after the data"])
changing("a table removed", remove, ["removed", "No such file"])
changing("a table rewritten in place", rewrite, ["changed"])

# Deterministic forms: a file shrinking between the header and the data is caught
# by the reader's own checks; a truncated copy is a clear error, not SIGBUS.
wd = folder()
try:
    npy_f64(os.path.join(wd, "t.npy"), 1024, 8)
    os.truncate(os.path.join(wd, "t.npy"), 4096)
    rc, out, err, secs, _ = run(["encode", "-s", "file:path=t.npy", "-o", "-"], wd)
    ok(rc == 1 and one_error(err) and "truncated" in err, "a truncated table: one clear error", err)
finally:
    shutil.rmtree(wd, ignore_errors=True)


# ---- 4. overwriting done carefully ----
def overwrite_case(name, setup, check, args=("encode", "-n", "2", "-d", "2", "-q")):
    wd = folder()
    try:
        target = setup(wd)
        rc, out, err, _, _ = run([*args, "-o", target], wd)
        good, why = check(wd, rc, err)
        left = [f for f in os.listdir(wd) if ".posenc-" in f]
        ok(good and not left, name, f"{why}; rc={rc}; stderr={err!r}; left={left}")
    finally:
        shutil.rmtree(wd, ignore_errors=True)


ENC = b"position,0,1\n0,0,1\n1,0.8414709848078965,0.5403023058681398\n"


def with_mode(mode):
    def setup(wd):
        p = os.path.join(wd, "out.csv")
        with open(p, "wb") as f:
            f.write(b"old\n")
        os.chmod(p, mode)
        return "out.csv"

    def check(wd, rc, err):
        st = os.stat(os.path.join(wd, "out.csv"))
        data = open(os.path.join(wd, "out.csv"), "rb").read()
        return rc == 0 and stat.S_IMODE(st.st_mode) == mode and data == ENC, \
            f"mode {oct(stat.S_IMODE(st.st_mode))}"
    return setup, check


for mode in (0o600, 0o640, 0o604, 0o660, 0o755):
    overwrite_case(f"overwriting a {oct(mode)} file keeps its mode", *with_mode(mode))


def symlink_setup(wd):
    os.mkdir(os.path.join(wd, "real"))
    with open(os.path.join(wd, "real", "t.csv"), "wb") as f:
        f.write(b"old\n")
    os.chmod(os.path.join(wd, "real", "t.csv"), 0o600)
    os.symlink("real/t.csv", os.path.join(wd, "link.csv"))
    return "link.csv"


def symlink_check(wd, rc, err):
    link = os.path.join(wd, "link.csv")
    real = os.path.join(wd, "real", "t.csv")
    return (rc == 0 and os.path.islink(link) and os.readlink(link) == "real/t.csv"
            and open(real, "rb").read() == ENC and stat.S_IMODE(os.stat(real).st_mode) == 0o600
            and not [f for f in os.listdir(os.path.join(wd, "real")) if ".posenc-" in f]), "symlink"


overwrite_case("-o through a symlink writes its target, the link stays", symlink_setup, symlink_check)


def chain_setup(wd):
    os.mkdir(os.path.join(wd, "a"))
    os.mkdir(os.path.join(wd, "b"))
    os.symlink("../b/final.csv", os.path.join(wd, "a", "mid.csv"))
    os.symlink("a/mid.csv", os.path.join(wd, "first.csv"))
    return "first.csv"


overwrite_case("a chain of relative symlinks to a new file creates the final target", chain_setup,
               lambda wd, rc, err: (rc == 0 and open(os.path.join(wd, "b", "final.csv"), "rb").read() == ENC
                                    and os.path.islink(os.path.join(wd, "first.csv")), "chain"))


def hard_setup(wd):
    with open(os.path.join(wd, "out.csv"), "wb") as f:
        f.write(b"old\n")
    os.link(os.path.join(wd, "out.csv"), os.path.join(wd, "twin.csv"))
    return "out.csv"


overwrite_case("a hard-linked target is refused, both names keep the old bytes", hard_setup,
               lambda wd, rc, err: (rc == 1 and one_error(err) and "hard links" in err
                                    and open(os.path.join(wd, "twin.csv"), "rb").read() == b"old\n"
                                    and os.stat(os.path.join(wd, "out.csv")).st_nlink == 2, "hard"))

if os.geteuid() == 0:
    def owned_setup(wd):
        p = os.path.join(wd, "out.csv")
        with open(p, "wb") as f:
            f.write(b"old\n")
        os.chown(p, 65534, 65534)
        os.chmod(p, 0o640)
        return "out.csv"

    def owned_check(wd, rc, err):
        st = os.stat(os.path.join(wd, "out.csv"))
        return rc == 0 and (st.st_uid, st.st_gid) == (65534, 65534) \
            and stat.S_IMODE(st.st_mode) == 0o640, f"owner {st.st_uid}:{st.st_gid}"
    overwrite_case("root overwriting another user's file keeps its owner, group and mode",
                   owned_setup, owned_check)
else:
    skip("root keeps the owner", "not running as root")

# Every catchable fatal signal during a long write removes the temporary file;
# an existing target keeps its bytes; the process ends by that signal.
SIGS = [signal.SIGQUIT, signal.SIGUSR1, signal.SIGUSR2, signal.SIGALRM, signal.SIGXCPU,
        signal.SIGVTALRM, signal.SIGPROF, signal.SIGABRT, signal.SIGPOLL, signal.SIGTRAP, signal.SIGSYS]
if not SANITIZED:
    SIGS += [signal.SIGSEGV, signal.SIGBUS]
for sig in SIGS:
    wd = folder()
    try:
        target = os.path.join(wd, "big.csv")
        with open(target, "wb") as f:
            f.write(b"sentinel\n")
        p = subprocess.Popen([EXE, "encode", "-n", "2000000", "-d", "64", "-q", "-o", "big.csv"], cwd=wd,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        seen = False
        for _ in range(3000):
            if [f for f in os.listdir(wd) if ".posenc-" in f]:
                seen = True
                break
            time.sleep(0.01)
        p.send_signal(sig)
        err = p.stderr.read().decode("utf-8", "replace")
        rc = p.wait()
        left = sorted(os.listdir(wd))
        ok(seen and rc == -sig and left == ["big.csv"] and open(target, "rb").read() == b"sentinel\n",
           f"{signal.Signals(sig).name} during a write leaves the target and no temporary file",
           f"seen={seen} rc={rc} left={left} err={err[:200]!r}")
    finally:
        shutil.rmtree(wd, ignore_errors=True)

# ---- 5. untrusted text reaches the terminal escaped ----


def safetensors(header, data):
    raw = json.dumps(header).encode()
    return struct.pack("<Q", len(raw)) + raw + data


EVIL_NAMES = ["wpe\x1b[31m\nposenc: error: forged", "a\rb", "\x9b2J", "\u202eevil",
              "bell\x07", "\x1b]52;c;cHduZWQ=\x07"]
wd = folder()
try:
    hdr = {name: {"dtype": "F64", "shape": [1, 1], "data_offsets": [8 * i, 8 * i + 8]}
           for i, name in enumerate(EVIL_NAMES)}
    hdr["__metadata__"] = {"k\x1b[2J": "v\nposenc: error: x", "\x1b": "\u0085"}
    with open(os.path.join(wd, "e.safetensors"), "wb") as f:
        f.write(safetensors(hdr, bytes(8 * len(EVIL_NAMES))))
    rc, out, err, _, _ = run(["inspect", "e.safetensors"], wd)
    text = out.decode("utf-8", "replace")
    raw_ctrl = [c for c in text if (ord(c) < 32 and c != "\n") or 0x7f <= ord(c) < 0xa0 or c == "\u202e"]
    ok(rc == 0 and not raw_ctrl and "posenc: error" not in "\n".join(
        l for l in text.splitlines() if l.startswith("posenc")) and "\\x1b[31m\\nposenc" in text
       and "\\u202e" in text and "\\u009b" in text,
       "inspect prints tensor names and metadata escaped", text)
    rc, out, err, _, _ = run(["encode", "-s", "e.safetensors#nope", "-o", "-"], wd)
    raw_ctrl = [c for c in err if (ord(c) < 32 and c != "\n") or 0x7f <= ord(c) < 0xa0]
    ok(rc == 1 and one_error(err) and not raw_ctrl, "an error listing tensor names: one line, escaped",
       err)
    with open(os.path.join(wd, "x.csv"), "wb") as f:
        f.write(b"position,0\n0,\x1b[2J\x1b[31mred\n")
    rc, out, err, _, _ = run(["inspect", "x.csv"], wd)
    ok(rc == 1 and one_error(err) and "\x1b" not in err and "\\x1b[2J" in err,
       "a CSV cell in an error: escaped", err)
    bad_npy = b"\x93NUMPY\x01\x00" + (64 - 10).to_bytes(2, "little") + \
        b"{'descr': '\x1b[2J', 'fortran_order': False, 'shape': (1,), }".ljust(53) + b"\n"
    with open(os.path.join(wd, "d.npy"), "wb") as f:
        f.write(bad_npy + bytes(8))
    rc, out, err, _, _ = run(["inspect", "d.npy"], wd)
    both = out.decode("utf-8", "replace") + err
    ok("\x1b" not in both, "an NPY dtype with an escape sequence: escaped", both)
    name = "n\x1b[2J\nposenc: error: forged.csv"
    rc, out, err, _, _ = run(["encode", "-n", "2", "-d", "2", "-o", name], wd)
    ok(rc == 0 and "\x1b" not in err and len(err.splitlines()) == 1,
       "a file name with escapes in 'posenc: wrote': escaped", err)
finally:
    shutil.rmtree(wd, ignore_errors=True)

# ---- 6. no silent NaN in compare's summary ----
wd = folder()
try:
    import math
    rc, out, err, _, _ = run(["compare", "-n", "4", "-d", "8", "-o", "-"], wd)
    rows = [l.split(",") for l in out.decode().splitlines()[1:]]
    # decay_k of sinusoidal = sum_i cos(k w_i), w_i = base^(-2i/d): independent of n.
    want = {}
    for base in (10000, 10):
        w = [base ** (-2 * i / 8) for i in range(4)]
        want[base] = [sum(math.cos(k * x) for x in w) for k in (10, 100)]
    good = rc == 0 and len(rows) == 2 and "nan" not in out.decode()
    for r, base in zip(rows, (10000, 10)):
        good = good and all(abs(float(r[10 + j]) - want[base][j]) < 1e-12 for j in range(2))
    ok(good, "compare -n 4 -d 8: decay_10 and decay_100 computed (no nan), as sum cos(k w_i)",
       out.decode() + err)
    rc, out, err, _, _ = run(["compare", "-s", "learned", "-n", "4", "-d", "8", "-o", "-"], wd)
    ok(rc == 0 and "wavelength_min, wavelength_max left empty (nan)" in err,
       "compare of a learned table says which values are missing and why", err)
finally:
    shutil.rmtree(wd, ignore_errors=True)

# ---- 7. write errors on help output ----
for args in (["--help"], ["--version"], ["help"], ["help", "encode"], ["help", "schemes"],
             ["encode", "--help"], ["report", "--help"], ["inspect", "--help"]):
    with open("/dev/full", "wb") as full:
        p = subprocess.run([EXE, *args], stdout=full, stderr=subprocess.PIPE)
    err = p.stderr.decode()
    ok(p.returncode == 1 and one_error(err) and "No space left on device" in err,
       f"posenc {' '.join(args)} > /dev/full: exit 1, one error", (p.returncode, err))

# ---- 8. a reader that stops early: quiet, by SIGPIPE ----
for args in (["freqs", "-d", "16384"], ["encode", "-n", "100000"], ["bias", "-n", "512"],
             ["inspect", "--help"]):
    cmd = " ".join([EXE] + args + (["-o", "-"] if args[0] != "inspect" else [])) + " | head -3"
    p = subprocess.run(["bash", "-o", "pipefail", "-c", cmd], capture_output=True)
    lines = p.stdout.decode().splitlines()
    ok(p.stderr.decode() == "" and len(lines) == 3 and p.returncode in (0, 141),
       f"posenc {' '.join(args)} | head -3: three lines, nothing on stderr (status {p.returncode})",
       p.stderr.decode())

# A FIFO whose reader goes away: the same quiet end.
wd = folder()
try:
    fifo = os.path.join(wd, "pipe")
    os.mkfifo(fifo)
    p = subprocess.Popen([EXE, "encode", "-n", "1000000", "-o", fifo], stderr=subprocess.PIPE)
    with open(fifo, "rb") as r:
        r.read(4096)
    err = p.stderr.read().decode()
    rc = p.wait()
    ok(rc == -signal.SIGPIPE and err == "", "-o FIFO whose reader closes: quiet SIGPIPE", (rc, err))
finally:
    shutil.rmtree(wd, ignore_errors=True)


# ==== issue 29: budgets that count everything, each input read once ====
FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures", "configs")
LLAMA = os.path.join(FIXTURES, "llama-3.1-8b.json")


def run_time_rss(args, wd):
    """(exit status, stderr, seconds, peak RSS) measured by /usr/bin/time: wait4 from this
    (large) Python process would count its own pages, inherited at fork."""
    if not os.path.exists("/usr/bin/time"):
        rc, err, secs, _ = run_rss(args, wd)
        return rc, err, secs, 0
    t0 = time.time()
    p = subprocess.run(["/usr/bin/time", "-f", "%M", EXE, *args], cwd=wd, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE)
    lines = p.stderr.decode("utf-8", "replace").splitlines()
    rss = int(lines[-1]) * 1024 if lines and lines[-1].isdigit() else 0
    lines = [l for l in lines[:-1] if not l.startswith("Command exited")]
    return p.returncode, "\n".join(lines) + "\n", time.time() - t0, rss


def quick_refusal(name, args, wd, needle, seconds=10, rss_max=None):
    rc, err, secs, rss = run_time_rss(args, wd)
    ok(rc == 1 and one_error(err) and needle in err and secs < seconds
       and (rss_max is None or SANITIZED or rss < rss_max),
       f"{name}: refused at once within the budget", f"rc={rc} {secs:.1f}s rss={rss >> 20} MiB {err!r}")


# 4. memory: the JSON tree of a config, a safetensors header's parse, streams
# (check --against, inspect) and every figure's canvas count against the budget.
wd = folder()
try:
    with open(os.path.join(wd, "big.json"), "w") as f:
        f.write('{"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32, "x": ['
                + ",".join(["1"] * 4000000) + "]}")
    quick_refusal("an 8 MB config.json of numbers at --max-memory 64M",
                  ["freqs", "-s", "hf:big.json", "--max-memory", "64M", "-o", "f.csv"], wd,
                  "parsing this config.json", rss_max=100 * MiB)
    hdr = b'{"a":{"dtype":"F64","shape":[1,1],"data_offsets":[0,8]},"z":[' + b",".join([b"1"] * 4000000) + b"]}"
    with open(os.path.join(wd, "big.safetensors"), "wb") as f:
        f.write(struct.pack("<Q", len(hdr)) + hdr + bytes(8))
    quick_refusal("an 8 MB safetensors header at --max-memory 64M",
                  ["encode", "-s", "file:path=big.safetensors,tensor=a", "--max-memory", "64M", "-o", "e.csv"],
                  wd, "safetensors header", rss_max=100 * MiB)
    quick_refusal("check --against /dev/zero at --max-memory 16M",
                  ["check", "-s", "rope", "-d", "64", "--against", "/dev/zero", "--max-memory", "16M"], wd,
                  "/dev/zero", rss_max=64 * MiB)
    quick_refusal("inspect /dev/zero", ["inspect", "/dev/zero"], wd, "/dev/zero", rss_max=64 * MiB)
    quick_refusal("scatter --size 20000x20000 at --max-memory 1G",
                  ["scatter", "--size", "20000x20000", "--max-memory", "1G", "-o", "s.png"], wd,
                  "pixel figure needs", rss_max=200 * MiB)
    quick_refusal("decay (curves) --size 12000x12000 at --max-memory 256M",
                  ["decay", "--size", "12000x12000", "--max-memory", "256M", "-o", "d.png"], wd,
                  "pixel figure needs", rss_max=200 * MiB)
    ok(not [n for n in os.listdir(wd) if n.endswith((".png", ".csv"))], "... and no output file",
       os.listdir(wd))
finally:
    shutil.rmtree(wd, ignore_errors=True)


# 5. each input read once: standard input, a FIFO, a dump's table and its description.
def piped(args, wd, data):
    """Runs posenc with @data on a pipe as standard input: (status, stdout, stderr)."""
    try:
        p = subprocess.run([EXE, *args], cwd=wd, input=data, capture_output=True, timeout=20)
    except subprocess.TimeoutExpired:
        return "timeout", b"", ""
    return p.returncode, p.stdout, p.stderr.decode("utf-8", "replace")


def fifo_feed(path, data):
    """A writer for the FIFO (in a child process): opens it, writes, exits."""
    pid = os.fork()
    if pid == 0:
        try:
            with open(path, "wb") as f:
                f.write(data)
        finally:
            os._exit(0)
    return pid


wd = folder()
try:
    cfg = open(LLAMA, "rb").read()
    with open(os.path.join(wd, "cfg.json"), "wb") as f:
        f.write(cfg)
    for cmd in (["freqs", "-o", "f.csv"], ["compare", "-o", "c.csv"], ["model", "-o", "m.csv"]):
        rc, _, err = piped([cmd[0], "-s", "hf:/dev/stdin", *cmd[1:]], wd, cfg)
        ok(rc == 0 and "error" not in err, f"cat config.json | posenc {cmd[0]} -s hf:/dev/stdin", (rc, err))
    fifo = os.path.join(wd, "fifo")
    os.mkfifo(fifo)
    pid = fifo_feed(fifo, cfg)
    rc, _, err, secs, _ = run(["freqs", "-s", "hf:fifo", "-o", "f.csv"], wd, timeout=20)
    os.kill(pid, signal.SIGKILL) if rc == "timeout" else None
    os.waitpid(pid, 0)
    ok(rc == 0, "-s hf:FIFO: read once, no hang", (rc, err))
    # CSV tables through a FIFO: the cost check before reading must not open it (that would
    # wait for the writer and take its data from the reader that follows)
    table = b"a,b\n1,2\n3,4\n"
    for name, cmd in (("inspect FIFO", ["inspect", "fifo"]),
                      ("-s file:path=FIFO", ["encode", "-s", "file:path=fifo", "-q", "-o", "t.npy"])):
        pid = fifo_feed(fifo, table)
        rc, out, err, secs, _ = run(cmd, wd, timeout=20)
        try:
            os.kill(pid, signal.SIGKILL)  # a writer still waiting for a reader
        except ProcessLookupError:
            pass
        os.waitpid(pid, 0)
        ok(rc == 0 and "error" not in err, name + ": read once, no hang", (rc, err))
    # position ids through a pipe, for two schemes
    ids = b"t,h,w\n0,0,0\n1,1,1\n2,2,3\n"
    with open(os.path.join(wd, "ids.csv"), "wb") as f:
        f.write(ids)
    rc, _, err = piped(["compare", "-s", "mrope", "-s", "mrope:base=500", "-d", "128",
                        "--position-ids", "/dev/stdin", "-o", "c.csv"], wd, ids)
    ok(rc == 0 and err.count("rows 0..2 of /dev/stdin") == 2, "--position-ids /dev/stdin for two schemes", (rc, err))
    # a dump through a pipe: its description from the same bytes
    rc, _, err, _, _ = run(["encode", "-s", "rope", "-n", "8", "-d", "16", "--view", "cos", "-q", "-o", "cos.npy"], wd)
    rc, out, err = piped(["check", "-s", "rope", "-d", "16", "--what", "cos", "--against", "/dev/stdin"],
                         wd, open(os.path.join(wd, "cos.npy"), "rb").read())
    ok(rc == 0 and b"(npy <f8, shape (8, 16))" in out, "check --against /dev/stdin: table and description", (rc, out, err))
finally:
    shutil.rmtree(wd, ignore_errors=True)


# 6. text from configs and dump names reaches the terminal escaped; 7. it cannot
# inject spec keys or capture --layer; 8. a warning is said once, a NaN as NaN.
# (a layer type is attention when its name says so, as the reader takes it)
EVIL_TYPE = "x\x1b]0;pwned\x07\nposenc: error: forged attention"
wd = folder()
try:
    cfg = {"model_type": "gemma3_text", "head_dim": 128, "num_hidden_layers": 80,
           "max_position_embeddings": 4096,
           "layer_types": [EVIL_TYPE, "full_attention"] * 40,
           "rope_parameters": {EVIL_TYPE: {"rope_type": "linear", "factor": 0.5, "rope_theta": 10000.0},
                               "full_attention": {"rope_type": "default", "rope_theta": 1e6}}}
    with open(os.path.join(wd, "evil.json"), "w") as f:
        json.dump(cfg, f)
    rc, out, err, _, _ = run(["freqs", "-s", "hf:evil.json", "-o", "f.csv"], wd)
    ok(rc == 0 and "\x1b" not in err and "\x07" not in err
       and not any(l.startswith("posenc: error:") for l in err.splitlines()),
       "layer-type names and warnings from a config: escaped, no forged error line", err)
    ok(err.count("warning:") == 1, "a config warning is said once, not once per layer (80 layers)", err)
    rc, out, err, _, _ = run(["compare", "-s", "hf:evil.json", "-o", "c.csv"], wd)
    ok(rc == 0 and "\x1b" not in err and "\x1b" not in open(os.path.join(wd, "c.csv"), errors="replace").read(),
       "compare: labels from layer types escaped in notes and free of control bytes in the table", err)
    # 7. a layer type that looks like spec keys; --layer 0 is layer 0
    inj = {"model_type": "gemma3_text", "head_dim": 128, "num_hidden_layers": 4, "max_position_embeddings": 4096,
           "layer_types": ["g,rotary=0.5,attention", "full_attention"] * 2,
           "rope_parameters": {"g,rotary=0.5,attention": {"rope_type": "default", "rope_theta": 10000.0},
                               "full_attention": {"rope_type": "linear", "factor": 2.0, "rope_theta": 1e6}}}
    with open(os.path.join(wd, "inj.json"), "w") as f:
        json.dump(inj, f)
    rc, out, err, _, _ = run(["freqs", "-s", "hf:inj.json", "--layer", "0", "-q", "-o", "-"], wd)
    rows = out.decode().splitlines()
    # layer 0: base 10000 unscaled, every one of the 64 pairs turns: theta_1 = 10000^(-2/128)
    ok(rc == 0 and len(rows) == 65 and rows[0] == "pair,theta,wavelength"
       and abs(float(rows[2].split(",")[1]) - 10000.0 ** (-2 / 128)) < 1e-15,
       "--layer 0 is layer 0 (base 1e4, unscaled, 64 turning pairs)", (rc, err, rows[:3]))
    rc, out, err, _, _ = run(["model", "-s", "hf:inj.json", "-o", "-"], wd)
    text = out.decode()
    ok(rc == 0 and "rotary=0.5" not in text and "rotary_dim,128" in text,
       "a layer type 'g,rotary=0.5,attention' adds no key to the spec", text)
    # 6. check's against: line, FILE#TENSOR from the command line
    hdr = {"t\x1b[2J": {"dtype": "F64", "shape": [4, 4], "data_offsets": [0, 128]}}
    with open(os.path.join(wd, "d.safetensors"), "wb") as f:
        f.write(safetensors(hdr, bytes(128)))
    rc, out, err, _, _ = run(["check", "-s", "rope", "-d", "4", "--what", "cos",
                              "--against", "d.safetensors#t\x1b[2J"], wd)
    ok(rc in (0, 3) and b"\x1b" not in out and b"t\\x1b[2J" in out, "check's against: line escaped",
       (rc, out, err))
    # 8. a NaN in a dump is said as NaN, not inf
    nan = struct.pack("<d", float("nan"))
    raw = b"\x93NUMPY\x01\x00"
    head = b"{'descr': '<f8', 'fortran_order': False, 'shape': (2, 4), }"
    head += b" " * (64 - 10 - len(head) - 1) + b"\n"
    with open(os.path.join(wd, "nan.npy"), "wb") as f:
        f.write(raw + len(head).to_bytes(2, "little") + head + struct.pack("<d", 1.0) + nan + bytes(48))
    rc, out, err, _, _ = run(["check", "-s", "rope", "-d", "4", "--what", "cos", "--against", "nan.npy"], wd)
    text = out.decode()
    ok(rc == 3 and "max abs error:  nan" in text and "inf" not in text,
       "check: a NaN dump's error is said as nan", (rc, text, err))
finally:
    shutil.rmtree(wd, ignore_errors=True)


# 6. progress lines (on a terminal only): report's steps name the labels, the CSV
# progress names the -o path; both escaped.
def on_tty(args, wd):
    import pty
    import select
    m, sl = pty.openpty()
    p = subprocess.Popen([EXE, *args], stdout=subprocess.DEVNULL, stderr=sl, cwd=wd)
    os.close(sl)
    out = b""
    while True:
        r, _, _ = select.select([m], [], [], 60)
        if not r:
            break
        try:
            d = os.read(m, 65536)
        except OSError:
            break
        if not d:
            break
        out += d
    p.wait()
    os.close(m)
    return p.returncode, out


wd = folder()
try:
    rc, out = on_tty(["report", "-s", "sinusoidal:label=a\x1b]0;T\x07b", "-n", "64", "-o", "r.html"], wd)
    ok(rc == 0 and b"report: [1/" in out and b"\x07" not in out.replace(b"\x1b[K", b"")
       and b"\x1b" not in out.replace(b"\x1b[K", b""), "report's progress line: labels escaped", out[:300])
    # Long enough for the progress line (shown after 1 s), into a FIFO drained here: no GiB on disk.
    fifo = os.path.join(wd, "x\x1b]0;T\x07.csv")
    os.mkfifo(fifo)

    def drain():
        with open(fifo, "rb") as f:
            while f.read(1 << 20):
                pass

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    rc, out = on_tty(["encode", "-n", "1500000", "-d", "64", "-o", "x\x1b]0;T\x07.csv"], wd)
    reader.join(timeout=60)
    ok(rc == 0 and b"writing x\\x1b]0;T\\x07.csv" in out and b"\x07" not in out
       and b"\x1b" not in out.replace(b"\x1b[K", b""),
       "a CSV's progress line and note: the -o path escaped", out[-300:])
finally:
    shutil.rmtree(wd, ignore_errors=True)

# ---- endless streams and terminals reached through a path ----
# /dev/zero and /dev/urandom as tables, dumps and position ids: their first bytes already
# cannot be a file posenc reads (no NPY magic, a NUL byte no CSV has), so the reader says so
# at once instead of reading to the memory budget (it took 12 GB and 20-47 s).
wd = folder()
try:
    for dev in ("/dev/zero", "/dev/urandom"):
        if not os.path.exists(dev):
            skip(f"{dev} as input", f"no {dev}")
            continue
        quick_refusal(f"{dev} as a file: table", ["encode", "-s", "file:path=" + dev, "-o",
                                                  "o.csv"], wd, dev, rss_max=200 * MiB)
        quick_refusal(f"{dev} as check's dump", ["check", "-s", "rope", "-d", "32",
                                                 "--against", dev], wd, dev, rss_max=200 * MiB)
        quick_refusal(f"{dev} as position ids", ["encode", "-s", "mrope", "-d", "128",
                                                 "--position-ids", dev, "-o", "o.csv"], wd,
                      "binary data", rss_max=200 * MiB)
    # file text in an error is escaped once: by the library (a cell's tab as \t), not again
    # by the command line's escaping of the whole message (it showed \\t and \\x93)
    with open(os.path.join(wd, "tabs.csv"), "w") as f:
        f.write("a,b\n1\t2,3\n")
    open(os.path.join(wd, "e\x1bvil.npy"), "wb").close()
    for args, want in ((["encode", "-s", "file:path=tabs.csv", "-o", "o.csv"], "'1\\t2'"),
                       (["inspect", "e\x1bvil.npy"], "'e\\x1bvil.npy': not an NPY file (no "
                                                      "\\x93NUMPY magic)"),
                       (["check", "-s", "rope", "-d", "4", "--against", "e\x1bvil.npy"],
                        "(no \\x93NUMPY magic)")):
        rc, _, err, _, _ = run(args, wd)
        ok(rc in (1, 2) and one_error(err) and want in err and "\\\\" not in err,
           f"escaped once: {args[0]}", err)
    # a NUL deep in a CSV: a stream is not cut short at the read that holds it, it reads
    # as the same bytes in a file do (the early stop judges the first bytes only)
    nul = "position,a\n" + "".join("%d,%d\n" % (i, i) for i in range(200000))
    cut = nul.find("\n150000,")
    nul = (nul[:cut] + "\x00" + nul[cut:]).encode()
    with open(os.path.join(wd, "nul.csv"), "wb") as f:
        f.write(nul)
    whole = run(["encode", "-s", "file:path=nul.csv", "-o", "-"], wd)
    piped = subprocess.run([EXE, "encode", "-s", "file:path=/dev/stdin", "-o", "-"], input=nul,
                           capture_output=True, cwd=wd, timeout=60)
    ok(piped.returncode == whole[0] and piped.stdout == whole[1],
       "a NUL deep in a piped CSV: the same result as the file", (whole[0], piped.returncode,
                                                                 len(whole[1]), len(piped.stdout)))
    # a stream that looks like a table forever still stops at the memory budget
    fifo = os.path.join(wd, "endless.csv")
    os.mkfifo(fifo)

    def feed():
        try:
            with open(fifo, "wb") as f:
                line = b"1,2\n" * 16384
                while True:
                    f.write(line)
        except (BrokenPipeError, OSError):
            pass

    feeder = threading.Thread(target=feed, daemon=True)
    feeder.start()
    quick_refusal("an endless CSV stream", ["encode", "-s", "file:path=" + fifo, "--max-memory",
                                            "4M", "-o", "o.csv"], wd, "longer than the limit")
    feeder.join(timeout=10)
    # -o through a link to a terminal: binary formats refused as -o - refuses them
    import pty
    m, sl = pty.openpty()
    link = os.path.join(wd, "t.npy")
    os.symlink(os.ttyname(sl), link)
    rc, _, err, _, _ = run(["encode", "-n", "4", "-d", "4", "-o", link], wd)
    os.set_blocking(m, False)
    try:
        shown = os.read(m, 4096)
    except OSError:
        shown = b""
    os.close(sl)
    os.close(m)
    ok(rc == 1 and one_error(err) and "is a terminal" in err and shown == b"",
       "-o t.npy -> a terminal: refused, no binary bytes on it", (err, shown))
finally:
    shutil.rmtree(wd, ignore_errors=True)

done()
