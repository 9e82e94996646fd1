#include <math.h>

#include "encode_internal.h"

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
	/* |lo| <= ulp(hi) / 2, so first order is exact to double precision. */
	*s = sh + lo * ch;
	*c = ch - lo * sh;
	if (angle)
		*angle = hi + lo;
}
