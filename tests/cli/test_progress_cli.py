#!/usr/bin/env python3
"""Progress of long exports: on stderr only when it is a terminal, never with -q, never in a pipe, and
the line is erased before "wrote ...". An 8192 x 8192 CSV (67 M cells, seconds) is written to
/dev/null so that the job outlives the one-second delay before anything is shown."""
import os
import pty
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from tap import done, ok, run, skip, workdir  # noqa: E402

EXE = os.path.abspath(sys.argv[1])
wd = workdir()
ARGS = ["distance", "-n", "8192", "-d", "64", "-o", "/dev/null"]


def on_terminal(args):
    """Runs posenc with stderr on a pseudo-terminal; returns (exit status, stderr text, seconds)."""
    master, slave = pty.openpty()
    t0 = time.monotonic()
    proc = subprocess.Popen([EXE, *args], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=slave, cwd=wd)
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 4096)
        except OSError:  # EIO: the other side closed
            break
        if not data:
            break
        chunks.append(data)
    rc = proc.wait()
    os.close(master)
    return rc, b"".join(chunks).decode("utf-8", "replace"), time.monotonic() - t0


rc, err, secs = on_terminal(ARGS)
ok(rc == 0, "runs on a terminal", err)
if secs > 1.5:
    ok("posenc: writing /dev/null:" in err and "%" in err, "progress shown (run took %.1f s)" % secs, err)
    ok("\r\033[K" in err, "the progress line is erased at the end", repr(err[-200:]))
else:
    skip("progress shown", "the run took %.1f s, too quick to show any" % secs)
    skip("the progress line is erased at the end", "nothing was shown")
rc, err, _ = on_terminal(ARGS + ["-q"])
ok(rc == 0 and err == "", "-q: nothing on the terminal", repr(err[:200]))
r = run(EXE, *ARGS, cwd=wd)
ok(r.rc == 0 and "%" not in r.err and "\r" not in r.err, "stderr not a terminal: no progress", r.err)
done()
