#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <time.h>

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

/* Tick labels, the smallest text, never go below this (points). */
#define MIN_TICK_PT 6.0

void figure_style(const struct pe_figure *fig, enum pe_figure_format format, double w, double h,
                  struct fig_style *st)
{
	(void)w;
	(void)h;
	*st = (struct fig_style){0};
	st->format = format;
	st->vector = format != PE_FIGURE_PNG;
	st->unit = st->vector ? 1 : fig->dpi / 72;
	/*
	 * Text in points whatever the figure's size, as in matplotlib: 10 pt
	 * labels (9 pt ticks, 11 pt titles); a grid of panels 9 pt.
	 */
	double pt = fig->font_size;
	if (!(pt > 0))
		pt = fig->rows * fig->cols > 1 || fig->bottom ? 9 : 10;
	st->font = pt * st->unit;
	st->min_font = fmin(pt, MIN_TICK_PT / 0.9) * st->unit;
	/* matplotlib's 0.8 pt axes lines; whole pixels on a raster. */
	double line = 0.08 * st->font;
	st->line = st->vector ? line : fmax(1, round(line));
	st->tick_len = 0.35 * st->font;
	st->pad = 0.3 * st->font;
}

void pe_figure_default_size(const struct pe_figure *fig, double *width, double *height)
{
	*width = PE_FIGURE_DEFAULT_WIDTH;
	*height = PE_FIGURE_DEFAULT_HEIGHT;
	if (fig->rows * fig->cols == 1 && !fig->bottom)
		return;
	/* About 245 x 200 pt per grid panel (a heatmap, its colorbar and labels), 175 pt for the
	 * bottom row. */
	*width = fmax(*width, 245.0 * fig->cols + 58);
	/* A single row of panels wider than the default is as tall as its panels, not the default:
	 * a table beside its distance matrix would otherwise stand in a third of empty page. */
	double panels = 200.0 * fig->rows + (fig->bottom ? 175 : 0) + 43;
	*height = fig->rows == 1 && !fig->bottom && *width > PE_FIGURE_DEFAULT_WIDTH
	                  ? panels
	                  : fmax(*height, panels);
}

void figure_pdf_dates(cairo_surface_t *surf)
{
	const char *epoch = getenv("SOURCE_DATE_EPOCH");
	if (!epoch || !*epoch)
		return;
	char *end;
	errno = 0;
	long long e = strtoll(epoch, &end, 10);
	if (*end || errno || e < 0)
		return;
	time_t t = (time_t)e;
	struct tm tm;
	char date[40];
	if (!gmtime_r(&t, &tm) || !strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%SZ", &tm))
		return;
	cairo_pdf_surface_set_metadata(surf, CAIRO_PDF_METADATA_CREATE_DATE, date);
	cairo_pdf_surface_set_metadata(surf, CAIRO_PDF_METADATA_MOD_DATE, date);
}

/* Whether the figure's panels fit at w x h with the text at its full size. */
static bool fits(struct pe_figure *fig, const struct fig_style *style, double w, double h)
{
	struct fig_style st = *style;
	st.fit_only = true;
	cairo_surface_t *surf = st.vector
	                                ? cairo_recording_surface_create(CAIRO_CONTENT_COLOR, NULL)
	                                : cairo_image_surface_create(CAIRO_FORMAT_RGB24, 1, 1);
	cairo_t *cr = cairo_create(surf);
	enum pe_status s = figure_render(fig, cr, &st, w, h);
	cairo_destroy(cr);
	cairo_surface_destroy(surf);
	/* Other failures show again, and are reported, when the figure is drawn. */
	return s != PE_ERANGE;
}

enum pe_status pe_figure_write(struct pe_figure *fig, enum pe_figure_format format, double width,
                               double height, FILE *out)
{
	bool derived_height = height == 0;
	if (width == 0 || height == 0) {
		double dw, dh;
		pe_figure_default_size(fig, &dw, &dh);
		if (format == PE_FIGURE_PNG)
			dw *= fig->dpi / 72, dh *= fig->dpi / 72;
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
	/* A height left to the aspect grows until the panels fit their text (a narrow grid). */
	for (int i = 0; derived_height && i < 12 && !fits(fig, &st, width, height); i++)
		height = fmin(MAX_SIDE,
		              format == PE_FIGURE_PNG ? round(height * 1.15) : height * 1.15);

	struct sink sink = {out, false};
	cairo_surface_t *surf;
	switch (format) {
	case PE_FIGURE_PNG:
		surf = image_surface(CAIRO_FORMAT_RGB24, (int)width, (int)height);
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
		figure_pdf_dates(surf);
		if (fig->title)
			cairo_pdf_surface_set_metadata(surf, CAIRO_PDF_METADATA_TITLE, fig->title);
	}
	cairo_t *cr = cairo_create(surf);
	text_log_canvas(width, height, st.unit);
	enum pe_status s = figure_render(fig, cr, &st, width, height);
	if (s == PE_OK && cairo_status(cr) != CAIRO_STATUS_SUCCESS)
		s = PE_ENOMEM;
	cairo_destroy(cr);
	if (s == PE_OK && format == PE_FIGURE_PNG) {
		struct pe_png_options po = pe_png_options_default();
		po.dpi = fig->dpi;
		po.level = fig->png_level;
		s = pe_png_write_surface(out, surf, &po);
	}
	cairo_surface_finish(surf);
	if (s == PE_OK && cairo_surface_status(surf) != CAIRO_STATUS_SUCCESS)
		s = sink.failed ? PE_EIO : PE_ENOMEM;
	if (s == PE_OK && sink.failed)
		s = PE_EIO;
	cairo_surface_destroy(surf);
	return s;
}
