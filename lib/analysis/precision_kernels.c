/*
 * precision_kernels.c - the per-pair steps of the precision simulation
 * (precision.c), a whole row of pairs at a time, vectorised
 *
 * Every step is elementwise over the pairs, so a row vectorises once the
 * branches are gone: the sine-cosine takes the Cody-Waite path of
 * sincos_fast() for every lane and picks the quadrant by selects, and the
 * rounding error of the product pos * theta comes from Dekker's exact
 * product (the error of a double product is itself a double, so any exact
 * method gives fma()'s bits). The operations and their order are those of
 * the scalar functions in precision.c (no contraction: -ffp-contract=off),
 * so the results are the same bits; a lane outside the fast paths (angles
 * beyond 2^25 pi/2, a correction term of 1e-4 or more) is flagged and done
 * again by the scalar function.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "analysis/precision_vec.h"
#include "core/wide_clones.h"

/*
 * sincos_fast()'s Cody-Waite branch on eight lanes; ok: -1 where x is
 * inside it (|x| < 2^25 pi/2), 0 elsewhere. Pointers, not vector values,
 * cross the (inlined) call: no ABI questions.
 */
static inline __attribute__((always_inline)) void sincos8(const vd *xp, vd *s, vd *c, vl *ok)
{
	vd r;
	vl q;
	reduce_half_pi(xp, &r, &q, ok);
	vd r2 = r * r;
	vd ps = SPLAT(-1.0 / 6.0) +
	        r2 * (SPLAT(1.0 / 120.0) +
	              r2 * (SPLAT(-1.0 / 5040.0) +
	                    r2 * (SPLAT(1.0 / 362880.0) +
	                          r2 * (SPLAT(-1.0 / 39916800.0) +
	                                r2 * (SPLAT(1.0 / 6227020800.0) +
	                                      r2 * (SPLAT(-1.0 / 1307674368000.0) +
	                                            r2 * SPLAT(1.0 / 355687428096000.0)))))));
	vd sr = r + r * r2 * ps;
	vd pc = SPLAT(1.0 / 24.0) +
	        r2 * (SPLAT(-1.0 / 720.0) +
	              r2 * (SPLAT(1.0 / 40320.0) +
	                    r2 * (SPLAT(-1.0 / 3628800.0) +
	                          r2 * (SPLAT(1.0 / 479001600.0) +
	                                r2 * (SPLAT(-1.0 / 87178291200.0) +
	                                      r2 * (SPLAT(1.0 / 20922789888000.0) +
	                                            r2 * SPLAT(-1.0 / 6402373705728000.0)))))));
	vd cr = SPLAT(1.0) - SPLAT(0.5) * r2 + r2 * r2 * pc;
	/* quadrant q: (s, c) = (sr, cr), (cr, -sr), (-sr, -cr), (-cr, sr) */
	vl odd = -(q & 1);
	vd sa = SEL(odd, cr, sr), ca = SEL(odd, sr, cr);
	/* negation flips the sign bit */
	*s = (vd)(BITS(sa) ^ ((q & 2) << 62));
	*c = (vd)(BITS(ca) ^ (((q + 1) & 2) << 62));
}

/* Veltkamp's split and Dekker's product: hi + lo = a * b exactly (away from
 * overflow and underflow), the bits fma(a, b, -hi) gives. */
static inline __attribute__((always_inline)) void two_product8(const vd *a, const vd *b,
                                                               const vd *hi, vd *lo)
{
	vd ca = SPLAT(134217729.0) * *a, cb = SPLAT(134217729.0) * *b;
	vd ah = ca - (ca - *a), al = *a - ah;
	vd bh = cb - (cb - *b), bl = *b - bh;
	*lo = ((ah * bh - *hi) + ah * bl + al * bh) + al * bl;
}

/*
 * Eight exact pairs: Dekker's product is exact away from overflow and
 * underflow. With the position 0 (every product 0, exact) or in [1, 2^60]
 * (checked once by the caller: @tiny is then 2^-800) and |hi| in
 * [2^-800, 2^26) (the sine-cosine's range), theta lies in [2^-860, 2^26]
 * and no partial product leaves the normal range. A position 0 passes
 * @tiny = -1: every lane.
 */
static inline __attribute__((always_inline)) void exact8(const double *theta, size_t i, size_t h,
                                                         const vd *p, const vd *at, const vl *tiny,
                                                         vd *c, vd *s, vl *ok)
{
	vd th, sh, ch, lo;
	load8(theta, i, h, &th);
	vd hi = *p * th;
	two_product8(p, &th, &hi, &lo);
	sincos8(&hi, &sh, &ch, ok);
	*ok &= LT(BITS(VABS(lo)), BITS(SPLAT(1e-4))) & LT(*tiny, BITS(VABS(hi)));
	/*
	 * The scalar step divides, lo^3 / 6 and lo^2 / 2; here the factors 1/6
	 * and 1/2 multiply (a divide is 10x a multiply). Halving is exact either
	 * way. In the lanes kept, |hi| < 2^26 so |lo| <= ulp(hi) / 2 <= 2^-27,
	 * and lo^3 / 6 is below a quarter ulp of lo however it is rounded (same
	 * sign, zero with lo): lo - it is lo in both forms, bit for bit.
	 */
	vd sl = lo - lo * lo * lo * SPLAT(1.0 / 6.0), cl = SPLAT(1.0) - lo * lo * SPLAT(0.5);
	*s = (sh * cl + ch * sl) * *at;
	*c = (ch * cl - sh * sl) * *at;
}

/*
 * Eight float32 pairs: the angle, its sine-cosine and the factor, each
 * rounded to float32 (the recipe's own polynomials; precision_fast.c has
 * the row kernel, with shorter ones and the same bits).
 */
static inline __attribute__((always_inline)) void f32x8(const double *theta, size_t i, size_t h,
                                                        const vd *m, const vd *at, int scaled,
                                                        vd *c, vd *s, vl *ok)
{
	vd th, sv, cv;
	load8(theta, i, h, &th);
	vd a = ROUND_F32(*m * th);
	sincos8(&a, &sv, &cv, ok);
	cv = ROUND_F32(cv);
	sv = ROUND_F32(sv);
	if (scaled) {
		/* op_round(f32, x * att): its two roundings to float32 are one */
		cv = ROUND_F32(cv * *at);
		sv = ROUND_F32(sv * *at);
	}
	*c = cv;
	*s = sv;
}

/* -1 (every lane) for a position 0, else 2^-800: see exact8(). 0 when the
 * position is outside both (the scalar code then takes every pair). */
static int exact_position(double pos, vl *tiny)
{
	if (pos == 0.0) {
		*tiny = BITS(SPLAT(0.0)) - 1;
		return 1;
	}
	*tiny = BITS(SPLAT(0x1p-800));
	return pos >= 1.0 && pos <= 0x1p60;
}

WIDE_CLONES static int exact_lanes(const double *theta, size_t h, double pos, double att, double *c,
                                   double *s, unsigned char *bad)
{
	struct lane_flags f;
	flags_start(&f);
	const vd p = SPLAT(pos), at = SPLAT(att);
	vl tiny;
	int fine = exact_position(pos, &tiny);
	for (size_t i = 0; i < h; i += VL) {
		vd cv, sv;
		vl ok;
		exact8(theta, i, h, &p, &at, &tiny, &cv, &sv, &ok);
		ok &= -(vl){fine, fine, fine, fine, fine, fine, fine, fine};
		store8(s, i, h, &sv);
		store8(c, i, h, &cv);
		flags8(&f, i, h, &ok);
	}
	return flags_end(&f, h, bad);
}

/*
 * The exact row and a float32 model's row together: two independent
 * chains of the same polynomials in one loop, so that one fills the other's
 * latency (each alone waits on its own multiply-add chain).
 */
WIDE_CLONES static int exact_f32_lanes(const double *theta, const double *theta32, size_t h,
                                       double pos, double att, double mr, double att32, int scaled,
                                       double *c, double *s, double *c32, double *s32,
                                       unsigned char *bad, unsigned char *bad32)
{
	struct lane_flags f, f32;
	flags_start(&f);
	flags_start(&f32);
	const vd p = SPLAT(pos), at = SPLAT(att), m = SPLAT(mr), at32 = SPLAT(att32);
	vl tiny;
	int fine = exact_position(pos, &tiny);
	for (size_t i = 0; i < h; i += VL) {
		vd cv, sv, cf, sf;
		vl ok, ok32;
		exact8(theta, i, h, &p, &at, &tiny, &cv, &sv, &ok);
		f32x8(theta32, i, h, &m, &at32, scaled, &cf, &sf, &ok32);
		ok &= -(vl){fine, fine, fine, fine, fine, fine, fine, fine};
		store8(s, i, h, &sv);
		store8(c, i, h, &cv);
		store8(s32, i, h, &sf);
		store8(c32, i, h, &cf);
		flags8(&f, i, h, &ok);
		flags8(&f32, i, h, &ok32);
	}
	return flags_end(&f, h, bad) | flags_end(&f32, h, bad32) << 1;
}

int pe_prec_exact_f32_row(const double *theta, const double *theta32, size_t h, double pos,
                          double att, double mr, double att32, int scaled, double *c, double *s,
                          double *c32, double *s32, unsigned char *bad, unsigned char *bad32)
{
	return exact_f32_lanes(theta, theta32, h, pos, att, mr, att32, scaled, c, s, c32, s32, bad,
	                       bad32);
}

/*
 * exact_f32_lanes() with a position per lane (@pos): the candidates of
 * several positions of the error curves in one call. The float32 position
 * is each lane's rounded; exact_position()'s test is made per lane.
 */
WIDE_CLONES static int exact_f32_at_lanes(const double *pos, const double *theta,
                                          const double *theta32, size_t h, double att, double att32,
                                          int scaled, double *c, double *s, double *c32,
                                          double *s32, unsigned char *bad, unsigned char *bad32)
{
	struct lane_flags f, f32;
	flags_start(&f);
	flags_start(&f32);
	const vd at = SPLAT(att), at32 = SPLAT(att32);
	const vl zero = BITS(SPLAT(0.0));
	for (size_t i = 0; i < h; i += VL) {
		vd p, cv, sv, cf, sf;
		vl ok, ok32;
		load8(pos, i, h, &p);
		vd m = ROUND_F32(p);
		/* positions are >= 0: 0 is the bit pattern 0 */
		vl b = BITS(p), is0 = ~LT(zero, b);
		vl inside = ~LT(b, BITS(SPLAT(1.0))) & ~LT(BITS(SPLAT(0x1p60)), b);
		vl tiny = (is0 & (zero - 1)) | (~is0 & BITS(SPLAT(0x1p-800)));
		exact8(theta, i, h, &p, &at, &tiny, &cv, &sv, &ok);
		f32x8(theta32, i, h, &m, &at32, scaled, &cf, &sf, &ok32);
		ok &= is0 | inside;
		store8(s, i, h, &sv);
		store8(c, i, h, &cv);
		store8(s32, i, h, &sf);
		store8(c32, i, h, &cf);
		flags8(&f, i, h, &ok);
		flags8(&f32, i, h, &ok32);
	}
	return flags_end(&f, h, bad) | flags_end(&f32, h, bad32) << 1;
}

int pe_prec_exact_f32_at(const double *pos, const double *theta, const double *theta32, size_t h,
                         double att, double att32, int scaled, double *c, double *s, double *c32,
                         double *s32, unsigned char *bad, unsigned char *bad32)
{
	return exact_f32_at_lanes(pos, theta, theta32, h, att, att32, scaled, c, s, c32, s32, bad,
	                          bad32);
}

int pe_prec_exact_row(const double *theta, size_t h, double pos, double att, double *c, double *s,
                      unsigned char *bad)
{
	return exact_lanes(theta, h, pos, att, c, s, bad);
}

WIDE_CLONES static int f64_lanes(const double *theta, size_t h, double pos, double att, double *c,
                                 double *s, unsigned char *bad)
{
	struct lane_flags f;
	flags_start(&f);
	const vd p = SPLAT(pos), at = SPLAT(att);
	for (size_t i = 0; i < h; i += VL) {
		vd th, sv, cv;
		vl ok;
		load8(theta, i, h, &th);
		vd a = p * th;
		sincos8(&a, &sv, &cv, &ok);
		cv = cv * at;
		sv = sv * at;
		store8(c, i, h, &cv);
		store8(s, i, h, &sv);
		flags8(&f, i, h, &ok);
	}
	return flags_end(&f, h, bad);
}

int pe_prec_f64_row(const double *theta, size_t h, double pos, double att, double *c, double *s,
                    unsigned char *bad)
{
	return f64_lanes(theta, h, pos, att, c, s, bad);
}

WIDE_CLONES static void err_lanes(size_t h, const double *pc, const double *ps, const double *ec,
                                  const double *es, double *mx, int *nan)
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
	}
	double r = 0.0;
	for (int k = 0; k < VL; k++) {
		double v;
		int64_t b = m[k];
		memcpy(&v, &b, sizeof(v));
		r = v > r ? v : r;
	}
	*mx = r;
	*nan = any_lane(&any);
}

double pe_prec_max_err(size_t h, const double *pc, const double *ps, const double *ec,
                       const double *es)
{
	double m;
	int nan;
	err_lanes(h, pc, ps, ec, es, &m, &nan);
	/* as the scalar loop: a NaN (an overflowed position) is an infinite error */
	return nan ? INFINITY : m;
}
