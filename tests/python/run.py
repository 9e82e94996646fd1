#!/usr/bin/env python3
"""Runs the Python package's tests (pytest) and reports each as a TAP line for `make test`.

    tests/python/run.py build/cli/posenc build/cli/libposenc-python.so [pytest args...]

pytest's own report goes to standard error; standard output carries only TAP, so that
tests/summarize.py counts every pytest test. POSENC_PYTHON_FORK=0 runs them in-process (the
leak-checking run, tests/python/leaks.sh).
"""
import os
import subprocess
import sys

# An AddressSanitizer build (make check-sanitize): python must load the sanitizer's runtime
# before the library. Its leak check stays off here: it would count the interpreter's own
# blocks (tests/python/leaks.sh checks leaks, with valgrind).
if "address" in os.environ.get("POSENC_SANITIZE", "") and "POSENC_PRELOADED" not in os.environ:
    cc = os.environ.get("POSENC_CC", "cc")
    name = "libasan.so" if "clang" not in os.path.basename(cc) else "libclang_rt.asan-x86_64.so"
    runtime = subprocess.run([cc, "-print-file-name=" + name], capture_output=True, text=True).stdout.strip()
    if not os.path.isabs(runtime):
        print("1..0 # SKIP no %s to preload for the sanitizer build" % name)
        sys.exit(0)
    env = dict(os.environ, POSENC_PRELOADED="1", LD_PRELOAD=runtime,
               ASAN_OPTIONS=os.environ.get("ASAN_OPTIONS", "") + ":detect_leaks=0")
    os.execve(sys.executable, [sys.executable] + sys.argv, env)

here = os.path.dirname(os.path.abspath(__file__))
os.environ["POSENC"] = os.path.abspath(sys.argv[1])
os.environ["POSENC_PYTHON_LIBRARY"] = os.path.abspath(sys.argv[2])
sys.path.insert(0, os.path.join(here, "..", "..", "python"))
sys.dont_write_bytecode = True

import pytest  # noqa: E402

tap = sys.stdout
results = []


class Tap:
    def pytest_runtest_logreport(self, report):
        if report.when == "call" or (report.when == "setup" and not report.passed):
            results.append(report)
            n = len(results)
            name = report.nodeid.split("::", 1)[-1]
            if report.skipped:
                tap.write("ok %d - %s # SKIP\n" % (n, name))
            elif report.passed:
                tap.write("ok %d - %s\n" % (n, name))
            else:
                tap.write("not ok %d - %s\n" % (n, name))
            tap.flush()


sys.stdout = sys.stderr
code = pytest.main(["-q", "-p", "no:cacheprovider", os.path.join(here, "test_posenc.py")] + sys.argv[3:],
                   plugins=[Tap()])
tap.write("1..%d\n" % len(results))
tap.flush()
sys.exit(0 if code in (0, 5) else 1)
