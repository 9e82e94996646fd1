/*
 * posenc compare: several schemes side by side. One figure row per scheme
 * (encoding, distance, correlation, distance-vs-correlation scatter; each
 * column on one colour scale) and the decay curves of all of them below;
 * or, for -o x.csv, a summary table with one row per scheme.
 */
#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <posenc/decay.h>
#include <posenc/pairwise.h>

#include "cli.h"
#include "commands.h"
#include "figures/compare_data.h"
#include "figures/compare_layout.h"
#include "figures/encode_figure.h"
#include "figures/figure.h"
#include "shared/output.h"
#include "shared/pairwise_cli.h"
#include "shared/vectors.h"

enum { OPT_METRIC = CLI_OPT_COMMAND, OPT_SCALE, OPT_PANELS, OPT_LAYOUT };

#define MAX_SCHEMES 8
#define DEFAULT_N   256
#define DEFAULT_D   128

static const char help[] =
        "Usage: posenc compare [-s SPEC]... [--base LIST] [-n N] [-d D] [--metric M]\n"
        "                      [--panels LIST] [--layout RxC] [-o FILE]\n"
        "\n"
        "Several schemes side by side (at most 8). A figure has one row per scheme:\n"
        "the encoding, the distance matrix, the correlation matrix and the distance vs\n"
        "correlation scatter, and below them the decay curves (mean dot product vs\n"
        "offset; a log offset axis from 4096 positions on, without offset 0) of every\n"
        "scheme. Narrower than 6 in (--width), each scheme takes two rows of two panels.\n"
        "\n"
        "-o FILE.csv writes a summary instead, one row per scheme: shortest and longest\n"
        "wavelength, distance and correlation ranges between distinct positions, mean\n"
        "distance between neighbours, and the decay curve at offsets 0, 1, 10 and 100.\n"
        "The ranges and the neighbour distance take every pair: past 4e9 evaluations\n"
        "they are left empty (nan) and said so. A figure's memory follows its pixels,\n"
        "not -n (at most 2^24 positions).\n"
        "\n"
        "Options:\n"
        "      --metric M         l2, cosine, l1 or linf [default: l2]\n"
        "      --scale S          colour scales of the heatmaps (and scatter axes):\n"
        "                         shared (one per quantity), panel (one per panel), or\n"
        "                         auto: shared unless a scheme's range is under 1/4 of\n"
        "                         another's [default: auto]; a note says which\n"
        "      --panels LIST      the panels, in this order: encoding, distance,\n"
        "                         correlation, scatter, decay [default: all]\n"
        "                         (--panels encoding,distance: a table and its\n"
        "                         distance matrix side by side)\n"
        "      --layout RxC       each scheme's panels in R rows of C (1x2, 2x2)\n"
        "                         [default: one row; rows of two below 6 in]\n"
        "%s"
        "\n"
        "Defaults: sinusoidal with --base 10000,10, -n 256 -d 128 -o compare.png\n"
        "Example: posenc compare -s rope --base 10000,500000 -n 512 -o rope-bases.pdf\n";

static const struct cli_command_options command = {
        help,
        CLI_TAKES_POSITIONED | CLI_TAKES_BASES | CLI_TAKES_FIGURES | CLI_TAKES_COLOUR |
                CLI_TAKES_BUDGETS,
        ".png .svg .pdf figure, .csv summary, - for CSV on stdout",
        "compare writes a grid of panels or a CSV summary",
        NULL,
};

struct run {
	struct cli_common o;
	enum pe_metric metric;
	enum cli_scale scale;
	struct compare_layout layout;
	struct pe_scheme **schemes;
	size_t count;
	struct compare_data data[MAX_SCHEMES];
	const char *path;
	enum cli_format format;
};

/* Whether the figure stacks each scheme's four panels in two rows of two. */
static bool narrow_layout(const struct cli_common *o)
{
	double fw, fh;
	cli_figure_size_pt(o, true, &fw, &fh);
	return fw > 0 && fw < 432;
}

static size_t grid_cells(const struct run *r)
{
	/* A heatmap is square (equal aspect) inside its slot of the grid of
	 * panels, so its side in pixels is at most the smaller side of a slot:
	 * a grid that size is only ever averaged down, never stretched, and
	 * holds no cells that the picture cannot show. */
	double w, h;
	cli_figure_pixels(&r->o, &w, &h);
	const struct compare_layout *l = &r->layout;
	double cols = l->count ? (double)l->cols : 1.0;
	double rows = (double)r->count * (l->count ? (double)l->rows : 1.0);
	double side = ceil(fmin(w / cols, h / rows));
	return side < 1.0 ? 1 : (size_t)side;
}

static int compute(struct run *r, size_t i)
{
	return compare_data_compute(&r->o, r->schemes[i]->label, r->metric, grid_cells(r),
	                            COMPARE_SCATTER_POINTS, 0, &r->data[i]);
}

/*
 * The whole job against --max-time before any of it starts: every scheme's
 * panels (a figure) or summary row (a CSV), summed, so that ten schemes each
 * within the budget are not let through together.
 */
static int check_time(const struct run *r, int figure)
{
	double secs = 0, n = 0;
	for (size_t i = 0; i < r->count; i++) {
		const struct pe_vectors *v = &r->data[i].v.vec;
		secs += figure ? compare_data_seconds(&r->o, r->metric, grid_cells(r),
		                                      COMPARE_SCATTER_POINTS, 0, v)
		               : compare_summary_seconds(&r->o, r->metric, v);
		n = fmax(n, (double)v->n);
	}
	char what[160];
	snprintf(what, sizeof(what), "%s of %zu scheme%s (%.0f positions) in all",
	         figure ? "the figure data" : "the summary", r->count, r->count == 1 ? "" : "s", n);
	return cli_check_time(&r->o, secs, what, "lower -n or -d, or compare fewer schemes");
}

static enum pe_status heatmap(struct pe_panel *p, const struct cli_common *o,
                              const struct pe_matrix *m, const struct pe_vectors *v, bool is_signed,
                              const char *cbar, const double *lim)
{
	struct pe_heatmap_spec spec;
	pe_heatmap_spec_init(&spec, m->rows, m->cols, m->data);
	pe_heatmap_spec_set_positions(&spec, (double)v->first, v->n, (double)v->first, v->n);
	spec.is_signed = is_signed;
	spec.equal_aspect = true;
	spec.colorbar_label = cbar;
	/* The note says which grids are sampled: a bar too short for the words goes without. */
	spec.colorbar_label_short = cbar ? "" : NULL;
	cli_heatmap_apply(o, &spec);
	if (!isnan(lim[0]))
		spec.vmin = lim[0], spec.vmax = lim[1];
	enum pe_status st = pe_panel_set_heatmap(p, &spec);
	if (st == PE_OK)
		st = pe_panel_set_xlabel(p, "position");
	if (st == PE_OK)
		st = pe_panel_set_ylabel(p, "position");
	return st;
}

static enum pe_status encoding_panel(struct pe_panel *p, const struct cli_common *o,
                                     const struct compare_data *sd, const double *lim)
{
	struct pe_heatmap_spec spec = sd->enc_spec;
	spec.colorbar_label = NULL; /* the column title says "encoding" */
	cli_heatmap_apply(o, &spec);
	if (!isnan(lim[0]))
		spec.vmin = lim[0], spec.vmax = lim[1];
	enum pe_status st = pe_panel_set_heatmap(p, &spec);
	if (st == PE_OK)
		st = pe_panel_set_xlabel(p, "dimension");
	if (st == PE_OK)
		st = pe_panel_set_ylabel(p, "position");
	return st;
}

/* Where quantity c of scheme i goes (compare_layout.h); NULL when it is not drawn. */
static struct pe_panel *slot(struct pe_figure *fig, const struct compare_layout *l, size_t i,
                             enum compare_panel c)
{
	unsigned row, col;
	if (!compare_layout_slot(l, i, c, &row, &col))
		return NULL;
	return pe_figure_panel(fig, row, col);
}

/* Each heatmap of quantity c keeps its own scale unless its column shares one. */
static void own_scales(struct pe_figure *fig, const struct compare_layout *l, size_t count,
                       enum compare_panel c)
{
	for (size_t i = 0; i < count; i++) {
		struct pe_panel *p = slot(fig, l, i, c);
		if (p)
			pe_panel_heatmap_own_scale(p, true);
	}
}

/* Scatter panels share their axes (like a shared colour scale) when the distances do. */
static void common_axes(struct run *r, struct pe_figure *fig)
{
	double xlo = INFINITY, xhi = -INFINITY, ylo = INFINITY, yhi = -INFINITY;
	for (size_t i = 0; i < r->count; i++) {
		const struct compare_data *sd = &r->data[i];
		for (size_t k = 0; k < sd->points->rows; k++) {
			if (isfinite(sd->px[k]))
				xlo = fmin(xlo, sd->px[k]), xhi = fmax(xhi, sd->px[k]);
			if (isfinite(sd->py[k]))
				ylo = fmin(ylo, sd->py[k]), yhi = fmax(yhi, sd->py[k]);
		}
	}
	for (size_t i = 0; i < r->count; i++) {
		struct pe_panel *p = slot(fig, &r->layout, i, COMPARE_SCATTER);
		if (!p)
			continue;
		if (xlo < xhi)
			pe_panel_set_xlim(p, xlo - 0.05 * (xhi - xlo), xhi + 0.05 * (xhi - xlo));
		if (ylo < yhi)
			pe_panel_set_ylim(p, ylo - 0.05 * (yhi - ylo), yhi + 0.05 * (yhi - ylo));
	}
}

static int build(struct run *r, struct pe_figure **out)
{
	*out = NULL;
	/*
	 * One figure row per scheme, its panels side by side; narrower than
	 * 6 in (a column of a paper) four panels a row leave no room for the
	 * data, so there a scheme takes rows of two (compare_layout_fit()).
	 */
	const struct compare_layout *l = &r->layout;
	bool one_row = l->rows == 1;
	struct pe_figure *fig =
	        pe_figure_create(compare_layout_fig_rows(l, r->count), compare_layout_fig_cols(l));
	if (!fig)
		return cli_error("out of memory");
	pe_figure_set_color_share(fig, PE_SHARE_COLUMN);
	pe_figure_set_png_level(fig, CLI_PNG_LEVEL_COMPARE);
	const char *titles[] = {"encoding", pw_metric_label(r->metric),
	                        one_row ? "Pearson correlation" : "correlation",
	                        "distance vs correlation"};
	enum pe_status st = PE_OK;
	int rc = 0;
	for (unsigned k = 0; k < l->count && st == PE_OK && one_row; k++)
		st = pe_figure_set_col_title(fig, k, titles[l->order[k]]);
	/* Schemes of different widths (several models) say each one's in their labels. */
	const struct pe_matrix *m[3][MAX_SCHEMES] = {{0}};
	for (size_t i = 0; i < r->count; i++) {
		m[0][i] = r->data[i].enc_range;
		m[1][i] = r->data[i].dist;
		m[2][i] = r->data[i].corr;
	}
	/*
	 * Rows of two give every panel its own colorbar (a column mixes quantities): a
	 * shared scale is then the same limits on each, the range of every scheme's data
	 * (--scale shared was ignored at a 252 pt width).
	 */
	double lim[3][2] = {{NAN, NAN}, {NAN, NAN}, {NAN, NAN}};
	for (int c = 0; c < 3 && !one_row && isnan(r->o.vmin) && isnan(r->o.vmax); c++) {
		if (!cli_scale_shared(r->scale, m[c], r->count))
			continue;
		double lo = INFINITY, hi = -INFINITY;
		bool is_signed = c == COMPARE_CORRELATION;
		for (size_t i = 0; i < r->count; i++) {
			is_signed |= c == COMPARE_ENCODING && r->data[i].enc_spec.is_signed;
			for (size_t k = 0; m[c][i] && k < m[c][i]->rows * m[c][i]->cols; k++)
				if (isfinite(m[c][i]->data[k]))
					lo = fmin(lo, m[c][i]->data[k]),
					hi = fmax(hi, m[c][i]->data[k]);
		}
		if (is_signed)
			hi = fmax(fabs(lo), fabs(hi)), lo = -hi;
		if (lo < hi)
			lim[c][0] = lo, lim[c][1] = hi;
	}
	char labels[MAX_SCHEMES][192];
	bool mixed = false;
	for (size_t i = 1; i < r->count; i++)
		mixed |= r->data[i].v.vec.d != r->data[0].v.vec.d;
	for (size_t i = 0; i < r->count; i++) {
		const char *lb = cli_width_label(cli_short_label(r->schemes[i]), r->data[i].v.vec.d,
		                                 mixed, labels[i], sizeof(labels[i]));
		if (lb != labels[i])
			snprintf(labels[i], sizeof(labels[i]), "%s", lb);
	}
	for (size_t i = 0; i < r->count && st == PE_OK && l->count; i++) {
		struct compare_data *sd = &r->data[i];
		const struct pe_vectors *v = &sd->v.vec;
		/* a row label has no room for the width beside a long name (it would end in an
		 * ellipsis): the title and the legend say the widths, the encoding's axis too */
		st = pe_figure_set_row_label(fig, (unsigned)(i * l->rows),
		                             cli_short_label(r->schemes[i]));
		/* The encoding's rows streamed to the engine, which averages them. */
		struct pe_panel *ep = slot(fig, l, i, COMPARE_ENCODING);
		if (st == PE_OK && ep)
			st = encoding_panel(ep, &r->o, sd, lim[COMPARE_ENCODING]);
		/*
		 * The column titles name the quantities: a colorbar says only what
		 * they do not, that its cells are sampled means.
		 */
		const char *dl = sd->dist_info.exact ? NULL : "sampled cell means";
		const char *cl = sd->corr_info.exact ? NULL : "sampled cell means";
		struct pe_panel *dp = slot(fig, l, i, COMPARE_DISTANCE);
		if (st == PE_OK && dp)
			st = heatmap(dp, &r->o, sd->dist, v, false, dl, lim[COMPARE_DISTANCE]);
		struct pe_panel *cp = slot(fig, l, i, COMPARE_CORRELATION);
		if (st == PE_OK && cp)
			st = heatmap(cp, &r->o, sd->corr, v, true, cl, lim[COMPARE_CORRELATION]);
		struct pe_panel *sp = slot(fig, l, i, COMPARE_SCATTER);
		if (st == PE_OK && sp)
			st = pe_panel_add_scatter(sp, NULL, sd->px, sd->py, sd->points->rows);
		if (st == PE_OK && sp)
			st = pe_panel_set_xlabel(sp, pw_metric_label(r->metric));
		if (st == PE_OK && sp)
			st = pe_panel_set_ylabel(sp, "correlation");
		if (st == PE_OK && sp)
			st = pe_panel_set_ylabel_short(sp, "corr.");
		for (unsigned k = 0; !one_row && k < l->count && st == PE_OK; k++)
			st = pe_panel_set_title(slot(fig, l, i, l->order[k]), titles[l->order[k]]);
	}
	/*
	 * One scale per quantity where a column shows it for every scheme; a
	 * scheme on several rows mixes quantities in a column, so there every
	 * panel has its own.
	 */
	if (!rc && st == PE_OK) {
		/* The heatmaps drawn, in the order drawn, for the note. */
		bool shared[3] = {false, false, false}, dist_shared = false;
		const char *names[3];
		size_t nq = 0;
		for (unsigned k = 0; k < l->count; k++) {
			enum compare_panel c = l->order[k];
			if (c > COMPARE_CORRELATION)
				continue;
			bool sh = one_row ? cli_scale_shared(r->scale, m[c], r->count)
			                  : !isnan(lim[c][0]);
			if (!sh || !one_row)
				own_scales(fig, l, r->count, c);
			if (c == COMPARE_DISTANCE)
				dist_shared = sh;
			shared[nq] = sh;
			names[nq++] = titles[c];
		}
		if (r->scale == CLI_SCALE_SHARED ||
		    (r->scale == CLI_SCALE_AUTO &&
		     (dist_shared || (l->index[COMPARE_DISTANCE] < 0 &&
		                      cli_scale_shared(r->scale, m[COMPARE_DISTANCE], r->count)))))
			common_axes(r, fig);
		char note[512];
		cli_scale_note(shared, names, nq, r->count > 1, note, sizeof(note));
		/* The sparsest sampling of any grid drawn, where the reader looks. */
		struct pe_grid_info worst = {1, 0};
		for (size_t i = 0; i < r->count; i++)
			for (int k = 0; k < 2; k++) {
				if (l->index[k ? COMPARE_CORRELATION : COMPARE_DISTANCE] < 0)
					continue;
				const struct pe_grid_info *g =
				        k ? &r->data[i].corr_info : &r->data[i].dist_info;
				if (!g->exact && (worst.exact || g->samples < worst.samples))
					worst = *g;
			}
		if (!worst.exact) {
			size_t len = strlen(note);
			cli_sampled_note(&worst, note + len + (len > 0), sizeof(note) - len - 1);
			if (len)
				note[len] = ' ';
		}
		/* The scatter takes pairs between evenly spaced positions: it leaves out the
		 * neighbours whose distance is the smallest (a reader took its x range for
		 * the summary's distance range). */
		if (l->index[COMPARE_SCATTER] >= 0 && r->data[0].points) {
			double n = (double)r->data[0].v.vec.n, total = n * (n - 1) / 2;
			size_t pairs = r->data[0].points->rows, len = strlen(note);
			if ((double)pairs < total)
				snprintf(note + len, sizeof(note) - len,
				         "%sScatter: %zu of the %.0f pairs, those between evenly "
				         "spaced positions.",
				         len ? " " : "", pairs, total);
		}
		if (*note)
			st = pe_figure_set_note(fig, note);
	}
	/* The decay curves: under the grid, or the whole figure when they are the only panel. */
	struct pe_panel *bottom = rc || st != PE_OK || !l->decay ? NULL
	                          : l->count                     ? pe_figure_bottom_panel(fig)
	                                                         : pe_figure_panel(fig, 0, 0);
	if (!rc && st == PE_OK && l->decay && !bottom)
		st = PE_ENOMEM;
	/*
	 * Decay curves whose sizes differ more than the colour scales may (a
	 * learned table's d std^2 = 0.03 beside sinusoidal's d / 2 = 32) are
	 * drawn relative to their value at offset 0, or one would be a flat line.
	 */
	const double *curves[MAX_SCHEMES];
	for (size_t i = 0; i < r->count; i++)
		curves[i] = r->data[i].decay.y;
	bool relative = bottom && cli_decay_relative(r->scale, curves, r->count);
	for (size_t i = 0; bottom && i < r->count && st == PE_OK; i++) {
		struct cli_curve *c = &r->data[i].decay;
		if (relative) {
			double d0 = c->y[0];
			for (size_t k = 0; k < c->len; k++)
				c->y[k] /= d0;
		}
		st = pe_panel_add_line(bottom, labels[i], c->x, c->y, c->len);
	}
	/* A curve at every offset may cost too much (a table's mean over pairs, or
	 * beyond 10^7 offsets): every s-th, said. */
	size_t step = 1;
	for (size_t i = 0; i < r->count; i++) {
		size_t s = compare_decay_step(&r->data[i].v.vec);
		step = s > step ? s : step;
	}
	char btitle[160];
	snprintf(btitle, sizeof(btitle), "decay: mean dot product of positions k apart%s",
	         relative ? ", relative to k = 0" : "");
	if (step > 1)
		snprintf(btitle + strlen(btitle), sizeof(btitle) - strlen(btitle),
		         " (k = 0, %zu, %zu, ...)", step, 2 * step);
	if (bottom && st == PE_OK)
		st = pe_panel_set_title(bottom, btitle);
	/* the longest curve decides: thousands of offsets go on a log axis, as decay's */
	double kmax = 0.0;
	for (size_t i = 0; bottom && i < r->count; i++) {
		const struct cli_curve *c = &r->data[i].decay;
		if (c->len > 0 && c->x[c->len - 1] > kmax)
			kmax = c->x[c->len - 1];
	}
	bool log_k = kmax >= CLI_LOG_OFFSETS;
	if (bottom) {
		pe_panel_set_log(bottom, log_k, false);
		pe_panel_set_integer_ticks(bottom, !log_k, false);
	}
	if (bottom && st == PE_OK)
		st = pe_panel_set_xlabel(bottom,
		                         log_k ? "offset k (log axis, k = 0 off it)" : "offset k");
	if (bottom && st == PE_OK)
		st = pe_panel_set_ylabel(bottom, relative ? "relative" : "dot product");
	if (!rc && st == PE_OK) {
		const struct pe_vectors *v = &r->data[0].v.vec;
		char title[160], widths[64] = "";
		/* Widths differ across rows for a model whose layer groups differ (Gemma 4)
		 * or tables of different columns: each distinct one, in row order. */
		for (size_t i = 0; i < r->count; i++)
			cli_width_list_add(widths, sizeof(widths), r->data[i].v.vec.d);
		snprintf(title, sizeof(title), "d=%s, positions %llu..%llu", widths,
		         (unsigned long long)v->first, (unsigned long long)(v->first + v->n - 1));
		st = pe_figure_set_title(fig, title);
	}
	if (!rc && st != PE_OK)
		rc = cli_figure_error(st);
	if (rc)
		pe_figure_destroy(fig);
	else
		*out = fig;
	return rc;
}

/*
 * For a --layout of more than two columns that does not fit: the rows of two a narrow
 * figure takes, "--layout Rx2", when that figure fits (four panels abreast in 3.5 in leave
 * heatmaps 20 pt wide); NULL when it does not either.
 */
static const char *layout_hint(void *ctx)
{
	struct run *r = ctx;
	static char hint[48];
	struct compare_layout asked = r->layout;
	if (!asked.given || asked.cols <= 2)
		return NULL;
	r->layout.rows = (asked.count + 1) / 2;
	r->layout.cols = 2;
	struct pe_figure *fig = NULL;
	bool fits = build(r, &fig) == 0 && cli_figure_fits(&r->o, r->format, fig);
	pe_figure_destroy(fig);
	r->layout = asked;
	snprintf(hint, sizeof(hint), "--layout %ux2", (asked.count + 1) / 2);
	return fits ? hint : NULL;
}

static int draw(struct run *r)
{
	struct pe_figure *fig;
	int rc = build(r, &fig);
	if (rc)
		return rc;
	char what[64];
	snprintf(what, sizeof(what), "comparison of %zu scheme%s", r->count,
	         r->count == 1 ? "" : "s");
	rc = cli_figure_write_hint(&r->o, r->path, r->format, fig, what, layout_hint, r);
	pe_figure_destroy(fig);
	return rc;
}

static int write_summary(struct run *r)
{
	const size_t ncols = COMPARE_SUMMARY_COLS;
	struct pe_matrix *t = pe_matrix_create(r->count, ncols);
	const char **labels = calloc(r->count, sizeof(*labels));
	if (!t || !labels) {
		pe_matrix_destroy(t);
		free(labels);
		return cli_error("out of memory");
	}
	int rc = 0;
	for (size_t i = 0; i < r->count && !rc; i++) {
		labels[i] = r->schemes[i]->label;
		rc = compare_summary_compute(&r->o, labels[i], r->metric, &r->data[i].v,
		                             pe_matrix_row(t, i));
		if (!rc)
			compare_summary_missing(&r->o, labels[i], &r->data[i].v, r->metric,
			                        pe_matrix_row(t, i));
	}
	if (rc) {
		pe_matrix_destroy(t);
		free(labels);
		return rc;
	}
	struct pe_axis rows = {"scheme", 0, 0, labels};
	struct pe_axis cols = {NULL, 0, 0, compare_summary_columns};
	rc = cli_write_matrix(&r->o, r->path, r->format, t, &rows, &cols);
	pe_matrix_destroy(t);
	free(labels);
	return rc;
}

/* --metric, --scale, --panels and --layout. */
static int own_option(void *ctx, int opt, const char *arg)
{
	struct run *r = ctx;
	switch (opt) {
	case OPT_SCALE:
		return cli_parse_scale(arg, &r->scale);
	case OPT_PANELS:
		return compare_layout_parse_panels(arg, &r->layout);
	case OPT_LAYOUT:
		return compare_layout_parse_grid(arg, &r->layout);
	default:
		return pw_parse_metric(arg, &r->metric);
	}
}

int cmd_compare(int argc, char **argv)
{
	static const struct option opts[] = {
	        {"metric", required_argument, NULL, OPT_METRIC},
	        {"scale", required_argument, NULL, OPT_SCALE},
	        {"panels", required_argument, NULL, OPT_PANELS},
	        {"layout", required_argument, NULL, OPT_LAYOUT},
	        {NULL, 0, NULL, 0},
	};
	struct run r;
	memset(&r, 0, sizeof(r));
	r.metric = PE_METRIC_L2;
	compare_layout_init(&r.layout);
	int rc = cli_parse_args(argc, argv, &command,
	                        &(struct cli_own_options){opts, own_option, &r}, &r.o);
	if (rc)
		return rc == CLI_DONE ? CLI_OK : rc;
	/* The comparison people ask for first: the paper's base against base 10. */
	if (!r.o.nspecs && !r.o.nbases) {
		r.o.specs[r.o.nspecs++] = "sinusoidal:base=10000";
		r.o.specs[r.o.nspecs++] = "sinusoidal:base=10";
	}
	char buf[64];
	r.path = cli_output_path(&r.o, buf, sizeof(buf));
	if ((rc = cli_output_format(&r.o, r.path, &r.format)))
		return rc;
	int figure = cli_format_is_figure(r.format);
	if (!figure && r.format != CLI_FORMAT_CSV)
		return cli_usage_error("compare writes a figure (.png, .svg, .pdf) or a summary "
		                       "(.csv), not '%s'",
		                       r.path);
	if (figure && (rc = cli_figure_check_options(&r.o)))
		return rc;
	if (!figure && (r.layout.given || r.layout.panels_given))
		return cli_usage_error(
		        "--panels and --layout choose a figure's panels; the summary "
		        "(.csv) has none");
	if (figure && (rc = compare_layout_fit(&r.layout, narrow_layout(&r.o))))
		return rc;
	if ((rc = cli_schemes(&r.o, "sinusoidal", MAX_SCHEMES, &r.schemes, &r.count)))
		return rc;
	for (size_t i = 0; i < r.count && !rc; i++) {
		rc = cli_vectors_prepare(&r.o, r.schemes[i], PE_VIEW_DEFAULT, DEFAULT_N, DEFAULT_D,
		                         &r.data[i].v);
		if (!rc && r.data[i].v.vec.n < 2)
			rc = cli_usage_error("compare needs at least 2 positions (-n)");
	}
	/*
	 * Past 2^24 positions the engine's sampled grids lose their offset table
	 * (each sampled pair costs d / 2 exact sines: seconds a panel) and the
	 * curves keep every k-th offset: refused at once instead.
	 */
	for (size_t i = 0; i < r.count && !rc && figure; i++)
		if (r.data[i].v.vec.n > COMPARE_CURVE_OFFSETS)
			rc = cli_error(
			        "a compare figure takes at most %zu positions (its grids would "
			        "take seconds a panel): lower -n (-o x.csv, the summary, takes "
			        "any n)",
			        COMPARE_CURVE_OFFSETS);
	if (!rc)
		rc = check_time(&r, figure);
	for (size_t i = 0; i < r.count && !rc && figure; i++)
		rc = compute(&r, i);
	if (!rc)
		rc = figure ? draw(&r) : write_summary(&r);
	for (size_t i = 0; i < r.count; i++)
		compare_data_free(&r.data[i]);
	cli_schemes_free(r.schemes, r.count);
	return rc;
}
