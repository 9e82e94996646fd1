#!/usr/bin/env python3
"""The config.json reader for remote-code model types (auto_map) and two transformers types:
deepseek, minicpm, minicpm3, hunyuan, bailing_moe, grok-1, arctic, step3 (step3_vl /
step3_text), kimi_vl, glm4v_moe, molmo, plamo, plamo2, solar. No vendored copy of these
published configs was found, so each config is written here from the values its model card
publishes (sizes, rope_theta, context); the longrope factors are made up for the test. The
expected frequencies are restated with numpy from each model's own rotary code (doc/models.md
cites the files): 1 / base^(2i/d) over the rotated width d, rotate_half unless said."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from tap import done, ok, run  # noqa: E402
from hf_harness import (REMOTE, UNKNOWN, close, fix, freqs, inv_freq, load, setup, summary,  # noqa: E402
                        write)

EXE, TMP = setup(sys.argv[1])


def read_ok(name, r, s, remote=True):
    """Read without the unknown-type warning; the reference names the model's own file."""
    ref = s.get("model", {}).get("reference", "")
    ok(r.rc == 0 and UNKNOWN not in r.err and (REMOTE in ref) == remote,
       f"{name}: in the table, reference {'remote code' if remote else 'transformers'}",
       (r.rc, r.err, ref))


AUTO = {"AutoModelForCausalLM": "modeling_x.XForCausalLM"}

# ---- deepseek: DeepSeek-MoE 16B (modeling_deepseek.py): 2048 // 16 = 128, rotate_half --------
ds = {"model_type": "deepseek", "auto_map": AUTO, "hidden_size": 2048,
      "num_attention_heads": 16, "num_hidden_layers": 28, "max_position_embeddings": 4096,
      "rope_theta": 10000, "rope_scaling": None}
r, s = summary(write("deepseek", ds))
read_ok("DeepSeek-MoE 16B", r, s)
g = s.get("all", {})
ok(g.get("head_dim") == "128" and g.get("layout") == "half" and
   s.get("model", {}).get("context") == "4096" and
   close(freqs(write("deepseek", ds), "all"), inv_freq(1e4, 128)),
   "DeepSeek-MoE 16B: 128-wide heads, rotate_half, base 10000", g)
# DeepseekLinearScalingRotaryEmbedding divides the positions by the factor
lin = dict(ds, rope_scaling={"type": "linear", "factor": 4.0})
ok(close(freqs(write("deepseek_lin", lin), "all", "scaled_theta"), inv_freq(1e4, 128) / 4),
   "DeepSeek-MoE: linear scaling, t / factor")
# _init_rope raises ValueError on any other type
r = run(EXE, "model", write("deepseek_yarn", dict(ds, rope_scaling={"type": "yarn",
                                                                 "factor": 4.0})))
ok(r.rc == 1 and "yarn" in r.err and "own code" in r.err,
   "DeepSeek-MoE: yarn refused (the model's own code raises)", r.err)
# the class default base when the file has none
ok(close(freqs(write("deepseek_def", {k: v for k, v in ds.items() if k != "rope_theta"}), "all"),
         inv_freq(1e4, 128)), "DeepSeek-MoE: class default rope_theta 10000")

# ---- minicpm: MiniCPM-2B (2304 // 36 = 64) and MiniCPM4's longrope ---------------------------
mc = {"model_type": "minicpm", "auto_map": AUTO, "hidden_size": 2304, "num_attention_heads": 36,
      "num_hidden_layers": 40, "max_position_embeddings": 4096, "rope_theta": 10000}
r, s = summary(write("minicpm", mc))
read_ok("MiniCPM-2B", r, s)
ok(s.get("all", {}).get("head_dim") == "64" and
   close(freqs(write("minicpm", mc), "all"), inv_freq(1e4, 64)),
   "MiniCPM-2B: 64-wide heads at 10000", s.get("all"))
# MiniCPMLongRoPE: inv_freq / ext_factors, the short factors within
# original_max_position_embeddings; scaling_factor sqrt(1 + log(1) / log(32768)) = 1
short = [1.0 + 0.05 * i for i in range(64)]
long_ = [1.0 + 0.5 * i for i in range(64)]
mc4 = {"model_type": "minicpm", "auto_map": AUTO, "hidden_size": 4096,
       "num_attention_heads": 32, "num_hidden_layers": 32, "max_position_embeddings": 32768,
       "rope_theta": 10000, "rope_scaling": {
           "rope_type": "longrope", "short_factor": short, "long_factor": long_,
           "original_max_position_embeddings": 32768}}
r, s = summary(write("minicpm4", mc4))
g = s.get("all", {})
ok(r.rc == 0 and g.get("attention_factor") == "1" and
   close(freqs(write("minicpm4", mc4), "all", "scaled_theta"),
         inv_freq(1e4, 128) / np.array(short)),
   "MiniCPM4 longrope: short factors, attention factor 1", (r.err, g))
# a context past original_max_position_embeddings: cos and sin times
# sqrt(1 + ln(65536 / 32768) / ln 32768); MiniCPMRotaryEmbedding.__init__ builds the cos/sin
# cache for max_position_embeddings (65536 > 32768), so the long factors serve every length
mc4l = dict(mc4, max_position_embeddings=65536)
r, s = summary(write("minicpm4_long", mc4l))
att = float(s.get("all", {}).get("attention_factor", "nan"))
ok(abs(att - np.sqrt(1 + np.log(65536 / 32768) / np.log(32768))) <= 1e-15 and
   close(freqs(write("minicpm4_long", mc4l), "all", "scaled_theta"),
         inv_freq(1e4, 128) / np.array(long_)),
   "MiniCPM4 longrope, context 65536: long factors, scaling_factor sqrt(1 + ln 2 / ln 32768)",
   (r.err, att))
# MiniCPM4's kv_channels (when set) is the head width
mck = dict(mc4, kv_channels=64)
del mck["rope_scaling"]
ok(close(freqs(write("minicpm_kv", mck), "all"), inv_freq(1e4, 64)),
   "MiniCPM: kv_channels 64 is the rotated head")

# ---- minicpm3: MiniCPM3-4B, MLA with a 32-wide rope part, rotate_half -------------------------
short3 = [1.0 + 0.1 * i for i in range(16)]
long3 = [2.0 + 0.1 * i for i in range(16)]
mc3 = {"model_type": "minicpm3", "auto_map": AUTO, "hidden_size": 2560,
       "num_attention_heads": 40, "num_hidden_layers": 62, "qk_nope_head_dim": 64,
       "qk_rope_head_dim": 32, "kv_lora_rank": 256, "q_lora_rank": 768, "v_head_dim": 64,
       "max_position_embeddings": 32768, "rope_theta": 10000, "rope_scaling": {
           "type": "longrope", "short_factor": short3, "long_factor": long3,
           "original_max_position_embeddings": 32768}}
r, s = summary(write("minicpm3", mc3))
read_ok("MiniCPM3-4B", r, s)
g = s.get("all", {})
ok(g.get("rotary_dim") == "32" and g.get("layout") == "half" and
   close(freqs(write("minicpm3", mc3), "all"), inv_freq(1e4, 32)) and
   close(freqs(write("minicpm3", mc3), "all", "scaled_theta"),
         inv_freq(1e4, 32) / np.array(short3)),
   "MiniCPM3: qk_rope_head_dim 32, rotate_half (not DeepSeek's pairs), short factors", g)

# ---- hunyuan: Hunyuan-Large, dynamic with alpha = base * alpha^(d / (d - 2)) ------------------
hy = {"model_type": "hunyuan", "auto_map": AUTO, "hidden_size": 6400,
      "num_attention_heads": 80, "num_hidden_layers": 64, "max_position_embeddings": 131072,
      "rope_theta": 10000, "rope_scaling": {"type": "dynamic", "alpha": 1000.0, "factor": 1.0},
      "use_cla": True, "cla_share_factor": 2}
r, s = summary(write("hunyuan", hy))
read_ok("Hunyuan-Large", r, s)
ok(s.get("all", {}).get("head_dim") == "80" and
   close(freqs(write("hunyuan", hy), "all"), inv_freq(1e4 * 1000.0 ** (80 / 78), 80)),
   "Hunyuan-Large: NTK-alpha base 1e4 * 1000^(80/78) over 80-wide heads", s.get("all"))
hyh = dict(hy, hidden_size=4096, num_attention_heads=32, attention_head_dim=128)
ok(close(freqs(write("hunyuan_hd", hyh), "all"), inv_freq(1e4 * 1000.0 ** (128 / 126), 128)),
   "Hunyuan: attention_head_dim is the head width")
# Hunyuan-A13B's block carries YaRN keys beside alpha: its own code never reads them
a13 = dict(hyh, rope_scaling={"type": "dynamic", "alpha": 1000.0, "factor": 1.0,
                              "beta_fast": 32, "mscale": 1.0})
r = run(EXE, "model", write("hunyuan_a13", a13))
ok(r.rc == 0 and "rope_scaling.beta_fast: not read" in r.err and
   "own code does not read it" in r.err and "reference warns" not in r.err,
   "Hunyuan: unread YaRN keys are warned as unread by the model's own code", r.err)
r = run(EXE, "model", write("hunyuan_l3", dict(hy, rope_scaling={"type": "llama3",
                                                                "factor": 8.0})))
ok(r.rc == 1 and "llama3" in r.err, "Hunyuan: llama3 refused (own code raises)", r.err)

# ---- bailing_moe: Ling-lite-1.5 (whole head) and Ling-mini-2.0 (partial_rotary_factor 0.5) ----
ling = {"model_type": "bailing_moe", "auto_map": AUTO, "hidden_size": 2048,
        "num_attention_heads": 16, "num_hidden_layers": 28, "max_position_embeddings": 32768,
        "rope_theta": 600000, "rope_scaling": None}
r, s = summary(write("ling", ling))
read_ok("Ling-lite-1.5", r, s)
ok(close(freqs(write("ling", ling), "all"), inv_freq(6e5, 128)),
   "Ling-lite-1.5: 128-wide heads at 600000")
ling2 = dict(ling, num_hidden_layers=20, head_dim=128, partial_rotary_factor=0.5,
             architectures=["BailingMoeV2ForCausalLM"])
r, s = summary(write("ling2", ling2))
ok(s.get("all", {}).get("rotary_dim") == "64" and
   close(freqs(write("ling2", ling2), "all"), inv_freq(6e5, 64)),
   "Ling-mini-2.0: int(128 * 0.5) = 64 dimensions turn", s.get("all"))

# ---- grok-1: 6144 // 48 = 128, rotate_half, no rope_scaling read ------------------------------
grok = {"model_type": "grok-1", "auto_map": AUTO, "hidden_size": 6144,
        "num_attention_heads": 48, "num_hidden_layers": 64, "num_key_value_heads": 8,
        "max_position_embeddings": 8192, "rope_theta": 10000}
r, s = summary(write("grok", grok))
read_ok("Grok-1", r, s)
ok(s.get("all", {}).get("layout") == "half" and s.get("model", {}).get("context") == "8192" and
   close(freqs(write("grok", grok), "all"), inv_freq(1e4, 128)),
   "Grok-1: 128-wide heads at 10000", s.get("all"))
r, s = summary(write("grok_scaled", dict(grok, rope_scaling={"type": "linear", "factor": 2.0})))
ok(r.rc == 0 and "rope_scaling: not read" in r.err and s.get("all", {}).get("scaling") == "none",
   "Grok-1: a rope_scaling block is not read (warned)", (r.err, s.get("all")))

# ---- arctic: Snowflake Arctic, 7168 // 56 = 128; class default base 1e6 -----------------------
arc = {"model_type": "arctic", "auto_map": AUTO, "hidden_size": 7168,
       "num_attention_heads": 56, "num_hidden_layers": 35, "max_position_embeddings": 4096,
       "rope_theta": 10000}
r, s = summary(write("arctic", arc))
read_ok("Arctic", r, s)
ok(close(freqs(write("arctic", arc), "all"), inv_freq(1e4, 128)),
   "Arctic-instruct: 128-wide heads at 10000")
ok(close(freqs(write("arctic_def", {k: v for k, v in arc.items() if k != "rope_theta"}), "all"),
         inv_freq(1e6, 128)), "Arctic: ArcticConfig's default rope_theta 1e6")

# ---- step3: step3_vl wraps step3_text; head_dim 256, max_position_embedding ------------------
st = {"model_type": "step3_vl", "auto_map": AUTO, "text_config": {
    "model_type": "step3_text", "hidden_size": 7168, "num_attention_heads": 64,
    "num_attention_groups": 1, "head_dim": 256, "num_hidden_layers": 61,
    "max_position_embedding": 65536, "rope_theta": 500000}}
r, s = summary(write("step3", st))
read_ok("Step3", r, s)
ok(s.get("model", {}).get("model_type") == "step3_text" and
   s.get("model", {}).get("context") == "65536" and
   close(freqs(write("step3", st), "all"), inv_freq(5e5, 256)),
   "Step3: text model 256-wide heads at 500000, context max_position_embedding", s.get("model"))

# ---- kimi_vl: text_config is DeepSeek-V3's (MLA, pairs 2i, 2i+1 on qk_rope_head_dim) ---------
kimi = {"model_type": "kimi_vl", "auto_map": AUTO, "text_config": {
    "model_type": "deepseek_v3", "hidden_size": 2048, "num_attention_heads": 16,
    "num_hidden_layers": 27, "kv_lora_rank": 512, "q_lora_rank": None,
    "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128,
    "max_position_embeddings": 131072, "rope_theta": 800000}}
r, s = summary(write("kimivl", kimi))
ok(REMOTE in s.get("model", {}).get("reference", ""),
   "Kimi-VL: the reference is its own modeling file (remote code)", s.get("model"))
ok(r.rc == 0 and UNKNOWN not in r.err and s.get("all", {}).get("layout") == "interleaved" and
   s.get("all", {}).get("rotary_dim") == "64" and
   close(freqs(write("kimivl", kimi), "all"), inv_freq(8e5, 64)),
   "Kimi-VL: DeepSeek-V3 text model, 64 rope dims in pairs 2i, 2i+1 at 800000",
   (r.err, s.get("all")))

# ---- glm4v_moe (transformers): Glm4vMoeTextAttention uses rotate_half on the rotated half ----
glm = {"model_type": "glm4v_moe", "text_config": {
    "model_type": "glm4v_moe_text", "hidden_size": 4096, "num_attention_heads": 96,
    "head_dim": 128, "num_hidden_layers": 46, "partial_rotary_factor": 0.5,
    "max_position_embeddings": 65536, "rope_theta": 10000,
    "rope_scaling": {"rope_type": "default", "mrope_section": [8, 12, 12]}}}
r, s = summary(write("glm45v", glm))
read_ok("GLM-4.5V", r, s, remote=False)
g = s.get("all", {})
ok(g.get("layout") == "half" and g.get("rotary_dim") == "64" and
   close(freqs(write("glm45v", glm), "all"), inv_freq(1e4, 64)),
   "GLM-4.5V: 64 of 128 dimensions, rotate_half, base 10000", g)
glm["text_config"].pop("partial_rotary_factor")
ok(close(freqs(write("glm45v_def", glm), "all"), inv_freq(1e4, 64)),
   "GLM-4.5V: the class's partial_rotary_factor 0.5 by default")

# ---- molmo: Molmo-7B-D, 3584 // 28 = 128; rope_impl "interleave" pairs 2i, 2i+1 --------------
molmo = {"model_type": "molmo", "auto_map": AUTO, "hidden_size": 3584,
         "num_attention_heads": 28, "num_key_value_heads": 4, "num_hidden_layers": 28,
         "max_position_embeddings": 4096, "rope_theta": 1000000.0}
r, s = summary(write("molmo", molmo))
read_ok("Molmo-7B-D", r, s)
ok(s.get("all", {}).get("layout") == "half" and
   close(freqs(write("molmo", molmo), "all"), inv_freq(1e6, 128)),
   "Molmo-7B-D: rotate_half over 128 at 1e6", s.get("all"))
r, s = summary(write("molmo_il", dict(molmo, rope_impl="interleave")))
ok(s.get("all", {}).get("layout") == "interleaved", "Molmo: rope_impl interleave",
   s.get("all"))
r, s = summary(write("molmo_ll", dict(molmo, rope_impl="llama")))
ok(s.get("all", {}).get("layout") == "half", "Molmo: another rope_impl is rotate_half")

# ---- plamo: PLaMo-13B, 5120 // 40 = 128, base 10000 (no rope_theta in the file) ---------------
plamo = {"model_type": "plamo", "auto_map": AUTO, "hidden_size": 5120,
         "num_attention_heads": 40, "num_hidden_layers": 40, "n_shared_head": 8,
         "max_position_embeddings": 4096}
r, s = summary(write("plamo", plamo))
read_ok("PLaMo-13B", r, s)
ok(close(freqs(write("plamo", plamo), "all"), inv_freq(1e4, 128)),
   "PLaMo-13B: 128-wide heads at the default 10000")

# ---- plamo2: PLaMo 2 1B, is_mamba: i % mamba_step != mamba_step // 2 -------------------------
p2 = {"model_type": "plamo2", "auto_map": AUTO, "hidden_size": 2048,
      "hidden_size_per_head": 128, "num_attention_heads": 16, "num_key_value_heads": 1,
      "num_hidden_layers": 16, "mamba_step": 2, "mamba_enabled": True,
      "max_position_embeddings": 10485760, "attention_window_size": 2048}


def is_mamba(i, n, step):
    if n <= step // 2:
        return i != n - 1
    return i % step != step // 2


r, s = summary(write("plamo2", p2))
read_ok("PLaMo 2 1B", r, s)
attn = [i for i in range(16) if not is_mamba(i, 16, 2)]
ok(s.get("rope", {}).get("layers") == ",".join(map(str, attn)) and
   close(freqs(write("plamo2", p2), "rope"), inv_freq(1e4, 128)),
   "PLaMo 2: attention layers 1, 3, ..., 15 at 10000 over hidden_size_per_head 128",
   s.get("rope"))
r, s = summary(write("plamo2_s6", dict(p2, mamba_step=6)))
attn6 = [i for i in range(16) if not is_mamba(i, 16, 6)]
ok(s.get("rope", {}).get("layers") == ",".join(map(str, attn6)), "PLaMo 2: mamba_step 6",
   (attn6, s.get("rope")))
r, s = summary(write("plamo2_1", dict(p2, num_hidden_layers=1, mamba_step=4)))
ok(r.rc == 0 and s.get("model", {}).get("nope_layers") is None,
   "PLaMo 2: with no more layers than mamba_step // 2 the last one attends", (r.err, s))
r, s = summary(write("plamo2_off", dict(p2, mamba_enabled=False)))
ok(s.get("all", {}).get("layers") == "0-15", "PLaMo 2: mamba_enabled false, all attend",
   s.get("all"))
r = run(EXE, "model", write("plamo2_bad", dict(p2, mamba_step=1)))
ok(r.rc == 1 and "mamba_step" in r.err, "PLaMo 2: mamba_step 1 refused", r.err)

# ---- solar: Solar Pro preview, 5120 // 40 = 128 ----------------------------------------------
solar = {"model_type": "solar", "auto_map": AUTO, "hidden_size": 5120,
         "num_attention_heads": 40, "num_hidden_layers": 64, "max_position_embeddings": 4096,
         "rope_theta": 10000, "bskcn_1": [18, 39], "bskcn_tv": [0.9, 0.8]}
r, s = summary(write("solar", solar))
read_ok("Solar Pro", r, s)
ok(close(freqs(write("solar", solar), "all"), inv_freq(1e4, 128)),
   "Solar Pro: 128-wide heads at 10000")

# ---- MiniCPM3 with a context raised past its original (s12-v1) ------------------------------
# MiniCPM3-4B's modeling_minicpm.py: MiniCPMLongRoPE picks long_factor when the cache length
# exceeds original_max_position_embeddings, and __init__ builds that cache for
# max_position_embeddings; forward only rebuilds past it. With 65536 over 32768 the long
# factors divide the 16 rope frequencies (qk_rope_head_dim 32) at every length, and cos and sin
# are multiplied by sqrt(1 + ln 2 / ln 32768) = sqrt(16 / 15).
m3 = {"model_type": "minicpm3", "hidden_size": 2560, "num_attention_heads": 40,
      "num_hidden_layers": 2, "qk_rope_head_dim": 32, "qk_nope_head_dim": 64,
      "kv_lora_rank": 256, "q_lora_rank": 768, "max_position_embeddings": 65536,
      "rope_theta": 10000.0,
      "rope_scaling": {"type": "longrope", "original_max_position_embeddings": 32768,
                       "short_factor": [1.0 + 0.01 * i for i in range(16)],
                       "long_factor": [2.0 + 0.5 * i for i in range(16)]}}
m3p = write("minicpm3_long", m3)
r, s = summary(m3p)
att = float(s.get("all", {}).get("attention_factor", "nan"))
base16 = 1.0 / (10000.0 ** (np.arange(0, 32, 2) / 32.0))
want = base16 / np.array([2.0 + 0.5 * i for i in range(16)])
ok(r.rc == 0 and abs(att - np.sqrt(16.0 / 15.0)) <= 1e-15 and
   close(freqs(m3p, "all", "scaled_theta"), want),
   "MiniCPM3 longrope past its original context: long factors from the first token", (r.err, att))
m3["max_position_embeddings"] = 32768
m3p = write("minicpm3_orig", m3)
ok(close(freqs(m3p, "all", "scaled_theta"),
         base16 / np.array([1.0 + 0.01 * i for i in range(16)])),
   "MiniCPM3-4B as published (32768 = original): short factors", None)

# ---- plamo2 with PLaMo 2's own auto_map: pfnet/plamo-2-1b loads modeling_plamo.Plamo2ForCausalLM
# (the file name PLaMo-13B used too). The model_type plamo2 keeps its rows: with mamba_step 2
# layer i is Mamba unless i % 2 == 1, so layers 1, 3, ..., 15 rotate 128 dims at 10000 and the
# even ones have no positions, not all 16 read as PLaMo 1's attention.
p2a = dict(p2, auto_map={"AutoConfig": "modeling_plamo.Plamo2Config",
                         "AutoModelForCausalLM": "modeling_plamo.Plamo2ForCausalLM"})
r, s = summary(write("plamo2_am", p2a))
ok(r.rc == 0 and s.get("model", {}).get("model_type") == "plamo2" and
   s.get("rope", {}).get("layers") == ",".join(str(i) for i in range(1, 16, 2)) and
   s.get("nope", {}).get("layers") == ",".join(str(i) for i in range(0, 16, 2)) and
   close(freqs(write("plamo2_am", p2a), "rope"), inv_freq(1e4, 128)),
   "PLaMo 2 with auto_map modeling_plamo: its Mamba layers, not PLaMo 1's rows", (r.err, s.keys()))
# InternLM2-Chat-1.8B-SFT (model_type internlm, modeling_internlm2) is still redirected
r, s = summary(fix("internlm2-chat-1_8b-sft"))
ok(r.rc == 0 and "dynamic" in s.get("all", {}).get("spec", ""),
   "internlm with modeling_internlm2 still read by internlm2's rules", (r.err, s.get("all")))

# ---- Molmo-7B-D (published fixture): MolmoForCausalLM's rotary ------------------------------
# modeling_molmo.py (reubzdubz/Molmo7B_D_NF4Quant at edf464b): MolmoForCausalLM builds its model
# with rope_impl "llama" (rotate_half) and RotaryEmbedding turns d_model // n_heads =
# hidden_size // num_attention_heads dimensions at rope_theta; no rope block is read.
mc = load("molmo-7b-d-0924-nf4")
r, s = summary(fix("molmo-7b-d-0924-nf4"))
g = s.get("all", {})
read_ok("Molmo-7B-D", r, s)
ok(g.get("head_dim") == "128" and g.get("rotary_dim") == "128" and
   g.get("layout") == "half" and s["model"].get("context") == "4096",
   "Molmo-7B-D: rotate_half over 3584 // 28 = 128 dims, context 4096", (r.err, g))
ok(close(freqs(fix("molmo-7b-d-0924-nf4"), "all"),
         inv_freq(mc["rope_theta"], mc["hidden_size"] // mc["num_attention_heads"])),
   "Molmo-7B-D: 1e6^(-2i/128)", "")

done()
