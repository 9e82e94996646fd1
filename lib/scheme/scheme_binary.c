/* The binary scheme: column j is bit j of the position (encode_binary.c). */
#include <math.h>
#include <stddef.h>

#include "scheme/encode_internal.h"
#include "scheme/scheme_type.h"

static enum pe_status rows(const struct pe_scheme *s, size_t d, uint64_t first, size_t n,
                           enum pe_view view, double *dst)
{
	(void)s;
	(void)view;
	pe_binary_rows(d, first, n, dst);
	return PE_OK;
}

static void value_range(const struct pe_scheme *s, enum pe_view view, double *lo, double *hi,
                        int *is_signed)
{
	(void)s;
	(void)view;
	*lo = 0.0;
	*hi = 1.0;
	*is_signed = 0;
}

const struct pe_scheme_type pe_scheme_binary = {
        .name = "binary",
        .summary = "column j is bit j of the position",
        .caps = PE_CAP_VECTORS | PE_CAP_ENCODE,
        .keys = NULL,
        .n_keys = 0,
        .rows = rows,
        .value_range = value_range,
};
