/*
 * Layout of a figure: every margin is measured from the text it must hold,
 * margins are aligned along grid rows and columns so panels line up, and the
 * tick choice is redone for the final axes size (fewer ticks on a smaller
 * axis means narrower labels, so three rounds settle it).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fig_internal.h"

/*
 * Between the tick labels and the x label, in pads: matplotlib's labelpad of
 * 4 pt, plus room for the label's parentheses, which rise above its capitals.
 */
#define XLABEL_GAP 2.0

struct slot {
	struct pe_panel *p;
	const char *title; /* the panel's title, or its column's title in row 0 */
	struct axis x, y;
	struct colour_scale *scale; /* heatmaps: the scale they are drawn with */
	struct colour_scale own;
	bool own_bar;     /* a colorbar right of this panel */
	int title_lines;  /* lines of the title: 1 or 2 */
	int ylabel_lines; /* lines of the y label: 1 or 2 */
	int xlabel_lines; /* lines of the x label: 1 or 2 */
	double xlabel_w;  /* width of the x label (its widest line) */
	double ml_text;   /* from the axes' left edge to the near side of the y label's line */
	double below_h;   /* of the bottom margin, what a legend below the axes takes */
	/* The most lines a title or y label took in an earlier round: a second line shortens
	 * the axes, which can make room for one line again (a square heatmap drawn narrower),
	 * and the rounds would swing between the two. */
	int title_floor, ylabel_floor, xlabel_floor;
	/* Where the legend goes when it would hide data inside: right of the axes, or (when
	 * that takes more than a third of the cell's width) below the x label. */
	enum { LEGEND_IN, LEGEND_RIGHT, LEGEND_BELOW } legend;
	double ml, mr, mt, mb;
	/* axes to colorbar: bar_pad, or past the last x tick label where it reaches further
	 * ("1000000" under a 1048576-position heatmap ran under the bar) */
	double bar_gap;
	struct rect cell, axes;
	struct rect room; /* the axes before an equal aspect narrowed them */
};

struct layout {
	struct pe_figure *fig;
	const struct fig_style *st;
	cairo_t *cr;
	size_t n; /* grid slots, plus the bottom panel last */
	struct slot *s;
	struct colour_scale col_scale[FIG_MAX_GRID], all_scale;
	double bar_pad;
	double width, height;
	double grid_x, grid_y, grid_w, grid_h;
	bool cramped;         /* some axes got squeezed below two lines of text */
	bool cramped_w;       /* ... in width (a taller canvas would not help) */
	int row_lines;        /* lines of the row labels: 1 .. ROW_MAX_LINES */
	double row_scale;     /* of the title size, for the row labels: 1, less when cut */
	int sup_lines;        /* lines of the figure title: 1 .. MAX_LINES */
	double sup_scale;     /* of the figure title's size: 1, less when it would be cut */
	int note_lines;       /* lines of the note: 1 .. NOTE_LINES (wrapped, not cut) */
	double bottom_extra;  /* grid height handed to the bottom panel */
	bool short_of_height; /* more height would help: a legend stays over data, or the
	                       * bottom panel's axes are squashed below the grid's */
};

static int imax(int a, int b)
{
	return a > b ? a : b;
}

static int imin(int a, int b)
{
	return a < b ? a : b;
}

static double descent(const struct fig_style *st, enum text_role role)
{
	return 0.24 * text_size(st, role); /* DejaVu Sans descends 0.236 em */
}

#define MAX_LINES TEXT_MAX_LINES
/* A row label at the tick size may take more lines than other text: it runs along a row
 * of panels, and its lines only widen the left margin a little. */
#define ROW_MAX_LINES 5
/* A note says how to read the figure, in sentences: at 252 pt compare's (scales, sampling,
 * scatter) takes four lines. */
#define NOTE_LINES 6
#define LINE_CAP   TEXT_LINE_CAP

/*
 * Draw s centred at (x, y) (the baseline of its last line; rotated by
 * angle) in at most @lines lines of room (text_wrap()); earlier lines stack
 * away from the anchor, upwards, or leftwards when rotated. Lines keep
 * within lo .. hi along their direction (x, or y when rotated), moving off
 * centre if they must.
 */
static void draw_lines_in(cairo_t *cr, const char *s, double x, double y, double room, double angle,
                          int lines, double step, double lo, double hi)
{
	char out[ROW_MAX_LINES][LINE_CAP];
	int n = text_wrap(cr, s, room,
	                  lines < 1               ? 1
	                  : lines > ROW_MAX_LINES ? ROW_MAX_LINES
	                                          : lines,
	                  out);
	for (int k = 0; k < n; k++) {
		double back = (double)(n - 1 - k) * step;
		double w = text_width(cr, out[k]);
		double cx = x, cy = y;
		if (angle == 0)
			cx = fmax(fmin(cx, hi - w / 2), lo + w / 2);
		else
			cy = fmax(fmin(cy, hi - w / 2), lo + w / 2);
		text_draw(cr, out[k], angle != 0 ? cx - back : cx, angle != 0 ? cy : cy - back, 0.5,
		          1, angle);
	}
}

static void draw_lines(cairo_t *cr, const char *s, double x, double y, double room, double angle,
                       int lines, double step)
{
	draw_lines_in(cr, s, x, y, room, angle, lines, step, -INFINITY, INFINITY);
}

/* Lines s needs at width room (up to max), in the current font. */
static int lines_needed(cairo_t *cr, const char *s, double room, int max)
{
	char out[MAX_LINES][LINE_CAP];
	return s ? text_wrap(cr, s, room, max, out) : 0;
}

/* Width a panel title may take: centred on the axes, within its cell (and off a grid colorbar). */
static void title_span(const struct layout *L, const struct slot *sl, double *lo, double *hi)
{
	struct rect a = sl->axes;
	double right = sl->cell.x + sl->cell.w;
	size_t i = (size_t)(sl - L->s), C = L->fig->cols;
	if (L->all_scale.used && i < (size_t)L->fig->rows * C && i % C == C - 1)
		right = fmin(right, a.x + a.w + L->bar_pad);
	*lo = sl->cell.x + L->st->pad / 2;
	*hi = right - L->st->pad / 2;
}

/* A title is centred on its axes, moved aside within its cell rather than cut. */
static double title_room(const struct layout *L, const struct slot *sl)
{
	double lo, hi;
	title_span(L, sl, &lo, &hi);
	return hi - lo;
}

/*
 * Where a y label may run: from just above the axes (off the title) down
 * through the bottom margin, which holds nothing at its x; centred on the
 * axes when it fits, moved down when it must.
 */
static void ylabel_span(const struct fig_style *st, const struct slot *sl, double *lo, double *hi)
{
	double over = sl->title ? st->pad : fmin(sl->mt, sl->mb);
	*lo = sl->axes.y - over;
	*hi = sl->axes.y + sl->axes.h + fmax(over, sl->mb - sl->below_h - st->pad);
	/* An x label wider than the axes reaches under the y label: stop above its line. */
	if (sl->xlabel_w / 2 > sl->axes.w / 2 + sl->ml_text)
		*hi = fmin(*hi, sl->axes.y + sl->axes.h + st->tick_len + st->pad +
		                        0.73 * text_size(st, TEXT_TICK));
}

static double ylabel_room(const struct fig_style *st, const struct slot *sl)
{
	double lo, hi;
	ylabel_span(st, sl, &lo, &hi);
	return hi - lo;
}

static void init_axes(struct slot *sl)
{
	struct pe_panel *p = sl->p;
	if (p->kind == PANEL_HEATMAP) {
		sl->x = (struct axis){.lo = p->hm.x_lo,
		                      .hi = p->hm.x_hi,
		                      .integer = p->hm.x_integer,
		                      .no_ticks = p->hm.x_no_ticks,
		                      .no_labels = p->hm.x_no_tick_labels};
		sl->y = (struct axis){.lo = p->hm.y_top,
		                      .hi = p->hm.y_bottom,
		                      .integer = p->hm.y_integer,
		                      .inverted = true,
		                      .no_labels = p->hm.y_no_tick_labels};
		if (sl->y.lo > sl->y.hi) {
			/* Keep lo < hi; a caller who put the larger edge on top gets it on top. */
			double t = sl->y.lo;
			sl->y.lo = sl->y.hi;
			sl->y.hi = t;
			sl->y.inverted = false;
		}
		if (sl->x.lo > sl->x.hi) {
			double t = sl->x.lo;
			sl->x.lo = sl->x.hi;
			sl->x.hi = t;
			sl->x.inverted = true;
		}
	}
}

static enum pe_status scales(struct layout *L)
{
	struct pe_figure *fig = L->fig;
	for (size_t i = 0; i < L->n; i++) {
		struct slot *sl = &L->s[i];
		if (sl->p->kind != PANEL_HEATMAP)
			continue;
		struct pe_heatmap_spec view = heatmap_view(sl->p);
		const struct pe_heatmap_spec *hm = &view;
		enum pe_status s = heatmap_panel_limits(sl->p, &sl->own.vmin, &sl->own.vmax);
		if (s != PE_OK)
			return s;
		sl->own.cmap = hm->colormap ? hm->colormap : colormap_default(hm->is_signed);
		sl->own.label = hm->colorbar_label;
		sl->own.label_short = hm->colorbar_label_short;
		sl->own.discrete = hm->discrete;
		sl->own.nan_label = hm->nan_label                  ? hm->nan_label
		                    : heatmap_panel_has_nan(sl->p) ? "no value"
		                                                   : NULL;
		sl->own.used = true;
		sl->own.empty = heatmap_panel_all_nan(sl->p);
		bool in_grid = i < (size_t)fig->rows * fig->cols;
		struct colour_scale *sh = NULL;
		if (hm->own_scale)
			sh = NULL;
		else if (in_grid && fig->share == PE_SHARE_COLUMN)
			sh = &L->col_scale[i % fig->cols];
		else if (in_grid && fig->share == PE_SHARE_ALL)
			sh = &L->all_scale;
		if (!sh) {
			sl->scale = &sl->own;
			sl->own_bar = true;
			continue;
		}
		if (!sh->used) {
			*sh = sl->own;
		} else {
			sh->vmin = fmin(sh->vmin, sl->own.vmin);
			sh->vmax = fmax(sh->vmax, sl->own.vmax);
			sh->empty = sh->empty && sl->own.empty;
			if (!sh->label) {
				sh->label = sl->own.label;
				sh->label_short = sl->own.label_short;
			}
			if (!sh->nan_label)
				sh->nan_label = sl->own.nan_label;
		}
		sl->scale = sh;
	}
	/* Signed data shares a scale symmetric about 0, like each of its parts. */
	for (size_t i = 0; i < L->n; i++) {
		struct slot *sl = &L->s[i];
		if (sl->scale && sl->scale != &sl->own && sl->p->hm.is_signed) {
			double m = fmax(fabs(sl->scale->vmin), fabs(sl->scale->vmax));
			if (isnan(sl->p->hm.vmin) && isnan(sl->p->hm.vmax))
				sl->scale->vmin = -m, sl->scale->vmax = m;
		}
	}
	return PE_OK;
}

/* Height a text line of this role takes: cap plus descenders. */
static double line_h(const struct fig_style *st, enum text_role role)
{
	return 0.73 * text_size(st, role) + descent(st, role);
}

/* Margins of one panel for its current axes size. */
static void measure(struct layout *L, struct slot *sl)
{
	const struct fig_style *st = L->st;
	cairo_t *cr = L->cr;
	struct pe_panel *p = sl->p;
	sl->ml = sl->mr = sl->mt = sl->mb = 0;
	if (p->kind == PANEL_EMPTY)
		return;
	axis_fit_ticks(cr, st, &sl->x, sl->axes.w, true);
	axis_fit_ticks(cr, st, &sl->y, sl->axes.h, false);
	text_font(cr, st, TEXT_TICK);
	double yw = axis_label_width(cr, &sl->y);
	double xw = axis_label_width(cr, &sl->x);
	double cap = text_cap(cr);
	sl->ml = st->tick_len + st->pad + yw;
	sl->ylabel_lines = 1;
	sl->ml_text = sl->ml + st->pad;
	sl->below_h = 0;
	sl->xlabel_w = 0;
	sl->xlabel_lines = 1;
	if (p->xlabel) {
		/* An x label wider than its cell (usage's "RoPE pair i (high → low frequency;
		 * ...)" in a 252 pt column ran off the canvas) takes a second line. */
		char out[2][LINE_CAP];
		text_font(cr, st, TEXT_LABEL);
		int n = text_wrap(cr, p->xlabel, title_room(L, sl), 2, out);
		for (int k = 0; k < n; k++)
			sl->xlabel_w = fmax(sl->xlabel_w, text_width(cr, out[k]));
		sl->xlabel_lines = (sl->xlabel_floor = imax(sl->xlabel_floor, n));
	}
	if (p->ylabel) {
		/* A y label longer than a short axes takes a second line, not an ellipsis; one
		 * word too long for it ("correlation" beside a scatter in compare's rows) its
		 * short form. */
		text_font(cr, st, TEXT_LABEL);
		char out[2][LINE_CAP];
		bool cut;
		double room = ylabel_room(st, sl);
		int n = text_wrap_cut(cr, p->ylabel, room, 2, out, &cut);
		if (cut && p->ylabel_short)
			n = lines_needed(cr, p->ylabel_short, room, 2);
		sl->ylabel_lines = (sl->ylabel_floor = imax(sl->ylabel_floor, n));
		sl->ml += st->pad + line_h(st, TEXT_LABEL) +
		          (sl->ylabel_lines - 1) * 1.15 * text_size(st, TEXT_LABEL);
		text_font(cr, st, TEXT_TICK);
	}
	sl->ml = fmax(sl->ml, xw / 2 + st->pad);
	sl->mb = st->tick_len + st->pad + (sl->x.no_labels ? 0 : cap);
	if (p->xlabel)
		sl->mb += XLABEL_GAP * st->pad + line_h(st, TEXT_LABEL) +
		          (sl->xlabel_lines - 1) * 1.15 * text_size(st, TEXT_LABEL);
	sl->mt = cap / 2 + st->pad;
	sl->title_lines = 1;
	if (sl->title) {
		text_font(cr, st, TEXT_TITLE);
		sl->title_lines = lines_needed(cr, sl->title, title_room(L, sl), 2);
		sl->title_lines = (sl->title_floor = imax(sl->title_floor, sl->title_lines));
		sl->mt = fmax(sl->mt,
		              st->pad * 1.5 + line_h(st, TEXT_TITLE) +
		                      (sl->title_lines - 1) * 1.15 * text_size(st, TEXT_TITLE));
	}
	sl->mr = xw / 2 + st->pad;
	sl->bar_gap = L->bar_pad;
	text_font(cr, st, TEXT_TICK);
	for (size_t i = 0; !sl->x.no_ticks && i < sl->x.ticks.n; i++) {
		double v = sl->x.ticks.value[i];
		if (!(v >= fmin(sl->x.lo, sl->x.hi) && v <= fmax(sl->x.lo, sl->x.hi)))
			continue;
		char buf[64];
		pe_tick_label(&sl->x.ticks, i, buf, sizeof(buf));
		double over =
		        axis_map(&sl->x, v, 0, sl->axes.w) + text_width(cr, buf) / 2 - sl->axes.w;
		sl->bar_gap = fmax(sl->bar_gap, over + 0.4 * st->font);
	}
	if (p->kind == PANEL_HEATMAP && sl->own_bar) {
		double h = sl->axes.h;
		sl->mr = fmax(sl->mr, sl->bar_gap + colorbar_width(st, h) +
		                              colorbar_extra(cr, st, h, sl->scale) + st->pad);
	}
	if (p->kind == PANEL_XY && sl->legend != LEGEND_IN) {
		double w, h;
		xy_legend_size(cr, st, p, &w, &h);
		if (sl->legend == LEGEND_RIGHT)
			sl->mr = fmax(sl->mr, st->font + w + st->pad);
		else
			sl->mb += (sl->below_h = st->pad + h);
	}
	/* Air between neighbouring columns, so a colorbar label never touches a y label. */
	if (L->fig->cols > 1) {
		sl->ml += 0.4 * st->font;
		sl->mr += 0.4 * st->font;
	}
	/* And between rows, so a panel title never touches the tick labels above it. */
	if (L->fig->rows > 1)
		sl->mt += 0.5 * st->font;
	/* A title right under the tick labels of the panel above (which has no x label) stands
	 * clearly nearer its own axes, or it reads as that panel's x label (freqs' stack of
	 * layer groups: "gemma-3-27b local" under the first panel's ticks). */
	size_t i = (size_t)(sl - L->s), C = L->fig->cols;
	if (sl->title && i >= C && i < (size_t)L->fig->rows * C && !L->s[i - C].p->xlabel &&
	    L->s[i - C].p->kind != PANEL_EMPTY)
		sl->mt += 0.5 * st->font;
}

/* Colorbar geometry for a shared scale: right of the column, over the heatmap rows. */
static bool shared_bar_rect(struct layout *L, const struct colour_scale *sc, struct rect *r,
                            double *gap)
{
	double top = INFINITY, bottom = -INFINITY, right = -INFINITY;
	*gap = L->bar_pad;
	for (size_t i = 0; i < (size_t)L->fig->rows * L->fig->cols; i++) {
		struct slot *sl = &L->s[i];
		/* One bar for the whole grid stands right of the last column, whatever it holds. */
		if (sc == &L->all_scale && sl->p->kind != PANEL_EMPTY)
			right = fmax(right, sl->axes.x + sl->axes.w);
		if (sc == &L->all_scale && sl->p->kind != PANEL_EMPTY &&
		    i % L->fig->cols == L->fig->cols - 1u)
			*gap = fmax(*gap, sl->bar_gap);
		if (sl->scale != sc)
			continue;
		*gap = fmax(*gap, sl->bar_gap);
		top = fmin(top, sl->axes.y);
		bottom = fmax(bottom, sl->axes.y + sl->axes.h);
		right = fmax(right, sl->axes.x + sl->axes.w);
	}
	if (!(top < bottom))
		return false;
	*r = (struct rect){right + *gap, top, colorbar_width(L->st, bottom - top), bottom - top};
	return true;
}

/* Extra width right of a grid column for its shared colorbar. */
static double shared_bar_extra(struct layout *L, const struct colour_scale *sc)
{
	struct rect r;
	double gap;
	if (!sc->used || !shared_bar_rect(L, sc, &r, &gap))
		return 0;
	return gap + r.w + colorbar_extra(L->cr, L->st, r.h, sc) + L->st->pad;
}

static bool has_row_labels(const struct pe_figure *fig)
{
	for (unsigned r = 0; r < fig->rows; r++)
		if (fig->row_labels[r])
			return true;
	return false;
}

static double snapv(const struct fig_style *st, double v)
{
	return st->vector ? v : round(v);
}

/* Width / height of one data unit square for an equal-aspect panel; 0 for other panels. */
static double aspect_ratio(const struct slot *sl)
{
	const struct pe_heatmap_spec *hm = &sl->p->hm;
	const struct pe_panel *p = sl->p;
	if (p->kind == PANEL_XY && p->equal_aspect && isfinite(p->xlim[0]) && isfinite(p->ylim[0]))
		return (p->xlim[1] - p->xlim[0]) / (p->ylim[1] - p->ylim[0]);
	if (sl->p->kind != PANEL_HEATMAP || !hm->equal_aspect)
		return 0;
	return fabs(hm->x_hi - hm->x_lo) / fabs(hm->y_bottom - hm->y_top);
}

/*
 * In a grid row holding equal-aspect heatmaps every panel takes the height
 * the most constrained of them allows, top-aligned, so axes, tick labels
 * and x labels still line up across the row; each heatmap is then as wide
 * as its aspect asks, centred in its column.
 */
static void align_row(const struct fig_style *st, struct slot *row, unsigned cols)
{
	double h = INFINITY;
	bool any = false;
	for (unsigned c = 0; c < cols; c++) {
		double ratio = aspect_ratio(&row[c]);
		if (row[c].p->kind == PANEL_EMPTY)
			continue;
		h = fmin(h, ratio > 0 ? fmin(row[c].axes.h, row[c].axes.w / ratio) : row[c].axes.h);
		any |= ratio > 0;
	}
	if (!any)
		return;
	h = fmax(1, snapv(st, h));
	for (unsigned c = 0; c < cols; c++) {
		struct rect *a = &row[c].axes;
		double ratio = aspect_ratio(&row[c]);
		a->h = h;
		if (ratio > 0) {
			double w = fmax(1, snapv(st, fmin(a->w, h * ratio)));
			a->x = snapv(st, a->x + (a->w - w) / 2);
			a->w = w;
		}
	}
}

/* Shrink a lone heatmap's axes to square data units, centred in the space it had. */
static void apply_aspect(const struct fig_style *st, struct slot *sl)
{
	double ratio = aspect_ratio(sl);
	if (ratio == 0)
		return;
	struct rect *a = &sl->axes;
	if (a->w > a->h * ratio) {
		double w = fmax(1, snapv(st, a->h * ratio));
		a->x = snapv(st, a->x + (a->w - w) / 2);
		a->w = w;
	} else {
		double h = fmax(1, snapv(st, a->w / ratio));
		a->y = snapv(st, a->y + (a->h - h) / 2);
		a->h = h;
	}
}

static void place_axes(struct layout *L)
{
	struct pe_figure *fig = L->fig;
	const struct fig_style *st = L->st;
	unsigned R = fig->rows, C = fig->cols;
	double ml[FIG_MAX_GRID] = {0}, mr[FIG_MAX_GRID] = {0}, mt[FIG_MAX_GRID] = {0},
	       mb[FIG_MAX_GRID] = {0};
	for (unsigned r = 0; r < R; r++)
		for (unsigned c = 0; c < C; c++) {
			struct slot *sl = &L->s[r * C + c];
			ml[c] = fmax(ml[c], sl->ml);
			mr[c] = fmax(mr[c], sl->mr);
			mt[r] = fmax(mt[r], sl->mt);
			mb[r] = fmax(mb[r], sl->mb);
		}
	if (fig->share == PE_SHARE_COLUMN)
		for (unsigned c = 0; c < C; c++)
			mr[c] = fmax(mr[c], shared_bar_extra(L, &L->col_scale[c]));
	/*
	 * The grid's one colorbar gets its own strip right of the grid: taken
	 * from the last column alone it would make those panels the narrowest.
	 */
	double bar = 0;
	if (fig->share == PE_SHARE_ALL)
		bar = fmax(0, shared_bar_extra(L, &L->all_scale) - mr[C - 1] + st->pad);
	/*
	 * Every panel's axes get the same size, like matplotlib's gridspec: the
	 * cells take their row's and column's margins on top of it, so a row
	 * with axis labels is taller, not its panels smaller.
	 */
	double aw = L->grid_w - bar, ah = L->grid_h;
	for (unsigned c = 0; c < C; c++)
		aw -= ml[c] + mr[c];
	for (unsigned r = 0; r < R; r++)
		ah -= mt[r] + mb[r];
	aw = fmax(0, aw / C);
	ah = fmax(0, ah / R);
	double cy = L->grid_y;
	for (unsigned r = 0; r < R; r++) {
		double ch = mt[r] + ah + mb[r], cx = L->grid_x;
		for (unsigned c = 0; c < C; c++) {
			double cw = ml[c] + aw + mr[c];
			struct slot *sl = &L->s[r * C + c];
			sl->cell = (struct rect){cx, cy, cw, ch};
			cx += cw;
			double x0 = snapv(st, sl->cell.x + ml[c]);
			double y0 = snapv(st, sl->cell.y + mt[r]);
			double x1 = snapv(st, sl->cell.x + cw - mr[c]);
			double y1 = snapv(st, sl->cell.y + ch - mb[r]);
			if (sl->p->kind != PANEL_EMPTY &&
			    (x1 - x0 < 2 * st->font || y1 - y0 < 2 * st->font))
				L->cramped = true;
			if (sl->p->kind != PANEL_EMPTY && x1 - x0 < 2 * st->font)
				L->cramped_w = true;
			sl->axes = (struct rect){x0, y0, fmax(1, x1 - x0), fmax(1, y1 - y0)};
			sl->room = sl->axes;
			if (C == 1)
				apply_aspect(st, sl);
		}
		cy += ch;
	}
	if (C > 1)
		for (unsigned r = 0; r < R; r++)
			align_row(st, &L->s[r * C], C);
	if (L->n > (size_t)R * C) {
		struct slot *b = &L->s[L->n - 1];
		double left = fmax(b->ml, L->s[0].axes.x - b->cell.x);
		double x0 = snapv(st, b->cell.x + left);
		double y0 = snapv(st, b->cell.y + b->mt);
		double x1 = snapv(st, b->cell.x + b->cell.w - b->mr);
		double y1 = snapv(st, b->cell.y + b->cell.h - b->mb);
		if (b->p->kind != PANEL_EMPTY && (x1 - x0 < 2 * st->font || y1 - y0 < 2 * st->font))
			L->cramped = true;
		if (b->p->kind != PANEL_EMPTY && x1 - x0 < 2 * st->font)
			L->cramped_w = true;
		b->axes = (struct rect){x0, y0, fmax(1, x1 - x0), fmax(1, y1 - y0)};
		apply_aspect(st, b);
	}
}

/* Whether measuring again changed a margin or a line count since the last round. */
static bool remeasure(struct layout *L)
{
	bool changed = false;
	for (size_t i = 0; i < L->n; i++) {
		struct slot *sl = &L->s[i], was = *sl;
		measure(L, sl);
		changed |= sl->ml != was.ml || sl->mr != was.mr || sl->mt != was.mt ||
		           sl->mb != was.mb || sl->ylabel_lines != was.ylabel_lines ||
		           sl->title_lines != was.title_lines;
	}
	return changed;
}

static void layout_rounds(struct layout *L)
{
	/* Three rounds as a rule; more while the margins still move (square heatmaps whose
	 * axes shrink with the row: a y label measured for the taller axes was cut). */
	for (int round = 0; round < 8; round++) {
		bool changed = remeasure(L);
		place_axes(L);
		if (round >= 2 && !changed)
			break;
	}
	/*
	 * A legend that would cover data moves outside: right of the axes,
	 * unless that would take more than 40% of the panel's width; then
	 * below them (a small figure), unless that would take more than a third
	 * of its height; only then it stays inside where it hides the least.
	 */
	bool moved = false;
	for (size_t i = 0; i < L->n; i++) {
		struct slot *sl = &L->s[i];
		double w, h;
		if (sl->p->kind != PANEL_XY || sl->legend != LEGEND_IN)
			continue;
		/* A legend wider than the axes (long entries in a 252 pt column) would run off
		 * the canvas wherever it went: its entries wrap to the axes' width. */
		xy_legend_fit(L->cr, L->st, sl->p, sl->axes.w - L->st->font);
		xy_legend_size(L->cr, L->st, sl->p, &w, &h);
		if (w == 0 || xy_legend_inside(L->cr, L->st, sl->p, &sl->x, &sl->y, sl->axes))
			continue;
		/* Measuring whether a derived height fits asks for a little more room below than
		 * drawing does: the drawing's layout can differ by a hair (heatmap grids answered
		 * for the last trial height), and a legend just short of its room stayed over the
		 * curves (compare's decay in a 252 pt PDF). */
		double below = L->st->fit_only ? 3.3 : 3;
		if (w + L->st->font < 0.4 * sl->cell.w)
			sl->legend = LEGEND_RIGHT;
		else if (w < sl->cell.w && h + L->st->pad < sl->cell.h / below)
			sl->legend = LEGEND_BELOW;
		else {
			L->short_of_height |= w < sl->cell.w;
			continue;
		}
		moved = true;
	}
	if (moved)
		for (int round = 0; round < 3; round++) {
			for (size_t i = 0; i < L->n; i++)
				measure(L, &L->s[i]);
			place_axes(L);
		}
	/* A legend right of the axes starts at their top: one taller than what is left of the
	 * cell runs off the canvas (a dozen profile curves in a 252 pt column), so the figure
	 * wants more height, or else smaller text. */
	for (size_t i = 0; i < L->n; i++) {
		struct slot *sl = &L->s[i];
		double w, h;
		if (sl->p->kind != PANEL_XY || sl->legend != LEGEND_RIGHT)
			continue;
		xy_legend_size(L->cr, L->st, sl->p, &w, &h);
		if (sl->axes.y + h > sl->cell.y + sl->cell.h)
			L->cramped = true;
	}
	/* The ticks for the final axes: wider y tick labels than the margin was measured with
	 * (a taller axes takes "50000" beside "0") would push the y label over a row label
	 * or the panel to the left, so the margins are measured again until they hold. */
	for (int round = 0; round < 4; round++) {
		bool wider = false;
		for (size_t i = 0; i < L->n; i++) {
			struct slot *sl = &L->s[i];
			axis_fit_ticks(L->cr, L->st, &sl->x, sl->axes.w, true);
			axis_fit_ticks(L->cr, L->st, &sl->y, sl->axes.h, false);
			text_font(L->cr, L->st, TEXT_TICK);
			if (sl->p->kind != PANEL_EMPTY &&
			    L->st->tick_len + L->st->pad + axis_label_width(L->cr, &sl->y) >
			            sl->ml_text - L->st->pad + 1e-9)
				wider = true;
		}
		if (!wider || round == 3)
			break;
		remeasure(L);
		place_axes(L);
	}
}

static void draw_frame(cairo_t *cr, const struct fig_style *st, struct rect r)
{
	/* On a raster the 1-unit frame sits just outside the axes, on whole pixels. */
	double o = st->vector ? 0 : st->line / 2;
	cairo_set_source_rgb(cr, 0, 0, 0);
	cairo_set_line_width(cr, st->line);
	cairo_rectangle(cr, r.x - o, r.y - o, r.w + 2 * o, r.h + 2 * o);
	cairo_stroke(cr);
}

static enum pe_status draw_slot(struct layout *L, struct slot *sl)
{
	const struct fig_style *st = L->st;
	cairo_t *cr = L->cr;
	struct pe_panel *p = sl->p;
	struct rect a = sl->axes;
	if (p->kind == PANEL_EMPTY)
		return PE_OK;
	if (p->kind == PANEL_HEATMAP) {
		/* A shared scale is one colormap too: the bar must describe every panel. */
		struct pe_heatmap_spec view = heatmap_view(p);
		enum pe_status s = heatmap_draw(cr, st, &view, a, sl->scale->cmap, sl->scale->vmin,
		                                sl->scale->vmax);
		if (s != PE_OK)
			return s;
	} else {
		double w, h;
		xy_legend_size(cr, st, p, &w, &h);
		/* Below: under the x tick labels and x label, centred on the panel's cell. */
		struct rect right = {a.x + a.w + st->font, a.y, w, h};
		struct rect below = {sl->cell.x + (sl->cell.w - w) / 2, a.y + a.h + sl->mb - h, w,
		                     h};
		xy_draw(cr, st, p, &sl->x, &sl->y, a,
		        sl->legend == LEGEND_RIGHT   ? &right
		        : sl->legend == LEGEND_BELOW ? &below
		                                     : NULL);
	}
	draw_frame(cr, st, a);
	text_log_axes(cr, a.x, a.y, a.w, a.h);
	axis_draw_x(cr, st, &sl->x, a);
	axis_draw_y(cr, st, &sl->y, a, false);

	text_font(cr, st, TEXT_TICK);
	double yw = axis_label_width(cr, &sl->y);
	double cap = text_cap(cr);
	cairo_set_source_rgb(cr, 0, 0, 0);
	if (p->xlabel) {
		/* Centred under the axes, moved within the cell rather than off the canvas. */
		double lo, hi;
		title_span(L, sl, &lo, &hi);
		text_font(cr, st, TEXT_LABEL);
		double step = 1.15 * text_size(st, TEXT_LABEL);
		draw_lines_in(cr, p->xlabel, a.x + a.w / 2,
		              a.y + a.h + st->tick_len + st->pad + (sl->x.no_labels ? 0 : cap) +
		                      XLABEL_GAP * st->pad + text_cap(cr) +
		                      (sl->xlabel_lines - 1) * step,
		              hi - lo, 0, sl->xlabel_lines, step, lo, hi);
	}
	if (p->ylabel) {
		text_font(cr, st, TEXT_LABEL);
		double x = a.x - st->tick_len - st->pad - yw - st->pad - descent(st, TEXT_LABEL);
		double lo, hi;
		ylabel_span(st, sl, &lo, &hi);
		/* The short form where the label would be cut in the room the axes leave. */
		char out[2][LINE_CAP];
		bool cut;
		text_wrap_cut(cr, p->ylabel, hi - lo, imax(1, imin(2, sl->ylabel_lines)), out,
		              &cut);
		draw_lines_in(cr, cut && p->ylabel_short ? p->ylabel_short : p->ylabel, x,
		              a.y + a.h / 2, hi - lo, FIG_PI / 2, sl->ylabel_lines,
		              1.15 * text_size(st, TEXT_LABEL), lo, hi);
	}
	if (sl->title) {
		text_font(cr, st, TEXT_TITLE);
		double lo, hi;
		title_span(L, sl, &lo, &hi);
		draw_lines_in(cr, sl->title, a.x + a.w / 2,
		              a.y - st->pad * 1.5 - descent(st, TEXT_TITLE), hi - lo, 0,
		              sl->title_lines, 1.15 * text_size(st, TEXT_TITLE), lo, hi);
	}
	if (p->kind == PANEL_HEATMAP && sl->own_bar) {
		struct rect b = {a.x + a.w + sl->bar_gap, a.y, colorbar_width(st, a.h), a.h};
		b.x = snapv(st, b.x);
		b.w = snapv(st, b.w);
		colorbar_draw(cr, st, sl->scale, b);
	}
	return PE_OK;
}

static void draw_shared_bars(struct layout *L)
{
	struct colour_scale *list[FIG_MAX_GRID + 1];
	size_t n = 0;
	if (L->fig->share == PE_SHARE_COLUMN)
		for (unsigned c = 0; c < L->fig->cols; c++)
			list[n++] = &L->col_scale[c];
	if (L->fig->share == PE_SHARE_ALL)
		list[n++] = &L->all_scale;
	for (size_t i = 0; i < n; i++) {
		struct rect r;
		double gap;
		if (!list[i]->used || !shared_bar_rect(L, list[i], &r, &gap))
			continue;
		r.x = snapv(L->st, r.x);
		r.w = snapv(L->st, r.w);
		colorbar_draw(L->cr, L->st, list[i], r);
	}
}

/* Height the grid rows leave unused below their axes and labels (equal-aspect rows). */
static double row_slack(const struct layout *L)
{
	double slack = 0;
	for (unsigned r = 0; r < L->fig->rows; r++) {
		double used = 0;
		const struct slot *row = &L->s[(size_t)r * L->fig->cols];
		for (unsigned c = 0; c < L->fig->cols; c++)
			if (row[c].p->kind != PANEL_EMPTY)
				used = fmax(used, row[c].axes.y + row[c].axes.h + row[c].mb -
				                          row[c].cell.y);
		if (used > 0)
			slack += fmax(0, row[0].cell.h - used);
	}
	return slack;
}

/*
 * Where row r's label may run: from its row down to the next labelled row (compare's scheme
 * of two rows of panels under one label), less a little air at both ends so the labels of
 * two rows never read as one; *centre the middle of those rows' axes.
 */
static void row_label_span(const struct layout *L, unsigned r, double *lo, double *hi,
                           double *centre)
{
	unsigned last = r;
	while (last + 1 < L->fig->rows && !L->fig->row_labels[last + 1])
		last++;
	const struct slot *a = &L->s[(size_t)r * L->fig->cols];
	const struct slot *b = &L->s[(size_t)last * L->fig->cols];
	*lo = a->cell.y + L->st->font / 4;
	*hi = b->cell.y + b->cell.h - L->st->font / 4;
	*centre = (a->axes.y + b->axes.y + b->axes.h) / 2;
}

static double row_label_room(const struct layout *L, unsigned r)
{
	double lo, hi, centre;
	row_label_span(L, r, &lo, &hi, &centre);
	return fmax(0, hi - lo);
}

/* Size of the row labels' text (bold): a title's, or less where one would be cut. */
static double row_size(const struct layout *L)
{
	return text_size(L->st, TEXT_TITLE) * L->row_scale;
}

static void row_font(const struct layout *L)
{
	text_face(L->cr, true);
	cairo_set_font_size(L->cr, row_size(L));
}

/* The smallest row label: the tick labels' size (a name smaller than the numbers beside it
 * reads as a footnote). */
static double row_least(const struct layout *L)
{
	return text_size(L->st, TEXT_TICK) / text_size(L->st, TEXT_TITLE);
}

/* Whether lines, joined by spaces, are s with its runs of spaces as one: no word was broken
 * across lines, and none cut. */
static bool words_whole(char out[][LINE_CAP], int n, const char *s)
{
	const char *c = s;
	for (int k = 0; k < n; k++) {
		while (*c == ' ')
			c++;
		for (const char *o = out[k]; *o; o++, c++) {
			/* c[1] only past a space, never past the end */
			if (*o == ' ')
				while (*c == ' ' && c[1] == ' ')
					c++;
			if (*o != *c)
				return false;
		}
		if (*c && *c != ' ')
			return false;
	}
	while (*c == ' ')
		c++;
	return !*c;
}

/* Lines the longest row label needs to fit its row (up to MAX_LINES, or ROW_MAX_LINES at
 * the smallest size); *cut: some label is not whole even so; *split: some word is broken
 * across lines ("gemma-3-" over "27b global"). */
static int row_label_lines(struct layout *L, bool *cut, bool *split)
{
	cairo_t *cr = L->cr;
	row_font(L);
	int most = 1, max = L->row_scale <= row_least(L) * 1.0001 ? ROW_MAX_LINES : MAX_LINES;
	*cut = *split = false;
	for (unsigned r = 0; r < L->fig->rows; r++) {
		const char *t = L->fig->row_labels[r];
		if (!t)
			continue;
		char out[ROW_MAX_LINES][LINE_CAP];
		bool c = false;
		int k = text_wrap_cut(cr, t, row_label_room(L, r), max, out, &c);
		most = k > most ? k : most;
		*cut |= c;
		*split |= !c && !words_whole(out, k, t);
	}
	return most;
}

/*
 * More lines for the row labels, or, when a label is cut on MAX_LINES (a spec of one
 * long word beside a short row: "sinusoidal base=…" in compare's rows at 504 pt) or has a
 * word broken across lines, a smaller size down to the tick labels' (where a label may
 * take ROW_MAX_LINES lines), counting its lines afresh. Returns whether the layout must be
 * done again; at one size the lines only grow, and the size only shrinks, so this settles.
 */
static bool fit_row_labels(struct layout *L)
{
	if (!has_row_labels(L->fig))
		return false;
	bool cut, split;
	int need = row_label_lines(L, &cut, &split);
	if (need > L->row_lines) {
		L->row_lines = need;
		return true;
	}
	double least = row_least(L);
	if (!(cut || split) || L->row_scale <= least * 1.0001)
		return false;
	L->row_scale = fmax(least, 0.9 * L->row_scale);
	L->row_lines = 1;
	return true;
}

/* Axes of a grid panel at least this tall for their width, or this many font sizes tall,
 * when the height may grow. */
#define MIN_FLAT 0.75
#define MIN_LOW  6.0

/* Size of the figure title's text (bold): 1.3 times the labels', less where it would be cut. */
static double sup_size(const struct layout *L)
{
	return text_size(L->st, TEXT_SUPTITLE) * L->sup_scale;
}

static void sup_font(const struct layout *L)
{
	text_face(L->cr, true);
	cairo_set_font_size(L->cr, sup_size(L));
}

/* Place everything for the style's text size; L->cramped says whether it fits. */
static void layout(struct layout *L)
{
	struct pe_figure *fig = L->fig;
	const struct fig_style *st = L->st;
	size_t grid = (size_t)fig->rows * fig->cols;
	L->cramped = false;
	L->cramped_w = false;
	L->short_of_height = false;
	L->bar_pad = 0.8 * st->font;
	for (size_t i = 0; i < L->n; i++) {
		L->s[i].legend = LEGEND_IN;
		L->s[i].p->legend_wrap = 0;
		L->s[i].title_floor = L->s[i].ylabel_floor = L->s[i].xlabel_floor = 1;
	}
	double outer = 0.6 * st->font;
	double top = outer;
	if (fig->title)
		top += (0.73 + 0.24) * sup_size(L) + st->pad * 2 +
		       (L->sup_lines - 1) * 1.15 * sup_size(L);
	double left = outer;
	if (has_row_labels(fig))
		left += (0.73 + 0.24) * row_size(L) + st->font +
		        (L->row_lines - 1) * 1.15 * row_size(L);
	L->grid_x = left;
	L->grid_y = top;
	L->grid_w = L->width - left - outer;
	L->grid_h = L->height - top - outer;
	if (fig->note)
		L->grid_h -= line_h(st, TEXT_TICK) + st->pad +
		             (L->note_lines - 1) * 1.15 * text_size(st, TEXT_TICK);
	if (fig->bottom) {
		/* The bottom panel weighs one grid row, and stands a line apart from the grid. */
		double gap = st->font;
		double bh = (L->grid_h - gap) / (fig->rows + 1) + L->bottom_extra;
		L->grid_h -= bh + gap;
		L->s[L->n - 1].cell = (struct rect){left, top + L->grid_h + gap, L->grid_w, bh};
	}
	/* First guess of the axes: most of each cell. */
	for (size_t i = 0; i < L->n; i++) {
		struct slot *sl = &L->s[i];
		if (i < grid)
			sl->cell =
			        (struct rect){0, 0, L->grid_w / fig->cols, L->grid_h / fig->rows};
		sl->axes = (struct rect){0, 0, sl->cell.w * 0.75, sl->cell.h * 0.75};
	}
	layout_rounds(L);
	/* An axis with room for one of its tick labels shows no scale (four heatmaps abreast
	 * in a 252 pt column kept "0" alone under each): as cramped as axes too small. */
	for (size_t i = 0; i < L->n; i++) {
		const struct slot *sl = &L->s[i];
		if (sl->p->kind == PANEL_EMPTY)
			continue;
		L->cramped |= sl->x.crowded || sl->y.crowded;
		L->cramped_w |= sl->x.crowded;
	}
	/* A bottom panel's curves in a band much lower than the grid's axes, or than the
	 * least any axes may have, read as flat lines with one or two ticks (compare's decay
	 * under rows of two in a 252 pt column): a height left to the width grows instead. */
	double tallest = 0;
	for (size_t i = 0; fig->bottom && i < grid; i++)
		tallest = fmax(tallest, L->s[i].axes.h);
	const struct slot *b = &L->s[L->n - 1];
	if (fig->bottom &&
	    b->axes.h < fmax(0.5 * tallest, fmin(MIN_FLAT * b->axes.w, MIN_LOW * st->font)))
		L->short_of_height = true;
	/* Axes both flat and low (a row of two scatters in a 252 pt column took the default's
	 * aspect, 35 px tall): a height left to the width grows. A heatmap of square cells
	 * counts against the height its width would give it, up to square; a wide line plot
	 * (freqs' two panels) may stay flat while it is tall enough to read. */
	for (size_t i = 0; i < grid; i++) {
		const struct slot *sl = &L->s[i];
		double ratio = aspect_ratio(sl);
		double want = ratio > 0 ? fmin(sl->room.w, sl->room.w / ratio) : sl->room.w;
		if (sl->p->kind != PANEL_EMPTY &&
		    sl->room.h < fmin(MIN_FLAT * want, MIN_LOW * st->font))
			L->short_of_height = true;
	}
}

/* layout(), and again while the row labels take more lines or a smaller size. */
static void layout_rows(struct layout *L)
{
	layout(L);
	for (int k = 0; k < 32 && fit_row_labels(L); k++)
		layout(L);
}

#define GRID_PASSES 3

enum pe_status figure_render(struct pe_figure *fig, cairo_t *cr, const struct fig_style *style,
                             double width, double height)
{
	struct fig_style st = *style;
	struct layout L = {.fig = fig, .st = &st, .cr = cr, .width = width, .height = height};
	size_t grid = (size_t)fig->rows * fig->cols;
	L.n = grid + (fig->bottom ? 1 : 0);
	L.s = calloc(L.n, sizeof(*L.s));
	if (!L.s)
		return PE_ENOMEM;
	enum pe_status s = PE_OK;
	/*
	 * Grid callbacks answer for the axes a layout gives; their grid's
	 * automatic limits (and NaN swatch) may move the layout, so it is
	 * done again until the grids hold still (twice, as a rule). The last
	 * pass asks for nothing: a grid of another size is resampled.
	 */
	for (int pass = 0;; pass++) {
		st = *style;
		memset(L.col_scale, 0, sizeof(L.col_scale));
		memset(&L.all_scale, 0, sizeof(L.all_scale));
		L.cramped = L.cramped_w = false;
		L.bottom_extra = 0;
		for (size_t i = 0; i < L.n; i++) {
			struct slot *sl = &L.s[i];
			memset(sl, 0, sizeof(*sl));
			sl->p = i < grid ? &fig->panels[i] : fig->bottom;
			sl->title = sl->p->title;
			if (!sl->title && i < fig->cols && fig->col_titles[i])
				sl->title = fig->col_titles[i];
			init_axes(sl);
		}
		s = scales(&L);
		for (size_t i = 0; s == PE_OK && i < L.n; i++)
			if (L.s[i].p->kind == PANEL_XY)
				s = xy_ranges(L.s[i].p, &L.s[i].x, &L.s[i].y);
		if (s != PE_OK) {
			free(L.s);
			return s;
		}
		/* Too little room for the text: smaller text, down to a limit, then an honest
		 * error. */
		L.row_lines = 1;
		L.row_scale = 1;
		L.sup_lines = 1;
		L.sup_scale = 1;
		/* A long title takes a third line, then a smaller size down to the labels', rather
		 * than an ellipsis (decay's four schemes at 252 pt). */
		for (double least = text_size(&st, TEXT_LABEL) / text_size(&st, TEXT_SUPTITLE);
		     fig->title;) {
			char out[MAX_LINES][LINE_CAP];
			bool cut;
			sup_font(&L);
			L.sup_lines = text_wrap_cut(cr, fig->title, width - 1.2 * st.font,
			                            MAX_LINES, out, &cut);
			if (!cut || L.sup_scale <= least * 1.0001)
				break;
			L.sup_scale = fmax(least, 0.9 * L.sup_scale);
		}
		/* A note says how to read the figure: wrapped onto more lines, not cut. */
		L.note_lines = 1;
		if (fig->note) {
			text_font(cr, &st, TEXT_TICK);
			char lines[NOTE_LINES][LINE_CAP];
			L.note_lines = text_wrap_para(cr, fig->note, width - 1.2 * st.font,
			                              NOTE_LINES, lines);
		}
		for (;;) {
			layout_rows(&L);
			double slack = fig->bottom ? row_slack(&L) : 0;
			if (slack > st.font) {
				/* Rows of square heatmaps left height unused: give it to the bottom
				 * panel (the rows shorter, their labels measured again), also when
				 * that panel is what is cramped (its legend moved below it).
				 */
				L.bottom_extra = slack;
				layout_rows(&L);
				L.bottom_extra = 0;
			}
			if (!L.cramped)
				break;
			if (st.fit_only || st.font <= st.min_font * 1.0001) {
				free(L.s);
				/* fit_only: PE_ERANGE says a taller canvas would help. */
				return st.fit_only && L.cramped_w ? PE_OK : PE_ERANGE;
			}
			double k = fmax(0.9, st.min_font / st.font);
			st.font *= k;
			st.tick_len *= k;
			st.pad *= k;
			if (st.vector)
				st.line *= k;
		}
		bool again = false;
		for (size_t i = 0; s == PE_OK && pass < GRID_PASSES && i < L.n; i++) {
			bool changed;
			s = heatmap_grid_update(&st, L.s[i].p, L.s[i].axes, &changed);
			again = again || changed;
		}
		if (s != PE_OK) {
			free(L.s);
			return s;
		}
		if (!again)
			break;
	}
	if (st.fit_only) {
		free(L.s);
		/* A legend over the curves is a figure that does not fit: a taller canvas gives it
		 * room below the axes (the decay curves under compare in a 252 pt column). */
		return L.short_of_height ? PE_ERANGE : PE_OK;
	}
	double outer = 0.6 * st.font;
	bool row_labels = has_row_labels(fig);
	/* A rectangle, not cairo_paint(): the canvas has exact ink extents (tests rely on it). */
	cairo_set_source_rgb(cr, 1, 1, 1);
	cairo_rectangle(cr, 0, 0, width, height);
	cairo_fill(cr);
	for (size_t i = 0; s == PE_OK && i < L.n; i++)
		s = draw_slot(&L, &L.s[i]);
	if (s == PE_OK)
		draw_shared_bars(&L);
	cairo_set_source_rgb(cr, 0, 0, 0);
	if (s == PE_OK && row_labels)
		for (unsigned r = 0; r < fig->rows; r++) {
			const char *t = fig->row_labels[r];
			if (!t)
				continue;
			row_font(&L);
			/* Centred on the rows' axes, moved within their cells if it must. */
			double lo, hi, centre;
			row_label_span(&L, r, &lo, &hi, &centre);
			double step = 1.15 * row_size(&L);
			draw_lines_in(cr, t, outer + 0.73 * row_size(&L) + (L.row_lines - 1) * step,
			              centre, hi - lo, FIG_PI / 2, L.row_lines, step, lo, hi);
		}
	if (s == PE_OK && fig->note) {
		char lines[NOTE_LINES][LINE_CAP];
		text_font(cr, &st, TEXT_TICK);
		int n = text_wrap_para(cr, fig->note, width - 2 * outer, L.note_lines, lines);
		double step = 1.15 * text_size(&st, TEXT_TICK);
		cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
		for (int k = 0; k < n; k++)
			text_draw(cr, lines[k], outer,
			          height - outer - descent(&st, TEXT_TICK) -
			                  (double)(n - 1 - k) * step,
			          0, 1, 0);
		cairo_set_source_rgb(cr, 0, 0, 0);
	}
	if (s == PE_OK && fig->title) {
		sup_font(&L);
		double step = 1.15 * sup_size(&L);
		draw_lines(cr, fig->title, width / 2,
		           outer + 0.73 * sup_size(&L) + (L.sup_lines - 1) * step,
		           width - 2 * outer, 0, L.sup_lines, step);
	}
	free(L.s);
	return s;
}
