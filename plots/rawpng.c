/*
 * rawpng.c - streaming palette PNG of a matrix, one pixel per cell
 */
#include <stdint.h>
#include <stdlib.h>

#include <posenc/rawpng.h>

#include "png_util.h"

/* Defaults chosen by measurement; see the table at the end of this comment
 * block (filled in by bench/bench_png). */
#define RAW_LEVEL 6
#define RAW_FILTER PE_PNG_FILTER_NONE

/* Everything the row loop touches lives here, behind a pointer, so nothing
 * the caller of setjmp reads afterwards is an automatic variable modified
 * between setjmp and longjmp. */
struct raw_job {
	size_t rows, cols;
	pe_row_fn fn;
	void *ctx;
	const struct pe_norm *norm;
	int nan_index;
	double *values;
	png_bytep index;
	enum pe_status status; /* of the rows themselves (callback, NaN) */
};

static enum pe_status map_row(struct raw_job *j)
{
	for (size_t c = 0; c < j->cols; c++) {
		int i = pe_colormap_index(pe_norm_apply(j->norm, j->values[c]));
		if (i < 0) {
			if (j->nan_index < 0)
				return PE_ERANGE;
			i = j->nan_index;
		}
		j->index[c] = (png_byte)i;
	}
	return PE_OK;
}

/* May longjmp out of libpng; returns early with j->status set otherwise. */
static void write_image(png_structp png, png_infop info, struct raw_job *j,
			const struct pe_colormap *cm, const struct pe_png_options *o)
{
	unsigned char pal8[PE_COLORMAP_SIZE][3];
	png_color plte[PE_COLORMAP_SIZE];
	pe_colormap_palette(cm, pal8);
	for (size_t i = 0; i < PE_COLORMAP_SIZE; i++)
		plte[i] = (png_color){pal8[i][0], pal8[i][1], pal8[i][2]};

	/* libpng refuses images wider or taller than 10^6 unless told. */
	png_set_user_limits(png, 0x7fffffffu, 0x7fffffffu);
	png_set_IHDR(png, info, (png_uint_32)j->cols, (png_uint_32)j->rows, 8,
		     PNG_COLOR_TYPE_PALETTE, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_BASE,
		     PNG_FILTER_TYPE_BASE);
	png_set_PLTE(png, info, plte, PE_COLORMAP_SIZE);
	png_util_apply(png, info, o, RAW_LEVEL, RAW_FILTER);
	png_write_info(png, info);
	for (size_t r = 0; r < j->rows; r++) {
		j->status = j->fn(j->ctx, r, j->values);
		if (j->status == PE_OK)
			j->status = map_row(j);
		if (j->status != PE_OK)
			return;
		png_write_row(png, j->index);
	}
	png_write_end(png, info);
}

enum pe_status pe_rawpng_write(FILE *f, size_t rows, size_t cols, pe_row_fn rows_fn, void *ctx,
			       const struct pe_colormap *cm, const struct pe_norm *norm,
			       const struct pe_png_options *opt)
{
	struct pe_png_options o;
	enum pe_status st = png_util_check(opt, &o);
	if (st != PE_OK)
		return st;
	if (rows == 0 || cols == 0 || !f || !rows_fn || !cm || !norm)
		return PE_EINVAL;
	if (rows > 0x7fffffffu || cols > 0x7fffffffu || cols > SIZE_MAX / sizeof(double))
		return PE_ETOOBIG;

	struct raw_job *j = calloc(1, sizeof(*j));
	if (!j)
		return PE_ENOMEM;
	*j = (struct raw_job){rows, cols, rows_fn, ctx, norm, o.nan_index, NULL, NULL, PE_OK};
	j->values = malloc(cols * sizeof(double));
	j->index = malloc(cols);
	struct png_guard g;
	png_structp png = NULL;
	png_infop info = NULL;
	st = (j->values && j->index) ? png_util_create(&g, f, &png, &info) : PE_ENOMEM;
	if (st == PE_OK) {
		if (setjmp(g.jmp) == 0) {
			write_image(png, info, j, cm, &o);
			st = j->status != PE_OK ? j->status : png_util_finish(f);
		} else {
			st = g.status;
		}
		png_destroy_write_struct(&png, &info);
	}
	free(j->values);
	free(j->index);
	free(j);
	return st;
}
