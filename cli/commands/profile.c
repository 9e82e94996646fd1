/* posenc profile: the distance from chosen positions to every position. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "shared/costs.h"
#include "commands.h"
#include "figures/figure.h"
#include "shared/pairwise_cli.h"

enum { OPT_METRIC = CLI_OPT_COMMAND, OPT_AT };

static const char help[] =
        "Usage: posenc profile [-s SPEC] [-n N] [-d D] [--start P] [--at LIST] [--metric M]\n"
        "                      [-o FILE]\n"
        "\n"
        "The distance from each chosen position to every position P..P+n-1: one row\n"
        "per position, one column per chosen position (headed by it).\n"
        "Figure (.png .svg .pdf): one curve per chosen position against the position, a\n"
        "dashed line at each chosen position inside the range.\n"
        "\n"
        "Options:\n"
        "      --at LIST          chosen positions, e.g. 0,64,128; they may lie\n"
        "                         outside P..P+n-1 [default: P]\n"
        "      --metric M         l2, cosine (1 - cos(x, y)), l1 or linf [default: l2]\n"
        "%s"
        "\n"
        "Defaults: -s sinusoidal -n 128 -d 64 --at P --metric l2 -o profile.png\n"
        "Example: posenc profile -s rope -n 1024 -d 128 --at 0,64,128 -o profile.csv\n";

static const struct cli_command_options command = {
        help,
        CLI_TAKES_POSITIONED | CLI_TAKES_BASE | CLI_TAKES_DTYPE | CLI_TAKES_FIGURES |
                CLI_TAKES_BUDGETS,
        CLI_OUTPUT_ALL,
        "profile draws curves, not a heatmap",
        NULL,
};

/* One line per chosen position against the position, a dashed line at each chosen one. */
static int draw(struct pw_run *r, enum pe_metric metric, const uint64_t *at, size_t k,
                const struct pe_matrix *m, const char *const *labels)
{
	const struct pe_vectors *v = &r->v.vec;
	size_t n = v->n;
	double *x = malloc(n * (k + 1) * sizeof(*x));
	struct pe_figure *fig = pe_figure_create(1, 1);
	if (!x || !fig) {
		free(x);
		pe_figure_destroy(fig);
		return cli_error("the profile figure: out of memory");
	}
	for (size_t i = 0; i < n; i++)
		x[i] = (double)(v->first + i);
	pe_figure_set_png_level(fig, CLI_PNG_LEVEL_CURVES);
	struct pe_panel *p = pe_figure_panel(fig, 0, 0);
	enum pe_status st = PE_OK;
	char name[48];
	for (size_t j = 0; j < k && st == PE_OK; j++) {
		double *y = x + n * (j + 1);
		for (size_t i = 0; i < n; i++)
			y[i] = m->data[i * k + j];
		snprintf(name, sizeof(name), "from %s", labels[j]);
		st = pe_panel_add_line(p, k > 1 ? name : NULL, x, y, n);
	}
	/* a chosen position outside the range is in the legend, not stretching the axis */
	for (size_t j = 0; j < k && st == PE_OK; j++)
		if (at[j] >= v->first && at[j] - v->first < n)
			st = pe_panel_add_vline(p, (double)at[j], NULL);
	pe_panel_set_integer_ticks(p, true, false);
	if (st == PE_OK)
		st = pe_panel_set_xlabel(p, "position");
	if (st == PE_OK)
		st = pe_panel_set_ylabel(p, pw_metric_label(metric));
	char title[192], label[160];
	if (k == 1)
		snprintf(label, sizeof(label), "%s, from position %s",
		         cli_short_label(r->schemes[0]), labels[0]);
	else
		snprintf(label, sizeof(label), "%s", cli_short_label(r->schemes[0]));
	if (st == PE_OK)
		st = pe_figure_set_title(
		        fig, cli_scheme_title(label, v->d, v->first, n, title, sizeof(title)));
	int rc;
	if (st != PE_OK) {
		rc = cli_figure_error(st);
	} else {
		char what[96];
		snprintf(what, sizeof(what), "%zu profile%s over %zu positions", k,
		         k == 1 ? "" : "s", n);
		rc = cli_figure_write(&r->o, r->path, r->format, fig, what);
	}
	pe_figure_destroy(fig);
	free(x);
	return rc;
}

struct profile_opts {
	enum pe_metric metric;
	uint64_t *at; /* owned */
	size_t k;
};

static int parse_own(void *ctx, int opt, const char *arg)
{
	struct profile_opts *po = ctx;
	if (opt == OPT_METRIC)
		return pw_parse_metric(arg, &po->metric);
	free(po->at);
	po->at = NULL;
	return cli_parse_positions("--at", arg, &po->at, &po->k);
}

int cmd_profile(int argc, char **argv)
{
	static const struct option opts[] = {
	        {"metric", required_argument, NULL, OPT_METRIC},
	        {"at", required_argument, NULL, OPT_AT},
	        {NULL, 0, NULL, 0},
	};
	struct pw_run r;
	memset(&r, 0, sizeof(r));
	struct profile_opts own = {PE_METRIC_L2, NULL, 0};
	int rc = cli_parse_args(argc, argv, &command,
	                        &(struct cli_own_options){opts, parse_own, &own}, &r.o);
	enum pe_metric metric = own.metric;
	uint64_t *at = own.at;
	size_t k = own.k;
	if (rc == CLI_DONE) {
		free(at);
		return CLI_OK;
	}
	if (!rc)
		rc = pw_prepare(&r);
	if (!rc && !at) {
		at = malloc(sizeof(*at));
		if (!at)
			rc = cli_error("out of memory");
		else {
			at[0] = r.v.vec.first;
			k = 1;
		}
	}
	char what[96];
	if (!rc) {
		snprintf(what, sizeof(what), "the %zu x %zu profile", r.v.vec.n, k);
		double n = (double)r.v.vec.n;
		double held = (n < 128 ? n : 128) + (double)k;
		double bytes = n * (double)k * 8.0 + pw_work_bytes(&r.v.vec, held, n + (double)k);
		rc = cli_check_memory(&r.o, bytes, what, "lower -n or give fewer --at positions");
		/* per value written, and a table's rows formed first */
		const struct pe_vectors *v = &r.v.vec;
		double per =
		        r.format == CLI_FORMAT_CSV ? CLI_COST_PROFILE_CSV : CLI_COST_PROFILE_NPY;
		int closed = !v->table && v->scheme && pe_scheme_has(v->scheme, PE_CAP_TOEPLITZ);
		double secs = n * (double)k * per +
		              (closed ? 0.0 : n * (double)v->d * CLI_COST_TABLE_VALUE);
		if (!rc)
			rc = cli_check_time(&r.o, secs, what,
			                    "lower -n or give fewer --at positions");
	}
	struct pe_matrix *m = NULL;
	char *texts = NULL;
	const char **labels = NULL;
	if (!rc) {
		enum pe_status st = pe_profile(&r.v.vec, metric, at, k, &m);
		if (st == PE_ERANGE && r.v.vec.table)
			rc = cli_usage_error(
			        "option '--at': a position lies past the rows of the table");
		else if (st != PE_OK)
			rc = pw_status_error(st, "computing the profile");
	}
	if (!rc) {
		texts = malloc(k * 24);
		labels = malloc(k * sizeof(*labels));
		if (!texts || !labels)
			rc = cli_error("out of memory");
		for (size_t j = 0; !rc && j < k; j++) {
			snprintf(texts + 24 * j, 24, "%" PRIu64, at[j]);
			labels[j] = texts + 24 * j;
		}
	}
	if (!rc && cli_format_is_figure(r.format)) {
		rc = draw(&r, metric, at, k, m, labels);
	} else if (!rc) {
		struct pe_axis rows = {"position", (double)r.v.vec.first, 1.0, NULL};
		struct pe_axis cols = {NULL, 0.0, 1.0, labels};
		rc = cli_write_matrix(&r.o, r.path, r.format, m, &rows, &cols);
	}
	pe_matrix_destroy(m);
	free(texts);
	free(labels);
	free(at);
	pw_finish(&r);
	return rc;
}
