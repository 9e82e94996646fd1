#!/usr/bin/env python3
"""posenc(1): renders without a warning and documents what the program has.

Usage: test_man.py MAN_PAGE POSENC

The page is checked by groff (-ww: every warning) and by man-db as a user
reads it, then against the program: its version, every command of
'posenc --help', every option of each command's --help, and every scheme key
of 'posenc help schemes' must appear in the page.
"""
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "cli"))
from tap import done, ok, skip  # noqa: E402

PAGE = os.path.abspath(sys.argv[1])
EXE = os.path.abspath(sys.argv[2])
SOURCE = open(PAGE, encoding="utf-8").read()


def sh(*args, env=None):
    e = dict(os.environ)
    e.update(env or {})
    return subprocess.run(list(args), capture_output=True, text=True, env=e, timeout=60)


if shutil.which("groff"):
    r = sh("groff", "-man", "-ww", "-z", PAGE)
    ok(r.returncode == 0 and not r.stderr.strip(), "groff -man -ww: no warnings", r.stderr)
    r = sh("groff", "-man", "-ww", "-Tutf8", "-rLL=60n", "-z", PAGE)
    ok(r.returncode == 0 and not r.stderr.strip(), "groff at 60 columns: no warnings", r.stderr)
else:
    skip("groff -man -ww: no warnings", "groff is not installed")
    skip("groff at 60 columns: no warnings", "groff is not installed")

TEXT = None
if shutil.which("man"):
    r = sh("man", "--warnings", "-l", PAGE, env={"MANWIDTH": "80", "MAN_KEEP_FORMATTING": "",
                                                  "LC_ALL": "C.UTF-8"})
    ok(r.returncode == 0 and not r.stderr.strip() and "posenc - analyse" in r.stdout,
       "man --warnings -l renders it cleanly at 80 columns", r.stderr)
    TEXT = re.sub(r".\x08", "", r.stdout)
    long_lines = [l for l in TEXT.splitlines() if len(l) > 80]
    ok(not long_lines, "no rendered line is wider than 80 columns", "\n".join(long_lines))
else:
    skip("man --warnings -l renders it cleanly at 80 columns", "man-db is not installed")
    skip("no rendered line is wider than 80 columns", "man-db is not installed")
if TEXT is None:
    TEXT = re.sub(r"\\f[BIRP]|\\-|\\e", lambda m: {"\\-": "-", "\\e": "\\"}.get(m.group(0), ""),
                  SOURCE)

sections = re.findall(r"^\.SH (.*)$", SOURCE, re.M)
for s in ("NAME", "SYNOPSIS", "DESCRIPTION", "COMMANDS", "COMMON OPTIONS", "SCHEME SPECS",
          "OUTPUT", "EXIT STATUS", "EXAMPLES", "SEE ALSO"):
    ok(s in sections, f"section {s}", sections)


def run(*args):
    return subprocess.run([EXE, *args], capture_output=True, text=True, timeout=60).stdout


version = run("--version").split()[-1]
m = re.search(r'^\.TH POSENC 1 "[^"]*" "posenc ([^"]*)"', SOURCE, re.M)
ok(m and m.group(1) == version, "the page names the program's version",
   f"{m and m.group(1)} vs {version}")

exits = TEXT.split("\nEXIT STATUS\n")[-1].split("EXAMPLES")[0]
ok(all(re.search(rf"^ +{c} +\S", exits, re.M) for c in "012"), "exit statuses 0, 1 and 2", exits)

# Every command the program has, each documented in COMMANDS with its options.
top = run("--help")
commands = re.findall(r"^  ([a-z]+) ", top.split("Commands:")[1].split("\n\n")[0], re.M)
ok(len(commands) > 0, "the program lists its commands", top)
cmd_section = TEXT.split("\nCOMMANDS")[1].split("\nCOMMON OPTIONS")[0]
for cmd in commands + ["help"]:
    ok(re.search(rf"^ {{7}}{cmd}\b", cmd_section, re.M), f"command '{cmd}' is documented")
    ok(re.search(rf"^ +posenc {cmd}\b", TEXT.split("DESCRIPTION")[0], re.M),
       f"command '{cmd}' is in the synopsis")
for cmd in commands:
    opts = set(re.findall(r"(?<![\w-])(--[a-z][a-z-]*|-[a-zA-Z])\b",
                          run(cmd, "--help").split("Options:")[-1]))
    missing = sorted(o for o in opts if not re.search(rf"(?<![\w-]){re.escape(o)}\b", TEXT))
    ok(not missing, f"every option of '{cmd} --help' is documented", missing)

# Every scheme and key.
schemes = run("help", "schemes")
spec_section = TEXT.split("\nSCHEME SPECS\n")[1].split("\nOUTPUT")[0]
for name in re.findall(r"^  ([a-z0-9]+) ", schemes, re.M):
    ok(re.search(rf"^ {{7}}{name}\b", spec_section, re.M), f"scheme '{name}' is documented")
keys = set(re.findall(r"([a-z][a-z-]*)=", schemes)) - {"key"}
missing = sorted(k for k in keys if not re.search(rf"(?<![\w-]){k}=", spec_section))
ok(not missing, "every scheme key of 'posenc help schemes' is documented", missing)
# ...and the page documents no scheme or key the program does not have.
names = set(re.findall(r"^  ([a-z0-9]+) ", schemes, re.M))
page_names = set(re.findall(r"^\.TP\n\.B ([a-z0-9]+)\n", SOURCE.split(".SH SCHEME SPECS")[1]
                            .split(".SH OUTPUT")[0], re.M))
ok(page_names == names, "the page's schemes are those of 'posenc help schemes'",
   f"only in the page {sorted(page_names - names)}; only in help {sorted(names - page_names)}")
page_keys = set(re.findall(r"^\.B[IR]? ([a-z][a-z\\-]*)=", SOURCE.split(".SH SCHEME SPECS")[1]
                           .split(".SH OUTPUT")[0], re.M))
page_keys = {k.replace("\\-", "-") for k in page_keys}
ok(page_keys and page_keys <= keys, "every key the page documents is in 'posenc help schemes'",
   sorted(page_keys - keys))
for value in re.findall(r"=([a-z0-9]+(?:\|[a-z0-9]+)+)", schemes):
    missing = [v for v in value.split("|") if not re.search(rf"\b{v}\b", spec_section)]
    ok(not missing, f"the values {value} are documented", missing)

done()
