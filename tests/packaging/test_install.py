#!/usr/bin/env python3
"""`meson install` into a temporary DESTDIR gives a working posenc and library.

Usage: test_install.py MESON BUILD_DIR PREFIX BINDIR LIBDIR INCLUDEDIR MANDIR COMPLETIONDIR
                       SANITIZE CC...

The directories are the absolute install paths meson was configured with.
Installs the existing build (no rebuild) under a temporary DESTDIR, checks the
files, runs the installed program, and builds a small C program against the
installed library through pkg-config (PKG_CONFIG_SYSROOT_DIR maps the .pc
file's real prefix into the DESTDIR), then checks what it prints against
sin(1), cos(1) and sin(0.1) computed here.
"""
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "cli"))
from tap import done, ok, skip  # noqa: E402

(MESON, BUILD, PREFIX, BINDIR, LIBDIR, INCLUDEDIR, MANDIR, COMPDIR, SANITIZE), CC = \
    sys.argv[1:10], sys.argv[10:]
EXAMPLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "example.c")


def source_headers(part):
    """The public headers of lib/ or plots/ in the source tree."""
    d = os.path.join(os.path.dirname(EXAMPLE), "..", "..", part, "include", "posenc")
    return sorted(f for f in os.listdir(d) if f.endswith(".h")) if os.path.isdir(d) else []


def sh(args, env=None, cwd=None, input_text=None):
    e = dict(os.environ)
    e.update(env or {})
    return subprocess.run(args, capture_output=True, text=True, env=e, cwd=cwd, timeout=300,
                          input=input_text)


# The README shows this very program.
readme = os.path.join(os.path.dirname(EXAMPLE), "..", "..", "README.md")
blocks = re.findall(r"```c\n(.*?)```", open(readme).read(), re.S) if os.path.isfile(readme) else []
ok(open(EXAMPLE).read() in blocks, "README's library example is tests/packaging/example.c")
# ... and what it prints: the lines after "$ cc ... ./example" in its block.
shown = re.findall(r"\n\$ cc [^\n]*\./example\n(.*?)```", open(readme).read(), re.S) \
    if os.path.isfile(readme) else []

dest = tempfile.mkdtemp(prefix="posenc-install-")
try:
    def inside(path):
        return os.path.join(dest, path.lstrip("/"))

    r = sh([MESON, "install", "-C", BUILD, "--no-rebuild", "--destdir", dest])
    ok(r.returncode == 0, "meson install --destdir", r.stdout[-2000:] + r.stderr[-2000:])

    bindir, libdir, incdir = inside(BINDIR), inside(LIBDIR), inside(INCLUDEDIR)
    libs = os.listdir(libdir) if os.path.isdir(libdir) else []
    ok(os.access(os.path.join(bindir, "posenc"), os.X_OK), "bin/posenc is installed")
    ok("libposenc.so" in libs and any(re.fullmatch(r"libposenc\.so\.\d+", f) for f in libs),
       "libposenc.so and its soname link are installed", libs)
    headers = sorted(os.listdir(os.path.join(incdir, "posenc"))) \
        if os.path.isdir(os.path.join(incdir, "posenc")) else []
    public, plots_public = source_headers("lib"), source_headers("plots")
    ok(public and set(public + plots_public) <= set(headers),
       "every header of lib/ and plots/include/posenc is installed under include/posenc",
       f"missing {sorted(set(public + plots_public) - set(headers))}")
    page = os.path.join(inside(MANDIR), "man1", "posenc.1")
    ok(os.path.isfile(page), "man1/posenc.1 is installed", page)
    comp = os.path.join(inside(COMPDIR), "posenc")
    ok(os.path.isfile(comp), "the bash completion is installed as completions/posenc", comp)

    # The .pc file as written, then as pkg-config reads it.
    pc_path = os.path.join(libdir, "pkgconfig", "posenc.pc")
    pc = open(pc_path).read() if os.path.isfile(pc_path) else ""
    fields = dict(re.findall(r"^([\w.]+)[:=] ?(.*)$", pc, re.M))
    ok(fields.get("prefix") == PREFIX and fields.get("Name") == "posenc"
       and re.search(r"(^| )-lposenc( |$)", fields.get("Libs", ""))
       and fields.get("Cflags") == "-I${includedir}"
       and fields.get("includedir") in ("${prefix}/include", INCLUDEDIR)
       and "-lm" in fields.get("Libs.private", "").split(),
       "posenc.pc: prefix, -lposenc, -I${includedir}, -lm for static links", pc)

    if plots_public:
        pc_path = os.path.join(libdir, "pkgconfig", "posenc-plots.pc")
        pc = open(pc_path).read() if os.path.isfile(pc_path) else ""
        fields = dict(re.findall(r"^([\w.]+)[:=] ?(.*)$", pc, re.M))
        requires = [r.strip() for r in fields.get("Requires", "").split(",")]
        ok("posenc" in requires and "cairo" in requires
           and re.search(r"(^| )-lposenc-plots( |$)", fields.get("Libs", ""))
           and fields.get("Cflags") == "-I${includedir}",
           "posenc-plots.pc: requires posenc and cairo, -lposenc-plots", pc)

    env = {"PKG_CONFIG_PATH": os.path.join(libdir, "pkgconfig"), "PKG_CONFIG_SYSROOT_DIR": dest}
    if shutil.which("pkg-config"):
        r = sh(["pkg-config", "--modversion", "posenc"], env=env)
        version = r.stdout.strip()
        r = sh(["pkg-config", "--cflags", "--libs", "posenc"], env=env)
        flags = r.stdout.split()
        ok(r.returncode == 0 and f"-I{incdir}" in flags and "-lposenc" in flags
           and f"-L{libdir}" in flags, "pkg-config --cflags --libs points into the install",
           r.stdout + r.stderr)
    else:
        version, flags = "", []
        skip("pkg-config --cflags --libs points into the install", "pkg-config is not installed")

    # Outside /usr the installed program finds its library by itself (a RUNPATH); here, in
    # the DESTDIR, LD_LIBRARY_PATH (searched first) points it at the installed copy.
    if shutil.which("readelf") and os.path.isfile(os.path.join(bindir, "posenc")):
        r = sh(["readelf", "-d", os.path.join(bindir, "posenc")])
        paths = re.findall(r"\((?:RUNPATH|RPATH)\)[^\[]*\[([^\]]*)\]", r.stdout)
        want = [] if PREFIX == "/usr" else [LIBDIR]
        ok(paths == want, "posenc's RUNPATH is the installed libdir (none under /usr)",
           f"{paths} vs {want}")
    else:
        skip("posenc's RUNPATH is the installed libdir (none under /usr)", "no readelf")
    run_env = {"LD_LIBRARY_PATH": libdir}
    r = sh([os.path.join(bindir, "posenc"), "--version"], env=run_env)
    ok(r.returncode == 0 and r.stdout.strip() == f"posenc {version}",
       "the installed posenc runs and agrees with posenc.pc's version", r.stdout + r.stderr)
    r = sh([os.path.join(bindir, "posenc"), "encode", "-n", "2", "-d", "2", "-o", "-"], env=run_env)
    last = r.stdout.splitlines()[-1].split(",") if r.stdout.strip() else []
    ok(r.returncode == 0 and len(last) == 3
       and [float(x) for x in last] == [1.0, math.sin(1.0), math.cos(1.0)],
       "the installed posenc encodes position 1 as sin(1), cos(1)", r.stdout + r.stderr)

    # A program of a library user, built as the README tells.
    if flags:
        exe = os.path.join(dest, "example")
        extra = [f"-fsanitize={SANITIZE}"] if SANITIZE not in ("", "none") else []
        r = sh(CC + ["-std=c11", "-Wall", "-Wextra", "-Wpedantic", "-Werror", *extra, EXAMPLE,
                     "-o", exe, *flags])
        ok(r.returncode == 0, "the README example compiles against the install, -Wpedantic clean",
           " ".join(CC) + "\n" + r.stdout + r.stderr)
        # Each public header stands on its own, in C11 and in C++.
        for lang, std, compiler in (("c", "-std=c11", CC), ("c++", "-std=c++11", None)):
            if compiler is None:
                cxx = shutil.which("c++") or shutil.which("g++") or shutil.which("clang++")
                if not cxx:
                    skip("each public header compiles alone in c++", "no C++ compiler")
                    continue
                compiler = [cxx]
            bad = []
            # The sysroot would also move cairo's own -I paths: ask for cairo's unmapped.
            cairo = sh(["pkg-config", "--cflags", "cairo"]).stdout.split() if plots_public else []
            for h in public + plots_public:
                r = sh(compiler + ["-x", lang, std, "-Wall", "-Wextra", "-Wpedantic", "-Werror",
                                   "-fsyntax-only", "-", f"-I{incdir}", *cairo],
                       input_text=f"#include <posenc/{h}>\n")
                if r.returncode != 0:
                    bad.append(f"{h}: {r.stderr.strip()[:300]}")
            ok(not bad, f"each public header compiles alone in {lang}, -Wpedantic clean",
               "\n".join(bad))
        r = sh([exe], env=run_env)
        vals = r.stdout.split()
        good = r.returncode == 0 and len(vals) == 3
        if good:
            got = [float(v) for v in vals]
            want = [math.sin(1.0), math.cos(1.0), math.sin(1.0 / 10000 ** (2 / 8))]
            good = all(abs(g - w) <= 1e-15 for g, w in zip(got, want))
        ok(good, "the example prints sin(1), cos(1), sin(0.1) of position 1, d=8",
           r.stdout + r.stderr)
        ok(len(shown) == 1 and r.stdout == shown[0], "the example prints what the README shows",
           f"README: {shown!r}; printed: {r.stdout!r}")
        # Linked to the installed library, not the build tree's.
        r = sh(["ldd", exe], env=run_env) if shutil.which("ldd") else None
        if r is not None:
            line = [l for l in r.stdout.splitlines() if "libposenc" in l]
            ok(line and libdir in line[0], "the example loads the installed libposenc", r.stdout)
        else:
            skip("the example loads the installed libposenc", "no ldd")
    else:
        for name in ("compiles", "prints", "prints what the README shows", "loads"):
            skip(f"the README example {name}", "no pkg-config flags")

    # The installed page and completion work from their installed places.
    if shutil.which("man") and os.path.isfile(page):
        r = sh(["man", "--warnings", "-l", page], env={"MANWIDTH": "80"})
        ok(r.returncode == 0 and "posenc" in r.stdout and not r.stderr.strip(),
           "man -l reads the installed page", r.stderr)
    else:
        skip("man -l reads the installed page", "no man-db or no page")
    r = sh(["bash", "--norc", "-c", f". '{comp}' && complete -p posenc"])
    ok(r.returncode == 0 and "_posenc" in r.stdout, "the installed completion loads", r.stderr)
finally:
    shutil.rmtree(dest, ignore_errors=True)

done()
