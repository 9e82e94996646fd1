/*
 * test_bias_grid - the block means of lib/analysis/bias_grid.c against the library's
 * full bias tensors averaged by brute force (masked keys left out).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <cmocka.h>

#include <posenc/bias.h>

static struct pe_scheme *scheme(const char *spec)
{
	struct pe_scheme *s = NULL;
	assert_int_equal(pe_scheme_parse(spec, &s, NULL), PE_OK);
	return s;
}

/* Mean of the finite cells of head h over the block (bi, bj), by brute force. */
static double brute(const struct pe_matrix *full, size_t n, size_t h, size_t g, size_t bi,
                    size_t bj)
{
	size_t a0 = bi * n / g, a1 = (bi + 1) * n / g, b0 = bj * n / g, b1 = (bj + 1) * n / g;
	double sum = 0, count = 0;
	for (size_t i = a0; i < a1; i++)
		for (size_t j = b0; j < b1; j++) {
			double v = full->data[(h * n + i) * n + j];
			if (isfinite(v)) {
				sum += v;
				count++;
			}
		}
	return count ? sum / count : NAN;
}

static void check(const char *spec, size_t n, size_t g)
{
	struct pe_scheme *s = scheme(spec);
	struct pe_matrix *full = NULL, *grid = NULL;
	assert_int_equal(pe_scheme_has(s, PE_CAP_BIAS_HEADS) ? pe_alibi_bias(s, n, &full)
	                                                     : pe_t5_bucket_map(s, n, &full),
	                 PE_OK);
	assert_int_equal(pe_bias_grid(s, n, g, &grid), PE_OK);
	size_t heads = pe_scheme_has(s, PE_CAP_BIAS_HEADS) ? s->heads : 1;
	assert_int_equal(grid->rows, heads * g);
	assert_int_equal(grid->cols, g);
	for (size_t h = 0; h < heads; h++)
		for (size_t bi = 0; bi < g; bi++)
			for (size_t bj = 0; bj < g; bj++) {
				double want = brute(full, n, h, g, bi, bj);
				double got = grid->data[(h * g + bi) * g + bj];
				if (isnan(want)) {
					if (!isnan(got))
						fail_msg("%s n=%zu g=%zu h=%zu (%zu,%zu): %g, want "
						         "NaN",
						         spec, n, g, h, bi, bj, got);
				} else if (!(fabs(got - want) <= 1e-9 * (1 + fabs(want)))) {
					fail_msg(
					        "%s n=%zu g=%zu h=%zu (%zu,%zu): %.17g, want %.17g",
					        spec, n, g, h, bi, bj, got, want);
				}
			}
	pe_matrix_destroy(full);
	pe_matrix_destroy(grid);
	pe_scheme_destroy(s);
}

static void alibi_blocks_are_the_means(void **state)
{
	(void)state;
	const size_t sizes[][2] = {{1, 1}, {7, 7}, {37, 5}, {300, 64}, {301, 7}, {256, 256}};
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		check("alibi:heads=3", sizes[k][0], sizes[k][1]);
		check("alibi:heads=5,form=official", sizes[k][0], sizes[k][1]);
	}
}

static void t5_blocks_are_the_means(void **state)
{
	(void)state;
	const size_t sizes[][2] = {{1, 1}, {7, 7}, {37, 5}, {300, 64}, {301, 7}, {600, 97}};
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		check("t5", sizes[k][0], sizes[k][1]);
		check("t5:bidirectional=0,buckets=16,max-distance=40", sizes[k][0], sizes[k][1]);
	}
}

static void bad_sizes_are_refused(void **state)
{
	(void)state;
	struct pe_scheme *s = scheme("alibi");
	struct pe_matrix *m = (struct pe_matrix *)&m;
	assert_int_equal(pe_bias_grid(s, 10, 0, &m), PE_EINVAL);
	assert_null(m);
	assert_int_equal(pe_bias_grid(s, 10, 11, &m), PE_EINVAL);
	pe_scheme_destroy(s);
	s = scheme("sinusoidal");
	assert_int_equal(pe_bias_grid(s, 10, 5, &m), PE_EUNSUPPORTED);
	pe_scheme_destroy(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(alibi_blocks_are_the_means),
	        cmocka_unit_test(t5_blocks_are_the_means),
	        cmocka_unit_test(bad_sizes_are_refused),
	};
	return cmocka_run_group_tests_name("bias_grid", tests, NULL, NULL);
}
