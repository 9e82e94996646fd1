#!/usr/bin/env python3
"""The config.json reader for remote-code multimodal wrappers: internvl_chat (llm_config, its
class by architectures[0]), deepseek_vl_v2 (language_config, a DeepseekV2Config), ovis
(llm_config), minicpmv (its LLM by version), llava_qwen / llava_llama / llava_mistral /
llava_mixtral and internlmxcomposer2 (configuration classes subclassing their LLM's: the text
keys at the top level), the general rule for an unknown wrapper with one language-model
sub-config, and THUDM's CogVLM / CogVLM2 / CogAgent (typed by their class) and GLM-4V-9B
(chatglm), whose images share one position. InternVL2-2B is a published fixture; the others are written here from the sizes
and bases their model cards publish. The expected frequencies are 1 / base^(2i/d) over the
rotated width d, restated with numpy (doc/models.md cites the files)."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from tap import done, ok, run  # noqa: E402
from hf_harness import (REMOTE, UNKNOWN, close, fix, freqs, inv_freq, load, setup, summary,  # noqa: E402
                        write)

EXE, TMP = setup(sys.argv[1])


def check(name, spec, mtype, head, base, layout="half", remote=True, warn=None, known=True):
    """Read as @mtype with @head-wide heads at @base, the reference the checkpoint's file."""
    r, s = summary(spec)
    m, g = s.get("model", {}), s.get("all", {})
    ok(r.rc == 0 and (UNKNOWN not in r.err) == known and m.get("model_type") == mtype and
       (REMOTE in m.get("reference", "")) == remote and g.get("head_dim") == str(head) and
       g.get("layout") == layout and (warn is None or warn in r.err),
       f"{name}: read as {mtype}, {head}-wide heads, {layout}", (r.err, m, g))
    ok(close(freqs(spec, "all"), inv_freq(base, head)), f"{name}: base {base:g} over {head}")
    return r, s


AUTO = {"AutoModelForCausalLM": "modeling_x.XForCausalLM"}

# ---- InternVL2-2B (published): llm_config is InternLM2-Chat-1.8B's, 2048 // 16 = 128 --------
cfg = load("internvl2-2b")
llm = cfg["llm_config"]
r, s = check("InternVL2-2B", fix("internvl2-2b"), "internlm2",
             llm["hidden_size"] // llm["num_attention_heads"], llm["rope_theta"])
ok("dynamic factor=2" in s.get("all", {}).get("spec", "") and
   s.get("model", {}).get("context") == "32768",
   "InternVL2-2B: InternLM2's dynamic NTK x2 over 32768", s.get("all"))
# InternVL2.5-1B's LLM is Qwen2.5-0.5B (896 // 14 = 64, base 1e6): without model_type
# InternVLChatConfig picks the class by llm_config.architectures[0]
ivq = {"model_type": "internvl_chat", "auto_map": AUTO,
       "llm_config": {"architectures": ["Qwen2ForCausalLM"], "hidden_size": 896,
                      "num_attention_heads": 14, "num_hidden_layers": 24,
                      "max_position_embeddings": 32768, "rope_theta": 1000000.0}}
check("InternVL2.5-1B, no llm model_type", write("ivq", ivq), "qwen2", 64, 1e6,
      warn="architectures[0] 'Qwen2ForCausalLM'")
# InternVL2-4B: Phi-3-mini (3072 // 32 = 96, base 10000), llm_config typed phi3
ivp = {"model_type": "internvl_chat", "llm_config": {
    "model_type": "phi3", "architectures": ["Phi3ForCausalLM"], "hidden_size": 3072,
    "num_attention_heads": 32, "num_hidden_layers": 32, "max_position_embeddings": 8192,
    "rope_theta": 10000.0}}
check("InternVL2-4B (phi3)", write("ivp", ivp), "phi3", 96, 1e4)
# no model_type nor class: InternVLChatConfig's default llm is InternLM2ForCausalLM
ivd = {"model_type": "internvl_chat", "llm_config": {
    "hidden_size": 2048, "num_attention_heads": 16, "rope_theta": 1e6}}
check("internvl_chat, bare llm_config", write("ivd", ivd), "internlm2", 128, 1e6)

# ---- DeepSeek-VL2-Small: language_config without model_type is a DeepseekV2Config (MLA:
# qk_rope_head_dim 64, pairs 2i, 2i+1); DeepSeek-VL2-Tiny's use_mla false is LlamaAttention
dvs = {"model_type": "deepseek_vl_v2", "auto_map": AUTO, "language_config": {
    "hidden_size": 2048, "num_attention_heads": 16, "num_hidden_layers": 27,
    "kv_lora_rank": 512, "q_lora_rank": None, "qk_nope_head_dim": 128,
    "qk_rope_head_dim": 64, "v_head_dim": 128, "max_position_embeddings": 4096,
    "rope_theta": 10000}}
check("DeepSeek-VL2-Small", write("dvs", dvs), "deepseek_v2", 64, 1e4, layout="interleaved")
dvt = {"model_type": "deepseek_vl_v2", "language_config": {
    "hidden_size": 1280, "num_attention_heads": 10, "num_hidden_layers": 12, "use_mla": False,
    "max_position_embeddings": 4096, "rope_theta": 10000}}
check("DeepSeek-VL2-Tiny, use_mla false", write("dvt", dvt), "llama", 128, 1e4,
      warn="use_mla false")

# ---- MiniCPM-V: the LLM by version (vLLM's minicpmv.py) ------------------------------------
mv26 = {"model_type": "minicpmv", "version": 2.6, "auto_map": AUTO, "hidden_size": 3584,
        "num_attention_heads": 28, "num_hidden_layers": 28, "rope_theta": 1000000.0,
        "max_position_embeddings": 32768}
check("MiniCPM-V 2.6 (Qwen2)", write("mv26", mv26), "qwen2", 128, 1e6)
mv25 = {"model_type": "minicpmv", "version": 2.5, "hidden_size": 4096,
        "num_attention_heads": 32, "num_hidden_layers": 32, "rope_theta": 500000.0,
        "max_position_embeddings": 8192}
check("MiniCPM-Llama3-V 2.5", write("mv25", mv25), "llama", 128, 5e5)
mv45 = dict(mv25, version="4.5", head_dim=128, hidden_size=4096, num_attention_heads=32,
            rope_theta=1e6)
check("MiniCPM-V 4.5 (Qwen3)", write("mv45", mv45), "qwen3", 128, 1e6)
# MiniCPM-V 2.0 has no version: hidden 2304 with query_num 64 (MiniCPM-2B, 2304 // 36 = 64)
mv20 = {"model_type": "minicpmv", "hidden_size": 2304, "num_attention_heads": 36,
        "num_hidden_layers": 40, "query_num": 64, "rope_theta": 10000.0}
check("MiniCPM-V 2.0 (MiniCPM)", write("mv20", mv20), "minicpm", 64, 1e4)
r = run(EXE, "model", write("mv99", dict(mv26, version=9.9)))
ok(r.rc == 1 and "version" in r.err, "MiniCPM-V: an unknown version refused", r.err)

# ---- LLaVA-NeXT / OneVision / VILA and InternLM-XComposer2: keys at the top level ----------
top = {"hidden_size": 3584, "num_attention_heads": 28, "num_hidden_layers": 28,
       "rope_theta": 1000000.0, "max_position_embeddings": 32768}
check("LLaVA-OneVision-Qwen2-7B", write("lq", dict(top, model_type="llava_qwen")), "qwen2",
      128, 1e6)
l4 = {"hidden_size": 4096, "num_attention_heads": 32, "num_hidden_layers": 32}
check("LLaVA-v1.5-7B (llava_llama)", write("ll", dict(l4, model_type="llava_llama")), "llama",
      128, 1e4)
check("LLaVA-v1.6-Mistral-7B", write("lm", dict(l4, model_type="llava_mistral",
                                                rope_theta=1000000.0)), "mistral", 128, 1e6)
check("llava_mixtral (Mixtral-8x7B)", write("lx", dict(l4, model_type="llava_mixtral",
                                                       rope_theta=1000000.0)),
      "mixtral", 128, 1e6)
check("InternLM-XComposer2-7B", write("xc", dict(l4, model_type="internlmxcomposer2",
                                                 rope_theta=1000000)), "internlm2", 128, 1e6)

# ---- Ovis1.6-Gemma2-9B: llm_config typed gemma2, head_dim 256 ------------------------------
ov = {"model_type": "ovis", "llm_config": {
    "model_type": "gemma2", "hidden_size": 3584, "num_attention_heads": 16, "head_dim": 256,
    "num_hidden_layers": 42, "rope_theta": 10000.0}}
check("Ovis1.6-Gemma2-9B", write("ov", ov), "gemma2", 256, 1e4)

# ---- the general rule: an unknown type, no head width on top, one known sub-config ---------
gen = {"model_type": "some_vlm", "language_config": {
    "model_type": "qwen2", "hidden_size": 1536, "num_attention_heads": 12, "rope_theta": 1e6}}
check("unknown wrapper, language_config qwen2", write("gen", gen), "qwen2", 128, 1e6,
      remote=False, warn="one language-model config language_config", known=False)
gen2 = dict(gen, text_model={"model_type": "llama", "hidden_size": 64,
                             "num_attention_heads": 2})
r = run(EXE, "model", write("gen2", gen2))
ok("one language-model config" not in r.err, "two candidate sub-configs: not guessed", r.err)
gen3 = {"model_type": "some_vlm", "hidden_size": 512, "num_attention_heads": 8,
        "llm_config": {"model_type": "qwen2", "hidden_size": 1536, "num_attention_heads": 12}}
r, s = summary(write("gen3", gen3))
ok(UNKNOWN in r.err and s.get("all", {}).get("head_dim") == "64",
   "a head width on top: the top level, as before", (r.err, s.get("all")))

# ---- THUDM's CogVLM family: configuration classes without model_type, the class names it -----
# No vendored config.json was found; the sizes are the model cards' (CogVLM-17B and CogAgent-18B:
# Vicuna-7B's 4096 / 32 heads, 32 layers, context 2048; CogVLM2-Llama3-19B: Llama-3-8B's, 8
# query groups, 8192). Each rotates the whole 128-wide head with rotate_half at its own fixed
# base: RotaryEmbedding(head_dim)'s default 10000, CogVLM2's FastRotaryEmbedding(base=500000).
ONE_POS = "gives all of an image's tokens one position"
COG_AUTO = {"AutoConfig": "configuration_cogvlm.CogVLMConfig",
            "AutoModelForCausalLM": "modeling_cogvlm.CogVLMForCausalLM"}
d = np.arange(0, 128, 2, dtype=np.float64) / 128
cv1 = {"architectures": ["CogVLMForCausalLM"], "auto_map": COG_AUTO, "hidden_size": 4096,
       "num_attention_heads": 32, "num_hidden_layers": 32, "max_position_embeddings": 2048,
       "vocab_size": 32000, "template_version": "chat",
       "vision_config": {"image_size": 490, "patch_size": 14, "num_positions": 1226}}
r, s = check("CogVLM-17B (cogvlm-chat-hf)", write("cv1", cv1), "cogvlm", 128, 1e4,
             warn="architectures[0] 'CogVLMForCausalLM'")
ok(close(freqs(write("cv1", cv1)), 1.0 / 10000.0 ** d) and ONE_POS in r.err and
   s.get("model", {}).get("context") == "2048",
   "CogVLM-17B: 1 / 10000^(2i/128), context 2048, one position per image", (r.err, s))
# a rope_theta in the file is not what RotaryEmbedding(head_dim) is built with
r, s = summary(write("cv1t", dict(cv1, rope_theta=1e6)))
ok("rope_theta: 1000000 is not read" in r.err and s.get("all", {}).get("base") ==
   "10000", "CogVLM: rope_theta ignored (fixed base 10000)", (r.err, s.get("all")))
cv2 = dict(cv1, num_multi_query_heads=8, max_position_embeddings=8192, vocab_size=128256,
           vision_config={"image_size": 1344, "patch_size": 14, "num_positions": 9217})
r, s = check("CogVLM2-Llama3-chat-19B", write("cv2", cv2), "cogvlm2", 128, 5e5,
             warn="num_multi_query_heads: read as 'cogvlm2'")
ok(close(freqs(write("cv2", cv2)), 1.0 / 500000.0 ** d) and ONE_POS in r.err and
   s.get("model", {}).get("context") == "8192",
   "CogVLM2: 1 / 500000^(2i/128), context 8192, one position per image", (r.err, s))
# a rope block is never read by either modeling file
r, s = summary(write("cv2s", dict(cv2, rope_scaling={"type": "linear", "factor": 2.0})))
ok(r.rc == 0 and "scaling=none" in s.get("all", {}).get("spec", ""),
   "CogVLM2: rope_scaling not read", (r.err, s.get("all")))
# a text-only copy (no vision_config): nothing to say of images
r, s = summary(write("cv2t", {k: v for k, v in cv2.items() if k != "vision_config"}))
ok(r.rc == 0 and ONE_POS not in r.err, "CogVLM2 without vision_config: no image warning", r.err)
ca = dict(cv1, architectures=["CogAgentForCausalLM"], cross_hidden_size=1024,
          cross_compute_hidden_size=1024, cross_image_size=1120,
          auto_map={"AutoConfig": "configuration_cogagent.CogAgentConfig",
                    "AutoModelForCausalLM": "modeling_cogagent.CogAgentForCausalLM"})
r, s = check("CogAgent-18B (cogagent-chat-hf)", write("ca", ca), "cogagent", 128, 1e4,
             warn="architectures[0] 'CogAgentForCausalLM'")
ok(close(freqs(write("ca", ca)), 1.0 / 10000.0 ** d) and ONE_POS in r.err,
   "CogAgent: 1 / 10000^(2i/128), one position per image", r.err)

# ---- GLM-4V-9B: ChatGLMConfig (model_type chatglm) with a vision_config; the
# chatglm row turns kv_channels // 2 = 64 dimensions, pairs 2i, 2i+1, at 10000 * rope_ratio
# (rope_ratio written here, not a published value); the image's patches share one position
g4v = {"model_type": "chatglm", "architectures": ["ChatGLMForConditionalGeneration"],
       "hidden_size": 4096, "num_attention_heads": 32, "kv_channels": 128, "num_layers": 40,
       "seq_length": 8192, "rope_ratio": 1, "multi_query_group_num": 2,
       "vision_config": {"image_size": 1120, "patch_size": 14}}
r, s = summary(write("g4v", g4v))
dg = np.arange(0, 64, 2, dtype=np.float64) / 64
ok(r.rc == 0 and s.get("model", {}).get("model_type") == "chatglm" and ONE_POS in r.err and
   s.get("all", {}).get("layout") == "interleaved" and
   close(freqs(write("g4v", g4v)), 1.0 / 10000.0 ** dg),
   "GLM-4V-9B: chatglm, 64 of 128 dimensions interleaved at 10000, one position per image",
   (r.err, s))
r = run(EXE, "model", write("g4t", {k: v for k, v in g4v.items() if k != "vision_config"}))
ok(r.rc == 0 and ONE_POS not in r.err, "GLM-4-9B (no vision_config): no image warning", r.err)

# ---- a transformers wrapper keeps its class's default: LlavaConfig fills in "llama" when
# text_config has no model_type, whatever its architectures say (4096 // 32 = 128, 1e6) -----
lv = {"model_type": "llava", "text_config": {
    "architectures": ["Qwen2ForCausalLM"], "hidden_size": 4096, "num_attention_heads": 32,
    "num_hidden_layers": 4, "rope_theta": 1000000.0}}
r, s = check("llava text_config without model_type", write("lv", lv), "llama", 128, 1e6,
             remote=False)
ok("architectures[0]" not in r.err, "llava: no class-named reading, no warning", r.err)

done()
