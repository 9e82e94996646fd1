#include <stdint.h>

#include "scheme/encode_internal.h"

void pe_binary_rows(size_t d, uint64_t first, size_t n, double *dst)
{
	for (size_t r = 0; r < n; r++) {
		uint64_t p = first + r;
		for (size_t j = 0; j < d; j++)
			dst[r * d + j] = j < 64 ? (double)((p >> j) & 1u) : 0.0;
	}
}
