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

#include "analysis/precision_internal.h"
#include "core/wide_clones.h"

/* Eight lanes (GCC and clang vector extensions): one AVX-512 register, two
 * AVX2 ones, four SSE2 ones, as the clone the machine runs. */
#define VL 8
typedef double vd __attribute__((vector_size(8 * VL)));
typedef int64_t vl __attribute__((vector_size(8 * VL)));
typedef float vf __attribute__((vector_size(4 * VL)));

#define SPLAT(x)     ((vd){x, x, x, x, x, x, x, x})
#define SEL(m, a, b) ((vd)(((vl)(a) & (m)) | ((vl)(b) & ~(m))))
#define VABS(x)                                                                                    \
	((vd)((vl)(x) & (vl){INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX,     \
	                     INT64_MAX, INT64_MAX}))
/*
 * Comparisons as integer arithmetic on the bits: for doubles without their
 * sign the bit patterns order as the values (NaN above infinity), and the
 * difference of two such patterns is negative exactly when the first is
 * smaller: LT gives -1 or 0 per lane. Vector comparisons would need
 * AVX-512 DQ to become lanes again (GCC does them one at a time with
 * AVX-512F alone).
 */
#define BITS(x)      ((vl)(x))
#define LT(a, b)     (((a) - (b)) >> 63)
#define ROUND_F32(x) __builtin_convertvector(__builtin_convertvector((x), vf), vd)

/*
 * sincos_fast()'s Cody-Waite branch on eight lanes; ok: -1 where x is
 * inside it (|x| < 2^25 pi/2), 0 elsewhere. Pointers, not vector values,
 * cross the (inlined) call: no ABI questions.
 */
static inline __attribute__((always_inline)) void sincos8(const vd *xp, vd *s, vd *c, vl *ok)
{
	const vd x = *xp;
	*ok = LT(BITS(VABS(x)), BITS(SPLAT(52707178.0)));
	vd t = x * SPLAT(0.6366197723675814) + SPLAT(6755399441055744.0);
	vd k = t - SPLAT(6755399441055744.0);
	/* the low bits of t's significand are k's, two's complement: k & 3 */
	vl q = (vl)t & 3;
	vd r = ((x - k * SPLAT(1.570796325802803)) - k * SPLAT(9.920935739593517e-10)) -
	       k * SPLAT(5.721188726109832e-18);
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

/* Lanes [i, i + VL) of a row: loaded from @src, or from a zero-padded copy
 * at the row's end. */
static inline __attribute__((always_inline)) void load8(const double *src, size_t i, size_t h,
                                                        vd *v)
{
	if (h - i >= VL) {
		memcpy(v, src + i, sizeof(*v));
		return;
	}
	double pad[VL] = {0};
	memcpy(pad, src + i, (h - i) * sizeof(double));
	memcpy(v, pad, sizeof(*v));
}

static inline __attribute__((always_inline)) void store8(double *dst, size_t i, size_t h,
                                                         const vd *v)
{
	if (h - i >= VL)
		memcpy(dst + i, v, sizeof(*v));
	else
		memcpy(dst + i, v, (h - i) * sizeof(double));
}

static inline __attribute__((always_inline)) void flags8(unsigned char *bad, size_t i, size_t h,
                                                         const vl *ok)
{
	unsigned char b[VL];
	for (size_t k = 0; k < VL; k++)
		b[k] = (unsigned char)((*ok)[k] + 1); /* -1 (inside): 0 */
	memcpy(bad + i, b, h - i < VL ? h - i : VL);
}

static inline int any_bad(const unsigned char *bad, size_t h)
{
	int any = 0;
	for (size_t i = 0; i < h; i++)
		any |= bad[i];
	return any;
}

WIDE_CLONES static void exact_lanes(const double *theta, size_t h, double pos, double att,
                                    double *c, double *s, unsigned char *bad)
{
	const vd p = SPLAT(pos), at = SPLAT(att);
	for (size_t i = 0; i < h; i += VL) {
		vd th, sh, ch, lo;
		vl ok;
		load8(theta, i, h, &th);
		vd hi = p * th;
		two_product8(&p, &th, &hi, &lo);
		sincos8(&hi, &sh, &ch, &ok);
		/* Dekker's product is exact away from overflow and underflow */
		const vl big = BITS(SPLAT(0x1p900)), tiny = BITS(SPLAT(0x1p-800)),
		         one = ok - ok + 1;
		vl ah = BITS(VABS(hi)), ap = BITS(VABS(p)), at8 = BITS(VABS(th));
		ok &= LT(BITS(VABS(lo)), BITS(SPLAT(1e-4)));
		ok &= LT(ah, big) & LT(ap, big) & LT(at8, big);
		ok &= LT(ah, one) | LT(tiny, ah);
		ok &= LT(at8, one) | LT(tiny, at8);
		ok &= LT(ap, one) | LT(tiny, ap);
		/*
		 * The scalar step divides, lo^3 / 6 and lo^2 / 2; here the factors 1/6
		 * and 1/2 multiply (a divide is 10x a multiply). Halving is exact either
		 * way. In the lanes kept, |hi| < 2^26 so |lo| <= ulp(hi) / 2 <= 2^-27,
		 * and lo^3 / 6 is below a quarter ulp of lo however it is rounded (same
		 * sign, zero with lo): lo - it is lo in both forms, bit for bit.
		 */
		vd sl = lo - lo * lo * lo * SPLAT(1.0 / 6.0),
		   cl = SPLAT(1.0) - lo * lo * SPLAT(0.5);
		vd sv = (sh * cl + ch * sl) * at, cv = (ch * cl - sh * sl) * at;
		store8(s, i, h, &sv);
		store8(c, i, h, &cv);
		flags8(bad, i, h, &ok);
	}
}

int pe_prec_exact_row(const double *theta, size_t h, double pos, double att, double *c, double *s,
                      unsigned char *bad)
{
	exact_lanes(theta, h, pos, att, c, s, bad);
	return any_bad(bad, h);
}

WIDE_CLONES static void f64_lanes(const double *theta, size_t h, double pos, double att, double *c,
                                  double *s, unsigned char *bad)
{
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
		flags8(bad, i, h, &ok);
	}
}

int pe_prec_f64_row(const double *theta, size_t h, double pos, double att, double *c, double *s,
                    unsigned char *bad)
{
	f64_lanes(theta, h, pos, att, c, s, bad);
	return any_bad(bad, h);
}

WIDE_CLONES static void f32_lanes(const double *theta, size_t h, double mr, double att, int scaled,
                                  double *c, double *s, unsigned char *bad)
{
	const vd m = SPLAT(mr), at = SPLAT(att);
	for (size_t i = 0; i < h; i += VL) {
		vd th, sv, cv;
		vl ok;
		load8(theta, i, h, &th);
		vd a = ROUND_F32(m * th);
		sincos8(&a, &sv, &cv, &ok);
		cv = ROUND_F32(cv);
		sv = ROUND_F32(sv);
		if (scaled) {
			/* op_round(f32, x * att): its two roundings to float32 are one */
			cv = ROUND_F32(cv * at);
			sv = ROUND_F32(sv * at);
		}
		store8(c, i, h, &cv);
		store8(s, i, h, &sv);
		flags8(bad, i, h, &ok);
	}
}

int pe_prec_f32_row(const double *theta, size_t h, double mr, double att, int scaled, double *c,
                    double *s, unsigned char *bad)
{
	f32_lanes(theta, h, mr, att, scaled, c, s, bad);
	return any_bad(bad, h);
}

WIDE_CLONES static void err_lanes(size_t h, const double *pc, const double *ps, const double *ec,
                                  const double *es, double *mx, int *nan)
{
	const vl inf = BITS(SPLAT(INFINITY));
	vl m = inf - inf, any = inf - inf;
	for (size_t i = 0; i < h; i += VL) {
		vd a, b, x, y;
		load8(pc, i, h, &a);
		load8(ec, i, h, &b);
		load8(ps, i, h, &x);
		load8(es, i, h, &y);
		vl dc = BITS(VABS(a - b)), ds = BITS(VABS(x - y));
		any |= LT(inf, dc) | LT(inf, ds);
		/* the larger bit pattern: the larger value (NaN is flagged above) */
		m ^= (m ^ dc) & LT(m, dc);
		m ^= (m ^ ds) & LT(m, ds);
	}
	double r = 0.0;
	int n = 0;
	for (int k = 0; k < VL; k++) {
		double v;
		int64_t b = m[k];
		memcpy(&v, &b, sizeof(v));
		r = v > r ? v : r;
		n |= any[k] != 0;
	}
	*mx = r;
	*nan = n;
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
