/* Private helpers of the precision simulation shared with its error curves. */
#ifndef POSENC_PRECISION_INTERNAL_H
#define POSENC_PRECISION_INTERNAL_H

#include <posenc/precision.h>

/*
 * The exact cos and sin (times att) of every pair of an exact model at
 * @pos: the fast sine-cosine of the double product m * theta_i corrected by
 * its rounding error (within 1e-15 of the real values).
 */
void pe_rope_model_exact_fast(const struct pe_rope_model *m, double pos, double *c, double *s);

#endif
