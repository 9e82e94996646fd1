/* Private helpers of the precision simulation shared with its error curves. */
#ifndef POSENC_PRECISION_INTERNAL_H
#define POSENC_PRECISION_INTERNAL_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <posenc/precision.h>

/*
 * The rounding functions (pe_round() and the others of posenc/precision.h),
 * inline for the recipe and the error curves' inner loop.
 */
static inline double round_f32(double x)
{
	/* C11 6.3.1.5: the conversion rounds in the current mode, to nearest by default. */
	return (double)(float)x;
}

static inline double round_bf16(double x)
{
	float f = (float)x;
	uint32_t u;
	memcpy(&u, &f, sizeof(u));
	if ((u & 0x7f800000u) == 0x7f800000u) {
		/* infinities stay; a NaN keeps a quiet NaN's payload bit */
		if (u & 0x007fffffu)
			u |= 0x00400000u;
		u &= 0xffff0000u;
	} else {
		/* ties to even: add 0x7fff plus the bit that will become the last one */
		u += 0x7fffu + ((u >> 16) & 1u);
		u &= 0xffff0000u;
	}
	memcpy(&f, &u, sizeof(f));
	return (double)f;
}

/* 2^k as a double, for -1022 <= k <= 1023 (built from its bits: no libm call). */
static inline double pow2i(int k)
{
	uint64_t b = (uint64_t)(k + 1023) << 52;
	double d;
	memcpy(&d, &b, sizeof(d));
	return d;
}

static inline double round_f16(double x)
{
	if (!isfinite(x) || x == 0.0)
		return x;
	double a = fabs(x);
	/* a = f * 2^e, 0.5 <= f < 1: the leading bit has weight 2^(e-1); 11 significant bits
	 * from there down, and subnormals (a < 2^-14) a fixed step of 2^-24 */
	int step = -24;
	if (a >= 0x1p-14) {
		uint64_t b;
		memcpy(&b, &a, sizeof(b));
		step = (int)((b >> 52) & 0x7ff) - 1022 - 11;
	}
	/* exact scalings by powers of two; y < 2^11, so adding and taking away 2^52 rounds it to a
	 * whole number, ties to even (as nearbyint in the default mode, without a libm call) */
	double y = a * pow2i(-step);
	double q = (y + 0x1p52) - 0x1p52;
	double r = q * pow2i(step);
	if (r > 65504.0)
		r = INFINITY;
	return x < 0 ? -r : r;
}

static inline double round_to(enum pe_float f, double x)
{
	switch (f) {
	case PE_FLOAT_F32:
		return round_f32(x);
	case PE_FLOAT_BF16:
		return round_bf16(x);
	case PE_FLOAT_F16:
		return round_f16(x);
	default:
		return x;
	}
}

/*
 * pe_rope_model_init() with options. PE_ROPE_RECIP_DIV: every division of a
 * tensor by a Python number in the reduced-precision recipe (arange / d, the
 * llama3 and YaRN steps) is a product by the number's rounded reciprocal, as
 * torch computes it on a GPU (div_true_kernel_cuda); vLLM builds its caches
 * there. PE_ROPE_MROPE: @s may be an mrope scheme, whose frequencies are
 * plain RoPE's (its base, no scaling, every pair turning); the caller
 * chooses each pair's position (posenc check).
 */
#define PE_ROPE_RECIP_DIV 1u
#define PE_ROPE_MROPE     2u
enum pe_status pe_rope_model_init_flags(struct pe_rope_model *m, const struct pe_scheme *s,
                                        size_t d, struct pe_precision prec, double base,
                                        double exponent_width,
                                        const struct pe_rope_scaling_params *scaling,
                                        unsigned flags);

/*
 * The exact cos and sin (times att) of every pair of an exact model at
 * @pos: the fast sine-cosine of the double product m * theta_i corrected by
 * its rounding error (within 1e-15 of the real values).
 */
void pe_rope_model_exact_fast(const struct pe_rope_model *m, double pos, double *c, double *s);

/* The same bits for the @n pairs idx[], into c[j], s[j]; @theta: room for @n. */
void pe_rope_model_exact_some(const struct pe_rope_model *m, double pos, const uint32_t *idx,
                              size_t n, double *theta, double *c, double *s);

/*
 * For lanes i < n: the exact values of @ex at position pos[i] and frequency
 * thex[i] (ec, es), and those of the float32 model @m at the same position
 * and frequency th32[i] (c, s), the same bits as pe_rope_model_exact_fast()
 * and pe_rope_model_pairs() of that pair.
 */
void pe_rope_model_exact_f32_at(const struct pe_rope_model *ex, const struct pe_rope_model *m,
                                const double *pos, const double *thex, const double *th32, size_t n,
                                double *ec, double *es, double *c, double *s);

/* Both at once: pe_rope_model_exact_some() of @ex into ec[], es[] and
 * pe_rope_model_pairs_some() of the float32 model @m into c[], s[];
 * @theta: room for 2 @n. */
void pe_rope_model_exact_f32_some(const struct pe_rope_model *ex, const struct pe_rope_model *m,
                                  double pos, const uint32_t *idx, size_t n, double *theta,
                                  double *ec, double *es, double *c, double *s);

/*
 * pe_rope_model_pairs() of a model computing in float32, for the @n pairs
 * idx[] only, into c[j], s[j] (the same bits); @theta: room for @n.
 */
void pe_rope_model_pairs_some(const struct pe_rope_model *m, double pos, const uint32_t *idx,
                              size_t n, double *theta, double *c, double *s);

/*
 * Row kernels (precision_kernels.c): pairs 0..h-1 at once, vectorised,
 * the same bits as the scalar steps of precision.c. A lane outside their
 * fast path is flagged in bad[i] (nonzero) with its values unspecified,
 * to be done again by the scalar step; each returns whether any lane is.
 *   exact: c, s = cos, sin of the real product pos * theta_i, times att
 *          (pe_rope_model_exact_fast());
 *   f64:   of the double product, times att;
 *   f32:   of float32(mr * theta_i) rounded to float32, then times the
 *          float32 @att and rounded again when @scaled (compute f32);
 *          in precision_fast.c, the same bits from shorter polynomials.
 */
int pe_prec_exact_row(const double *theta, size_t h, double pos, double att, double *c, double *s,
                      unsigned char *bad);
int pe_prec_f64_row(const double *theta, size_t h, double pos, double att, double *c, double *s,
                    unsigned char *bad);
int pe_prec_f32_row(const double *theta, size_t h, double mr, double att, int scaled, double *c,
                    double *s, unsigned char *bad);
/* float32(cos x_i), float32(sin x_i) of float32 angles x[] (precision_fast.c; @c or @s may be
 * @x: each lane is read before it is written). */
int pe_prec_f32_sincos_row(const double *x, size_t h, double *c, double *s, unsigned char *bad);

/* Both rows at once, exact and a float32 model's (@theta32, @mr the
 * position rounded to float32, @att32 its factor), for the latency of one:
 * @return bit 0: an exact lane is flagged in bad[]; bit 1: a float32 lane in
 * bad32[]. */
int pe_prec_exact_f32_row(const double *theta, const double *theta32, size_t h, double pos,
                          double att, double mr, double att32, int scaled, double *c, double *s,
                          double *c32, double *s32, unsigned char *bad, unsigned char *bad32);

/* The same with a position per lane, pos[i] (>= 0), each float32 one its
 * rounding. */
int pe_prec_exact_f32_at(const double *pos, const double *theta, const double *theta32, size_t h,
                         double att, double att32, int scaled, double *c, double *s, double *c32,
                         double *s32, unsigned char *bad, unsigned char *bad32);

/* max_i max(|pc_i - ec_i|, |ps_i - es_i|), infinite when one is NaN. */
double pe_prec_max_err(size_t h, const double *pc, const double *ps, const double *ec,
                       const double *es);

/*
 * Approximations and bounds (precision_fast.c), for the error curves; lm[]
 * receives the largest value of each lane (pairs i = k mod 8), for
 * pe_prec_above():
 *   rotate:  (c, s) turned by the angle whose cos and sin are (rc, rs),
 *            pair by pair: each call adds less than 1e-15 times |(c, s)| of
 *            error when (rc, rs) are within an ulp;
 *   err_row: e[i] = max(|pc_i - ec_i|, |ps_i - es_i|) and their largest,
 *            infinite when one is NaN (e[] then unspecified);
 *   f32_prune: for a float32 model (frequencies @th32, position rounded
 *            to @mr) against the exact one (@thex, @pos, factor @att), with
 *            @r bounding every rounding of the two besides the angles' and
 *            the pairs sorted by decreasing kap (>= |angle error| / pos):
 *            u[i] >= pair i's error for the pairs it returns the count of,
 *            *low <= the largest error of the row, and every pair after
 *            them below *low (see precision_curve.c);
 *   rotate_err: rotate, then err_row against the turned row;
 */
void pe_prec_rotate_row(size_t h, const double *rc, const double *rs, double *c, double *s);
double pe_prec_err_row(size_t h, const double *pc, const double *ps, const double *ec,
                       const double *es, double *e, double *lm);
size_t pe_prec_f32_prune(size_t h, const double *th32, const double *thex, const double *kap,
                         double mr, double pos, double att, double r, double *u, double *low);
double pe_prec_rotate_err_row(size_t h, const double *rc, const double *rs, double *c, double *s,
                              const double *pc, const double *ps, double *e, double *lm);

/* Lanes per call of a row kernel (the flags live on the stack). */
#define PE_PREC_LANES 256

#endif
