/*
 * posenc/usage.h - which RoPE frequencies a trained model's weights use
 *
 * For every layer, query head and RoPE pair: the norm of the two rows of
 * the query projection that produce that pair's two coordinates,
 * sqrt(|w_a|^2 + |w_b|^2) (the Frobenius norm of the 2 x hidden block,
 * which RoPE's rotation leaves unchanged), the same for the key head the
 * query head attends with, and their product. A pair whose rows are zero
 * contributes nothing to any logit, whatever its frequency; the norms say
 * how much each frequency can carry, not how much it does for real inputs
 * (they leave out the statistics of the hidden states: a proxy, see
 * doc/models.md "Frequency usage").
 *
 * The pairing is the model's (posenc/model.h group specs): half layout
 * (HF rotate_half: coordinates i and i + d_rot/2), interleaved (2i, 2i+1:
 * GPT-J, DeepSeek with rope_interleave, Llama 4, Cohere), partial rotary
 * (only the first d_rot coordinates of a head form pairs), proportional
 * (pairs past its turning pairs have frequency 0 but stay pairs), DeepSeek
 * MLA's decoupled rope part (the last qk_rope_head_dim rows of each query
 * head of q_b_proj / q_proj; the last qk_rope_head_dim rows of
 * kv_a_proj_with_mqa, one key head shared by all). Grouped-query heads as
 * HF's repeat_kv maps them: query head h uses key head h / (heads /
 * kv_heads).
 *
 * Tensors are found by name in the checkpoint (posenc/tensors.h): per layer
 * N under one prefix ("model.layers.", GGUF's "blk."), q_proj/k_proj, a fused
 * qkv_proj/c_attn (rows [q | k | v]) or query_key_value (GPT-NeoX and
 * Falcon: per key head, rows [its query heads | k | v]), DeepSeek's
 * q_b_proj (or q_proj) and kv_a_proj_with_mqa; in a GGUF file attn_q and
 * attn_k, or attn_qkv (rows [q | k | v], as llama.cpp's graphs view it). What is folded in:
 *   q_norm / k_norm weights (Qwen3, OLMo 2, Gemma 3, Gemma 4: RMS norms of
 *   q and k applied before RoPE): each row is scaled by its coordinate's
 *   weight (Gemma, Gemma 2 and Gemma 3: 1 + weight, as Gemma3RMSNorm
 *   applies it; Gemma 3n and 4 scale by the weight itself). The division by
 *   the RMS of each token's q or k is data-dependent and not folded: it
 *   scales a whole head alike, so pairs compare within a head, not across.
 *   Biases (Qwen 2): with fold_bias, as one more column (an input
 *   coordinate that is always 1); else left out.
 * Not folded: the input RMSNorm's weight (it scales the columns, the same
 * for every pair), the per-token normalisation, DeepSeek's q_a_layernorm
 * and LoRA down-projection (q_b_proj is taken as it is).
 *
 * Memory: one tensor at a time, read in slices of at most opt->slice_bytes
 * of float64; the result arrays are layers x heads x pairs doubles.
 */
#ifndef POSENC_USAGE_H
#define POSENC_USAGE_H

#include <stddef.h>
#include <stdint.h>

#include <posenc/model.h>
#include <posenc/status.h>
#include <posenc/tensors.h>

#ifdef __cplusplus
extern "C" {
#endif

/* How the query and key rows of a layer are laid out in its tensors. */
enum pe_usage_arch {
	PE_USAGE_SEPARATE, /* q_proj and k_proj */
	PE_USAGE_CONCAT,   /* one fused tensor, rows [q heads | k heads | v heads] */
	PE_USAGE_GROUPED,  /* fused per key head: [its q heads | k | v] (GPT-NeoX, Falcon,
	                      Persimmon, ChatGLM without multi-query) */
	PE_USAGE_MLA,      /* DeepSeek: q_b_proj/q_proj and kv_a_proj_with_mqa rope parts */
	PE_USAGE_CODEGEN,  /* CodeGen's qkv_proj: 4 blocks, each [its q heads | v | k] */
};

/* What q_norm/k_norm contributed. */
enum pe_usage_norm {
	PE_USAGE_NORM_NONE,     /* no q_norm/k_norm tensors */
	PE_USAGE_NORM_WEIGHT,   /* rows scaled by the weight (Qwen3, OLMo 2) */
	PE_USAGE_NORM_ONE_PLUS, /* rows scaled by 1 + weight (Gemma) */
};

struct pe_usage_options {
	uint64_t slice_bytes; /* float64 bytes of one slice of a tensor; 0: 16 MiB */
	int fold_bias;        /* 1: add q/k biases as one more column */
	/* Heads per key head and the like come from the config; these override
	 * it when not 0 (tests, configs that lack them). */
	size_t heads, kv_heads;
};

/* One layer: its pairing and the tensors it was read from. */
struct pe_usage_layer {
	size_t group;            /* index into the model's groups */
	int rope;                /* 0: the layer has no RoPE (NoPE): no pairs */
	int interleaved;         /* 1: pairs (2i, 2i+1); 0: (i, i + d_rot/2) */
	size_t head_dim;         /* rows of one query head's position part */
	size_t rotary;           /* d_rot: coordinates that form pairs */
	size_t pairs;            /* d_rot / 2 */
	size_t heads;            /* query heads */
	size_t kv_heads;         /* key heads */
	double *theta;           /* owned: pairs unscaled inverse frequencies */
	double *scaled;          /* owned: pairs scaled inverse frequencies (0: never turns) */
	size_t critical;         /* Liu et al.'s critical dimension / 2 (pairs), training context */
	int has_critical;        /* 0 when it does not apply */
	double band_lo, band_hi; /* scaled band: wavelengths between these are changed
	                            by the scaling in varying degree (llama3, yarn); NaN */
	char *q_name, *k_name;   /* owned: the tensors read */
};

struct pe_usage {
	size_t layers; /* layers found in the checkpoint */
	size_t heads;  /* query heads (the largest of any layer) */
	size_t pairs;  /* the largest number of pairs of any layer */
	double *q;     /* owned: layers x heads x pairs, NaN where a layer has none */
	double *k;     /* owned: same shape, the key head of each query head */
	double *qk;    /* owned: q * k */
	struct pe_usage_layer *layer; /* owned: layers entries */
	enum pe_usage_arch arch;
	enum pe_usage_norm norm;
	int has_bias;    /* the checkpoint has q/k biases */
	int bias_folded; /* and they were folded in */
	/* q_layernorm/k_layernorm tensors (Persimmon, StableLM, Phi with qk_layernorm):
	 * LayerNorms, which centre each head's q before scaling it, so no scaling
	 * of the rows reproduces them: present and not folded in. */
	int layernorm_skipped;
	char *prefix;                  /* owned: the name prefix of the layers, "model.layers." */
	double context, train_context; /* from the model */
};

/*
 * pe_usage_compute() - pair norms of every layer of a checkpoint
 *
 * @store:  the checkpoint (pe_tensor_store_open()).
 * @config: the text of its config.json (head counts, DeepSeek's MLA sizes,
 *          model_type), @config_len bytes; NULL for a GGUF store, whose
 *          head counts come from its own keys (and a config with a GGUF
 *          store is PE_EUNSUPPORTED: its rows are laid out for its rope
 *          type, which only its own metadata gives).
 * @m:      the model read from the same config (pe_model_from_hf_json(),
 *          or from the same GGUF file): its groups give each layer's
 *          pairing and frequencies. For a GGUF that is llama.cpp's rope
 *          type: NORM pairs (2i, 2i+1), as the converter's permutation of
 *          llama-family q/k rows laid them out; NEOX (i, i + d_rot/2).
 * @opt:    may be NULL (defaults).
 * @out:    on success a new result; free with pe_usage_destroy().
 * @err:    on failure, if not NULL, a message (free()) naming the tensor or
 *          key at fault.
 *
 * @return PE_OK; PE_ENOTFOUND (no query/key tensors under any prefix, a
 * layer without them); PE_EFORMAT (a tensor's shape or dtype does not fit
 * the config, malformed config); PE_EUNSUPPORTED (a layout posenc cannot
 * pair); PE_EIO, PE_ENOMEM.
 */
PE_API enum pe_status pe_usage_compute(struct pe_tensor_store *store, const char *config,
                                       size_t config_len, const struct pe_model *m,
                                       const struct pe_usage_options *opt, struct pe_usage **out,
                                       char **err);

/*
 * pe_usage_values() - how many weight values pe_usage_compute() would read
 *
 * The same arguments, the same checks of the config and the tensors' names
 * and shapes, and the same errors; no value is read: *@values is the count
 * of the rotary rows' values of every layer's query and key tensors (plus
 * one a row for a bias or norm weight), what its time grows with.
 *
 * @return as pe_usage_compute().
 */
PE_API enum pe_status pe_usage_values(struct pe_tensor_store *store, const char *config,
                                      size_t config_len, const struct pe_model *m,
                                      const struct pe_usage_options *opt, uint64_t *values,
                                      char **err);

/*
 * pe_usage_pair_norms() - the pair norms of one head from its rows' squared norms
 *
 * @row_sq:     squared norms of the head's position rows, head_dim of them.
 * @scale:      NULL, or head_dim factors the rows are multiplied by (q_norm).
 * @rotary:     d_rot (even, <= head_dim); pairs = rotary / 2.
 * @interleaved: pairing (2i, 2i+1) when 1, (i, i + rotary/2) when 0.
 * @out:        rotary / 2 norms sqrt(s_a^2 r_a + s_b^2 r_b).
 */
PE_API void pe_usage_pair_norms(const double *row_sq, const double *scale, size_t rotary,
                                int interleaved, double *out);

/*
 * pe_usage_fold_activations() - per-pair values of an activation statistic
 *
 * @in:   layers x heads x width values of some statistic computed elsewhere
 *        (an L2 norm over tokens, a mean |q|). heads: the query heads, or
 *        the key heads when every RoPE layer has that many (then query head
 *        h gets key head h / (heads / kv_heads)). width: per coordinate,
 *        the widest layer's head_dim (narrower layers use their first
 *        coordinates) or every layer's rotary width; each pair gets
 *        sqrt(a^2 + b^2) of its two coordinates (the pair's own L2 norm
 *        when a and b are L2 norms); or per pair, u->pairs values taken as
 *        they are (each layer its first pairs).
 * @u:    the usage whose pairing applies (layer by layer).
 * @out:  on success a new array layers x u->heads x u->pairs (free()), NaN
 *        where a layer has no pairs.
 *
 * @return PE_OK, PE_ERANGE (layers or heads differ from @u's, or a width
 * that fits neither reading: *err says which), PE_ENOMEM.
 */
PE_API enum pe_status pe_usage_fold_activations(const struct pe_usage *u, const double *in,
                                                size_t layers, size_t heads, size_t width,
                                                double **out, char **err);

/* pe_usage_arch_name() - "q_proj/k_proj", "fused qkv", ...; static. */
PE_API const char *pe_usage_arch_name(enum pe_usage_arch arch);

/* pe_usage_destroy() - frees a result; NULL is a no-op. */
PE_API void pe_usage_destroy(struct pe_usage *u);

#ifdef __cplusplus
}
#endif

#endif
