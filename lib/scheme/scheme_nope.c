/*
 * NoPE, no positional encoding (Kazemnejad et al. 2023, "The Impact of
 * Positional Encoding on Length Generalization in Transformers"): the
 * model adds nothing to its token embeddings, which posenc shows as the
 * all-zero table, so every analysis says what "no position information"
 * means: every distance (l2, l1, linf) is 0, cosine distance and Pearson
 * correlation are NaN (a zero vector has no direction and no spread, as
 * numpy's corrcoef gives nan), every dot product is 0 so the decay curve
 * is flat at 0. It has no frequencies, views or closed forms.
 */
#include <stddef.h>
#include <string.h>

#include "scheme/scheme_type.h"

static enum pe_status rows(const struct pe_scheme *s, size_t d, uint64_t first, size_t n,
                           enum pe_view view, double *dst)
{
	(void)s;
	(void)first;
	(void)view;
	for (size_t i = 0; i < n * d; i++)
		dst[i] = 0.0;
	return PE_OK;
}

static void value_range(const struct pe_scheme *s, enum pe_view view, double *lo, double *hi,
                        int *is_signed)
{
	(void)s;
	(void)view;
	/* Every value is 0: drawn as the neutral middle of a signed scale. */
	*lo = -1.0;
	*hi = 1.0;
	*is_signed = 1;
}

const struct pe_scheme_type pe_scheme_nope = {
        .name = "nope",
        .summary = "no positional encoding: the all-zero table (Kazemnejad et al. 2023)",
        .caps = PE_CAP_VECTORS | PE_CAP_ENCODE,
        .keys = NULL,
        .n_keys = 0,
        .rows = rows,
        .value_range = value_range,
};
