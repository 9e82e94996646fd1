/*
 * posenc compare: several schemes side by side. One figure row per scheme
 * (encoding, distance, correlation, distance-vs-correlation scatter; each
 * column on one colour scale) and the decay curves of all of them below;
 * or, for -o x.csv, a summary table with one row per scheme.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <posenc/decay.h>
#include <posenc/pairwise.h>

#include "cli.h"
#include "commands.h"
#include "encode_figure.h"
#include "figure.h"
#include "output.h"
#include "vectors.h"

enum { OPT_METRIC = CLI_OPT_COMMAND };

#define MAX_SCHEMES 8
#define SCATTER_POINTS 20000
#define DEFAULT_N 256
#define DEFAULT_D 128

static const char help[] =
	"Usage: posenc compare [-s SPEC]... [--base LIST] [-n N] [-d D] [--metric M] [-o FILE]\n"
	"\n"
	"Several schemes side by side (at most 8). A figure has one row per scheme:\n"
	"the encoding, the distance matrix, the correlation matrix and the distance vs\n"
	"correlation scatter, each column on one colour scale, and below them the decay\n"
	"curves (mean dot product vs offset) of every scheme.\n"
	"\n"
	"-o FILE.csv writes a summary instead, one row per scheme: shortest and longest\n"
	"wavelength, distance and correlation ranges between distinct positions, mean\n"
	"distance between neighbours, and the decay curve at offsets 0, 1, 10 and 100.\n"
	"\n"
	"Options:\n"
	"      --metric M         l2, cosine, l1 or linf [default: l2]\n"
	"%s"
	"\n"
	"Defaults: sinusoidal with --base 10000,10, -n 256 -d 128 -o compare.png\n"
	"Example: posenc compare -s rope --base 10000,500000 -n 512 -o rope-bases.pdf\n";

/* Everything computed for one scheme; the figure borrows these arrays. */
struct scheme_data {
	struct cli_vectors v;
	struct pe_matrix *dist; /* grid (figure) or full matrix (summary) */
	struct pe_matrix *corr;
	struct pe_matrix *points; /* k x 2: distance, correlation */
	double *px, *py;
	double *decay; /* n values: offsets 0..n-1 */
	double *offsets;
};

struct run {
	struct cli_common o;
	enum pe_metric metric;
	struct pe_scheme **schemes;
	size_t count;
	struct scheme_data data[MAX_SCHEMES];
	const char *path;
	enum cli_format format;
};

static int status_error(enum pe_status st, const char *what, const char *label)
{
	if (cli_exit_for(st) == CLI_USAGE)
		return cli_usage_error("scheme '%s': %s: %s", label, what, pe_status_str(st));
	return cli_error("scheme '%s': %s failed: %s", label, what, pe_status_str(st));
}

static int compute(struct run *r, size_t i, int figure)
{
	struct scheme_data *sd = &r->data[i];
	const struct pe_vectors *v = &sd->v.vec;
	const char *label = r->schemes[i]->label;
	size_t cells = figure ? cli_figure_grid_cells(&r->o, v->n) : v->n;
	if (!figure) {
		char what[96];
		snprintf(what, sizeof(what), "the two %zu x %zu matrices", v->n, v->n);
		int rc = cli_check_memory(&r->o, 2.0 * (double)v->n * (double)v->n * 8.0, what,
					  "lower -n, or draw the comparison as a figure");
		if (rc)
			return rc;
	}
	enum pe_status st = pe_pairwise_grid(v, r->metric, cells, cells, &sd->dist);
	if (st != PE_OK)
		return status_error(st, "the distance matrix", label);
	st = pe_pairwise_grid(v, PE_METRIC_CORR, cells, cells, &sd->corr);
	if (st != PE_OK)
		return status_error(st, "the correlation matrix", label);
	sd->decay = malloc(v->n * sizeof(double));
	sd->offsets = malloc(v->n * sizeof(double));
	if (!sd->decay || !sd->offsets)
		return cli_error("out of memory");
	for (size_t k = 0; k < v->n; k++)
		sd->offsets[k] = (double)k;
	st = pe_decay_curve(v, PE_DECAY_DOT, v->n - 1, sd->decay);
	if (st != PE_OK)
		return status_error(st, "the decay curve", label);
	if (!figure)
		return 0;
	st = pe_scatter(v, r->metric, SCATTER_POINTS, NULL, &sd->points);
	if (st != PE_OK)
		return status_error(st, "the scatter", label);
	size_t k = sd->points->rows;
	sd->px = malloc((k ? k : 1) * sizeof(double));
	sd->py = malloc((k ? k : 1) * sizeof(double));
	if (!sd->px || !sd->py)
		return cli_error("out of memory");
	for (size_t j = 0; j < k; j++) {
		sd->px[j] = sd->points->data[2 * j];
		sd->py[j] = sd->points->data[2 * j + 1];
	}
	return 0;
}

static const char *metric_title(enum pe_metric m)
{
	switch (m) {
	case PE_METRIC_COSINE:
		return "cosine distance";
	case PE_METRIC_L1:
		return "L1 distance";
	case PE_METRIC_LINF:
		return "L\u221e distance";
	default:
		return "L2 distance";
	}
}

static enum pe_status heatmap(struct pe_panel *p, const struct cli_common *o,
			      const struct pe_matrix *m, const struct pe_vectors *v, bool is_signed,
			      const char *cbar)
{
	struct pe_heatmap_spec spec;
	pe_heatmap_spec_init(&spec, m->rows, m->cols, m->data);
	pe_heatmap_spec_set_positions(&spec, (double)v->first, v->n, (double)v->first, v->n);
	spec.is_signed = is_signed;
	spec.equal_aspect = true;
	spec.colorbar_label = cbar;
	cli_heatmap_apply(o, &spec);
	enum pe_status st = pe_panel_set_heatmap(p, &spec);
	if (st == PE_OK)
		st = pe_panel_set_xlabel(p, "position");
	if (st == PE_OK)
		st = pe_panel_set_ylabel(p, "position");
	return st;
}

static enum pe_status encoding_panel(struct pe_panel *p, const struct cli_common *o,
				     struct pe_matrix *enc, const struct pe_vectors *v)
{
	struct pe_heatmap_spec spec;
	pe_heatmap_spec_init(&spec, enc->rows, enc->cols, enc->data);
	pe_heatmap_spec_set_positions(&spec, (double)v->first, v->n, 0.0, v->d);
	spec.is_signed = true;
	spec.colorbar_label = "value";
	cli_heatmap_apply(o, &spec);
	enum pe_status st = pe_panel_set_heatmap(p, &spec);
	if (st == PE_OK)
		st = pe_panel_set_xlabel(p, "dimension");
	if (st == PE_OK)
		st = pe_panel_set_ylabel(p, "position");
	return st;
}

static int draw(struct run *r)
{
	struct pe_figure *fig = pe_figure_create((unsigned)r->count, 4);
	if (!fig)
		return cli_error("out of memory");
	pe_figure_set_color_share(fig, PE_SHARE_COLUMN);
	struct pe_matrix *encodings[MAX_SCHEMES] = {0};
	static const char *const titles[] = {"encoding", NULL, "Pearson correlation",
					     "distance vs correlation"};
	enum pe_status st = PE_OK;
	int rc = 0;
	for (unsigned c = 0; c < 4 && st == PE_OK; c++)
		st = pe_figure_set_col_title(fig, c, c == 1 ? metric_title(r->metric) : titles[c]);
	for (size_t i = 0; i < r->count && st == PE_OK; i++) {
		struct scheme_data *sd = &r->data[i];
		const struct pe_vectors *v = &sd->v.vec;
		st = pe_figure_set_row_label(fig, (unsigned)i, r->schemes[i]->label);
		/* The encoding at the figure's resolution: rows averaged by the engine. */
		if (st == PE_OK) {
			rc = cli_vectors_matrix(&r->o, &sd->v, &encodings[i]);
			if (rc)
				break;
			st = encoding_panel(pe_figure_panel(fig, (unsigned)i, 0), &r->o, encodings[i],
					    v);
		}
		if (st == PE_OK)
			st = heatmap(pe_figure_panel(fig, (unsigned)i, 1), &r->o, sd->dist, v, false,
				     metric_title(r->metric));
		if (st == PE_OK)
			st = heatmap(pe_figure_panel(fig, (unsigned)i, 2), &r->o, sd->corr, v, true,
				     "correlation");
		struct pe_panel *sp = pe_figure_panel(fig, (unsigned)i, 3);
		if (st == PE_OK)
			st = pe_panel_add_scatter(sp, NULL, sd->px, sd->py, sd->points->rows);
		if (st == PE_OK)
			st = pe_panel_set_xlabel(sp, metric_title(r->metric));
		if (st == PE_OK)
			st = pe_panel_set_ylabel(sp, "correlation");
	}
	struct pe_panel *bottom = rc || st != PE_OK ? NULL : pe_figure_bottom_panel(fig);
	if (!rc && st == PE_OK && !bottom)
		st = PE_ENOMEM;
	for (size_t i = 0; bottom && i < r->count && st == PE_OK; i++) {
		const struct scheme_data *sd = &r->data[i];
		st = pe_panel_add_line(bottom, r->schemes[i]->label, sd->offsets, sd->decay,
				       sd->v.vec.n);
	}
	if (bottom && st == PE_OK)
		st = pe_panel_set_title(bottom, "decay: mean dot product of positions k apart");
	if (bottom && st == PE_OK)
		st = pe_panel_set_xlabel(bottom, "offset k");
	if (bottom && st == PE_OK)
		st = pe_panel_set_ylabel(bottom, "dot product");
	if (!rc && st == PE_OK) {
		const struct pe_vectors *v = &r->data[0].v.vec;
		char title[160];
		snprintf(title, sizeof(title), "d=%zu, positions %llu..%llu", v->d,
			 (unsigned long long)v->first, (unsigned long long)(v->first + v->n - 1));
		st = pe_figure_set_title(fig, title);
	}
	if (!rc && st != PE_OK)
		rc = cli_figure_error(st);
	if (!rc) {
		char what[64];
		snprintf(what, sizeof(what), "comparison of %zu schemes", r->count);
		rc = cli_figure_write(&r->o, r->path, r->format, fig, what);
	}
	pe_figure_destroy(fig);
	for (size_t i = 0; i < r->count; i++)
		pe_matrix_destroy(encodings[i]);
	return rc;
}

/* Min and max of the off-diagonal cells of a square matrix (NaN skipped). */
static void off_diagonal_range(const struct pe_matrix *m, double *lo, double *hi)
{
	*lo = INFINITY;
	*hi = -INFINITY;
	for (size_t i = 0; i < m->rows; i++)
		for (size_t j = 0; j < m->cols; j++) {
			double x = m->data[i * m->cols + j];
			if (i == j || isnan(x))
				continue;
			*lo = x < *lo ? x : *lo;
			*hi = x > *hi ? x : *hi;
		}
	if (*lo > *hi)
		*lo = *hi = NAN;
}

static void wavelengths(const struct pe_vectors *v, double *shortest, double *longest)
{
	*shortest = *longest = NAN;
	if (v->table || !v->scheme)
		return;
	double *theta = malloc(v->d * sizeof(double));
	size_t count = 0;
	if (theta && pe_scheme_frequencies(v->scheme, v->d, theta, &count) == PE_OK && count) {
		double lo = INFINITY, hi = -INFINITY;
		for (size_t i = 0; i < count; i++) {
			double wl = 2.0 * 3.14159265358979323846 / theta[i];
			lo = wl < lo ? wl : lo;
			hi = wl > hi ? wl : hi;
		}
		*shortest = lo;
		*longest = hi;
	}
	free(theta);
}

static int write_summary(struct run *r)
{
	static const char *const columns[] = {
		"wavelength_min", "wavelength_max", "distance_min", "distance_max", "corr_min",
		"corr_max",	  "neighbour_distance", "decay_0", "decay_1", "decay_10",
		"decay_100",
	};
	const size_t ncols = sizeof(columns) / sizeof(columns[0]);
	struct pe_matrix *t = pe_matrix_create(r->count, ncols);
	const char **labels = calloc(r->count, sizeof(*labels));
	if (!t || !labels) {
		pe_matrix_destroy(t);
		free(labels);
		return cli_error("out of memory");
	}
	for (size_t i = 0; i < r->count; i++) {
		const struct scheme_data *sd = &r->data[i];
		const struct pe_vectors *v = &sd->v.vec;
		double *row = pe_matrix_row(t, i);
		labels[i] = r->schemes[i]->label;
		wavelengths(v, &row[0], &row[1]);
		off_diagonal_range(sd->dist, &row[2], &row[3]);
		off_diagonal_range(sd->corr, &row[4], &row[5]);
		double sum = 0;
		for (size_t p = 0; p + 1 < v->n; p++)
			sum += sd->dist->data[p * v->n + p + 1];
		row[6] = v->n > 1 ? sum / (double)(v->n - 1) : NAN;
		const size_t at[] = {0, 1, 10, 100};
		for (size_t k = 0; k < 4; k++)
			row[7 + k] = at[k] < v->n ? sd->decay[at[k]] : NAN;
	}
	struct pe_axis rows = {"scheme", 0, 0, labels};
	struct pe_axis cols = {NULL, 0, 0, columns};
	int rc = cli_write_matrix(&r->o, r->path, r->format, t, &rows, &cols);
	pe_matrix_destroy(t);
	free(labels);
	return rc;
}

int cmd_compare(int argc, char **argv)
{
	static const struct option opts[] = {
		CLI_COMMON_LONG,
		{"metric", required_argument, NULL, OPT_METRIC},
		{NULL, 0, NULL, 0},
	};
	struct run r;
	memset(&r, 0, sizeof(r));
	cli_common_init(&r.o);
	r.metric = PE_METRIC_L2;
	int opt, rc;
	while ((opt = getopt_long(argc, argv, CLI_COMMON_SHORT, opts, NULL)) != -1) {
		if (opt == OPT_METRIC) {
			if (pe_metric_parse(optarg, &r.metric) != PE_OK || r.metric == PE_METRIC_CORR)
				return cli_usage_error("option '--metric': '%s' is not l2, cosine, "
						       "l1 or linf",
						       optarg);
			rc = 0;
		} else {
			rc = cli_common_option(&r.o, opt, optarg, argv);
		}
		if (rc)
			return rc;
	}
	if (r.o.help) {
		printf(help, cli_common_help);
		return CLI_OK;
	}
	if ((rc = cli_no_operands(argc, argv)))
		return rc;
	if (r.o.raw)
		return cli_usage_error("option '--raw' does not apply to compare (a grid of panels)");
	/* The comparison people ask for first: the paper's base against base 10. */
	if (!r.o.nspecs && !r.o.nbases) {
		r.o.specs[r.o.nspecs++] = "sinusoidal:base=10000";
		r.o.specs[r.o.nspecs++] = "sinusoidal:base=10";
	}
	char buf[64];
	r.path = cli_output_path(&r.o, buf, sizeof(buf));
	if ((rc = cli_output_format(&r.o, r.path, &r.format)))
		return rc;
	int figure = cli_format_is_figure(r.format);
	if (!figure && r.format != CLI_FORMAT_CSV)
		return cli_usage_error("compare writes a figure (.png, .svg, .pdf) or a summary "
				       "(.csv), not '%s'",
				       r.path);
	if (figure && (rc = cli_figure_check_options(&r.o)))
		return rc;
	if ((rc = cli_schemes(&r.o, "sinusoidal", MAX_SCHEMES, &r.schemes, &r.count)))
		return rc;
	for (size_t i = 0; i < r.count && !rc; i++) {
		rc = cli_vectors_prepare(&r.o, r.schemes[i], PE_VIEW_DEFAULT, DEFAULT_N, DEFAULT_D,
					 &r.data[i].v);
		if (!rc && r.data[i].v.vec.n < 2)
			rc = cli_usage_error("compare needs at least 2 positions (-n)");
	}
	for (size_t i = 0; i < r.count && !rc; i++)
		rc = compute(&r, i, figure);
	if (!rc)
		rc = figure ? draw(&r) : write_summary(&r);
	for (size_t i = 0; i < r.count; i++) {
		struct scheme_data *sd = &r.data[i];
		cli_vectors_finish(&sd->v);
		pe_matrix_destroy(sd->dist);
		pe_matrix_destroy(sd->corr);
		pe_matrix_destroy(sd->points);
		free(sd->px);
		free(sd->py);
		free(sd->decay);
		free(sd->offsets);
	}
	cli_schemes_free(r.schemes, r.count);
	return rc;
}
