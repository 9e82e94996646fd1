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
 *               scaling=none|linear|dynamic|yarn|llama3|longrope as in HF
 *               modeling_rope_utils.
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

enum pe_scheme_kind {
	PE_SCHEME_SINUSOIDAL,
	PE_SCHEME_ROPE,
	PE_SCHEME_LEARNED,
	PE_SCHEME_BINARY,
	PE_SCHEME_FILE,
	PE_SCHEME_ALIBI,
	PE_SCHEME_T5,
};

enum pe_layout {
	PE_LAYOUT_INTERLEAVED, /* sinusoidal and rope: pairs (2i, 2i+1) */
	PE_LAYOUT_BLOCKS,      /* sinusoidal: [sin block | cos block] */
	PE_LAYOUT_HALF,        /* rope: pairs (i, i + d/2), rotate_half */
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
};

enum pe_alibi_form {
	PE_ALIBI_PAPER,    /* -m (i - j) below the diagonal, -inf above */
	PE_ALIBI_OFFICIAL, /* m j in every row (the official code), -inf above */
};

/*
 * RoPE scaling parameters, named as in HF rope_scaling. Keys in specs:
 * factor, original (original_max_position_embeddings), length (the
 * sequence length at which dynamic/longrope are evaluated), low and high
 * (llama3 low_freq_factor/high_freq_factor), beta-fast, beta-slow,
 * mscale, mscale-all-dim, attention-factor, truncate (yarn),
 * long-factor and short-factor (longrope: numbers separated by '/', or
 * @FILE with numbers separated by white space or commas).
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
	double attention_factor; /* yarn/longrope: NaN = derive from factor */
	int truncate;            /* yarn: 1 */
	double *long_factor;     /* longrope, owned; NULL if not given */
	size_t n_long_factor;
	double *short_factor; /* longrope, owned; NULL if not given */
	size_t n_short_factor;
};

struct pe_scheme {
	enum pe_scheme_kind kind;
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
	unsigned heads;          /* 8 */
	enum pe_alibi_form form; /* paper */

	/* t5 */
	unsigned buckets;      /* 32 */
	unsigned max_distance; /* 128 */
	int bidirectional;     /* 1 */
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
enum pe_status pe_scheme_parse(const char *spec, struct pe_scheme **out, char **err);

/*
 * pe_scheme_copy() - a deep copy of a scheme
 *
 * @return PE_OK and a new scheme in *out (free with pe_scheme_destroy()),
 * or PE_ENOMEM.
 */
enum pe_status pe_scheme_copy(const struct pe_scheme *s, struct pe_scheme **out);

/*
 * pe_scheme_set_label() - replace the label (a copy of @label is kept)
 *
 * @return PE_OK or PE_ENOMEM (the old label is then kept).
 */
enum pe_status pe_scheme_set_label(struct pe_scheme *s, const char *label);

/*
 * pe_scheme_destroy() - free a scheme and everything it owns; NULL is a no-op
 */
void pe_scheme_destroy(struct pe_scheme *s);

/*
 * pe_scheme_name() - the spec name of a kind ("sinusoidal", "rope", ...)
 *
 * @return a static string.
 */
const char *pe_scheme_name(enum pe_scheme_kind kind);

/*
 * pe_scheme_is_vector() - whether the scheme gives position vectors
 *
 * Position vectors (sinusoidal, rope, learned, binary, file) can be encoded
 * and compared; alibi and t5 are attention biases and cannot.
 */
int pe_scheme_is_vector(const struct pe_scheme *s);

/*
 * pe_scheme_is_untrained() - whether the table is a random initialisation
 *
 * True for "learned"; figures and legends should say so.
 */
int pe_scheme_is_untrained(const struct pe_scheme *s);

#ifdef __cplusplus
}
#endif

#endif
