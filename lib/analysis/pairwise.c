/*
 * pairwise.c - full pairwise matrices, profiles and scatter pairs
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/pairwise_internal.h"

static const char *const metric_names[] = {"l2", "cosine", "l1", "linf", "corr"};
#define METRIC_COUNT (sizeof(metric_names) / sizeof(metric_names[0]))
_Static_assert(METRIC_COUNT == PE_METRIC_CORR + 1, "one name per enum pe_metric value");

const char *pe_metric_name(enum pe_metric m)
{
	if ((unsigned)m >= METRIC_COUNT)
		return "unknown";
	return metric_names[m];
}

enum pe_status pe_metric_parse(const char *name, enum pe_metric *out)
{
	for (size_t i = 0; name && i < METRIC_COUNT; i++) {
		if (strcmp(name, metric_names[i]) == 0) {
			*out = (enum pe_metric)i;
			return PE_OK;
		}
	}
	return PE_EINVAL;
}

enum pe_status pe_pairwise_check(const struct pe_vectors *v, enum pe_metric m)
{
	if ((unsigned)m >= METRIC_COUNT)
		return PE_EINVAL;
	if (v->n == 0 || v->d == 0)
		return PE_ERANGE;
	if (v->table) {
		if (v->d != v->table->cols || v->first > v->table->rows ||
		    v->n > v->table->rows - v->first)
			return PE_ERANGE;
		return PE_OK;
	}
	if (!v->scheme)
		return PE_EINVAL;
	if (!pe_scheme_is_vector(v->scheme))
		return PE_EUNSUPPORTED;
	if ((double)v->first + (double)(v->n - 1) > PE_POSITION_MAX)
		return PE_ERANGE;
	return pe_encode_check(v->scheme, v->d, v->view, NULL);
}

enum pe_status pe_pairwise_fits(size_t rows, size_t cols, size_t budget, double *bytes)
{
	if (bytes)
		*bytes = (double)rows * (double)cols * (double)sizeof(double);
	size_t count;
	if (pe_size_mul(rows, cols, &count) != PE_OK ||
	    pe_size_mul(count, sizeof(double), &count) != PE_OK)
		return PE_ETOOBIG;
	if (budget != 0 && count > budget)
		return PE_ETOOBIG;
	return PE_OK;
}

/* ---- row sources ---- */

#define SMALL_SET_BYTES (4u << 20)

size_t pe_block_rows(size_t d)
{
	size_t bs = 8192 / (d ? d : 1);
	return bs < 4 ? 4 : bs > 64 ? 64 : bs;
}

struct rows_job {
	const struct pe_vectors *v;
	double *out;
};

#define ROWS_GRAIN 256

static enum pe_status rows_chunk(void *ctx, size_t begin, size_t end)
{
	const struct rows_job *j = ctx;
	size_t r0 = begin * ROWS_GRAIN,
	       r1 = end * ROWS_GRAIN < j->v->n ? end * ROWS_GRAIN : j->v->n;
	return pe_vectors_rows(j->v, r0, r1 - r0, j->out + r0 * j->v->d);
}

enum pe_status pe_rowsrc_init(struct pe_rowsrc *src, const struct pe_vectors *v, size_t limit)
{
	src->v = v;
	src->all = NULL;
	src->owned = NULL;
	if (v->table) {
		src->all = v->table->data + v->first * v->d;
		return PE_OK;
	}
	size_t bytes;
	if (pe_size_mul(v->n, v->d, &bytes) != PE_OK || bytes > SIZE_MAX / sizeof(double))
		return PE_OK;
	bytes *= sizeof(double);
	if (bytes > SMALL_SET_BYTES && bytes > limit)
		return PE_OK;
	src->owned = pe_buffer_alloc(bytes);
	if (!src->owned)
		return PE_OK; /* fall back to blocks on demand */
	/* On every core: a learned table of 8192 x 768 is 6 M normal variates. */
	struct rows_job job = {v, src->owned};
	enum pe_status st =
	        pe_parallel_for((v->n + ROWS_GRAIN - 1) / ROWS_GRAIN, 1, rows_chunk, &job);
	if (st != PE_OK) {
		pe_buffer_free(src->owned);
		src->owned = NULL;
		return st;
	}
	src->all = src->owned;
	return PE_OK;
}

enum pe_status pe_rowsrc_get(const struct pe_rowsrc *src, size_t r0, size_t count, double *buf,
                             const double **rows)
{
	if (src->all) {
		*rows = src->all + r0 * src->v->d;
		return PE_OK;
	}
	*rows = buf;
	return pe_vectors_rows(src->v, r0, count, buf);
}

void pe_rowsrc_release(struct pe_rowsrc *src)
{
	pe_buffer_free(src->owned);
	src->owned = NULL;
	src->all = NULL;
}

static int structurable(enum pe_metric m)
{
	return m == PE_METRIC_L2 || m == PE_METRIC_COSINE || m == PE_METRIC_CORR;
}

static uint64_t *range_positions(uint64_t first, size_t n, size_t stride)
{
	uint64_t *pos = malloc((n ? n : 1) * sizeof(uint64_t));
	if (pos)
		for (size_t i = 0; i < n; i++)
			pos[i] = first + (uint64_t)i * stride;
	return pos;
}

/* ---- full matrix, structure-aware ---- */

struct tz_matrix_job {
	const struct pe_toeplitz *tz;
	size_t d, n;
	enum pe_metric m;
	const double *S;
	const struct pe_posterm *t;
	double *out;
};

static enum pe_status tz_matrix_rows(void *ctx, size_t begin, size_t end)
{
	const struct tz_matrix_job *j = ctx;
	for (size_t a = begin; a < end; a++) {
		double *o = j->out + a * j->n;
		for (size_t b = 0; b < j->n; b++) {
			size_t D = a > b ? a - b : b - a;
			o[b] = pe_toeplitz_metric(j->tz, j->d, j->m, j->S[D], &j->t[a], &j->t[b]);
		}
	}
	return PE_OK;
}

static enum pe_status matrix_structured(const struct pe_vectors *v, const struct pe_toeplitz *tz,
                                        enum pe_metric m, double *out)
{
	size_t n = v->n;
	enum pe_status st = PE_ENOMEM;
	uint64_t *pos = range_positions(v->first, n, 1);
	double *S = malloc(n * sizeof(double));
	struct pe_posterm *t = malloc(n * sizeof(*t));
	if (!pos || !S || !t)
		goto done;
	st = pe_posterms(v, tz, pos, n, m == PE_METRIC_CORR, t);
	if (st == PE_OK)
		st = pe_toeplitz_range(tz, 0, n, S);
	if (st == PE_OK) {
		struct tz_matrix_job job = {tz, v->d, n, m, S, t, out};
		st = pe_parallel_for(n, 16, tz_matrix_rows, &job);
	}
	for (size_t a = 0; a < n && st == PE_OK && m == PE_METRIC_CORR; a++) {
		if (!pe_posterm_ill(&t[a]))
			continue;
		st = pe_corr_direct(v, pos[a], pos, n, t, out + a * n, 1);
		for (size_t b = 0; b < n; b++)
			out[b * n + a] = out[a * n + b];
	}
done:
	free(pos);
	free(S);
	free(t);
	return st;
}

/* ---- full matrix, general: upper-triangle blocks, mirrored ---- */

struct gen_matrix_job {
	const struct pe_rowsrc *src;
	size_t n, d, bs;
	enum pe_metric m;
	const struct pe_posterm *t;
	double *out;
};

/* A vector against itself: 0 apart, correlation 1 (NaN if constant). */
static void exact_diagonal(enum pe_metric m, const struct pe_posterm *t, size_t nb, double *tmp)
{
	for (size_t a = 0; a < nb; a++) {
		double *x = &tmp[a * nb + a];
		if (m == PE_METRIC_CORR)
			*x = t[a].cnorm > 0.0 ? 1.0 : NAN;
		else if (m != PE_METRIC_COSINE || t[a].norm > 0.0)
			*x = 0.0;
	}
}

static enum pe_status gen_matrix_blocks(void *ctx, size_t begin, size_t end)
{
	const struct gen_matrix_job *j = ctx;
	size_t bs = j->bs, d = j->d, n = j->n;
	double *bufa = malloc((2 * bs * d + bs * bs) * sizeof(double));
	if (!bufa)
		return PE_ENOMEM;
	double *bufb = bufa + bs * d, *tmp = bufb + bs * d;
	enum pe_status st = PE_OK;
	for (size_t I = begin; I < end && st == PE_OK; I++) {
		size_t i0 = I * bs, ni = n - i0 < bs ? n - i0 : bs;
		const double *A;
		st = pe_rowsrc_get(j->src, i0, ni, bufa, &A);
		for (size_t j0 = i0; j0 < n && st == PE_OK; j0 += bs) {
			size_t nj = n - j0 < bs ? n - j0 : bs;
			const double *B = A;
			if (j0 != i0)
				st = pe_rowsrc_get(j->src, j0, nj, bufb, &B);
			if (st != PE_OK)
				break;
			pe_rows_metric(j->m, d, A, ni, j->t + i0, B, nj, j->t + j0, tmp, nj);
			if (j0 == i0)
				exact_diagonal(j->m, j->t + i0, ni, tmp);
			for (size_t a = 0; a < ni; a++) {
				memcpy(j->out + (i0 + a) * n + j0, tmp + a * nj,
				       nj * sizeof(double));
				if (j0 != i0)
					for (size_t b = 0; b < nj; b++)
						j->out[(j0 + b) * n + i0 + a] = tmp[a * nj + b];
			}
		}
	}
	free(bufa);
	return st;
}

static enum pe_status all_terms(const struct pe_vectors *v, struct pe_posterm **out)
{
	*out = NULL;
	uint64_t *pos = range_positions(v->first, v->n, 1);
	struct pe_posterm *t = malloc(v->n * sizeof(*t));
	if (!pos || !t) {
		free(pos);
		free(t);
		return PE_ENOMEM;
	}
	enum pe_status st = pe_posterms(v, NULL, pos, v->n, 1, t);
	free(pos);
	if (st != PE_OK) {
		free(t);
		return st;
	}
	*out = t;
	return PE_OK;
}

/* Copies the upper triangle onto the lower one, a tile at a time. */
struct mirror_job {
	size_t n;
	double *out;
};

#define MIRROR_TILE 64

static enum pe_status mirror_tiles(void *ctx, size_t begin, size_t end)
{
	const struct mirror_job *j = ctx;
	size_t n = j->n;
	for (size_t I = begin; I < end; I++) {
		size_t i0 = I * MIRROR_TILE, i1 = i0 + MIRROR_TILE < n ? i0 + MIRROR_TILE : n;
		for (size_t j0 = 0; j0 < i1; j0 += MIRROR_TILE) {
			size_t j1 = j0 + MIRROR_TILE < n ? j0 + MIRROR_TILE : n;
			for (size_t a = i0; a < i1; a++)
				for (size_t b = j0; b < j1 && b < a; b++)
					j->out[a * n + b] = j->out[b * n + a];
		}
	}
	return PE_OK;
}

/* Upper-triangle panels from BLAS products (n^2 d flops, as dsyrk), then
 * mirrored: the matrix is symmetric bit for bit, as the direct path's. */
static enum pe_status matrix_gram(const double *rows, size_t n, size_t d, enum pe_metric m,
                                  const struct pe_posterm *t, double *out)
{
	struct pe_gram g;
	enum pe_status st = pe_gram_init(&g, m, rows, n, d, t);
	for (size_t r0 = 0; r0 < n && st == PE_OK; r0 += 256) {
		size_t nr = n - r0 < 256 ? n - r0 : 256;
		st = pe_gram_block(&g, r0, nr, r0, n - r0, out + r0 * n + r0, n);
	}
	pe_gram_release(&g);
	if (st == PE_OK) {
		struct mirror_job job = {n, out};
		st = pe_parallel_for((n + MIRROR_TILE - 1) / MIRROR_TILE, 1, mirror_tiles, &job);
	}
	return st;
}

#define ROWS_ONCE_BYTES ((size_t)256 << 20)

static enum pe_status matrix_general(const struct pe_vectors *v, enum pe_metric m, double *out)
{
	size_t n = v->n;
	struct pe_posterm *t = NULL;
	struct pe_rowsrc src;
	/*
	 * Rows computed once when they take up to a quarter of the output, or
	 * up to ROWS_ONCE_BYTES: otherwise every block of rows would be
	 * computed again for every other block (a learned table of 1024 x 768
	 * took 5x as long as one of 4096 x 768).
	 */
	size_t once = n * n * 2; /* n * n * 8 fits: checked */
	enum pe_status st =
	        pe_rowsrc_init(&src, v, once > ROWS_ONCE_BYTES ? once : ROWS_ONCE_BYTES);
	if (st != PE_OK)
		return st;
	if (src.all && pe_gram_usable(m, v->d)) {
		/* The terms from the rows at hand: a learned table is not drawn twice. */
		st = m == PE_METRIC_L2 ? PE_OK : pe_gram_terms(src.all, n, v->d, &t);
		if (st == PE_OK)
			st = matrix_gram(src.all, n, v->d, m, t, out);
		if (st != PE_EUNSUPPORTED) {
			pe_rowsrc_release(&src);
			free(t);
			return st;
		}
		free(t);
		t = NULL;
		st = PE_OK;
	}
	if (m == PE_METRIC_COSINE || m == PE_METRIC_CORR)
		st = all_terms(v, &t);
	if (st == PE_OK) {
		size_t bs = pe_block_rows(v->d);
		struct gen_matrix_job job = {&src, n, v->d, bs, m, t, out};
		st = pe_parallel_for((n + bs - 1) / bs, 1, gen_matrix_blocks, &job);
	}
	pe_rowsrc_release(&src);
	free(t);
	return st;
}

enum pe_status pe_pairwise_matrix(const struct pe_vectors *v, enum pe_metric m, size_t budget,
                                  struct pe_matrix **out)
{
	*out = NULL;
	enum pe_status st = pe_pairwise_check(v, m);
	if (st != PE_OK)
		return st;
	st = pe_pairwise_fits(v->n, v->n, budget, NULL);
	if (st != PE_OK)
		return st;
	struct pe_matrix *r = pe_matrix_create(v->n, v->n);
	if (!r)
		return PE_ENOMEM;
	struct pe_toeplitz tz;
	int found = 0;
	st = structurable(m) ? pe_toeplitz_init(v, &tz, &found) : PE_OK;
	if (st == PE_OK) {
		if (found)
			st = matrix_structured(v, &tz, m, r->data);
		else
			st = matrix_general(v, m, r->data);
	}
	if (found)
		pe_toeplitz_release(&tz);
	if (st != PE_OK) {
		pe_matrix_destroy(r);
		return st;
	}
	*out = r;
	return PE_OK;
}

/* ---- profile ---- */

static enum pe_status profile_structured(const struct pe_vectors *v, const struct pe_toeplitz *tz,
                                         enum pe_metric m, const uint64_t *at, size_t k,
                                         struct pe_matrix *r)
{
	size_t n = v->n;
	enum pe_status st = PE_ENOMEM;
	uint64_t *pos = range_positions(v->first, n, 1);
	struct pe_posterm *t = malloc(n * sizeof(*t));
	struct pe_posterm *ta = malloc(k * sizeof(*ta));
	double *S = malloc(n * sizeof(double));
	if (!pos || !t || !ta || !S)
		goto done;
	int rows = m == PE_METRIC_CORR;
	st = pe_posterms(v, tz, pos, n, rows, t);
	if (st == PE_OK)
		st = pe_posterms(v, tz, at, k, rows, ta);
	uint64_t last = v->first + (n - 1);
	for (size_t j = 0; j < k && st == PE_OK; j++) {
		/* |at - p| over the range is one run of offsets, or two folded
		 * onto each other when at lies inside it. */
		uint64_t lo = 0;
		size_t count = n;
		if (at[j] < v->first)
			lo = v->first - at[j];
		else if (at[j] > last)
			lo = at[j] - last;
		else {
			uint64_t a = at[j] - v->first, b = last - at[j];
			count = (size_t)(a > b ? a : b) + 1;
		}
		st = pe_toeplitz_range(tz, lo, count, S);
		for (size_t i = 0; i < n && st == PE_OK; i++) {
			uint64_t p = pos[i];
			uint64_t D = p > at[j] ? p - at[j] : at[j] - p;
			r->data[i * k + j] =
			        pe_toeplitz_metric(tz, v->d, m, S[D - lo], &t[i], &ta[j]);
		}
	}
	for (size_t j = 0; j < k && st == PE_OK && rows; j++)
		if (pe_posterm_ill(&ta[j]))
			st = pe_corr_direct(v, at[j], pos, n, t, r->data + j, k);
	for (size_t i = 0; i < n && st == PE_OK && rows; i++)
		if (pe_posterm_ill(&t[i]))
			st = pe_corr_direct(v, pos[i], at, k, ta, r->data + i * k, 1);
done:
	free(pos);
	free(t);
	free(ta);
	free(S);
	return st;
}

struct gen_profile_job {
	const struct pe_rowsrc *src;
	size_t n, d, k, bs;
	enum pe_metric m;
	const struct pe_posterm *t, *ta;
	const double *at_rows;
	double *out;
};

static enum pe_status gen_profile_blocks(void *ctx, size_t begin, size_t end)
{
	const struct gen_profile_job *j = ctx;
	double *buf = malloc(j->bs * j->d * sizeof(double));
	if (!buf)
		return PE_ENOMEM;
	enum pe_status st = PE_OK;
	for (size_t I = begin; I < end && st == PE_OK; I++) {
		size_t i0 = I * j->bs, ni = j->n - i0 < j->bs ? j->n - i0 : j->bs;
		const double *A;
		st = pe_rowsrc_get(j->src, i0, ni, buf, &A);
		if (st == PE_OK)
			pe_rows_metric(j->m, j->d, A, ni, j->t ? j->t + i0 : NULL, j->at_rows, j->k,
			               j->ta, j->out + i0 * j->k, j->k);
	}
	free(buf);
	return st;
}

static enum pe_status profile_general(const struct pe_vectors *v, enum pe_metric m,
                                      const uint64_t *at, size_t k, struct pe_matrix *r)
{
	size_t d = v->d;
	struct pe_posterm *t = NULL, *ta = malloc(k * sizeof(*ta));
	double *at_rows = malloc(k * d * sizeof(double));
	struct pe_rowsrc src = {0};
	enum pe_status st = PE_ENOMEM;
	if (!ta || !at_rows)
		goto done;
	st = pe_vectors_at(v, at, k, at_rows);
	for (size_t j = 0; j < k && st == PE_OK; j++)
		pe_row_terms(at_rows + j * d, d, &ta[j]);
	if (st == PE_OK && (m == PE_METRIC_COSINE || m == PE_METRIC_CORR))
		st = all_terms(v, &t);
	if (st == PE_OK)
		st = pe_rowsrc_init(&src, v, 0);
	if (st == PE_OK) {
		size_t bs = pe_block_rows(d);
		struct gen_profile_job job = {&src, v->n, d, k, bs, m, t, ta, at_rows, r->data};
		st = pe_parallel_for((v->n + bs - 1) / bs, 4, gen_profile_blocks, &job);
	}
done:
	pe_rowsrc_release(&src);
	free(t);
	free(ta);
	free(at_rows);
	return st;
}

enum pe_status pe_profile(const struct pe_vectors *v, enum pe_metric m, const uint64_t *at,
                          size_t k, struct pe_matrix **out)
{
	*out = NULL;
	enum pe_status st = pe_pairwise_check(v, m);
	if (st != PE_OK)
		return st;
	if (k == 0 || !at)
		return PE_ERANGE;
	for (size_t j = 0; j < k; j++)
		if ((double)at[j] > PE_POSITION_MAX)
			return PE_ERANGE;
	st = pe_pairwise_fits(v->n, k, 0, NULL);
	if (st != PE_OK)
		return st;
	struct pe_matrix *r = pe_matrix_create(v->n, k);
	if (!r)
		return PE_ENOMEM;
	struct pe_toeplitz tz;
	int found = 0;
	st = structurable(m) ? pe_toeplitz_init(v, &tz, &found) : PE_OK;
	if (st == PE_OK) {
		if (found)
			st = profile_structured(v, &tz, m, at, k, r);
		else
			st = profile_general(v, m, at, k, r);
	}
	if (found)
		pe_toeplitz_release(&tz);
	if (st != PE_OK) {
		pe_matrix_destroy(r);
		return st;
	}
	*out = r;
	return PE_OK;
}

/* ---- scatter ---- */

static size_t pair_count(size_t n, size_t s)
{
	size_t m = (n + s - 1) / s;
	return m / 2 * (m - 1) + (m % 2) * ((m - 1) / 2);
}

static size_t pick_stride(size_t n, size_t max_points)
{
	if (max_points == 0 || pair_count(n, 1) <= max_points)
		return 1;
	size_t lo = 1, hi = n; /* pair_count(n, n) = 0 */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (pair_count(n, mid) <= max_points)
			hi = mid;
		else
			lo = mid;
	}
	return hi;
}

struct scatter_job {
	size_t mm, d;
	enum pe_metric m;
	const struct pe_toeplitz *tz; /* NULL: general */
	const double *S;              /* S(s q), q < mm */
	const double *rows;           /* general: mm x d */
	const struct pe_posterm *t;
	double *out;
};

static size_t pair_base(size_t i, size_t mm)
{
	/* pairs before row i: sum_{a<i} (mm - 1 - a) */
	return i * (mm - 1) - i * (i - 1) / 2;
}

static enum pe_status scatter_rows(void *ctx, size_t begin, size_t end)
{
	const struct scatter_job *j = ctx;
	size_t mm = j->mm;
	double *tmp = NULL;
	if (!j->tz) {
		tmp = malloc(2 * mm * sizeof(double));
		if (!tmp)
			return PE_ENOMEM;
	}
	for (size_t i = begin; i < end; i++) {
		double *o = j->out + 2 * pair_base(i, mm);
		size_t cnt = mm - 1 - i;
		if (j->tz) {
			for (size_t b = i + 1; b < mm; b++, o += 2) {
				double s = j->S[b - i];
				o[0] = pe_toeplitz_metric(j->tz, j->d, j->m, s, &j->t[i], &j->t[b]);
				o[1] = pe_toeplitz_metric(j->tz, j->d, PE_METRIC_CORR, s, &j->t[i],
				                          &j->t[b]);
			}
			continue;
		}
		const double *a = j->rows + i * j->d, *B = a + j->d;
		pe_rows_metric(j->m, j->d, a, 1, &j->t[i], B, cnt, &j->t[i + 1], tmp, cnt);
		pe_rows_metric(PE_METRIC_CORR, j->d, a, 1, &j->t[i], B, cnt, &j->t[i + 1], tmp + mm,
		               cnt);
		for (size_t b = 0; b < cnt; b++) {
			o[2 * b] = tmp[b];
			o[2 * b + 1] = tmp[mm + b];
		}
	}
	free(tmp);
	return PE_OK;
}

/* Pearson of nearly constant vectors from their rows (see pe_posterm_ill()). */
static enum pe_status scatter_fix_corr(const struct pe_vectors *v, enum pe_metric m,
                                       const uint64_t *pos, size_t mm, const struct pe_posterm *t,
                                       double *out)
{
	double *c = NULL;
	enum pe_status st = PE_OK;
	for (size_t i = 0; st == PE_OK && i < mm; i++) {
		if (!pe_posterm_ill(&t[i]))
			continue;
		if (!c && !(c = malloc(mm * sizeof(double))))
			return PE_ENOMEM;
		st = pe_corr_direct(v, pos[i], pos, mm, t, c, 1);
		for (size_t j = 0; j < mm && st == PE_OK; j++) {
			if (j == i)
				continue;
			size_t a = j < i ? j : i, b = j < i ? i : j;
			double *o = out + 2 * (pair_base(a, mm) + (b - a - 1));
			o[1] = c[j];
			if (m == PE_METRIC_CORR)
				o[0] = c[j];
		}
	}
	free(c);
	return st;
}

enum pe_status pe_scatter(const struct pe_vectors *v, enum pe_metric m, size_t max_points,
                          size_t *stride, struct pe_matrix **out)
{
	*out = NULL;
	enum pe_status st = pe_pairwise_check(v, m);
	if (st != PE_OK)
		return st;
	if (v->n < 2)
		return PE_ERANGE;
	if (v->n > ((size_t)1 << 32) && max_points == 0)
		return PE_ETOOBIG;
	size_t s = pick_stride(v->n, max_points);
	size_t mm = (v->n + s - 1) / s, count = pair_count(v->n, s);
	st = pe_pairwise_fits(count, 2, 0, NULL);
	if (st != PE_OK)
		return st;
	if (stride)
		*stride = s;
	size_t d = v->d;
	struct pe_toeplitz tz;
	int found = 0;
	st = structurable(m) ? pe_toeplitz_init(v, &tz, &found) : PE_OK;
	if (st != PE_OK)
		return st;
	struct pe_matrix *r = pe_matrix_create(count, 2);
	uint64_t *pos = range_positions(v->first, mm, s);
	struct pe_posterm *t = malloc(mm * sizeof(*t));
	double *S = NULL, *rows = NULL;
	st = PE_ENOMEM;
	if (!r || !pos || !t)
		goto done;
	if (found) {
		if (!(S = malloc(mm * sizeof(double))))
			goto done;
		for (size_t q = 0; q < mm; q++)
			S[q] = pe_toeplitz_s(&tz, (uint64_t)q * s);
		st = pe_posterms(v, &tz, pos, mm, 1, t);
	} else {
		if (!(rows = malloc(mm * d * sizeof(double))))
			goto done;
		st = pe_vectors_at(v, pos, mm, rows);
		if (st == PE_OK)
			pe_rows_terms(rows, mm, d, t);
	}
	if (st == PE_OK) {
		struct scatter_job job = {mm, d, m, found ? &tz : NULL, S, rows, t, r->data};
		st = pe_parallel_for(mm, 8, scatter_rows, &job);
	}
	if (found && st == PE_OK)
		st = scatter_fix_corr(v, m, pos, mm, t, r->data);
done:
	if (found)
		pe_toeplitz_release(&tz);
	free(pos);
	free(t);
	free(S);
	free(rows);
	if (st != PE_OK) {
		pe_matrix_destroy(r);
		return st;
	}
	*out = r;
	return PE_OK;
}
