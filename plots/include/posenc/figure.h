/*
 * posenc/figure.h - figures: heatmaps, line plots, scatters and panel grids
 *
 * A figure is a grid of rows x cols panels (1 x 1 for a single plot), with an
 * optional title, row labels (left of each row), column titles (above each
 * column) and an optional full-width panel below the grid. Each panel is a
 * heatmap, or an x-y panel holding lines and scatter series. Nothing is drawn
 * until pe_figure_write(): the layout (margins from the measured text,
 * ticks, colorbars, legends) is computed for the size and format asked for,
 * so one figure description can be written as PNG, SVG and PDF.
 *
 * Ownership: strings are copied. Numeric arrays (heatmap data, line and
 * scatter coordinates) are borrowed: they must stay valid and unchanged
 * until the figure is destroyed. This keeps a 100000 x 4096 matrix from
 * being copied; very large heatmaps can also be supplied row by row through
 * a callback, so only the resampled grid is ever held in memory.
 *
 * Text is drawn with cairo's toy text API in DejaVu Sans; negative numbers
 * use the U+2212 minus sign.
 *
 * A heatmap of an n x d encoding, written as PNG:
 *
 *	struct pe_figure *fig = pe_figure_create(1, 1);
 *	struct pe_panel *p = pe_figure_panel(fig, 0, 0);
 *	struct pe_heatmap_spec spec;
 *	pe_heatmap_spec_init(&spec, n, d, m->data);
 *	pe_heatmap_spec_set_positions(&spec, first, n, 0, d);
 *	spec.is_signed = true;               // RdBu_r, limits -m..m
 *	pe_panel_set_heatmap(p, &spec);
 *	pe_panel_set_xlabel(p, "dimension");
 *	pe_panel_set_ylabel(p, "position");
 *	status = pe_figure_write(fig, PE_FIGURE_PNG, 0, 0, out);
 *	pe_figure_destroy(fig);
 *
 * Matrices too large to evaluate in full (10^6 positions) can be given as a
 * grid already averaged over blocks of positions, a few times finer than the
 * figure (e.g. 2048 cells a side): set the edges to the coordinates the full
 * matrix covers and the engine area-averages the grid down to the pixels.
 */
#ifndef POSENC_FIGURE_H
#define POSENC_FIGURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <posenc/matrix.h>
#include <posenc/rows.h>
#include <posenc/status.h>

#ifdef __cplusplus
extern "C" {
#endif

enum pe_figure_format {
	PE_FIGURE_PNG, /* width/height in pixels (pe_figure_set_dpi() per inch) */
	PE_FIGURE_SVG, /* width/height in points (1/72 in) */
	PE_FIGURE_PDF, /* width/height in points (1/72 in) */
};

/*
 * matplotlib's default figure, 6.4 x 4.8 in, in points: 640 x 480 pixels
 * at the default 100 dpi, and a page that size in SVG and PDF.
 */
#define PE_FIGURE_DEFAULT_WIDTH  460.8
#define PE_FIGURE_DEFAULT_HEIGHT 345.6
#define PE_FIGURE_DEFAULT_DPI    100

/* How heatmaps of a grid share their colour scale. */
enum pe_color_share {
	PE_SHARE_NONE,   /* each heatmap has its own scale and colorbar */
	PE_SHARE_COLUMN, /* one scale and one colorbar per column of the grid */
	PE_SHARE_ALL,    /* one scale and one colorbar for the whole grid */
};

struct pe_figure;
struct pe_panel;

/*
 * pe_figure_format_from_path() - the format named by a file name's extension
 *
 * Matches ".png", ".svg" and ".pdf", ignoring case.
 *
 * @return PE_OK and *out set, or PE_EUNSUPPORTED for any other name.
 */
PE_API enum pe_status pe_figure_format_from_path(const char *path, enum pe_figure_format *out);

/*
 * pe_figure_create() - an empty figure with a rows x cols grid of panels
 *
 * @return a new figure, or NULL if rows or cols is 0 or larger than 64, or
 * if allocation fails. Free it with pe_figure_destroy().
 */
PE_API struct pe_figure *pe_figure_create(unsigned rows, unsigned cols);

/*
 * pe_figure_destroy() - free a figure, its panels and copied strings; NULL is a no-op
 */
PE_API void pe_figure_destroy(struct pe_figure *fig);

/*
 * pe_figure_set_title() - the title above the whole figure (NULL: none)
 *
 * @return PE_OK or PE_ENOMEM.
 */
PE_API enum pe_status pe_figure_set_title(struct pe_figure *fig, const char *title);

/*
 * pe_figure_set_row_label() - a label drawn left of grid row @row, rotated
 *
 * @return PE_OK, PE_ERANGE if row is outside the grid, or PE_ENOMEM.
 */
PE_API enum pe_status pe_figure_set_row_label(struct pe_figure *fig, unsigned row,
                                              const char *label);

/*
 * pe_figure_set_col_title() - a title drawn above grid column @col
 *
 * @return PE_OK, PE_ERANGE if col is outside the grid, or PE_ENOMEM.
 */
PE_API enum pe_status pe_figure_set_col_title(struct pe_figure *fig, unsigned col,
                                              const char *title);

/*
 * pe_figure_set_color_share() - how heatmaps share colour scales (default NONE)
 *
 * A shared scale spans the limits of every heatmap it covers (each from its
 * data or its explicit vmin/vmax), symmetric about 0 when they are signed,
 * and uses the colormap and colorbar label of the first of them.
 */
PE_API void pe_figure_set_color_share(struct pe_figure *fig, enum pe_color_share share);

/*
 * pe_figure_set_font_size() - size of axis labels in points (0: automatic)
 *
 * Text keeps its size in points whatever the figure's size, as in
 * matplotlib: tick labels and legends are 0.9 of it, panel titles 1.1,
 * the figure title 1.3. Automatic: 10 pt for a single panel, 9 pt for a
 * grid. When the canvas is too small the text shrinks, but tick labels
 * never below 6 pt (or the size asked, if smaller): ticks are thinned and
 * long titles end in an ellipsis instead.
 *
 * @return PE_OK, or PE_ERANGE if size is negative, not finite or above 200.
 */
PE_API enum pe_status pe_figure_set_font_size(struct pe_figure *fig, double size);

/*
 * pe_figure_set_dpi() - pixels per inch of PNG output (default 100)
 *
 * Sets how large a point is in a PNG: text of 10 pt is 13.9 pixels at
 * 100 dpi, 41.7 at 300. Written into the PNG's pHYs chunk. SVG and PDF
 * are measured in points and ignore it.
 *
 * @return PE_OK, or PE_ERANGE outside 10 .. 2400.
 */
PE_API enum pe_status pe_figure_set_dpi(struct pe_figure *fig, double dpi);

/*
 * pe_figure_set_png_level() - zlib level of PNG output, 0 .. 9 (-1: the
 * writer's default, 6)
 *
 * Lower levels write a little larger files much faster; which level pays
 * depends on the picture (doc/conventions.md, "PNG deflate level"). SVG
 * and PDF ignore it.
 *
 * @return PE_OK, or PE_ERANGE outside -1 .. 9.
 */
PE_API enum pe_status pe_figure_set_png_level(struct pe_figure *fig, int level);

/*
 * pe_figure_set_note() - a line of small text under the figure (NULL: none),
 * such as "colour scales shared by column" or "sampled: 16 pairs per cell"
 *
 * @return PE_OK or PE_ENOMEM.
 */
PE_API enum pe_status pe_figure_set_note(struct pe_figure *fig, const char *note);

/*
 * pe_figure_panel() - the panel at grid row @row, column @col
 *
 * @return a panel owned by the figure (valid until pe_figure_destroy()), or
 * NULL if the position is outside the grid.
 */
PE_API struct pe_panel *pe_figure_panel(struct pe_figure *fig, unsigned row, unsigned col);

/*
 * pe_figure_bottom_panel() - the full-width panel below the grid, created on first use
 *
 * @return a panel owned by the figure, or NULL if allocation fails.
 */
PE_API struct pe_panel *pe_figure_bottom_panel(struct pe_figure *fig);

/*
 * pe_figure_default_size() - the size a figure is written at by default
 *
 * In points: 460.8 x 345.6 (matplotlib's 6.4 x 4.8 in) for a single panel;
 * for a grid about 245 x 200 per panel, plus 175 for a bottom panel, never
 * less than 460.8 x 345.6. A PNG is this size at the figure's dpi.
 */
PE_API void pe_figure_default_size(const struct pe_figure *fig, double *width, double *height);

/*
 * pe_figure_write() - lay out and draw the figure, writing it to @out
 *
 * @width, @height: pixels for PNG, points for SVG and PDF; both 0: the
 * figure's default size (pe_figure_default_size()); one 0: that side
 * follows the default aspect ratio. 16 .. 32767 each (cairo's surface limit).
 * @out: written with fwrite(); not closed. The caller handles atomic files.
 *
 * PDF output is reproducible: with SOURCE_DATE_EPOCH set in the
 * environment, its CreationDate and ModDate are that time, not the clock's.
 *
 * @return PE_OK; PE_ERANGE for a bad size or a canvas too small for its
 * panels even with the smallest text; PE_EINVAL if a panel is
 * inconsistent (a log axis with no positive data, a heatmap without data);
 * PE_ENOMEM; PE_EIO if writing failed (errno from the stream, if any); or
 * the status returned by a heatmap row callback.
 */
PE_API enum pe_status pe_figure_write(struct pe_figure *fig, enum pe_figure_format format,
                                      double width, double height, FILE *out);

/* ------------------------------------------------------------------------ */
/* Panels                                                                   */

/*
 * pe_panel_set_title(), pe_panel_set_xlabel(), pe_panel_set_ylabel() - texts
 * of a panel (NULL removes them)
 *
 * @return PE_OK or PE_ENOMEM.
 */
PE_API enum pe_status pe_panel_set_title(struct pe_panel *p, const char *title);
PE_API enum pe_status pe_panel_set_xlabel(struct pe_panel *p, const char *label);
PE_API enum pe_status pe_panel_set_ylabel(struct pe_panel *p, const char *label);

/*
 * pe_panel_set_ylabel_short() - a shorter y label ("corr." for "correlation"),
 * drawn instead of the y label when that is not whole on two lines beside
 * short axes (NULL: none; the label is cut with an ellipsis)
 *
 * @return PE_OK or PE_ENOMEM.
 */
PE_API enum pe_status pe_panel_set_ylabel_short(struct pe_panel *p, const char *label);

/*
 * pe_grid_fn - the matrix averaged onto a grid of at most @rows x @cols cells
 *
 * Fill *out with a new matrix (the engine frees it with
 * pe_matrix_destroy()) of r <= @rows rows and c <= @cols columns, each cell
 * the mean of the block of the full matrix it covers (r and c may be the
 * full matrix's own sides when it is smaller). The engine draws it as it
 * is when it has the raster's size, and area-averages (or repeats cells)
 * otherwise.
 *
 * @return PE_OK, or any other status, which pe_figure_write() returns.
 */
typedef enum pe_status (*pe_grid_fn)(void *ctx, size_t rows, size_t cols, struct pe_matrix **out);

struct pe_heatmap_spec {
	size_t rows, cols;
	const double *data; /* rows * cols, row-major, borrowed; or NULL and: */
	/*
	 * Called for rows 0, 1, ... (cols values each) when data is NULL; once
	 * per written figure, or twice when the colour limits are automatic
	 * (a first pass finds them). Its errors are returned by pe_figure_write().
	 */
	pe_row_fn row_fn;
	void *row_ctx;
	/*
	 * Or, with data and row_fn NULL: asked for the grid the heatmap is
	 * drawn at (one cell per pixel of a PNG), once its layout is known, so
	 * a matrix of 10^6 positions is computed at the figure's own
	 * resolution, not finer. Asked again, at most a few times, only if the
	 * automatic colour limits of the grid change the layout (wider tick
	 * labels on the colorbar). rows and cols are the full matrix's.
	 */
	pe_grid_fn grid_fn;
	void *grid_ctx;
	/*
	 * Data coordinates of the matrix edges: x_lo is the left edge of
	 * column 0, x_hi the right edge of the last column; y_top the top edge
	 * of row 0 (drawn at the top), y_bottom the bottom edge of the last
	 * row. A matrix of positions 1000..1999 has edges 999.5 and 1999.5.
	 */
	double x_lo, x_hi, y_top, y_bottom;
	bool x_integer, y_integer; /* tick only at whole numbers */
	/* No ticks or tick labels on x: a strip of one column whose index means nothing
	 * (a layer map's quantity per layer). */
	bool x_no_ticks;
	/* Ticks without their numbers: an inner panel of a grid whose neighbours on the same
	 * axes carry them (the heads of an ALiBi grid in a narrow column). */
	bool x_no_tick_labels, y_no_tick_labels;
	/*
	 * false (default): the heatmap fills its panel, cells need not be
	 * square (PE matrices are rarely square). true: one data unit is as
	 * long on both axes, like matplotlib's aspect="equal"; the colorbar
	 * still matches the heatmap's height.
	 */
	bool equal_aspect;
	/*
	 * The colour scale (posenc/colormap.h, posenc/norm.h): colormap NULL
	 * means PE_COLORMAP_DEFAULT, or PE_COLORMAP_DIVERGING when is_signed.
	 * vmin/vmax NaN: from the finite data, moved out onto a round number
	 * when that is within 1% of the range (0.99999 becomes 1); signed data
	 * gets symmetric limits -m..m with m = max |value| (one given limit
	 * mirrors the other).
	 * NaN cells are drawn light grey: not white, which reads as 0 on a
	 * diverging map (see nan_label).
	 */
	const char *colormap;
	double vmin, vmax;
	bool is_signed;
	const char *colorbar_label; /* NULL: no label */
	/*
	 * Drawn instead of colorbar_label when that is not whole on two lines beside
	 * the bar (a short heatmap): "L2 distance" for "L2 distance (sampled)" when a
	 * note says the cells are sampled; "" leaves the label out then. NULL: the
	 * label is cut with an ellipsis.
	 */
	const char *colorbar_label_short;
	/* Keep this heatmap's own scale and colorbar even when the figure shares scales. */
	bool own_scale;
	/*
	 * Categorical values (bucket ids): the colorbar shows one band per
	 * whole number with a tick at its centre; automatic limits are
	 * min - 0.5 .. max + 0.5.
	 */
	bool discrete;
	/*
	 * Under the colorbar, a grey swatch naming what NaN cells mean
	 * ("masked"); NULL: "no value" when the data (not a row callback)
	 * holds a NaN, else no swatch.
	 */
	const char *nan_label;
	/*
	 * Write each cell's value in it (as %g: the digits of a binary table),
	 * black or white against the cell's colour, when every cell has room
	 * for its text at the tick size; else no values at all (never some).
	 * Only for data given as an array.
	 */
	bool cell_values;
	/*
	 * Cells that must not be averaged (angles mod 2 pi, categories): a
	 * pixel shows the cell at its centre even when the cells outnumber the
	 * pixels. Only for data given as an array.
	 */
	bool nearest;
};

/*
 * pe_heatmap_spec_init() - defaults for a rows x cols matrix
 *
 * Edges -0.5 .. cols-0.5 and -0.5 .. rows-0.5 (cells centred on their
 * indices), integer ticks, automatic limits, viridis, no label.
 */
PE_API void pe_heatmap_spec_init(struct pe_heatmap_spec *spec, size_t rows, size_t cols,
                                 const double *data);

/*
 * pe_heatmap_spec_set_positions() - edges for cells centred on integer coordinates
 *
 * Rows are positions @row_first.. (row_first + rows - 1), columns
 * @col_first.. (col_first + cols - 1) when the matrix is not pre-resampled;
 * pass the coordinates the full matrix covers otherwise (@row_count, @col_count).
 */
PE_API void pe_heatmap_spec_set_positions(struct pe_heatmap_spec *spec, double row_first,
                                          size_t row_count, double col_first, size_t col_count);

/*
 * pe_panel_set_heatmap() - make @p a heatmap panel
 *
 * The spec is copied (its strings too); the data it points to is borrowed.
 *
 * @return PE_OK; PE_EINVAL if rows or cols is 0, none of data, row_fn and
 * grid_fn is set, an edge pair is equal or not finite, vmin >= vmax, or the
 * colormap is unknown; PE_ENOMEM.
 */
PE_API enum pe_status pe_panel_set_heatmap(struct pe_panel *p, const struct pe_heatmap_spec *spec);

/*
 * pe_panel_heatmap_own_scale() - keep a heatmap panel on its own colour
 * scale and colorbar although the figure shares scales (a column whose
 * ranges differ too much to share); no effect on other panels
 */
PE_API void pe_panel_heatmap_own_scale(struct pe_panel *p, bool own);

/*
 * pe_panel_add_line(), pe_panel_add_scatter() - add a named series of n points
 *
 * Lines are drawn in matplotlib's tab10 colour order with alternating dash
 * patterns; scatters as small translucent markers, or as a density image
 * when there are very many points. A NULL or empty name keeps the series
 * out of the legend. NaN points break lines and are skipped in scatters.
 * @x and @y are borrowed.
 *
 * @return PE_OK; PE_EINVAL if the panel is a heatmap or x/y is NULL with
 * n > 0; PE_ENOMEM.
 */
PE_API enum pe_status pe_panel_add_line(struct pe_panel *p, const char *name, const double *x,
                                        const double *y, size_t n);
PE_API enum pe_status pe_panel_add_scatter(struct pe_panel *p, const char *name, const double *x,
                                           const double *y, size_t n);

/*
 * pe_panel_set_log() - logarithmic x and/or y axes of an x-y panel
 *
 * Points with a non-positive coordinate on a log axis are left out.
 */
PE_API void pe_panel_set_log(struct pe_panel *p, bool log_x, bool log_y);

/*
 * pe_panel_set_integer_ticks() - tick x and/or y of an x-y panel only at whole
 * numbers (offsets, pair indices, dimensions); ignored on log axes
 */
PE_API void pe_panel_set_integer_ticks(struct pe_panel *p, bool x, bool y);

/*
 * pe_panel_set_xlim(), pe_panel_set_ylim() - fix an axis range (NaN: automatic)
 *
 * @return PE_OK, or PE_EINVAL if lo >= hi.
 */
PE_API enum pe_status pe_panel_set_xlim(struct pe_panel *p, double lo, double hi);
PE_API enum pe_status pe_panel_set_ylim(struct pe_panel *p, double lo, double hi);

/*
 * pe_panel_set_point_labels() - text beside each point of the scatter added
 * last, placed away from the centre of its points (the numbers of positions
 * on a circle); @labels has one entry per point, NULL for none, and is
 * borrowed like the coordinates.
 *
 * @return PE_OK, or PE_EINVAL if the last series is not a scatter.
 */
PE_API enum pe_status pe_panel_set_point_labels(struct pe_panel *p, const char *const *labels);

/*
 * pe_panel_set_equal_aspect() - an x-y panel whose limits are both set
 * (pe_panel_set_xlim/ylim) draws one data unit as long across as up, as
 * matplotlib's set_aspect("equal"): a circle stays round.
 */
PE_API void pe_panel_set_equal_aspect(struct pe_panel *p, bool equal);

/*
 * pe_panel_add_vline(), pe_panel_add_hline() - a labelled reference line at
 * x = @value (vertical) or y = @value (horizontal), such as a context length
 *
 * @return PE_OK, PE_EINVAL if value is not finite, or PE_ENOMEM.
 */
PE_API enum pe_status pe_panel_add_vline(struct pe_panel *p, double value, const char *label);
PE_API enum pe_status pe_panel_add_hline(struct pe_panel *p, double value, const char *label);

#ifdef __cplusplus
}
#endif

#endif
