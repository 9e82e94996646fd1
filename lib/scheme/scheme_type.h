/*
 * What a scheme type is: the private definition behind the opaque
 * struct pe_scheme_type of posenc/scheme.h.
 *
 * Each scheme fills one const struct pe_scheme_type in its own file
 * (scheme_NAME.c) and lib/scheme/registry.c lists them all; registry.c says
 * how to add one. The parser (scheme_parse.c) reads the key tables, the
 * encoder (encode.c) and the analyses (lib/analysis/) call the functions
 * and ask the capabilities; nothing outside lib/scheme/ looks at which
 * scheme it has.
 */
#ifndef POSENC_SCHEME_TYPE_H
#define POSENC_SCHEME_TYPE_H

#include <stddef.h>
#include <stdint.h>

#include <posenc/encode.h>
#include <posenc/rope.h>
#include <posenc/scheme.h>

enum pe_key_type {
	PE_KEY_DOUBLE, /* finite double in [min, max], min exclusive if min_open */
	PE_KEY_WHOLE,  /* a double that must be a whole number, in [min, max] */
	PE_KEY_COUNT,  /* whole number in [min, max] stored as unsigned */
	PE_KEY_U64,    /* any uint64_t */
	PE_KEY_BOOL,   /* 0/1/true/false/yes/no stored as int */
	PE_KEY_ENUM,   /* one of choices, stored as int (the index) */
	PE_KEY_STRING, /* non-empty text, owned char * */
	PE_KEY_LIST,   /* numbers separated by '/', or @FILE: double * and size_t count */
	PE_KEY_ROWS,   /* A:B into row_first, row_end, row_end_set */
};

/* One key a scheme takes. */
struct pe_scheme_key {
	const char *name;
	enum pe_key_type type;
	size_t offset;       /* of the field in struct pe_scheme */
	size_t count_offset; /* PE_KEY_LIST: of its size_t count */
	/* PE_KEY_ENUM: names, index = stored value; "" marks an unused value. */
	const char *const *choices;
	double min, max;
	int min_open;
	/* Text parsed as if given, before the spec's keys; NULL: no default
	 * value (zero, or set by the type's init or a scaling). */
	const char *def;
	const char *help; /* one line for 'posenc help schemes' and the man page */
};

/*
 * The form of a scheme's offset kernel: how the dot product of the vectors
 * at positions i and j depends on i - j only (lib/analysis/pairwise_kernel.c
 * and decay.c use the closed forms).
 */
enum pe_kernel_form {
	PE_KERNEL_NONE,   /* no closed form: the general paths */
	PE_KERNEL_SINCOS, /* sin/cos pairs of frequencies w_k (sinusoidal) */
	PE_KERNEL_ROTARY, /* a rotated all-ones vector (rope; 2 a^2 cos(D theta)) */
};

struct pe_scheme_type {
	const char *name;    /* the spec name */
	const char *summary; /* one line for help and the man page */
	unsigned caps;       /* PE_CAP_* bits */
	const struct pe_scheme_key *keys;
	size_t n_keys; /* keys in canonical order (the order of canonical text) */

	/* Defaults no key text gives (e.g. NaN); may be NULL. */
	void (*init)(struct pe_scheme *s);
	/* Rules across keys once every key is parsed; given[i] says whether
	 * keys[i] was in the spec. On failure a message in *err (malloc'd) and
	 * an error status. May be NULL. */
	enum pe_status (*finish)(struct pe_scheme *s, const unsigned char *given, char **err);

	/* PE_CAP_ENCODE: whether width d and view can be encoded (why: a
	 * static reason); NULL accepts every d >= 1 in the default view. */
	enum pe_status (*check)(const struct pe_scheme *s, size_t d, enum pe_view view,
	                        const char **why);
	/* PE_CAP_ENCODE: n rows from position first (already validated). */
	enum pe_status (*rows)(const struct pe_scheme *s, size_t d, uint64_t first, size_t n,
	                       enum pe_view view, double *dst);
	/* PE_CAP_WINDOW: block means of a window (see pe_encode_window()). */
	enum pe_status (*window)(const struct pe_scheme *s, size_t d, const struct pe_window *w,
	                         size_t r0, size_t count, enum pe_view view, double *dst);
	/* PE_CAP_WINDOW: block means at chosen columns (see pe_encode_blocks_cols()). */
	enum pe_status (*blocks_cols)(const struct pe_scheme *s, size_t d, enum pe_view view,
	                              const struct pe_block *blocks, size_t count,
	                              const size_t *cols, size_t ncols, double *dst);
	/* PE_CAP_FREQS: the pair frequencies (see pe_scheme_frequencies()). */
	enum pe_status (*frequencies)(const struct pe_scheme *s, size_t d, double *theta,
	                              size_t *count);
	/* The offset kernel of a view (PE_CAP_TOEPLITZ); NULL: PE_KERNEL_NONE. */
	enum pe_kernel_form (*kernel)(const struct pe_scheme *s, enum pe_view view);
	/* Colour limits known without looking at the values; NULL: none. */
	void (*value_range)(const struct pe_scheme *s, enum pe_view view, double *lo, double *hi,
	                    int *is_signed);
	/* Added to every position before encoding (sinusoidal start=); NULL: 0. */
	uint64_t (*position_offset)(const struct pe_scheme *s);
	/* What a row is: "position" when NULL; xl's rows are distances i - j. */
	const char *row_name;
	/* PE_CAP_BUCKETS: the index of relative position rel = key - query;
	 * NULL: T5's buckets (lib/analysis/bias.c, pe_t5_bucket()). */
	enum pe_status (*bucket)(const struct pe_scheme *s, int64_t rel, unsigned *out);
};

/* The registry (registry.c). */
extern const struct pe_scheme_type *const pe_scheme_registry[];
extern const size_t pe_scheme_registry_count;

/* The bucket of rel by the scheme's own rule: PE_OK, or PE_EUNSUPPORTED when it has
 * none (T5's rule then applies). */
enum pe_status pe_scheme_bucket(const struct pe_scheme *s, int64_t rel, unsigned *out);

/* The kernel form of @s in @view (PE_KERNEL_NONE when it has none). */
enum pe_kernel_form pe_scheme_kernel(const struct pe_scheme *s, enum pe_view view);

/* A parse error message, malloc'd (NULL when out of memory). */
char *pe_scheme_errf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * The RoPE scalings, one row each (rope_scaling.c): the name in specs, the
 * keys it takes besides the rope's own (space separated), its defaults and
 * the function that scales the d_rot/2 inverse frequencies theta in place.
 */
struct pe_rope_scaling_type {
	const char *name;
	const char *theta_column, *ratio_column; /* posenc freqs' columns: "yarn_theta", ... */
	const char *keys;
	double factor;   /* the default of factor= */
	double original; /* the default of original= */
	enum pe_status (*scale)(const struct pe_rope_scaling_params *p, double base, size_t d_rot,
	                        double *theta, struct pe_rope_scaling_info *info);
};
extern const struct pe_rope_scaling_type pe_rope_scalings[];
extern const size_t pe_rope_scaling_count;

/* Whether scaling @type takes key @key (a rope key in its keys list). */
int pe_rope_scaling_takes(enum pe_rope_scaling type, const char *key);

#endif
