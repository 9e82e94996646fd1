#!/usr/bin/env python3
"""make check-format: every tracked file follows .clang-format and .editorconfig.

Usage: tools/check-format.py [--fix]

C sources and headers are checked with clang-format (the repository's
.clang-format; generated tables mark themselves "clang-format off"). Every
tracked text file is checked against the .editorconfig sections that match it:
UTF-8, LF line ends, a final newline, no trailing white space, and its
indentation style (tabs: no line indented with spaces alone; spaces: no tab
in the indentation). Binary files (a NUL byte) are skipped. Each problem is
one line "FILE:LINE: what"; the exit status is 1 if there is any.
With --fix, clang-format rewrites the C files in place (the rest is reported).
"""
import fnmatch
import os
import re
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def git_files():
    out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True)
    return [f for f in out.stdout.decode().split("\0") if f and os.path.isfile(os.path.join(ROOT, f))]


def expand_braces(pattern):
    m = re.search(r"\{([^{}]*)\}", pattern)
    if not m:
        return [pattern]
    return [p for alt in m.group(1).split(",")
            for p in expand_braces(pattern[:m.start()] + alt + pattern[m.end():])]


def section_matches(section, path):
    """EditorConfig matching for the patterns this repository uses."""
    for pat in expand_braces(section):
        if "/" in pat:
            pat = pat.lstrip("/")
            regex = re.escape(pat).replace(r"\*\*", ".*").replace(r"\*", "[^/]*")
            if re.fullmatch(regex, path):
                return True
        elif fnmatch.fnmatchcase(os.path.basename(path), pat):
            return True
    return False


def editorconfig():
    sections, current = [], None
    with open(os.path.join(ROOT, ".editorconfig"), encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line or line[0] in "#;":
                continue
            if line.startswith("[") and line.endswith("]"):
                current = (line[1:-1], {})
                sections.append(current)
            elif "=" in line and current:
                k, v = (s.strip() for s in line.split("=", 1))
                current[1][k.lower()] = v.lower()
    return sections


def properties(sections, path):
    props = {}
    for pattern, values in sections:
        if section_matches(pattern, path):
            props.update(values)
    return {k: v for k, v in props.items() if v != "unset"}


def check_text(path, data, props, problems):
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        if props.get("charset") == "utf-8":
            problems.append(f"{path}: not UTF-8 ({e.reason} at byte {e.start})")
        text = data.decode("latin-1")
    if props.get("end_of_line") == "lf" and "\r" in text:
        problems.append(f"{path}:{text[:text.index(chr(13))].count(chr(10)) + 1}: CR line end")
    if props.get("insert_final_newline") == "true" and text and not text.endswith("\n"):
        problems.append(f"{path}: no newline at the end")
    lines = text.split("\n")
    style = props.get("indent_style")
    for n, line in enumerate(lines, 1):
        if props.get("trim_trailing_whitespace") == "true" and line != line.rstrip(" \t"):
            problems.append(f"{path}:{n}: trailing white space")
        indent = line[:len(line) - len(line.lstrip(" \t"))]
        if style == "space" and "\t" in indent:
            problems.append(f"{path}:{n}: tab in the indentation (spaces here)")
        elif style == "tab" and indent.startswith(" ") and not path.endswith((".c", ".h")):
            # C continuation lines align with spaces after tabs; clang-format owns those.
            problems.append(f"{path}:{n}: indented with spaces (tabs here)")


def check_c(files, fix, problems):
    exe = shutil.which("clang-format")
    if not exe:
        problems.append("clang-format is not installed (Debian: clang-format)")
        return
    if fix:
        subprocess.run([exe, "-i", *files], cwd=ROOT, check=True)
        return
    r = subprocess.run([exe, "--dry-run", "--Werror", *files], cwd=ROOT, capture_output=True,
                       text=True)
    seen = set()
    for m in re.finditer(r"^(\S+?):(\d+):\d+: error: code should be clang-formatted", r.stderr,
                         re.M):
        if m.group(1) not in seen:
            seen.add(m.group(1))
            problems.append(f"{os.path.relpath(m.group(1), ROOT) if os.path.isabs(m.group(1)) else m.group(1)}:"
                            f"{m.group(2)}: differs from clang-format (run make format)")
    if r.returncode != 0 and not seen:
        problems.append("clang-format failed: " + r.stderr.strip()[:300])


def main():
    fix = "--fix" in sys.argv[1:]
    files = git_files()
    sections = editorconfig()
    problems = []
    check_c([f for f in files if f.endswith((".c", ".h"))], fix, problems)
    checked = 0
    for path in files:
        with open(os.path.join(ROOT, path), "rb") as f:
            data = f.read()
        if b"\0" in data:
            continue
        checked += 1
        check_text(path, data, properties(sections, path), problems)
    # At most 5 lines per file: a wrongly indented file would drown the rest.
    shown = {}
    for p in problems:
        name = p.split(":", 1)[0]
        shown[name] = shown.get(name, 0) + 1
        if shown[name] <= 5:
            print(p)
        elif shown[name] == 6:
            print(f"{name}: ... ({sum(q.startswith(name + ':') for q in problems)} in all)")
    if problems:
        print(f"check-format: {len(problems)} problem(s) in {checked} text files", file=sys.stderr)
        return 1
    print(f"check-format: {checked} text files follow .editorconfig, "
          f"C files follow .clang-format")
    return 0


if __name__ == "__main__":
    sys.exit(main())
