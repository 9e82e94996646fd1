/* Image surfaces whose pixels are on huge pages (see fig_internal.h). */
#include <posenc/matrix.h>

#include "fig_internal.h"

#define HUGE_BYTES ((size_t)2 << 20)

static const cairo_user_data_key_t pixels_key;

static void pixels_free(void *p)
{
	pe_buffer_free(p);
}

cairo_surface_t *image_surface(cairo_format_t format, int width, int height)
{
	int stride = cairo_format_stride_for_width(format, width);
	if (stride <= 0 || height <= 0 || (size_t)stride * (size_t)height < HUGE_BYTES)
		return cairo_image_surface_create(format, width, height);
	unsigned char *px = pe_buffer_calloc((size_t)stride, (size_t)height);
	if (!px)
		return cairo_image_surface_create(format, width,
		                                  height); /* cairo's own, or its error */
	cairo_surface_t *s = cairo_image_surface_create_for_data(px, format, width, height, stride);
	if (cairo_surface_status(s) == CAIRO_STATUS_SUCCESS &&
	    cairo_surface_set_user_data(s, &pixels_key, px, pixels_free) == CAIRO_STATUS_SUCCESS)
		return s; /* the pixels are freed with it */
	cairo_surface_destroy(s);
	pe_buffer_free(px);
	return cairo_image_surface_create(format, width, height);
}
