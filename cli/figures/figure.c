#include <errno.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdbool.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <posenc/colormap.h>
#include <posenc/write.h>

#include "cli.h"
#include "figures/figure.h"

int cli_figure_check_options(const struct cli_common *o)
{
	if (o->cmap && !pe_colormap_find(o->cmap)) {
		char names[512] = "";
		size_t len = 0;
		for (const char *const *n = pe_colormap_names(); *n && len < sizeof(names) - 40;
		     n++)
			len += (size_t)snprintf(names + len, sizeof(names) - len, "%s%s",
			                        len ? ", " : "", *n);
		return cli_usage_error("option '--cmap': unknown colormap '%s' (known: %s)",
		                       o->cmap, names);
	}
	if (!isnan(o->vmin) && !isnan(o->vmax) && o->vmin >= o->vmax)
		return cli_usage_error(
		        "options '--vmin %g' and '--vmax %g': vmin must be below vmax", o->vmin,
		        o->vmax);
	return 0;
}

void cli_heatmap_apply(const struct cli_common *o, struct pe_heatmap_spec *spec)
{
	/* One limit of a diverging scale mirrors about 0, so white stays at 0. */
	if (spec->is_signed && isnan(o->vmin) != isnan(o->vmax)) {
		double m = fabs(isnan(o->vmin) ? o->vmax : o->vmin);
		if (o->cmap)
			spec->colormap = o->cmap;
		if (m > 0) {
			spec->vmin = -m;
			spec->vmax = m;
		}
		return;
	}
	if (o->cmap)
		spec->colormap = o->cmap;
	if (!isnan(o->vmin))
		spec->vmin = o->vmin;
	if (!isnan(o->vmax))
		spec->vmax = o->vmax;
}

double cli_figure_dpi(const struct cli_common *o)
{
	if (o->dpi > 0)
		return o->dpi;
	return o->style == CLI_STYLE_PAPER ? 300 : o->style == CLI_STYLE_SLIDES ? 150 : 100;
}

double cli_figure_font_size(const struct cli_common *o)
{
	if (o->font_size > 0)
		return o->font_size;
	return o->style == CLI_STYLE_PAPER ? 9 : o->style == CLI_STYLE_SLIDES ? 14 : 0;
}

static double length_pt(const struct cli_common *o, struct cli_length l)
{
	return l.px ? l.value * 72 / cli_figure_dpi(o) : l.value;
}

bool cli_figure_size_given(const struct cli_common *o)
{
	return o->width.value > 0 || o->height.value > 0;
}

void cli_figure_size_pt(const struct cli_common *o, bool grid, double *width, double *height)
{
	*width = length_pt(o, o->width);
	*height = length_pt(o, o->height);
	if (*width > 0 || *height > 0)
		return;
	/* A column of a two-column paper is 3.5 in (252 pt); a grid spans both (7 in). */
	if (o->style == CLI_STYLE_PAPER)
		*width = grid ? 504 : 252;
	else if (o->style == CLI_STYLE_SLIDES)
		*width = 720;
}

void cli_figure_pixels(const struct cli_common *o, double *width, double *height)
{
	double w, h, k = cli_figure_dpi(o) / 72;
	cli_figure_size_pt(o, false, &w, &h);
	if (w == 0 && h == 0)
		w = PE_FIGURE_DEFAULT_WIDTH, h = PE_FIGURE_DEFAULT_HEIGHT;
	else if (w == 0)
		w = h * PE_FIGURE_DEFAULT_WIDTH / PE_FIGURE_DEFAULT_HEIGHT;
	else if (h == 0)
		h = w * PE_FIGURE_DEFAULT_HEIGHT / PE_FIGURE_DEFAULT_WIDTH;
	*width = ceil(w * k);
	*height = ceil(h * k);
}

size_t cli_figure_grid_cells(const struct cli_common *o, size_t n)
{
	/* The larger side in pixels: a heatmap is never larger, so the engine
	 * only averages down (exact cell means, a quarter of the cells of twice
	 * the side). */
	double w, h;
	cli_figure_pixels(o, &w, &h);
	size_t cells = (size_t)(w > h ? w : h);
	return n < cells ? n : cells;
}

enum pe_status cli_pairwise_grid_fn(void *ctx, size_t rows, size_t cols, struct pe_matrix **out)
{
	const struct cli_pairwise_grid *g = ctx;
	return pe_pairwise_grid(g->v, g->m, rows, cols, out);
}

const char *cli_short_label(const struct pe_scheme *s)
{
	static char buf[4][256];
	static unsigned next;
	if (strcmp(s->label, s->canonical) == 0 && pe_scheme_takes_key(s, "base") &&
	    !strstr(s->canonical, "base=")) {
		/* The canonical spec leaves the default base out; a figure beside "sinusoidal
		 * base=10" must still say which base it drew (the default's title said nothing). */
		const char *name = pe_scheme_type_name(s->type);
		size_t len = strlen(name);
		if (strncmp(s->canonical, name, len) == 0 &&
		    (s->canonical[len] == '\0' || s->canonical[len] == ' ')) {
			char num[32];
			pe_csv_format(s->base, num);
			char *b = buf[next++ % 4];
			snprintf(b, sizeof(buf[0]), "%s base=%s%s", name, num, s->canonical + len);
			return b;
		}
	}
	if (!pe_scheme_has(s, PE_CAP_TABLE) || !s->path || strcmp(s->label, s->canonical) != 0)
		return s->label;
	const char *base = strrchr(s->path, '/');
	char *b = buf[next++ % 4];
	snprintf(b, sizeof(buf[0]), "file %s%s%s", base ? base + 1 : s->path, s->tensor ? " " : "",
	         s->tensor ? s->tensor : "");
	return b;
}

void cli_scale_note(const bool *shared, const char *const *names, size_t count, bool several,
                    char *buf, size_t cap)
{
	size_t n_shared = 0;
	for (size_t c = 0; c < count; c++)
		n_shared += shared[c];
	if (!several || count == 0) {
		snprintf(buf, cap, "%s", "");
	} else if (n_shared == count) {
		snprintf(buf, cap, "Colour scales shared by all schemes (one per quantity).");
	} else if (n_shared == 0) {
		snprintf(buf, cap, "Each panel has its own colour scale.");
	} else {
		size_t len = (size_t)snprintf(buf, cap, "One colour scale for all schemes:");
		for (int pass = 0; pass < 2; pass++) {
			const char *sep = " ";
			if (pass == 1 && len < cap)
				len += (size_t)snprintf(buf + len, cap - len,
				                        ". Own scale per panel:");
			for (size_t c = 0; c < count && len < cap; c++)
				if (shared[c] == (pass == 0)) {
					len += (size_t)snprintf(buf + len, cap - len, "%s%s", sep,
					                        names[c]);
					sep = ", ";
				}
		}
		if (len + 1 < cap)
			snprintf(buf + len, cap - len, ".");
	}
}

const char *cli_sampled_note(const struct pe_grid_info *info, char *buf, size_t cap)
{
	if (info->samples == 1)
		snprintf(buf, cap,
		         "Sampled: each cell is one of its pairs (the centres of its two ranges), "
		         "not "
		         "the mean of all.");
	else
		snprintf(buf, cap,
		         "Sampled: each cell is the mean of %zu of its pairs (%zu positions a "
		         "side), "
		         "not of all.",
		         info->samples * info->samples, info->samples);
	return buf;
}

bool cli_decay_relative(enum cli_scale scale, const double *const *curves, size_t count)
{
	if (scale != CLI_SCALE_AUTO || count < 2)
		return false;
	double lo = INFINITY, hi = 0;
	for (size_t i = 0; i < count; i++) {
		double a = fabs(curves[i][0]);
		lo = fmin(lo, a);
		hi = fmax(hi, a);
	}
	return hi > 0 && lo > 0 && lo < 0.25 * hi;
}

int cli_parse_scale(const char *arg, enum cli_scale *out)
{
	if (strcmp(arg, "auto") == 0)
		*out = CLI_SCALE_AUTO;
	else if (strcmp(arg, "shared") == 0)
		*out = CLI_SCALE_SHARED;
	else if (strcmp(arg, "panel") == 0)
		*out = CLI_SCALE_PANEL;
	else
		return cli_usage_error("option '--scale': '%s' is not auto, shared or panel", arg);
	return 0;
}

bool cli_scale_shared(enum cli_scale scale, const struct pe_matrix *const *m, size_t count)
{
	if (scale != CLI_SCALE_AUTO)
		return scale == CLI_SCALE_SHARED;
	double narrow = INFINITY, wide = 0;
	for (size_t k = 0; k < count; k++) {
		if (!m[k])
			continue;
		double lo = INFINITY, hi = -INFINITY;
		for (size_t i = 0; i < m[k]->rows * m[k]->cols; i++)
			if (isfinite(m[k]->data[i])) {
				lo = fmin(lo, m[k]->data[i]);
				hi = fmax(hi, m[k]->data[i]);
			}
		if (!(hi >= lo))
			continue;
		narrow = fmin(narrow, hi - lo);
		wide = fmax(wide, hi - lo);
	}
	return !(wide > 0) || narrow >= 0.25 * wide;
}

int cli_figure_apply(const struct cli_common *o, struct pe_figure *fig)
{
	if (pe_figure_set_dpi(fig, cli_figure_dpi(o)) != PE_OK ||
	    pe_figure_set_font_size(fig, cli_figure_font_size(o)) != PE_OK)
		return cli_usage_error("options '--dpi' and '--font-size': out of range");
	return 0;
}

int cli_figure_error_hint(enum pe_status st, const char *hint)
{
	if (st == PE_ENOMEM)
		return cli_error("drawing the figure failed: out of memory");
	if (st == PE_ERANGE)
		return cli_error("drawing the figure failed: the canvas is too small for its text "
		                 "and panels (give a larger --width/--height%s%s)",
		                 hint ? ", or " : "", hint ? hint : "");
	return cli_error("drawing the figure failed: %s", pe_status_str(st));
}

int cli_figure_error(enum pe_status st)
{
	return cli_figure_error_hint(st, NULL);
}

int cli_figure_write(const struct cli_common *o, const char *path, enum cli_format format,
                     struct pe_figure *fig, const char *what)
{
	return cli_figure_write_hint(o, path, format, fig, what, NULL, NULL);
}

/*
 * The figure's format and size (PNG in pixels; 0 for a side that follows the figure's
 * aspect, *dw x *dh its default), with --title and the figure options applied.
 * @return an exit code, reported.
 */
static int figure_target(const struct cli_common *o, enum cli_format format, struct pe_figure *fig,
                         enum pe_figure_format *ff, double *w, double *h, double *dw, double *dh)
{
	*ff = format == CLI_FORMAT_SVG   ? PE_FIGURE_SVG
	      : format == CLI_FORMAT_PDF ? PE_FIGURE_PDF
	                                 : PE_FIGURE_PNG;
	if (o->title && pe_figure_set_title(fig, o->title) != PE_OK)
		return cli_error("out of memory");
	int rc = cli_figure_apply(o, fig);
	if (rc)
		return rc;
	pe_figure_default_size(fig, dw, dh);
	cli_figure_size_pt(o, *dw > PE_FIGURE_DEFAULT_WIDTH, w, h);
	/* A side not given follows the figure's aspect (the engine makes a narrow grid taller). */
	if (*ff == PE_FIGURE_PNG) {
		/* 16 .. 32767 pixels a side: cairo's image surfaces. */
		double k = cli_figure_dpi(o) / 72;
		*w = round(*w * k);
		*h = round(*h * k);
		if (*w > 32767 || *h > 32767 || (*w > 0 && *w < 16) || (*h > 0 && *h < 16))
			return cli_usage_error(
			        "a %.0f x %.0f pixel PNG is outside 16..32767 pixels a "
			        "side (check --width/--height/--size and --dpi)",
			        *w, *h);
	}
	return 0;
}

bool cli_figure_fits(const struct cli_common *o, enum cli_format format, struct pe_figure *fig)
{
	enum pe_figure_format ff;
	double w, h, dw, dh;
	if (figure_target(o, format, fig, &ff, &w, &h, &dw, &dh))
		return false;
	FILE *sink = fopen("/dev/null", "wb");
	if (!sink)
		return false;
	enum pe_status st = pe_figure_write(fig, ff, w, h, sink);
	fclose(sink);
	return st == PE_OK;
}

int cli_figure_write_hint(const struct cli_common *o, const char *path, enum cli_format format,
                          struct pe_figure *fig, const char *what, cli_hint_fn *hint, void *ctx)
{
	enum pe_figure_format ff;
	double dw = 0, dh = 0, w = 0, h = 0; /* figure_target() sets them unless it fails */
	int rc = figure_target(o, format, fig, &ff, &w, &h, &dw, &dh);
	if (rc)
		return rc;
	if (ff == PE_FIGURE_PNG) {
		double k = cli_figure_dpi(o) / 72;
		/* Every figure, curves and scatters too: cairo's canvas (4 bytes a
		 * pixel) and as much again for the rows being encoded and a heatmap's
		 * resampled image; a side not given is the default's. */
		double pw = w > 0 ? w : round(dw * k), ph = h > 0 ? h : round(dh * k);
		if (w > 0 && !(h > 0))
			ph = round(pw * dh / dw);
		if (h > 0 && !(w > 0))
			pw = round(ph * dw / dh);
		char canvas[96];
		snprintf(canvas, sizeof(canvas), "the %.0f x %.0f pixel figure", pw, ph);
		rc = cli_check_memory(o, pw * ph * 8.0, canvas,
		                      "choose a smaller figure (--width, --height, --size, --dpi)");
		if (rc)
			return rc;
	}
	struct cli_file file;
	rc = cli_file_open(&file, path);
	if (rc)
		return rc;
#ifdef __GLIBC__
	/*
	 * What is left of the process is drawing (and the grids computed for
	 * it): blocks up to 64 MiB from the heap, freed memory kept for the
	 * next. glibc maps each block over 128 KiB afresh and unmaps it on
	 * free, so grids, surfaces and buffers each paid their page faults
	 * again (0.5-1 ms CPU of a 12 ms figure). Not set earlier: the file
	 * readers grow their buffers by mremap, without a copy beside them.
	 */
	mallopt(M_MMAP_THRESHOLD, 64 << 20);
	mallopt(M_TRIM_THRESHOLD, 128 << 20);
#endif
	errno = 0;
	enum pe_status st = pe_figure_write(fig, ff, w, h, file.f);
	if (st != PE_OK) {
		if (st == PE_EIO)
			return cli_file_fail(&file, st, errno);
		cli_file_abort(&file);
		return cli_figure_error_hint(st, st == PE_ERANGE && hint ? hint(ctx) : NULL);
	}
	rc = cli_file_commit(&file);
	if (!rc)
		cli_report_written(o, path, what);
	return rc;
}

const char *cli_scheme_title(const char *label, size_t d, unsigned long long first, size_t n,
                             char *buf, size_t cap)
{
	snprintf(buf, cap, "%s (d=%zu, positions %llu..%llu)", label, d, first,
	         first + (unsigned long long)n - 1);
	return buf;
}
