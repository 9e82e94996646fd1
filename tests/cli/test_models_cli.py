#!/usr/bin/env python3
"""Real models: -s hf:config.json, -s model:NAME and posenc model, checked against an
independent reference written here from Hugging Face transformers' modeling_rope_utils.py
(the revision with rope_parameters): every inverse frequency, attention factor and derived
number to 1e-15 relative. The fixtures are the position-related keys of the models'
public config.json files (tests/fixtures/configs, each citing its source in "_source")."""
import csv
import io
import json
import math
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
from tap import done, error_case, long_columns, ok, run, workdir  # noqa: E402

EXE = os.path.abspath(sys.argv[1])
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CONFIGS = os.path.join(ROOT, "tests", "fixtures", "configs")
TMP = workdir()
REL = 1e-15


# ---- the reference, from the formulas of modeling_rope_utils.py ----------------------

def get_mscale(scale, m=1.0):
    return 1.0 if scale <= 1 else 0.1 * m * math.log(scale) + 1.0


def reference(cfg_root, group):
    """(unscaled inv_freq, scaled inv_freq, attention factor, extras) of a layer group."""
    cfg = cfg_root.get("text_config") or cfg_root
    head = cfg.get("qk_rope_head_dim") or cfg.get("head_dim") or \
        cfg["hidden_size"] // cfg["num_attention_heads"]
    partial = cfg.get("partial_rotary_factor", cfg.get("rotary_pct", 1.0))
    dim = int(head * partial)
    max_pos = cfg.get("max_position_embeddings")
    block = dict(cfg.get("rope_scaling") or cfg.get("rope_parameters") or {})
    theta = block.get("rope_theta", cfg.get("rope_theta", cfg.get("rotary_emb_base", 10000.0)))
    if group == "local":  # Gemma 3: local layers at rope_local_base_freq, unscaled
        theta, block = cfg["rope_local_base_freq"], {}
    rtype = block.get("rope_type", block.get("type", "default"))
    rtype = {"su": "longrope", "mrope": "default"}.get(rtype, rtype)
    if rtype in ("llama3", "yarn", "longrope"):
        if "original_max_position_embeddings" in cfg:
            block["original_max_position_embeddings"] = cfg["original_max_position_embeddings"]
        else:
            block.setdefault("original_max_position_embeddings", max_pos)
    pos = [theta ** (i / dim) for i in range(0, dim, 2)]
    base = [1.0 / p for p in pos]
    att, extra = 1.0, {"rotary_dim": dim}
    if rtype == "default":
        return base, list(base), att, extra
    factor = block.get("factor")
    if rtype == "linear":
        return base, [f / factor for f in base], att, extra
    orig = block["original_max_position_embeddings"]
    if rtype == "yarn":
        if factor is None:
            factor = max_pos / orig
        att = block.get("attention_factor")
        if att is None:
            ms, msa = block.get("mscale"), block.get("mscale_all_dim")
            att = get_mscale(factor, ms) / get_mscale(factor, msa) if ms and msa \
                else get_mscale(factor)
        fast, slow = block.get("beta_fast") or 32, block.get("beta_slow") or 1

        def corr(r):
            return dim * math.log(orig / (r * 2 * math.pi)) / (2 * math.log(theta))
        low, high = corr(fast), corr(slow)
        if block.get("truncate", True):
            low, high = math.floor(low), math.ceil(high)
        low, high = max(low, 0), min(high, dim - 1)
        extra.update(yarn_low=low, yarn_high=high)
        if low == high:
            high += 0.001
        out = []
        for i, p in enumerate(pos):
            ramp = min(max((i - low) / (high - low), 0.0), 1.0)
            ext = 1 - ramp
            out.append(1.0 / (factor * p) * (1 - ext) + 1.0 / p * ext)
        return base, out, att, extra
    if rtype == "llama3":
        low_f, high_f = block["low_freq_factor"], block["high_freq_factor"]
        low_wl, high_wl = orig / low_f, orig / high_f
        extra.update(low_freq_wavelength=low_wl, high_freq_wavelength=high_wl)
        out = []
        for f in base:
            wl = 2 * math.pi / f
            g = f / factor if wl > low_wl else f
            if not wl < high_wl and not wl > low_wl:
                s = (orig / wl - low_f) / (high_f - low_f)
                g = (1 - s) * g / factor + s * g
            out.append(g)
        return base, out, att, extra
    if rtype == "longrope":
        if factor is None:
            factor = max_pos / orig
        att = block.get("attention_factor")
        if att is None:
            att = 1.0 if factor <= 1 else math.sqrt(1 + math.log(factor) / math.log(orig))
        short = [1.0 / (e * p) for e, p in zip(block["short_factor"], pos)]
        long_ = [1.0 / (e * p) for e, p in zip(block["long_factor"], pos)]
        extra.update(switch_length=orig, long=long_)
        return base, short, att, extra
    raise ValueError(rtype)


def rel_ok(a, b):
    return all(abs(x - y) <= REL * abs(y) for x, y in zip(a, b)) and len(a) == len(b)


def worst(a, b):
    return max((abs(x - y) / abs(y) for x, y in zip(a, b)), default=0.0)


def freqs(spec, *extra):
    r = run(EXE, "freqs", "-q", "-s", spec, "--table", "long", "-o", "-", *extra)
    rows = list(csv.reader(io.StringIO(r.text)))
    if r.rc or not rows:
        return r, None, None
    cols, scaled = long_columns(rows)
    return r, cols["theta"], cols[scaled[0]] if len(scaled) == 1 else None


def summary(spec, *extra):
    r = run(EXE, "model", "-q", spec, "-o", "-", *extra)
    out = {}
    for row in list(csv.reader(io.StringIO(r.text)))[1:]:
        out.setdefault(row[0], {})[row[1]] = row[2]
    return r, out


GROUPS = {"gemma-3-27b": ["local", "global"], "t5-base": ["encoder", "decoder"]}
ROPE = ["llama-2-7b", "llama-3-8b", "llama-3.1-8b", "llama-3.2-1b", "codellama-7b",
        "mistral-7b-v0.1", "mistral-7b-v0.2", "qwen2.5-7b", "qwen2.5-7b-yarn", "qwen2.5-vl-7b",
        "phi-3-mini-128k", "deepseek-v3", "gemma-3-27b", "gpt-oss-120b", "gpt-neox-20b"]

for name in ROPE:
    path = os.path.join(CONFIGS, name + ".json")
    with open(path) as f:
        cfg = json.load(f)
    for group in GROUPS.get(name, ["all"]):
        base, scaled, att, extra = reference(cfg, group)
        layer = ["--layer", group] if group != "all" else []
        r, theta, got = freqs("hf:" + path, *layer)
        ok(r.rc == 0 and rel_ok(theta, base), f"{name} {group}: unscaled inverse frequencies",
           f"rc={r.rc} {r.err} worst={worst(theta or [], base)}")
        if got is not None or scaled != base:
            ok(got is not None and rel_ok(got, scaled),
               f"{name} {group}: scaled inverse frequencies to 1e-15",
               f"worst={worst(got or [], scaled)}")
        if "long" in extra:
            r2, _, glong = freqs("hf:" + path, "--length", str(extra["switch_length"] + 1))
            ok(glong is not None and rel_ok(glong, extra["long"]),
               f"{name}: long factors past the switch length", f"worst={worst(glong or [], extra['long'])}")
        r3, s = summary("hf:" + path, *layer)
        g = s.get(group, {})
        ok(r3.rc == 0 and abs(float(g.get("attention_factor", "nan")) - att) <= REL * att,
           f"{name} {group}: attention factor {att!r}", f"{r3.err} {g.get('attention_factor')}")
        ok(int(g.get("rotary_dim", -1)) == extra["rotary_dim"], f"{name} {group}: rotary width",
           g.get("rotary_dim"))
        for key in ("yarn_low", "yarn_high", "low_freq_wavelength", "high_freq_wavelength",
                    "switch_length"):
            if key in extra:
                ok(float(g.get(key, "nan")) == extra[key], f"{name} {group}: {key} {extra[key]}",
                   g.get(key))
        # model:NAME is the same config through the same reader
        rp, sp = summary("model:" + name, *layer)
        ok(rp.rc == 0 and sp == s, f"model:{name} {group} equals hf: of its fixture",
           rp.err)

# ---- derived numbers by hand --------------------------------------------------------
r, s = summary("model:llama-2-7b")
ok(s.get("all", {}).get("critical_dim") == "92", "llama-2-7b: critical dimension 92 (Liu et al.)",
   s)
r, s = summary("model:qwen2.5-7b-yarn")
g = s.get("all", {})
# YaRN, d 128, base 1e6, original 32768: low 23, high 40 (formulas: cd(32), cd(1))
ok(g.get("yarn_low") == "23" and g.get("yarn_high") == "40", "qwen2.5 yarn ramp 23..40", g)
ok(float(g["attention_factor"]) == 0.1 * math.log(4.0) + 1.0, "qwen2.5 yarn: 0.1 ln 4 + 1")
# The model card's recipe keeps max_position_embeddings at 32768: the context YaRN stretches
# to is factor x original = 4 x 32768, and the pairs that never turn are counted in it.
with open(os.path.join(CONFIGS, "qwen2.5-7b-yarn.json")) as f:
    _, qscaled, _, _ = reference(json.load(f), "all")
qslow = sum(2 * math.pi / t > 4 * 32768 for t in qscaled)
ok(g.get("context") == "131072" and g.get("pairs_unrotated_context") == str(qslow),
   f"qwen2.5 yarn: extended context 131072 and {qslow} scaled pairs never turning in it",
   (g.get("context"), g.get("pairs_unrotated_context")))
qpdf = os.path.join(TMP, "qwen-yarn.pdf")
r = run(EXE, "model", "-q", "model:qwen2.5-7b-yarn", "-o", qpdf)
txt = subprocess.run(["pdftotext", qpdf, "-"], capture_output=True).stdout.decode() \
    if r.rc == 0 else ""
ok("extended context 131072" in txt and "training context 32768" in txt,
   "qwen2.5 yarn figure: extended context 131072 above training context 32768", r.err)
# the figure names each group's scaled curve by its scaling and factor (the configs'), and
# LongRoPE's by the factors drawn: short at the default length (the original, 4096, not past
# it), long past it; a lone "scaled" did not say which
legends = {}
for spec, extra in (("deepseek-v3", []), ("gemma-3-27b", []), ("phi-3-mini-128k", []),
                    ("phi-3-mini-128k", ["--length", "131072"])):
    fpdf = os.path.join(TMP, "legend.pdf")
    r = run(EXE, "model", "-q", "model:" + spec, *extra, "-o", fpdf)
    lines = subprocess.run(["pdftotext", fpdf, "-"], capture_output=True).stdout.decode() \
        .splitlines() if r.rc == 0 else []
    legends[(spec, len(extra))] = [ln for ln in lines if "scaled" in ln or "scaling" in ln]
cfgs = {m: json.load(open(os.path.join(CONFIGS, m + ".json")))
        for m in ("deepseek-v3", "gemma-3-27b")}
ds_f = cfgs["deepseek-v3"]["rope_scaling"]["factor"]
gm_f = cfgs["gemma-3-27b"]["text_config"]["rope_scaling"]["factor"]
want = {("deepseek-v3", 0): ["unscaled", "scaled: yarn \u00d7%g" % ds_f],
        ("gemma-3-27b", 0): ["local (no scaling)", "global unscaled",
                             "global scaled: linear \u00d7%g" % gm_f],
        ("phi-3-mini-128k", 0): ["unscaled", "scaled: longrope (short factors)"],
        ("phi-3-mini-128k", 2): ["unscaled", "scaled: longrope (long factors)"]}
ok(legends == want, "model figure: each scaled curve named by its scaling (LongRoPE: which factors)",
   legends)
r, s = summary("model:phi-3-mini-128k")
g = s.get("all", {})
ok(float(g.get("attention_factor", 0)) == math.sqrt(1 + math.log(32.0) / math.log(4096.0)),
   "phi-3 longrope: attention factor from 131072/4096 = 32 (1.1902381)", g)
# no positions: the original context, as transformers loads it (short factors), as freqs
ok(g.get("rotary_dim") == "96" and g.get("factors") == "short" and g.get("length") == "4096",
   "phi-3: 96 rotated, short factors at the original context, as the reference loads it", g)
# Pairs never turning in the extended context 131072, at the frequencies of that length:
# the long factors, theta_i = 10000^(-2i/96) / long_i (transformers' longrope past 4096).
with open(os.path.join(CONFIGS, "phi-3-mini-128k.json")) as f:
    longf = json.load(f)["rope_scaling"]["long_factor"]
pslow = sum(2 * math.pi * 10000 ** (2 * i / 96) * longf[i] > 131072 for i in range(48))
ok(pslow == 17 and g.get("pairs_unrotated_context") == str(pslow) and g.get("factors") == "short",
   "phi-3: 17 pairs never turn in 131072 at its long factors (the table stays at the load-time "
   "short ones)", g.get("pairs_unrotated_context"))
# Dynamic NTK (InternLM2, factor 2 over max_position_embeddings 32768): in the extended
# context 65536 the base has grown to 1e6 (2 x 65536 / 32768 - 1)^(128/126).
r, s = summary("hf:" + os.path.join(ROOT, "tests", "fixtures", "hf", "internlm2-chat-1_8b-sft.json"))
g = s.get("all", {})
grown = 1e6 * (2 * 65536 / 32768 - 1) ** (128 / 126)
dslow = sum(2 * math.pi * grown ** (2 * i / 128) > 65536 for i in range(64))
ok(g.get("context") == "65536" and g.get("pairs_unrotated_context") == str(dslow) and dslow == 24,
   "internlm2 dynamic: 24 pairs never turn in 65536 at the base grown to it",
   (g.get("context"), g.get("pairs_unrotated_context")))
# model A B: an unscaled side has no factor or original (not the spec's defaults 4 and
# 4096); the extended context of Qwen2.5's YaRN recipe is 4 x 32768 = 131072, beside its
# max_position_embeddings 32768.
r = run(EXE, "model", "-q", "model:qwen2.5-7b-yarn", "model:qwen2.5-7b")
dl = {ln[2:30].strip(): ln[31:].strip() for ln in r.text.splitlines() if ln.startswith("  ")}
ok(r.rc == 0 and dl.get("context (extended)") == "131072 | 131072" and
   dl.get("max_position_embeddings") == "32768 | 131072" and dl.get("factor") == "4 | \u2013"
   and dl.get("original context") == "32768 | \u2013",
   "model A B: qwen2.5 yarn recipe vs base: extended 131072 both, no factor for the base", dl)
r = run(EXE, "model", "-q", "model:llama-3.1-8b", "model:llama-3-8b")
dl = {ln[2:30].strip(): ln[31:].strip() for ln in r.text.splitlines() if ln.startswith("  ")}
ok(r.rc == 0 and dl.get("factor") == "8 | \u2013" and dl.get("original context") == "8192 | \u2013"
   and "5 fields differ" in r.text and "max_position_embeddings" not in dl,
   "model A B: llama 3.1 vs 3: llama3 x8 over 8192 against no scaling", r.text)
r, s = summary("model:phi-3-mini-128k", "--length", "131072")
ok(s.get("all", {}).get("factors") == "long", "phi-3: long factors at --length 131072", s)
r, s = summary("model:deepseek-v3")
g = s.get("all", {})
ok(g.get("rotary_dim") == "64" and g.get("layout") == "interleaved" and
   float(g["attention_factor"]) == 1.0, "deepseek-v3: qk_rope_head_dim 64, interleaved, "
   "mscale = mscale_all_dim gives attention factor 1", g)
r, s = summary("model:gpt-neox-20b")
ok(s.get("all", {}).get("rotary_dim") == "24", "gpt-neox-20b: rotary_pct 0.25 of 96 = 24")
r, s = summary("model:gemma-3-27b")
ok(s.get("local", {}).get("layers") == "0-4,6-10,12-16,18-22,24-28,30-34,36-40,42-46,48-52,54-58,60-61"
   and s.get("global", {}).get("layers") == "5,11,17,23,29,35,41,47,53,59",
   "gemma-3-27b: every 6th layer global (sliding_window_pattern 6)", s)
r, s = summary("model:gpt-oss-120b")
ok(list(s) == ["model", "all"] and s["all"]["layers"] == "0-35",
   "gpt-oss-120b: sliding and full layers share one RoPE: one group", list(s))
# the presets' windows, restated from their fixtures and transformers' classes: MistralModel
# masks every layer to sliding_window when it is set (v0.1's 4096; v0.2's null: none);
# Qwen2Config drops sliding_window without use_sliding_window (false in Qwen2.5 7B, absent
# and so false in the YaRN recipe)
for name in ("mistral-7b-v0.1", "mistral-7b-v0.2", "qwen2.5-7b", "qwen2.5-7b-yarn"):
    with open(os.path.join(CONFIGS, name + ".json")) as f:
        cfg = json.load(f)
    on = cfg.get("sliding_window") is not None and \
        (cfg["model_type"] == "mistral" or cfg.get("use_sliding_window", False))
    want = (str(cfg["sliding_window"]), "0-%d" % (cfg["num_hidden_layers"] - 1)) if on \
        else (None, None)
    r, s = summary("model:" + name)
    m = s.get("model", {})
    ok(r.rc == 0 and (m.get("sliding_window"), m.get("sliding_layers")) == want and
       (name != "mistral-7b-v0.1" or want == ("4096", "0-31")),
       f"{name}: sliding window {want[0] or 'none'}", m)
r, s = summary("model:t5-base")
ok(s.get("encoder", {}).get("bidirectional") == "1" and s.get("decoder", {}).get("bidirectional") == "0",
   "t5-base: bidirectional encoder, causal decoder", s)
r, s = summary("model:bloom")
ok(s.get("all", {}).get("heads") == "112", "bloom: 112 ALiBi heads", s)
r = run(EXE, "model", "model:gpt2")
ok(r.rc == 0 and "1024 positions x 768" in r.text and "wpe.weight" in r.text,
   "gpt2: the table shape, its values from the weights", r.text)

# ---- the length semantics -----------------------------------------------------------
dyn = os.path.join(TMP, "dyn.json")
with open(dyn, "w") as f:
    json.dump({"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32,
               "max_position_embeddings": 4096, "rope_theta": 10000.0,
               "rope_scaling": {"type": "dynamic", "factor": 2.0}}, f)
r, s = summary("hf:" + dyn, "--length", "8192")
# formulas.md [3b]: base 1e4, d 128, factor 2, max_pos 4096: L = 8192 -> 30527.7367
want = 10000.0 * ((2.0 * 8192 / 4096) - 1.0) ** (128 / 126)
ok(abs(float(s["all"]["dynamic_base"]) - want) <= REL * want, "dynamic base at 8192", s)
r = run(EXE, "encode", "-s", "rope:scaling=dynamic,factor=2", "-n", "16384", "-d", "128",
        "--view", "angle", "-o", os.path.join(TMP, "dyn.npy"))
r0 = run(EXE, "encode", "-s", "rope", "-n", "16384", "-d", "128", "--view", "angle",
         "-o", os.path.join(TMP, "plain.npy"))
with open(os.path.join(TMP, "dyn.npy"), "rb") as a, open(os.path.join(TMP, "plain.npy"), "rb") as b:
    differ = a.read() != b.read()
ok(r.rc == 0 and r0.rc == 0 and differ and "sequence length 16384" in r.err,
   "encode: dynamic evaluated at the largest position + 1, and says so", r.err)

# ---- PhiMoE: short_mscale / long_mscale -----------------------------------------------
# transformers' modeling_phimoe.py (PhimoeRotaryEmbedding): mscale = long_mscale if
# seq_len > rope_scaling["original_max_position_embeddings"] else short_mscale; a missing
# one (None) keeps longrope's attention factor; cos and sin are multiplied by it. The
# configs below are SYNTHETIC, shaped like microsoft/Phi-3.5-MoE-instruct's config.json
# (hidden 4096, 32 heads, max_position_embeddings 131072, original 4096, rope_theta 1e4,
# short_mscale = long_mscale = 1.243163121016122 as that config gives them); the factor
# lists are made up (that config's own lists are not reproduced here).
def phimoe_cfg(short_ms, long_ms, model_type="phimoe", block_orig=4096, top_orig=4096):
    block = {"type": "longrope",
             "short_factor": [1.0 + 0.01 * i for i in range(64)],
             "long_factor": [1.0 + 0.5 * i for i in range(64)]}
    if block_orig is not None:
        block["original_max_position_embeddings"] = block_orig
    if short_ms is not None:
        block["short_mscale"] = short_ms
    if long_ms is not None:
        block["long_mscale"] = long_ms
    cfg = {"_note": "SYNTHETIC test config shaped like Phi-3.5-MoE-instruct",
           "model_type": model_type, "hidden_size": 4096, "num_attention_heads": 32,
           "max_position_embeddings": 131072, "rope_theta": 10000.0, "rope_scaling": block}
    if top_orig is not None:
        cfg["original_max_position_embeddings"] = top_orig
    return cfg


def phimoe_ref(cfg, length):
    """(inverse frequencies, attention factor) at a sequence length."""
    block = cfg["rope_scaling"]
    orig = cfg.get("original_max_position_embeddings", block.get("original_max_position_embeddings"))
    factor = cfg["max_position_embeddings"] / orig
    att = 1.0 if factor <= 1 else math.sqrt(1 + math.log(factor) / math.log(orig))
    ext = block["long_factor"] if length > orig else block["short_factor"]
    inv = [1.0 / (e * 10000.0 ** (i / 128)) for e, i in zip(ext, range(0, 128, 2))]
    if cfg["model_type"] == "phimoe":
        ms = block.get("long_mscale") if length > block["original_max_position_embeddings"] \
            else block.get("short_mscale")
        att = att if ms is None else ms
    return inv, att


def cos_rows(spec, n, rows):
    r = run(EXE, "encode", "-s", spec, "-n", str(n), "-d", "128", "--view", "cos", "-o", "-")
    lines = r.text.splitlines()
    return r, [[float(x) for x in lines[1 + q].split(",")[1:]] for q in rows] if r.rc == 0 else []


def cos_exact(q, t):
    """cos of the real product q * t: the double product plus its rounding error."""
    from fractions import Fraction
    hi = q * t
    lo = float(Fraction(q) * Fraction(t) - Fraction(hi))
    return math.cos(hi) - math.sin(hi) * lo


PHI35_MS = 1.243163121016122
for label, short_ms, long_ms in (("Phi-3.5-MoE values", PHI35_MS, PHI35_MS),
                                 ("distinct", 1.1, 1.3), ("long only", None, 1.3)):
    cfg = phimoe_cfg(short_ms, long_ms)
    path = os.path.join(TMP, "phimoe-%s.json" % label.split()[0].lower())
    with open(path, "w") as f:
        json.dump(cfg, f)
    for length in (4096, 4097, 131072):
        inv, att = phimoe_ref(cfg, length)
        r, s = summary("hf:" + path, "--length", str(length))
        g = s.get("all", {})
        ok(r.rc == 0 and float(g.get("attention_factor", "nan")) == att,
           f"phimoe ({label}): attention factor {att!r} at length {length}", f"{r.err} {g}")
    for n in (100, 5000):
        inv, att = phimoe_ref(cfg, n)
        r, got = cos_rows("hf:" + path, n, (0, n - 1))
        want0 = [att] * 128
        q = n - 1
        want = [att * cos_exact(q, t) for t in inv] * 2
        good = len(got) == 2 and got[0] == want0 and \
            all(abs(a - b) <= 1e-15 * max(abs(b), 1.0) for a, b in zip(got[1], want))
        ok(r.rc == 0 and good, f"phimoe ({label}): encode -n {n} --view cos is mscale x cos "
           f"(the {'long' if n > 4096 else 'short'} regime)", r.err)
# phi3 does not read them: a warning, and the derived attention factor
p3 = os.path.join(TMP, "phi3-mscale.json")
with open(p3, "w") as f:
    json.dump(phimoe_cfg(1.1, 1.3, model_type="phi3"), f)
r, s = summary("hf:" + p3, "--length", "5000")
r_loud = run(EXE, "model", "hf:" + p3)
ok(float(s["all"]["attention_factor"]) == math.sqrt(1 + math.log(32.0) / math.log(4096.0))
   and "only PhiMoE's does" in r_loud.err,
   "phi3 with short/long_mscale: ignored as its modeling does, with a warning", r_loud.err)
r = run(EXE, "model", "-q", "hf:" + os.path.join(TMP, "phimoe-distinct.json"))
ok(r.rc == 0 and "short-mscale=1.1" in r.text and "long-mscale=1.3" in r.text,
   "phimoe: the spec carries short-mscale and long-mscale", r.text)
for name, cfg, needle in (
        ("phimoe-no-block-original", phimoe_cfg(1.1, 1.3, block_orig=None),
         "rope_scaling block's own value"),
        ("phimoe-two-originals", phimoe_cfg(1.1, 1.3, block_orig=8192),
         "8192 differs from the top-level 4096"),
        ("phimoe-zero-mscale", phimoe_cfg(0.0, 1.3), "short_mscale: 0 is not a number > 0")):
    path = os.path.join(TMP, name + ".json")
    with open(path, "w") as f:
        json.dump(cfg, f)
    error_case(EXE, name, ["freqs", "-s", "hf:" + path, "-o", "-"], 1, needle)
error_case(EXE, "short-mscale needs longrope", ["freqs", "-s", "rope:short-mscale=1.2"], 2,
           "needs scaling=longrope")

# ---- a bare config.json or GGUF path ---------------------------------------------------
cfgp = os.path.join(CONFIGS, "llama-3.1-8b.json")
ra, rb = run(EXE, "model", cfgp), run(EXE, "model", "hf:" + cfgp)
ok(ra.rc == 0 and ra.text == rb.text, "posenc model config.json reads it as hf:config.json", ra.err)
r = run(EXE, "inspect", cfgp)
ok(r.rc == 1 and f"'posenc model {cfgp}' reads a model's positional encoding" in r.err,
   "inspect config.json: the error says posenc model reads it", r.err)

# ---- strictness ---------------------------------------------------------------------
def bad(name, doc, needle, rc=1):
    path = os.path.join(TMP, name + ".json")
    with open(path, "w") as f:
        f.write(doc if isinstance(doc, str) else json.dumps(doc))
    error_case(EXE, name, ["freqs", "-s", "hf:" + path, "-o", "-"], rc, needle)


llama = {"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32,
         "max_position_embeddings": 4096}
bad("unknown-type", dict(llama, rope_scaling={"rope_type": "magic"}), "'magic' is not one of")
bad("llama3-missing", dict(llama, rope_scaling={"rope_type": "llama3", "factor": 8.0}),
    "needs 'low_freq_factor'")
bad("unknown-arch", {"model_type": "transformer9000"}, "model_type: 'transformer9000'")
bad("no-model-type", {"hidden_size": 8}, "model_type: missing")
bad("not-json", "{\"model_type\": ", "not JSON")
bad("theta-string", dict(llama, rope_theta="1e4"), "rope_theta: is not a finite number")
# A key that is present but wrong is an error even when its alias is fine (the alias must not
# hide it, and the model must not be built with the error left behind).
bad("hidden-string-alias-ok", {"model_type": "llama", "hidden_size": "4096", "n_embd": 4096,
                               "num_attention_heads": 32}, "hidden_size: is not a finite number")
bad("heads-fraction-alias-ok", {"model_type": "llama", "hidden_size": 4096,
                                "num_attention_heads": 31.5, "n_head": 32},
    "num_attention_heads: 31.5 is not a whole number")
bad("bloom-n-head-string", {"model_type": "bloom", "n_head": "112", "num_attention_heads": 112,
                            "hidden_size": 14336}, "n_head: is not a finite number")
# Keys read past the rope block (softmax scale, chunks, temperature tuning, Gemma 4's width
# check, ALiBi's context): a bad one was reported and then ignored, so the model came back
# with an error string set (the config.json fuzz target's crash). Each is an error now.
small = {"head_dim": 8, "num_hidden_layers": 4}
for name, doc, needle in (
        ("gemma2-query-scalar-string", dict(small, model_type="gemma2",
                                            query_pre_attn_scalar="x"),
         "query_pre_attn_scalar: is not a finite number"),
        ("granite-multiplier-string", dict(small, model_type="granite",
                                           attention_multiplier="x"),
         "attention_multiplier: is not a finite number"),
        ("llama4-chunk-string", dict(small, model_type="llama4_text", attention_chunk_size="x"),
         "attention_chunk_size: is not a finite number"),
        ("llama4-attn-scale-string", dict(small, model_type="llama4_text", attn_scale=[0.1]),
         "attn_scale: is not a finite number"),
        ("llama4-floor-scale-string", dict(small, model_type="llama4_text", floor_scale=True),
         "floor_scale: is not a finite number"),
        ("gemma4-hidden-fraction", dict(small, model_type="gemma4_text", hidden_size=8.5,
                                        num_attention_heads=1,
                                        layer_types=["full_attention"] * 4),
         "hidden_size: 8.5 is not a whole number"),
        ("bloom-positions-string", {"model_type": "bloom", "n_head": 2, "n_positions": "x"},
         "n_positions: is not a finite number")):
    bad(name, doc, needle)
    path = os.path.join(TMP, name + ".json")
    error_case(EXE, name + " (model)", ["model", "hf:" + path], 1, needle)
# rotary_dim over twice head_dim: the smallest fraction with int(head_dim * p) == rotary_dim
# was searched downwards to 2.0 and never found (61 of 7 hung). Wider than the head is an
# error, as the reference's q[..., :rotary_dim] slice fails.
path = os.path.join(TMP, "rotary-dim-wide.json")
with open(path, "w") as f:
    json.dump({"model_type": "llama", "head_dim": 7, "rotary_dim": 61}, f)
try:
    p = subprocess.run([EXE, "model", "hf:" + path], capture_output=True, text=True, timeout=30)
    ok(p.returncode == 1 and p.stderr.startswith("posenc: error: ") and
       "rotary_dim: 61 is wider than the head width 7" in p.stderr,
       "rotary_dim 61 of head_dim 7: an error at once", p.stderr)
except subprocess.TimeoutExpired:
    ok(False, "rotary_dim 61 of head_dim 7: an error at once", "hung for 30 s")
bad("gptj-class-rotary-wide", {"model_type": "gptj", "n_embd": 49, "n_head": 1},
    "the class default 64 is wider than the head width 49")
# rotary_dim 26 of head_dim 45: (26/45)*45 truncates to 25; the fraction written must give 26
path = os.path.join(TMP, "rotary-dim-26-45.json")
with open(path, "w") as f:
    json.dump({"model_type": "gptj", "head_dim": 45, "rotary_dim": 26}, f)
r, s = summary("hf:" + path)
ok(r.rc == 0 and s.get("all", {}).get("rotary_dim") == "26",
   "rotary_dim 26 of head_dim 45: 26 rotated dimensions", f"{r.err} {s.get('all')}")
# Layer types that read alike once made safe for labels ("a attention", "a_attention"): two
# groups of one name, and --layer NAME reached only the first. The second is "a_attention-2".
path = os.path.join(TMP, "alike-types.json")
with open(path, "w") as f:
    json.dump({"model_type": "llama", "head_dim": 8, "num_hidden_layers": 2,
               "layer_types": ["a attention", "a_attention"],
               "rope_parameters": {"a attention": {"rope_theta": 100.0},
                                   "a_attention": {"rope_theta": 200.0}}}, f)
r, s = summary("hf:" + path)
ok(r.rc == 0 and s.get("a_attention", {}).get("base") == "100" and
   s.get("a_attention-2", {}).get("base") == "200",
   "layer types alike after sanitising: groups a_attention and a_attention-2", f"{r.err} {s}")
for layer, base in (("a_attention", 100.0), ("a_attention-2", 200.0), ("1", 200.0)):
    r, theta, _ = freqs("hf:" + path, "--layer", layer)
    want = [base ** (-2.0 * i / 8) for i in range(4)]
    ok(r.rc == 0 and theta is not None and rel_ok([float(t) for t in theta], want),
       f"--layer {layer}: the group at base {base:g} (theta_i = base^(-2i/8))", r.err)
bad("short-list", dict(llama, rope_scaling={"type": "longrope", "long_factor": [1.0],
                                            "short_factor": [1.0]},
                       original_max_position_embeddings=2048), "long_factor: has 1 numbers")
error_case(EXE, "missing file", ["freqs", "-s", "hf:/nonexistent/config.json"], 1, "cannot open")
error_case(EXE, "unknown preset", ["freqs", "-s", "model:llama-9"], 2, "unknown model 'llama-9'")
error_case(EXE, "bad layer", ["freqs", "-s", "model:gemma-3-27b", "--layer", "middle"], 2,
           "'middle'")
r = run(EXE, "freqs", "-q", "-s", "model:gemma-3-27b", "--layer", "5", "-o", "-")
r2 = run(EXE, "freqs", "-q", "-s", "model:gemma-3-27b", "--layer", "global", "-o", "-")
ok(r.rc == 0 and r.out == r2.out, "--layer 5 is Gemma 3's first global layer")
r, s = summary("model:llama-3.1-8b,scaling=none")
ok(r.rc == 0 and s["all"]["scaling"] == "none" and s["all"]["base"] == "500000",
   "spec keys override a model's (scaling=none drops its scaling keys)", r.err)
r, s = summary("model:llama-3.1-8b,base=10000")
ok(r.rc == 0 and s["all"]["base"] == "10000" and s["all"]["scaling"] == "llama3",
   "spec keys override a model's (base=10000)", r.err)
r = run(EXE, "compare", "-q", "-s", "model:llama-3.1-8b", "--base", "10000,500000", "-o",
        os.path.join(TMP, "bases.csv"))
with open(os.path.join(TMP, "bases.csv")) as f:
    labels = [line.split(",")[0] for line in f.readlines()[1:]]
ok(r.rc == 0 and labels == ["llama-3.1-8b base=10000", "llama-3.1-8b base=500000"],
   "--base crosses a model spec, labels name the base", labels)
r = run(EXE, "compare", "-s", "model:llama-3.1-8b", "-s", "model:qwen2.5-7b", "-o",
        os.path.join(TMP, "cmp.png"))
ok(r.rc == 0, "compare two models", r.err)
r = run(EXE, "help", "models")
ok(r.rc == 0 and all(n in r.text for n in ROPE + ["bloom", "t5-base", "gpt2"]),
   "help models lists every preset")


# ---- both config layouts and the other keys -----------------------------------------
def write(name, doc):
    path = os.path.join(TMP, name + ".json")
    with open(path, "w") as f:
        json.dump(doc, f)
    return "hf:" + path


with open(os.path.join(CONFIGS, "llama-3.1-8b.json")) as f:
    l31 = json.load(f)
new = {k: v for k, v in l31.items() if k not in ("rope_scaling", "rope_theta")}
new["rope_parameters"] = dict(l31["rope_scaling"], rope_theta=500000.0)
r1, s1 = summary("model:llama-3.1-8b")
r2, s2 = summary(write("l31-new", new))
ok(r2.rc == 0 and s1["all"] == s2["all"],
   "rope_parameters with rope_theta inside equals the older rope_theta + rope_scaling", r2.err)
no_theta = {k: v for k, v in new.items()}
no_theta["rope_parameters"] = dict(l31["rope_scaling"])
r3, s3 = summary(write("l31-no-theta", no_theta))
ok(r3.rc == 0 and s3["all"]["base"] == "10000", "no rope_theta anywhere: the reference's 10000")

with open(os.path.join(CONFIGS, "gemma-3-27b.json")) as f:
    g3 = json.load(f)
tc = dict(g3["text_config"])
tc["layer_types"] = ["full_attention" if (i + 1) % 6 == 0 else "sliding_attention"
                     for i in range(62)]
tc["rope_parameters"] = {"full_attention": {"rope_type": "linear", "factor": 8.0,
                                            "rope_theta": 1000000.0},
                         "sliding_attention": {"rope_type": "default", "rope_theta": 10000.0}}
for k in ("rope_scaling", "rope_theta", "rope_local_base_freq", "sliding_window_pattern"):
    tc.pop(k)
r4, s4 = summary(write("gemma3-new", dict(g3, text_config=tc)))
r5, s5 = summary("model:gemma-3-27b")
ok(r4.rc == 0 and s4.get("local") == s5.get("local") and s4.get("global") == s5.get("global"),
   "Gemma 3 rope_parameters keyed per layer type equals rope_local_base_freq + pattern", r4.err)

smol = {"model_type": "smollm3", "hidden_size": 2048, "num_attention_heads": 16,
        "num_hidden_layers": 8, "max_position_embeddings": 65536, "rope_theta": 5000000.0,
        "no_rope_layer_interval": 4}
r6, s6 = summary(write("smollm3", smol))
ok(r6.rc == 0 and s6.get("nope", {}).get("layers") == "3,7" and
   s6.get("rope", {}).get("layers") == "0-2,4-6",
   "SmolLM3: every 4th layer without RoPE (no_rope_layer_interval)", s6)
smol2 = dict(smol, no_rope_layers=[1, 1, 0, 1, 1, 1, 1, 0])
smol2.pop("no_rope_layer_interval")
r7, s7 = summary(write("smollm3-list", smol2))
ok(s7.get("nope", {}).get("layers") == "2,7", "no_rope_layers: 0 marks a layer without RoPE", s7)
r = run(EXE, "encode", "-q", "-s", write("smollm3b", smol), "--layer", "nope", "-n", "4", "-o", "-")
ok(r.rc == 0 and all(float(x) == 0 for line in r.text.splitlines()[1:] for x in line.split(",")[1:])
   and len(r.text.splitlines()) == 5, "SmolLM3 --layer nope: the nope scheme, all zeros", r.err)
# the groups with a positional encoding, as --layer's help says; the NoPE
# layers are in `posenc layers`, or with --layer nope
r = run(EXE, "compare", "-s", write("smollm3c", smol), "-o", os.path.join(TMP, "smol.csv"))
with open(os.path.join(TMP, "smol.csv")) as f:
    labels = [line.split(",")[0] for line in f.readlines()[1:]]
ok(r.rc == 0 and labels == ["smollm3c rope"] and "2 layer groups; showing 'rope'" in r.err,
   "compare of a model with NoPE layers shows its RoPE group and says so", (labels, r.err))

phi2 = {"model_type": "phi", "hidden_size": 2560, "num_attention_heads": 32,
        "partial_rotary_factor": 0.4, "rope_theta": 10000.0, "max_position_embeddings": 2048}
r8, s8 = summary(write("phi2", phi2))
ok(s8["all"]["rotary_dim"] == "32", "partial_rotary_factor 0.4 of 80 = 32 (int())", s8)
gptj = {"model_type": "gptj", "n_embd": 4096, "n_head": 16, "rotary_dim": 64,
        "n_positions": 2048}
r9, s9 = summary(write("gptj", gptj))
ok(s9["all"]["rotary_dim"] == "64" and s9["all"]["layout"] == "interleaved",
   "GPT-J: rotary_dim 64 of 256, interleaved pairs", s9)
mpt = {"model_type": "mpt", "d_model": 4096, "n_heads": 32, "n_layers": 32,
       "attn_config": {"alibi": True, "alibi_bias_max": 8}}
r10, s10 = summary(write("mpt", mpt))
ok(s10.get("all", {}).get("heads") == "32", "MPT: attn_config.alibi with 32 heads", s10)
falcon = {"model_type": "falcon", "hidden_size": 4544, "num_attention_heads": 71,
          "alibi": False, "max_position_embeddings": 2048, "rope_theta": 10000.0}
r11, s11 = summary(write("falcon", falcon))
ok(s11.get("all", {}).get("rotary_dim") == "64", "Falcon 7B: RoPE on 4544/71 = 64", s11)
r12 = run(EXE, "model", write("fac", dict(llama, rope_scaling={"type": "linear", "factor": 0.5})))
ok(r12.rc == 0 and "warning" in r12.err and "below 1" in r12.err,
   "factor below 1: accepted with the reference's warning", r12.err)
r13, s13 = summary(write("beta", dict(llama, rope_scaling={"type": "yarn", "factor": 4.0,
                                                            "beta_fast": 8, "beta_slow": 8})))
ok(r13.rc == 0 and "yarn_low" in s13.get("all", {}), "yarn beta_fast == beta_slow is computed",
   r13.err)

# T5 with an odd bucket count: the reference halves it with integer division
# (33 -> 16 per direction, 8 exact); offsets -1, 7, 8, 200 fall in buckets 1, 16+7, 16+8, 31.
def t5_bucket(rel, buckets=33, max_distance=128):
    n = buckets // 2
    base = n if rel > 0 else 0
    a = abs(rel)
    exact = n // 2
    if a < exact:
        return base + a
    import struct as _s
    f = lambda x: _s.unpack("<f", _s.pack("<f", x))[0]  # torch computes in float32
    v = f(f(math.log(f(a / exact))) / f(math.log(max_distance / exact)))
    v = f(v * (n - exact))
    return base + min(exact + int(v), n - 1)


r = run(EXE, "bias", "-q", "-s", "t5:buckets=33", "-n", "12", "-o", os.path.join(TMP, "t5.csv"))
with open(os.path.join(TMP, "t5.csv")) as f:
    rows = [[float(x) for x in line.split(",")[1:]] for line in f.readlines()[1:]]
ok(r.rc == 0 and all(rows[i][j] == t5_bucket(j - i) for i in range(12) for j in range(12)),
   "t5 with 33 buckets (odd, bidirectional) is computed as the reference does", r.err)

# ---- M-RoPE -------------------------------------------------------------------------
def mrope_ref(n, d, base, sections, grid=None, interleaved=False):
    """Qwen2-VL: cos/sin of each axis' positions, pair i taking the axis of its section
    (apply_multimodal_rotary_pos_emb), rotate_half pairing; the all-ones vector rotated."""
    h = d // 2
    theta = [1.0 / base ** (k / d) for k in range(0, d, 2)]
    t, hh, w = sections
    rows = []
    for q in range(n):
        pos = (q, q, q) if grid is None else (q // (grid[1] * grid[2]), q // grid[2] % grid[1],
                                              q % grid[2])
        row = [0.0] * d
        for i in range(h):
            if interleaved:
                ax = 1 if i % 3 == 1 and i < 3 * hh else 2 if i % 3 == 2 and i < 3 * w else 0
            else:
                ax = 0 if i < t else 1 if i < t + hh else 2
            a = pos[ax] * theta[i]
            row[i], row[i + h] = math.cos(a) - math.sin(a), math.sin(a) + math.cos(a)
        rows.append(row)
    return rows


def encode_rows(spec, n, d):
    r = run(EXE, "encode", "-q", "-s", spec, "-n", str(n), "-d", str(d), "-o", "-")
    return r, [[float(x) for x in line.split(",")[1:]] for line in r.text.splitlines()[1:]]


for grid, inter in ((None, False), ((2, 3, 4), False), ((2, 3, 4), True)):
    spec = "mrope:base=1000000,t=16,h=24,w=24"
    if grid:
        spec += ",frames=%d,height=%d,width=%d" % grid
    if inter:
        spec += ",interleaved=1"
    r, got = encode_rows(spec, 24, 128)
    want = mrope_ref(24, 128, 1e6, (16, 24, 24), grid, inter)
    worst_abs = max((abs(a - b) for ga, wa in zip(got, want) for a, b in zip(ga, wa)), default=1)
    ok(r.rc == 0 and len(got) == 24 and worst_abs <= 1e-14,
       f"mrope {spec}: per-axis rotations as Qwen2-VL applies them", f"{r.err} {worst_abs}")
r1, a = encode_rows("mrope:base=1000000", 40, 128)
r2, b = encode_rows("rope:base=1000000,layout=half", 40, 128)
ok(a == b and r1.rc == 0, "mrope on text positions is exactly plain RoPE (half pairing)")
error_case(EXE, "mrope sections must fill d/2", ["encode", "-s", "mrope:t=8", "-d", "128"], 2,
           "t + h + w")
error_case(EXE, "mrope grid needs all three", ["encode", "-s", "mrope:height=4", "-d", "128"], 2,
           "frames")

r = run(EXE, "model", "model:phi-3-mini-128k", "--config", "c.json", cwd=TMP)
with open(os.path.join(CONFIGS, "phi-3-mini-128k.json")) as f, open(os.path.join(TMP, "c.json")) as g:
    ok(r.rc == 0 and f.read() == g.read(), "model --config writes the preset's fixture config", r.err)
error_case(EXE, "--config of a non-preset", ["model", "rope", "--config", "x.json"], 2, "--config")

# ---- the preset table is generated from these fixtures -------------------------------
gen = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "gen_model_presets.py"), ROOT],
                     capture_output=True, text=True)
with open(os.path.join(ROOT, "lib", "model", "presets.h")) as f:
    ok(gen.returncode == 0 and gen.stdout == f.read(),
       "lib/model/presets.h is tools/gen_model_presets.py of the fixtures")
# A newcomer finds model specs from the help alone: hf:, gguf: and model: are named there.
for args in (["help"], ["help", "schemes"]):
    r = run(EXE, *args)
    ok(r.rc == 0 and all(k in r.text for k in ("hf:config.json", "gguf:FILE", "model:NAME")),
       "posenc %s names hf:, gguf: and model: specs" % " ".join(args), r.text[-400:])
done()
