#!/usr/bin/env python3
"""The README's examples, run: each command it shows must print what it shows.

    tests/docs/test_readme.py README.md build/cli/posenc

The convention every README example that shows a command and its output follows:

- It is a fenced block marked ```console. A line starting with "$ " is a command, the lines after
  it, up to the next "$ " line or the end of the block, are its output. Blank lines at the end of
  an output separate examples and are not part of it. A "# ..." comment after a command is not
  run.
- Commands start with "posenc" (it runs as the built program) and are split like a shell
  splits words, without a shell: no pipes, globs or variables.
- The output is exactly what the terminal shows, numbers to the last digit: standard output and
  standard error. posenc writes its notes, warnings and errors ("posenc: wrote x.png (...)",
  "posenc: error: ...") to standard error; the README shows them like any other line, and since
  the order in which the two streams reach a terminal depends on buffering, the test accepts any
  interleaving that keeps the order of each stream. Nothing may be left out. Progress lines,
  drawn only on a terminal, are not part of it (the test runs without one).
- A command whose output shows "posenc: error:" must fail (non-zero exit status); every other
  command must succeed, unless the command ends with a comment "# exit status N" (posenc check
  exits 3 when the dump disagrees): then its status must be N.
- Each block runs in a new empty folder, its commands in order, so a block makes its own inputs
  with an earlier command (e.g. `posenc encode ... -o wpe.npy`, then `posenc inspect wpe.npy`).
  Examples must not depend on the machine: give --max-memory where a limit shows in the output.

A "$ posenc" line outside a console block fails the test: it would be an example nobody checks.
Examples of other programs (the C library example) are checked by their own tests.
"""
import atexit
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cli"))
from tap import done, ok  # noqa: E402

README = os.path.abspath(sys.argv[1])
EXE = os.path.abspath(sys.argv[2])


def blocks(text):
    """(info string, first line number, lines) of every fenced block."""
    out, fence, start, body = [], None, 0, []
    for n, line in enumerate(text.split("\n"), 1):
        s = line.strip()
        if fence is None and s.startswith("```"):
            fence, start, body = s[3:].strip(), n + 1, []
        elif fence is not None and s == "```":
            out.append((fence, start, body))
            fence = None
        elif fence is not None:
            body.append(line)
    return out


def examples(lines, first):
    """(line number, command, expected output lines) of one console block."""
    out = []
    for i, line in enumerate(lines):
        if line.startswith("$ "):
            out.append([first + i, line[2:], []])
        elif out:
            out[-1][2].append(line)
        elif line.strip():
            out.append([first + i, None, [line]])  # output before any command
    for ex in out:
        while ex[2] and not ex[2][-1].strip():
            ex[2].pop()
    return out


def interleaves(want, a, b):
    """Whether the lines want are a and b merged, each in its own order."""
    reach = {(0, 0)}
    for line in want:
        nxt = set()
        for i, j in reach:
            if i < len(a) and a[i] == line:
                nxt.add((i + 1, j))
            if j < len(b) and b[j] == line:
                nxt.add((i, j + 1))
        reach = nxt
        if not reach:
            return False
    return (len(a), len(b)) in reach


def lines_of(data):
    text = data.decode("utf-8", "replace")
    return text[:-1].split("\n") if text.endswith("\n") else (text.split("\n") if text else [])


def new_folder():
    path = tempfile.mkdtemp(prefix="posenc-readme-")
    atexit.register(shutil.rmtree, path, True)
    return path


def check(cmd, want, cwd):
    """None if cmd prints want in cwd, else what differs."""
    try:
        argv = shlex.split(cmd, comments=True)
    except ValueError as e:
        return f"cannot split the command: {e}"
    if not argv or argv[0] != "posenc":
        return "a README command starts with 'posenc'"
    env = dict(os.environ, LC_ALL="C.UTF-8")
    env.pop("POSENC_TEST_QUICK", None)
    try:
        p = subprocess.run([EXE] + argv[1:], cwd=cwd, capture_output=True, timeout=120, env=env,
                           stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return "did not finish within 120 s"
    out, err = lines_of(p.stdout), lines_of(p.stderr)
    should_fail = any(line.startswith("posenc: error:") for line in want)
    problems = []
    status = re.search(r"#\s*exit status (\d+)\s*$", cmd)
    if status and p.returncode != int(status.group(1)):
        problems.append(f"exit status {p.returncode}, but the README says {status.group(1)}")
    elif not status and (p.returncode != 0) != should_fail:
        problems.append(f"exit status {p.returncode}, but the README shows "
                        + ("an error" if should_fail else "no error"))
    if not interleaves(want, out, err):
        problems.append("the README shows:\n" + "\n".join(want)
                        + "\nstandard output:\n" + "\n".join(out[:40])
                        + "\nstandard error:\n" + "\n".join(err[:20]))
    return "\n".join(problems) or None


# The checker itself must tell a wrong output from a right one.
self_dir = new_folder()
ok(check("posenc encode -n 2 -d 2 -o -  # a comment", ["position,0,1", "0,0,1",
         "1,0.8414709848078965,0.5403023058681398"], self_dir) is None
   and check("posenc encode -n 2 -d 2 -o -", ["position,0,1", "0,0,1",
             "1,0.8414709848078964,0.5403023058681398"], self_dir) is not None
   and check("posenc encode -n 2 -d 2 -o -", ["position,0,1", "0,0,1"], self_dir) is not None
   and check("posenc encode -n 2 -d 2 -o x.npy", ["posenc: wrote x.npy (2 x 2 float64 array)"],
             self_dir) is None
   and check("posenc encode -n 2 -d 2 -o y.npy", [], self_dir) is not None
   and check("posenc encode -n 0 -o -", ["posenc: error: nothing"], self_dir) is not None,
   "the checker passes a true example and fails a wrong digit, a missing line, a missing note "
   "and a wrong error")

text = open(README, encoding="utf-8").read()
count, stray = 0, []
for info, first, body in blocks(text):
    if info.split()[:1] != ["console"]:
        stray += [first + i for i, line in enumerate(body) if line.startswith("$ posenc")]
        continue
    cwd = new_folder()
    for line, cmd, want in examples(body, first):
        count += 1
        if cmd is None:
            ok(False, f"README line {line}: output with no command", "\n".join(want))
            continue
        problem = check(cmd, want, cwd)
        ok(problem is None, f"README line {line}: $ {cmd}", problem)
ok(not stray, "no '$ posenc' example outside a console block",
   f"README lines {stray}: make the block ```console so that the test runs it")
ok(count >= 15, f"the README's console blocks hold {count} examples (at least 15)")
done()
