/* posenc precision: the error of reduced-precision RoPE tables against exact ones, by position. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <posenc/precision.h>

#include "cli.h"
#include "commands.h"
#include "figures/figure.h"
#include "shared/costs.h"
#include "shared/output.h"
#include "shared/vectors.h"

enum { OPT_PRECISION = CLI_OPT_COMMAND, OPT_THRESHOLD, OPT_BLOCK };

#define MAX_PRECS         8
#define DEFAULT_THRESHOLD 1e-3

static const char help[] =
        "Usage: posenc precision [-s SPEC] [--precision LIST] [-n N] [--start P] [-d D]\n"
        "                        [--threshold T] [--block B] [-o FILE]\n"
        "\n"
        "How far the cos and sin tables of a rope scheme computed in reduced precision are\n"
        "from the exact ones, as a function of position, for several precisions at once.\n"
        "Each precision follows the common recipe step by step (inv_freq = 1/base^(2i/d),\n"
        "positions, their product with the frequencies, cos and sin, all rounded to it; see\n"
        "man posenc, PRECISION). The error at a position is the largest |value - exact| over\n"
        "the cos and sin of every pair (attention factor included). Every position is\n"
        "computed; the table and the figure show the largest error of each block of B\n"
        "positions. On stderr: each precision's largest error and the first position where\n"
        "it exceeds the threshold.\n"
        "\n"
        "Options:\n"
        "  -s, --scheme SPEC      one rope spec, e.g. rope:base=500000 (see 'posenc help\n"
        "                         schemes'), or a model: hf:config.json, gguf:FILE,\n"
        "                         model:NAME [default: rope]\n"
        "      --precision LIST   precisions, comma-separated: f64, f32, bf16, f16, or\n"
        "                         COMPUTE/STORE (f32/bf16: float32 angles, cos and sin stored\n"
        "                         as bfloat16) [default: f32,bf16,f16]\n"
        "      --threshold T      the error whose first crossing is reported [default: 1e-3,\n"
        "                         a thousandth of the amplitude]\n"
        "      --block B          positions per row of the table [default: N/1000 rounded up]\n"
        "%s"
        "\n"
        "Defaults: -s rope -n 1000000 -d 128 -o precision.png\n"
        "Example: posenc precision -s rope:base=500000,scaling=llama3 -o llama31-precision.png\n";

static const struct cli_refusal refusals[] = {
        {CLI_TAKES_POSITION_IDS, "precision simulates 1-D positions"},
        {0, NULL},
};

static const struct cli_command_options command = {
        help,
        CLI_TAKES_SCHEME | CLI_TAKES_LAYER | CLI_TAKES_BASE | CLI_TAKES_POSITIONS | CLI_TAKES_DIM |
                CLI_TAKES_DTYPE | CLI_TAKES_FIGURES | CLI_TAKES_BUDGETS,
        CLI_OUTPUT_ALL,
        "precision draws curves, not a heatmap",
        refusals,
};

static int parse_precisions(const char *arg, struct pe_precision *out, size_t *n)
{
	char *copy = strdup(arg);
	if (!copy)
		return cli_error("out of memory");
	*n = 0;
	int rc = 0;
	char *save = NULL;
	for (char *t = strtok_r(copy, ",", &save); t && !rc; t = strtok_r(NULL, ",", &save)) {
		if (*n >= MAX_PRECS)
			rc = cli_usage_error("option '--precision': at most %d precisions",
			                     MAX_PRECS);
		else if (pe_precision_parse(t, &out[*n]) != PE_OK ||
		         out[*n].compute == PE_FLOAT_EXACT)
			rc = cli_usage_error(
			        "option '--precision': '%s' is not f64, f32, bf16, f16 or "
			        "COMPUTE/STORE (f32/bf16)",
			        t);
		else
			(*n)++;
	}
	if (!rc && *n == 0)
		rc = cli_usage_error("option '--precision': no precision given");
	free(copy);
	return rc;
}

static void report(const struct cli_common *o, const struct pe_precision_curve *c,
                   const struct pe_precision *precs, double threshold)
{
	if (o->quiet)
		return;
	for (size_t k = 0; k < c->nprec; k++) {
		char name[16];
		pe_precision_name(precs[k], name, sizeof(name));
		if (isinf(c->max_err[k]))
			fprintf(stderr,
			        "posenc: %s: the positions overflow from position %llu (inf); ",
			        name, (unsigned long long)c->max_at[k]);
		else
			fprintf(stderr, "posenc: %s: largest error %.3g at position %llu; ", name,
			        c->max_err[k], (unsigned long long)c->max_at[k]);
		if (c->exceed[k] == UINT64_MAX)
			fprintf(stderr, "never above %g\n", threshold);
		else
			fprintf(stderr, "first above %g at position %llu\n", threshold,
			        (unsigned long long)c->exceed[k]);
	}
}

static int draw(const struct cli_common *o, const char *path, enum cli_format format,
                const struct pe_scheme *s, size_t d, const struct pe_precision_curve *c,
                const struct pe_precision *precs, double threshold)
{
	size_t nb = c->nblocks, np = c->nprec;
	struct pe_figure *fig = pe_figure_create(1, 1);
	double *buf = malloc(nb * (np + 1) * sizeof(*buf));
	if (!fig || !buf) {
		pe_figure_destroy(fig);
		free(buf);
		return cli_error("the precision figure: out of memory");
	}
	pe_figure_set_png_level(fig, CLI_PNG_LEVEL_CURVES);
	struct pe_panel *p = pe_figure_panel(fig, 0, 0);
	double *x = buf;
	for (size_t b = 0; b < nb; b++) {
		double lo = (double)c->first + (double)b * (double)c->block;
		double hi = fmin(lo + (double)c->block, (double)c->first + (double)c->n) - 1;
		x[b] = (lo + hi) / 2;
	}
	enum pe_status st = PE_OK;
	for (size_t k = 0; k < np && st == PE_OK; k++) {
		double *y = buf + nb * (k + 1);
		for (size_t b = 0; b < nb; b++)
			y[b] = c->err[b * np + k];
		char name[128], pn[16];
		pe_precision_name(precs[k], pn, sizeof(pn));
		if (c->exceed[k] == UINT64_MAX)
			snprintf(name, sizeof(name), "%s (never above %g)", pn, threshold);
		else
			snprintf(name, sizeof(name), "%s (above %g from position %llu)", pn,
			         threshold, (unsigned long long)c->exceed[k]);
		if (isinf(c->max_err[k])) {
			size_t len = strlen(name) - 1;
			snprintf(name + len, sizeof(name) - len, "; overflows at %llu)",
			         (unsigned long long)c->max_at[k]);
		}
		st = pe_panel_add_line(p, name, x, y, nb);
	}
	char text[160];
	snprintf(text, sizeof(text), "threshold %g", threshold);
	if (st == PE_OK)
		st = pe_panel_add_hline(p, threshold, text);
	/* errors grow with the position, in steps at powers of two: both axes logarithmic */
	pe_panel_set_log(p, c->n >= 100, true);
	if (c->n < 100)
		pe_panel_set_integer_ticks(p, true, false);
	if (st == PE_OK)
		st = pe_panel_set_xlabel(p, "position");
	if (st == PE_OK) {
		if (c->block > 1)
			snprintf(text, sizeof(text),
			         "largest |cos, sin - exact| per block of %llu positions",
			         (unsigned long long)c->block);
		else
			snprintf(text, sizeof(text), "largest |cos, sin - exact|");
		st = pe_panel_set_ylabel(p, text);
	}
	char title[256];
	snprintf(title, sizeof(title), "RoPE in reduced precision against exact values (d=%zu)", d);
	if (st == PE_OK)
		st = pe_figure_set_title(fig, title);
	/* the spec can be long: the panel's title has the width */
	if (st == PE_OK)
		st = pe_panel_set_title(p, cli_short_label(s));
	int rc;
	if (st != PE_OK) {
		rc = cli_figure_error(st);
	} else {
		snprintf(text, sizeof(text), "%zu precision%s, %llu positions", np,
		         np == 1 ? "" : "s", (unsigned long long)c->n);
		rc = cli_figure_write(o, path, format, fig, text);
	}
	pe_figure_destroy(fig);
	free(buf);
	return rc;
}

struct precision_options {
	struct pe_precision *precs;
	size_t *nprec;
	double *threshold;
	uint64_t *block;
};

static int parse_precision_option(void *ctx, int opt, const char *arg)
{
	struct precision_options *po = ctx;
	if (opt == OPT_PRECISION)
		return parse_precisions(arg, po->precs, po->nprec);
	if (opt == OPT_THRESHOLD) {
		int rc = cli_parse_double("--threshold", arg, po->threshold);
		if (!rc && !(*po->threshold > 0))
			rc = cli_usage_error("option '--threshold': %s must be > 0", arg);
		return rc;
	}
	return cli_parse_count("--block", arg, 1, UINT64_MAX, po->block);
}

int cmd_precision(int argc, char **argv)
{
	static const struct option opts[] = {
	        {"precision", required_argument, NULL, OPT_PRECISION},
	        {"threshold", required_argument, NULL, OPT_THRESHOLD},
	        {"block", required_argument, NULL, OPT_BLOCK},
	        {NULL, 0, NULL, 0},
	};
	struct cli_common o;
	struct pe_precision precs[MAX_PRECS];
	size_t nprec = 0;
	double threshold = DEFAULT_THRESHOLD;
	uint64_t block = 0;
	struct precision_options po = {precs, &nprec, &threshold, &block};
	int rc = cli_parse_args(argc, argv, &command,
	                        &(struct cli_own_options){opts, parse_precision_option, &po}, &o);
	if (rc)
		return rc == CLI_DONE ? CLI_OK : rc;
	if (nprec == 0 && (rc = parse_precisions("f32,bf16,f16", precs, &nprec)))
		return rc;
	struct pe_scheme **schemes;
	size_t count;
	if ((rc = cli_schemes(&o, "rope", 1, &schemes, &count)))
		return rc;
	const struct pe_scheme *s = schemes[0];
	size_t d = cli_scheme_width(&o, s, 128);
	uint64_t n = o.n ? o.n : 1000000;
	if (!block)
		block = (n + 999) / 1000;
	char buf[64];
	const char *path = cli_output_path(&o, buf, sizeof(buf));
	enum cli_format format;
	if (!pe_scheme_has(s, PE_CAP_SCALING))
		rc = cli_usage_error("scheme '%s': precision simulates rope tables only",
		                     s->canonical);
	if (!rc)
		rc = cli_output_format(&o, path, &format);
	if (!rc && cli_format_is_figure(format))
		rc = cli_figure_check_options(&o);
	if (!rc && format == CLI_FORMAT_HTML)
		rc = cli_usage_error(
		        "option '-o': precision writes .csv, .npy, .png, .svg or .pdf");
	if (!rc) {
		const char *why = NULL;
		if (pe_encode_check(s, d, PE_VIEW_COS, &why) != PE_OK)
			rc = cli_usage_error("scheme '%s' with d=%zu: %s", s->canonical, d,
			                     why ? why : "cannot be encoded");
	}
	if (!rc && (double)o.start + (double)(n - 1) > PE_POSITION_MAX)
		rc = cli_usage_error("positions up to %.0f at most", PE_POSITION_MAX);
	if (!rc) {
		char what[96];
		snprintf(what, sizeof(what), "the error table of %llu blocks",
		         (unsigned long long)((n - 1) / block + 1));
		double bytes = (double)((n - 1) / block + 1) * (double)(nprec + 2) * 8.0 * 2;
		rc = cli_check_memory(&o, bytes, what, "choose larger blocks (--block)");
		/* and the computation's own: rows of d / 2 pairs for each thread, the models */
		snprintf(what, sizeof(what), "computing the error curves at d=%zu", d);
		if (!rc)
			rc = cli_check_memory(
			        &o, bytes + pe_precision_curve_bytes(s, d, n, nprec, block, 0),
			        what, "choose a smaller width (-d) or fewer precisions");
	}
	if (!rc) {
		/* wall time with the computation's threads, by the library's cost model:
		 * refused before it starts */
		char what[96];
		snprintf(what, sizeof(what), "the error curves of %llu positions at d=%zu",
		         (unsigned long long)n, d);
		/* and what is written: a point per block and precision drawn, or a row of
		 * text per block (--block 1 -n 1e8 drew for 139 s past a 30 s budget) */
		double rows = (double)((n - 1) / block + 1);
		double out = cli_format_is_figure(format)
		                     ? rows * (double)nprec * CLI_COST_CURVE_POINT
		             : format == CLI_FORMAT_CSV
		                     ? rows * (double)(nprec + 1) * CLI_COST_CSV_VALUE
		                     : rows * (double)(nprec + 1) * CLI_COST_NPY_WRITE_VALUE;
		rc = cli_check_time(
		        &o,
		        pe_precision_curve_seconds(s, d, o.start, n, precs, nprec, block, 0) + out,
		        what,
		        "choose fewer positions (-n), larger blocks (--block) or fewer precisions");
	}
	struct pe_precision_curve *c = NULL;
	if (!rc) {
		enum pe_status st = pe_precision_curve_compute(s, d, o.start, n, precs, nprec,
		                                               block, threshold, 0, &c);
		if (st == PE_ENOMEM || st == PE_ETOOBIG)
			rc = cli_error("the error curves: out of memory");
		else if (st != PE_OK)
			rc = cli_usage_error("scheme '%s' with d=%zu: %s", s->canonical, d,
			                     pe_status_str(st));
	}
	if (!rc && cli_format_is_figure(format)) {
		rc = draw(&o, path, format, s, d, c, precs, threshold);
	} else if (!rc) {
		struct pe_matrix m = {c->nblocks, c->nprec, c->err};
		char(*names)[16] = calloc(nprec, sizeof(*names));
		const char **labels = calloc(nprec, sizeof(*labels));
		if (!names || !labels) {
			rc = cli_error("out of memory");
		} else {
			for (size_t k = 0; k < nprec; k++)
				labels[k] = pe_precision_name(precs[k], names[k], sizeof(names[k]));
			struct pe_axis rows = {"position", (double)o.start, (double)block, NULL};
			struct pe_axis cols = {NULL, 0.0, 1.0, labels};
			rc = cli_write_matrix(&o, path, format, &m, &rows, &cols);
		}
		free(names);
		free(labels);
	}
	if (!rc)
		report(&o, c, precs, threshold);
	pe_precision_curve_destroy(c);
	cli_schemes_free(schemes, count);
	return rc;
}
