#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fig_internal.h"

static char *dup_or_null(const char *s)
{
	if (!s)
		return NULL;
	size_t n = strlen(s) + 1;
	char *d = malloc(n);
	if (d)
		memcpy(d, s, n);
	return d;
}

/* Replace *slot with a copy of s (NULL clears). */
static enum pe_status set_string(char **slot, const char *s)
{
	char *d = dup_or_null(s);
	if (s && !d)
		return PE_ENOMEM;
	free(*slot);
	*slot = d;
	return PE_OK;
}

enum pe_status pe_figure_format_from_path(const char *path, enum pe_figure_format *out)
{
	static const struct {
		const char *ext;
		enum pe_figure_format f;
	} names[] = {{".png", PE_FIGURE_PNG}, {".svg", PE_FIGURE_SVG}, {".pdf", PE_FIGURE_PDF}};
	const char *dot = path ? strrchr(path, '.') : NULL;
	if (!dot || strlen(dot) != 4)
		return PE_EUNSUPPORTED;
	for (size_t i = 0; i < 3; i++) {
		bool same = true;
		for (size_t k = 0; k < 4; k++)
			same &= tolower((unsigned char)dot[k]) == names[i].ext[k];
		if (same) {
			*out = names[i].f;
			return PE_OK;
		}
	}
	return PE_EUNSUPPORTED;
}

static void panel_init(struct pe_panel *p)
{
	memset(p, 0, sizeof(*p));
	p->xlim[0] = p->xlim[1] = p->ylim[0] = p->ylim[1] = NAN;
}

static void panel_finish(struct pe_panel *p)
{
	free(p->title);
	free(p->xlabel);
	free(p->ylabel);
	free(p->ylabel_short);
	free((char *)p->hm.colormap);
	free((char *)p->hm.colorbar_label);
	free((char *)p->hm.colorbar_label_short);
	pe_matrix_destroy(p->grid);
	for (size_t i = 0; i < p->n_series; i++)
		free(p->series[i].name);
	free(p->series);
	for (size_t i = 0; i < p->n_refs; i++)
		free(p->refs[i].label);
	free(p->refs);
}

struct pe_figure *pe_figure_create(unsigned rows, unsigned cols)
{
	if (rows == 0 || cols == 0 || rows > FIG_MAX_GRID || cols > FIG_MAX_GRID)
		return NULL;
	struct pe_figure *fig = calloc(1, sizeof(*fig));
	if (!fig)
		return NULL;
	fig->rows = rows;
	fig->cols = cols;
	fig->dpi = PE_FIGURE_DEFAULT_DPI;
	fig->png_level = -1;
	fig->panels = calloc((size_t)rows * cols, sizeof(*fig->panels));
	fig->row_labels = calloc(rows, sizeof(char *));
	fig->col_titles = calloc(cols, sizeof(char *));
	if (!fig->panels || !fig->row_labels || !fig->col_titles) {
		free(fig->panels);
		free(fig->row_labels);
		free(fig->col_titles);
		free(fig);
		return NULL;
	}
	for (size_t i = 0; i < (size_t)rows * cols; i++)
		panel_init(&fig->panels[i]);
	return fig;
}

void pe_figure_destroy(struct pe_figure *fig)
{
	if (!fig)
		return;
	for (size_t i = 0; i < (size_t)fig->rows * fig->cols; i++)
		panel_finish(&fig->panels[i]);
	if (fig->bottom)
		panel_finish(fig->bottom);
	free(fig->bottom);
	free(fig->panels);
	for (unsigned r = 0; r < fig->rows; r++)
		free(fig->row_labels[r]);
	for (unsigned c = 0; c < fig->cols; c++)
		free(fig->col_titles[c]);
	free(fig->row_labels);
	free(fig->col_titles);
	free(fig->title);
	free(fig->note);
	free(fig);
}

enum pe_status pe_figure_set_title(struct pe_figure *fig, const char *title)
{
	return set_string(&fig->title, title);
}

enum pe_status pe_figure_set_row_label(struct pe_figure *fig, unsigned row, const char *label)
{
	if (row >= fig->rows)
		return PE_ERANGE;
	return set_string(&fig->row_labels[row], label);
}

enum pe_status pe_figure_set_col_title(struct pe_figure *fig, unsigned col, const char *title)
{
	if (col >= fig->cols)
		return PE_ERANGE;
	return set_string(&fig->col_titles[col], title);
}

void pe_figure_set_color_share(struct pe_figure *fig, enum pe_color_share share)
{
	fig->share = share;
}

enum pe_status pe_figure_set_font_size(struct pe_figure *fig, double size)
{
	if (!(size >= 0 && size <= 200))
		return PE_ERANGE;
	fig->font_size = size;
	return PE_OK;
}

enum pe_status pe_figure_set_dpi(struct pe_figure *fig, double dpi)
{
	if (!(dpi >= 10 && dpi <= 2400))
		return PE_ERANGE;
	fig->dpi = dpi;
	return PE_OK;
}

enum pe_status pe_figure_set_png_level(struct pe_figure *fig, int level)
{
	if (level < -1 || level > 9)
		return PE_ERANGE;
	fig->png_level = level;
	return PE_OK;
}

enum pe_status pe_figure_set_note(struct pe_figure *fig, const char *note)
{
	return set_string(&fig->note, note);
}

struct pe_panel *pe_figure_panel(struct pe_figure *fig, unsigned row, unsigned col)
{
	if (row >= fig->rows || col >= fig->cols)
		return NULL;
	return &fig->panels[(size_t)row * fig->cols + col];
}

struct pe_panel *pe_figure_bottom_panel(struct pe_figure *fig)
{
	if (!fig->bottom) {
		fig->bottom = malloc(sizeof(*fig->bottom));
		if (fig->bottom)
			panel_init(fig->bottom);
	}
	return fig->bottom;
}

enum pe_status pe_panel_set_title(struct pe_panel *p, const char *title)
{
	return set_string(&p->title, title);
}

enum pe_status pe_panel_set_xlabel(struct pe_panel *p, const char *label)
{
	return set_string(&p->xlabel, label);
}

enum pe_status pe_panel_set_ylabel(struct pe_panel *p, const char *label)
{
	return set_string(&p->ylabel, label);
}

enum pe_status pe_panel_set_ylabel_short(struct pe_panel *p, const char *label)
{
	return set_string(&p->ylabel_short, label);
}

void pe_heatmap_spec_init(struct pe_heatmap_spec *spec, size_t rows, size_t cols,
                          const double *data)
{
	memset(spec, 0, sizeof(*spec));
	spec->rows = rows;
	spec->cols = cols;
	spec->data = data;
	spec->x_integer = spec->y_integer = true;
	spec->vmin = spec->vmax = NAN;
	pe_heatmap_spec_set_positions(spec, 0, rows, 0, cols);
}

void pe_heatmap_spec_set_positions(struct pe_heatmap_spec *spec, double row_first, size_t row_count,
                                   double col_first, size_t col_count)
{
	spec->y_top = row_first - 0.5;
	spec->y_bottom = row_first + (double)row_count - 0.5;
	spec->x_lo = col_first - 0.5;
	spec->x_hi = col_first + (double)col_count - 0.5;
}

enum pe_status pe_panel_set_heatmap(struct pe_panel *p, const struct pe_heatmap_spec *spec)
{
	uint8_t lut[256][3];
	if (p->kind == PANEL_XY || spec->rows == 0 || spec->cols == 0 ||
	    (!spec->data && !spec->row_fn && !spec->grid_fn))
		return PE_EINVAL;
	if (!isfinite(spec->x_lo) || !isfinite(spec->x_hi) || !isfinite(spec->y_top) ||
	    !isfinite(spec->y_bottom) || spec->x_lo == spec->x_hi || spec->y_top == spec->y_bottom)
		return PE_EINVAL;
	if (!isnan(spec->vmin) && !isnan(spec->vmax) && !(spec->vmin < spec->vmax))
		return PE_EINVAL;
	if (spec->colormap && !colormap_lut(spec->colormap, lut))
		return PE_EINVAL;
	char *cmap = dup_or_null(spec->colormap);
	char *label = dup_or_null(spec->colorbar_label);
	char *label_short = dup_or_null(spec->colorbar_label_short);
	if ((spec->colormap && !cmap) || (spec->colorbar_label && !label) ||
	    (spec->colorbar_label_short && !label_short)) {
		free(cmap);
		free(label);
		free(label_short);
		return PE_ENOMEM;
	}
	free((char *)p->hm.colormap);
	free((char *)p->hm.colorbar_label);
	free((char *)p->hm.colorbar_label_short);
	pe_matrix_destroy(p->grid);
	p->grid = NULL;
	p->hm = *spec;
	p->hm.colormap = cmap;
	p->hm.colorbar_label = label;
	p->hm.colorbar_label_short = label_short;
	p->kind = PANEL_HEATMAP;
	return PE_OK;
}

void pe_panel_heatmap_own_scale(struct pe_panel *p, bool own)
{
	if (p && p->kind == PANEL_HEATMAP)
		p->hm.own_scale = own;
}

static enum pe_status add_series(struct pe_panel *p, const char *name, const double *x,
                                 const double *y, size_t n, bool points)
{
	if (p->kind == PANEL_HEATMAP || (n > 0 && (!x || !y)))
		return PE_EINVAL;
	struct series *s = realloc(p->series, (p->n_series + 1) * sizeof(*s));
	if (!s)
		return PE_ENOMEM;
	p->series = s;
	char *copy = name && *name ? dup_or_null(name) : NULL;
	if (name && *name && !copy)
		return PE_ENOMEM;
	bool ascending = true;
	for (size_t i = 0; i < n && ascending; i++)
		ascending = isfinite(x[i]) && (i == 0 || x[i] >= x[i - 1]);
	s[p->n_series++] = (struct series){copy, x, y, n, points, NULL, ascending};
	p->kind = PANEL_XY;
	return PE_OK;
}

enum pe_status pe_panel_add_line(struct pe_panel *p, const char *name, const double *x,
                                 const double *y, size_t n)
{
	return add_series(p, name, x, y, n, false);
}

enum pe_status pe_panel_add_scatter(struct pe_panel *p, const char *name, const double *x,
                                    const double *y, size_t n)
{
	return add_series(p, name, x, y, n, true);
}

void pe_panel_set_log(struct pe_panel *p, bool log_x, bool log_y)
{
	p->log_x = log_x;
	p->log_y = log_y;
}

void pe_panel_set_integer_ticks(struct pe_panel *p, bool x, bool y)
{
	p->int_x = x;
	p->int_y = y;
}

static enum pe_status set_lim(double lim[2], double lo, double hi)
{
	if (isnan(lo) || isnan(hi)) {
		lim[0] = lim[1] = NAN;
		return PE_OK;
	}
	if (!(lo < hi) || !isfinite(lo) || !isfinite(hi))
		return PE_EINVAL;
	lim[0] = lo;
	lim[1] = hi;
	return PE_OK;
}

enum pe_status pe_panel_set_xlim(struct pe_panel *p, double lo, double hi)
{
	return set_lim(p->xlim, lo, hi);
}

enum pe_status pe_panel_set_ylim(struct pe_panel *p, double lo, double hi)
{
	return set_lim(p->ylim, lo, hi);
}

enum pe_status pe_panel_set_point_labels(struct pe_panel *p, const char *const *labels)
{
	if (p->kind != PANEL_XY || !p->n_series || !p->series[p->n_series - 1].points)
		return PE_EINVAL;
	p->series[p->n_series - 1].labels = labels;
	return PE_OK;
}

void pe_panel_set_equal_aspect(struct pe_panel *p, bool equal)
{
	p->equal_aspect = equal;
}

static enum pe_status add_ref(struct pe_panel *p, bool vertical, double value, const char *label)
{
	if (!isfinite(value) || p->kind == PANEL_HEATMAP)
		return PE_EINVAL;
	struct refline *r = realloc(p->refs, (p->n_refs + 1) * sizeof(*r));
	if (!r)
		return PE_ENOMEM;
	p->refs = r;
	char *copy = dup_or_null(label);
	if (label && !copy)
		return PE_ENOMEM;
	r[p->n_refs++] = (struct refline){vertical, value, copy};
	p->kind = PANEL_XY;
	return PE_OK;
}

enum pe_status pe_panel_add_vline(struct pe_panel *p, double value, const char *label)
{
	return add_ref(p, true, value, label);
}

enum pe_status pe_panel_add_hline(struct pe_panel *p, double value, const char *label)
{
	return add_ref(p, false, value, label);
}
