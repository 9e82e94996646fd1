/*
 * near.h - tolerant float comparison for the analysis tests
 *
 * Reference numbers in research/formulas.md are printed with a limited
 * number of digits; assert_near() takes the absolute tolerance of the last
 * printed digit (half a unit), assert_rel() a relative one for closed forms.
 */
#ifndef POSENC_TESTS_NEAR_H
#define POSENC_TESTS_NEAR_H

#include <math.h>
#include <stdio.h>

#define assert_near(actual, expected, tol)                                                         \
	do {                                                                                       \
		double a_ = (actual), e_ = (expected), t_ = (tol);                                 \
		if (!(fabs(a_ - e_) <= t_)) {                                                      \
			print_error("%s = %.17g, expected %.17g within %g\n", #actual, a_, e_, t_); \
			fail();                                                                    \
		}                                                                                  \
	} while (0)

#define assert_rel(actual, expected, tol)                                                          \
	do {                                                                                       \
		double a_ = (actual), e_ = (expected), t_ = (tol);                                 \
		if (!(fabs(a_ - e_) <= t_ * fmax(fabs(e_), 1e-300))) {                              \
			print_error("%s = %.17g, expected %.17g within %g relative\n", #actual, a_, \
				    e_, t_);                                                       \
			fail();                                                                    \
		}                                                                                  \
	} while (0)

#endif
