/*
 * The vectors of the precision kernels (precision_kernels.c, bit for bit,
 * and precision_fast.c, within bounds): eight double lanes, their masks,
 * loads and stores of a row's end, and the flags of lanes left to the
 * scalar code. Only for those two files.
 */
#ifndef POSENC_PRECISION_VEC_H
#define POSENC_PRECISION_VEC_H

#include <stdint.h>
#include <string.h>

#include "analysis/precision_internal.h"

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
 * Lanes [i, i + VL) of a row: loaded from @src, or lane by lane at the
 * row's end (zeros past it). Not memcpy of a variable length there: that
 * is a call, and the loop's vectors would live on the stack around it.
 */
static inline __attribute__((always_inline)) void load8(const double *src, size_t i, size_t h,
                                                        vd *v)
{
	if (h - i >= VL) {
		memcpy(v, src + i, sizeof(*v));
		return;
	}
	vd t = {0};
	for (size_t k = 0; k < VL; k++)
		t[k] = k < h - i ? src[i + k] : 0.0;
	*v = t;
}

static inline __attribute__((always_inline)) void store8(double *dst, size_t i, size_t h,
                                                         const vd *v)
{
	if (h - i >= VL) {
		memcpy(dst + i, v, sizeof(*v));
		return;
	}
	for (size_t k = 0; k < VL; k++)
		if (k < h - i)
			dst[i + k] = (*v)[k];
}

/*
 * The lanes' flags: the masks are kept as vectors (turning each into bytes
 * costs more than a lane's arithmetic) and made into bytes only when one is
 * bad, which the callers look at only then.
 */
struct lane_flags {
	vl all; /* the AND of every mask */
	vl mask[PE_PREC_LANES / VL];
};

static inline __attribute__((always_inline)) void flags_start(struct lane_flags *f)
{
	f->all = BITS(SPLAT(0.0)) - 1;
}

static inline __attribute__((always_inline)) void flags8(struct lane_flags *f, size_t i, size_t h,
                                                         const vl *ok)
{
	vl m = *ok;
	/* lanes past the row's end are padding: fine */
	if (h - i < VL)
		for (size_t k = h - i; k < VL; k++)
			m[k] = -1;
	f->mask[i / VL] = m;
	f->all &= m;
}

/* @return 1 and bad[] filled when a lane is bad, else 0 (bad[] untouched). */
static inline __attribute__((always_inline)) int flags_end(const struct lane_flags *f, size_t h,
                                                           unsigned char *bad)
{
	int fine = 1;
	for (size_t k = 0; k < VL; k++)
		fine &= f->all[k] != 0;
	if (fine)
		return 0;
	for (size_t i = 0; i < h; i++)
		bad[i] = f->mask[i / VL][i % VL] == 0;
	return 1;
}

/*
 * Cody-Waite reduction of x by pi/2 for a sine-cosine: r = x - k pi/2 with
 * pi/2 in three parts, q = k mod 4 (the quadrant), *ok where |x| < 2^25 pi/2
 * (sincos_fast()'s branch: past it the three parts are not exact enough). k is rounded to
 * nearest by adding and taking away 1.5 2^52; the low bits of that sum's
 * significand are k's, two's complement: k & 3.
 */
static inline __attribute__((always_inline)) void reduce_half_pi(const vd *xp, vd *r, vl *q, vl *ok)
{
	const vd x = *xp;
	*ok = LT(BITS(VABS(x)), BITS(SPLAT(52707178.0)));
	vd t = x * SPLAT(0.6366197723675814) + SPLAT(6755399441055744.0);
	vd k = t - SPLAT(6755399441055744.0);
	*q = (vl)t & 3;
	*r = ((x - k * SPLAT(1.570796325802803)) - k * SPLAT(9.920935739593517e-10)) -
	     k * SPLAT(5.721188726109832e-18);
}

/*
 * One step of an error scan: |a - b| and |x - y| per lane (cos and sin),
 * whether either is NaN or infinite (into *any), the larger of the two
 * (*d, as bits) and the running largest (*m). Non-negative doubles order
 * as their bit patterns, so the maxima are integer comparisons. Vectors by
 * pointer: passed by value they would change the ABI by target (clang).
 */
static inline __attribute__((always_inline)) void err_step(const vd *a, const vd *b, const vd *x,
                                                           const vd *y, vl *m, vl *any, vl *d)
{
	const vl inf = BITS(SPLAT(INFINITY));
	vl dc = BITS(VABS(*a - *b)), ds = BITS(VABS(*x - *y));
	*any |= LT(inf, dc) | LT(inf, ds);
	*d = dc ^ ((dc ^ ds) & LT(dc, ds));
	*m ^= (*m ^ *d) & LT(*m, *d);
}

/* 1 when a lane of @any is set. */
static inline __attribute__((always_inline)) int any_lane(const vl *any)
{
	int n = 0;
	for (int k = 0; k < VL; k++)
		n |= (*any)[k] != 0;
	return n;
}

#endif
