#!/usr/bin/env python3
"""Remote-code model types and transformers stragglers read by their own rules:
DeciLM / Nemotron-NAS block_configs, MiMo, OpenELM, Jais and BTLM (ALiBi or a learned table),
Falcon's RefinedWeb remote code, EXAONE 3, Phi-3-small, Phi-3-vision, Phi-4-multimodal, the old
Phi remote code, Muse Glimmer's text model, deepseek_ref and step3p7/step3p5. Apart from
Llama-3.3-Nemotron-Super-49B-v1's (a fixture), no published config of these was found vendored
in a repository: each other config below is written from the model card's config.json values,
and the expected numbers are the modeling files' formulas restated with numpy (doc/models.md
names the file each one follows)."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from tap import done, ok, run  # noqa: E402
from hf_harness import (UNKNOWN, bias_slopes, close, freqs, inv_freq, layers, llama3,  # noqa: E402
                        press_slopes, remote_ok, setup, summary, write)

EXE, TMP = setup(sys.argv[1])


# ---- DeciLM / Llama-3.1-Nemotron-51B (nemotron-nas): block_configs --------------------------
# Llama-3_1-Nemotron-51B-Instruct config.json values (hidden 8192, 64 heads, base 500000,
# llama3 factor 8 over 8192); four blocks written here: attention, no_op, replace_with_linear,
# attention. DeciLMDecoderLayer skips a no-op attention; a linear replacement has no rotary.
blk = [{"attention": {"n_heads_in_group": 8, "no_op": False, "replace_with_linear": False}},
       {"attention": {"n_heads_in_group": None, "no_op": True, "replace_with_linear": False}},
       {"attention": {"n_heads_in_group": None, "no_op": False, "replace_with_linear": True}},
       {"attention": {"n_heads_in_group": 8, "no_op": False, "replace_with_linear": False}}]
rs = {"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
      "original_max_position_embeddings": 8192, "rope_type": "llama3"}
nas = write("nas", {"model_type": "nemotron-nas", "architectures": ["DeciLMForCausalLM"],
                    "auto_map": {"AutoModelForCausalLM": "modeling_decilm.DeciLMForCausalLM"},
                    "hidden_size": 8192, "num_attention_heads": 64, "num_hidden_layers": 4,
                    "max_position_embeddings": 131072, "rope_theta": 500000.0,
                    "rope_scaling": rs, "block_configs": blk})
r, s = summary(nas)
ok(remote_ok(r, s) and layers(s.get("nope", {}).get("layers", "")) == [1, 2] and
   layers(s.get("rope", {}).get("layers", "")) == [0, 3],
   "Nemotron-NAS: no_op and replace_with_linear blocks carry no RoPE", (r.err, s.keys()))
ok(close(freqs(nas, "rope", "llama3_theta"), llama3(500000.0, 128, 8, 1, 4, 8192), 4e-15),
   "Nemotron-NAS: llama3 frequencies over 8192 // 64 = 128 dims", freqs(nas, "rope", "llama3_theta"))
bad = write("nasbad", {"model_type": "deci", "hidden_size": 64, "num_attention_heads": 4,
                       "num_hidden_layers": 3, "block_configs": blk})
r = run(EXE, "model", bad)
ok(r.rc == 1 and "block_configs" in r.err, "DeciLM: block_configs of the wrong length refused", r.err)
# DeciLM-7B (model_type deci): num_key_value_heads_per_layer sizes K/V only; Llama's rotary
d7 = write("deci7b", {"model_type": "deci", "hidden_size": 4096, "num_attention_heads": 32,
                      "num_hidden_layers": 2, "num_key_value_heads_per_layer": [4, 2],
                      "max_position_embeddings": 8192, "rope_theta": 10000.0})
r, s = summary(d7)
ok(remote_ok(r, s) and close(freqs(d7, "all"), inv_freq(1e4, 128)),
   "DeciLM-7B: every layer 10000^(-2i/128)", (r.err, s.get("all")))
r, s = summary(write("decilm", {"model_type": "decilm", "hidden_size": 4096,
                                "num_attention_heads": 32, "num_hidden_layers": 1}))
ok(remote_ok(r, s), "decilm: read as DeciLM's remote code", r.err)

# ---- MiMo-7B: Qwen2's rotary, base 640000 (model card), 4096 // 32 heads -------------------
mimo = write("mimo", {"model_type": "mimo", "hidden_size": 4096, "num_attention_heads": 32,
                      "num_hidden_layers": 36, "num_nextn_predict_layers": 1,
                      "max_position_embeddings": 32768, "rope_theta": 640000})
r, s = summary(mimo)
ok(remote_ok(r, s) and s.get("model", {}).get("layers") == "36" and
   close(freqs(mimo, "all"), inv_freq(640000.0, 128)),
   "MiMo: 36 layers (the MTP layer outside), 640000^(-2i/128)", (r.err, s.get("model")))

# ---- OpenELM-270M: head_dim 64, rope_freq_constant 10000, 16 layers, per-layer heads -------
elm = write("openelm", {"model_type": "openelm", "head_dim": 64, "model_dim": 1280,
                        "num_transformer_layers": 16, "num_query_heads": [12] * 8 + [16] * 8,
                        "num_kv_heads": [3] * 16, "max_context_length": 2048,
                        "rope_freq_constant": 20000, "rope_max_length": 4096})
r, s = summary(elm)
g = s.get("all", {})
ok(remote_ok(r, s) and s.get("model", {}).get("layers") == "16" and
   s.get("model", {}).get("context") == "2048" and g.get("layout") == "half" and
   close(freqs(elm, "all"), inv_freq(20000.0, 64)),
   "OpenELM: 16 layers, context max_context_length, rope_freq_constant^(-2i/64)", (r.err, s))

# ---- Jais / BTLM: ALiBi -slope |i - j| or the learned table ----------------------------------


# jais-13b: n_embd 5120, 40 heads, 40 layers, n_positions 2048, position_embedding_type alibi
jais = write("jais", {"model_type": "jais", "n_embd": 5120, "n_head": 40, "n_layer": 40,
                      "n_positions": 2048, "position_embedding_type": "alibi"})
r, s = summary(jais)
ok(remote_ok(r, s) and s.get("all", {}).get("spec", "").startswith("alibi") and
   "form=paper" in s.get("all", {}).get("spec", ""),
   "Jais: ALiBi, -slope |i - j|", (r.err, s.get("all")))
got = bias_slopes(jais)
ok(close(got, press_slopes(40)), "Jais: 40 slopes as _get_alibi_slopes", got)
r = run(EXE, "model", write("jaisf", {"model_type": "jais", "n_embd": 256, "n_head": 4,
                                      "position_embedding_type": "alibi",
                                      "alibi_scaling": {"type": "linear", "factor": 4.0}}))
ok(r.rc == 1 and "alibi_scaling.factor" in r.err, "Jais: a slope-dividing factor refused", r.err)
r = run(EXE, "model", write("jaisd", {"model_type": "btlm", "n_embd": 256, "n_head": 4,
                                      "position_embedding_type": "alibi",
                                      "alibi_scaling": {"type": "linear", "train_seq_len": 2048}}))
ok(r.rc == 0 and "train_seq_len" in r.err and "dynamic" in r.err,
   "BTLM: dynamic alibi_scaling read unscaled, with a warning", r.err)
# BTLM-3B-8K: 2560 wide, 32 heads, 8192 positions
btlm = write("btlm", {"model_type": "btlm", "n_embd": 2560, "n_head": 32, "n_layer": 32,
                      "n_positions": 8192, "position_embedding_type": "alibi"})
ok(close(bias_slopes(btlm), press_slopes(32)), "BTLM: 32 slopes 2^(-8(k+1)/32)", bias_slopes(btlm))
r, s = summary(write("jaisl", {"model_type": "jais", "n_embd": 768, "n_head": 12,
                               "n_positions": 1024}))
ok(r.rc == 0 and s.get("model", {}).get("table_rows") == "1024" and
   s.get("model", {}).get("table_cols") == "768",
   "Jais: the class default position_embedding_type learned is the wpe table", s.get("model"))
r = run(EXE, "model", write("jaisr", {"model_type": "jais", "n_embd": 768, "n_head": 12,
                                      "position_embedding_type": "rotary"}))
ok(r.rc == 1 and "position_embedding_type" in r.err, "Jais: another type refused", r.err)

# ---- RefinedWeb (Falcon remote code): RoPE base 10000 or ALiBi by the alibi flag -----------
for t in ("RefinedWebModel", "RefinedWeb"):
    rw = write(t, {"model_type": t, "hidden_size": 4544, "n_head": 71, "n_layer": 32,
                   "alibi": False, "multi_query": True})
    r, s = summary(rw)
    ok(remote_ok(r, s) and s.get("all", {}).get("layout") == "half" and
       close(freqs(rw, "all"), inv_freq(1e4, 64)),
       t + ": rotate_half at 10000 over 4544 // 71 = 64", (r.err, s.get("all")))
rw = write("rwalibi", {"model_type": "RefinedWeb", "hidden_size": 1024, "n_head": 16,
                       "n_layer": 2, "alibi": True})
ok(close(bias_slopes(rw), press_slopes(16)), "RefinedWeb alibi: BLOOM's slopes", bias_slopes(rw))

# ---- EXAONE 3.5 7.8B: llama3 scaling, rotary_pct never read ---------------------------------
ex = write("exaone", {"model_type": "exaone", "hidden_size": 4096, "num_attention_heads": 32,
                      "num_layers": 32, "max_position_embeddings": 32768, "rope_theta": 1000000,
                      "rotary_pct": 0.25,
                      "rope_scaling": {"factor": 8.0, "high_freq_factor": 4.0,
                                       "low_freq_factor": 1.0,
                                       "original_max_position_embeddings": 8192,
                                       "rope_type": "llama3"}})
r, s = summary(ex)
ok(remote_ok(r, s) and s.get("model", {}).get("layers") == "32" and
   s.get("all", {}).get("rotary_dim") == "128" and
   close(freqs(ex, "all", "llama3_theta"), llama3(1e6, 128, 8, 1, 4, 8192), 4e-15),
   "EXAONE 3.5: the whole 128-wide head (rotary_pct unread), llama3", (r.err, s.get("all")))

# ---- Phi-3-small: rope_embedding_base, rope_position_scale a linear factor ------------------
p3s = write("p3s", {"model_type": "phi3small", "hidden_size": 4096, "num_attention_heads": 32,
                    "num_hidden_layers": 32, "max_position_embeddings": 8192,
                    "rope_embedding_base": 1000000, "rope_position_scale": 1.0,
                    "dense_attention_every_n_layers": 2})
r, s = summary(p3s)
ok(remote_ok(r, s) and s.get("all", {}).get("scaling") == "none" and
   close(freqs(p3s, "all"), inv_freq(1e6, 128)),
   "Phi-3-small: 1e6^(-2i/128), position scale 1 is no scaling", (r.err, s.get("all")))
p3l = write("p3l", {"model_type": "phi3small", "hidden_size": 4096, "num_attention_heads": 32,
                    "num_hidden_layers": 2, "max_position_embeddings": 8192,
                    "rope_embedding_base": 1000000, "rope_position_scale": 2.0})
ok(close(freqs(p3l, "all", "linear_theta"), inv_freq(1e6, 128) / 2),
   "Phi-3-small: rope_position_scale 2 divides every frequency", freqs(p3l, "all", "linear_theta"))

# ---- Phi-3-vision, Phi-4-multimodal (Phi-3's text model; partial rotary, longrope) ---------
r, s = summary(write("p3v", {"model_type": "phi3_v", "hidden_size": 3072,
                             "num_attention_heads": 32, "num_hidden_layers": 32,
                             "max_position_embeddings": 131072, "rope_theta": 10000}))
ok(remote_ok(r, s) and s.get("all", {}).get("rotary_dim") == "96", "Phi-3-vision: 96-wide heads",
   (r.err, s.get("all")))
short = [1.0 + 0.01 * i for i in range(48)]
long_ = [2.0 + 0.5 * i for i in range(48)]
p4 = write("p4mm", {"model_type": "phi4mm", "hidden_size": 3072, "num_attention_heads": 24,
                    "num_hidden_layers": 32, "max_position_embeddings": 131072,
                    "original_max_position_embeddings": 4096, "rope_theta": 10000.0,
                    "partial_rotary_factor": 0.75,
                    "rope_scaling": {"type": "longrope", "short_factor": short,
                                     "long_factor": long_}})
r, s = summary(p4)
ok(remote_ok(r, s) and s.get("all", {}).get("rotary_dim") == "96",
   "Phi-4-multimodal: int(128 * 0.75) = 96 dims turn", (r.err, s.get("all")))
# evaluated at the 4096 it was trained on: _compute_longrope_parameters takes short_factor
ok(close(freqs(p4, "all", "longrope_theta"), inv_freq(1e4, 96) / np.array(short)),
   "Phi-4-multimodal: longrope's short factors within 4096", freqs(p4, "all", "longrope_theta"))

# ---- phi-msft, mixformer-sequential (Phi-1.5 / Phi-2 remote code): rotary_dim 32 -----------
for t in ("phi-msft", "mixformer-sequential"):
    ph = write(t, {"model_type": t, "n_embd": 2560, "n_head": 32, "n_layer": 32,
                   "n_positions": 2048, "rotary_dim": 32})
    r, s = summary(ph)
    ok(remote_ok(r, s) and s.get("all", {}).get("rotary_dim") == "32" and
       s.get("all", {}).get("layout") == "half" and close(freqs(ph, "all"), inv_freq(1e4, 32)),
       t + ": 32 of 80 dims, rotate_half at 10000", (r.err, s.get("all")))

# ---- Muse Glimmer's text model: layer_rope_theta 0 is NoPE -----------------------------------
mg = write("muse", {"model_type": "muse_glimmer_text", "num_hidden_layers": 6,
                    "rope_parameters": {"rope_type": "default", "rope_theta": 500000}})
r, s = summary(mg)
# class default: (n - 1 - i) % 4 == 0 NoPE and full, so layers 1 and 5 of 6
ok(r.rc == 0 and UNKNOWN not in r.err and layers(s.get("nope", {}).get("layers", "")) == [1, 5] and
   close(freqs(mg, "rope"), inv_freq(5e5, 128)),
   "Muse Glimmer: the class default NoPE layers 1 and 5 of 6, the rest 5e5^(-2i/128)",
   (r.err, s.keys()))
mg = write("muse2", {"model_type": "muse_glimmer_text", "num_hidden_layers": 3,
                     "layer_rope_theta": [0, 500000, 10000],
                     "rope_parameters": {"rope_type": "default", "rope_theta": 500000}})
r, s = summary(mg)
ok(r.rc == 0 and layers(s.get("nope", {}).get("layers", "")) == [0] and
   "layer_rope_theta[2]" in r.err and close(freqs(mg, "rope"), inv_freq(5e5, 128)),
   "Muse Glimmer: a non-zero layer_rope_theta only switches the shared rotary on", (r.err, s))

# ---- step3p7 refused, deepseek_ref read as DeepSeek-V4 --------------------------------------
r = run(EXE, "model", write("step", {"model_type": "step3p7", "hidden_size": 4096,
                                     "num_attention_heads": 64, "num_hidden_layers": 2}))
ok(r.rc == 1 and "per layer" in r.err and UNKNOWN not in r.err, "step3p7: refused with why", r.err)
dr = write("dsref", {"model_type": "deepseek_ref", "num_hidden_layers": 3,
                     "compress_ratios": [0, 4, 128], "kv_lora_rank": 512})
r, s = summary(dr)
ok(r.rc == 0 and UNKNOWN not in r.err and close(freqs(dr, "local"), inv_freq(1e4, 64)) and
   close(freqs(dr, "compress"), inv_freq(40000.0, 64)),
   "deepseek_ref: sliding at rope_theta 10000, compressed at compress_rope_theta 40000",
   (r.err, s.keys()))

# ---- Phi-3-small-128k: the block's own short_mscale / long_mscale (s12-v1) ------------------
# Phi-3-small-128k-instruct's block (type su, original 8192, long_mscale 1.1902380714238083,
# short_mscale 1.0; factors written here). vLLM's phi3_small.py hands the block to get_rope,
# whose Phi3LongRoPEScaledRotaryEmbedding multiplies cos and sin by short_mscale up to the
# original length and by long_mscale beyond it, in place of sqrt(1 + ln(s) / ln(original)).
p3m = write("p3m", {"model_type": "phi3small", "hidden_size": 4096, "num_attention_heads": 32,
                    "num_hidden_layers": 2, "max_position_embeddings": 131072,
                    "rope_embedding_base": 1000000, "rope_position_scale": 1.0,
                    "rope_scaling": {"type": "su", "original_max_position_embeddings": 8192,
                                     "short_factor": [1.0] * 64,
                                     "long_factor": [1.0 + 0.25 * i for i in range(64)],
                                     "short_mscale": 1.0,
                                     "long_mscale": 1.1902380714238083}})
r, s = summary(p3m)
ok(remote_ok(r, s) and "mscale" not in r.err and
   abs(float(s.get("all", {}).get("attention_factor", "nan")) - 1.0) < 1e-12,
   "Phi-3-small-128k: short_mscale 1 within 8192 (not the formula's 1.1435)", (r.err, s.get("all")))
r = run(EXE, "freqs", "-s", p3m, "--length", "131072", "-o", os.devnull)
ok(r.rc == 0 and "attention factor 1.1902381" in r.err,
   "Phi-3-small-128k: long_mscale 1.1902381 beyond 8192", r.err)
r, s = summary(write("p3v2", {"model_type": "phi3_v", "hidden_size": 3072,
                              "num_attention_heads": 32, "num_hidden_layers": 2,
                              "max_position_embeddings": 131072,
                              "original_max_position_embeddings": 4096, "rope_theta": 10000.0,
                              "rope_scaling": {"type": "su", "short_factor": [1.0] * 48,
                                               "long_factor": [2.0] * 48}}))
# Phi-3-vision's configs say phi3_v; longrope's factor 131072 / 4096 = 32
ok(remote_ok(r, s) and s.get("all", {}).get("factor") == "32",
   "Phi-3-vision: model_type phi3_v is the remote row", (r.err, s.get("all")))

# ---- Llama-3.3-Nemotron-Super-49B-v1 (published fixture): no_op, linear and windowed blocks --
# modeling_decilm.py's DeciLMDecoderLayer: a no_op attention is skipped and a
# replace_with_linear one is DeciLMLinearAttention (no rotary); block_config.py's AttentionConfig
# makes a block with window_length sliding (or sink) and one with mamba or llama4 another kind
# of block, none of which posenc restates, so those are refused rather than shown as full.
import json  # noqa: E402
with open(os.path.join(os.path.dirname(__file__), "..", "fixtures", "hf",
                       "llama-3.3-nemotron-super-49b-v1.json")) as f:
    n49 = json.load(f)
for i in (3, 40):
    n49["block_configs"][i]["attention"].update(no_op=False, replace_with_linear=True,
                                                n_heads_in_group=None)
no_rope = [i for i, b in enumerate(n49["block_configs"])
           if b["attention"]["no_op"] or b["attention"]["replace_with_linear"]]
r, s = summary(write("n49", n49))
ok(remote_ok(r, s) and len(no_rope) == 33 and
   layers(s.get("nope", {}).get("layers", "")) == no_rope and
   layers(s.get("rope", {}).get("layers", "")) == [i for i in range(80) if i not in no_rope],
   "Nemotron Super 49B: its 31 no_op blocks and 2 linear ones carry no RoPE", (r.err, s.keys()))
ok(close(freqs(write("n49", n49), "rope", "llama3_theta"),
         llama3(500000.0, 128, 8, 1, 4, 8192), 4e-15),
   "Nemotron Super 49B: llama3 factor 8 over 8192 // 64 = 128 dims at 500000", "")
for key, val in (("window_length", 4096), ("mamba", {"state_dim": 128}), ("llama4", {})):
    w = json.loads(json.dumps(n49))
    w["block_configs"][5]["attention"][key] = val
    r = run(EXE, "model", write("n49" + key, w))
    ok(r.rc == 1 and "block_configs[5].attention." + key in r.err,
       "Nemotron-NAS: an attending block with " + key + " is refused, not read as full", r.err)
w = json.loads(json.dumps(n49))
w["block_configs"][6]["attention"]["window_length"] = 4096  # a no_op block: cleared, read
r, s = summary(write("n49noopw", w))
ok(r.rc == 0 and 6 in layers(s.get("nope", {}).get("layers", "")),
   "Nemotron-NAS: window_length on a no_op block is cleared, as AttentionConfig does", r.err)

# ---- Step 3.5 / 3.7: step3p7 wraps a step3p5 text_config, refused with the per-layer reason --
# Step-3.7-Flash's shape (Step3p7ForConditionalGeneration, text_config Step3p5ForCausalLM:
# 45 layers, head 128, window 512, rope_theta 5e6 on full layers and 1e4 on sliding ones,
# partial_rotary_factors 0.5 / 1, llama3 factor 2 over 131072 on yarn_only_types). The text
# model is step3p5 (Step3p7TextConfig's model_type); its per-layer rotary is not restated.
st_types = (["full_attention"] + ["sliding_attention"] * 3) * 11 + ["full_attention"]
st_text = {"architectures": ["Step3p5ForCausalLM"], "model_type": "step3p5",
           "hidden_size": 4096, "num_hidden_layers": 45, "num_attention_heads": 64,
           "num_attention_groups": 8, "head_dim": 128, "max_position_embeddings": 262144,
           "sliding_window": 512, "layer_types": st_types,
           "rope_theta": [5e6 if t == "full_attention" else 1e4 for t in st_types],
           "partial_rotary_factors": [0.5 if t == "full_attention" else 1.0 for t in st_types],
           "rope_scaling": {"rope_type": "llama3", "factor": 2.0, "low_freq_factor": 1.0,
                            "high_freq_factor": 32.0,
                            "original_max_position_embeddings": 131072},
           "yarn_only_types": ["full_attention"]}
for name, doc in (("step35", st_text),
                  ("step37", {"architectures": ["Step3p7ForConditionalGeneration"],
                              "model_type": "step3p7", "text_config": st_text,
                              "vision_config": {"model_type": "perception_encoder"}})):
    r = run(EXE, "model", write(name, doc))
    ok(r.rc == 1 and "model_type 'step3p5'" in r.err and "per layer" in r.err and
       "rope_theta: is not" not in r.err and UNKNOWN not in r.err,
       name + ": the step3p5 text model refused with why, not failed on the rope_theta list",
       r.err)

# ---- Muse Glimmer's wrapper: MuseGlimmerConfig (muse_glimmer) builds MuseGlimmerTextConfig from
# text_config, so a text_config without its own model_type is still Muse Glimmer's text model:
# layer_rope_theta 0 on every 4th layer counted back from the last (51, 47, ..., 3) is NoPE.
mg_n = 52
mg_text = {"hidden_size": 6656, "num_attention_heads": 32, "num_key_value_heads": 2,
           "head_dim": 128, "num_hidden_layers": mg_n, "max_position_embeddings": 131072,
           "rope_parameters": {"rope_type": "default", "rope_theta": 500000.0},
           "layer_rope_theta": [0 if (mg_n - 1 - i) % 4 == 0 else 500000.0 for i in range(mg_n)]}
mg = write("mg_wrap", {"model_type": "muse_glimmer", "text_config": mg_text})
r, s = summary(mg)
ok(r.rc == 0 and UNKNOWN not in r.err and
   layers(s.get("nope", {}).get("layers", "")) == list(range(3, mg_n, 4)) and
   close(freqs(mg, "rope"), inv_freq(500000.0, 128)),
   "muse_glimmer wrapper: text_config read as muse_glimmer_text (NoPE 3, 7, ..., 51)",
   (r.err, s.keys()))

done()
