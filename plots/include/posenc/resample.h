/*
 * posenc/resample.h - a matrix brought to the pixel grid of a heatmap
 *
 * An rows x cols matrix is mapped onto out_rows x out_cols cells, each axis
 * on its own:
 *   - downsampling (or same size) on an axis: area averaging. Input cell i
 *     spans [i, i+1) * out/in on the output axis; an output cell is the mean
 *     of the input cells it overlaps, each weighted by the length of the
 *     overlap (exact integer weights). An 8192-wide matrix drawn into 800
 *     pixels thus shows the mean of ~10.24 columns per pixel, not every
 *     10th column, so periodic patterns cannot alias into moire.
 *   - upsampling on an axis: nearest neighbour, output cell o takes input
 *     cell floor((o + 0.5) * in / out), so cells stay crisp blocks.
 * NaN input cells are left out of a mean; an output cell all of whose input
 * is NaN is NaN. Infinities propagate (+inf and -inf together give NaN).
 *
 * Input is consumed row by row (pe_resampler_push, or a pe_row_fn), so a
 * huge matrix needs memory for the output only: 2 * out_rows * out_cols
 * doubles plus O(cols + out_cols).
 */
#ifndef POSENC_RESAMPLE_H
#define POSENC_RESAMPLE_H

#include <stddef.h>

#include <posenc/matrix.h>
#include <posenc/rows.h>
#include <posenc/status.h>

#ifdef __cplusplus
extern "C" {
#endif

struct pe_resampler;

/*
 * pe_resampler_create() - a resampler from rows x cols to out_rows x out_cols
 *
 * @return PE_OK and *out; PE_EINVAL if a size is 0; PE_ETOOBIG if the sizes
 * overflow the integer weights (rows * out_rows or cols * out_cols beyond
 * 2^53) or the output size; PE_ENOMEM. Free *out with pe_resampler_destroy().
 */
PE_API enum pe_status pe_resampler_create(size_t rows, size_t cols, size_t out_rows,
                                          size_t out_cols, struct pe_resampler **out);

/*
 * pe_resampler_push() - add the next input row (cols doubles, read only
 * during the call)
 *
 * @return PE_OK, or PE_ERANGE if all rows have been pushed already.
 */
PE_API enum pe_status pe_resampler_push(struct pe_resampler *r, const double *row);

/*
 * pe_resampler_finish() - the resampled matrix, once every row is pushed
 *
 * @return PE_OK and *out (out_rows x out_cols, the caller's: free with
 * pe_matrix_destroy()); PE_ERANGE if rows are still missing; PE_ENOMEM.
 * The resampler can only be destroyed afterwards.
 */
PE_API enum pe_status pe_resampler_finish(struct pe_resampler *r, struct pe_matrix **out);

/*
 * pe_resampler_destroy() - free a resampler; NULL is a no-op
 */
PE_API void pe_resampler_destroy(struct pe_resampler *r);

/*
 * pe_resample() - @in resampled to out_rows x out_cols in one call
 *
 * @return as pe_resampler_create() and pe_resampler_finish(); *out is the
 * caller's (pe_matrix_destroy()).
 */
PE_API enum pe_status pe_resample(const struct pe_matrix *in, size_t out_rows, size_t out_cols,
                                  struct pe_matrix **out);

/*
 * pe_resample_rows() - a rows x cols matrix pulled row by row from @fn,
 * resampled to out_rows x out_cols
 *
 * @return as pe_resample(), or the first status other than PE_OK from @fn.
 */
PE_API enum pe_status pe_resample_rows(size_t rows, size_t cols, pe_row_fn fn, void *ctx,
                                       size_t out_rows, size_t out_cols, struct pe_matrix **out);

#ifdef __cplusplus
}
#endif

#endif
