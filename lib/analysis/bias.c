/* ALiBi and T5 attention biases, restating the official code (doc/conventions.md §4, §5). */
#include <limits.h>
#include <math.h>
#include <stdlib.h>

#include <posenc/bias.h>

static enum pe_status t5_check(unsigned buckets, unsigned max_distance, int bidirectional)
{
	unsigned n = bidirectional ? buckets / 2 : buckets;
	unsigned max_exact = n / 2;
	if (max_exact < 1 || max_distance <= max_exact)
		return PE_ERANGE;
	return PE_OK;
}

enum pe_status pe_bias_check(const struct pe_scheme *s, const char **why)
{
	const char *dummy;
	if (!why)
		why = &dummy;
	*why = NULL;
	if (pe_scheme_has(s, PE_CAP_BIAS_HEADS)) {
		if (s->heads == 0) {
			*why = "alibi needs at least one head";
			return PE_ERANGE;
		}
		return PE_OK;
	}
	if (pe_scheme_has(s, PE_CAP_BUCKETS)) {
		if (t5_check(s->buckets, s->max_distance, s->bidirectional) != PE_OK) {
			*why = "t5 needs at least 4 buckets (2 when causal) and max-distance "
			       "above the exact range (a quarter of the buckets, half when causal)";
			return PE_ERANGE;
		}
		return PE_OK;
	}
	*why = "only alibi and t5 are attention biases; this scheme gives position vectors";
	return PE_EUNSUPPORTED;
}

/* get_slopes_power_of_2 as the official code computes it: start * start**i. */
static void slopes_power_of_2(double n, size_t count, double *out)
{
	double start = pow(2.0, -pow(2.0, -(log2(n) - 3.0)));
	for (size_t i = 0; i < count; i++)
		out[i] = start * pow(start, (double)i);
}

enum pe_status pe_alibi_slopes(unsigned heads, double *slopes)
{
	if (heads == 0)
		return PE_ERANGE;
	unsigned c = 1;
	while (c <= heads / 2)
		c *= 2; /* 2^floor(log2 heads) */
	slopes_power_of_2((double)c, c, slopes);
	if (c == heads)
		return PE_OK;
	/* get_slopes(2c)[0::2][:heads - c]: every other slope of 2c heads */
	double start = pow(2.0, -pow(2.0, -(log2(2.0 * c) - 3.0)));
	for (unsigned k = 0; k < heads - c; k++)
		slopes[c + k] = start * pow(start, (double)(2 * k));
	return PE_OK;
}

enum pe_status pe_alibi_mpt_slopes(unsigned heads, double bias_max, double *slopes)
{
	if (heads == 0 || !(bias_max > 0.0))
		return PE_ERANGE;
	unsigned long n2 = 1;
	while (n2 < heads)
		n2 *= 2;
	double step = bias_max / (double)n2;
	if (n2 == heads) {
		for (unsigned k = 0; k < heads; k++)
			slopes[k] = 1.0 / pow(2.0, (double)(k + 1) * step);
		return PE_OK;
	}
	/* concat(slopes[1::2], slopes[::2])[:heads] of the n2 slopes */
	unsigned i = 0;
	for (unsigned long k = 1; k < n2 && i < heads; k += 2)
		slopes[i++] = 1.0 / pow(2.0, (double)(k + 1) * step);
	for (unsigned long k = 0; k < n2 && i < heads; k += 2)
		slopes[i++] = 1.0 / pow(2.0, (double)(k + 1) * step);
	return PE_OK;
}

enum pe_status pe_alibi_scheme_slopes(const struct pe_scheme *s, double *slopes)
{
	if (s->alibi_slopes == PE_ALIBI_SLOPES_MPT)
		return pe_alibi_mpt_slopes(s->heads, s->alibi_bias_max, slopes);
	return pe_alibi_slopes(s->heads, slopes);
}

/* Rows [r0, r0 + count) of the (heads * n) x n ALiBi tensor, from its slopes. */
static void alibi_rows(const struct pe_scheme *s, const double *slopes, size_t n, size_t r0,
                       size_t count, double *dst)
{
	for (size_t r = r0; r < r0 + count; r++) {
		size_t h = r / n, i = r % n;
		double *row = dst + (r - r0) * n;
		for (size_t j = 0; j < n; j++) {
			if (j > i)
				row[j] = -INFINITY;
			else if (s->form == PE_ALIBI_OFFICIAL)
				row[j] = slopes[h] * (double)j;
			else /* (j - i) <= 0, so the diagonal is +0, not -0 */
				row[j] = slopes[h] * ((double)j - (double)i);
		}
	}
}

enum pe_status pe_alibi_bias(const struct pe_scheme *s, size_t n, struct pe_matrix **out)
{
	*out = NULL;
	if (!pe_scheme_has(s, PE_CAP_BIAS_HEADS))
		return PE_EUNSUPPORTED;
	enum pe_status st = pe_bias_check(s, NULL);
	if (st != PE_OK)
		return st;
	size_t rows, count;
	if (pe_size_mul(s->heads, n, &rows) != PE_OK || pe_size_mul(rows, n, &count) != PE_OK ||
	    count > SIZE_MAX / sizeof(double))
		return PE_ETOOBIG;
	double *slopes = malloc(s->heads * sizeof(*slopes));
	struct pe_matrix *m = pe_matrix_create(rows, n);
	if (!slopes || !m) {
		free(slopes);
		pe_matrix_destroy(m);
		return PE_ENOMEM;
	}
	pe_alibi_scheme_slopes(s, slopes);
	alibi_rows(s, slopes, n, 0, rows, m->data);
	free(slopes);
	*out = m;
	return PE_OK;
}

enum pe_status pe_t5_bucket(int64_t rel, unsigned buckets, unsigned max_distance, int bidirectional,
                            unsigned *bucket)
{
	if (t5_check(buckets, max_distance, bidirectional) != PE_OK)
		return PE_ERANGE;
	unsigned n = buckets, base = 0;
	uint64_t a;
	if (bidirectional) {
		n /= 2;
		if (rel > 0)
			base = n;
		a = rel < 0 ? (uint64_t)0 - (uint64_t)rel : (uint64_t)rel;
	} else {
		a = rel < 0 ? (uint64_t)0 - (uint64_t)rel : 0;
	}
	unsigned max_exact = n / 2;
	if (a < max_exact) {
		*bucket = base + (unsigned)a;
		return PE_OK;
	}
	/* torch: float32 tensor ops with the Python scalars cast to float32 */
	float v = logf((float)a / (float)max_exact);
	v = v / (float)log((double)max_distance / (double)max_exact);
	v = v * (float)(n - max_exact);
	unsigned large = n - 1;
	if (v < (float)n) /* beyond that the cap applies anyway; avoid casting inf */
		large = max_exact + (unsigned)v; /* truncation toward zero, v >= 0 */
	*bucket = base + (large < n - 1 ? large : n - 1);
	return PE_OK;
}

/* The bucket of every offset j - i, k = j - i + n - 1 in 0 .. 2n - 2. */
static unsigned *t5_by_offset(const struct pe_scheme *s, size_t n)
{
	unsigned *by_offset = malloc((2 * n + 1) * sizeof(*by_offset));
	if (by_offset)
		for (size_t k = 0; k + 1 < 2 * n; k++)
			pe_t5_bucket((int64_t)k - (int64_t)n + 1, s->buckets, s->max_distance,
			             s->bidirectional, &by_offset[k]);
	return by_offset;
}

/* Rows [r0, r0 + count) of the map: it is Toeplitz, one bucket per offset. */
static void t5_rows(const unsigned *by_offset, size_t n, size_t r0, size_t count, double *dst)
{
	for (size_t i = r0; i < r0 + count; i++)
		for (size_t j = 0; j < n; j++)
			dst[(i - r0) * n + j] = (double)by_offset[j + n - 1 - i];
}

enum pe_status pe_t5_bucket_map(const struct pe_scheme *s, size_t n, struct pe_matrix **out)
{
	*out = NULL;
	if (!pe_scheme_has(s, PE_CAP_BUCKETS))
		return PE_EUNSUPPORTED;
	enum pe_status st = pe_bias_check(s, NULL);
	if (st != PE_OK)
		return st;
	size_t count;
	if (pe_size_mul(n, n, &count) != PE_OK || count > SIZE_MAX / sizeof(double) ||
	    n > (size_t)INT64_MAX)
		return PE_ETOOBIG;
	struct pe_matrix *m = pe_matrix_create(n, n);
	unsigned *by_offset = t5_by_offset(s, n);
	if (!m || !by_offset) {
		pe_matrix_destroy(m);
		free(by_offset);
		return PE_ENOMEM;
	}
	t5_rows(by_offset, n, 0, n, m->data);
	free(by_offset);
	*out = m;
	return PE_OK;
}

enum pe_status pe_bias_rows(const struct pe_scheme *s, size_t n, size_t r0, size_t count,
                            double *dst)
{
	int alibi = pe_scheme_has(s, PE_CAP_BIAS_HEADS);
	if (!alibi && !pe_scheme_has(s, PE_CAP_BUCKETS))
		return PE_EUNSUPPORTED;
	enum pe_status st = pe_bias_check(s, NULL);
	if (st != PE_OK)
		return st;
	size_t rows;
	if (pe_size_mul(alibi ? s->heads : 1, n, &rows) != PE_OK || n > (size_t)INT64_MAX ||
	    n > SIZE_MAX / 2 - 1)
		return PE_ETOOBIG;
	if (count == 0 || r0 >= rows || count > rows - r0)
		return PE_ERANGE;
	if (alibi) {
		double *slopes = malloc(s->heads * sizeof(*slopes));
		if (!slopes)
			return PE_ENOMEM;
		pe_alibi_scheme_slopes(s, slopes);
		alibi_rows(s, slopes, n, r0, count, dst);
		free(slopes);
		return PE_OK;
	}
	unsigned *by_offset = t5_by_offset(s, n);
	if (!by_offset)
		return PE_ENOMEM;
	t5_rows(by_offset, n, r0, count, dst);
	free(by_offset);
	return PE_OK;
}
