/*
 * T5's relative-position buckets (Raffel et al. 2020): an attention bias
 * indexed by bucket, not position vectors; lib/analysis/bias.c maps them.
 */
#include <stddef.h>

#include "scheme/scheme_type.h"

#define OFF(field) offsetof(struct pe_scheme, field)

static const struct pe_scheme_key keys[] = {
        {"buckets", PE_KEY_COUNT, OFF(buckets), 0, NULL, 2, 65536, 0, "32",
         "the number of buckets"},
        {"max-distance", PE_KEY_COUNT, OFF(max_distance), 0, NULL, 1, 1u << 30, 0, "128",
         "offsets from here on share the last bucket"},
        {"bidirectional", PE_KEY_BOOL, OFF(bidirectional), 0, NULL, 0, 0, 0, "1",
         "separate buckets for keys after the query (encoder)"},
};

static enum pe_status finish(struct pe_scheme *s, const unsigned char *given, char **err)
{
	(void)given;
	unsigned exact = s->bidirectional ? s->buckets / 4 : s->buckets / 2;
	/* An odd count when bidirectional: the reference halves it with integer
	 * division (33 -> 16 per direction, the last bucket unused) and so do we. */
	if (exact < 1) {
		*err = pe_scheme_errf("key 'buckets': %u leaves no exact buckets", s->buckets);
		return PE_ERANGE;
	}
	if (s->max_distance <= exact) {
		*err = pe_scheme_errf("key 'max-distance': %u must exceed the %u exact buckets",
		                      s->max_distance, exact);
		return PE_ERANGE;
	}
	return PE_OK;
}

const struct pe_scheme_type pe_scheme_t5 = {
        .name = "t5",
        .summary = "T5 relative-position buckets, an attention bias (Raffel et al. 2020)",
        .caps = PE_CAP_BIAS | PE_CAP_BUCKETS,
        .keys = keys,
        .n_keys = sizeof(keys) / sizeof(keys[0]),
        .finish = finish,
};
