#!/usr/bin/env python3
"""doc/posts.md is true: every posenc command it shows draws the file it names.

    tests/docs/test_posts.py doc/posts.md build/cli/posenc

Each line of a ```sh block that starts with "posenc " is run (split as a shell splits words,
without a shell) in a new empty folder: it must exit 0, say "posenc: wrote FILE", and leave
FILE, a PNG (the page's figures), there. The page must show at least one command per post.
"""
import os
import shlex
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cli"))
from tap import done, ok  # noqa: E402

PAGE = os.path.abspath(sys.argv[1])
EXE = os.path.abspath(sys.argv[2])

commands, fence, sections = [], None, 0
with open(PAGE, encoding="utf-8") as f:
    for n, line in enumerate(f, 1):
        s = line.strip()
        if fence is None and s.startswith("```"):
            fence = s[3:].strip()
        elif fence is not None and s == "```":
            fence = None
        elif fence == "sh" and s.startswith("posenc "):
            commands.append((n, s))
        elif fence is None and line.startswith("## "):
            sections += 1

ok(sections == 5 and len(commands) >= 20, "doc/posts.md: five posts, their figures",
   (sections, len(commands)))
for n, cmd in commands:
    words = shlex.split(cmd)
    out = words[words.index("-o") + 1] if "-o" in words else None
    with tempfile.TemporaryDirectory(prefix="posenc-posts-") as tmp:
        r = subprocess.run([EXE] + words[1:], cwd=tmp, capture_output=True, text=True,
                           timeout=120)
        path = os.path.join(tmp, out) if out else None
        good = (r.returncode == 0 and out and out.endswith(".png")
                and f"posenc: wrote {out} (" in r.stderr and os.path.isfile(path)
                and open(path, "rb").read(8) == b"\x89PNG\r\n\x1a\n")
        ok(good, f"doc/posts.md:{n}: {cmd}", f"rc={r.returncode} stderr={r.stderr!r}")
done()
