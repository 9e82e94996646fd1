#include <math.h>
#include <string.h>

#include "fig_internal.h"

void axis_cache_logs(struct axis *a)
{
	if (!a->log)
		return;
	a->log_lo = log10(a->lo);
	a->log_hi = log10(a->hi);
	a->log_of[0] = a->lo;
	a->log_of[1] = a->hi;
}

double axis_map(const struct axis *a, double v, double from, double length)
{
	double f;
	if (a->log) {
		int kept = a->log_of[0] == a->lo && a->log_of[1] == a->hi;
		double l0 = kept ? a->log_lo : log10(a->lo), l1 = kept ? a->log_hi : log10(a->hi);
		f = (log10(v) - l0) / (l1 - l0);
	} else
		f = (v - a->lo) / (a->hi - a->lo);
	if (a->inverted)
		f = 1 - f;
	return from + f * length;
}

static void compute_ticks(struct axis *a, size_t max_ticks)
{
	double lo = fmin(a->lo, a->hi), hi = fmax(a->lo, a->hi);
	if (a->log)
		pe_ticks_log(lo, hi, max_ticks, &a->ticks);
	else
		pe_ticks_linear(lo, hi, max_ticks, a->integer, &a->ticks);
}

/* The widest tick label, whether drawn or not. */
static double labels_width(cairo_t *cr, const struct axis *a)
{
	double w = 0;
	char buf[64];
	for (size_t i = 0; i < a->ticks.n; i++) {
		pe_tick_label(&a->ticks, i, buf, sizeof(buf));
		w = fmax(w, text_width(cr, buf));
	}
	return w;
}

double axis_label_width(cairo_t *cr, const struct axis *a)
{
	return a->no_labels ? 0 : labels_width(cr, a);
}

/* Smallest distance between neighbouring ticks along an axis of length len. */
static double tick_spacing(const struct axis *a, double len)
{
	double best = INFINITY;
	for (size_t i = 1; i < a->ticks.n; i++) {
		double d = fabs(axis_map(a, a->ticks.value[i], 0, len) -
		                axis_map(a, a->ticks.value[i - 1], 0, len));
		best = fmin(best, d);
	}
	return best;
}

/* Room the labelled ticks need between neighbours along the axis. */
static double label_need(cairo_t *cr, const struct axis *a, double size, bool horizontal)
{
	/* Unlabelled ticks as a labelled neighbour's: they line up. */
	return horizontal ? labels_width(cr, a) + 0.9 * size : text_cap(cr) * 2.2;
}

/*
 * Two ticks as far apart as round values allow, where the 1-2-5 ticks leave room for one
 * label only (a 96-dimension heatmap 45 px wide had "0" alone, 50 did not fit beside it):
 * the least and the greatest multiple of a step inside the range, the step the coarsest
 * whose two labels fit (0 and 80 of 0..95). False, a->ticks untouched, when none does.
 */
static bool two_far_ticks(cairo_t *cr, struct axis *a, double len, double size, bool horizontal)
{
	double lo = fmin(a->lo, a->hi), hi = fmax(a->lo, a->hi);
	if (a->log)
		return false;
	struct pe_ticks was = a->ticks, t;
	for (int i = 0; pe_ticks_ends(lo, hi, a->integer, i, &t); i++) {
		if (t.n != 2)
			continue;
		a->ticks = t;
		if (tick_spacing(a, len) >= label_need(cr, a, size, horizontal))
			return true;
	}
	a->ticks = was;
	return false;
}

void axis_fit_ticks(cairo_t *cr, const struct fig_style *st, struct axis *a, double len,
                    bool horizontal)
{
	text_font(cr, st, TEXT_TICK);
	double size = text_size(st, TEXT_TICK);
	/* Density like matplotlib's: 0, 10, ..., 60 for 64 cells on a 400-unit axis. */
	double per = horizontal ? 4.6 * size : 4.2 * size;
	size_t max_ticks = (size_t)fmax(2, floor(len / per) + 1);
	a->crowded = false;
	/* More than ten labelled ticks is clutter on any axis (matplotlib caps at nine bins). */
	if (max_ticks > 10)
		max_ticks = 10;
	for (;;) {
		if (a->no_ticks) {
			memset(&a->ticks, 0, sizeof(a->ticks));
			break;
		}
		compute_ticks(a, max_ticks);
		if (a->ticks.n <= 1)
			break;
		if (tick_spacing(a, len) >= label_need(cr, a, size, horizontal))
			break;
		if (a->ticks.n <= 2) {
			if (two_far_ticks(cr, a, len, size, horizontal))
				break;
			/* Not even two labels fit: keep the first alone rather than overlap (the
			 * layout calls the figure cramped). */
			a->ticks.n = 1;
			a->crowded = !a->no_labels;
			a->ticks.n_minor = 0;
			break;
		}
		max_ticks = a->ticks.n - 1;
	}
	/* Minor log ticks only where a decade is wide enough to show them apart. */
	if (a->ticks.log && a->ticks.n >= 2 && tick_spacing(a, len) < 6 * size)
		a->ticks.n_minor = 0;
}

/* Centre of the pixel containing c, so 1-unit lines are crisp on a raster. */
static double snap(const struct fig_style *st, double c)
{
	return st->vector ? c : floor(c) + 0.5;
}

static bool in_range(const struct axis *a, double v)
{
	double lo = fmin(a->lo, a->hi), hi = fmax(a->lo, a->hi);
	double eps = (a->log ? 1e-9 * hi : 1e-9 * (hi - lo));
	return v >= lo - eps && v <= hi + eps;
}

void axis_draw_x(cairo_t *cr, const struct fig_style *st, const struct axis *a, struct rect r)
{
	double y0 = r.y + r.h;
	char buf[64];
	cairo_set_source_rgb(cr, 0, 0, 0);
	cairo_set_line_width(cr, st->line);
	text_font(cr, st, TEXT_TICK);
	for (size_t i = 0; i < a->ticks.n_minor; i++) {
		if (!in_range(a, a->ticks.minor[i]))
			continue;
		double x = snap(st, axis_map(a, a->ticks.minor[i], r.x, r.w));
		cairo_move_to(cr, x, y0);
		cairo_line_to(cr, x, y0 + st->tick_len * 0.6);
	}
	for (size_t i = 0; i < a->ticks.n; i++) {
		if (!in_range(a, a->ticks.value[i]))
			continue;
		double x = snap(st, axis_map(a, a->ticks.value[i], r.x, r.w));
		cairo_move_to(cr, x, y0);
		cairo_line_to(cr, x, y0 + st->tick_len);
	}
	cairo_stroke(cr);
	for (size_t i = 0; !a->no_labels && i < a->ticks.n; i++) {
		if (!in_range(a, a->ticks.value[i]))
			continue;
		double x = axis_map(a, a->ticks.value[i], r.x, r.w);
		pe_tick_label(&a->ticks, i, buf, sizeof(buf));
		text_draw(cr, buf, x, y0 + st->tick_len + st->pad, 0.5, 0, 0);
	}
}

void axis_draw_y(cairo_t *cr, const struct fig_style *st, const struct axis *a, struct rect r,
                 bool right)
{
	double x0 = right ? r.x + r.w : r.x;
	double dir = right ? 1 : -1;
	char buf[64];
	cairo_set_source_rgb(cr, 0, 0, 0);
	cairo_set_line_width(cr, st->line);
	text_font(cr, st, TEXT_TICK);
	for (size_t i = 0; i < a->ticks.n_minor; i++) {
		if (!in_range(a, a->ticks.minor[i]))
			continue;
		double y = snap(st, axis_map(a, a->ticks.minor[i], r.y + r.h, -r.h));
		cairo_move_to(cr, x0, y);
		cairo_line_to(cr, x0 + dir * st->tick_len * 0.6, y);
	}
	for (size_t i = 0; i < a->ticks.n; i++) {
		if (!in_range(a, a->ticks.value[i]))
			continue;
		double y = snap(st, axis_map(a, a->ticks.value[i], r.y + r.h, -r.h));
		cairo_move_to(cr, x0, y);
		cairo_line_to(cr, x0 + dir * st->tick_len, y);
	}
	cairo_stroke(cr);
	for (size_t i = 0; !a->no_labels && i < a->ticks.n; i++) {
		if (!in_range(a, a->ticks.value[i]))
			continue;
		double y = axis_map(a, a->ticks.value[i], r.y + r.h, -r.h);
		pe_tick_label(&a->ticks, i, buf, sizeof(buf));
		text_draw(cr, buf, x0 + dir * (st->tick_len + st->pad), y, right ? 0 : 1, 0.5, 0);
	}
}
