#!/usr/bin/env python3
"""The config.json reader as transformers reads a config: class defaults of each architecture,
attribute_map aliases, text_config wrappers, unknown model_type values, learned tables with
their offsets, MPT's ALiBi slopes, refusals that say why, unknown rope keys, the YaRN factor
that differs between releases, and the attention facts of `posenc model`. Published configs
are in tests/fixtures/hf (SOURCES.md); the expected numbers are restated here with numpy from
transformers' configuration classes, modeling files and modeling_rope_utils.py."""
import json
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from tap import done, ok, run  # noqa: E402
from hf_harness import (FIX, bias_slopes, close, fix, freqs, inv_freq, layers, llama3, load,  # noqa: E402
                        press_slopes, setup, summary, write)

EXE, TMP = setup(sys.argv[1])


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

# ---- the sweep of transformers' model types (commit 008e574) --------------------------------
def table(spec, n, extra=()):
    """posenc encode's rows (position, then one value per column)."""
    r = run(EXE, "encode", "-q", "-s", spec, "-n", str(n), *extra, "-o", "-")
    if r.rc:
        return None, r
    return np.array([[float(x) for x in line.split(",")[1:]]
                     for line in r.text.splitlines()[1:]]), r


def blocks_paper(n, d, start=0):
    """MarianSinusoidalPositionalEmbedding: position_enc[p, j] = p / 10000^(2 (j // 2) / d);
    sin of the even columns first, then cos of the odd ones (CTRL's positional_encoding
    is the same table)."""
    enc = np.array([[p / np.power(10000, 2 * (j // 2) / d) for j in range(d)]
                    for p in range(start, start + n)])
    return np.concatenate([np.sin(enc[:, 0::2]), np.cos(enc[:, 1::2])], axis=1)


def fairseq(n, d, start):
    """fairseq's get_embedding: half_dim = d // 2, step log(10000) / (half_dim - 1),
    [sin | cos] of position x exp(-k step), read from row start (make_positions)."""
    half = d // 2
    step = math.log(10000) / (half - 1)
    f = np.exp(np.arange(half) * -step)
    pos = np.arange(start, start + n)[:, None] * f[None, :]
    return np.concatenate([np.sin(pos), np.cos(pos)], axis=1)


def same(got, want, tol=1e-15):
    return got is not None and got.shape == np.shape(want) and \
        bool(np.all(np.abs(got - want) <= tol))


# DBRX: the base is attn_config.rope_theta (DbrxAttentionConfig), heads d_model // n_heads
dbrx = {"model_type": "dbrx", "d_model": 6144, "n_heads": 48, "n_layers": 40,
        "max_seq_len": 32768, "attn_config": {"kv_n_heads": 8, "rope_theta": 500000}}
r, s = summary(write("dbrx", dbrx))
ok(r.rc == 0 and "warning" not in r.err and s.get("model", {}).get("layers") == "40" and
   s.get("model", {}).get("context") == "32768" and s.get("all", {}).get("layout") == "half" and
   close(freqs(write("dbrx", dbrx), "all", "theta"), inv_freq(500000.0, 128)),
   "DBRX: attn_config.rope_theta 500000 on heads of 6144 // 48, rotate_half", (r.err, s))
del dbrx["attn_config"]["rope_theta"]
ok(close(freqs(write("dbrx0", dbrx), "all", "theta"), inv_freq(10000.0, 128)),
   "DBRX without attn_config.rope_theta: DbrxAttentionConfig's 10000")

# RoFormer: its sinusoidal table applied to pairs (2i, 2i+1) at 10000^(-2i/d)
rof = {"model_type": "roformer", "hidden_size": 768, "num_attention_heads": 12,
       "num_hidden_layers": 12, "max_position_embeddings": 1536}
r, s = summary(write("roformer", rof))
got, _ = table(write("roformer", rof), 3)
th = inv_freq(10000.0, 64)
want = np.array([[math.cos(p * th[i // 2]) + (-1 if i % 2 == 0 else 1) * math.sin(p * th[i // 2])
                  for i in range(4)] for p in range(3)])
ok(r.rc == 0 and s.get("all", {}).get("layout") == "interleaved" and
   close(freqs(write("roformer", rof), "all", "theta"), th) and same(got[:, :4], want, 1e-15),
   "RoFormer: pairs (2i, 2i+1) rotated by p 10000^(-2i/64)", (r.err, got[:, :4] if got is not None else None))
r, s = summary(write("roformer-v", dict(rof, rotary_value=True)))
ok(r.rc == 0 and s.get("model", {}).get("rotary_value") == "true",
   "RoFormer with rotary_value: said as a fact", s.get("model"))

# fixed sinusoidal tables, computed from the config
for name, doc, want in (
        ("marian", {"model_type": "marian", "d_model": 8, "max_position_embeddings": 16},
         blocks_paper(4, 8)),
        ("pegasus", {"model_type": "pegasus", "d_model": 8, "max_position_embeddings": 16},
         blocks_paper(4, 8)),
        ("ctrl", {"model_type": "ctrl", "n_embd": 8, "n_positions": 16}, blocks_paper(4, 8)),
        ("pegasus_x", {"model_type": "pegasus_x", "d_model": 8}, fairseq(4, 8, 0)),
        ("m2m_100", {"model_type": "m2m_100", "d_model": 8, "max_position_embeddings": 16,
                     "pad_token_id": 1}, fairseq(4, 8, 2)),
        ("m2m_100 pad 3", {"model_type": "m2m_100", "d_model": 8, "pad_token_id": 3},
         fairseq(4, 8, 4)),
        ("nllb-moe", {"model_type": "nllb-moe", "d_model": 8}, fairseq(4, 8, 2)),
        ("fsmt", {"model_type": "fsmt", "d_model": 8, "pad_token_id": 1}, fairseq(4, 8, 2)),
        ("speech_to_text", {"model_type": "speech_to_text", "d_model": 8}, fairseq(4, 8, 2)),
        ("xglm pad 5", {"model_type": "xglm", "d_model": 8, "pad_token_id": 5},
         fairseq(4, 8, 2)),
        ("kosmos-2", {"model_type": "kosmos-2", "text_config": {"embed_dim": 8,
                                                                "pad_token_id": 1}},
         fairseq(4, 8, 2))):
    got, r = table(write("sin", doc), 4)
    ok(r.rc == 0 and "warning" not in r.err and same(got, want),
       "%s: the fixed sinusoidal table cell by cell" % name, (r.err, got))
r, s = summary(write("marian-shape", {"model_type": "marian", "d_model": 512,
                                      "max_position_embeddings": 512, "encoder_layers": 6}))
ok(r.rc == 0 and s.get("model", {}).get("table_rows") == "512" and
   s.get("model", {}).get("table_cols") == "512" and s.get("model", {}).get("layers") == "6",
   "Marian: 512 x 512, encoder_layers", s.get("model"))
r, s = summary(write("s2t", {"model_type": "speech_to_text"}))
ok(r.rc == 0 and s.get("model", {}).get("table_rows") == "1024" and
   s.get("model", {}).get("encoder_positions") == "6000" and
   s.get("model", {}).get("position_offset") == "2",
   "Speech2Text: the decoder's 1024 rows, the encoder's 6000, from padding_idx + 1", s.get("model"))
r = run(EXE, "model", write("odd", {"model_type": "marian", "d_model": 7}))
ok(r.rc == 1 and "even width" in r.err, "an odd width is refused", r.err)

# XLM / FlauBERT: sinusoidal_embeddings is create_sinusoidal_embeddings (sin even, cos odd)
for mt in ("xlm", "flaubert"):
    got, r = table(write("xlm-sin", {"model_type": mt, "emb_dim": 8,
                                     "sinusoidal_embeddings": True}), 3)
    want = [[math.sin(p / 10000 ** (2 * (j // 2) / 8)) if j % 2 == 0 else
             math.cos(p / 10000 ** (2 * (j // 2) / 8)) for j in range(8)] for p in range(3)]
    ok(r.rc == 0 and same(got, want), mt + ": sinusoidal_embeddings fills the table", r.err)

# learned tables: shapes and offsets
for name, doc, rows, cols, offset, extra in (
        ("led", {"model_type": "led"}, 16384, 1024, None, ("decoder_positions", "1024")),
        # BigBirdPegasusConfig: d_model 1024 (not BigBirdConfig's hidden_size 768)
        ("bigbird_pegasus", {"model_type": "bigbird_pegasus"}, 4096, 1024, None, None),
        ("plbart", {"model_type": "plbart"}, 1026, 768, "2", None),
        ("nystromformer", {"model_type": "nystromformer"}, 512, 768, "2", None),
        ("mra", {"model_type": "mra"}, 514, 768, "2", None),
        ("yoso", {"model_type": "yoso"}, 4098, 768, "2", None),
        ("ibert", {"model_type": "ibert"}, 512, 768, "2", None),
        ("markuplm", {"model_type": "markuplm"}, 512, 768, "1", None),
        ("rembert", {"model_type": "rembert", "hidden_size": 1152}, 512, 256, None, None),
        ("squeezebert", {"model_type": "squeezebert", "hidden_size": 768,
                         "embedding_size": 128}, 512, 128, None, None),
        ("convbert small", {"model_type": "convbert", "hidden_size": 256,
                            "embedding_size": 128}, 512, 128, None, None),
        ("mobilebert", {"model_type": "mobilebert", "embedding_size": 128}, 512, 512, None,
         None),
        ("openai-gpt", {"model_type": "openai-gpt"}, 512, 768, None, None),
        ("gpt-sw3", {"model_type": "gpt-sw3", "n_positions": 2048, "n_embd": 1024}, 2048,
         1024, None, None),
        ("canine", {"model_type": "canine"}, 16384, 768, None, None),
        ("clip", {"model_type": "clip", "text_config": {"hidden_size": 512}}, 77, 512, None,
         None)):
    r, s = summary(write("learned", doc))
    m = s.get("model", {})
    ok(r.rc == 0 and "warning" not in r.err and m.get("table_rows") == str(rows) and
       m.get("table_cols") == str(cols) and m.get("position_offset") == offset and
       (extra is None or m.get(extra[0]) == extra[1]),
       "%s: a learned table of %d x %d%s" % (name, rows, cols,
                                              ", from row " + offset if offset else ""),
       (r.err, m))

# Moonshine: MoonshineConfig.attribute_map maps num_attention_heads to
# encoder_num_attention_heads, and GLM's rotary (one for encoder and decoder) takes its width
# from config.num_attention_heads: int(288 // 4 x 0.9) = 64 dims, pairs 2i, 2i+1; with the
# class defaults int(288 // 8 x 0.9) = 32
r, s = summary(write("moonshine", {"model_type": "moonshine", "hidden_size": 288,
                                   "encoder_num_attention_heads": 4,
                                   "decoder_num_attention_heads": 8,
                                   "encoder_num_hidden_layers": 5,
                                   "decoder_num_hidden_layers": 7}))
ok(r.rc == 0 and s.get("all", {}).get("head_dim") == str(288 // 4) and
   s.get("all", {}).get("rotary_dim") == str(int(288 // 4 * 0.9)) and
   s.get("model", {}).get("layers") == "5" and
   s.get("all", {}).get("layout") == "interleaved" and
   close(freqs(write("moonshine", {"model_type": "moonshine"}), "all", "theta"),
         inv_freq(10000.0, int(288 // 8 * 0.9))),
   "Moonshine: the encoder's heads (attribute_map), int(72 x 0.9) = 64 dims, interleaved",
   (r.err, s))

# GLM-4.1V's text model: interleaved, half of 128 rotated
r, s = summary(write("glm4v", {"model_type": "glm4v", "text_config": {
    "model_type": "glm4v_text", "hidden_size": 4096, "num_attention_heads": 32,
    "num_hidden_layers": 2, "rope_theta": 10000.0}}))
ok(r.rc == 0 and s.get("all", {}).get("layout") == "interleaved" and
   s.get("all", {}).get("rotary_dim") == "64", "GLM-4.1V: interleaved, 64 of 128", (r.err, s))

# RecurrentGemma: block_types repeated over the layers; the attention blocks slide
rg = {"model_type": "recurrent_gemma", "hidden_size": 2560, "num_attention_heads": 10,
      "num_hidden_layers": 26, "block_types": ["recurrent", "recurrent", "attention"]}
r, s = summary(write("rg", rg))
att = [i for i in range(26) if i % 3 == 2]
ok(r.rc == 0 and layers(s.get("rope", {}).get("layers", "")) == att and
   layers(s.get("model", {}).get("nope_layers", "")) == [i for i in range(26) if i % 3 != 2] and
   s.get("rope", {}).get("rotary_dim") == "128" and
   s.get("model", {}).get("sliding_window") == "2048" and
   close(freqs(write("rg", rg), "rope", "theta"), inv_freq(10000.0, 128)),
   "RecurrentGemma: every third block attends, half of 256 rotated, window 2048", (r.err, s))

# Zamba2: RoPE only with use_mem_rope, on the hybrid layers, heads 2 x 2560 // 32 = 160
z2 = {"model_type": "zamba2", "hidden_size": 2560, "num_attention_heads": 32,
      "num_hidden_layers": 6, "layers_block_type": ["mamba", "hybrid", "mamba", "mamba",
                                                    "hybrid", "mamba"]}
r = run(EXE, "model", write("z2", z2))
ok(r.rc == 1 and "use_mem_rope" in r.err, "Zamba2 without use_mem_rope: no RoPE, refused",
   r.err)
r, s = summary(write("z2r", dict(z2, use_mem_rope=True)))
ok(r.rc == 0 and s.get("rope", {}).get("layers") == "1,4" and
   s.get("rope", {}).get("head_dim") == "160" and
   float(s.get("model", {}).get("softmax_scale", "nan")) == 1 / math.sqrt(80),
   "Zamba2 with use_mem_rope: hybrid layers 1, 4 on heads of 160, scale (160/2)^-0.5",
   (r.err, s))
r, s = summary(write("z2f", dict(z2, use_mem_rope=True, use_long_context=False)))
r2 = run(EXE, "model", write("z2l", dict(z2, use_mem_rope=True, use_long_context=True)))
ok(r.rc == 0 and r2.rc == 1 and "use_long_context" in r2.err,
   "Zamba2: use_long_context false is read, true (a rescaled base) refused", (r.err, r2.err))
r = run(EXE, "model", write("zamba", {"model_type": "zamba", "hidden_size": 3712}))
ok(r.rc == 1 and "no positional encoding" in r.err, "Zamba: refused, no positional encoding",
   r.err)


# CWM: with no rope_parameters, CwmConfig's llama3 block; every 4th layer (i % 4 == 0) full
cwm = {"model_type": "cwm", "num_hidden_layers": 8}
r, s = summary(write("cwm", cwm))
ok(r.rc == 0 and s.get("model", {}).get("sliding_layers") == "1-3,5-7" and
   s.get("model", {}).get("sliding_window") == "8192" and
   np.allclose(freqs(write("cwm", cwm), "all", "llama3_theta"),
               llama3(1e6, 128, 16.0, 1.0, 4.0, 8192.0), rtol=4e-15, atol=0),
   "CWM: the class's llama3 block (1e6, x16, 1/4, 8192) on every layer; 0, 4 full, the "
   "others slide over 8192",
   (r.err, s))

# ModernBERT's decoder (ModernBertDecoderConfig.__post_init__): layer i is full attention
# when i % global_attn_every_n_layers == 0 (default 3), as in the encoder; sliding_window is
# recomputed as local_attention // 2 (default 128 // 2 = 64), a causal window
mbd = {"model_type": "modernbert-decoder", "hidden_size": 768, "num_attention_heads": 12,
       "num_hidden_layers": 6}
r, s = summary(write("mbd", mbd))
ok(r.rc == 0 and layers(s.get("global", {}).get("layers", "")) ==
   [i for i in range(6) if i % 3 == 0] and
   s.get("model", {}).get("sliding_window") == str(128 // 2) and
   close(freqs(write("mbd", mbd), "global", "theta"), inv_freq(160000.0, 64)) and
   close(freqs(write("mbd", mbd), "local", "theta"), inv_freq(10000.0, 64)),
   "ModernBERT decoder: layers 0, 3 global at 160000, the others local at 10000, "
   "window 64 back", (r.err, s))
mbd2 = dict(mbd, local_attention=255, sliding_window=999, global_attn_every_n_layers=2)
r, s = summary(write("mbd2", mbd2))
ok(r.rc == 0 and s.get("model", {}).get("sliding_window") == str(255 // 2) and
   layers(s.get("global", {}).get("layers", "")) == [0, 2, 4],
   "ModernBERT decoder: window local_attention // 2 whatever sliding_window says; "
   "every 2nd layer global from 0", (r.err, s))

# LongCat-Flash: MLA, pairs 2i, 2i+1 on qk_rope_head_dim, default_theta 1e7
r, s = summary(write("longcat", {"model_type": "longcat_flash", "num_layers": 2}))
ok(r.rc == 0 and "warning" not in r.err and s.get("all", {}).get("layout") == "interleaved" and
   s.get("all", {}).get("rotary_dim") == "64" and
   close(freqs(write("longcat", {"model_type": "longcat_flash"}), "all", "theta"),
         inv_freq(1e7, 64)),
   "LongCat-Flash: 64 interleaved dims at the class's 1e7", (r.err, s))

# MPT: transformers' MptModel builds ALiBi whatever attn_config.alibi says; llm-foundry's
# code (auto_map) reads rope and learned_pos_emb
mpt0 = {"model_type": "mpt", "d_model": 2048, "n_heads": 16, "n_layers": 2, "max_seq_len": 4096,
        "attn_config": {"alibi": False}}
r, s = summary(write("mpt-noalibi", mpt0))
ok(r.rc == 0 and "whatever it says" in r.err and "alibi" in s.get("all", {}).get("spec", ""),
   "MPT (transformers) with alibi false: ALiBi all the same, with a warning", (r.err, s))
foundry = dict(mpt0, auto_map={"AutoConfig": "configuration_mpt.MPTConfig"})
r, s = summary(write("mpt-learned", foundry))
ok(r.rc == 0 and s.get("model", {}).get("table_rows") == "4096" and
   s.get("model", {}).get("table_cols") == "2048",
   "MPT (llm-foundry) without ALiBi or RoPE: its learned table max_seq_len x d_model", s)
foundry["attn_config"] = {"alibi": False, "rope": True, "rope_theta": 500000}
r, s = summary(write("mpt-rope", foundry))
ok(r.rc == 0 and s.get("all", {}).get("layout") == "half" and
   close(freqs(write("mpt-rope", foundry), "all", "theta"), inv_freq(500000.0, 128)),
   "MPT (llm-foundry) with rope: rotate_half at attn_config.rope_theta on 2048 // 16", (r.err, s))
foundry["attn_config"]["rope_dail_config"] = {"type": "xpos"}
r = run(EXE, "model", write("mpt-xpos", foundry))
ok(r.rc == 1 and "xpos" in r.err, "MPT with xPos rotary: refused, named", r.err)

# NomicBERT and Jina's XLM-RoBERTa: flash-attn's rotary keys
nomic = {"model_type": "nomic_bert", "n_embd": 768, "n_head": 12, "n_layer": 12,
         "n_positions": 8192, "rotary_emb_base": 1000, "rotary_emb_fraction": 1.0,
         "rotary_emb_interleaved": False, "rotary_scaling_factor": None}
r, s = summary(write("nomic", nomic))
ok(r.rc == 0 and s.get("all", {}).get("layout") == "half" and
   close(freqs(write("nomic", nomic), "all", "theta"), inv_freq(1000.0, 64)),
   "NomicBERT: rotary_emb_base 1000 over 768 // 12, rotate_half", (r.err, s))
r, s = summary(write("nomic-i", dict(nomic, rotary_emb_interleaved=True,
                                     rotary_emb_fraction=0.5)))
ok(r.rc == 0 and s.get("all", {}).get("layout") == "interleaved" and
   s.get("all", {}).get("rotary_dim") == "32",
   "NomicBERT: rotary_emb_interleaved and rotary_emb_fraction 0.5", s)
r = run(EXE, "model", write("nomic-s", dict(nomic, rotary_scaling_factor=2.0)))
ok(r.rc == 1 and "rotary_scaling_factor" in r.err, "NomicBERT's dynamic scaling: refused",
   r.err)
jina = {"model_type": "xlm-roberta", "hidden_size": 1024, "num_attention_heads": 16,
        "num_hidden_layers": 24, "position_embedding_type": "rotary",
        "rotary_emb_base": 20000.0}
r, s = summary(write("jina3", jina))
ok(r.rc == 0 and "rotary_emb_base" in r.err and
   close(freqs(write("jina3", jina), "all", "theta"), inv_freq(20000.0, 64)),
   "XLM-RoBERTa with rotary and rotary_emb_base (Jina v3's code): that base, a warning",
   (r.err, s))
r = run(EXE, "model", write("jina2", {"model_type": "bert", "hidden_size": 768,
                                      "position_embedding_type": "alibi"}))
ok(r.rc == 1 and "JinaBERT" in r.err, "BERT with position_embedding_type alibi: named, refused",
   r.err)

# refusals that say why
for mt, word in (("nanochat", "negative angle"), ("mpnet", "relative buckets"),
                 ("reformer", "axial"), ("tapas", "every table cell"),
                 ("layoutlmv3", "2-D layout"), ("blt", "sub-models"),
                 ("nezha", "relative"), ("prophetnet", "relative")):
    r = run(EXE, "model", write("refuse", {"model_type": mt, "hidden_size": 768,
                                           "num_attention_heads": 12}))
    ok(r.rc == 1 and word in r.err and r.err.count("\n") == 1, mt + ": refused, " + word, r.err)

# wrappers: the text model where the class keeps it
r, s = summary(write("qwen2audio", {"model_type": "qwen2_audio", "text_config": {
    "hidden_size": 1024, "num_attention_heads": 8, "num_hidden_layers": 2}}))
ok(r.rc == 0 and "warning" not in r.err and s.get("model", {}).get("model_type") == "qwen2",
   "Qwen2-Audio: text_config is Qwen2Config", (r.err, s.get("model")))
r, s = summary(write("omni", {"model_type": "qwen2_5_omni", "thinker_config": {"text_config": {
    "num_hidden_layers": 2, "rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 24]}}}}))
ok(r.rc == 0 and "warning" not in r.err and
   s.get("model", {}).get("model_type") == "qwen2_5_omni_text" and
   s.get("all", {}).get("head_dim") == "128" and
   close(freqs(write("omni", {"model_type": "qwen2_5_omni", "thinker_config": {
       "text_config": {"num_hidden_layers": 1}}}), "all", "theta"), inv_freq(1e6, 128)),
   "Qwen2.5-Omni: the thinker's text model, 3584 // 28 heads at its 1e6", (r.err, s))

# ChatGLM2/3 (remote code, modeling_chatglm.py): RotaryEmbedding(kv_channels // 2) turns
# the first 64 of 128 head dimensions in pairs 2i, 2i+1 (apply_rotary_pos_emb reshapes to
# (..., rot_dim // 2, 2)) at base 10000 * rope_ratio; seq_length is the context
r, s = summary(fix("chatglm3-6b-ipex"))
g = s.get("all", {})
ok(r.rc == 0 and g.get("rotary_dim") == "64" and g.get("head_dim") == "128" and
   g.get("layout") == "interleaved" and s.get("model", {}).get("context") == "8192" and
   close(freqs(fix("chatglm3-6b-ipex"), "all", "theta"), inv_freq(1e4, 64)),
   "ChatGLM3: half of kv_channels 128 rotated, interleaved, base 10000", (r.err, g))
cfg = json.load(open(os.path.join(FIX, "chatglm3-6b-ipex.json")))
cfg["rope_ratio"] = 500  # glm-4-9b-chat's value
ok(close(freqs(write("glm4remote", cfg), "all", "theta"), inv_freq(1e4 * 500, 64)),
   "ChatGLM / GLM-4 remote code: base 10000 * rope_ratio 500")
cfg["position_encoding_2d"] = True  # ChatGLM-6B
r = run(EXE, "model", write("chatglm1", cfg))
ok(r.rc == 1 and "position_encoding_2d" in r.err, "ChatGLM-6B's 2-D positions: refused", r.err)

# StableLM 2 remote code (modeling_stablelm_epoch.py): rotary_ndims = int(head_dim * rope_pct),
# 2048 // 32 = 64 wide heads -> 16 dimensions, rotate_half, rope_theta 10000
r, s = summary(fix("stablelm-epoch-ipex"))
g = s.get("all", {})
ok(r.rc == 0 and g.get("rotary_dim") == "16" and g.get("layout") == "half" and
   close(freqs(fix("stablelm-epoch-ipex"), "all", "theta"), inv_freq(1e4, 16)),
   "StableLM epoch: rope_pct 0.25 of 64 -> 16 dimensions turn", (r.err, g))
cfg = json.load(open(os.path.join(FIX, "stablelm-epoch-ipex.json")))
del cfg["rope_pct"]  # StableLMEpochConfig's default rope_pct is 0.25 too
ok(close(freqs(write("slmepoch", cfg), "all", "theta"), inv_freq(1e4, 16)),
   "StableLM epoch: class default rope_pct 0.25")


# Baichuan (remote code): the 13B modeling_baichuan.py adds ALiBi, _get_interleave(n) being
# Press et al.'s slopes (2^(-8/n) powers, the closest power of two first, then every other
# slope of twice as many); the 7B one rotates as Llama (RotaryEmbedding, base 10000).


got = bias_slopes(fix("baichuan-13b-chat"))
ok(close(got, press_slopes(40)), "Baichuan-13B-Chat: ALiBi, 40 slopes as _gen_alibi_mask", got)
b7 = write("baichuan7b", {"model_type": "baichuan", "architectures": ["BaiChuanForCausalLM"],
                          "auto_map": {"AutoModelForCausalLM": "modeling_baichuan.BaiChuanForCausalLM"},
                          "hidden_size": 4096, "num_attention_heads": 32, "num_hidden_layers": 32,
                          "max_position_embeddings": 4096})
ok(close(freqs(b7, "all", "theta"), inv_freq(10000.0, 128)),
   "Baichuan 7B (32 layers): RoPE over the 128-wide head at base 10000", freqs(b7, "all", "theta"))
r, s = summary(b7)
ok(s.get("all", {}).get("layout") == "half", "Baichuan 7B: rotate_half", s.get("all"))


# DeepSeek-V4 (DeepseekV4Config, modeling_deepseek_v4.py): compress_ratios 0 are sliding layers
# at rope_theta without scaling ("main"), 4 and 128 compressed ones at compress_rope_theta with
# the rope block, YaRN's attention factor set to 1; pairs 2i, 2i+1 over qk_rope_head_dim.


def yarn_inv(base, dim, factor, orig, beta_fast=32.0, beta_slow=1.0):
    """_compute_yarn_parameters (truncate true) in float64."""
    pos = base ** (np.arange(0, dim, 2).astype(np.float64) / dim)

    def corr(r):
        return dim * math.log(orig / (r * 2 * math.pi)) / (2 * math.log(base))
    lo, hi = max(math.floor(corr(beta_fast)), 0), min(math.ceil(corr(beta_slow)), dim - 1)
    if lo == hi:
        hi += 0.001
    ramp = np.clip((np.arange(dim // 2, dtype=np.float64) - lo) / (hi - lo), 0, 1)
    extra = 1 - ramp
    return (1 / (factor * pos)) * (1 - extra) + (1 / pos) * extra


v4 = fix("deepseek-v4-flash")
r, s = summary(v4)
ok(r.rc == 0 and layers(s.get("local", {}).get("layers", "")) == [0, 1] and
   layers(s.get("compress", {}).get("layers", "")) == list(range(2, 43)),
   "DeepSeek-V4-Flash: layers 0-1 sliding (main rope), 2-42 compressed (compress rope)", s.keys())
ok(s.get("compress", {}).get("attention_factor") == "1" and
   s.get("local", {}).get("layout") == "interleaved",
   "DeepSeek-V4-Flash: YaRN attention factor 1, pairs 2i, 2i+1", s.get("compress"))
ok(close(freqs(v4, "local", "theta"), inv_freq(10000.0, 64)),
   "DeepSeek-V4-Flash: sliding layers at 10000^(-2i/64)", freqs(v4, "local", "theta"))
ok(close(freqs(v4, "compress", "yarn_theta"), yarn_inv(160000.0, 64, 16.0, 65536.0)),
   "DeepSeek-V4-Flash: compressed layers, YaRN 16 over 65536 at base 160000",
   freqs(v4, "compress", "yarn_theta"))
pro = dict(json.load(open(os.path.join(FIX, "deepseek-v4-flash.json"))))
pro.pop("compress_ratios")
r, s = summary(write("v4_no_ratios", pro))
ok(r.rc == 0 and layers(s.get("all", {}).get("layers", "")) == list(range(43)) and
   s.get("all", {}).get("base") == "160000",
   "DeepSeek-V4 without compress_ratios: every layer compressed (the class's schedule)", s)


# Laguna (LagunaConfig, modeling_laguna.py): one inv_freq per layer type, each from its own
# block of rope_parameters; convert_rope_params_to_dict folds nothing in, so the top-level
# partial_rotary_factor 0.5 of XS.2 leaves the sliding block's 1.0 alone. Full layers: YaRN 64
# over 4096 at 500000 on 64 of 128 dims, attention factor as given; sliding: 10000 on all 128.
lg = fix("laguna-xs.2")
r, s = summary(lg)
ok(r.rc == 0 and "not in posenc's table" not in r.err and
   layers(s.get("global", {}).get("layers", "")) == list(range(0, 40, 4)) and
   layers(s.get("local", {}).get("layers", "")) == [i for i in range(40) if i % 4],
   "Laguna-XS.2: layers 0, 4, .. full (rope block full_attention), the rest sliding", r.err)
ok("original_max_position_embeddings: names no layer type" in r.err,
   "Laguna-XS.2: the stray top-level key of rope_parameters is named as unread", r.err)
ok(close(freqs(lg, "local", "theta"), inv_freq(10000.0, 128)),
   "Laguna-XS.2: sliding layers at 10000^(-2i/128) over the whole head",
   freqs(lg, "local", "theta"))
ok(close(freqs(lg, "global", "yarn_theta"),
         yarn_inv(500000.0, 64, 64.0, 4096.0, beta_fast=64.0)) and
   abs(float(s.get("global", {}).get("attention_factor", "nan")) - (1 + 0.1 * math.log(64))) < 1e-15,
   "Laguna-XS.2: full layers, YaRN 64 over 4096 at 500000 on 64 dims, factor 1 + 0.1 ln 64",
   (freqs(lg, "global", "yarn_theta"), s.get("global")))
bare = dict(json.load(open(os.path.join(FIX, "laguna-xs.2.json"))))
bare.pop("rope_parameters")
bare.pop("layer_types")
r, s = summary(write("laguna_bare", bare))
ok(r.rc == 0 and layers(s.get("all", {}).get("layers", "")) == list(range(40)) and
   close(freqs(write("laguna_bare", bare), "all", "theta"), inv_freq(500000.0, 64)),
   "Laguna without rope_parameters: the class's blocks, every layer full at 500000 on 64 dims",
   (r.err, s.get("all")))


# MiMo-V2-Flash (MiMoV2FlashConfig, modeling_mimo_v2_flash.py): the published file has no
# rope_parameters nor layer_types, so the class's own apply: layer 0 and every i with
# (i + 1) % 6 == 0 full at 5000000, the rest sliding at 10000, both on int(192 * 0.334) = 64
# dims; its flat rope_theta / swa_rope_theta / partial_rotary_factor are never read.
mm = fix("mimo-v2-flash")
r, s = summary(mm)
full = [i for i in range(48) if i == 0 or (i + 1) % 6 == 0]
ok(r.rc == 0 and "not in posenc's table" not in r.err and
   layers(s.get("global", {}).get("layers", "")) == full and
   layers(s.get("local", {}).get("layers", "")) == [i for i in range(48) if i not in full],
   "MiMo-V2-Flash: layers 0, 5, 11, .. 47 full, the rest sliding (the class's layer_types)",
   (r.err, s.keys()))
ok(all(k + ": not read" in r.err for k in ("rope_theta", "swa_rope_theta", "partial_rotary_factor")),
   "MiMo-V2-Flash: the flat rope keys are named as unread", r.err)
ok(close(freqs(mm, "global", "theta"), inv_freq(5000000.0, 64)) and
   close(freqs(mm, "local", "theta"), inv_freq(10000.0, 64)),
   "MiMo-V2-Flash: full layers 5e6^(-2i/64), sliding 1e4^(-2i/64)",
   (freqs(mm, "global", "theta"), freqs(mm, "local", "theta")))

# Kimi K3 (kimi_k3 wrapping a kimi_linear text config): KimiLinearAttention, the MLA of the
# full_attn_layers, applies no rotary (qk_rope_head_dim 64 only sizes the key slice it shares);
# the KDA layers carry order, so there is nothing to show.
r = run(EXE, "model", fix("kimi-k3"), "-o", "-")
ok(r.rc == 1 and r.err.count("\n") == 1 and "kimi_linear" in r.err and
   "no rotary embedding" in r.err and "not in posenc's table" not in r.err,
   "Kimi K3: kimi_linear refused, its MLA layers have no positional encoding", r.err)

# MiniMax-M3 (minimax_m3_vl wrapping MiniMaxM3VLTextConfig): MiniMaxM2RotaryEmbedding, one
# rotary for all 60 layers (dense and sparse alike), base 5e6, int(128 * 0.5) = 64 leading
# dims, rotate_half, no scaling.
m3 = fix("minimax-m3-nvfp4")
r, s = summary(m3)
ok(r.rc == 0 and "not in posenc's table" not in r.err and
   s.get("model", {}).get("model_type") == "minimax_m3_vl_text" and
   layers(s.get("all", {}).get("layers", "")) == list(range(60)) and
   s.get("all", {}).get("rotary_dim") == "64" and s.get("all", {}).get("layout") == "half" and
   s.get("all", {}).get("scaling") == "none",
   "MiniMax-M3: every layer one rotate_half rotary over 64 of 128 dims", (r.err, s.get("all")))
ok(close(freqs(m3, "all", "theta"), inv_freq(5000000.0, 64)),
   "MiniMax-M3: 5e6^(-2i/64)", freqs(m3, "all", "theta"))

# ---- no model_type: the class architectures[0] names ------------------------------------
# transformers' AutoConfig has nothing to go by without model_type; vLLM's registry and
# llama.cpp's converter pick the model by architectures[0], and so does posenc, with a
# warning. GPTNeoXConfig's class default rotary_pct 0.25 then applies: 32 of 128 dims.
neox = {"architectures": ["GPTNeoXForCausalLM"], "hidden_size": 4096, "num_attention_heads": 32,
        "num_hidden_layers": 4, "max_position_embeddings": 2048}
r, s = summary(write("no_type_neox", neox))
ok(r.rc == 0 and "model_type missing: read as 'gpt_neox'" in r.err and
   s.get("all", {}).get("rotary_dim") == "32" and s["all"].get("layout") == "half",
   "no model_type, GPTNeoXForCausalLM: read as gpt_neox, rotary_pct 0.25 of 128", (r.err, s))
ok(close(freqs(write("no_type_neox", neox)), inv_freq(10000.0, 32)),
   "no model_type, GPTNeoXForCausalLM: 10000^(-2i/32)")
qwen1 = {"architectures": ["QWenLMHeadModel"], "hidden_size": 4096, "num_attention_heads": 32,
         "num_hidden_layers": 4, "kv_channels": 128, "rotary_emb_base": 1000000,
         "seq_length": 8192, "max_position_embeddings": 8192}
r, s = summary(write("no_type_qwen", qwen1))
ok(r.rc == 0 and "read as 'qwen'" in r.err and
   close(freqs(write("no_type_qwen", qwen1)), inv_freq(1e6, 128)),
   "no model_type, QWenLMHeadModel: Qwen v1's rotary_emb_base 1e6", r.err)
r, s = summary(write("no_type_rw", dict(neox, architectures=["RWForCausalLM"])))
ok(r.rc == 0 and "model_type missing: read as transformers' default rotary" in r.err and
   s.get("all", {}).get("rotary_dim") == "128",
   "no model_type, a class posenc cannot name (RWForCausalLM): the generic reading, warned",
   (r.err, s.get("all")))


# ---- EXAONE 4.5: the text model typed exaone4_5_text ------------------------------------
# Exaone4_5_Config (configuration_exaone4_5.py) renames a text_config model_type
# 'exaone4_5_text' to 'exaone4' and builds Exaone4Config, whose attention rotates only in
# sliding layers when sliding_window is set. LLLG over 64 layers: 3, 7, .., 63 full and NoPE;
# the sliding ones llama3 (base 1e6, x16, low 1, high 4, original 8192) over all 128 dims.
ex45 = fix("exaone-4.5-33b")
r, s = summary(ex45)
slid = [i for i in range(64) if i % 4 != 3]
ok(r.rc == 0 and "not in posenc's table" not in r.err and
   layers(s.get("model", {}).get("nope_layers", "")) == [i for i in range(64) if i % 4 == 3] and
   layers(s.get("rope", {}).get("layers", "")) == slid and
   s.get("rope", {}).get("rotary_dim") == "128" and s.get("rope", {}).get("layout") == "half",
   "EXAONE-4.5-33B: full layers NoPE, sliding layers rotate_half over 128", (r.err, s))
ok(np.allclose(freqs(ex45, "rope", "llama3_theta"), llama3(1e6, 128, 16.0, 1.0, 4.0, 8192.0),
               rtol=4e-15, atol=0),
   "EXAONE-4.5-33B: llama3 (1e6, x16, 1/4, 8192)", freqs(ex45, "rope", "llama3_theta"))

# ---- K-EXAONE (exaone_moe): Exaone4's attention and defaults ------------------------------
# configuration_exaone_moe.py at 008e574: ExaoneMoeConfig has Exaone4Config's fields
# (hidden 4096, 32 heads, 32 layers, sliding_window 4096, sliding_window_pattern 4, no
# rope_theta of its own: PreTrainedConfig's 10000) and the same __post_init__: layer i slides
# unless (i + 1) % 4 == 0. modular_exaone_moe.py: ExaoneMoeAttention is Exaone4Attention, which
# rotates only when sliding_window is None or the layer slides. So: 3, 7, .., 31 NoPE; the
# others default RoPE at 10000 over 4096 / 32 = 128 dims.
r, s = summary(write("exaone-moe", {"model_type": "exaone_moe"}))
ok(r.rc == 0 and "not in posenc's table" not in r.err and
   layers(s.get("model", {}).get("nope_layers", "")) == [i for i in range(32) if i % 4 == 3] and
   layers(s.get("rope", {}).get("layers", "")) == [i for i in range(32) if i % 4 != 3] and
   s.get("rope", {}).get("rotary_dim") == "128" and s.get("rope", {}).get("layout") == "half",
   "exaone_moe: a known type; full layers (3, 7, .., 31) NoPE, sliding ones rotate_half on 128",
   (r.err, s))
ok(close(freqs(write("exaone-moe", {"model_type": "exaone_moe"}), "rope", "theta"),
         inv_freq(10000.0, 128)), "exaone_moe: the sliding layers at PreTrainedConfig's base 10000")
r, s = summary(write("exaone-moe-nowin", {"model_type": "exaone_moe", "sliding_window": None,
                                          "layer_types": ["full_attention"] * 4,
                                          "num_hidden_layers": 4}))
ok(r.rc == 0 and s.get("model", {}).get("nope_layers", "") == "" and
   s.get("all", {}).get("layers") == "0-3",
   "exaone_moe: without a window every layer rotates (Exaone4Attention)", (r.err, s))

# ---- types at 008e574 newer than the CONFIG_MAPPING revision posenc's list comes from ------
# Youtu (configuration_youtu.py at the pin): a DeepseekV3Config with hidden 2048, 16 heads,
# 32 layers, max 131072; qk_rope_head_dim 64 and rope_interleave true from DeepSeek-V3, base
# 10000. Solar Open (configuration_solar_open.py): head_dim 128, default_theta 1e6,
# partial_rotary_factor set to 1.0 (the later 0.5 setdefault never applies), LlamaAttention.
for doc, want_dim, want_layout, base, name in (
        ({"model_type": "youtu"}, "64", "interleaved", 10000.0, "Youtu: MLA, 64 dims, 2i/2i+1"),
        ({"model_type": "youtu", "rope_interleave": False}, "64", "half", 10000.0,
         "Youtu: rope_interleave false is rotate_half"),
        ({"model_type": "solar_open"}, "128", "half", 1e6,
         "Solar Open: the whole 128-wide head at 1e6")):
    spec = write("newtype", doc)
    r, s = summary(spec)
    a = s.get("all", {})
    ok(r.rc == 0 and "not in posenc's table" not in r.err and a.get("rotary_dim") == want_dim and
       a.get("layout") == want_layout and close(freqs(spec, "all", "theta"),
                                                inv_freq(base, int(want_dim))), name, (r.err, s))

# ---- Bamba: attention only where attn_layer_indices says, on half of each head ---------------
# configuration_bamba.py: layers_block_type is "attention" for i in attn_layer_indices, else
# "mamba" (no list: no attention at all); __init__ sets kwargs["partial_rotary_factor"] = 0.5
# whatever the config holds, and BambaAttention rotates q[..., :rotary_dim] with rotate_half.
# 32 layers, attention in 9, 18, 27 (Bamba-9B's indices), head 4096 / 32 = 128, 64 rotated.
bam = {"model_type": "bamba", "hidden_size": 4096, "num_attention_heads": 32,
       "num_hidden_layers": 32, "attn_layer_indices": [9, 18, 27], "rope_theta": 10000.0}
spec = write("bamba", bam)
r, s = summary(spec)
ok(r.rc == 0 and layers(s.get("rope", {}).get("layers", "")) == [9, 18, 27] and
   layers(s.get("model", {}).get("nope_layers", "")) == [i for i in range(32) if i not in (9, 18, 27)]
   and s.get("rope", {}).get("rotary_dim") == "64" and s.get("rope", {}).get("layout") == "half",
   "Bamba: only attn_layer_indices attend, rotating 64 of 128 dims", (r.err, s))
ok(close(freqs(spec, "rope", "theta"), inv_freq(10000.0, 64)), "Bamba: base 10000 over 64 dims")
r, s = summary(write("bamba-prf", dict(bam, partial_rotary_factor=1.0)))
ok(r.rc == 0 and s.get("rope", {}).get("rotary_dim") == "64" and "is not read" in r.err,
   "Bamba: a config's partial_rotary_factor is overwritten by the class's 0.5", (r.err, s))
r, s = summary(write("bamba-none", {"model_type": "bamba"}))
ok(r.rc == 1 and "no layer has a positional encoding" in r.err,
   "Bamba without attn_layer_indices: every layer is Mamba-2, refused", r.err)

# ---- Gemma 3n without layer_types: the class's 4 sliding, 1 full schedule -------------------
# Gemma3nTextConfig (configuration_gemma3n.py): layer_types None becomes "full_attention" when
# (i + 1) % 5 == 0, else "sliding_attention"; sliding layers turn at rope_local_base_freq
# (10000), full ones at rope_theta (1e6); head_dim 256, 35 layers.
g3n = write("gemma3n-defaults", {"model_type": "gemma3n_text"})
r, s = summary(g3n)
ok(r.rc == 0 and layers(s.get("global", {}).get("layers", "")) == [4, 9, 14, 19, 24, 29, 34] and
   layers(s.get("local", {}).get("layers", "")) == [i for i in range(35) if i % 5 != 4],
   "Gemma 3n: without layer_types every 5th layer is full", (r.err, s))
ok(close(freqs(g3n, "local", "theta"), inv_freq(10000.0, 256)) and
   close(freqs(g3n, "global", "theta"), inv_freq(1e6, 256)),
   "Gemma 3n: sliding layers at rope_local_base_freq 1e4, full ones at rope_theta 1e6")

# ---- no model_type and no class: the name, as AutoConfig falls back to -------------------
# AutoConfig.from_pretrained (models/auto/configuration_auto.py) without model_type nor
# auto_map tries the model types longest first and takes the first its name contains.
# prajjwal1/bert-tiny: BertEmbeddings, nn.Embedding(max_position_embeddings 512, hidden 128),
# positions from 0. roberta-base as uploaded in 2019: RobertaConfig's pad_token_id 1, so
# positions count from 2 in nn.Embedding(514, 768) ("roberta" is tried before "bert").
r, s = summary(fix("bert-tiny-no-model-type"))
m = s.get("model", {})
ok(r.rc == 0 and "read as 'bert'" in r.err and m.get("table_rows") == "512" and
   m.get("table_cols") == "128" and m.get("position_offset", "0") == "0" and "all" not in s,
   "bert-tiny without model_type: the name's bert, a 512 x 128 learned table from 0", (r.err, s))
r, s = summary(fix("roberta-base-2019-no-model-type"))
m = s.get("model", {})
ok(r.rc == 0 and "read as 'roberta'" in r.err and m.get("table_rows") == "514" and
   m.get("table_cols") == "768" and m.get("position_offset") == str(1 + 1),
   "roberta-base (2019) without model_type: roberta, 514 x 768 from pad_token_id + 1", (r.err, s))
# a folder's config.json is named by its folder; auto_map (remote code) or a name holding no
# model type keeps the default rotary reading, warned
with open(os.path.join(FIX, "bert-tiny-no-model-type.json")) as f:
    tiny = json.load(f)
os.makedirs(os.path.join(TMP, "gpt2-small-copy"), exist_ok=True)
with open(os.path.join(TMP, "gpt2-small-copy", "config.json"), "w") as f:
    json.dump(tiny, f)
r, s = summary("hf:" + os.path.join(TMP, "gpt2-small-copy", "config.json"))
ok(r.rc == 0 and "read as 'gpt2'" in r.err and s.get("model", {}).get("table_rows") == "512" and
   s.get("model", {}).get("table_cols") == "128",
   "no model_type in folder gpt2-small-copy: GPT2Config, max_position_embeddings and hidden_size "
   "its aliases of n_positions and n_embd", (r.err, s))
r, s = summary(write("bert-remote", dict(tiny, auto_map={"AutoConfig": "x.XConfig"})))
ok(r.rc == 0 and "default rotary" in r.err and s.get("all", {}).get("rotary_dim") == "64",
   "no model_type with auto_map: no name fallback (the remote class would decide)", (r.err, s))
r, s = summary(write("plain-name", tiny))
ok(r.rc == 0 and "default rotary" in r.err and s.get("all", {}).get("rotary_dim") == "64",
   "no model_type, a name with no model type in it: the default rotary, warned", (r.err, s))

# ---- Baichuan: the configuration class, not the size, names the modeling file ------------
# The 13B BaichuanConfig (Baichuan-13B, Baichuan2-13B; vLLM restates it in
# transformers_utils/configs/baichuan_13b.py) has model_max_length and no
# max_position_embeddings; its modeling_baichuan.py adds ALiBi. IPEX's test copy keeps that
# class with one layer and 16 heads: ALiBi over 16 heads, a power of two, so slope k is
# 2^(-8k/16) = 2^(-k/2) (_get_interleave's start * start^(k-1) rounds within a few ulps).
got = bias_slopes(fix("baichuan2-13b-ipex"))
ok(close(got, press_slopes(16)) and close(got, [2.0 ** (-k / 2.0) for k in range(1, 17)], 4e-15),
   "Baichuan2-13B cut to one layer (IPEX): still ALiBi, 16 slopes 2^(-k/2)", got)
# the 7B class writes max_position_embeddings: rotary whatever the layer count
cfg = json.load(open(os.path.join(FIX, "baichuan2-13b-ipex.json")))
cfg.update(max_position_embeddings=4096, num_hidden_layers=40)
b7 = write("baichuan7b-40", cfg)
ok(close(freqs(b7, "all", "theta"), [10000.0 ** (-2.0 * i / 128) for i in range(64)]),
   "Baichuan with max_position_embeddings (7B class), 40 layers: RoPE, 2048 / 16 = 128 wide",
   freqs(b7, "all", "theta"))


# ---- the name rule tries all of transformers' keys: a longer type posenc lacks wins --------
# CONFIG_MAPPING (configuration_auto.py) has "hubert" (6 letters) beside "bert" (4), and
# "prompt_depth_anything" holds "mpt": transformers reads those names as HuBERT and
# PromptDepthAnything, so posenc must not fall to bert or mpt. "options" holds "opt" and no
# longer key: a plain substring match, as transformers' is, named in the warning.
def in_folder(folder):
    os.makedirs(os.path.join(TMP, folder), exist_ok=True)
    with open(os.path.join(TMP, folder, "config.json"), "w") as f:
        json.dump(tiny, f)
    return summary("hf:" + os.path.join(TMP, folder, "config.json"))


for folder, key in (("hubert-base-ls960", "hubert"),
                    ("prompt_depth_anything_vits", "prompt_depth_anything")):
    r, s = in_folder(folder)
    ok(r.rc == 0 and f"contains '{key}'" in r.err and "has no row for" in r.err and
       s.get("model", {}).get("model_type") == "(none)" and
       s.get("all", {}).get("rotary_dim") == str(128 // 2),
       f"folder {folder}: transformers' '{key}', which posenc lacks, named; default rotary",
       (r.err, s))
r, s = in_folder("options")
ok(r.rc == 0 and "read as 'opt'" in r.err and "name 'options'" in r.err and
   "plain substring" in r.err and s.get("model", {}).get("model_type") == "opt",
   "folder options: 'opt' as a plain substring, as AutoConfig matches, warned", (r.err, s))

# the same class with auto_map: the repository's own code runs, and the warning says so
r, s = summary(write("no_type_neox_auto", dict(neox, auto_map={
    "AutoModelForCausalLM": "modeling_x.XForCausalLM"})))
ok(r.rc == 0 and "read as 'gpt_neox'" in r.err and "repository's own code (auto_map)" in r.err,
   "no model_type, a class and auto_map: read by the class, the own-code caveat kept", r.err)


# ---- sliding windows where the modeling file applies config.sliding_window ---------------
# Restated from transformers (configuration_*.py at 008e574, modeling_*.py as stored):
# MistralModel, MixtralModel, Starcoder2Model, Phi3Model, Phi4MultimodalModel, Ministral3Model
# and Qwen3MoeModel
# build one mask, create_sliding_window_causal_mask unless config.sliding_window is None,
# and every attention passes sliding_window=config.sliding_window: each layer sees
# sliding_window positions back. MistralConfig's sliding_window defaults to 4096, the
# others' to None. Qwen2Config / Qwen3Config / Qwen3MoeConfig set it to None without
# use_sliding_window (default false; Qwen2MoeConfig sets 0); Qwen2/Qwen3's default
# layer_types slide from layer max_window_layers on (default 28), each sliding layer
# passing the window. MinistralConfig's default layer_types: every layer sliding when
# sliding_window (default 4096) is set. MiniMaxModel gives the sliding mask to its
# full_attention layers, its linear_attention layers none.
def window(s):
    """(window, layer list) of a summary's model facts; (None, []) when there is none."""
    m = s.get("model", {})
    return (float(m["sliding_window"]) if "sliding_window" in m else None,
            layers(m.get("sliding_layers", "")))


def every(cfg):
    return list(range(cfg["num_hidden_layers"]))


for name in ("mistral-7b-instruct-v0.1", "phi-3-mini-4k-instruct", "starcoder2-3b"):
    cfg = load(name)
    r, s = summary(fix(name))
    ok(r.rc == 0 and cfg["sliding_window"] is not None and
       window(s) == (cfg["sliding_window"], every(cfg)),
       f"{name}: sliding_window {cfg['sliding_window']} on every layer (0-"
       f"{cfg['num_hidden_layers'] - 1})", s.get("model"))
ok(window(summary(fix("mistral-7b-instruct-v0.1"))[1]) == (4096, list(range(32))),
   "Mistral 7B v0.1: window 4096 on layers 0-31")
cfg = load("mistral-7b-v0.3")
r, s = summary(fix("mistral-7b-v0.3"))
ok(r.rc == 0 and cfg["sliding_window"] is None and window(s) == (None, []),
   "Mistral 7B v0.3: sliding_window null, full causal attention: no window", s.get("model"))
# the key left out: MistralConfig's 4096; Mixtral's class default is None
mini = {"hidden_size": 256, "num_attention_heads": 4, "num_hidden_layers": 6}
r, s = summary(write("mistral_nokey", dict(mini, model_type="mistral")))
ok(r.rc == 0 and window(s) == (4096, list(range(6))), "mistral without sliding_window: the "
   "class's 4096 on every layer", s.get("model"))
r, s = summary(write("mixtral_nokey", dict(mini, model_type="mixtral")))
ok(r.rc == 0 and window(s) == (None, []), "mixtral without sliding_window: None, no window", s)
for mt in ("mixtral", "phimoe", "ministral3", "starcoder2", "phi3", "phi4_multimodal"):
    r, s = summary(write(mt + "_win", dict(mini, model_type=mt, sliding_window=512)))
    ok(r.rc == 0 and window(s) == (512, list(range(6))), f"{mt}: sliding_window 512 on every "
       "layer", (r.err, s.get("model")))
    r, s = summary(write(mt + "_null", dict(mini, model_type=mt, sliding_window=None)))
    ok(r.rc == 0 and window(s) == (None, []), f"{mt}: sliding_window null, no window", s)
# MistralModel never reads layer_types: the window stays on every layer
r, s = summary(write("mistral_types", dict(mini, model_type="mistral", sliding_window=64,
                                           layer_types=["full_attention"] * 6)))
ok(r.rc == 0 and window(s) == (64, list(range(6))), "mistral with layer_types: still every "
   "layer (the model does not read them)", s.get("model"))
# a wrapper of Mistral (Mistral3Config's text_config) takes the text model's rule
r, s = summary(write("mistral3_wrap", {"model_type": "mistral3", "text_config": dict(
    mini, model_type="mistral", sliding_window=2048)}))
ok(r.rc == 0 and window(s) == (2048, list(range(6))), "mistral3 wrapper: its Mistral text "
   "model's window", (r.err, s.get("model")))

# Qwen2.5-Math-1.5B-Instruct as published: use_sliding_window false, so Qwen2Config drops
# its sliding_window 4096 (None) and no layer slides
q = load("qwen2.5-math-1.5b-instruct")
r, s = summary(fix("qwen2.5-math-1.5b-instruct"))
ok(r.rc == 0 and q["use_sliding_window"] is False and q["sliding_window"] == 4096 and
   window(s) == (None, []), "Qwen2.5 with use_sliding_window false: no window", s.get("model"))
# the same with use_sliding_window true: layer_types slide from max_window_layers (21) on
r, s = summary(write("qwen25_swa", dict(q, use_sliding_window=True)))
want = [i for i in range(q["num_hidden_layers"]) if i >= q["max_window_layers"]]
ok(r.rc == 0 and want == list(range(21, 28)) and window(s) == (4096, want),
   "Qwen2.5 with use_sliding_window true: window 4096 on layers 21-27 (i >= max_window_layers)",
   s.get("model"))
# ... its own layer_types win over max_window_layers; a null window gives none
lt = ["sliding_attention" if i % 2 else "full_attention" for i in range(q["num_hidden_layers"])]
r, s = summary(write("qwen25_swa_types", dict(q, use_sliding_window=True, layer_types=lt)))
ok(r.rc == 0 and window(s) == (4096, [i for i in range(28) if i % 2]),
   "Qwen2.5 with use_sliding_window and layer_types: the listed sliding layers", s.get("model"))
r, s = summary(write("qwen25_swa_types_off", dict(q, layer_types=lt)))
ok(r.rc == 0 and window(s) == (None, []), "Qwen2.5 with sliding layer_types but "
   "use_sliding_window false: the class's None, no window", s.get("model"))
r, s = summary(write("qwen25_swa_null", dict(q, use_sliding_window=True, sliding_window=None)))
ok(r.rc == 0 and window(s) == (None, []), "Qwen2.5 with use_sliding_window and a null "
   "window: none", s.get("model"))
# Qwen3: the same rule, class defaults sliding_window 4096 and max_window_layers 28
r, s = summary(write("qwen3_swa", dict(mini, model_type="qwen3", num_hidden_layers=30,
                                       use_sliding_window=True)))
ok(r.rc == 0 and window(s) == (4096, [28, 29]), "qwen3 with use_sliding_window and the class "
   "defaults: window 4096 on layers 28-29", s.get("model"))
# Qwen3-MoE: every layer's attention takes config.sliding_window, set with use_sliding_window
moe = dict(mini, model_type="qwen3_moe", sliding_window=1024)
r, s = summary(write("qwen3moe_off", moe))
ok(r.rc == 0 and window(s) == (None, []), "qwen3_moe without use_sliding_window: none", s)
r, s = summary(write("qwen3moe_on", dict(moe, use_sliding_window=True)))
ok(r.rc == 0 and window(s) == (1024, list(range(6))), "qwen3_moe with use_sliding_window: 1024 "
   "on every layer", s.get("model"))
# Qwen2-MoE: no window without use_sliding_window, whatever layer_types say
r, s = summary(write("qwen2moe_off", dict(mini, model_type="qwen2_moe", sliding_window=64,
                                          layer_types=["sliding_attention"] * 6)))
ok(r.rc == 0 and window(s) == (None, []), "qwen2_moe with use_sliding_window false: no "
   "window (the class's 0)", s.get("model"))
# Ministral: default layer_types all sliding with the class's 4096; its own list wins
r, s = summary(write("ministral_def", dict(mini, model_type="ministral")))
ok(r.rc == 0 and window(s) == (4096, list(range(6))), "ministral: class default 4096, every "
   "layer sliding", s.get("model"))
r, s = summary(write("ministral_types", dict(mini, model_type="ministral", sliding_window=32768,
                                             layer_types=["sliding_attention", "full_attention"] * 3)))
ok(r.rc == 0 and window(s) == (32768, [0, 2, 4]), "ministral with layer_types: the listed "
   "sliding layers", s.get("model"))
r, s = summary(write("ministral_null", dict(mini, model_type="ministral", sliding_window=None)))
ok(r.rc == 0 and window(s) == (None, []), "ministral with a null window: none", s)
# MiniMax: the sliding mask on its full_attention layers only
r, s = summary(write("minimax_win", dict(mini, model_type="minimax", sliding_window=128,
                                         layer_types=["linear_attention", "full_attention"] * 3)))
ok(r.rc == 0 and window(s) == (128, [1, 3, 5]), "minimax: the window on its full-attention "
   "layers", s.get("model"))

done()
