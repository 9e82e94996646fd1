/*
 * posenc/scheme.h - positional-encoding schemes and their spec strings
 *
 * One grammar names every encoding: NAME[:key=value[,key=value]...], for
 * example "sinusoidal:base=10", "rope:scaling=yarn,factor=4" or
 * "alibi:heads=12". pe_scheme_parse() turns a spec into a struct pe_scheme
 * with every key validated; the analyses take that struct.
 *
 * Conventions follow real code (see the README, "Conventions"):
 *   sinusoidal  layout=interleaved (paper, HF DistilBERT/XLM) or blocks
 *               ([sin | cos], HF Marian/RoFormer, tensor2tensor, fairseq);
 *               freq=paper (base^(-2k/d)) or t2t (base^(-k/(d/2-1)));
 *               start=P shifts the argument (fairseq numbers from 2).
 *   rope        theta_i = base^(-2i/d_rot), d_rot = int(d * rotary), pairs
 *               (2i, 2i+1) for layout=interleaved (RoFormer, GPT-J, Meta) or
 *               (i, i + d_rot/2) for layout=half (GPT-NeoX, HF LLaMA);
 *               scaling=none|linear|dynamic|yarn|llama3|longrope|proportional
 *               as in HF modeling_rope_utils.
 *   learned     an untrained N(0, std^2) table from a portable seeded
 *               generator (see posenc/encode.h).
 *   binary      column j is bit j of the position.
 *   file        a matrix read from .npy, .safetensors or .csv.
 *   alibi, t5   attention biases, not position vectors (posenc/bias.h).
 */
#ifndef POSENC_SCHEME_H
#define POSENC_SCHEME_H

#include <stddef.h>
#include <stdint.h>

#include <posenc/status.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * A scheme type: one per scheme (sinusoidal, rope, ...), listed by the
 * registry. Opaque: ask it with the functions below.
 */
struct pe_scheme_type;

/* What a scheme can do; pe_scheme_has() asks. */
enum pe_cap {
	PE_CAP_VECTORS = 1u << 0,     /* position vectors (encode, compare, decay) */
	PE_CAP_ENCODE = 1u << 1,      /* rows computed from the spec (pe_encode_rows) */
	PE_CAP_TABLE = 1u << 2,       /* rows read from a file (pe_file_load) */
	PE_CAP_VIEWS = 1u << 3,       /* views other than the default (angle, cos, ...) */
	PE_CAP_FREQS = 1u << 4,       /* per-pair frequencies (pe_scheme_frequencies) */
	PE_CAP_WINDOW = 1u << 5,      /* exact block means (pe_encode_window) */
	PE_CAP_TOEPLITZ = 1u << 6,    /* a closed-form offset kernel (fast pairwise, decay) */
	PE_CAP_SCALING = 1u << 7,     /* RoPE frequencies and scalings (freqs variants) */
	PE_CAP_BOUND = 1u << 8,       /* RoFormer's decay upper bound */
	PE_CAP_BIAS = 1u << 9,        /* an attention bias (posenc/bias.h), not vectors */
	PE_CAP_BIAS_HEADS = 1u << 10, /* one bias per head (pe_alibi_bias) */
	PE_CAP_BUCKETS = 1u << 11,    /* a relative-position bucket map (pe_t5_bucket_map) */
	PE_CAP_UNTRAINED = 1u << 12,  /* a random initialisation, not a trained table */
};

enum pe_layout {
	PE_LAYOUT_INTERLEAVED, /* sinusoidal and rope: pairs (2i, 2i+1) */
	PE_LAYOUT_BLOCKS,      /* sinusoidal: [sin block | cos block] */
	PE_LAYOUT_HALF,        /* rope: pairs (i, i + d/2), rotate_half */
	/* Enum values name table entries (lib/scheme/): append, and keep the asserts. */
};

enum pe_freq {
	PE_FREQ_PAPER, /* w_k = base^(-2k/d) */
	PE_FREQ_T2T,   /* w_k = base^(-k/max(d/2-1, 1)), tensor2tensor/fairseq */
};

enum pe_rope_scaling {
	PE_ROPE_SCALING_NONE,
	PE_ROPE_SCALING_LINEAR,
	PE_ROPE_SCALING_DYNAMIC,
	PE_ROPE_SCALING_YARN,
	PE_ROPE_SCALING_LLAMA3,
	PE_ROPE_SCALING_LONGROPE,
	PE_ROPE_SCALING_PROPORTIONAL,
	PE_ROPE_SCALING_NTK, /* vLLM's fixed and mixed NTK (NTKScalingRotaryEmbedding) */
	                     /* Keep NTK last: the scaling tables assert their length against it. */
};

enum pe_alibi_form {
	PE_ALIBI_PAPER,    /* -m (i - j) below the diagonal, -inf above */
	PE_ALIBI_OFFICIAL, /* m j in every row (the official code), -inf above */
};

/* Whose slopes: Press et al.'s get_slopes (BLOOM), or MPT's build_mpt_alibi_tensor. */
enum pe_alibi_slopes {
	PE_ALIBI_SLOPES_PRESS, /* 2^(-8k/n), odd slopes of 2n for the heads past a power of 2 */
	PE_ALIBI_SLOPES_MPT,   /* 1 / 2^(k bias_max / n2), n2 the next power of 2 */
};

/*
 * RoPE scaling parameters, named as in HF rope_scaling. Keys in specs:
 * factor, original (original_max_position_embeddings), length (the
 * sequence length at which dynamic/longrope are evaluated), low and high
 * (llama3 low_freq_factor/high_freq_factor), beta-fast, beta-slow,
 * mscale, mscale-all-dim, attention-factor, truncate (yarn),
 * long-factor and short-factor (longrope: numbers separated by '/', or
 * @FILE with numbers separated by white space or commas), short-mscale
 * and long-mscale (longrope as PhiMoE applies it), proportion
 * (proportional: the first int(proportion * d_rot // 2) pairs keep
 * base^(-2i/d_rot), the others get frequency 0; all are divided by factor).
 */
struct pe_rope_scaling_params {
	enum pe_rope_scaling type;
	double factor;           /* linear/dynamic/yarn 4, llama3 8 */
	double original;         /* 4096; llama3 8192 */
	double length;           /* 0: the original length (no dynamic change) */
	double low_freq_factor;  /* llama3: 1 */
	double high_freq_factor; /* llama3: 4 */
	double beta_fast;        /* yarn: 32 */
	double beta_slow;        /* yarn: 1 */
	double mscale;           /* yarn: 0 = unset */
	double mscale_all_dim;   /* yarn: 0 = unset */
	double attention_factor; /* NaN: yarn/longrope derive it, none/linear 1 */
	int truncate;            /* yarn: 1 */
	double *long_factor;     /* longrope, owned; NULL if not given */
	size_t n_long_factor;
	double *short_factor; /* longrope, owned; NULL if not given */
	size_t n_short_factor;
	/* longrope as PhiMoE applies it: the attention factor of the short
	 * (length <= original) and long regimes, instead of the derived one;
	 * NaN or 0 = unset. */
	double short_mscale;
	double long_mscale;
	/* proportional (Gemma 4's p-RoPE): the fraction of the pairs that turn,
	 * HF's partial_rotary_factor of that rope type; 1. */
	double proportion;
	/* ntk (vLLM's rope_type "ntk"): mixed_b, the exponent of mixed NTK's
	 * per-pair divisor; NaN = fixed NTK. */
	double mixed_b;
};

struct pe_scheme {
	const struct pe_scheme_type *type; /* static, from the registry */
	char *label;     /* legend/CSV label: label= or the canonical text; owned */
	char *canonical; /* canonical spec text, e.g. "sinusoidal base=10"; owned */

	/* sinusoidal, rope */
	double base;           /* 10000 */
	enum pe_layout layout; /* interleaved */
	/* sinusoidal */
	enum pe_freq freq; /* paper */
	double start;      /* 0: argument offset added to every position */
	/* rope */
	double rotary; /* 1.0: fraction of d that is rotated */
	unsigned head; /* 0; else the head width the spec is for (a model's layer
	                  group): the width when the command is given no -d */
	struct pe_rope_scaling_params scaling;

	/* learned */
	uint64_t seed; /* 0 */
	double std;    /* 0.02 */

	/* file */
	char *path;       /* owned */
	char *tensor;     /* owned; NULL: the only tensor of the file */
	size_t row_first; /* rows=A:B selects rows A..B-1 */
	size_t row_end;   /* 0 with row_end_set == 0: to the end */
	int row_end_set;

	/* alibi */
	unsigned heads;                    /* 8 */
	enum pe_alibi_form form;           /* paper */
	enum pe_alibi_slopes alibi_slopes; /* press */
	double alibi_bias_max;             /* mpt: alibi_bias_max, 8 */

	/* t5 */
	unsigned buckets;      /* 32 */
	unsigned max_distance; /* 128 */
	int bidirectional;     /* 1 */

	/* mrope (Qwen2-VL M-RoPE): pairs per axis (temporal, height, width), the
	 * interleaved assignment of pairs to axes (Qwen3-VL), and the positions:
	 * mrope_text text tokens, then a patch grid (frames x height x width;
	 * 0: none, text only), then text again, as Qwen2-VL's get_rope_index
	 * numbers them (pe_mrope_position() in posenc/rope.h); or explicit
	 * (t, h, w) triples per token (pe_mrope_set_positions()). */
	unsigned mrope_pairs[3];  /* 16, 24, 24 */
	unsigned mrope_grid[3];   /* 0, 0, 0 */
	int mrope_interleaved;    /* 0 */
	unsigned mrope_text;      /* 0: text tokens before the grid */
	double mrope_tstep;       /* 1: temporal position step per frame */
	double *mrope_positions;  /* owned; NULL: from the keys; else 3 per token */
	size_t mrope_n_positions; /* tokens in mrope_positions */
};

/*
 * pe_scheme_parse() - parse and validate one scheme spec
 *
 * @spec: "NAME[:key=value[,key=value]...]"; for the file scheme also the
 *        short form "PATH#TENSOR" or a bare path ending in .npy,
 *        .safetensors or .csv.
 * @out:  on success a new scheme; free it with pe_scheme_destroy().
 * @err:  on failure, if not NULL, a message naming the offending key or
 *        value ("unknown key 'bse' for sinusoidal (known: base, layout,
 *        ...)"); the caller frees it with free(). NULL on success.
 *
 * @return PE_OK, PE_EINVAL for malformed text or unknown names and keys,
 * PE_ERANGE for out-of-range values, PE_EIO if a referenced list file
 * cannot be read, PE_ENOMEM.
 */
PE_API enum pe_status pe_scheme_parse(const char *spec, struct pe_scheme **out, char **err);

/*
 * pe_scheme_copy() - a deep copy of a scheme
 *
 * @return PE_OK and a new scheme in *out (free with pe_scheme_destroy()),
 * or PE_ENOMEM.
 */
PE_API enum pe_status pe_scheme_copy(const struct pe_scheme *s, struct pe_scheme **out);

/*
 * pe_scheme_set_label() - replace the label (a copy of @label is kept)
 *
 * @return PE_OK or PE_ENOMEM (the old label is then kept).
 */
PE_API enum pe_status pe_scheme_set_label(struct pe_scheme *s, const char *label);

/*
 * pe_scheme_destroy() - free a scheme and everything it owns; NULL is a no-op
 */
PE_API void pe_scheme_destroy(struct pe_scheme *s);

/*
 * pe_scheme_name() - the spec name of a scheme ("sinusoidal", "rope", ...)
 *
 * @return a static string.
 */
PE_API const char *pe_scheme_name(const struct pe_scheme *s);

/*
 * pe_scheme_has() - whether a scheme has every capability in @caps
 *
 * @caps: PE_CAP_* bits or'ed together.
 */
PE_API int pe_scheme_has(const struct pe_scheme *s, unsigned caps);

/*
 * pe_scheme_row_name() - what row r of the scheme's table stands for:
 * "position", or "distance" for xl (row k is R_k, k = i - j). Static; NULL
 * @s gives "position".
 */
PE_API const char *pe_scheme_row_name(const struct pe_scheme *s);

/*
 * pe_scheme_takes_key() - whether specs of this scheme accept key @key
 *
 * E.g. "base" for sinusoidal and rope; "label" for every scheme.
 */
PE_API int pe_scheme_takes_key(const struct pe_scheme *s, const char *key);

/*
 * pe_scheme_is_vector() - whether the scheme gives position vectors
 *
 * pe_scheme_has(s, PE_CAP_VECTORS): position vectors (sinusoidal, rope,
 * learned, binary, file) can be encoded and compared; attention biases
 * (alibi, t5) cannot.
 */
PE_API int pe_scheme_is_vector(const struct pe_scheme *s);

/*
 * pe_scheme_is_untrained() - whether the table is a random initialisation
 *
 * pe_scheme_has(s, PE_CAP_UNTRAINED): true for "learned"; figures and
 * legends should say so.
 */
PE_API int pe_scheme_is_untrained(const struct pe_scheme *s);

/*
 * pe_scheme_position_offset() - what the scheme adds to every position
 *
 * sinusoidal start=P adds P; positions plus offset must stay at most
 * PE_POSITION_MAX (posenc/encode.h). 0 for every other scheme.
 */
PE_API uint64_t pe_scheme_position_offset(const struct pe_scheme *s);

/*
 * pe_scheme_types() - the registry: every scheme type, in help order
 *
 * @count: set to the number of types.
 *
 * @return a static array of static types.
 */
PE_API const struct pe_scheme_type *const *pe_scheme_types(size_t *count);

/*
 * pe_scheme_type_find() - the type named @name, or NULL
 */
PE_API const struct pe_scheme_type *pe_scheme_type_find(const char *name);

/* pe_scheme_type_name(), _summary() - static strings; _caps() - PE_CAP_* bits */
PE_API const char *pe_scheme_type_name(const struct pe_scheme_type *t);
PE_API const char *pe_scheme_type_summary(const struct pe_scheme_type *t);
PE_API unsigned pe_scheme_type_caps(const struct pe_scheme_type *t);

/* One key of a scheme type, for help texts and completions. */
struct pe_scheme_key_info {
	const char *name;
	const char *def;     /* default as spec text; NULL: none or depends on other keys */
	const char *choices; /* "interleaved|blocks" for keys with a fixed set; else NULL */
	const char *metavar; /* what a value looks like: "X", "N", "TEXT", "A:B", ... */
	const char *help;    /* one line */
};

/*
 * pe_scheme_type_key() - key @i of a type (0 <= i < the key count)
 *
 * The common key "label" is not listed. Strings are static except
 * @out->choices, which points into a buffer of @cap bytes at @buf.
 *
 * @return 1 and *out, or 0 when @i is past the last key.
 */
PE_API int pe_scheme_type_key(const struct pe_scheme_type *t, size_t i,
                              struct pe_scheme_key_info *out, char *buf, size_t cap);

#ifdef __cplusplus
}
#endif

#endif
