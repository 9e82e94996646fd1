/*
 * Private to the config.json reader (model_hf*.c): the architecture
 * registry, the reading state and the helpers every part shares.
 */
#ifndef POSENC_MODEL_HF_H
#define POSENC_MODEL_HF_H

#include <stddef.h>

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

/* Per-architecture rules of the modeling file (bit flags). */
enum {
	/* full-attention layers skip RoPE when the config has a sliding window
	 * (Cohere2Attention, Exaone4Attention) */
	HF_FULL_NOPE = 1u << 0,
	/* layer types from sliding_window_pattern: layer i slides unless
	 * (i + 1) % pattern == 0 (Gemma 2/3, Cohere2, gpt-oss) */
	HF_PATTERN = 1u << 1,
	/* layer types from global_attn_every_n_layers: layer i is global when
	 * i % n == 0 (ModernBERT) */
	HF_EVERY_N = 1u << 2,
	/* the pattern only applies when sliding_window is set (EXAONE 4) */
	HF_PATTERN_IF_WINDOW = 1u << 3,
	/* the decoder's learned table has 2 rows more than max_position_embeddings
	 * (OPTLearnedPositionalEmbedding, BartLearnedPositionalEmbedding) */
	HF_OFFSET2 = 1u << 4,
	/* positions count from padding_idx + 1 (RobertaEmbeddings) */
	HF_PAD_OFFSET = 1u << 5,
	/* dynamic rope with 'alpha' is HunYuan's NTK-alpha base (modeling_hunyuan_v1_*) */
	HF_NTK_ALPHA = 1u << 6,
	/* Gemma 4: global_head_dim and proportional RoPE */
	HF_GEMMA4 = 1u << 7,
	/* query_pre_attn_scalar sets the softmax scale (Gemma 2/3) */
	HF_QUERY_SCALAR = 1u << 8,
	/* DeepSeek-V2/V3: the softmax scale is multiplied by yarn's mscale^2 */
	HF_MSCALE_SOFTMAX = 1u << 9,
	/* Llama 4: attn_temperature_tuning scales queries of NoPE layers */
	HF_TEMP_TUNING = 1u << 10,
	/* PhiMoE reads short_mscale/long_mscale */
	HF_PHIMOE_MSCALE = 1u << 11,
	/* the layers of cross_attention_layers attend to the image without RoPE (Mllama) */
	HF_CROSS_NOPE = 1u << 12,
	/* attention_multiplier is the softmax scale (GraniteAttention) */
	HF_ATTN_MULT = 1u << 13,
	/* the pairing is the row's whatever rope_interleave says (DeepSeek-V3.2,
	 * GLM-5: the configuration class drops the key, the attention never reads it) */
	HF_FIXED_PAIRING = 1u << 14,
	/* only layers with a sliding window rotate: none when sliding_window is
	 * null (Cohere2Attention: self.sliding_window is None outside them) */
	HF_SLIDING_ROPE = 1u << 15,
	/* the sliding window is ModernBERT's local_attention (window / 2 each side) */
	HF_LOCAL_ATTENTION = 1u << 16,
	/* the list of @types repeats over the layers (RecurrentGemma's block_types) */
	HF_TYPES_CYCLE = 1u << 17,
	/* Zamba2: the attention reads the residual concatenated with the embeddings,
	 * heads of 2 * hidden_size // num_attention_heads, softmax scale
	 * (head_dim / 2)^-0.5 */
	HF_ZAMBA_HEAD = 1u << 18,
	/* rotary_value true also rotates the values (RoFormerSelfAttention) */
	HF_ROTARY_VALUE = 1u << 19,
	/* a causal sliding window of local_attention // 2 positions back, whatever
	 * sliding_window says (ModernBertDecoderConfig recomputes it) */
	HF_LOCAL_HALF = 1u << 20,
	/* the base is 10000 * rope_ratio (ChatGLM2/3's remote RotaryEmbedding) */
	HF_ROPE_RATIO = 1u << 21,
	/* no class in transformers: the rules are the checkpoint's own modeling file
	 * (auto_map), as doc/models.md restates them */
	HF_REMOTE_CODE = 1u << 22,
	/* layer types from compress_ratios (DeepSeek-V4: 0 a sliding layer, 4 or 128
	 * compressed attention; no list: every layer compressed, the class's schedule) */
	HF_COMPRESS_RATIOS = 1u << 23,
	/* YaRN's attention factor 1 when the block gives none (DeepseekV4Config sets it:
	 * the reference multiplies cos and sin by nothing) */
	HF_YARN_UNIT_ATT = 1u << 24,
	/* rope_parameters is always keyed by layer type and each block stands alone:
	 * the class's convert_rope_params_to_dict folds nothing in (top-level
	 * partial_rotary_factor and rope_theta are not read), keys naming no layer
	 * type are never read (LagunaRotaryEmbedding) */
	HF_TYPE_ROPE = 1u << 25,
	/* layer_types default: layer 0 and each layer i with (i + 1) % 6 == 0 full,
	 * the rest sliding (MiMoV2FlashConfig; hybrid_layer_pattern is never read) */
	HF_MIMO_TYPES = 1u << 26,
	/* the modeling file builds its rotary embedding without any rope block:
	 * rope_scaling / rope_parameters are warned about and not read (Qwen v1, Yi,
	 * TeleChat) */
	HF_NO_ROPE_BLOCK = 1u << 27,
	/* the base is the row's default of the theta key, whatever the config says
	 * (the rotary class is built with its own default: CodeShell, TeleChat) */
	HF_FIXED_BASE = 1u << 28,
	/* the step NTK-alpha of Qwen v1 and TeleChat: at a running length L the base
	 * is multiplied by alpha^(d/(d-2)), alpha = max(2^ceil(log2(L/S) + 1) - 1, 1)
	 * with S the @keys' ntk_length, L at least ntk_floor when the row names one;
	 * static up to that length, dynamic beyond it */
	HF_NTK_STEPS = 1u << 29,
	/* position_embedding_type 'rope' rotates, anything else (the class default
	 * learned_absolute) is the row's learned table (CodeShell) */
	HF_PET_ROPE = 1u << 30,
	/* the rope block is the 'rotary' object {base, type origin|dynamic,
	 * scaling_factor}, the row's @rope_block when the config has none (InternLM) */
	HF_ROTARY_DICT = 1u << 31,
};

/*
 * One architecture (a transformers model_type). @defaults are the values its
 * configuration class gives keys a config.json leaves out ("key=value,...",
 * from configuration_<name>.py); @theta_key is where the rope base is read
 * (GPT-NeoX: rotary_emb_base); for HF_ROPE @local_theta / @global_theta name
 * the keys of per-layer-type bases (Gemma 3, ModernBERT); @text is the
 * default text model of a wrapper; @what is a learned table's tensor, the
 * reason for HF_NONE / HF_RELATIVE / HF_REFUSED, or a wrapper's path to its
 * text config ("thinker_config.text_config"; NULL: text_config).
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
 * logn_switch (HF_NTK_STEPS), position_divisor (a number positions are
 * divided by, which is linear scaling: Qwen's seq_length_expansion).
 * @sin_key is the boolean that fills a learned table with fixed sinusoids
 * (DistilBERT's sinusoidal_pos_embds); @rope_key the boolean without which
 * the attention has no RoPE (Zamba2's use_mem_rope, default false); @types
 * the list naming each layer's kind when it is not layer_types, as
 * "key/value[=kind]" (Zamba2's layers_block_type/hybrid: that value is a
 * full-attention layer, or the kind given; the others are not attention); @rope_block the
 * class's rope_parameters when the config has none (JSON, CWM's llama3).
 */
struct hf_arch {
	const char *model_type;
	enum hf_enc enc;
	const char *layout; /* rope: "half" (rotate_half) or "interleaved" */
	const char *defaults;
	unsigned flags;
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
	/* the rope types the modeling file accepts ("linear dynamic"); NULL: any
	 * transformers has */
	const char *scalings;
};

/* The registry entry of @model_type, or NULL. */
const struct hf_arch *hf_arch_find(const char *model_type);

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
};

enum pe_status hf_fail(struct hf *h, enum pe_status st, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));
enum pe_status hf_warn(struct hf *h, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The value of @key in @obj (the last duplicate, as Python's json); NULL if absent. */
const struct json *hf_get(const struct json *obj, const char *key);
/* Like hf_get(), NULL for a JSON null too. */
const struct json *hf_present(const struct json *obj, const char *key);

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
