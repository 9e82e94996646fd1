/*
 * The blocked kernel S(D) = sum_i sin^2(D theta_i / 2) over runs of offsets
 * (lib/analysis/toeplitz_range.c: anchors, row and offset tables, vector clones)
 * against values formed per offset: the exact per-offset sum
 * pe_toeplitz_s(), and a long-double sum written here from the frequencies
 * of doc/conventions.md (sinusoidal 1 / 10000^(2k/d), RoPE
 * 1 / base^(2i/d)). Runs cover whole blocks, short runs, ragged tails,
 * pair counts that are not a multiple of four, and offsets up to 10^7.
 * The per-position terms Pearson needs (mean and |x - mean| of a row, from
 * pe_toeplitz_sums() through pe_posterms()) are checked the same way
 * against rows summed here in long double.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include <posenc/encode.h>
#include <posenc/scheme.h>

#include "analysis/pairwise_internal.h"

/* Relative to the size of S (at least 1): S sums npairs terms in [0, 1]. */
#define TOL 1e-12

static struct pe_scheme *parse(const char *spec)
{
	struct pe_scheme *s = NULL;
	char *err = NULL;
	enum pe_status st = pe_scheme_parse(spec, &s, &err);
	if (st != PE_OK)
		fprintf(stderr, "# %s: %s\n", spec, err ? err : "?");
	free(err);
	assert_int_equal(st, PE_OK);
	return s;
}

static void check_close(double got, double want, const char *spec, size_t d, uint64_t D)
{
	double bound = TOL * fmax(fabs(want), 1.0);
	if (fabs(got - want) <= bound)
		return;
	print_error("%s d=%zu S(%llu) = %.17g, expected %.17g\n", spec, d, (unsigned long long)D,
	            got, want);
	fail();
}

struct run {
	uint64_t lo;
	size_t count;
	size_t step; /* check every step-th offset (and the last) */
};

static const struct run runs[] = {
        {0, 1, 1},
        {0, 5, 1},
        {0, 31, 1},
        {0, 33, 1},
        {7, 1000, 1},
        {0, 2048, 1},            /* one whole block */
        {123, 3 * 2048 + 17, 3}, /* whole blocks and a ragged tail */
        {999999, 4099, 5},
        {10000000 - 5000, 5001, 7}, /* up to 10^7 */
};

/* Every run of every spec against the per-offset sum. */
static void against_per_offset(const char *spec, size_t d)
{
	struct pe_scheme *s = parse(spec);
	struct pe_vectors v = {s, NULL, d, PE_VIEW_DEFAULT, 0, 1};
	struct pe_toeplitz tz;
	int found = 0;
	assert_int_equal(pe_toeplitz_init(&v, &tz, &found), PE_OK);
	assert_true(found);
	for (size_t r = 0; r < sizeof(runs) / sizeof(runs[0]); r++) {
		const struct run *u = &runs[r];
		double *S = malloc(u->count * sizeof(double));
		assert_non_null(S);
		assert_int_equal(pe_toeplitz_range(&tz, u->lo, u->count, S), PE_OK);
		/* large widths cost npairs per checked offset: thin them out */
		size_t step = tz.npairs > 64 ? u->step * 4 : 1;
		for (size_t k = 0; k < u->count; k += step)
			check_close(S[k], pe_toeplitz_s(&tz, u->lo + k), spec, d, u->lo + k);
		check_close(S[u->count - 1], pe_toeplitz_s(&tz, u->lo + u->count - 1), spec, d,
		            u->lo + u->count - 1);
		free(S);
	}
	pe_toeplitz_release(&tz);
	pe_scheme_destroy(s);
}

static void sinusoidal_per_offset(void **state)
{
	(void)state;
	size_t widths[] = {2, 8, 14, 30, 512, 4096, 4099};
	for (size_t k = 0; k < sizeof(widths) / sizeof(widths[0]); k++)
		against_per_offset("sinusoidal", widths[k]);
	against_per_offset("sinusoidal:base=500", 64);
	against_per_offset("sinusoidal:layout=interleaved", 22);
}

static void rope_per_offset(void **state)
{
	(void)state;
	size_t widths[] = {2, 6, 10, 64, 4096};
	for (size_t k = 0; k < sizeof(widths) / sizeof(widths[0]); k++)
		against_per_offset("rope", widths[k]);
	against_per_offset("rope:base=500000", 128);
}

/*
 * The same runs against sin^2 summed from the formulas. The angle is the
 * quotient D / (2 f_k), f_k = 10000^(2k/d), that the encoder forms (RoPE:
 * the product D theta_i / 2); at 10^7 its rounding alone would move sin by
 * 1e-9, so the reference carries the rounding error of the quotient or
 * product (exact by fma) as a first-order correction. Long double would do
 * as well on x87 but not under valgrind, which computes it in double.
 */
static void ref_sincos(double x, double w, int divide, double *s, double *c)
{
	double hi, lo;
	if (divide) {
		hi = x / w;
		lo = fma(-hi, w, x) / w;
	} else {
		hi = x * w;
		lo = fma(x, w, -hi);
	}
	*s = sin(hi) + lo * cos(hi);
	*c = cos(hi) - lo * sin(hi);
}

static long double ref_s(int rope, double base, size_t d, uint64_t D)
{
	long double acc = 0.0L;
	for (size_t i = 0; i < d / 2; i++) {
		double f = pow(base, (double)(2 * i) / (double)d), t, c;
		if (rope)
			ref_sincos((double)D, (1.0 / f) / 2.0, 0, &t, &c);
		else
			ref_sincos((double)D, 2.0 * f, 1, &t, &c);
		acc += (long double)t * t;
	}
	return acc;
}

static void against_formula(const char *spec, int rope, double base, size_t d, uint64_t maxD)
{
	struct pe_scheme *s = parse(spec);
	struct pe_vectors v = {s, NULL, d, PE_VIEW_DEFAULT, 0, 1};
	struct pe_toeplitz tz;
	int found = 0;
	assert_int_equal(pe_toeplitz_init(&v, &tz, &found), PE_OK);
	for (size_t r = 0; r < sizeof(runs) / sizeof(runs[0]); r++) {
		const struct run *u = &runs[r];
		if (u->lo + u->count > maxD)
			continue;
		double *S = malloc(u->count * sizeof(double));
		assert_non_null(S);
		assert_int_equal(pe_toeplitz_range(&tz, u->lo, u->count, S), PE_OK);
		for (size_t k = 0; k < u->count; k += 97)
			check_close(S[k], (double)ref_s(rope, base, d, u->lo + k), spec, d,
			            u->lo + k);
		free(S);
	}
	pe_toeplitz_release(&tz);
	pe_scheme_destroy(s);
}

static void matches_formula(void **state)
{
	(void)state;
	against_formula("sinusoidal", 0, 10000.0, 4096, 20000000);
	against_formula("sinusoidal", 0, 10000.0, 14, 20000000);
	against_formula("rope", 1, 10000.0, 4096, 1000000 + 4099);
	against_formula("rope:base=500000", 1, 500000.0, 126, 1000000 + 4099);
}

/* Small offsets are where sin^2 of the half angle matters: S(1) of one
 * pair is sin^2(1/2) exactly as libm gives it, S(0) is 0. */
static void small_offsets_exact(void **state)
{
	(void)state;
	struct pe_scheme *s = parse("sinusoidal");
	struct pe_vectors v = {s, NULL, 2, PE_VIEW_DEFAULT, 0, 1};
	struct pe_toeplitz tz;
	int found = 0;
	assert_int_equal(pe_toeplitz_init(&v, &tz, &found), PE_OK);
	double S[3];
	assert_int_equal(pe_toeplitz_range(&tz, 0, 3, S), PE_OK);
	assert_true(S[0] == 0.0);
	check_close(S[1], sin(0.5) * sin(0.5), "sinusoidal", 2, 1);
	check_close(S[2], sin(1.0) * sin(1.0), "sinusoidal", 2, 2);
	pe_toeplitz_release(&tz);
	pe_scheme_destroy(s);
}

/* ---- per-position terms ---- */

struct refspec {
	const char *spec;
	int rope;
	double base, start, rotary;
};

/* A row from the formulas (paper sinusoidal: ceil(d/2) sines, floor(d/2)
 * cosines; RoPE: (c - s, s + c) per pair and ones past the rotary width),
 * in any column order: only its mean and spread are checked. */
static void ref_terms(const struct refspec *r, size_t d, uint64_t pos, long double *mean,
                      long double *cnorm)
{
	long double *x = malloc(d * sizeof(long double));
	assert_non_null(x);
	size_t j = 0;
	if (r->rope) {
		size_t dr = (size_t)((double)d * r->rotary);
		for (size_t i = 0; i < dr / 2; i++) {
			double th = 1.0 / pow(r->base, (double)(2 * i) / (double)dr), sv, cv;
			ref_sincos((double)pos, th, 0, &sv, &cv);
			x[j++] = (long double)cv - sv;
			x[j++] = (long double)sv + cv;
		}
		while (j < d)
			x[j++] = 1.0L;
	} else {
		double p = (double)pos + r->start;
		for (size_t k = 0; k < (d + 1) / 2; k++) {
			double f = pow(r->base, (double)(2 * k) / (double)d), sv, cv;
			ref_sincos(p, f, 1, &sv, &cv);
			x[j++] = sv;
			if (k < d / 2)
				x[j++] = cv;
		}
	}
	long double sum = 0.0L, c = 0.0L;
	for (j = 0; j < d; j++)
		sum += x[j];
	*mean = sum / (long double)d;
	for (j = 0; j < d; j++)
		c += (x[j] - *mean) * (x[j] - *mean);
	*cnorm = sqrtl(c);
	free(x);
}

static void terms_against_formula(const struct refspec *r, size_t d, const uint64_t *pos,
                                  size_t count)
{
	struct pe_scheme *s = parse(r->spec);
	struct pe_vectors v = {s, NULL, d, PE_VIEW_DEFAULT, 0, 1};
	struct pe_toeplitz tz;
	int found = 0;
	assert_int_equal(pe_toeplitz_init(&v, &tz, &found), PE_OK);
	assert_true(found);
	struct pe_posterm *t = malloc(count * sizeof(*t));
	assert_non_null(t);
	assert_int_equal(pe_posterms(&v, &tz, pos, count, 1, t), PE_OK);
	for (size_t k = 0; k < count; k++) {
		long double mean, cnorm;
		ref_terms(r, d, pos[k], &mean, &cnorm);
		/* the mean is at most 1 in size; the spread is sqrt(d)-sized */
		if (fabs(t[k].mean - (double)mean) > 1e-12 ||
		    fabs(t[k].cnorm - (double)cnorm) > 1e-12 * fmax((double)cnorm, 1.0)) {
			print_error("%s d=%zu at %llu: mean %.17g cnorm %.17g, expected %.17Lg "
			            "%.17Lg\n",
			            r->spec, d, (unsigned long long)pos[k], t[k].mean, t[k].cnorm,
			            mean, cnorm);
			fail();
		}
	}
	free(t);
	pe_toeplitz_release(&tz);
	pe_scheme_destroy(s);
}

/* Enough positions for the tables, ascending and scattered to 10^7, and a
 * few alone (the per-position path). */
static void posterms_match_formula(void **state)
{
	(void)state;
	size_t count = 600;
	uint64_t *pos = malloc(count * sizeof(uint64_t));
	assert_non_null(pos);
	for (size_t k = 0; k < count; k++)
		pos[k] = k < 300 ? k * 37 : (uint64_t)k * 16661 + 4000000;
	const struct refspec specs[] = {
	        {"sinusoidal", 0, 10000.0, 0.0, 1.0},
	        {"sinusoidal:start=1", 0, 10000.0, 1.0, 1.0},
	        {"rope", 1, 10000.0, 0.0, 1.0},
	        {"rope:rotary=0.5", 1, 10000.0, 0.0, 0.5},
	};
	size_t widths[] = {4096, 15, 6};
	for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]); i++) {
		for (size_t w = 0; w < sizeof(widths) / sizeof(widths[0]); w++) {
			if (specs[i].rope && widths[w] % 4)
				continue;
			terms_against_formula(&specs[i], widths[w], pos, count);
			terms_against_formula(&specs[i], widths[w], pos + 290, 20);
		}
	}
	free(pos);
}

/* RoPE at position 0 is the all-ones vector: no spread at all, exactly
 * (its rows decide, not the cancelling sums). */
static void constant_row_has_no_spread(void **state)
{
	(void)state;
	struct pe_scheme *s = parse("rope");
	struct pe_vectors v = {s, NULL, 64, PE_VIEW_DEFAULT, 0, 1};
	struct pe_toeplitz tz;
	int found = 0;
	assert_int_equal(pe_toeplitz_init(&v, &tz, &found), PE_OK);
	size_t count = 400;
	uint64_t *pos = malloc(count * sizeof(uint64_t));
	struct pe_posterm *t = malloc(count * sizeof(*t));
	assert_non_null(pos);
	assert_non_null(t);
	for (size_t k = 0; k < count; k++)
		pos[k] = k;
	assert_int_equal(pe_posterms(&v, &tz, pos, count, 1, t), PE_OK);
	assert_true(t[0].cnorm == 0.0);
	assert_true(t[0].mean == 1.0);
	assert_true(t[1].cnorm > 0.0);
	free(pos);
	free(t);
	pe_toeplitz_release(&tz);
	pe_scheme_destroy(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(sinusoidal_per_offset),
	        cmocka_unit_test(rope_per_offset),
	        cmocka_unit_test(matches_formula),
	        cmocka_unit_test(small_offsets_exact),
	        cmocka_unit_test(posterms_match_formula),
	        cmocka_unit_test(constant_row_has_no_spread),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
