/*
 * The blocked kernel S(D) = sum_i sin^2(D theta_i / 2) over runs of offsets
 * (lib/toeplitz_range.c: anchors, row and offset tables, vector clones)
 * against values formed per offset: the exact per-offset sum
 * pe_toeplitz_s(), and a long-double sum written here from the frequencies
 * of research/formulas.md (sinusoidal 1 / 10000^(2k/d), RoPE
 * 1 / base^(2i/d)). Runs cover whole blocks, short runs, ragged tails,
 * pair counts that are not a multiple of four, and offsets up to 10^7.
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

#include "pairwise_internal.h"

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
	{0, 2048, 1},	 /* one whole block */
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
 * The same runs against sin^2 summed in long double from the formulas.
 * The sinusoidal angle D / (2 f_k), f_k = 10000^(2k/d), is the quotient
 * the encoder forms; long double keeps it to 3e-13 at 10^7, so the check
 * reaches the farthest run. RoPE's angle D theta_i / 2 is checked to 10^6.
 */
static long double ref_s(int rope, double base, size_t d, uint64_t D)
{
	long double acc = 0.0L;
	for (size_t i = 0; i < d / 2; i++) {
		double f = pow(base, (double)(2 * i) / (double)d);
		long double a = rope ? (long double)D * (long double)(1.0 / f) / 2.0L
				     : (long double)D / (2.0L * (long double)f);
		long double t = sinl(a);
		acc += t * t;
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(sinusoidal_per_offset),
		cmocka_unit_test(rope_per_offset),
		cmocka_unit_test(matches_formula),
		cmocka_unit_test(small_offsets_exact),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
