/* posenc decay: dot product versus relative offset, one column per scheme. */
#include <getopt.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <posenc/decay.h>

#include "cli.h"
#include "commands.h"
#include "figures/figure.h"
#include "shared/costs.h"
#include "shared/output.h"
#include "shared/vectors.h"

enum { OPT_MAX_OFFSET = CLI_OPT_COMMAND, OPT_BOUND };

#define MAX_SCHEMES        64
#define DEFAULT_MAX_OFFSET 256
#define LEGEND_MAX         20

static const char help[] =
        "Usage: posenc decay [-s SPEC]... [--base LIST] [-d D] [--max-offset K] [--bound]\n"
        "                    [-o FILE]\n"
        "\n"
        "Dot product versus relative offset k = 0..K, one column per scheme (headed by its\n"
        "label), the mean of <v_m, v_m+k> over the pairs inside positions --start..--start+n-1:\n"
        "  sinusoidal  sum_i cos(k w_i) (independent of m; an odd paper width's lone sine\n"
        "              column is averaged over the range)\n"
        "  rope        all-ones q and k: 2 a^2 sum_i cos(k theta_i) + unrotated features\n"
        "              (a = the scaling's attention factor)\n"
        "  others      learned, binary, files: the mean over the pairs themselves\n"
        "Figure (.png .svg .pdf): one curve per scheme against the offset (a log axis from\n"
        "K=4096 on, without offset 0), a dashed line at 0 when the curves cross it.\n"
        "\n"
        "Options:\n"
        "      --max-offset K     the largest offset [default: 256, or n-1 with -n]\n"
        "      --bound            rope only: RoFormer's relative upper bound\n"
        "                         (1/(r/2)) sum_j |sum_{i<j} exp(i k theta_i)| instead, over\n"
        "                         the r rotated features (r = d unless rotary < 1)\n"
        "%s"
        "\n"
        "Defaults: -s sinusoidal -d 128 -n K+1 -o decay.png\n"
        "Example: posenc decay -s rope --base 10000,500000 --max-offset 1024 -o decay.csv\n";

static const struct cli_command_options command = {
        help,
        CLI_TAKES_POSITIONED | CLI_TAKES_BASES | CLI_TAKES_DTYPE | CLI_TAKES_FIGURES |
                CLI_TAKES_BUDGETS,
        CLI_OUTPUT_ALL,
        "decay draws curves, not a heatmap",
        NULL,
};

struct decay_opts {
	uint64_t max_offset;
	int max_offset_set;
	int bound;
};

static int parse_own(void *ctx, int opt, const char *arg)
{
	struct decay_opts *d = ctx;
	if (opt == OPT_BOUND) {
		d->bound = 1;
		return 0;
	}
	d->max_offset_set = 1;
	return cli_parse_count("--max-offset", arg, 0, (uint64_t)PE_POSITION_MAX - 1,
	                       &d->max_offset);
}

/* Prepares every scheme's vectors; settles K so that every set has pairs at K. */
static int prepare_all(const struct cli_common *o, struct decay_opts *d, struct pe_scheme **schemes,
                       size_t count, struct cli_vectors *vs)
{
	uint64_t K = d->max_offset_set ? d->max_offset : o->n ? o->n - 1 : DEFAULT_MAX_OFFSET;
	for (size_t i = 0; i < count; i++) {
		const struct pe_scheme *s = schemes[i];
		if (d->bound && !pe_scheme_has(s, PE_CAP_BOUND))
			return cli_usage_error("option '--bound': RoFormer's upper bound exists "
			                       "only for rope, not '%s'",
			                       s->canonical);
		int rc = cli_vectors_prepare(o, s, PE_VIEW_DEFAULT, (size_t)K + 1, 128, &vs[i]);
		if (rc)
			return rc;
		size_t n = vs[i].vec.n;
		if (K >= n) {
			if (d->max_offset_set || o->n)
				return cli_usage_error("option '--max-offset': %llu needs at least "
				                       "%llu positions, '%s' has %zu",
				                       (unsigned long long)K,
				                       (unsigned long long)K + 1, s->canonical, n);
			K = n - 1; /* a short file table: stop where its pairs end */
		}
		if (!vs[i].vec.table && pe_scheme_is_vector(s) &&
		    !pe_scheme_has(s, PE_CAP_TOEPLITZ)) {
			char what[160];
			snprintf(what, sizeof(what), "the %zu x %zu rows of '%s'", n, vs[i].vec.d,
			         s->canonical);
			rc = cli_check_memory(o, (double)n * (double)vs[i].vec.d * 8.0, what,
			                      "ask for fewer positions (-n) or a smaller width "
			                      "(-d)");
			if (rc)
				return rc;
		}
	}
	d->max_offset = K;
	return 0;
}

static int compute(const struct cli_common *o, const struct decay_opts *d,
                   struct pe_scheme **schemes, size_t count, struct cli_vectors *vs,
                   struct pe_matrix *m)
{
	size_t K = (size_t)d->max_offset;
	double *col = malloc((K + 1) * sizeof(*col));
	if (!col)
		return cli_error("the decay curve: out of memory");
	for (size_t i = 0; i < count; i++) {
		const char *why = NULL;
		enum pe_decay_kind kind = d->bound ? PE_DECAY_BOUND : PE_DECAY_DOT;
		enum pe_status st = pe_decay_check(&vs[i].vec, kind, K, &why);
		if (st == PE_OK)
			st = pe_decay_curve(&vs[i].vec, kind, K, col);
		if (st != PE_OK) {
			free(col);
			if (st == PE_ENOMEM)
				return cli_error("decay of '%s': out of memory",
				                 schemes[i]->canonical);
			return cli_usage_error("decay of '%s': %s", schemes[i]->canonical,
			                       why ? why : pe_status_str(st));
		}
		for (size_t k = 0; k <= K; k++)
			m->data[k * count + i] = col[k];
	}
	free(col);
	(void)o;
	return 0;
}

/* "rope, sinusoidal (d=128)": the labels while they fit, else how many schemes. */
static const char *figure_title(struct pe_scheme **schemes, size_t count,
                                const struct cli_vectors *vs, char *buf, size_t cap)
{
	size_t len = 0;
	int same_d = 1;
	for (size_t i = 1; i < count; i++)
		same_d &= vs[i].vec.d == vs[0].vec.d;
	/* Schemes that differ only in their base name it once: "rope base=10000, 500000". */
	const char *first = cli_short_label(schemes[0]), *eq = strstr(first, "base=");
	size_t head = eq ? (size_t)(eq - first) + 5 : 0;
	bool bases = eq && count > 1 && !strchr(eq, ' ');
	for (size_t i = 1; bases && i < count; i++) {
		const char *l = cli_short_label(schemes[i]);
		bases = strncmp(l, first, head) == 0 && !strchr(l + head, ' ');
	}
	for (size_t i = 0; i < count && len < cap; i++)
		len += (size_t)snprintf(buf + len, cap - len, "%s%s", i ? ", " : "",
		                        cli_short_label(schemes[i]) + (bases && i ? head : 0));
	if (len > 70 || count > 4)
		len = (size_t)snprintf(buf, cap, "decay of %zu schemes%s", count,
		                       count > LEGEND_MAX ? ", too many to label" : "");
	if (len < cap && same_d) {
		snprintf(buf + len, cap - len, " (d=%zu)", vs[0].vec.d);
	} else if (len < cap) {
		/* models at their own widths: say them, as compare and freqs do */
		char widths[96] = "";
		for (size_t i = 0; i < count; i++)
			cli_width_list_add(widths, sizeof(widths), vs[i].vec.d);
		snprintf(buf + len, cap - len, " (d=%s)", widths);
	}
	return buf;
}

/* One line per scheme against the offset; a dashed 0 when the curves cross it. */
static int draw(const struct cli_common *o, const struct decay_opts *d, struct pe_scheme **schemes,
                size_t count, const struct cli_vectors *vs, const struct pe_matrix *m,
                const char *path, enum cli_format format)
{
	size_t K = (size_t)d->max_offset;
	double *x = malloc((K + 1) * (count + 1) * sizeof(*x));
	struct pe_figure *fig = pe_figure_create(1, 1);
	if (!x || !fig) {
		free(x);
		pe_figure_destroy(fig);
		return cli_error("the decay figure: out of memory");
	}
	pe_figure_set_png_level(fig, CLI_PNG_LEVEL_CURVES);
	double *y = x + K + 1, lo = 0, hi = 0;
	for (size_t k = 0; k <= K; k++)
		x[k] = (double)k;
	struct pe_panel *p = pe_figure_panel(fig, 0, 0);
	enum pe_status st = PE_OK;
	int mixed = 0;
	for (size_t i = 1; i < count; i++)
		mixed |= vs[i].vec.d != vs[0].vec.d;
	char names[MAX_SCHEMES][160];
	for (size_t i = 0; i < count && st == PE_OK; i++) {
		double *yi = y + i * (K + 1);
		for (size_t k = 0; k <= K; k++) {
			yi[k] = m->data[k * count + i];
			if (isfinite(yi[k])) {
				lo = fmin(lo, yi[k]);
				hi = fmax(hi, yi[k]);
			}
		}
		/* past a legend's worth the names would run off the canvas (and colours repeat) */
		bool named = count > 1 && count <= LEGEND_MAX;
		const char *name = cli_width_label(cli_short_label(schemes[i]), vs[i].vec.d, mixed,
		                                   names[i], sizeof(names[i]));
		st = pe_panel_add_line(p, named ? name : NULL, x, yi, K + 1);
	}
	if (st == PE_OK && lo < 0 && hi > 0)
		st = pe_panel_add_hline(p, 0.0, NULL);
	char title[160];
	if (st == PE_OK)
		st = pe_panel_set_xlabel(p, "offset k (positions)");
	if (st == PE_OK)
		st = pe_panel_set_ylabel(p, d->bound ? "relative upper bound"
		                                     : "dot product v(m) \xc2\xb7 v(m+k)");
	if (st == PE_OK)
		st = pe_figure_set_title(fig,
		                         figure_title(schemes, count, vs, title, sizeof(title)));
	pe_panel_set_integer_ticks(p, true, false);
	/* thousands of offsets: a log axis shows the first few dozen too (offset 0 drops out) */
	pe_panel_set_log(p, K >= CLI_LOG_OFFSETS, false);
	int rc;
	if (st != PE_OK) {
		rc = cli_figure_error(st);
	} else {
		char what[96];
		snprintf(what, sizeof(what), "%zu curve%s, offsets 0..%zu", count,
		         count == 1 ? "" : "s", K);
		rc = cli_figure_write(o, path, format, fig, what);
	}
	pe_figure_destroy(fig);
	free(x);
	return rc;
}

int cmd_decay(int argc, char **argv)
{
	static const struct option opts[] = {
	        {"max-offset", required_argument, NULL, OPT_MAX_OFFSET},
	        {"bound", no_argument, NULL, OPT_BOUND},
	        {NULL, 0, NULL, 0},
	};
	struct cli_common o;
	struct decay_opts d = {0, 0, 0};
	int rc = cli_parse_args(argc, argv, &command,
	                        &(struct cli_own_options){opts, parse_own, &d}, &o);
	if (rc)
		return rc == CLI_DONE ? CLI_OK : rc;

	struct pe_scheme **schemes;
	size_t count;
	if ((rc = cli_schemes(&o, "sinusoidal", MAX_SCHEMES, &schemes, &count)))
		return rc;
	struct cli_vectors vs[MAX_SCHEMES];
	memset(vs, 0, sizeof(vs));
	char buf[64];
	const char *path = cli_output_path(&o, buf, sizeof(buf));
	enum cli_format format;
	rc = prepare_all(&o, &d, schemes, count, vs);
	if (!rc)
		rc = cli_output_format(&o, path, &format);
	if (!rc && cli_format_is_figure(format))
		rc = cli_figure_check_options(&o);
	if (!rc) {
		/*
		 * The table, one column of work, each scheme's frequencies, and the
		 * closed forms' cos/sin tables of 64 offsets per pair (lib/analysis/decay.c).
		 */
		size_t dmax = 0;
		for (size_t i = 0; i < count; i++)
			dmax = vs[i].vec.d > dmax ? vs[i].vec.d : dmax;
		char what[96];
		snprintf(what, sizeof(what), "the decay table of %llu offsets",
		         (unsigned long long)d.max_offset + 1);
		rc = cli_check_memory(&o,
		                      ((double)d.max_offset + 1.0) * (double)(count + 1) * 8.0 +
		                              (double)(dmax + 1) * 8.0 * 66.0,
		                      what, "lower --max-offset (or -d)");
		/* A closed form costs per offset and pair (the bound 200 times more: a
		 * sine, cosine and hypotenuse each); a table per pair of positions at
		 * each offset up to K, n K - K^2 / 2 of them, d wide. */
		double K = (double)d.max_offset + 1.0, secs = 0.0;
		for (size_t i = 0; i < count; i++) {
			double n = (double)vs[i].vec.n, w = (double)vs[i].vec.d;
			int closed = !vs[i].vec.table && pe_scheme_has(schemes[i], PE_CAP_TOEPLITZ);
			secs += d.bound  ? K * fmax(w / 2, 1.0) * CLI_COST_BOUND_TERM
			        : closed ? K * w * CLI_COST_DECAY_TERM
			                 : (n * K - K * K / 2) * w * CLI_COST_DECAY_PAIR;
		}
		if (!cli_format_is_figure(format))
			secs += K * (double)count *
			        (format == CLI_FORMAT_CSV ? CLI_COST_DECAY_VALUE : 0);
		if (!rc)
			rc = cli_check_time(&o, secs, what, "lower --max-offset, -n or -d");
	}
	struct pe_matrix *m = NULL;
	if (!rc) {
		m = pe_matrix_create((size_t)d.max_offset + 1, count);
		if (!m)
			rc = cli_error("the decay table: out of memory");
	}
	if (!rc)
		rc = compute(&o, &d, schemes, count, vs, m);
	if (!rc && cli_format_is_figure(format)) {
		rc = draw(&o, &d, schemes, count, vs, m, path, format);
	} else if (!rc) {
		const char *labels[MAX_SCHEMES];
		for (size_t i = 0; i < count; i++)
			labels[i] = schemes[i]->label;
		struct pe_axis rows = {"offset", 0.0, 1.0, NULL};
		struct pe_axis cols = {NULL, 0.0, 1.0, labels};
		rc = cli_write_matrix(&o, path, format, m, &rows, &cols);
	}
	pe_matrix_destroy(m);
	for (size_t i = 0; i < count; i++)
		cli_vectors_finish(&vs[i]);
	cli_schemes_free(schemes, count);
	return rc;
}
