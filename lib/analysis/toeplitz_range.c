/*
 * toeplitz_range.c - S(D) = sum_i sin^2(D phi_i) for a run of offsets
 *
 * A block of BLOCK offsets D0 + a INNER + b (a < OUTER, b < INNER) starts
 * from an exact sin/cos of D0 phi per pair (the anchor), turns it by a
 * table of sin/cos(a INNER phi) to each row's start and by a table of
 * sin/cos(b phi) to each offset. Every value is thus two rotations from an
 * exactly rounded one: a few ulps at any offset, no drift. The anchor (one
 * libm sincos) is shared by BLOCK offsets, the row rotation by INNER, and
 * the per-offset work, two products, a sum and a square, runs over b in a
 * loop that vectorises. The tables are 16 (INNER + OUTER) bytes per pair,
 * the row table of a pair is read INNER times from L1.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/pairwise_internal.h"
#include "core/wide_clones.h"

#define INNER 32
#define OUTER 64
#define BLOCK (INNER * OUTER)

struct range_job {
	const struct pe_toeplitz *tz;
	uint64_t lo, step;
	size_t count;
	size_t inner, outer;   /* INNER, OUTER, or less for a short run */
	const double *c0, *s0; /* cos, sin(b phi_i) at [i * inner + b] */
	const double *c1, *s1; /* cos, sin(a inner phi_i) at [a * npairs + i] */
	double *out;
};

/*
 * A whole block for four pairs: acc[a INNER + b] += sin^2(x_k + (a INNER +
 * b) phi_k) over pairs k < 4, from the anchors sin/cos(x_k) in sA, cA.
 * acc stays in a register across the four pairs; the sums run in pair
 * order, as one pair at a time would. c0/s0 hold the pairs' offset tables
 * one after the other, c1/s1 the row tables at [a * np + k].
 */
WIDE_CLONES static void add_block4(double *restrict acc, const double *restrict c0,
                                   const double *restrict s0, const double *restrict c1,
                                   const double *restrict s1, size_t np, const double *sA,
                                   const double *cA)
{
	for (size_t a = 0; a < OUTER; a++) {
		double s[4], c[4];
		for (size_t k = 0; k < 4; k++) {
			s[k] = sA[k] * c1[a * np + k] + cA[k] * s1[a * np + k];
			c[k] = cA[k] * c1[a * np + k] - sA[k] * s1[a * np + k];
		}
		double *o = acc + a * INNER;
		for (size_t b = 0; b < INNER; b++) {
			double t0 = s[0] * c0[b] + c[0] * s0[b];
			double t1 = s[1] * c0[INNER + b] + c[1] * s0[INNER + b];
			double t2 = s[2] * c0[2 * INNER + b] + c[2] * s0[2 * INNER + b];
			double t3 = s[3] * c0[3 * INNER + b] + c[3] * s0[3 * INNER + b];
			o[b] = o[b] + t0 * t0 + t1 * t1 + t2 * t2 + t3 * t3;
		}
	}
}

static void add_row(double *restrict acc, const double *restrict c0, const double *restrict s0,
                    double s, double c, size_t len)
{
	for (size_t b = 0; b < len; b++) {
		double t = s * c0[b] + c * s0[b];
		acc[b] += t * t;
	}
}

static void range_block(const struct range_job *j, double D0, size_t len, double *acc)
{
	size_t np = j->tz->npairs, in = j->inner;
	size_t rows = (len + in - 1) / in;
	size_t i = 0;
	memset(acc, 0, len * sizeof(double));
	/* Whole blocks, the bulk of a long run, take four pairs at a time. */
	if (in == INNER && len == BLOCK) {
		for (; i + 4 <= np; i += 4) {
			double sA[4], cA[4];
			for (size_t k = 0; k < 4; k++)
				pe_toeplitz_half_sincos(j->tz, i + k, D0, &sA[k], &cA[k]);
			add_block4(acc, j->c0 + i * INNER, j->s0 + i * INNER, j->c1 + i, j->s1 + i,
			           np, sA, cA);
		}
	}
	for (; i < np; i++) {
		double sA, cA;
		pe_toeplitz_half_sincos(j->tz, i, D0, &sA, &cA);
		const double *c0 = j->c0 + i * in, *s0 = j->s0 + i * in;
		for (size_t a = 0; a < rows; a++) {
			double c1 = j->c1[a * np + i], s1 = j->s1[a * np + i];
			double s = sA * c1 + cA * s1;
			double c = cA * c1 - sA * s1;
			size_t r0 = a * in;
			add_row(acc + r0, c0, s0, s, c, len - r0 < in ? len - r0 : in);
		}
	}
}

static enum pe_status range_chunk(void *ctx, size_t begin, size_t end)
{
	const struct range_job *j = ctx;
	size_t B = j->inner * j->outer;
	double *acc = malloc(B * sizeof(double));
	if (!acc)
		return PE_ENOMEM;
	for (size_t k = begin; k < end; k++) {
		size_t r0 = k * B;
		size_t len = j->count - r0 < B ? j->count - r0 : B;
		range_block(j, (double)(j->lo + (uint64_t)r0 * j->step), len, acc);
		memcpy(j->out + r0, acc, len * sizeof(double));
	}
	free(acc);
	return PE_OK;
}

enum pe_status pe_toeplitz_range(const struct pe_toeplitz *tz, uint64_t lo, size_t count,
                                 double *out)
{
	return pe_toeplitz_range_step(tz, lo, 1, count, out);
}

/*
 * A step h turns the tables into those of h phi_i, each still an exactly
 * rounded sin/cos of the whole offset b h or a INNER h: the accuracy is the
 * same as for h = 1, and the cost that of count offsets, whatever their span.
 */
enum pe_status pe_toeplitz_range_step(const struct pe_toeplitz *tz, uint64_t lo, uint64_t step,
                                      size_t count, double *out)
{
	if (count == 0)
		return PE_OK;
	size_t np = tz->npairs;
	if (np == 0) {
		memset(out, 0, count * sizeof(double));
		return PE_OK;
	}
	size_t in = count < INNER ? count : INNER;
	size_t out_rows = (count + in - 1) / in;
	if (out_rows > OUTER)
		out_rows = OUTER;
	double *tab = malloc(2 * np * (in + out_rows) * sizeof(double));
	if (!tab)
		return PE_ENOMEM;
	double *c0 = tab, *s0 = c0 + np * in, *c1 = s0 + np * in, *s1 = c1 + np * out_rows;
	for (size_t i = 0; i < np; i++) {
		for (size_t b = 0; b < in; b++)
			pe_toeplitz_half_sincos(tz, i, (double)(b * step), &s0[i * in + b],
			                        &c0[i * in + b]);
		for (size_t a = 0; a < out_rows; a++)
			pe_toeplitz_half_sincos(tz, i, (double)(a * in * step), &s1[a * np + i],
			                        &c1[a * np + i]);
	}
	struct range_job job = {tz, lo, step, count, in, out_rows, c0, s0, c1, s1, out};
	size_t B = in * out_rows;
	enum pe_status st = pe_parallel_for((count + B - 1) / B, 2, range_chunk, &job);
	free(tab);
	return st;
}
