/*
 * test_norm.c - data limits and normalisation, checked by hand
 */
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <posenc/colormap.h>
#include <posenc/norm.h>

static void limits_ignore_nan_and_inf(void **state)
{
	(void)state;
	const double x[] = {NAN, 3.0, -INFINITY, -2.5, 7.25, INFINITY, 0.0};
	struct pe_norm n = {0, 0};
	assert_int_equal(pe_norm_from_data(x, 7, &n), PE_OK);
	assert_true(n.vmin == -2.5 && n.vmax == 7.25);

	/* In pieces gives the same. */
	struct pe_norm p = pe_norm_empty();
	assert_true(pe_norm_is_empty(&p));
	pe_norm_add(&p, x, 3);
	pe_norm_add(&p, x + 3, 4);
	assert_false(pe_norm_is_empty(&p));
	assert_true(p.vmin == -2.5 && p.vmax == 7.25);

	const double bad[] = {NAN, INFINITY, -INFINITY};
	struct pe_norm keep = {1, 2};
	assert_int_equal(pe_norm_from_data(bad, 3, &keep), PE_ERANGE);
	assert_true(keep.vmin == 1 && keep.vmax == 2);
	assert_int_equal(pe_norm_from_data(NULL, 0, &keep), PE_ERANGE);
}

static void symmetric_is_centred_on_zero(void **state)
{
	(void)state;
	struct pe_norm s = pe_norm_symmetric((struct pe_norm){-0.25, 0.8});
	assert_true(s.vmin == -0.8 && s.vmax == 0.8);
	s = pe_norm_symmetric((struct pe_norm){-3.0, 1.0});
	assert_true(s.vmin == -3.0 && s.vmax == 3.0);
	s = pe_norm_symmetric((struct pe_norm){2.0, 5.0}); /* all positive */
	assert_true(s.vmin == -5.0 && s.vmax == 5.0);
	assert_true(pe_norm_apply(&s, 0.0) == 0.5);
	assert_int_equal(pe_colormap_index(pe_norm_apply(&s, 0.0)), 128);
	s = pe_norm_symmetric(pe_norm_empty());
	assert_true(pe_norm_is_empty(&s));
}

static void overrides(void **state)
{
	(void)state;
	struct pe_norm n = {-1.0, 4.0};
	double lo = 0.5, hi = 2.0, nan = NAN, big = 10.0;
	assert_int_equal(pe_norm_override(&n, &lo, NULL, false), PE_OK);
	assert_true(n.vmin == 0.5 && n.vmax == 4.0);
	assert_int_equal(pe_norm_override(&n, NULL, &hi, false), PE_OK);
	assert_true(n.vmin == 0.5 && n.vmax == 2.0);
	assert_int_equal(pe_norm_override(&n, &big, NULL, false), PE_ERANGE);
	assert_true(n.vmin == 0.5 && n.vmax == 2.0);
	assert_int_equal(pe_norm_override(&n, &nan, NULL, false), PE_EINVAL);

	/* Symmetric: one limit mirrors to the other. */
	struct pe_norm s = {-1.0, 1.0};
	double v = 0.5;
	assert_int_equal(pe_norm_override(&s, NULL, &v, true), PE_OK);
	assert_true(s.vmin == -0.5 && s.vmax == 0.5);
	double m = -0.2;
	assert_int_equal(pe_norm_override(&s, &m, NULL, true), PE_OK);
	assert_true(s.vmin == -0.2 && s.vmax == 0.2);

	/* No data: both limits needed. */
	struct pe_norm e = pe_norm_empty();
	assert_int_equal(pe_norm_override(&e, &lo, NULL, false), PE_ERANGE);
	assert_int_equal(pe_norm_override(&e, &lo, &hi, false), PE_OK);
	assert_true(e.vmin == 0.5 && e.vmax == 2.0);
	/* vmin == vmax is allowed: apply() handles it. */
	assert_int_equal(pe_norm_override(&e, &hi, &hi, false), PE_OK);
}

static void apply_maps_linearly(void **state)
{
	(void)state;
	struct pe_norm n = {-2.0, 6.0};
	assert_true(pe_norm_apply(&n, -2.0) == 0.0);
	assert_true(pe_norm_apply(&n, 6.0) == 1.0);
	assert_true(pe_norm_apply(&n, 2.0) == 0.5);
	assert_true(pe_norm_apply(&n, 0.0) == 0.25);
	assert_true(pe_norm_apply(&n, 10.0) == 1.5);
	assert_true(pe_norm_apply(&n, -4.0) == -0.25);
	assert_true(isnan(pe_norm_apply(&n, NAN)));
	assert_true(pe_norm_apply(&n, INFINITY) == INFINITY);
	assert_true(pe_norm_apply(&n, -INFINITY) == -INFINITY);

	/* Limits near DBL_MAX do not overflow the span. */
	struct pe_norm wide = {-DBL_MAX, DBL_MAX};
	assert_true(pe_norm_apply(&wide, 0.0) == 0.5);
	assert_true(pe_norm_apply(&wide, DBL_MAX) == 1.0);
}

static void degenerate_range_has_no_division_by_zero(void **state)
{
	(void)state;
	struct pe_norm c = {3.0, 3.0};
	assert_true(pe_norm_apply(&c, 3.0) == 0.5);
	assert_true(pe_norm_apply(&c, 1.0) == 0.0);
	assert_true(pe_norm_apply(&c, 5.0) == 1.0);
	assert_true(isnan(pe_norm_apply(&c, NAN)));
	/* All-zero signed data: symmetric [0, 0], drawn in the neutral middle. */
	const double z[] = {0.0, 0.0, -0.0};
	struct pe_norm n;
	assert_int_equal(pe_norm_from_data(z, 3, &n), PE_OK);
	n = pe_norm_symmetric(n);
	assert_true(n.vmin == 0.0 && n.vmax == 0.0);
	assert_true(pe_norm_apply(&n, 0.0) == 0.5);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(limits_ignore_nan_and_inf),
	        cmocka_unit_test(symmetric_is_centred_on_zero),
	        cmocka_unit_test(overrides),
	        cmocka_unit_test(apply_maps_linearly),
	        cmocka_unit_test(degenerate_range_has_no_division_by_zero),
	};
	return cmocka_run_group_tests_name("norm", tests, NULL, NULL);
}
