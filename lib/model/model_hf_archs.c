/*
 * The architecture registry of the config.json reader: every transformers
 * model_type posenc reads, how its positions enter, the pairing its
 * modeling file applies, and the class defaults of its configuration_*.py
 * for the keys posenc reads (what transformers fills in when a config.json
 * leaves them out). One row per model_type; doc/models.md restates it.
 *
 * Pairing: "half" is rotate_half (pairs i, i + d/2: Llama, GPT-NeoX and
 * most); "interleaved" is rotate_every_two or complex multiplication
 * (pairs 2i, 2i+1: GPT-J, CodeGen, Cohere, GLM, ERNIE 4.5, DeepSeek,
 * Llama 4).
 */
#include <ctype.h>
#include <stddef.h>
#include <string.h>

#include "model/model_hf.h"

#define H "half"
#define I "interleaved"
#define ROPE(t, lay, d, f)                                                                         \
	{                                                                                          \
		.model_type = t, .enc = HF_ROPE, .layout = lay, .defaults = d, .flags = f          \
	}
#define LEARNED(t, d, f, tensor)                                                                   \
	{                                                                                          \
		.model_type = t, .enc = HF_LEARNED, .defaults = d, .flags = f, .what = tensor      \
	}
#define NONE(t, why)                                                                               \
	{                                                                                          \
		.model_type = t, .enc = HF_NONE, .what = why                                       \
	}
#define RELATIVE(t, why)                                                                           \
	{                                                                                          \
		.model_type = t, .enc = HF_RELATIVE, .what = why                                   \
	}
#define REFUSED(t, why)                                                                            \
	{                                                                                          \
		.model_type = t, .enc = HF_REFUSED, .what = why                                    \
	}
#define WRAPPER(t, txt)                                                                            \
	{                                                                                          \
		.model_type = t, .enc = HF_WRAPPER, .text = txt                                    \
	}
/* A wrapper whose text config is elsewhere than text_config. */
#define WRAPPER_AT(t, txt, path)                                                                   \
	{                                                                                          \
		.model_type = t, .enc = HF_WRAPPER, .text = txt, .what = path                      \
	}
/* A wrapper of a checkpoint's own code (auto_map, no class in transformers):
 * its text model's rules are restated from that code, not transformers' files. */
#define REMOTE_WRAPPER(t, txt, path)                                                               \
	{                                                                                          \
		.model_type = t, .enc = HF_WRAPPER, .text = txt, .what = path,                     \
		.flags = HF_REMOTE_CODE                                                            \
	}
/* A class's own attribute_map entries ("canonical=key"). */
#define KEYS(...) ((const char *const[]){__VA_ARGS__, NULL})

/* Defaults shared by Llama-like classes (LlamaConfig). */
#define LLAMA_D "hidden_size=4096,num_attention_heads=32,num_hidden_layers=32"

static const struct hf_arch archs[] = {
        /* ---- RoPE decoders ---- */
        ROPE("llama", H, LLAMA_D ",max_position_embeddings=2048,rope_theta=10000", 0),
        /* Mistral, Mixtral, Starcoder2, Phi-3, PhiMoE: one sliding-window mask for every
         * layer when sliding_window is set (MistralConfig's default 4096, the others' None) */
        ROPE("mistral", H,
             LLAMA_D ",max_position_embeddings=131072,rope_theta=10000,sliding_window=4096",
             HF_WINDOW_ALL),
        /* Ministral: layer_types, by default all sliding when sliding_window is set
         * (class default 4096) */
        ROPE("ministral", H,
             LLAMA_D ",max_position_embeddings=131072,rope_theta=10000,sliding_window=4096",
             HF_TYPES_ALL_SLIDE),
        ROPE("ministral3", H, LLAMA_D ",max_position_embeddings=262144,rope_theta=1000000",
             HF_WINDOW_ALL),
        ROPE("mixtral", H, LLAMA_D ",max_position_embeddings=131072,rope_theta=1000000",
             HF_WINDOW_ALL),
        /* Qwen2 / Qwen3: a window only with use_sliding_window, on the layers of
         * layer_types, by default those from max_window_layers on */
        ROPE("qwen2", H,
             LLAMA_D ",max_position_embeddings=32768,rope_theta=10000,sliding_window=4096,"
                     "max_window_layers=28",
             HF_USE_SLIDING | HF_MAX_WINDOW_LAYERS),
        /* Qwen2MoeConfig's default layer_types (even layers below max_window_layers)
         * are not restated: only a config's own layer_types give sliding layers */
        ROPE("qwen2_moe", H,
             "hidden_size=2048,num_attention_heads=16,num_hidden_layers=24,"
             "max_position_embeddings=32768,rope_theta=10000,sliding_window=4096",
             HF_USE_SLIDING),
        ROPE("qwen3", H,
             LLAMA_D ",head_dim=128,max_position_embeddings=32768,rope_theta=10000,"
                     "sliding_window=4096,max_window_layers=28",
             HF_USE_SLIDING | HF_MAX_WINDOW_LAYERS),
        /* Qwen3-MoE: every layer's attention takes config.sliding_window */
        ROPE("qwen3_moe", H,
             "hidden_size=2048,num_attention_heads=32,num_hidden_layers=24,"
             "max_position_embeddings=32768,rope_theta=10000,sliding_window=4096",
             HF_WINDOW_ALL | HF_USE_SLIDING),
        ROPE("qwen3_next", H,
             "hidden_size=2048,num_attention_heads=16,num_hidden_layers=48,head_dim=256,"
             "max_position_embeddings=32768,rope_theta=10000,partial_rotary_factor=0.25,"
             "full_attention_interval=4",
             0),
        /* Qwen3.5: partial_rotary_factor 0.25 and full_attention_interval 4 are
         * __post_init__ defaults (kwargs.setdefault / pop), M-RoPE in the block */
        ROPE("qwen3_5_text", H,
             "hidden_size=4096,num_attention_heads=16,num_hidden_layers=32,head_dim=256,"
             "max_position_embeddings=32768,rope_theta=10000,partial_rotary_factor=0.25,"
             "full_attention_interval=4",
             0),
        ROPE("qwen3_5_moe_text", H,
             "hidden_size=2048,num_attention_heads=16,num_hidden_layers=40,head_dim=256,"
             "max_position_embeddings=32768,rope_theta=10000,partial_rotary_factor=0.25,"
             "full_attention_interval=4",
             0),
        ROPE("qwen2_vl", H,
             "hidden_size=8192,num_attention_heads=64,num_hidden_layers=80,"
             "max_position_embeddings=32768,rope_theta=1000000",
             0),
        ROPE("qwen2_vl_text", H,
             "hidden_size=8192,num_attention_heads=64,num_hidden_layers=80,"
             "max_position_embeddings=32768,rope_theta=1000000",
             0),
        ROPE("qwen2_5_vl", H,
             "hidden_size=8192,num_attention_heads=64,num_hidden_layers=80,"
             "max_position_embeddings=32768,rope_theta=1000000",
             0),
        ROPE("qwen2_5_vl_text", H,
             "hidden_size=8192,num_attention_heads=64,num_hidden_layers=80,"
             "max_position_embeddings=32768,rope_theta=1000000",
             0),
        ROPE("qwen3_vl_text", H,
             LLAMA_D ",head_dim=128,max_position_embeddings=128000,rope_theta=5000000", 0),
        ROPE("qwen3_vl_moe_text", H,
             "hidden_size=2048,num_attention_heads=16,num_hidden_layers=24,head_dim=128,"
             "max_position_embeddings=128000,rope_theta=5000000",
             0),
        ROPE("gemma", H,
             "hidden_size=3072,num_attention_heads=16,num_hidden_layers=28,head_dim=256,"
             "max_position_embeddings=8192,rope_theta=10000",
             0),
        ROPE("gemma2", H,
             "hidden_size=2304,num_attention_heads=8,num_hidden_layers=26,head_dim=256,"
             "max_position_embeddings=8192,rope_theta=10000,sliding_window=4096,"
             "sliding_window_pattern=2,query_pre_attn_scalar=256",
             HF_PATTERN | HF_QUERY_SCALAR),
        ROPE("vaultgemma", H,
             "hidden_size=1152,num_attention_heads=4,num_hidden_layers=26,head_dim=256,"
             "max_position_embeddings=1024,rope_theta=10000,sliding_window=512,"
             "sliding_window_pattern=2,query_pre_attn_scalar=256",
             HF_PATTERN | HF_QUERY_SCALAR),
        {.model_type = "gemma3_text",
         .enc = HF_ROPE,
         .layout = H,
         .defaults = "hidden_size=2304,num_attention_heads=8,num_hidden_layers=26,head_dim=256,"
                     "max_position_embeddings=131072,rope_theta=1000000,rope_local_base_freq=10000,"
                     "sliding_window=4096,sliding_window_pattern=6,query_pre_attn_scalar=256",
         .flags = HF_PATTERN | HF_QUERY_SCALAR,
         .local_theta = "rope_local_base_freq"},
        {.model_type = "gemma3n_text",
         .enc = HF_ROPE,
         .layout = H,
         .defaults = "hidden_size=2048,num_attention_heads=8,num_hidden_layers=35,head_dim=256,"
                     "max_position_embeddings=32768,rope_theta=1000000,rope_local_base_freq=10000,"
                     "sliding_window=512,sliding_window_pattern=5",
         /* without layer_types Gemma3nTextConfig makes every 5th layer full
          * ((i + 1) % 5 == 0), the others sliding at rope_local_base_freq */
         .flags = HF_PATTERN,
         .local_theta = "rope_local_base_freq"},
        {.model_type = "gemma4_text",
         .enc = HF_ROPE,
         .layout = H,
         .defaults = "sliding_window=512,query_pre_attn_scalar=1",
         .flags = HF_GEMMA4},
        {.model_type = "gemma4",
         .enc = HF_ROPE,
         .layout = H,
         .defaults = "sliding_window=512,query_pre_attn_scalar=1",
         .flags = HF_GEMMA4},
        ROPE("phi", H,
             "hidden_size=2048,num_attention_heads=32,num_hidden_layers=24,"
             "max_position_embeddings=2048,rope_theta=10000,partial_rotary_factor=0.5",
             0),
        ROPE("phi3", H,
             "hidden_size=3072,num_attention_heads=32,num_hidden_layers=32,"
             "max_position_embeddings=4096,rope_theta=10000",
             HF_WINDOW_ALL),
        ROPE("phimoe", H, LLAMA_D ",max_position_embeddings=131072,rope_theta=1000000",
             HF_PHIMOE_MSCALE | HF_WINDOW_ALL),
        {.model_type = "gpt_neox",
         .enc = HF_ROPE,
         .layout = H,
         .defaults = "hidden_size=6144,num_attention_heads=64,num_hidden_layers=44,"
                     "max_position_embeddings=2048,rotary_emb_base=10000,rotary_pct=0.25",
         .theta_key = "rotary_emb_base"},
        {.model_type = "gpt_neox_japanese",
         .enc = HF_ROPE,
         .layout = H,
         .defaults = "hidden_size=2560,num_attention_heads=32,num_hidden_layers=32,"
                     "max_position_embeddings=2048,rotary_emb_base=10000,rotary_pct=1",
         .theta_key = "rotary_emb_base"},
        ROPE("persimmon", H,
             "hidden_size=4096,num_attention_heads=64,num_hidden_layers=36,"
             "max_position_embeddings=16384,rope_theta=25000,partial_rotary_factor=0.5",
             0),
        ROPE("stablelm", H,
             "hidden_size=2560,num_attention_heads=32,num_hidden_layers=32,"
             "max_position_embeddings=4096,rope_theta=10000,partial_rotary_factor=0.25",
             0),
        ROPE("falcon", H,
             "hidden_size=4544,num_attention_heads=71,num_hidden_layers=32,"
             "max_position_embeddings=2048,rope_theta=10000",
             HF_ALIBI_FLAG),
        ROPE("starcoder2", H,
             "hidden_size=3072,num_attention_heads=24,num_hidden_layers=30,"
             "max_position_embeddings=4096,rope_theta=10000",
             HF_WINDOW_ALL),
        ROPE("olmo", H, LLAMA_D ",max_position_embeddings=2048,rope_theta=10000", 0),
        ROPE("olmo2", H, LLAMA_D ",max_position_embeddings=2048,rope_theta=10000", 0),
        /* Olmo 3: sliding layers take the default RoPE at rope_theta, full layers the
         * rope block (one rotary embedding per layer type in modeling_olmo3.py) */
        {.model_type = "olmo3",
         .enc = HF_ROPE,
         .layout = H,
         .defaults = LLAMA_D ",max_position_embeddings=2048,rope_theta=10000,sliding_window=4096,"
                             "sliding_window_pattern=4",
         .flags = HF_PATTERN,
         .local_theta = "rope_theta"},
        /* Laguna: one rotary embedding per layer type, each from its own block of
         * rope_parameters (full layers: base 500000 over half the head; sliding:
         * 10000 over all of it, the class's defaults), rotate_half on the leading
         * rotated dimensions (modeling_laguna.py) */
        {.model_type = "laguna",
         .enc = HF_ROPE,
         .layout = H,
         .defaults = "hidden_size=2048,num_attention_heads=48,num_hidden_layers=40,head_dim=128,"
                     "max_position_embeddings=131072,sliding_window=512",
         .flags = HF_TYPE_ROPE,
         .rope_block = "{\"full_attention\":{\"rope_type\":\"default\",\"rope_theta\":500000,"
                       "\"partial_rotary_factor\":0.5},\"sliding_attention\":{\"rope_type\":"
                       "\"default\",\"rope_theta\":10000,\"partial_rotary_factor\":1}}"},
        /* MiMo-V2-Flash: as Laguna, one rotary per layer type from its own block
         * (class default: full 5000000, sliding 10000, both 0.334 of the head) */
        {.model_type = "mimo_v2_flash",
         .enc = HF_ROPE,
         .layout = H,
         .defaults = "hidden_size=4096,num_attention_heads=64,num_hidden_layers=48,head_dim=192,"
                     "max_position_embeddings=131072,sliding_window=128",
         .flags = HF_TYPE_ROPE | HF_MIMO_TYPES,
         .rope_block = "{\"full_attention\":{\"rope_type\":\"default\",\"rope_theta\":5000000,"
                       "\"partial_rotary_factor\":0.334},\"sliding_attention\":{\"rope_type\":"
                       "\"default\",\"rope_theta\":10000,\"partial_rotary_factor\":0.334}}"},
        ROPE("olmoe", H,
             "hidden_size=2048,num_attention_heads=16,num_hidden_layers=16,"
             "max_position_embeddings=4096,rope_theta=10000",
             0),
        ROPE("smollm3", H,
             "hidden_size=2048,num_attention_heads=16,num_hidden_layers=36,"
             "max_position_embeddings=32768,rope_theta=2000000,no_rope_layer_interval=4",
             0),
        ROPE("granite", H, LLAMA_D ",max_position_embeddings=2048,rope_theta=10000", HF_ATTN_MULT),
        ROPE("granitemoe", H, LLAMA_D ",max_position_embeddings=2048,rope_theta=10000",
             HF_ATTN_MULT),
        ROPE("granitemoeshared", H, LLAMA_D ",max_position_embeddings=2048,rope_theta=10000",
             HF_ATTN_MULT),
        ROPE("nemotron", H,
             "hidden_size=6144,num_attention_heads=48,num_hidden_layers=32,"
             "max_position_embeddings=4096,rope_theta=10000,partial_rotary_factor=0.5",
             0),
        ROPE("helium", H,
             "hidden_size=2560,num_attention_heads=20,num_hidden_layers=24,head_dim=128,"
             "max_position_embeddings=4096,rope_theta=100000",
             0),
        ROPE("exaone4", H,
             LLAMA_D ",max_position_embeddings=2048,rope_theta=10000,sliding_window=4096,"
                     "sliding_window_pattern=4",
             HF_PATTERN | HF_PATTERN_IF_WINDOW | HF_FULL_NOPE),
        /* K-EXAONE: ExaoneMoeConfig subclasses Exaone4Config (same defaults, same
         * layer_types from sliding_window_pattern) and ExaoneMoeAttention is
         * Exaone4Attention, so full layers are NoPE when there is a window
         * (configuration_exaone_moe.py at 008e574, modular_exaone_moe.py) */
        ROPE("exaone_moe", H,
             LLAMA_D ",max_position_embeddings=2048,rope_theta=10000,sliding_window=4096,"
                     "sliding_window_pattern=4",
             HF_PATTERN | HF_PATTERN_IF_WINDOW | HF_FULL_NOPE),
        /* the text model type EXAONE 4.5 was first published with; Exaone4_5_Config
         * reads it as exaone4 (configuration_exaone4_5.py) */
        ROPE("exaone4_5_text", H,
             LLAMA_D ",max_position_embeddings=2048,rope_theta=10000,sliding_window=4096,"
                     "sliding_window_pattern=4",
             HF_PATTERN | HF_PATTERN_IF_WINDOW | HF_FULL_NOPE),
        ROPE("apertus", H, LLAMA_D ",max_position_embeddings=65536,rope_theta=12000000", 0),
        ROPE("arcee", H,
             "hidden_size=2560,num_attention_heads=32,num_hidden_layers=32,"
             "max_position_embeddings=4096,rope_theta=10000",
             0),
        ROPE("seed_oss", H, LLAMA_D ",max_position_embeddings=131072,rope_theta=10000", 0),
        ROPE("dots1", H, "max_position_embeddings=2048,rope_theta=10000", 0),
        ROPE("afmoe", H, "max_position_embeddings=16384,rope_theta=10000", 0),
        /* MiniMax: its full-attention layers take the sliding mask when sliding_window is set */
        ROPE("minimax", H, "max_position_embeddings=131072,rope_theta=1000000", HF_WINDOW_ALL),
        ROPE("lfm2", H, "max_position_embeddings=128000,rope_theta=1000000", 0),
        ROPE("bitnet", H, "max_position_embeddings=2048,rope_theta=500000", 0),
        ROPE("diffllama", H, "max_position_embeddings=2048,rope_theta=10000", 0),
        ROPE("jetmoe", H, "max_position_embeddings=4096,rope_theta=10000", 0),
        ROPE("chameleon", H, LLAMA_D ",max_position_embeddings=4096,rope_theta=10000", 0),
        ROPE("emu3", H, LLAMA_D ",max_position_embeddings=9216,rope_theta=1000000", 0),
        ROPE("falcon_h1", H, "max_position_embeddings=8192,rope_theta=100000000000", 0),
        /* BambaConfig hard-codes partial_rotary_factor 0.5 ("for BC", whatever the
         * config says) and attends only in attn_layer_indices (configuration_bamba.py) */
        {.model_type = "bamba",
         .enc = HF_ROPE,
         .layout = H,
         .defaults = "hidden_size=4096,num_attention_heads=32,num_hidden_layers=32,"
                     "max_position_embeddings=262144,rope_theta=10000,partial_rotary_factor=0.5",
         .flags = HF_ATTN_INDICES | HF_FIXED_PARTIAL},
        ROPE("granitemoehybrid", H, "max_position_embeddings=2048,rope_theta=10000", HF_ATTN_MULT),
        ROPE("glm4_moe", H,
             "hidden_size=4096,num_attention_heads=96,num_hidden_layers=46,head_dim=128,"
             "max_position_embeddings=131072,rope_theta=10000,partial_rotary_factor=0.5",
             0),
        /* Solar Open (solar_open, at 008e574): Glm4MoeConfig's rotary with
         * partial_rotary_factor set to 1.0 and default_theta 1e6, head_dim 128;
         * LlamaAttention, rotate_half (configuration_solar_open.py at the pin,
         * modular_solar_open.py at 02e8340b) */
        ROPE("solar_open", H,
             "hidden_size=4096,num_attention_heads=64,num_hidden_layers=48,head_dim=128,"
             "max_position_embeddings=131072,rope_theta=1000000,partial_rotary_factor=1",
             0),
        ROPE("hunyuan_v1_dense", H, "max_position_embeddings=2048,rope_theta=10000", HF_NTK_ALPHA),
        ROPE("hunyuan_v1_moe", H, "max_position_embeddings=2048,rope_theta=10000", HF_NTK_ALPHA),
        ROPE("gpt_oss", H,
             "hidden_size=2880,num_attention_heads=64,num_hidden_layers=36,head_dim=64,"
             "max_position_embeddings=131072,rope_theta=150000,sliding_window=128,"
             "sliding_window_pattern=2",
             HF_PATTERN),
        {.model_type = "modernbert",
         .enc = HF_ROPE,
         .layout = H,
         .defaults = "hidden_size=768,num_attention_heads=12,num_hidden_layers=22,"
                     "max_position_embeddings=8192,global_rope_theta=160000,local_rope_theta=10000,"
                     "global_attn_every_n_layers=3,local_attention=128",
         .flags = HF_EVERY_N | HF_LOCAL_ATTENTION,
         .theta_key = "global_rope_theta",
         .local_theta = "local_rope_theta"},
        /* ModernBERT's decoder: layer i is global when i % global_attn_every_n_layers
         * == 0, as in the encoder (ModernBertDecoderConfig); sliding layers at
         * local_rope_theta, causal, local_attention // 2 positions back */
        {.model_type = "modernbert-decoder",
         .enc = HF_ROPE,
         .layout = H,
         .defaults = "hidden_size=768,num_attention_heads=12,num_hidden_layers=22,"
                     "max_position_embeddings=8192,global_rope_theta=160000,"
                     "local_rope_theta=10000,global_attn_every_n_layers=3,local_attention=128",
         .flags = HF_EVERY_N | HF_LOCAL_HALF,
         .theta_key = "global_rope_theta",
         .local_theta = "local_rope_theta"},
        ROPE("cohere", I,
             "hidden_size=8192,num_attention_heads=64,num_hidden_layers=40,"
             "max_position_embeddings=8192,rope_theta=10000",
             0),
        ROPE("cohere2", I,
             "hidden_size=8192,num_attention_heads=64,num_hidden_layers=40,"
             "max_position_embeddings=8192,rope_theta=10000,sliding_window=4096,"
             "sliding_window_pattern=4",
             HF_PATTERN | HF_FULL_NOPE | HF_SLIDING_ROPE),
        ROPE("glm", I,
             LLAMA_D ",num_hidden_layers=40,head_dim=128,max_position_embeddings=131072,"
                     "rope_theta=10000,partial_rotary_factor=0.5",
             0),
        ROPE("glm4", I,
             LLAMA_D ",num_hidden_layers=40,head_dim=128,max_position_embeddings=131072,"
                     "rope_theta=10000,partial_rotary_factor=0.5",
             0),
        /* Baichuan (remote code, modeling_baichuan.py): the 7B models' RotaryEmbedding
         * (rotate_half, base 10000, whole head); the 13B ones add ALiBi instead
         * (model_hf.c tells them apart by their configuration class: the 13B one
         * writes no max_position_embeddings) */
        ROPE("baichuan", H,
             "hidden_size=4096,num_attention_heads=32,num_hidden_layers=32,"
             "max_position_embeddings=4096,rope_theta=10000",
             HF_REMOTE_CODE | HF_ALIBI_IF_NO_MAX_POS),
        /* StableLM (2) remote code (modeling_stablelm_epoch.py): rotate_half over
         * int(head_dim * rope_pct) dimensions; rotary_scaling_factor is never read */
        {.model_type = "stablelm_epoch",
         .enc = HF_ROPE,
         .layout = H,
         .defaults = "hidden_size=2560,num_attention_heads=32,num_hidden_layers=32,"
                     "max_position_embeddings=4096,rope_theta=10000,partial_rotary_factor=0.25",
         .flags = HF_REMOTE_CODE,
         .keys = KEYS("partial_rotary_factor=rope_pct")},
        /* ChatGLM2/3 and GLM-4 remote code (modeling_chatglm.py): RotaryEmbedding
         * of kv_channels // 2 dimensions, pairs 2i, 2i+1, base 10000 * rope_ratio;
         * ChatGLM-6B's position_encoding_2d is another scheme; GLM-4V-9B (the same
         * type with a vision_config) gives an image's patches one position */
        {.model_type = "chatglm",
         .enc = HF_ROPE,
         .layout = I,
         .defaults = "hidden_size=4096,num_attention_heads=32,num_layers=28,kv_channels=128,"
                     "seq_length=2048,rope_theta=10000,partial_rotary_factor=0.5",
         .flags = HF_ROPE_RATIO | HF_REMOTE_CODE | HF_IMAGE_ONE_POS,
         .keys = KEYS("head_dim=kv_channels", "num_hidden_layers=num_layers",
                      "max_position_embeddings=seq_length", "unsupported=position_encoding_2d")},
        /* CogVLM (cogvlm-chat-hf) and CogAgent (cogagent-chat-hf) remote code:
         * RotaryEmbedding(head_dim) at its own base 10000, rotate_half over the
         * whole head, no rope block; an image's tokens share one position
         * (build_position_ids). Their configuration classes write no model_type:
         * the class names it. CogVLM2 keeps CogVLM's class names, with
         * num_multi_query_heads and a rotary hard-coded at base 500000. */
        {.model_type = "cogvlm",
         .enc = HF_ROPE,
         .layout = H,
         .defaults = LLAMA_D ",max_position_embeddings=2048,rope_theta=10000",
         .flags = HF_REMOTE_CODE | HF_NO_ROPE_BLOCK | HF_FIXED_BASE | HF_IMAGE_ONE_POS | HF_MQ_NEXT,
         .text = "cogvlm2"},
        {.model_type = "cogvlm2",
         .enc = HF_ROPE,
         .layout = H,
         .defaults = LLAMA_D ",num_multi_query_heads=8,max_position_embeddings=8192,"
                             "rope_theta=500000",
         .flags = HF_REMOTE_CODE | HF_NO_ROPE_BLOCK | HF_FIXED_BASE | HF_IMAGE_ONE_POS,
         .keys = KEYS("num_key_value_heads=num_multi_query_heads")},
        {.model_type = "cogagent",
         .enc = HF_ROPE,
         .layout = H,
         .defaults = LLAMA_D ",max_position_embeddings=2048,rope_theta=10000",
         .flags = HF_REMOTE_CODE | HF_NO_ROPE_BLOCK | HF_FIXED_BASE | HF_IMAGE_ONE_POS},
        /* ---- remote code: Qwen v1, InternLM and Llama-like families ---- */
        /* Qwen v1 (modeling_qwen.py): RotaryEmbedding of int(kv_channels * rotary_pct)
         * dimensions at rotary_emb_base, rotate_half, no rope block; beyond seq_length
         * its NTK-alpha steps and logn queries (use_dynamic_ntk, use_logn_attn) */
        {.model_type = "qwen",
         .enc = HF_ROPE,
         .layout = H,
         .defaults = "hidden_size=4096,num_attention_heads=32,num_hidden_layers=32,kv_channels=128,"
                     "max_position_embeddings=8192,rotary_emb_base=10000,rotary_pct=1",
         .flags = HF_REMOTE_CODE | HF_NO_ROPE_BLOCK | HF_NTK_STEPS,
         .theta_key = "rotary_emb_base",
         .keys = KEYS("head_dim=kv_channels", "ntk_length=seq_length", "ntk_switch=use_dynamic_ntk",
                      "logn_switch=use_logn_attn")},
        /* InternLM (modeling_internlm.py): the 'rotary' object, origin or dynamic */
        {.model_type = "internlm",
         .enc = HF_ROPE,
         .layout = H,
         .defaults = LLAMA_D ",max_position_embeddings=2048",
         .flags = HF_REMOTE_CODE | HF_ROTARY_DICT,
         .rope_block = "{\"base\": 10000, \"type\": \"dynamic\"}"},
        /* InternLM2 (modeling_internlm2.py): Llama's rotary with linear or dynamic only */
        {.model_type = "internlm2",
         .enc = HF_ROPE,
         .layout = H,
         .defaults = LLAMA_D ",max_position_embeddings=2048,rope_theta=10000",
         .flags = HF_REMOTE_CODE,
         .scalings = "linear dynamic"},
        /* InternLM3, XVERSE, Aquila: vLLM reads them as LlamaForCausalLM */
        ROPE("internlm3", H, LLAMA_D ",max_position_embeddings=2048,rope_theta=10000",
             HF_REMOTE_CODE),
        ROPE("xverse", H, LLAMA_D ",max_position_embeddings=2048,rope_theta=10000", HF_REMOTE_CODE),
        ROPE("aquila", H, LLAMA_D ",max_position_embeddings=2048,rope_theta=10000", HF_REMOTE_CODE),
        /* Orion (vLLM's orion.py): rope_theta and the rope block */
        ROPE("orion", H, LLAMA_D ",max_position_embeddings=8192,rope_theta=10000", HF_REMOTE_CODE),
        /* BlueLM (vivo's vLLM port): rope_theta and the rope block; its own
         * 'ntkmixed' scaling is not a type posenc restates */
        ROPE("bluelm", H, LLAMA_D ",max_position_embeddings=8192,rope_theta=10000", HF_REMOTE_CODE),
        /* Yi's first releases (modeling_yi.py): YiRotaryEmbedding at rope_theta, no
         * rope block (the configs say "Yi") */
        ROPE("Yi", H, LLAMA_D ",max_position_embeddings=4096,rope_theta=5000000",
             HF_REMOTE_CODE | HF_NO_ROPE_BLOCK),
        /* TeleChat (modeling_telechat.py, modeling_telechat2.py): RotaryEmbedding at
         * its own base 10000, rotate_half, no rope block, Qwen's NTK-alpha steps
         * against base_seqlen from training_seqlen on */
        {.model_type = "telechat",
         .enc = HF_ROPE,
         .layout = H,
         .defaults = "hidden_size=4096,n_head=32,n_layer=30,training_seqlen=8192,rope_theta=10000",
         .flags = HF_REMOTE_CODE | HF_NO_ROPE_BLOCK | HF_FIXED_BASE | HF_NTK_STEPS,
         .keys = KEYS("hidden_size=n_embed", "num_attention_heads=n_head",
                      "num_hidden_layers=n_layer", "max_position_embeddings=training_seqlen",
                      "ntk_length=base_seqlen", "ntk_floor=training_seqlen")},
        /* CodeShell (modeling_codeshell.py): a learned wpe unless position_embedding_type
         * is 'rope', then the rotary at its own base 10000, linear or dynamic */
        {.model_type = "codeshell",
         .enc = HF_LEARNED,
         .layout = H,
         .defaults = "n_embd=4096,n_head=32,n_layer=42,n_positions=8192,rope_theta=10000",
         .flags = HF_REMOTE_CODE | HF_PET_ROPE | HF_FIXED_BASE,
         .what = "transformer.wpe.weight",
         .scalings = "linear dynamic"},
        ROPE("ernie4_5", I,
             "hidden_size=1024,num_attention_heads=16,num_hidden_layers=18,head_dim=128,"
             "max_position_embeddings=131072,rope_theta=500000",
             0),
        ROPE("ernie4_5_moe", I,
             "hidden_size=2560,num_attention_heads=20,num_hidden_layers=28,head_dim=128,"
             "max_position_embeddings=131072,rope_theta=500000",
             0),
        /* ---- remote code: MoE, MLA and multimodal families ---- */
        /* DeepSeek-MoE 16B (modeling_deepseek.py, a Llama 4.36 copy): rotate_half over
         * the whole head, rope_scaling "type" linear or dynamic or the code raises */
        {.model_type = "deepseek",
         .enc = HF_ROPE,
         .layout = H,
         .defaults = LLAMA_D ",num_hidden_layers=30,max_position_embeddings=2048,"
                             "rope_theta=10000",
         .flags = HF_REMOTE_CODE,
         .scalings = "linear dynamic"},
        /* MiniCPM 1-4 (modeling_minicpm.py): rotate_half, MiniCPMLongRoPE for longrope
         * (its factors picked once for a cache of max_position_embeddings) */
        {.model_type = "minicpm",
         .enc = HF_ROPE,
         .layout = H,
         .defaults = LLAMA_D ",max_position_embeddings=2048,rope_theta=10000",
         .flags = HF_REMOTE_CODE | HF_LONGROPE_AT_MAX,
         .keys = KEYS("head_dim=kv_channels"),
         .scalings = "linear dynamic longrope"},
        /* MiniCPM3: latent attention whose rope part (qk_rope_head_dim) is rotated
         * with rotate_half, no permutation (vLLM: neox style); softmax over
         * qk_nope_head_dim + qk_rope_head_dim without YaRN's mscale */
        {.model_type = "minicpm3",
         .enc = HF_ROPE,
         .layout = H,
         .defaults = "rope_theta=10000",
         .flags = HF_REMOTE_CODE | HF_LONGROPE_AT_MAX,
         .scalings = "linear dynamic longrope"},
        /* Hunyuan-Large (modeling_hunyuan.py): rotate_half; "dynamic" with alpha is a
         * fixed NTK base; attention_head_dim is the head width where given */
        {.model_type = "hunyuan",
         .enc = HF_ROPE,
         .layout = H,
         .defaults = "max_position_embeddings=2048,rope_theta=10000",
         .flags = HF_NTK_ALPHA | HF_REMOTE_CODE,
         .keys = KEYS("head_dim=attention_head_dim"),
         .scalings = "linear dynamic"},
        /* Ling / Ring (BailingMoeForCausalLM and BailingMoeV2ForCausalLM share the
         * type): rotate_half over head_dim * partial_rotary_factor (Ling 2.0: 0.5) */
        ROPE("bailing_moe", H,
             "hidden_size=1024,num_attention_heads=16,num_hidden_layers=24,"
             "max_position_embeddings=16384,rope_theta=10000",
             HF_REMOTE_CODE),
        /* Grok-1 (HF ports of xai-org/grok-1): rotate_half over 128-wide heads, no
         * rope_scaling read */
        {.model_type = "grok-1",
         .enc = HF_ROPE,
         .layout = H,
         .defaults = "hidden_size=6144,num_attention_heads=48,num_hidden_layers=64,"
                     "max_position_embeddings=8192,rope_theta=10000",
         .flags = HF_REMOTE_CODE | HF_NO_ROPE_BLOCK},
        /* Snowflake Arctic (modeling_arctic.py, a Mixtral copy): rotate_half, no
         * rope_scaling read; the class default base is 1e6 */
        {.model_type = "arctic",
         .enc = HF_ROPE,
         .layout = H,
         .defaults = LLAMA_D ",max_position_embeddings=4096,rope_theta=1000000",
         .flags = HF_REMOTE_CODE | HF_NO_ROPE_BLOCK},
        /* Step3's text model: 256-wide heads, the context in max_position_embedding */
        {.model_type = "step3_text",
         .enc = HF_ROPE,
         .layout = H,
         .defaults = "hidden_size=7168,num_attention_heads=64,num_hidden_layers=61,head_dim=256,"
                     "max_position_embedding=65536,rope_theta=500000",
         .flags = HF_REMOTE_CODE,
         .keys = KEYS("max_position_embeddings=max_position_embedding")},
        /* Molmo (modeling_molmo.py): d_model // n_heads wide heads, rotate_half unless
         * rope_impl is "interleave"; rope_scaling never read */
        {.model_type = "molmo",
         .enc = HF_ROPE,
         .layout = H,
         .flags = HF_REMOTE_CODE | HF_NO_ROPE_BLOCK,
         .keys = KEYS("interleave_if=rope_impl:interleave")},
        /* PLaMo (modeling_plamo.py): rotate_half over hidden_size // heads at
         * rope_theta; no rope_scaling read */
        {.model_type = "plamo",
         .enc = HF_ROPE,
         .layout = H,
         .defaults = LLAMA_D ",max_position_embeddings=2048,rope_theta=10000",
         .flags = HF_REMOTE_CODE | HF_NO_ROPE_BLOCK},
        /* PLaMo 2: Mamba layers and attention layers by mamba_step; the attention's
         * heads are hidden_size_per_head wide, rotate_half at rope_theta */
        {.model_type = "plamo2",
         .enc = HF_ROPE,
         .layout = H,
         .defaults = "hidden_size=4096,num_attention_heads=32,num_hidden_layers=32,"
                     "hidden_size_per_head=128,max_position_embeddings=2048,rope_theta=10000,"
                     "mamba_step=2",
         .flags = HF_MAMBA_STEP | HF_REMOTE_CODE,
         .keys = KEYS("head_dim=hidden_size_per_head")},
        /* Solar Pro (modeling_solar.py, Llama's rotary with its bskcn skip links) */
        ROPE("solar", H, LLAMA_D ",max_position_embeddings=2048,rope_theta=10000", HF_REMOTE_CODE),
        /* GLM-4.5V's text model: rotate_half on the rotated half (Glm4vMoeTextAttention's
         * apply_rotary_pos_emb), unlike GLM-4.1V's rotate_half_llm */
        ROPE("glm4v_moe_text", H,
             "hidden_size=4096,num_attention_heads=96,num_hidden_layers=46,"
             "max_position_embeddings=65536,rope_theta=10000,partial_rotary_factor=0.5",
             0),
        WRAPPER("glm4v_moe", "glm4v_moe_text"),
        /* Kimi-VL and Step3-VL ship their own code (auto_map, no class in
         * transformers); Kimi-VL's text_config is DeepSeek-V3's (model_type
         * deepseek_v3), Step3's the step3_text row */
        REMOTE_WRAPPER("kimi_vl", "deepseek_v3", NULL),
        REMOTE_WRAPPER("step3_vl", "step3_text", NULL),
        ROPE("gptj", I,
             "n_embd=4096,n_head=16,n_layer=28,n_positions=2048,rotary_dim=64,"
             "rope_theta=10000",
             0),
        ROPE("codegen", I,
             "n_embd=4096,n_head=16,n_layer=28,n_positions=2048,rotary_dim=64,"
             "rope_theta=10000",
             0),
        /* DeepSeek-V4: sliding layers rotate at rope_theta unscaled ("main"), the
         * compressed ones (CSA, HCA) at compress_rope_theta with the rope block,
         * YaRN's attention factor 1 (DeepseekV4Config); pairs 2i, 2i+1 over the
         * qk_rope_head_dim rotated dimensions (64 of 512) */
        {.model_type = "deepseek_v4",
         .enc = HF_ROPE,
         .layout = I,
         .defaults = "hidden_size=4096,num_attention_heads=64,num_hidden_layers=43,head_dim=512,"
                     "qk_rope_head_dim=64,max_position_embeddings=1048576,rope_theta=10000,"
                     "compress_rope_theta=160000,sliding_window=128",
         .flags = HF_COMPRESS_RATIOS | HF_YARN_UNIT_ATT,
         .theta_key = "compress_rope_theta",
         .local_theta = "rope_theta"},
        ROPE("deepseek_v2", I,
             "hidden_size=5120,num_attention_heads=128,num_hidden_layers=60,"
             "qk_rope_head_dim=64,max_position_embeddings=2048,rope_theta=10000",
             HF_MSCALE_SOFTMAX),
        ROPE("deepseek_v3", I,
             "hidden_size=7168,num_attention_heads=128,num_hidden_layers=61,"
             "qk_rope_head_dim=64,max_position_embeddings=4096,rope_theta=10000",
             HF_MSCALE_SOFTMAX),
        /* DeepSeek-V3.2 and GLM-5 (DSA): the MLA attention always pairs 2i, 2i+1
         * (apply_rotary_pos_emb_interleave); their configs drop rope_interleave */
        ROPE("deepseek_v32", I,
             "hidden_size=7168,num_attention_heads=128,num_hidden_layers=61,"
             "qk_rope_head_dim=64,max_position_embeddings=163840,rope_theta=10000",
             HF_MSCALE_SOFTMAX | HF_FIXED_PAIRING),
        ROPE("glm_moe_dsa", I,
             "hidden_size=6144,num_attention_heads=64,num_hidden_layers=78,"
             "qk_rope_head_dim=64,max_position_embeddings=202752,rope_theta=10000",
             HF_MSCALE_SOFTMAX | HF_FIXED_PAIRING),
        /* GLM-4.7-Flash: DeepseekV3Attention, rope_interleave default true */
        ROPE("glm4_moe_lite", I,
             "hidden_size=2048,num_attention_heads=20,num_hidden_layers=47,"
             "qk_rope_head_dim=64,max_position_embeddings=202752,rope_theta=10000",
             HF_MSCALE_SOFTMAX),
        /* Youtu-LLM (youtu, at 008e574): YoutuConfig subclasses DeepseekV3Config
         * (qk_rope_head_dim 64, rope_interleave default true) with its own sizes;
         * YoutuAttention is DeepseekV3Attention (configuration_youtu.py at the pin,
         * modular_youtu.py at 07497505) */
        ROPE("youtu", I,
             "hidden_size=2048,num_attention_heads=16,num_hidden_layers=32,"
             "qk_rope_head_dim=64,max_position_embeddings=131072,rope_theta=10000",
             HF_MSCALE_SOFTMAX),
        ROPE("mllama_text_model", H,
             LLAMA_D ",num_hidden_layers=40,max_position_embeddings=131072,rope_theta=500000",
             HF_CROSS_NOPE),
        ROPE("llama4_text", I,
             "hidden_size=5120,num_attention_heads=40,num_hidden_layers=48,head_dim=128,"
             "max_position_embeddings=131072,rope_theta=500000,no_rope_layer_interval=4,"
             "attention_chunk_size=8192,floor_scale=8192,attn_scale=0.1",
             HF_TEMP_TUNING),

        ROPE("code_llama", H, LLAMA_D ",max_position_embeddings=2048,rope_theta=10000", 0),
        /* DBRX: the base is attn_config.rope_theta (DbrxAttentionConfig's, 10000; DBRX
         * publishes 500000); heads d_model // n_heads */
        {.model_type = "dbrx",
         .enc = HF_ROPE,
         .layout = H,
         .defaults = "d_model=2048,n_heads=16,n_layers=24,max_seq_len=2048,"
                     "attn_config.rope_theta=10000",
         .theta_key = "attn_config.rope_theta"},
        /* RoFormer: RoFormerSinusoidalPositionalEmbedding's table applied to pairs
         * 2i, 2i+1 (apply_rotary_position_embeddings), base 10000 fixed */
        {.model_type = "roformer",
         .enc = HF_ROPE,
         .layout = I,
         .defaults = "hidden_size=768,num_attention_heads=12,num_hidden_layers=12,"
                     "max_position_embeddings=1536,rope_theta=10000",
         .flags = HF_ROTARY_VALUE},
        /* Moonshine: GLM's rotary (pairs 2i, 2i+1 on the first rotated dims), one table
         * for encoder and decoder, its width from config.num_attention_heads, which
         * MoonshineConfig's attribute_map reads as encoder_num_attention_heads */
        {.model_type = "moonshine",
         .enc = HF_ROPE,
         .layout = I,
         .defaults = "hidden_size=288,encoder_num_attention_heads=8,"
                     "encoder_num_hidden_layers=6,max_position_embeddings=512,rope_theta=10000,"
                     "partial_rotary_factor=0.9",
         .keys = KEYS("num_attention_heads=encoder_num_attention_heads",
                      "num_hidden_layers=encoder_num_hidden_layers")},
        /* GLM-4.1V's text model: rotate_half_llm pairs 2i, 2i+1 on the rotated half */
        ROPE("glm4v_text", I,
             "hidden_size=4096,num_attention_heads=32,num_hidden_layers=40,"
             "max_position_embeddings=32768,rope_theta=10000,partial_rotary_factor=0.5",
             0),
        /* RecurrentGemma (Griffin): the attention blocks of block_types (repeated over the
         * layers) rotate half of each head; all of them slide over attention_window_size */
        {.model_type = "recurrent_gemma",
         .enc = HF_ROPE,
         .layout = H,
         .defaults = "hidden_size=2560,num_attention_heads=10,num_hidden_layers=26,"
                     "rope_theta=10000,partial_rotary_factor=0.5,attention_window_size=2048",
         .flags = HF_TYPES_CYCLE,
         .keys = KEYS("sliding_window=attention_window_size"),
         .types = "block_types/attention=sliding_attention"},
        /* Zamba2: RoPE in the shared attention blocks ("hybrid" layers) only with
         * use_mem_rope; heads of 2 * hidden_size // num_attention_heads */
        {.model_type = "zamba2",
         .enc = HF_ROPE,
         .layout = H,
         .defaults = "hidden_size=2560,num_attention_heads=32,num_hidden_layers=54,"
                     "max_position_embeddings=4096,rope_theta=10000",
         .flags = HF_ZAMBA_HEAD,
         .keys = KEYS("head_dim=attention_head_dim", "unsupported=use_long_context"),
         .rope_key = "use_mem_rope",
         .types = "layers_block_type/hybrid"},
        /* CWM: every 4th layer (i % 4 == 0) full, the others slide; llama3 rope
         * parameters when the config has none */
        {.model_type = "cwm",
         .enc = HF_ROPE,
         .layout = H,
         .defaults = "hidden_size=6144,num_attention_heads=48,num_hidden_layers=64,head_dim=128,"
                     "max_position_embeddings=131072,rope_theta=1000000,sliding_window=8192,"
                     "global_attn_every_n_layers=4",
         .flags = HF_EVERY_N,
         .rope_block = "{\"rope_type\": \"llama3\", \"rope_theta\": 1000000.0, \"factor\": 16.0, "
                       "\"high_freq_factor\": 4.0, \"low_freq_factor\": 1.0, "
                       "\"original_max_position_embeddings\": 8192}"},
        /* LongCat-Flash: multi-head latent attention, apply_rotary_pos_emb_interleave */
        ROPE("longcat_flash", I,
             "hidden_size=6144,num_attention_heads=64,num_layers=28,qk_rope_head_dim=64,"
             "max_position_embeddings=131072,rope_theta=10000000",
             HF_FIXED_PAIRING),
        /* MiniMax-M2: Glm4MoeRotaryEmbedding (rotate_half, partial rotation) */
        ROPE("minimax_m2", H,
             "hidden_size=3072,num_attention_heads=48,num_hidden_layers=62,head_dim=128,"
             "max_position_embeddings=196608,rope_theta=5000000",
             0),
        /* MiniMax-M3's text model: MiniMaxM2RotaryEmbedding over head_dim times
         * partial_rotary_factor (rotary_dim is a field the rotary never reads), the same
         * on dense and sparse (indexer) layers */
        ROPE("minimax_m3_vl_text", H,
             "hidden_size=6144,num_attention_heads=64,num_hidden_layers=60,head_dim=128,"
             "max_position_embeddings=524288,rope_theta=5000000",
             0),
        ROPE("doge", H,
             "hidden_size=1024,num_attention_heads=8,num_hidden_layers=32,"
             "max_position_embeddings=2048,rope_theta=10000",
             0),
        ROPE("flex_olmo", H, LLAMA_D ",max_position_embeddings=4096,rope_theta=500000", 0),
        ROPE("jais2", H,
             "hidden_size=3328,num_attention_heads=26,num_hidden_layers=32,"
             "max_position_embeddings=8192,rope_theta=10000",
             0),
        ROPE("lfm2_moe", H,
             "hidden_size=2048,num_attention_heads=32,num_hidden_layers=32,"
             "max_position_embeddings=128000,rope_theta=1000000",
             0),
        /* Evolla's Llama text model (its class's model_type is "EvollaModel") */
        ROPE("evolla", H, LLAMA_D ",max_position_embeddings=8192,rope_theta=500000", 0),
        ROPE("EvollaModel", H, LLAMA_D ",max_position_embeddings=8192,rope_theta=500000", 0),
        /* CSM's Llama backbone (its depth decoder has a config of its own) */
        ROPE("csm", H,
             "hidden_size=2048,num_attention_heads=32,num_hidden_layers=16,"
             "max_position_embeddings=2048,rope_theta=500000",
             0),
        ROPE("moshi", H, LLAMA_D ",max_position_embeddings=3000,rope_theta=10000", 0),
        /* IDEFICS (v1): IdeficsEmbedding, rotate_half at base 10000 */
        ROPE("idefics", H, LLAMA_D ",max_position_embeddings=2048,rope_theta=10000", 0),
        /* NomicBERT (remote code, contrastors' modeling_hf_nomic_bert.py, and the
         * class transformers added): flash-attn's rotary keys, rotate_half unless
         * rotary_emb_interleaved */
        {.model_type = "nomic_bert",
         .enc = HF_ROPE,
         .layout = H,
         .defaults = "hidden_size=768,num_attention_heads=12,num_hidden_layers=12,"
                     "max_position_embeddings=2048,rotary_emb_base=10000",
         .theta_key = "rotary_emb_base",
         .keys = KEYS("partial_rotary_factor=rotary_emb_fraction",
                      "rope_interleave=rotary_emb_interleaved",
                      "unsupported=rotary_scaling_factor")},
        /* Aria's text model: LlamaConfig's keys, Llama's rotary */
        ROPE("aria_text", H, LLAMA_D ",max_position_embeddings=2048,rope_theta=10000", 0),
        /* Qwen2.5-Omni's thinker text model: Qwen2-VL's rotary and M-RoPE block */
        ROPE("qwen2_5_omni_text", H,
             "hidden_size=3584,num_attention_heads=28,num_hidden_layers=28,rope_theta=1000000", 0),
        /* Phi-4-multimodal: Phi-3's text model at the top level, its window too */
        ROPE("phi4_multimodal", H,
             "hidden_size=3072,num_attention_heads=32,num_hidden_layers=32,"
             "max_position_embeddings=131072,original_max_position_embeddings=4096,"
             "rope_theta=10000",
             HF_WINDOW_ALL),

        /* ---- ALiBi, T5 buckets ---- */
        {.model_type = "bloom", .enc = HF_ALIBI, .defaults = "n_head=8,n_layer=2"},
        {.model_type = "mpt",
         .enc = HF_ALIBI,
         .flags = HF_ALIBI_ATTN_CONFIG,
         .defaults = "n_heads=16,n_layers=24,max_seq_len=2048"},
        {.model_type = "t5", .enc = HF_T5, .defaults = "d_kv=64,num_layers=6"},
        {.model_type = "mt5", .enc = HF_T5, .defaults = "d_kv=64,num_layers=8"},
        {.model_type = "umt5", .enc = HF_T5, .defaults = "d_kv=64,num_layers=8"},
        {.model_type = "longt5", .enc = HF_T5, .defaults = "d_kv=64,num_layers=6"},
        {.model_type = "switch_transformers", .enc = HF_T5, .defaults = "d_kv=64,num_layers=12"},

        /* ---- learned absolute tables: rows x cols, the tensor that holds them ---- */
        LEARNED("gpt2", "n_positions=1024,n_embd=768", 0, "wpe.weight"),
        LEARNED("gpt_bigcode", "n_positions=1024,n_embd=768", 0, "transformer.wpe.weight"),
        LEARNED("gpt_neo", "max_position_embeddings=2048,hidden_size=2048", 0,
                "transformer.wpe.weight"),
        LEARNED("bert", "max_position_embeddings=512,hidden_size=768", 0,
                "bert.embeddings.position_embeddings.weight"),
        LEARNED("megatron-bert", "max_position_embeddings=512,hidden_size=1024", 0,
                "bert.embeddings.position_embeddings.weight"),
        {.model_type = "distilbert",
         .enc = HF_LEARNED,
         .defaults = "max_position_embeddings=512,dim=768,n_layers=6",
         .sin_key = "sinusoidal_pos_embds",
         .what = "distilbert.embeddings.position_embeddings.weight"},
        LEARNED("roberta", "max_position_embeddings=512,hidden_size=768,pad_token_id=1",
                HF_PAD_OFFSET, "roberta.embeddings.position_embeddings.weight"),
        LEARNED("xlm-roberta", "max_position_embeddings=512,hidden_size=768,pad_token_id=1",
                HF_PAD_OFFSET, "roberta.embeddings.position_embeddings.weight"),
        LEARNED("xlm-roberta-xl", "max_position_embeddings=514,hidden_size=2560,pad_token_id=1",
                HF_PAD_OFFSET, "roberta.embeddings.position_embeddings.weight"),
        LEARNED("camembert", "max_position_embeddings=512,hidden_size=768,pad_token_id=1",
                HF_PAD_OFFSET, "roberta.embeddings.position_embeddings.weight"),
        LEARNED("roberta-prelayernorm",
                "max_position_embeddings=512,hidden_size=768,pad_token_id=1", HF_PAD_OFFSET,
                "roberta_prelayernorm.embeddings.position_embeddings.weight"),
        LEARNED("longformer", "max_position_embeddings=512,hidden_size=768,pad_token_id=1",
                HF_PAD_OFFSET, "longformer.embeddings.position_embeddings.weight"),
        LEARNED("data2vec-text", "max_position_embeddings=512,hidden_size=768,pad_token_id=1",
                HF_PAD_OFFSET, "data2vec_text.embeddings.position_embeddings.weight"),
        /* the table is embedding_size wide (ElectraEmbeddings, AlbertEmbeddings) */
        {.model_type = "electra",
         .enc = HF_LEARNED,
         .defaults = "max_position_embeddings=512,embedding_size=128",
         .keys = KEYS("table_cols=embedding_size"),
         .what = "electra.embeddings.position_embeddings.weight"},
        {.model_type = "albert",
         .enc = HF_LEARNED,
         .defaults = "max_position_embeddings=512,embedding_size=128",
         .keys = KEYS("table_cols=embedding_size"),
         .what = "albert.embeddings.position_embeddings.weight"},
        LEARNED("ernie", "max_position_embeddings=512,hidden_size=768", 0,
                "ernie.embeddings.position_embeddings.weight"),
        LEARNED("layoutlm", "max_position_embeddings=512,hidden_size=768", 0,
                "layoutlm.embeddings.position_embeddings.weight"),
        {.model_type = "convbert",
         .enc = HF_LEARNED,
         .defaults = "max_position_embeddings=512,embedding_size=768",
         .keys = KEYS("table_cols=embedding_size"),
         .what = "convbert.embeddings.position_embeddings.weight"},
        LEARNED("esm", "max_position_embeddings=1026,hidden_size=768,pad_token_id=1", HF_PAD_OFFSET,
                "esm.embeddings.position_embeddings.weight"),
        /* XLM and FlauBERT: sinusoidal_embeddings fills the table with
         * create_sinusoidal_embeddings (sin at even, cos at odd columns) */
        {.model_type = "xlm",
         .enc = HF_LEARNED,
         .defaults = "max_position_embeddings=512,emb_dim=2048,n_layers=12",
         .sin_key = "sinusoidal_embeddings",
         .what = "transformer.position_embeddings.weight"},
        {.model_type = "flaubert",
         .enc = HF_LEARNED,
         .defaults = "max_position_embeddings=512,emb_dim=2048,n_layers=12",
         .sin_key = "sinusoidal_embeddings",
         .what = "transformer.position_embeddings.weight"},
        LEARNED("openai-gpt", "n_positions=512,n_embd=768,n_layer=12", 0, "positions_embed.weight"),
        LEARNED("gpt-sw3", "n_positions=1024,n_embd=768,n_layer=12", 0, "transformer.wpe.weight"),
        LEARNED("imagegpt", "n_positions=1024,n_embd=512,n_layer=24", 0, "transformer.wpe.weight"),
        LEARNED("big_bird", "max_position_embeddings=4096,hidden_size=768,num_hidden_layers=12", 0,
                "bert.embeddings.position_embeddings.weight"),
        LEARNED("bert-generation",
                "max_position_embeddings=512,hidden_size=1024,num_hidden_layers=24", 0,
                "bert.embeddings.position_embeddings.weight"),
        LEARNED("roc_bert", "max_position_embeddings=512,hidden_size=768,num_hidden_layers=12", 0,
                "roc_bert.embeddings.position_embeddings.weight"),
        LEARNED("splinter", "max_position_embeddings=512,hidden_size=768,num_hidden_layers=12", 0,
                "splinter.embeddings.position_embeddings.weight"),
        LEARNED("fnet", "max_position_embeddings=512,hidden_size=768,num_hidden_layers=12", 0,
                "fnet.embeddings.position_embeddings.weight"),
        LEARNED("canine", "max_position_embeddings=16384,hidden_size=768,num_hidden_layers=12", 0,
                "canine.char_embeddings.position_embeddings.weight"),
        /* the text towers of CLIP-like models: positions from 0 */
        LEARNED("clip_text_model",
                "max_position_embeddings=77,hidden_size=512,num_hidden_layers=12", 0,
                "text_model.embeddings.position_embedding.weight"),
        LEARNED("siglip_text_model",
                "max_position_embeddings=64,hidden_size=768,num_hidden_layers=12", 0,
                "text_model.embeddings.position_embedding.weight"),
        LEARNED("siglip2_text_model",
                "max_position_embeddings=64,hidden_size=768,num_hidden_layers=12", 0,
                "text_model.embeddings.position_embedding.weight"),
        LEARNED("blip_text_model",
                "max_position_embeddings=512,hidden_size=768,num_hidden_layers=12", 0, NULL),
        LEARNED("git", "max_position_embeddings=1024,hidden_size=768,num_hidden_layers=6", 0,
                "git.embeddings.position_embeddings.weight"),
        LEARNED("dpr", "max_position_embeddings=512,hidden_size=768,num_hidden_layers=12", 0, NULL),
        /* PerceiverTextPreprocessor: nn.Embedding(max_position_embeddings, d_model) */
        LEARNED("perceiver", "max_position_embeddings=2048,d_model=768", 0, NULL),
        /* removed from transformers 5, still published: BERT's table */
        LEARNED("qdqbert", "max_position_embeddings=512,hidden_size=768,num_hidden_layers=12", 0,
                "bert.embeddings.position_embeddings.weight"),
        /* MobileBertEmbeddings: the table is hidden_size wide (its word embeddings
         * are embedding_size, widened by a trigram projection) */
        LEARNED("mobilebert", "max_position_embeddings=512,hidden_size=512,num_hidden_layers=24", 0,
                "mobilebert.embeddings.position_embeddings.weight"),
        {.model_type = "squeezebert",
         .enc = HF_LEARNED,
         .defaults = "max_position_embeddings=512,embedding_size=768,num_hidden_layers=12",
         .keys = KEYS("table_cols=embedding_size"),
         .what = "transformer.embeddings.position_embeddings.weight"},
        {.model_type = "rembert",
         .enc = HF_LEARNED,
         .defaults = "max_position_embeddings=512,input_embedding_size=256,num_hidden_layers=32",
         .keys = KEYS("table_cols=input_embedding_size"),
         .what = "rembert.embeddings.position_embeddings.weight"},
        /* RoBERTa-like: positions from padding_idx + 1 */
        LEARNED("ibert", "max_position_embeddings=512,hidden_size=768,pad_token_id=1",
                HF_PAD_OFFSET, "ibert.embeddings.position_embeddings.weight"),
        LEARNED("xmod", "max_position_embeddings=512,hidden_size=768,pad_token_id=1", HF_PAD_OFFSET,
                "roberta.embeddings.position_embeddings.weight"),
        LEARNED("lilt", "max_position_embeddings=512,hidden_size=768,pad_token_id=1", HF_PAD_OFFSET,
                "lilt.embeddings.position_embeddings.weight"),
        LEARNED("luke", "max_position_embeddings=512,hidden_size=768,pad_token_id=1", HF_PAD_OFFSET,
                "luke.embeddings.position_embeddings.weight"),
        LEARNED("markuplm", "max_position_embeddings=512,hidden_size=768,pad_token_id=0",
                HF_PAD_OFFSET, "markuplm.embeddings.position_embeddings.weight"),
        /* nn.Embedding(max_position_embeddings + 2), positions from row 2 */
        LEARNED("nystromformer", "max_position_embeddings=510,hidden_size=768,num_hidden_layers=12",
                HF_OFFSET2, "nystromformer.embeddings.position_embeddings.weight"),
        LEARNED("mra", "max_position_embeddings=512,hidden_size=768,num_hidden_layers=12",
                HF_OFFSET2, "mra.embeddings.position_embeddings.weight"),
        LEARNED("yoso", "max_position_embeddings=4096,hidden_size=768,num_hidden_layers=12",
                HF_OFFSET2, "yoso.embeddings.position_embeddings.weight"),
        LEARNED("blenderbot", "max_position_embeddings=128,d_model=2560", 0,
                "model.decoder.embed_positions.weight"),
        LEARNED("blenderbot-small", "max_position_embeddings=512,d_model=512", 0,
                "model.decoder.embed_positions.weight"),
        LEARNED("opt", "max_position_embeddings=2048,hidden_size=768", HF_OFFSET2,
                "model.decoder.embed_positions.weight"),
        LEARNED("bart", "max_position_embeddings=1024,d_model=1024", HF_OFFSET2,
                "model.decoder.embed_positions.weight"),
        LEARNED("mbart", "max_position_embeddings=1024,d_model=1024", HF_OFFSET2,
                "model.decoder.embed_positions.weight"),
        LEARNED("plbart", "max_position_embeddings=1024,d_model=768", HF_OFFSET2,
                "model.decoder.embed_positions.weight"),
        LEARNED("mvp", "max_position_embeddings=1024,d_model=1024", HF_OFFSET2,
                "model.decoder.embed_positions.weight"),
        /* LEDLearnedPositionalEmbedding, BigBirdPegasusLearnedPositionalEmbedding:
         * positions from row 0 */
        {.model_type = "led",
         .enc = HF_LEARNED,
         .defaults = "max_encoder_position_embeddings=16384,max_decoder_position_embeddings=1024,"
                     "d_model=1024,encoder_layers=12",
         .keys = KEYS("table_rows=max_encoder_position_embeddings",
                      "decoder_rows=max_decoder_position_embeddings",
                      "num_hidden_layers=encoder_layers"),
         .what = "led.encoder.embed_positions.weight"},
        {.model_type = "bigbird_pegasus",
         .enc = HF_LEARNED,
         .defaults = "max_position_embeddings=4096,d_model=1024,encoder_layers=16",
         .keys = KEYS("num_hidden_layers=encoder_layers"),
         .what = "model.encoder.embed_positions.weight"},
        LEARNED("biogpt", "max_position_embeddings=1024,hidden_size=1024", HF_OFFSET2,
                "biogpt.embed_positions.weight"),
        {.model_type = "whisper",
         .enc = HF_WHISPER,
         .defaults = "d_model=384,max_source_positions=1500,max_target_positions=448",
         .what = "model.decoder.embed_positions.weight"},

        /* ---- fixed sinusoidal tables ---- */
        /* MarianSinusoidalPositionalEmbedding, PegasusSinusoidalPositionalEmbedding:
         * [sin | cos] of p / 10000^(2k/d), positions from 0 */
        {.model_type = "marian",
         .enc = HF_SINUSOIDAL,
         .layout = "layout=blocks,freq=paper",
         .defaults = "max_position_embeddings=1024,d_model=1024,encoder_layers=12",
         .keys = KEYS("num_hidden_layers=encoder_layers")},
        {.model_type = "pegasus",
         .enc = HF_SINUSOIDAL,
         .layout = "layout=blocks,freq=paper",
         .defaults = "max_position_embeddings=1024,d_model=1024,encoder_layers=12",
         .keys = KEYS("num_hidden_layers=encoder_layers")},
        /* CTRL's positional_encoding: the same table (sines, then cosines) */
        {.model_type = "ctrl",
         .enc = HF_SINUSOIDAL,
         .layout = "layout=blocks,freq=paper",
         .defaults = "n_positions=256,n_embd=1280,n_layer=48"},
        /* PegasusXSinusoidalPositionalEmbedding: [sin | cos] at
         * exp(-k log(10000) / (d/2 - 1)), positions from 0 */
        {.model_type = "pegasus_x",
         .enc = HF_SINUSOIDAL,
         .layout = "layout=blocks,freq=t2t",
         .defaults = "max_position_embeddings=16384,d_model=1024,encoder_layers=16",
         .keys = KEYS("num_hidden_layers=encoder_layers")},
        /* fairseq's get_embedding (half_dim, log(10000) / (half_dim - 1), [sin | cos])
         * read at make_positions: from padding_idx + 1 */
        {.model_type = "m2m_100",
         .enc = HF_SINUSOIDAL,
         .layout = "layout=blocks,freq=t2t",
         .defaults = "max_position_embeddings=1024,d_model=1024,encoder_layers=12,pad_token_id=1",
         .flags = HF_PAD_OFFSET,
         .keys = KEYS("num_hidden_layers=encoder_layers")},
        {.model_type = "nllb-moe",
         .enc = HF_SINUSOIDAL,
         .layout = "layout=blocks,freq=t2t",
         .defaults = "max_position_embeddings=1024,d_model=1024,encoder_layers=12,pad_token_id=1",
         .flags = HF_PAD_OFFSET,
         .keys = KEYS("num_hidden_layers=encoder_layers")},
        {.model_type = "fsmt",
         .enc = HF_SINUSOIDAL,
         .layout = "layout=blocks,freq=t2t",
         .defaults = "max_position_embeddings=1024,d_model=1024,encoder_layers=12,pad_token_id=1",
         .flags = HF_PAD_OFFSET,
         .keys = KEYS("num_hidden_layers=encoder_layers")},
        /* the text decoder's table; the encoder's over audio frames is another */
        {.model_type = "speech_to_text",
         .enc = HF_SINUSOIDAL,
         .layout = "layout=blocks,freq=t2t",
         .defaults = "max_source_positions=6000,max_target_positions=1024,d_model=256,"
                     "decoder_layers=6,pad_token_id=1",
         .flags = HF_PAD_OFFSET,
         .keys = KEYS("table_rows=max_target_positions", "encoder_rows=max_source_positions",
                      "num_hidden_layers=decoder_layers")},
        /* Kosmos-2's text model: M2M-100's table (embed_dim wide, from padding_idx + 1) */
        {.model_type = "kosmos_2_text_model",
         .enc = HF_SINUSOIDAL,
         .layout = "layout=blocks,freq=t2t",
         .defaults = "max_position_embeddings=2048,embed_dim=2048,layers=24,pad_token_id=1",
         .flags = HF_PAD_OFFSET,
         .keys = KEYS("table_cols=embed_dim", "num_hidden_layers=layers")},
        /* XGLMSinusoidalPositionalEmbedding adds its offset 2 to positions from 0 */
        {.model_type = "xglm",
         .enc = HF_SINUSOIDAL,
         .layout = "layout=blocks,freq=t2t",
         .defaults = "max_position_embeddings=2048,d_model=1024,num_layers=24",
         .flags = HF_OFFSET2},

        /* ---- nothing posenc could show ---- */
        NONE("mamba", "a state-space model: it has no positional encoding (order comes from "
                      "the recurrence)"),
        NONE("mamba2", "a state-space model: it has no positional encoding (order comes from "
                       "the recurrence)"),
        NONE("falcon_mamba", "a state-space model: it has no positional encoding (order comes "
                             "from the recurrence)"),
        NONE("rwkv", "a recurrent model: it has no positional encoding"),
        NONE("xlstm", "a recurrent model: it has no positional encoding"),
        NONE("nemotron_h", "a hybrid of Mamba-2 and attention layers whose attention uses no "
                           "positional encoding (NemotronHAttention is Jamba's)"),
        NONE("jamba", "its attention layers use no positional encoding (position comes from "
                      "the Mamba layers)"),
        /* KimiLinearAttention never rotates: qk_rope_head_dim only sizes the shared key
         * slice (modeling_kimi_linear.py has no rotary embedding) */
        NONE("kimi_linear", "a hybrid of Kimi Delta Attention and MLA layers whose MLA applies "
                            "no rotary embedding (KimiLinearAttention; order comes from the "
                            "KDA layers)"),
        RELATIVE("deberta", "DeBERTa's disentangled relative attention (log-bucketed relative "
                            "position embeddings)"),
        RELATIVE("deberta-v2", "DeBERTa-v2/v3's disentangled relative attention (log-bucketed "
                               "relative position embeddings)"),
        RELATIVE("transfo-xl", "Transformer-XL's relative sinusoidal attention with segment "
                               "recurrence"),
        RELATIVE("xlnet", "XLNet's relative sinusoidal attention (two-stream)"),
        RELATIVE("funnel", "Funnel Transformer's relative attention"),
        NONE("zamba", "its shared attention blocks use no positional encoding "
                      "(ZambaAttention; order comes from the Mamba layers)"),
        RELATIVE("cpmant", "CPM-Ant's segment-aware relative position buckets"),
        RELATIVE("prophetnet", "ProphetNet's n-gram stream relative buckets (besides a learned "
                               "table)"),
        RELATIVE("xlm-prophetnet", "ProphetNet's n-gram stream relative buckets (besides a "
                                   "learned table)"),
        RELATIVE("nezha", "NeZha's functional relative positions (fixed sinusoidal relative "
                          "embeddings in every layer; removed from transformers 5)"),
        RELATIVE("mega", "MEGA's relative position bias (simple or rotary) inside its "
                         "moving-average gated attention (removed from transformers 5)"),
        REFUSED("mpnet", "MPNet adds T5-style relative buckets (relative_attention_num_buckets) "
                         "in every layer to a learned absolute table, two encodings posenc "
                         "does not show as one"),
        REFUSED("layoutlmv2", "LayoutLMv2 adds 2-D layout tables and relative and spatial "
                              "attention biases to its learned 1-D table, which posenc does "
                              "not show as one"),
        REFUSED("layoutxlm", "LayoutXLM (LayoutLMv2's model) adds 2-D layout tables and "
                             "relative and spatial attention biases to its learned 1-D table, "
                             "which posenc does not show as one"),
        REFUSED("layoutlmv3", "LayoutLMv3 adds 2-D layout tables and relative and spatial "
                              "attention biases (rel_pos_bins) to its learned 1-D table, which "
                              "posenc does not show as one"),
        REFUSED("tapas", "TAPAS restarts positions in every table cell "
                         "(reset_position_index_per_cell, default true), so a position is not "
                         "an index into its learned table by itself"),
        REFUSED("udop", "UDOP adds 2-D layout biases to T5's relative buckets, which posenc "
                        "does not show as one"),
        REFUSED("speecht5", "SpeechT5's encoder uses relative position embeddings and its "
                            "text decoder a sinusoidal table: posenc reads one text model per "
                            "config"),
        REFUSED("seamless_m4t", "SeamlessM4T's text encoder and decoder add fairseq sinusoids "
                                "while its speech encoder uses relative positions: posenc reads "
                                "one text model per config"),
        REFUSED("seamless_m4t_v2", "SeamlessM4T-v2's text encoder and decoder add fairseq "
                                   "sinusoids while its speech encoder uses relative positions: "
                                   "posenc reads one text model per config"),
        REFUSED("reformer", "Reformer's axial position embeddings (axial_pos_embds: learned "
                            "factors whose outer sum is the table) are not a table posenc "
                            "reads from the config"),
        REFUSED("nanochat", "NanoChat rotates queries and keys by the negative angle (its "
                            "rotate_half returns [x2, -x1]), a direction posenc's rope "
                            "scheme does not have"),
        REFUSED("blt", "BLT keeps its attention in four sub-models (patcher_config, "
                       "encoder_config, global_config, decoder_config), each with its own "
                       "rope block; posenc reads one text model per config"),

        /* ---- vision-language wrappers: the text model under text_config ---- */
        WRAPPER("llava", "llama"),
        WRAPPER("llava_next", "llama"),
        WRAPPER("llava_next_video", "llama"),
        WRAPPER("llava_onevision", "qwen2"),
        WRAPPER("vipllava", "llama"),
        WRAPPER("video_llava", "llama"),
        WRAPPER("mistral3", "mistral"),
        WRAPPER("paligemma", "gemma"),
        WRAPPER("idefics3", "llama"),
        WRAPPER("smolvlm", "llama"),
        WRAPPER("internvl", "qwen2"),
        WRAPPER("aya_vision", "cohere2"),
        WRAPPER("gemma3", "gemma3_text"),
        WRAPPER("gemma3n", "gemma3n_text"),
        WRAPPER("minimax_m3_vl", "minimax_m3_vl_text"),
        WRAPPER("qwen3_5", "qwen3_5_text"),
        WRAPPER("qwen3_5_moe", "qwen3_5_moe_text"),
        WRAPPER("qwen3_vl", "qwen3_vl_text"),
        WRAPPER("qwen3_vl_moe", "qwen3_vl_moe_text"),
        WRAPPER("llama4", "llama4_text"),
        WRAPPER("mllama", "mllama_text_model"),
        WRAPPER("pixtral", "mistral"),
        WRAPPER("qwen2_audio", "qwen2"),
        WRAPPER("aria", "aria_text"),
        WRAPPER("cohere2_vision", "cohere2"),
        WRAPPER("deepseek_vl", "llama"),
        WRAPPER("deepseek_vl_hybrid", "llama"),
        WRAPPER("janus", "llama"),
        WRAPPER("fuyu", "persimmon"),
        WRAPPER("got_ocr2", "qwen2"),
        WRAPPER("granite_speech", "granite"),
        WRAPPER("granitevision", "llama"),
        WRAPPER("idefics2", "mistral"),
        WRAPPER("blip-2", "opt"),
        WRAPPER("instructblip", "opt"),
        WRAPPER("instructblipvideo", "opt"),
        WRAPPER("lfm2_vl", "lfm2"),
        WRAPPER("exaone4_5", "exaone4"),
        WRAPPER("ovis2", "qwen2"),
        WRAPPER("perception_lm", "llama"),
        WRAPPER("video_llama_3", "qwen2"),
        WRAPPER("voxtral", "llama"),
        WRAPPER("audioflamingo3", "qwen2"),
        WRAPPER("shieldgemma2", "gemma3_text"),
        WRAPPER("glm4v", "glm4v_text"),
        WRAPPER("kosmos-2", "kosmos_2_text_model"),
        WRAPPER("clip", "clip_text_model"),
        WRAPPER("siglip", "siglip_text_model"),
        WRAPPER("siglip2", "siglip2_text_model"),
        WRAPPER("blip", "blip_text_model"),
        /* Qwen2.5-Omni, Qwen3-Omni: the thinker's text model */
        WRAPPER_AT("qwen2_5_omni", "qwen2_5_omni_text", "thinker_config.text_config"),
        WRAPPER_AT("qwen3_omni_moe", NULL, "thinker_config.text_config"),
        /* a text encoder-decoder pair: the decoder (its own model_type) */
        WRAPPER_AT("encoder-decoder", NULL, "decoder"),
        /* Remote-code wrappers. InternVL 1.5-3 (configuration_internvl_chat.py): the
         * LLM in llm_config, its class chosen by architectures[0], InternLM2 when the
         * file gives none; DeepSeek-VL2: language_config is a DeepseekV2Config; Ovis:
         * llm_config built from its own model_type. */
        REMOTE_WRAPPER("internvl_chat", "internlm2", "llm_config"),
        {.model_type = "deepseek_vl_v2",
         .enc = HF_WRAPPER,
         .text = "deepseek_v2",
         .what = "language_config",
         .flags = HF_REMOTE_CODE | HF_MLA_SWITCH},
        REMOTE_WRAPPER("ovis", NULL, "llm_config"),
        /* Configuration classes that subclass their LLM's (text keys at the top
         * level): LLaVA-NeXT / OneVision / VILA's LlavaQwenConfig, LlavaConfig
         * (Llama), LlavaMistralConfig, LlavaMixtralConfig; InternLM-XComposer2's
         * InternLMXcomposer2Config (InternLM2's); MiniCPM-V's by its version
         * (model_hf.c: minicpmv_text) */
        REMOTE_WRAPPER("llava_qwen", "qwen2", NULL),
        REMOTE_WRAPPER("llava_llama", "llama", NULL),
        REMOTE_WRAPPER("llava_mistral", "mistral", NULL),
        REMOTE_WRAPPER("llava_mixtral", "mixtral", NULL),
        REMOTE_WRAPPER("internlmxcomposer2", "internlm2", NULL),
        {.model_type = "minicpmv",
         .enc = HF_WRAPPER,
         .text = "qwen2",
         .flags = HF_REMOTE_CODE | HF_TEXT_BY_VERSION},

        /* ---- remote code: per-layer blocks, ALiBi, old Falcon and Phi; late types ---- */
        /* DeciLM / Llama-3.x-Nemotron (modeling_decilm.py): Llama's rotary and rope
         * block; block_configs[i].attention no_op or replace_with_linear layers have
         * no attention; DeciLM-7B's num_key_value_heads_per_layer sizes only K/V */
        {.model_type = "nemotron-nas",
         .enc = HF_ROPE,
         .layout = H,
         .defaults = LLAMA_D ",max_position_embeddings=2048,rope_theta=10000",
         .flags = HF_BLOCK_CONFIGS | HF_REMOTE_CODE},
        {.model_type = "deci",
         .enc = HF_ROPE,
         .layout = H,
         .defaults = LLAMA_D ",max_position_embeddings=2048,rope_theta=10000",
         .flags = HF_BLOCK_CONFIGS | HF_REMOTE_CODE},
        {.model_type = "decilm",
         .enc = HF_ROPE,
         .layout = H,
         .defaults = LLAMA_D ",max_position_embeddings=2048,rope_theta=10000",
         .flags = HF_BLOCK_CONFIGS | HF_REMOTE_CODE},
        /* MiMo-7B (modeling_mimo.py): Qwen2's attention and rotary; the MTP layers
         * (num_nextn_predict_layers) are outside num_hidden_layers */
        ROPE("mimo", H, LLAMA_D ",max_position_embeddings=32768,rope_theta=10000", HF_REMOTE_CODE),
        /* OpenELM: rotate_half over the whole head_dim at rope_freq_constant; the
         * per-layer query/KV head counts keep head_dim */
        {.model_type = "openelm",
         .enc = HF_ROPE,
         .layout = H,
         .defaults = "head_dim=64,num_transformer_layers=12,max_context_length=2048,"
                     "rope_freq_constant=10000",
         .flags = HF_REMOTE_CODE,
         .theta_key = "rope_freq_constant",
         .keys = KEYS("num_hidden_layers=num_transformer_layers",
                      "max_position_embeddings=max_context_length")},
        /* Jais and BTLM (Cerebras' GPT-2 derivatives): a learned wpe table unless
         * position_embedding_type is alibi */
        {.model_type = "jais",
         .enc = HF_LEARNED,
         .defaults = "n_positions=1024,n_embd=768,n_layer=12,n_head=12",
         .flags = HF_PET_ALIBI | HF_REMOTE_CODE,
         .what = "transformer.wpe.weight"},
        {.model_type = "btlm",
         .enc = HF_LEARNED,
         .defaults = "n_positions=1024,n_embd=768,n_layer=12,n_head=12",
         .flags = HF_PET_ALIBI | HF_REMOTE_CODE,
         .what = "transformer.wpe.weight"},
        /* Falcon's remote code (modeling_RW.py): rotate_half at base 10000 over the
         * whole head, or BLOOM's ALiBi with alibi: true */
        ROPE("RefinedWeb", H,
             "hidden_size=4544,n_head=71,n_layer=32,max_position_embeddings=2048,"
             "rope_theta=10000",
             HF_ALIBI_FLAG | HF_REMOTE_CODE),
        ROPE("RefinedWebModel", H,
             "hidden_size=4544,n_head=71,n_layer=32,max_position_embeddings=2048,"
             "rope_theta=10000",
             HF_ALIBI_FLAG | HF_REMOTE_CODE),
        /* EXAONE 3 / 3.5 (modeling_exaone.py): Llama's rotary over the whole head
         * with the rope block; the class's rotary_pct (0.25) is never read */
        {.model_type = "exaone",
         .enc = HF_ROPE,
         .layout = H,
         .defaults = "hidden_size=2048,num_attention_heads=32,num_layers=32,"
                     "max_position_embeddings=2048,rope_theta=10000",
         .flags = HF_REMOTE_CODE,
         .keys = KEYS("num_hidden_layers=num_layers", "unread=rotary_pct")},
        /* Phi-3-small: rotate_half over the head at rope_embedding_base;
         * rope_position_scale is a linear factor when there is no rope_scaling; the
         * 128k block's short_mscale/long_mscale replace longrope's attention factor */
        {.model_type = "phi3small",
         .enc = HF_ROPE,
         .layout = H,
         .defaults = "hidden_size=4096,num_attention_heads=32,num_hidden_layers=32,"
                     "max_position_embeddings=8192,rope_embedding_base=1000000",
         .flags = HF_PHIMOE_MSCALE | HF_REMOTE_CODE,
         .theta_key = "rope_embedding_base",
         .keys = KEYS("linear_factor=rope_position_scale")},
        /* Phi-3-vision and Phi-4-multimodal remote code: Phi-3's text model (the
         * vision configs say "phi3_v") */
        ROPE("phi3_v", H,
             "hidden_size=3072,num_attention_heads=32,num_hidden_layers=32,"
             "max_position_embeddings=4096,rope_theta=10000",
             HF_REMOTE_CODE),
        ROPE("phi4mm", H,
             "hidden_size=3072,num_attention_heads=32,num_hidden_layers=32,"
             "max_position_embeddings=4096,rope_theta=10000",
             HF_REMOTE_CODE),
        /* Phi-1.5 / Phi-2 remote code: rotary_dim leading dimensions, rotate_half,
         * base 10000 */
        ROPE("phi-msft", H,
             "n_embd=1024,n_head=16,n_layer=20,n_positions=2048,rotary_dim=32,"
             "rope_theta=10000",
             HF_REMOTE_CODE),
        ROPE("mixformer-sequential", H,
             "n_embd=1024,n_head=16,n_layer=20,n_positions=2048,rotary_dim=32,"
             "rope_theta=10000",
             HF_REMOTE_CODE),
        /* Muse Glimmer's text model: one rotary for all layers, off where
         * layer_rope_theta is 0 */
        {.model_type = "muse_glimmer_text",
         .enc = HF_ROPE,
         .layout = H,
         .defaults = "hidden_size=6656,num_attention_heads=32,num_hidden_layers=52,head_dim=128,"
                     "max_position_embeddings=131072,rope_theta=10000,sliding_window=2048",
         .flags = HF_LAYER_THETA_NOPE},
        /* MuseGlimmerConfig: its text_config is a MuseGlimmerTextConfig */
        WRAPPER("muse_glimmer", "muse_glimmer_text"),
        /* Step 3.5 (top level) and Step 3.7 (its text_config, whose wrapper says
         * step3p7) share the type; flat step3p7 copies keep the text keys on top */
        REFUSED("step3p5", "Step 3.5 and 3.7 give rope_theta and partial_rotary_factors one "
                           "value per layer (vLLM's step3p5.py: half the head at 5e6 on full "
                           "layers, rope_scaling only on yarn_only_types, the whole head at 1e4 "
                           "on sliding ones, use_rope_layers for NoPE), a per-layer reading "
                           "posenc does not restate"),
        WRAPPER("step3p7", "step3p5"),
        /* deepseek_ref: a DeepSeek-V4 configuration (DeepSeekV4Config), window_size
         * for the sliding window, compress_rope_theta 40000 by default */
        {.model_type = "deepseek_ref",
         .enc = HF_ROPE,
         .layout = I,
         .defaults = "hidden_size=4096,num_attention_heads=64,num_hidden_layers=43,head_dim=512,"
                     "qk_rope_head_dim=64,max_position_embeddings=65536,rope_theta=10000,"
                     "compress_rope_theta=40000,window_size=128",
         .flags = HF_COMPRESS_RATIOS | HF_YARN_UNIT_ATT,
         .theta_key = "compress_rope_theta",
         .local_theta = "rope_theta",
         .keys = KEYS("sliding_window=window_size")},
};

/* Transformers' default rotary code (LlamaRotaryEmbedding with modeling_rope_utils). */
static const struct hf_arch generic = {
        .model_type = "", .enc = HF_ROPE, .layout = H, .defaults = "rope_theta=10000"};

/* Multi-head latent attention (kv_lora_rank with qk_rope_head_dim): every
 * implementation of it we know, DeepSeek's own modeling_deepseek.py that
 * remote-code models such as Kimi K2 ship included, pairs 2i, 2i+1 and
 * multiplies the softmax scale by yarn's mscale(factor, mscale_all_dim)^2. */
static const struct hf_arch generic_mla = {.model_type = "",
                                           .enc = HF_ROPE,
                                           .layout = I,
                                           .defaults = "rope_theta=10000",
                                           .flags = HF_MSCALE_SOFTMAX};

const struct hf_arch *hf_arch_find(const char *model_type)
{
	for (size_t i = 0; i < sizeof(archs) / sizeof(archs[0]); i++)
		if (strcmp(archs[i].model_type, model_type) == 0)
			return &archs[i];
	return NULL;
}

/*
 * CONFIG_MAPPING_NAMES' keys in their order (transformers'
 * models/auto/configuration_auto.py, as stored at 0010023; the pinned 008e574 is not
 * stored): AutoConfig's name fallback tries all of them, so a type posenc has no row for
 * (hubert, prompt_depth_anything) must still win over a shorter one it has (bert, mpt).
 */
/* clang-format off */
static const char *const config_mapping_names[] = {
	"afmoe", "aimv2", "aimv2_vision_model", "albert", "align", "altclip", "apertus", "arcee",
	"aria", "aria_text", "audio-spectrogram-transformer", "audioflamingo3",
	"audioflamingo3_encoder", "autoformer", "aya_vision", "bamba", "bark", "bart", "beit",
	"bert", "bert-generation", "big_bird", "bigbird_pegasus", "biogpt", "bit", "bitnet",
	"blenderbot", "blenderbot-small", "blip", "blip-2", "blip_2_qformer", "bloom", "blt",
	"bridgetower", "bros", "camembert", "canine", "chameleon", "chinese_clip",
	"chinese_clip_vision_model", "clap", "clip", "clip_text_model", "clip_vision_model",
	"clipseg", "clvp", "code_llama", "codegen", "cohere", "cohere2", "cohere2_vision",
	"colpali", "colqwen2", "conditional_detr", "convbert", "convnext", "convnextv2",
	"cpmant", "csm", "ctrl", "cvt", "cwm", "d_fine", "dab-detr", "dac", "data2vec-audio",
	"data2vec-text", "data2vec-vision", "dbrx", "deberta", "deberta-v2",
	"decision_transformer", "deepseek_v2", "deepseek_v3", "deepseek_vl",
	"deepseek_vl_hybrid", "deformable_detr", "deit", "depth_anything", "depth_pro", "detr",
	"dia", "diffllama", "dinat", "dinov2", "dinov2_with_registers", "dinov3_convnext",
	"dinov3_vit", "distilbert", "doge", "donut-swin", "dots1", "dpr", "dpt", "edgetam",
	"edgetam_video", "edgetam_vision_model", "efficientloftr", "efficientnet", "electra",
	"emu3", "encodec", "encoder-decoder", "eomt", "ernie", "ernie4_5", "ernie4_5_moe", "esm",
	"evolla", "exaone4", "falcon", "falcon_h1", "falcon_mamba", "fastspeech2_conformer",
	"fastspeech2_conformer_with_hifigan", "flaubert", "flava", "flex_olmo", "florence2",
	"fnet", "focalnet", "fsmt", "funnel", "fuyu", "gemma", "gemma2", "gemma3", "gemma3_text",
	"gemma3n", "gemma3n_audio", "gemma3n_text", "gemma3n_vision", "git", "glm", "glm4",
	"glm46v", "glm4_moe", "glm4v", "glm4v_moe", "glm4v_moe_text", "glm4v_moe_vision",
	"glm4v_text", "glm4v_vision", "glpn", "got_ocr2", "gpt-sw3", "gpt2", "gpt_bigcode",
	"gpt_neo", "gpt_neox", "gpt_neox_japanese", "gpt_oss", "gptj", "granite",
	"granite_speech", "granitemoe", "granitemoehybrid", "granitemoeshared", "granitevision",
	"grounding-dino", "groupvit", "helium", "hgnet_v2", "hiera", "hubert",
	"hunyuan_v1_dense", "hunyuan_v1_moe", "ibert", "idefics", "idefics2", "idefics3",
	"idefics3_vision", "ijepa", "imagegpt", "informer", "instructblip", "instructblipvideo",
	"internvl", "internvl_vision", "jais2", "jamba", "janus", "jetmoe", "kosmos-2",
	"kosmos-2.5", "kyutai_speech_to_text", "layoutlm", "layoutlmv2", "layoutlmv3",
	"layoutxlm", "led", "levit", "lfm2", "lfm2_moe", "lfm2_vl", "lightglue", "lilt", "llama",
	"llama4", "llama4_text", "llava", "llava_next", "llava_next_video", "llava_onevision",
	"longcat_flash", "longformer", "longt5", "luke", "lxmert", "m2m_100", "mamba", "mamba2",
	"marian", "markuplm", "mask2former", "maskformer", "maskformer-swin", "mbart",
	"megatron-bert", "metaclip_2", "mgp-str", "mimi", "minimax", "ministral", "ministral3",
	"mistral", "mistral3", "mixtral", "mlcd", "mllama", "mm-grounding-dino", "mobilebert",
	"mobilenet_v1", "mobilenet_v2", "mobilevit", "mobilevitv2", "modernbert",
	"modernbert-decoder", "moonshine", "moshi", "mpnet", "mpt", "mra", "mt5", "musicgen",
	"musicgen_melody", "mvp", "nanochat", "nemotron", "nllb-moe", "nougat", "nystromformer",
	"olmo", "olmo2", "olmo3", "olmoe", "omdet-turbo", "oneformer", "openai-gpt", "opt",
	"ovis2", "owlv2", "owlvit", "paligemma", "parakeet_ctc", "parakeet_encoder",
	"patchtsmixer", "patchtst", "pegasus", "pegasus_x", "perceiver", "perception_lm",
	"persimmon", "phi", "phi3", "phi4_multimodal", "phimoe", "pix2struct", "pixtral",
	"plbart", "poolformer", "pop2piano", "prompt_depth_anything", "prophetnet", "pvt",
	"pvt_v2", "qwen2", "qwen2_5_omni", "qwen2_5_vl", "qwen2_5_vl_text", "qwen2_audio",
	"qwen2_audio_encoder", "qwen2_moe", "qwen2_vl", "qwen2_vl_text", "qwen3", "qwen3_moe",
	"qwen3_next", "qwen3_omni_moe", "qwen3_vl", "qwen3_vl_moe", "qwen3_vl_moe_text",
	"qwen3_vl_text", "rag", "recurrent_gemma", "reformer", "regnet", "rembert", "resnet",
	"roberta", "roberta-prelayernorm", "roc_bert", "roformer", "rt_detr", "rt_detr_resnet",
	"rt_detr_v2", "rwkv", "sam", "sam2", "sam2_hiera_det_model", "sam2_video",
	"sam2_vision_model", "sam3", "sam3_tracker", "sam3_tracker_video", "sam3_video",
	"sam3_vision_model", "sam3_vit_model", "sam_hq", "sam_hq_vision_model",
	"sam_vision_model", "seamless_m4t", "seamless_m4t_v2", "seed_oss", "segformer", "seggpt",
	"sew", "sew-d", "shieldgemma2", "siglip", "siglip2", "siglip2_vision_model",
	"siglip_vision_model", "smollm3", "smolvlm", "smolvlm_vision", "speech-encoder-decoder",
	"speech_to_text", "speecht5", "splinter", "squeezebert", "stablelm", "starcoder2",
	"superglue", "superpoint", "swiftformer", "swin", "swin2sr", "swinv2",
	"switch_transformers", "t5", "t5gemma", "t5gemma2", "table-transformer", "tapas",
	"textnet", "time_series_transformer", "timesfm", "timesformer", "timm_backbone",
	"timm_wrapper", "trocr", "tvp", "udop", "umt5", "unispeech", "unispeech-sat", "univnet",
	"upernet", "vaultgemma", "video_llama_3", "video_llama_3_vision", "video_llava",
	"videomae", "vilt", "vipllava", "vision-encoder-decoder", "vision-text-dual-encoder",
	"visual_bert", "vit", "vit_mae", "vit_msn", "vitdet", "vitmatte", "vitpose",
	"vitpose_backbone", "vits", "vivit", "vjepa2", "voxtral", "voxtral_encoder", "wav2vec2",
	"wav2vec2-bert", "wav2vec2-conformer", "wavlm", "whisper", "xclip", "xcodec", "xglm",
	"xlm", "xlm-roberta", "xlm-roberta-xl", "xlnet", "xlstm", "xmod", "yolos", "yoso",
	"zamba", "zamba2", "zoedepth",
};
/* clang-format on */

const char *hf_type_in_name(const char *name)
{
	/* longest first, the mapping's order among equals (Python's stable sort):
	 * roberta wins over bert */
	const char *best = NULL;
	size_t best_len = 0;
	for (size_t i = 0; i < sizeof(config_mapping_names) / sizeof(config_mapping_names[0]);
	     i++) {
		size_t n = strlen(config_mapping_names[i]);
		if (n > best_len && strstr(name, config_mapping_names[i])) {
			best = config_mapping_names[i];
			best_len = n;
		}
	}
	return best;
}

/* @a, lower-cased without '_' and '-', equals @b[0, bn) lower-cased. */
static int same_name(const char *a, const char *b, size_t bn)
{
	size_t j = 0;
	for (; *a; a++) {
		if (*a == '_' || *a == '-')
			continue;
		if (j == bn || tolower((unsigned char)*a) != tolower((unsigned char)b[j]))
			return 0;
		j++;
	}
	return j == bn;
}

const struct hf_arch *hf_arch_by_class(const char *cls)
{
	/* the heads transformers' classes end in, longest first */
	static const char *const heads[] = {"ForConditionalGeneration",
	                                    "ForSequenceClassification",
	                                    "ForTokenClassification",
	                                    "ForQuestionAnswering",
	                                    "ForMaskedLM",
	                                    "ForCausalLM",
	                                    "LMHeadModel",
	                                    "Model"};
	size_t n = strlen(cls);
	for (size_t k = 0; k < sizeof(heads) / sizeof(heads[0]); k++) {
		size_t hl = strlen(heads[k]);
		if (n > hl && strcmp(cls + n - hl, heads[k]) == 0) {
			n -= hl;
			/* Grok1ModelForCausalLM: a second "Model" */
			if (n > 5 && strncmp(cls + n - 5, "Model", 5) == 0)
				n -= 5;
			break;
		}
	}
	for (size_t i = 0; n && i < sizeof(archs) / sizeof(archs[0]); i++)
		if (same_name(archs[i].model_type, cls, n))
			return &archs[i];
	return NULL;
}

/* flash-attn's rotary as remote-code encoders configure it (NomicBERT,
 * Jina's XLM-RoBERTa): rotary_emb_base, rotary_emb_fraction,
 * rotary_emb_interleaved. */
static const struct hf_arch generic_flash = {
        .model_type = "",
        .enc = HF_ROPE,
        .layout = H,
        .defaults = "rotary_emb_base=10000",
        .theta_key = "rotary_emb_base",
        .keys = KEYS("partial_rotary_factor=rotary_emb_fraction",
                     "rope_interleave=rotary_emb_interleaved",
                     "unsupported=rotary_scaling_factor")};

const struct hf_arch *hf_arch_generic(int mla)
{
	return mla ? &generic_mla : &generic;
}

const struct hf_arch *hf_arch_flash(void)
{
	return &generic_flash;
}
