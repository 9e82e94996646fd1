/*
 * posenc/norm.h - mapping data values to [0, 1] for colour lookup
 *
 * A norm is the data range [vmin, vmax] drawn by the full colormap. The
 * usual life of a norm, as in matplotlib:
 *   pe_norm_from_data()  the finite range of the data (NaN and +-inf ignored);
 *                        pe_norm_empty() + pe_norm_add() does the same in pieces
 *   pe_norm_symmetric()  for signed data on a diverging map: [-h, h] with
 *                        h = max|x|, so 0 sits on the neutral middle colour
 *                        (matplotlib's CenteredNorm)
 *   pe_norm_override()   the user's --vmin/--vmax
 *   pe_norm_apply()      per value, then pe_colormap_index()/lookup()
 * Everything here is plain arithmetic on a struct: nothing allocates.
 */
#ifndef POSENC_NORM_H
#define POSENC_NORM_H

#include <stdbool.h>
#include <stddef.h>

#include <posenc/status.h>

#ifdef __cplusplus
extern "C" {
#endif

struct pe_norm {
	double vmin;
	double vmax;
};

/*
 * pe_norm_empty() - the range of no data (vmin = +inf, vmax = -inf), the
 * start for pe_norm_add()
 */
PE_API struct pe_norm pe_norm_empty(void);

/*
 * pe_norm_is_empty() - whether @n has seen no finite value (vmin > vmax)
 */
PE_API bool pe_norm_is_empty(const struct pe_norm *n);

/*
 * pe_norm_add() - widen @n to cover the finite values among @x[0..count-1]
 *
 * NaN and +-inf are skipped: they are drawn as bad / under / over colours and
 * must not stretch the scale.
 */
PE_API void pe_norm_add(struct pe_norm *n, const double *x, size_t count);

/*
 * pe_norm_from_data() - the finite range of @x[0..count-1]
 *
 * @return PE_OK and *out = [min, max] of the finite values, or PE_ERANGE if
 * there is none (count 0, or all NaN/inf); *out is then left unchanged.
 */
PE_API enum pe_status pe_norm_from_data(const double *x, size_t count, struct pe_norm *out);

/*
 * pe_norm_symmetric() - @n widened to [-h, h], h = max(|vmin|, |vmax|)
 *
 * @return the symmetric norm; an empty @n is returned unchanged.
 */
PE_API struct pe_norm pe_norm_symmetric(struct pe_norm n);

/*
 * pe_norm_override() - apply the user's limits to @n
 *
 * @vmin, @vmax: the user's values, or NULL where not given. With @symmetric
 * set and only one of them given, the other becomes its negation (--vmax 0.5
 * on a diverging map means [-0.5, 0.5]); otherwise a missing limit keeps the
 * value in @n.
 *
 * @return PE_OK; PE_EINVAL if a given limit is NaN or infinite; PE_ERANGE if
 * the result has vmin > vmax or an end still infinite (an empty @n with a
 * limit missing). On error @n is unchanged.
 */
PE_API enum pe_status pe_norm_override(struct pe_norm *n, const double *vmin, const double *vmax,
                                       bool symmetric);

/*
 * pe_norm_apply() - @x mapped linearly so that vmin -> 0 and vmax -> 1
 *
 * Values outside the range map outside [0, 1] (the colormap's under/over);
 * NaN stays NaN; +-inf map to +-inf. A degenerate range (vmin == vmax, e.g. a
 * constant matrix, or an all-zero one under the symmetric norm) maps that
 * value to 0.5, the middle colour (the neutral one of a diverging map), values
 * below it to 0 and above it to 1: no division by zero. matplotlib maps such
 * data to 0 instead.
 *
 * @return the normalised value.
 */
PE_API double pe_norm_apply(const struct pe_norm *n, double x);

#ifdef __cplusplus
}
#endif

#endif
