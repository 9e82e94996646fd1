/*
 * Attention biases against doc/conventions.md §4 ([4a], [4b]) and §5
 * (the whole bucket table and every threshold), plus the closed form of the
 * slopes and MPT's independent construction of them.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <posenc/bias.h>
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

static void slopes_match_4a(void **state)
{
	(void)state;
	double s[16];
	const double eight[] = {0.5, 0.25, 0.125, 0.0625, 0.03125, 0.015625, 0.0078125, 0.00390625};
	assert_int_equal(pe_alibi_slopes(8, s), PE_OK);
	for (int k = 0; k < 8; k++)
		assert_true(s[k] == eight[k]);
	assert_int_equal(pe_alibi_slopes(12, s), PE_OK);
	const double tail[] = {0.70710678, 0.35355339, 0.17677670, 0.08838835};
	for (int k = 0; k < 8; k++)
		assert_true(s[k] == eight[k]);
	for (int k = 0; k < 4; k++)
		assert_near(s[8 + k], tail[k], 5e-9);
	assert_int_equal(pe_alibi_slopes(16, s), PE_OK);
	for (int k = 0; k < 16; k++)
		assert_rel(s[k], pow(2.0, -(k + 1) / 2.0), 4e-15);
	assert_near(s[0], 0.707107, 5e-7);
	/* the official start * start**15 with start = 2^-0.5 rounds to 0.0039062500000000043 */
	assert_near(s[15], 0.00390625, 1e-17);
	const double six[] = {0.25, 0.0625, 0.015625, 0.00390625, 0.5, 0.125};
	assert_int_equal(pe_alibi_slopes(6, s), PE_OK);
	for (int k = 0; k < 6; k++)
		assert_true(s[k] == six[k]);
	/* bit for bit as the official Python get_slopes (printed with repr) */
	double big[127];
	assert_int_equal(pe_alibi_slopes(100, big), PE_OK);
	assert_true(big[0] == 0.9170040432046712);
	assert_true(big[7] == 0.4999999999999999);
	assert_true(big[8] == 0.45850202160233555);
	assert_true(big[99] == 0.046150817060609535);
	assert_int_equal(pe_alibi_slopes(127, big), PE_OK);
	assert_true(big[126] == 0.004448393104518358);
	assert_int_equal(pe_alibi_slopes(12, s), PE_OK);
	assert_true(s[8] == 0.7071067811865476);
	assert_true(s[11] == 0.08838834764831849);
	assert_int_equal(pe_alibi_slopes(1, s), PE_OK);
	assert_true(s[0] == 0.00390625);
	assert_int_equal(pe_alibi_slopes(0, s), PE_ERANGE);
}

/*
 * n = 1..128: the closed form, and MPT's next-power-of-two construction. The
 * official start * start**k carries the rounding of start k times (up to
 * 127 ulp), so these agree to 1e-13, not to the last bit.
 */
static void slopes_closed_form_and_mpt(void **state)
{
	(void)state;
	double s[128], mpt[256];
	for (unsigned n = 1; n <= 128; n++) {
		assert_int_equal(pe_alibi_slopes(n, s), PE_OK);
		unsigned c = 1;
		while (2 * c <= n)
			c *= 2;
		for (unsigned k = 0; k < n; k++) {
			double e = k < c ? exp2(-8.0 * (k + 1) / c)
			                 : exp2(-8.0 * (2 * (k - c) + 1) / (2.0 * c));
			assert_rel(s[k], e, 1e-13);
		}
		/* MPT: 2^(-8k/n2), k = 1..n2; unless n2 == n reordered [1::2] + [::2], first n */
		unsigned n2 = 1;
		while (n2 < n)
			n2 *= 2;
		unsigned at = 0;
		for (unsigned k = n2 == n ? 0 : 1; k < n2; k += n2 == n ? 1 : 2)
			mpt[at++] = exp2(-8.0 * (k + 1) / n2);
		for (unsigned k = 0; n2 != n && k < n2; k += 2)
			mpt[at++] = exp2(-8.0 * (k + 1) / n2);
		for (unsigned k = 0; k < n; k++)
			assert_rel(s[k], mpt[k], 1e-13);
	}
}

/*
 * MPT's own slopes (build_mpt_alibi_tensor): base = arange(1, n2 + 1) *
 * (alibi_bias_max / n2), slopes = 1 / 2**base, then [1::2] + [::2] cut to n
 * heads; in float64 bit for bit, for alibi_bias_max 8 and 16.
 */
static void mpt_slopes_exact(void **state)
{
	(void)state;
	double got[128], want[256];
	const double maxes[] = {8.0, 16.0};
	for (size_t mi = 0; mi < 2; mi++) {
		for (unsigned n = 1; n <= 128; n++) {
			assert_int_equal(pe_alibi_mpt_slopes(n, maxes[mi], got), PE_OK);
			unsigned n2 = 1;
			while (n2 < n)
				n2 *= 2;
			double all[256];
			for (unsigned k = 0; k < n2; k++)
				all[k] = 1.0 / pow(2.0, (double)(k + 1) * (maxes[mi] / n2));
			unsigned at = 0;
			if (n2 == n) {
				for (unsigned k = 0; k < n2; k++)
					want[at++] = all[k];
			} else {
				for (unsigned k = 1; k < n2; k += 2)
					want[at++] = all[k];
				for (unsigned k = 0; k < n2; k += 2)
					want[at++] = all[k];
			}
			for (unsigned k = 0; k < n; k++)
				assert_true(got[k] == want[k]);
		}
	}
	/* MPT-30B's head 63 (1-based 64th): 1 / 2^(63 x 8/64), not Press's product */
	assert_int_equal(pe_alibi_mpt_slopes(64, 8.0, got), PE_OK);
	assert_true(got[62] == 0.004259795830723663);
	assert_int_equal(pe_alibi_mpt_slopes(0, 8.0, got), PE_ERANGE);
	assert_int_equal(pe_alibi_mpt_slopes(4, 0.0, got), PE_ERANGE);
}

static void bias_tensors_match_4b(void **state)
{
	(void)state;
	const double paper[4][4] = {{0, -INFINITY, -INFINITY, -INFINITY},
	                            {-0.5, 0, -INFINITY, -INFINITY},
	                            {-1, -0.5, 0, -INFINITY},
	                            {-1.5, -1, -0.5, 0}};
	struct pe_scheme *s = parse("alibi");
	struct pe_matrix *m = NULL;
	assert_int_equal(pe_alibi_bias(s, 4, &m), PE_OK);
	assert_int_equal(m->rows, 8 * 4);
	assert_int_equal(m->cols, 4);
	for (int i = 0; i < 4; i++) {
		for (int j = 0; j < 4; j++) {
			assert_true(m->data[i * 4 + j] == paper[i][j]);
			/* head 1 has slope 0.25: half of head 0 */
			assert_true(m->data[(4 + i) * 4 + j] == paper[i][j] / 2);
		}
		assert_false(signbit(m->data[i * 4 + i])); /* +0 on the diagonal */
	}
	pe_matrix_destroy(m);
	pe_scheme_destroy(s);

	s = parse("alibi:heads=6,form=official");
	assert_int_equal(pe_alibi_bias(s, 4, &m), PE_OK);
	assert_int_equal(m->rows, 24);
	for (int i = 0; i < 4; i++)
		for (int j = 0; j < 4; j++) {
			double want = j > i ? -INFINITY : 0.5 * j;
			/* heads=6: head 4 has slope 0.5 */
			assert_true(m->data[(16 + i) * 4 + j] == want);
			assert_true(m->data[(0 + i) * 4 + j] == (j > i ? -INFINITY : 0.25 * j));
		}
	pe_matrix_destroy(m);
	assert_int_equal(pe_alibi_bias(s, 0, &m), PE_OK);
	assert_int_equal(m->rows, 0);
	pe_matrix_destroy(m);
	assert_int_equal(pe_alibi_bias(s, SIZE_MAX / 2, &m), PE_ETOOBIG);
	assert_null(m);
	pe_scheme_destroy(s);
}

static unsigned bucket(int64_t rel, int bidirectional)
{
	unsigned b = 999;
	assert_int_equal(pe_t5_bucket(rel, 32, 128, bidirectional, &b), PE_OK);
	return b;
}

static void t5_table_5(void **state)
{
	(void)state;
	const int64_t rel[] = {-1000, -200, -128, -127, -100, -64, -45, -32, -23,  -16,    -15,
	                       -12,   -11,  -9,   -8,   -7,   -1,  0,   1,   7,    8,      11,
	                       12,    15,   16,   32,   64,   127, 128, 200, 1000, 1000000};
	const unsigned bidir[] = {15, 15, 15, 15, 15, 14, 12, 12, 11, 10, 9,  9,  8,  8,  8,  7,
	                          1,  0,  17, 23, 24, 24, 25, 25, 26, 28, 30, 31, 31, 31, 31, 31};
	const unsigned causal[] = {31, 31, 31, 31, 30, 26, 23, 21, 18, 16, 15, 12, 11, 9, 8, 7,
	                           1,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0, 0, 0};
	for (size_t k = 0; k < sizeof(rel) / sizeof(rel[0]); k++) {
		if (bucket(rel[k], 1) != bidir[k] || bucket(rel[k], 0) != causal[k]) {
			print_error("rel %lld: bidirectional %u (want %u), causal %u (want %u)\n",
			            (long long)rel[k], bucket(rel[k], 1), bidir[k],
			            bucket(rel[k], 0), causal[k]);
			fail();
		}
	}
	assert_int_equal(bucket(INT64_MIN, 1), 15);
	assert_int_equal(bucket(INT64_MAX, 1), 31);
}

static void t5_thresholds(void **state)
{
	(void)state;
	const int64_t bi[] = {8, 12, 16, 23, 32, 46, 64, 91};
	for (unsigned b = 8; b <= 15; b++) {
		int64_t t = bi[b - 8];
		assert_int_equal(bucket(-t, 1), b);
		assert_int_equal(bucket(-(t - 1), 1), b - 1);
		assert_int_equal(bucket(t, 1), 16 + b);
		assert_int_equal(bucket(t - 1, 1), 16 + b - 1);
	}
	const int64_t ca[] = {16, 19, 21, 24, 27, 31, 35, 40, 46, 52, 59, 67, 77, 87, 99, 113};
	for (unsigned b = 16; b <= 31; b++) {
		int64_t t = ca[b - 16];
		assert_int_equal(bucket(-t, 0), b);
		assert_int_equal(bucket(-(t - 1), 0), b - 1);
	}
	/* bidirectional bucket 16 is never produced */
	for (int64_t r = -2000; r <= 2000; r++)
		assert_int_not_equal(bucket(r, 1), 16);
}

static void t5_bucket_map(void **state)
{
	(void)state;
	struct pe_scheme *s = parse("t5");
	struct pe_matrix *m = NULL;
	assert_int_equal(pe_t5_bucket_map(s, 200, &m), PE_OK);
	assert_int_equal(m->rows, 200);
	assert_int_equal(m->cols, 200);
	/* row = query, column = key, rel = key - query */
	assert_true(m->data[0 * 200 + 1] == 17);    /* rel 1 */
	assert_true(m->data[1 * 200 + 0] == 1);     /* rel -1 */
	assert_true(m->data[100 * 200 + 36] == 14); /* rel -64 */
	assert_true(m->data[0 * 200 + 199] == 31);
	assert_true(m->data[199 * 200 + 0] == 15);
	assert_true(m->data[57 * 200 + 57] == 0);
	pe_matrix_destroy(m);
	pe_scheme_destroy(s);
	s = parse("t5:bidirectional=0");
	assert_int_equal(pe_t5_bucket_map(s, 130, &m), PE_OK);
	assert_true(m->data[0 * 130 + 129] == 0);   /* future key */
	assert_true(m->data[129 * 130 + 0] == 31);  /* rel -129 */
	assert_true(m->data[100 * 130 + 55] == 23); /* rel -45 */
	pe_matrix_destroy(m);
	pe_scheme_destroy(s);
}

static void refusals(void **state)
{
	(void)state;
	const char *why = NULL;
	struct pe_scheme *s = parse("sinusoidal");
	struct pe_matrix *m = NULL;
	assert_int_equal(pe_bias_check(s, &why), PE_EUNSUPPORTED);
	assert_non_null(why);
	assert_int_equal(pe_alibi_bias(s, 4, &m), PE_EUNSUPPORTED);
	assert_int_equal(pe_t5_bucket_map(s, 4, &m), PE_EUNSUPPORTED);
	assert_null(m);
	pe_scheme_destroy(s);
	s = parse("alibi");
	assert_int_equal(pe_bias_check(s, &why), PE_OK);
	assert_null(why);
	assert_int_equal(pe_t5_bucket_map(s, 4, &m), PE_EUNSUPPORTED);
	pe_scheme_destroy(s);
	unsigned b;
	assert_int_equal(pe_t5_bucket(5, 3, 128, 1, &b), PE_ERANGE); /* max_exact 0 */
	assert_int_equal(pe_t5_bucket(5, 4, 128, 1, &b), PE_OK);
	assert_int_equal(pe_t5_bucket(5, 2, 128, 0, &b), PE_OK);
	assert_int_equal(pe_t5_bucket(5, 32, 8, 1, &b), PE_ERANGE); /* max_distance = max_exact */
	assert_int_equal(pe_t5_bucket(5, 32, 9, 1, &b), PE_OK);
}

/*
 * Rows on demand are the tensor's rows bit for bit, in blocks that cross
 * heads; rows past the end and non-bias schemes are refused. (The tensors
 * themselves are checked against hand-worked values above.)
 */
static void rows_are_the_tensor(void **state)
{
	(void)state;
	const char *specs[] = {"alibi:heads=3", "alibi:heads=5,form=official", "t5",
	                       "t5:bidirectional=0,buckets=8,max-distance=20"};
	const size_t n = 37;
	for (size_t k = 0; k < sizeof(specs) / sizeof(specs[0]); k++) {
		struct pe_scheme *s = parse(specs[k]);
		struct pe_matrix *m = NULL;
		int alibi = k < 2;
		assert_int_equal(alibi ? pe_alibi_bias(s, n, &m) : pe_t5_bucket_map(s, n, &m),
		                 PE_OK);
		double *rows = malloc(m->rows * n * sizeof(double));
		assert_non_null(rows);
		for (size_t block = 1; block <= 50; block += 7) {
			for (size_t r0 = 0; r0 < m->rows; r0 += block) {
				size_t count = m->rows - r0 < block ? m->rows - r0 : block;
				assert_int_equal(pe_bias_rows(s, n, r0, count, rows), PE_OK);
				assert_memory_equal(rows, m->data + r0 * n,
				                    count * n * sizeof(double));
			}
		}
		assert_int_equal(pe_bias_rows(s, n, m->rows - 1, 2, rows), PE_ERANGE);
		assert_int_equal(pe_bias_rows(s, n, 0, 0, rows), PE_ERANGE);
		free(rows);
		pe_matrix_destroy(m);
		pe_scheme_destroy(s);
	}
	struct pe_scheme *s = parse("sinusoidal");
	double one[4];
	assert_int_equal(pe_bias_rows(s, 2, 0, 1, one), PE_EUNSUPPORTED);
	pe_scheme_destroy(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(slopes_match_4a),
	        cmocka_unit_test(rows_are_the_tensor),
	        cmocka_unit_test(slopes_closed_form_and_mpt),
	        cmocka_unit_test(mpt_slopes_exact),
	        cmocka_unit_test(bias_tensors_match_4b),
	        cmocka_unit_test(t5_table_5),
	        cmocka_unit_test(t5_thresholds),
	        cmocka_unit_test(t5_bucket_map),
	        cmocka_unit_test(refusals),
	};
	return cmocka_run_group_tests_name("bias", tests, NULL, NULL);
}
