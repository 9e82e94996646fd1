/*
 * The learned scheme: an untrained N(0, std^2) table from a portable seeded
 * generator (encode_learned.c), what a learned table is before training.
 */
#include <stddef.h>

#include "scheme/encode_internal.h"
#include "scheme/scheme_type.h"

#define OFF(field) offsetof(struct pe_scheme, field)

static const struct pe_scheme_key keys[] = {
        {"seed", PE_KEY_U64, OFF(seed), 0, NULL, 0, 0, 0, "0", "the generator's seed (0..2^64-1)"},
        /* Squares of values (distances, dot products) stay finite and normal. */
        {"std", PE_KEY_DOUBLE, OFF(std), 0, NULL, 1e-100, 1e100, 0, "0.02",
         "the standard deviation (1e-100..1e100)"},
};

static enum pe_status rows(const struct pe_scheme *s, size_t d, uint64_t first, size_t n,
                           enum pe_view view, double *dst)
{
	(void)view;
	pe_learned_rows(s, d, first, n, dst);
	return PE_OK;
}

const struct pe_scheme_type pe_scheme_learned = {
        .name = "learned",
        .summary = "an untrained learned table: seeded N(0, std^2) numbers",
        .caps = PE_CAP_VECTORS | PE_CAP_ENCODE | PE_CAP_UNTRAINED,
        .keys = keys,
        .n_keys = sizeof(keys) / sizeof(keys[0]),
        .rows = rows,
};
