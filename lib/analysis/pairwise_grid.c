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
#include "core/wide_clones.h"

#define ALL_STRUCTURED_MAX 4096       /* n for the every-pair mode */
#define ALL_GENERAL_WORK   (1u << 31) /* n^2 d for the every-pair mode */
#define SAMPLED_WORK       (1u << 31) /* (R s)(C s) d for general samples */
/* n^2 d for every pair through BLAS products (about 2 s on two cores) */
#define ALL_GRAM_WORK    ((double)(1ull << 37))
#define GRAM_PANEL       256
#define KERNEL_TABLE_MAX ((size_t)1 << 24)
#define OFFSET_MAX       ((size_t)1 << 23)

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

/* a * k for a whole number k (|k| < 2^53), to double-double precision:
 * the rounding error of hi * k is exact through fma. */
static struct dd dd_mul_int(struct dd a, double k)
{
	double p = a.hi * k;
	double e = fma(a.hi, k, -p) + a.lo * k;
	struct dd r;
	r.hi = p + e;
	r.lo = e - (r.hi - p);
	return r;
}

/*
 * The sum of g(r - c) over a rectangle of positions is a combination of
 * four values of Q(y) = sum_{x < y} P(x), P(x) = sum_{t < x} g(|t|), with t
 * and x from -(n-1) and y = r - c + 1. As g is even, Q follows from the
 * one-sided sums A(m) = sum_{D < m} g(D) and C(m) = sum_{j < m} A(j), with
 * T = A(n) and U = T - g(0):
 *
 *   y <= 0:  Q(y) = (y + n - 1) T - (C(n + 1) - C(1 - y + 1))
 *   y > 0:   Q(y) = Q(0) + y U + C(y),  Q(0) = (n - 1) T - (C(n + 1) - C(2))
 *
 * and C is needed only at m = |r - c| + 1 for the cells' row and column
 * bounds: one ascending pass over the offsets, a chunk of g at a time,
 * keeps (R + 1)(C + 1) values instead of 2n (memory no longer grows with
 * n). All in double-double: the sums grow like n^2 max g.
 */
#define OFFSET_CHUNK 65536

struct offset_job {
	size_t n, R, C;
	int mirror;            /* a square grid: cells below the diagonal are those above it */
	const size_t *rb, *cb; /* cell bounds, R + 1 and C + 1 */
	const struct dd *Q;    /* Q at (row bound i, col bound j): [i * (C + 1) + j] */
	double *out;
};

static enum pe_status offset_rows(void *ctx, size_t begin, size_t end)
{
	const struct offset_job *j = ctx;
	size_t w = j->C + 1;
	for (size_t a = begin; a < end; a++) {
		size_t r0 = j->rb[a], r1 = j->rb[a + 1];
		const struct dd *q0 = j->Q + a * w, *q1 = j->Q + (a + 1) * w;
		for (size_t b = j->mirror ? a : 0; b < j->C; b++) {
			size_t c0 = j->cb[b], c1 = j->cb[b + 1];
			struct dd s = dd_add(q1[b], dd_neg(q0[b]));
			s = dd_add(s, dd_neg(q1[b + 1]));
			s = dd_add(s, q0[b + 1]);
			double cells = (double)(r1 - r0) * (double)(c1 - c0);
			j->out[a * j->C + b] = (s.hi + s.lo) / cells;
		}
	}
	return PE_OK;
}

static enum pe_status grid_offset(const struct pe_vectors *v, const struct pe_toeplitz *tz,
                                  enum pe_metric m, struct pe_matrix *r)
{
	size_t n = v->n, R = r->rows, C = r->cols, w = C + 1, E = (R + 1) * (C + 1);
	size_t chunks = (n + 1) / OFFSET_CHUNK + 1; /* m = 0 .. n + 1 */
	/* A short set needs one chunk, of its own length: no larger buffers to fault in. */
	size_t chunk_len = n + 2 < OFFSET_CHUNK ? n + 2 : OFFSET_CHUNK;
	size_t *rb = malloc((R + 1) * sizeof(size_t)), *cb = malloc(w * sizeof(size_t));
	size_t *start = calloc(chunks + 1, sizeof(size_t));
	size_t *order = chunks > 1 ? malloc(E * sizeof(size_t)) : NULL;
	struct dd *Q = malloc(E * sizeof(*Q)), *Cm = malloc(chunk_len * sizeof(*Cm));
	double *g = malloc(chunk_len * sizeof(double));
	enum pe_status st = PE_ENOMEM;
	if (!rb || !cb || !start || (chunks > 1 && !order) || !Q || !Cm || !g)
		goto done;
	for (size_t i = 0; i <= R; i++)
		rb[i] = range_start(i, n, R);
	for (size_t j = 0; j <= C; j++)
		cb[j] = range_start(j, n, C);
	/* The bound pairs by the chunk of their m = |r - c| + 1 (counting sort; one chunk: none).
	 */
	for (size_t i = 0; chunks > 1 && i <= R; i++)
		for (size_t j = 0; j <= C; j++) {
			size_t mm = (rb[i] > cb[j] ? rb[i] - cb[j] : cb[j] - rb[i]) + 1;
			start[mm / OFFSET_CHUNK + 1]++;
		}
	for (size_t k = 0; k < chunks; k++)
		start[k + 1] += start[k];
	for (size_t i = 0; chunks > 1 && i <= R; i++)
		for (size_t j = 0; j <= C; j++) {
			size_t mm = (rb[i] > cb[j] ? rb[i] - cb[j] : cb[j] - rb[i]) + 1;
			order[start[mm / OFFSET_CHUNK]++] = i * w + j;
		}
	for (size_t k = chunks; k > 0; k--)
		start[k] = start[k - 1];
	start[0] = 0;
	/* One pass: C(m) for every needed m, into Q for now. */
	struct pe_posterm t = {0.0, sqrt(tz->total), 0.0, 0.0};
	struct dd A = {0.0, 0.0}, Cc = {0.0, 0.0}, C2 = {0.0, 0.0}, Cn1 = {0.0, 0.0};
	double g0 = 0.0;
	st = PE_OK;
	for (size_t k = 0; k < chunks && st == PE_OK; k++) {
		size_t m0 = k * OFFSET_CHUNK,
		       m1 = m0 + OFFSET_CHUNK < n + 2 ? m0 + OFFSET_CHUNK : n + 2;
		size_t gcount = m0 < n ? (m1 < n ? m1 : n) - m0 : 0;
		if (gcount) {
			st = pe_toeplitz_range(tz, m0, gcount, g);
			if (st != PE_OK)
				break;
			for (size_t D = 0; D < gcount; D++)
				g[D] = pe_toeplitz_metric(tz, v->d, m, g[D], &t, &t);
		}
		for (size_t mm = m0; mm < m1; mm++) {
			Cm[mm - m0] = Cc; /* C(mm) */
			if (mm == 2)
				C2 = Cc;
			if (mm == n + 1)
				Cn1 = Cc;
			Cc = dd_add(Cc, A);
			if (mm < n) {
				struct dd gm = {g[mm - m0], 0.0};
				if (mm == 0)
					g0 = g[0];
				A = dd_add(A, gm);
			}
		}
		for (size_t e = start[k]; chunks > 1 && e < start[k + 1]; e++) {
			size_t i = order[e] / w, j = order[e] % w;
			size_t mm = (rb[i] > cb[j] ? rb[i] - cb[j] : cb[j] - rb[i]) + 1;
			Q[order[e]] = Cm[mm - m0];
		}
		for (size_t i = 0; chunks == 1 && i <= R; i++)
			for (size_t j = 0; j <= C; j++) {
				size_t mm = (rb[i] > cb[j] ? rb[i] - cb[j] : cb[j] - rb[i]) + 1;
				Q[i * w + j] = Cm[mm];
			}
	}
	if (st != PE_OK)
		goto done;
	/* A is now A(n) = T. */
	struct dd T = A, U = dd_add(A, (struct dd){-g0, 0.0});
	struct dd tail = dd_add(Cn1, dd_neg(C2));
	struct dd Q0 = dd_add(dd_mul_int(T, (double)(n - 1)), dd_neg(tail));
	for (size_t i = 0; i <= R; i++)
		for (size_t j = 0; j <= C; j++) {
			struct dd *q = &Q[i * w + j]; /* C(m) so far */
			if (rb[i] >= cb[j]) {
				double y = (double)(rb[i] - cb[j] + 1);
				*q = dd_add(dd_add(Q0, dd_mul_int(U, y)), *q);
			} else {
				double y = -(double)(cb[j] - rb[i]) + 1.0;
				struct dd rest = dd_add(Cn1, dd_neg(*q));
				*q = dd_add(dd_mul_int(T, y + (double)(n - 1)), dd_neg(rest));
			}
		}
	/* g is even: the sum over cell (a, b) is the sum over (b, a) when both axes are cut alike.
	 */
	struct offset_job job = {n, R, C, R == C, rb, cb, Q, r->data};
	st = pe_parallel_for(R, 8, offset_rows, &job);
	for (size_t a = 1; st == PE_OK && job.mirror && a < R; a++)
		for (size_t b = 0; b < a; b++)
			r->data[a * C + b] = r->data[b * C + a];
done:
	free(rb);
	free(cb);
	free(start);
	free(order);
	free(Q);
	free(Cm);
	free(g);
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

/*
 * Correlation of a structured set over every pair: corr(p, q) =
 * (T(q - p) + e_p e_q - d m_p m_q) r_p r_q with T(D) = total - 2 w S(|D|)
 * (pe_toeplitz_metric()'s formula, with 1 / |x - m| as factors r). For each
 * position p of a row of cells the values are added into one sum per
 * column position q (a loop the compiler vectorises: no reduction, no
 * branch), then summed over each cell's columns. A square grid is
 * symmetric: cells left of the diagonal are mirrored, so half the pairs
 * are formed. Constant vectors (|x - m| = 0, no correlation) get r = 0 and
 * are not counted.
 */
struct corr_job {
	size_t n, d, R, C;
	const double *T; /* T(D) at T[n - 1 + D], D = -(n-1) .. n-1 */
	const double *e, *mean, *r;
	const size_t *valid; /* valid[k]: positions with r > 0 among 0 .. k-1 */
	int mirror;
	double *out;
};

/* colsum[q] += corr(p, q) for q in [q0, n), T already shifted by -p. */
WIDE_CLONES static void corr_add(double *restrict colsum, const double *restrict T,
                                 const double *restrict e, const double *restrict mean,
                                 const double *restrict r, size_t q0, size_t n, double ep,
                                 double dm, double rp)
{
	for (size_t q = q0; q < n; q++) {
		double x = (T[q] + ep * e[q] - dm * mean[q]) * (rp * r[q]);
		x = x < -1.0 ? -1.0 : x;
		x = x > 1.0 ? 1.0 : x;
		colsum[q] += x;
	}
}

static enum pe_status corr_rows(void *ctx, size_t begin, size_t end)
{
	const struct corr_job *j = ctx;
	size_t n = j->n;
	double *colsum = malloc(n * sizeof(double));
	if (!colsum)
		return PE_ENOMEM;
	for (size_t a = begin; a < end; a++) {
		size_t r0 = range_start(a, n, j->R), r1 = range_start(a + 1, n, j->R);
		size_t b0 = j->mirror ? a : 0, q0 = range_start(b0, n, j->C);
		for (size_t q = q0; q < n; q++)
			colsum[q] = 0.0;
		for (size_t p = r0; p < r1; p++) {
			double rp = j->r[p];
			if (rp == 0.0)
				continue;
			double ep = j->e[p], dm = (double)j->d * j->mean[p];
			const double *T = j->T + (n - 1) - p;
			const double *e = j->e, *mean = j->mean, *r = j->r;
			corr_add(colsum, T, e, mean, r, q0, n, ep, dm, rp);
			/* A vector with itself: exactly 1, as pe_toeplitz_metric() says. */
			if (p >= q0) {
				double x = (T[p] + ep * e[p] - dm * mean[p]) * (rp * r[p]);
				colsum[p] += 1.0 - (x < -1.0 ? -1.0 : x > 1.0 ? 1.0 : x);
			}
		}
		size_t vr = j->valid[r1] - j->valid[r0];
		for (size_t b = b0; b < j->C; b++) {
			size_t c0 = range_start(b, n, j->C), c1 = range_start(b + 1, n, j->C);
			double acc = 0.0;
			for (size_t q = c0; q < c1; q++)
				acc += colsum[q];
			size_t cnt = vr * (j->valid[c1] - j->valid[c0]);
			j->out[a * j->C + b] = cnt ? acc / (double)cnt : NAN;
		}
	}
	free(colsum);
	return PE_OK;
}

static enum pe_status grid_corr(const struct pe_vectors *v, const struct pe_toeplitz *tz,
                                const struct pe_posterm *t, const double *S, struct pe_matrix *r)
{
	size_t n = v->n, R = r->rows, C = r->cols;
	double *T = malloc((2 * n - 1) * sizeof(double));
	double *e = malloc(n * sizeof(double)), *mean = malloc(n * sizeof(double));
	double *rr = malloc(n * sizeof(double));
	size_t *valid = malloc((n + 1) * sizeof(size_t));
	enum pe_status st = PE_ENOMEM;
	if (!T || !e || !mean || !rr || !valid)
		goto done;
	for (size_t D = 0; D < n; D++)
		T[n - 1 + D] = T[n - 1 - D] = tz->total - 2.0 * tz->w * S[D];
	valid[0] = 0;
	for (size_t p = 0; p < n; p++) {
		e[p] = t[p].e;
		mean[p] = t[p].mean;
		rr[p] = t[p].cnorm == 0.0 ? 0.0 : 1.0 / t[p].cnorm;
		valid[p + 1] = valid[p] + (rr[p] != 0.0);
	}
	struct corr_job job = {n, v->d, R, C, T, e, mean, rr, valid, R == C, r->data};
	st = pe_parallel_for(R, 1, corr_rows, &job);
	if (st == PE_OK && job.mirror)
		for (size_t a = 1; a < R; a++)
			for (size_t b = 0; b < a; b++)
				r->data[a * C + b] = r->data[b * C + a];
done:
	free(T);
	free(e);
	free(mean);
	free(rr);
	free(valid);
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
	if (st == PE_OK && tz && m == PE_METRIC_CORR) {
		st = grid_corr(v, tz, t, S, r);
	} else if (st == PE_OK) {
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

/*
 * Every pair of a general set from BLAS products (pairwise_gram.c): panels
 * of rows against the columns from their first row on, each pair added to
 * its cell and to the mirrored one, so the products cost n^2 d flops, as a
 * symmetric rank-k update. PE_EUNSUPPORTED when the set cannot be held or
 * the path is not built in: the caller takes the direct kernels.
 */
static enum pe_status grid_gram(const struct pe_vectors *v, enum pe_metric m, struct pe_matrix *r)
{
	size_t n = v->n, d = v->d, R = r->rows, C = r->cols;
	if (!pe_gram_usable(m, d))
		return PE_EUNSUPPORTED;
	struct pe_rowsrc src = {0};
	struct pe_gram g = {0};
	enum pe_status st = pe_rowsrc_init(&src, v, SIZE_MAX);
	if (st != PE_OK)
		return st;
	if (!src.all) {
		pe_rowsrc_release(&src);
		return PE_EUNSUPPORTED;
	}
	size_t *rc = malloc(n * sizeof(size_t)), *cc = malloc(n * sizeof(size_t));
	size_t *cnt = calloc(R * C, sizeof(size_t));
	struct pe_posterm *t = NULL;
	size_t panel = n < GRAM_PANEL ? n : GRAM_PANEL;
	double *buf = malloc(panel * n * sizeof(double));
	st = rc && cc && cnt && buf ? PE_OK : PE_ENOMEM;
	if (st == PE_OK) {
		for (size_t a = 0; a < R; a++)
			for (size_t p = range_start(a, n, R); p < range_start(a + 1, n, R); p++)
				rc[p] = a;
		for (size_t b = 0; b < C; b++)
			for (size_t q = range_start(b, n, C); q < range_start(b + 1, n, C); q++)
				cc[q] = b;
		if (m != PE_METRIC_L2)
			st = pe_gram_terms(src.all, n, d, &t);
	}
	if (st == PE_OK)
		st = pe_gram_init(&g, m, src.all, n, d, t);
	double *sum = r->data;
	memset(sum, 0, R * C * sizeof(double));
	for (size_t r0 = 0; r0 < n && st == PE_OK; r0 += panel) {
		size_t nr = n - r0 < panel ? n - r0 : panel, w = n - r0;
		st = pe_gram_block(&g, r0, nr, r0, w, buf, w);
		for (size_t i = 0; i < nr && st == PE_OK; i++) {
			size_t a = r0 + i;
			const double *row = buf + i * w;
			size_t ra = rc[a] * C, ca = cc[a];
			for (size_t b = a; b < n; b++) {
				double x = row[b - r0];
				if (isnan(x))
					continue;
				sum[ra + cc[b]] += x;
				cnt[ra + cc[b]]++;
				if (b != a) {
					sum[rc[b] * C + ca] += x;
					cnt[rc[b] * C + ca]++;
				}
			}
		}
	}
	if (st == PE_OK)
		for (size_t k = 0; k < R * C; k++)
			sum[k] = cnt[k] ? sum[k] / (double)cnt[k] : NAN;
	pe_gram_release(&g);
	pe_rowsrc_release(&src);
	free(rc);
	free(cc);
	free(cnt);
	free(t);
	free(buf);
	return st;
}

/* ---- sampled mode ---- */

/*
 * Sample positions of each of @parts ranges: offsets off[a]..off[a+1], on
 * the lattice first + k step, k in ix[]: the centres of @per equal
 * sub-ranges of the range's lattice points (all of them when fewer).
 */
static enum pe_status samples(const struct pe_vectors *v, size_t parts, size_t per, size_t step,
                              uint64_t **pos, size_t **ix, size_t **off)
{
	size_t n = v->n;
	*pos = malloc(parts * per * sizeof(uint64_t));
	*ix = malloc(parts * per * sizeof(size_t));
	*off = malloc((parts + 1) * sizeof(size_t));
	if (!*pos || !*ix || !*off)
		return PE_ENOMEM;
	size_t k = 0;
	for (size_t a = 0; a < parts; a++) {
		(*off)[a] = k;
		size_t s = range_start(a, n, parts), e = range_start(a + 1, n, parts);
		size_t k0 = (s + step - 1) / step, L = e > k0 * step ? (e - 1) / step - k0 + 1 : 0;
		size_t cnt = L < per ? L : per;
		for (size_t j = 0; j < cnt; j++) {
			(*ix)[k] = k0 + (2 * j + 1) * L / (2 * cnt);
			(*pos)[k] = v->first + (uint64_t)(*ix)[k] * step;
			k++;
		}
	}
	(*off)[parts] = k;
	return PE_OK;
}

struct sampled_job {
	const struct pe_toeplitz *tz;
	enum pe_metric m;
	size_t d, C;
	const uint64_t *rpos, *cpos;
	const size_t *rix, *cix; /* the samples' lattice indices: offset / step indexes S */
	const size_t *roff, *coff;
	const struct pe_posterm *rt, *ct;
	const double *S;             /* S(k step) for k step < n, or NULL: direct */
	const double *rrows, *crows; /* general */
	int mirror; /* a square grid from a table: the cells on and above the diagonal */
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
	for (size_t b = j->mirror ? a : 0; b < j->C; b++) {
		size_t q0 = j->coff[b], q1 = j->coff[b + 1];
		double acc = 0.0;
		size_t cnt = 0;
		for (size_t p = p0; p < p1; p++) {
			size_t e = j->rix[p];
			for (size_t q = q0; q < q1; q++) {
				size_t f = j->cix[q];
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

/*
 * The lattice step of the samples of a structured set: 1 up to
 * KERNEL_TABLE_MAX positions, beyond them the least step that keeps the
 * offset table S(k step) that long, so the table, and with it the figure,
 * costs the same at 2^24 positions and at any number beyond. 0 when a cell
 * range would hold no lattice point (a grid of more than 2^24 rows): the
 * pairs are then formed one by one.
 */
static size_t sample_step(size_t n, size_t R, size_t C)
{
	if (n <= KERNEL_TABLE_MAX)
		return 1;
	size_t step = (n - 1) / KERNEL_TABLE_MAX + 1, most = R > C ? R : C;
	return n / most >= step ? step : 0;
}

static enum pe_status grid_sampled(const struct pe_vectors *v, const struct pe_toeplitz *tz,
                                   enum pe_metric m, struct pe_matrix *r, size_t *per_out)
{
	size_t R = r->rows, C = r->cols, d = v->d, per = PE_GRID_SAMPLES;
	size_t step = tz ? sample_step(v->n, R, C) : 1;
	/* Each sampled pair costs O(d) from rows, O(npairs) without a kernel
	 * table, O(1) with one. */
	double cost = !tz ? (double)d : !step ? 8.0 * (double)tz->npairs : 0.0;
	while (per > 1 && (double)R * per * (double)C * per * cost > SAMPLED_WORK)
		per--;
	*per_out = per;
	uint64_t *rpos = NULL, *cpos = NULL;
	size_t *roff = NULL, *coff = NULL, *rix = NULL, *cix = NULL;
	struct pe_posterm *rt = NULL, *ct = NULL;
	double *S = NULL, *rrows = NULL, *crows = NULL;
	enum pe_status st = samples(v, R, per, step ? step : 1, &rpos, &rix, &roff);
	if (st == PE_OK)
		st = samples(v, C, per, step ? step : 1, &cpos, &cix, &coff);
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
		size_t len = step ? (v->n - 1) / step + 1 : 0;
		if (st == PE_OK && step) {
			if (!(S = malloc(len * sizeof(double))))
				st = PE_ENOMEM;
			else
				st = pe_toeplitz_range_step(tz, 0, step, len, S);
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
		if (st == PE_OK) {
			pe_rows_terms(rrows, nr, d, rt);
			pe_rows_terms(crows, nc, d, ct);
		}
	}
	if (st == PE_OK) {
		/* Rows and columns sample the same positions of a square grid, and the
		 * metrics are symmetric: half the cells, the others mirrored. */
		struct sampled_job job = {tz,   m,  d,  C, rpos,  cpos,  rix,         cix,    roff,
		                          coff, rt, ct, S, rrows, crows, S && R == C, r->data};
		st = pe_parallel_for(R, 4, sampled_rows, &job);
		for (size_t a = 1; st == PE_OK && job.mirror && a < R; a++)
			for (size_t b = 0; b < a; b++)
				r->data[a * C + b] = r->data[b * C + a];
	}
done:
	free(rpos);
	free(cpos);
	free(roff);
	free(coff);
	free(rix);
	free(cix);
	free(rt);
	free(ct);
	free(S);
	free(rrows);
	free(crows);
	return st;
}

static int offset_usable(const struct pe_vectors *v, const struct pe_toeplitz *tz, enum pe_metric m)
{
	return tz && !tz->has_lone && m != PE_METRIC_CORR && v->n <= OFFSET_MAX;
}

/*
 * The mode of PE_GRID_AUTO; tz NULL when the set has no offset structure.
 * R and C are the grid's size, 0 when not known (pe_pairwise_grid_exact()).
 * A structured set takes every pair while that costs no more than the
 * samples would: a pair of the every-pair kernel (grid_corr(), a vector
 * loop) costs about a quarter of a sampled one, so the exact path is kept
 * to n^2 = 4 R C samples^2 and the cost is about the same on both sides of
 * the switch (measured, whole corr figures of 640 x 640 cells, d = 64: 36
 * ms CPU at n = 5120, every pair; 39 ms at 5121, sampled).
 */
static enum pe_grid_mode auto_mode(const struct pe_vectors *v, const struct pe_toeplitz *tz,
                                   enum pe_metric m, size_t R, size_t C)
{
	size_t n = v->n;
	if (offset_usable(v, tz, m))
		return PE_GRID_OFFSET;
	double per = PE_GRID_SAMPLES, sampled = 4.0 * (double)R * (double)C * per * per;
	if (tz ? n <= ALL_STRUCTURED_MAX || (double)n * (double)n <= sampled
	       : (double)n * (double)n * (double)v->d <=
	                    (pe_gram_usable(m, v->d) ? ALL_GRAM_WORK : ALL_GENERAL_WORK))
		return PE_GRID_ALL;
	return PE_GRID_SAMPLED;
}

int pe_pairwise_grid_exact(const struct pe_vectors *v, enum pe_metric m)
{
	if (pe_pairwise_check(v, m) != PE_OK)
		return 0;
	struct pe_toeplitz tz;
	int found = 0;
	if ((m == PE_METRIC_L2 || m == PE_METRIC_COSINE || m == PE_METRIC_CORR) &&
	    pe_toeplitz_init(v, &tz, &found) != PE_OK)
		return 0;
	int exact = auto_mode(v, found ? &tz : NULL, m, 0, 0) != PE_GRID_SAMPLED;
	if (found)
		pe_toeplitz_release(&tz);
	return exact;
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
	int offset_ok = offset_usable(v, found ? &tz : NULL, m);
	if (mode == PE_GRID_AUTO)
		mode = auto_mode(v, found ? &tz : NULL, m, R < n ? R : n, C < n ? C : n);
	struct pe_matrix *r = NULL;
	if (mode == PE_GRID_OFFSET && !offset_ok)
		st = PE_EINVAL;
	else if (!(r = pe_matrix_create(R < n ? R : n, C < n ? C : n)))
		st = PE_ENOMEM;
	else if (mode == PE_GRID_OFFSET)
		st = grid_offset(v, &tz, m, r);
	else if (mode == PE_GRID_ALL) {
		st = found ? PE_EUNSUPPORTED : grid_gram(v, m, r);
		if (st == PE_EUNSUPPORTED)
			st = grid_all(v, found ? &tz : NULL, m, r);
	} else
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
