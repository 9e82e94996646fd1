/* posenc scatter: (distance, correlation) for pairs of positions. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "figures/figure.h"
#include "shared/pairwise_cli.h"

enum { OPT_METRIC = CLI_OPT_COMMAND, OPT_MAX_POINTS };

#define DEFAULT_MAX_POINTS 250000

static const char help[] =
        "Usage: posenc scatter [-s SPEC] [-n N] [-d D] [--start P] [--metric M]\n"
        "                      [--max-points K] [-o FILE]\n"
        "\n"
        "The distance and the Pearson correlation of pairs of positions, one row per\n"
        "pair i < j: columns position_i, position_j, the distance (headed by the\n"
        "metric's name) and corr. The pairs i > j are left out: every metric is\n"
        "symmetric, so they would repeat each point exactly.\n"
        "Figure (.png .svg .pdf): the distance across, the correlation up; dense clouds are\n"
        "shaded by how many points fall on each spot.\n"
        "\n"
        "Options:\n"
        "      --metric M         l2, cosine (1 - cos(x, y)), l1 or linf [default: l2]\n"
        "      --max-points K     at most K pairs: over that, only every s-th position\n"
        "                         (P, P+s, P+2s, ...) is paired, s as small as fits;\n"
        "                         0 pairs every position [default: 250000]\n"
        "%s"
        "\n"
        "Defaults: -s sinusoidal -n 128 -d 64 --metric l2 -o scatter.png\n"
        "Example: posenc scatter -s sinusoidal:base=10 -n 512 -d 64 -o scatter.csv\n";

static const char *ordinal(size_t k)
{
	return k % 10 == 1 && k % 100 != 11   ? "st"
	       : k % 10 == 2 && k % 100 != 12 ? "nd"
	       : k % 10 == 3 && k % 100 != 13 ? "rd"
	                                      : "th";
}

/* The point cloud: distance across, correlation up; the engine shades dense clouds. */
static int draw(struct pw_run *r, enum pe_metric metric, const struct pe_matrix *pts, size_t stride)
{
	const struct pe_vectors *v = &r->v.vec;
	size_t np = pts->rows;
	double *x = malloc(2 * np * sizeof(*x));
	struct pe_figure *fig = pe_figure_create(1, 1);
	if (!x || !fig) {
		free(x);
		pe_figure_destroy(fig);
		return cli_error("the scatter figure: out of memory");
	}
	double *y = x + np, lo = 0, hi = 0;
	for (size_t i = 0; i < np; i++) {
		x[i] = pts->data[2 * i];
		y[i] = pts->data[2 * i + 1];
		if (isfinite(y[i])) {
			lo = fmin(lo, y[i]);
			hi = fmax(hi, y[i]);
		}
	}
	pe_figure_set_png_level(fig, CLI_PNG_LEVEL_SCATTER);
	struct pe_panel *p = pe_figure_panel(fig, 0, 0);
	enum pe_status st = pe_panel_add_scatter(p, NULL, x, y, np);
	if (st == PE_OK && lo < 0 && hi > 0)
		st = pe_panel_add_hline(p, 0.0, NULL);
	if (st == PE_OK)
		st = pe_panel_set_xlabel(p, pw_metric_label(metric));
	if (st == PE_OK)
		st = pe_panel_set_ylabel(p, "Pearson correlation");
	char title[224], label[160];
	if (stride > 1)
		snprintf(label, sizeof(label), "%s, every %zu%s position",
		         cli_short_label(r->schemes[0]), stride, ordinal(stride));
	else
		snprintf(label, sizeof(label), "%s", cli_short_label(r->schemes[0]));
	if (st == PE_OK)
		st = pe_figure_set_title(
		        fig, cli_scheme_title(label, v->d, v->first, v->n, title, sizeof(title)));
	int rc;
	if (st != PE_OK) {
		rc = cli_figure_error(st);
	} else {
		char what[64];
		snprintf(what, sizeof(what), "%zu pairs", np);
		rc = cli_figure_write(&r->o, r->path, r->format, fig, what);
	}
	pe_figure_destroy(fig);
	free(x);
	return rc;
}

static void sampled_note(const struct cli_common *o, const struct pe_vectors *v,
                         uint64_t max_points, size_t stride, size_t pairs)
{
	cli_note(o->quiet,
	         "%.15g pairs would exceed --max-points %llu: every %zu%s position is paired "
	         "(%zu pairs)",
	         (double)v->n * (double)(v->n - 1) / 2.0, (unsigned long long)max_points, stride,
	         ordinal(stride), pairs);
}

struct scatter_opts {
	enum pe_metric metric;
	uint64_t max_points;
};

static int parse_own(void *ctx, int opt, const char *arg)
{
	struct scatter_opts *so = ctx;
	if (opt == OPT_METRIC)
		return pw_parse_metric(arg, &so->metric);
	return cli_parse_count("--max-points", arg, 0, SIZE_MAX, &so->max_points);
}

int cmd_scatter(int argc, char **argv)
{
	static const struct option opts[] = {
	        {"metric", required_argument, NULL, OPT_METRIC},
	        {"max-points", required_argument, NULL, OPT_MAX_POINTS},
	        {NULL, 0, NULL, 0},
	};
	struct pw_run r;
	memset(&r, 0, sizeof(r));
	struct scatter_opts own = {PE_METRIC_L2, DEFAULT_MAX_POINTS};
	int rc = cli_parse_args(argc, argv, help, &(struct cli_own_options){opts, parse_own, &own},
	                        &r.o);
	if (rc)
		return rc == CLI_DONE ? CLI_OK : rc;
	enum pe_metric metric = own.metric;
	uint64_t max_points = own.max_points;
	rc = pw_prepare(&r);
	if (!rc && r.o.raw)
		rc = cli_usage_error("option '--raw': scatter draws points, not a heatmap");
	const struct pe_vectors *v = &r.v.vec;
	if (!rc && v->n < 2)
		rc = cli_usage_error("option '-n': a scatter needs at least 2 positions");
	if (!rc) {
		/*
		 * 2 + 4 columns of 8 bytes per pair, before anything is computed,
		 * and the sampled positions' rows (m of them give m (m - 1) / 2 pairs).
		 */
		double pairs = (double)v->n * (double)(v->n - 1) / 2.0;
		if (max_points && pairs > (double)max_points)
			pairs = (double)max_points;
		double m = ceil(sqrt(2.0 * pairs)) + 1.0;
		if (m > (double)v->n)
			m = (double)v->n;
		rc = cli_check_memory(&r.o, pairs * 48.0 + pw_work_bytes(v, m, m), "the scatter",
		                      "lower --max-points, -n or -d");
	}
	struct pe_matrix *pts = NULL, *out = NULL;
	size_t stride = 1;
	if (!rc) {
		enum pe_status st = pe_scatter(v, metric, (size_t)max_points, &stride, &pts);
		if (st != PE_OK)
			rc = pw_status_error(st, "computing the scatter");
	}
	if (!rc && cli_format_is_figure(r.format)) {
		if (stride > 1)
			sampled_note(&r.o, v, max_points, stride, pts->rows);
		rc = draw(&r, metric, pts, stride);
		pe_matrix_destroy(pts);
		pw_finish(&r);
		return rc;
	}
	if (!rc && !(out = pe_matrix_create(pts->rows, 4)))
		rc = cli_error("out of memory");
	if (!rc) {
		size_t mm = (v->n + stride - 1) / stride, row = 0;
		for (size_t i = 0; i < mm; i++) {
			for (size_t j = i + 1; j < mm; j++, row++) {
				double *o = pe_matrix_row(out, row);
				o[0] = (double)(v->first + (uint64_t)i * stride);
				o[1] = (double)(v->first + (uint64_t)j * stride);
				o[2] = pts->data[2 * row];
				o[3] = pts->data[2 * row + 1];
			}
		}
		if (stride > 1)
			sampled_note(&r.o, v, max_points, stride, out->rows);
		const char *labels[] = {"position_i", "position_j", pe_metric_name(metric), "corr"};
		struct pe_axis rows = {"pair", 0.0, 1.0, NULL};
		struct pe_axis cols = {NULL, 0.0, 1.0, labels};
		rc = cli_write_matrix(&r.o, r.path, r.format, out, &rows, &cols);
	}
	pe_matrix_destroy(pts);
	pe_matrix_destroy(out);
	pw_finish(&r);
	return rc;
}
