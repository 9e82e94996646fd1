/*
 * Additive sinusoidal tables, in the four conventions real code uses:
 * freq=paper divides the position by base^(2k/d) as numpy/HF do
 * (DistilBERT, XLM, Marian, RoFormer); freq=t2t multiplies it by
 * exp(-k ln(base) / max(d/2-1, 1)) as tensor2tensor and fairseq do.
 * Odd d: paper has ceil(d/2) sine and floor(d/2) cosine columns; t2t
 * appends one zero column.
 */
#include <math.h>
#include <stdlib.h>

#include "scheme/encode_internal.h"

/* The number of pairs, and the factor of pair k (below). */
static size_t sinusoidal_pairs(const struct pe_scheme *s, size_t d)
{
	return s->freq == PE_FREQ_PAPER ? (d + 1) / 2 : d / 2;
}

static double sinusoidal_factor(const struct pe_scheme *s, size_t d, size_t k)
{
	if (s->freq == PE_FREQ_PAPER)
		return pow(s->base, (double)(2 * k) / (double)d);
	size_t h = d / 2;
	double inc = log(s->base) / (double)(h > 1 ? h - 1 : 1);
	return exp((double)k * -inc);
}

/* Paper: denominators base^(2k/d); t2t: frequencies. One entry per pair. */
static size_t sinusoidal_factors(const struct pe_scheme *s, size_t d, double *f)
{
	size_t count = sinusoidal_pairs(s, d);
	for (size_t k = 0; k < count; k++)
		f[k] = sinusoidal_factor(s, d, k);
	return count;
}

size_t pe_sinusoidal_frequencies(const struct pe_scheme *s, size_t d, double *w)
{
	size_t count = sinusoidal_factors(s, d, w);
	if (s->freq == PE_FREQ_PAPER)
		for (size_t k = 0; k < count; k++)
			w[k] = 1.0 / w[k];
	return count;
}

/*
 * Row at position p (a block centre, possibly fractional) with each pair
 * damped by its block factor: the mean of sin(x w) over N consecutive x
 * centred on c is sin(c w) * sin(N w / 2) / (N sin(w / 2)), and likewise
 * for cos, so a block mean costs what one row costs. N = 1: the row itself.
 */
static void sinusoidal_row(const struct pe_scheme *s, size_t d, const double *f, size_t pairs,
                           double p, double block, double *row)
{
	int divide = s->freq == PE_FREQ_PAPER;
	/* Column of the sine and cosine of pair k, per layout. */
	size_t sin_cols = s->freq == PE_FREQ_PAPER ? (d + 1) / 2 : d / 2;
	for (size_t j = 0; j < d; j++)
		row[j] = 0.0;
	for (size_t k = 0; k < pairs; k++) {
		double sv, cv;
		pe_exact_sincos(p, f[k], divide, &sv, &cv, NULL);
		if (block > 1.0) {
			double damp = pe_block_damping(block, divide ? 1.0 / f[k] : f[k]);
			sv *= damp;
			cv *= damp;
		}
		size_t cs, cc;
		if (s->layout == PE_LAYOUT_INTERLEAVED) {
			cs = 2 * k;
			cc = 2 * k + 1;
		} else {
			cs = k;
			cc = sin_cols + k;
		}
		row[cs] = sv;
		if (cc < d && (s->layout == PE_LAYOUT_INTERLEAVED || cc < sin_cols + d / 2))
			row[cc] = cv;
	}
}

enum pe_status pe_sinusoidal_rows(const struct pe_scheme *s, size_t d, uint64_t first, size_t n,
                                  double *dst)
{
	double *f = malloc(((d + 1) / 2 + 1) * sizeof(*f));
	if (!f)
		return PE_ENOMEM;
	size_t pairs = sinusoidal_factors(s, d, f);
	for (size_t r = 0; r < n; r++)
		sinusoidal_row(s, d, f, pairs, (double)(first + r) + s->start, 1.0, dst + r * d);
	free(f);
	return PE_OK;
}

/*
 * Column j of the row sinusoidal_row() forms: the pair k and the function
 * its layout puts there; 0 for a column no pair fills (the zero column of
 * t2t with odd d).
 */
static int sinusoidal_col(const struct pe_scheme *s, size_t d, size_t j, size_t *k, int *is_sin)
{
	size_t sin_cols = s->freq == PE_FREQ_PAPER ? (d + 1) / 2 : d / 2;
	if (s->layout == PE_LAYOUT_INTERLEAVED) {
		*k = j / 2;
		*is_sin = j % 2 == 0;
	} else if (j < sin_cols) {
		*k = j;
		*is_sin = 1;
	} else {
		*k = j - sin_cols;
		*is_sin = 0;
		if (*k >= d / 2)
			return 0;
	}
	return *k < sinusoidal_pairs(s, d);
}

/* Only the factors of the pairs asked for are formed: O(ncols), not O(d). */
enum pe_status pe_sinusoidal_blocks_cols(const struct pe_scheme *s, size_t d,
                                         const struct pe_block *blocks, size_t count,
                                         const size_t *cols, size_t ncols, double *dst)
{
	double *f = malloc((ncols ? ncols : 1) * sizeof(*f));
	unsigned char *kind = malloc(ncols ? ncols : 1); /* 0: none, 1: sin, 2: cos */
	if (!f || !kind) {
		free(f);
		free(kind);
		return PE_ENOMEM;
	}
	int divide = s->freq == PE_FREQ_PAPER;
	for (size_t c = 0; c < ncols; c++) {
		size_t k;
		int is_sin;
		kind[c] = sinusoidal_col(s, d, cols[c], &k, &is_sin) ? (is_sin ? 1 : 2) : 0;
		f[c] = kind[c] ? sinusoidal_factor(s, d, k) : 0.0;
	}
	for (size_t r = 0; r < count; r++) {
		double p, len;
		pe_block_centre(&blocks[r], &p, &len);
		p += s->start;
		for (size_t c = 0; c < ncols; c++) {
			double sv = 0.0, cv = 0.0;
			if (kind[c]) {
				pe_exact_sincos(p, f[c], divide, &sv, &cv, NULL);
				if (len > 1.0) {
					double damp =
					        pe_block_damping(len, divide ? 1.0 / f[c] : f[c]);
					sv *= damp;
					cv *= damp;
				}
			}
			dst[r * ncols + c] = kind[c] == 1 ? sv : cv;
		}
	}
	free(f);
	free(kind);
	return PE_OK;
}

enum pe_status pe_sinusoidal_window(const struct pe_scheme *s, size_t d, const struct pe_window *w,
                                    size_t r0, size_t count, double *dst)
{
	double *f = malloc(((d + 1) / 2 + 1) * sizeof(*f));
	if (!f)
		return PE_ENOMEM;
	size_t pairs = sinusoidal_factors(s, d, f);
	for (size_t r = 0; r < count; r++) {
		double centre, len;
		pe_window_block(w, r0 + r, &centre, &len);
		sinusoidal_row(s, d, f, pairs, centre + s->start, len, dst + r * d);
	}
	free(f);
	return PE_OK;
}
