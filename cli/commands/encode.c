/* posenc encode: the encoding matrix of one scheme. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include <posenc/encode.h>
#include <posenc/precision.h>

#include "shared/costs.h"
#include "cli.h"
#include "commands.h"
#include "figures/encode_figure.h"
#include "figures/encode_views.h"
#include "figures/figure.h"
#include "shared/output.h"
#include "shared/progress.h"
#include "figures/raw.h"
#include "shared/vectors.h"

enum { OPT_VIEW = CLI_OPT_COMMAND, OPT_PRECISION, OPT_DIMS, OPT_PAIR };

static const char help[] =
        "Usage: posenc encode [-s SPEC] [-n N] [-d D] [--start P] [--view VIEW]\n"
        "                     [--dims LIST | --pair A,B] [-o FILE]\n"
        "\n"
        "The encoding matrix: one row per position, one column per dimension.\n"
        "\n"
        "Options:\n"
        "      --view VIEW        rope, mrope: angle, cos, sin or rotated (the all-ones\n"
        "                         vector rotated to each position) [default: rotated];\n"
        "                         phase: the angle mod 2 pi (a cyclic colour scale)\n"
        "      --dims LIST        only these dimensions (0,1,10; at most 8): a figure\n"
        "                         draws each against position\n"
        "      --pair A,B         figure: dimension A across, B up, one point per\n"
        "                         position: a sin/cos pair turning with position,\n"
        "                         PE(t+k) = T_k PE(t) (the note gives the angle)\n"
        "      --precision P      rope only: the table as an implementation computing in P\n"
        "                         makes it: f64, f32, bf16, f16 or COMPUTE/STORE (f32/bf16:\n"
        "                         float32 angles, cos and sin stored as bfloat16); see man\n"
        "                         posenc, PRECISION [default: exact]\n"
        "%s"
        "\n"
        "Defaults: -s sinusoidal -n 128 -d 64 -o encode.png\n"
        "Example: posenc encode -s rope:layout=half --view cos -n 512 -d 128 -o cos.csv\n";

static const struct cli_command_options command = {
        help,
        CLI_TAKES_POSITIONED | CLI_TAKES_BASE | CLI_TAKES_DTYPE | CLI_TAKES_FIGURES |
                CLI_TAKES_COLOUR | CLI_TAKES_RAW | CLI_TAKES_BUDGETS,
        CLI_OUTPUT_ALL,
        "encode writes a matrix",
        NULL,
};

struct encode_options {
	enum pe_view *view;
	struct pe_precision *prec;
	bool phase; /* --view phase: the angle view mod 2 pi */
	size_t dims[CLI_MAX_DIMS], ndims;
	bool pair;
};

static int parse_view(struct encode_options *eo, const char *arg)
{
	static const char *const names[] = {"default", "angle", "cos", "sin", "rotated"};
	_Static_assert(sizeof(names) / sizeof(names[0]) == PE_VIEW_ROTATED + 1,
	               "one name per enum pe_view value");
	eo->phase = strcmp(arg, "phase") == 0;
	if (eo->phase) {
		*eo->view = PE_VIEW_ANGLE;
		return 0;
	}
	for (int i = 1; i <= PE_VIEW_ROTATED; i++)
		if (strcmp(arg, names[i]) == 0) {
			*eo->view = (enum pe_view)i;
			return 0;
		}
	return cli_usage_error("option '--view': '%s' is not angle, phase, cos, sin or rotated",
	                       arg);
}

static int parse_encode_option(void *ctx, int opt, const char *arg)
{
	struct encode_options *eo = ctx;
	if (opt == OPT_VIEW)
		return parse_view(eo, arg);
	if (opt == OPT_DIMS || opt == OPT_PAIR) {
		if (eo->ndims)
			return cli_usage_error("options '--dims' and '--pair' are given together "
			                       "or twice: choose one");
		eo->pair = opt == OPT_PAIR;
		return cli_parse_dims(eo->pair ? "--pair" : "--dims", arg, eo->dims, &eo->ndims,
		                      eo->pair ? 2 : 0);
	}
	if (pe_precision_parse(arg, eo->prec) == PE_OK)
		return 0;
	return cli_usage_error("option '--precision': '%s' is not f64, f32, bf16, f16 or "
	                       "COMPUTE/STORE (f32/bf16)",
	                       arg);
}

/*
 * The rows as an implementation computing in @prec makes them. A figure
 * then draws this table (its rows from position 0, so --start must be 0).
 */
static int encode_precision(const struct cli_common *o, const struct pe_scheme *s,
                            struct cli_vectors *v, struct pe_precision prec, enum cli_format format,
                            struct pe_matrix **out)
{
	int figure = cli_format_is_figure(format);
	if (!pe_scheme_has(s, PE_CAP_SCALING))
		return cli_usage_error("option '--precision' simulates rope tables only");
	if (figure && v->vec.first)
		return cli_usage_error("option '--precision': a figure starts at position 0 (write "
		                       ".csv or .npy for --start)");
	char what[96];
	snprintf(what, sizeof(what), "the %zu x %zu table", v->vec.n, v->vec.d);
	double values = (double)v->vec.n * (double)v->vec.d;
	int rc = cli_check_memory(o, values * 8.0, what, "lower -n or -d");
	/* The table, then its file (a figure's cost follows its pixels). */
	double per =
	        CLI_COST_PRECISION_VALUE + (figure                     ? 0.0
	                                    : format == CLI_FORMAT_CSV ? CLI_COST_CSV_VALUE
	                                                               : CLI_COST_NPY_WRITE_VALUE);
	if (!rc)
		rc = cli_check_time(o, values * per, what, "lower -n or -d");
	if (rc)
		return rc;
	struct pe_matrix *m = pe_matrix_create(v->vec.n, v->vec.d);
	if (!m)
		return cli_error("%s: out of memory", what);
	enum pe_status st = pe_precision_encode(s, v->vec.d, v->vec.first, v->vec.n, v->vec.view,
	                                        prec, m->data);
	if (st != PE_OK) {
		pe_matrix_destroy(m);
		return cli_error("%s: %s", what, pe_status_str(st));
	}
	if (figure) {
		v->vec.table = m;
		v->vec.scheme = NULL;
	}
	*out = m;
	return 0;
}

/* About this many bytes of rows per block of a streamed export. */
#define STREAM_BLOCK_BYTES (16u << 20)

/*
 * A computed scheme's matrix as CSV or NPY a block of rows at a time:
 * memory is one block, not n x d (the rows are computed independently, so
 * the bytes are those of the whole matrix). Still refused beyond the
 * budget as a whole matrix, as every export is (the budget's contract, and
 * a guard against asking for terabytes of output).
 */
static int write_rows_streamed(const struct cli_common *o, const char *path, enum cli_format format,
                               const struct pe_vectors *vec, bool phase)
{
	size_t n = vec->n, d = vec->d;
	char what[128];
	snprintf(what, sizeof(what), "the %zu x %zu matrix", n, d);
	int rc = cli_check_memory(o, (double)n * (double)d * 8.0, what,
	                          "ask for fewer positions (-n) or a smaller width (-d)");
	if (!rc)
		rc = cli_check_time(o,
		                    (double)n * (double)d *
		                            ((format == CLI_FORMAT_CSV ? CLI_COST_ENCODE_CSV
		                                                       : CLI_COST_ENCODE_NPY) +
		                             (phase ? CLI_COST_PHASE_VALUE : 0.0)),
		                    what, "ask for fewer positions (-n) or a smaller width (-d)");
	if (rc)
		return rc;
	size_t rows = STREAM_BLOCK_BYTES / 8 / d;
	rows = rows < 1 ? 1 : rows > n ? n : rows;
	struct pe_matrix *block = pe_matrix_create(rows, d);
	if (!block)
		return cli_error("%s: out of memory", what);
	struct cli_file file;
	if ((rc = cli_file_open(&file, path))) {
		pe_matrix_destroy(block);
		return rc;
	}
	const char *row = pe_scheme_row_name(vec->scheme);
	struct pe_axis ra = {row, (double)vec->first, 1.0, NULL};
	struct pe_axis ca = {NULL, 0.0, 1.0, NULL};
	size_t shape[2] = {n, d};
	enum pe_status st = format == CLI_FORMAT_NPY
	                            ? pe_npy_write_header(file.f, shape, 2, o->dtype)
	                            : pe_csv_write_header(file.f, d, &ra, &ca);
	int compute_failed = 0;
	char doing[300];
	snprintf(doing, sizeof(doing), "writing %s", file.is_stdout ? "standard output" : path);
	struct cli_progress prog;
	cli_progress_start(&prog, o, doing, n);
	for (size_t r0 = 0; r0 < n && st == PE_OK; r0 += rows) {
		cli_progress_update(&prog, r0);
		size_t count = n - r0 < rows ? n - r0 : rows;
		if ((st = pe_vectors_rows(vec, r0, count, block->data)) != PE_OK) {
			compute_failed = 1;
			break;
		}
		for (size_t i = 0; phase && i < count * d; i++)
			block->data[i] = cli_phase(block->data[i]);
		block->rows = count;
		struct pe_axis br = {row, (double)vec->first + (double)r0, 1.0, NULL};
		st = format == CLI_FORMAT_NPY
		             ? pe_npy_write_data(file.f, block->data, count * d, o->dtype)
		             : pe_csv_write_rows(file.f, block, &br);
	}
	cli_progress_end(&prog);
	int e = errno;
	block->rows = rows;
	pe_matrix_destroy(block);
	if (compute_failed) {
		cli_file_abort(&file);
		return st == PE_ENOMEM ? cli_error("%s: out of memory", what)
		                       : cli_usage_error("%s: %s", what, pe_status_str(st));
	}
	if (st != PE_OK)
		return cli_file_fail(&file, st, e);
	if ((rc = cli_file_commit(&file)))
		return rc;
	snprintf(what, sizeof(what), "%zu x %zu %s", n, d,
	         format == CLI_FORMAT_NPY
	                 ? (o->dtype == PE_DTYPE_F32 ? "float32 array" : "float64 array")
	                 : "table");
	cli_report_written(o, path, what);
	return 0;
}

int cmd_encode(int argc, char **argv)
{
	static const struct option opts[] = {
	        {"view", required_argument, NULL, OPT_VIEW},
	        {"precision", required_argument, NULL, OPT_PRECISION},
	        {"dims", required_argument, NULL, OPT_DIMS},
	        {"pair", required_argument, NULL, OPT_PAIR},
	        {NULL, 0, NULL, 0},
	};
	struct cli_common o;
	enum pe_view view = PE_VIEW_DEFAULT;
	struct pe_precision prec = {PE_FLOAT_EXACT, PE_FLOAT_EXACT};
	struct encode_options eo = {&view, &prec, false, {0}, 0, false};
	int rc = cli_parse_args(argc, argv, &command,
	                        &(struct cli_own_options){opts, parse_encode_option, &eo}, &o);
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
	struct pe_matrix *simulated = NULL;
	if (!rc && prec.compute != PE_FLOAT_EXACT)
		rc = encode_precision(&o, schemes[0], &v, prec, format, &simulated);
	/* The teaching views: one job each, none combined with the others. */
	if (!rc && (eo.ndims || eo.phase)) {
		if (o.raw)
			rc = cli_usage_error(
			        "option '--raw' draws the whole matrix: not with '--dims', "
			        "'--pair' or '--view phase'");
		else if (prec.compute != PE_FLOAT_EXACT)
			rc = cli_usage_error(
			        "option '--precision' is not for '--dims', '--pair' or "
			        "'--view phase'");
		else if (eo.phase && eo.ndims)
			rc = cli_usage_error(
			        "'--view phase' is a heatmap of every dimension: not with "
			        "'--dims' or '--pair'");
		else if (eo.pair && !cli_format_is_figure(format))
			rc = cli_usage_error(
			        "option '--pair' draws a figure (.png, .svg, .pdf); the "
			        "numbers are '--dims %zu,%zu -o FILE.csv'",
			        eo.dims[0], eo.dims[1]);
		if (!rc && cli_format_is_figure(format))
			rc = cli_figure_check_options(&o);
		if (!rc && eo.pair)
			rc = cli_pair_figure(&o, path, format, &v.vec, eo.dims[0], eo.dims[1]);
		else if (!rc && eo.ndims)
			rc = cli_dims_write(&o, path, format, &v.vec, eo.dims, eo.ndims);
		else if (!rc && cli_format_is_figure(format))
			rc = cli_phase_figure(&o, path, format, &v.vec);
		else if (!rc)
			rc = write_rows_streamed(&o, path, format, &v.vec, true);
		cli_vectors_finish(&v);
		cli_schemes_free(schemes, count);
		return rc;
	}
	int figure = !rc && cli_format_is_figure(format);
	if (figure) {
		rc = cli_figure_check_options(&o);
		if (!rc && o.raw)
			rc = write_raw_encode(&o, path, &v.vec);
		else if (!rc)
			rc = cli_encode_figure(&o, path, format, &v.vec);
	}
	struct pe_matrix *m = NULL;
	/* A file's rows are written from the loaded table itself, not a copy of it. */
	struct pe_matrix rows_of_table = {0, 0, NULL};
	const struct pe_matrix *out = NULL;
	if (!rc && !figure && simulated) {
		m = simulated;
		simulated = NULL;
	} else if (!rc && !figure && v.table) {
		rows_of_table =
		        (struct pe_matrix){v.vec.n, v.vec.d, v.table->data + v.vec.first * v.vec.d};
		out = &rows_of_table;
	} else if (!rc && !figure) {
		rc = write_rows_streamed(&o, path, format, &v.vec, false);
	}
	if (!out)
		out = m;
	if (!rc && out) {
		struct pe_axis rows = {"position", (double)v.vec.first, 1.0, NULL};
		struct pe_axis cols = {NULL, 0.0, 1.0, NULL};
		rc = cli_write_matrix(&o, path, format, out, &rows, &cols);
	}
	pe_matrix_destroy(m);
	pe_matrix_destroy(simulated);
	cli_vectors_finish(&v);
	cli_schemes_free(schemes, count);
	return rc;
}
