/*
 * posenc/freqs.h - per-pair frequency and wavelength tables
 *
 * One row per (sin, cos) pair i. Columns: "theta" (the unscaled angular
 * frequency), "wavelength" (2 pi / theta), then for every RoPE scaling
 * variant "<name>_theta" (the scaled frequency) and "<name>_ratio" (scaled
 * over unscaled), name being pe_rope_scaling_name() of the variant.
 *
 * Which variants:
 *   rope with scaling=X  that one scaling with the scheme's own keys;
 *   rope, scaling=none   the default set, so a plain spec still shows what
 *                        each scaling does: linear (factor 4), dynamic
 *                        (factor 4; left out at a rotary width of 2, where
 *                        its exponent d/(d-2) has no value), yarn (factor 4, beta 32/1, truncated),
 *                        all with original 4096, and llama3 (factor 8,
 *                        low 1, high 4, original 8192). longrope has no
 *                        default factors and appears only when asked for;
 *   sinusoidal, mrope    none: theta and wavelength only.
 * The evaluation length of dynamic and longrope is options->length when
 * it is > 0; otherwise the scheme's length= key, and for the default
 * dynamic variant 4 * 4096 = 16384 (at or below the original it would
 * equal the unscaled frequencies).
 *
 * The critical dimension (Liu et al., pe_rope_critical_dim()) is given for
 * rope, mrope and paper-frequency sinusoidal tables of even width, which have
 * the same frequencies, when a training length is known (the options' or
 * the scaling's original).
 *
 * An mrope table also says which position axis turns each pair (axes): its
 * frequencies are RoPE's base^(-2i/d) over the whole width, but pair i
 * multiplies them by the temporal, height or width id of the token.
 */
#ifndef POSENC_FREQS_H
#define POSENC_FREQS_H

#include <stddef.h>

#include <posenc/matrix.h>
#include <posenc/rope.h>
#include <posenc/scheme.h>
#include <posenc/status.h>

#ifdef __cplusplus
extern "C" {
#endif

struct pe_freqs_options {
	double length;       /* > 0: evaluation length of dynamic and longrope */
	double train_length; /* > 0: training length of the critical dimension;
	                        0: the scaling's original; without a scaling, none
	                        (no critical dimension: a table has no training length
	                        unless one is given) */
};

/* One scaling variant: what was evaluated and what it reported. */
struct pe_freq_variant {
	enum pe_rope_scaling type;
	double factor;
	double original;
	double length;                    /* the evaluation length used (dynamic, longrope) */
	struct pe_rope_scaling_info info; /* attention factor, base, yarn low/high */
};

struct pe_freq_table {
	struct pe_matrix *values; /* pairs x (2 + 2 * n_variants); owned */
	const char **columns;     /* values->cols names: owned array of static strings */
	size_t n_variants;
	struct pe_freq_variant *variants; /* owned */
	/* 1: the variants only illustrate the scalings a plain rope could take (linear,
	 * dynamic, yarn, llama3 at their defaults): none of them is the scheme's own */
	int illustrative;
	double base;          /* the scheme's base */
	size_t d_pairs;       /* width the pairs come from: d_rot for rope, d otherwise */
	int has_critical_dim; /* 0 when the formula does not apply */
	double train_length;
	size_t critical_dim;
	/* mrope: values->rows entries, the axis pair i follows (0 temporal, 1 height,
	 * 2 width; pe_mrope_pair_axis()); owned by the table and freed with it. NULL
	 * for every other scheme. */
	unsigned char *axes;
};

/*
 * pe_freq_table_create() - the frequency table of a scheme at width d
 *
 * @opt: may be NULL (all defaults).
 * @out: on success a new table; free it with pe_freq_table_destroy().
 *
 * @return PE_OK, PE_EUNSUPPORTED for schemes without frequencies (learned,
 * binary, file, alibi, t5), the errors of pe_scheme_frequencies() and
 * pe_rope_scale_frequencies(), PE_ENOMEM.
 */
PE_API enum pe_status pe_freq_table_create(const struct pe_scheme *s, size_t d,
                                           const struct pe_freqs_options *opt,
                                           struct pe_freq_table **out);

/*
 * What a scaling did to one pair, from its ratio (scaled over unscaled
 * frequency) and the variant's factor, to within 1e-12 relative:
 *   KEPT          ratio 1 (YaRN's and llama3's high frequencies, dynamic's pair 0);
 *   INTERPOLATED  ratio 1/factor (linear; YaRN's and llama3's low frequencies);
 *   RAMPED        in between (YaRN's and llama3's ramp, dynamic NTK's new base);
 *   RESCALED      LongRoPE: a factor of the pair's own from the searched lists;
 *   STATIC        frequency 0 (proportional RoPE's pairs that never turn).
 */
enum pe_pair_regime {
	PE_REGIME_KEPT,
	PE_REGIME_RAMPED,
	PE_REGIME_INTERPOLATED,
	PE_REGIME_RESCALED,
	PE_REGIME_STATIC,
};

/* pe_pair_regime() - the regime of a pair whose frequency @v scaled by @ratio */
PE_API enum pe_pair_regime pe_pair_regime(const struct pe_freq_variant *v, double ratio);

/* pe_pair_regime_name() - "kept", "ramped", "interpolated", "rescaled", "static"; static text */
PE_API const char *pe_pair_regime_name(enum pe_pair_regime r);

/*
 * pe_freq_table_destroy() - free a table and what it owns; NULL is a no-op
 */
PE_API void pe_freq_table_destroy(struct pe_freq_table *t);

#ifdef __cplusplus
}
#endif

#endif
