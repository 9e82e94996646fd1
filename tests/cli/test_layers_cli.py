#!/usr/bin/env python3
"""posenc layers: a model's layers one by one, against the configs read here.

Gemma 3 (transformers' Gemma3TextConfig): layer i is global (full attention, rope_theta and
the linear rope_scaling) when (i + 1) % sliding_window_pattern == 0, else local
(rope_local_base_freq, no scaling). SmolLM3: no_rope_layers[i] == 0 marks a layer without
RoPE. Qwen2.5-VL: mrope_section [16, 24, 24] on every layer."""
import csv
import io
import json
import math
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
from tap import done, error_case, ok, run, workdir  # noqa: E402

EXE = os.path.abspath(sys.argv[1])
HERE = os.path.dirname(os.path.abspath(__file__))
CONFIGS = os.path.join(os.path.dirname(HERE), "fixtures", "configs")
TMP = workdir()


def layers(spec):
    r = run(EXE, "layers", "-q", "-s", spec, "-o", "-")
    return r, list(csv.DictReader(io.StringIO(r.text)))


with open(os.path.join(CONFIGS, "gemma-3-27b.json")) as f:
    g3 = json.load(f)["text_config"]
r, rows = layers("hf:" + os.path.join(CONFIGS, "gemma-3-27b.json"))
pattern = g3["sliding_window_pattern"]
want = []
for i in range(g3["num_hidden_layers"]):
    glob = (i + 1) % pattern == 0
    want.append(("global" if glob else "local",
                 g3["rope_theta"] if glob else g3["rope_local_base_freq"],
                 "linear" if glob else "none",
                 g3["rope_scaling"]["factor"] if glob else 1.0))
got = [(x["group"], float(x["base"]), x["scaling"], float(x["factor"])) for x in rows]
ok(r.rc == 0 and got == want, "gemma-3-27b: 62 layers, every 6th global with base 1e6 and linear x8",
   r.err)
ok([x["sliding_window"] for x in rows] ==
   [str(g3["sliding_window"]) if w[0] == "local" else "" for w in want] and
   all(abs(float(x["softmax_scale"]) - g3["query_pre_attn_scalar"] ** -0.5) < 1e-15 for x in rows),
   "gemma-3-27b: window 1024 on the local layers only; softmax scale query_pre_attn_scalar^-0.5")
ok(all(x["head_dim"] == "128" and x["rotary_dim"] == "128" and x["encoding"] == "rope" and
       x["attention_factor"] == "1" for x in rows), "gemma-3-27b: widths and attention factor")

smol = {"model_type": "smollm3", "hidden_size": 2048, "num_attention_heads": 16,
        "num_hidden_layers": 8, "max_position_embeddings": 65536, "rope_theta": 5000000.0,
        "no_rope_layers": [1, 1, 0, 1, 1, 1, 1, 0]}
path = os.path.join(TMP, "smol.json")
with open(path, "w") as f:
    json.dump(smol, f)
r, rows = layers("hf:" + path)
ok(r.rc == 0 and [x["encoding"] for x in rows] == ["rope" if k else "nope" for k in smol["no_rope_layers"]]
   and all(x["base"] == "" for x in rows if x["encoding"] == "nope"),
   "smollm3: the layers no_rope_layers marks 0 have no RoPE (and no base)", r.err)

r, rows = layers("model:qwen2.5-vl-7b")
ok(r.rc == 0 and rows and all((x["mrope_t"], x["mrope_h"], x["mrope_w"]) == ("16", "24", "24")
                              for x in rows), "qwen2.5-vl: M-RoPE sections on every layer", r.err)
r, rows = layers("model:phi-3-mini-128k")
ok(r.rc == 0 and rows and rows[0]["attention_factor"] == "1.1902380714238083" and
   rows[0]["head_dim"] == "96", "phi-3: attention factor sqrt(1 + ln 32 / ln 4096) at d 96", rows[:1])

# DeepSeek-V3: softmax scale times yarn's mscale(40, mscale_all_dim 1)^2 = (0.1 ln 40 + 1)^2
r, rows = layers("model:deepseek-v3")
want_f = (0.1 * 1.0 * math.log(40.0) + 1.0) ** 2
ok(r.rc == 0 and rows and all(abs(float(x["softmax_scale_factor"]) - want_f) < 1e-14 for x in rows),
   "deepseek-v3: attention temperature (0.1 ln 40 + 1)^2 = 1.8739 on every layer", rows[:1])

png = os.path.join(TMP, "g.png")
r = run(EXE, "layers", "-s", "model:gemma-4-31b", "-o", png)
ok(r.rc == 0 and os.path.getsize(png) > 1000, "layer map figure", r.err)

# A width for a paper (7 in at 300 dpi by --style paper, 504 pt) keeps the strips as tall as
# 62 layers need: the figure is drawn that wide, and at least matplotlib's 4.8 in tall (a height
# taken from the width's aspect made a 0.84 in band, and 8 strips at 10 pt did not fit in 7 in).
# A 252 pt column (3.5 in): four rows of two strips, drawn at that width (eight strips side by
# side, or four, did not fit: "canvas too small").
for extra, dpi, inches in [(["--style", "paper"], 300, 7), (["--width", "7in"], 100, 7),
                           (["--width", "504pt", "--dpi", "150"], 150, 7),
                           (["--width", "252pt"], 100, 3.5),
                           (["--width", "3.5in", "--dpi", "300"], 300, 3.5)]:
    r = run(EXE, "layers", "-q", "-s", "model:gemma-3-27b", "-o", png, *extra)
    size = (0, 0)
    if r.rc == 0:
        with open(png, "rb") as f:
            head = f.read(24)
        size = (int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big"))
    ok(r.rc == 0 and size[0] == round(inches * dpi) and size[1] >= 4.8 * dpi,
       "layer map at %s: %g in wide, at least 4.8 in tall" % (" ".join(extra), inches),
       (size, r.err))

# A strip is one column: no x tick (a lone "0" under every strip said nothing). The text log
# (POSENC_TEXT_BOXES) gives each text's box; an x tick label would be centred under its strip,
# as the strip's title is above it.
LOG = os.path.join(TMP, "boxes.txt")
proc = subprocess.run([EXE, "layers", "-q", "-s", "model:gemma-3-27b", "-o", png],
                      capture_output=True, env=dict(os.environ, POSENC_TEXT_BOXES=LOG), timeout=120)
boxes = []
for line in open(LOG, encoding="utf-8") if os.path.exists(LOG) else []:
    head, _, text = line.rstrip("\n").partition("\t")
    f = head.split()
    if f[0] == "text":
        boxes.append(((float(f[1]) + float(f[3])) / 2, text))
titles = ["group", "RoPE (1/0)", "log10 base", "rotary width", "factor", "proportion",
          "attention factor", "sliding window"]
centres = [x for x, t in boxes if t in titles]
under = [t for x, t in boxes if t == "0" and any(abs(x - c) < 3 for c in centres)]
ok(proc.returncode == 0 and len(centres) == 8 and not under,
   "layer map: no x tick under the one-column strips", (len(centres), under))
# A quantity equal on every layer (gemma-3-27b's rotary width 128) is one band whose only tick
# is its value, not a 64..192 bar with ticks 80..180 around it.
texts = [t for x, t in boxes]
ok("128" in texts and not set(texts) & {"80", "100", "120", "140", "160", "180"},
   "layer map: a constant rotary width is one band ticked 128", texts)

for name, args, rc, needle in [
    ("layers of a plain spec", ["layers", "-s", "rope", "-o", "x.csv"], 2, "one model"),
    ("layers with -d", ["layers", "-s", "model:gemma-3-27b", "-d", "64", "-o", "x.csv"], 2, "'-d'"),
    ("layers of a learned table", ["layers", "-s", "model:gpt2", "-o", "x.csv"], 2, "learned"),
]:
    error_case(EXE, name, args, rc, needle, cwd=workdir())

# A quantity no layer has (DeepSeek-V3 slides nowhere): its strip is all "full attention",
# and its colorbar is that swatch alone, not a 0..1 ramp with ticks 0.2 .. 0.8 of nothing.
lpdf = os.path.join(TMP, "ds-layers.pdf")
r = run(EXE, "layers", "-q", "-s", "model:deepseek-v3", "-o", lpdf)
words = subprocess.run(["pdftotext", lpdf, "-"], capture_output=True, text=True).stdout.split() \
    if r.rc == 0 else []
ok(r.rc == 0 and "attention" in words and not {"0.2", "0.4", "0.6", "0.8"} & set(words),
   "layers: no colour ramp for a quantity no layer has", words)

done()
