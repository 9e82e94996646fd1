/*
 * Long curves reduced as they are made (cli/figures/curve.c). A curve bound
 * for a log x axis must keep the first offsets one by one: with 163840
 * offsets and 8192 runs, a run equal in log(1 + i) spans
 * 8192 ln((i + 2) / (i + 1)) / ln(163841) > 6 runs between neighbours up
 * to i = 100 (ln(102/101) = 0.00985, ln(163841) = 12.01), so each of them
 * is a run of its own; runs of equal length hold 20 indices each and merge
 * offsets 1..19. Either way every run keeps its extremes, so the curve's
 * global minimum and maximum survive, and at most 4 points a run are kept.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "figures/curve.h"

#define N 163840

/* A decaying, oscillating curve with its extremes at known indices. */
static double f(size_t i)
{
	if (i == 77777)
		return -50.0;
	return 100.0 / (1.0 + (double)i) + sin(0.37 * (double)i);
}

static void fill(struct cli_curve *c)
{
	for (size_t i = 0; i < N; i++)
		assert_int_equal(cli_curve_push(c, i, (double)i, f(i)), 0);
	assert_int_equal(cli_curve_finish(c), 0);
}

static int has_x(const struct cli_curve *c, double x)
{
	for (size_t k = 0; k < c->len; k++)
		if (c->x[k] == x)
			return 1;
	return 0;
}

static void common(const struct cli_curve *c)
{
	assert_true(c->len <= 4 * (size_t)CURVE_BUCKETS + 16);
	for (size_t k = 0; k < c->len; k++) {
		assert_true(k == 0 || c->x[k] > c->x[k - 1]);
		assert_true(c->y[k] == f((size_t)c->x[k]));
	}
	assert_true(has_x(c, 0.0) && has_x(c, 77777.0) && has_x(c, (double)(N - 1)));
}

static void log_runs_keep_the_first_offsets(void **state)
{
	(void)state;
	struct cli_curve c;
	assert_int_equal(cli_curve_init_log(&c, N), 0);
	fill(&c);
	common(&c);
	for (size_t i = 0; i <= 100; i++)
		assert_true(has_x(&c, (double)i));
	cli_curve_free(&c);
}

static void equal_runs_merge_them(void **state)
{
	(void)state;
	struct cli_curve c;
	assert_int_equal(cli_curve_init(&c, N), 0);
	fill(&c);
	common(&c);
	/* run 0 is indices 0..19: its first, lowest, highest and last at most */
	size_t in_run0 = 0;
	for (size_t k = 0; k < c.len; k++)
		in_run0 += c.x[k] < 20.0;
	assert_true(in_run0 <= 4);
	cli_curve_free(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(log_runs_keep_the_first_offsets),
	        cmocka_unit_test(equal_runs_merge_them),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
