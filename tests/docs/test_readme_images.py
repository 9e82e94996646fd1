#!/usr/bin/env python3
"""The README's images show on a fresh clone and on a forge's web view.

    tests/docs/test_readme_images.py README.md [build/cli/posenc]

Every image README.md links (![alt](path) or <img src="path">) is a relative path to a PNG
that is in the repository: committed (when the source is a git checkout: an untracked or
ignored file would be missing from every clone), readable, and small. doc/gallery/ holds exactly
the images the README shows, as `make gallery` writes them. Given the program, each caption
that is a whole command (not shortened with "...") draws the image `make gallery` draws, byte for
byte: running the caption gives the figure shown.
"""
import os
import re
import shlex
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cli"))
from tap import done, ok, skip  # noqa: E402

README = os.path.abspath(sys.argv[1])
EXE = os.path.abspath(sys.argv[2]) if len(sys.argv) > 2 else None
ROOT = os.path.dirname(README)
GALLERY = "doc/gallery"
# A few hundred KB in all keeps clones light; one figure is tens of KB after pngquant.
MAX_TOTAL = 1024 * 1024
MAX_ONE = 256 * 1024


def png_problem(path):
    """None for a whole PNG (signature, chunk CRCs, image data that inflates), else why not."""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        return "not a PNG (bad signature)"
    i, idat, types = 8, b"", []
    while i + 12 <= len(data):
        n, kind = struct.unpack(">I4s", data[i:i + 8])
        body = data[i + 8:i + 8 + n]
        crc = struct.unpack(">I", data[i + 8 + n:i + 12 + n])[0] if i + 12 + n <= len(data) else None
        if crc != zlib.crc32(kind + body):
            return f"chunk {kind!r} is truncated or corrupt"
        types.append(kind)
        idat += body if kind == b"IDAT" else b""
        i += 12 + n
    if types[:1] != [b"IHDR"] or types[-1:] != [b"IEND"]:
        return "no IHDR first or no IEND last"
    w, h = struct.unpack(">II", data[16:24])
    if not (64 <= w <= 4096 and 64 <= h <= 4096):
        return f"odd size {w} x {h}"
    try:
        zlib.decompress(idat)
    except zlib.error as e:
        return f"image data does not inflate: {e}"
    return None


text = open(README, encoding="utf-8").read()
# Markdown images, and <img> for those who need a width.
links = re.findall(r"!\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)", text)
links += re.findall(r"<img\b[^>]*\bsrc=\"([^\"]+)\"", text)
ok(len(links) > 0, f"the README links {len(links)} images")

tracked = None
if shutil.which("git") and os.path.exists(os.path.join(ROOT, ".git")):
    r = subprocess.run(["git", "-C", ROOT, "ls-files", "-z"], capture_output=True)
    if r.returncode == 0:
        tracked = set(r.stdout.decode("utf-8", "replace").split("\0"))

total = 0
for link in links:
    where = os.path.normpath(link)
    if re.match(r"[a-z]+:", link) or os.path.isabs(link) or where.startswith(".."):
        ok(False, f"image {link}: a path inside the repository",
           "a URL or an absolute path does not show from a fresh clone")
        continue
    path = os.path.join(ROOT, where)
    if not ok(os.path.isfile(path), f"image {link} exists", f"no file {path}"):
        continue
    if tracked is not None:
        ok(where in tracked, f"image {link} is committed",
           "it is untracked or ignored (.gitignore): a clone would not have it")
    else:
        skip(f"image {link} is committed", "not a git checkout")
    problem = png_problem(path)
    size = os.path.getsize(path)
    total += size
    ok(problem is None and size <= MAX_ONE, f"image {link} is a whole PNG of at most "
       f"{MAX_ONE // 1024} KB", problem or f"{size} bytes")

ok(total <= MAX_TOTAL, f"the README's images take {total // 1024} KB, at most {MAX_TOTAL // 1024} KB")

shown = {os.path.normpath(l) for l in links if os.path.normpath(l).startswith(GALLERY + "/")}
present = {f"{GALLERY}/{f}" for f in os.listdir(os.path.join(ROOT, GALLERY))} \
    if os.path.isdir(os.path.join(ROOT, GALLERY)) else set()
if tracked is not None:
    present = {f for f in tracked if f.startswith(GALLERY + "/")} | present
ok(shown and shown == present, f"{GALLERY}/ holds exactly the images the README shows",
   f"not shown: {sorted(present - shown)}; missing: {sorted(shown - present)}")

# `make gallery` writes them: its recipe names each file the README shows.
makefile = os.path.join(ROOT, "Makefile")
if os.path.isfile(makefile):
    recipe = open(makefile, encoding="utf-8").read()
    drawn = {f"{GALLERY}/{m}" for m in re.findall(r"-o \$\$G/([\w.-]+\.png)", recipe)}
    ok(drawn == shown, "`make gallery` draws exactly the images the README shows",
       f"not drawn: {sorted(shown - drawn)}; not shown: {sorted(drawn - shown)}")
else:
    recipe = None
    skip("`make gallery` draws exactly the images the README shows", "no Makefile")


def png_of(words, folder, name):
    """The PNG `posenc WORDS -q -o NAME` draws in FOLDER, or the reason it drew none."""
    r = subprocess.run([EXE] + words + ["-q", "-o", name], cwd=folder, capture_output=True,
                       text=True, timeout=120)
    path = os.path.join(folder, name)
    if r.returncode or not os.path.isfile(path):
        return None, r.stderr.strip() or f"exit status {r.returncode}"
    return open(path, "rb").read(), None


# The captions: running one draws the image it stands under.
if EXE and recipe is not None:
    made = {}
    gallery = re.search(r"^gallery:.*?(?=\n\n)", recipe, re.M | re.S)
    for line in (gallery.group(0) if gallery else "").replace("\\\n", " ").split(";"):
        if not line.strip().startswith("$$P "):
            continue
        words = shlex.split(line)
        if "-o" in words:
            out = words[words.index("-o") + 1]
            if out.startswith("$$G/"):
                rest = words[1:words.index("-o")] + words[words.index("-o") + 2:]
                made[out[4:]] = [w for w in rest if w != "-q"]
    captions = re.findall(r"!\[[^\]]*\]\(" + GALLERY + r"/([\w.-]+\.png)\)\s*`posenc ([^`]*)`",
                          text)
    for name, caption in captions:
        if "..." in caption or name not in made or any("$$" in w for w in made[name]):
            continue  # shortened, or drawn from files the recipe makes first
        with tempfile.TemporaryDirectory(prefix="posenc-gallery-") as tmp:
            want, why = png_of(made[name], tmp, "make.png")
            got, why2 = png_of(shlex.split(caption), tmp, "caption.png")
        ok(want is not None and got == want, f"caption `posenc {caption}` draws {GALLERY}/{name}",
           why or why2 or f"another figure than `make gallery`'s `posenc {' '.join(made[name])}`")
done()
