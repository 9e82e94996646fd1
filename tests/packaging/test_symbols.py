#!/usr/bin/env python3
"""The shared libraries export exactly their documented public API.

Usage: test_symbols.py LIBRARY HEADER_DIR [LIBRARY HEADER_DIR ...]

The libraries are built with hidden visibility; what nm -D lists as defined
must be the functions the public headers of that library declare with
PE_API (posenc/status.h), each named by the comment right before it, and every
such declaration must be exported: no internal helper leaks into the ABI
and no public function is missing.
"""
import glob
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "cli"))
from tap import done, ok, skip  # noqa: E402

DECL = re.compile(r"PE_API\b[^;{]*?\b(pe_\w+)\s*\(", re.S)

args = sys.argv[1:]
if not shutil.which("nm"):
    skip("exported symbols", "nm is not installed")
    done()
for lib, hdir in zip(args[0::2], args[1::2]):
    name = os.path.basename(lib)
    declared, undocumented = set(), []
    for path in sorted(glob.glob(os.path.join(hdir, "posenc", "*.h"))):
        text = open(path, encoding="utf-8").read()
        for m in DECL.finditer(text):
            declared.add(m.group(1))
            # The comment right before it (only declarations may stand between)
            # names it, or names its tail ("_summary()" for pe_scheme_type_summary).
            before = text[:m.start()]
            end = before.rfind("*/")
            start = before.rfind("/*", 0, end)
            between = re.sub(r"PE_API\b[^;]*;", "", before[end + 2:])
            comment = before[start:end] if start >= 0 and end >= 0 else ""
            tails = re.findall(r"(?<![\w])(_\w+)\(\)", comment)
            named = m.group(1) in comment or any(m.group(1).endswith(x) for x in tails)
            if between.strip() or not named:
                undocumented.append(f"{os.path.basename(path)}: {m.group(1)}")
    ok(declared, f"{name}: the public headers declare functions with PE_API", hdir)
    # A prototype without PE_API would be documented but not callable from the shared library.
    bare = []
    for path in sorted(glob.glob(os.path.join(hdir, "posenc", "*.h"))):
        for line in open(path, encoding="utf-8"):
            if (re.match(r"^[A-Za-z_][\w \t\*]*\bpe_\w+\s*\(", line)
                    and not re.match(r"^(PE_API|static|typedef|struct|enum|union)\b", line)):
                bare.append(f"{os.path.basename(path)}: {line.strip()}")
    ok(not bare, f"{name}: every function the public headers declare is PE_API", bare)
    ok(not undocumented, f"{name}: every public function has a comment", undocumented)
    r = subprocess.run(["nm", "-D", "--defined-only", lib], capture_output=True, text=True)
    syms = [line.split() for line in r.stdout.splitlines() if len(line.split()) == 3]
    funcs = {s[2] for s in syms if s[1] in "TW"}
    other = sorted(s[2] for s in syms if s[1] not in "TW")
    ok(r.returncode == 0 and funcs, f"{name}: nm -D lists its functions", r.stderr)
    ok(funcs <= declared, f"{name}: it exports nothing the headers do not declare",
       sorted(funcs - declared))
    ok(declared <= funcs, f"{name}: it exports every declared function",
       sorted(declared - funcs))
    ok(not other, f"{name}: it exports no data symbols", other)
done()
