/*
 * Shaw et al. 2018, "Self-Attention with Relative Position Representations":
 * query i and key j add learned vectors a^K_ij = w^K_{clip(j-i, k)} (and a^V
 * to the values), clip(x, k) = max(-k, min(k, x)): 2k + 1 trained vectors,
 * shared by every pair further apart than k. Without the trained vectors,
 * what can be shown is which of them each pair uses: the index
 * clip(j - i, k) + k, as tensor2tensor's _generate_relative_positions_matrix
 * (layers/common_attention.py) forms it. posenc draws that map as an
 * attention-bias-like matrix (posenc bias), like T5's buckets; the vectors
 * themselves are not made up.
 */
#include <stddef.h>
#include <stdint.h>

#include "scheme/scheme_type.h"

#define OFF(field) offsetof(struct pe_scheme, field)

static const struct pe_scheme_key keys[] = {
        {"k", PE_KEY_COUNT, OFF(max_distance), 0, NULL, 1, 1u << 20, 0, "2",
         "the clipping distance: offsets beyond +-k share a vector (2k+1 vectors)"},
};

static enum pe_status finish(struct pe_scheme *s, const unsigned char *given, char **err)
{
	(void)given;
	(void)err;
	/* The number of distinct indices, as the bias figure's colour key counts them. */
	s->buckets = 2 * s->max_distance + 1;
	return PE_OK;
}

static enum pe_status bucket(const struct pe_scheme *s, int64_t rel, unsigned *out)
{
	int64_t k = (int64_t)s->max_distance;
	int64_t c = rel < -k ? -k : rel > k ? k : rel;
	*out = (unsigned)(c + k);
	return PE_OK;
}

const struct pe_scheme_type pe_scheme_shaw = {
        .name = "shaw",
        .summary = "Shaw et al. 2018 relative positions: the index clip(j - i, k) + k of the "
                   "learned vector each pair uses",
        .caps = PE_CAP_BIAS | PE_CAP_BUCKETS,
        .keys = keys,
        .n_keys = sizeof(keys) / sizeof(keys[0]),
        .finish = finish,
        .bucket = bucket,
};
