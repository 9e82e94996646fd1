/* posenc scatter: (distance, correlation) for pairs of positions. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "pairwise_cli.h"

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

int cmd_scatter(int argc, char **argv)
{
	static const struct option opts[] = {
		CLI_COMMON_LONG,
		{"metric", required_argument, NULL, OPT_METRIC},
		{"max-points", required_argument, NULL, OPT_MAX_POINTS},
		{NULL, 0, NULL, 0},
	};
	struct pw_run r;
	memset(&r, 0, sizeof(r));
	cli_common_init(&r.o);
	enum pe_metric metric = PE_METRIC_L2;
	uint64_t max_points = DEFAULT_MAX_POINTS;
	int opt, rc;
	while ((opt = getopt_long(argc, argv, CLI_COMMON_SHORT, opts, NULL)) != -1) {
		if (opt == OPT_METRIC)
			rc = pw_parse_metric(optarg, &metric);
		else if (opt == OPT_MAX_POINTS)
			rc = cli_parse_count("--max-points", optarg, 0, SIZE_MAX, &max_points);
		else
			rc = cli_common_option(&r.o, opt, optarg, argv);
		if (rc)
			return rc;
	}
	if (r.o.help) {
		printf(help, cli_common_help);
		return CLI_OK;
	}
	if ((rc = cli_no_operands(argc, argv)))
		return rc;
	rc = pw_prepare(&r);
	const struct pe_vectors *v = &r.v.vec;
	if (!rc && v->n < 2)
		rc = cli_usage_error("option '-n': a scatter needs at least 2 positions");
	if (!rc) {
		/* 4 columns of 8 bytes per pair, before anything is computed */
		double pairs = (double)v->n * (double)(v->n - 1) / 2.0;
		if (max_points && pairs > (double)max_points)
			pairs = (double)max_points;
		rc = cli_check_memory(&r.o, pairs * 48.0, "the scatter",
				      "lower --max-points or -n");
	}
	struct pe_matrix *pts = NULL, *out = NULL;
	size_t stride = 1;
	if (!rc) {
		enum pe_status st = pe_scatter(v, metric, (size_t)max_points, &stride, &pts);
		if (st != PE_OK)
			rc = pw_status_error(st, "computing the scatter");
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
		if (stride > 1 && !r.o.quiet)
			fprintf(stderr,
				"posenc: %zu pairs would exceed --max-points %llu: every %zu%s "
				"position is paired (%zu pairs)\n",
				(size_t)((double)v->n * (double)(v->n - 1) / 2.0),
				(unsigned long long)max_points, stride,
				stride % 10 == 1 && stride % 100 != 11   ? "st"
				: stride % 10 == 2 && stride % 100 != 12 ? "nd"
				: stride % 10 == 3 && stride % 100 != 13 ? "rd"
									 : "th",
				out->rows);
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
