#!/usr/bin/env python3
"""Counts every TAP test line in a meson testlog.json and prints one closing
line, 'N passed, N failed'. A test program that failed without reporting a
failing subtest (a crash, a timeout) counts as one more failure."""
import json
import re
import sys

args = sys.argv[1:]
label = ""
if args[:1] == ["--label"]:
    label, args = args[1] + ": ", args[2:]
passed = failed = skipped = 0
for line in open(args[0], encoding="utf-8"):
    entry = json.loads(line)
    ok = notok = 0
    for tap in entry.get("stdout", "").splitlines():
        # cmocka marks a skipped test "not ok N # SKIP": a skip either way.
        if re.match(r"(not )?ok\b", tap) and re.search(r"#\s*skip", tap, re.I):
            skipped += 1
        elif re.match(r"ok\b", tap):
            ok += 1
        elif re.match(r"not ok\b", tap):
            if re.search(r"#\s*todo", tap, re.I):
                continue
            notok += 1
            print(f"FAIL {entry['name']}: {tap}")
    if entry.get("result") not in ("OK", "SKIP", "EXPECTEDFAIL") and notok == 0:
        notok = 1
        print(f"FAIL {entry['name']}: {entry.get('result')} (exit {entry.get('returncode')})")
        print(entry.get("stderr", "")[-2000:])
    if ok == 0 and notok == 0 and entry.get("result") == "OK":
        ok = 1
    passed += ok
    failed += notok
tail = f", {skipped} skipped" if skipped else ""
print(f"{label}{passed} passed, {failed} failed{tail}")
sys.exit(1 if failed else 0)
