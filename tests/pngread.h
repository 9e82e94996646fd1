/*
 * pngread.h - decode a PNG back with libpng for the writer tests
 *
 * Header-only so each test program stays one file; an independent decoder
 * path (png_read_*), not the writer's code.
 */
#ifndef POSENC_TESTS_PNGREAD_H
#define POSENC_TESTS_PNGREAD_H

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <png.h>

struct decoded {
	unsigned width, height;
	int color_type, bit_depth, channels;
	unsigned char *pixels; /* height rows of width * channels bytes */
	png_color palette[256];
	int npalette;
	png_uint_32 res_x, res_y;
	int res_unit; /* -1 if there is no pHYs */
};

static void decoded_free(struct decoded *d)
{
	free(d->pixels);
	d->pixels = NULL;
}

/* Decode the PNG in @f from its start. @return 0, or -1 if libpng rejects it. */
static int decode_png(FILE *f, struct decoded *d)
{
	memset(d, 0, sizeof(*d));
	rewind(f);
	png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
	png_infop info = png_create_info_struct(png);
	if (setjmp(png_jmpbuf(png))) {
		png_destroy_read_struct(&png, &info, NULL);
		decoded_free(d);
		return -1;
	}
	png_init_io(png, f);
	png_read_info(png, info);
	d->width = png_get_image_width(png, info);
	d->height = png_get_image_height(png, info);
	d->color_type = png_get_color_type(png, info);
	d->bit_depth = png_get_bit_depth(png, info);
	d->channels = png_get_channels(png, info);
	png_colorp pal = NULL;
	if (png_get_PLTE(png, info, &pal, &d->npalette))
		memcpy(d->palette, pal, (size_t)d->npalette * sizeof(png_color));
	d->res_unit = -1;
	png_get_pHYs(png, info, &d->res_x, &d->res_y, &d->res_unit);
	size_t rowbytes = png_get_rowbytes(png, info);
	d->pixels = malloc(rowbytes * d->height);
	for (unsigned y = 0; y < d->height; y++)
		png_read_row(png, d->pixels + y * rowbytes, NULL);
	png_read_end(png, NULL);
	png_destroy_read_struct(&png, &info, NULL);
	return 0;
}

static const unsigned char *decoded_px(const struct decoded *d, unsigned x, unsigned y)
{
	return d->pixels + ((size_t)y * d->width + x) * (size_t)d->channels;
}

#endif
