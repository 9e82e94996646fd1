/* Private helpers of the precision simulation shared with its error curves. */
#ifndef POSENC_PRECISION_INTERNAL_H
#define POSENC_PRECISION_INTERNAL_H

#include <stddef.h>

#include <posenc/precision.h>

/*
 * The exact cos and sin (times att) of every pair of an exact model at
 * @pos: the fast sine-cosine of the double product m * theta_i corrected by
 * its rounding error (within 1e-15 of the real values).
 */
void pe_rope_model_exact_fast(const struct pe_rope_model *m, double pos, double *c, double *s);

/*
 * pe_rope_model_exact_fast() of @ex and pe_rope_model_pairs() of @m (a
 * model computing in float32, with as many pairs) at once: the same values,
 * in less time than one after the other.
 */
void pe_rope_model_exact_f32(const struct pe_rope_model *ex, const struct pe_rope_model *m,
                             double pos, double *ec, double *es, double *c, double *s);

/*
 * Row kernels (precision_kernels.c): pairs 0..h-1 at once, vectorised,
 * the same bits as the scalar steps of precision.c. A lane outside their
 * fast path is flagged in bad[i] (nonzero) with its values unspecified,
 * to be done again by the scalar step; each returns whether any lane is.
 *   exact: c, s = cos, sin of the real product pos * theta_i, times att
 *          (pe_rope_model_exact_fast());
 *   f64:   of the double product, times att;
 *   f32:   of float32(mr * theta_i) rounded to float32, then times the
 *          float32 @att and rounded again when @scaled (compute f32).
 */
int pe_prec_exact_row(const double *theta, size_t h, double pos, double att, double *c, double *s,
                      unsigned char *bad);
int pe_prec_f64_row(const double *theta, size_t h, double pos, double att, double *c, double *s,
                    unsigned char *bad);
int pe_prec_f32_row(const double *theta, size_t h, double mr, double att, int scaled, double *c,
                    double *s, unsigned char *bad);

/* Both rows at once, exact and a float32 model's (@theta32, @mr the
 * position rounded to float32, @att32 its factor): faster than one after
 * the other. @return bit 0: an exact lane is flagged in bad[]; bit 1: a
 * float32 lane in bad32[]. */
int pe_prec_exact_f32_row(const double *theta, const double *theta32, size_t h, double pos,
                          double att, double mr, double att32, int scaled, double *c, double *s,
                          double *c32, double *s32, unsigned char *bad, unsigned char *bad32);

/* max_i max(|pc_i - ec_i|, |ps_i - es_i|), infinite when one is NaN. */
double pe_prec_max_err(size_t h, const double *pc, const double *ps, const double *ec,
                       const double *es);

/* Lanes per call of a row kernel (the flags live on the stack). */
#define PE_PREC_LANES 256

#endif
