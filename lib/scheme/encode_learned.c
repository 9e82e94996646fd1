/*
 * The untrained "learned" table: N(0, std^2) numbers that are the same on
 * every IEEE-754 machine and can be generated for any position range.
 *
 * Element k (row-major index, position * d + column) is a normal variate
 * from Marsaglia's polar method, fed by the splitmix64 stream whose state
 * starts at mix(mix(seed) + k). Uniforms in (-1, 1) come from the top 53
 * bits. Only +, -, *, /, sqrt and exact exponent handling are used (the
 * logarithm is our own), so no libm difference can change a digit.
 *
 * The work is split in two passes over a batch of elements: first the
 * integer stream and the polar method's rejection (the one data-dependent
 * branch), which leaves each element's accepted pair (u, s); then the
 * floating-point part, branch-free and the same for every element, which
 * the compiler vectorises and the core pipelines across elements. The
 * operations and their order are those of the one-element formula, so the
 * bits are too (tests/cli/test_learned_bits_cli.py recomputes them).
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "analysis/pairwise_internal.h"
#include "core/wide_clones.h"
#include "scheme/encode_internal.h"

#define GOLDEN 0x9e3779b97f4a7c15ull
/* Elements per batch: the accepted pairs stay in L1. */
#define BATCH 512

static uint64_t mix(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* A uniform in [-1, 1) from the top 53 bits (below 2^53: the signed
 * conversion is exact and needs no unsigned fix-up). */
static inline double uniform(uint64_t z)
{
	return (double)(int64_t)(z >> 11) * 0x1p-52 - 1.0;
}

/*
 * Natural log of x in (0, 1): x = m 2^e, log m = 2 atanh((m-1)/(m+1)),
 * with m in [sqrt(1/2), sqrt(2)). x = u^2 + v^2 with u, v multiples of
 * 2^-52 is at least 2^-104, a normal number, so m and e come straight from
 * its bits, in integer operations only (no branch: the loop vectorises):
 * the exponent field E gives x = m' 2^(E - 1022), m' in [0.5, 1); when m'
 * is below sqrt(1/2) (its fraction bits below those of the double nearest
 * sqrt(1/2), 0x3fe6a09e667f3bcd) m = 2 m' (the exponent field one up) and
 * e = E - 1023. e becomes a double exactly as 2^52 + e' - 2^52.
 */
static inline double log_unit(double x)
{
	uint64_t b;
	memcpy(&b, &x, sizeof(b));
	const uint64_t frac = 0x000fffffffffffffull;
	uint64_t low = ((b & frac) - 0x0006a09e667f3bcdull) >> 63;
	uint64_t mb = (b & frac) | (0x3fe0000000000000ull + (low << 52));
	uint64_t eb = ((b >> 52) - low) | 0x4330000000000000ull;
	double ed, m;
	memcpy(&ed, &eb, sizeof(ed));
	memcpy(&m, &mb, sizeof(m));
	double e = (ed - 0x1p52) - 1022.0;
	double f = (m - 1.0) / (m + 1.0), f2 = f * f;
	/* |f| <= 0.1716: 13 odd terms bring the series below 2^-60; the
	 * coefficients are the correctly rounded 1/k. */
	double series = 1.0 / 27.0;
	series = 1.0 / 25.0 + f2 * series;
	series = 1.0 / 23.0 + f2 * series;
	series = 1.0 / 21.0 + f2 * series;
	series = 1.0 / 19.0 + f2 * series;
	series = 1.0 / 17.0 + f2 * series;
	series = 1.0 / 15.0 + f2 * series;
	series = 1.0 / 13.0 + f2 * series;
	series = 1.0 / 11.0 + f2 * series;
	series = 1.0 / 9.0 + f2 * series;
	series = 1.0 / 7.0 + f2 * series;
	series = 1.0 / 5.0 + f2 * series;
	series = 1.0 / 3.0 + f2 * series;
	series = 1.0 / 1.0 + f2 * series;
	const double ln2_hi = 6.93147180369123816490e-01, ln2_lo = 1.90821492927058770002e-10;
	return e * ln2_hi + (2.0 * f * series + e * ln2_lo);
}

/* The accepted pairs' normals, std times: the same operations in every
 * clone (WIDE_CLONES), the widest vectors the machine has. */
WIDE_CLONES static void finish(const double *us, const double *ss, size_t nb, double std,
                               double *dst)
{
	for (size_t i = 0; i < nb; i++)
		dst[i] = std * (us[i] * sqrt(-2.0 * log_unit(ss[i]) / ss[i]));
}

/* Every element's first two candidates, without a branch: splitmix64
 * steps of 64-bit multiplies, which vectorise only with AVX-512DQ's
 * (integer operations and exact conversions: the same bits in every
 * clone). The second is kept where the first was rejected (about one in
 * five, an unpredictable branch when taken one by one); states[] is then
 * the stream's state after the kept candidate. */
#if defined(__x86_64__) && defined(__ELF__) && defined(__has_attribute)
#if __has_attribute(target_clones)
#define CANDIDATE_CLONES __attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
#endif
#endif
#ifndef CANDIDATE_CLONES
#define CANDIDATE_CLONES
#endif
CANDIDATE_CLONES static void candidates(uint64_t first, size_t nb, double *us, double *ss,
                                        uint64_t *states)
{
	for (size_t i = 0; i < nb; i++) {
		uint64_t state = mix(first + i) + GOLDEN;
		double u = uniform(mix(state));
		state += GOLDEN;
		double v = uniform(mix(state));
		double s = u * u + v * v;
		uint64_t state2 = state + GOLDEN;
		double u2 = uniform(mix(state2));
		state2 += GOLDEN;
		double v2 = uniform(mix(state2));
		int ok = s > 0.0 && s < 1.0;
		us[i] = ok ? u : u2;
		ss[i] = ok ? s : u2 * u2 + v2 * v2;
		states[i] = ok ? state : state2;
	}
}

/* std times the normals of elements k0 .. k0 + count - 1 into dst. */
static void normals(uint64_t key, uint64_t k0, size_t count, double std, double *dst)
{
	double us[BATCH], ss[BATCH];
	uint64_t states[BATCH];
	for (size_t i0 = 0; i0 < count; i0 += BATCH) {
		size_t nb = count - i0 < BATCH ? count - i0 : BATCH;
		candidates(key + k0 + i0, nb, us, ss, states);
		/* one in twenty rejected twice: the next candidates of their streams */
		for (size_t i = 0; i < nb; i++) {
			if (ss[i] > 0.0 && ss[i] < 1.0)
				continue;
			uint64_t state = states[i];
			double u, s;
			do {
				state += GOLDEN;
				u = uniform(mix(state));
				state += GOLDEN;
				double v = uniform(mix(state));
				s = u * u + v * v;
			} while (!(s > 0.0 && s < 1.0));
			us[i] = u;
			ss[i] = s;
		}
		finish(us, ss, nb, std, dst + i0);
	}
}

struct rows_job {
	uint64_t key, k0;
	size_t d;
	double std;
	double *dst;
};

static enum pe_status rows_chunk(void *ctx, size_t begin, size_t end)
{
	const struct rows_job *j = ctx;
	normals(j->key, j->k0 + begin * (uint64_t)j->d, (end - begin) * j->d, j->std,
	        j->dst + begin * j->d);
	return PE_OK;
}

void pe_learned_rows(const struct pe_scheme *s, size_t d, uint64_t first, size_t n, double *dst)
{
	struct rows_job job = {mix(s->seed), first * (uint64_t)d, d, s->std, dst};
	/* about 2^18 elements (a few ms) a chunk: enough to pay for a thread */
	size_t grain = d >= ((size_t)1 << 18) ? 1 : ((size_t)1 << 18) / (d ? d : 1);
	if (n <= grain) {
		rows_chunk(&job, 0, n);
		return;
	}
	/* The chunks cannot fail; a thread that cannot start leaves its chunks
	 * to the others (pe_parallel_for). */
	(void)pe_parallel_for(n, grain, rows_chunk, &job);
}
