/*
 * posenc/check.h - compare another implementation's dump with the exact table
 *
 * A dump is a matrix read from .npy, .safetensors or .csv (posenc/read.h):
 * row r holds position start + r, except for an inverse-frequency vector.
 * Kinds and their packings (h = d_rot / 2 pairs; "layout" is the spec's:
 * pair i in columns (2i, 2i+1) interleaved or (i, i + d_rot/2) half):
 *
 *   inv-freq   h values theta_i (1-D, one row or one column)
 *   angle      full: m theta_i in both columns of pair i (d or d_rot wide);
 *              pairs: one column per pair (h wide, HF's freqs)
 *   cos, sin   full: as posenc encode --view cos|sin (d wide, 1 resp. 0 in the
 *              columns that do not rotate) or only the rotated part (d_rot wide:
 *              HF's cat(freqs, freqs).cos(), repeat_interleave for interleaved);
 *              pairs: one column per pair (h wide: Meta's freqs_cis.real)
 *   cos-sin    full: [cos | sin], each full (2d or 2 d_rot wide: HF's cos and
 *              sin caches concatenated); pairs: [cos_i | sin_i] (d_rot wide:
 *              vLLM's cos_sin_cache); alternate: cos_0, sin_0, cos_1, ... (d_rot
 *              wide: torch.view_as_real(freqs_cis) flattened)
 *   rotated    a vector x rotated to each position (d wide): out[a] = x_a cos -
 *              x_b sin, out[b] = x_b cos + x_a sin for each pair (a, b), other
 *              columns x_j; x is all ones unless given (what posenc encode
 *              --view rotated writes, and apply_rotary_pos_emb(ones, ...))
 *   table      the encoding itself (any position-vector scheme: sinusoidal,
 *              learned, ...; an mrope table is its rotated all-ones vector,
 *              checked as rotated)
 *
 * An mrope (M-RoPE) dump's row r is token start + r: each pair turns with
 * the id of its axis (pe_mrope_position()), every kind as for rope.
 *
 * cos, sin and everything made from them carry the attention factor of the
 * scaling, as HF's caches do.
 */
#ifndef POSENC_CHECK_H
#define POSENC_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include <posenc/matrix.h>
#include <posenc/precision.h>
#include <posenc/scheme.h>
#include <posenc/status.h>

#ifdef __cplusplus
extern "C" {
#endif

enum pe_check_kind {
	PE_CHECK_AUTO,
	PE_CHECK_INV_FREQ,
	PE_CHECK_ANGLE,
	PE_CHECK_COS,
	PE_CHECK_SIN,
	PE_CHECK_COS_SIN,
	PE_CHECK_ROTATED,
	PE_CHECK_TABLE,
};

enum pe_check_packing {
	PE_PACK_AUTO,
	PE_PACK_FULL,
	PE_PACK_PAIRS,
	PE_PACK_ALTERNATE,
};

/* What a dump is taken to be. */
struct pe_check_form {
	enum pe_check_kind kind;
	enum pe_check_packing packing;
	size_t d;    /* the model's width (posenc's -d) */
	size_t cols; /* the dump's columns (inv-freq: h) */
};

/*
 * Inference engines whose conventions check knows (registry: check_engine.c).
 * Each has semantics (pe_engine_apply()) and a float32 numeric path:
 * HF and vLLM build inv_freq once and multiply by the position (torch);
 * llama.cpp multiplies theta_scale = powf(base, -2/n_dims) pair by pair
 * (ggml). PE_ENGINE_ANY: Hugging Face semantics, either numeric path.
 */
enum pe_engine {
	PE_ENGINE_ANY,
	PE_ENGINE_HF,
	PE_ENGINE_VLLM,
	PE_ENGINE_LLAMACPP,
};

/*
 * pe_engine_parse() - "hf" (or "transformers"), "vllm", "llama.cpp" (or
 * "ggml", "llamacpp")
 *
 * @return PE_OK or PE_EINVAL.
 */
PE_API enum pe_status pe_engine_parse(const char *text, enum pe_engine *out);

/* pe_engine_name() - the name pe_engine_parse() reads ("llama.cpp"); "any" for ANY */
PE_API const char *pe_engine_name(enum pe_engine e);

/*
 * pe_engine_apply() - a scaling as an engine evaluates it
 *
 * @p:          changed in place (long-factor lists are kept, not copied).
 * @seq_length: the sequence length of the table (largest position + 1).
 * @from_gguf:  1 when @p was read from a GGUF file (llama.cpp's own parameters).
 * @note:       if not NULL, a static sentence saying what changed, or NULL.
 *
 * One rule for the length at which length-dependent scalings (dynamic NTK,
 * LongRoPE) are evaluated when p->length is 0: Hugging Face (and ANY) at
 * the sequence length, as transformers' dynamic update and LongRoPE's
 * seq_len > original test do (modeling_rope_utils, dynamic_rope_update);
 * vLLM at its max_model_len, taken as factor x original (its dynamic NTK
 * cache is built once at max_position x factor; its LongRoPE uses the long
 * factors when max_model_len > original); llama.cpp at its context size
 * n_ctx, taken as factor x original (LongRoPE factors chosen by n_ctx), with
 * no dynamic NTK at all (unscaled) and the YaRN correction range always
 * floored/ceiled (ggml_rope_yarn_corr_dims). llama.cpp computes YaRN's
 * attention factor itself (ggml's 1 + 0.1 ln(1/freq_scale) times the GGUF's
 * attn_factor): an explicit attention_factor of a config is ignored, one read
 * from a GGUF (@from_gguf) is what llama.cpp uses and is kept.
 *
 * @return PE_OK, PE_EINVAL for an engine outside the enum.
 */
PE_API enum pe_status pe_engine_apply(enum pe_engine e, struct pe_rope_scaling_params *p,
                                      double seq_length, int from_gguf, const char **note);

struct pe_check_options {
	enum pe_check_kind kind;       /* PE_CHECK_AUTO: recognise */
	enum pe_check_packing packing; /* PE_PACK_AUTO: from the width and values */
	size_t d;                      /* 0: from the dump's width */
	uint64_t start;                /* position of row 0 */
	const double *vector;          /* rotated: x (d values); NULL: all ones */
	size_t vector_len;
	struct pe_precision prec; /* the reference; {EXACT, EXACT} by default */
	double tol;               /* agreement: |err| <= tol * max(1, |reference|) */
	int diagnose;             /* look for known mistakes when they disagree */
	enum pe_engine engine;    /* the numeric paths a reduced precision may take */
	enum pe_float dump_store; /* the dump's storage precision; EXACT: not known. A
	                             diagnosis weighs each mistake in float32 at that storage
	                             too, and prefers a reduced precision that stores as the
	                             dump does among equally close ones */
	double slack;             /* an absolute error up to this is the dump's own rounding (a
	                             table printed with 6 decimals is off by up to 5e-7 at any
	                             value): only |err| - slack counts, over max(1, |reference|) */
	int slack_digits;         /* > 0: the dump's values were written with this many
	                             significant digits, each off by up to half a unit of its
	                             own last one (0.5e-6 for 0.54 in "%g", 0.5e-10 for
	                             1.2e-5), which counts as slack too */
};

/* Where an error is: the dump's row and column. */
struct pe_check_where {
	double value; /* the error */
	size_t row, col;
};

struct pe_check_stats {
	struct pe_check_where abs;   /* largest |dump - reference| */
	struct pe_check_where rel;   /* largest |dump - reference| / |reference| where it means
	                                something: |reference| > 0.1 for cos, sin and rotated
	                                values (which pass through 0), != 0 otherwise */
	struct pe_check_where mixed; /* largest |dump - reference| / max(1, |reference|) */
};

/* The mistakes pe_check_run() tries. */
enum pe_check_mistake {
	PE_MISTAKE_NONE,
	PE_MISTAKE_LAYOUT,     /* the other pairing (interleaved vs half) */
	PE_MISTAKE_NO_SCALING, /* the scaling left out */
	PE_MISTAKE_FACTOR,     /* the scaling with another factor (fitted) */
	PE_MISTAKE_BASE,       /* another base (fitted) */
	PE_MISTAKE_ATTENTION,  /* attention factor missing, twice, or another amplitude */
	PE_MISTAKE_OFFSET,     /* positions off by k */
	PE_MISTAKE_ROTARY,     /* frequencies for another rotary width */
	PE_MISTAKE_PRECISION,  /* computed in a reduced precision */
	PE_MISTAKE_SWAPPED,  /* cos and sin swapped in a cos-sin cache ([sin | cos], GPT-J's order)
	                      */
	PE_MISTAKE_TRUNCATE, /* YaRN's correction range rounded to whole pairs, or not */
	PE_MISTAKE_REGIME,   /* LongRoPE's other factor list (long for short, or back) */
	PE_MISTAKE_LENGTH,   /* dynamic NTK evaluated at another length */
	PE_MISTAKE_DOUBLE,   /* rotated twice: every angle doubled */
	PE_MISTAKE_BF16_POSITIONS,   /* position_ids in bfloat16 before the product */
	PE_MISTAKE_BF16_INV_FREQ,    /* inv_freq stored in bfloat16 */
	PE_MISTAKE_CHUNK,            /* positions restarting at 0 every chunk */
	PE_MISTAKE_ZERO_FREQ,        /* pairs with frequency 0 (uninitialised buffer) */
	PE_MISTAKE_FAST_SINCOS,      /* sin/cos right only below some angle (value: it) */
	PE_MISTAKE_MROPE_AXES,       /* M-RoPE pairs on other axes: sections for interleaved (or
	                                back), other sections */
	PE_MISTAKE_MROPE_SEQUENTIAL, /* M-RoPE: 1-D positions (t = h = w = token) for the ids */
	PE_MISTAKE_YARN_BETAS,       /* YaRN's beta_fast and beta_slow at their defaults 32, 1 */
	PE_MISTAKE_MROPE_TSTEP,      /* M-RoPE video frames another temporal step apart (value) */
	PE_MISTAKE_EXTRA_SCALING,    /* a llama3 scaling the spec lacks (value: its factor) */
	PE_MISTAKE_LAYER_GROUP,      /* the model's other layer group agrees (its text names it) */
};

struct pe_check_diagnosis {
	enum pe_check_mistake mistake;
	double value; /* the fitted base or factor, the amplitude, the offset, the width */
	struct pe_precision prec;    /* the precision that explains it (with another mistake too) */
	int with_prec;               /* 1 when prec is part of the explanation */
	struct pe_check_stats stats; /* the dump against this explanation */
	enum pe_check_mistake second; /* a second mistake on top of the first, or NONE */
	int partial;    /* 1: the best single mistake, though it does not halve the error */
	char text[640]; /* "the interleaved layout, pairs (2i, 2i+1) instead of ..." */
};

struct pe_check_result {
	struct pe_check_form form;
	int form_recognised; /* 1 when the form was recognised, not given */
	struct pe_check_stats stats;
	int agree;        /* stats.mixed.value <= tol */
	const char *path; /* float32: ggml's path when it was the closer one (static); else NULL */
	size_t rows;      /* rows of the dump (inv-freq: 1) */
	double *row_abs;  /* rows: largest abs error of each row */
	double *row_rel;  /* rows: largest relative error of each row */
	size_t *row_col;  /* rows: the column of row_abs */
	int diagnosed;    /* 1 when a known mistake explains the dump better */
	struct pe_check_diagnosis diag;
	double *row_diag; /* rows: largest abs error against the diagnosis; NULL if none */
};

/*
 * pe_check_run() - compare a dump with the reference table of a scheme
 *
 * @dump: the values (inv-freq may be one row or one column).
 * @out:  on success a new result; free with pe_check_result_destroy().
 * @err:  on failure, if not NULL, a message (free() it): why no form fits.
 *
 * @return PE_OK, PE_EINVAL when the dump's shape fits no kind or not the
 * kind asked for, PE_EUNSUPPORTED for a kind the scheme does not have (only
 * rope has cos tables; alibi and t5 nothing), PE_ENOMEM.
 */
PE_API enum pe_status pe_check_run(const struct pe_scheme *s, const struct pe_matrix *dump,
                                   const struct pe_check_options *opt, struct pe_check_result **out,
                                   char **err);

/*
 * pe_check_has_model() - whether check computes @s itself: rope and mrope
 * (M-RoPE, each pair at its axis's id) take every kind, each reduced
 * precision and engine path, and the diagnosis; other schemes are compared
 * as their table only
 */
PE_API int pe_check_has_model(const struct pe_scheme *s);

/* pe_check_result_destroy() - free a result; NULL is a no-op */
PE_API void pe_check_result_destroy(struct pe_check_result *r);

/*
 * pe_check_kind_parse() - "inv-freq", "angle", "cos", "sin", "cos-sin",
 * "rotated", "table", optionally ":full", ":pairs" or ":alternate"
 *
 * @return PE_OK or PE_EINVAL.
 */
PE_API enum pe_status pe_check_kind_parse(const char *text, enum pe_check_kind *kind,
                                          enum pe_check_packing *packing);

/* pe_check_kind_name() - the name pe_check_kind_parse() reads ("cos-sin") */
PE_API const char *pe_check_kind_name(enum pe_check_kind kind);

/*
 * pe_check_form_describe() - one line saying what a form is
 * ("cos table, 128 columns, pairs (i, i+64) as the spec's half layout")
 */
PE_API const char *pe_check_form_describe(const struct pe_check_form *f, const struct pe_scheme *s,
                                          char *buf, size_t cap);

/*
 * pe_check_column_name() - what a column of a form holds ("pair 5, sin")
 */
PE_API const char *pe_check_column_name(const struct pe_check_form *f, const struct pe_scheme *s,
                                        size_t col, char *buf, size_t cap);

#ifdef __cplusplus
}
#endif

#endif
