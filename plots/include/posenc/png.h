/*
 * posenc/png.h - PNG output through libpng: cairo image surfaces
 *
 * Figures are drawn on a cairo image surface and written here instead of by
 * cairo_surface_write_to_png(), which offers no compression settings (zlib
 * level 6 with adaptive filtering: 4x slower than needed, see
 * plots/png_write.c). The raw one-pixel-per-cell writer is in
 * posenc/rawpng.h and shares these options.
 */
#ifndef POSENC_PNG_H
#define POSENC_PNG_H

#include <stdio.h>

#include <cairo.h>

#include <posenc/status.h>

#ifdef __cplusplus
extern "C" {
#endif

/* PNG row filters (PNG spec 9.2). AUTO: the writer's measured default. */
enum pe_png_filter {
	PE_PNG_FILTER_AUTO = 0,
	PE_PNG_FILTER_NONE,
	PE_PNG_FILTER_SUB,
	PE_PNG_FILTER_UP,
	PE_PNG_FILTER_AVG,
	PE_PNG_FILTER_PAETH,
	PE_PNG_FILTER_ADAPTIVE, /* libpng picks per row among all five */
};

struct pe_png_options {
	int level;                 /* zlib level 0..9; -1: the writer's default */
	enum pe_png_filter filter; /* PE_PNG_FILTER_AUTO: the writer's default */
	double dpi;                /* pHYs resolution; <= 0: no pHYs chunk */
	int nan_index; /* raw writer: palette index for NaN cells; -1: NaN is an error */
};

/*
 * pe_png_options_default() - level -1, filter AUTO, 100 dpi (matplotlib's
 * savefig default), nan_index -1
 */
PE_API struct pe_png_options pe_png_options_default(void);

/*
 * pe_png_write_surface() - write a cairo image surface to @f as a PNG
 *
 * CAIRO_FORMAT_RGB24 is written as 8-bit RGB. CAIRO_FORMAT_ARGB32 is
 * un-premultiplied and written as RGBA, or as RGB when every pixel is opaque
 * (as cairo does). Defaults: zlib level 6, no filtering (see png_write.c for
 * the measurements). The surface is flushed first; its contents are not
 * changed. @f is left open and flushed.
 *
 * @opt: NULL for pe_png_options_default(); nan_index is ignored.
 *
 * @return PE_OK; PE_EINVAL if @surface is not an image surface, is in an
 * error state, or has a zero size, or an option is out of range;
 * PE_EUNSUPPORTED for other pixel formats (A8, A1, RGB16_565, RGB30, ...);
 * PE_ENOMEM; PE_EIO if writing failed (errno from the stream). After an
 * error the stream holds a partial PNG.
 */
PE_API enum pe_status pe_png_write_surface(FILE *f, cairo_surface_t *surface,
                                           const struct pe_png_options *opt);

#ifdef __cplusplus
}
#endif

#endif
