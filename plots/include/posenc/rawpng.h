/*
 * posenc/rawpng.h - the bare matrix as an indexed PNG, one pixel per cell
 *
 * The image is rows x cols pixels, row 0 at the top, 8-bit palette (PNG
 * colour type 3) whose PLTE is the colormap (pe_colormap_palette()), so a
 * pixel's index is pe_colormap_index(pe_norm_apply(norm, value)). Rows are
 * pulled from a callback and streamed through libpng one at a time: memory
 * is O(cols), so a 32768 x 32768 matrix (or larger: cairo's 32767-pixel
 * limit does not apply) never exists anywhere.
 */
#ifndef POSENC_RAWPNG_H
#define POSENC_RAWPNG_H

#include <stddef.h>
#include <stdio.h>

#include <posenc/colormap.h>
#include <posenc/norm.h>
#include <posenc/png.h>
#include <posenc/rows.h>
#include <posenc/status.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * pe_rawpng_write() - stream a rows x cols matrix to @f as a palette PNG
 *
 * @rows_fn: called for rows 0..rows-1 in order with a buffer of cols doubles,
 *           from a thread of its own (rows are fetched and coloured up to 64
 *           rows ahead while the caller's thread compresses), one call at a
 *           time; without threads, from the caller's thread.
 * @cm, @norm: colour of each cell, as in a heatmap.
 * @opt: NULL for pe_png_options_default(). Defaults, chosen by measurement
 *       (see rawpng.c): zlib level 6 without filtering up to 32503 columns
 *       (where deflate can still reach the previous row), level 1 with the
 *       Paeth filter beyond. A palette has no spare entry for "bad" cells,
 *       so NaN is an error unless opt->nan_index (0..255) names the index
 *       to write instead.
 *
 * @return PE_OK; PE_EINVAL if rows or cols is 0 or an option is out of
 * range; PE_ETOOBIG if rows or cols exceeds 2^31 - 1 (the PNG limit);
 * PE_ERANGE if a cell is NaN and nan_index is -1; PE_ENOMEM; PE_EIO if
 * writing failed; or the first status other than PE_OK that @rows_fn
 * returned. After an error the stream holds a partial PNG: write to a
 * temporary file and rename on success.
 */
PE_API enum pe_status pe_rawpng_write(FILE *f, size_t rows, size_t cols, pe_row_fn rows_fn,
                                      void *ctx, const struct pe_colormap *cm,
                                      const struct pe_norm *norm, const struct pe_png_options *opt);

#ifdef __cplusplus
}
#endif

#endif
