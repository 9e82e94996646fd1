/*
 * pairwise_internal.h - shared pieces of the pairwise analyses (private)
 */
#ifndef POSENC_PAIRWISE_INTERNAL_H
#define POSENC_PAIRWISE_INTERNAL_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include <posenc/encode.h>
#include <posenc/pairwise.h>

/*
 * The offset structure of sinusoidal and RoPE vectors: for positions m, n
 * with offset D = m - n,
 *   <x_m, x_n>   = total - 2 w S(D) + e_m e_n
 *   |x_m - x_n|^2 = 4 w S(D) + (e_m - e_n)^2
 * where S(D) = sum_i sin^2(D theta_i / 2) over the pairs, w the weight of a
 * pair (1 for a sin/cos pair, 2 for a rotated all-ones pair), total = |x|^2
 * without the lone column, and e_p = sin((p + start) theta_lone) the lone
 * sine column of odd-d sinusoidal tables (0 when there is none).
 *
 * Angles are formed as the encoders form them (posenc/encode.h): the exact
 * real product D * theta_i / 2, or quotient D / (2 f_i) for the paper's
 * sinusoidal frequencies 1 / f_i, so S agrees with rows at any position.
 */
struct pe_toeplitz {
	size_t npairs;
	double *half; /* theta_i / 2, or 2 f_i when divide; npairs + 1; owned */
	int divide;
	double w;
	double total;
	int has_lone;
	double lone; /* theta or f of the lone column, as half[] */
	double start;
	/* The sum of a row's entries from the pairs' sin and cos (see
	 * pe_toeplitz_sums()): sum = amp (sum_s + sum_c) + e, sinusoidal,
	 * or amp 2 sum_c + fixed, RoPE (pairs (c - s, s + c), fixed ones). */
	int sums_ok;
	int rope;
	double amp;
	double fixed;
};

/* sin and cos of the half angle D theta_i / 2 of pair i. */
void pe_toeplitz_half_sincos(const struct pe_toeplitz *tz, size_t i, double D, double *s,
                             double *c);

/*
 * pe_toeplitz_init() - the offset structure of @v, if it has one
 *
 * @return PE_OK with *found 1 and @tz filled (release with
 * pe_toeplitz_release()), PE_OK with *found 0 when @v has no such structure,
 * or an error of pe_scheme_frequencies().
 */
enum pe_status pe_toeplitz_init(const struct pe_vectors *v, struct pe_toeplitz *tz, int *found);
void pe_toeplitz_release(struct pe_toeplitz *tz);

/* S(D) for one offset, O(npairs). */
double pe_toeplitz_s(const struct pe_toeplitz *tz, uint64_t delta);

/* S(lo + k) for k < count into out, O(count npairs) on every core. */
enum pe_status pe_toeplitz_range(const struct pe_toeplitz *tz, uint64_t lo, size_t count,
                                 double *out);

/* S(lo + k step) for k < count into out, as accurate and as fast as step 1. */
enum pe_status pe_toeplitz_range_step(const struct pe_toeplitz *tz, uint64_t lo, uint64_t step,
                                      size_t count, double *out);

/*
 * pe_toeplitz_sums() - sums over the pairs of sin and cos of the angles
 * (pos[k] + start) theta_i of each position, into ssum[k] and csum[k]
 *
 * The angles are those the encoders form; each value is at most two table
 * rotations from an exactly rounded sin/cos. O(npairs) per position.
 */
enum pe_status pe_toeplitz_sums(const struct pe_toeplitz *tz, const uint64_t *pos, size_t count,
                                double *ssum, double *csum);

/* e_p for an absolute position. */
double pe_toeplitz_lone(const struct pe_toeplitz *tz, uint64_t pos);

/* Per-position terms of one vector: what the metrics need besides S(D). */
struct pe_posterm {
	double e;     /* lone column value (structured) */
	double norm;  /* |x| */
	double mean;  /* mean of the d features */
	double cnorm; /* |x - mean| */
};

/*
 * pe_posterms() - per-position terms of the vectors at relative rows
 * rows[0..count-1] of @v (absolute position v->first + rows[k])
 *
 * @need_rows: also fill mean and cnorm (needs the rows themselves).
 */
enum pe_status pe_posterms(const struct pe_vectors *v, const struct pe_toeplitz *tz,
                           const uint64_t *pos, size_t count, int need_rows,
                           struct pe_posterm *out);

/*
 * Pearson from the kernel is (<x,y> - d mx my) / (|x-mx| |y-my|): when a
 * vector is nearly constant (|x - mx| small next to |x|, RoPE near
 * position 0, d = 2 or 3) the difference cancels. Such positions are
 * recomputed from rows with pe_corr_direct().
 */
int pe_posterm_ill(const struct pe_posterm *t);

/*
 * pe_corr_direct() - Pearson of position @p against positions pos[0..count)
 * from their rows, out[k * stride]; @t holds the terms of pos[].
 */
enum pe_status pe_corr_direct(const struct pe_vectors *v, uint64_t p, const uint64_t *pos,
                              size_t count, const struct pe_posterm *t, double *out, size_t stride);

/* As pairwise_kernel.c's clip(): rounding must not push a value past its
 * range; NaN passes through. */
static inline double pe_clip(double x, double lo, double hi)
{
	return x < lo ? lo : x > hi ? hi : x;
}

/*
 * The metric of two positions from S(D) and their terms. Inline: it is the
 * per-cell work of every structured matrix, and with @m a constant the
 * compiler drops the switch from the loop.
 */
static inline double pe_toeplitz_metric(const struct pe_toeplitz *tz, size_t d, enum pe_metric m,
                                        double s, const struct pe_posterm *a,
                                        const struct pe_posterm *b)
{
	double de = a->e - b->e;
	/* S(0) = 0 only at offset 0: the same vector, whose values are exact. */
	int same = s == 0.0 && de == 0.0;
	switch (m) {
	case PE_METRIC_L2:
		return sqrt(4.0 * tz->w * s + de * de);
	case PE_METRIC_COSINE: {
		if (same && a->norm > 0.0)
			return 0.0;
		double ip = tz->total - 2.0 * tz->w * s + a->e * b->e;
		return pe_clip(1.0 - ip / (a->norm * b->norm), 0.0, 2.0);
	}
	case PE_METRIC_CORR: {
		if (a->cnorm == 0.0 || b->cnorm == 0.0)
			return NAN;
		if (same)
			return 1.0;
		double ip = tz->total - 2.0 * tz->w * s + a->e * b->e;
		/* d * (ma * mb) keeps corr(a, b) == corr(b, a) bit for bit */
		return pe_clip((ip - (double)d * (a->mean * b->mean)) / (a->cnorm * b->cnorm), -1.0,
		               1.0);
	}
	default:
		return NAN;
	}
}

/*
 * pe_rows_metric() - the metric of every row of A against every row of B
 *
 * A (na x d) and B (nb x d) are raw rows; out[i * ldo + j] = metric(A_i,
 * B_j). For cosine and corr, ta and tb hold the rows' norm/mean/cnorm.
 */
void pe_rows_metric(enum pe_metric m, size_t d, const double *A, size_t na,
                    const struct pe_posterm *ta, const double *B, size_t nb,
                    const struct pe_posterm *tb, double *out, size_t ldo);

/* norm, mean and cnorm of one raw row */
void pe_row_terms(const double *x, size_t d, struct pe_posterm *t);

/* pe_row_terms() of @n rows of @d, row-major, into t[0..n-1] (other
 * fields zero): the same bits, several rows at a time. */
void pe_rows_terms(const double *rows, size_t n, size_t d, struct pe_posterm *t);

/*
 * pe_vectors_at() - rows of @v at absolute positions pos[0..count-1]
 * into dst (count * d), which need not lie in first..first+n-1
 */
enum pe_status pe_vectors_at(const struct pe_vectors *v, const uint64_t *pos, size_t count,
                             double *dst);

/*
 * pe_parallel_for() - run fn(ctx, begin, end) over [0, n) in chunks of
 * @grain, on every online core (at most 64 threads)
 *
 * @return the first non-PE_OK status a chunk returned, PE_OK otherwise.
 * Chunks are handed out in ascending order.
 */
typedef enum pe_status (*pe_chunk_fn)(void *ctx, size_t begin, size_t end);
enum pe_status pe_parallel_for(size_t n, size_t grain, pe_chunk_fn fn, void *ctx);

/*
 * Rows of a vector set for the general path: a pointer into the table, the
 * whole set computed once when it is small, or blocks computed on demand.
 */
struct pe_rowsrc {
	const struct pe_vectors *v;
	const double *all; /* rows 0..n-1 of the set, or NULL */
	double *owned;
};

/* Materialise the set when it takes at most @limit bytes (or 4 MiB). */
enum pe_status pe_rowsrc_init(struct pe_rowsrc *src, const struct pe_vectors *v, size_t limit);
/* Rows r0..r0+count-1: *rows points into the source or at @buf (count * d). */
enum pe_status pe_rowsrc_get(const struct pe_rowsrc *src, size_t r0, size_t count, double *buf,
                             const double **rows);
void pe_rowsrc_release(struct pe_rowsrc *src);

/* Rows per block of the general path: two blocks stay in L2. */
size_t pe_block_rows(size_t d);

/*
 * The Gram-matrix path (pairwise_gram.c): l2, cosine and corr of general
 * rows from BLAS products, within 1e-12 relative (l2) or absolute (cosine,
 * corr) of the direct kernels. Only when built with a CBLAS.
 */
struct pe_gram {
	enum pe_metric m;
	size_t n, d;
	const double *X;            /* the rows multiplied: raw, or centred for corr */
	const double *raw;          /* the rows themselves (l2 recomputation) */
	const struct pe_posterm *t; /* cosine: norm; corr: mean and cnorm */
	double *owned;              /* centred copy (corr) */
	double *sq;                 /* l2: |x|^2 per row */
	double *scale;              /* cosine: |x|, corr: |x - mean|, per row */
	int zero_scale;             /* some row's scale is 0 */
	double tau;                 /* l2: recompute when d2 < tau (|a|^2 + |b|^2) */
	size_t kc;                  /* columns per product: d, or l2's chunks */
	int serial;                 /* products and transform on the calling thread alone */
};

/* Whether the Gram path is built in and pays for metric @m at dimension @d. */
int pe_gram_usable(enum pe_metric m, size_t d);
/* @rows: n x d, kept by the caller; @t: the rows' terms (cosine, corr). */
enum pe_status pe_gram_init(struct pe_gram *g, enum pe_metric m, const double *rows, size_t n,
                            size_t d, const struct pe_posterm *t);
/* pe_gram_init() on rows the caller gives up: corr centres them in place
 * instead of in a copy (the table's memory once, not twice), so @rows no
 * longer hold the set when it returns PE_OK for corr. */
enum pe_status pe_gram_init_in_place(struct pe_gram *g, enum pe_metric m, double *rows, size_t n,
                                     size_t d, const struct pe_posterm *t);
void pe_gram_release(struct pe_gram *g);
/* Whether, in serial mode, pe_gram_block() may run on two threads at once
 * (the BLAS allows concurrent calls). */
int pe_gram_concurrent(const struct pe_gram *g);
/* One BLAS thread and the transform on the caller (@on), or the BLAS's
 * threads back as they were; 1 when the BLAS is single-threaded then. */
int pe_gram_serial(struct pe_gram *g, int on);
/* The terms of every row, as pe_posterms() gives them for general rows;
 * *out is malloc'ed (the caller frees it). */
enum pe_status pe_gram_terms(const double *rows, size_t n, size_t d, struct pe_posterm **out);
/* The metric of rows [r0, r0+nr) against rows [c0, c0+nc) into out (leading
 * dimension ldo). Call from one thread: the BLAS and the transform use the
 * cores themselves. */
enum pe_status pe_gram_block(const struct pe_gram *g, size_t r0, size_t nr, size_t c0, size_t nc,
                             double *out, size_t ldo);

/* Grid evaluation modes (pe_pairwise_grid() picks one; tests can force). */
enum pe_grid_mode {
	PE_GRID_AUTO,
	PE_GRID_OFFSET,  /* exact, prefix sums of an offset-only kernel */
	PE_GRID_ALL,     /* exact, every pair */
	PE_GRID_SAMPLED, /* sampled positions per cell */
};

enum pe_status pe_pairwise_grid_mode(const struct pe_vectors *v, enum pe_metric m, size_t R,
                                     size_t C, enum pe_grid_mode mode, struct pe_matrix **out);

#endif
