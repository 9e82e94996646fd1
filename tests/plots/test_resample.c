/*
 * test_resample.c - area means and nearest upsampling, worked by hand
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <posenc/resample.h>

static struct pe_matrix *make(size_t rows, size_t cols, const double *v)
{
	struct pe_matrix *m = pe_matrix_create(rows, cols);
	assert_non_null(m);
	memcpy(m->data, v, rows * cols * sizeof(double));
	return m;
}

static void expect(const struct pe_matrix *m, size_t rows, size_t cols, const double *v)
{
	assert_int_equal(m->rows, rows);
	assert_int_equal(m->cols, cols);
	for (size_t i = 0; i < rows * cols; i++) {
		if (isnan(v[i]))
			assert_true(isnan(m->data[i]));
		else if (isinf(v[i]))
			assert_true(m->data[i] == v[i]);
		else
			assert_true(fabs(m->data[i] - v[i]) <= 1e-12 * fmax(1.0, fabs(v[i])));
	}
}

static void resample_check(size_t rows, size_t cols, const double *in, size_t orows, size_t ocols,
                           const double *want)
{
	struct pe_matrix *m = make(rows, cols, in), *out = NULL;
	assert_int_equal(pe_resample(m, orows, ocols, &out), PE_OK);
	expect(out, orows, ocols, want);
	pe_matrix_destroy(out);
	pe_matrix_destroy(m);
}

static void block_means(void **state)
{
	(void)state;
	const double in[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
	/* (1+2+5+6)/4, (3+4+7+8)/4, (9+10+13+14)/4, (11+12+15+16)/4 */
	const double want[4] = {3.5, 5.5, 11.5, 13.5};
	resample_check(4, 4, in, 2, 2, want);
	/* Everything into one cell: the mean 8.5. */
	const double all[1] = {8.5};
	resample_check(4, 4, in, 1, 1, all);
	/* Same size is the identity. */
	resample_check(4, 4, in, 4, 4, in);
}

static void fractional_coverage(void **state)
{
	(void)state;
	/* 3 -> 2: cell 0 covers input 0 and half of input 1: (2a + b) / 3. */
	const double in3[3] = {3, 6, 9};
	const double want3[2] = {(2 * 3 + 6) / 3.0, (6 + 2 * 9) / 3.0}; /* 4, 8 */
	resample_check(1, 3, in3, 1, 2, want3);
	/* 5 -> 2: (2a + 2b + c) / 5 and (c + 2d + 2e) / 5. */
	const double in5[5] = {1, 2, 3, 4, 5};
	const double want5[2] = {1.8, 4.2};
	resample_check(1, 5, in5, 1, 2, want5);
	/* The same along rows (5 x 1 -> 2 x 1). */
	resample_check(5, 1, in5, 2, 1, want5);
	/* 3 x 3 -> 2 x 2: weights are products of the 1-D ones,
	 * (2,1,0)/3 x (2,1,0)/3 for cell (0,0): (4*1 + 2*2 + 2*4 + 1*5) / 9. */
	const double in9[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
	const double want9[4] = {
	        (4 * 1 + 2 * 2 + 2 * 4 + 1 * 5) / 9.0,
	        (2 * 2 + 4 * 3 + 1 * 5 + 2 * 6) / 9.0,
	        (2 * 4 + 1 * 5 + 4 * 7 + 2 * 8) / 9.0,
	        (1 * 5 + 2 * 6 + 2 * 8 + 4 * 9) / 9.0,
	};
	resample_check(3, 3, in9, 2, 2, want9);
}

static void nearest_when_upsampling(void **state)
{
	(void)state;
	/* 1 x 3 -> 1 x 4: sources floor((o + 0.5) * 3 / 4) = 0, 1, 1, 2. */
	const double in[3] = {10, 20, 30};
	const double want[4] = {10, 20, 20, 30};
	resample_check(1, 3, in, 1, 4, want);
	/* 2 x 2 -> 4 x 6: blocks of 2 x 3. */
	const double in4[4] = {1, 2, 3, 4};
	const double want24[24] = {
	        1, 1, 1, 2, 2, 2, 1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4, 3, 3, 3, 4, 4, 4,
	};
	resample_check(2, 2, in4, 4, 6, want24);
	/* Mixed: rows doubled by nearest, columns averaged in pairs. */
	const double in12[12] = {1, 3, 5, 7, 9, 11, 2, 4, 6, 8, 10, 12};
	const double want12[12] = {2, 6, 10, 2, 6, 10, 3, 7, 11, 3, 7, 11};
	resample_check(2, 6, in12, 4, 3, want12);
}

static void nan_is_left_out(void **state)
{
	(void)state;
	const double in[6] = {1, NAN, 3, 5, NAN, NAN};
	const double want[3] = {1, 4, NAN};
	resample_check(1, 6, in, 1, 3, want);
	const double inf[4] = {INFINITY, 1, INFINITY, -INFINITY};
	const double wantinf[2] = {INFINITY, NAN};
	resample_check(1, 4, inf, 1, 2, wantinf);
}

static void no_moire_on_a_fine_pattern(void **state)
{
	(void)state;
	/* Columns alternate 0, 1 (period 2), 8192 wide into 800: each pixel
	 * averages 10.24 columns, so it lies within 0.5 +- 0.5/10.24 (nearest
	 * would pick 0 or 1, a false beat pattern). */
	double *row = malloc(8192 * sizeof(double));
	for (size_t j = 0; j < 8192; j++)
		row[j] = (double)(j % 2);
	struct pe_matrix *m = make(1, 8192, row), *out;
	assert_int_equal(pe_resample(m, 1, 800, &out), PE_OK);
	double lo = 1, hi = 0, sum = 0;
	for (size_t o = 0; o < 800; o++) {
		lo = fmin(lo, out->data[o]);
		hi = fmax(hi, out->data[o]);
		sum += out->data[o];
	}
	assert_true(lo >= 0.5 - 0.5 / 10.24 - 1e-12);
	assert_true(hi <= 0.5 + 0.5 / 10.24 + 1e-12);
	/* Every pixel has the same total weight, so the means average to 0.5. */
	assert_true(fabs(sum / 800 - 0.5) < 1e-12);
	pe_matrix_destroy(out);
	pe_matrix_destroy(m);
	free(row);
}

struct src {
	size_t cols;
	size_t fail_at;
};

static enum pe_status src_row(void *ctx, size_t row, double *buf)
{
	struct src *s = ctx;
	if (row == s->fail_at)
		return PE_EFORMAT;
	for (size_t j = 0; j < s->cols; j++)
		buf[j] = (double)(row * 10 + j);
	return PE_OK;
}

static void streaming_and_errors(void **state)
{
	(void)state;
	/* value = 10 r + c, 6 x 4 -> 3 x 2: mean of each 2 x 2 block is
	 * 10 (2R + 0.5) + (2C + 0.5). */
	struct src s = {4, SIZE_MAX};
	struct pe_matrix *out = NULL;
	assert_int_equal(pe_resample_rows(6, 4, src_row, &s, 3, 2, &out), PE_OK);
	const double want[6] = {5.5, 7.5, 25.5, 27.5, 45.5, 47.5};
	expect(out, 3, 2, want);
	pe_matrix_destroy(out);

	s.fail_at = 3;
	out = NULL;
	assert_int_equal(pe_resample_rows(6, 4, src_row, &s, 3, 2, &out), PE_EFORMAT);
	assert_null(out);

	struct pe_resampler *r = NULL;
	assert_int_equal(pe_resampler_create(0, 4, 2, 2, &r), PE_EINVAL);
	assert_int_equal(pe_resampler_create(4, 4, 2, 0, &r), PE_EINVAL);
	assert_int_equal(pe_resampler_create(SIZE_MAX / 4, 4, 1u << 20, 2, &r), PE_ETOOBIG);
	assert_int_equal(pe_resampler_create(2, 2, 1, 1, &r), PE_OK);
	const double row[2] = {1, 2};
	assert_int_equal(pe_resampler_push(r, row), PE_OK);
	assert_int_equal(pe_resampler_finish(r, &out), PE_ERANGE);
	assert_int_equal(pe_resampler_push(r, row), PE_OK);
	assert_int_equal(pe_resampler_push(r, row), PE_ERANGE);
	assert_int_equal(pe_resampler_finish(r, &out), PE_OK);
	assert_true(out->data[0] == 1.5);
	pe_matrix_destroy(out);
	pe_resampler_destroy(r);
	pe_resampler_destroy(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(block_means),
	        cmocka_unit_test(fractional_coverage),
	        cmocka_unit_test(nearest_when_upsampling),
	        cmocka_unit_test(nan_is_left_out),
	        cmocka_unit_test(no_moire_on_a_fine_pattern),
	        cmocka_unit_test(streaming_and_errors),
	};
	return cmocka_run_group_tests_name("resample", tests, NULL, NULL);
}
