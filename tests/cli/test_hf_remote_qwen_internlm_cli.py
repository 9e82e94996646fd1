#!/usr/bin/env python3
"""Remote-code model types (auto_map, no class in transformers) read by their own modeling
files: Qwen v1, InternLM 1/2/3, XVERSE, Aquila, Orion, BlueLM, Yi, TeleChat and CodeShell.
Published configs are in tests/fixtures/hf (SOURCES.md); the others are written here from the
model cards' values and say so. The expected numbers restate each modeling file's formula with
numpy (doc/models.md names the files)."""
import csv
import io
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from tap import done, ok, run  # noqa: E402
from hf_harness import (UNKNOWN, close, fix, freqs, inv_freq, load, remote_ok, setup, summary,  # noqa: E402
                        write)

EXE, TMP = setup(sys.argv[1])


# ---- Qwen v1 (modeling_qwen.py) --------------------------------------------------------
# RotaryEmbedding(kv_channels if rotary_pct == 1 else int(kv_channels * rotary_pct),
# base=rotary_emb_base), rotate_half; the causal mask is max_position_embeddings long, the
# NTK-alpha steps and logn queries start past seq_length.
r, s = summary(fix("qwen-7b"))
g = s.get("all", {})
ok(remote_ok(r, s) and g.get("head_dim") == "128" and g.get("rotary_dim") == "128" and
   g.get("layout") == "half" and g.get("scaling") == "none" and
   s["model"].get("context") == "32768" and s["model"].get("train_context") == "8192",
   "Qwen-7B: kv_channels 128 rotated whole, rotate_half, context 32768, seq_length 8192",
   (r.err, s))
ok(close(freqs(fix("qwen-7b")), inv_freq(10000.0, 128)), "Qwen-7B: rotary_emb_base 10000")
ok("NTK-alpha" in r.err and "use_logn_attn" in r.err and
   s["model"].get("ntk_steps") == "8192" and s["model"].get("logn_attention") == "8192",
   "Qwen-7B: use_dynamic_ntk and use_logn_attn said, past seq_length 8192", r.err)


def qwen_alpha(length, seq_length):
    """QWenModel.get_ntk_alpha."""
    return max(2 ** math.ceil(math.log(length / seq_length, 2) + 1) - 1, 1)


# up to seq_length the alpha is 1, so the static base is rotary_emb_base itself
ok(qwen_alpha(8192, 8192) == 1 and qwen_alpha(1, 8192) == 1 and qwen_alpha(8193, 8192) == 3,
   "get_ntk_alpha restated: 1 up to seq_length, 3 just past it")

r, s = summary(fix("qwen-72b"))
ok(remote_ok(r, s) and "warning" not in r.err and
   close(freqs(fix("qwen-72b")), inv_freq(1e6, 128)),
   "Qwen-72B: rotary_emb_base 1e6, no dynamic NTK, no logn (both false)", (r.err, s.get("all")))
cfg = load("qwen-72b")
cfg["rope_theta"] = 5.0  # QWenModel never reads rope_theta
ok(close(freqs(write("q72theta", cfg)), inv_freq(1e6, 128)),
   "Qwen-72B: rope_theta is not read, rotary_emb_base is")

# no revision of Qwen-72B's modeling_qwen.py (3334bfe to c677f29) reads a position divisor:
# RotaryEmbedding(dim, base=rotary_emb_base) turns position p at p / base^(2i/128), whatever
# other keys the config carries
cfg = load("qwen-72b")
cfg["seq_length_expansion"] = 4
r, s = summary(write("q72exp", cfg))
ok(s.get("all", {}).get("scaling") == "none" and close(freqs(write("q72exp", cfg)),
                                                       inv_freq(1e6, 128)),
   "Qwen: a seq_length_expansion key divides nothing", (r.err, s.get("all")))

# Qwen-14B's values (model card: 40 heads of 128, seq_length 2048, max_position_embeddings
# 8192), written here
q14 = {"model_type": "qwen", "architectures": ["QWenLMHeadModel"],
       "auto_map": {"AutoModelForCausalLM": "modeling_qwen.QWenLMHeadModel"},
       "hidden_size": 5120, "num_attention_heads": 40, "num_hidden_layers": 40,
       "kv_channels": 128, "max_position_embeddings": 8192, "seq_length": 2048,
       "rotary_emb_base": 10000, "rotary_pct": 1.0, "use_dynamic_ntk": True,
       "use_logn_attn": True}
r, s = summary(write("q14", q14))
ok(remote_ok(r, s) and s["model"].get("train_context") == "2048" and
   s["model"].get("context") == "8192" and "beyond 2048 tokens" in r.err,
   "Qwen-14B: frequencies hold to seq_length 2048, the mask is 8192", (r.err, s.get("model")))
r, s = summary(write("brief", {"model_type": "qwen", "hidden_size": 5120,
                               "num_attention_heads": 40, "num_hidden_layers": 2,
                               "rotary_emb_base": 1000000, "kv_channels": 128,
                               "seq_length": 8192}))
ok(remote_ok(r, s) and close(freqs(write("brief", {
    "model_type": "qwen", "hidden_size": 5120, "num_attention_heads": 40, "num_hidden_layers": 2,
    "rotary_emb_base": 1000000, "kv_channels": 128, "seq_length": 8192})), inv_freq(1e6, 128)),
   "qwen with rotary_emb_base 1000000: base 1e6, not 10000", r.err)
q = dict(q14, rotary_pct=0.5)
r, s = summary(write("qpct", q))
ok(s.get("all", {}).get("rotary_dim") == str(int(128 * 0.5)) and
   close(freqs(write("qpct", q)), inv_freq(1e4, 64)),
   "Qwen: int(kv_channels * rotary_pct) = 64 dims at 10000^(-2i/64)", s.get("all"))
q = dict(q14, rope_scaling={"type": "linear", "factor": 4.0})
r, s = summary(write("qscale", q))
ok(r.rc == 0 and "rope_scaling: not read" in r.err and s["all"].get("scaling") == "none" and
   close(freqs(write("qscale", q)), inv_freq(1e4, 128)),
   "Qwen: a rope_scaling block is not read by modeling_qwen.py (warned)", r.err)
q = dict(q14)
del q["seq_length"]
r = run(EXE, "model", write("qnoseq", q))
ok(r.rc == 1 and "seq_length" in r.err, "Qwen: seq_length missing (no class default)", r.err)

# ---- InternLM2 (modeling_internlm2.py) -------------------------------------------------
# InternLM2RotaryEmbedding(head_dim, base=rope_theta), rotate_half; rope_scaling linear or
# dynamic, anything else a ValueError
r, s = summary(fix("internlm2-chat-7b"))
ok(remote_ok(r, s) and "warning" not in r.err and s["all"].get("layout") == "half" and
   close(freqs(fix("internlm2-chat-7b")), inv_freq(1e6, 4096 // 32)),
   "InternLM2-Chat-7B: rope_theta 1e6 over 4096 // 32", (r.err, s.get("all")))
# model_type 'internlm' that loads modeling_internlm2 (auto_map) takes InternLM2's rules
r, s = summary(fix("internlm2-chat-1_8b-sft"))
g = s.get("all", {})
ok(remote_ok(r, s) and s["model"].get("model_type") == "internlm" and
   g.get("scaling") == "dynamic" and g.get("factor") == "2" and g.get("original") == "32768" and
   close(freqs(fix("internlm2-chat-1_8b-sft")), inv_freq(1e6, 2048 // 16)),
   "InternLM2-Chat-1.8B (model_type internlm, modeling_internlm2): rope_theta, dynamic x2",
   (r.err, g))
cfg = load("internlm2-chat-7b")
cfg["rope_scaling"] = {"type": "yarn", "factor": 4.0, "original_max_position_embeddings": 8192}
r = run(EXE, "model", write("il2yarn", cfg))
ok(r.rc == 1 and "yarn" in r.err and "linear dynamic" in r.err,
   "InternLM2: yarn is refused, its _init_rope builds linear or dynamic only", r.err)


def dynamic_base(base, factor, length, max_pos, dim):
    """InternLM2DynamicNTKScalingRotaryEmbedding._set_cos_sin_cache past max_pos."""
    return base * ((factor * length / max_pos) - (factor - 1)) ** (dim / (dim - 2))


cfg = load("internlm2-chat-1_8b-sft")
r = run(EXE, "freqs", "-q", "-s", fix("internlm2-chat-1_8b-sft"), "--table", "long",
        "--length", "65536", "-o", "-")
rows = [x for x in csv.DictReader(io.StringIO(r.text)) if x["scaling"] == "dynamic"]
got = np.array([float(x["scaled_theta"]) for x in rows]) if rows else None
ok(close(got, inv_freq(dynamic_base(1e6, 2.0, 65536, 32768, 128), 128)),
   "InternLM2 dynamic at 65536: base x (2 x 65536 / 32768 - 1)^(128/126)", r.err[-400:])

# ---- InternLM (modeling_internlm.py) ---------------------------------------------------
# the 'rotary' object: {base, type origin | dynamic, scaling_factor}; the class default
# {"base": 10000, "type": "dynamic"} when the config has none
r, s = summary(fix("internlm-20b"))
g = s.get("all", {})
ok(r.rc == 0 and UNKNOWN not in r.err and "rotary: missing" in r.err and
   g.get("scaling") == "dynamic" and g.get("factor") == "1" and g.get("original") == "4096" and
   close(freqs(fix("internlm-20b")), inv_freq(1e4, 5120 // 40)),
   "InternLM-20B: no 'rotary', the class default (base 10000, dynamic, factor 1)", (r.err, g))
cfg = load("internlm-20b")
cfg["rotary"] = {"base": 50000, "type": "origin"}
r, s = summary(write("il1origin", cfg))
ok(r.rc == 0 and "warning" not in r.err and s["all"].get("scaling") == "none" and
   close(freqs(write("il1origin", cfg)), inv_freq(5e4, 128)),
   "InternLM: rotary origin at its own base 50000", r.err)
cfg["rotary"] = {"base": 10000, "type": "dynamic", "scaling_factor": 2.0}
r, s = summary(write("il1dyn", cfg))
ok(s.get("all", {}).get("factor") == "2", "InternLM: rotary.scaling_factor is the factor",
   s.get("all"))
cfg["rotary"] = {"base": 10000, "type": "linear"}
r = run(EXE, "model", write("il1bad", cfg))
ok(r.rc == 1 and "origin" in r.err, "InternLM: rotary type other than origin/dynamic refused",
   r.err)

# ---- CodeShell (modeling_codeshell.py) --------------------------------------------------
# position_embedding_type 'rope': CodeShellRotaryEmbedding(head_dim) at its default base 10000
# (no key read), rotate_half; else the learned wpe of n_positions x n_embd
r, s = summary(fix("codeshell-7b-chat-int4"))
ok(remote_ok(r, s) and s["all"].get("layout") == "half" and
   close(freqs(fix("codeshell-7b-chat-int4")), inv_freq(1e4, 4096 // 32)),
   "CodeShell-7B: rope at 10000 over 4096 // 32", (r.err, s.get("all")))
cfg = load("codeshell-7b-chat-int4")
cfg["rope_theta"] = 500000.0
r = run(EXE, "model", write("csth", cfg))
ok(r.rc == 0 and "rope_theta: 500000 is not read" in r.err and
   close(freqs(write("csth", cfg)), inv_freq(1e4, 128)),
   "CodeShell: rope_theta is not read (the rotary keeps its base 10000)", r.err)
cfg = load("codeshell-7b-chat-int4")
del cfg["position_embedding_type"]
r, s = summary(write("cslearn", cfg))
ok(r.rc == 0 and s.get("model", {}).get("table_rows") == "8192" and
   s["model"].get("table_cols") == "4096",
   "CodeShell: the class default learned_absolute is the 8192 x 4096 wpe", (r.err, s.get("model")))
cfg = load("codeshell-7b-chat-int4")
cfg["rope_scaling"] = {"type": "llama3", "factor": 8.0}
r = run(EXE, "model", write("csl3", cfg))
ok(r.rc == 1 and "linear dynamic" in r.err, "CodeShell: only linear/dynamic rope scaling", r.err)

# ---- TeleChat (modeling_telechat.py) -----------------------------------------------------
# RotaryEmbedding(head_dim) at base 10000, rotate_half; the running length is at least
# training_seqlen and alpha = max(2^ceil(log2(L / base_seqlen) + 1) - 1, 1); no TeleChat
# config.json copy was found: TeleChat-7B's model-card values, written here


def telechat_base(training, base_seqlen, dim):
    alpha = max(2 ** math.ceil(math.log(training / base_seqlen, 2) + 1) - 1, 1)
    return 10000.0 * alpha ** (dim / (dim - 2))


tc = {"model_type": "telechat", "architectures": ["TelechatForCausalLM"],
      "auto_map": {"AutoModelForCausalLM": "modeling_telechat.TelechatForCausalLM"},
      "hidden_size": 4096, "n_head": 32, "n_layer": 30, "base_seqlen": 8192,
      "training_seqlen": 8192, "logn": True}
r, s = summary(write("tc", tc))
ok(remote_ok(r, s) and s["model"].get("layers") == "30" and
   s["model"].get("context") == "8192" and
   close(freqs(write("tc", tc)), inv_freq(telechat_base(8192, 8192, 128), 128)) and
   telechat_base(8192, 8192, 128) == 10000.0,
   "TeleChat: base_seqlen = training_seqlen, alpha 1, base 10000", (r.err, s.get("all")))
tc2 = dict(tc, base_seqlen=4096)
r, s = summary(write("tc2", tc2))
ok(r.rc == 0 and s["model"].get("ntk_alpha", "").startswith("3 ") and
   close(freqs(write("tc2", tc2)), inv_freq(telechat_base(8192, 4096, 128), 128)),
   "TeleChat: training_seqlen 8192 over base_seqlen 4096 rotates at 10000 x 3^(128/126)",
   (r.err, s.get("model")))
r = run(EXE, "model", write("tc3", dict(tc, rope_theta=1e6)))
ok(r.rc == 0 and "is not read" in r.err and
   close(freqs(write("tc3", dict(tc, rope_theta=1e6))), inv_freq(1e4, 128)),
   "TeleChat: rope_theta is not read", r.err)

# ---- Yi (modeling_yi.py) -------------------------------------------------------------------
# YiRotaryEmbedding(head_dim, base=rope_theta), rotate_half, no rope block; YiConfig default
# rope_theta 5e6. Yi-6B's model-card values, written here
yi = {"model_type": "Yi", "architectures": ["YiForCausalLM"],
      "auto_map": {"AutoModelForCausalLM": "modeling_yi.YiForCausalLM"},
      "hidden_size": 4096, "num_attention_heads": 32, "num_key_value_heads": 4,
      "num_hidden_layers": 32, "max_position_embeddings": 4096}
r, s = summary(write("yi", yi))
ok(remote_ok(r, s) and close(freqs(write("yi", yi)), inv_freq(5e6, 128)),
   "Yi: the class default rope_theta 5e6 over 128", (r.err, s.get("all")))
y = dict(yi, rope_scaling={"type": "linear", "factor": 2.0})
r, s = summary(write("yis", y))
ok(r.rc == 0 and "not read" in r.err and s["all"].get("scaling") == "none",
   "Yi: YiRotaryEmbedding reads no rope_scaling", r.err)

# ---- Llama-like remote types: InternLM3, XVERSE, Aquila, Orion, BlueLM ---------------------
# rope_theta over hidden_size // num_attention_heads, rotate_half, the rope block as
# transformers' Llama; configs written here
for mt, cls, theta in (("internlm3", "InternLM3ForCausalLM", 50000000.0),
                       ("xverse", "XverseForCausalLM", 500000.0),
                       ("aquila", "AquilaForCausalLM", 1000000.0),
                       ("orion", "OrionForCausalLM", 10000.0),
                       ("bluelm", "BlueLMForCausalLM", 10000.0)):
    doc = {"model_type": mt, "architectures": [cls],
           "auto_map": {"AutoModelForCausalLM": "modeling_%s.%s" % (mt, cls)},
           "hidden_size": 5120, "num_attention_heads": 40, "num_hidden_layers": 4,
           "max_position_embeddings": 4096, "rope_theta": theta}
    r, s = summary(write(mt, doc))
    ok(remote_ok(r, s) and s.get("all", {}).get("layout") == "half" and
       close(freqs(write(mt, doc)), inv_freq(theta, 128)),
       "%s: rope_theta %g over 5120 // 40, rotate_half" % (mt, theta), (r.err, s.get("all")))
doc = {"model_type": "bluelm", "hidden_size": 4096, "num_attention_heads": 32,
       "num_hidden_layers": 2, "max_position_embeddings": 8192,
       "rope_scaling": {"type": "ntkmixed", "factor": 4.0, "power": 0.5}}
r = run(EXE, "model", write("bluentk", doc))
ok(r.rc == 1 and "ntkmixed" in r.err, "BlueLM: its own ntkmixed scaling is refused", r.err)

# ---- InternLM3-8B-Instruct (modeling_internlm3.py) ----------------------------------------
# The original rotary is transformers' config-driven one (ROPE_INIT_FUNCTIONS[rope_type]) over
# head_dim; the published config's dynamic block (factor 6) leaves the base alone up to
# max_position_embeddings and past it uses base * (factor * L / max_pos - (factor - 1))^(d/(d-2)).
# Model-card values of internlm/internlm3-8b-instruct, written here
il3 = {"model_type": "internlm3", "architectures": ["InternLM3ForCausalLM"],
       "auto_map": {"AutoModelForCausalLM": "modeling_internlm3.InternLM3ForCausalLM"},
       "head_dim": 128, "hidden_size": 4096, "num_attention_heads": 32, "num_key_value_heads": 2,
       "num_hidden_layers": 48, "max_position_embeddings": 32768, "rope_theta": 50000000,
       "rope_scaling": {"factor": 6.0, "rope_type": "dynamic"}}
r, s = summary(write("il3", il3))
g = s.get("all", {})
ok(remote_ok(r, s) and g.get("scaling") == "dynamic" and g.get("factor") == "6" and
   g.get("original") == "32768" and close(freqs(write("il3", il3)), inv_freq(5e7, 128)),
   "InternLM3-8B: rope_theta 5e7 over head_dim 128, dynamic x6 from 32768", (r.err, g))
r = run(EXE, "freqs", "-q", "-s", write("il3", il3), "--table", "long", "--length", "65536",
        "-o", "-")
rows = [x for x in csv.DictReader(io.StringIO(r.text)) if x["scaling"] == "dynamic"]
got = np.array([float(x["scaled_theta"]) for x in rows]) if rows else None
ok(close(got, inv_freq(5e7 * (6.0 * 65536 / 32768 - 5.0) ** (128 / 126), 128)),
   "InternLM3 dynamic at 65536: 5e7 x 7^(128/126)", r.err[-400:])

done()
