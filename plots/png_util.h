/*
 * png_util.h - what both PNG writers need from libpng (private to plots/)
 *
 * libpng reports errors by calling an error function that must not return;
 * its default prints to stderr, which plots/ never does. These helpers
 * install silent handlers that record a status and longjmp back.
 */
#ifndef POSENC_PLOTS_PNG_UTIL_H
#define POSENC_PLOTS_PNG_UTIL_H

#include <setjmp.h>
#include <stdio.h>

#include <png.h>

#include <posenc/png.h>
#include <posenc/status.h>

struct png_guard {
	jmp_buf jmp;
	enum pe_status status; /* set before the longjmp */
};

/*
 * png_util_create() - a write struct and info struct reporting through @g
 *
 * @return PE_OK, or PE_ENOMEM (nothing allocated). Free with
 * png_destroy_write_struct(). Call setjmp(g->jmp) before any other libpng call.
 */
enum pe_status png_util_create(struct png_guard *g, FILE *f, png_structp *png, png_infop *info);

/*
 * png_util_check() - @opt, or the defaults if NULL, validated into @out
 *
 * @return PE_OK or PE_EINVAL (level outside -1..9, unknown filter, nan_index
 * outside -1..255).
 */
enum pe_status png_util_check(const struct pe_png_options *opt, struct pe_png_options *out);

/*
 * png_util_apply() - set compression level, filter and pHYs on @png
 * (may longjmp); -1 / AUTO in @o take @level / @filter
 */
void png_util_apply(png_structp png, png_infop info, const struct pe_png_options *o, int level,
                    enum pe_png_filter filter);

/*
 * png_util_finish() - flush @f after png_write_end()
 *
 * @return PE_OK or PE_EIO.
 */
enum pe_status png_util_finish(FILE *f);

#endif
