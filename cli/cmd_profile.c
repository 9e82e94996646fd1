/* posenc profile: the distance from chosen positions to every position. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "pairwise_cli.h"

enum { OPT_METRIC = CLI_OPT_COMMAND, OPT_AT };

static const char help[] =
	"Usage: posenc profile [-s SPEC] [-n N] [-d D] [--start P] [--at LIST] [--metric M]\n"
	"                      [-o FILE]\n"
	"\n"
	"The distance from each chosen position to every position P..P+n-1: one row\n"
	"per position, one column per chosen position (headed by it).\n"
	"\n"
	"Options:\n"
	"      --at LIST          chosen positions, e.g. 0,64,128; they may lie\n"
	"                         outside P..P+n-1 [default: P]\n"
	"      --metric M         l2, cosine (1 - cos(x, y)), l1 or linf [default: l2]\n"
	"%s"
	"\n"
	"Defaults: -s sinusoidal -n 128 -d 64 --at P --metric l2 -o profile.png\n"
	"Example: posenc profile -s rope -n 1024 -d 128 --at 0,64,128 -o profile.csv\n";

int cmd_profile(int argc, char **argv)
{
	static const struct option opts[] = {
		CLI_COMMON_LONG,
		{"metric", required_argument, NULL, OPT_METRIC},
		{"at", required_argument, NULL, OPT_AT},
		{NULL, 0, NULL, 0},
	};
	struct pw_run r;
	memset(&r, 0, sizeof(r));
	cli_common_init(&r.o);
	enum pe_metric metric = PE_METRIC_L2;
	uint64_t *at = NULL;
	size_t k = 0;
	int opt, rc = 0;
	while (!rc && (opt = getopt_long(argc, argv, CLI_COMMON_SHORT, opts, NULL)) != -1) {
		if (opt == OPT_METRIC) {
			rc = pw_parse_metric(optarg, &metric);
		} else if (opt == OPT_AT) {
			free(at);
			at = NULL;
			rc = cli_parse_positions("--at", optarg, &at, &k);
		} else {
			rc = cli_common_option(&r.o, opt, optarg, argv);
		}
	}
	if (!rc && r.o.help) {
		printf(help, cli_common_help);
		free(at);
		return CLI_OK;
	}
	if (!rc)
		rc = cli_no_operands(argc, argv);
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
		rc = cli_check_memory(&r.o, (double)r.v.vec.n * (double)k * 8.0, what,
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
	if (!rc) {
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
