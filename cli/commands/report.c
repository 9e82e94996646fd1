/*
 * posenc report: a comparison of schemes as a multi-page PDF (one analysis
 * per page, vector text) or one self-contained HTML file (inline SVG). The
 * summary table holds the numbers of posenc compare -o x.csv, computed by
 * the same code (cli/figures/compare_data.c).
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include <posenc/decay.h>
#include <posenc/document.h>
#include <posenc/freqs.h>

#include "cli.h"
#include "commands.h"
#include "figures/figure.h"
#include "report/report.h"
#include "shared/contexts.h"
#include "shared/costs.h"
#include "shared/model_spec.h"
#include "shared/output.h"
#include "shared/pairwise_cli.h"
#include "shared/vectors.h"

enum { OPT_METRIC = CLI_OPT_COMMAND, OPT_SCALE };

#define DEFAULT_N 256
#define DEFAULT_D 128

static const char help[] =
        "Usage: posenc report [-s SPEC]... [--base LIST] [-n N] [-d D] [--metric M] [-o FILE]\n"
        "\n"
        "A report comparing schemes (at most 8): a multi-page PDF, one analysis per\n"
        "page, or one self-contained HTML file (inline SVG, no external files). It has\n"
        "a title page with the parameters and a summary table (the numbers of\n"
        "'posenc compare -o summary.csv'), the encodings, distance and correlation\n"
        "heatmaps on one colour scale, the distance vs correlation scatter, distance\n"
        "profiles from positions 0, n/4 and n/2, the decay curves (with RoFormer's\n"
        "bound for RoPE), the wavelength of each pair with the critical dimension and\n"
        "the context length marked, a frequency table, and for RoPE scalings the\n"
        "scaled frequencies against the unscaled ones. Progress goes to stderr when\n"
        "it is a terminal. The distance profiles visit every position: at most 2^24.\n"
        "\n"
        "Options:\n"
        "      --metric M         l2, cosine, l1 or linf [default: l2]\n"
        "      --scale S          colour scales of the heatmaps (and scatter axes):\n"
        "                         shared, panel, or auto: shared unless a scheme's\n"
        "                         range is under 1/4 of another's [default: auto]\n"
        "%s"
        "\n"
        "Models (-s model:NAME, hf:, gguf:) each keep their own width; without -n the\n"
        "report covers the longest context of the models given, and opens with a table\n"
        "of each model's facts (as 'posenc model' gives them). Past 4096 positions the\n"
        "decay curves are drawn on a log offset axis.\n"
        "\n"
        "Defaults: sinusoidal with --base 10000,10, -n 256 (a model's context) -d 128\n"
        "-o report.pdf\n"
        "Example: posenc report -s rope --base 10000,500000 -n 1024 -o rope.html\n";

static const struct cli_refusal refusals[] = {
        {CLI_TAKES_FIGURE_SIZE, "report lays out A4 landscape pages"},
        {0, NULL},
};

static const struct cli_command_options command = {
        help,
        CLI_TAKES_POSITIONED | CLI_TAKES_BASES | CLI_TAKES_FIGURE | CLI_TAKES_COLOUR |
                CLI_TAKES_BUDGETS,
        ".pdf pages or one self-contained .html file [default: report.pdf]",
        "report writes pages of figures, PDF or HTML",
        refusals,
};

struct report_progress {
	int on;
	size_t step, total;
};

void report_progress_step(struct report_progress *pr, size_t i, const char *title)
{
	(void)i;
	if (!pr || !pr->on)
		return;
	pr->step++;
	/* One line, rewritten in place: \r and erase to the end of the line. */
	fputs("\r\033[K", stderr);
	cli_eprintf("posenc: report: [%zu/%zu] %s", pr->step, pr->total, title);
	fflush(stderr);
	cli_progress_line = 1;
}

static void progress_clear(struct report_progress *pr)
{
	if (pr->on && cli_progress_line) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
	}
	cli_progress_line = 0;
}

static int status_error(enum pe_status st, const char *what, const char *label)
{
	if (cli_exit_for(st) == CLI_USAGE)
		return cli_usage_error("scheme '%s': %s: %s", label, what, pe_status_str(st));
	return cli_error("scheme '%s': %s failed: %s", label, what, pe_status_str(st));
}

/* The frequency table (cheap): which sections the report has depends on it. */
static int frequencies(struct report *r, size_t i)
{
	const struct pe_scheme *s = r->schemes[i];
	const struct pe_vectors *v = &r->s[i].data.v.vec;
	if (v->table || !pe_scheme_has(s, PE_CAP_FREQS))
		return 0;
	/* The critical dimension for the training length a model or the spec states (none
	 * is invented: the report's -n is not a training length). */
	struct pe_freqs_options fo = {0, r->ctx[i].train};
	enum pe_status st = pe_freq_table_create(s, v->d, &fo, &r->s[i].freqs);
	if (st != PE_OK && st != PE_EUNSUPPORTED)
		return status_error(st, "the frequency table", s->label);
	return 0;
}

/* Whether scheme @i's decay page draws RoFormer's bound beside the curve. */
static int has_bound(const struct report *r, size_t i)
{
	const struct pe_vectors *v = &r->s[i].data.v.vec;
	return pe_scheme_has(r->schemes[i], PE_CAP_BOUND) &&
	       pe_decay_check(v, PE_DECAY_BOUND, v->n - 1, NULL) == PE_OK;
}

/*
 * Everything else one scheme contributes: the summary row (streamed from the
 * rows of the full matrices), then the figure data at the pages' resolution.
 */
static int compute(struct report *r, size_t i)
{
	struct report_scheme *rs = &r->s[i];
	struct compare_data *sd = &rs->data;
	const struct pe_scheme *s = r->schemes[i];
	const struct pe_vectors *v = &sd->v.vec;
	int rc = compare_summary_compute(&r->o, s->label, r->metric, &sd->v, rs->summary);
	if (rc)
		return rc;
	return compare_data_compute(&r->o, s->label, r->metric, cli_figure_grid_cells(&r->o, v->n),
	                            REPORT_SCATTER_POINTS, has_bound(r, i), sd);
}

/*
 * The whole report against --max-time before any of it starts: every
 * scheme's summary row and figure data, and its distance profiles (three
 * rows of the distance matrix over every position: the one page whose work
 * grows with n rather than the pixels).
 */
static int check_time(const struct report *r)
{
	double secs = 0;
	for (size_t i = 0; i < r->count; i++) {
		const struct pe_vectors *v = &r->s[i].data.v.vec;
		double n = (double)v->n;
		secs += compare_summary_seconds(&r->o, r->metric, v) +
		        compare_data_seconds(&r->o, r->metric, cli_figure_grid_cells(&r->o, v->n),
		                             REPORT_SCATTER_POINTS, has_bound(r, i), v) +
		        n * 3.0 *
		                (CLI_COST_REPORT_PROFILE_POINT +
		                 (double)v->d * CLI_COST_REPORT_PROFILE_TERM);
	}
	char what[160];
	snprintf(what, sizeof(what), "the report of %zu scheme%s (%zu positions) in all", r->count,
	         r->count == 1 ? "" : "s", r->s[0].data.v.vec.n);
	return cli_check_time(&r->o, secs, what, "lower -n or -d, or report fewer schemes");
}

static int build_error(enum pe_status st, const char *path)
{
	/* the document sets errno to its failed write's */
	if (st == PE_EIO)
		return cli_error("writing '%s' failed: %s", path,
		                 errno ? strerror(errno) : "input/output error");
	return cli_figure_error(st);
}

/* Section titles and page numbers for the PDF's title page; freed with the section. */
static const char **contents(const struct report *r, size_t count, struct report_section *sec)
{
	const char **cells = calloc(2 * count, sizeof(*cells));
	if (!cells)
		return NULL;
	for (size_t i = 1; i < count; i++) {
		cells[2 * (i - 1)] = report_section_title(r, i);
		cells[2 * (i - 1) + 1] = report_strf(sec, "page %zu", i + 1);
		if (!cells[2 * (i - 1) + 1]) {
			free(cells);
			return NULL;
		}
	}
	return cells;
}

static int write_pdf(struct report *r, const char *path, FILE *out, struct report_progress *pr)
{
	struct pe_document *doc = pe_document_create(out, REPORT_PAGE_WIDTH, REPORT_PAGE_HEIGHT);
	if (!doc)
		return cli_error("out of memory");
	const char *title = r->o.title ? r->o.title : "Positional-encoding report";
	enum pe_status st = pe_document_set_title(doc, title);
	int rc = st == PE_OK ? 0 : cli_error("out of memory");
	size_t count = report_section_count(r);
	for (size_t i = 0; i < count && !rc; i++) {
		report_progress_step(pr, i, report_section_title(r, i));
		struct report_section sec;
		memset(&sec, 0, sizeof(sec));
		rc = report_section_build(r, i, 0, &sec);
		if (!rc && sec.fig) {
			st = pe_document_add_figure(doc, sec.fig, sec.lines, sec.n_lines);
		} else if (!rc) {
			/* The title page lists the pages after its own tables. */
			const char **cells = i == 0 ? contents(r, count, &sec) : NULL;
			if (i == 0 && !cells)
				rc = cli_error("out of memory");
			if (cells && sec.n_tables < REPORT_MAX_TABLES)
				sec.tables[sec.n_tables++] =
				        (struct pe_table){"Contents", count - 1, 2, NULL, cells};
			struct pe_text_page page = {i == 0 ? title : sec.heading, sec.lines,
			                            sec.n_lines, sec.tables, sec.n_tables};
			if (!rc)
				st = pe_document_add_text_page(doc, &page);
			if (cells && sec.n_tables && sec.tables[sec.n_tables - 1].cells != cells)
				free(cells);
		}
		if (!rc && st != PE_OK)
			rc = build_error(st, path);
		report_section_free(&sec);
	}
	if (!rc && (st = pe_document_finish(doc)) != PE_OK)
		rc = build_error(st, path);
	pe_document_destroy(doc);
	return rc;
}

/* "2026-11-21 08:40 UTC", or from SOURCE_DATE_EPOCH for reproducible reports. */
static void format_date(char *buf, size_t cap)
{
	time_t now = time(NULL);
	const char *epoch = getenv("SOURCE_DATE_EPOCH");
	if (epoch && *epoch) {
		char *end;
		long long e = strtoll(epoch, &end, 10);
		if (!*end && e >= 0)
			now = (time_t)e;
	}
	struct tm tm;
	if (!gmtime_r(&now, &tm) || !strftime(buf, cap, "%Y-%m-%d %H:%M UTC", &tm))
		snprintf(buf, cap, "unknown date");
}

static int run(struct report *r, const char *path, enum cli_format format)
{
	struct report_progress pr = {!r->o.quiet && isatty(STDERR_FILENO), 0, 0};
	int rc = check_time(r);
	for (size_t i = 0; i < r->count && !rc; i++)
		rc = frequencies(r, i);
	if (rc)
		return rc;
	pr.total = r->count + report_section_count(r);
	for (size_t i = 0; i < r->count && !rc; i++) {
		char what[160];
		snprintf(what, sizeof(what), "computing %s", r->schemes[i]->label);
		report_progress_step(&pr, i, what);
		rc = compute(r, i);
	}
	if (rc) {
		progress_clear(&pr);
		return rc;
	}
	struct cli_file file;
	rc = cli_file_open(&file, path);
	if (!rc) {
		rc = format == CLI_FORMAT_PDF ? write_pdf(r, path, file.f, &pr)
		                              : report_write_html(r, file.f, &pr);
		progress_clear(&pr);
		if (rc)
			cli_file_abort(&file);
		else
			rc = cli_file_commit(&file);
	} else {
		progress_clear(&pr);
	}
	if (!rc) {
		char what[96];
		snprintf(what, sizeof(what), "report of %zu scheme%s, %zu %s", r->count,
		         r->count == 1 ? "" : "s", report_section_count(r),
		         format == CLI_FORMAT_PDF ? "pages" : "sections");
		cli_report_written(&r->o, path, what);
	}
	return rc;
}

/* --metric and --scale. */
static int own_option(void *ctx, int opt, const char *arg)
{
	struct report *r = ctx;
	return opt == OPT_SCALE ? cli_parse_scale(arg, &r->scale)
	                        : pw_parse_metric(arg, &r->metric);
}

/*
 * What each scheme states of its contexts; without -n, the positions of the
 * longest context of the models given (a report of models is read at their
 * context), and section titles that name each scaled scheme.
 */
static void set_contexts(struct report *r)
{
	double longest = 0;
	for (size_t i = 0; i < r->count; i++) {
		const struct pe_scheme *s = r->schemes[i];
		r->ctx[i] = cli_contexts_of(s, &r->info[i], 0);
		if (r->info[i].model[0] && r->ctx[i].effective > longest)
			longest = r->ctx[i].effective;
		if (pe_scheme_has(s, PE_CAP_SCALING) && s->scaling.type != PE_ROPE_SCALING_NONE)
			snprintf(r->scaling_titles[i], sizeof(r->scaling_titles[i]),
			         "RoPE scaling: %s (%s \xc3\x97%g)", cli_short_label(s),
			         pe_rope_scaling_name(s->scaling.type), s->scaling.factor);
		else
			snprintf(r->scaling_titles[i], sizeof(r->scaling_titles[i]),
			         "RoPE scaling: %s", cli_short_label(s));
	}
	if (!r->o.n && longest >= 2)
		r->o.n = longest < (double)COMPARE_CURVE_OFFSETS ? (size_t)longest
		                                                 : COMPARE_CURVE_OFFSETS;
}

int cmd_report(int argc, char **argv)
{
	static const struct option opts[] = {
	        {"metric", required_argument, NULL, OPT_METRIC},
	        {"scale", required_argument, NULL, OPT_SCALE},
	        {NULL, 0, NULL, 0},
	};
	static struct report r; /* large; zeroed */
	memset(&r, 0, sizeof(r));
	r.metric = PE_METRIC_L2;
	r.argc = argc;
	r.argv = argv;
	int rc = cli_parse_args(argc, argv, &command,
	                        &(struct cli_own_options){opts, own_option, &r}, &r.o);
	if (rc)
		return rc == CLI_DONE ? CLI_OK : rc;
	if (!r.o.nspecs && !r.o.nbases) {
		r.o.specs[r.o.nspecs++] = "sinusoidal:base=10000";
		r.o.specs[r.o.nspecs++] = "sinusoidal:base=10";
	}
	const char *path = r.o.output ? r.o.output : "report.pdf";
	const char *dot = strrchr(path, '.');
	enum cli_format format;
	if (dot && strcasecmp(dot, ".pdf") == 0)
		format = CLI_FORMAT_PDF;
	else if (dot && (strcasecmp(dot, ".html") == 0 || strcasecmp(dot, ".htm") == 0))
		format = CLI_FORMAT_HTML;
	else
		return cli_usage_error("report writes a PDF (.pdf) or an HTML file (.html), not "
		                       "'%s'",
		                       path);
	if ((rc = cli_options_apply_to(&r.o, path, format)))
		return rc;
	if ((rc = cli_figure_check_options(&r.o)))
		return rc;
	if ((rc = cli_schemes_models(&r.o, "sinusoidal", REPORT_MAX_SCHEMES, &r.schemes, &r.count,
	                             &r.info)))
		return rc;
	set_contexts(&r);
	for (size_t i = 0; i < r.count && !rc; i++) {
		rc = cli_vectors_prepare(&r.o, r.schemes[i], PE_VIEW_DEFAULT, DEFAULT_N, DEFAULT_D,
		                         &r.s[i].data.v);
		if (!rc && r.s[i].data.v.vec.n < 2)
			rc = cli_usage_error("report needs at least 2 positions (-n)");
		/* Widths may differ (a model's layer groups, Gemma 4): every page is per
		 * scheme. The positions must agree, as the pages share their axes. */
		if (!rc && i > 0 && r.s[i].data.v.vec.n != r.s[0].data.v.vec.n)
			rc = cli_usage_error(
			        "schemes '%s' and '%s' have different lengths (%zu and "
			        "%zu positions): give -n",
			        r.schemes[0]->label, r.schemes[i]->label, r.s[0].data.v.vec.n,
			        r.s[i].data.v.vec.n);
		if (!rc) {
			cli_width_list_add(r.widths, sizeof(r.widths), r.s[i].data.v.vec.d);
			if (r.s[i].data.v.vec.d > r.d)
				r.d = r.s[i].data.v.vec.d;
		}
	}
	/*
	 * The distance profiles visit every position (O(d) each), so their work
	 * grows with n where every other page's follows the pixels: refused at
	 * once past the length whose curves keep every offset.
	 */
	if (!rc && r.s[0].data.v.vec.n > COMPARE_CURVE_OFFSETS)
		rc = cli_error("report draws at most %zu positions (its distance profiles visit "
		               "every one): lower -n, or draw 'posenc compare', which takes any n",
		               COMPARE_CURVE_OFFSETS);
	for (size_t i = 0; i < r.count && !rc; i++) {
		const char *l = cli_width_label(cli_short_label(r.schemes[i]), r.s[i].data.v.vec.d,
		                                strchr(r.widths, '/') != NULL, r.names[i],
		                                sizeof(r.names[i]));
		if (l != r.names[i])
			snprintf(r.names[i], sizeof(r.names[i]), "%s", l);
	}
	if (!rc) {
		r.n = r.s[0].data.v.vec.n;
		/* Past a few thousand offsets a linear axis draws the decay as a solid band. */
		r.log_offsets = r.n > CLI_LOG_OFFSETS;
		r.first = (unsigned long long)r.s[0].data.v.vec.first;
		char date[64];
		format_date(date, sizeof(date));
		r.date = date;
		rc = run(&r, path, format);
	}
	for (size_t i = 0; i < r.count; i++) {
		compare_data_free(&r.s[i].data);
		pe_freq_table_destroy(r.s[i].freqs);
	}
	free(r.info);
	cli_schemes_free(r.schemes, r.count);
	return rc;
}
