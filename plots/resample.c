/*
 * resample.c - area-averaging / nearest resampling, streamed over input rows
 *
 * Each axis becomes a sparse map from input index to the output cells it
 * feeds and their weights (CSR layout). Area weights are overlap lengths in
 * units of 1/(in * out) of the axis, whole numbers, so hand-worked means
 * come out exactly; nearest upsampling gives weight 1 to the one source.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include <posenc/resample.h>

struct axis {
	size_t *start; /* input i feeds cells idx[start[i] .. start[i+1]-1] */
	size_t *idx;
	double *w;
};

struct pe_resampler {
	size_t rows, cols, out_rows, out_cols;
	size_t next_row;
	struct axis x, y;
	double *hsum, *hw;  /* the current input row reduced to out_cols cells */
	double *sum, *wsum; /* out_rows * out_cols running weighted sums */
};

static void axis_free(struct axis *a)
{
	free(a->start);
	free(a->idx);
	free(a->w);
}

static enum pe_status axis_build(struct axis *a, size_t in, size_t out)
{
	/* Each input feeds one more cell than its span covers at most: the
	 * list has fewer than in + out entries. */
	size_t cap = in + out;
	a->start = malloc((in + 1) * sizeof(size_t));
	a->idx = malloc(cap * sizeof(size_t));
	a->w = malloc(cap * sizeof(double));
	if (!a->start || !a->idx || !a->w)
		return PE_ENOMEM;
	size_t k = 0;
	if (in >= out) {
		/* Input i covers [i*out, (i+1)*out), cell o covers [o*in, (o+1)*in). */
		for (size_t i = 0; i < in; i++) {
			a->start[i] = k;
			uint64_t lo = (uint64_t)i * out, hi = lo + out;
			for (size_t o = (size_t)(lo / in); o < out && (uint64_t)o * in < hi; o++) {
				uint64_t olo = (uint64_t)o * in, ohi = olo + in;
				uint64_t l = lo > olo ? lo : olo, h = hi < ohi ? hi : ohi;
				if (h > l) {
					a->idx[k] = o;
					a->w[k++] = (double)(h - l);
				}
			}
		}
	} else {
		/* Cell o shows input floor((o + 0.5) * in / out); sources rise with o. */
		size_t o = 0;
		for (size_t i = 0; i < in; i++) {
			a->start[i] = k;
			while (o < out && ((uint64_t)2 * o + 1) * in / ((uint64_t)2 * out) == i) {
				a->idx[k] = o++;
				a->w[k++] = 1.0;
			}
		}
	}
	a->start[in] = k;
	return PE_OK;
}

enum pe_status pe_resampler_create(size_t rows, size_t cols, size_t out_rows, size_t out_cols,
                                   struct pe_resampler **out)
{
	if (rows == 0 || cols == 0 || out_rows == 0 || out_cols == 0)
		return PE_EINVAL;
	/* Weights are products in uint64 and must stay exact as doubles. */
	const double exact = 9007199254740992.0; /* 2^53 */
	if ((double)rows * (double)out_rows * 2.0 >= exact ||
	    (double)cols * (double)out_cols * 2.0 >= exact)
		return PE_ETOOBIG;
	size_t ncell;
	if (pe_size_mul(out_rows, out_cols, &ncell) != PE_OK || ncell > SIZE_MAX / sizeof(double) ||
	    rows > SIZE_MAX / 2 - out_rows || cols > SIZE_MAX / 2 - out_cols)
		return PE_ETOOBIG;
	struct pe_resampler *r = calloc(1, sizeof(*r));
	if (!r)
		return PE_ENOMEM;
	*r = (struct pe_resampler){
	        .rows = rows, .cols = cols, .out_rows = out_rows, .out_cols = out_cols};
	enum pe_status st = axis_build(&r->x, cols, out_cols);
	if (st == PE_OK)
		st = axis_build(&r->y, rows, out_rows);
	r->hsum = malloc(out_cols * sizeof(double));
	r->hw = malloc(out_cols * sizeof(double));
	r->sum = calloc(ncell, sizeof(double));
	r->wsum = calloc(ncell, sizeof(double));
	if (st == PE_OK && (!r->hsum || !r->hw || !r->sum || !r->wsum))
		st = PE_ENOMEM;
	if (st != PE_OK) {
		pe_resampler_destroy(r);
		return st;
	}
	*out = r;
	return PE_OK;
}

enum pe_status pe_resampler_push(struct pe_resampler *r, const double *row)
{
	if (r->next_row >= r->rows)
		return PE_ERANGE;
	size_t W = r->out_cols;
	for (size_t o = 0; o < W; o++)
		r->hsum[o] = r->hw[o] = 0.0;
	const struct axis *x = &r->x;
	for (size_t j = 0; j < r->cols; j++) {
		double v = row[j];
		if (isnan(v))
			continue;
		for (size_t k = x->start[j]; k < x->start[j + 1]; k++) {
			r->hsum[x->idx[k]] += x->w[k] * v;
			r->hw[x->idx[k]] += x->w[k];
		}
	}
	const struct axis *y = &r->y;
	size_t i = r->next_row++;
	for (size_t k = y->start[i]; k < y->start[i + 1]; k++) {
		double wy = y->w[k];
		double *s = r->sum + y->idx[k] * W, *ws = r->wsum + y->idx[k] * W;
		for (size_t o = 0; o < W; o++) {
			s[o] += wy * r->hsum[o];
			ws[o] += wy * r->hw[o];
		}
	}
	return PE_OK;
}

enum pe_status pe_resampler_finish(struct pe_resampler *r, struct pe_matrix **out)
{
	if (r->next_row != r->rows)
		return PE_ERANGE;
	struct pe_matrix *m = pe_matrix_create(r->out_rows, r->out_cols);
	if (!m)
		return PE_ENOMEM;
	size_t n = r->out_rows * r->out_cols;
	for (size_t c = 0; c < n; c++)
		m->data[c] = r->wsum[c] > 0.0 ? r->sum[c] / r->wsum[c] : NAN;
	*out = m;
	return PE_OK;
}

void pe_resampler_destroy(struct pe_resampler *r)
{
	if (!r)
		return;
	axis_free(&r->x);
	axis_free(&r->y);
	free(r->hsum);
	free(r->hw);
	free(r->sum);
	free(r->wsum);
	free(r);
}

enum pe_status pe_resample_rows(size_t rows, size_t cols, pe_row_fn fn, void *ctx, size_t out_rows,
                                size_t out_cols, struct pe_matrix **out)
{
	struct pe_resampler *r;
	enum pe_status st = pe_resampler_create(rows, cols, out_rows, out_cols, &r);
	if (st != PE_OK)
		return st;
	double *buf = malloc(cols * sizeof(double));
	if (!buf)
		st = PE_ENOMEM;
	for (size_t i = 0; st == PE_OK && i < rows; i++) {
		st = fn(ctx, i, buf);
		if (st == PE_OK)
			st = pe_resampler_push(r, buf);
	}
	if (st == PE_OK)
		st = pe_resampler_finish(r, out);
	free(buf);
	pe_resampler_destroy(r);
	return st;
}

enum pe_status pe_resample(const struct pe_matrix *in, size_t out_rows, size_t out_cols,
                           struct pe_matrix **out)
{
	struct pe_resampler *r;
	enum pe_status st = pe_resampler_create(in->rows, in->cols, out_rows, out_cols, &r);
	if (st != PE_OK)
		return st;
	/* Rows are pushed straight from the matrix: no copy. */
	for (size_t i = 0; i < in->rows; i++)
		pe_resampler_push(r, pe_matrix_row(in, i));
	st = pe_resampler_finish(r, out);
	pe_resampler_destroy(r);
	return st;
}
