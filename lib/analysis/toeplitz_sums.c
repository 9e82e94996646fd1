/*
 * toeplitz_sums.c - sums over the pairs of sin and cos at given positions
 *
 * The mean of a sinusoidal or RoPE row is a sum of the sines and cosines of
 * its pairs; Pearson needs it at every sampled position. Forming rows costs
 * a libm sincos (and for the paper's frequencies a pow) per pair and
 * position; here a position p = A + 64 a + b turns the exact sin/cos of an
 * anchor A, a multiple of 4096 shared by nearby positions, by two tables:
 * sin/cos(64 a theta) and sin/cos(b theta). Positions in ascending order
 * share anchors; each value is two rotations (a few ulps) from an exactly
 * rounded one, at any position.
 */
#include <stdlib.h>

#include "analysis/pairwise_internal.h"
#include "core/wide_clones.h"

#define STEP  64
#define SPAN  (STEP * STEP)
#define LANES 8
/* Below this many positions the tables (2 STEP sincos per pair) cost more
 * than they save: every position takes exact sincos. */
#define TABLE_MIN (4 * STEP)

struct sums_job {
	const struct pe_toeplitz *tz;
	const uint64_t *pos;
	const double *c0, *s0; /* cos, sin(b theta_i) at [b * np + i] */
	const double *c1, *s1; /* cos, sin(STEP a theta_i) at [a * np + i] */
	double *ssum, *csum;
};

/*
 * sum_i of sin and cos of the anchors (sA, cA) turned by (c1, s1) and then
 * by (c0, s0): LANES partial sums, as the loop vectorises across pairs.
 */
WIDE_CLONES static void turn_sum(size_t np, const double *restrict sA, const double *restrict cA,
                                 const double *restrict c1, const double *restrict s1,
                                 const double *restrict c0, const double *restrict s0, double *ss,
                                 double *cs)
{
	double as[LANES] = {0}, ac[LANES] = {0};
	size_t i = 0;
	for (; i + LANES <= np; i += LANES) {
		for (size_t l = 0; l < LANES; l++) {
			size_t k = i + l;
			double s = sA[k] * c1[k] + cA[k] * s1[k];
			double c = cA[k] * c1[k] - sA[k] * s1[k];
			as[l] += s * c0[k] + c * s0[k];
			ac[l] += c * c0[k] - s * s0[k];
		}
	}
	for (; i < np; i++) {
		double s = sA[i] * c1[i] + cA[i] * s1[i];
		double c = cA[i] * c1[i] - sA[i] * s1[i];
		as[0] += s * c0[i] + c * s0[i];
		ac[0] += c * c0[i] - s * s0[i];
	}
	double ts = 0.0, tc = 0.0;
	for (size_t l = 0; l < LANES; l++) {
		ts += as[l];
		tc += ac[l];
	}
	*ss = ts;
	*cs = tc;
}

/* x = 2 (p + start): the half-angle tables take twice the position. */
static double twice(const struct pe_toeplitz *tz, uint64_t p)
{
	return 2.0 * ((double)p + tz->start);
}

static enum pe_status sums_chunk(void *ctx, size_t begin, size_t end)
{
	const struct sums_job *j = ctx;
	const struct pe_toeplitz *tz = j->tz;
	size_t np = tz->npairs;
	double *sA = malloc(2 * np * sizeof(double));
	if (!sA)
		return PE_ENOMEM;
	double *cA = sA + np;
	int have = 0;
	uint64_t cur = 0;
	for (size_t k = begin; k < end; k++) {
		uint64_t p = j->pos[k], A = p - p % SPAN;
		size_t r = (size_t)(p - A);
		if (!have || A != cur) {
			for (size_t i = 0; i < np; i++)
				pe_toeplitz_half_sincos(tz, i, twice(tz, A), &sA[i], &cA[i]);
			have = 1;
			cur = A;
		}
		size_t a = r / STEP, b = r % STEP;
		turn_sum(np, sA, cA, j->c1 + a * np, j->s1 + a * np, j->c0 + b * np, j->s0 + b * np,
		         &j->ssum[k], &j->csum[k]);
	}
	free(sA);
	return PE_OK;
}

static enum pe_status direct_chunk(void *ctx, size_t begin, size_t end)
{
	const struct sums_job *j = ctx;
	for (size_t k = begin; k < end; k++) {
		double ts = 0.0, tc = 0.0;
		for (size_t i = 0; i < j->tz->npairs; i++) {
			double s, c;
			pe_toeplitz_half_sincos(j->tz, i, twice(j->tz, j->pos[k]), &s, &c);
			ts += s;
			tc += c;
		}
		j->ssum[k] = ts;
		j->csum[k] = tc;
	}
	return PE_OK;
}

enum pe_status pe_toeplitz_sums(const struct pe_toeplitz *tz, const uint64_t *pos, size_t count,
                                double *ssum, double *csum)
{
	struct sums_job job = {tz, pos, NULL, NULL, NULL, NULL, ssum, csum};
	size_t np = tz->npairs;
	if (count < TABLE_MIN || np == 0)
		return pe_parallel_for(count, 16, direct_chunk, &job);
	double *tab = malloc(4 * STEP * np * sizeof(double));
	if (!tab)
		return PE_ENOMEM;
	double *c0 = tab, *s0 = c0 + STEP * np, *c1 = s0 + STEP * np, *s1 = c1 + STEP * np;
	for (size_t t = 0; t < STEP; t++) {
		for (size_t i = 0; i < np; i++) {
			pe_toeplitz_half_sincos(tz, i, 2.0 * (double)t, &s0[t * np + i],
			                        &c0[t * np + i]);
			pe_toeplitz_half_sincos(tz, i, 2.0 * (double)(t * STEP), &s1[t * np + i],
			                        &c1[t * np + i]);
		}
	}
	job.c0 = c0;
	job.s0 = s0;
	job.c1 = c1;
	job.s1 = s1;
	enum pe_status st = pe_parallel_for(count, 64, sums_chunk, &job);
	free(tab);
	return st;
}
