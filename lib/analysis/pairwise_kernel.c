/*
 * pairwise_kernel.c - the offset kernel of sinusoidal and RoPE vectors,
 * per-position terms, and the metrics of raw rows
 *
 * The kernel S(D) = sum_i sin^2(D theta_i / 2) gives both the inner
 * product and the squared distance (see pairwise_internal.h). Forming it
 * from sin^2 of the half angle keeps small offsets exact, where
 * |x|^2 + |y|^2 - 2<x,y> would cancel.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "scheme/encode_internal.h"
#include "scheme/scheme_type.h"
#include "analysis/pairwise_internal.h"

/* Rounding must not push a value past its mathematical range (numpy's
 * corrcoef clips the same way); NaN passes through. */
static double clip(double x, double lo, double hi)
{
	return x < lo ? lo : x > hi ? hi : x;
}

enum pe_status pe_toeplitz_init(const struct pe_vectors *v, struct pe_toeplitz *tz, int *found)
{
	memset(tz, 0, sizeof(*tz));
	*found = 0;
	const struct pe_scheme *s = v->scheme;
	if (v->table || !s)
		return PE_OK;
	enum pe_kernel_form form = pe_scheme_kernel(s, v->view);
	int sinusoidal = form == PE_KERNEL_SINCOS;
	int rope = form == PE_KERNEL_ROTARY;
	if (!sinusoidal && !rope)
		return PE_OK;
	size_t d = v->d;
	double *theta = malloc((d ? d : 1) * sizeof(double));
	if (!theta)
		return PE_ENOMEM;
	size_t count = 0;
	enum pe_status st = pe_scheme_frequencies(s, d, theta, &count);
	if (st != PE_OK) {
		free(theta);
		return st;
	}
	if (sinusoidal) {
		/* ceil(d/2) frequencies for odd d: the last is a lone sine column;
		 * floor(d/2) for odd d: the last column is zero (t2t/fairseq). */
		tz->w = 1.0;
		tz->amp = 1.0;
		tz->sums_ok = 1;
		tz->npairs = d / 2 < count ? d / 2 : count;
		tz->total = (double)tz->npairs;
		tz->start = s->start;
		/* The paper's table divides by f_k = base^(2k/d) (encode.h); use
		 * the divisors when they are those of the frequencies. */
		tz->divide = s->freq == PE_FREQ_PAPER;
		for (size_t k = 0; k < count && tz->divide; k++) {
			double f = pow(s->base, (double)(2 * k) / (double)d);
			tz->divide = 1.0 / f == theta[k];
			if (tz->divide)
				theta[k] = f;
		}
		if (!tz->divide && (st = pe_scheme_frequencies(s, d, theta, &count)) != PE_OK) {
			free(theta);
			return st;
		}
		if (count > tz->npairs) {
			tz->has_lone = 1;
			tz->lone = theta[count - 1];
		}
	} else {
		/* A rotated all-ones pair contributes 2 a^2 cos(D theta), a the
		 * scaling's attention factor that the rotated view carries; the
		 * columns beyond the rotary width stay ones. */
		struct pe_rope_scaling_info info;
		size_t d_rot = pe_rope_rotary_width(s, d);
		st = pe_rope_theta(s, d_rot, theta, &info);
		if (st != PE_OK) {
			free(theta);
			return st;
		}
		double a2 = info.attention_factor * info.attention_factor;
		tz->w = 2.0 * a2;
		tz->rope = 1;
		tz->amp = info.attention_factor;
		tz->fixed = (double)(d - d_rot);
		/* an odd rotary width leaves a column that is neither */
		tz->sums_ok = d_rot % 2 == 0;
		tz->npairs = count;
		tz->total = tz->w * (double)count + (double)(d - d_rot);
	}
	for (size_t i = 0; i < tz->npairs; i++)
		theta[i] *= tz->divide ? 2.0 : 0.5;
	tz->half = theta;
	*found = 1;
	return PE_OK;
}

void pe_toeplitz_release(struct pe_toeplitz *tz)
{
	free(tz->half);
	tz->half = NULL;
}

void pe_toeplitz_half_sincos(const struct pe_toeplitz *tz, size_t i, double D, double *s, double *c)
{
	pe_exact_sincos(D, tz->half[i], tz->divide, s, c, NULL);
}

double pe_toeplitz_s(const struct pe_toeplitz *tz, uint64_t delta)
{
	double D = (double)delta, acc = 0.0;
	for (size_t i = 0; i < tz->npairs; i++) {
		double t, c;
		pe_toeplitz_half_sincos(tz, i, D, &t, &c);
		acc += t * t;
	}
	return acc;
}

double pe_toeplitz_lone(const struct pe_toeplitz *tz, uint64_t pos)
{
	if (!tz->has_lone)
		return 0.0;
	double s, c;
	pe_exact_sincos((double)pos + tz->start, tz->lone, tz->divide, &s, &c, NULL);
	return s;
}

/* Rows a group of pe_rows_terms() sums side by side. */
#define TERMS_GROUP 4

/*
 * norm, mean and cnorm of @g <= TERMS_GROUP rows of @d from @x (row-major)
 * into t[0..g-1]. Each row's sums are chains of dependent additions; @g
 * rows' chains interleaved keep the adders busy, and each row is summed in
 * its own order whatever @g, so its terms are the same bits.
 */
static inline void group_terms(const double *x, size_t g, size_t d, struct pe_posterm *t)
{
	double sq[TERMS_GROUP] = {0}, sum[TERMS_GROUP] = {0}, c[TERMS_GROUP] = {0};
	double mean[TERMS_GROUP];
	int constant[TERMS_GROUP], any_spread = 0;
	for (size_t j = 0; j < d; j++)
		for (size_t r = 0; r < g; r++) {
			double v = x[r * d + j];
			sq[r] += v * v;
			sum[r] += v;
		}
	/*
	 * A constant vector (RoPE at position 0, scaled by an attention factor)
	 * has no spread; a rounded mean would invent one of 1e-16 and with it
	 * a correlation where there is none.
	 */
	for (size_t r = 0; r < g; r++) {
		const double *y = x + r * d;
		constant[r] = 1;
		for (size_t j = 1; j < d && constant[r]; j++)
			constant[r] = y[j] == y[0];
		mean[r] = constant[r] ? (d ? y[0] : 0.0) : sum[r] / (double)d;
		any_spread |= !constant[r];
	}
	for (size_t j = 0; j < d && any_spread; j++)
		for (size_t r = 0; r < g; r++) {
			double v = x[r * d + j] - mean[r];
			c[r] += v * v;
		}
	for (size_t r = 0; r < g; r++) {
		t[r].norm = sqrt(sq[r]);
		t[r].mean = mean[r];
		t[r].cnorm = constant[r] ? 0.0 : sqrt(c[r]);
	}
}

void pe_row_terms(const double *x, size_t d, struct pe_posterm *t)
{
	group_terms(x, 1, d, t);
}

void pe_rows_terms(const double *rows, size_t n, size_t d, struct pe_posterm *t)
{
	memset(t, 0, n * sizeof(*t));
	size_t a = 0;
	for (; a + TERMS_GROUP <= n; a += TERMS_GROUP)
		group_terms(rows + a * d, TERMS_GROUP, d, t + a);
	for (; a < n; a++)
		group_terms(rows + a * d, 1, d, t + a);
}

enum pe_status pe_vectors_at(const struct pe_vectors *v, const uint64_t *pos, size_t count,
                             double *dst)
{
	size_t k = 0;
	while (k < count) {
		/* One call per run of consecutive positions. */
		size_t run = 1;
		while (k + run < count && pos[k + run] == pos[k] + run)
			run++;
		struct pe_vectors one = *v;
		one.first = pos[k];
		one.n = run;
		enum pe_status st = pe_vectors_rows(&one, 0, run, dst + k * v->d);
		if (st != PE_OK)
			return st;
		k += run;
	}
	return PE_OK;
}

struct terms_job {
	const struct pe_vectors *v;
	const struct pe_toeplitz *tz;
	const uint64_t *pos;
	int need_rows;
	const double *ssum, *csum; /* pe_toeplitz_sums(), or NULL: from rows */
	struct pe_posterm *out;
};

#define TERMS_GRAIN 64

/*
 * mean and cnorm from the row's sum: |x - mean|^2 = |x|^2 - sum mean. The
 * difference cancels when x is nearly constant, which is the ill case
 * (cnorm < 0.1 |x|): those positions take their rows.
 */
static enum pe_status terms_from_sums(const struct terms_job *j, size_t k, struct pe_posterm *t)
{
	const struct pe_toeplitz *tz = j->tz;
	double sum = tz->rope ? tz->amp * (2.0 * j->csum[k]) + tz->fixed
	                      : tz->amp * (j->ssum[k] + j->csum[k]) + t->e;
	double mean = sum / (double)j->v->d, c2 = t->norm * t->norm - sum * mean;
	t->mean = mean;
	t->cnorm = sqrt(c2 > 0.0 ? c2 : 0.0);
	if (!pe_posterm_ill(t))
		return PE_OK;
	double *row = malloc(j->v->d * sizeof(double));
	if (!row)
		return PE_ENOMEM;
	enum pe_status st = pe_vectors_at(j->v, &j->pos[k], 1, row);
	if (st == PE_OK) {
		double e = t->e, norm = t->norm;
		pe_row_terms(row, j->v->d, t);
		t->e = e;
		t->norm = norm;
	}
	free(row);
	return st;
}

static enum pe_status terms_chunk(void *ctx, size_t begin, size_t end)
{
	const struct terms_job *j = ctx;
	size_t d = j->v->d;
	double *rows = NULL;
	if ((j->need_rows && !j->ssum) || !j->tz) {
		rows = malloc((end - begin) * d * sizeof(double));
		if (!rows)
			return PE_ENOMEM;
		enum pe_status st = pe_vectors_at(j->v, j->pos + begin, end - begin, rows);
		if (st != PE_OK) {
			free(rows);
			return st;
		}
	}
	enum pe_status st = PE_OK;
	for (size_t k = begin; k < end && st == PE_OK; k++) {
		struct pe_posterm *t = &j->out[k];
		memset(t, 0, sizeof(*t));
		if (rows)
			pe_row_terms(rows + (k - begin) * d, d, t);
		if (j->tz) {
			t->e = pe_toeplitz_lone(j->tz, j->pos[k]);
			t->norm = sqrt(j->tz->total + t->e * t->e);
		}
		if (j->need_rows && j->ssum)
			st = terms_from_sums(j, k, t);
	}
	free(rows);
	return st;
}

enum pe_status pe_posterms(const struct pe_vectors *v, const struct pe_toeplitz *tz,
                           const uint64_t *pos, size_t count, int need_rows, struct pe_posterm *out)
{
	struct terms_job job = {v, tz, pos, need_rows, NULL, NULL, out};
	double *sums = NULL;
	/* Means from the pairs' sin and cos sums rather than from rows. */
	if (need_rows && tz && tz->sums_ok && count) {
		if (!(sums = malloc(2 * count * sizeof(double))))
			return PE_ENOMEM;
		enum pe_status st = pe_toeplitz_sums(tz, pos, count, sums, sums + count);
		if (st != PE_OK) {
			free(sums);
			return st;
		}
		job.ssum = sums;
		job.csum = sums + count;
	}
	enum pe_status st = pe_parallel_for(count, TERMS_GRAIN, terms_chunk, &job);
	free(sums);
	return st;
}

/* Four partial sums: independent chains the CPU can overlap. */
static inline __attribute__((always_inline)) double sq_diff(const double *a, const double *b,
                                                            size_t d)
{
	double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
	size_t j = 0;
	for (; j + 4 <= d; j += 4) {
		double t0 = a[j] - b[j], t1 = a[j + 1] - b[j + 1];
		double t2 = a[j + 2] - b[j + 2], t3 = a[j + 3] - b[j + 3];
		s0 += t0 * t0;
		s1 += t1 * t1;
		s2 += t2 * t2;
		s3 += t3 * t3;
	}
	for (; j < d; j++)
		s0 += (a[j] - b[j]) * (a[j] - b[j]);
	return (s0 + s1) + (s2 + s3);
}

static inline __attribute__((always_inline)) double abs_diff(const double *a, const double *b,
                                                             size_t d, int max)
{
	double s0 = 0, s1 = 0;
	size_t j = 0;
	for (; j + 2 <= d; j += 2) {
		double t0 = fabs(a[j] - b[j]), t1 = fabs(a[j + 1] - b[j + 1]);
		if (max) {
			s0 = t0 > s0 ? t0 : s0;
			s1 = t1 > s1 ? t1 : s1;
		} else {
			s0 += t0;
			s1 += t1;
		}
	}
	if (j < d) {
		double t = fabs(a[j] - b[j]);
		s0 = max ? (t > s0 ? t : s0) : s0 + t;
	}
	return max ? (s0 > s1 ? s0 : s1) : s0 + s1;
}

static inline __attribute__((always_inline)) double
dot_centered(const double *a, double ma, const double *b, double mb, size_t d)
{
	double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
	size_t j = 0;
	for (; j + 4 <= d; j += 4) {
		s0 += (a[j] - ma) * (b[j] - mb);
		s1 += (a[j + 1] - ma) * (b[j + 1] - mb);
		s2 += (a[j + 2] - ma) * (b[j + 2] - mb);
		s3 += (a[j + 3] - ma) * (b[j + 3] - mb);
	}
	for (; j < d; j++)
		s0 += (a[j] - ma) * (b[j] - mb);
	return (s0 + s1) + (s2 + s3);
}

/* The body of pe_rows_metric(), compiled once per instruction set below. */
static inline __attribute__((always_inline)) void
rows_metric(enum pe_metric m, size_t d, const double *A, size_t na, const struct pe_posterm *ta,
            const double *B, size_t nb, const struct pe_posterm *tb, double *out, size_t ldo)
{
	for (size_t i = 0; i < na; i++) {
		const double *a = A + i * d;
		double *o = out + i * ldo;
		for (size_t j = 0; j < nb; j++) {
			const double *b = B + j * d;
			switch (m) {
			case PE_METRIC_L2:
				o[j] = sqrt(sq_diff(a, b, d));
				break;
			case PE_METRIC_L1:
				o[j] = abs_diff(a, b, d, 0);
				break;
			case PE_METRIC_LINF:
				o[j] = abs_diff(a, b, d, 1);
				break;
			case PE_METRIC_COSINE:
				o[j] = clip(1.0 - dot_centered(a, 0.0, b, 0.0, d) /
				                            (ta[i].norm * tb[j].norm),
				            0.0, 2.0);
				break;
			case PE_METRIC_CORR:
				if (ta[i].cnorm == 0.0 || tb[j].cnorm == 0.0)
					o[j] = NAN;
				else
					o[j] = clip(dot_centered(a, ta[i].mean, b, tb[j].mean, d) /
					                    (ta[i].cnorm * tb[j].cnorm),
					            -1.0, 1.0);
				break;
			}
		}
	}
}

static void rows_metric_generic(enum pe_metric m, size_t d, const double *A, size_t na,
                                const struct pe_posterm *ta, const double *B, size_t nb,
                                const struct pe_posterm *tb, double *out, size_t ldo)
{
	rows_metric(m, d, A, na, ta, B, nb, tb, out, ldo);
}

#if defined(__x86_64__) && defined(__GNUC__)
/*
 * AVX2 holds sq_diff()'s four partial sums in one register: about 2x faster
 * than the SSE2 baseline with the same operations in the same order (no FMA:
 * -ffp-contract=off), so the same bits.
 */
__attribute__((target("avx2"))) static void
rows_metric_avx2(enum pe_metric m, size_t d, const double *A, size_t na,
                 const struct pe_posterm *ta, const double *B, size_t nb,
                 const struct pe_posterm *tb, double *out, size_t ldo)
{
	rows_metric(m, d, A, na, ta, B, nb, tb, out, ldo);
}
#endif

void pe_rows_metric(enum pe_metric m, size_t d, const double *A, size_t na,
                    const struct pe_posterm *ta, const double *B, size_t nb,
                    const struct pe_posterm *tb, double *out, size_t ldo)
{
#if defined(__x86_64__) && defined(__GNUC__)
	if (__builtin_cpu_supports("avx2")) {
		rows_metric_avx2(m, d, A, na, ta, B, nb, tb, out, ldo);
		return;
	}
#endif
	rows_metric_generic(m, d, A, na, ta, B, nb, tb, out, ldo);
}

int pe_posterm_ill(const struct pe_posterm *t)
{
	return t->cnorm < 0.1 * t->norm;
}

#define DIRECT_BATCH 64

enum pe_status pe_corr_direct(const struct pe_vectors *v, uint64_t p, const uint64_t *pos,
                              size_t count, const struct pe_posterm *t, double *out, size_t stride)
{
	size_t d = v->d;
	double *buf = malloc((DIRECT_BATCH + 1) * d * sizeof(double));
	if (!buf)
		return PE_ENOMEM;
	double *x = buf + DIRECT_BATCH * d;
	enum pe_status st = pe_vectors_at(v, &p, 1, x);
	struct pe_posterm tp;
	if (st == PE_OK)
		pe_row_terms(x, d, &tp);
	for (size_t k0 = 0; k0 < count && st == PE_OK; k0 += DIRECT_BATCH) {
		size_t nb = count - k0 < DIRECT_BATCH ? count - k0 : DIRECT_BATCH;
		st = pe_vectors_at(v, pos + k0, nb, buf);
		for (size_t k = 0; k < nb && st == PE_OK; k++) {
			const struct pe_posterm *tk = &t[k0 + k];
			double r = NAN;
			if (tp.cnorm != 0.0 && tk->cnorm != 0.0)
				r = clip(dot_centered(x, tp.mean, buf + k * d, tk->mean, d) /
				                 (tp.cnorm * tk->cnorm),
				         -1.0, 1.0);
			if (p == pos[k0 + k] && tp.cnorm != 0.0)
				r = 1.0;
			out[(k0 + k) * stride] = r;
		}
	}
	free(buf);
	return st;
}
