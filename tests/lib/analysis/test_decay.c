/*
 * Decay curves against doc/conventions.md §6 ([6a], [6b], [6c]), the
 * closed forms (bound (d/2+1)/2 at offset 0; rope all-ones = 2 x
 * sinusoidal), hand-worked tables, and the brute-force mean over pairs of
 * the encoders' own rows.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <posenc/decay.h>
#include <posenc/encode.h>
#include <posenc/scheme.h>

#include "near.h"

static struct pe_scheme *parse(const char *spec)
{
	struct pe_scheme *s = NULL;
	char *err = NULL;
	if (pe_scheme_parse(spec, &s, &err) != PE_OK) {
		print_error("%s: %s\n", spec, err ? err : "?");
		free(err);
		fail();
	}
	return s;
}

/* The curve of spec at width d over positions first..first+n-1. */
static double *curve(const char *spec, size_t d, uint64_t first, size_t n, enum pe_view view,
                     enum pe_decay_kind kind, size_t K)
{
	struct pe_scheme *s = parse(spec);
	struct pe_vectors v = {s, NULL, d, view, first, n};
	double *out = malloc((K + 1) * sizeof(*out));
	assert_non_null(out);
	assert_int_equal(pe_decay_curve(&v, kind, K, out), PE_OK);
	pe_scheme_destroy(s);
	return out;
}

/* Mean of <row m, row m+k> over the rows of an encoded matrix, summed directly. */
static double brute(const struct pe_matrix *e, size_t k)
{
	double sum = 0.0;
	for (size_t m = 0; m + k < e->rows; m++)
		for (size_t j = 0; j < e->cols; j++)
			sum += e->data[m * e->cols + j] * e->data[(m + k) * e->cols + j];
	return sum / (double)(e->rows - k);
}

static void sinusoidal_matches_6b(void **state)
{
	(void)state;
	const size_t ks[] = {0, 1, 2, 10, 50, 100};
	const double ref[] = {64, 62.093684, 57.381861, 42.820023, 34.955011, 30.543455};
	const char *specs[] = {"sinusoidal", "sinusoidal:layout=blocks"};
	const uint64_t firsts[] = {0, 37, 250};
	for (int s = 0; s < 2; s++) {
		for (int f = 0; f < 3; f++) {
			double *c = curve(specs[s], 128, firsts[f], 101, PE_VIEW_DEFAULT,
			                  PE_DECAY_DOT, 100);
			for (int i = 0; i < 6; i++)
				assert_near(c[ks[i]], ref[i], 5e-7);
			free(c);
		}
	}
}

static void rope_all_ones_matches_6c_and_is_twice_sinusoidal(void **state)
{
	(void)state;
	double *r = curve("rope", 128, 0, 257, PE_VIEW_DEFAULT, PE_DECAY_DOT, 256);
	double *h = curve("rope:layout=half", 128, 5, 257, PE_VIEW_ROTATED, PE_DECAY_DOT, 256);
	double *s = curve("sinusoidal", 128, 0, 257, PE_VIEW_DEFAULT, PE_DECAY_DOT, 256);
	assert_near(r[0], 128, 1e-12);
	assert_near(r[1], 124.187368, 5e-7);
	assert_near(r[10], 85.640046, 5e-7);
	assert_near(r[100], 61.086909, 5e-7);
	for (size_t k = 0; k <= 256; k++) {
		assert_rel(r[k], 2 * s[k], 1e-12);
		assert_rel(h[k], r[k], 1e-12);
	}
	free(r);
	free(h);
	free(s);
}

static void roformer_bound_matches_6a(void **state)
{
	(void)state;
	const size_t k128[] = {0, 1, 2, 5, 10, 20, 50, 100, 200, 250};
	const double v128[] = {32.5,    31.5382, 28.9560, 20.8454, 17.9541,
	                       15.2424, 12.6295, 10.2273, 7.2448,  6.5482};
	double *b = curve("rope", 128, 0, 251, PE_VIEW_DEFAULT, PE_DECAY_BOUND, 250);
	for (int i = 0; i < 10; i++)
		assert_near(b[k128[i]], v128[i], 5e-5);
	free(b);
	const size_t k256[] = {0, 10, 100, 250};
	const double v256[] = {64.5, 36.2177, 18.6161, 12.7884};
	b = curve("rope:layout=half", 256, 0, 251, PE_VIEW_DEFAULT, PE_DECAY_BOUND, 250);
	for (int i = 0; i < 4; i++)
		assert_near(b[k256[i]], v256[i], 5e-5);
	free(b);
	/* at offset 0, |S_j| = j, so the bound is (1/(d/2)) sum j = (d/2 + 1)/2 */
	const size_t ds[] = {2, 6, 64, 1000};
	for (int i = 0; i < 4; i++) {
		b = curve("rope", ds[i], 0, 1, PE_VIEW_DEFAULT, PE_DECAY_BOUND, 0);
		assert_rel(b[0], (ds[i] / 2 + 1) / 2.0, 1e-15);
		free(b);
	}
	/* only the rotated part counts: rotary 0.5 of 256 is the d=128 curve */
	b = curve("rope:rotary=0.5", 256, 0, 3, PE_VIEW_DEFAULT, PE_DECAY_BOUND, 2);
	assert_near(b[1], 31.5382, 5e-5);
	assert_near(b[2], 28.9560, 5e-5);
	free(b);
}

/* The closed forms equal the mean over pairs of the encoders' rows. */
static void closed_forms_equal_brute_force(void **state)
{
	(void)state;
	const struct {
		const char *spec;
		size_t d;
		uint64_t first;
		size_t n;
	} cases[] = {
	        {"sinusoidal", 5, 3, 20}, /* lone sine: depends on m */
	        {"sinusoidal:layout=blocks", 7, 0, 33},
	        {"sinusoidal:start=2", 9, 1000, 17},
	        {"sinusoidal:base=10", 3, 0, 2},
	        {"sinusoidal:freq=t2t", 7, 11, 25}, /* zero column */
	        {"sinusoidal:freq=t2t,layout=blocks", 8, 0, 30},
	        {"rope:layout=half,rotary=0.6", 10, 7, 40},
	        {"rope:scaling=yarn,factor=4,original=16", 16, 0, 50},
	        {"rope:scaling=longrope,factor=8,original=16,long-factor=1/2/3,short-factor=1/1/1",
	         6, 0, 20},
	};
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct pe_scheme *s = parse(cases[c].spec);
		struct pe_matrix *e = NULL;
		assert_int_equal(
		        pe_encode(s, cases[c].d, cases[c].first, cases[c].n, PE_VIEW_DEFAULT, &e),
		        PE_OK);
		struct pe_vectors v = {s,         NULL, cases[c].d, PE_VIEW_DEFAULT, cases[c].first,
		                       cases[c].n};
		size_t K = cases[c].n - 1;
		double *out = malloc((K + 1) * sizeof(*out));
		assert_int_equal(pe_decay_curve(&v, PE_DECAY_DOT, K, out), PE_OK);
		for (size_t k = 0; k <= K; k++)
			assert_near(out[k], brute(e, k), 1e-12 * cases[c].d);
		free(out);
		pe_matrix_destroy(e);
		pe_scheme_destroy(s);
	}
}

/*
 * Long curves: offsets past many blocks, where most anchors are turned
 * from an exact one (decay.c), against the sum of cos(k w_i) in long
 * double from the scheme's own frequencies (dot product of sinusoidal
 * rows at offset k, any position).
 */
static void long_curves_stay_exact(void **state)
{
	(void)state;
	const char *specs[] = {"sinusoidal", "sinusoidal:base=10", "rope"};
	const size_t K = 5000, d = 64;
	for (int c = 0; c < 3; c++) {
		struct pe_scheme *s = parse(specs[c]);
		double w[64];
		size_t count;
		assert_int_equal(pe_scheme_frequencies(s, d, w, &count), PE_OK);
		double *out = curve(specs[c], d, 0, K + 1, PE_VIEW_DEFAULT, PE_DECAY_DOT, K);
		/* rope: the all-ones vector rotated, 2 sum cos (attention factor 1) */
		long double scale = c == 2 ? 2.0L : 1.0L;
		for (size_t k = 0; k <= K; k++) {
			long double sum = 0.0L;
			for (size_t i = 0; i < count; i++)
				sum += cosl((long double)k * (long double)w[i]);
			assert_near(out[k], (double)(scale * sum), 1e-12 * (double)d);
		}
		free(out);
		pe_scheme_destroy(s);
	}
}

static void lone_sine_depends_on_the_range(void **state)
{
	(void)state;
	/* d = 1: the only column is sin(p); at k = 0 the mean of sin^2 over p = 0, 1 */
	double *c = curve("sinusoidal", 1, 0, 2, PE_VIEW_DEFAULT, PE_DECAY_DOT, 1);
	assert_near(c[0], sin(1.0) * sin(1.0) / 2, 1e-15);
	assert_near(c[1], 0.0, 1e-15); /* sin(0) sin(1) */
	free(c);
	c = curve("sinusoidal", 1, 1, 2, PE_VIEW_DEFAULT, PE_DECAY_DOT, 1);
	assert_near(c[1], sin(1.0) * sin(2.0), 1e-15);
	free(c);
}

static void general_mean_over_pairs(void **state)
{
	(void)state;
	/* a table by hand: rows (1,0), (0,1), (1,1) */
	double data[] = {1, 0, 0, 1, 1, 1};
	struct pe_matrix m = {3, 2, data};
	struct pe_vectors v = {NULL, &m, 2, PE_VIEW_DEFAULT, 0, 3};
	double out[3];
	assert_int_equal(pe_decay_curve(&v, PE_DECAY_DOT, 2, out), PE_OK);
	assert_near(out[0], 4.0 / 3.0, 1e-15);
	assert_near(out[1], 0.5, 1e-15);
	assert_near(out[2], 1.0, 1e-15);
	/* rows 1..2 only */
	v.first = 1;
	v.n = 2;
	assert_int_equal(pe_decay_curve(&v, PE_DECAY_DOT, 1, out), PE_OK);
	assert_near(out[0], 1.5, 1e-15);
	assert_near(out[1], 1.0, 1e-15);
	/* binary, d 2, positions 0..3: (0,0) (1,0) (0,1) (1,1) */
	double *c = curve("binary", 2, 0, 4, PE_VIEW_DEFAULT, PE_DECAY_DOT, 3);
	assert_near(c[0], 1.0, 1e-15);
	assert_near(c[1], 1.0 / 3.0, 1e-15);
	assert_near(c[2], 0.5, 1e-15);
	assert_near(c[3], 0.0, 1e-15);
	free(c);
	/* learned, and rope in a view without a closed form: the pairs themselves */
	const char *specs[] = {"learned:seed=3", "rope"};
	const enum pe_view views[] = {PE_VIEW_DEFAULT, PE_VIEW_COS};
	for (int i = 0; i < 2; i++) {
		struct pe_scheme *s = parse(specs[i]);
		struct pe_matrix *e = NULL;
		assert_int_equal(pe_encode(s, 12, 5, 30, views[i], &e), PE_OK);
		struct pe_vectors lv = {s, NULL, 12, views[i], 5, 30};
		double o[30];
		assert_int_equal(pe_decay_curve(&lv, PE_DECAY_DOT, 29, o), PE_OK);
		for (size_t k = 0; k < 30; k++)
			assert_near(o[k], brute(e, k), 1e-13);
		pe_matrix_destroy(e);
		pe_scheme_destroy(s);
	}
}

/*
 * A piece of the curve far out: sum_i cos(k w_i), w_i = 10000^(-2i/d)
 * (doc/conventions.md [6b]), recomputed here in long double; RoPE is twice
 * it; a table's piece equals the brute-force mean over its pairs.
 */
static void range_matches_closed_form_far_out(void **state)
{
	(void)state;
	const size_t d = 64, lo = 9999000, count = 1000;
	struct pe_scheme *s = parse("sinusoidal");
	struct pe_vectors v = {s, NULL, d, PE_VIEW_DEFAULT, 0, 10000000};
	double *out = malloc(count * sizeof(*out));
	assert_non_null(out);
	assert_true(pe_decay_closed_form(&v));
	assert_int_equal(pe_decay_curve_range(&v, PE_DECAY_DOT, lo, 1, count, out), PE_OK);
	double strided[10];
	assert_int_equal(pe_decay_curve_range(&v, PE_DECAY_DOT, lo, 111, 10, strided), PE_OK);
	for (size_t t = 0; t < 10; t++)
		assert_near(strided[t], out[111 * t], 1e-9);
	for (size_t k = 0; k < count; k += 37) {
		long double sum = 0;
		for (size_t i = 0; i < d / 2; i++) {
			long double w = powl(10000.0L, -2.0L * (long double)i / (long double)d);
			sum += cosl((long double)(lo + k) * w);
		}
		assert_near(out[k], (double)sum, 1e-9);
	}
	assert_int_equal(pe_decay_curve_range(&v, PE_DECAY_DOT, lo, 1, 1001, out), PE_ERANGE);
	assert_int_equal(pe_decay_curve_range(&v, PE_DECAY_DOT, lo, 1, 0, out), PE_ERANGE);
	assert_int_equal(pe_decay_curve_range(&v, PE_DECAY_DOT, lo, 0, 1, out), PE_ERANGE);
	pe_scheme_destroy(s);
	s = parse("rope");
	v.scheme = s;
	double one;
	assert_int_equal(pe_decay_curve_range(&v, PE_DECAY_DOT, lo + 37, 1, 1, &one), PE_OK);
	assert_near(one, 2.0 * out[37], 1e-9);
	pe_scheme_destroy(s);
	free(out);
	s = parse("learned:seed=5");
	struct pe_matrix *e = NULL;
	assert_int_equal(pe_encode(s, 6, 0, 40, PE_VIEW_DEFAULT, &e), PE_OK);
	struct pe_vectors lv = {s, NULL, 6, PE_VIEW_DEFAULT, 0, 40};
	assert_false(pe_decay_closed_form(&lv));
	double piece[6];
	assert_int_equal(pe_decay_curve_range(&lv, PE_DECAY_DOT, 33, 1, 5, piece), PE_OK);
	for (size_t k = 0; k < 5; k++)
		assert_near(piece[k], brute(e, 33 + k), 1e-13);
	/* every 7th offset from 3: 3, 10, .., 38 */
	assert_int_equal(pe_decay_curve_range(&lv, PE_DECAY_DOT, 3, 7, 6, piece), PE_OK);
	for (size_t t = 0; t < 5; t++)
		assert_near(piece[t], brute(e, 3 + 7 * t), 1e-13);
	assert_int_equal(pe_decay_curve_range(&lv, PE_DECAY_DOT, 3, 7, 7, piece), PE_ERANGE);
	pe_matrix_destroy(e);
	pe_scheme_destroy(s);
}

static void refusals(void **state)
{
	(void)state;
	double out[8];
	const char *why = NULL;
	struct pe_scheme *s = parse("alibi");
	struct pe_vectors v = {s, NULL, 8, PE_VIEW_DEFAULT, 0, 8};
	assert_int_equal(pe_decay_check(&v, PE_DECAY_DOT, 4, &why), PE_EUNSUPPORTED);
	assert_non_null(why);
	assert_int_equal(pe_decay_curve(&v, PE_DECAY_DOT, 4, out), PE_EUNSUPPORTED);
	pe_scheme_destroy(s);
	s = parse("sinusoidal");
	v.scheme = s;
	assert_int_equal(pe_decay_check(&v, PE_DECAY_BOUND, 4, &why), PE_EUNSUPPORTED);
	assert_int_equal(pe_decay_check(&v, PE_DECAY_DOT, 8, &why), PE_ERANGE);
	assert_int_equal(pe_decay_check(&v, PE_DECAY_DOT, 7, &why), PE_OK);
	assert_null(why);
	pe_scheme_destroy(s);
	s = parse("rope");
	v.scheme = s;
	v.d = 7;
	assert_int_equal(pe_decay_curve(&v, PE_DECAY_BOUND, 4, out), PE_ERANGE);
	pe_scheme_destroy(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(sinusoidal_matches_6b),
	        cmocka_unit_test(rope_all_ones_matches_6c_and_is_twice_sinusoidal),
	        cmocka_unit_test(roformer_bound_matches_6a),
	        cmocka_unit_test(closed_forms_equal_brute_force),
	        cmocka_unit_test(long_curves_stay_exact),
	        cmocka_unit_test(lone_sine_depends_on_the_range),
	        cmocka_unit_test(general_mean_over_pairs),
	        cmocka_unit_test(range_matches_closed_form_far_out),
	        cmocka_unit_test(refusals),
	};
	return cmocka_run_group_tests_name("decay", tests, NULL, NULL);
}
