/*
 * posenc/decay.h - dot product versus relative offset
 *
 * The decay curve of a vector set v (posenc/encode.h) at offset k is the
 * mean of <v_m, v_{m+k}> over every pair with both positions inside the
 * set's range first..first+n-1. Where that mean has a closed form it is
 * used, so k = 0..K costs O(K d) instead of O(n K d):
 *
 *   sinusoidal  Each (sin, cos) pair of frequency w contributes
 *               sin(x w) sin((x+k) w) + cos(x w) cos((x+k) w) = cos(k w),
 *               whatever the position x, layout or start, and t2t's zero
 *               column nothing. With freq=paper and odd d the last column
 *               is a lone sine: sin(x w) sin((x+k) w) =
 *               (cos(k w) - cos((2x+k) w)) / 2 depends on x, and its mean
 *               over the N = n-k pairs of the range is
 *               cos(k w)/2 - sin(N w) cos((x_first + x_last) w) / (2 N sin w)
 *               (x = position + start), which the curve uses.
 *   rope        (the default or rotated view: the all-ones q and k at
 *               positions m and m+k) each rotated pair gives
 *               a^2 (1,1).R(k theta_i)(1,1) = 2 a^2 cos(k theta_i), a the
 *               scaling's attention factor (1 unscaled; HF multiplies cos
 *               and sin by it), and each unrotated feature 1:
 *               2 a^2 sum_i cos(k theta_i) + (d - d_rot), twice the
 *               sinusoidal curve of the same frequencies when unscaled.
 *   otherwise   (learned, binary, tables from files, rope in the angle,
 *               cos or sin view) the mean over pairs from the vectors
 *               themselves, on two threads.
 *
 * PE_DECAY_BOUND is RoFormer's relative upper bound (§3.4.3, figure 2):
 * (1/(d/2)) sum_{j=1}^{d/2} |S_j|, S_j = sum_{i<j} exp(i k theta_i), with
 * d = d_rot and the (scaled) rope frequencies; it is (d/2+1)/2 at k = 0.
 * It exists only for rope and does not involve positions (the offsets
 * still must lie below n, as for every curve).
 */
#ifndef POSENC_DECAY_H
#define POSENC_DECAY_H

#include <stddef.h>

#include <posenc/encode.h>
#include <posenc/status.h>

#ifdef __cplusplus
extern "C" {
#endif

enum pe_decay_kind {
	PE_DECAY_DOT,   /* mean dot product at each offset */
	PE_DECAY_BOUND, /* RoFormer relative upper bound (rope only) */
};

/*
 * pe_decay_check() - whether a decay curve to offset max_offset exists
 *
 * @why: if not NULL, on failure a static string saying why; do not free.
 *
 * @return PE_OK, PE_EUNSUPPORTED (alibi/t5 have no vectors; the bound of a
 * scheme other than rope), PE_ERANGE (max_offset >= v->n: no pair at the
 * last offsets), or the errors of pe_encode_check().
 */
PE_API enum pe_status pe_decay_check(const struct pe_vectors *v, enum pe_decay_kind kind,
                                     size_t max_offset, const char **why);

/*
 * pe_decay_curve() - the decay curve at offsets 0..max_offset
 *
 * @out: max_offset + 1 doubles; out[k] is the value at offset k.
 *
 * @return PE_OK, the errors of pe_decay_check() and pe_vectors_rows(),
 * PE_ETOOBIG if the general path's n x d rows do not fit in size_t,
 * PE_ENOMEM.
 */
PE_API enum pe_status pe_decay_curve(const struct pe_vectors *v, enum pe_decay_kind kind,
                                     size_t max_offset, double *out);

/*
 * pe_decay_curve_range() - the decay curve at offsets first_offset +
 * t step, t = 0..count-1, into out[t]: the same values as pe_decay_curve()
 * gives there, for callers that walk a long curve in pieces (a figure of
 * 10^7 offsets in the memory of its pixels) or, with step > 1, thin a curve
 * whose every offset would cost too much (the mean over pairs costs
 * (n - k) d at offset k). Closed forms cost O(count d); the mean over pairs
 * holds the n x d rows during a call.
 *
 * @return PE_OK, PE_ERANGE for count or step 0 or offsets past n - 1, the
 * errors of pe_decay_curve().
 */
PE_API enum pe_status pe_decay_curve_range(const struct pe_vectors *v, enum pe_decay_kind kind,
                                           size_t first_offset, size_t step, size_t count,
                                           double *out);

/*
 * pe_decay_closed_form() - whether @v's decay curve comes from a closed
 * form (sinusoidal, rope: O(d) an offset, no rows held) rather than the
 * mean over pairs of its rows
 */
PE_API int pe_decay_closed_form(const struct pe_vectors *v);

#ifdef __cplusplus
}
#endif

#endif
