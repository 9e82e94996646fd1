#!/usr/bin/env python3
"""posenc plan: each RoPE scaling to a target context, per engine.

The reference is restated here with numpy from transformers' modeling_rope_utils.py
(_compute_linear_scaling_rope_parameters, _compute_dynamic_ntk_parameters,
_compute_yarn_parameters with find_correction_dim / linear_ramp_factor,
_compute_llama3_parameters, _compute_longrope_parameters), from vLLM's
_get_and_verify_max_len (vllm/config.py) and from llama.cpp's convert_hf_to_gguf.py
(context_length = max_position_embeddings, which becomes n_ctx_train), not from posenc:

  config of each method: rope_scaling {type, factor = target / T, original = T},
                         max_position_embeddings = target (dynamic: T)
  vLLM:  length keys of the config; unless type is longrope/su/llama3 or model_type
         contains "gemma3" (its max_position_embeddings counts as scaled already):
         yarn -> original; then times factor
  regime of a pair: ratio scaled/unscaled 1 -> kept, 1/factor -> interpolated, else ramped
  (LongRoPE: rescaled, counted with ramped)."""
import csv
import io
import json
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from tap import done, error_case, ok, run, workdir  # noqa: E402

EXE = os.path.abspath(sys.argv[1])
HERE = os.path.dirname(os.path.abspath(__file__))
CONFIGS = os.path.join(os.path.dirname(HERE), "fixtures", "configs")
TARGET = 262144.0


def inv_freq(base, dim):
    return 1.0 / base ** (np.arange(0, dim, 2, dtype=np.float64) / dim)


def yarn(base, dim, factor, orig, beta_fast=32.0, beta_slow=1.0, truncate=True):
    inv = inv_freq(base, dim)

    def corr(rot):
        return (dim * math.log(orig / (rot * 2 * math.pi))) / (2 * math.log(base))
    low, high = corr(beta_fast), corr(beta_slow)
    if truncate:  # transformers' find_correction_range: floor / ceil unless truncate is False
        low, high = math.floor(low), math.ceil(high)
    low, high = max(low, 0), min(high, dim - 1)
    if low == high:
        high += 0.001
    ramp = np.clip((np.arange(dim // 2, dtype=np.float64) - low) / (high - low), 0, 1)
    extra = 1 - ramp
    scaled = (inv / factor) * (1 - extra) + inv * extra
    return inv, scaled, 0.1 * math.log(factor) + 1.0


def llama3(base, dim, factor, orig, low=1.0, high=4.0):
    inv = inv_freq(base, dim)
    wl = 2 * math.pi / inv
    lw, hw = orig / low, orig / high
    out = np.where(wl > lw, inv / factor, inv)
    smooth = (orig / wl - low) / (high - low)
    smoothed = (1 - smooth) * out / factor + smooth * out
    medium = ~(wl < hw) & ~(wl > lw)
    return inv, np.where(medium, smoothed, out), 1.0


def dynamic(base, dim, factor, max_pos, length):
    nb = base * ((factor * length / max_pos) - (factor - 1)) ** (dim / (dim - 2))
    return inv_freq(base, dim), inv_freq(nb, dim), 1.0


def longrope(base, dim, factor, orig, long_f):
    inv = inv_freq(base, dim)
    return inv, inv / np.asarray(long_f), math.sqrt(1 + math.log(factor) / math.log(orig))


def regimes(inv, scaled, factor, method):
    ratio = scaled / inv
    kept = int(np.sum(np.abs(ratio - 1) <= 1e-12))
    interp = 0 if method == "longrope" else int(np.sum(np.abs(ratio * factor - 1) <= 1e-12))
    return kept, len(inv) - kept - interp, interp


def vllm_len(cfg_max, rope_type, factor, orig, model_type=""):
    if rope_type in ("longrope", "su", "llama3") or "gemma3" in model_type:
        return cfg_max
    # _get_and_verify_max_len returns int(derived_max_model_len)
    return int((orig if rope_type == "yarn" else cfg_max) * factor)


def expect(method, base, dim, train, yarn_keys=None):
    """yarn_keys: the model's own YaRN settings, which its own method keeps (truncate;
    mscale and mscale_all_dim: transformers' attention_factor get_mscale(f, mscale) /
    get_mscale(f, mscale_all_dim), and DeepSeek's softmax scale times
    get_mscale(f, mscale_all_dim)^2)."""
    f = TARGET / train
    yk = yarn_keys or {}
    if method == "linear":
        inv = inv_freq(base, dim)
        inv, sc, att = inv, inv / f, 1.0
    elif method == "dynamic":
        inv, sc, att = dynamic(base, dim, f, train, TARGET)
    elif method == "yarn":
        inv, sc, att = yarn(base, dim, f, train, truncate=yk.get("truncate", True))
    elif method == "llama3":
        inv, sc, att = llama3(base, dim, f, train)
    kept, ramped, interp = regimes(inv, sc, f, method)
    never = int(np.sum(2 * math.pi / sc > TARGET))
    max_pos = train if method == "dynamic" else TARGET
    logits = att * att
    if method == "yarn" and "mscale_all_dim" in yk:
        def get_mscale(scale, m):
            return 1.0 if scale <= 1 else 0.1 * m * math.log(scale) + 1.0
        att = get_mscale(f, yk["mscale"]) / get_mscale(f, yk["mscale_all_dim"])
        logits = att * att * get_mscale(f, yk["mscale_all_dim"]) ** 2
    return dict(factor=f, kept=kept, ramped=ramped, interpolated=interp, never_turning=never,
                attention_factor=att, logit_scale=logits, hf_max_length=max_pos,
                vllm_max_length=vllm_len(max_pos, method, f, train),
                llamacpp_max_length=None if method == "dynamic" else max_pos)


def plan(*specs):
    args = ["plan", "-q", "--target", "262144", "-o", "-"]
    for s in specs:
        args += ["-s", s]
    r = run(EXE, *args)
    rows = list(csv.DictReader(io.StringIO(r.text)))
    return r, rows


def close(a, b):
    if b is None:
        return a == ""
    return a != "" and abs(float(a) - b) <= 1e-12 * max(1.0, abs(b))


# The models' own YaRN settings, from their published configs (tests/fixtures): DeepSeek-V3
# mscale 1, mscale_all_dim 1; gpt-oss truncate false (its ramp's ends are not rounded).
with open(os.path.join(CONFIGS, "deepseek-v3.json")) as f:
    ds = json.load(f)["rope_scaling"]
with open(os.path.join(CONFIGS, "gpt-oss-120b.json")) as f:
    go_cfg = json.load(f)
    go = go_cfg["rope_scaling"]
r, rows = plan("model:llama-3.1-8b", "model:deepseek-v3", "model:phi-3-mini-128k",
               "model:gpt-oss-120b")
ok(r.rc == 0 and len(rows) == 4 + 4 + 5 + 4,
   "plan: 4 methods each, LongRoPE too for Phi-3 (its lists)", r.err)
for model, base, dim, train, keys in (
        ("llama-3.1-8b", 500000.0, 128, 8192.0, None),
        ("deepseek-v3", 10000.0, 64, 4096.0,
         dict(mscale=ds["mscale"], mscale_all_dim=ds["mscale_all_dim"])),
        ("phi-3-mini-128k", 10000.0, 96, 4096.0, None),
        ("gpt-oss-120b", go_cfg["rope_theta"], go_cfg["head_dim"],
         float(go["original_max_position_embeddings"]), dict(truncate=go["truncate"]))):
    for method in ("linear", "dynamic", "yarn", "llama3"):
        got = [x for x in rows if x["model"] == model and x["method"] == method]
        want = expect(method, base, dim, train, keys)
        bad = {k: (got[0][k] if got else None, v) for k, v in want.items()
               if not got or not close(got[0][k], v)}
        ok(got and not bad and got[0]["d"] == str(dim),
           f"{model} {method}: factor, regimes, attention, never-turning pairs, engine lengths",
           bad)

with open(os.path.join(CONFIGS, "phi-3-mini-128k.json")) as f:
    phi = json.load(f)
inv, sc, att = longrope(10000.0, 96, TARGET / 4096, 4096, phi["rope_scaling"]["long_factor"])
got = [x for x in rows if x["model"] == "phi-3-mini-128k" and x["method"] == "longrope"]
kept, ramped, _ = regimes(inv, sc, TARGET / 4096, "longrope")
ok(got and close(got[0]["attention_factor"], att) and got[0]["ramped"] == str(ramped)
   and got[0]["kept"] == str(kept) and got[0]["never_turning"] == str(int(np.sum(2 * math.pi / sc > TARGET)))
   and close(got[0]["vllm_max_length"], TARGET),
   "phi-3 longrope: its own long factors, attention sqrt(1 + ln 64 / ln 4096), vLLM keeps the "
   "config's length", got)

# PhiMoE (modeling_phimoe.py): cos and sin times long_mscale past the block's original length
# (short_mscale below it), in place of LongRoPE's attention factor; its own LongRoPE row keeps
# them, and the other methods' rows drop them with the rest of its scaling (a new scaling= of
# the spec kept them, which only longrope takes: plan refused the model)
moe = dict(phi, model_type="phimoe", rope_scaling=dict(phi["rope_scaling"], short_mscale=1.1,
                                                        long_mscale=1.25,
                                                        original_max_position_embeddings=4096))
moe_path = os.path.join(workdir(), "phimoe.json")
with open(moe_path, "w") as f:
    json.dump(moe, f)
r_moe, rows_moe = plan("hf:" + moe_path)
lr = [x for x in rows_moe if x["method"] == "longrope"]
ok(r_moe.rc == 0 and len(rows_moe) == 5 and lr and close(lr[0]["attention_factor"], 1.25) and
   close(lr[0]["logit_scale"], 1.25 ** 2) and
   all(close(x["attention_factor"], 1.0) for x in rows_moe if x["method"] == "linear"),
   "PhiMoE: its LongRoPE row's attention is long_mscale 1.25 at 262144 > 4096; every method "
   "planned", r_moe.text + r_moe.err)
ok(all(x["llamacpp_max_length"] == "" for x in rows if x["method"] == "dynamic"),
   "llama.cpp has no dynamic NTK: its length is empty")
lin = [x for x in rows if x["model"] == "llama-3.1-8b" and x["method"] == "linear"]
ok(lin and lin[0]["vllm_max_length"] == str(int(TARGET * 32)),
   "vLLM multiplies max_position_embeddings by a linear factor (8388608 for 262144 x 32)")

# Qwen2.5-VL (max_position_embeddings 128000) to 262144: factor 2.048, not whole; vLLM's length is
# int(262144 x 2.048) = int(536870.912) = 536870 for linear, whole tokens (it read 536870.912)
r, rows = plan("model:qwen2.5-vl-7b")
lin = [x for x in rows if x["method"] == "linear"]
f = TARGET / 128000.0
ok(lin and lin[0]["vllm_max_length"] == str(vllm_len(TARGET, "linear", f, 128000.0)) == "536870"
   and all(float(x["vllm_max_length"]) == int(float(x["vllm_max_length"])) for x in rows),
   "vLLM's length is a whole number of tokens (int()), 536870 for linear x2.048", lin)
r = run(EXE, "plan", "-q", "-s", "model:qwen2.5-vl-7b", "--target", "262144")
ok(r.rc == 0 and " 536870 " in r.text and "536870.912" not in r.text, "plan text: 536870", r.text)

# Gemma 3: vLLM's _get_and_verify_max_len (the NOTE "Gemma3's max_model_len (128K) is already
# scaled by RoPE scaling") applies no factor when model_type contains "gemma3".
r, rows = plan("model:gemma-3-27b", "hf:" + os.path.join(HERE, "..", "fixtures", "hf",
                                                         "gemma-3-27b-it.json"))
want = {m: vllm_len(262144.0 if m != "dynamic" else 131072.0, m, TARGET / 131072, 131072.0,
                    "gemma3_text") for m in ("linear", "dynamic", "yarn", "llama3")}
bad = [(x["model"], x["group"], x["method"], x["vllm_max_length"]) for x in rows
       if not close(x["vllm_max_length"], want[x["method"]])]
ok(r.rc == 0 and len(rows) == 16 and not bad and want["linear"] == TARGET,
   "gemma 3 (preset and hf: config, both groups): vLLM applies no factor", (r.err, bad))

# Gemma 3's sliding layers attend within sliding_window positions (the config's 1024, read
# here from the published file): a longer context never gives them longer offsets. The CSV
# names the window of a group whose layers all slide, and the text says so once per such group.
with open(os.path.join(HERE, "..", "fixtures", "hf", "gemma-3-27b-it.json")) as fh:
    gemma_window = json.load(fh)["text_config"]["sliding_window"]
r, rows = plan("model:gemma-3-27b", "model:llama-3.1-8b")
windows = {}
for x in rows:
    windows.setdefault((x["model"], x["group"]), set()).add(x["sliding_window"])
ok(r.rc == 0 and gemma_window == 1024 and
   windows == {("gemma-3-27b", "local"): {"1024"}, ("gemma-3-27b", "global"): {""},
               ("llama-3.1-8b", "all"): {""}},
   "plan CSV: sliding_window of the groups whose layers all slide", windows)
# A model of one layer group is group "all" in plan's CSV as in freqs', model's and layers'
# (it was empty in plan's alone, so that merging plan with freqs on model and group lost it);
# a plain spec has no group.
r, rows = plan("model:phi-3-mini-128k", "model:gemma-3-27b", "rope:base=10000,original=4096,"
               "scaling=yarn,factor=2")
fr = run(EXE, "freqs", "-q", "-s", "model:phi-3-mini-128k", "-s", "model:gemma-3-27b", "-o", "-")
fgroups = {(x["model"], x["group"]) for x in csv.DictReader(io.StringIO(fr.text))}
pgroups = {(x["model"], x["group"]) for x in rows}
ok(r.rc == 0 and fr.rc == 0 and ("phi-3-mini-128k", "all") in pgroups
   and {g for g in pgroups if g[0] != "rope base=10000 scaling=yarn factor=2 original=4096"}
   == fgroups and all(g[1] == "" for g in pgroups if g[0].startswith("rope")),
   "plan CSV: group 'all' for a one-group model, as freqs names it", (pgroups, fgroups))
r = run(EXE, "plan", "-q", "-s", "model:gemma-3-27b", "-s", "model:llama-3.1-8b", "--target",
        "262144")
notes = [i for i, l in enumerate(r.text.splitlines()) if "a sliding window of 1024 positions" in l]
heads = [i for i, l in enumerate(r.text.splitlines()) if l.startswith("gemma-3-27b local ")]
ok(r.rc == 0 and len(notes) == 1 and heads and notes[0] == heads[0] + 1 and
   "needs no scaling in these layers" in r.text,
   "plan text: the local group's note, under its heading, once", r.text)

# Qwen3-Next (published config): head_dim 256, partial_rotary_factor 0.25, so the pairs
# counted are those of a rotary width of 64: the heading says it beside d
with open(os.path.join(HERE, "..", "fixtures", "hf", "qwen3-next-80b-a3b-thinking.json")) as fh:
    qn = json.load(fh)
qrot = int(qn["head_dim"] * qn["partial_rotary_factor"])
qspec = "hf:" + os.path.join(HERE, "..", "fixtures", "hf", "qwen3-next-80b-a3b-thinking.json")
r = run(EXE, "plan", "-q", "-s", qspec, "--target", "1048576")
rc, rows = plan(qspec)
ok(r.rc == 0 and qrot == 64 and "qwen3-next-80b-a3b-thinking rope (d=%d, rotary %d): training "
   "context %d" % (qn["head_dim"], qrot, qn["max_position_embeddings"]) in r.text
   and {x["pairs"] for x in rows} == {str(qrot // 2)},
   "plan text: a partial rotary width is said beside d", r.text)
# A target below the training context (Llama 3.1's original 8192) is no extension: warned, once,
# for that model only (DeepSeek-V3's original 4096 equals the target: factor 1, no warning)
r = run(EXE, "plan", "-s", "model:llama-3.1-8b", "-s", "model:deepseek-v3", "--target", "4096")
warned = [l for l in r.err.splitlines() if "shorter than its training context" in l]
ok(r.rc == 0 and len(warned) == 1 and warned[0].startswith(
   "posenc: warning: llama-3.1-8b: the target 4096 is shorter than its training context 8192")
   and "factor 0.5," in warned[0], "plan: a target below the training context is warned", r.err)
r = run(EXE, "plan", "-s", "model:llama-3.1-8b", "--target", "262144")
ok(r.rc == 0 and "llama-3.1-8b (d=128): training context 8192, target 262144 (factor 32)" in r.text
   and "HF max" in r.text, "plan text on stdout", r.text)
r = run(EXE, "plan", "-q", "-s", "rope:base=10000", "--train-length", "4096", "--target", "262144",
        "-o", "-")
ok(r.rc == 0 and len(list(csv.DictReader(io.StringIO(r.text)))) == 4,
   "a plain rope spec with --train-length", r.err)

# Gemma 3's global layers: linear x8 with no original, so the training context taken is
# max_position_embeddings 131072, which that scaling already reaches: said once, for that group;
# llama3's original 8192 is a training context, and --train-length states one.
r = run(EXE, "plan", "-s", "model:gemma-3-27b", "-s", "model:llama-3.1-8b", "--target", "1048576")
warned = [l for l in r.err.splitlines() if "states no original context" in l]
ok(r.rc == 0 and len(warned) == 1 and "gemma-3-27b global: its linear x8 scaling" in warned[0]
   and "training context 131072 is max_position_embeddings" in warned[0],
   "plan: a linear scaling without an original is said to be replaced from the unscaled base",
   r.err)
r = run(EXE, "plan", "-s", "model:gemma-3-27b", "--target", "1048576", "--train-length", "32768")
ok(r.rc == 0 and "states no original context" not in r.err, "plan: not with --train-length",
   r.err)

# Mistral 7B v0.1 (published config): MistralModel masks every layer to sliding_window
# positions (4096) when config.sliding_window is set, shorter than its training context
# (max_position_embeddings 32768): its one group is said to need no scaling, and the CSV
# names the window. Mistral 7B v0.3 (sliding_window null) attends in full: no note. A
# window as long as the training context (Phi-3 with sliding_window = max_position_embeddings)
# is not shorter: no note either.
fix = os.path.join(HERE, "..", "fixtures", "hf")
with open(os.path.join(fix, "mistral-7b-instruct-v0.1.json")) as fh:
    m01 = json.load(fh)
with open(os.path.join(fix, "mistral-7b-v0.3.json")) as fh:
    m03 = json.load(fh)
phi_eq = os.path.join(workdir(), "phi3-window-eq.json")
with open(phi_eq, "w") as fh:
    json.dump({"model_type": "phi3", "hidden_size": 3072, "num_attention_heads": 32,
               "num_hidden_layers": 4, "max_position_embeddings": 4096,
               "sliding_window": 4096}, fh)
specs = ["hf:" + os.path.join(fix, "mistral-7b-instruct-v0.1.json"),
         "hf:" + os.path.join(fix, "mistral-7b-v0.3.json"), "hf:" + phi_eq]
r, rows = plan(*specs)
cols = {}
for x in rows:
    cols.setdefault(x["model"], set()).add(x["sliding_window"])
want_w = str(m01["sliding_window"]) if m01["sliding_window"] < m01["max_position_embeddings"] \
    else ""
ok(r.rc == 0 and m03["sliding_window"] is None and want_w == "4096" and
   cols == {"mistral-7b-instruct-v0.1": {"4096"}, "mistral-7b-v0.3": {""},
            "phi3-window-eq": {"4096"}},
   "plan CSV: Mistral v0.1's window 4096 on its group, none for v0.3", cols)
args = ["plan", "-q", "--target", "131072"]
for x in specs:
    args += ["-s", x]
r = run(EXE, *args)
lines = r.text.splitlines()
notes = [i for i, l in enumerate(lines) if l.startswith("  a sliding window of")]
heads = [i for i, l in enumerate(lines) if l.startswith("mistral-7b-instruct-v0.1 ")]
ok(r.rc == 0 and len(notes) == 1 and heads and notes[0] == heads[0] + 1 and
   "a sliding window of 4096 positions, shorter than the training context" in r.text,
   "plan text: Mistral v0.1's note (4096 < 32768), none for v0.3 nor a window equal to the "
   "training context", r.text)

# Gemma 4's global layers: proportional RoPE (transformers' _compute_proportional_rope_parameters:
# frequencies base^(-2i/head) over the whole global head, 0 past int(p * head // 2) pairs, all
# divided by the factor). Only that type keeps the zero pairs, so it is the one method, at
# factor target / context; its factor of 1 is no scaling to warn about.
with open(os.path.join(CONFIGS, "gemma-4-31b.json")) as f:
    g4 = json.load(f)["text_config"]
full = g4["rope_parameters"]["full_attention"]
head, ctx = g4["global_head_dim"], float(g4["max_position_embeddings"])
f4 = 524288 / ctx
turning = int(full["partial_rotary_factor"] * head // 2)
inv = np.where(np.arange(head // 2) < turning,
               1.0 / full["rope_theta"] ** (np.arange(0, head, 2) / head), 0.0) / f4
never = int(np.sum(~(inv > 0) | (2 * math.pi / np.where(inv > 0, inv, 1) > 524288)))
r = run(EXE, "plan", "-s", "model:gemma-4-31b", "--target", "524288", "-o", "-")
glob = [x for x in csv.DictReader(io.StringIO(r.text)) if x["group"] == "global"]
ok(r.rc == 0 and len(glob) == 1 and glob[0]["method"] == "proportional" and
   close(glob[0]["factor"], f4) and glob[0]["pairs"] == str(head // 2) and
   glob[0]["interpolated"] == str(turning) and glob[0]["kept"] == "0" and
   glob[0]["never_turning"] == str(never) and "states no original" not in r.err,
   "gemma 4 global: its proportional RoPE scaled by its own factor, the one method",
   (r.rc, r.err, glob))

for name, args, rc, needle in [
    ("plan without --target", ["plan", "-s", "model:llama-3.1-8b"], 2, "--target"),
    ("plan without a training context", ["plan", "-s", "rope", "--target", "1e5"], 2,
     "--train-length"),
    ("plan of sinusoidal", ["plan", "-s", "sinusoidal", "--train-length", "10", "--target", "100"],
     2, "not RoPE"),
    ("plan to a figure", ["plan", "-s", "model:llama-3.1-8b", "--target", "1e5", "-o", "x.png"],
     2, "table"),
]:
    error_case(EXE, name, args, rc, needle, cwd=workdir())

done()
