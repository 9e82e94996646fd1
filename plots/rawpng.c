/*
 * rawpng.c - streaming palette PNG of a matrix, one pixel per cell
 */
#include <stdint.h>
#include <stdlib.h>

#include <posenc/rawpng.h>

#include "png_util.h"

/*
 * Defaults by measurement (tools/bench-png.c, 16384 x 16384 = 268 M cells,
 * viridis, written to a file in /tmp; time includes producing the rows:
 * 0.13 s distance, 2.26 s encode, 0.40 s noise):
 *
 *   level filter  | distance (d=128)  | encode table      | uniform noise
 *   0     none    |  3.45 s  268.9 MB | 10.96 s  268.9 MB | 4.52 s 268.9 MB
 *   1     none    |  1.88 s   49.9 MB |  7.17 s  184.9 MB | 5.93 s 268.9 MB
 *   3     none    |  1.83 s   38.9 MB |  7.30 s  182.2 MB | 5.67 s 268.9 MB
 *   6     none    |  1.38 s    2.0 MB |  8.62 s  171.5 MB | 6.06 s 268.9 MB
 *   9     none    |  1.38 s    2.0 MB |  8.72 s  171.4 MB | 5.81 s 268.9 MB
 *   1     sub     |  1.97 s   49.1 MB |  6.96 s  193.2 MB | 5.74 s 268.9 MB
 *   1     up      |  1.90 s   49.2 MB |  5.50 s  116.7 MB | 6.19 s 268.9 MB
 *   6     sub     |  2.09 s    2.2 MB |  8.05 s  183.9 MB | 5.83 s 268.9 MB
 *   6     up      |  1.63 s    2.1 MB | 11.92 s  108.3 MB | 7.36 s 268.9 MB
 *   6     paeth   |  2.05 s    2.8 MB | 11.59 s  110.4 MB | 7.07 s 268.9 MB
 *   6     all     |  4.32 s    8.7 MB | 14.71 s  108.3 MB | 8.31 s 268.9 MB
 *   9     all     |  3.76 s    2.0 MB | 80.47 s  106.8 MB | 20.2 s 268.9 MB
 *
 * Distance (and correlation) matrices of sinusoidal and RoPE schemes are
 * Toeplitz: each row is the previous one shifted by a cell, cols + 2 bytes
 * back in the zlib stream, which levels 1-3 (short hash chains) mostly miss
 * and level 6 finds; it is the fastest and smallest there. Uniform noise over
 * 256 indices is incompressible at any setting (the time is mostly writing
 * 269 MB). The encode table (positions x dims, d = 16384) is the one case
 * where a filter pays: "up" saves 37% at +40% time; callers can ask for it.
 *
 * Deflate cannot look back further than 32506 bytes (32 KiB window minus
 * 262 bytes lookahead), so from 32505 columns on no row can copy its
 * predecessor and level 6 only burns time. Measured on 1000 rows of the
 * distance matrix: 32504 columns 0.82 s / 4.5 MB, 32505 columns 2.08 s /
 * 16.4 MB. On 2000 x 40000 cells:
 *
 *   level filter  | distance
 *   6     none    |  6.40 s  40.7 MB
 *   1     none    |  2.25 s  44.2 MB
 *   3     none    |  4.91 s  41.1 MB
 *   1     sub     |  2.76 s  34.9 MB
 *   1     up      |  2.47 s  34.9 MB
 *   3     up      |  3.90 s  31.8 MB
 *   6     up      | 20.41 s  30.1 MB
 *   1     paeth   |  2.23 s  32.2 MB
 *   6     paeth   | 15.19 s  26.0 MB
 *
 * and the whole 40000 x 40000 at level 6 without filter took 130 s for
 * 815 MB. So wide images switch to level 1 with the Paeth filter (the
 * adjacent rows of a smooth matrix predict each cell well): 40000 x 40000
 * then takes 39 s for 644 MB, 32768 x 32768 30 s for 433 MB, both in 3.3 MB
 * of memory (max RSS of the whole program).
 */
#define RAW_WINDOW_COLS 32504

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
	if (j->cols <= RAW_WINDOW_COLS)
		png_util_apply(png, info, o, 6, PE_PNG_FILTER_NONE);
	else
		png_util_apply(png, info, o, 1, PE_PNG_FILTER_PAETH);
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
