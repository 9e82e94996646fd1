/* posenc distance: the pairwise distance matrix of one scheme's position vectors. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "shared/pairwise_cli.h"
#include "figures/raw.h"

enum { OPT_METRIC = CLI_OPT_COMMAND };

static const char help[] =
        "Usage: posenc distance [-s SPEC] [-n N] [-d D] [--start P] [--metric M] [-o FILE]\n"
        "\n"
        "The n x n matrix of distances between the position vectors of positions\n"
        "P..P+n-1: element (i, j) compares positions P+i and P+j.\n"
        "\n"
        "Options:\n"
        "      --metric M         l2 (Euclidean), cosine (the cosine distance\n"
        "                         1 - cos(x, y)), l1 or linf [default: l2]\n"
        "%s"
        "\n"
        "Sinusoidal and RoPE (rotated view) distances are computed from the offset\n"
        "kernel in O(n d + n^2); other schemes compare rows directly. A matrix larger\n"
        "than --max-memory is refused: draw it as a figure instead.\n"
        "\n"
        "Defaults: -s sinusoidal -n 128 -d 64 --metric l2 -o distance.png\n"
        "Example: posenc distance -s sinusoidal:base=10 -n 256 -d 64 --metric cosine -o d.csv\n";

static const struct cli_command_options command = {
        help,
        CLI_TAKES_POSITIONED | CLI_TAKES_BASE | CLI_TAKES_DTYPE | CLI_TAKES_FIGURES |
                CLI_TAKES_COLOUR | CLI_TAKES_RAW | CLI_TAKES_BUDGETS,
        CLI_OUTPUT_ALL,
        "distance writes a matrix",
        NULL,
};

int cmd_distance(int argc, char **argv)
{
	static const struct option opts[] = {
	        {"metric", required_argument, NULL, OPT_METRIC},
	        {NULL, 0, NULL, 0},
	};
	struct pw_run r;
	memset(&r, 0, sizeof(r));
	enum pe_metric metric = PE_METRIC_L2;
	int rc = cli_parse_args(argc, argv, &command,
	                        &(struct cli_own_options){opts, pw_metric_option, &metric}, &r.o);
	if (rc)
		return rc == CLI_DONE ? CLI_OK : rc;
	rc = pw_prepare(&r);
	if (!rc && r.o.raw)
		rc = write_raw(&r.o, r.path, &r.v.vec, metric);
	else if (!rc)
		rc = pw_write_full(&r, metric, "distance");
	pw_finish(&r);
	return rc;
}
