#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fig_internal.h"

/* Above this many points a scatter series is drawn as a density image. */
#define DENSITY_POINTS 20000
/* Above this many points a scatter series in PDF or SVG is drawn as an image. */
#define RASTER_POINTS 2000
/* Above this many points a raster scatter is splatted, not drawn as paths. */
#define SPLAT_POINTS 300

static bool usable(const struct axis *a, double v)
{
	return isfinite(v) && (!a->log || v > 0);
}

static void widen(double *lo, double *hi, double v)
{
	*lo = fmin(*lo, v);
	*hi = fmax(*hi, v);
}

/* Pad a data range by 5% on each side (in log space on a log axis), like matplotlib's margins. */
static void pad_range(struct axis *a, double lo, double hi)
{
	if (a->log) {
		double l = log10(lo), h = log10(hi);
		double m = h > l ? 0.05 * (h - l) : 0.5;
		a->lo = pow(10, l - m);
		a->hi = pow(10, h + m);
		return;
	}
	double m = hi > lo ? 0.05 * (hi - lo) : (lo != 0 ? 0.05 * fabs(lo) : 0.5);
	a->lo = lo - m;
	a->hi = hi + m;
}

enum pe_status xy_ranges(const struct pe_panel *p, struct axis *x, struct axis *y)
{
	*x = (struct axis){.log = p->log_x, .integer = p->int_x && !p->log_x};
	*y = (struct axis){.log = p->log_y, .integer = p->int_y && !p->log_y};
	double xlo = INFINITY, xhi = -INFINITY, ylo = INFINITY, yhi = -INFINITY;
	for (size_t s = 0; s < p->n_series; s++) {
		const struct series *se = &p->series[s];
		for (size_t i = 0; i < se->n; i++) {
			if (!usable(x, se->x[i]) || !usable(y, se->y[i]))
				continue;
			widen(&xlo, &xhi, se->x[i]);
			widen(&ylo, &yhi, se->y[i]);
		}
	}
	for (size_t i = 0; i < p->n_refs; i++) {
		const struct refline *rl = &p->refs[i];
		if (rl->vertical && usable(x, rl->value))
			widen(&xlo, &xhi, rl->value);
		if (!rl->vertical && usable(y, rl->value))
			widen(&ylo, &yhi, rl->value);
	}
	if (xlo > xhi || ylo > yhi) {
		if ((p->log_x && xlo > xhi) || (p->log_y && ylo > yhi))
			return PE_EINVAL;
		if (xlo > xhi)
			xlo = 0, xhi = 1;
		if (ylo > yhi)
			ylo = 0, yhi = 1;
	}
	pad_range(x, xlo, xhi);
	pad_range(y, ylo, yhi);
	if (!isnan(p->xlim[0]))
		x->lo = p->xlim[0], x->hi = p->xlim[1];
	if (!isnan(p->ylim[0]))
		y->lo = p->ylim[0], y->hi = p->ylim[1];
	if ((x->log && !(x->lo > 0)) || (y->log && !(y->lo > 0)))
		return PE_EINVAL;
	axis_cache_logs(x);
	axis_cache_logs(y);
	return PE_OK;
}

/* ---- legend ---- */

struct legend_metrics {
	double pad, row, sample, gap, step;
	size_t entries, lines; /* named series, and their lines (more when wrapped) */
};

/* The lines of a legend entry: its name, wrapped at p->legend_wrap when set. */
static int entry_lines(cairo_t *cr, const struct pe_panel *p, const char *name,
                       char out[][TEXT_LINE_CAP])
{
	if (p->legend_wrap > 0)
		return text_wrap(cr, name, p->legend_wrap, TEXT_MAX_LINES, out);
	snprintf(out[0], TEXT_LINE_CAP, "%s", name);
	return 1;
}

/* Spacing of the legend; with cr (its font set), also how many lines its entries take. */
static void legend_metrics(cairo_t *cr, const struct fig_style *st, const struct pe_panel *p,
                           struct legend_metrics *m)
{
	double size = text_size(st, TEXT_LEGEND);
	m->pad = 0.5 * size;
	m->row = 1.4 * size;
	m->step = 1.15 * size; /* between the lines of one wrapped entry */
	m->sample = 2.2 * size;
	m->gap = 0.6 * size;
	m->entries = m->lines = 0;
	for (size_t s = 0; s < p->n_series; s++)
		if (p->series[s].name) {
			char out[TEXT_MAX_LINES][TEXT_LINE_CAP];
			m->entries++;
			m->lines += cr ? (size_t)entry_lines(cr, p, p->series[s].name, out) : 1;
		}
}

void xy_legend_size(cairo_t *cr, const struct fig_style *st, const struct pe_panel *p, double *w,
                    double *h)
{
	struct legend_metrics m;
	text_font(cr, st, TEXT_LEGEND);
	legend_metrics(cr, st, p, &m);
	*w = *h = 0;
	if (m.entries == 0)
		return;
	double tw = 0;
	for (size_t s = 0; s < p->n_series; s++) {
		if (!p->series[s].name)
			continue;
		char out[TEXT_MAX_LINES][TEXT_LINE_CAP];
		int n = entry_lines(cr, p, p->series[s].name, out);
		for (int k = 0; k < n; k++)
			tw = fmax(tw, text_width(cr, out[k]));
	}
	*w = 2 * m.pad + m.sample + m.gap + tw;
	*h = 2 * m.pad + (double)m.entries * m.row - (m.row - text_size(st, TEXT_LEGEND)) +
	     (double)(m.lines - m.entries) * m.step;
}

void xy_legend_fit(cairo_t *cr, const struct fig_style *st, struct pe_panel *p, double max_w)
{
	double w, h;
	p->legend_wrap = 0;
	xy_legend_size(cr, st, p, &w, &h);
	if (w <= max_w)
		return;
	struct legend_metrics m;
	legend_metrics(NULL, st, p, &m);
	/* Not narrower than a few words: a long entry then takes its three lines, cut. */
	p->legend_wrap =
	        fmax(8 * text_size(st, TEXT_LEGEND), max_w - (2 * m.pad + m.sample + m.gap));
}

static void set_dash(cairo_t *cr, size_t i, double w)
{
	/* matplotlib's scaled dash patterns: solid, dashed, dash-dot, dotted. */
	static const double dashed[] = {3.7, 1.6}, dashdot[] = {6.4, 1.6, 1.0, 1.6},
	                    dotted[] = {1.0, 1.65};
	double pat[4];
	const double *src = NULL;
	int n = 0;
	switch (i % 4) {
	case 1:
		src = dashed, n = 2;
		break;
	case 2:
		src = dashdot, n = 4;
		break;
	case 3:
		src = dotted, n = 2;
		break;
	default:
		break;
	}
	for (int k = 0; k < n; k++)
		pat[k] = src[k] * w;
	cairo_set_dash(cr, pat, n, 0);
}

static double line_width(const struct fig_style *st)
{
	return st->font * 0.15; /* matplotlib: 1.5 pt lines with 10 pt text */
}

static double marker_radius(const struct fig_style *st, size_t n)
{
	double r = st->font * 0.22;
	return n > 2000 ? r * 0.7 : r;
}

static double marker_alpha(size_t n)
{
	return n <= 300 ? 0.9 : fmax(0.08, fmin(0.9, 16 / sqrt((double)n)));
}

/* Legend positions, tried in matplotlib's order of preference. */
static const double legend_spots[9][2] = {
        {1, 0}, {0, 0}, {0, 1}, {1, 1}, {1, 0.5}, {0, 0.5}, {0.5, 1}, {0.5, 0}, {0.5, 0.5},
};

static struct rect legend_rect(struct rect r, double w, double h, const double spot[2],
                               double inset)
{
	return (struct rect){
	        .x = r.x + inset + spot[0] * (r.w - w - 2 * inset),
	        .y = r.y + inset + spot[1] * (r.h - h - 2 * inset),
	        .w = w,
	        .h = h,
	};
}

static bool in_rect(struct rect b, double px, double py)
{
	return px >= b.x && px <= b.x + b.w && py >= b.y && py <= b.y + b.h;
}

/* Sample j of k along the segment from (x0, y0) to (x1, y1), as the count takes it. */
static void sample_at(double x0, double y0, double x1, double y1, size_t j, size_t k, double *x,
                      double *y)
{
	double f = (double)j / (double)k;
	*x = x0 + f * (x1 - x0);
	*y = y0 + f * (y1 - y0);
}

/* Whether sample j is on the inner side of edge @e (0 left, 1 right, 2 top, 3 bottom) of b. */
static bool sample_within(struct rect b, int e, double x0, double y0, double x1, double y1,
                          size_t j, size_t k)
{
	double x, y;
	sample_at(x0, y0, x1, y1, j, k, &x, &y);
	return e == 0 ? x >= b.x : e == 1 ? x <= b.x + b.w : e == 2 ? y >= b.y : y <= b.y + b.h;
}

/*
 * How many of the samples j = 1..k of a segment fall in b, the same count as testing
 * each: every coordinate of sample j is monotone in j (j / k, a product by a fixed
 * difference and a sum are each monotone when rounded), so each edge keeps a prefix
 * or a suffix of the samples, found by halving, and b their intersection. A vertical
 * stroke of a dense sine is a few hundred samples; this is a few dozen tests.
 */
static size_t samples_inside(struct rect b, double x0, double y0, double x1, double y1, size_t k)
{
	if (k <= 16) {
		size_t hits = 0;
		for (size_t j = 1; j <= k; j++) {
			double x, y;
			sample_at(x0, y0, x1, y1, j, k, &x, &y);
			hits += in_rect(b, x, y);
		}
		return hits;
	}
	size_t lo = 1, hi = k;
	for (int e = 0; e < 4 && lo <= hi; e++) {
		bool first = sample_within(b, e, x0, y0, x1, y1, 1, k);
		bool last = sample_within(b, e, x0, y0, x1, y1, k, k);
		if (first && last)
			continue;
		if (!first && !last)
			return 0;
		/* the boundary: the first sample on the other side than sample 1 */
		size_t a = 1, z = k;
		while (z - a > 1) {
			size_t mid = a + (z - a) / 2;
			if (sample_within(b, e, x0, y0, x1, y1, mid, k) == first)
				a = mid;
			else
				z = mid;
		}
		if (first)
			hi = hi < a ? hi : a; /* samples 1..a inside this edge */
		else
			lo = lo > z ? lo : z; /* samples z..k */
	}
	return lo <= hi ? hi - lo + 1 : 0;
}

size_t xy_covered(const struct pe_panel *p, const struct axis *x, const struct axis *y,
                  struct rect r, struct rect b, double step, size_t enough)
{
	size_t hits = 0;
	/* x maps to pixels left to right (not a reversed axis) */
	bool increasing = axis_map(x, x->log ? 1.0 : 0.0, r.x, r.w) <
	                  axis_map(x, x->log ? 10.0 : 1.0, r.x, r.w);
	/* Past @enough hits a spot cannot beat the best one so far: counting on would
	 * only cost time (8 curves of 10^6 points, nine spots: seconds). */
	for (size_t s = 0; s < p->n_series && hits < enough; s++) {
		const struct series *se = &p->series[s];
		double px0 = NAN, py0 = NAN;
		size_t from = 0;
		bool windowed = se->x_ascending && increasing;
		if (windowed) {
			/* Only samples from the last one left of b to the first one right of it
			 * can fall in b: the first index at or right of b.x, by halving (on a
			 * log axis the unusable x <= 0 all come first), less one. */
			size_t lo = 0, hi = se->n;
			while (lo < hi) {
				size_t mid = lo + (hi - lo) / 2;
				if (usable(x, se->x[mid]) &&
				    axis_map(x, se->x[mid], r.x, r.w) >= b.x)
					hi = mid;
				else
					lo = mid + 1;
			}
			from = lo > 0 ? lo - 1 : 0;
		}
		for (size_t i = from; i < se->n && hits < enough; i++) {
			if (!usable(x, se->x[i]) || !usable(y, se->y[i])) {
				px0 = NAN;
				continue;
			}
			double px = axis_map(x, se->x[i], r.x, r.w);
			double py = axis_map(y, se->y[i], r.y + r.h, -r.h);
			if (se->points || isnan(px0)) {
				hits += in_rect(b, px, py);
			} else if (fmax(px, px0) < b.x || fmin(px, px0) > b.x + b.w ||
			           fmax(py, py0) < b.y || fmin(py, py0) > b.y + b.h) {
				/* The segment's samples lie in its bounding box, clear of b: no
				 * hits. */
			} else {
				double len = hypot(px - px0, py - py0);
				size_t k = (size_t)fmin(1e4, ceil(len / step));
				hits += samples_inside(b, px0, py0, px, py, k);
			}
			px0 = px, py0 = py;
			if (windowed && px > b.x + b.w)
				break; /* every later sample is right of b too */
		}
	}
	for (size_t i = 0; i < p->n_refs; i++) {
		const struct refline *rl = &p->refs[i];
		if (rl->vertical) {
			double px = axis_map(x, rl->value, r.x, r.w);
			hits += px >= b.x && px <= b.x + b.w;
		} else {
			double py = axis_map(y, rl->value, r.y + r.h, -r.h);
			hits += py >= b.y && py <= b.y + b.h;
		}
	}
	return hits;
}

static bool best_spot(cairo_t *cr, const struct fig_style *st, const struct pe_panel *p,
                      const struct axis *x, const struct axis *y, struct rect r, struct rect *out)
{
	double w, h;
	xy_legend_size(cr, st, p, &w, &h);
	double inset = 0.5 * st->font;
	if (w == 0 || w + 2 * inset > r.w || h + 2 * inset > r.h)
		return false;
	size_t least = SIZE_MAX;
	for (size_t k = 0; k < 9; k++) {
		struct rect b = legend_rect(r, w, h, legend_spots[k], inset);
		/* Keep a little air around the box free of data too. */
		struct rect g = {b.x - inset / 2, b.y - inset / 2, b.w + inset, b.h + inset};
		size_t c = xy_covered(p, x, y, r, g, 1.0, least);
		if (c < least) {
			least = c;
			*out = b;
		}
		if (c == 0)
			return true;
	}
	return false;
}

bool xy_legend_inside(cairo_t *cr, const struct fig_style *st, const struct pe_panel *p,
                      const struct axis *x, const struct axis *y, struct rect r)
{
	struct rect b;
	double w, h;
	xy_legend_size(cr, st, p, &w, &h);
	return w == 0 || best_spot(cr, st, p, x, y, r, &b);
}

static void draw_legend(cairo_t *cr, const struct fig_style *st, const struct pe_panel *p,
                        struct rect b)
{
	struct legend_metrics m;
	text_font(cr, st, TEXT_LEGEND);
	legend_metrics(cr, st, p, &m);
	cairo_rectangle(cr, b.x, b.y, b.w, b.h);
	cairo_set_source_rgba(cr, 1, 1, 1, 0.85);
	cairo_fill_preserve(cr);
	cairo_set_source_rgb(cr, 0.8, 0.8, 0.8);
	cairo_set_line_width(cr, st->line);
	cairo_stroke(cr);
	text_font(cr, st, TEXT_LEGEND);
	double cy = b.y + m.pad + text_size(st, TEXT_LEGEND) / 2;
	for (size_t s = 0; s < p->n_series; s++) {
		const struct series *se = &p->series[s];
		if (!se->name)
			continue;
		struct rgb c = series_color(s);
		double x0 = b.x + m.pad;
		if (se->points) {
			cairo_set_source_rgb(cr, c.r, c.g, c.b);
			cairo_arc(cr, x0 + m.sample / 2, cy, marker_radius(st, 0) * 1.3, 0,
			          2 * FIG_PI);
			cairo_fill(cr);
		} else {
			cairo_set_source_rgb(cr, c.r, c.g, c.b);
			cairo_set_line_width(cr, line_width(st));
			set_dash(cr, s, line_width(st));
			cairo_move_to(cr, x0, cy);
			cairo_line_to(cr, x0 + m.sample, cy);
			cairo_stroke(cr);
			cairo_set_dash(cr, NULL, 0, 0);
		}
		cairo_set_source_rgb(cr, 0, 0, 0);
		char out[TEXT_MAX_LINES][TEXT_LINE_CAP];
		int n = entry_lines(cr, p, se->name, out);
		for (int k = 0; k < n; k++)
			text_draw(cr, out[k], x0 + m.sample + m.gap, cy + k * m.step, 0, 0.5, 0);
		cy += m.row + (n - 1) * m.step;
	}
}

/* ---- data ---- */

struct vertex {
	size_t i;
	double x, y;
};

struct column {
	bool open;
	double at;
	struct vertex v[4]; /* first, lowest, highest, last */
};

static void path_to(cairo_t *cr, struct vertex v, bool *pen)
{
	if (*pen)
		cairo_line_to(cr, v.x, v.y);
	else
		cairo_move_to(cr, v.x, v.y);
	*pen = true;
}

/* The column's points in their original order, each once. */
static void column_flush(cairo_t *cr, struct column *c, bool *pen)
{
	if (!c->open)
		return;
	c->open = false;
	struct vertex *v = c->v;
	for (int a = 1; a < 4; a++)
		for (int b = a; b > 0 && v[b].i < v[b - 1].i; b--) {
			struct vertex t = v[b];
			v[b] = v[b - 1];
			v[b - 1] = t;
		}
	for (int k = 0; k < 4; k++)
		if (k == 0 || v[k].i != v[k - 1].i)
			path_to(cr, v[k], pen);
}

static void draw_line(cairo_t *cr, const struct fig_style *st, const struct series *se, size_t idx,
                      const struct axis *x, const struct axis *y, struct rect r)
{
	struct rgb c = series_color(idx);
	cairo_set_source_rgb(cr, c.r, c.g, c.b);
	cairo_set_line_width(cr, line_width(st));
	cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
	set_dash(cr, idx, line_width(st));
	/*
	 * Many more points than device units across: per unit-wide column only
	 * the first, lowest, highest and last point (M4), which draws the same
	 * ink and keeps a 10^5-point curve small in SVG and PDF. Its joins are
	 * then less than a device unit apart, where a round join's arc differs
	 * from a bevel by under half a pixel but costs cairo a polygon per
	 * vertex (a tenth of a dense decay figure's CPU): bevels.
	 */
	bool dense = (double)se->n > 4 * r.w, pen = false;
	if (dense)
		cairo_set_line_join(cr, CAIRO_LINE_JOIN_BEVEL);
	struct column col = {.open = false};
	for (size_t i = 0; i < se->n; i++) {
		if (!usable(x, se->x[i]) || !usable(y, se->y[i])) {
			column_flush(cr, &col, &pen);
			pen = false;
			continue;
		}
		struct vertex v = {i, axis_map(x, se->x[i], r.x, r.w),
		                   axis_map(y, se->y[i], r.y + r.h, -r.h)};
		if (!dense) {
			path_to(cr, v, &pen);
		} else if (col.open && floor(v.x) == col.at) {
			col.v[3] = v;
			if (v.y < col.v[1].y)
				col.v[1] = v;
			if (v.y > col.v[2].y)
				col.v[2] = v;
		} else {
			column_flush(cr, &col, &pen);
			col = (struct column){.open = true, .at = floor(v.x), .v = {v, v, v, v}};
		}
	}
	column_flush(cr, &col, &pen);
	cairo_stroke(cr);
	cairo_set_dash(cr, NULL, 0, 0);
	/* A point with no usable neighbour draws no segment: show it as a dot. */
	for (size_t i = 0; i < se->n; i++) {
		bool prev = i > 0 && usable(x, se->x[i - 1]) && usable(y, se->y[i - 1]);
		bool next = i + 1 < se->n && usable(x, se->x[i + 1]) && usable(y, se->y[i + 1]);
		if (prev || next || !usable(x, se->x[i]) || !usable(y, se->y[i]))
			continue;
		cairo_new_sub_path(cr);
		cairo_arc(cr, axis_map(x, se->x[i], r.x, r.w),
		          axis_map(y, se->y[i], r.y + r.h, -r.h), 1.5 * line_width(st), 0,
		          2 * FIG_PI);
		cairo_fill(cr);
	}
}

void xy_draw_points(cairo_t *cr, const struct fig_style *st, const struct series *se, size_t idx,
                    const struct axis *x, const struct axis *y, struct rect r)
{
	struct rgb c = series_color(idx);
	double rad = marker_radius(st, se->n);
	cairo_set_source_rgba(cr, c.r, c.g, c.b, marker_alpha(se->n));
	for (size_t i = 0; i < se->n; i++) {
		if (!usable(x, se->x[i]) || !usable(y, se->y[i]))
			continue;
		double px = axis_map(x, se->x[i], r.x, r.w);
		double py = axis_map(y, se->y[i], r.y + r.h, -r.h);
		cairo_new_sub_path(cr);
		cairo_arc(cr, px, py, rad, 0, 2 * FIG_PI);
		cairo_fill(cr);
	}
}

/*
 * Raster output: the markers splatted into a transmittance buffer of the
 * axes' device pixels and composited once, instead of one cairo path and
 * fill per point (which was half of `compare`'s time). Every marker has the
 * series' colour and alpha, so n markers over a pixel leave it
 * 1 - prod(1 - alpha coverage) of the colour whatever their order: the same
 * "over" compositing cairo does, with the coverage of a disc of radius R at
 * a pixel centre taken as clamp(R + 1/2 - distance, 0, 1) (one pixel of
 * antialiasing ramp). @return false (nothing drawn) when it cannot: not an
 * axis-aligned scale, no memory; the caller then draws paths.
 */
bool xy_splat_points(cairo_t *cr, const struct fig_style *st, const struct series *se, size_t idx,
                     const struct axis *x, const struct axis *y, struct rect r)
{
	double sx = 1, sy = 0, tx = 0, ty = 1;
	cairo_user_to_device_distance(cr, &sx, &sy);
	cairo_user_to_device_distance(cr, &tx, &ty);
	if (sy != 0 || tx != 0 || sx <= 0 || ty <= 0)
		return false;
	double ox = r.x, oy = r.y;
	cairo_user_to_device(cr, &ox, &oy);
	ox = floor(ox);
	oy = floor(oy);
	double ex = r.x + r.w, ey = r.y + r.h;
	cairo_user_to_device(cr, &ex, &ey);
	int w = (int)ceil(ex - ox) + 1, h = (int)ceil(ey - oy) + 1;
	if (w <= 0 || h <= 0 || w > 32767 || h > 32767)
		return false;
	float *T = malloc((size_t)w * (size_t)h * sizeof(float));
	if (!T)
		return false;
	for (size_t k = 0; k < (size_t)w * (size_t)h; k++)
		T[k] = 1.0f;
	double R = marker_radius(st, se->n) * sx, a = marker_alpha(se->n);
	/* Device = user * (sx, ty) + (dx, dy): one affine map, not a call per point. */
	double dx0 = 0, dy0 = 0;
	cairo_user_to_device(cr, &dx0, &dy0);
	/* Pixels nearer than R - 1/2 are fully covered, those past R + 1/2 not at
	 * all: only the ring between needs the square root. */
	double inner = R > 0.5 ? (R - 0.5) * (R - 0.5) : -1, outer = (R + 0.5) * (R + 0.5);
	float full = (float)(1 - a);
	for (size_t i = 0; i < se->n; i++) {
		if (!usable(x, se->x[i]) || !usable(y, se->y[i]))
			continue;
		double px = axis_map(x, se->x[i], r.x, r.w) * sx + dx0 - ox,
		       py = axis_map(y, se->y[i], r.y + r.h, -r.h) * ty + dy0 - oy;
		int x0 = (int)floor(px - R - 1), x1 = (int)ceil(px + R + 1);
		int y0 = (int)floor(py - R - 1), y1 = (int)ceil(py + R + 1);
		x0 = x0 < 0 ? 0 : x0;
		y0 = y0 < 0 ? 0 : y0;
		x1 = x1 > w ? w : x1;
		y1 = y1 > h ? h : y1;
		for (int j = y0; j < y1; j++) {
			double dy = j + 0.5 - py;
			float *row = T + (size_t)j * (size_t)w;
			for (int k = x0; k < x1; k++) {
				double dx = k + 0.5 - px, d2 = dx * dx + dy * dy;
				if (d2 >= outer)
					continue;
				if (d2 <= inner) {
					row[k] *= full;
					continue;
				}
				double cov = R + 0.5 - sqrt(d2);
				if (cov > 0)
					row[k] *= (float)(1 - a * (cov < 1 ? cov : 1));
			}
		}
	}
	cairo_surface_t *img = image_surface(CAIRO_FORMAT_ARGB32, w, h);
	if (cairo_surface_status(img) != CAIRO_STATUS_SUCCESS) {
		cairo_surface_destroy(img);
		free(T);
		return false;
	}
	cairo_surface_flush(img);
	struct rgb c = series_color(idx);
	unsigned char *px = cairo_image_surface_get_data(img);
	int stride = cairo_image_surface_get_stride(img);
	for (int j = 0; j < h; j++) {
		uint32_t *row = (uint32_t *)(void *)(px + (size_t)stride * (size_t)j);
		for (int k = 0; k < w; k++) {
			float t = T[(size_t)j * (size_t)w + (size_t)k];
			if (t == 1.0f) {
				row[k] = 0; /* untouched: transparent */
				continue;
			}
			/* Rounded half up: lround() for these non-negative values. */
			double al = 1.0 - t;
			uint32_t A = (uint32_t)(al * 255 + 0.5);
			uint32_t cr8 = (uint32_t)(c.r * al * 255 + 0.5),
			         cg8 = (uint32_t)(c.g * al * 255 + 0.5);
			uint32_t cb8 = (uint32_t)(c.b * al * 255 + 0.5);
			row[k] = A << 24 | cr8 << 16 | cg8 << 8 | cb8;
		}
	}
	cairo_surface_mark_dirty(img);
	free(T);
	cairo_save(cr);
	cairo_identity_matrix(cr);
	cairo_set_source_surface(cr, img, ox, oy);
	cairo_paint(cr);
	cairo_restore(cr);
	cairo_surface_destroy(img);
	return true;
}

/*
 * Very many points: count them in cells one marker radius wide and draw one
 * marker per occupied cell, shaded by the log of its count, so both the
 * dense core and single outliers stay visible and markers still touch where
 * the data is continuous. One path per shade level keeps vector output small.
 */
static void draw_density(cairo_t *cr, const struct fig_style *st, const struct series *se,
                         size_t idx, const struct axis *x, const struct axis *y, struct rect r)
{
	double rad = marker_radius(st, se->n), cell = rad;
	size_t nx = (size_t)ceil(r.w / cell), ny = (size_t)ceil(r.h / cell);
	unsigned *count = calloc(nx * ny, sizeof(unsigned));
	if (!count) {
		xy_draw_points(cr, st, se, idx, x, y, r);
		return;
	}
	unsigned most = 0;
	for (size_t i = 0; i < se->n; i++) {
		if (!usable(x, se->x[i]) || !usable(y, se->y[i]))
			continue;
		double px = (axis_map(x, se->x[i], r.x, r.w) - r.x) / cell;
		double py = (axis_map(y, se->y[i], r.y + r.h, -r.h) - r.y) / cell;
		if (px < 0 || py < 0 || px >= (double)nx || py >= (double)ny)
			continue;
		unsigned *c = &count[(size_t)py * nx + (size_t)px];
		(*c)++;
		if (*c > most)
			most = *c;
	}
	struct rgb c = series_color(idx);
	const int levels = 12;
	for (int l = 0; l < levels; l++) {
		bool any = false;
		for (size_t k = 0; k < nx * ny; k++) {
			if (!count[k])
				continue;
			double f = most > 1 ? log1p(count[k]) / log1p(most) : 1;
			int lv = (int)fmin(levels - 1, floor(f * levels));
			if (lv != l)
				continue;
			double cx = r.x + ((double)(k % nx) + 0.5) * cell;
			double cy = r.y + ((double)(k / nx) + 0.5) * cell;
			cairo_new_sub_path(cr);
			cairo_arc(cr, cx, cy, rad, 0, 2 * FIG_PI);
			any = true;
		}
		if (any) {
			cairo_set_source_rgba(cr, c.r, c.g, c.b, 0.3 + 0.7 * (l + 1) / levels);
			cairo_fill(cr);
		}
	}
	free(count);
}

static void draw_refs(cairo_t *cr, const struct fig_style *st, const struct pe_panel *p,
                      const struct axis *x, const struct axis *y, struct rect r)
{
	double dash[2] = {4 * st->line, 3 * st->line};
	for (size_t i = 0; i < p->n_refs; i++) {
		const struct refline *rl = &p->refs[i];
		const struct axis *a = rl->vertical ? x : y;
		double lo = fmin(a->lo, a->hi), hi = fmax(a->lo, a->hi);
		if (!(rl->value >= lo && rl->value <= hi))
			continue;
		cairo_set_source_rgb(cr, 0.35, 0.35, 0.35);
		cairo_set_line_width(cr, st->line * 1.2);
		cairo_set_dash(cr, dash, 2, 0);
		double pos;
		if (rl->vertical) {
			pos = axis_map(x, rl->value, r.x, r.w);
			cairo_move_to(cr, pos, r.y);
			cairo_line_to(cr, pos, r.y + r.h);
		} else {
			pos = axis_map(y, rl->value, r.y + r.h, -r.h);
			cairo_move_to(cr, r.x, pos);
			cairo_line_to(cr, r.x + r.w, pos);
		}
		cairo_stroke(cr);
		cairo_set_dash(cr, NULL, 0, 0);
	}
}

static bool overlaps(struct rect a, struct rect b)
{
	return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
}

/*
 * Labels of the reference lines, each beside its line where it hides the
 * least data: along a vertical line at the top, a third, two thirds or the
 * bottom of the axes, on either side; over or under a horizontal line at
 * its right, middle or left. Where a curve must pass under a label, a
 * translucent halo keeps both readable. A label that would cover the
 * legend or another label everywhere, or is longer than the axes, is left
 * out: a clash would make both unreadable.
 */
static void draw_ref_labels(cairo_t *cr, const struct fig_style *st, const struct pe_panel *p,
                            const struct axis *x, const struct axis *y, struct rect r,
                            struct rect legend)
{
	struct rect taken[64];
	size_t n_taken = 0;
	if (legend.w > 0)
		taken[n_taken++] = legend;
	for (size_t i = 0; i < p->n_refs && n_taken < 64; i++) {
		const struct refline *rl = &p->refs[i];
		const struct axis *a = rl->vertical ? x : y;
		double lo = fmin(a->lo, a->hi), hi = fmax(a->lo, a->hi);
		if (!rl->label || !(rl->value >= lo && rl->value <= hi))
			continue;
		double pos = rl->vertical ? axis_map(x, rl->value, r.x, r.w)
		                          : axis_map(y, rl->value, r.y + r.h, -r.h);
		text_font(cr, st, TEXT_TICK);
		double gap = st->pad;
		double cap = text_cap(cr), halo = 0.25 * cap, desc = 0.33 * cap;
		struct rect best = {0};
		double btx = 0, bty = 0, bva = 0;
		size_t best_hits = SIZE_MAX;
		/* The label, or where it finds no room its words before a parenthesis ("critical
		 * pair" of "critical pair (dim 68)" beside a short axes): a line left unlabelled
		 * says nothing of what it marks. */
		char *label = strdup(rl->label);
		if (!label)
			continue; /* out of memory: the line unlabelled, the figure still drawn */
		for (int form = 0; form < 2 && best_hits == SIZE_MAX; form++) {
			if (form == 1) {
				char *paren = strstr(label, " (");
				if (!paren || paren == label)
					break;
				*paren = '\0';
			}
			double w = text_width(cr, label);
			if (w + 2 * gap > (rl->vertical ? r.h : r.w))
				continue;
			static const double along[] = {0, 1.0 / 3, 2.0 / 3, 1};
			for (int k = 0; k < 8; k++) {
				struct rect box;
				double tx, ty, va;
				if (rl->vertical) {
					bool left = (k & 1) != 0;
					double f = along[k / 2];
					tx = left ? pos - gap : pos + gap;
					ty = r.y + gap + f * (r.h - 2 * gap - w);
					va = left ? 1 : 0;
					box = (struct rect){left ? tx - cap : tx, ty, cap + desc,
					                    w};
				} else {
					if (k >= 6)
						break;
					bool below = (k & 1) != 0;
					double f = k / 2 == 0 ? 1 : k / 2 == 1 ? 0.5 : 0;
					tx = r.x + gap + w + f * (r.w - 2 * gap - w);
					ty = below ? pos + gap : pos - gap;
					va = below ? 0 : 1;
					box = (struct rect){tx - w, below ? ty : ty - cap, w,
					                    cap + desc};
				}
				if (box.x < r.x || box.x + box.w > r.x + r.w || box.y < r.y ||
				    box.y + box.h > r.y + r.h)
					continue;
				struct rect padded = {box.x - halo, box.y - halo, box.w + 2 * halo,
				                      box.h + 2 * halo};
				bool free_of_text = true;
				for (size_t t = 0; t < n_taken && free_of_text; t++)
					free_of_text = !overlaps(padded, taken[t]);
				if (!free_of_text)
					continue;
				size_t hits =
				        xy_covered(p, x, y, r, box, 0.25 * st->font, best_hits);
				if (hits < best_hits) {
					best_hits = hits;
					best = box;
					btx = tx, bty = ty, bva = va;
				}
				if (hits == 0)
					break;
			}
		}
		if (best_hits == SIZE_MAX) {
			free(label);
			continue;
		}
		taken[n_taken++] = (struct rect){best.x - halo, best.y - halo, best.w + 2 * halo,
		                                 best.h + 2 * halo};
		cairo_set_source_rgba(cr, 1, 1, 1, 0.75);
		cairo_rectangle(cr, best.x - halo, best.y - halo, best.w + 2 * halo,
		                best.h + 2 * halo);
		cairo_fill(cr);
		cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
		text_draw(cr, label, btx, bty, 1, bva, rl->vertical ? FIG_PI / 2 : 0);
		free(label);
	}
}

static void draw_scatter(cairo_t *cr, const struct fig_style *st, const struct series *se,
                         size_t idx, const struct axis *x, const struct axis *y, struct rect r)
{
	if (se->n > DENSITY_POINTS)
		draw_density(cr, st, se, idx, x, y, r);
	else if (st->vector || se->n <= SPLAT_POINTS || !xy_splat_points(cr, st, se, idx, x, y, r))
		xy_draw_points(cr, st, se, idx, x, y, r);
}

/*
 * Thousands of translucent markers as vector paths make a PDF or SVG of
 * megabytes that viewers draw slowly; like matplotlib's rasterized=True they
 * are drawn into an image at three times the output resolution instead,
 * while axes, text and lines stay vector.
 */
static void draw_scatter_raster(cairo_t *cr, const struct fig_style *st, const struct series *se,
                                size_t idx, const struct axis *x, const struct axis *y,
                                struct rect r)
{
	const double k = 3;
	int w = (int)ceil(r.w * k), h = (int)ceil(r.h * k);
	cairo_surface_t *img = image_surface(CAIRO_FORMAT_ARGB32, w, h);
	cairo_t *ic = cairo_create(img);
	if (cairo_status(ic) != CAIRO_STATUS_SUCCESS) {
		cairo_destroy(ic);
		cairo_surface_destroy(img);
		draw_scatter(cr, st, se, idx, x, y, r);
		return;
	}
	cairo_scale(ic, k, k);
	cairo_translate(ic, -r.x, -r.y);
	struct fig_style raster = *st;
	raster.vector = false;
	draw_scatter(ic, &raster, se, idx, x, y, r);
	cairo_destroy(ic);
	cairo_save(cr);
	cairo_translate(cr, r.x, r.y);
	cairo_scale(cr, 1 / k, 1 / k);
	cairo_set_source_surface(cr, img, 0, 0);
	cairo_paint(cr);
	cairo_restore(cr);
	cairo_surface_destroy(img);
}

/* Whether two boxes overlap. */
static bool boxes_meet(struct rect a, struct rect b)
{
	return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
}

/*
 * Each labelled point's text beside it, on the side away from the centre of
 * the series' points, or failing that towards it; kept inside the axes, and
 * left out rather than drawn over another label.
 */
static void draw_point_labels(cairo_t *cr, const struct fig_style *st, const struct series *se,
                              const struct axis *x, const struct axis *y, struct rect r)
{
	double cx = 0, cy = 0, m = 0;
	for (size_t i = 0; i < se->n; i++)
		if (usable(x, se->x[i]) && usable(y, se->y[i])) {
			cx += axis_map(x, se->x[i], r.x, r.w);
			cy += axis_map(y, se->y[i], r.y + r.h, -r.h);
			m++;
		}
	if (m == 0)
		return;
	cx /= m;
	cy /= m;
	text_font(cr, st, TEXT_TICK);
	double cap = text_cap(cr), gap = marker_radius(st, se->n) + 0.3 * st->font;
	double desc = 0.24 * text_size(st, TEXT_TICK); /* DejaVu's descent, below the digits */
	struct rect *drawn = malloc(se->n * sizeof(*drawn));
	if (!drawn)
		return;
	size_t nd = 0;
	cairo_set_source_rgb(cr, 0.15, 0.15, 0.15);
	for (size_t i = 0; i < se->n; i++) {
		if (!se->labels[i] || !usable(x, se->x[i]) || !usable(y, se->y[i]))
			continue;
		double px = axis_map(x, se->x[i], r.x, r.w);
		double py = axis_map(y, se->y[i], r.y + r.h, -r.h);
		double dx = px - cx, dy = py - cy, len = hypot(dx, dy);
		if (len == 0)
			dx = 1, dy = -1, len = sqrt(2.0);
		dx /= len, dy /= len;
		double w = text_width(cr, se->labels[i]);
		for (int side = 1; side >= -1; side -= 2) {
			/* The text's centre, a gap from the point along +-(dx, dy). */
			double tx = px + side * (gap * dx + 0.5 * w * dx);
			double ty = py + side * (gap * dy + 0.5 * cap * dy);
			tx = fmin(fmax(tx, r.x + 0.5 * w), r.x + r.w - 0.5 * w);
			ty = fmin(fmax(ty, r.y + 0.5 * cap), r.y + r.h - 0.5 * cap - desc);
			struct rect b = {tx - 0.5 * w, ty - 0.5 * cap, w, cap + desc};
			/* A little air between labels, as between tick labels. */
			struct rect g = {b.x - 0.15 * cap, b.y - 0.15 * cap, b.w + 0.3 * cap,
			                 b.h + 0.3 * cap};
			bool clear = true;
			for (size_t k = 0; k < nd && clear; k++)
				clear = !boxes_meet(g, drawn[k]);
			if (!clear)
				continue;
			text_draw(cr, se->labels[i], tx, ty, 0.5, 0.5, 0);
			drawn[nd++] = b;
			break;
		}
	}
	free(drawn);
}

void xy_draw(cairo_t *cr, const struct fig_style *st, const struct pe_panel *p,
             const struct axis *x, const struct axis *y, struct rect r,
             const struct rect *legend_at)
{
	cairo_save(cr);
	cairo_rectangle(cr, r.x, r.y, r.w, r.h);
	cairo_clip(cr);
	draw_refs(cr, st, p, x, y, r);
	for (size_t s = 0; s < p->n_series; s++) {
		const struct series *se = &p->series[s];
		if (!se->points)
			draw_line(cr, st, se, s, x, y, r);
		else if (st->vector && se->n > RASTER_POINTS)
			draw_scatter_raster(cr, st, se, s, x, y, r);
		else
			draw_scatter(cr, st, se, s, x, y, r);
	}
	cairo_restore(cr);
	for (size_t s = 0; s < p->n_series; s++)
		if (p->series[s].labels)
			draw_point_labels(cr, st, &p->series[s], x, y, r);

	double w, h;
	xy_legend_size(cr, st, p, &w, &h);
	struct rect b = legend_at ? *legend_at : (struct rect){r.x + r.w + st->font, r.y, w, h};
	if (w > 0 && !legend_at) {
		/*
		 * Where it hides nothing, or failing that, the least; a legend
		 * larger than the axes (a cramped grid cell) still goes in
		 * their top right corner, never off the canvas.
		 */
		b = legend_rect(r, w, h, legend_spots[0], 0.5 * st->font);
		best_spot(cr, st, p, x, y, r, &b);
	}
	draw_ref_labels(cr, st, p, x, y, r, w > 0 ? b : (struct rect){0});
	if (w > 0)
		draw_legend(cr, st, p, b);
}
