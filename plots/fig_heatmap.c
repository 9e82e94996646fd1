#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fig_internal.h"

/* Grey for NaN cells: visibly "no value", not a colour of the scale. */
#define BAD_GREY 0.82

static enum pe_status get_row(const struct pe_heatmap_spec *hm, size_t r, double *buf,
			      const double **row)
{
	if (hm->data) {
		*row = hm->data + r * hm->cols;
		return PE_OK;
	}
	*row = buf;
	return hm->row_fn(hm->row_ctx, r, hm->cols, buf);
}

enum pe_status heatmap_limits(const struct pe_heatmap_spec *hm, double *vmin, double *vmax)
{
	double lo = hm->vmin, hi = hm->vmax;
	if (!isnan(lo) && !isnan(hi)) {
		*vmin = lo;
		*vmax = hi;
		return PE_OK;
	}
	double dmin = INFINITY, dmax = -INFINITY;
	double *buf = hm->data ? NULL : malloc(hm->cols * sizeof(double));
	if (!hm->data && !buf)
		return PE_ENOMEM;
	for (size_t r = 0; r < hm->rows; r++) {
		const double *row;
		enum pe_status s = get_row(hm, r, buf, &row);
		if (s != PE_OK) {
			free(buf);
			return s;
		}
		for (size_t c = 0; c < hm->cols; c++)
			if (isfinite(row[c])) {
				dmin = fmin(dmin, row[c]);
				dmax = fmax(dmax, row[c]);
			}
	}
	free(buf);
	if (dmin > dmax) /* nothing finite */
		dmin = dmax = 0;
	if (hm->is_signed) {
		double m = fmax(fabs(dmin), fabs(dmax));
		if (isnan(lo) && isnan(hi)) {
			lo = -m;
			hi = m;
		}
	}
	if (isnan(lo))
		lo = isnan(hi) ? dmin : fmin(dmin, hi);
	if (isnan(hi))
		hi = fmax(dmax, lo);
	if (!(hi > lo)) {
		double d = lo != 0 ? fabs(lo) * 0.05 : (hm->is_signed ? 1 : 0.5);
		lo -= d;
		hi += d;
	}
	*vmin = lo;
	*vmax = hi;
	return PE_OK;
}

/*
 * One resampling axis: n source cells onto m target cells. Upsampling is
 * nearest (every target cell takes the source cell under its centre);
 * downsampling is area averaging (source cell j covers target interval
 * [j m/n, (j+1) m/n), shorter than one target cell, so it overlaps at most
 * two of them).
 */
struct axis_map {
	size_t n, m;
	bool down;
	size_t *first;  /* down: first target cell of each source cell; up: source of each target */
	double *weight; /* down: share of source cell j in target first[j] (rest goes to the next) */
};

static bool axis_map_init(struct axis_map *a, size_t n, size_t m)
{
	a->n = n;
	a->m = m;
	a->down = n > m;
	a->first = malloc((a->down ? n : m) * sizeof(size_t));
	a->weight = a->down ? malloc(n * sizeof(double)) : NULL;
	if (!a->first || (a->down && !a->weight))
		return false;
	if (!a->down) {
		for (size_t i = 0; i < m; i++) {
			size_t j = (size_t)(((double)i + 0.5) * (double)n / (double)m);
			a->first[i] = j < n ? j : n - 1;
		}
		return true;
	}
	double len = (double)m / (double)n;
	for (size_t j = 0; j < n; j++) {
		double s = (double)j * len, e = s + len;
		size_t t = (size_t)s;
		if (t >= m)
			t = m - 1;
		double overlap = fmin(e, (double)(t + 1)) - s;
		a->first[j] = t;
		a->weight[j] = t + 1 < m ? overlap / len : 1.0;
	}
	return true;
}

static void axis_map_free(struct axis_map *a)
{
	free(a->first);
	free(a->weight);
}

/* Source row -> m target values (added with factor f when downsampling). */
static void resample_row(const struct axis_map *a, const double *src, double *dst, double f)
{
	if (!a->down) {
		for (size_t i = 0; i < a->m; i++)
			dst[i] += f * src[a->first[i]];
		return;
	}
	double len = (double)a->m / (double)a->n;
	for (size_t j = 0; j < a->n; j++) {
		size_t t = a->first[j];
		double w = a->weight[j];
		dst[t] += f * len * w * src[j];
		if (w < 1.0)
			dst[t + 1] += f * len * (1.0 - w) * src[j];
	}
}

/* The matrix resampled to gw x gh cells (row-major, gh rows), streamed row by row. */
static enum pe_status resample(const struct pe_heatmap_spec *hm, size_t gw, size_t gh,
			       double **out)
{
	struct axis_map cx = {0}, cy = {0};
	double *grid = calloc(gw * gh, sizeof(double));
	double *buf = malloc(hm->cols * sizeof(double));
	double *tmp = malloc(gw * sizeof(double));
	enum pe_status s = PE_ENOMEM;
	if (!grid || !buf || !tmp || !axis_map_init(&cx, hm->cols, gw) ||
	    !axis_map_init(&cy, hm->rows, gh))
		goto done;
	size_t next_target = 0;
	for (size_t r = 0; r < hm->rows; r++) {
		const double *row;
		s = get_row(hm, r, buf, &row);
		if (s != PE_OK)
			goto done;
		memset(tmp, 0, gw * sizeof(double));
		resample_row(&cx, row, tmp, 1.0);
		if (cy.down) {
			size_t t = cy.first[r];
			double w = cy.weight[r], len = (double)gh / (double)hm->rows;
			for (size_t i = 0; i < gw; i++) {
				grid[t * gw + i] += len * w * tmp[i];
				if (w < 1.0)
					grid[(t + 1) * gw + i] += len * (1.0 - w) * tmp[i];
			}
		} else {
			while (next_target < gh && cy.first[next_target] == r) {
				memcpy(grid + next_target * gw, tmp, gw * sizeof(double));
				next_target++;
			}
		}
	}
	s = PE_OK;
done:
	axis_map_free(&cx);
	axis_map_free(&cy);
	free(buf);
	free(tmp);
	if (s != PE_OK) {
		free(grid);
		grid = NULL;
	}
	*out = grid;
	return s;
}

static size_t lut_index(double v, double vmin, double vmax)
{
	/* matplotlib: trunc(t * N), t == 1 -> N - 1, under/over take the ends. */
	double t = (v - vmin) / (vmax - vmin);
	if (!(t > 0))
		return 0;
	if (t >= 1)
		return 255;
	size_t i = (size_t)(t * 256);
	return i > 255 ? 255 : i;
}

static cairo_surface_t *colour_image(const double *grid, size_t gw, size_t gh,
				     const uint8_t lut[256][3], double vmin, double vmax)
{
	cairo_surface_t *img = cairo_image_surface_create(CAIRO_FORMAT_RGB24, (int)gw, (int)gh);
	if (cairo_surface_status(img) != CAIRO_STATUS_SUCCESS)
		return img;
	cairo_surface_flush(img);
	unsigned char *px = cairo_image_surface_get_data(img);
	int stride = cairo_image_surface_get_stride(img);
	uint32_t bad = (uint32_t)(BAD_GREY * 255) * 0x010101u;
	for (size_t y = 0; y < gh; y++) {
		uint32_t *row = (uint32_t *)(void *)(px + (size_t)stride * y);
		for (size_t x = 0; x < gw; x++) {
			double v = grid[y * gw + x];
			if (isnan(v)) {
				row[x] = bad;
				continue;
			}
			const uint8_t *c = lut[lut_index(v, vmin, vmax)];
			row[x] = (uint32_t)c[0] << 16 | (uint32_t)c[1] << 8 | c[2];
		}
	}
	cairo_surface_mark_dirty(img);
	return img;
}

/*
 * Raster size for the target rect: one cell per device pixel in PNG; in
 * PDF the matrix itself when it is not much finer than the page (drawn with
 * /Interpolate false); in SVG a nearest-upscaled image at twice the output
 * size, because browsers smooth SVG images whatever cairo asks.
 */
static size_t raster_size(const struct fig_style *st, size_t n, double len)
{
	size_t px = (size_t)fmax(1, round(len));
	switch (st->format) {
	case PE_FIGURE_PNG:
		return px;
	case PE_FIGURE_PDF:
		return n <= 3 * px ? n : 3 * px;
	case PE_FIGURE_SVG:
		if (n >= 2 * px)
			return 2 * px;
		return n * (size_t)ceil(2.0 * (double)px / (double)n);
	}
	return px;
}

static void paint_image(cairo_t *cr, cairo_surface_t *img, size_t gw, size_t gh, struct rect r)
{
	cairo_save(cr);
	cairo_rectangle(cr, r.x, r.y, r.w, r.h);
	cairo_clip(cr);
	cairo_translate(cr, r.x, r.y);
	cairo_scale(cr, r.w / (double)gw, r.h / (double)gh);
	cairo_set_source_surface(cr, img, 0, 0);
	cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_NEAREST);
	cairo_pattern_set_extend(cairo_get_source(cr), CAIRO_EXTEND_PAD);
	cairo_paint(cr);
	cairo_restore(cr);
}

enum pe_status heatmap_draw(cairo_t *cr, const struct fig_style *st, const struct pe_heatmap_spec *hm,
			    struct rect r, double vmin, double vmax)
{
	uint8_t lut[256][3];
	const char *name = hm->colormap ? hm->colormap : colormap_default(hm->is_signed);
	if (!colormap_lut(name, lut))
		return PE_EINVAL;
	size_t gw = raster_size(st, hm->cols, r.w), gh = raster_size(st, hm->rows, r.h);
	if (gw > 32767 || gh > 32767)
		return PE_ERANGE;
	double *grid;
	enum pe_status s = resample(hm, gw, gh, &grid);
	if (s != PE_OK)
		return s;
	cairo_surface_t *img = colour_image(grid, gw, gh, lut, vmin, vmax);
	free(grid);
	if (cairo_surface_status(img) != CAIRO_STATUS_SUCCESS) {
		cairo_surface_destroy(img);
		return PE_ENOMEM;
	}
	paint_image(cr, img, gw, gh, r);
	cairo_surface_destroy(img);
	return PE_OK;
}

double colorbar_width(const struct fig_style *st, double h)
{
	/* matplotlib: an aspect of 20, 18 px at 370 px; never thinner than a glyph. */
	return fmin(fmax(h / 20, 1.0 * st->font), 1.6 * st->font);
}

static void colorbar_axis(cairo_t *cr, const struct fig_style *st, struct axis *a, double h,
			  double vmin, double vmax)
{
	*a = (struct axis){.lo = vmin, .hi = vmax};
	axis_fit_ticks(cr, st, a, h, false);
}

double colorbar_extra(cairo_t *cr, const struct fig_style *st, double h, double vmin, double vmax,
		      const char *label)
{
	struct axis a;
	colorbar_axis(cr, st, &a, h, vmin, vmax);
	text_font(cr, st, TEXT_TICK);
	double w = st->tick_len + st->pad + axis_label_width(cr, &a);
	if (label && *label)
		w += st->pad * 1.5 + text_size(st, TEXT_LABEL) * 1.0;
	return w;
}

void colorbar_draw(cairo_t *cr, const struct fig_style *st, const char *cmap, struct rect r,
		   double vmin, double vmax, const char *label)
{
	uint8_t lut[256][3];
	if (!colormap_lut(cmap, lut))
		return;
	size_t gw = st->vector ? (size_t)ceil(2 * r.w) : (size_t)fmax(1, round(r.w));
	size_t gh = st->vector ? (size_t)fmax(512, ceil(2 * r.h)) : (size_t)fmax(1, round(r.h));
	double *grid = malloc(gw * gh * sizeof(double));
	if (!grid)
		return;
	for (size_t y = 0; y < gh; y++) {
		/* Top row shows vmax; each row the value at its centre. */
		double v = vmax - ((double)y + 0.5) / (double)gh * (vmax - vmin);
		for (size_t x = 0; x < gw; x++)
			grid[y * gw + x] = v;
	}
	cairo_surface_t *img = colour_image(grid, gw, gh, lut, vmin, vmax);
	free(grid);
	if (cairo_surface_status(img) == CAIRO_STATUS_SUCCESS)
		paint_image(cr, img, gw, gh, r);
	cairo_surface_destroy(img);

	cairo_set_source_rgb(cr, 0, 0, 0);
	cairo_set_line_width(cr, st->line);
	double o = st->vector ? 0 : st->line / 2;
	cairo_rectangle(cr, r.x - o, r.y - o, r.w + 2 * o, r.h + 2 * o);
	cairo_stroke(cr);

	struct axis a;
	colorbar_axis(cr, st, &a, r.h, vmin, vmax);
	axis_draw_y(cr, st, &a, r, true);
	if (label && *label) {
		text_font(cr, st, TEXT_TICK);
		double x = r.x + r.w + st->tick_len + st->pad + axis_label_width(cr, &a) + st->pad * 1.5;
		text_font(cr, st, TEXT_LABEL);
		text_draw(cr, label, x, r.y + r.h / 2, 0.5, 0, FIG_PI / 2);
	}
}
