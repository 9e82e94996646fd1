/*
 * The encode heatmap: positions down, dimensions across. Sinusoidal and
 * RoPE rows are exact block means (pe_encode_window) of equal blocks when n
 * has a divisor that keeps more rows than pixels, of nearly equal blocks
 * beyond EXACT_ROWS positions. Otherwise, up to EXACT_ROWS positions every
 * row is computed and the engine area-averages them onto the pixels, and
 * beyond that other schemes draw the mean of SAMPLES evenly spaced
 * positions of each block (said in the colorbar label).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "encode_figure.h"
#include "figure.h"

#define EXACT_ROWS 8192
#define SAMPLES    8
#define CHUNK      256

struct row_source {
	const struct pe_vectors *v;
	size_t rows;  /* rows the engine sees */
	int sampled;  /* rows are SAMPLES-position means of their blocks */
	int windowed; /* rows are exact block means */
	struct pe_window window;
	double *chunk; /* chunk_rows rows of d, rows [chunk_first, chunk_first + chunk_rows) */
	size_t chunk_rows;
	size_t chunk_first;
	int chunk_valid;
	double *sample; /* one row of d, for sampling */
};

static enum pe_status exact_row(struct row_source *src, size_t row, double *buf)
{
	const struct pe_vectors *v = src->v;
	size_t cr = src->chunk_rows;
	if (!src->chunk_valid || row < src->chunk_first || row >= src->chunk_first + cr) {
		size_t first = row - row % cr;
		size_t count = v->n - first < cr ? v->n - first : cr;
		enum pe_status st = pe_vectors_rows(v, first, count, src->chunk);
		if (st != PE_OK)
			return st;
		src->chunk_first = first;
		src->chunk_valid = 1;
	}
	memcpy(buf, src->chunk + (row - src->chunk_first) * v->d, v->d * sizeof(double));
	return PE_OK;
}

static enum pe_status window_row(struct row_source *src, size_t row, double *buf)
{
	return pe_encode_window(src->v->scheme, src->v->d, &src->window, row, 1, src->v->view, buf);
}

static enum pe_status sampled_row(struct row_source *src, size_t row, double *buf)
{
	const struct pe_vectors *v = src->v;
	/* The block of row a: positions [a*q + min(a, r), (a+1)*q + min(a+1, r)). */
	size_t q = v->n / src->rows, r = v->n % src->rows;
	size_t lo = row * q + (row < r ? row : r);
	size_t len = q + (row < r ? 1 : 0);
	memset(buf, 0, v->d * sizeof(double));
	for (size_t s = 0; s < SAMPLES; s++) {
		size_t at = lo + (size_t)(((double)s + 0.5) * (double)len / SAMPLES);
		enum pe_status st = pe_vectors_rows(v, at, 1, src->sample);
		if (st != PE_OK)
			return st;
		for (size_t j = 0; j < v->d; j++)
			buf[j] += src->sample[j] / SAMPLES;
	}
	return PE_OK;
}

static enum pe_status next_row(void *ctx, size_t row, double *buf)
{
	struct row_source *src = ctx;
	if (src->windowed)
		return window_row(src, row, buf);
	return src->sampled ? sampled_row(src, row, buf) : exact_row(src, row, buf);
}

/* Colour limits known without a pass over the data, or NaN for automatic. */
static void known_limits(const struct pe_vectors *v, double *lo, double *hi, bool *is_signed)
{
	*lo = *hi = NAN;
	*is_signed = true;
	if (v->table)
		return;
	int sign;
	pe_scheme_value_range(v->scheme, v->view, lo, hi, &sign);
	*is_signed = sign != 0;
}

static const char *view_name(enum pe_view view)
{
	switch (view) {
	case PE_VIEW_ANGLE:
		return "angle (rad)";
	case PE_VIEW_COS:
		return "cos";
	case PE_VIEW_SIN:
		return "sin";
	default:
		return "all-ones vector rotated";
	}
}

/* About how many pixel rows the heatmap gets: the figure's height. */
static size_t figure_rows(const struct cli_common *o)
{
	double w, h;
	cli_figure_pixels(o, &w, &h);
	return (size_t)h;
}

/*
 * Rows of equal blocks that still outnumber the pixel rows: the largest
 * block length L dividing n with L <= n / @pixels, as rows m = n / L; 0 when
 * only L = 1 qualifies. Equal blocks average every frequency alike, so the
 * exact block means lose nothing the pixels could show, at 1/L the cost.
 *
 * The search runs over the row counts m (the smallest divisor of n at or
 * above n / floor(n / pixels)), not over L: m is bounded by the pixels,
 * L by n, and a trial division up to n / pixels never ends for n = 1e14
 * (or a prime near 2^53). Up to EQUAL_SEARCH * pixels rows are tried;
 * beyond that the nearly equal blocks serve as well.
 */
#define EQUAL_SEARCH 16
static size_t equal_blocks(size_t n, size_t pixels)
{
	if (pixels == 0 || n / pixels < 2)
		return 0;
	size_t len_max = n / pixels;
	size_t m = n / len_max + (n % len_max != 0);
	size_t last = pixels * EQUAL_SEARCH;
	for (; m <= last && m <= n / 2; m++)
		if (n % m == 0)
			return m;
	return 0;
}

struct cli_encode_rows {
	struct row_source src;
	char cbar[96];
};

void cli_encode_rows_destroy(struct cli_encode_rows *er)
{
	if (!er)
		return;
	free(er->src.chunk);
	free(er->src.sample);
	free(er);
}

int cli_encode_rows_create(const struct cli_common *o, const struct pe_vectors *v, size_t pixels,
                           struct pe_heatmap_spec *spec, struct cli_encode_rows **out)
{
	*out = NULL;
	size_t cells = cli_figure_grid_cells(o, v->n);
	struct row_source src = {.v = v, .rows = v->n};
	int closed_form = !v->table && v->scheme && pe_scheme_has(v->scheme, PE_CAP_WINDOW);
	/*
	 * Blocks of unequal length (n not a multiple of the rows) damp high
	 * frequencies unequally; with thousands of positions per figure row the
	 * difference vanishes, so exact rows are drawn up to EXACT_ROWS.
	 */
	size_t equal = closed_form ? equal_blocks(v->n, pixels) : 0;
	if (equal) {
		src.rows = equal;
		src.windowed = 1;
		src.window = (struct pe_window){v->first, v->n, equal};
	} else if (v->n > EXACT_ROWS && closed_form) {
		src.rows = cells;
		src.windowed = 1;
		src.window = (struct pe_window){v->first, v->n, cells};
	} else if (v->n > EXACT_ROWS) {
		src.rows = cells;
		src.sampled = 1;
	}
	/* Rows computed CHUNK at a time, fewer when they are wide (a few MiB at most). */
	src.chunk_rows = CHUNK;
	while (src.chunk_rows > 1 && (double)src.chunk_rows * (double)v->d * 8.0 > 4194304.0)
		src.chunk_rows /= 2;
	/* The row chunk, the rows the engine keeps, and the picture at 4 bytes a pixel. */
	double w, h;
	cli_figure_pixels(o, &w, &h);
	char fig_what[96];
	snprintf(fig_what, sizeof(fig_what), "the figure of %zu x %zu", v->n, v->d);
	int rc = cli_check_memory(
	        o, ((double)src.chunk_rows + 2.0) * (double)v->d * 8.0 + w * h * 4.0, fig_what,
	        "choose a smaller width (-d) or figure (--width, --height)");
	if (rc)
		return rc;
	struct cli_encode_rows *er = calloc(1, sizeof(*er));
	if (!er)
		return cli_error("out of memory");
	er->src = src;
	er->src.chunk = malloc(src.chunk_rows * v->d * sizeof(double));
	er->src.sample = malloc(v->d * sizeof(double));
	if (!er->src.chunk || !er->src.sample) {
		cli_encode_rows_destroy(er);
		return cli_error("%s: out of memory", fig_what);
	}
	pe_heatmap_spec_init(spec, er->src.rows, v->d, NULL);
	spec->row_fn = next_row;
	spec->row_ctx = &er->src;
	pe_heatmap_spec_set_positions(spec, (double)v->first, v->n, 0.0, v->d);
	double lo, hi;
	bool is_signed;
	known_limits(v, &lo, &hi, &is_signed);
	spec->vmin = lo;
	spec->vmax = hi;
	spec->is_signed = is_signed;
	const struct pe_scheme *s = v->scheme;
	const char *what = s && pe_scheme_has(s, PE_CAP_VIEWS) ? view_name(v->view) : "value";
	if (er->src.sampled)
		snprintf(er->cbar, sizeof(er->cbar), "%s (mean of %d positions per row)", what,
		         SAMPLES);
	else
		snprintf(er->cbar, sizeof(er->cbar), "%s", what);
	spec->colorbar_label = er->cbar;
	*out = er;
	return 0;
}

int cli_encode_figure(const struct cli_common *o, const char *path, enum cli_format format,
                      const struct pe_vectors *v)
{
	struct pe_heatmap_spec spec;
	struct cli_encode_rows *er = NULL;
	int rc = cli_encode_rows_create(o, v, figure_rows(o), &spec, &er);
	if (rc)
		return rc;
	struct pe_figure *fig = pe_figure_create(1, 1);
	if (!fig) {
		rc = cli_error("out of memory");
		goto done;
	}
	pe_figure_set_png_level(fig, CLI_PNG_LEVEL_ENCODE);
	cli_heatmap_apply(o, &spec);
	struct pe_panel *p = pe_figure_panel(fig, 0, 0);
	char title[512];
	const struct pe_scheme *s = v->scheme;
	cli_scheme_title(s ? s->label : "table", v->d, (unsigned long long)v->first, v->n, title,
	                 sizeof(title));
	enum pe_status st = pe_panel_set_heatmap(p, &spec);
	if (st == PE_OK)
		st = pe_panel_set_title(p, title);
	if (st == PE_OK)
		st = pe_panel_set_xlabel(p, "dimension");
	if (st == PE_OK)
		st = pe_panel_set_ylabel(p, "position");
	if (st != PE_OK) {
		rc = cli_figure_error(st);
		goto done;
	}
	char report[96];
	snprintf(report, sizeof(report), "%zu x %zu encoding heatmap", v->n, v->d);
	rc = cli_figure_write(o, path, format, fig, report);
done:
	pe_figure_destroy(fig);
	cli_encode_rows_destroy(er);
	return rc;
}
