/*
 * precision_fast.c - the steps of the error curves whose double results
 * need only be within a known distance of the recipe's, not its bits
 *
 * Compiled with -ffp-contract=fast (lib/meson.build): a*b+c may become one
 * fused multiply-add where the machine has it, which changes the last bits
 * of these intermediate values and nothing else. What leaves this file is
 * either the recipe's bits (the float32 row: its values are rounded to
 * float32 and a lane whose rounding the distance could change is handed
 * back to the scalar recipe) or an approximation whose bound the caller
 * allows for (the rotated reference row, the errors against it).
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "analysis/precision_vec.h"

/*
 * Clones with fused multiply-add (AVX-512F implies it, x86-64-v3 is AVX2
 * with FMA) and the baseline without: the bounds below hold for both.
 */
#if defined(__x86_64__) && defined(__ELF__) && defined(__has_attribute)
#if __has_attribute(target_clones)
#define FMA_CLONES __attribute__((target_clones("avx512f", "arch=x86-64-v3", "default")))
#endif
#endif
#ifndef FMA_CLONES
#define FMA_CLONES
#endif

/*
 * Whether rounding a double y to float32 is decided with y known only
 * within 2^-43 |y|: @ok keeps its -1 where it is, becomes 0 where y lies within 2^10 of its 2^29
 * units (the low 29 bits of the significand, the part float32 drops) of a
 * half-way point, so that the true value could round the other way.
 * Round to nearest depends on nothing else: the sign is symmetric, a carry
 * into the next binade happens on the same side of the same half-way point,
 * and 0 (low bits 0) is exact.
 */
#define F32_SLACK 1024
static inline __attribute__((always_inline)) void f32_decided(const vd *y, vl *ok)
{
	const int64_t low = (INT64_C(1) << 29) - 1, half = INT64_C(1) << 28;
	vl t = (BITS(*y) - (half - F32_SLACK)) & low;
	/* t < 2 * F32_SLACK + 1: within the slack of the half-way point */
	vl lim = BITS(SPLAT(0.0)) + 2 * F32_SLACK;
	*ok &= LT(lim, t);
}

/*
 * Eight float32 pairs, each lane the bits of the scalar recipe
 * (precision.c: f32_pair) or flagged. The recipe rounds to float32 a sine
 * and cosine within about 2 ulps of the real ones; here they come from
 * Taylor polynomials to r^13 and r^14 on the same Cody-Waite reduction,
 * whose truncation error is below 2.9e-14 relative (|r| <= pi/4: r^14/15!
 * over sin r >= r (1 - r^2/6); r^16/16! over cos r >= 0.707) and whose
 * rounding adds a few ulps: within 2^-43 relative of the real values, and
 * so of the recipe's, in every clone. Where that cannot change the float32
 * rounding (f32_decided()), the two round alike; other lanes, and angles
 * beyond 2^25 pi/2, are flagged. The attention factor then multiplies
 * float32 numbers, as in the recipe.
 */
static inline __attribute__((always_inline)) void f32x8(const double *theta, size_t i, size_t h,
                                                        const vd *m, const vd *at, int scaled,
                                                        vd *c, vd *s, vl *ok)
{
	vd th;
	load8(theta, i, h, &th);
	/* both factors hold 24 bits: the product is exact, then rounded once */
	vd x = ROUND_F32(*m * th), r;
	vl q;
	reduce_half_pi(&x, &r, &q, ok);
	vd r2 = r * r;
	vd ps = SPLAT(-1.0 / 6.0) +
	        r2 * (SPLAT(1.0 / 120.0) +
	              r2 * (SPLAT(-1.0 / 5040.0) +
	                    r2 * (SPLAT(1.0 / 362880.0) + r2 * (SPLAT(-1.0 / 39916800.0) +
	                                                        r2 * SPLAT(1.0 / 6227020800.0)))));
	vd sr = r + r * r2 * ps;
	vd pc = SPLAT(1.0 / 24.0) +
	        r2 * (SPLAT(-1.0 / 720.0) +
	              r2 * (SPLAT(1.0 / 40320.0) + r2 * (SPLAT(-1.0 / 3628800.0) +
	                                                 r2 * (SPLAT(1.0 / 479001600.0) +
	                                                       r2 * SPLAT(-1.0 / 87178291200.0)))));
	vd cr = SPLAT(1.0) - SPLAT(0.5) * r2 + r2 * r2 * pc;
	vl odd = -(q & 1);
	vd sa = SEL(odd, cr, sr), ca = SEL(odd, sr, cr);
	vd sv = (vd)(BITS(sa) ^ ((q & 2) << 62));
	vd cv = (vd)(BITS(ca) ^ (((q + 1) & 2) << 62));
	f32_decided(&sv, ok);
	f32_decided(&cv, ok);
	cv = ROUND_F32(cv);
	sv = ROUND_F32(sv);
	if (scaled) {
		cv = ROUND_F32(cv * *at);
		sv = ROUND_F32(sv * *at);
	}
	*c = cv;
	*s = sv;
}

FMA_CLONES static int fast_f32_lanes(const double *theta, size_t h, double mr, double att,
                                     int scaled, double *c, double *s, unsigned char *bad)
{
	struct lane_flags f;
	flags_start(&f);
	const vd m = SPLAT(mr), at = SPLAT(att);
	for (size_t i = 0; i < h; i += VL) {
		vd cv, sv;
		vl ok;
		f32x8(theta, i, h, &m, &at, scaled, &cv, &sv, &ok);
		store8(c, i, h, &cv);
		store8(s, i, h, &sv);
		flags8(&f, i, h, &ok);
	}
	return flags_end(&f, h, bad);
}

int pe_prec_f32_row(const double *theta, size_t h, double mr, double att, int scaled, double *c,
                    double *s, unsigned char *bad)
{
	return fast_f32_lanes(theta, h, mr, att, scaled, c, s, bad);
}

/* The largest of each lane, as doubles, and of them all. */
static inline __attribute__((always_inline)) double lane_max(const vl *m, double *lm)
{
	double r = 0.0;
	for (int k = 0; k < VL; k++) {
		int64_t b = (*m)[k];
		memcpy(&lm[k], &b, sizeof(double));
		r = lm[k] > r ? lm[k] : r;
	}
	return r;
}

/*
 * The float32 roundings of the cos and sin of angles x[] (float32 numbers),
 * the bits of the recipe's (sincos_fast() rounded), f32x8()'s way.
 */
FMA_CLONES static int fast_f32_sincos_lanes(const double *x, size_t h, double *c, double *s,
                                            unsigned char *bad)
{
	struct lane_flags f;
	flags_start(&f);
	const vd one = SPLAT(1.0), zero = SPLAT(0.0);
	for (size_t i = 0; i < h; i += VL) {
		vd cv, sv;
		vl ok;
		/* f32x8() of frequencies x at the position 1: the angles themselves */
		f32x8(x, i, h, &one, &zero, 0, &cv, &sv, &ok);
		store8(c, i, h, &cv);
		store8(s, i, h, &sv);
		flags8(&f, i, h, &ok);
	}
	return flags_end(&f, h, bad);
}

int pe_prec_f32_sincos_row(const double *x, size_t h, double *c, double *s, unsigned char *bad)
{
	return fast_f32_sincos_lanes(x, h, c, s, bad);
}

FMA_CLONES static void fast_rotate_lanes(size_t h, const double *rc, const double *rs, double *c,
                                         double *s)
{
	for (size_t i = 0; i < h; i += VL) {
		vd a, b, x, y;
		load8(rc, i, h, &a);
		load8(rs, i, h, &b);
		load8(c, i, h, &x);
		load8(s, i, h, &y);
		vd nc = x * a - y * b, ns = y * a + x * b;
		store8(c, i, h, &nc);
		store8(s, i, h, &ns);
	}
}

void pe_prec_rotate_row(size_t h, const double *rc, const double *rs, double *c, double *s)
{
	fast_rotate_lanes(h, rc, rs, c, s);
}

/* fast_rotate_lanes() and fast_err_lanes() against the turned row in one pass. */
FMA_CLONES static double fast_rotate_err_lanes(size_t h, const double *rc, const double *rs,
                                               double *c, double *s, const double *pc,
                                               const double *ps, double *e, double *lm, int *nan)
{
	vl m = {0}, any = {0};
	for (size_t i = 0; i < h; i += VL) {
		vd a, b, x, y, u, v;
		load8(rc, i, h, &a);
		load8(rs, i, h, &b);
		load8(c, i, h, &x);
		load8(s, i, h, &y);
		vd nc = x * a - y * b, ns = y * a + x * b;
		store8(c, i, h, &nc);
		store8(s, i, h, &ns);
		load8(pc, i, h, &u);
		load8(ps, i, h, &v);
		vl d;
		err_step(&u, &nc, &v, &ns, &m, &any, &d);
		vd dv = (vd)d;
		store8(e, i, h, &dv);
	}
	*nan = any_lane(&any);
	return lane_max(&m, lm);
}

double pe_prec_rotate_err_row(size_t h, const double *rc, const double *rs, double *c, double *s,
                              const double *pc, const double *ps, double *e, double *lm)
{
	int nan;
	double m = fast_rotate_err_lanes(h, rc, rs, c, s, pc, ps, e, lm, &nan);
	return nan ? INFINITY : m;
}

FMA_CLONES static double fast_err_lanes(size_t h, const double *pc, const double *ps,
                                        const double *ec, const double *es, double *e, double *lm,
                                        int *nan)
{
	vl m = {0}, any = {0};
	for (size_t i = 0; i < h; i += VL) {
		vd a, b, x, y;
		load8(pc, i, h, &a);
		load8(ec, i, h, &b);
		load8(ps, i, h, &x);
		load8(es, i, h, &y);
		vl d;
		err_step(&a, &b, &x, &y, &m, &any, &d);
		vd dv = (vd)d;
		store8(e, i, h, &dv);
	}
	*nan = any_lane(&any);
	return lane_max(&m, lm);
}

double pe_prec_err_row(size_t h, const double *pc, const double *ps, const double *ec,
                       const double *es, double *e, double *lm)
{
	int nan;
	double m = fast_err_lanes(h, pc, ps, ec, es, e, lm, &nan);
	return nan ? INFINITY : m;
}

/*
 * A float32 pair's angle a = float32(mr * th32) against the exact one
 * b = pos * thex: the double difference d is within 2^-50 d + 2^-51 |pos thex|
 * of |a - b| (the product's and the difference's roundings). The error of
 * the pair is at most att min(|a - b|, 2) + r (cos and sin are 1-Lipschitz)
 * and at least att |chord|/sqrt(2) - r, the larger of the cos and sin
 * differences being at least that share of the chord 2 |sin((a - b) / 2)|,
 * itself at least x (1 - x^2 / 24) for x = |a - b| <= 2 (sin t >= t - t^3/6).
 * Each bound is widened by 2^-40 of itself for its own roundings.
 */
static inline __attribute__((always_inline)) double bounds_lanes(size_t h, const double *th32,
                                                                 const double *thex, double mr,
                                                                 double pos, double att, double r,
                                                                 double *u, double *lm)
{
	const vd m = SPLAT(mr), p = SPLAT(pos), at = SPLAT(att), rr = SPLAT(r);
	const vd up = SPLAT(1.0 + 0x1p-40), down = SPLAT(1.0 - 0x1p-40);
	vl top = BITS(SPLAT(0.0)), low = BITS(SPLAT(0.0));
	for (size_t i = 0; i < h; i += VL) {
		vd t32, tex;
		load8(th32, i, h, &t32);
		load8(thex, i, h, &tex);
		vd a = ROUND_F32(m * t32), b = p * tex;
		vd d = VABS(a - b);
		vd slack = d * SPLAT(0x1p-50) + VABS(b) * SPLAT(0x1p-51);
		vd dhi = d + slack, dlo = d - slack;
		/* min(dhi, 2); dhi <= 2 also keeps the lower bound's series valid */
		vl small = LT(BITS(dhi), BITS(SPLAT(2.0)));
		vd ub = (at * SEL(small, dhi, SPLAT(2.0)) + rr) * up;
		vd lb = (at * SPLAT(0.7071) * dlo * (SPLAT(1.0) - dlo * dlo * SPLAT(1.0 / 24.0)) *
		         down) -
		        rr * up;
		/* no bound where dhi > 2 (or dlo < 0: the bound is then below 0 anyway) */
		vl lbits = BITS(lb) & small & ~(BITS(lb) >> 63);
		low ^= (low ^ lbits) & LT(low, lbits);
		vl ubits = BITS(ub);
		top ^= (top ^ ubits) & LT(top, ubits);
		store8(u, i, h, &ub);
	}
	lane_max(&top, lm);
	double dummy[VL];
	return lane_max(&low, dummy);
}

/*
 * bounds_lanes() chunk by chunk over pairs sorted by decreasing kap (a
 * bound of |a - b| / pos), while the pairs left can reach the largest lower
 * bound found: att pos kap[n] + r, widened by 2^-40 twice for its roundings.
 */
FMA_CLONES static size_t fast_prune_lanes(size_t h, const double *th32, const double *thex,
                                          const double *kap, double mr, double pos, double att,
                                          double r, double *u, double *low)
{
	double lo = 0.0, lm[VL], scale = att * pos * (1 + 0x1p-40);
	size_t n = 0;
	while (n < h && !((scale * kap[n] + r) * (1 + 0x1p-40) < lo)) {
		size_t w = h - n < VL ? h - n : VL;
		double l = bounds_lanes(w, th32 + n, thex + n, mr, pos, att, r, u + n, lm);
		lo = l > lo ? l : lo;
		n += w;
	}
	*low = lo;
	return n;
}

size_t pe_prec_f32_prune(size_t h, const double *th32, const double *thex, const double *kap,
                         double mr, double pos, double att, double r, double *u, double *low)
{
	return fast_prune_lanes(h, th32, thex, kap, mr, pos, att, r, u, low);
}
