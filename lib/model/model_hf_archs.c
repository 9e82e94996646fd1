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
#include <stddef.h>
#include <string.h>

#include "model/model_hf.h"

#define H "half"
#define I "interleaved"
#define ROPE(t, layout, defaults, flags)                                                           \
	{                                                                                          \
		t, HF_ROPE, layout, defaults, flags, NULL, NULL, NULL, NULL, NULL                  \
	}
#define LEARNED(t, defaults, flags, tensor)                                                        \
	{                                                                                          \
		t, HF_LEARNED, NULL, defaults, flags, NULL, NULL, NULL, NULL, tensor               \
	}
#define NONE(t, why)                                                                               \
	{                                                                                          \
		t, HF_NONE, NULL, NULL, 0, NULL, NULL, NULL, NULL, why                             \
	}
#define RELATIVE(t, why)                                                                           \
	{                                                                                          \
		t, HF_RELATIVE, NULL, NULL, 0, NULL, NULL, NULL, NULL, why                         \
	}
#define WRAPPER(t, text)                                                                           \
	{                                                                                          \
		t, HF_WRAPPER, NULL, NULL, 0, NULL, NULL, NULL, text, NULL                         \
	}

/* Defaults shared by Llama-like classes (LlamaConfig). */
#define LLAMA_D "hidden_size=4096,num_attention_heads=32,num_hidden_layers=32"

static const struct hf_arch archs[] = {
        /* ---- RoPE decoders ---- */
        ROPE("llama", H, LLAMA_D ",max_position_embeddings=2048,rope_theta=10000", 0),
        ROPE("mistral", H, LLAMA_D ",max_position_embeddings=131072,rope_theta=10000", 0),
        ROPE("ministral", H, LLAMA_D ",max_position_embeddings=131072,rope_theta=10000", 0),
        ROPE("ministral3", H, LLAMA_D ",max_position_embeddings=262144,rope_theta=1000000", 0),
        ROPE("mixtral", H, LLAMA_D ",max_position_embeddings=131072,rope_theta=1000000", 0),
        ROPE("qwen2", H, LLAMA_D ",max_position_embeddings=32768,rope_theta=10000", 0),
        ROPE("qwen2_moe", H,
             "hidden_size=2048,num_attention_heads=16,num_hidden_layers=24,"
             "max_position_embeddings=32768,rope_theta=10000",
             0),
        ROPE("qwen3", H, LLAMA_D ",head_dim=128,max_position_embeddings=32768,rope_theta=10000", 0),
        ROPE("qwen3_moe", H,
             "hidden_size=2048,num_attention_heads=32,num_hidden_layers=24,"
             "max_position_embeddings=32768,rope_theta=10000",
             0),
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
        {"gemma3_text", HF_ROPE, H,
         "hidden_size=2304,num_attention_heads=8,num_hidden_layers=26,head_dim=256,"
         "max_position_embeddings=131072,rope_theta=1000000,rope_local_base_freq=10000,"
         "sliding_window=4096,sliding_window_pattern=6,query_pre_attn_scalar=256",
         HF_PATTERN | HF_QUERY_SCALAR, NULL, "rope_local_base_freq", NULL, NULL, NULL},
        {"gemma3n_text", HF_ROPE, H,
         "hidden_size=2048,num_attention_heads=8,num_hidden_layers=35,head_dim=256,"
         "max_position_embeddings=32768,rope_theta=1000000,rope_local_base_freq=10000,"
         "sliding_window=512",
         0, NULL, "rope_local_base_freq", NULL, NULL, NULL},
        {"gemma4_text", HF_ROPE, H, "sliding_window=512,query_pre_attn_scalar=1", HF_GEMMA4, NULL,
         NULL, NULL, NULL, NULL},
        {"gemma4", HF_ROPE, H, "sliding_window=512,query_pre_attn_scalar=1", HF_GEMMA4, NULL, NULL,
         NULL, NULL, NULL},
        ROPE("phi", H,
             "hidden_size=2048,num_attention_heads=32,num_hidden_layers=24,"
             "max_position_embeddings=2048,rope_theta=10000,partial_rotary_factor=0.5",
             0),
        ROPE("phi3", H,
             "hidden_size=3072,num_attention_heads=32,num_hidden_layers=32,"
             "max_position_embeddings=4096,rope_theta=10000",
             0),
        ROPE("phimoe", H, LLAMA_D ",max_position_embeddings=131072,rope_theta=1000000",
             HF_PHIMOE_MSCALE),
        {"gpt_neox", HF_ROPE, H,
         "hidden_size=6144,num_attention_heads=64,num_hidden_layers=44,"
         "max_position_embeddings=2048,rotary_emb_base=10000,rotary_pct=0.25",
         0, "rotary_emb_base", NULL, NULL, NULL, NULL},
        {"gpt_neox_japanese", HF_ROPE, H,
         "hidden_size=2560,num_attention_heads=32,num_hidden_layers=32,"
         "max_position_embeddings=2048,rotary_emb_base=10000,rotary_pct=1",
         0, "rotary_emb_base", NULL, NULL, NULL, NULL},
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
             0),
        ROPE("starcoder2", H,
             "hidden_size=3072,num_attention_heads=24,num_hidden_layers=30,"
             "max_position_embeddings=4096,rope_theta=10000",
             0),
        ROPE("olmo", H, LLAMA_D ",max_position_embeddings=2048,rope_theta=10000", 0),
        ROPE("olmo2", H, LLAMA_D ",max_position_embeddings=2048,rope_theta=10000", 0),
        /* Olmo 3: sliding layers take the default RoPE at rope_theta, full layers the
         * rope block (one rotary embedding per layer type in modeling_olmo3.py) */
        {"olmo3", HF_ROPE, H,
         LLAMA_D ",max_position_embeddings=2048,rope_theta=10000,sliding_window=4096,"
                 "sliding_window_pattern=4",
         HF_PATTERN, NULL, "rope_theta", NULL, NULL, NULL},
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
        ROPE("apertus", H, LLAMA_D ",max_position_embeddings=65536,rope_theta=12000000", 0),
        ROPE("arcee", H,
             "hidden_size=2560,num_attention_heads=32,num_hidden_layers=32,"
             "max_position_embeddings=4096,rope_theta=10000",
             0),
        ROPE("seed_oss", H, LLAMA_D ",max_position_embeddings=131072,rope_theta=10000", 0),
        ROPE("dots1", H, "max_position_embeddings=2048,rope_theta=10000", 0),
        ROPE("afmoe", H, "max_position_embeddings=16384,rope_theta=10000", 0),
        ROPE("minimax", H, "max_position_embeddings=131072,rope_theta=1000000", 0),
        ROPE("lfm2", H, "max_position_embeddings=128000,rope_theta=1000000", 0),
        ROPE("bitnet", H, "max_position_embeddings=2048,rope_theta=500000", 0),
        ROPE("diffllama", H, "max_position_embeddings=2048,rope_theta=10000", 0),
        ROPE("jetmoe", H, "max_position_embeddings=4096,rope_theta=10000", 0),
        ROPE("chameleon", H, LLAMA_D ",max_position_embeddings=4096,rope_theta=10000", 0),
        ROPE("emu3", H, LLAMA_D ",max_position_embeddings=9216,rope_theta=1000000", 0),
        ROPE("falcon_h1", H, "max_position_embeddings=8192,rope_theta=100000000000", 0),
        ROPE("bamba", H, "max_position_embeddings=262144,rope_theta=10000", 0),
        ROPE("granitemoehybrid", H, "max_position_embeddings=2048,rope_theta=10000", HF_ATTN_MULT),
        ROPE("glm4_moe", H,
             "hidden_size=4096,num_attention_heads=96,num_hidden_layers=46,head_dim=128,"
             "max_position_embeddings=131072,rope_theta=10000,partial_rotary_factor=0.5",
             0),
        ROPE("hunyuan_v1_dense", H, "max_position_embeddings=2048,rope_theta=10000", HF_NTK_ALPHA),
        ROPE("hunyuan_v1_moe", H, "max_position_embeddings=2048,rope_theta=10000", HF_NTK_ALPHA),
        ROPE("gpt_oss", H,
             "hidden_size=2880,num_attention_heads=64,num_hidden_layers=36,head_dim=64,"
             "max_position_embeddings=131072,rope_theta=150000,sliding_window=128,"
             "sliding_window_pattern=2",
             HF_PATTERN),
        {"modernbert", HF_ROPE, H,
         "hidden_size=768,num_attention_heads=12,num_hidden_layers=22,"
         "max_position_embeddings=8192,global_rope_theta=160000,local_rope_theta=10000,"
         "global_attn_every_n_layers=3,local_attention=128",
         HF_EVERY_N, "global_rope_theta", "local_rope_theta", NULL, NULL, NULL},
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
        ROPE("ernie4_5", I,
             "hidden_size=1024,num_attention_heads=16,num_hidden_layers=18,head_dim=128,"
             "max_position_embeddings=131072,rope_theta=500000",
             0),
        ROPE("ernie4_5_moe", I,
             "hidden_size=2560,num_attention_heads=20,num_hidden_layers=28,head_dim=128,"
             "max_position_embeddings=131072,rope_theta=500000",
             0),
        ROPE("gptj", I,
             "n_embd=4096,n_head=16,n_layer=28,n_positions=2048,rotary_dim=64,"
             "rope_theta=10000",
             0),
        ROPE("codegen", I,
             "n_embd=4096,n_head=16,n_layer=28,n_positions=2048,rotary_dim=64,"
             "rope_theta=10000",
             0),
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
        ROPE("mllama_text_model", H,
             LLAMA_D ",num_hidden_layers=40,max_position_embeddings=131072,rope_theta=500000",
             HF_CROSS_NOPE),
        ROPE("llama4_text", I,
             "hidden_size=5120,num_attention_heads=40,num_hidden_layers=48,head_dim=128,"
             "max_position_embeddings=131072,rope_theta=500000,no_rope_layer_interval=4,"
             "attention_chunk_size=8192,floor_scale=8192,attn_scale=0.1",
             HF_TEMP_TUNING),

        /* ---- ALiBi, T5 buckets ---- */
        {"bloom", HF_ALIBI, NULL, "n_head=8,n_layer=2", 0, NULL, NULL, NULL, NULL, NULL},
        {"mpt", HF_ALIBI, NULL, "n_heads=16,n_layers=24,max_seq_len=2048", 0, NULL, NULL, NULL,
         NULL, NULL},
        {"t5", HF_T5, NULL, "d_kv=64,num_layers=6", 0, NULL, NULL, NULL, NULL, NULL},
        {"mt5", HF_T5, NULL, "d_kv=64,num_layers=8", 0, NULL, NULL, NULL, NULL, NULL},
        {"umt5", HF_T5, NULL, "d_kv=64,num_layers=8", 0, NULL, NULL, NULL, NULL, NULL},
        {"longt5", HF_T5, NULL, "d_kv=64,num_layers=6", 0, NULL, NULL, NULL, NULL, NULL},
        {"switch_transformers", HF_T5, NULL, "d_kv=64,num_layers=12", 0, NULL, NULL, NULL, NULL,
         NULL},

        /* ---- learned absolute tables: rows x cols, the tensor that holds them ---- */
        LEARNED("gpt2", "n_positions=1024,n_embd=768", 0, "wpe.weight"),
        LEARNED("gpt_bigcode", "n_positions=1024,n_embd=768", 0, "transformer.wpe.weight"),
        LEARNED("gpt_neo", "max_position_embeddings=2048,hidden_size=2048", 0,
                "transformer.wpe.weight"),
        LEARNED("bert", "max_position_embeddings=512,hidden_size=768", 0,
                "bert.embeddings.position_embeddings.weight"),
        LEARNED("megatron-bert", "max_position_embeddings=512,hidden_size=1024", 0,
                "bert.embeddings.position_embeddings.weight"),
        LEARNED("distilbert", "max_position_embeddings=512,dim=768", 0,
                "distilbert.embeddings.position_embeddings.weight"),
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
        LEARNED("electra", "max_position_embeddings=512,embedding_size=128", 0,
                "electra.embeddings.position_embeddings.weight"),
        LEARNED("albert", "max_position_embeddings=512,embedding_size=128", 0,
                "albert.embeddings.position_embeddings.weight"),
        LEARNED("ernie", "max_position_embeddings=512,hidden_size=768", 0,
                "ernie.embeddings.position_embeddings.weight"),
        LEARNED("layoutlm", "max_position_embeddings=512,hidden_size=768", 0,
                "layoutlm.embeddings.position_embeddings.weight"),
        LEARNED("convbert", "max_position_embeddings=512,embedding_size=768", 0,
                "convbert.embeddings.position_embeddings.weight"),
        LEARNED("esm", "max_position_embeddings=1026,hidden_size=768,pad_token_id=1", HF_PAD_OFFSET,
                "esm.embeddings.position_embeddings.weight"),
        LEARNED("xlm", "max_position_embeddings=512,emb_dim=2048", 0,
                "transformer.position_embeddings.weight"),
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
        LEARNED("biogpt", "max_position_embeddings=1024,hidden_size=1024", HF_OFFSET2,
                "biogpt.embed_positions.weight"),
        {"whisper", HF_WHISPER, NULL,
         "d_model=384,max_source_positions=1500,max_target_positions=448", 0, NULL, NULL, NULL,
         NULL, "model.decoder.embed_positions.weight"},

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
        RELATIVE("deberta", "DeBERTa's disentangled relative attention (log-bucketed relative "
                            "position embeddings)"),
        RELATIVE("deberta-v2", "DeBERTa-v2/v3's disentangled relative attention (log-bucketed "
                               "relative position embeddings)"),
        RELATIVE("transfo-xl", "Transformer-XL's relative sinusoidal attention with segment "
                               "recurrence"),
        RELATIVE("xlnet", "XLNet's relative sinusoidal attention (two-stream)"),
        RELATIVE("funnel", "Funnel Transformer's relative attention"),

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
        WRAPPER("qwen3_5", "qwen3_5_text"),
        WRAPPER("qwen3_5_moe", "qwen3_5_moe_text"),
        WRAPPER("qwen3_vl", "qwen3_vl_text"),
        WRAPPER("qwen3_vl_moe", "qwen3_vl_moe_text"),
        WRAPPER("llama4", "llama4_text"),
        WRAPPER("mllama", "mllama_text_model"),
        WRAPPER("llava_llama", "llama"),
        WRAPPER("pixtral", "mistral"),
};

/* Transformers' default rotary code (LlamaRotaryEmbedding with modeling_rope_utils). */
static const struct hf_arch generic = {
        "", HF_ROPE, H, "rope_theta=10000", 0, NULL, NULL, NULL, NULL, NULL,
};

/* Multi-head latent attention (kv_lora_rank with qk_rope_head_dim): every
 * implementation of it we know, DeepSeek's own modeling_deepseek.py that
 * remote-code models such as Kimi K2 ship included, pairs 2i, 2i+1 and
 * multiplies the softmax scale by yarn's mscale(factor, mscale_all_dim)^2. */
static const struct hf_arch generic_mla = {
        "", HF_ROPE, I, "rope_theta=10000", HF_MSCALE_SOFTMAX, NULL, NULL, NULL, NULL, NULL,
};

const struct hf_arch *hf_arch_find(const char *model_type)
{
	for (size_t i = 0; i < sizeof(archs) / sizeof(archs[0]); i++)
		if (strcmp(archs[i].model_type, model_type) == 0)
			return &archs[i];
	return NULL;
}

const struct hf_arch *hf_arch_generic(int mla)
{
	return mla ? &generic_mla : &generic;
}
