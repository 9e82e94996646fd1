/* posenc bias: ALiBi bias tensors (heads x n x n) and T5 bucket maps (n x n). */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <posenc/bias.h>

#include "cli.h"
#include "shared/costs.h"
#include "commands.h"
#include "figures/figure.h"
#include "shared/output.h"

static const char help[] =
        "Usage: posenc bias [-s SPEC] [-n N] [-o FILE]\n"
        "\n"
        "Attention-bias matrices over query positions 0..n-1 (rows) and keys (columns).\n"
        "  alibi  per head h, slopes as the official get_slopes (any head count; slopes=mpt:\n"
        "         MPT's, at bias-max): form=paper -m_h (i - j), form=official m_h j;\n"
        "         keys after the query -inf.\n"
        "         CSV: long format head,query,key,bias; NPY: shape (heads, n, n).\n"
        "  t5     the bucket of key - query as T5's _relative_position_bucket\n"
        "         (bidirectional=1 encoder, 0 decoder); CSV and NPY (n, n).\n"
        "  shaw   the index clip(key - query, k) + k of the learned vector each pair\n"
        "         uses (Shaw et al. 2018); CSV and NPY (n, n).\n"
        "Figure (.png .svg .pdf): alibi as a grid of heatmaps, one per head on one colour\n"
        "scale, masked keys grey; t5 as one heatmap of bucket ids (all buckets' colours).\n"
        "Past a few hundred positions a panel shows block means, so -n 1e6 needs no\n"
        "n x n tensor.\n"
        "\n"
        "Options:\n"
        "  -s, --scheme SPEC      a bias scheme, e.g. alibi:heads=8 (or t5, shaw; see 'posenc\n"
        "                         help schemes'), or a model: hf:config.json, gguf:FILE,\n"
        "                         model:NAME\n"
        "%s"
        "\n"
        "Defaults: -s alibi -n 16 -o bias.png\n"
        "Example: posenc bias -s alibi:heads=12 -n 64 -o alibi.npy\n";

static const struct cli_refusal refusals[] = {
        {CLI_TAKES_START | CLI_TAKES_DIM,
         "attention biases cover positions 0..n-1 and have no width"},
        {CLI_TAKES_BASE, "alibi and t5 have no base"},
        {CLI_TAKES_RAW, "bias draws labelled heatmaps only: write .npy for the bare values"},
        {0, NULL},
};

static const struct cli_command_options command = {
        help,
        CLI_TAKES_SCHEME | CLI_TAKES_LAYER | CLI_TAKES_N | CLI_TAKES_DTYPE | CLI_TAKES_FIGURES |
                CLI_TAKES_COLOUR | CLI_TAKES_BUDGETS,
        ".png .svg .pdf figure, .csv table (long format), .npy array, - for CSV\n"
        "on stdout",
        "bias writes labelled heatmaps, CSV or NPY",
        refusals,
};

/* The long CSV of a heads x n x n tensor stored as (heads * n) x n. */
/* About this many bytes of rows per block of the streamed tensor. */
#define STREAM_BLOCK_BYTES (16u << 20)

/* One block of rows as ALiBi's long CSV: one line per (head, query, key). */
static int put_long_rows(FILE *f, const double *rows, size_t r0, size_t count, size_t n)
{
	char num[32];
	for (size_t r = r0; r < r0 + count; r++)
		for (size_t j = 0; j < n; j++) {
			pe_csv_format(rows[(r - r0) * n + j], num);
			if (fprintf(f, "%zu,%zu,%zu,%s\n", r / n, r % n, j, num) < 0)
				return -1;
		}
	return 0;
}

/*
 * The tensor a block of rows at a time (memory: one block, not heads x n x
 * n): ALiBi as a heads x n x n NPY or a long CSV (head,query,key,bias), the
 * T5 map as an n x n NPY or CSV. The first block is computed before the
 * file is opened, so a bad scheme leaves no file.
 */
static int write_streamed(const struct cli_common *o, const struct pe_scheme *s, size_t heads,
                          size_t n, const char *path, enum cli_format format, const char *what)
{
	int t5 = pe_scheme_has(s, PE_CAP_BUCKETS);
	size_t total = heads * n, rows = STREAM_BLOCK_BYTES / 8 / n;
	rows = rows < 1 ? 1 : rows > total ? total : rows;
	struct pe_matrix *block = pe_matrix_create(rows, n);
	if (!block)
		return cli_error("%s: out of memory", what);
	enum pe_status st = pe_bias_rows(s, n, 0, rows, block->data);
	if (st != PE_OK) {
		pe_matrix_destroy(block);
		if (st == PE_ENOMEM || st == PE_ETOOBIG)
			return cli_error("%s: %s", what, pe_status_str(st));
		return cli_usage_error("scheme '%s': %s", s->canonical, pe_status_str(st));
	}
	struct cli_file file;
	int rc = cli_file_open(&file, path);
	if (rc) {
		pe_matrix_destroy(block);
		return rc;
	}
	struct pe_axis ra = {"query", 0.0, 1.0, NULL}, ca = {NULL, 0.0, 1.0, NULL};
	size_t shape[3] = {heads, n, n};
	if (format == CLI_FORMAT_NPY)
		st = t5 ? pe_npy_write_header(file.f, shape + 1, 2, o->dtype)
		        : pe_npy_write_header(file.f, shape, 3, o->dtype);
	else if (t5)
		st = pe_csv_write_header(file.f, n, &ra, &ca);
	else
		st = fputs("head,query,key,bias\n", file.f) < 0 ? PE_EIO : PE_OK;
	int compute_failed = 0;
	for (size_t r0 = 0; r0 < total && st == PE_OK; r0 += rows) {
		size_t count = total - r0 < rows ? total - r0 : rows;
		if (r0 > 0 && (st = pe_bias_rows(s, n, r0, count, block->data)) != PE_OK) {
			compute_failed = 1;
			break;
		}
		block->rows = count;
		struct pe_axis br = {"query", (double)r0, 1.0, NULL};
		if (format == CLI_FORMAT_NPY)
			st = pe_npy_write_data(file.f, block->data, count * n, o->dtype);
		else if (t5)
			st = pe_csv_write_rows(file.f, block, &br);
		else
			st = put_long_rows(file.f, block->data, r0, count, n) ? PE_EIO : PE_OK;
	}
	int e = errno;
	block->rows = rows;
	pe_matrix_destroy(block);
	if (compute_failed) {
		cli_file_abort(&file);
		return cli_error("%s: %s", what, pe_status_str(st));
	}
	if (st != PE_OK)
		return cli_file_fail(&file, st, e);
	if ((rc = cli_file_commit(&file)))
		return rc;
	char wrote[96];
	const char *type = o->dtype == PE_DTYPE_F32 ? "float32 array" : "float64 array";
	if (t5)
		snprintf(wrote, sizeof(wrote), "%zu x %zu %s", n, n,
		         format == CLI_FORMAT_NPY ? type : "table");
	else if (format == CLI_FORMAT_NPY)
		snprintf(wrote, sizeof(wrote), "%zu x %zu x %zu %s", heads, n, n, type);
	else
		snprintf(wrote, sizeof(wrote), "%zu x %zu x %zu long table", heads, n, n);
	cli_report_written(o, path, wrote);
	return 0;
}

/* Columns of the head grid: a divisor of heads near its square root, else the root. */
static unsigned grid_cols(unsigned heads)
{
	unsigned root = 1;
	while (root * root < heads)
		root++;
	for (unsigned c = root; 2 * c <= 3 * root; c++)
		if (heads % c == 0)
			return c;
	return root;
}

/* The exponent of m = 2^e written as superscripts (2⁻¹·⁵), as the log axes write 10⁻³: a third
 * narrower than 2^−1.5, so more heads fit a row. */
static void superscript(double e, char *buf, size_t cap)
{
	static const char *const digit[] = {"\u2070", "\u00b9", "\u00b2", "\u00b3", "\u2074",
	                                    "\u2075", "\u2076", "\u2077", "\u2078", "\u2079"};
	char plain[32];
	snprintf(plain, sizeof(plain), "%.4g", e);
	size_t len = 0;
	buf[0] = '\0';
	for (const char *c = plain; *c && len + 4 < cap; c++) {
		const char *t = *c == '-' ? "\u207b" : *c == '.' ? "\u00b7" : digit[*c - '0'];
		len += (size_t)snprintf(buf + len, cap - len, "%s", t);
	}
}

/*
 * "m = 2⁻⁸" whatever the head count: ALiBi's slopes are all powers of two
 * (2^-0.5 with 16 heads), so one form serves every count.
 */
static void slope_text(double m, bool compact, char *buf, size_t cap)
{
	char e[64];
	superscript(log2(m), e, sizeof(e));
	/* No-break spaces: a title breaks after "head h:", not inside; none at all in a
	 * narrow figure's panels. */
	snprintf(buf, cap, compact ? "m=2%s" : "m\u00a0=\u00a02%s", e);
}

/* About how wide a title line is in ems of DejaVu Sans (within a few per cent for these
 * titles: lower case and digits, spaces, "=", superscripts). */
static double ems(const char *s)
{
	double w = 0;
	for (const unsigned char *c = (const unsigned char *)s; *c; c++)
		if (*c == ' ' || *c == ':')
			w += 0.33;
		else if (*c == 'm' || *c == '=')
			w += 0.9;
		else if (*c < 0x80)
			w += 0.63;
		else if ((*c & 0xc0) != 0x80) /* no-break space and middle dot, or a superscript */
			w += c[0] == 0xc2 && (c[1] == 0xa0 || c[1] == 0xb7) ? 0.32 : 0.4;
	return w;
}

/* How the heads are laid out: columns, and whether the texts are short. */
struct head_grid {
	unsigned cols;
	/* A narrow figure's: "query i", "key j" (the y label in one line), titles "m=2⁻¹" alone
	 * (heads in rows from head 0, said in the figure's title) */
	bool short_names;
	/* With a width given alone: a height in points that gives the square heatmaps the
	 * width of their columns (the default aspect made 32 heads at 504 pt 28 pt panels in
	 * 72 pt columns); 0 otherwise. */
	double height;
};

/*
 * Columns of heads: grid_cols(), fewer when the figure is too narrow for panels as wide as
 * their titles ("head 11:" over "m = 2⁻³·⁵"; inner panels carry no tick labels). Besides
 * the panels, the short y label, its ticks and the colorbar with its 'masked' swatch take
 * about 11 text sizes at -n 64 (measured on the drawn figure), each further digit of the positions
 * 0.57 more, the long label's second line 1.5. Too narrow for the long texts, the short
 * ones.
 */
static struct head_grid head_grid(const struct cli_common *o, const struct pe_scheme *s, size_t n)
{
	unsigned heads = pe_scheme_has(s, PE_CAP_BIAS_HEADS) ? s->heads : 1;
	struct head_grid g = {grid_cols(heads), false, 0};
	double w, h;
	cli_figure_size_pt(o, true, &w, &h);
	double *slopes = heads > 1 ? malloc(heads * sizeof(*slopes)) : NULL;
	if (w > 0 && slopes && pe_alibi_scheme_slopes(s, slopes) == PE_OK) {
		double font = o->font_size > 0               ? o->font_size
		              : o->style == CLI_STYLE_SLIDES ? 14
		                                             : 9;
		double widest = 0, compact = 0;
		for (unsigned k = 0; k < heads; k++) {
			char head[32], slope[64], tight[64];
			snprintf(head, sizeof(head), "head\u00a0%u:", k);
			slope_text(slopes[k], false, slope, sizeof(slope));
			slope_text(slopes[k], true, tight, sizeof(tight));
			widest = fmax(widest, fmax(ems(head), ems(slope)));
			compact = fmax(compact, ems(tight));
		}
		double digits = floor(log10(fmax(1, (double)n - 1))) + 1;
		double other = 11.0 + 0.57 * fmax(0, digits - 2);
		/* The title at 1.1 times the text and a third of a text size of air, in the last
		 * column less the overhang of the tick labels below the others (the colorbar
		 * stands closer); or a heatmap three text sizes wide with its tick marks and air.
		 */
		double over = 0.28 * digits;
		double cell = fmax(widest * 1.1 + 0.3 + over, 4.75) * font;
		unsigned fit = (unsigned)fmax(1, floor((w - (other + 1.5) * font) / cell));
		if (fit < g.cols) {
			g.short_names = true;
			cell = fmax(compact * 1.1 + 0.3 + over, 4.75) * font;
			fit = (unsigned)fmax(1, floor((w - other * font) / cell));
		}
		g.cols = g.cols < fit ? g.cols : fit;
		if (h == 0) {
			/* A row: the heatmap (its column less the tick marks and air round it), its
			 * title's lines and air; then the figure's title, the x labels below and
			 * the note of the short texts. */
			double side = (w - (other + (g.short_names ? 0 : 1.5)) * font) / g.cols -
			              1.75 * font;
			double title = (g.short_names ? 1 : 2) * 1.3 * font + 1.0 * font;
			unsigned rows = (heads + g.cols - 1) / g.cols;
			g.height = rows * (side + title) + 3.5 * font + 3.5 * font +
			           (g.short_names ? 1.5 * font : 0);
			/* A slide keeps the 4:3 of the other slide figures: the heatmaps shrink. */
			if (o->style == CLI_STYLE_SLIDES)
				g.height = fmin(g.height, 0.75 * w);
		}
	}
	free(slopes);
	return g;
}

/* A g x g grid covering positions 0..n-1 (block means when g < n). */
static void heatmap_init(const struct cli_common *o, struct pe_heatmap_spec *spec, size_t n,
                         size_t g, const double *data, const char *label)
{
	pe_heatmap_spec_init(spec, g, g, data);
	pe_heatmap_spec_set_positions(spec, 0, n, 0, n);
	spec->equal_aspect = true;
	spec->colorbar_label = label;
	cli_heatmap_apply(o, spec);
}

static enum pe_status set_axes(struct pe_panel *p, bool x, bool y, bool short_names)
{
	enum pe_status st =
	        x ? pe_panel_set_xlabel(p, short_names ? "key j" : "key position j") : PE_OK;
	if (st == PE_OK && y)
		st = pe_panel_set_ylabel(p, short_names ? "query i" : "query position i");
	return st;
}

/*
 * ALiBi: one small heatmap per head on one shared colour scale, the future
 * keys (-inf) drawn as the engine's grey NaN cells; T5: the bucket map.
 */
static int draw(const struct cli_common *o, const struct pe_scheme *s, const struct head_grid *grid,
                struct pe_matrix *m, size_t n, size_t g, const char *path, enum cli_format format)
{
	bool alibi = pe_scheme_has(s, PE_CAP_BIAS_HEADS);
	unsigned heads = alibi ? s->heads : 1;
	unsigned cols = grid->cols, rows = (heads + cols - 1) / cols;
	double *slopes = malloc(heads * sizeof(*slopes));
	struct pe_figure *fig = pe_figure_create(rows, cols);
	if (!slopes || !fig) {
		free(slopes);
		pe_figure_destroy(fig);
		return cli_error("the bias figure: out of memory");
	}
	enum pe_status st = alibi ? pe_alibi_scheme_slopes(s, slopes) : PE_OK;
	for (size_t i = 0; alibi && i < m->rows * m->cols; i++)
		if (isinf(m->data[i]))
			m->data[i] = NAN;
	pe_figure_set_color_share(fig, PE_SHARE_ALL);
	for (unsigned h = 0; h < heads && st == PE_OK; h++) {
		struct pe_panel *p = pe_figure_panel(fig, h / cols, h % cols);
		struct pe_heatmap_spec spec;
		heatmap_init(o, &spec, n, g, m->data + (size_t)h * g * g,
		             alibi ? "bias" : "bucket id");
		/* Every head has the same axes: their numbers once, left and below. */
		bool bottom = h / cols == rows - 1 || h + cols >= heads;
		spec.x_no_tick_labels = !bottom;
		spec.y_no_tick_labels = h % cols != 0;
		if (alibi)
			spec.nan_label = "masked";
		if (!alibi) {
			/* every bucket keeps its colour, whichever a range or block mean shows */
			spec.discrete = true;
			/* the ids in the cells while they have room (a small map: -n 16) */
			spec.cell_values = true;
			spec.vmin = isnan(o->vmin) ? -0.5 : o->vmin;
			spec.vmax = isnan(o->vmax) ? (double)s->buckets - 0.5 : o->vmax;
			if (spec.vmin >= spec.vmax) /* one limit given past the other default */
				*(isnan(o->vmin) ? &spec.vmin : &spec.vmax) = NAN;
		}
		st = pe_panel_set_heatmap(p, &spec);
		/* the axis names once per row and column keep a big grid readable */
		if (st == PE_OK)
			st = set_axes(p, bottom, h % cols == 0, grid->short_names);
		if (st == PE_OK && alibi) {
			char title[64], slope[32];
			slope_text(slopes[h], grid->short_names, slope, sizeof(slope));
			/* Heads from 0, as the NPY array's first index and the CSV's head column.
			 */
			if (grid->short_names)
				snprintf(title, sizeof(title), "%s", slope);
			else
				snprintf(title, sizeof(title), "head\u00a0%u: %s", h, slope);
			st = pe_panel_set_title(p, title);
		}
	}
	char title[192], what[160];
	if (alibi)
		snprintf(title, sizeof(title), "%s: bias per head (positions 0..%zu)", s->label,
		         n - 1);
	else
		snprintf(title, sizeof(title), "%s: bucket of key \u2212 query (positions 0..%zu)",
		         s->label, n - 1);
	if (st == PE_OK)
		st = pe_figure_set_title(fig, title);
	if (st == PE_OK && alibi && grid->short_names) {
		/* The titles give the slopes alone: which head is which, said once. */
		snprintf(what, sizeof(what), "Heads 0..%u in rows, left to right; m their slopes.",
		         heads - 1);
		st = pe_figure_set_note(fig, what);
	}
	int rc;
	if (st != PE_OK) {
		rc = cli_figure_error(st);
	} else {
		/* one map (T5, Shaw) is n x n, as its NPY is; ALiBi heads x n x n, one head too */
		int len = alibi ? snprintf(what, sizeof(what), "%u x ", heads) : 0;
		if (g < n)
			snprintf(what + len, sizeof(what) - (size_t)len,
			         "%zu x %zu bias as %zu x %zu block means", n, n, g, g);
		else
			snprintf(what + len, sizeof(what) - (size_t)len, "%zu x %zu bias", n, n);
		rc = cli_figure_write(o, path, format, fig, what);
	}
	pe_figure_destroy(fig);
	free(slopes);
	return rc;
}

/*
 * The figure: square heatmaps get a default size a little narrower than
 * the engine's 340 x 280 cells; past twice the pixels a panel has, the
 * positions are averaged in blocks (pe_bias_grid()), so 10^5 positions need
 * no 10^10-cell tensor.
 */
static int figure(const struct cli_common *o, const struct pe_scheme *s, size_t n, const char *path,
                  enum cli_format format)
{
	unsigned heads = pe_scheme_has(s, PE_CAP_BIAS_HEADS) ? s->heads : 1;
	struct head_grid grid = head_grid(o, s, n);
	unsigned cols = grid.cols, rows = (heads + cols - 1) / cols;
	struct cli_common sized = *o;
	if (heads > 1 && !cli_figure_size_given(o) && o->style == CLI_STYLE_DEFAULT) {
		/* In points: 230 x 230 pixels a panel at 100 dpi. */
		sized.width = (struct cli_length){(cols * 230 + 150) * 0.72, 0};
		sized.height = (struct cli_length){(rows * 230 + 70) * 0.72, 0};
	} else if (grid.height > 0) {
		double w, h;
		cli_figure_size_pt(o, true, &w, &h);
		sized.width = (struct cli_length){w, 0};
		sized.height = (struct cli_length){grid.height, 0};
	}
	double w, h;
	cli_figure_pixels(&sized, &w, &h);
	size_t g = (size_t)(2 * fmax(w / cols, h / rows));
	if (g < 64)
		g = 64;
	if (g > n)
		g = n;
	char what[160];
	snprintf(what, sizeof(what), "the %u x %zu x %zu grid of the bias figure", heads, g, g);
	/* The grid, and the canvas at 4 bytes a pixel (a panel per head). */
	double bytes = ((double)heads * (double)g * (double)g + (g < n ? 4.0 * (double)n : 0)) * 8 +
	               w * h * 4.0;
	int rc = cli_check_memory(o, bytes, what,
	                          heads > 1 ? "ask for fewer heads or positions, or a smaller "
	                                      "figure (--width, --height)"
	                                    : "ask for fewer positions (-n)");
	if (!rc && g < n)
		rc = cli_check_time(o,
		                    (double)n * (pe_scheme_has(s, PE_CAP_BUCKETS)
		                                         ? CLI_COST_BIAS_FIGURE_T5
		                                         : CLI_COST_BIAS_FIGURE),
		                    what, "ask for fewer positions (-n)");
	if (rc)
		return rc;
	struct pe_matrix *m = NULL;
	enum pe_status st = g < n                                 ? pe_bias_grid(s, n, g, &m)
	                    : pe_scheme_has(s, PE_CAP_BIAS_HEADS) ? pe_alibi_bias(s, n, &m)
	                                                          : pe_t5_bucket_map(s, n, &m);
	if (st == PE_ENOMEM || st == PE_ETOOBIG)
		return cli_error("%s: %s", what, pe_status_str(st));
	if (st != PE_OK)
		return cli_usage_error("scheme '%s': %s", s->canonical, pe_status_str(st));
	rc = draw(&sized, s, &grid, m, n, g, path, format);
	pe_matrix_destroy(m);
	return rc;
}

static int run(const struct cli_common *o, const struct pe_scheme *s, size_t n, const char *path,
               enum cli_format format)
{
	if (cli_format_is_figure(format))
		return figure(o, s, n, path, format);
	size_t heads = pe_scheme_has(s, PE_CAP_BIAS_HEADS) ? s->heads : 1;
	char what[128];
	snprintf(what, sizeof(what), "the %zu x %zu x %zu bias", heads, n, n);
	int rc = cli_check_memory(o, (double)heads * (double)n * (double)n * 8.0, what,
	                          "ask for fewer positions (-n)");
	double per = format == CLI_FORMAT_CSV ? CLI_COST_BIAS_CSV
	             : heads > 1              ? CLI_COST_BIAS_HEADS_NPY
	                                      : CLI_COST_BIAS_NPY;
	if (!rc)
		rc = cli_check_time(o, (double)heads * (double)n * (double)n * per, what,
		                    "ask for fewer positions (-n), or draw a figure (-o bias.png)");
	if (rc)
		return rc;
	return write_streamed(o, s, heads, n, path, format, what);
}

int cmd_bias(int argc, char **argv)
{
	struct cli_common o;
	int rc = cli_parse_args(argc, argv, &command, NULL, &o);
	if (rc)
		return rc == CLI_DONE ? CLI_OK : rc;

	struct pe_scheme **schemes;
	size_t count;
	if ((rc = cli_schemes(&o, "alibi", 1, &schemes, &count)))
		return rc;
	const struct pe_scheme *s = schemes[0];
	const char *why = NULL;
	enum pe_status st = pe_bias_check(s, &why);
	if (st == PE_EUNSUPPORTED)
		rc = cli_usage_error("scheme '%s' gives position vectors, not an attention bias: "
		                     "bias covers alibi, t5 and shaw",
		                     s->canonical);
	else if (st != PE_OK)
		rc = cli_usage_error("scheme '%s': %s", s->canonical,
		                     why ? why : pe_status_str(st));
	char buf[64];
	const char *path = cli_output_path(&o, buf, sizeof(buf));
	enum cli_format format;
	if (!rc)
		rc = cli_output_format(&o, path, &format);
	if (!rc && cli_format_is_figure(format))
		rc = cli_figure_check_options(&o);
	if (!rc)
		rc = run(&o, s, o.n ? o.n : 16, path, format);
	cli_schemes_free(schemes, count);
	return rc;
}
