#!/usr/bin/env python3
"""The config.json reader as transformers reads a config: class defaults of each architecture,
attribute_map aliases, text_config wrappers, unknown model_type values, learned tables with
their offsets, MPT's ALiBi slopes, refusals that say why, unknown rope keys, the YaRN factor
that differs between releases, and the attention facts of `posenc model`. Published configs
are in tests/fixtures/hf (SOURCES.md); the expected numbers are restated here with numpy from
transformers' configuration classes, modeling files and modeling_rope_utils.py."""
import csv
import io
import json
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from tap import done, ok, run, workdir  # noqa: E402

EXE = os.path.abspath(sys.argv[1])
HERE = os.path.dirname(os.path.abspath(__file__))
FIX = os.path.join(os.path.dirname(HERE), "fixtures", "hf")
TMP = workdir()
REL = 1e-15


def fix(name):
    return "hf:" + os.path.join(FIX, name + ".json")


def write(name, doc):
    path = os.path.join(TMP, name + ".json")
    with open(path, "w") as f:
        json.dump(doc, f)
    return "hf:" + path


def summary(spec):
    r = run(EXE, "model", spec, "-o", "-")
    out = {}
    for row in list(csv.reader(io.StringIO(r.text)))[1:]:
        out.setdefault(row[0], {})[row[1]] = row[2]
    return r, out


def freqs(spec, group, column):
    """A column of freqs' long table: "theta", or "NAME_theta" for the scaled frequencies
    of scaling NAME (its rows' scaled_theta)."""
    r = run(EXE, "freqs", "-q", "-s", spec, "--layer", group, "--table", "long", "-o", "-")
    rows = list(csv.DictReader(io.StringIO(r.text)))
    if r.rc or not rows:
        return None
    if column == "theta":
        first = rows[0]["scaling"]
        return np.array([float(x["theta"]) for x in rows if x["scaling"] == first])
    got = [float(x["scaled_theta"]) for x in rows if x["scaling"] + "_theta" == column]
    return np.array(got) if got else None


def inv_freq(base, dim):
    """_compute_default_rope_parameters in float64."""
    return 1.0 / (base ** (np.arange(0, dim, 2, dtype=np.int64).astype(np.float64) / dim))


def close(got, want):
    if got is None or got.shape != np.shape(want):
        return False
    want = np.asarray(want)
    return bool(np.all(np.abs(got - want) <= REL * np.abs(want)))


def layers(text):
    out = []
    for part in filter(None, text.split(",")):
        a, _, b = part.partition("-")
        out += list(range(int(a), int(b or a) + 1))
    return out


# ---- class defaults: Gemma 3 (Gemma3TextConfig) -------------------------------------
# gemma-3-27b-it's text_config has no rope_theta, rope_local_base_freq or
# sliding_window_pattern: the class gives 1e6, 1e4 and 6, so layer i is global when
# (i + 1) % 6 == 0 (10 of 62), and only the global layers take the linear x8 scaling.
r, s = summary(fix("gemma-3-27b-it"))
glob = [i for i in range(62) if (i + 1) % 6 == 0]
loc = [i for i in range(62) if (i + 1) % 6]
ok(r.rc == 0 and layers(s.get("global", {}).get("layers", "")) == glob and layers(s.get("local", {}).get("layers", "")) == loc,
   "Gemma 3 27B: 10 global and 52 local layers from the class default pattern 6", r.err + r.text)
ok(close(freqs(fix("gemma-3-27b-it"), "global", "linear_theta"), inv_freq(1e6, 128) / 8),
   "Gemma 3 27B global layers: base 1e6 (class default), linear x8")
ok(close(freqs(fix("gemma-3-27b-it"), "local", "theta"), inv_freq(1e4, 128)),
   "Gemma 3 27B local layers: rope_local_base_freq 1e4 (class default), unscaled")
ok(s.get("local", {}).get("scaling") == "none", "Gemma 3 local layers carry no scaling", s.get("local"))
ok(float(s.get("model", {}).get("softmax_scale", "nan")) == 1 / math.sqrt(168) and
   s.get("model", {}).get("sliding_window") == "1024",
   "Gemma 3: query_pre_attn_scalar 168 gives the softmax scale; sliding_window 1024",
   s.get("model"))
# gemma-3-4b-it has no num_attention_heads and no head_dim: the class's head_dim 256.
r, s = summary(fix("gemma-3-4b-it"))
ok(r.rc == 0 and s.get("global", {}).get("head_dim") == "256" and
   len(layers(s.get("global", {}).get("layers", ""))) == 5,
   "Gemma 3 4B: no num_attention_heads, the class's head_dim 256; 5 global layers", r.err)

# ---- attribute_map aliases: n_layer (GPT-J), Falcon's n_head / n_layer -------------------
r, s = summary(fix("gpt-jt-6b"))
ok(r.rc == 0 and s.get("model", {}).get("layers") == "28" and s.get("all", {}).get("rotary_dim", "") == "64" and
   s.get("all", {}).get("layout", "") == "interleaved", "GPT-J: n_layer 28 through attribute_map", s)
r, s = summary(fix("falcon-7b-sharded-legacy-names"))
ok(r.rc == 0 and s.get("model", {}).get("layers") == "32" and s.get("all", {}).get("head_dim", "") == "64",
   "Falcon with n_head / n_layer: 32 layers, heads 4544 // 71 = 64", s)

# rotary_dim is a width: 26 of a 45-wide head is 26 pairs' worth, though 26 / 45 * 45 < 26
r, s = summary(write("codegen", {"model_type": "codegen", "n_embd": 720, "n_head": 16,
                                 "rotary_dim": 26, "n_layer": 2, "n_positions": 2048}))
ok(r.rc == 0 and s.get("all", {}).get("rotary_dim", "") == "26" and
   close(freqs(write("codegen2", {"model_type": "codegen", "n_embd": 720, "n_head": 16,
                                  "rotary_dim": 26}), "all", "theta"), inv_freq(10000.0, 26)),
   "rotary_dim 26 of head_dim 45: exactly 26 rotated dimensions", r.err + r.text)

# ---- GPT-NeoX: rotary_emb_base is the base, rope_theta is not read ------------------------
with open(os.path.join(FIX, "dolly-v2-12b.json")) as f:
    dolly = json.load(f)
spec = write("neox-theta", dict(dolly, rope_theta=500.0))
ok(close(freqs(spec, "all", "theta"), inv_freq(10000.0, 32)),
   "GPT-NeoX: base from rotary_emb_base (10000), not rope_theta (500); rotary_pct 0.25 of 128")

# ---- unknown rope keys warn, key paths are complete ---------------------------------------
r = run(EXE, "model", fix("chinese-alpaca-2-7b-64k"))
ok(r.rc == 0 and "rope_scaling.finetuned: unknown key" in r.err and r.err.count("finetuned") == 1,
   "an unknown rope key warns once with its full path, as the reference warns", r.err)
r = run(EXE, "model", write("linear-orig", {"model_type": "llama", "hidden_size": 256,
                                           "num_attention_heads": 4, "rope_scaling": {
                                               "type": "linear", "factor": 2.0,
                                               "low_freq_factor": 1.0}}))
ok(r.rc == 0 and "rope_scaling.low_freq_factor: not read by rope_type 'linear'" in r.err,
   "a key another rope type reads warns, as the reference's validation does", r.err)
llama = {"model_type": "llama", "hidden_size": 256, "num_attention_heads": 4,
         "num_hidden_layers": 2, "max_position_embeddings": 4096,
         "layer_types": ["full_attention", "sliding_attention"],
         "rope_parameters": {"full_attention": {"rope_type": "linear", "factor": 2.0},
                             "sliding_attention": {"rope_type": "linear"}}}
r = run(EXE, "model", write("path", llama))
ok(r.rc == 1 and "rope_parameters.sliding_attention: rope_type 'linear' needs 'factor'" in r.err,
   "an error in a per-layer-type block names the whole path", r.err)

# ---- an unknown model_type with ordinary keys ----------------------------------------------
unk = {"model_type": "brandnew", "hidden_size": 2048, "num_attention_heads": 16,
       "num_hidden_layers": 4, "max_position_embeddings": 8192, "partial_rotary_factor": 0.5,
       "rope_theta": 50000.0}
r, s = summary(write("unknown", unk))
ok(r.rc == 0 and r.err.count("warning") == 1 and "'brandnew'" in r.err and
   "rotate_half" in r.err and s.get("all", {}).get("layout", "") == "half" and s.get("all", {}).get("rotary_dim", "") == "64",
   "unknown model_type: read as the default rotary code (half pairing, partial 0.5 of 128) "
   "with one warning", r.err)
ok(close(freqs(write("unknown2", unk), "all", "theta"), inv_freq(50000.0, 64)),
   "unknown model_type: every frequency as _compute_default_rope_parameters")

r, s = summary(write("newbert", {"model_type": "newbert", "position_embedding_type": "absolute",
                                 "max_position_embeddings": 512, "hidden_size": 256}))
ok(r.rc == 0 and s.get("model", {}).get("table_rows", "") == "512" and "warning" in r.err and
   "(null)" not in r.text, "unknown model_type with an absolute table: its shape, a warning",
   r.err + r.text)

# ---- published configs the measuring set did not have (SOURCES.md, aiconfigurator copies) ---
# Llama 4 Scout: llama3 with low_freq_factor == high_freq_factor == 1. transformers'
# _validate_llama3_parameters only warns; _compute_llama3_parameters then divides every
# wavelength above original / low by the factor and smooths none (the band is empty).
r, s = summary(fix("llama-4-scout-17b-16e-instruct"))
inv = inv_freq(500000.0, 128)
want = np.where(2 * math.pi / inv > 8192.0, inv / 16.0, inv)
ok(r.rc == 0 and "high_freq_factor 1 is not above low_freq_factor 1" in r.err and
   s.get("model", {}).get("nope_layers", "") == ",".join(str(i) for i in range(3, 48, 4)) and
   close(freqs(fix("llama-4-scout-17b-16e-instruct"), "rope", "llama3_theta"), want) and
   int(np.sum(want != inv)) == 29,
   "Llama 4 Scout: llama3 with high == low is computed as transformers does, with a warning",
   (r.err, s))
# Qwen 3.5: partial_rotary_factor 0.25 and mrope_section 11/11/10 only inside rope_parameters;
# the sections count the rotated pairs (int(256 * 0.25) / 2 = 32), as
# apply_multimodal_rotary_pos_emb splits them
r, s = summary(fix("qwen3.5-27b"))
ok(r.rc == 0 and s.get("rope", {}).get("rotary_dim", "") == "64" and
   s.get("rope", {}).get("layers", "") == ",".join(str(i) for i in range(3, 64, 4)) and
   close(freqs(fix("qwen3.5-27b"), "rope", "theta"), inv_freq(1e7, 64)),
   "Qwen 3.5: rotary 64 of 256 from the block, M-RoPE sections of 32 pairs, 1 layer in 4",
   (r.err, s))
q35 = json.load(open(os.path.join(FIX, "qwen3.5-27b.json")))
del q35["text_config"]["rope_parameters"]["partial_rotary_factor"]
r, s = summary(write("q35_default", q35))
ok(r.rc == 0 and s.get("rope", {}).get("rotary_dim", "") == "64",
   "Qwen 3.5: partial_rotary_factor 0.25 is the class's default (Qwen3_5TextConfig)", (r.err, s))
q35["text_config"]["rope_parameters"]["mrope_section"] = [16, 16, 32]
r = run(EXE, "model", write("q35_bad", q35), "-o", "-")
ok(r.rc == 1 and "16 + 16 + 32 pairs is not the 32 rotary pairs" in r.err,
   "Qwen 3.5: sections that do not add up to the rotated pairs are refused", r.err)
# DeepSeek-V3.2 and GLM-5: DeepseekV32Attention / GlmMoeDsaAttention always call
# apply_rotary_pos_emb_interleave; their configuration classes drop rope_interleave.
for name, base in (("deepseek-v3.2", None), ("glm-5", 1e6)):
    r, s = summary(fix(name))
    g = s.get("all", {})
    ok(r.rc == 0 and g.get("layout", "") == "interleaved" and g.get("rotary_dim", "") == "64" and
       (base is None or close(freqs(fix(name), "all", "theta"), inv_freq(base, 64))),
       name + ": MLA RoPE pairs 2i, 2i+1 on qk_rope_head_dim", (r.err, s))
ds = json.load(open(os.path.join(FIX, "deepseek-v3.2.json")))
ds["rope_interleave"] = False
r, s = summary(write("dsv32_flag", ds))
ok(r.rc == 0 and s.get("all", {}).get("layout", "") == "interleaved",
   "DeepSeek-V3.2: rope_interleave is not read (DeepseekV32Config drops it)", s)
lite = {"model_type": "glm4_moe_lite", "kv_lora_rank": 512, "qk_rope_head_dim": 64,
        "num_hidden_layers": 2}
r, s = summary(write("lite", lite))
lite["rope_interleave"] = False
r2, s2 = summary(write("lite_half", lite))
ok(r.rc == 0 and s.get("all", {}).get("layout", "") == "interleaved" and
   s.get("all", {}).get("base", "") == "10000" and
   s2.get("all", {}).get("layout", "") == "half",
   "GLM-4.7-Flash (glm4_moe_lite): DeepseekV3Attention, rope_interleave default true", (s, s2))
# Kimi K2: model_type kimi_k2 is DeepSeek-V3's remote code (auto_map); an unknown type with
# multi-head latent attention keys pairs 2i, 2i+1 and says what it assumed
r, s = summary(fix("kimi-k2-instruct"))
g = s.get("all", {})
ok(r.rc == 0 and g.get("layout", "") == "interleaved" and "latent attention" in r.err and
   "yarn" in g.get("spec", "") and "beta-fast=1 " in g.get("spec", "") + " ",
   "Kimi K2 (unknown MLA model_type): interleaved, its yarn block, a warning", (r.err, s))
mla = {"model_type": "my_mla", "kv_lora_rank": 64, "qk_rope_head_dim": 32,
       "num_hidden_layers": 1, "rope_interleave": False}
r, s = summary(write("mla_half", mla))
plain = {"model_type": "my_plain", "hidden_size": 256, "num_attention_heads": 4,
         "num_hidden_layers": 1}
r2, s2 = summary(write("plain", plain))
ok(s.get("all", {}).get("layout", "") == "half" and s2.get("all", {}).get("layout", "") == "half"
   and "latent" not in r2.err,
   "unknown types: MLA with rope_interleave false is half; without MLA keys, rotate_half",
   (s, s2, r2.err))
# Nemotron-H: NemotronHAttention is Jamba's (no RoPE); its config holds Infinity, which
# Python's json reads
r = run(EXE, "model", fix("nemotron-3-super-120b-a12b-fp8"), "-o", "-")
ok(r.rc == 1 and r.err.count("\n") == 1 and "nemotron_h" in r.err and
   "no positional encoding" in r.err and "JSON" not in r.err,
   "Nemotron-H: read (Infinity included), refused: its attention has no positional encoding",
   r.err)
for lit in ("Infinity", "-Infinity", "NaN"):
    path = os.path.join(TMP, "lit.json")
    with open(path, "w") as f:
        f.write('{"model_type": "llama", "num_hidden_layers": 1, "rope_theta": %s}' % lit)
    r = run(EXE, "model", "hf:" + path, "-o", "-")
    ok(r.rc == 1 and "rope_theta: is not a finite number" in r.err and
       r.err.count("\n") == 1, "rope_theta: %s is read as JSON and refused" % lit, r.err)

# a head wider than a rope spec takes (2^24) is refused before its tables are made (2^31 took
# 58 s and 17 GB)
for key, width in (("head_dim", 2 ** 31), ("head_dim", 2 ** 24 + 2)):
    r = run(EXE, "model", write("wide", {"model_type": "llama", "num_hidden_layers": 1,
                                          key: width}), "-o", "-")
    ok(r.rc == 1 and "wider than the 16777216 dimensions" in r.err and r.err.count("\n") == 1,
       "head_dim %d refused at once" % width, r.err)

# max_position_embeddings the reference keeps as any int, but not a context length
for v in (0, -1, 1e30):
    r, s = summary(write("maxpos", {"model_type": "llama", "num_hidden_layers": 1,
                                    "max_position_embeddings": v}))
    ok(r.rc == 0 and "is not a context length; ignored" in r.err and
       s.get("model", {}).get("context", "0") in ("0", ""), "max_position_embeddings %g: ignored,"
       " said" % v, (r.err, s.get("model")))

# ---- refusals that say why -----------------------------------------------------------------
r = run(EXE, "model", fix("mamba-130m-base-voidful"))
ok(r.rc == 1 and "no positional encoding" in r.err and "state-space" in r.err,
   "Mamba: refused because it has no positional encoding", r.err)
r = run(EXE, "model", fix("mdeberta-v3-base-qa-case2"))
ok(r.rc == 1 and "relative scheme posenc does not have" in r.err and "DeBERTa" in r.err,
   "DeBERTa: refused as a relative scheme posenc lacks", r.err)

g4 = {"model_type": "granitemoehybrid", "hidden_size": 1536, "num_attention_heads": 12,
      "num_hidden_layers": 4, "layer_types": ["mamba", "attention", "mamba", "mamba"],
      "position_embedding_type": "nope"}
r = run(EXE, "model", write("granite4", g4))
ok(r.rc == 1 and "no layer has a positional encoding" in r.err,
   "Granite 4 (position_embedding_type nope): refused, no layer rotates", r.err)
r, s = summary(write("granite4r", dict(g4, position_embedding_type="rope")))
ok(r.rc == 0 and s.get("rope", {}).get("layers", "") == "1" and
   s.get("nope", {}).get("layers", "") == "0,2-3",
   "a hybrid's mamba layers carry no positional encoding", r.err + r.text)

# ---- learned tables with their offsets -----------------------------------------------------
r, s = summary(fix("opt-350m-chat"))
ok(s.get("model", {}).get("table_rows") == "2050" and s.get("model", {}).get("position_offset") == "2" and
   s.get("model", {}).get("context") == "2048",
   "OPT: nn.Embedding(max_position_embeddings + 2), positions from row 2", s.get("model"))
r, s = summary(fix("roberta-base"))
ok(s.get("model", {}).get("table_rows") == "514" and s.get("model", {}).get("position_offset") == "2" and
   s.get("model", {}).get("context") == "512",
   "RoBERTa: 514 rows, positions from padding_idx + 1 = 2, 512 usable", s.get("model"))
r, s = summary(fix("albert-xxlarge-v2"))
ok(s.get("model", {}).get("table_cols") == "128", "ALBERT: the table is embedding_size wide", s)
wh = {"model_type": "whisper", "d_model": 512, "max_source_positions": 1500,
      "max_target_positions": 448, "encoder_layers": 6, "decoder_layers": 6}
r, s = summary(write("whisper", wh))
ok(r.rc == 0 and s.get("model", {}).get("table_rows") == "448" and s.get("model", {}).get("table_cols") == "512"
   and "sinusoidal" in s.get("encoder", {}).get("spec", ""),
   "Whisper: learned decoder 448 x 512, sinusoidal encoder group", r.err + r.text)
r = run(EXE, "encode", "-q", "-s", write("whisper2", wh), "--layer", "encoder", "-n", "3",
        "-d", "8", "-o", "-")
# sinusoids(): [sin | cos] of t * exp(-k log(10000) / (d/2 - 1))
inc = math.log(10000) / 3
want = [[math.sin(t * math.exp(-k * inc)) for k in range(4)] +
        [math.cos(t * math.exp(-k * inc)) for k in range(4)] for t in range(3)]
got = [[float(x) for x in line.split(",")[1:]] for line in r.text.splitlines()[1:]]
ok(r.rc == 0 and np.allclose(got, want, rtol=0, atol=1e-15),
   "Whisper's encoder group is its sinusoids() table", (r.err, got))

# ---- MPT's own ALiBi slopes (build_mpt_alibi_tensor) ---------------------------------------
def mpt_slopes(heads, bias_max=8.0):
    n2 = 2 ** math.ceil(math.log2(heads))
    m = 1.0 / np.power(2.0, np.arange(1, n2 + 1, dtype=np.float64) * (bias_max / n2))
    if n2 != heads:
        m = np.concatenate([m[1::2], m[::2]])[:heads]
    return m


def bias_slopes(spec):
    path = os.path.join(TMP, "b.npy")
    r = run(EXE, "bias", "-s", spec, "-n", "2", "-o", path)
    if r.rc:
        return None
    b = np.load(path)
    return np.abs(b[:, 1, 1] - b[:, 1, 0])


got = bias_slopes(fix("mpt-30b-chat"))
ok(close(got, mpt_slopes(64)), "MPT-30B: 64 slopes as build_mpt_alibi_tensor, to 1e-15",
   got)
r, s = summary(fix("mpt-30b-chat"))
ok(float(s.get("all", {}).get("slope_first", "")) == mpt_slopes(64)[0] and
   float(s.get("all", {}).get("slope_last", "")) == mpt_slopes(64)[-1],
   "posenc model and posenc bias agree on MPT's slopes", s.get("all"))
mpt = {"model_type": "mpt", "d_model": 768, "n_heads": 12, "n_layers": 2,
       "attn_config": {"alibi": True, "alibi_bias_max": 16}}
ok(close(bias_slopes(write("mpt12", mpt)), mpt_slopes(12, 16.0)),
   "MPT with 12 heads and alibi_bias_max 16: the odd slopes of 16 first, then the even")

# ---- the release difference of YaRN's factor --------------------------------------------
qwen = {"model_type": "qwen2", "hidden_size": 3584, "num_attention_heads": 28,
        "num_hidden_layers": 2, "max_position_embeddings": 32768, "rope_theta": 1e6,
        "rope_scaling": {"type": "yarn", "factor": 4.0,
                         "original_max_position_embeddings": 32768}}
r, s = summary(write("qwen-yarn", qwen))
ok(r.rc == 0 and "factor: 4" in r.err and "= 1 instead" in r.err and
   s.get("all", {}).get("factor") == "4" and s.get("model", {}).get("effective_context") == "131072" and
   s.get("model", {}).get("effective_context_older_releases") == "32768",
   "YaRN with original = max_position_embeddings: factor 4 (current release), a warning "
   "with the older releases' 1 and both contexts", r.err + r.text)
ok( "transformers" in s.get("model", {}).get("reference", ""),
   "posenc model names the reference revision", s.get("model"))
r, s = summary(write("qwen-yarn-ok", dict(qwen, max_position_embeddings=131072)))
ok(r.rc == 0 and "releases" not in r.err, "YaRN where both rules agree: no warning", r.err)

# ---- more architectures: defaults and modeling rules ----------------------------------------
r, s = summary(fix("modernbert-base"))
ok(r.rc == 0 and layers(s.get("global", {}).get("layers", "")) == list(range(0, 22, 3)) and
   close(freqs(fix("modernbert-base"), "global", "theta"), inv_freq(160000.0, 64)) and
   close(freqs(fix("modernbert-base"), "local", "theta"), inv_freq(10000.0, 64)),
   "ModernBERT: every 3rd layer global at global_rope_theta, the rest local at 10000", r.err)
r, s = summary(fix("glm4-v5-rope-parameters"))
ok(r.rc == 0 and s.get("all", {}).get("rotary_dim", "") == "64" and s.get("all", {}).get("layout", "") == "interleaved",
   "GLM-4: the class's partial_rotary_factor 0.5 of head_dim 128, interleaved pairs", s)
r, s = summary(fix("minitron-4b-base-rope-percent"))
ok(r.rc == 0 and s.get("all", {}).get("rotary_dim", "") == "64", "Nemotron: half of the 128-wide head", s)
cohere2 = {"model_type": "cohere2", "hidden_size": 1024, "num_attention_heads": 8,
           "num_hidden_layers": 8, "max_position_embeddings": 8192, "rope_theta": 50000.0,
           "sliding_window": 4096, "sliding_window_pattern": 4}
r, s = summary(write("cohere2", cohere2))
ok(r.rc == 0 and s.get("nope", {}).get("layers") == "3,7" and
   s.get("rope", {}).get("layout") == "interleaved" and
   s.get("model", {}).get("sliding_layers") == "0-2,4-6",
   "Cohere2: the full-attention layers 3, 7 without RoPE (Cohere2Attention)", s)
# Cohere2Attention: self.sliding_window = config.sliding_window in sliding layers, else None,
# and only a layer whose sliding_window is set rotates: none with "sliding_window": null or
# with every layer full. Exaone4Attention rotates where config.sliding_window is None or the
# layer slides; a missing sliding_window is the class's 4096 with its pattern 4.
for name, extra, want in (
        ("cohere2 window null", {"sliding_window": None}, None),
        ("cohere2 all full", {"layer_types": ["full_attention"] * 8}, None),
        ("exaone4 window null, all full", {"model_type": "exaone4", "sliding_window": None,
                                           "layer_types": ["full_attention"] * 8}, ""),
        ("exaone4 no window key", {"model_type": "exaone4", "sliding_window": "drop",
                                   "sliding_window_pattern": "drop"}, "3,7"),
        ("exaone4 window, all full", {"model_type": "exaone4",
                                      "layer_types": ["full_attention"] * 8}, None)):
    doc = dict(cohere2, **extra)
    for k in [k for k, v in doc.items() if v == "drop"]:
        del doc[k]
    r, s = summary(write("win", doc))
    if want is None:
        ok(r.rc == 1 and "no layer has a positional encoding" in r.err,
           name + ": no layer rotates, refused", (r.err, s))
    else:
        ok(r.rc == 0 and s.get("model", {}).get("nope_layers", "") == want,
           name + ": NoPE layers '%s'" % want, (r.err, s))
llava = {"model_type": "llava", "text_config": {"max_position_embeddings": 4096,
                                                "vocab_size": 32064}}
r, s = summary(write("llava", llava))
ok(r.rc == 0 and s.get("model", {}).get("model_type") == "llama" and s.get("all", {}).get("head_dim", "") == "128" and
   s.get("model", {}).get("layers") == "32" and "warning" not in r.err,
   "LLaVA: text_config without model_type is LlamaConfig with its defaults", r.err)
r, s = summary("model:deepseek-v3")
want = (0.1 * math.log(40) + 1) ** 2
ok(abs(float(s.get("model", {}).get("softmax_scale_factor", "nan")) - want) <= 1e-15 * want,
   "DeepSeek-V3: softmax scale x mscale(40, 1)^2 = 1.874", s.get("model"))
hy = {"model_type": "hunyuan_v1_dense", "hidden_size": 1024, "num_attention_heads": 8,
      "num_hidden_layers": 2, "max_position_embeddings": 32768, "rope_theta": 10000.0,
      "rope_scaling": {"type": "dynamic", "alpha": 1000.0, "factor": 1.0}}
ok(close(freqs(write("hunyuan", hy), "all", "theta"), inv_freq(10000.0 * 1000.0 ** (128 / 126),
                                                               128)),
   "HunYuan: dynamic with alpha is the fixed base rope_theta * alpha^(d/(d-2))")
l4 = {"model_type": "llama4", "text_config": {"model_type": "llama4_text", "hidden_size": 5120,
                                              "num_attention_heads": 40, "head_dim": 128,
                                              "num_hidden_layers": 8,
                                              "max_position_embeddings": 10485760}}
r, s = summary(write("llama4", l4))
ok(r.rc == 0 and s.get("nope", {}).get("layers") == "3,7" and
   "attn_scale=0.1" in s.get("model", {}).get("attn_temperature_tuning", "") and
   s.get("model", {}).get("attention_chunk_size") == "8192",
   "Llama 4: every 4th layer NoPE, temperature tuning and chunks from the class defaults", s)
l4["text_config"]["no_rope_layers"] = []  # as Llama-4-Scout's config.json has it
r, s = summary(write("llama4-empty", l4))
ok(r.rc == 0 and s.get("nope", {}).get("layers", "") == "3,7",
   "Llama 4: an empty no_rope_layers is the default schedule", r.err)

qn = {"model_type": "qwen3_next", "hidden_size": 2048, "num_attention_heads": 16,
      "head_dim": 256, "num_hidden_layers": 8, "full_attention_interval": 4}
r, s = summary(write("qwen3next", qn))
ok(r.rc == 0 and s.get("rope", {}).get("layers", "") == "3,7" and
   s.get("rope", {}).get("rotary_dim", "") == "64",
   "Qwen3-Next: every 4th layer full attention with RoPE (0.25 of 256), the rest linear", s)

# DistilBERT's sinusoidal_pos_embds: create_sinusoidal_embeddings, sin at even and cos at odd
# columns of pos / 10000^(2 (j // 2) / d)
db = {"model_type": "distilbert", "max_position_embeddings": 512, "dim": 8,
      "sinusoidal_pos_embds": True}
r = run(EXE, "encode", "-q", "-s", write("distil", db), "-n", "3", "-o", "-")
want = [[math.sin(p / 10000 ** (2 * (j // 2) / 8)) if j % 2 == 0 else
         math.cos(p / 10000 ** (2 * (j // 2) / 8)) for j in range(8)] for p in range(3)]
got = [[float(x) for x in line.split(",")[1:]] for line in r.text.splitlines()[1:]]
ok(r.rc == 0 and np.allclose(got, want, rtol=0, atol=1e-15),
   "DistilBERT with sinusoidal_pos_embds: its fixed sinusoids", (r.err, got))
esm = {"model_type": "esm", "hidden_size": 320, "num_attention_heads": 20,
       "num_hidden_layers": 6, "position_embedding_type": "rotary"}
ok(close(freqs(write("esm", esm), "all", "theta"), inv_freq(10000.0, 16)),
   "ESM-2: position_embedding_type rotary is the default rotary code")
r, s = summary(write("xlm", {"model_type": "xlm", "emb_dim": 1024,
                             "max_position_embeddings": 512}))
ok(s.get("model", {}).get("table_cols", "") == "1024", "XLM: the table is emb_dim wide", s)
olmo3 = {"model_type": "olmo3", "hidden_size": 1024, "num_attention_heads": 8,
         "num_hidden_layers": 8, "rope_theta": 500000.0, "max_position_embeddings": 65536,
         "sliding_window": 4096,
         "rope_scaling": {"rope_type": "linear", "factor": 8.0}}
r, s = summary(write("olmo3", olmo3))
ok(r.rc == 0 and s.get("global", {}).get("layers", "") == "3,7" and
   s.get("local", {}).get("scaling", "") == "none" and
   close(freqs(write("olmo3b", olmo3), "global", "linear_theta"), inv_freq(5e5, 128) / 8),
   "Olmo 3: every 4th layer full with the rope block, sliding layers unscaled", s)
mm = {"model_type": "minimax", "hidden_size": 1024, "num_attention_heads": 8, "head_dim": 128,
      "rotary_dim": 64, "num_hidden_layers": 4, "attn_type_list": [0, 1, 0, 1]}
r, s = summary(write("minimax", mm))
ok(r.rc == 0 and s.get("rope", {}).get("layers", "") == "1,3" and
   s.get("rope", {}).get("rotary_dim", "") == "64",
   "MiniMax: lightning-attention layers without RoPE, rotary_dim 64 of 128", s)

done()
