/*
 * encode_views.c - the teaching views of encode (--dims, --pair, --view phase)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "figures/encode_views.h"
#include "figures/figure.h"
#include "shared/costs.h"

#define TWO_PI 6.283185307179586
/*
 * 2 pi as the sum of three doubles (TWO_PI is the first): at an angle of
 * 10^9 the 1.6e8 turns taken off with TWO_PI alone would leave an error of
 * 1.6e8 x 2.4e-16 = 4e-8 in the phase.
 */
#define TWO_PI_MID 2.4492935982947064e-16
#define TWO_PI_LO  -5.989539619436679e-33
/* Positions a curve or plane view takes: every one is drawn. */
#define MAX_VIEW_POSITIONS ((size_t)1 << 20)
/* Numbers beside the points of a pair view up to this many positions. */
#define MAX_POINT_LABELS 64

double cli_phase(double x)
{
	/* fmod is exact: r = x - k TWO_PI for a whole k, which then gets the rest of 2 pi. */
	double r = fmod(x, TWO_PI);
	double k = nearbyint((x - r) / TWO_PI);
	r = fma(-k, TWO_PI_LO, fma(-k, TWO_PI_MID, r));
	if (r < 0)
		r = (r + TWO_PI) + TWO_PI_MID;
	/* A phase just below 2 pi rounds to TWO_PI: it is 0 turned once. */
	return r >= TWO_PI ? 0.0 : r;
}

int cli_parse_dims(const char *opt, const char *arg, size_t *dims, size_t *count, size_t want)
{
	size_t k = 0;
	const char *p = arg;
	for (;;) {
		char *end;
		if (*p < '0' || *p > '9')
			break;
		unsigned long long v = strtoull(p, &end, 10);
		if (k == CLI_MAX_DIMS || v > 1u << 30)
			break;
		dims[k++] = (size_t)v;
		if (*end == '\0') {
			if (want && k != want)
				break;
			*count = k;
			return 0;
		}
		if (*end != ',')
			break;
		p = end + 1;
	}
	if (want)
		return cli_usage_error(
		        "option '%s': '%s' is not two dimensions A,B (0 is the first)", opt, arg);
	return cli_usage_error("option '%s': '%s' is not a list of 1 to %d dimensions (0,1,10)",
	                       opt, arg, CLI_MAX_DIMS);
}

/* The dimensions must exist and the positions be few enough to draw each. */
static int check_view(const struct pe_vectors *v, const char *opt, const size_t *dims, size_t count)
{
	for (size_t k = 0; k < count; k++)
		if (dims[k] >= v->d)
			return cli_usage_error("option '%s': dimension %zu is past the width d=%zu "
			                       "(dimensions are 0..%zu)",
			                       opt, dims[k], v->d, v->d - 1);
	if (v->n > MAX_VIEW_POSITIONS)
		return cli_usage_error("option '%s' draws every position: at most %zu (lower -n)",
		                       opt, MAX_VIEW_POSITIONS);
	return 0;
}

/* Columns @dims of every position, count x n (one row per column), or NULL after reporting. */
static double *columns(const struct cli_common *o, const struct pe_vectors *v, const size_t *dims,
                       size_t count)
{
	size_t block = (1u << 20) / v->d + 1, n = v->n;
	block = block > n ? n : block;
	/* A closed form computes the chosen columns alone (pe_encode_blocks_cols(),
	 * a block of one position per row); anything else forms whole rows. */
	int closed = !v->table && v->scheme && pe_scheme_has(v->scheme, PE_CAP_WINDOW);
	if (closed)
		block = 0;
	if (cli_check_memory(o, ((double)count * (double)n + (double)block * (double)v->d) * 8.0,
	                     "the chosen dimensions", "lower -n or -d") ||
	    cli_check_time(o,
	                   (double)n * (closed     ? (double)count * CLI_COST_COLUMN_VALUE
	                                : v->table ? (double)v->d * CLI_COST_ROW_VALUE
	                                           : (double)v->d * CLI_COST_TABLE_VALUE),
	                   "the chosen dimensions", "lower -n or -d"))
		return NULL;
	if (closed) {
		double *out = malloc(count * n * sizeof(double)), *part = NULL;
		struct pe_block *b = malloc(4096 * sizeof(*b));
		enum pe_status st = out && b && (part = malloc(4096 * count * sizeof(double)))
		                            ? PE_OK
		                            : PE_ENOMEM;
		for (size_t r0 = 0; r0 < n && st == PE_OK; r0 += 4096) {
			size_t c = n - r0 < 4096 ? n - r0 : 4096;
			for (size_t r = 0; r < c; r++)
				b[r] = (struct pe_block){v->first + r0 + r, 1};
			st = pe_encode_blocks_cols(v->scheme, v->d, v->view, b, c, dims, count,
			                           part);
			for (size_t r = 0; r < c && st == PE_OK; r++)
				for (size_t k = 0; k < count; k++)
					out[k * n + r0 + r] = part[r * count + k];
		}
		free(b);
		free(part);
		if (st != PE_OK) {
			free(out);
			cli_error("the chosen dimensions: %s", pe_status_str(st));
			return NULL;
		}
		return out;
	}
	double *out = malloc(count * n * sizeof(double));
	double *rows = malloc(block * v->d * sizeof(double));
	enum pe_status st = out && rows ? PE_OK : PE_ENOMEM;
	for (size_t r0 = 0; r0 < n && st == PE_OK; r0 += block) {
		size_t c = n - r0 < block ? n - r0 : block;
		st = pe_vectors_rows(v, r0, c, rows);
		for (size_t r = 0; r < c && st == PE_OK; r++)
			for (size_t k = 0; k < count; k++)
				out[k * n + r0 + r] = rows[r * v->d + dims[k]];
	}
	free(rows);
	if (st != PE_OK) {
		free(out);
		cli_error("the chosen dimensions: %s", pe_status_str(st));
		return NULL;
	}
	return out;
}

static const char *label_of(const struct pe_vectors *v)
{
	return v->scheme ? cli_short_label(v->scheme) : "table";
}

int cli_dims_write(const struct cli_common *o, const char *path, enum cli_format format,
                   const struct pe_vectors *v, const size_t *dims, size_t count)
{
	int rc = check_view(v, "--dims", dims, count);
	if (rc)
		return rc;
	double *col = columns(o, v, dims, count);
	if (!col)
		return CLI_FAILURE;
	size_t n = v->n;
	if (!cli_format_is_figure(format)) {
		struct pe_matrix *m = pe_matrix_create(n, count);
		char names[CLI_MAX_DIMS][24];
		const char *heads[CLI_MAX_DIMS];
		if (!m) {
			free(col);
			return cli_error("out of memory");
		}
		for (size_t k = 0; k < count; k++) {
			snprintf(names[k], sizeof(names[k]), "%zu", dims[k]);
			heads[k] = names[k];
			for (size_t r = 0; r < n; r++)
				m->data[r * count + k] = col[k * n + r];
		}
		struct pe_axis rows = {"position", (double)v->first, 1.0, NULL};
		struct pe_axis cols = {NULL, 0.0, 1.0, heads};
		rc = cli_write_matrix(o, path, format, m, &rows, &cols);
		pe_matrix_destroy(m);
		free(col);
		return rc;
	}
	double *x = malloc(n * sizeof(double));
	struct pe_figure *fig = pe_figure_create(1, 1);
	if (!x || !fig) {
		free(x);
		free(col);
		pe_figure_destroy(fig);
		return cli_error("the figure: out of memory");
	}
	for (size_t r = 0; r < n; r++)
		x[r] = (double)(v->first + r);
	pe_figure_set_png_level(fig, CLI_PNG_LEVEL_CURVES);
	struct pe_panel *p = pe_figure_panel(fig, 0, 0);
	enum pe_status st = PE_OK;
	for (size_t k = 0; k < count && st == PE_OK; k++) {
		char name[32];
		snprintf(name, sizeof(name), "dimension %zu", dims[k]);
		st = pe_panel_add_line(p, count > 1 ? name : NULL, x, col + k * n, n);
	}
	if (st == PE_OK)
		st = pe_panel_set_xlabel(p, "position");
	char ylabel[48], title[512];
	if (count == 1)
		snprintf(ylabel, sizeof(ylabel), "dimension %zu", dims[0]);
	else
		snprintf(ylabel, sizeof(ylabel), "value");
	if (st == PE_OK)
		st = pe_panel_set_ylabel(p, ylabel);
	cli_scheme_title(label_of(v), v->d, (unsigned long long)v->first, v->n, title,
	                 sizeof(title));
	if (st == PE_OK)
		st = pe_figure_set_title(fig, title);
	if (st != PE_OK) {
		rc = cli_figure_error(st);
	} else {
		char what[64];
		snprintf(what, sizeof(what), "%zu dimension%s against position", count,
		         count == 1 ? "" : "s");
		rc = cli_figure_write(o, path, format, fig, what);
	}
	pe_figure_destroy(fig);
	free(x);
	free(col);
	return rc;
}

/*
 * What the points say about the rotation: the same radius and the same turn
 * between every two neighbours (within 1e-9), and which. 0: not one rotation.
 */
static int one_rotation(const double *x, const double *y, size_t n, double *radius, double *step)
{
	if (n < 2)
		return 0;
	double r0 = hypot(x[0], y[0]);
	double a0 = atan2(x[0] * y[1] - y[0] * x[1], x[0] * x[1] + y[0] * y[1]);
	for (size_t t = 0; t + 1 < n; t++) {
		double r = hypot(x[t + 1], y[t + 1]);
		double a =
		        atan2(x[t] * y[t + 1] - y[t] * x[t + 1], x[t] * x[t + 1] + y[t] * y[t + 1]);
		if (!(fabs(r - r0) <= 1e-9 * fmax(1, r0)) || !(fabs(a - a0) <= 1e-9))
			return 0;
	}
	*radius = r0;
	*step = a0;
	return r0 > 0;
}

int cli_pair_figure(const struct cli_common *o, const char *path, enum cli_format format,
                    const struct pe_vectors *v, size_t a, size_t b)
{
	const size_t dims[2] = {a, b};
	int rc = check_view(v, "--pair", dims, 2);
	if (rc)
		return rc;
	double *col = columns(o, v, dims, 2);
	if (!col)
		return CLI_FAILURE;
	size_t n = v->n;
	const double *x = col, *y = col + n;
	double lim = 0;
	for (size_t t = 0; t < n; t++)
		if (isfinite(x[t]) && isfinite(y[t]))
			lim = fmax(lim, fmax(fabs(x[t]), fabs(y[t])));
	lim = lim > 0 ? 1.35 * lim : 1; /* room for the numbers outside the circle */
	/* The circle the points turn on, when they do (radius of the first point). */
	enum { CIRCLE = 361 };
	double cx[CIRCLE], cy[CIRCLE], radius = 0, step = 0;
	int rot = one_rotation(x, y, n, &radius, &step);
	for (int k = 0; k < CIRCLE; k++) {
		cx[k] = radius * cos(TWO_PI * k / (CIRCLE - 1));
		cy[k] = radius * sin(TWO_PI * k / (CIRCLE - 1));
	}
	char(*text)[24] = n <= MAX_POINT_LABELS ? calloc(n, sizeof(*text)) : NULL;
	const char **labels = text ? calloc(n, sizeof(*labels)) : NULL;
	struct pe_figure *fig = pe_figure_create(1, 1);
	if (!fig || (n <= MAX_POINT_LABELS && !labels)) {
		free(text);
		free(labels);
		free(col);
		pe_figure_destroy(fig);
		return cli_error("the figure: out of memory");
	}
	for (size_t t = 0; labels && t < n; t++) {
		snprintf(text[t], sizeof(text[t]), "%llu", (unsigned long long)(v->first + t));
		labels[t] = text[t];
	}
	pe_figure_set_png_level(fig, CLI_PNG_LEVEL_SCATTER);
	struct pe_panel *p = pe_figure_panel(fig, 0, 0);
	enum pe_status st = rot ? pe_panel_add_line(p, NULL, cx, cy, CIRCLE) : PE_OK;
	if (st == PE_OK)
		st = pe_panel_add_scatter(p, NULL, x, y, n);
	if (st == PE_OK && labels)
		st = pe_panel_set_point_labels(p, labels);
	if (st == PE_OK)
		st = pe_panel_set_xlim(p, -lim, lim);
	if (st == PE_OK)
		st = pe_panel_set_ylim(p, -lim, lim);
	pe_panel_set_equal_aspect(p, true);
	char xl[32], yl[32], title[512], note[256];
	snprintf(xl, sizeof(xl), "dimension %zu", a);
	snprintf(yl, sizeof(yl), "dimension %zu", b);
	if (st == PE_OK)
		st = pe_panel_set_xlabel(p, xl);
	if (st == PE_OK)
		st = pe_panel_set_ylabel(p, yl);
	cli_scheme_title(label_of(v), v->d, (unsigned long long)v->first, v->n, title,
	                 sizeof(title));
	if (st == PE_OK)
		st = pe_figure_set_title(fig, title);
	if (rot)
		snprintf(
		        note, sizeof(note),
		        "Each position turns the pair by %.6g rad (%.4g deg) on a circle of radius "
		        "%.4g: PE(t+k) = T_k PE(t), T_k the turn by k x %.6g rad.",
		        fabs(step), fabs(step) * 360 / TWO_PI, radius, fabs(step));
	else
		snprintf(note, sizeof(note),
		         "These two dimensions do not turn by one angle per "
		         "position: no rotation T_k maps PE(t) to PE(t+k).");
	if (st == PE_OK)
		st = pe_figure_set_note(fig, note);
	if (st != PE_OK) {
		rc = cli_figure_error(st);
	} else {
		char what[96];
		snprintf(what, sizeof(what), "dimensions %zu and %zu of %zu positions", a, b, n);
		/* A round panel: without a height, the figure is a little taller than wide (its
		 * title and note), not the default 4:3 that leaves the circle a third of it. */
		struct cli_common sized = *o;
		double fw, fh;
		cli_figure_size_pt(o, false, &fw, &fh);
		if (fh == 0) {
			fw = fw > 0 ? fw : 360;
			sized.width = (struct cli_length){fw, 0};
			sized.height = (struct cli_length){1.2 * fw, 0};
		}
		rc = cli_figure_write(&sized, path, format, fig, what);
	}
	pe_figure_destroy(fig);
	free(text);
	free(labels);
	free(col);
	return rc;
}

int cli_phase_figure(const struct cli_common *o, const char *path, enum cli_format format,
                     const struct pe_vectors *v)
{
	size_t n = v->n, d = v->d;
	if ((double)n * (double)d > (double)(1u << 24))
		return cli_usage_error("--view phase draws every cell (a mean of angles mod 2 pi "
		                       "means nothing): at most 16777216 cells (lower -n or -d)");
	int rc = cli_check_memory(o, (double)n * (double)d * 8.0, "the phase table",
	                          "lower -n or -d");
	if (rc)
		return rc;
	struct pe_matrix *m = pe_matrix_create(n, d);
	if (!m)
		return cli_error("the phase table: out of memory");
	enum pe_status st = pe_vectors_rows(v, 0, n, m->data);
	if (st != PE_OK) {
		pe_matrix_destroy(m);
		return cli_error("the phase table: %s", pe_status_str(st));
	}
	for (size_t i = 0; i < n * d; i++)
		m->data[i] = cli_phase(m->data[i]);
	struct pe_heatmap_spec spec;
	pe_heatmap_spec_init(&spec, n, d, m->data);
	pe_heatmap_spec_set_positions(&spec, (double)v->first, n, 0.0, d);
	spec.colormap = "twilight";
	spec.vmin = 0;
	spec.vmax = TWO_PI;
	spec.nearest = true;
	spec.colorbar_label = "angle mod 2\u03c0 (rad)";
	cli_heatmap_apply(o, &spec);
	struct pe_figure *fig = pe_figure_create(1, 1);
	if (!fig) {
		pe_matrix_destroy(m);
		return cli_error("the figure: out of memory");
	}
	pe_figure_set_png_level(fig, CLI_PNG_LEVEL_ENCODE);
	struct pe_panel *p = pe_figure_panel(fig, 0, 0);
	char title[512];
	cli_scheme_title(label_of(v), d, (unsigned long long)v->first, n, title, sizeof(title));
	st = pe_panel_set_heatmap(p, &spec);
	if (st == PE_OK)
		st = pe_panel_set_title(p, title);
	if (st == PE_OK)
		st = pe_panel_set_xlabel(p, "dimension");
	if (st == PE_OK)
		st = pe_panel_set_ylabel(p, "position");
	if (st != PE_OK) {
		rc = cli_figure_error(st);
	} else {
		char what[96];
		snprintf(what, sizeof(what), "%zu x %zu phase heatmap", n, d);
		rc = cli_figure_write(o, path, format, fig, what);
	}
	pe_figure_destroy(fig);
	pe_matrix_destroy(m);
	return rc;
}
