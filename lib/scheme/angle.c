#include <math.h>

#include "scheme/encode_internal.h"

void pe_exact_sincos(double x, double w, int divide, double *s, double *c, double *angle)
{
	double hi, lo;
	if (divide) {
		hi = x / w;
		/* fma gives the exact remainder x - hi * w. */
		lo = fma(-hi, w, x) / w;
	} else {
		hi = x * w;
		lo = fma(x, w, -hi);
	}
	double sh = sin(hi), ch = cos(hi);
	/*
	 * |lo| <= ulp(hi) / 2 (6e-5 at angles of 1e12): sin(lo) and cos(lo) to
	 * third order leave terms below lo^4 / 24, under 1e-18. Past 2^47 or
	 * so ulp(hi) / 2 passes 1e-4 (it is 1 at 2^53) and the series would be
	 * off by up to lo^4 / 24: there sin and cos of lo themselves.
	 */
	double lo2 = lo * lo, sl, cl;
	if (fabs(lo) < 1e-4) {
		sl = lo - lo * lo2 / 6.0;
		cl = 1.0 - lo2 / 2.0;
	} else {
		sl = sin(lo);
		cl = cos(lo);
	}
	*s = sh * cl + ch * sl;
	*c = ch * cl - sh * sl;
	if (angle)
		*angle = hi + lo;
}
