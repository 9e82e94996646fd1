#include <errno.h>
#include <math.h>

#include <cairo-pdf.h>
#include <cairo-svg.h>

#include <posenc/png.h>

#include "fig_internal.h"

/* cairo's image surfaces stop at 32767 pixels a side (pixman 16.16 coordinates). */
#define MAX_SIDE 32767

struct sink {
	FILE *out;
	bool failed;
};

static cairo_status_t write_stream(void *closure, const unsigned char *data, unsigned int length)
{
	struct sink *k = closure;
	if (fwrite(data, 1, length, k->out) != length) {
		k->failed = true;
		return CAIRO_STATUS_WRITE_ERROR;
	}
	return CAIRO_STATUS_SUCCESS;
}

void figure_style(const struct pe_figure *fig, enum pe_figure_format format, double w, double h,
                  struct fig_style *st)
{
	st->format = format;
	st->vector = format != PE_FIGURE_PNG;
	if (fig->font_size > 0) {
		st->font = fig->font_size;
	} else {
		/* 12 at 640 x 480; a 4x larger figure gets 2x larger text, not 4x. */
		double s = fmin(w / PE_FIGURE_DEFAULT_WIDTH, h / PE_FIGURE_DEFAULT_HEIGHT);
		st->font = 12 * fmin(4, fmax(0.6, sqrt(s)));
		if (fig->rows * fig->cols > 1 || fig->bottom)
			st->font *= 0.9;
	}
	double line = st->font / 12;
	st->line = st->vector ? 0.8 * line : fmax(1, round(line));
	st->tick_len = 0.35 * st->font;
	st->pad = 0.3 * st->font;
}

void pe_figure_default_size(const struct pe_figure *fig, double *width, double *height)
{
	*width = PE_FIGURE_DEFAULT_WIDTH;
	*height = PE_FIGURE_DEFAULT_HEIGHT;
	if (fig->rows * fig->cols == 1 && !fig->bottom)
		return;
	/* About 340 x 280 per grid panel (a heatmap, its colorbar and labels), 240 for the bottom
	 * row. */
	*width = fmax(*width, 340.0 * fig->cols + 80);
	*height = fmax(*height, 280.0 * fig->rows + (fig->bottom ? 240 : 0) + 60);
}

enum pe_status pe_figure_write(struct pe_figure *fig, enum pe_figure_format format, double width,
                               double height, FILE *out)
{
	if (width == 0 || height == 0) {
		double dw, dh;
		pe_figure_default_size(fig, &dw, &dh);
		if (width == 0 && height == 0)
			width = dw, height = dh;
		else if (width == 0)
			width = height * dw / dh;
		else
			height = width * dh / dw;
	}
	if (!(width >= 16 && width <= MAX_SIDE && height >= 16 && height <= MAX_SIDE))
		return PE_ERANGE;
	if (format == PE_FIGURE_PNG) {
		width = round(width);
		height = round(height);
	}
	struct fig_style st;
	figure_style(fig, format, width, height, &st);

	struct sink sink = {out, false};
	cairo_surface_t *surf;
	switch (format) {
	case PE_FIGURE_PNG:
		surf = cairo_image_surface_create(CAIRO_FORMAT_RGB24, (int)width, (int)height);
		break;
	case PE_FIGURE_SVG:
		surf = cairo_svg_surface_create_for_stream(write_stream, &sink, width, height);
		break;
	case PE_FIGURE_PDF:
		surf = cairo_pdf_surface_create_for_stream(write_stream, &sink, width, height);
		break;
	default:
		return PE_EINVAL;
	}
	if (cairo_surface_status(surf) != CAIRO_STATUS_SUCCESS) {
		cairo_surface_destroy(surf);
		return PE_ENOMEM;
	}
	if (format == PE_FIGURE_PDF) {
		cairo_pdf_surface_set_metadata(surf, CAIRO_PDF_METADATA_CREATOR, "posenc");
		if (fig->title)
			cairo_pdf_surface_set_metadata(surf, CAIRO_PDF_METADATA_TITLE, fig->title);
	}
	cairo_t *cr = cairo_create(surf);
	enum pe_status s = figure_render(fig, cr, &st, width, height);
	if (s == PE_OK && cairo_status(cr) != CAIRO_STATUS_SUCCESS)
		s = PE_ENOMEM;
	cairo_destroy(cr);
	if (s == PE_OK && format == PE_FIGURE_PNG) {
		s = pe_png_write_surface(out, surf, NULL);
	}
	cairo_surface_finish(surf);
	if (s == PE_OK && cairo_surface_status(surf) != CAIRO_STATUS_SUCCESS)
		s = sink.failed ? PE_EIO : PE_ENOMEM;
	if (s == PE_OK && sink.failed)
		s = PE_EIO;
	cairo_surface_destroy(surf);
	return s;
}
