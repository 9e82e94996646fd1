/* Validation and dispatch of encodings to the per-scheme fillers. */
#include <math.h>
#include <stdlib.h>

#include <posenc/encode.h>

#include "scheme/encode_internal.h"
#include "scheme/scheme_type.h"

enum pe_status pe_encode_check(const struct pe_scheme *s, size_t d, enum pe_view view,
                               const char **why)
{
	const char *dummy;
	if (!why)
		why = &dummy;
	*why = NULL;
	if (!pe_scheme_is_vector(s)) {
		*why = "an attention bias has no position vectors (use 'posenc bias')";
		return PE_EUNSUPPORTED;
	}
	if (d == 0) {
		*why = "the width d must be at least 1";
		return PE_ERANGE;
	}
	if (view != PE_VIEW_DEFAULT && !pe_scheme_has(s, PE_CAP_VIEWS)) {
		*why = "views (angle, cos, sin, rotated) exist only for rope and mrope";
		return PE_EUNSUPPORTED;
	}
	return s->type->check ? s->type->check(s, d, view, why) : PE_OK;
}

enum pe_status pe_encode_rows(const struct pe_scheme *s, size_t d, uint64_t first, size_t n,
                              enum pe_view view, double *dst)
{
	enum pe_status st = pe_encode_check(s, d, view, NULL);
	if (st != PE_OK)
		return st;
	if (n == 0)
		return PE_OK;
	/* Whole positions must stay exact doubles: at most 2^53. */
	uint64_t limit = (uint64_t)PE_POSITION_MAX - pe_scheme_position_offset(s);
	if (first > limit || n - 1 > limit - first)
		return PE_ERANGE;
	/* A table (the file scheme) is loaded with the file readers. */
	if (!pe_scheme_has(s, PE_CAP_ENCODE) || !s->type->rows)
		return PE_EUNSUPPORTED;
	return s->type->rows(s, d, first, n, view, dst);
}

enum pe_status pe_encode(const struct pe_scheme *s, size_t d, uint64_t first, size_t n,
                         enum pe_view view, struct pe_matrix **out)
{
	*out = NULL;
	size_t count;
	if (pe_size_mul(n, d, &count) != PE_OK || count > SIZE_MAX / sizeof(double))
		return PE_ETOOBIG;
	enum pe_status st = pe_encode_check(s, d, view, NULL);
	if (st != PE_OK)
		return st;
	struct pe_matrix *m = pe_matrix_create(n, d);
	if (!m)
		return PE_ENOMEM;
	st = pe_encode_rows(s, d, first, n, view, m->data);
	if (st != PE_OK) {
		pe_matrix_destroy(m);
		return st;
	}
	*out = m;
	return PE_OK;
}

enum pe_status pe_scheme_frequencies(const struct pe_scheme *s, size_t d, double *theta,
                                     size_t *count)
{
	*count = 0;
	enum pe_status st = pe_encode_check(s, d, PE_VIEW_DEFAULT, NULL);
	if (st != PE_OK)
		return st;
	if (!pe_scheme_has(s, PE_CAP_FREQS) || !s->type->frequencies)
		return PE_EUNSUPPORTED;
	return s->type->frequencies(s, d, theta, count);
}

enum pe_status pe_vectors_rows(const struct pe_vectors *v, size_t r0, size_t count, double *dst)
{
	if (r0 > v->n || count > v->n - r0)
		return PE_ERANGE;
	if (!v->table)
		return pe_encode_rows(v->scheme, v->d, v->first + r0, count, v->view, dst);
	const struct pe_matrix *t = v->table;
	if (t->cols != v->d || v->first > t->rows || v->first + r0 + count > t->rows)
		return PE_ERANGE;
	for (size_t r = 0; r < count; r++) {
		const double *src = t->data + (v->first + r0 + r) * t->cols;
		for (size_t j = 0; j < v->d; j++)
			dst[r * v->d + j] = src[j];
	}
	return PE_OK;
}

void pe_window_block(const struct pe_window *w, size_t r, double *centre, double *len)
{
	size_t q = w->n / w->rows, e = w->n % w->rows;
	size_t lo = r * q + (r < e ? r : e);
	size_t count = q + (r < e ? 1 : 0);
	*len = (double)count;
	*centre = (double)w->first + (double)lo + 0.5 * (double)(count - 1);
}

void pe_block_centre(const struct pe_block *b, double *centre, double *len)
{
	*len = (double)b->n;
	*centre = (double)b->first + 0.5 * (double)(b->n - 1);
}

double pe_block_damping(double n, double w)
{
	double den = n * sin(0.5 * w);
	/* w -> 0: every sample is the same; the limit is 1. */
	if (den == 0.0)
		return 1.0;
	return sin(0.5 * n * w) / den;
}

static enum pe_status window_check(const struct pe_scheme *s, size_t d, const struct pe_window *w,
                                   size_t r0, size_t count, enum pe_view view)
{
	enum pe_status st = pe_encode_check(s, d, view, NULL);
	if (st != PE_OK)
		return st;
	if (w->rows == 0 || w->rows > w->n || r0 > w->rows || count > w->rows - r0)
		return PE_EINVAL;
	uint64_t limit = (uint64_t)PE_POSITION_MAX - pe_scheme_position_offset(s);
	if (w->first > limit || (uint64_t)w->n - 1 > limit - w->first)
		return PE_ERANGE;
	if (!pe_scheme_has(s, PE_CAP_WINDOW) || !s->type->window)
		return PE_EUNSUPPORTED;
	return PE_OK;
}

enum pe_status pe_encode_window(const struct pe_scheme *s, size_t d, const struct pe_window *w,
                                size_t r0, size_t count, enum pe_view view, double *dst)
{
	enum pe_status st = window_check(s, d, w, r0, count, view);
	if (st != PE_OK)
		return st;
	return s->type->window(s, d, w, r0, count, view, dst);
}

enum pe_status pe_encode_blocks_cols(const struct pe_scheme *s, size_t d, enum pe_view view,
                                     const struct pe_block *blocks, size_t count,
                                     const size_t *cols, size_t ncols, double *dst)
{
	enum pe_status st = pe_encode_check(s, d, view, NULL);
	if (st != PE_OK)
		return st;
	uint64_t limit = (uint64_t)PE_POSITION_MAX - pe_scheme_position_offset(s);
	for (size_t r = 0; r < count; r++) {
		if (blocks[r].n == 0)
			return PE_EINVAL;
		if (blocks[r].first > limit || (uint64_t)blocks[r].n - 1 > limit - blocks[r].first)
			return PE_ERANGE;
	}
	for (size_t c = 0; c < ncols; c++)
		if (cols[c] >= d)
			return PE_EINVAL;
	if (!pe_scheme_has(s, PE_CAP_WINDOW) || !s->type->blocks_cols)
		return PE_EUNSUPPORTED;
	return s->type->blocks_cols(s, d, view, blocks, count, cols, ncols, dst);
}
