/*
 * near.h - tolerant float comparison for the analysis tests
 *
 * Reference numbers in doc/conventions.md are printed with a limited
 * number of digits; assert_near() takes the absolute tolerance of the last
 * printed digit (half a unit), assert_rel() a relative one for closed forms.
 * Include after <cmocka.h>.
 */
#ifndef POSENC_TESTS_NEAR_H
#define POSENC_TESTS_NEAR_H

#include <math.h>

static inline void near_check(double a, double e, double tol, int relative, const char *expr,
                              const char *file, int line)
{
	double bound = relative ? tol * fmax(fabs(e), 1e-300) : tol;
	if (fabs(a - e) <= bound)
		return;
	print_error("%s = %.17g, expected %.17g within %g%s\n", expr, a, e, tol,
	            relative ? " relative" : "");
	_fail(file, line);
}

#define assert_near(actual, expected, tol)                                                         \
	near_check((actual), (expected), (tol), 0, #actual, __FILE__, __LINE__)
#define assert_rel(actual, expected, tol)                                                          \
	near_check((actual), (expected), (tol), 1, #actual, __FILE__, __LINE__)

#endif
