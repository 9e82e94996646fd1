/*
 * The untrained "learned" table: N(0, std^2) numbers that are the same on
 * every IEEE-754 machine and can be generated for any position range.
 *
 * Element k (row-major index, position * d + column) is a normal variate
 * from Marsaglia's polar method, fed by the splitmix64 stream whose state
 * starts at mix(mix(seed) + k). Uniforms in (-1, 1) come from the top 53
 * bits. Only +, -, *, /, sqrt and frexp/ldexp are used (the logarithm is
 * our own), so no libm difference can change a digit.
 */
#include <math.h>
#include <stdint.h>

#include "scheme/encode_internal.h"

#define GOLDEN 0x9e3779b97f4a7c15ull

static uint64_t mix(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Natural log of x in (0, 1]: x = m 2^e, log m = 2 atanh((m-1)/(m+1)). */
static double portable_log(double x)
{
	int e;
	double m = frexp(x, &e);
	if (m < 0.70710678118654752440) {
		m *= 2.0;
		e -= 1;
	}
	double f = (m - 1.0) / (m + 1.0), f2 = f * f;
	/* |f| <= 0.1716: 13 odd terms bring the series below 2^-60. */
	double series = 1.0 / 27.0;
	for (int k = 25; k >= 1; k -= 2)
		series = 1.0 / k + f2 * series;
	const double ln2_hi = 6.93147180369123816490e-01, ln2_lo = 1.90821492927058770002e-10;
	return (double)e * ln2_hi + (2.0 * f * series + (double)e * ln2_lo);
}

static double normal_at(uint64_t key, uint64_t k)
{
	uint64_t state = mix(key + k);
	for (;;) {
		state += GOLDEN;
		double u = (double)(mix(state) >> 11) * 0x1p-52 - 1.0;
		state += GOLDEN;
		double v = (double)(mix(state) >> 11) * 0x1p-52 - 1.0;
		double s = u * u + v * v;
		if (s > 0.0 && s < 1.0)
			return u * sqrt(-2.0 * portable_log(s) / s);
	}
}

void pe_learned_rows(const struct pe_scheme *s, size_t d, uint64_t first, size_t n, double *dst)
{
	uint64_t key = mix(s->seed);
	for (size_t r = 0; r < n; r++)
		for (size_t j = 0; j < d; j++)
			dst[r * d + j] = s->std * normal_at(key, (first + r) * (uint64_t)d + j);
}
