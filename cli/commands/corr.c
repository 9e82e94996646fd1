/* posenc corr: the pairwise Pearson correlation of one scheme's position vectors. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "shared/pairwise_cli.h"
#include "figures/raw.h"

static const char help[] =
        "Usage: posenc corr [-s SPEC] [-n N] [-d D] [--start P] [-o FILE]\n"
        "\n"
        "The n x n matrix of Pearson correlations between the position vectors of\n"
        "positions P..P+n-1, across the d features of each vector (numpy.corrcoef\n"
        "of the n x d encoding). A constant vector, such as RoPE's rotated all-ones\n"
        "vector at position 0, has no correlation: its row and column are nan.\n"
        "\n"
        "Options:\n"
        "%s"
        "\n"
        "A matrix larger than --max-memory is refused: draw it as a figure instead.\n"
        "\n"
        "Defaults: -s sinusoidal -n 128 -d 64 -o corr.png\n"
        "Example: posenc corr -s sinusoidal:base=10 -n 100 -d 64 -o corr10.csv\n";

static const struct cli_command_options command = {
        help,
        CLI_TAKES_POSITIONED | CLI_TAKES_BASE | CLI_TAKES_DTYPE | CLI_TAKES_FIGURES |
                CLI_TAKES_COLOUR | CLI_TAKES_RAW | CLI_TAKES_BUDGETS,
        CLI_OUTPUT_ALL,
        "corr writes a matrix",
        NULL,
};

int cmd_corr(int argc, char **argv)
{
	struct pw_run r;
	memset(&r, 0, sizeof(r));
	int rc = cli_parse_args(argc, argv, &command, NULL, &r.o);
	if (rc)
		return rc == CLI_DONE ? CLI_OK : rc;
	rc = pw_prepare(&r);
	if (!rc && r.o.raw)
		rc = write_raw(&r.o, r.path, &r.v.vec, PE_METRIC_CORR);
	else if (!rc)
		rc = pw_write_full(&r, PE_METRIC_CORR, "correlation");
	pw_finish(&r);
	return rc;
}
