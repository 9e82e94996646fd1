#!/usr/bin/env python3
"""Each command's --help is the contract for the common options: every common
option it lists is accepted by a run, and every one it leaves out is refused
with one usage error that names the option and says why (exit 2).

The option lines are read from the help itself (lines of the Options section
that start with an option), so the test follows whatever the help says.
"""
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(__file__))
from tap import done, ok, require_numpy, run, workdir  # noqa: E402

np = require_numpy("--help lists what the command takes")
import st_write  # noqa: E402

EXE = os.path.abspath(sys.argv[1])
TMP = workdir()


def path(name):
    return os.path.join(TMP, name)


# A small Llama-style checkpoint for usage (head width 32 / 4 = 8) and its config.
H, KV, HIDDEN, L = 4, 2, 32, 2
with open(path("cfg.json"), "w") as f:
    json.dump({"architectures": ["LlamaForCausalLM"], "model_type": "llama",
               "hidden_size": HIDDEN, "num_attention_heads": H, "num_key_value_heads": KV,
               "num_hidden_layers": L, "max_position_embeddings": 4096,
               "rope_theta": 10000.0}, f)
rng = np.random.default_rng(3)
st_write.write(path("w.safetensors"), {
    **{f"model.layers.{l}.self_attn.q_proj.weight": rng.standard_normal((H * 8, HIDDEN))
       .astype(np.float32) for l in range(L)},
    **{f"model.layers.{l}.self_attn.k_proj.weight": rng.standard_normal((KV * 8, HIDDEN))
       .astype(np.float32) for l in range(L)}})
# RoPE's cos table, half layout (transformers' cat(freqs, freqs).cos()), 16 positions, d = 8.
d = 8
inv = 10000.0 ** (-np.arange(0, d, 2) / d)
ang = np.outer(np.arange(16), inv)
np.save(path("cos.npy"), np.cos(np.concatenate([ang, ang], axis=1)))
# (t, h, w) ids of 16 text tokens: the three axes equal.
with open(path("ids.csv"), "w") as f:
    f.write("".join(f"{t},{t},{t}\n" for t in range(16)))

MODEL = "model:llama-3.1-8b"
CHECK = ["--against", path("cos.npy"), "--what", "cos"]
USAGE = ["--weights", path("w.safetensors")]
# Each command: a run that works as it is, with -s given, and the output of its figures.
BASE = {
    "bias": (["-s", "alibi:heads=2", "-n", "8"], "png"),
    "check": (["-s", "rope:layout=half", "-d", "8", *CHECK], "png"),
    "compare": (["-s", "rope", "-n", "16", "-d", "8"], "png"),
    "corr": (["-s", "rope", "-n", "16", "-d", "8"], "png"),
    "decay": (["-s", "rope", "-d", "8", "--max-offset", "4"], "png"),
    "distance": (["-s", "rope", "-n", "16", "-d", "8"], "png"),
    "encode": (["-s", "rope", "-n", "16", "-d", "8"], "png"),
    "freqs": (["-s", "rope", "-d", "8"], "png"),
    "layers": (["-s", MODEL], "png"),
    "model": (["-s", MODEL], "png"),
    "plan": (["-s", MODEL, "--target", "262144"], "csv"),
    "precision": (["-s", "rope", "-n", "64", "-d", "8"], "png"),
    "profile": (["-s", "rope", "-n", "16", "-d", "8"], "png"),
    "report": (["-s", "rope", "-n", "16", "-d", "8"], "pdf"),
    "scatter": (["-s", "rope", "-n", "16", "-d", "8"], "png"),
    "usage": (["-s", "hf:" + path("cfg.json"), *USAGE], "png"),
}
# What each common option is given to be tried; FIG: with the command's figure output.
FIG = "fig"
COMMON = {
    "-s": [], "-o": [], "-q": ["-q"], "-h": None,
    "--layer": ["--layer", "0"], "--base": ["--base", "500000"], "-n": ["-n", "8"],
    "--start": ["--start", "2"], "--position-ids": ["--position-ids", path("ids.csv")],
    "-d": ["-d", "8"], "--dtype": ["--dtype", "f32", "-o", "x.npy"],
    "--cmap": ["--cmap", "magma", FIG], "--vmin": ["--vmin", "-5", FIG],
    "--vmax": ["--vmax", "5", FIG], "--title": ["--title", "T", FIG],
    "--width": ["--width", "1200", FIG], "--height": ["--height", "900", FIG],
    "--size": ["--size", "1200x900", FIG], "--dpi": ["--dpi", "72", FIG],
    "--font-size": ["--font-size", "9", FIG], "--style": ["--style", "paper", FIG],
    "--raw": ["--raw", "-o", "x.png"], "--max-memory": ["--max-memory", "2G"],
    "--max-time": ["--max-time", "60"],
}
# Runs that need a spec of their own to mean something.
SPEC_FOR = {
    "--layer": {"bias": ["-s", "model:bloom"], "usage": ["-s", "hf:" + path("cfg.json"),
                                                        "--view", "wavelength"],
                "check": ["-s", MODEL, "-d", "8"], "*": ["-s", MODEL]},
    "--position-ids": {"check": ["-s", "mrope:t=2,h=1,w=1", "-d", "8"],
                       "*": ["-s", "mrope:t=2,h=1,w=1", "-d", "8"]},
}
# 0 ran; check: 3 (the dump disagrees) is a run too.
RAN = {0, 3}

OPTION_LINE = re.compile(r"^(?: {2}| {6})((?:-[a-zA-Z]|--[a-z][a-z-]*)(?: [^\s,]+)?"
                         r"(?:, (?:-[a-zA-Z]|--[a-z][a-z-]*)(?: [^\s,]+)?)*)")


def listed(text):
    """The options of the help's option lines (not those named in its prose)."""
    opts = set()
    for line in text.split("Options:")[-1].splitlines():
        m = OPTION_LINE.match(line)
        if m:
            opts |= set(re.findall(r"(?<![\w-])(--[a-z][a-z-]*|-[a-zA-Z])(?![\w-])", m.group(1)))
    return opts


top = run(EXE, "--help").text
commands = re.findall(r"^  ([a-z]+) ", top.split("Commands:")[1].split("\n\n")[0], re.M)
ok(sorted(commands) == sorted(BASE) + ["inspect"] or set(BASE) <= set(commands),
   "every command has a run here", commands)
ALIASES = {"--scheme": "-s", "--positions": "-n", "--dim": "-d", "--output": "-o",
           "--quiet": "-q", "--help": "-h", "--height": "--height"}

for cmd in BASE:
    help_text = run(EXE, cmd, "--help").text
    ok(help_text == run(EXE, "help", cmd).text, f"{cmd}: 'posenc help {cmd}' is its --help")
    opts = {ALIASES.get(o, o) for o in listed(help_text)}
    common = opts & set(COMMON)
    ok({"-s", "-o", "-q", "-h"} <= common, f"{cmd}: -s, -o, -q and -h are listed", sorted(common))
    lines = [l for l in help_text.splitlines() if re.match(r"^ +-o, --output FILE", l)]
    ok(len(lines) == 1, f"{cmd}: one -o line", lines)
    base, fig = BASE[cmd]
    for opt in sorted(common):
        extra = COMMON[opt]
        if extra is None:
            continue
        args = list(base)
        spec = SPEC_FOR.get(opt, {})
        if spec:
            s = spec.get(cmd, spec["*"])
            i = args.index("-s")
            del args[i:i + 2]
            if "-d" in s and "-d" in args:
                j = args.index("-d")
                del args[j:j + 2]
            args = s + args
        if opt == "-d" and "-d" in args:
            j = args.index("-d")
            del args[j:j + 2]
        if opt == "--layer" and cmd == "bias":
            extra = ["--layer", "all"]  # BLOOM's one group: ALiBi has no layer indices
        extra = [a for a in extra if a != FIG] + (["-o", "x." + fig] if FIG in extra else [])
        if "-o" not in extra and not (cmd in ("plan", "model") and opt != "-o"):
            extra += ["-o", "x." + ("csv" if cmd in ("plan", "layers", "model") else fig)]
        wd = workdir()
        r = run(EXE, cmd, *args, *extra, cwd=wd)
        ok(r.rc in RAN and "does not apply" not in r.err,
           f"{cmd}: listed {opt} is taken ({' '.join(extra)})", f"rc={r.rc} {r.err[-400:]}")
    for opt in sorted(set(COMMON) - common):
        extra = [a for a in COMMON[opt] if a not in (FIG, "-o") and not a.startswith("x.")]
        wd = workdir()
        r = run(EXE, cmd, *base, *extra, cwd=wd)
        errs = [l for l in r.err.splitlines() if l.startswith("posenc: error:")]
        want = f"posenc: error: {cmd}: option '{opt}' does not apply ("
        ok(r.rc == 2 and len(errs) == 1 and errs[0].startswith(want) and errs[0].endswith(")")
           and not os.listdir(wd), f"{cmd}: unlisted {opt} is refused", f"rc={r.rc} {r.err!r}")
        # the long spelling is refused as the short one
        if opt == "-n":
            r = run(EXE, cmd, *base, "--positions", "8", cwd=wd)
            ok(r.rc == 2 and want in r.err, f"{cmd}: --positions refused as '-n'", r.err)

# The refusal comes at parsing, before the command reads anything: no model file is opened.
r = run(EXE, "plan", "-s", "hf:" + path("missing.json"), "--target", "100", "--cmap", "magma")
ok(r.rc == 2 and r.err.startswith(
    "posenc: error: plan: option '--cmap' does not apply (plan writes text or CSV)\n"),
   "plan --cmap: the message of the contract, before the model is read", r.err)
# --base: one base where the command takes one scheme (a list is refused there), a list where
# it compares schemes; the help says which.
for cmd in ("encode", "distance", "corr", "scatter", "profile", "precision"):
    h = run(EXE, cmd, "--help").text
    r = run(EXE, cmd, "-s", "rope", "--base", "10000,10", "-q", "-o", "x.csv", cwd=workdir())
    ok("--base B " in h and "--base LIST" not in h and r.rc == 2 and "one scheme" in r.err,
       f"{cmd}: --base B listed, a list refused", r.err)
for cmd in ("decay", "freqs", "compare", "report"):
    h = run(EXE, cmd, "--help").text
    ok("--base LIST" in h and "--base B " not in h, f"{cmd}: --base LIST listed", "")
# The -s line's example spec is one the command takes: a student copies it from the help. The
# shared line's "sinusoidal:base=10" was refused by plan, precision, layers and usage (exit 2).
for cmd in BASE:
    h = run(EXE, cmd, "--help").text.split("Options:")[-1]
    m = re.search(r"^  -s, --scheme SPEC +(.*(?:\n {25}.*)*)", h, re.M)
    ex = re.search(r"e\.g\. ([^\s,]+)", m.group(1)) if m else None
    if ex is None:  # a command of models alone: the line says so, and names no other spec
        ok(m and "model:NAME" in m.group(1) and "rope" not in m.group(1), f"{cmd}: -s names models",
           m.group(1) if m else h)
        continue
    args = list(BASE[cmd][0])
    args[args.index("-s") + 1] = ex.group(1)
    if "with --train-length" in m.group(1):  # as the line says
        args += ["--train-length", "8192"]
    out = ["-o", "x.csv" if cmd in ("plan", "layers", "model") else "x." + BASE[cmd][1]]
    r = run(EXE, cmd, *args, "-q", *out, cwd=workdir())
    ok(r.rc in RAN, f"{cmd}: the -s example {ex.group(1)} is taken", f"rc={r.rc} {r.err[-300:]}")
# inspect has its own parser: --max-time alone, as its help says
h = run(EXE, "inspect", "--help").text
ok(listed(h) == {"--max-time", "-h", "--help"}, "inspect lists --max-time and -h", sorted(listed(h)))
done()
