/*
 * Transformer-XL's relative encoding (Dai et al. 2019, §3.3): the score of
 * query i and key j is
 *   E_i Wq' Wk,E E_j  +  E_i Wq' Wk,R R_{i-j}  +  u' Wk,E E_j  +  v' Wk,R R_{i-j},
 * where R is a sinusoid table indexed by the distance i - j, not a position.
 * u, v and the projections are trained; R is not, so R is what posenc shows:
 * row k of this scheme is R_k, k = i - j, the vector every pair k apart
 * sees. Its geometry (distances, correlations, R_k . R_m = sum cos((k-m) w))
 * is that of a sinusoidal table; the terms that need u, v or W are not
 * computed (no attention bias is made up from untrained weights).
 *
 * As kimiyoung/transformer-xl pytorch/mem_transformer.py PositionalEmbedding
 * (and HF TransfoXL): inv_freq = 1 / base^(2k/d) for k < d/2, angle = k *
 * inv_freq, [sin | cos] halves (torch.cat along the feature axis); the code
 * feeds distances klen-1 .. 0 (pos_seq, descending), clamped at clamp_len.
 */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>

#include "scheme/encode_internal.h"
#include "scheme/scheme_type.h"

#define OFF(field) offsetof(struct pe_scheme, field)

static const struct pe_scheme_key keys[] = {
        {"base", PE_KEY_DOUBLE, OFF(base), 0, NULL, 1.0, 1e300, 1, "10000",
         "inv_freq = 1 / base^(2k/d) (> 1)"},
        {"clamp", PE_KEY_COUNT, OFF(max_distance), 0, NULL, 0, 1u << 30, 0, "0",
         "clamp_len: distances beyond it use R_clamp (0: none)"},
};

static enum pe_status check(const struct pe_scheme *s, size_t d, enum pe_view view,
                            const char **why)
{
	(void)s;
	(void)view;
	if (d % 2) {
		*why = "xl needs an even width d: R is [sin | cos] halves of d/2 frequencies";
		return PE_EINVAL;
	}
	return PE_OK;
}

static size_t inv_freq(const struct pe_scheme *s, size_t d, double *w)
{
	for (size_t k = 0; k < d / 2; k++)
		w[k] = 1.0 / pow(s->base, (double)(2 * k) / (double)d);
	return d / 2;
}

static enum pe_status rows(const struct pe_scheme *s, size_t d, uint64_t first, size_t n,
                           enum pe_view view, double *dst)
{
	(void)view;
	size_t h = d / 2;
	double *w = malloc((h ? h : 1) * sizeof(*w));
	if (!w)
		return PE_ENOMEM;
	inv_freq(s, d, w);
	for (size_t r = 0; r < n; r++) {
		uint64_t k = first + r;
		if (s->max_distance && k > s->max_distance)
			k = s->max_distance;
		double *row = dst + r * d;
		for (size_t i = 0; i < h; i++)
			pe_exact_sincos((double)k, w[i], 0, &row[i], &row[h + i], NULL);
	}
	free(w);
	return PE_OK;
}

static enum pe_status frequencies(const struct pe_scheme *s, size_t d, double *theta, size_t *count)
{
	*count = inv_freq(s, d, theta);
	return PE_OK;
}

/* R_k . R_m = sum cos((k - m) w): Toeplitz, until clamp_len makes the far rows equal. */
static enum pe_kernel_form kernel(const struct pe_scheme *s, enum pe_view view)
{
	return view == PE_VIEW_DEFAULT && !s->max_distance ? PE_KERNEL_SINCOS : PE_KERNEL_NONE;
}

static void value_range(const struct pe_scheme *s, enum pe_view view, double *lo, double *hi,
                        int *is_signed)
{
	(void)s;
	(void)view;
	*lo = -1.0;
	*hi = 1.0;
	*is_signed = 1;
}

const struct pe_scheme_type pe_scheme_xl = {
        .name = "xl",
        .summary = "Transformer-XL's relative sinusoid R_{i-j}, row k = distance i - j "
                   "(Dai et al. 2019)",
        .caps = PE_CAP_VECTORS | PE_CAP_ENCODE | PE_CAP_FREQS | PE_CAP_TOEPLITZ,
        .keys = keys,
        .n_keys = sizeof(keys) / sizeof(keys[0]),
        .check = check,
        .rows = rows,
        .frequencies = frequencies,
        .kernel = kernel,
        .value_range = value_range,
        .row_name = "distance",
};
