/*
 * Private to the config.json reader (model_hf*.c): the architecture
 * registry, the reading state and the helpers every part shares.
 */
#ifndef POSENC_MODEL_HF_H
#define POSENC_MODEL_HF_H

#include <stddef.h>
#include <stdint.h>

#include <posenc/model.h>

#include "core/strutil.h"
#include "io/read_json.h"

/* How an architecture's positions enter its attention. */
enum hf_enc {
	HF_ROPE,       /* rotary (modeling_rope_utils plus the modeling file) */
	HF_ALIBI,      /* a linear bias per head */
	HF_T5,         /* T5's relative buckets */
	HF_LEARNED,    /* a learned absolute table (nn.Embedding) */
	HF_WHISPER,    /* sinusoidal encoder, learned decoder */
	HF_SINUSOIDAL, /* a fixed sinusoidal table (Marian, fairseq's M2M-100, CTRL) */
	HF_NONE,       /* no positional encoding at all (state-space models) */
	HF_RELATIVE,   /* a relative scheme posenc does not have */
	HF_REFUSED,    /* positions posenc does not compute, for the reason in @what */
	HF_WRAPPER,    /* a multimodal wrapper: the text model is in text_config */
};

/* The widest head posenc reads, the limit of a rope spec's 'head' key (2^24). */
#define HF_HEAD_MAX (1u << 24)

/* Per-architecture rules of the modeling file: bits of hf_arch.flags, 64 of
 * them (more rules than an int enum's 31). */
/* full-attention layers skip RoPE when the config has a sliding window
 * (Cohere2Attention, Exaone4Attention) */
#define HF_FULL_NOPE (UINT64_C(1) << 0)
/* layer types from sliding_window_pattern: layer i slides unless
 * (i + 1) % pattern == 0 (Gemma 2/3, Cohere2, gpt-oss) */
#define HF_PATTERN (UINT64_C(1) << 1)
/* layer types from global_attn_every_n_layers: layer i is global when
 * i % n == 0 (ModernBERT) */
#define HF_EVERY_N (UINT64_C(1) << 2)
/* the pattern only applies when sliding_window is set (EXAONE 4) */
#define HF_PATTERN_IF_WINDOW (UINT64_C(1) << 3)
/* the decoder's learned table has 2 rows more than max_position_embeddings
 * (OPTLearnedPositionalEmbedding, BartLearnedPositionalEmbedding) */
#define HF_OFFSET2 (UINT64_C(1) << 4)
/* positions count from padding_idx + 1 (RobertaEmbeddings) */
#define HF_PAD_OFFSET (UINT64_C(1) << 5)
/* dynamic rope with 'alpha' is HunYuan's NTK-alpha base (modeling_hunyuan_v1_*) */
#define HF_NTK_ALPHA (UINT64_C(1) << 6)
/* Gemma 4: global_head_dim and proportional RoPE */
#define HF_GEMMA4 (UINT64_C(1) << 7)
/* query_pre_attn_scalar sets the softmax scale (Gemma 2/3) */
#define HF_QUERY_SCALAR (UINT64_C(1) << 8)
/* DeepSeek-V2/V3: the softmax scale is multiplied by yarn's mscale^2 */
#define HF_MSCALE_SOFTMAX (UINT64_C(1) << 9)
/* Llama 4: attn_temperature_tuning scales queries of NoPE layers */
#define HF_TEMP_TUNING (UINT64_C(1) << 10)
/* PhiMoE reads short_mscale/long_mscale */
#define HF_PHIMOE_MSCALE (UINT64_C(1) << 11)
/* the layers of cross_attention_layers attend to the image without RoPE (Mllama) */
#define HF_CROSS_NOPE (UINT64_C(1) << 12)
/* attention_multiplier is the softmax scale (GraniteAttention) */
#define HF_ATTN_MULT (UINT64_C(1) << 13)
/* the pairing is the row's whatever rope_interleave says (DeepSeek-V3.2,
 * GLM-5: the configuration class drops the key, the attention never reads it) */
#define HF_FIXED_PAIRING (UINT64_C(1) << 14)
/* only layers with a sliding window rotate: none when sliding_window is
 * null (Cohere2Attention: self.sliding_window is None outside them) */
#define HF_SLIDING_ROPE (UINT64_C(1) << 15)
/* the sliding window is ModernBERT's local_attention (window / 2 each side) */
#define HF_LOCAL_ATTENTION (UINT64_C(1) << 16)
/* the list of @types repeats over the layers (RecurrentGemma's block_types) */
#define HF_TYPES_CYCLE (UINT64_C(1) << 17)
/* Zamba2: the attention reads the residual concatenated with the embeddings,
 * heads of 2 * hidden_size // num_attention_heads, softmax scale
 * (head_dim / 2)^-0.5 */
#define HF_ZAMBA_HEAD (UINT64_C(1) << 18)
/* rotary_value true also rotates the values (RoFormerSelfAttention) */
#define HF_ROTARY_VALUE (UINT64_C(1) << 19)
/* a causal sliding window of local_attention // 2 positions back, whatever
 * sliding_window says (ModernBertDecoderConfig recomputes it) */
#define HF_LOCAL_HALF (UINT64_C(1) << 20)
/* the base is 10000 * rope_ratio (ChatGLM2/3's remote RotaryEmbedding) */
#define HF_ROPE_RATIO (UINT64_C(1) << 21)
/* no class in transformers: the rules are the checkpoint's own modeling file
 * (auto_map), as doc/models.md restates them */
#define HF_REMOTE_CODE (UINT64_C(1) << 22)
/* layer types from compress_ratios (DeepSeek-V4: 0 a sliding layer, 4 or 128
 * compressed attention; no list: every layer compressed, the class's schedule) */
#define HF_COMPRESS_RATIOS (UINT64_C(1) << 23)
/* YaRN's attention factor 1 when the block gives none (DeepseekV4Config sets it:
 * the reference multiplies cos and sin by nothing) */
#define HF_YARN_UNIT_ATT (UINT64_C(1) << 24)
/* rope_parameters is always keyed by layer type and each block stands alone:
 * the class's convert_rope_params_to_dict folds nothing in (top-level
 * partial_rotary_factor and rope_theta are not read), keys naming no layer
 * type are never read (LagunaRotaryEmbedding) */
#define HF_TYPE_ROPE (UINT64_C(1) << 25)
/* layer_types default: layer 0 and each layer i with (i + 1) % 6 == 0 full,
 * the rest sliding (MiMoV2FlashConfig; hybrid_layer_pattern is never read) */
#define HF_MIMO_TYPES (UINT64_C(1) << 26)
/* layer types from block_configs[i].attention (DeciLM / Nemotron-NAS remote
 * code): no_op and replace_with_linear layers have no attention, hence no RoPE */
#define HF_BLOCK_CONFIGS (UINT64_C(1) << 27)
/* alibi: true replaces the rotary embedding by BLOOM's ALiBi (Falcon and its
 * RefinedWeb remote code) */
#define HF_ALIBI_FLAG (UINT64_C(1) << 28)
/* position_embedding_type "alibi" replaces the learned table by ALiBi added as
 * -slope |i - j|, with alibi_scaling (Cerebras' GPT-2 derivatives: Jais, BTLM) */
#define HF_PET_ALIBI (UINT64_C(1) << 29)
/* layer_rope_theta: one number per layer, 0 a NoPE layer, any other value the
 * shared rotary; missing, and layer_types missing, every 4th layer counted back
 * from the last is a full-attention NoPE layer, the rest slide (Muse Glimmer) */
#define HF_LAYER_THETA_NOPE (UINT64_C(1) << 30)
/* layer types from mamba_step (PLaMo 2's is_mamba): with mamba_enabled (default
 * true) layer i is a Mamba layer unless i % mamba_step == mamba_step // 2 (the
 * last layer when there are no more than mamba_step // 2 layers) */
#define HF_MAMBA_STEP (UINT64_C(1) << 31)
/* the modeling file builds its rotary embedding without any rope block:
 * rope_scaling / rope_parameters are warned about and not read (Qwen v1, Yi,
 * TeleChat) */
#define HF_NO_ROPE_BLOCK (UINT64_C(1) << 32)
/* the base is the row's default of the theta key, whatever the config says
 * (the rotary class is built with its own default: CodeShell, TeleChat) */
#define HF_FIXED_BASE (UINT64_C(1) << 33)
/* the step NTK-alpha of Qwen v1 and TeleChat: at a running length L the base
 * is multiplied by alpha^(d/(d-2)), alpha = max(2^ceil(log2(L/S) + 1) - 1, 1)
 * with S the @keys' ntk_length, L at least ntk_floor when the row names one;
 * static up to that length, dynamic beyond it */
#define HF_NTK_STEPS (UINT64_C(1) << 34)
/* position_embedding_type 'rope' rotates, anything else (the class default
 * learned_absolute) is the row's learned table (CodeShell) */
#define HF_PET_ROPE (UINT64_C(1) << 35)
/* the rope block is the 'rotary' object {base, type origin|dynamic,
 * scaling_factor}, the row's @rope_block when the config has none (InternLM) */
#define HF_ROTARY_DICT (UINT64_C(1) << 36)
/* longrope's factors are chosen once, when the cos/sin cache is built at
 * max_position_embeddings on loading (MiniCPMLongRoPE): past the original
 * length that is long_factor at every length, short ones included */
#define HF_LONGROPE_AT_MAX (UINT64_C(1) << 37)
/* a wrapper whose language model follows its 'version' (MiniCPM-V: vLLM's
 * minicpmv.py dispatches 2.0 MiniCPM, 2.5/4.0 Llama, 2.6 Qwen2, 4.5 Qwen3) */
#define HF_TEXT_BY_VERSION (UINT64_C(1) << 38)
/* with a vision_config, the checkpoint's code gives all of an image's tokens one
 * position (CogVLM's build_position_ids, GLM-4V's position_ids repeat): a
 * position then is not a token's index, which is warned about */
#define HF_IMAGE_ONE_POS (UINT64_C(1) << 39)
/* a config with num_multi_query_heads is the later generation @text, which
 * kept the class names (CogVLM2: lmdeploy's cogvlm.py tells them apart so) */
#define HF_MQ_NEXT (UINT64_C(1) << 40)
/* a wrapper whose language model with use_mla false is Llama attention on the
 * same keys (DeepSeek-VL2's modeling_deepseek.py, ATTENTION_CLASSES "mha_*") */
#define HF_MLA_SWITCH (UINT64_C(1) << 41)
/* ALiBi when the config has no max_position_embeddings, RoPE when it has one:
 * two configuration classes share the model_type, each with its own modeling file
 * (Baichuan 13B's ALiBi, Baichuan 7B's rotary) */
#define HF_ALIBI_IF_NO_MAX_POS (UINT64_C(1) << 42)
/* ALiBi from attn_config (MptAttentionConfig: alibi, alibi_bias_max; slopes over the
 * next power of two of the heads), or llm-foundry's own attention with auto_map */
#define HF_ALIBI_ATTN_CONFIG (UINT64_C(1) << 43)
/* every layer attends within sliding_window when it is set (not null): the model
 * builds one sliding-window mask for all layers from config.sliding_window and each
 * attention passes that window (MistralModel, MixtralModel, Starcoder2Model,
 * Phi3Model, Qwen3MoeModel); layer_types is not read for it */
#define HF_WINDOW_ALL (UINT64_C(1) << 44)
/* sliding_window counts only with use_sliding_window (default false): the class
 * drops it otherwise (Qwen2Config, Qwen3Config, Qwen3MoeConfig set None, Qwen2MoeConfig 0) */
#define HF_USE_SLIDING (UINT64_C(1) << 45)
/* without layer_types, layer i slides when i >= max_window_layers (the default
 * layer_types of Qwen2Config and Qwen3Config) */
#define HF_MAX_WINDOW_LAYERS (UINT64_C(1) << 46)
/* without layer_types every layer is a sliding one when sliding_window is set,
 * none otherwise (MinistralConfig's default layer_types) */
#define HF_TYPES_ALL_SLIDE (UINT64_C(1) << 47)
/* attention only in the layers attn_layer_indices lists, the others Mamba-2
 * (BambaConfig.layers_block_type; no list: no layer attends) */
#define HF_ATTN_INDICES (UINT64_C(1) << 48)
/* the class sets partial_rotary_factor to its default whatever the config says
 * (BambaConfig: kwargs["partial_rotary_factor"] = 0.5) */
#define HF_FIXED_PARTIAL (UINT64_C(1) << 49)

/*
 * One architecture (a transformers model_type). @defaults are the values its
 * configuration class gives keys a config.json leaves out ("key=value,...",
 * from configuration_<name>.py); @theta_key is where the rope base is read
 * (GPT-NeoX: rotary_emb_base); for HF_ROPE @local_theta / @global_theta name
 * the keys of per-layer-type bases (Gemma 3, ModernBERT); @text is the
 * default text model of a wrapper (HF_MQ_NEXT: the later generation); @what is a learned table's
 * tensor, the reason for HF_NONE / HF_RELATIVE / HF_REFUSED, or a wrapper's path to its text config
 * ("thinker_config.text_config"; NULL: text_config).
 *
 * For HF_SINUSOIDAL @layout is the sinusoidal spec's keys
 * ("layout=blocks,freq=t2t"); HF_OFFSET2 starts positions at 2 and
 * HF_PAD_OFFSET at pad_token_id + 1 (fairseq's make_positions).
 *
 * @keys is the class's own attribute_map as "canonical=key" strings (Moonshine's
 * num_attention_heads=decoder_num_attention_heads), read before the aliases
 * every class shares; a learned or fixed table names its shape by the
 * pseudo keys table_rows and table_cols (default max_position_embeddings and
 * hidden_size) and decoder_rows (a decoder table of its own, LED). A key
 * with a dot is a path into a sub-object (DBRX's attn_config.rope_theta).
 * Pseudo keys of the rotary: ntk_length, ntk_floor, ntk_switch and
 * logn_switch (HF_NTK_STEPS), linear_factor (a number positions are
 * divided by, which is linear scaling: Phi-3-small's rope_position_scale).
 * @sin_key is the boolean that fills a learned table with fixed sinusoids
 * (DistilBERT's sinusoidal_pos_embds); @rope_key the boolean without which
 * the attention has no RoPE (Zamba2's use_mem_rope, default false); @types
 * the list naming each layer's kind when it is not layer_types, as
 * "key/value[=kind]" (Zamba2's layers_block_type/hybrid: that value is a
 * full-attention layer, or the kind given; the others are not attention); @rope_block the
 * class's rope_parameters when the config has none (JSON, CWM's llama3).
 *
 * @scalings is for models whose own code builds its rotary embedding from
 * rope_scaling itself (remote code): the "type"s it knows, space-separated
 * (another one makes that code raise, so it is refused); NULL for transformers'
 * registry (modeling_rope_utils). A code that never reads a rope block is
 * HF_NO_ROPE_BLOCK.
 */
struct hf_arch {
	const char *model_type;
	enum hf_enc enc;
	const char *layout; /* rope: "half" (rotate_half) or "interleaved" */
	const char *defaults;
	uint64_t flags;
	const char *theta_key;    /* NULL: rope_theta */
	const char *local_theta;  /* NULL: sliding layers use the global rope */
	const char *global_theta; /* NULL: theta_key */
	const char *text;         /* wrapper: text_config's model_type when it has none */
	const char *what;
	const char *const *keys; /* "canonical=key" strings, ended by NULL */
	const char *sin_key;
	const char *rope_key;
	const char *types;
	const char *rope_block;
	const char *scalings;
};

/* The registry entry of @model_type, or NULL. */
const struct hf_arch *hf_arch_find(const char *model_type);

/*
 * The longest of transformers' model types (CONFIG_MAPPING's keys) that @name
 * contains, case-sensitively, or NULL: AutoConfig's fallback for a config
 * without model_type. posenc may have no row for it. Static storage.
 */
const char *hf_type_in_name(const char *name);

/*
 * The registry entry whose model_type is the name of the model class @cls
 * (an `architectures` entry) without its head: LlamaForCausalLM -> llama,
 * QWenLMHeadModel -> qwen, GPTNeoXForCausalLM -> gpt_neox (case, '_' and
 * '-' ignored), or NULL. Static storage.
 */
const struct hf_arch *hf_arch_by_class(const char *cls);

/*
 * The generic entry for an unknown model_type: transformers' default rotary
 * code, or with @mla (the config has kv_lora_rank and qk_rope_head_dim) the
 * rules multi-head latent attention is implemented with everywhere: pairs
 * 2i, 2i+1 unless rope_interleave says otherwise, and the softmax scale of
 * DeepseekV3Attention. Static storage.
 */
const struct hf_arch *hf_arch_generic(int mla);

/* flash-attn's rotary keys (rotary_emb_base, rotary_emb_fraction,
 * rotary_emb_interleaved), as remote-code encoders use them. Static storage. */
const struct hf_arch *hf_arch_flash(void);

/* Reading state. */
struct hf {
	const struct json *root;
	const struct json *cfg; /* text_config when there is one */
	struct pe_model *m;
	char **err;
	const char *label;
	const struct hf_arch *arch;
	int remote; /* a remote-code wrapper: its text model follows the checkpoint's files */
};

enum pe_status hf_fail(struct hf *h, enum pe_status st, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));
enum pe_status hf_warn(struct hf *h, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The value of @key in @obj (the last duplicate, as Python's json); NULL if absent. */
const struct json *hf_get(const struct json *obj, const char *key);
/* Like hf_get(), NULL for a JSON null too. */
const struct json *hf_present(const struct json *obj, const char *key);
/* A rope block's type: its rope_type, else its legacy type; NULL if neither. */
const struct json *hf_block_type(const struct json *block);
/*
 * The per-layer list @key of the config: 1 and *out when it is a list of @n
 * items, 0 when absent or null, -1 (reported: "KEY: is not a list of N
 * @what") otherwise.
 */
int hf_layer_list(struct hf *h, const char *key, size_t n, const char *what,
                  const struct json **out);

/* 1 and *out if @key is a number, 0 if absent or null, -1 (reported) otherwise;
 * @where prefixes @key in the message ("rope_scaling."). */
int hf_number(struct hf *h, const char *where, const struct json *obj, const char *key,
              double *out);
/* Like hf_number(), for a whole number > 0. */
int hf_count(struct hf *h, const char *where, const struct json *obj, const char *key, size_t *out);

/*
 * A top-level key of the config as its configuration class has it: the key,
 * else one of its attribute_map aliases (n_layer, n_head, n_embd, ...), else
 * the class default. 1 from the file, 2 from the class default, 0 none, -1
 * reported. *@name (may be NULL) gets the key that was read.
 */
int hf_cfg_number(struct hf *h, const char *key, double *out, const char **name);
int hf_cfg_count(struct hf *h, const char *key, size_t *out, const char **name);

/* The class default of @key for the architecture: 1 and *out, or 0. */
int hf_arch_default(const struct hf_arch *a, const char *key, double *out);

/* The key the architecture's @keys maps @key to, or NULL. */
const char *hf_arch_key(const struct hf_arch *a, const char *key);

void hf_put_number(struct strbuf *b, double v);
void hf_put_key(struct strbuf *b, const char *key, double v);

/* A fact about the model (struct pe_model_fact): @value from @fmt. */
enum pe_status hf_fact(struct hf *h, const char *key, const char *what, const char *fmt, ...)
        __attribute__((format(printf, 4, 5)));

/*
 * @obj's boolean @key: 1 or 0, @dflt when absent, -1 (after hf_fail naming
 * @where@key) when it is not true or false.
 */
int hf_bool(struct hf *h, const char *where, const struct json *obj, const char *key, int dflt);

/* A new group (its layers added later); @spec may be NULL (NoPE). */
enum pe_status hf_add_group(struct hf *h, const char *name, const char *spec);

/* What a rope block is read against: the config's top-level values. */
struct hf_rope_ctx {
	size_t head_dim;
	double max_pos;       /* max_position_embeddings; 0 if absent */
	int top_original_set; /* Phi-3: original_max_position_embeddings at top level */
	double top_original;
	double top_theta;     /* rope_theta (or rotary_emb_base) at top level; NaN if absent */
	double top_partial;   /* partial_rotary_factor at top level; NaN if absent */
	double class_partial; /* the configuration class's default; NaN if none */
	int per_layer;        /* the block is one of several keyed by layer type */
	const char *layout;   /* "half" or "interleaved" */
};

/*
 * hf_rope_spec() - spec text (without label) of one rope block
 *
 * @where: the key path prefix for messages ("rope_scaling.",
 *         "rope_parameters.full_attention."); @block may be NULL (no
 *         scaling). Sets *train to the pretraining context it implies.
 */
enum pe_status hf_rope_spec(struct hf *h, const struct hf_rope_ctx *c, const char *where,
                            const struct json *block, struct strbuf *b, double *train);

/* Qwen2-VL's mrope_section: the model's note and mrope spec. */
enum pe_status hf_mrope_note(struct hf *h, const struct hf_rope_ctx *c, const struct json *block);

/* The readers of each encoding (model_hf_layers.c, model_hf_tables.c). */
enum pe_status hf_read_rope(struct hf *h);
enum pe_status hf_read_alibi(struct hf *h);
enum pe_status hf_read_t5(struct hf *h);
enum pe_status hf_read_learned(struct hf *h);
enum pe_status hf_read_whisper(struct hf *h);
enum pe_status hf_read_sinusoidal(struct hf *h);

#endif
