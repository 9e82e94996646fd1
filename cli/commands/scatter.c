/* posenc scatter: (distance, correlation) for pairs of positions. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "shared/costs.h"
#include "commands.h"
#include "figures/figure.h"
#include "shared/pairwise_cli.h"

enum { OPT_METRIC = CLI_OPT_COMMAND, OPT_MAX_POINTS, OPT_AXES, OPT_TRIANGLES };

#define DEFAULT_MAX_POINTS 250000

static const char help[] =
        "Usage: posenc scatter [-s SPEC] [-n N] [-d D] [--start P] [--metric M]\n"
        "                      [--max-points K] [--axes X,Y] [--triangles] [-o FILE]\n"
        "\n"
        "The distance and the Pearson correlation of pairs of positions, one row per\n"
        "pair i < j: columns pair (the row number, CSV only), position_i, position_j,\n"
        "the distance (headed by the metric's name) and corr. The pairs i > j are left\n"
        "out: every metric is symmetric, so they would repeat each point exactly.\n"
        "Figure (.png .svg .pdf): the distance across, the correlation up (--axes\n"
        "corr,distance swaps them); dense clouds are shaded by how many points fall on\n"
        "each spot.\n"
        "\n"
        "--triangles reads both triangles of the full distance and correlation matrices:\n"
        "the figure has two panels, the pairs i < j (upper triangle) and i > j (lower),\n"
        "and the CSV a row for every pair i != j, upper triangle first. The two clouds\n"
        "are the same, as every metric is symmetric: the panels show it. It takes every\n"
        "pair, so n (n - 1) / 2 must stay within --max-points.\n"
        "\n"
        "Options:\n"
        "      --metric M         l2, cosine (1 - cos(x, y)), l1 or linf [default: l2]\n"
        "      --max-points K     at most K pairs: over that, only every s-th position\n"
        "                         (P, P+s, P+2s, ...) is paired, s as small as fits;\n"
        "                         0 pairs every position [default: 250000]\n"
        "      --axes X,Y         what goes across and up: distance,corr or\n"
        "                         corr,distance [default: distance,corr]\n"
        "      --triangles        the upper and the lower triangle as two panels\n"
        "%s"
        "\n"
        "Defaults: -s sinusoidal -n 128 -d 64 --metric l2 -o scatter.png\n"
        "Example: posenc scatter -s sinusoidal:base=10 -n 512 -d 64 -o scatter.csv\n";

static const struct cli_command_options command = {
        help,
        CLI_TAKES_POSITIONED | CLI_TAKES_BASE | CLI_TAKES_DTYPE | CLI_TAKES_FIGURES |
                CLI_TAKES_BUDGETS,
        CLI_OUTPUT_ALL,
        "scatter draws points, not a heatmap",
        NULL,
};

static const char *ordinal(size_t k)
{
	return k % 10 == 1 && k % 100 != 11   ? "st"
	       : k % 10 == 2 && k % 100 != 12 ? "nd"
	       : k % 10 == 3 && k % 100 != 13 ? "rd"
	                                      : "th";
}

struct scatter_opts {
	enum pe_metric metric;
	uint64_t max_points;
	bool corr_across; /* --axes corr,distance */
	bool triangles;
};

/*
 * One panel of points: @dist and @corr of @np pairs, on the axes --axes
 * asks for, with the zero of the correlation marked when it is crossed.
 */
static enum pe_status cloud(struct pe_panel *p, const struct scatter_opts *so, const double *dist,
                            const double *corr, size_t np, const char *title)
{
	double lo = 0, hi = 0;
	for (size_t i = 0; i < np; i++)
		if (isfinite(corr[i])) {
			lo = fmin(lo, corr[i]);
			hi = fmax(hi, corr[i]);
		}
	const double *x = so->corr_across ? corr : dist, *y = so->corr_across ? dist : corr;
	enum pe_status st = pe_panel_add_scatter(p, NULL, x, y, np);
	if (st == PE_OK && lo < 0 && hi > 0)
		st = so->corr_across ? pe_panel_add_vline(p, 0.0, NULL)
		                     : pe_panel_add_hline(p, 0.0, NULL);
	const char *dl = pw_metric_label(so->metric), *cl = "Pearson correlation";
	if (st == PE_OK)
		st = pe_panel_set_xlabel(p, so->corr_across ? cl : dl);
	if (st == PE_OK)
		st = pe_panel_set_ylabel(p, so->corr_across ? dl : cl);
	if (st == PE_OK && title)
		st = pe_panel_set_title(p, title);
	return st;
}

/*
 * The point cloud, one panel; or with --triangles two, @np pairs each:
 * the upper triangle's in @dist/@corr, the lower's after them.
 */
static int draw(struct pw_run *r, const struct scatter_opts *so, const double *dist,
                const double *corr, size_t np, size_t stride)
{
	const struct pe_vectors *v = &r->v.vec;
	struct pe_figure *fig = pe_figure_create(1, so->triangles ? 2 : 1);
	if (!fig)
		return cli_error("the scatter figure: out of memory");
	pe_figure_set_png_level(fig, CLI_PNG_LEVEL_SCATTER);
	enum pe_status st;
	if (so->triangles) {
		st = cloud(pe_figure_panel(fig, 0, 0), so, dist, corr, np,
		           "upper triangle (i < j)");
		if (st == PE_OK)
			st = cloud(pe_figure_panel(fig, 0, 1), so, dist + np, corr + np, np,
			           "lower triangle (i > j)");
	} else {
		st = cloud(pe_figure_panel(fig, 0, 0), so, dist, corr, np, NULL);
	}
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
		size_t shown = so->triangles ? 2 * np : np;
		snprintf(what, sizeof(what), "%zu pair%s%s", shown, shown == 1 ? "" : "s",
		         so->triangles ? ", both triangles" : "");
		rc = cli_figure_write(&r->o, r->path, r->format, fig, what);
	}
	pe_figure_destroy(fig);
	return rc;
}

/*
 * --triangles: (distance, correlation) of every pair i != j read from the
 * full matrices, upper triangle (row-major) then lower (row-major), into
 * a new 2 k x 2 matrix laid out as pe_scatter()'s (k = n (n - 1) / 2).
 */
static int both_triangles(struct pw_run *r, enum pe_metric metric, struct pe_matrix **out)
{
	const struct pe_vectors *v = &r->v.vec;
	size_t n = v->n, k = n * (n - 1) / 2;
	struct pe_matrix *D = NULL, *C = NULL;
	enum pe_status st = pe_pairwise_matrix(v, metric, (size_t)r->o.max_memory, &D);
	if (st == PE_OK)
		st = pe_pairwise_matrix(v, PE_METRIC_CORR, (size_t)r->o.max_memory, &C);
	if (st == PE_OK && !(*out = pe_matrix_create(2 * k, 2)))
		st = PE_ENOMEM;
	if (st == PE_OK) {
		size_t row = 0;
		for (int lower = 0; lower < 2; lower++)
			for (size_t i = 0; i < n; i++)
				for (size_t j = lower ? 0 : i + 1; j < (lower ? i : n);
				     j++, row++) {
					(*out)->data[2 * row] = D->data[i * n + j];
					(*out)->data[2 * row + 1] = C->data[i * n + j];
				}
	}
	pe_matrix_destroy(D);
	pe_matrix_destroy(C);
	return st == PE_OK ? 0
	                   : pw_status_error(st, "computing the distance and correlation matrices");
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

static int parse_own(void *ctx, int opt, const char *arg)
{
	struct scatter_opts *so = ctx;
	switch (opt) {
	case OPT_METRIC:
		return pw_parse_metric(arg, &so->metric);
	case OPT_AXES:
		if (strcmp(arg, "distance,corr") == 0 || strcmp(arg, "corr,distance") == 0) {
			so->corr_across = arg[0] == 'c';
			return 0;
		}
		return cli_usage_error("--axes takes distance,corr (distance across) or "
		                       "corr,distance (correlation across)");
	case OPT_TRIANGLES:
		so->triangles = true;
		return 0;
	default:
		return cli_parse_count("--max-points", arg, 0, SIZE_MAX, &so->max_points);
	}
}

int cmd_scatter(int argc, char **argv)
{
	static const struct option opts[] = {
	        {"metric", required_argument, NULL, OPT_METRIC},
	        {"max-points", required_argument, NULL, OPT_MAX_POINTS},
	        {"axes", required_argument, NULL, OPT_AXES},
	        {"triangles", no_argument, NULL, OPT_TRIANGLES},
	        {NULL, 0, NULL, 0},
	};
	struct pw_run r;
	memset(&r, 0, sizeof(r));
	struct scatter_opts own = {PE_METRIC_L2, DEFAULT_MAX_POINTS, false, false};
	int rc = cli_parse_args(argc, argv, &command,
	                        &(struct cli_own_options){opts, parse_own, &own}, &r.o);
	if (rc)
		return rc == CLI_DONE ? CLI_OK : rc;
	enum pe_metric metric = own.metric;
	uint64_t max_points = own.max_points;
	rc = pw_prepare(&r);
	const struct pe_vectors *v = &r.v.vec;
	if (!rc && v->n < 2)
		rc = cli_usage_error("option '-n': a scatter needs at least 2 positions");
	if (!rc && own.corr_across && !cli_format_is_figure(r.format))
		rc = cli_usage_error("option '--axes' arranges a figure; a table has its columns");
	double all_pairs = (double)v->n * (double)(v->n - 1) / 2.0;
	if (!rc && own.triangles && max_points && all_pairs > (double)max_points)
		rc = cli_usage_error(
		        "option '--triangles' takes every pair, and %.15g pairs exceed "
		        "--max-points %llu: lower -n or raise --max-points",
		        all_pairs, (unsigned long long)max_points);
	if (!rc && own.triangles)
		/* Two n x n matrices and 2 x 2 columns a pair, before anything is computed. */
		rc = cli_check_memory(&r.o,
		                      16.0 * (double)v->n * (double)v->n + all_pairs * 48.0 +
		                              pw_work_bytes(v, (double)v->n, (double)v->n),
		                      "the scatter of both triangles", "lower -n or -d");
	if (!rc && !own.triangles) {
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
	if (!rc) {
		/* every pair of both triangles, or the sampled ones */
		double pairs = own.triangles                                  ? 2.0 * all_pairs
		               : max_points && all_pairs > (double)max_points ? (double)max_points
		                                                              : all_pairs;
		int closed = !v->table && v->scheme && pe_scheme_has(v->scheme, PE_CAP_TOEPLITZ);
		double secs = pairs * (closed ? CLI_COST_SCATTER_PAIR
		                              : (double)v->d * CLI_COST_SCATTER_TERM) +
		              (r.format == CLI_FORMAT_CSV ? pairs * CLI_COST_SCATTER_CSV : 0.0);
		char what[96];
		snprintf(what, sizeof(what), "the scatter of %.15g pairs", pairs);
		rc = cli_check_time(&r.o, secs, what, "lower --max-points, -n or -d");
	}
	struct pe_matrix *pts = NULL, *out = NULL;
	size_t stride = 1;
	if (!rc && own.triangles) {
		rc = both_triangles(&r, metric, &pts);
	} else if (!rc) {
		enum pe_status st = pe_scatter(v, metric, (size_t)max_points, &stride, &pts);
		if (st != PE_OK)
			rc = pw_status_error(st, "computing the scatter");
	}
	if (!rc && cli_format_is_figure(r.format)) {
		if (stride > 1)
			sampled_note(&r.o, v, max_points, stride, pts->rows);
		/* The columns apart, as the panels take them. */
		size_t np = pts->rows;
		double *xy = malloc(2 * np * sizeof(*xy));
		if (!xy) {
			rc = cli_error("the scatter figure: out of memory");
		} else {
			for (size_t i = 0; i < np; i++) {
				xy[i] = pts->data[2 * i];
				xy[np + i] = pts->data[2 * i + 1];
			}
			rc = draw(&r, &own, xy, xy + np, own.triangles ? np / 2 : np, stride);
			free(xy);
		}
		pe_matrix_destroy(pts);
		pw_finish(&r);
		return rc;
	}
	if (!rc && !(out = pe_matrix_create(pts->rows, 4)))
		rc = cli_error("out of memory");
	if (!rc) {
		size_t mm = (v->n + stride - 1) / stride, row = 0;
		for (int lower = 0; lower < (own.triangles ? 2 : 1); lower++)
			for (size_t i = 0; i < mm; i++) {
				for (size_t j = lower ? 0 : i + 1; j < (lower ? i : mm);
				     j++, row++) {
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
