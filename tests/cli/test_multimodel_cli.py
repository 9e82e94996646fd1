#!/usr/bin/env python3
"""Several models in one command, each at its own widths (issue: a long-context review).

Llama 3.1 8B (head 128), Phi-3 mini 128k (head 96, 48 LongRoPE factors) and DeepSeek-V3
(rotary width 64) together: compare, freqs and report take them without -d; -d anywhere
on the command line; a -d that changes a model is refused (Phi-3's factors) or warned
about (DeepSeek-V3). freqs' long table has the same columns whatever the scaling, and the
critical dimension is the same number in freqs, model and report (Liu et al.:
2 ceil((d/2) log_base(T / 2 pi)) for the training length T, computed here)."""
import csv
import html.parser
import io
import json
import math
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
from tap import done, error_case, ok, run, workdir  # noqa: E402

EXE = os.path.abspath(sys.argv[1])
MODELS = ["model:llama-3.1-8b", "model:phi-3-mini-128k", "model:deepseek-v3"]
S = [a for m in MODELS for a in ("-s", m)]
TMP = workdir()


def crit(base, d, train):
    return min(d, max(0, 2 * math.ceil((d / 2) * math.log(train / (2 * math.pi)) / math.log(base))))


# ---- compare: each model at its own width -------------------------------------------------
r = run(EXE, "compare", "-q", *S, "-n", "64", "-o", "-")
rows = list(csv.reader(io.StringIO(r.text)))
ok(r.rc == 0 and [x[0] for x in rows[1:]] == ["llama-3.1-8b", "phi-3-mini-128k", "deepseek-v3"],
   "compare takes three models of head widths 128, 96 and 64 without -d", r.err)
# decay at offset 0 is the squared norm: d_rot x attention factor^2 (Phi-3: 96 x 1.4166...)
d0 = {x[0]: float(x[8]) for x in rows[1:]}
att_phi = math.sqrt(1 + math.log(131072 / 4096) / math.log(4096))
ok(abs(d0.get("llama-3.1-8b", 0) - 128) < 1e-9 and abs(d0.get("deepseek-v3", 0) - 64) < 1e-9
   and abs(d0.get("phi-3-mini-128k", 0) - 96 * att_phi ** 2) < 1e-9,
   "each at its own width: squared norms 128, 96 x 1.4167 and 64", d0)
r = run(EXE, "compare", *S, "-n", "64", "-o", os.path.join(TMP, "c.png"))
ok(r.rc == 0, "compare figure of three widths", r.err)

# ---- -d anywhere; a -d that changes a model ------------------------------------------------
for args in (["-d", "128", "-s", "model:phi-3-mini-128k"], ["-s", "model:phi-3-mini-128k", "-d", "128"]):
    error_case(EXE, "-d 128 would change Phi-3's 48 LongRoPE factors (" + " ".join(args) + ")",
               ["compare", *args, "-n", "16", "-o", "x.csv"], 2, "48 LongRoPE factors are for "
               "rotary width 96", cwd=workdir())
for order in (["-d", "128", "-s", "model:deepseek-v3"], ["-s", "model:deepseek-v3", "-d", "128"]):
    r = run(EXE, "compare", *order, "-n", "16", "-o", "-")
    ok(r.rc == 0 and "warning: -d 128 draws deepseek-v3 at head width 128 instead of its own 64"
       in r.err and "64 pairs instead of 32" in r.err, "-d 128 on DeepSeek-V3 warns, wherever -d is", r.err)
r = run(EXE, "compare", "-s", "model:llama-3.1-8b", "-s", "sinusoidal", "-n", "16", "-o", "-")
ok(r.rc == 0 and "warning" not in r.err, "a plain spec beside a model takes its width, no warning",
   r.err)

# layer= after a model spec is no key of its groups' rope specs: one error naming what was
# written and --layer (it was "unknown key 'layer' for rope" of a spec text never written)
for cmd, extra in (("freqs", ["-s", "model:llama-3.1-8b"]), ("model", []), ("plan", ["--target", "1e6"])):
    args = [cmd] + (["model:gemma-3-27b,layer=global"] if cmd == "model"
                    else ["-s", "model:gemma-3-27b,layer=global"]) + extra
    error_case(EXE, f"{cmd}: layer= in a model spec", args, 2,
               "posenc: error: scheme 'model:gemma-3-27b,layer=global': layer= is not a key of a "
               "model spec: --layer global picks that group", cwd=workdir())

# an unknown key after a model is said of the spec as written, before any output (model printed
# its heading, then named an internal group spec "rope:base=500000,...,foo=1")
for cmd in ("freqs", "model", "layers", "compare"):
    args = [cmd] + (["model:llama-3.1-8b,foo=1"] if cmd == "model"
                    else ["-s", "model:llama-3.1-8b,foo=1"]) + ["-o", "x.csv"]
    wd = workdir()
    r = run(EXE, *args, cwd=wd)
    ok(r.rc == 2 and r.text == "" and r.err.startswith(
       "posenc: error: scheme 'model:llama-3.1-8b,foo=1': unknown key 'foo' for rope (known: ")
       and not os.listdir(wd), f"{cmd}: an unknown key after a model names the spec written", r.err)

# ---- freqs: one long table --------------------------------------------------------------
out = os.path.join(TMP, "x.csv")
r = run(EXE, "freqs", *S, "-o", out)
with open(out) as f:
    tab = list(csv.DictReader(f))
ok(r.rc == 0 and [k for k in tab[0]] == ["model", "group", "d", "d_rot", "pair", "theta",
                                         "wavelength", "scaling", "factor", "scaled_theta",
                                         "scaled_wavelength", "ratio", "regime"],
   "freqs of three models: one table, stable column names", r.err)
count = {m: sum(1 for x in tab if x["model"] == m) for m in ("llama-3.1-8b", "phi-3-mini-128k",
                                                             "deepseek-v3")}
ok(count == {"llama-3.1-8b": 64, "phi-3-mini-128k": 48, "deepseek-v3": 32},
   "one row per pair of each model at its rotary width", count)
ok(all(float(x["d"]) > 0 and float(x["theta"]) > 0 for x in tab) and
   {x["regime"] for x in tab} <= {"kept", "ramped", "interpolated", "rescaled"},
   "numeric columns numeric, regimes named")
# critical dimension: freqs, model and report agree with Liu et al. at the model's training length
want = {"llama-3.1-8b": crit(500000.0, 128, 8192), "phi-3-mini-128k": crit(10000.0, 96, 4096),
        "deepseek-v3": crit(10000.0, 64, 4096)}
for m, c in want.items():
    ok(f"{m}: critical dimension {c} of" in r.err, f"freqs: {m} critical dimension {c}", r.err)
    rm = run(EXE, "model", "-q", "model:" + m, "-o", "-")
    vals = {row[1]: row[2] for row in csv.reader(io.StringIO(rm.text))}
    ok(vals.get("critical_dim") == str(c), f"model: {m} critical dimension {c}", vals.get("critical_dim"))

# the figure of several: each panel's scaled curve is named by its scaling and factor (from
# the published configs), and Phi-3's by the factors drawn: at the default length, its original
# context 4096 (not past it), LongRoPE uses short_factor (a lone "scaled" hid that the panel
# drew short factors under its extended context 131072, where the model uses the long ones)
cfg = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "fixtures", "configs")
factors = {}
for m in ("llama-3.1-8b", "deepseek-v3"):
    with open(os.path.join(cfg, m + ".json")) as fh:
        factors[m] = json.load(fh)["rope_scaling"]["factor"]
fpdf = os.path.join(TMP, "w.pdf")
r = run(EXE, "freqs", "-q", *S, "-o", fpdf)
lines = subprocess.run(["pdftotext", fpdf, "-"], capture_output=True, text=True).stdout \
    .splitlines() if r.rc == 0 else []
labels = ["llama3 \u00d7%g" % factors["llama-3.1-8b"], "longrope (short factors)",
        "yarn \u00d7%g" % factors["deepseek-v3"]]
ok(r.rc == 0 and labels == ["llama3 \u00d78", "longrope (short factors)", "yarn \u00d740"]
   and all(w in lines for w in labels) and "scaled" not in lines and lines.count("unscaled") == 3,
   "freqs figure of several: each scaled curve named by its scaling", lines)
# the shared top panel's x axis is named too, not only the last panel's, far below it
ok(lines.count("pair index i") == 2, "freqs figure of several: the top panel's x axis is named",
   lines.count("pair index i"))

# decay of several widths: its title and legend say each one's, as compare's and freqs' do
# (the widths from the configs: hidden_size / heads, DeepSeek's qk_rope_head_dim)
cf = {}
for m in ("llama-3.1-8b", "phi-3-mini-128k", "deepseek-v3"):
    with open(os.path.join(cfg, m + ".json")) as fh:
        cf[m] = json.load(fh)
widths = {"llama-3.1-8b": cf["llama-3.1-8b"]["hidden_size"] // cf["llama-3.1-8b"]["num_attention_heads"],
          "phi-3-mini-128k": cf["phi-3-mini-128k"]["hidden_size"]
          // cf["phi-3-mini-128k"]["num_attention_heads"],
          "deepseek-v3": cf["deepseek-v3"]["qk_rope_head_dim"]}
dpdf = os.path.join(TMP, "decay.pdf")
r = run(EXE, "decay", "-q", *S, "-o", dpdf)
lines = subprocess.run(["pdftotext", dpdf, "-"], capture_output=True, text=True).stdout \
    .splitlines() if r.rc == 0 else []
want_w = "/".join(str(w) for w in sorted(set(widths.values())))
ok(r.rc == 0 and want_w == "64/96/128" and any(l.endswith("(d=%s)" % want_w) for l in lines)
   and all("%s (d=%d)" % (m, w) in lines for m, w in widths.items()),
   "decay of several widths: title and legend say each one's", lines)

# ---- report: model names, facts table first, default n = the longest context ----------
page = os.path.join(TMP, "r.html")
r = run(EXE, "report", "-q", "-s", "model:llama-3.1-8b", "-s", "model:deepseek-v3", "-n", "2048",
        "-o", page)


class Tables(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.tables, self.cell, self.nav = [], None, []

    def handle_starttag(self, tag, attrs):
        if tag == "table":
            self.tables.append([])
        elif tag == "tr" and self.tables:
            self.tables[-1].append([])
        elif tag in ("td", "th") and self.tables:
            self.cell = ""

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self.cell is not None and self.tables:
            self.tables[-1][-1].append(self.cell.strip())
            self.cell = None

    def handle_data(self, data):
        if self.cell is not None:
            self.cell += data


p = Tables()
p.feed(open(page).read() if r.rc == 0 else "")
facts = {row[0]: row[1:] for row in p.tables[0][1:]} if p.tables else {}
ok(r.rc == 0 and p.tables and p.tables[0][0][1:] == ["llama-3.1-8b", "deepseek-v3"],
   "report: the facts table comes first, headed by the model names", r.err)
ok(facts.get("critical dimension (training)") == ["%d of 128" % want["llama-3.1-8b"],
                                                  "%d of 64" % want["deepseek-v3"]],
   "report: the same critical dimensions", facts.get("critical dimension (training)"))
ok(facts.get("head width d") == ["128", "64"] and facts.get("training context") == ["8192", "4096"]
   and facts.get("extended context (factor x original)") == ["131072", "163840"],
   "report: widths and contexts of each model", facts)
summary = p.tables[1][0] if len(p.tables) > 1 else []
ok("scheme 1" not in summary and "llama-3.1-8b" in summary, "summary columns named by model", summary)
text = open(page).read() if r.rc == 0 else ""
ok("RoPE scaling: llama-3.1-8b (llama3 \u00d78)" in text and
   "RoPE scaling: deepseek-v3 (yarn \u00d740)" in text, "distinct contents entries per scaling")
r = run(EXE, "report", "-s", "model:deepseek-v3", "-o", os.path.join(TMP, "d.pdf"))
ok(r.rc == 0 and "report of 1 scheme" in r.err, "report of a model: default n = its context", r.err)
r = run(EXE, "report", "-q", "-s", "model:phi-3-mini-128k", "-s", "model:llama-3.1-8b", "-n", "512",
        "-o", os.path.join(TMP, "p.pdf"))
ok(r.rc == 0, "a report with Phi-3's 96 LongRoPE factors in its text fits its pages", r.err)

# ---- model --wide: one row per model and group, typed columns -----------------------------
r = run(EXE, "model", "-q", *S, "-s", "model:gemma-3-27b", "--wide", "-o", "-")
wide = list(csv.DictReader(io.StringIO(r.text)))
ok(r.rc == 0 and [(x["model"], x["group"]) for x in wide] ==
   [("llama-3.1-8b", "all"), ("phi-3-mini-128k", "all"), ("deepseek-v3", "all"),
    ("gemma-3-27b", "local"), ("gemma-3-27b", "global")],
   "model --wide: a row per model and layer group", r.err)
num_cols = ("n_layers", "head_dim", "rotary_dim", "base", "attention_factor", "critical_dim",
            "train_context")


def is_num(x):
    try:
        float(x)
        return True
    except ValueError:
        return False


ok(all(is_num(x[c]) for x in wide for c in num_cols) and
   [x["head_dim"] for x in wide] == ["128", "96", "64", "128", "128"] and
   [x["n_layers"] for x in wide] == ["32", "32", "61", "62", "62"],
   "model --wide: numeric columns hold numbers only (layer count apart from the layer list)",
   [{c: x.get(c) for c in num_cols} for x in wide])
ok([x["critical_dim"] for x in wide[:3]] == [str(want[m]) for m in
                                             ("llama-3.1-8b", "phi-3-mini-128k", "deepseek-v3")],
   "model --wide: the same critical dimensions")
r = run(EXE, "model", "-q", "rope", "-o", "-")
ok(r.rc == 0 and "critical_dim" not in r.text and "4096" not in r.text,
   "model of a plain rope spec invents no training context", r.text)
error_case(EXE, "several models to one long CSV", ["model", *S, "-o", "x.csv"], 2, "--wide",
           cwd=workdir())

r = run(EXE, "model", "model:deepseek-v3", "-d", "128")
ok(r.rc == 0 and "warning: -d 128 draws deepseek-v3 at head width 128" in r.err,
   "model -d 128 on DeepSeek-V3 warns what changes", r.err)
error_case(EXE, "model -d 128 on Phi-3 is refused", ["model", "-d", "128", "model:phi-3-mini-128k"],
           2, "48 LongRoPE factors", cwd=workdir())
r = run(EXE, "model", "model:gpt2", "-d", "768")
ok(r.rc == 0, "model -d on a learned table still describes it", r.err)

done()
