/*
 * png_write.c - cairo image surfaces to PNG through libpng
 *
 * Default zlib level 6 without row filters, from the 8192 x 8192 RGB
 * measurements in doc/conventions.md §11: level 6 / no filter gave
 * 0.85 s and 4.7 MB on a sinusoidal pattern against 2.26 s and 9.4 MB for
 * cairo's own writer (level 6, adaptive filters) and 0.54 s / 14.8 MB for
 * level 1; on noise 11.5 s / 103 MB against 15.2 s / 171 MB. Adaptive
 * filtering loses on both: smooth heatmaps already repeat byte-for-byte, and
 * filters turn those repeats into less regular differences.
 * Re-measured with this writer on an 8192 x 8192 RGB24 surface of the
 * sinusoidal (d=128) distance matrix in viridis: cairo 2.63 s / 3.31 MB;
 * level 6 none 0.94 s / 1.53 MB; level 6 up 0.98 s / 1.67 MB; level 6
 * adaptive 2.10 s / 3.31 MB; level 1 none 2.00 s / 58.8 MB.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include <posenc/png.h>

#include "png_util.h"

#define FIGURE_LEVEL  6
#define FIGURE_FILTER PE_PNG_FILTER_NONE

struct surface_job {
	const unsigned char *data;
	int width, height, stride;
	bool rgba; /* some pixel is not opaque: write alpha */
	png_bytep row;
};

static const uint32_t *pixel_row(const struct surface_job *j, int y)
{
	return (const uint32_t *)(const void *)(j->data + (size_t)y * (size_t)j->stride);
}

static bool all_opaque(const struct surface_job *j)
{
	for (int y = 0; y < j->height; y++) {
		const uint32_t *p = pixel_row(j, y);
		for (int x = 0; x < j->width; x++)
			if ((p[x] >> 24) != 0xff)
				return false;
	}
	return true;
}

/* cairo keeps native-endian 32-bit pixels, alpha in the top byte and colour
 * premultiplied by alpha; PNG wants straight R, G, B(, A) bytes. */
static void convert_row(const struct surface_job *j, int y)
{
	const uint32_t *p = pixel_row(j, y);
	png_bytep out = j->row;
	for (int x = 0; x < j->width; x++) {
		uint32_t v = p[x], a = v >> 24;
		uint32_t r = (v >> 16) & 0xff, g = (v >> 8) & 0xff, b = v & 0xff;
		if (j->rgba) {
			if (a == 0) {
				r = g = b = 0;
			} else if (a != 0xff) {
				r = (r * 255 + a / 2) / a;
				g = (g * 255 + a / 2) / a;
				b = (b * 255 + a / 2) / a;
			}
		}
		*out++ = (png_byte)r;
		*out++ = (png_byte)g;
		*out++ = (png_byte)b;
		if (j->rgba)
			*out++ = (png_byte)a;
	}
}

static void write_image(png_structp png, png_infop info, const struct surface_job *j,
                        const struct pe_png_options *o)
{
	png_set_IHDR(png, info, (png_uint_32)j->width, (png_uint_32)j->height, 8,
	             j->rgba ? PNG_COLOR_TYPE_RGB_ALPHA : PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
	             PNG_COMPRESSION_TYPE_BASE, PNG_FILTER_TYPE_BASE);
	png_util_apply(png, info, o, FIGURE_LEVEL, FIGURE_FILTER);
	png_write_info(png, info);
	for (int y = 0; y < j->height; y++) {
		convert_row(j, y);
		png_write_row(png, j->row);
	}
	png_write_end(png, info);
}

enum pe_status pe_png_write_surface(FILE *f, cairo_surface_t *surface,
                                    const struct pe_png_options *opt)
{
	struct pe_png_options o;
	enum pe_status st = png_util_check(opt, &o);
	if (st != PE_OK)
		return st;
	if (!f || !surface || cairo_surface_status(surface) != CAIRO_STATUS_SUCCESS ||
	    cairo_surface_get_type(surface) != CAIRO_SURFACE_TYPE_IMAGE)
		return PE_EINVAL;
	cairo_format_t format = cairo_image_surface_get_format(surface);
	if (format != CAIRO_FORMAT_ARGB32 && format != CAIRO_FORMAT_RGB24)
		return PE_EUNSUPPORTED;
	cairo_surface_flush(surface);

	struct surface_job j = {
	        .data = cairo_image_surface_get_data(surface),
	        .width = cairo_image_surface_get_width(surface),
	        .height = cairo_image_surface_get_height(surface),
	        .stride = cairo_image_surface_get_stride(surface),
	};
	if (!j.data || j.width <= 0 || j.height <= 0)
		return PE_EINVAL;
	j.rgba = format == CAIRO_FORMAT_ARGB32 && !all_opaque(&j);
	j.row = malloc((size_t)j.width * 4);
	if (!j.row)
		return PE_ENOMEM;

	struct png_guard g;
	png_structp png = NULL;
	png_infop info = NULL;
	st = png_util_create(&g, f, &png, &info);
	if (st == PE_OK) {
		if (setjmp(g.jmp) == 0) {
			write_image(png, info, &j, &o);
			st = png_util_finish(f);
		} else {
			st = g.status;
		}
		png_destroy_write_struct(&png, &info);
	}
	free(j.row);
	return st;
}
