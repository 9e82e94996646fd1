/*
 * The sections of posenc report: what each page shows, built from the
 * analyses commands/report.c computed. Figures are laid out for an A4 landscape
 * page; the HTML writer draws the same figures as SVG.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <posenc/decay.h>
#include <posenc/pairwise.h>
#include <posenc/rope.h>

#include "cli.h"
#include "figures/curve.h"
#include "shared/pairwise_cli.h"
#include "figures/figure.h"
#include "report/report.h"

#define TWO_PI 6.28318530717958647692

enum kind {
	SEC_SUMMARY,
	SEC_ENCODING,
	SEC_DISTANCE,
	SEC_CORR,
	SEC_SCATTER,
	SEC_PROFILES,
	SEC_DECAY,
	SEC_FREQS,
	SEC_FREQ_TABLE,
	SEC_SCALING, /* one per rope scheme with a scaling */
};

static const char *const titles[] = {
        "Parameters and summary",
        "Encodings",
        "Distance between positions",
        "Correlation between positions",
        "Distance vs correlation",
        "Distance profiles",
        "Decay with relative offset",
        "Frequencies and wavelengths",
        "Frequency table",
        "RoPE scaling",
};

static const char *const ids[] = {
        "summary",  "encoding", "distance",    "correlation",     "scatter",
        "profiles", "decay",    "frequencies", "frequency-table", "scaling",
};
_Static_assert(sizeof(titles) / sizeof(titles[0]) == SEC_SCALING + 1 &&
                       sizeof(ids) / sizeof(ids[0]) == SEC_SCALING + 1,
               "one title and one id per section kind");

static int has_freqs(const struct report *r)
{
	for (size_t i = 0; i < r->count; i++)
		if (r->s[i].freqs)
			return 1;
	return 0;
}

static int is_scaled(const struct report *r, size_t i)
{
	return pe_scheme_has(r->schemes[i], PE_CAP_SCALING) &&
	       r->schemes[i]->scaling.type != PE_ROPE_SCALING_NONE && r->s[i].freqs &&
	       r->s[i].freqs->n_variants > 0;
}

/* The kind of section i, and for SEC_SCALING which scheme. */
static enum kind section_kind(const struct report *r, size_t i, size_t *scheme)
{
	if (i <= SEC_DECAY)
		return (enum kind)i;
	i -= SEC_DECAY + 1;
	if (has_freqs(r)) {
		if (i < 2)
			return (enum kind)(SEC_FREQS + i);
		i -= 2;
	}
	for (size_t k = 0; k < r->count; k++)
		if (is_scaled(r, k) && i-- == 0) {
			*scheme = k;
			return SEC_SCALING;
		}
	return SEC_SUMMARY; /* not reached for i < count */
}

size_t report_section_count(const struct report *r)
{
	size_t n = SEC_DECAY + 1 + (has_freqs(r) ? 2 : 0);
	for (size_t k = 0; k < r->count; k++)
		n += is_scaled(r, k) ? 1 : 0;
	return n;
}

const char *report_section_title(const struct report *r, size_t i)
{
	size_t scheme = 0;
	enum kind k = section_kind(r, i, &scheme);
	/* one contents entry per scaled scheme, each naming it */
	return k == SEC_SCALING ? r->scaling_titles[scheme] : titles[k];
}

const char *report_section_id(const struct report *r, size_t i, char *buf, size_t cap)
{
	size_t scheme = 0;
	enum kind k = section_kind(r, i, &scheme);
	if (k == SEC_SCALING)
		snprintf(buf, cap, "scaling-%zu", scheme + 1);
	else
		snprintf(buf, cap, "%s", ids[k]);
	return buf;
}

const char *report_strf(struct report_section *sec, const char *fmt, ...)
{
	struct report_strings *s = &sec->strings;
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 32;
		char **items = realloc(s->items, cap * sizeof(*items));
		if (!items)
			return NULL;
		s->items = items;
		s->cap = cap;
	}
	va_list ap;
	va_start(ap, fmt);
	int len = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	char *buf = len < 0 ? NULL : malloc((size_t)len + 1);
	if (!buf)
		return NULL;
	va_start(ap, fmt);
	vsnprintf(buf, (size_t)len + 1, fmt, ap);
	va_end(ap);
	s->items[s->n++] = buf;
	return buf;
}

void report_section_free(struct report_section *sec)
{
	pe_figure_destroy(sec->fig);
	for (size_t i = 0; i < sec->strings.n; i++)
		free(sec->strings.items[i]);
	free(sec->strings.items);
	for (size_t i = 0; i < sec->n_tables; i++) {
		free((void *)sec->tables[i].cells);
		free((void *)sec->tables[i].header);
	}
	for (size_t i = 0; i < sec->n_arrays; i++)
		free(sec->arrays[i]);
	for (size_t i = 0; i < sec->n_matrices; i++)
		pe_matrix_destroy(sec->matrices[i]);
	memset(sec, 0, sizeof(*sec));
}

/* ---- helpers ---- */

static int oom(void)
{
	return cli_error("out of memory");
}

static int line(struct report_section *sec, const char *text)
{
	if (!text)
		return oom();
	if (sec->n_lines < REPORT_MAX_LINES)
		sec->lines[sec->n_lines++] = text;
	return 0;
}

static double *array(struct report_section *sec, size_t n)
{
	if (sec->n_arrays == sizeof(sec->arrays) / sizeof(sec->arrays[0]))
		return NULL;
	double *a = malloc((n ? n : 1) * sizeof(double));
	if (a)
		sec->arrays[sec->n_arrays++] = a;
	return a;
}

/* A number for a table: 6 significant digits, "n/a" for NaN. */
static const char *num(struct report_section *sec, double x)
{
	if (isnan(x))
		return report_strf(sec, "n/a");
	return report_strf(sec, "%.6g", x);
}

/*
 * Columns of the grid for one panel per scheme: the shape whose panels are
 * largest as squares on the page (3 schemes: 2 x 2 beats 1 x 3), fewer rows
 * on a tie.
 */
static unsigned grid_cols(size_t count)
{
	unsigned best = 1;
	double best_side = 0;
	for (unsigned c = 1; c <= count; c++) {
		size_t rows = (count + c - 1) / c;
		/* Each panel loses about 90 points across to its labels and colour bar, 70 down. */
		double side = fmin(REPORT_PAGE_WIDTH / c - 90,
		                   (REPORT_PAGE_HEIGHT - 40) / (double)rows - 70);
		if (side > best_side * 1.001) {
			best_side = side;
			best = c;
		}
	}
	return best;
}

/*
 * The height a grid of square heatmaps needs at the page's width: on a web
 * page, a figure of the page's height would leave a band of white under
 * each row of squares (the PDF's pages keep their size).
 */
static double square_grid_height(size_t count)
{
	unsigned cols = grid_cols(count);
	size_t rows = (count + cols - 1) / cols;
	double side =
	        fmin(REPORT_PAGE_WIDTH / cols - 90, (REPORT_PAGE_HEIGHT - 40) / (double)rows - 70);
	double h = (double)rows * (side + 70) + 40;
	return h < REPORT_PAGE_HEIGHT ? h : REPORT_PAGE_HEIGHT;
}

static struct pe_figure *scheme_grid(size_t count, const char *title)
{
	unsigned cols = grid_cols(count);
	unsigned rows = (unsigned)((count + cols - 1) / cols);
	struct pe_figure *fig = pe_figure_create(rows, cols);
	if (fig && pe_figure_set_title(fig, title) != PE_OK) {
		pe_figure_destroy(fig);
		return NULL;
	}
	return fig;
}

static struct pe_panel *scheme_panel(struct pe_figure *fig, size_t count, size_t i)
{
	unsigned cols = grid_cols(count);
	return pe_figure_panel(fig, (unsigned)(i / cols), (unsigned)(i % cols));
}

static int figure_status(enum pe_status st)
{
	return st == PE_OK ? 0 : cli_figure_error(st);
}

static const char *positions_text(const struct report *r, struct report_section *sec)
{
	return report_strf(sec, "positions %llu..%llu (n = %zu), d = %s", r->first,
	                   r->first + (unsigned long long)r->n - 1, r->n, r->widths);
}

/* ---- sections ---- */

/* A spec for a line of text: long lists (LongRoPE's factors) as their count. */
static void short_spec(const char *spec, char *buf, size_t cap)
{
	size_t len = 0;
	buf[0] = '\0';
	for (const char *p = spec; *p && len + 1 < cap;) {
		size_t word = strcspn(p, " ");
		const char *eq = memchr(p, '=', word);
		size_t slashes = 0;
		for (size_t k = 0; k < word; k++)
			slashes += p[k] == '/';
		int w = eq && slashes >= 4 ? snprintf(buf + len, cap - len, "%.*s(%zu values)",
		                                      (int)(eq - p + 1), p, slashes + 1)
		                           : snprintf(buf + len, cap - len, "%.*s", (int)word, p);
		if (w < 0 || (size_t)w >= cap - len) {
			if (cap > 4)
				strcpy(buf + cap - 4, "...");
			return;
		}
		len += (size_t)w;
		p += word;
		while (*p == ' ' && len + 1 < cap) {
			buf[len++] = ' ';
			buf[len] = '\0';
			p++;
		}
	}
}

static int any_rope(const struct report *r)
{
	for (size_t i = 0; i < r->count; i++)
		if (pe_scheme_has(r->schemes[i], PE_CAP_SCALING) ||
		    pe_mrope_pair_axis(r->schemes[i], 0) >= 0)
			return 1;
	return 0;
}

static const char *const summary_names[] = {
        "shortest wavelength",
        "longest wavelength",
        "smallest distance (i \u2260 j)",
        "largest distance",
        "lowest correlation (i \u2260 j)",
        "highest correlation (i \u2260 j)",
        "mean distance between neighbours",
        "mean dot product at offset 0",
        "mean dot product at offset 1",
        "mean dot product at offset 10",
        "mean dot product at offset 100",
};
_Static_assert(sizeof(summary_names) / sizeof(summary_names[0]) == COMPARE_SUMMARY_COLS,
               "one description per summary column");

static int summary(const struct report *r, struct report_section *sec)
{
	int rc = line(sec, report_strf(sec, "posenc report of %zu scheme%s, %s.", r->count,
	                               r->count == 1 ? "" : "s", positions_text(r, sec)));
	for (size_t i = 0; !rc && i < r->count; i++) {
		char spec[200];
		short_spec(r->schemes[i]->canonical, spec, sizeof(spec));
		rc = line(sec, report_strf(sec, "%s (d = %zu): %s", r->schemes[i]->label,
		                           r->s[i].data.v.vec.d, spec));
	}
	if (!rc)
		rc = line(sec, report_strf(sec, "Distance metric: %s. Generated %s by posenc %s.",
		                           pw_metric_label(r->metric), r->date, POSENC_VERSION));
	/* The command line, so the report can be made again. */
	if (!rc) {
		size_t len = 0;
		for (int a = 0; a < r->argc; a++)
			len += strlen(r->argv[a]) + 1;
		char *cmd = malloc(len + 8);
		if (!cmd)
			return oom();
		strcpy(cmd, "posenc");
		for (int a = 0; a < r->argc; a++) {
			strcat(cmd, " ");
			strcat(cmd, r->argv[a]);
		}
		rc = line(sec, report_strf(sec, "Command: %s", cmd));
		free(cmd);
	}
	if (rc)
		return rc;
	size_t cols = r->count + 2;
	const char **header = (const char **)calloc(cols, sizeof(char *));
	const char **cells = (const char **)calloc(COMPARE_SUMMARY_COLS * cols, sizeof(char *));
	if (!header || !cells) {
		free(header);
		free(cells);
		return oom();
	}
	size_t at = 0;
	if (any_rope(r)) {
		int frc = report_facts_table(r, sec, &sec->tables[0]);
		sec->n_tables = 1;
		if (frc) {
			free(header);
			free(cells);
			return frc;
		}
		at = 1;
	}
	sec->tables[at] =
	        (struct pe_table){"Summary (the numbers of posenc compare -o summary.csv)",
	                          COMPARE_SUMMARY_COLS, cols, NULL, cells};
	sec->n_tables = at + 1;
	header[0] = "quantity";
	header[1] = "CSV column";
	for (size_t i = 0; i < r->count; i++)
		header[2 + i] = r->schemes[i]->label;
	sec->tables[at].header = header;
	for (size_t q = 0; q < COMPARE_SUMMARY_COLS; q++) {
		cells[q * cols] = summary_names[q];
		cells[q * cols + 1] = compare_summary_columns[q];
		for (size_t i = 0; i < r->count; i++)
			if (!(cells[q * cols + 2 + i] = num(sec, r->s[i].summary[q])))
				return oom();
	}
	int rc2 = line(sec, "Distances and correlations are over all pairs of distinct positions; "
	                    "the mean dot product at offset k is over all pairs k apart.");
	/* One line for every scheme whose pairs are past the work the summary does. */
	char names[512] = "";
	size_t n_na = 0;
	for (size_t i = 0; i < r->count; i++)
		if (!compare_summary_has_pairs(&r->o, &r->s[i].data.v.vec, r->metric)) {
			size_t len = strlen(names);
			snprintf(names + len, sizeof(names) - len, "%s%s", len ? ", " : "",
			         r->names[i]);
			n_na++;
		}
	if (!rc2 && n_na)
		rc2 = line(sec, report_strf(sec,
		                            "%s: the distance and correlation ranges and the "
		                            "neighbour distance are n/a: they take every pair of "
		                            "%zu positions, more work than the summary does.",
		                            n_na == r->count ? "All schemes" : names, r->n));
	return rc2;
}

static enum pe_status heatmap_panel(struct pe_panel *p, const struct cli_common *o,
                                    const struct pe_matrix *m, const struct report *r,
                                    bool is_signed, const char *cbar, const char *title)
{
	struct pe_heatmap_spec spec;
	pe_heatmap_spec_init(&spec, m->rows, m->cols, m->data);
	pe_heatmap_spec_set_positions(&spec, (double)r->first, r->n, (double)r->first, r->n);
	spec.equal_aspect = true;
	spec.is_signed = is_signed;
	spec.colorbar_label = cbar;
	cli_heatmap_apply(o, &spec);
	enum pe_status st = pe_panel_set_heatmap(p, &spec);
	if (st == PE_OK)
		st = pe_panel_set_title(p, title);
	if (st == PE_OK)
		st = pe_panel_set_xlabel(p, "position");
	if (st == PE_OK)
		st = pe_panel_set_ylabel(p, "position");
	return st;
}

/* What the page says about its colour scales (compare says the same in its note). */
static const char *scale_text(const struct report *r, bool shared)
{
	if (r->count < 2)
		return "";
	return shared                       ? "All schemes on one colour scale."
	       : r->scale == CLI_SCALE_AUTO ? "Each scheme on its own colour scale (one "
	                                      "range is under a quarter of another's)."
	                                    : "Each scheme on its own colour scale.";
}

static int encodings(const struct report *r, struct report_section *sec)
{
	sec->fig = scheme_grid(r->count, "Encoding matrices (value of each dimension at each "
	                                 "position)");
	if (!sec->fig)
		return oom();
	enum pe_status st = PE_OK;
	const struct pe_matrix *all[REPORT_MAX_SCHEMES] = {0};
	for (size_t i = 0; i < r->count && st == PE_OK; i++) {
		const struct compare_data *sd = &r->s[i].data;
		all[i] = sd->enc_range;
		/* The rows streamed to the engine, as compare draws them. */
		struct pe_heatmap_spec spec = sd->enc_spec;
		spec.colorbar_label = "value";
		cli_heatmap_apply(&r->o, &spec);
		struct pe_panel *p = scheme_panel(sec->fig, r->count, i);
		st = pe_panel_set_heatmap(p, &spec);
		if (st == PE_OK)
			st = pe_panel_set_title(p, r->names[i]);
		if (st == PE_OK)
			st = pe_panel_set_xlabel(p, "dimension");
		if (st == PE_OK)
			st = pe_panel_set_ylabel(p, "position");
	}
	bool shared = cli_scale_shared(r->scale, all, r->count);
	pe_figure_set_color_share(sec->fig, shared ? PE_SHARE_ALL : PE_SHARE_NONE);
	if (st == PE_OK)
		return line(sec, report_strf(sec, "Rows are positions, columns dimensions; %s. %s",
		                             positions_text(r, sec), scale_text(r, shared)));
	return figure_status(st);
}

static int pairwise(const struct report *r, struct report_section *sec, bool corr)
{
	const char *what = pw_metric_label(corr ? PE_METRIC_CORR : r->metric);
	const struct pe_matrix *all[REPORT_MAX_SCHEMES] = {0};
	for (size_t i = 0; i < r->count; i++)
		all[i] = corr ? r->s[i].data.corr : r->s[i].data.dist;
	bool shared = cli_scale_shared(r->scale, all, r->count);
	sec->fig = scheme_grid(r->count, report_strf(sec, "%s between positions", what));
	if (!sec->fig)
		return oom();
	sec->html_height = square_grid_height(r->count);
	pe_figure_set_color_share(sec->fig, shared ? PE_SHARE_ALL : PE_SHARE_NONE);
	enum pe_status st = PE_OK;
	for (size_t i = 0; i < r->count && st == PE_OK; i++)
		st = heatmap_panel(scheme_panel(sec->fig, r->count, i), &r->o, all[i], r, corr,
		                   corr ? "correlation" : what, r->names[i]);
	if (st != PE_OK)
		return figure_status(st);
	int rc = line(sec, report_strf(sec, "%s of every pair of positions; %s. %s", what,
	                               positions_text(r, sec), scale_text(r, shared)));
	for (size_t i = 0; !rc && i < r->count; i++) {
		const struct pe_grid_info *g =
		        corr ? &r->s[i].data.corr_info : &r->s[i].data.dist_info;
		char note[160];
		if (!g->exact)
			rc = line(sec, report_strf(sec, "%s: %s", r->names[i],
			                           cli_sampled_note(g, note, sizeof(note))));
	}
	return rc;
}

/* Common limits of several panels' data, padded like matplotlib's 5% margins. */
static void range_of(const double *x, size_t n, double *lo, double *hi)
{
	for (size_t i = 0; i < n; i++)
		if (isfinite(x[i])) {
			*lo = x[i] < *lo ? x[i] : *lo;
			*hi = x[i] > *hi ? x[i] : *hi;
		}
}

static void set_common(struct pe_figure *fig, size_t count, double xlo, double xhi, double ylo,
                       double yhi)
{
	for (size_t i = 0; i < count; i++) {
		struct pe_panel *p = scheme_panel(fig, count, i);
		if (xlo < xhi)
			pe_panel_set_xlim(p, xlo - 0.05 * (xhi - xlo), xhi + 0.05 * (xhi - xlo));
		if (ylo < yhi)
			pe_panel_set_ylim(p, ylo - 0.05 * (yhi - ylo), yhi + 0.05 * (yhi - ylo));
	}
}

static int scatter(const struct report *r, struct report_section *sec)
{
	const char *metric = pw_metric_label(r->metric);
	sec->fig = scheme_grid(r->count, report_strf(sec,
	                                             "%s vs correlation of pairs of "
	                                             "positions",
	                                             metric));
	if (!sec->fig)
		return oom();
	double xlo = INFINITY, xhi = -INFINITY, ylo = INFINITY, yhi = -INFINITY;
	enum pe_status st = PE_OK;
	size_t pairs = 0;
	for (size_t i = 0; i < r->count && st == PE_OK; i++) {
		const struct compare_data *sd = &r->s[i].data;
		size_t k = sd->points->rows;
		pairs = k > pairs ? k : pairs;
		range_of(sd->px, k, &xlo, &xhi);
		range_of(sd->py, k, &ylo, &yhi);
		struct pe_panel *p = scheme_panel(sec->fig, r->count, i);
		st = pe_panel_add_scatter(p, NULL, sd->px, sd->py, k);
		if (st == PE_OK)
			st = pe_panel_set_title(p, r->names[i]);
		if (st == PE_OK)
			st = pe_panel_set_xlabel(p, metric);
		if (st == PE_OK)
			st = pe_panel_set_ylabel(p, "correlation");
	}
	if (st != PE_OK)
		return figure_status(st);
	/* Shared axes where the distances share a colour scale: the same rule as compare's. */
	const struct pe_matrix *dists[REPORT_MAX_SCHEMES] = {0};
	for (size_t i = 0; i < r->count; i++)
		dists[i] = r->s[i].data.dist;
	bool common = cli_scale_shared(r->scale, dists, r->count);
	if (common)
		set_common(sec->fig, r->count, xlo, xhi, ylo, yhi);
	const char *axes = r->count < 2 ? ""
	                   : common     ? " The panels share their axes."
	                                : " Each panel has its own axes.";
	double total = (double)r->n * (double)(r->n - 1) / 2;
	if ((double)pairs < total)
		return line(sec,
		            report_strf(sec,
		                        "Each point is a pair of distinct positions: %zu of the "
		                        "%.0f pairs, those between evenly spaced positions.%s",
		                        pairs, total, axes));
	return line(sec, report_strf(sec,
	                             "Each point is a pair of distinct positions (all %zu "
	                             "pairs).%s",
	                             pairs, axes));
}

static int profiles(const struct report *r, struct report_section *sec)
{
	uint64_t at[3];
	size_t k = 0;
	size_t offs[3] = {0, r->n / 4, r->n / 2};
	for (size_t j = 0; j < 3; j++) {
		uint64_t p = r->first + offs[j];
		if (k == 0 || at[k - 1] != p)
			at[k++] = p;
	}
	const char *metric = pw_metric_label(r->metric);
	char list[96] = "";
	for (size_t j = 0; j < k; j++)
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%llu", j ? ", " : "",
		         (unsigned long long)at[j]);
	sec->fig = scheme_grid(
	        r->count, report_strf(sec, "%s from positions %s to every position", metric, list));
	if (!sec->fig)
		return oom();
	double ylo = INFINITY, yhi = -INFINITY;
	enum pe_status st = PE_OK;
	/* Pieces of positions, each curve reduced as it is made (cli/figures/curve.h). */
	size_t piece = (size_t)(4194304.0 / (8.0 * (double)(k + r->d)));
	piece = piece < 1 ? 1 : piece < r->n ? piece : r->n;
	for (size_t i = 0; i < r->count && st == PE_OK; i++) {
		const struct pe_vectors *v = &r->s[i].data.v.vec;
		struct cli_curve c[3];
		memset(c, 0, sizeof(c));
		for (size_t j = 0; j < k && st == PE_OK; j++)
			if (cli_curve_init(&c[j], r->n))
				st = PE_ENOMEM;
		for (size_t p0 = 0; p0 < r->n && st == PE_OK; p0 += piece) {
			struct pe_vectors w = *v;
			w.first = v->first + p0;
			w.n = r->n - p0 < piece ? r->n - p0 : piece;
			struct pe_matrix *m = NULL;
			st = pe_profile(&w, r->metric, at, k, &m);
			for (size_t q = 0; q < w.n && st == PE_OK; q++)
				for (size_t j = 0; j < k && st == PE_OK; j++)
					if (cli_curve_push(&c[j], p0 + q, (double)(w.first + q),
					                   m->data[q * k + j]))
						st = PE_ENOMEM;
			pe_matrix_destroy(m);
		}
		for (size_t j = 0; j < k && st == PE_OK; j++)
			if (cli_curve_finish(&c[j]))
				st = PE_ENOMEM;
		/* The section owns the points the figure borrows. */
		for (size_t j = 0; j < k; j++) {
			if (sec->n_arrays + 2 > sizeof(sec->arrays) / sizeof(sec->arrays[0])) {
				cli_curve_free(&c[j]);
				st = st == PE_OK ? PE_ENOMEM : st;
				continue;
			}
			sec->arrays[sec->n_arrays++] = c[j].x;
			sec->arrays[sec->n_arrays++] = c[j].y;
		}
		if (st == PE_ENOMEM)
			return oom();
		if (st != PE_OK)
			return cli_error("scheme '%s': the distance profiles failed: %s",
			                 r->schemes[i]->label, pe_status_str(st));
		struct pe_panel *p = scheme_panel(sec->fig, r->count, i);
		for (size_t j = 0; j < k && st == PE_OK; j++) {
			range_of(c[j].y, c[j].len, &ylo, &yhi);
			st = pe_panel_add_line(
			        p, report_strf(sec, "from %llu", (unsigned long long)at[j]), c[j].x,
			        c[j].y, c[j].len);
		}
		if (st == PE_OK)
			st = pe_panel_set_title(p, r->names[i]);
		if (st == PE_OK)
			st = pe_panel_set_xlabel(p, "position");
		if (st == PE_OK)
			st = pe_panel_set_ylabel(p, metric);
		if (st == PE_OK)
			pe_panel_set_integer_ticks(p, true, false);
	}
	if (st != PE_OK)
		return figure_status(st);
	set_common(sec->fig, r->count, NAN, NAN, ylo, yhi);
	return line(sec, "Each curve is one row of the distance matrix: how far every position "
	                 "is from the chosen one.");
}

static int decay(const struct report *r, struct report_section *sec)
{
	size_t ropes = 0;
	for (size_t i = 0; i < r->count; i++)
		ropes += r->s[i].data.bound.len ? 1 : 0;
	sec->fig = pe_figure_create(1, ropes ? 2 : 1);
	if (!sec->fig)
		return oom();
	/* Curves of very different sizes relative to offset 0, as compare draws them. */
	const double *curves[REPORT_MAX_SCHEMES];
	for (size_t i = 0; i < r->count; i++)
		curves[i] = r->s[i].data.decay.y;
	bool relative = cli_decay_relative(r->scale, curves, r->count);
	const double *ys[REPORT_MAX_SCHEMES];
	for (size_t i = 0; i < r->count; i++) {
		const struct cli_curve *c = &r->s[i].data.decay;
		ys[i] = c->y;
		if (!relative)
			continue;
		double *y = array(sec, c->len);
		if (!y)
			return oom();
		for (size_t k = 0; k < c->len; k++)
			y[k] = c->y[k] / c->y[0];
		ys[i] = y;
	}
	enum pe_status st = pe_figure_set_title(
	        sec->fig, relative ? "Decay: mean dot product of positions k apart, relative to "
	                             "k = 0"
	                           : "Decay: mean dot product of positions k apart");
	struct pe_panel *p = pe_figure_panel(sec->fig, 0, 0);
	for (size_t i = 0; i < r->count && st == PE_OK; i++)
		st = pe_panel_add_line(p, r->names[i], r->s[i].data.decay.x, ys[i],
		                       r->s[i].data.decay.len);
	if (st == PE_OK)
		st = pe_panel_set_xlabel(p, "offset k");
	if (st == PE_OK)
		st = pe_panel_set_ylabel(p, relative ? "relative to k = 0" : "mean dot product");
	if (st == PE_OK && ropes) /* beside the bound; alone, the figure's title says it */
		st = pe_panel_set_title(p, "dot product");
	pe_panel_set_integer_ticks(p, !r->log_offsets, false);
	pe_panel_set_log(p, r->log_offsets, false);
	if (ropes) {
		struct pe_panel *b = pe_figure_panel(sec->fig, 0, 1);
		pe_panel_set_log(b, r->log_offsets, false);
		for (size_t i = 0; i < r->count && st == PE_OK; i++)
			if (r->s[i].data.bound.len)
				st = pe_panel_add_line(b, r->names[i], r->s[i].data.bound.x,
				                       r->s[i].data.bound.y,
				                       r->s[i].data.bound.len);
		if (st == PE_OK)
			st = pe_panel_set_xlabel(b, "offset k");
		if (st == PE_OK)
			st = pe_panel_set_ylabel(b, "relative upper bound");
		if (st == PE_OK)
			st = pe_panel_set_title(b, "RoFormer bound (RoPE)");
		pe_panel_set_integer_ticks(b, !r->log_offsets, false);
	}
	if (st != PE_OK)
		return figure_status(st);
	int rc = line(sec, ropes ? "Left: the mean of <v_m, v_m+k> over all pairs k apart within "
	                           "the positions (closed form for sinusoidal and RoPE)."
	                         : "The mean of <v_m, v_m+k> over all pairs k apart within the "
	                           "positions (closed form for sinusoidal and RoPE).");
	for (size_t i = 0; !rc && i < r->count; i++) {
		size_t step = compare_decay_step(&r->s[i].data.v.vec);
		if (step > 1)
			rc = line(
			        sec,
			        report_strf(sec,
			                    "%s: offsets k = 0, %zu, %zu, ... only (the mean "
			                    "over every pair at every offset would take too long).",
			                    r->names[i], step, 2 * step));
	}
	if (!rc && r->log_offsets)
		rc = line(sec,
		          report_strf(sec,
		                      "Offsets on a log axis (k = 1 to %zu; k = 0 is off it): on "
		                      "a linear one the curves' oscillations would fill a band.",
		                      r->n - 1));
	if (!rc && relative)
		rc = line(sec,
		          "Each curve is divided by its value at k = 0: their sizes differ more "
		          "than fourfold (--scale shared draws them as they are).");
	if (!rc && ropes)
		rc = line(sec, "Right: RoFormer's relative upper bound (section 3.4.3): "
		               "(2/d) sum_j |sum_{i<j} exp(i k theta_i)|, (d/2+1)/2 at k = 0.");
	for (size_t i = 0; !rc && ropes && i < r->count; i++) {
		size_t step = compare_bound_step(&r->s[i].data.v.vec);
		if (r->s[i].data.bound.len && step > 1)
			rc = line(sec,
			          report_strf(sec, "%s: the bound at k = 0, %zu, %zu, ... only.",
			                      r->names[i], step, 2 * step));
	}
	return rc;
}

static int freqs(const struct report *r, struct report_section *sec)
{
	sec->fig = pe_figure_create(1, 1);
	if (!sec->fig)
		return oom();
	enum pe_status st = pe_figure_set_title(sec->fig, "Wavelength of each (sin, cos) pair");
	struct pe_panel *p = pe_figure_panel(sec->fig, 0, 0);
	pe_panel_set_log(p, false, true);
	pe_panel_set_integer_ticks(p, true, false);
	int rc = 0;
	for (size_t i = 0; i < r->count && st == PE_OK && !rc; i++) {
		const struct pe_freq_table *t = r->s[i].freqs;
		if (!t)
			continue;
		size_t pairs = t->values->rows;
		double *x = array(sec, pairs), *y = array(sec, pairs);
		if (!x || !y)
			return oom();
		/* A scaled RoPE turns at its scaled frequencies (as the summary's wavelengths). */
		bool scaled = is_scaled(r, i);
		for (size_t q = 0; q < pairs; q++) {
			const double *v = &t->values->data[q * t->values->cols];
			x[q] = (double)q;
			y[q] = scaled ? TWO_PI / v[2] : v[1];
		}
		st = pe_panel_add_line(p, r->names[i], x, y, pairs);
		/* within the scheme's own context (a model's extended one), else the positions */
		double ctx = r->ctx[i].effective > 0 ? r->ctx[i].effective : (double)r->n;
		size_t within = 0;
		for (size_t q = 0; q < pairs; q++)
			within += y[q] <= ctx ? 1 : 0;
		/* One line per distinct critical dimension: equal ones would overprint. */
		bool seen = false;
		for (size_t j = 0; j < i; j++)
			seen |= r->s[j].freqs && r->s[j].freqs->has_critical_dim &&
			        !is_scaled(r, j) && r->s[j].freqs->critical_dim == t->critical_dim;
		if (st == PE_OK && t->has_critical_dim && !scaled && t->critical_dim < t->d_pairs &&
		    !seen)
			st = pe_panel_add_vline(
			        p, (double)t->critical_dim / 2 - 0.5,
			        report_strf(sec, "critical dim %zu", t->critical_dim));
		char crit[96] = "";
		if (t->has_critical_dim)
			snprintf(crit, sizeof(crit),
			         "critical dimension %zu of %zu for training length %.10g; ",
			         t->critical_dim, t->d_pairs, t->train_length);
		rc = line(sec,
		          report_strf(sec,
		                      "%s: %s%zu of %zu pairs have %swavelengths within %s "
		                      "%g.",
		                      r->schemes[i]->label, crit, within, pairs,
		                      scaled ? "scaled " : "",
		                      r->ctx[i].effective > 0 ? "its context" : "the positions",
		                      ctx));
	}
	/* The contexts the schemes state, each once; else the positions shown. */
	double marked[2 * REPORT_MAX_SCHEMES];
	size_t n_marked = 0;
	for (size_t i = 0; i < r->count && st == PE_OK; i++)
		for (int e = 0; e < 2 && st == PE_OK; e++) {
			double at = e ? r->ctx[i].effective : r->ctx[i].train;
			bool seen = !(at > 0);
			for (size_t k = 0; k < n_marked; k++)
				seen |= marked[k] == at;
			if (seen)
				continue;
			marked[n_marked++] = at;
			bool is_train = false, is_ext = false;
			for (size_t j = 0; j < r->count; j++) {
				is_train |= r->ctx[j].train == at;
				is_ext |= r->ctx[j].effective == at && r->ctx[j].train != at;
			}
			st = pe_panel_add_hline(p, at,
			                        report_strf(sec, "%s%s%s %g",
			                                    is_train ? "training" : "",
			                                    is_train && is_ext ? " / " : "",
			                                    is_ext ? "extended" : "", at));
		}
	if (st == PE_OK && n_marked == 0)
		st = pe_panel_add_hline(p, (double)r->n,
		                        report_strf(sec, "positions shown %zu", r->n));
	if (st == PE_OK)
		st = pe_panel_set_xlabel(p, "pair i (dimensions 2i, 2i+1)");
	if (st == PE_OK)
		st = pe_panel_set_ylabel(p, "wavelength 2\u03c0/\u03b8 (positions)");
	if (st != PE_OK)
		return figure_status(st);
	if (!rc)
		rc = line(sec, "Critical dimension (Liu et al.): 2 ceil((d/2) log_base(T/2\u03c0)) "
		               "for the training length T (given by a model or the scaling's "
		               "original, never assumed); pairs beyond it never complete a period "
		               "within T.");
	for (size_t i = 0; i < r->count && !rc; i++)
		if (is_scaled(r, i)) {
			rc = line(sec,
			          "RoPE scalings: the scaled wavelengths (no critical-dimension "
			          "line: the formula assumes unscaled frequencies).");
			break;
		}
	return rc;
}

static int freq_table(const struct report *r, struct report_section *sec, int html)
{
	size_t pairs = 0, nfreq = 0;
	for (size_t i = 0; i < r->count; i++)
		if (r->s[i].freqs) {
			size_t p = r->s[i].freqs->values->rows;
			pairs = p > pairs ? p : pairs;
			nfreq++;
		}
	/* theta and wavelength per scheme; wavelengths only past 3 schemes, or the table
	 * would run off a page (and off an HTML page's column, where it scrolls). */
	size_t per = nfreq <= 3 ? 2 : 1;
	size_t ncol = 1 + per * nfreq;
	size_t want = html ? 32 : 16;
	size_t step = pairs > want ? (pairs + want - 1) / want : 1;
	if (!pairs)
		return 0;
	/* Every step-th pair and each scheme's last (its longest wavelength): a model
	 * narrower than the widest ends between two step-th pairs. */
	size_t *qs = malloc(((pairs + step - 1) / step + REPORT_MAX_SCHEMES) * sizeof(*qs));
	if (!qs)
		return oom();
	size_t rows = 0;
	for (size_t q = 0; q < pairs; q++) {
		bool last = false;
		for (size_t i = 0; i < r->count; i++)
			last |= r->s[i].freqs && r->s[i].freqs->values->rows == q + 1;
		if (q % step == 0 || last)
			qs[rows++] = q;
	}
	bool narrower = false;
	for (size_t i = 0; i < r->count; i++)
		narrower |= r->s[i].freqs && r->s[i].freqs->values->rows < pairs;
	/* one -d only when every scheme has that width (models keep their own without it) */
	char dtext[32] = "";
	if (!strchr(r->widths, '/'))
		snprintf(dtext, sizeof(dtext), " -d %zu", r->d);
	const char **header = (const char **)calloc(ncol, sizeof(char *));
	const char **cells = (const char **)calloc(rows * ncol, sizeof(char *));
	if (!header || !cells) {
		free(header);
		free(cells);
		free(qs);
		return oom();
	}
	sec->tables[0] = (struct pe_table){NULL, rows, ncol, header, cells};
	sec->n_tables = 1;
	header[0] = "pair";
	size_t c = 1;
	for (size_t i = 0; i < r->count; i++)
		if (r->s[i].freqs) {
			const char *scaled = is_scaled(r, i) ? " (scaled)" : "";
			if ((per == 2 &&
			     !(header[c++] = report_strf(sec, "\u03b8 %s%s", r->schemes[i]->label,
			                                 scaled))) ||
			    !(header[c++] =
			              report_strf(sec, "%s%s %s", per == 2 ? "wavelength " : "",
			                          r->schemes[i]->label, scaled))) {
				free(qs);
				return oom();
			}
		}
	for (size_t row = 0; row < rows; row++) {
		size_t q = qs[row];
		if (!(cells[row * ncol] = report_strf(sec, "%zu", q))) {
			free(qs);
			return oom();
		}
		c = 1;
		for (size_t i = 0; i < r->count; i++) {
			const struct pe_freq_table *t = r->s[i].freqs;
			if (!t)
				continue;
			if (q < t->values->rows) {
				/* The frequencies the scheme turns at: scaled for a RoPE scaling.
				 */
				const double *v = &t->values->data[q * t->values->cols];
				double theta = is_scaled(r, i) ? v[2] : v[0];
				double wl = is_scaled(r, i) ? TWO_PI / v[2] : v[1];
				if ((per == 2 && !(cells[row * ncol + c] = num(sec, theta))) ||
				    !(cells[row * ncol + c + per - 1] = num(sec, wl))) {
					free(qs);
					return oom();
				}
			}
			c += per;
		}
	}
	free(qs);
	int rc = line(sec,
	              step > 1 ? report_strf(sec,
	                                     "Every %zu%s pair of %zu and %s; the full "
	                                     "table: posenc freqs -s SPEC...%s -o freqs.csv.",
	                                     step,
	                                     step == 2   ? "nd"
	                                     : step == 3 ? "rd"
	                                                 : "th",
	                                     pairs, narrower ? "each scheme's last" : "the last",
	                                     dtext)
	                       : report_strf(sec,
	                                     "All %zu pairs (posenc freqs -s SPEC...%s "
	                                     "-o freqs.csv writes them as CSV).",
	                                     pairs, dtext));
	if (!rc)
		rc = line(sec, per == 2 ? "\u03b8: angular frequency of the pair (radians per "
		                          "position); wavelength 2\u03c0/\u03b8 in positions."
		                        : "Wavelengths 2\u03c0/\u03b8 of each pair, in positions.");
	return rc;
}

static int scaling(const struct report *r, size_t i, struct report_section *sec)
{
	const struct pe_freq_table *t = r->s[i].freqs;
	const struct pe_freq_variant *var = &t->variants[0];
	const char *name = pe_rope_scaling_name(var->type);
	sec->fig = pe_figure_create(1, 2);
	if (!sec->fig)
		return oom();
	enum pe_status st =
	        pe_figure_set_title(sec->fig, report_strf(sec, "%s: scaled vs unscaled frequencies",
	                                                  r->schemes[i]->label));
	size_t pairs = t->values->rows, cols = t->values->cols;
	double *x = array(sec, pairs), *th = array(sec, pairs), *sc = array(sec, pairs),
	       *ratio = array(sec, pairs);
	if (!x || !th || !sc || !ratio)
		return oom();
	for (size_t q = 0; q < pairs; q++) {
		const double *v = &t->values->data[q * cols];
		x[q] = (double)q;
		th[q] = v[0];
		sc[q] = v[2];
		ratio[q] = v[3];
	}
	struct pe_panel *a = pe_figure_panel(sec->fig, 0, 0), *b = pe_figure_panel(sec->fig, 0, 1);
	pe_panel_set_log(a, false, true);
	pe_panel_set_integer_ticks(a, true, false);
	pe_panel_set_integer_ticks(b, true, false);
	if (st == PE_OK)
		st = pe_panel_add_line(a, "unscaled", x, th, pairs);
	if (st == PE_OK)
		st = pe_panel_add_line(a, report_strf(sec, "%s (factor %g)", name, var->factor), x,
		                       sc, pairs);
	if (st == PE_OK)
		st = pe_panel_add_line(b, NULL, x, ratio, pairs);
	/* The unscaled frequency is ratio 1, and on the axis: a constant ratio (linear x8: 0.125
	 * everywhere) alone got an axis of 0.120 .. 0.130, a scale that shows no scaling. */
	if (st == PE_OK)
		st = pe_panel_add_hline(b, 1.0, "unscaled");
	if (st == PE_OK)
		st = pe_panel_set_title(a, "\u03b8 per pair");
	if (st == PE_OK)
		st = pe_panel_set_title(b, "scaled / unscaled");
	if (st == PE_OK)
		st = pe_panel_set_xlabel(a, "pair i");
	if (st == PE_OK)
		st = pe_panel_set_xlabel(b, "pair i");
	if (st == PE_OK)
		st = pe_panel_set_ylabel(a, "\u03b8 (radians per position)");
	if (st == PE_OK)
		st = pe_panel_set_ylabel(b, "ratio");
	if (st == PE_OK && var->type == PE_ROPE_SCALING_YARN && isfinite(var->info.yarn_low) &&
	    isfinite(var->info.yarn_high)) {
		st = pe_panel_add_vline(b, var->info.yarn_low, "low");
		if (st == PE_OK)
			st = pe_panel_add_vline(b, var->info.yarn_high, "high");
	}
	if (st != PE_OK)
		return figure_status(st);
	double af = var->info.attention_factor;
	/* linear and proportional have no original context (Gemma 3's linear x8 states
	 * none): the spec's default original is no part of them */
	char original[48] = "";
	if (pe_rope_scaling_has_original(var->type))
		snprintf(original, sizeof(original), ", original context %.10g", var->original);
	int rc = line(sec, report_strf(sec,
	                               "%s scaling, factor %g%s: attention factor %.8g (logits x "
	                               "%.8g).",
	                               name, var->factor, original, af, af * af));
	if (!rc && var->type == PE_ROPE_SCALING_DYNAMIC)
		rc = line(sec, report_strf(sec, "Effective base %.10g at length %.10g.",
		                           var->info.base, var->length));
	if (!rc && var->type == PE_ROPE_SCALING_LONGROPE)
		rc = line(sec,
		          report_strf(sec, "%s factors at length %.10g.",
		                      var->length > var->original ? "Long" : "Short", var->length));
	if (!rc && var->type == PE_ROPE_SCALING_YARN)
		rc = line(sec, report_strf(sec,
		                           "YaRN ramp: pairs up to %g keep \u03b8, pairs from "
		                           "%g on are divided by the factor.",
		                           var->info.yarn_low, var->info.yarn_high));
	return rc;
}

/* The section's figure, lines and tables. */
static int build(const struct report *r, enum kind k, size_t scheme, int html,
                 struct report_section *out)
{
	switch (k) {
	case SEC_SUMMARY:
		return summary(r, out);
	case SEC_ENCODING:
		return encodings(r, out);
	case SEC_DISTANCE:
		return pairwise(r, out, false);
	case SEC_CORR:
		return pairwise(r, out, true);
	case SEC_SCATTER:
		return scatter(r, out);
	case SEC_PROFILES:
		return profiles(r, out);
	case SEC_DECAY:
		return decay(r, out);
	case SEC_FREQS:
		return freqs(r, out);
	case SEC_FREQ_TABLE:
		return freq_table(r, out, html);
	case SEC_SCALING:
		return scaling(r, scheme, out);
	}
	return 0;
}

int report_section_build(const struct report *r, size_t i, int html, struct report_section *out)
{
	size_t scheme = 0;
	enum kind k = section_kind(r, i, &scheme);
	out->heading = report_section_title(r, i);
	int rc = build(r, k, scheme, html, out);
	if (!rc && out->fig)
		rc = cli_figure_apply(&r->o, out->fig);
	return rc;
}
