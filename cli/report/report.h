/*
 * cli/report/report.h - posenc report: the sections of a report and their writers
 *
 * A report is a list of sections built one at a time (so a progress line can
 * follow them and only one figure is held at once): a heading, lines of
 * text, an optional figure and optional tables. The PDF writer makes each
 * section a page (the first, which has no figure, a text page); the HTML
 * writer makes each an HTML section with an inline SVG and HTML tables.
 */
#ifndef POSENC_CLI_REPORT_H
#define POSENC_CLI_REPORT_H

#include <stdio.h>

#include <posenc/document.h>
#include <posenc/figure.h>
#include <posenc/freqs.h>

#include "figures/compare_data.h"
#include "figures/figure.h"
#include "shared/contexts.h"
#include "shared/model_spec.h"
#include "shared/options.h"

#define REPORT_MAX_SCHEMES 8
#define REPORT_MAX_LINES   24
#define REPORT_MAX_TABLES  3
/*
 * Pairs in the scatter: every pair up to n = 447; past the engine's 20000
 * points the scatter is a density image, far smaller in SVG and PDF than
 * one marker per pair.
 */
#define REPORT_SCATTER_POINTS 100000

/* Strings a section owns: its lines and table cells. */
struct report_strings {
	char **items;
	size_t n, cap;
};

struct report_section {
	const char *heading;
	const char *lines[REPORT_MAX_LINES];
	size_t n_lines;
	struct pe_figure *fig; /* owned; NULL: text only */
	double html_height;    /* > 0: the figure's height on a web page (points); else a page's */
	struct pe_table tables[REPORT_MAX_TABLES];
	size_t n_tables;
	struct report_strings strings;
	double *arrays[REPORT_MAX_SCHEMES * 6 + 4]; /* data the figure borrows, owned */
	size_t n_arrays;
	struct pe_matrix *matrices[REPORT_MAX_SCHEMES * 2];
	size_t n_matrices;
};

/*
 * One scheme's analyses: the summary row (streamed from the full matrices'
 * rows), grids and reduced curves for figures (data.bound: RoFormer's bound,
 * rope only, else empty).
 */
struct report_scheme {
	struct compare_data data; /* enc/dist/corr: grids of grid_cells a side */
	double summary[COMPARE_SUMMARY_COLS];
	struct pe_freq_table *freqs; /* NULL: no frequencies (learned, binary, file) */
};

struct report {
	struct cli_common o;
	int argc;
	char **argv;
	enum pe_metric metric;
	enum cli_scale scale; /* --scale */
	struct pe_scheme **schemes;
	size_t count;
	struct report_scheme s[REPORT_MAX_SCHEMES];
	struct cli_model_info *info;                  /* per scheme; zeroed for a plain spec */
	struct cli_contexts ctx[REPORT_MAX_SCHEMES];  /* what each model or spec states */
	char scaling_titles[REPORT_MAX_SCHEMES][160]; /* "RoPE scaling: llama-3.1-8b (llama3 x8)" */
	int log_offsets;                              /* decay curves on a log offset axis */
	char names[REPORT_MAX_SCHEMES][192];          /* each scheme in titles and legends, with its
	                                                 width when the widths differ */
	size_t n, d;                                  /* d: the widest scheme */
	char widths[64];                              /* each distinct width, "256/512" */
	unsigned long long first;
	const char *date; /* "2026-11-21 08:40 UTC" */
};

/* The number of sections this report has. */
size_t report_section_count(const struct report *r);

/* The HTML anchor of section @i ("decay", "scaling-2") into buf. */
const char *report_section_id(const struct report *r, size_t i, char *buf, size_t cap);

/* The title of section @i, for the progress line. */
const char *report_section_title(const struct report *r, size_t i);

/*
 * report_section_build() - build section @i into @out (zeroed by the caller)
 *
 * @html: tables sized for a web page (more rows of the frequency table).
 * @return 0 or an exit code after reporting. Free with report_section_free().
 */
int report_section_build(const struct report *r, size_t i, int html, struct report_section *out);
void report_section_free(struct report_section *sec);

/* printf into a string the section owns; NULL when out of memory. */
const char *report_strf(struct report_section *sec, const char *fmt, ...)
        __attribute__((format(printf, 2, 3)));

/* The page size of figures: A4 landscape in points. */
#define REPORT_PAGE_WIDTH  842.0
#define REPORT_PAGE_HEIGHT 595.0

/*
 * report_facts_table() - the models' facts (report_facts.c) as a table of
 * strings @sec owns, one column per scheme. @return 0 or an exit code.
 */
int report_facts_table(const struct report *r, struct report_section *sec, struct pe_table *out);

/* HTML writer (report_html.c): the whole report into @out. @return an exit code. */
struct report_progress;
int report_write_html(const struct report *r, FILE *out, struct report_progress *pr);

/* Progress on stderr (commands/report.c). */
void report_progress_step(struct report_progress *pr, size_t i, const char *title);

/*
 * report_html_escape() - @s with &, <, >, " and ' as entities, into @out
 */
void report_html_escape(FILE *out, const char *s);

#endif
