/*
 * The summary row (lib/analysis/summary.c) of a set small enough to work
 * out by hand: the binary scheme, d = 2, positions 0..3, whose rows are
 * (0,0), (1,0), (0,1), (1,1).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <posenc/decay.h>
#include <posenc/pairwise.h>
#include <posenc/summary.h>

static void binary_by_hand(void **state)
{
	(void)state;
	struct pe_scheme *s = NULL;
	assert_int_equal(pe_scheme_parse("binary", &s, NULL), PE_OK);
	struct pe_vectors v = {s, NULL, 2, PE_VIEW_DEFAULT, 0, 4};
	struct pe_matrix *dist = NULL, *corr = NULL;
	double decay[4], row[PE_SUMMARY_COLS];
	assert_int_equal(pe_pairwise_grid(&v, PE_METRIC_L2, 4, 4, &dist), PE_OK);
	assert_int_equal(pe_pairwise_grid(&v, PE_METRIC_CORR, 4, 4, &corr), PE_OK);
	assert_int_equal(pe_decay_curve(&v, PE_DECAY_DOT, 3, decay), PE_OK);
	pe_summary_row(&v, dist, corr, decay, row);

	/* binary has no frequencies, so no wavelengths */
	assert_true(isnan(row[0]) && isnan(row[1]));
	/* off-diagonal distances: 1 (e.g. rows 0, 1) up to sqrt 2 (rows 0, 3 and 1, 2) */
	assert_true(fabs(row[2] - 1.0) < 1e-15 && fabs(row[3] - sqrt(2.0)) < 1e-15);
	/* rows 0 and 3 are constant (no correlation); rows 1 and 2 correlate at -1 */
	assert_true(fabs(row[4] + 1.0) < 1e-15 && fabs(row[5] + 1.0) < 1e-15);
	/* neighbours: 1, sqrt 2, 1 */
	assert_true(fabs(row[6] - (2.0 + sqrt(2.0)) / 3.0) < 1e-15);
	/* mean dot products: offset 0 (0 + 1 + 1 + 2) / 4, offset 1 (0 + 0 + 1) / 3 */
	assert_true(fabs(row[7] - 1.0) < 1e-15 && fabs(row[8] - 1.0 / 3.0) < 1e-15);
	/* offsets 10 and 100 lie beyond 4 positions */
	assert_true(isnan(row[9]) && isnan(row[10]));

	assert_string_equal(pe_summary_columns()[0], "wavelength_min");
	assert_string_equal(pe_summary_columns()[PE_SUMMARY_COLS - 1], "decay_100");
	pe_matrix_destroy(dist);
	pe_matrix_destroy(corr);
	pe_scheme_destroy(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(binary_by_hand),
	};
	return cmocka_run_group_tests_name("summary", tests, NULL, NULL);
}
