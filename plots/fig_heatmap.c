#include <math.h>
#include <stdlib.h>

#include <posenc/colormap.h>
#include <posenc/matrix.h>
#include <posenc/norm.h>
#include <posenc/resample.h>

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
	return hm->row_fn(hm->row_ctx, r, buf);
}

/*
 * Data limits a hair inside a round number (sin reaching 0.99999 of 1) are
 * moved onto it, so the colorbar's end ticks read 1.0, not 0.8; no limit
 * moves by more than 1% of the range.
 */
static void snap_to_ticks(struct pe_norm *n)
{
	if (!(n->vmax > n->vmin))
		return;
	struct pe_ticks t;
	pe_ticks_linear(n->vmin, n->vmax, 6, false, &t);
	double tol = 0.01 * (n->vmax - n->vmin);
	if (!(t.step > 0))
		return;
	double hi = ceil(n->vmax / t.step) * t.step, lo = floor(n->vmin / t.step) * t.step;
	if (hi - n->vmax <= tol)
		n->vmax = hi;
	if (n->vmin - lo <= tol)
		n->vmin = lo;
}

/* Limits from the data's finite range @n (a pass over the data when automatic). */
static enum pe_status limits_from(const struct pe_heatmap_spec *hm, struct pe_norm n, bool scanned,
                                  double *vmin, double *vmax)
{
	if (scanned) {
		if (pe_norm_is_empty(&n)) /* nothing finite: an all-NaN matrix */
			n.vmin = n.vmax = 0;
		if (hm->is_signed)
			n = pe_norm_symmetric(n);
		if (hm->discrete && !pe_norm_is_empty(&n)) {
			/* Bands centred on the whole numbers. */
			n.vmin = floor(n.vmin + 0.5) - 0.5;
			n.vmax = floor(n.vmax + 0.5) + 0.5;
		} else {
			snap_to_ticks(&n);
		}
	} else {
		n = pe_norm_empty();
	}
	if (!hm->data && !hm->row_fn && !scanned)
		n.vmin = n.vmax = 0;
	const double *lo = isnan(hm->vmin) ? NULL : &hm->vmin;
	const double *hi = isnan(hm->vmax) ? NULL : &hm->vmax;
	/* A single given limit beyond the data leaves an empty range: widen it. */
	if (lo && !hi && n.vmax < *lo)
		n.vmax = *lo;
	if (hi && !lo && n.vmin > *hi)
		n.vmin = *hi;
	enum pe_status s = pe_norm_override(&n, lo, hi, hm->is_signed);
	if (s != PE_OK)
		return s;
	if (!(n.vmax > n.vmin)) {
		/* A constant matrix: a small range around its value, so the bar has ticks. */
		double d = n.vmin != 0 ? fabs(n.vmin) * 0.05 : (hm->is_signed ? 1 : 0.5);
		n.vmin -= d;
		n.vmax += d;
	}
	*vmin = n.vmin;
	*vmax = n.vmax;
	return PE_OK;
}

enum pe_status heatmap_limits(const struct pe_heatmap_spec *hm, double *vmin, double *vmax)
{
	struct pe_norm n = pe_norm_empty();
	/* A grid not asked for yet has no limits: the layout's first guess. */
	bool scan = (isnan(hm->vmin) || isnan(hm->vmax)) && (hm->data || hm->row_fn);
	if (scan) {
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
			pe_norm_add(&n, row, hm->cols);
		}
		free(buf);
	}
	return limits_from(hm, n, scan, vmin, vmax);
}

enum pe_status heatmap_panel_limits(const struct pe_panel *p, double *vmin, double *vmax)
{
	struct pe_heatmap_spec v = heatmap_view(p);
	if (!p->grid || !(isnan(v.vmin) || isnan(v.vmax)))
		return heatmap_limits(&v, vmin, vmax);
	/* The range found when the grid came: no second pass over it. */
	return limits_from(&v, p->grid_range, true, vmin, vmax);
}

bool heatmap_panel_has_nan(const struct pe_panel *p)
{
	if (p->grid)
		return p->grid_nan;
	struct pe_heatmap_spec v = heatmap_view(p);
	return heatmap_has_nan(&v);
}

bool heatmap_panel_all_nan(const struct pe_panel *p)
{
	if (p->grid)
		return false;
	struct pe_heatmap_spec v = heatmap_view(p);
	if (!v.data)
		return false;
	for (size_t i = 0; i < v.rows * v.cols; i++)
		if (isfinite(v.data[i]))
			return false;
	return true;
}

/* The matrix resampled to gw x gh cells, streamed row by row (plots/resample.c). */
static enum pe_status resample(const struct pe_heatmap_spec *hm, size_t gw, size_t gh,
                               struct pe_matrix **out)
{
	struct pe_resampler *rs = NULL;
	enum pe_status s = pe_resampler_create(hm->rows, hm->cols, gh, gw, &rs);
	if (s != PE_OK)
		return s;
	double *buf = hm->data ? NULL : malloc(hm->cols * sizeof(double));
	if (!hm->data && !buf) {
		pe_resampler_destroy(rs);
		return PE_ENOMEM;
	}
	for (size_t r = 0; s == PE_OK && r < hm->rows; r++) {
		const double *row;
		s = get_row(hm, r, buf, &row);
		if (s == PE_OK)
			s = pe_resampler_push(rs, row);
	}
	free(buf);
	if (s == PE_OK)
		s = pe_resampler_finish(rs, out);
	pe_resampler_destroy(rs);
	return s;
}

struct pe_heatmap_spec heatmap_view(const struct pe_panel *p)
{
	struct pe_heatmap_spec v = p->hm;
	if (v.grid_fn) {
		v.grid_fn = NULL;
		v.data = p->grid ? p->grid->data : NULL;
		v.rows = p->grid ? p->grid->rows : v.rows;
		v.cols = p->grid ? p->grid->cols : v.cols;
	}
	return v;
}

static cairo_surface_t *colour_image(const double *grid, size_t gw, size_t gh,
                                     const uint8_t lut[256][3], double vmin, double vmax)
{
	cairo_surface_t *img = image_surface(CAIRO_FORMAT_RGB24, (int)gw, (int)gh);
	if (cairo_surface_status(img) != CAIRO_STATUS_SUCCESS)
		return img;
	cairo_surface_flush(img);
	unsigned char *px = cairo_image_surface_get_data(img);
	int stride = cairo_image_surface_get_stride(img);
	uint32_t bad = (uint32_t)(BAD_GREY * 255) * 0x010101u;
	struct pe_norm norm = {vmin, vmax};
	for (size_t y = 0; y < gh; y++) {
		uint32_t *row = (uint32_t *)(void *)(px + (size_t)stride * y);
		for (size_t x = 0; x < gw; x++) {
			int i = pe_colormap_index(pe_norm_apply(&norm, grid[y * gw + x]));
			if (i < 0) {
				row[x] = bad;
				continue;
			}
			const uint8_t *c = lut[i];
			row[x] = (uint32_t)c[0] << 16 | (uint32_t)c[1] << 8 | c[2];
		}
	}
	cairo_surface_mark_dirty(img);
	return img;
}

/*
 * A rows x cols matrix coloured onto gw x gh >= its size pixels, each
 * pixel the cell the resampler's nearest rule gives it (cell o of out shows
 * input floor((o + 0.5) in / out)): the same picture, without resampling.
 * NULL when memory runs out.
 */
static cairo_surface_t *colour_cells(const double *data, size_t rows, size_t cols, size_t gw,
                                     size_t gh, const uint8_t lut[256][3], double vmin, double vmax)
{
	uint32_t *colour = malloc(cols * sizeof(uint32_t));
	size_t *xi = malloc(gw * sizeof(size_t));
	cairo_surface_t *img = NULL;
	if (colour && xi)
		img = image_surface(CAIRO_FORMAT_RGB24, (int)gw, (int)gh);
	if (!img || cairo_surface_status(img) != CAIRO_STATUS_SUCCESS) {
		if (img)
			cairo_surface_destroy(img);
		free(colour);
		free(xi);
		return NULL;
	}
	for (size_t x = 0; x < gw; x++)
		xi[x] = (size_t)(((uint64_t)2 * x + 1) * cols / ((uint64_t)2 * gw));
	cairo_surface_flush(img);
	unsigned char *px = cairo_image_surface_get_data(img);
	int stride = cairo_image_surface_get_stride(img);
	uint32_t bad = (uint32_t)(BAD_GREY * 255) * 0x010101u;
	struct pe_norm norm = {vmin, vmax};
	size_t done = SIZE_MAX;
	for (size_t y = 0; y < gh; y++) {
		size_t r = (size_t)(((uint64_t)2 * y + 1) * rows / ((uint64_t)2 * gh));
		if (r != done) {
			for (size_t c = 0; c < cols; c++) {
				int i = pe_colormap_index(pe_norm_apply(&norm, data[r * cols + c]));
				colour[c] = i < 0 ? bad
				                  : (uint32_t)lut[i][0] << 16 |
				                            (uint32_t)lut[i][1] << 8 | lut[i][2];
			}
			done = r;
		}
		uint32_t *row = (uint32_t *)(void *)(px + (size_t)stride * y);
		for (size_t x = 0; x < gw; x++)
			row[x] = colour[xi[x]];
	}
	cairo_surface_mark_dirty(img);
	free(colour);
	free(xi);
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

/* The cells a grid callback is asked for: the raster's, but never more than the matrix has. */
static size_t grid_request(const struct fig_style *st, size_t n, double len)
{
	size_t k = raster_size(st, n, len);
	return k < n ? k : n;
}

enum pe_status heatmap_grid_update(const struct fig_style *st, struct pe_panel *p, struct rect r,
                                   bool *changed)
{
	*changed = false;
	if (p->kind != PANEL_HEATMAP || !p->hm.grid_fn)
		return PE_OK;
	size_t gh = grid_request(st, p->hm.rows, r.h), gw = grid_request(st, p->hm.cols, r.w);
	if (p->grid && p->grid_rows == gh && p->grid_cols == gw)
		return PE_OK;
	struct pe_matrix *m = NULL;
	enum pe_status s = p->hm.grid_fn(p->hm.grid_ctx, gh, gw, &m);
	if (s == PE_OK && (!m || m->rows == 0 || m->cols == 0 || m->rows > gh || m->cols > gw))
		s = PE_EINVAL;
	if (s != PE_OK) {
		pe_matrix_destroy(m);
		return s;
	}
	pe_matrix_destroy(p->grid);
	p->grid = m;
	p->grid_rows = gh;
	p->grid_cols = gw;
	/* Its range and NaNs in one pass, for the layouts to come. */
	p->grid_range = pe_norm_empty();
	pe_norm_add(&p->grid_range, m->data, m->rows * m->cols);
	p->grid_nan = false;
	for (size_t i = 0; i < m->rows * m->cols && !p->grid_nan; i++)
		p->grid_nan = isnan(m->data[i]);
	*changed = true;
	return PE_OK;
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

/* The values of a small heatmap's cells written in them (pe_heatmap_spec.cell_values). */
static void cell_values(cairo_t *cr, const struct fig_style *st, const struct pe_heatmap_spec *hm,
                        struct rect r, const uint8_t lut[256][3], double vmin, double vmax)
{
	double cw = r.w / (double)hm->cols, ch = r.h / (double)hm->rows;
	cairo_save(cr);
	text_font(cr, st, TEXT_TICK);
	double cap = text_cap(cr), widest = 0;
	char buf[32];
	for (size_t i = 0; i < hm->rows * hm->cols; i++) {
		snprintf(buf, sizeof(buf), "%g", hm->data[i]);
		widest = fmax(widest, text_width(cr, buf));
	}
	/* The tick size, or smaller down to 6 pt, so that every value fits with air around
	 * it; or no values at all. */
	double shrink = fmin(1.0, fmin(ch / (1.6 * cap), widest > 0 ? 0.8 * cw / widest : 1.0));
	double size = text_size(st, TEXT_TICK) * shrink;
	if (size < 6 * st->unit)
		goto out;
	cairo_set_font_size(cr, size);
	struct pe_norm norm = {vmin, vmax};
	for (size_t y = 0; y < hm->rows; y++)
		for (size_t x = 0; x < hm->cols; x++) {
			double v = hm->data[y * hm->cols + x];
			int k = pe_colormap_index(pe_norm_apply(&norm, v));
			/* Relative luminance (ITU-R BT.709) of the cell: dark text on light cells.
			 */
			double lum = k < 0 ? BAD_GREY
			                   : (0.2126 * lut[k][0] + 0.7152 * lut[k][1] +
			                      0.0722 * lut[k][2]) /
			                             255.0;
			double ink = lum > 0.45 ? 0.0 : 1.0;
			cairo_set_source_rgb(cr, ink, ink, ink);
			snprintf(buf, sizeof(buf), "%g", v);
			text_draw(cr, buf, r.x + ((double)x + 0.5) * cw,
			          r.y + ((double)y + 0.5) * ch, 0.5, 0.5, 0);
		}
out:
	cairo_restore(cr);
}

enum pe_status heatmap_draw(cairo_t *cr, const struct fig_style *st,
                            const struct pe_heatmap_spec *hm, struct rect r, const char *cmap,
                            double vmin, double vmax)
{
	uint8_t lut[256][3];
	if (!colormap_lut(cmap, lut))
		return PE_EINVAL;
	size_t gw = raster_size(st, hm->cols, r.w), gh = raster_size(st, hm->rows, r.h);
	if (gw > 32767 || gh > 32767)
		return PE_ERANGE;
	if (!hm->data && !hm->row_fn)
		return PE_EINVAL;
	cairo_surface_t *img;
	if (hm->data && (hm->nearest || (gw >= hm->cols && gh >= hm->rows))) {
		/* The raster's size or larger: each pixel shows its cell, no resampling. */
		img = colour_cells(hm->data, hm->rows, hm->cols, gw, gh, lut, vmin, vmax);
	} else {
		struct pe_matrix *grid;
		enum pe_status s = resample(hm, gw, gh, &grid);
		if (s != PE_OK)
			return s;
		img = colour_image(grid->data, gw, gh, lut, vmin, vmax);
		pe_matrix_destroy(grid);
	}
	if (!img)
		return PE_ENOMEM;
	if (cairo_surface_status(img) != CAIRO_STATUS_SUCCESS) {
		cairo_surface_destroy(img);
		return PE_ENOMEM;
	}
	paint_image(cr, img, gw, gh, r);
	cairo_surface_destroy(img);
	if (hm->cell_values && hm->data)
		cell_values(cr, st, hm, r, lut, vmin, vmax);
	return PE_OK;
}

double colorbar_width(const struct fig_style *st, double h)
{
	/* matplotlib: an aspect of 20, 18 px at 370 px; never thinner than a glyph. */
	return fmin(fmax(h / 20, 1.0 * st->font), 2.2 * st->font);
}

bool heatmap_has_nan(const struct pe_heatmap_spec *hm)
{
	if (!hm->data)
		return false;
	for (size_t i = 0; i < hm->rows * hm->cols; i++)
		if (isnan(hm->data[i]))
			return true;
	return false;
}

static void colorbar_axis(cairo_t *cr, const struct fig_style *st, struct axis *a, double h,
                          const struct colour_scale *sc)
{
	*a = (struct axis){.lo = sc->vmin, .hi = sc->vmax, .integer = sc->discrete};
	axis_fit_ticks(cr, st, a, h, false);
}

/* Height of the NaN swatch and the gap above it; 0 without one. */
static double swatch_h(const struct fig_style *st, const struct colour_scale *sc)
{
	return sc->nan_label ? 1.0 * st->font : 0;
}

/* The bar itself: r less the swatch at its foot. */
static struct rect bar_rect(const struct fig_style *st, const struct colour_scale *sc,
                            struct rect r)
{
	double sw = swatch_h(st, sc);
	if (sw > 0)
		r.h = fmax(1, r.h - sw - 1.2 * st->font);
	return r;
}

/* At most this many lines of a colorbar's label beside the bar. */
#define BAR_LABEL_LINES 2

/*
 * The label's lines beside a bar of height h (the label font set): wrapped to the bar's
 * height ("L2 distance (sampled)" in a 252 pt column ended "(sam…"); the short form's
 * when the label is not whole even so, none when that is "".
 */
static int bar_label_lines(cairo_t *cr, const struct fig_style *st, const struct colour_scale *sc,
                           double h, char out[][TEXT_LINE_CAP])
{
	if (!sc->label || !*sc->label)
		return 0;
	text_font(cr, st, TEXT_LABEL);
	bool cut;
	int n = text_wrap_cut(cr, sc->label, h, BAR_LABEL_LINES, out, &cut);
	if (!cut || !sc->label_short)
		return n;
	if (!*sc->label_short)
		return 0;
	return text_wrap(cr, sc->label_short, h, BAR_LABEL_LINES, out);
}

/* From one line of the bar's label to the next. */
static double bar_label_step(const struct fig_style *st)
{
	return 1.15 * text_size(st, TEXT_LABEL);
}

double colorbar_extra(cairo_t *cr, const struct fig_style *st, double h,
                      const struct colour_scale *sc)
{
	struct axis a;
	struct rect r = bar_rect(st, sc, (struct rect){0, 0, 1, h});
	colorbar_axis(cr, st, &a, r.h, sc);
	text_font(cr, st, TEXT_TICK);
	double lw = sc->empty ? 0 : axis_label_width(cr, &a);
	if (sc->nan_label)
		lw = fmax(lw, text_width(cr, sc->nan_label) - st->tick_len);
	double w = st->tick_len + st->pad + lw;
	char lines[BAR_LABEL_LINES][TEXT_LINE_CAP];
	int n = bar_label_lines(cr, st, sc, h, lines);
	if (n > 0)
		w += st->pad * 1.5 + text_size(st, TEXT_LABEL) * 1.0 + (n - 1) * bar_label_step(st);
	return w;
}

void colorbar_draw(cairo_t *cr, const struct fig_style *st, const struct colour_scale *sc,
                   struct rect whole)
{
	uint8_t lut[256][3];
	if (!colormap_lut(sc->cmap, lut))
		return;
	double vmin = sc->vmin, vmax = sc->vmax;
	struct rect r = bar_rect(st, sc, whole);
	double o = st->vector ? 0 : st->line / 2;
	if (sc->empty && sc->nan_label)
		goto swatch;
	size_t gw = st->vector ? (size_t)ceil(2 * r.w) : (size_t)fmax(1, round(r.w));
	size_t gh = st->vector ? (size_t)fmax(512, ceil(2 * r.h)) : (size_t)fmax(1, round(r.h));
	double *grid = malloc(gw * gh * sizeof(double));
	if (!grid)
		return;
	for (size_t y = 0; y < gh; y++) {
		/* Top row shows vmax; each row the value at its centre (its band's, if discrete).
		 */
		double v = vmax - ((double)y + 0.5) / (double)gh * (vmax - vmin);
		if (sc->discrete)
			v = floor(v + 0.5);
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
	cairo_rectangle(cr, r.x - o, r.y - o, r.w + 2 * o, r.h + 2 * o);
	cairo_stroke(cr);

	struct axis a;
	colorbar_axis(cr, st, &a, r.h, sc);
	axis_draw_y(cr, st, &a, r, true);
swatch:
	cairo_set_line_width(cr, st->line);
	text_font(cr, st, TEXT_TICK);
	double lw = 0;
	if (!sc->empty) {
		struct axis ax;
		colorbar_axis(cr, st, &ax, r.h, sc);
		text_font(cr, st, TEXT_TICK);
		lw = axis_label_width(cr, &ax);
	}
	if (sc->nan_label) {
		/* The NaN swatch: the engine's grey, named to its right. */
		double sw = swatch_h(st, sc);
		struct rect b = {r.x, whole.y + whole.h - sw, r.w, sw};
		cairo_set_source_rgb(cr, BAD_GREY, BAD_GREY, BAD_GREY);
		cairo_rectangle(cr, b.x, b.y, b.w, b.h);
		cairo_fill(cr);
		cairo_set_source_rgb(cr, 0, 0, 0);
		cairo_rectangle(cr, b.x - o, b.y - o, b.w + 2 * o, b.h + 2 * o);
		cairo_stroke(cr);
		text_draw(cr, sc->nan_label, b.x + b.w + st->pad, b.y + b.h / 2, 0, 0.5, 0);
		lw = fmax(lw, text_width(cr, sc->nan_label) - st->tick_len);
	}
	char lines[BAR_LABEL_LINES][TEXT_LINE_CAP];
	int n = bar_label_lines(cr, st, sc, whole.h, lines);
	for (int k = 0; k < n; k++) {
		/* Rotated, the first line is the one nearer the bar. */
		double x = r.x + r.w + st->tick_len + st->pad + lw + st->pad * 1.5 +
		           k * bar_label_step(st);
		text_draw(cr, lines[k], x, r.y + r.h / 2, 0.5, 0, FIG_PI / 2);
	}
}
