/* posenc encode: the encoding matrix of one scheme. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include <posenc/encode.h>

#include "cli.h"
#include "commands.h"
#include "encode_figure.h"
#include "figure.h"
#include "output.h"
#include "raw.h"
#include "vectors.h"

enum { OPT_VIEW = CLI_OPT_COMMAND };

static const char help[] =
        "Usage: posenc encode [-s SPEC] [-n N] [-d D] [--start P] [--view VIEW] [-o FILE]\n"
        "\n"
        "The encoding matrix: one row per position, one column per dimension.\n"
        "\n"
        "Options:\n"
        "      --view VIEW        rope only: angle, cos, sin or rotated (the all-ones\n"
        "                         vector rotated to each position) [default: rotated]\n"
        "%s"
        "\n"
        "Defaults: -s sinusoidal -n 128 -d 64 -o encode.png\n"
        "Example: posenc encode -s rope:layout=half --view cos -n 512 -d 128 -o cos.csv\n";

static int parse_view(void *ctx, int opt, const char *arg)
{
	(void)opt;
	enum pe_view *view = ctx;
	static const char *const names[] = {"default", "angle", "cos", "sin", "rotated"};
	_Static_assert(sizeof(names) / sizeof(names[0]) == PE_VIEW_ROTATED + 1,
	               "one name per enum pe_view value");
	for (int i = 1; i <= PE_VIEW_ROTATED; i++)
		if (strcmp(arg, names[i]) == 0) {
			*view = (enum pe_view)i;
			return 0;
		}
	return cli_usage_error("option '--view': '%s' is not angle, cos, sin or rotated", arg);
}

int cmd_encode(int argc, char **argv)
{
	static const struct option opts[] = {
	        {"view", required_argument, NULL, OPT_VIEW},
	        {NULL, 0, NULL, 0},
	};
	struct cli_common o;
	cli_common_init(&o);
	enum pe_view view = PE_VIEW_DEFAULT;
	int rc = cli_parse_args(argc, argv, help,
	                        &(struct cli_own_options){opts, parse_view, &view}, &o);
	if (rc)
		return rc == CLI_DONE ? CLI_OK : rc;

	struct pe_scheme **schemes;
	size_t count;
	if ((rc = cli_schemes(&o, "sinusoidal", 1, &schemes, &count)))
		return rc;
	struct cli_vectors v;
	rc = cli_vectors_prepare(&o, schemes[0], view, 128, 64, &v);
	if (rc) {
		cli_schemes_free(schemes, count);
		return rc;
	}
	char buf[64];
	const char *path = cli_output_path(&o, buf, sizeof(buf));
	enum cli_format format;
	rc = cli_output_format(&o, path, &format);
	int figure = !rc && cli_format_is_figure(format);
	if (figure) {
		rc = cli_figure_check_options(&o);
		if (!rc && o.raw)
			rc = write_raw_encode(&o, path, &v.vec);
		else if (!rc)
			rc = cli_encode_figure(&o, path, format, &v.vec);
	}
	struct pe_matrix *m = NULL;
	if (!rc && !figure)
		rc = cli_vectors_matrix(&o, &v, &m);
	if (!rc && !figure) {
		struct pe_axis rows = {"position", (double)v.vec.first, 1.0, NULL};
		struct pe_axis cols = {NULL, 0.0, 1.0, NULL};
		rc = cli_write_matrix(&o, path, format, m, &rows, &cols);
	}
	pe_matrix_destroy(m);
	cli_vectors_finish(&v);
	cli_schemes_free(schemes, count);
	return rc;
}
