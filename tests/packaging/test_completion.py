#!/usr/bin/env python3
"""The bash completion, driven as bash drives it.

Usage: test_completion.py COMPLETION_SCRIPT POSENC

For each case the line typed so far is split into COMP_WORDS the way bash
splits it (COMP_WORDBREAKS makes ':' and '=' words of their own), the
completion function runs in a real bash, and the words it offers are put
back into the line as bash would put them, so each case states the full
text the user ends up with. Then the option lists are checked against the
real program's --help, so the completion cannot drift from the commands.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "cli"))
from tap import done, ok, skip  # noqa: E402

SCRIPT = os.path.abspath(sys.argv[1])
EXE = os.path.abspath(sys.argv[2])
BREAKS = "\"'><=;|&(:"  # bash's default COMP_WORDBREAKS, less the white space


def split_like_bash(line):
    """COMP_WORDS and COMP_CWORD for a line with the cursor at its end."""
    words = []
    cur = ""
    kind = None  # None, "word", "break"
    for ch in line:
        if ch.isspace():
            if kind:
                words.append(cur)
            cur, kind = "", None
        elif ch in BREAKS:
            if kind == "word":
                words.append(cur)
                cur = ""
            cur += ch
            kind = "break"
        else:
            if kind == "break":
                words.append(cur)
                cur = ""
            cur += ch
            kind = "word"
    words.append(cur)  # the word being completed, maybe empty
    return words, len(words) - 1


def bash_quote(s):
    return "'" + s.replace("'", "'\\''") + "'"


# Without posenc on PATH the completion falls back on its own lists; with it, it reads --help.
STATIC_PATH = os.pathsep.join(d for d in os.environ.get("PATH", "/usr/bin:/bin").split(os.pathsep)
                              if d and not os.path.exists(os.path.join(d, "posenc")))
DYNAMIC_PATH = os.path.dirname(EXE) + os.pathsep + STATIC_PATH


def complete(line, cwd=None, dynamic=False):
    """The full words the user gets: the completed word with each candidate."""
    words, cword = split_like_bash(line)
    script = "\n".join([
        f". {bash_quote(SCRIPT)}",
        "COMP_WORDS=(" + " ".join(bash_quote(w) for w in words) + ")",
        f"COMP_CWORD={cword}",
        f"COMP_LINE={bash_quote(line)}",
        f"COMP_POINT={len(line)}",
        "COMP_TYPE=9",
        "set -u",  # users' shells may have it on: no unset variable may be read
        "_posenc posenc",
        'printf "%s\\n" "${COMPREPLY[@]}"',
    ])
    env = dict(os.environ, PATH=DYNAMIC_PATH if dynamic else STATIC_PATH)
    proc = subprocess.run(["bash", "--norc", "--noprofile", "-c", script], capture_output=True,
                          text=True, cwd=cwd, timeout=30, env=env)
    if proc.returncode != 0 or proc.stderr:
        return None, proc.stderr
    replies = [r for r in proc.stdout.split("\n") if r]
    # Readline replaces the text after the last word-break character with each reply.
    start = max(line.rfind(c) for c in BREAKS + " \t") + 1
    word = line[max(line.rfind(" "), line.rfind("\t")) + 1:start]
    return sorted(word + r for r in replies), ""


def case(line, want, cwd=None, exact=True):
    got, err = complete(line, cwd)
    want = sorted(want)
    if got is None:
        return ok(False, f"complete {line!r}", err)
    good = got == want if exact else set(want) <= set(got)
    return ok(good, f"complete {line!r}", f"got {got}\nwant {want}")


COMMANDS = ("encode distance corr scatter profile decay freqs bias compare report inspect check "
            "precision model usage plan layers help"
            .split())
# Every scheme of the registry, as 'posenc help schemes' lists them.
SCHEMES = re.findall(r"^  ([a-z0-9]+) ", subprocess.run([EXE, "help", "schemes"], capture_output=True,
                                                     text=True, timeout=60).stdout, re.M)
CMAPS = [m + r for m in "viridis magma inferno plasma cividis RdBu gray".split()
         for r in ("", "_r")]

case("posenc ", COMMANDS)
case("posenc d", ["decay", "distance"])
case("posenc usage --view ", ["heatmap", "wavelength"])
case("posenc usage --quantity ", ["k", "q", "qk"])
case("posenc --", ["--help", "--version"])
case("posenc help ", COMMANDS + ["schemes", "models"])
case("posenc encode --v", ["--view", "--vmin", "--vmax"])
case("posenc decay --b", ["--base", "--bound"])
case("posenc freqs --l", ["--layer", "--length"])
case("posenc distance --metric c", ["cosine"])
case("posenc encode -s ", SCHEMES)
case("posenc encode -s ro", ["rope"])
# attention-factor belongs to none (the default scaling) as to linear, yarn and longrope
case("posenc encode -s rope:", ["rope:" + k + "=" for k in
                                ("base", "layout", "rotary", "head", "scaling", "label",
                                 "attention-factor")])
case("posenc encode --scheme sinusoidal:layout=", ["sinusoidal:layout=interleaved",
                                                   "sinusoidal:layout=blocks"])
case("posenc encode -s rope:layout=", ["rope:layout=interleaved", "rope:layout=half"])
case("posenc encode -s sinusoidal:base=10,f", ["sinusoidal:base=10,freq="])
case("posenc encode -s sinusoidal:base=10,", ["sinusoidal:base=10," + k + "=" for k in
                                              ("layout", "freq", "start", "label")])
case("posenc freqs -s rope:scaling=y", ["rope:scaling=yarn"])
case("posenc freqs -s rope:scaling=yarn,beta-", ["rope:scaling=yarn,beta-fast=",
                                                 "rope:scaling=yarn,beta-slow="])
case("posenc freqs -s rope:scaling=llama3,factor=8,", [
    "rope:scaling=llama3,factor=8," + k + "=" for k in
    ("base", "layout", "rotary", "head", "label", "original", "low", "high")])
case("posenc freqs -s rope:scaling=proportional,", [
    "rope:scaling=proportional," + k + "=" for k in
    ("base", "layout", "rotary", "head", "label", "factor", "proportion")])
case("posenc bias -s alibi:form=o", ["alibi:form=official"])
case("posenc bias -s t5:", ["t5:" + k + "=" for k in
                            ("buckets", "max-distance", "bidirectional", "label")])
case("posenc distance --cmap ", CMAPS)
case("posenc distance --cmap RdB", ["RdBu", "RdBu_r"])
case("posenc distance --cmap=ma", ["--cmap=magma", "--cmap=magma_r"])
case("posenc encode --dtype ", ["f64", "f32"])
case("posenc encode --scheme=rope:lay", ["--scheme=rope:layout="])
case("posenc inspect -", ["--max-time", "-h", "--help"])
case("posenc scatter --max", ["--max-memory", "--max-points", "--max-time"])
case("posenc encode -n ", [])

with tempfile.TemporaryDirectory(prefix="posenc-comp-") as tmp:
    for name in ("gpt2.safetensors", "table.npy", "notes.txt", "dist.csv"):
        open(os.path.join(tmp, name), "w").close()
    os.mkdir(os.path.join(tmp, "figs"))
    case("posenc encode -o ", ["gpt2.safetensors", "table.npy", "notes.txt", "dist.csv", "figs"],
         cwd=tmp)
    case("posenc encode -o d", ["dist.csv"], cwd=tmp)
    case("posenc inspect ", ["gpt2.safetensors", "table.npy", "dist.csv", "figs/"], cwd=tmp)
    case("posenc compare -s g", ["gpt2.safetensors"], cwd=tmp)
    case("posenc encode -s file:path=t", ["file:path=table.npy"], cwd=tmp)

# Installed under the name bash-completion loads on demand.
r = subprocess.run(["bash", "--norc", "-c", f". {bash_quote(SCRIPT)}; complete -p posenc"],
                   capture_output=True, text=True)
ok(r.returncode == 0 and "-F _posenc" in r.stdout, "complete -F _posenc posenc",
   r.stdout + r.stderr)


# In a real interactive bash, where readline's own word splitting decides what is replaced.
def interactive(line):
    """Type @line (TABs included) into bash -i; return the arguments posenc got."""
    import pty
    import select
    pid, fd = pty.fork()
    if pid == 0:
        os.execvpe("bash", ["bash", "--norc", "--noprofile", "-i"],
                   {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "TERM": "dumb", "PS1": "$ ",
                    "HOME": tempfile.gettempdir()})
    out = b""
    try:
        # The marker is spelled with an octal escape so that the echo of this line lacks it.
        os.write(fd, f". {bash_quote(SCRIPT)}; posenc() {{ printf '\\101RGS'; "
                     f"printf '[%s]' \"$@\"; echo; }}\n".encode())
        for part in line.split("\t")[:-1]:
            os.write(fd, part.encode() + b"\t")
            time.sleep(0.3)  # let readline finish each completion
        os.write(fd, line.split("\t")[-1].encode() + b"\nexit\n")
        end = time.time() + 20
        while time.time() < end:
            r, _, _ = select.select([fd], [], [], 0.1)
            if r:
                try:
                    chunk = os.read(fd, 65536)
                except OSError:
                    break
                if not chunk:
                    break
                out += chunk
    finally:
        os.close(fd)
        os.waitpid(pid, 0)
    m = re.search(rb"ARGS((?:\[[^]]*\])*)", out)
    return re.findall(r"\[([^]]*)\]", m.group(1).decode()) if m else None


for typed, want in [
        ("posenc encode -s rope:lay\t", ["encode", "-s", "rope:layout="]),
        ("posenc encode -s rope:\t\tx", ["encode", "-s", "rope:x"]),
        ("posenc encode -s sinusoidal:layout=\tb\t", ["encode", "-s", "sinusoidal:layout=blocks"]),
        ("posenc encode --cmap=RdBu_\t", ["encode", "--cmap=RdBu_r"]),
        ("posenc dec\t-s rope", ["decay", "-s", "rope"])]:
    if shutil.which("bash") is None:
        skip(f"interactive bash: {typed!r}", "no bash")
        continue
    got = interactive(typed)
    ok(got == want, f"interactive bash: {typed!r}", f"got {got}, want {want}")


# The lists against the program itself: every command it has, every option each one takes.
def run(*args):
    p = subprocess.run([EXE, *args], capture_output=True, text=True, timeout=60)
    return p.stdout


top = run("--help")
real_commands = re.findall(r"^  ([a-z]+) ", top.split("Commands:")[1].split("\n\n")[0], re.M)
ok(real_commands and set(real_commands) <= set(COMMANDS),
   "every command of 'posenc --help' is in the fallback list", f"{real_commands} vs {COMMANDS}")
got, err = complete("posenc ", dynamic=True)
ok(got == sorted(real_commands + ["help"]), "with posenc on PATH, its commands are offered",
   f"{got} {err}")
for cmd in COMMANDS:
    if cmd == "help":
        continue
    if cmd not in real_commands:
        skip(f"options of '{cmd}' match its --help", "not in this build yet")
        continue
    text = run(cmd, "--help")
    real = set(re.findall(r"(?<![\w-])(--[a-z][a-z-]*|-[a-zA-Z])\b", text.split("Options:")[-1]))
    for dynamic, how in ((False, "the fallback list"), (True, "read from --help")):
        got, err = complete(f"posenc {cmd} -", dynamic=dynamic)
        offered = set(got or [])
        ok(got is not None and real == offered, f"options of '{cmd}' match its --help ({how})",
           f"missing {sorted(real - offered)}; extra {sorted(offered - real)}; {err}")

text = run("help", "schemes")
for name in SCHEMES:
    m = re.search(rf"^  {name} +(.*(?:\n {{4,}}.*)*)", text, re.M)
    if not m:
        ok(False, f"keys of {name} match 'posenc help schemes'", text)
        continue
    real = set(re.findall(r"([a-z][a-z-]*)=", m.group(1))) | {"label"}
    spec = name + ":scaling=yarn," if name == "rope" else name + ":"
    got, _ = complete(f"posenc encode -s {spec}")
    offered = {g[len(spec):].rstrip("=") for g in got or []}
    if name == "rope":
        # The scaling keys are offered once a scaling is chosen; yarn has most of them.
        real -= {"low", "high", "length", "long-factor", "short-factor",
                 "long-mscale", "short-mscale", "proportion", "mixed-b"}
        offered -= {"scaling"}
        real -= {"scaling"}
    ok(real == offered, f"keys of {name} match 'posenc help schemes'",
       f"missing {sorted(real - offered)}; extra {sorted(offered - real)}")

# Keys of one scaling are offered once it is chosen: ntk's mixed-b, llama3's low and high.
for scaling, keys in (("ntk", {"factor", "mixed-b"}), ("llama3", {"low", "high"})):
    spec = f"rope:scaling={scaling},"
    got, _ = complete(f"posenc encode -s {spec}")
    offered = {g[len(spec):].rstrip("=") for g in got or []}
    ok(keys <= offered, f"rope:scaling={scaling} offers {sorted(keys)}", f"offered {sorted(offered)}")

done()
