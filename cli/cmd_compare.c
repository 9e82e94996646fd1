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
#include "compare_data.h"
#include "encode_figure.h"
#include "figure.h"
#include "output.h"
#include "pairwise_cli.h"
#include "vectors.h"

enum { OPT_METRIC = CLI_OPT_COMMAND };

#define MAX_SCHEMES 8
#define DEFAULT_N   256
#define DEFAULT_D   128

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

struct run {
	struct cli_common o;
	enum pe_metric metric;
	struct pe_scheme **schemes;
	size_t count;
	struct compare_data data[MAX_SCHEMES];
	const char *path;
	enum cli_format format;
};

static int compute(struct run *r, size_t i, int figure)
{
	struct compare_data *sd = &r->data[i];
	size_t n = sd->v.vec.n;
	return compare_data_compute(&r->o, r->schemes[i]->label, r->metric,
	                            figure ? cli_figure_grid_cells(&r->o, n) : n,
	                            figure ? COMPARE_SCATTER_POINTS : 0,
	                            figure ? "lower -n or draw a smaller figure"
	                                   : "lower -n, or draw the comparison as a figure",
	                            sd);
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

/*
 * The encoding streamed at the figure's resolution (block means, never the
 * n x d matrix), on the column's shared colour scale.
 */
static enum pe_status encoding_panel(struct pe_panel *p, const struct cli_common *o,
                                     struct pe_heatmap_spec *spec)
{
	spec->vmin = NAN;
	spec->vmax = NAN;
	spec->is_signed = true;
	cli_heatmap_apply(o, spec);
	enum pe_status st = pe_panel_set_heatmap(p, spec);
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
	struct cli_encode_rows *encodings[MAX_SCHEMES] = {0};
	static const char *const titles[] = {"encoding", NULL, "Pearson correlation",
	                                     "distance vs correlation"};
	enum pe_status st = PE_OK;
	int rc = 0;
	for (unsigned c = 0; c < 4 && st == PE_OK; c++)
		st = pe_figure_set_col_title(fig, c,
		                             c == 1 ? pw_metric_label(r->metric) : titles[c]);
	for (size_t i = 0; i < r->count && st == PE_OK; i++) {
		struct compare_data *sd = &r->data[i];
		const struct pe_vectors *v = &sd->v.vec;
		st = pe_figure_set_row_label(fig, (unsigned)i, r->schemes[i]->label);
		/* The encoding at the figure's resolution: block means streamed to the engine. */
		if (st == PE_OK) {
			struct pe_heatmap_spec spec;
			size_t pixels = r->o.height ? r->o.height : PE_FIGURE_DEFAULT_HEIGHT;
			rc = cli_encode_rows_create(&r->o, v, pixels, &spec, &encodings[i]);
			if (rc)
				break;
			st = encoding_panel(pe_figure_panel(fig, (unsigned)i, 0), &r->o, &spec);
		}
		if (st == PE_OK)
			st = heatmap(pe_figure_panel(fig, (unsigned)i, 1), &r->o, sd->dist, v,
			             false, pw_metric_label(r->metric));
		if (st == PE_OK)
			st = heatmap(pe_figure_panel(fig, (unsigned)i, 2), &r->o, sd->corr, v, true,
			             "correlation");
		struct pe_panel *sp = pe_figure_panel(fig, (unsigned)i, 3);
		if (st == PE_OK)
			st = pe_panel_add_scatter(sp, NULL, sd->px, sd->py, sd->points->rows);
		if (st == PE_OK)
			st = pe_panel_set_xlabel(sp, pw_metric_label(r->metric));
		if (st == PE_OK)
			st = pe_panel_set_ylabel(sp, "correlation");
	}
	struct pe_panel *bottom = rc || st != PE_OK ? NULL : pe_figure_bottom_panel(fig);
	if (!rc && st == PE_OK && !bottom)
		st = PE_ENOMEM;
	for (size_t i = 0; bottom && i < r->count && st == PE_OK; i++) {
		const struct compare_data *sd = &r->data[i];
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
		cli_encode_rows_destroy(encodings[i]);
	return rc;
}

static int write_summary(struct run *r)
{
	const size_t ncols = COMPARE_SUMMARY_COLS;
	struct pe_matrix *t = pe_matrix_create(r->count, ncols);
	const char **labels = calloc(r->count, sizeof(*labels));
	if (!t || !labels) {
		pe_matrix_destroy(t);
		free(labels);
		return cli_error("out of memory");
	}
	for (size_t i = 0; i < r->count; i++) {
		labels[i] = r->schemes[i]->label;
		compare_summary_row(&r->data[i], pe_matrix_row(t, i));
		compare_summary_missing(&r->o, labels[i], &r->data[i], pe_matrix_row(t, i));
	}
	struct pe_axis rows = {"scheme", 0, 0, labels};
	struct pe_axis cols = {NULL, 0, 0, compare_summary_columns};
	int rc = cli_write_matrix(&r->o, r->path, r->format, t, &rows, &cols);
	pe_matrix_destroy(t);
	free(labels);
	return rc;
}

int cmd_compare(int argc, char **argv)
{
	static const struct option opts[] = {
	        {"metric", required_argument, NULL, OPT_METRIC},
	        {NULL, 0, NULL, 0},
	};
	struct run r;
	memset(&r, 0, sizeof(r));
	cli_common_init(&r.o);
	r.metric = PE_METRIC_L2;
	int rc = cli_parse_args(argc, argv, help,
	                        &(struct cli_own_options){opts, pw_metric_option, &r.metric}, &r.o);
	if (rc)
		return rc == CLI_DONE ? CLI_OK : rc;
	if (r.o.raw)
		return cli_usage_error(
		        "option '--raw' does not apply to compare (a grid of panels)");
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
	for (size_t i = 0; i < r.count; i++)
		compare_data_free(&r.data[i]);
	cli_schemes_free(r.schemes, r.count);
	return rc;
}
