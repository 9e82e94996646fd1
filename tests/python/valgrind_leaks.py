#!/usr/bin/env python3
"""Which blocks a valgrind log reports definitely lost were lost by posenc's code.

    tests/python/valgrind_leaks.py VALGRIND_LOG

A python process that ran posenc in-process loses blocks of its own (the interpreter's at exit)
and of the libraries it loads (cairo's and fontconfig's caches, the loader's scopes of a
dlopen). A block is posenc's when the first frame of its allocation stack that is neither the
allocator nor the C library's stdio or string functions (open_memstream's buffer, strdup) is in
one of posenc's source files (lib/, plots/, cli/); a frame valgrind cannot name is a
library's. Prints the records that are, and exits 1 if
there is one.
"""
import glob
import os
import re
import sys

root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
ours = {os.path.basename(p) for d in ("lib", "plots", "cli")
        for p in glob.glob(os.path.join(root, d, "**", "*.[ch]"), recursive=True)}
libc = re.compile(r"^(_IO_\w+|__GI_\w+|__libc_\w+|__vasprintf\w*|__asprintf\w*|__strdup|__strndup|"
                  r"malloc|calloc|realloc|reallocarray|strdup|strndup|open_memstream|vasprintf|"
                  r"asprintf|fwrite|fputs|fputc|putc|fprintf|vfprintf|printf|fflush|fclose)$")
# "fn (file.c:12)", "fn (in /lib/x.so)", or "???" alone (an object valgrind cannot name: a library's).
frame = re.compile(r"==\d+==\s+(?:at|by) 0x[0-9A-F]+: (\S+)(?: \((?:in )?([^)]*)\))?")

text = open(sys.argv[1], encoding="utf-8", errors="replace").read()
records = [r for r in re.split(r"\n(?:==\d+== *)?\n", text) if "definitely lost in loss record" in r]
mine = []
for r in records:
    for fn, where in frame.findall(r):
        where = where or ""
        if "vgpreload" in where or libc.match(fn):
            continue
        if os.path.basename(where.split(":")[0]) in ours:
            mine.append(r)
        break
summary = re.search(r"definitely lost: [^\n]*", text)
print("valgrind: %s in %d records; lost by posenc's code: %d"
      % (summary.group(0) if summary else "no leak summary", len(records), len(mine)))
for r in mine:
    print(r + "\n")
sys.exit(1 if mine or not summary else 0)
