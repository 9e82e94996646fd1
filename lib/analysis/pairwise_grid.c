/*
 * pairwise_grid.c - a pairwise metric averaged onto an R x C grid
 *
 * Three ways to form a cell mean (see posenc/pairwise.h):
 * offset mode  when the metric is a function g(m - n) of the offset alone,
 *              the sum of g over a rectangle of positions is a combination
 *              of four second-order prefix sums of g, O(1) per cell. The
 *              prefix sums grow like n^2 max g, so they are kept in
 *              double-double to survive the differences.
 * all mode     every pair, for small n.
 * sampled mode a few exact values per cell.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/pairwise_internal.h"

#define ALL_STRUCTURED_MAX 4096       /* n for the every-pair mode */
#define ALL_GENERAL_WORK   (1u << 31) /* n^2 d for the every-pair mode */
#define SAMPLED_WORK       (1u << 31) /* (R s)(C s) d for general samples */
#define KERNEL_TABLE_MAX   ((size_t)1 << 24)
#define OFFSET_MAX         ((size_t)1 << 23)

static size_t range_start(size_t a, size_t n, size_t parts)
{
	size_t q = n / parts, r = n % parts;
	return a * q + (a < r ? a : r);
}

/* ---- double-double sums (Knuth's two-sum) ---- */

struct dd {
	double hi, lo;
};

static struct dd dd_add(struct dd a, struct dd b)
{
	double s = a.hi + b.hi;
	double bb = s - a.hi;
	double e = (a.hi - (s - bb)) + (b.hi - bb);
	e += a.lo + b.lo;
	struct dd r;
	r.hi = s + e;
	r.lo = e - (r.hi - s);
	return r;
}

static struct dd dd_neg(struct dd a)
{
	a.hi = -a.hi;
	a.lo = -a.lo;
	return a;
}

/* ---- offset mode ---- */

struct offset_job {
	size_t n, R, C;
	const struct dd *Q; /* Q(y) at [y + n - 1], y = -(n-1) .. n+1 */
	double *out;
};

static struct dd q_at(const struct offset_job *j, size_t r, size_t c)
{
	/* Q(r - c + 1) */
	return j->Q[r + j->n - c];
}

static enum pe_status offset_rows(void *ctx, size_t begin, size_t end)
{
	const struct offset_job *j = ctx;
	for (size_t a = begin; a < end; a++) {
		size_t r0 = range_start(a, j->n, j->R), r1 = range_start(a + 1, j->n, j->R);
		for (size_t b = 0; b < j->C; b++) {
			size_t c0 = range_start(b, j->n, j->C), c1 = range_start(b + 1, j->n, j->C);
			struct dd s = dd_add(q_at(j, r1, c0), dd_neg(q_at(j, r0, c0)));
			s = dd_add(s, dd_neg(q_at(j, r1, c1)));
			s = dd_add(s, q_at(j, r0, c1));
			double cells = (double)(r1 - r0) * (double)(c1 - c0);
			j->out[a * j->C + b] = (s.hi + s.lo) / cells;
		}
	}
	return PE_OK;
}

static enum pe_status grid_offset(const struct pe_vectors *v, const struct pe_toeplitz *tz,
                                  enum pe_metric m, struct pe_matrix *r)
{
	size_t n = v->n;
	double *g = malloc(n * sizeof(double));
	struct dd *Q = malloc((2 * n + 2) * sizeof(*Q));
	enum pe_status st = PE_ENOMEM;
	if (!g || !Q)
		goto done;
	st = pe_toeplitz_range(tz, 0, n, g);
	if (st != PE_OK)
		goto done;
	struct pe_posterm t = {0.0, sqrt(tz->total), 0.0, 0.0};
	for (size_t D = 0; D < n; D++)
		g[D] = pe_toeplitz_metric(tz, v->d, m, g[D], &t, &t);
	/* P(y) = sum_{t<y} g(t), Q(y) = sum_{x<y} P(x), from y = -(n-1). */
	struct dd P = {0.0, 0.0};
	Q[0] = P;
	for (size_t k = 0; k + 1 < 2 * n + 1; k++) {
		/* k indexes y = k - (n - 1) */
		Q[k + 1] = dd_add(Q[k], P);
		if (k < 2 * n - 1) {
			size_t y = k > n - 1 ? k - (n - 1) : (n - 1) - k;
			struct dd gy = {g[y], 0.0};
			P = dd_add(P, gy);
		}
	}
	struct offset_job job = {n, r->rows, r->cols, Q, r->data};
	st = pe_parallel_for(r->rows, 8, offset_rows, &job);
done:
	free(g);
	free(Q);
	return st;
}

/* ---- every-pair mode ---- */

struct all_job {
	const struct pe_vectors *v;
	const struct pe_toeplitz *tz; /* NULL: general */
	const struct pe_rowsrc *src;
	enum pe_metric m;
	size_t n, R, C, bs;
	const double *S;
	const struct pe_posterm *t;
	const size_t *colcell;
	double *out;
};

/* Undefined values (the correlation of a constant vector) are left out of
 * a cell's mean; a cell with nothing else is NaN. */
static void add(double *o, size_t *cnt, size_t c, double x)
{
	if (isnan(x))
		return;
	o[c] += x;
	cnt[c]++;
}

static void finish_row(const struct all_job *j, double *o, size_t *cnt)
{
	for (size_t b = 0; b < j->C; b++) {
		o[b] = cnt[b] ? o[b] / (double)cnt[b] : NAN;
		cnt[b] = 0;
	}
}

static enum pe_status all_rows(void *ctx, size_t begin, size_t end)
{
	const struct all_job *j = ctx;
	size_t n = j->n, d = j->v->d, bs = j->bs;
	double *buf = NULL;
	size_t *cnt = calloc(j->C, sizeof(size_t));
	if (!j->tz)
		buf = malloc((2 * bs * d + bs * bs) * sizeof(double));
	if (!cnt || (!j->tz && !buf)) {
		free(cnt);
		free(buf);
		return PE_ENOMEM;
	}
	enum pe_status st = PE_OK;
	for (size_t a = begin; a < end && st == PE_OK; a++) {
		size_t r0 = range_start(a, n, j->R), r1 = range_start(a + 1, n, j->R);
		double *o = j->out + a * j->C;
		if (j->tz) {
			for (size_t p = r0; p < r1; p++) {
				for (size_t q = 0; q < n; q++) {
					double s = j->S[p > q ? p - q : q - p];
					const struct pe_posterm *tp = &j->t[p], *tq = &j->t[q];
					double x = pe_toeplitz_metric(j->tz, d, j->m, s, tp, tq);
					add(o, cnt, j->colcell[q], x);
				}
			}
			finish_row(j, o, cnt);
			continue;
		}
		double *bufb = buf + bs * d, *tmp = bufb + bs * d;
		for (size_t i0 = r0; i0 < r1 && st == PE_OK; i0 += bs) {
			size_t ni = r1 - i0 < bs ? r1 - i0 : bs;
			const double *A;
			st = pe_rowsrc_get(j->src, i0, ni, buf, &A);
			for (size_t j0 = 0; j0 < n && st == PE_OK; j0 += bs) {
				size_t nj = n - j0 < bs ? n - j0 : bs;
				const double *B;
				st = pe_rowsrc_get(j->src, j0, nj, bufb, &B);
				if (st != PE_OK)
					break;
				pe_rows_metric(j->m, d, A, ni, j->t ? j->t + i0 : NULL, B, nj,
				               j->t ? j->t + j0 : NULL, tmp, nj);
				for (size_t x = 0; x < ni; x++)
					for (size_t y = 0; y < nj; y++)
						add(o, cnt, j->colcell[j0 + y], tmp[x * nj + y]);
			}
		}
		finish_row(j, o, cnt);
	}
	free(buf);
	free(cnt);
	return st;
}

static enum pe_status grid_all(const struct pe_vectors *v, const struct pe_toeplitz *tz,
                               enum pe_metric m, struct pe_matrix *r)
{
	size_t n = v->n;
	enum pe_status st = PE_ENOMEM;
	size_t *colcell = malloc(n * sizeof(size_t));
	uint64_t *pos = malloc(n * sizeof(uint64_t));
	struct pe_posterm *t = malloc(n * sizeof(*t));
	double *S = NULL;
	struct pe_rowsrc src = {0};
	if (!colcell || !pos || !t)
		goto done;
	for (size_t b = 0; b < r->cols; b++)
		for (size_t q = range_start(b, n, r->cols); q < range_start(b + 1, n, r->cols); q++)
			colcell[q] = b;
	for (size_t i = 0; i < n; i++)
		pos[i] = v->first + i;
	int need_rows = m == PE_METRIC_CORR || (!tz && m == PE_METRIC_COSINE);
	st = pe_posterms(v, tz, pos, n, need_rows, t);
	if (st == PE_OK && tz) {
		if (!(S = malloc(n * sizeof(double))))
			st = PE_ENOMEM;
		else
			st = pe_toeplitz_range(tz, 0, n, S);
	}
	if (st == PE_OK && !tz)
		st = pe_rowsrc_init(&src, v, 64u << 20);
	if (st == PE_OK) {
		struct all_job job = {v, tz,      &src,    m,
		                      n, r->rows, r->cols, pe_block_rows(v->d),
		                      S, t,       colcell, r->data};
		/*
		 * Touch the output before the threads start: calloc's untouched pages
		 * are the shared zero page, and the threads' first writes would each
		 * fault and flush every core's TLB.
		 */
		memset(r->data, 0, r->rows * r->cols * sizeof(double));
		st = pe_parallel_for(r->rows, 1, all_rows, &job);
	}
done:
	pe_rowsrc_release(&src);
	free(colcell);
	free(pos);
	free(t);
	free(S);
	return st;
}

/* ---- sampled mode ---- */

/* Sample positions of each of @parts ranges: offsets off[a]..off[a+1]. */
static enum pe_status samples(const struct pe_vectors *v, size_t parts, size_t per, uint64_t **pos,
                              size_t **off)
{
	size_t n = v->n;
	*pos = malloc(parts * per * sizeof(uint64_t));
	*off = malloc((parts + 1) * sizeof(size_t));
	if (!*pos || !*off)
		return PE_ENOMEM;
	size_t k = 0;
	for (size_t a = 0; a < parts; a++) {
		(*off)[a] = k;
		size_t s = range_start(a, n, parts), L = range_start(a + 1, n, parts) - s;
		size_t cnt = L < per ? L : per;
		for (size_t j = 0; j < cnt; j++)
			(*pos)[k++] = v->first + s + (2 * j + 1) * L / (2 * cnt);
	}
	(*off)[parts] = k;
	return PE_OK;
}

struct sampled_job {
	const struct pe_toeplitz *tz;
	enum pe_metric m;
	size_t d, C;
	const uint64_t *rpos, *cpos;
	const size_t *roff, *coff;
	const struct pe_posterm *rt, *ct;
	const double *S;             /* S(D) for D < n, or NULL: direct */
	const double *rrows, *crows; /* general */
	double *out;
};

/* The structured metric of row sample p and column sample q. */
static double sampled_pair(const struct sampled_job *j, size_t p, size_t q)
{
	uint64_t e = j->rpos[p], f = j->cpos[q];
	uint64_t D = e > f ? e - f : f - e;
	double s = j->S ? j->S[D] : pe_toeplitz_s(j->tz, D);
	return pe_toeplitz_metric(j->tz, j->d, j->m, s, &j->rt[p], &j->ct[q]);
}

/*
 * The structured cells of row a from the kernel table, with the metric a
 * constant at each call: the metric's switch leaves the inner loop, which
 * is the per-pair work of every correlation figure of many positions.
 */
static inline void table_row(const struct sampled_job *j, size_t a, enum pe_metric m)
{
	size_t p0 = j->roff[a], p1 = j->roff[a + 1];
	for (size_t b = 0; b < j->C; b++) {
		size_t q0 = j->coff[b], q1 = j->coff[b + 1];
		double acc = 0.0;
		size_t cnt = 0;
		for (size_t p = p0; p < p1; p++) {
			uint64_t e = j->rpos[p];
			for (size_t q = q0; q < q1; q++) {
				uint64_t f = j->cpos[q];
				double s = j->S[e > f ? e - f : f - e];
				double x =
				        pe_toeplitz_metric(j->tz, j->d, m, s, &j->rt[p], &j->ct[q]);
				if (!isnan(x)) {
					acc += x;
					cnt++;
				}
			}
		}
		j->out[a * j->C + b] = cnt ? acc / (double)cnt : NAN;
	}
}

static enum pe_status sampled_rows(void *ctx, size_t begin, size_t end)
{
	const struct sampled_job *j = ctx;
	size_t ncols = j->coff[j->C];
	double *tmp = NULL;
	if (!j->tz) {
		tmp = malloc((j->roff[end] - j->roff[begin]) * ncols * sizeof(double));
		if (!tmp)
			return PE_ENOMEM;
	}
	for (size_t a = begin; a < end && j->S; a++) {
		if (j->m == PE_METRIC_CORR)
			table_row(j, a, PE_METRIC_CORR);
		else if (j->m == PE_METRIC_COSINE)
			table_row(j, a, PE_METRIC_COSINE);
		else
			table_row(j, a, PE_METRIC_L2);
	}
	for (size_t a = begin; a < end && !j->S; a++) {
		size_t p0 = j->roff[a], p1 = j->roff[a + 1];
		double *t = tmp;
		if (!j->tz)
			pe_rows_metric(j->m, j->d, j->rrows + p0 * j->d, p1 - p0, j->rt + p0,
			               j->crows, ncols, j->ct, t, ncols);
		for (size_t b = 0; b < j->C; b++) {
			size_t q0 = j->coff[b], q1 = j->coff[b + 1];
			double acc = 0.0;
			size_t cnt = 0;
			for (size_t p = p0; p < p1; p++) {
				for (size_t q = q0; q < q1; q++) {
					double x = j->tz ? sampled_pair(j, p, q)
					                 : t[(p - p0) * ncols + q];
					if (!isnan(x)) {
						acc += x;
						cnt++;
					}
				}
			}
			j->out[a * j->C + b] = cnt ? acc / (double)cnt : NAN;
		}
	}
	free(tmp);
	return PE_OK;
}

static enum pe_status grid_sampled(const struct pe_vectors *v, const struct pe_toeplitz *tz,
                                   enum pe_metric m, struct pe_matrix *r, size_t *per_out)
{
	size_t R = r->rows, C = r->cols, d = v->d, per = PE_GRID_SAMPLES;
	/* Each sampled pair costs O(d) from rows, O(npairs) without a kernel
	 * table, O(1) with one. */
	double cost = !tz ? (double)d : v->n > KERNEL_TABLE_MAX ? 8.0 * (double)tz->npairs : 0.0;
	while (per > 1 && (double)R * per * (double)C * per * cost > SAMPLED_WORK)
		per--;
	*per_out = per;
	uint64_t *rpos = NULL, *cpos = NULL;
	size_t *roff = NULL, *coff = NULL;
	struct pe_posterm *rt = NULL, *ct = NULL;
	double *S = NULL, *rrows = NULL, *crows = NULL;
	enum pe_status st = samples(v, R, per, &rpos, &roff);
	if (st == PE_OK)
		st = samples(v, C, per, &cpos, &coff);
	if (st != PE_OK)
		goto done;
	size_t nr = roff[R], nc = coff[C];
	rt = malloc(nr * sizeof(*rt));
	ct = malloc(nc * sizeof(*ct));
	if (!rt || !ct) {
		st = PE_ENOMEM;
		goto done;
	}
	if (tz) {
		int rows = m == PE_METRIC_CORR;
		st = pe_posterms(v, tz, rpos, nr, rows, rt);
		if (st == PE_OK)
			st = pe_posterms(v, tz, cpos, nc, rows, ct);
		if (st == PE_OK && v->n <= KERNEL_TABLE_MAX) {
			if (!(S = malloc(v->n * sizeof(double))))
				st = PE_ENOMEM;
			else
				st = pe_toeplitz_range(tz, 0, v->n, S);
		}
	} else {
		rrows = malloc(nr * d * sizeof(double));
		crows = malloc(nc * d * sizeof(double));
		if (!rrows || !crows)
			st = PE_ENOMEM;
		if (st == PE_OK)
			st = pe_vectors_at(v, rpos, nr, rrows);
		if (st == PE_OK)
			st = pe_vectors_at(v, cpos, nc, crows);
		for (size_t i = 0; st == PE_OK && i < nr; i++)
			pe_row_terms(rrows + i * d, d, &rt[i]);
		for (size_t i = 0; st == PE_OK && i < nc; i++)
			pe_row_terms(crows + i * d, d, &ct[i]);
	}
	if (st == PE_OK) {
		struct sampled_job job = {tz,   m,  d,  C, rpos,  cpos,  roff,
		                          coff, rt, ct, S, rrows, crows, r->data};
		st = pe_parallel_for(R, 4, sampled_rows, &job);
	}
done:
	free(rpos);
	free(cpos);
	free(roff);
	free(coff);
	free(rt);
	free(ct);
	free(S);
	free(rrows);
	free(crows);
	return st;
}

static enum pe_status grid(const struct pe_vectors *v, enum pe_metric m, size_t R, size_t C,
                           enum pe_grid_mode mode, struct pe_grid_info *info,
                           struct pe_matrix **out)
{
	*out = NULL;
	*info = (struct pe_grid_info){1, 0};
	enum pe_status st = pe_pairwise_check(v, m);
	if (st != PE_OK)
		return st;
	if (R == 0 || C == 0)
		return PE_ERANGE;
	size_t n = v->n;
	struct pe_toeplitz tz;
	int found = 0;
	if (m == PE_METRIC_L2 || m == PE_METRIC_COSINE || m == PE_METRIC_CORR)
		st = pe_toeplitz_init(v, &tz, &found);
	if (st != PE_OK)
		return st;
	int offset_ok = found && !tz.has_lone && m != PE_METRIC_CORR && n <= OFFSET_MAX;
	if (mode == PE_GRID_AUTO) {
		if (offset_ok)
			mode = PE_GRID_OFFSET;
		else if (found ? n <= ALL_STRUCTURED_MAX
		               : (double)n * (double)n * (double)v->d <= ALL_GENERAL_WORK)
			mode = PE_GRID_ALL;
		else
			mode = PE_GRID_SAMPLED;
	}
	struct pe_matrix *r = NULL;
	if (mode == PE_GRID_OFFSET && !offset_ok)
		st = PE_EINVAL;
	else if (!(r = pe_matrix_create(R < n ? R : n, C < n ? C : n)))
		st = PE_ENOMEM;
	else if (mode == PE_GRID_OFFSET)
		st = grid_offset(v, &tz, m, r);
	else if (mode == PE_GRID_ALL)
		st = grid_all(v, found ? &tz : NULL, m, r);
	else
		st = grid_sampled(v, found ? &tz : NULL, m, r, &info->samples);
	/* Cells of one position each are single pairs, however found. */
	if (mode == PE_GRID_SAMPLED && r && (r->rows < n || r->cols < n))
		info->exact = 0;
	else
		info->samples = 0;
	if (found)
		pe_toeplitz_release(&tz);
	if (st != PE_OK) {
		pe_matrix_destroy(r);
		return st;
	}
	*out = r;
	return PE_OK;
}

enum pe_status pe_pairwise_grid_mode(const struct pe_vectors *v, enum pe_metric m, size_t R,
                                     size_t C, enum pe_grid_mode mode, struct pe_matrix **out)
{
	struct pe_grid_info info;
	return grid(v, m, R, C, mode, &info, out);
}

enum pe_status pe_pairwise_grid(const struct pe_vectors *v, enum pe_metric m, size_t R, size_t C,
                                struct pe_matrix **out)
{
	struct pe_grid_info info;
	return grid(v, m, R, C, PE_GRID_AUTO, &info, out);
}

enum pe_status pe_pairwise_grid_info(const struct pe_vectors *v, enum pe_metric m, size_t R,
                                     size_t C, struct pe_grid_info *info, struct pe_matrix **out)
{
	return grid(v, m, R, C, PE_GRID_AUTO, info, out);
}
