/*
 * pairwise_rows.c - rows of the full pairwise matrix on demand
 *
 * The same arithmetic as pe_pairwise_matrix() (pairwise.c), cut by rows so
 * that a writer can stream an n x n matrix in O(n) memory. One core
 * routine, fill_block(), computes a rectangle rows x [c0, c1) on the
 * calling thread; filling and the range pass spread rectangles over the
 * cores.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/pairwise_internal.h"

struct pe_pairwise_rows {
	struct pe_vectors v; /* a copy: rowsrc points at it */
	enum pe_metric m;
	int structured;
	struct pe_toeplitz tz;
	double *S;            /* structured: S(D), D < n */
	double *F;            /* the metric by offset, when it depends on nothing else */
	struct pe_posterm *t; /* per-position terms, or NULL (general l2, l1, linf) */
	uint64_t *pos;        /* first..first+n-1, for the direct corr of ill positions */
	size_t *ill, nill;    /* structured corr: positions recomputed from rows */
	struct pe_rowsrc src; /* general */
	int has_src;
	size_t bs; /* general: rows per block */
	/* general rows on the BLAS (pairwise_gram.c): whole rows a panel at a time */
	int gram;
	struct pe_gram g;
	double *panel;   /* GRAM_PANEL full rows, from row panel_r0 on */
	size_t panel_r0; /* SIZE_MAX: none yet */
	double *T;       /* GRAM_TRANS x GRAM_PANEL products of earlier rows */
};

/*
 * The Gram path's panels: rows [p0, p0 + GRAM_PANEL) against the columns
 * from p0 on, as pe_pairwise_matrix() forms its upper triangle (the same
 * products, so the same bits); the cells left of the diagonal come from the
 * earlier rows' products, GRAM_TRANS rows at a time. Only for sets large
 * enough that every product is a big one (n >= GRAM_STREAM_MIN_N, d >=
 * GRAM_STREAM_MIN_D): an optimised BLAS sums each cell in the same order
 * whatever the shape of a large product, but may take other kernels for
 * small ones. Smaller sets take the direct kernels here.
 */
#define GRAM_PANEL        PE_PAIRWISE_PANEL
#define GRAM_TRANS        2048
#define GRAM_STREAM_MIN_N 1024
#define GRAM_STREAM_MIN_D 16
/*
 * Rows of a serial source's products on the diagonal block of
 * pe_pairwise_rows_upper_cols(): a 1536-row block in 128-row steps costs
 * 0.039 s against 0.041 in 256-row steps (OpenBLAS, one Zen 4 core, d =
 * 768): fewer cells below the diagonal. A product keeps its cells' bits
 * whatever its shape only while it is large: OpenBLAS sends products of up
 * to about 100^3 multiply-adds to its small-matrix kernels, which sum in
 * another order (an 8 x 8 corner at n = 5000, d = 100 changed in the last
 * bit). So the halves only where 128 x 128 x d passes DIAG_MIN_PRODUCT
 * (the 256-row panels of the smallest d streamed, 16, are 256^2 x 16), and
 * only in blocks whose columns end on a multiple of 128: where a product's
 * last columns are a partial tile (n = 4111, 8191), the cells of those
 * columns in the product's last 8 rows went another way through OpenBLAS's
 * kernel, so their bits follow the product's row count.
 */
#define DIAG_STEP        128
#define DIAG_MIN_PRODUCT (256.0 * 256.0 * GRAM_STREAM_MIN_D)

static void extremes(const double *x, size_t count, double *lo, double *hi);

static int structurable(enum pe_metric m)
{
	return m == PE_METRIC_L2 || m == PE_METRIC_COSINE || m == PE_METRIC_CORR;
}

static enum pe_status build_structured(struct pe_pairwise_rows *r)
{
	size_t n = r->v.n;
	r->S = malloc(n * sizeof(double));
	r->t = malloc(n * sizeof(*r->t));
	if (!r->S || !r->t)
		return PE_ENOMEM;
	enum pe_status st = pe_posterms(&r->v, &r->tz, r->pos, n, r->m == PE_METRIC_CORR, r->t);
	if (st == PE_OK)
		st = pe_toeplitz_range(&r->tz, 0, n, r->S);
	if (st != PE_OK)
		return st;
	if (r->m == PE_METRIC_CORR) {
		for (size_t a = 0; a < n; a++)
			r->nill += pe_posterm_ill(&r->t[a]) != 0;
		if (r->nill && !(r->ill = malloc(r->nill * sizeof(size_t))))
			return PE_ENOMEM;
		for (size_t a = 0, k = 0; a < n; a++)
			if (pe_posterm_ill(&r->t[a]))
				r->ill[k++] = a;
		return PE_OK;
	}
	/* Without a lone column every position has the same terms (e = 0,
	 * |x|^2 = total), so l2 and cosine are one function of the offset. */
	if (r->tz.has_lone)
		return PE_OK;
	if (!(r->F = malloc(n * sizeof(double))))
		return PE_ENOMEM;
	for (size_t D = 0; D < n; D++)
		r->F[D] = pe_toeplitz_metric(&r->tz, r->v.d, r->m, r->S[D], &r->t[0], &r->t[0]);
	return PE_OK;
}

static enum pe_status build_general(struct pe_pairwise_rows *r, size_t budget)
{
	size_t n = r->v.n, d = r->v.d;
	enum pe_status st = pe_rowsrc_init(&r->src, &r->v, budget);
	r->has_src = st == PE_OK;
	r->bs = pe_block_rows(d);
	/* Each row's terms, from the rows the source holds when it holds them
	 * (a learned table is not made a second time for them), else made
	 * again in chunks; the same rows, so the same terms. */
	if (st == PE_OK && (r->m == PE_METRIC_COSINE || r->m == PE_METRIC_CORR)) {
		if (r->src.all)
			st = pe_gram_terms(r->src.all, n, d, &r->t);
		else if (!(r->t = malloc(n * sizeof(*r->t))))
			st = PE_ENOMEM;
		else
			st = pe_posterms(&r->v, NULL, r->pos, n, 1, r->t);
	}
	if (st != PE_OK || !r->src.all || n < GRAM_STREAM_MIN_N || d < GRAM_STREAM_MIN_D ||
	    !pe_gram_usable(r->m, d))
		return st;
	/* Rows the source made itself (not the caller's table) are read by
	 * nothing but the products from here on: corr centres them in place. */
	st = r->src.owned && r->m == PE_METRIC_CORR
	             ? pe_gram_init_in_place(&r->g, r->m, r->src.owned, n, d, r->t)
	             : pe_gram_init(&r->g, r->m, r->src.all, n, d, r->t);
	if (st == PE_EUNSUPPORTED) {
		pe_gram_release(&r->g);
		return PE_OK; /* the direct kernels then */
	}
	r->gram = 1;
	r->panel_r0 = SIZE_MAX;
	return st;
}

/* Rows [p0, p0 + GRAM_PANEL) whole into r->panel. */
static enum pe_status gram_panel(struct pe_pairwise_rows *r, size_t p0)
{
	size_t n = r->v.n, np = n - p0 < GRAM_PANEL ? n - p0 : GRAM_PANEL;
	/* made on first use: a writer of upper panels never needs them */
	if (!r->panel && !(r->panel = pe_buffer_alloc(GRAM_PANEL * n * sizeof(double))))
		return PE_ENOMEM;
	if (!r->T && !(r->T = pe_buffer_alloc((size_t)GRAM_TRANS * GRAM_PANEL * sizeof(double))))
		return PE_ENOMEM;
	double *P = r->panel;
	r->panel_r0 = SIZE_MAX;
	/* the upper part: pe_pairwise_matrix()'s product for these rows */
	enum pe_status st = pe_gram_block(&r->g, p0, np, p0, n - p0, P + p0, n);
	/* left of the diagonal within the panel: the mirror, as there */
	for (size_t a = 1; a < np && st == PE_OK; a++)
		for (size_t b = 0; b < a; b++)
			P[a * n + p0 + b] = P[b * n + p0 + a];
	/* left of the panel: the earlier rows' products with these columns */
	for (size_t q0 = 0; q0 < p0 && st == PE_OK; q0 += GRAM_TRANS) {
		size_t m = p0 - q0 < GRAM_TRANS ? p0 - q0 : GRAM_TRANS;
		st = pe_gram_block(&r->g, q0, m, p0, np, r->T, np);
		for (size_t b = 0; b < m && st == PE_OK; b++) {
			const double *t = r->T + b * np;
			for (size_t a = 0; a < np; a++)
				P[a * n + q0 + b] = t[a];
		}
	}
	if (st == PE_OK)
		r->panel_r0 = p0;
	return st;
}

static enum pe_status gram_fill(struct pe_pairwise_rows *r, size_t r0, size_t count, double *dst)
{
	size_t n = r->v.n;
	enum pe_status st = PE_OK;
	for (size_t a = r0; a < r0 + count && st == PE_OK;) {
		size_t p0 = a / GRAM_PANEL * GRAM_PANEL;
		if (r->panel_r0 != p0)
			st = gram_panel(r, p0);
		size_t end = p0 + GRAM_PANEL < r0 + count ? p0 + GRAM_PANEL : r0 + count;
		if (st == PE_OK)
			memcpy(dst + (a - r0) * n, r->panel + (a - p0) * n,
			       (end - a) * n * sizeof(double));
		a = end;
	}
	return st;
}

enum pe_status pe_pairwise_rows_upper(struct pe_pairwise_rows *r, size_t r0, size_t count,
                                      double *dst, size_t ldd)
{
	size_t n = r->v.n;
	if (r0 >= n)
		return r->gram ? PE_ERANGE : PE_EUNSUPPORTED;
	return pe_pairwise_rows_upper_cols(r, r0, count, r0, n - r0, dst, ldd);
}

/* pe_pairwise_rows_upper_cols(), the block below the diagonal mirrored or
 * (@mirror 0) left as it was. */
static enum pe_status upper_cols(struct pe_pairwise_rows *r, size_t r0, size_t count, size_t c0,
                                 size_t nc, double *dst, size_t ldd, int mirror)
{
	size_t n = r->v.n;
	if (!r->gram)
		return PE_EUNSUPPORTED;
	if (count == 0 || r0 >= n || count > n - r0 || r0 % PE_PAIRWISE_PANEL != 0 ||
	    (count % PE_PAIRWISE_PANEL != 0 && r0 + count != n) || nc == 0 || c0 >= n ||
	    nc > n - c0 || ldd < nc || c0 < r0 || (c0 != r0 && c0 < r0 + count) ||
	    (c0 == r0 && nc < count))
		return PE_ERANGE;
	enum pe_status st = PE_OK;
	/* Right of the rows' diagonal block every 256-row product below spans
	 * the same columns, so one product of all the rows has the same cells
	 * (the BLAS sums a cell over d in the same order whatever the number of
	 * rows) and packs the columns once instead of once per 256 rows. Not
	 * when the columns end in a partial tile (see DIAG_STEP): there the
	 * cells of the last columns follow the products' rows, so they stay
	 * 256-row products, as in pe_pairwise_rows_upper(). */
	int full_tiles = (c0 + nc) % DIAG_STEP == 0;
	int whole =
	        c0 >= r0 + count && full_tiles &&
	        (!r->g.serial || r0 / PE_PAIRWISE_PIECE == (r0 + count - 1) / PE_PAIRWISE_PIECE);
	/* On the diagonal block, a full 256-row panel in two products of 128
	 * rows: the same cells right of the diagonal (every product stays large,
	 * see DIAG_STEP), and a 128 x 128 block left of it not computed. */
	int halves = !whole && c0 == r0 && r->g.serial && full_tiles &&
	             (double)DIAG_STEP * DIAG_STEP * (double)r->g.d >= DIAG_MIN_PRODUCT;
	size_t np;
	/* the products from the diagonal (or c0) on: 256 rows each, as
	 * pe_pairwise_matrix()'s, or 128 (halves), or all the rows (whole) */
	for (size_t p0 = r0; p0 < r0 + count && st == PE_OK; p0 += np) {
		size_t left = r0 + count - p0;
		np = whole                           ? count
		     : left < PE_PAIRWISE_PANEL      ? left
		     : !halves                       ? PE_PAIRWISE_PANEL
		     : (p0 - r0) % PE_PAIRWISE_PANEL ? PE_PAIRWISE_PANEL - DIAG_STEP
		                                     : DIAG_STEP;
		/* Serial: cut at the pieces' columns (PE_PAIRWISE_PIECE from the
		 * piece-aligned row above p0), so a writer of whole panels and one of
		 * pieces make the same products: a product's shape can change the
		 * last bit of its cells (OpenBLAS's edge kernels). */
		size_t cut = r->g.serial ? PE_PAIRWISE_PIECE : n;
		size_t end = c0 + nc, from = p0 > c0 ? p0 : c0;
		while (from < end && st == PE_OK) {
			size_t base = p0 / PE_PAIRWISE_PIECE * PE_PAIRWISE_PIECE;
			size_t to = r->g.serial ? base + ((from - base) / cut + 1) * cut : end;
			to = to < end ? to : end;
			st = pe_gram_block(&r->g, p0, np, from, to - from,
			                   dst + (p0 - r0) * ldd + (from - c0), ldd);
			from = to;
		}
	}
	/* below the diagonal within the rows: the mirror, as pe_pairwise_matrix();
	 * in 8 x 8 blocks (ldd is often a multiple of 4 KiB: a column read
	 * cell by cell would fall in one cache set) */
	for (size_t a0 = 0; mirror && c0 == r0 && a0 < count && st == PE_OK; a0 += 8)
		for (size_t b0 = 0; b0 <= a0; b0 += 8)
			for (size_t a = a0; a < a0 + 8 && a < count; a++)
				for (size_t b = b0; b < b0 + 8 && b < a; b++)
					dst[a * ldd + b] = dst[b * ldd + a];
	return st;
}

enum pe_status pe_pairwise_rows_upper_cols(struct pe_pairwise_rows *r, size_t r0, size_t count,
                                           size_t c0, size_t nc, double *dst, size_t ldd)
{
	return upper_cols(r, r0, count, c0, nc, dst, ldd, 1);
}

enum pe_status pe_pairwise_rows_upper_cols_above(struct pe_pairwise_rows *r, size_t r0,
                                                 size_t count, size_t c0, size_t nc, double *dst,
                                                 size_t ldd)
{
	return upper_cols(r, r0, count, c0, nc, dst, ldd, 0);
}

int pe_pairwise_rows_concurrent(const struct pe_pairwise_rows *r)
{
	return r->gram && pe_gram_concurrent(&r->g);
}

int pe_pairwise_rows_serial(struct pe_pairwise_rows *r, int on)
{
	/* the panel kept for pe_pairwise_rows_fill() was made in the other mode */
	r->panel_r0 = SIZE_MAX;
	return r->gram ? pe_gram_serial(&r->g, on) : 0;
}

/* The extremes of the upper triangle (the matrix is symmetric bit for bit). */
static enum pe_status gram_range(struct pe_pairwise_rows *r, double *lo, double *hi)
{
	size_t n = r->v.n;
	enum pe_status st = PE_OK;
	r->panel_r0 = SIZE_MAX;
	if (!r->panel && !(r->panel = pe_buffer_alloc(GRAM_PANEL * n * sizeof(double))))
		return PE_ENOMEM;
	for (size_t p0 = 0; p0 < n && st == PE_OK; p0 += GRAM_PANEL) {
		size_t np = n - p0 < GRAM_PANEL ? n - p0 : GRAM_PANEL;
		st = pe_gram_block(&r->g, p0, np, p0, n - p0, r->panel + p0, n);
		for (size_t a = 0; a < np && st == PE_OK; a++)
			extremes(r->panel + a * n + p0 + a, n - p0 - a, lo, hi);
	}
	return st;
}

enum pe_status pe_pairwise_rows_create(const struct pe_vectors *v, enum pe_metric m, size_t budget,
                                       struct pe_pairwise_rows **out)
{
	*out = NULL;
	enum pe_status st = pe_pairwise_check(v, m);
	if (st != PE_OK)
		return st;
	struct pe_pairwise_rows *r = calloc(1, sizeof(*r));
	if (!r)
		return PE_ENOMEM;
	r->v = *v;
	r->m = m;
	r->pos = malloc(v->n * sizeof(uint64_t));
	if (!r->pos) {
		free(r);
		return PE_ENOMEM;
	}
	for (size_t i = 0; i < v->n; i++)
		r->pos[i] = v->first + i;
	int found = 0;
	st = structurable(m) ? pe_toeplitz_init(&r->v, &r->tz, &found) : PE_OK;
	r->structured = found;
	if (st == PE_OK)
		st = found ? build_structured(r) : build_general(r, budget);
	if (st != PE_OK) {
		pe_pairwise_rows_destroy(r);
		return st;
	}
	*out = r;
	return PE_OK;
}

int pe_pairwise_rows_structured(const struct pe_pairwise_rows *r)
{
	return r->structured;
}

int pe_pairwise_rows_streams(const struct pe_pairwise_rows *r)
{
	return r->structured || r->gram;
}

const double *pe_pairwise_rows_offsets(const struct pe_pairwise_rows *r)
{
	return r->structured ? r->F : NULL;
}

int pe_pairwise_rows_streamable(const struct pe_vectors *v, enum pe_metric m)
{
	if (pe_pairwise_has_structure(v, m))
		return 1;
	return pe_pairwise_check(v, m) == PE_OK && structurable(m) && v->n >= GRAM_STREAM_MIN_N &&
	       v->d >= GRAM_STREAM_MIN_D && pe_gram_usable(m, v->d);
}

int pe_pairwise_has_structure(const struct pe_vectors *v, enum pe_metric m)
{
	if (pe_pairwise_check(v, m) != PE_OK || !structurable(m))
		return 0;
	struct pe_toeplitz tz;
	int found = 0;
	if (pe_toeplitz_init(v, &tz, &found) != PE_OK)
		return 0;
	if (found)
		pe_toeplitz_release(&tz);
	return found;
}

void pe_pairwise_rows_destroy(struct pe_pairwise_rows *r)
{
	if (!r)
		return;
	if (r->structured)
		pe_toeplitz_release(&r->tz);
	if (r->gram)
		pe_gram_release(&r->g);
	pe_buffer_free(r->panel);
	pe_buffer_free(r->T);
	if (r->has_src)
		pe_rowsrc_release(&r->src);
	free(r->S);
	free(r->F);
	free(r->t);
	free(r->pos);
	free(r->ill);
	free(r);
}

/* ---- one rectangle on the calling thread ---- */

/* Row a, columns [c0, c1): F[|a - b|] is F reversed up to the diagonal. */
static void offset_row(const double *F, size_t a, size_t c0, size_t c1, double *o)
{
	size_t b = c0;
	for (; b < c1 && b < a; b++)
		o[b - c0] = F[a - b];
	if (b < c1)
		memcpy(o + (b - c0), F + (b - a), (c1 - b) * sizeof(double));
}

/* Row a, columns [c0, c1), from the kernel: @m a constant in each call
 * below, so the inlined metric loses its switch. */
static inline void kernel_cells(const struct pe_pairwise_rows *r, enum pe_metric m, size_t a,
                                size_t c0, size_t c1, double *o)
{
	const struct pe_posterm *t = r->t, *ta = &r->t[a];
	const double *S = r->S;
	size_t d = r->v.d, b = c0;
	for (; b < c1 && b < a; b++)
		o[b - c0] = pe_toeplitz_metric(&r->tz, d, m, S[a - b], ta, &t[b]);
	for (; b < c1; b++)
		o[b - c0] = pe_toeplitz_metric(&r->tz, d, m, S[b - a], ta, &t[b]);
}

static void kernel_row(const struct pe_pairwise_rows *r, size_t a, size_t c0, size_t c1, double *o)
{
	switch (r->m) {
	case PE_METRIC_L2:
		kernel_cells(r, PE_METRIC_L2, a, c0, c1, o);
		break;
	case PE_METRIC_COSINE:
		kernel_cells(r, PE_METRIC_COSINE, a, c0, c1, o);
		break;
	default:
		kernel_cells(r, PE_METRIC_CORR, a, c0, c1, o);
		break;
	}
}

/*
 * Nearly constant vectors (pe_posterm_ill()) take their correlations from
 * rows, as pe_pairwise_matrix() does: their own rows wholly, and their
 * columns in the other rows (corr is symmetric).
 */
static enum pe_status fix_ill(const struct pe_pairwise_rows *r, size_t r0, size_t count, size_t c0,
                              size_t c1, double *dst, size_t ldo)
{
	enum pe_status st = PE_OK;
	double *col = NULL;
	for (size_t k = 0; k < r->nill && st == PE_OK; k++) {
		size_t b = r->ill[k];
		if (b < c0 || b >= c1)
			continue;
		if (!col && !(col = malloc(count * sizeof(double))))
			return PE_ENOMEM;
		st = pe_corr_direct(&r->v, r->pos[b], r->pos + r0, count, r->t + r0, col, 1);
		for (size_t a = 0; a < count && st == PE_OK; a++)
			dst[a * ldo + (b - c0)] = col[a];
	}
	free(col);
	for (size_t a = r0; a < r0 + count && st == PE_OK; a++)
		if (pe_posterm_ill(&r->t[a]))
			st = pe_corr_direct(&r->v, r->pos[a], r->pos + c0, c1 - c0, r->t + c0,
			                    dst + (a - r0) * ldo, 1);
	return st;
}

/* A vector against itself: 0 apart, correlation 1 (NaN if constant),
 * as pairwise.c's exact_diagonal(). */
static void general_diagonal(const struct pe_pairwise_rows *r, size_t r0, size_t count, size_t c0,
                             size_t c1, double *dst, size_t ldo)
{
	for (size_t a = r0 > c0 ? r0 : c0; a < r0 + count && a < c1; a++) {
		double *x = &dst[(a - r0) * ldo + (a - c0)];
		if (r->m == PE_METRIC_CORR)
			*x = r->t[a].cnorm > 0.0 ? 1.0 : NAN;
		else if (r->m != PE_METRIC_COSINE || r->t[a].norm > 0.0)
			*x = 0.0;
	}
}

/* Rows r0..r0+count-1, columns [c0, c1), into dst (leading dimension ldo).
 * General path only: @A the rows' vectors, or NULL to get them into @buf;
 * @buf room for (count + bs) * d doubles. */
static enum pe_status fill_block(const struct pe_pairwise_rows *r, size_t r0, size_t count,
                                 size_t c0, size_t c1, double *dst, size_t ldo, const double *A,
                                 double *buf)
{
	if (r->structured) {
		for (size_t a = r0; a < r0 + count; a++) {
			if (r->F)
				offset_row(r->F, a, c0, c1, dst + (a - r0) * ldo);
			else
				kernel_row(r, a, c0, c1, dst + (a - r0) * ldo);
		}
		return r->nill ? fix_ill(r, r0, count, c0, c1, dst, ldo) : PE_OK;
	}
	size_t d = r->v.d, bs = r->bs;
	enum pe_status st = A ? PE_OK : pe_rowsrc_get(&r->src, r0, count, buf, &A);
	const struct pe_posterm *ta = r->t ? r->t + r0 : NULL;
	for (size_t j0 = c0; j0 < c1 && st == PE_OK; j0 += bs) {
		size_t nj = c1 - j0 < bs ? c1 - j0 : bs;
		const double *B;
		st = pe_rowsrc_get(&r->src, j0, nj, buf + count * d, &B);
		if (st != PE_OK)
			break;
		/* A in slices of bs rows, so a slice and B stay in cache. */
		for (size_t i = 0; i < count; i += bs) {
			size_t ni = count - i < bs ? count - i : bs;
			pe_rows_metric(r->m, d, A + i * d, ni, ta ? ta + i : NULL, B, nj,
			               r->t ? r->t + j0 : NULL, dst + i * ldo + (j0 - c0), ldo);
		}
	}
	if (st == PE_OK)
		general_diagonal(r, r0, count, c0, c1, dst, ldo);
	return st;
}

/* ---- filling rows on every core ---- */

struct fill_job {
	const struct pe_pairwise_rows *r;
	size_t r0, count;
	const double *A; /* general: the rows' vectors */
	double *dst;
};

/* structured: chunks are rows */
static enum pe_status fill_rows_chunk(void *ctx, size_t begin, size_t end)
{
	const struct fill_job *j = ctx;
	size_t n = j->r->v.n;
	return fill_block(j->r, j->r0 + begin, end - begin, 0, n, j->dst + begin * n, n, NULL,
	                  NULL);
}

/* general: chunks are column blocks, each against all the rows */
static enum pe_status fill_cols_chunk(void *ctx, size_t begin, size_t end)
{
	const struct fill_job *j = ctx;
	const struct pe_pairwise_rows *r = j->r;
	size_t n = r->v.n, bs = r->bs;
	size_t c0 = begin * bs, c1 = end * bs < n ? end * bs : n;
	double *buf = malloc((j->count + bs) * r->v.d * sizeof(double));
	if (!buf)
		return PE_ENOMEM;
	enum pe_status st = fill_block(r, j->r0, j->count, c0, c1, j->dst + c0, n, j->A, buf);
	free(buf);
	return st;
}

enum pe_status pe_pairwise_rows_fill(struct pe_pairwise_rows *r, size_t r0, size_t count,
                                     double *dst)
{
	size_t n = r->v.n;
	if (count == 0 || r0 >= n || count > n - r0)
		return PE_ERANGE;
	if (r->gram)
		return gram_fill(r, r0, count, dst);
	struct fill_job job = {r, r0, count, NULL, dst};
	if (r->structured) {
		/* about 64 Ki cells a chunk: enough to pay for a thread */
		size_t grain = n >= 65536 ? 1 : 65536 / n;
		return pe_parallel_for(count, grain, fill_rows_chunk, &job);
	}
	/* The rows' vectors once for all column chunks; a few column blocks a
	 * chunk, so each holds its rows' slice in cache for a while. */
	double *A = NULL;
	enum pe_status st = PE_OK;
	if (!r->src.all) {
		A = pe_buffer_alloc(count * r->v.d * sizeof(double));
		st = A ? pe_vectors_rows(&r->v, r0, count, A) : PE_ENOMEM;
		job.A = A;
	} else {
		job.A = r->src.all + r0 * r->v.d;
	}
	size_t blocks = (n + r->bs - 1) / r->bs;
	if (st == PE_OK)
		st = pe_parallel_for(blocks, 4, fill_cols_chunk, &job);
	pe_buffer_free(A);
	return st;
}

/* ---- the range ---- */

struct range_job {
	const struct pe_pairwise_rows *r;
	size_t rows;     /* per chunk */
	double *lo, *hi; /* one per chunk */
};

static void extremes(const double *x, size_t count, double *lo, double *hi)
{
	for (size_t i = 0; i < count; i++) {
		if (!isfinite(x[i]))
			continue;
		*lo = x[i] < *lo ? x[i] : *lo;
		*hi = x[i] > *hi ? x[i] : *hi;
	}
}

/* Rows of one chunk against the columns from the chunk's first row on:
 * the upper triangle and a little of the diagonal block's lower half. */
static enum pe_status range_chunk(void *ctx, size_t begin, size_t end)
{
	const struct range_job *j = ctx;
	const struct pe_pairwise_rows *r = j->r;
	size_t n = r->v.n, d = r->v.d;
	size_t rows = j->rows, bs = r->structured ? 0 : r->bs;
	double *out = malloc(rows * n * sizeof(double));
	double *buf = bs ? malloc((rows + bs) * d * sizeof(double)) : NULL;
	enum pe_status st = out && (buf || !bs) ? PE_OK : PE_ENOMEM;
	for (size_t k = begin; k < end && st == PE_OK; k++) {
		size_t r0 = k * rows, cnt = n - r0 < rows ? n - r0 : rows;
		j->lo[k] = INFINITY;
		j->hi[k] = -INFINITY;
		st = fill_block(r, r0, cnt, r0, n, out, n - r0, NULL, buf);
		if (st == PE_OK)
			extremes(out, cnt * (n - r0), &j->lo[k], &j->hi[k]);
	}
	free(out);
	free(buf);
	return st;
}

enum pe_status pe_pairwise_rows_range(struct pe_pairwise_rows *r, double *lo, double *hi)
{
	size_t n = r->v.n;
	double l = INFINITY, h = -INFINITY;
	enum pe_status st = PE_OK;
	if (r->F) {
		extremes(r->F, n, &l, &h);
	} else if (r->gram) {
		st = gram_range(r, &l, &h);
	} else {
		/* Rows produced on demand cost a pass over all n per chunk: fewer,
		 * larger chunks then. */
		size_t rows = r->structured ? 16 : r->src.all ? r->bs : 64;
		size_t chunks = (n + rows - 1) / rows;
		double *ext = malloc(2 * chunks * sizeof(double));
		if (!ext)
			return PE_ENOMEM;
		struct range_job job = {r, rows, ext, ext + chunks};
		st = pe_parallel_for(chunks, 1, range_chunk, &job);
		for (size_t k = 0; k < chunks && st == PE_OK; k++) {
			l = ext[k] < l ? ext[k] : l;
			h = ext[chunks + k] > h ? ext[chunks + k] : h;
		}
		free(ext);
	}
	if (st != PE_OK)
		return st;
	if (!(l <= h))
		return PE_ERANGE;
	*lo = l;
	*hi = h;
	return PE_OK;
}
