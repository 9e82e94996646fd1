/*
 * fig_internal.h - the figure model shared by the figure engine's files
 * (private; not installed)
 */
#ifndef POSENC_FIG_INTERNAL_H
#define POSENC_FIG_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cairo.h>

#include <posenc/figure.h>
#include <posenc/norm.h>
#include <posenc/ticks.h>

#define FIG_MAX_GRID 64
#define FIG_PI       3.14159265358979323846

enum panel_kind {
	PANEL_EMPTY,
	PANEL_HEATMAP,
	PANEL_XY,
};

struct series {
	char *name;
	const double *x, *y;
	size_t n;
	bool points;               /* scatter; otherwise a line */
	const char *const *labels; /* borrowed: text beside each point (NULL entries: none) */
	bool x_ascending;          /* every x finite and each >= the one before */
};

struct refline {
	bool vertical;
	double value;
	char *label;
};

struct pe_panel {
	enum panel_kind kind;
	char *title, *xlabel, *ylabel;
	char *ylabel_short; /* drawn instead of ylabel when that would be cut; NULL: none */

	struct pe_heatmap_spec hm; /* strings in it are owned copies */
	/* hm.grid_fn's answer, owned, for a request of grid_rows x grid_cols; or NULL */
	struct pe_matrix *grid;
	size_t grid_rows, grid_cols;
	struct pe_norm grid_range; /* the grid's finite range */
	bool grid_nan;             /* the grid holds a NaN */

	struct series *series;
	size_t n_series;
	struct refline *refs;
	size_t n_refs;
	bool log_x, log_y;
	bool int_x, int_y;
	double xlim[2], ylim[2]; /* NaN: automatic */
	bool equal_aspect;       /* x-y panel with both limits: one data unit as long both ways */
	/* Set by the layout for one drawing: legend entries wrap at this text width (device
	 * units) so the legend fits the axes; 0: one line an entry. */
	double legend_wrap;
};

struct pe_figure {
	unsigned rows, cols;
	struct pe_panel *panels; /* rows * cols, row-major */
	struct pe_panel *bottom; /* NULL: none */
	char *title;
	char **row_labels, **col_titles;
	enum pe_color_share share;
	double font_size; /* points; 0: automatic */
	double dpi;       /* PNG pixels per inch */
	int png_level;    /* zlib level of PNG output; -1: the writer's default */
	char *note;       /* a line of small text under the figure; NULL: none */
};

/* ---- text (fig_text.c) ---- */

enum text_role {
	TEXT_TICK,
	TEXT_LABEL,
	TEXT_TITLE,
	TEXT_SUPTITLE,
	TEXT_LEGEND,
};

struct fig_style {
	double unit;     /* output units per point: dpi / 72 in PNG, 1 in SVG and PDF */
	double font;     /* base size in output units */
	double min_font; /* the base size may shrink to this, no further (ticks stay >= 6 pt) */
	double line;     /* axis line width */
	double tick_len; /* major tick length */
	double pad;      /* gap between a tick and its label, label and ticks */
	bool vector;     /* SVG or PDF output */
	bool fit_only;   /* figure_render: only say whether it fits at this text size */
	enum pe_figure_format format;
};

double text_size(const struct fig_style *st, enum text_role role);
void text_font(cairo_t *cr, const struct fig_style *st, enum text_role role);
/* DejaVu Sans, or DejaVu Sans Bold, as the current font face. */
void text_face(cairo_t *cr, bool bold);
/*
 * For leak checks (tests): drop the font faces text_face() keeps for the
 * process, before cairo_debug_reset_static_data(); no text may follow.
 */
void text_faces_release(void);
/* Advance width of s in the current font. */
double text_width(cairo_t *cr, const char *s);
/* Height of a digit/capital ("0") in the current font: what tick labels occupy. */
double text_cap(cairo_t *cr);
/*
 * Draw s with its anchor at (x, y): ha 0 left .. 1 right; va 0 top, 0.5
 * middle, 1 bottom of the cap height. @angle in radians, counter-clockwise
 * as seen on the page (rotated y labels use pi/2).
 */
void text_draw(cairo_t *cr, const char *s, double x, double y, double ha, double va, double angle);
/*
 * s cut at a character boundary and ended with an ellipsis so its width is
 * at most max_w in the current font; s itself when it fits. Into buf.
 */
const char *text_fit(cairo_t *cr, const char *s, double max_w, char *buf, size_t cap);
/*
 * Test hook: with POSENC_TEXT_BOXES=FILE in the environment, every page
 * drawn appends "canvas W H UNIT" and every text drawn "text X0 Y0 X1 Y1
 * SIZE<TAB>STRING" (device units, SIZE in points) to FILE.
 */
void text_log_canvas(double w, double h, double unit);
/* And "axes X0 Y0 X1 Y1" for each panel's axes (device units). */
void text_log_axes(cairo_t *cr, double x, double y, double w, double h);

/* Reproducible PDFs: CreationDate and ModDate from SOURCE_DATE_EPOCH, when set. */
void figure_pdf_dates(cairo_surface_t *surf);

/*
 * image_surface() - cairo_image_surface_create(), zeroed, its pixels on huge
 * pages when they take 2 MiB or more (pe_buffer_calloc(): one fault per
 * 2 MiB instead of per 4 KiB, a large canvas's first touch the bulk of its
 * cost); freed with the surface. On failure, a surface in an error state.
 */
cairo_surface_t *image_surface(cairo_format_t format, int width, int height);

/* ---- colours (fig_color.c) ---- */

struct rgb {
	double r, g, b;
};

/* matplotlib's tab10, the colour of series i. */
struct rgb series_color(size_t i);
/* A 256-entry lookup table for a colormap name; false if the name is unknown. */
bool colormap_lut(const char *name, uint8_t lut[256][3]);
/* The colormap used when the caller names none. */
const char *colormap_default(bool is_signed);

/* ---- axes (fig_axes.c) ---- */

struct axis {
	double lo, hi; /* data range shown */
	/* log10 of lo and hi, valid while lo and hi are still log_of[0] and
	 * log_of[1] (axis_cache_logs()): a curve maps every point on the axis */
	double log_lo, log_hi, log_of[2];
	bool log;
	bool integer;
	bool inverted;  /* lo at the top / right end instead of bottom / left */
	bool no_ticks;  /* none at all (pe_heatmap_spec.x_no_ticks) */
	bool no_labels; /* ticks without numbers (pe_heatmap_spec.x_no_tick_labels) */
	bool crowded;   /* axis_fit_ticks() found room for one labelled tick of several */
	struct pe_ticks ticks;
};

struct rect {
	double x, y, w, h;
};

/* Position of data value v along an axis of the given pixel span. */
double axis_map(const struct axis *a, double v, double from, double length);
/* Keep log10 of a log axis's ends for axis_map() (the same values it would compute). */
void axis_cache_logs(struct axis *a);
/* Choose ticks whose labels fit along a horizontal (or vertical) axis of length len. */
void axis_fit_ticks(cairo_t *cr, const struct fig_style *st, struct axis *a, double len,
                    bool horizontal);
/* Width of the widest tick label of a (tick font must be set). */
double axis_label_width(cairo_t *cr, const struct axis *a);
/* Ticks and labels: x axis under the rect, y axis left (or right) of it. */
void axis_draw_x(cairo_t *cr, const struct fig_style *st, const struct axis *a, struct rect r);
void axis_draw_y(cairo_t *cr, const struct fig_style *st, const struct axis *a, struct rect r,
                 bool right);

/* ---- panels (fig_heatmap.c, fig_xy.c) ---- */

/* A colour scale: what a colorbar shows. */
struct colour_scale {
	double vmin, vmax;
	const char *cmap;
	const char *label;
	const char *label_short; /* instead of label when that is not whole ("": none) */
	const char *nan_label;   /* a grey swatch under the bar; NULL: none */
	bool discrete;           /* whole-number bands */
	bool used;
	/* no heatmap it colours has a finite value: its bar would be a range of nothing (a
	 * layer map's sliding window on a model without one), so only the NaN swatch shows */
	bool empty;
};

/*
 * The heatmap as drawn: its spec, or for a grid callback the spec of the
 * grid it last answered (data NULL, and no callback, before the first).
 */
struct pe_heatmap_spec heatmap_view(const struct pe_panel *p);
/*
 * Ask a grid callback for the grid the heatmap needs at axes r, unless the
 * panel holds it already; *changed says whether it asked. PE_OK for other
 * panels.
 */
enum pe_status heatmap_grid_update(const struct fig_style *st, struct pe_panel *p, struct rect r,
                                   bool *changed);
/* heatmap_limits() and heatmap_has_nan() of a heatmap panel, from what its grid answer found. */
enum pe_status heatmap_panel_limits(const struct pe_panel *p, double *vmin, double *vmax);
bool heatmap_panel_has_nan(const struct pe_panel *p);
/* Whether the heatmap's array holds no finite value (false for rows and grids given later). */
bool heatmap_panel_all_nan(const struct pe_panel *p);
/* Colour limits of a heatmap (data pass if automatic); PE status from a row callback. */
enum pe_status heatmap_limits(const struct pe_heatmap_spec *hm, double *vmin, double *vmax);
/* Draw the matrix into r with colormap cmap and limits [vmin, vmax]. */
enum pe_status heatmap_draw(cairo_t *cr, const struct fig_style *st,
                            const struct pe_heatmap_spec *hm, struct rect r, const char *cmap,
                            double vmin, double vmax);
/* Whether the heatmap's data array holds a NaN (false for row callbacks). */
bool heatmap_has_nan(const struct pe_heatmap_spec *hm);
/* Draw a colorbar in r (the bar, and its NaN swatch) with ticks and label on its right. */
void colorbar_draw(cairo_t *cr, const struct fig_style *st, const struct colour_scale *sc,
                   struct rect r);
/* Width a colorbar of height h needs right of its bar (ticks, labels, label). */
double colorbar_extra(cairo_t *cr, const struct fig_style *st, double h,
                      const struct colour_scale *sc);
double colorbar_width(const struct fig_style *st, double h);

/* Data ranges of an x-y panel; PE_EINVAL if a log axis has no positive data. */
enum pe_status xy_ranges(const struct pe_panel *p, struct axis *x, struct axis *y);
/* Legend box size (0 x 0 when no series is named). */
/*
 * xy_covered() - how much of a panel's data a box @b in its axes @r would hide:
 * points of scatters, samples every @step along lines (k = ceil(length / step),
 * at most 10^4, at j / k for j = 1..k after each segment's first point), and
 * reference lines crossing it. Counting stops once it reaches @enough (SIZE_MAX:
 * count all): a box with that many cannot beat the best so far.
 */
size_t xy_covered(const struct pe_panel *p, const struct axis *x, const struct axis *y,
                  struct rect r, struct rect b, double step, size_t enough);
void xy_legend_size(cairo_t *cr, const struct fig_style *st, const struct pe_panel *p, double *w,
                    double *h);
/* Draw the data, reference lines and legend: at *legend_at when given (outside r: right of it
 * or below), else inside r where it hides the least. */
void xy_draw(cairo_t *cr, const struct fig_style *st, const struct pe_panel *p,
             const struct axis *x, const struct axis *y, struct rect r,
             const struct rect *legend_at);
/* Make the legend at most max_w wide by wrapping its entries (p->legend_wrap). */
void xy_legend_fit(cairo_t *cr, const struct fig_style *st, struct pe_panel *p, double max_w);
/* Whether the legend fits inside r without covering data. */
bool xy_legend_inside(cairo_t *cr, const struct fig_style *st, const struct pe_panel *p,
                      const struct axis *x, const struct axis *y, struct rect r);

/* ---- layout and drawing of the whole figure (fig_layout.c) ---- */

#define TEXT_MAX_LINES 3
#define TEXT_LINE_CAP  256
/*
 * s broken at spaces (or, for a word wider than room, after a hyphen, '=', ':' or ',')
 * into at most max lines no wider than room in the current font (fig_wrap.c): the fewest
 * lines, as even as they can be; a number keeps its unit, a factor ("×8") its word, a
 * short parenthesised group its words. What the last line cannot hold ends in an
 * ellipsis. Returns the number of lines in out.
 */
int text_wrap(cairo_t *cr, const char *s, double room, int max, char out[][TEXT_LINE_CAP]);
/* text_wrap() for left-aligned sentences (a figure's note): each line filled, the last
 * one not a word or two alone. */
int text_wrap_para(cairo_t *cr, const char *s, double room, int max, char out[][TEXT_LINE_CAP]);
/* text_wrap(), and *cut says whether a line ended in an ellipsis (the text is not whole). */
int text_wrap_cut(cairo_t *cr, const char *s, double room, int max, char out[][TEXT_LINE_CAP],
                  bool *cut);

/* Sizes of text, lines and gaps for a figure written at w x h in this format. */
/*
 * Scatter markers: one cairo path each (xy_draw_points), or on raster
 * output splatted into a buffer and composited once (xy_splat_points,
 * false when it cannot: then nothing was drawn). Exposed for the test that
 * compares the two.
 */
void xy_draw_points(cairo_t *cr, const struct fig_style *st, const struct series *se, size_t idx,
                    const struct axis *x, const struct axis *y, struct rect r);
bool xy_splat_points(cairo_t *cr, const struct fig_style *st, const struct series *se, size_t idx,
                     const struct axis *x, const struct axis *y, struct rect r);

void figure_style(const struct pe_figure *fig, enum pe_figure_format format, double w, double h,
                  struct fig_style *st);
/* Lay out and draw the figure on cr, whose canvas is width x height. */
enum pe_status figure_render(struct pe_figure *fig, cairo_t *cr, const struct fig_style *st,
                             double width, double height);

#endif
