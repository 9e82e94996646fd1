/*
 * The encode heatmap: positions down, dimensions across. Sinusoidal and
 * RoPE rows are computed when the engine knows the heatmap's pixel rows
 * (a grid callback): each pixel row is the exact mean of the encoding over
 * the span of positions it covers, n / rows of them, the positions at its
 * two ends weighted by the part inside (the area mean the resampler would
 * form from every row), from one closed-form block mean
 * (pe_encode_window) and at most two rows: O(rows d) for any n, prime or
 * not. Other schemes stream rows: every row up to EXACT_ROWS positions
 * (the engine area-averages them onto the pixels), beyond that the mean of
 * SAMPLES evenly spaced positions of each block (said in the colorbar
 * label).
 *
 * Columns: a closed form's pixel column is the exact area mean of the
 * dimensions it spans while the rows x d values cost little (EXACT_VALUES);
 * beyond that, when a pixel column spans more than COL_SAMPLES dimensions,
 * it is the mean of COL_SAMPLES of them (the centres of equal shares of its
 * span, pe_encode_window_cols()), said in the figure's note: the cost is
 * then rows x pixels x COL_SAMPLES whatever d.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <posenc/resample.h>
#include <posenc/scheme.h>

#include "cli.h"
#include "figures/encode_figure.h"
#include "figures/figure.h"

#define EXACT_ROWS 8192
#define SAMPLES    8
#define CHUNK      256
/* rows x d values computed for exact pixel columns: about 0.25 s (30 ns a value) */
#define EXACT_VALUES ((double)(1 << 23))
#define COL_SAMPLES  16

struct row_source {
	const struct pe_vectors *v;
	size_t rows;  /* rows the engine sees */
	int sampled;  /* rows are SAMPLES-position means of their blocks */
	int windowed; /* rows are exact block means */
	struct pe_window window;
	int col_sampled; /* the area grid samples COL_SAMPLES dimensions per pixel column */
	double *chunk;   /* chunk_rows rows of d, rows [chunk_first, chunk_first + chunk_rows) */
	size_t chunk_rows;
	size_t chunk_first;
	int chunk_valid;
	double *sample; /* one row of d, for sampling */
};

static enum pe_status exact_row(struct row_source *src, size_t row, double *buf)
{
	const struct pe_vectors *v = src->v;
	size_t cr = src->chunk_rows;
	if (!src->chunk_valid || row < src->chunk_first || row >= src->chunk_first + cr) {
		size_t first = row - row % cr;
		size_t count = v->n - first < cr ? v->n - first : cr;
		enum pe_status st = pe_vectors_rows(v, first, count, src->chunk);
		if (st != PE_OK)
			return st;
		src->chunk_first = first;
		src->chunk_valid = 1;
	}
	memcpy(buf, src->chunk + (row - src->chunk_first) * v->d, v->d * sizeof(double));
	return PE_OK;
}

static enum pe_status window_row(struct row_source *src, size_t row, double *buf)
{
	return pe_encode_window(src->v->scheme, src->v->d, &src->window, row, 1, src->v->view, buf);
}

static enum pe_status sampled_row(struct row_source *src, size_t row, double *buf)
{
	const struct pe_vectors *v = src->v;
	/* The block of row a: positions [a*q + min(a, r), (a+1)*q + min(a+1, r)). */
	size_t q = v->n / src->rows, r = v->n % src->rows;
	size_t lo = row * q + (row < r ? row : r);
	size_t len = q + (row < r ? 1 : 0);
	memset(buf, 0, v->d * sizeof(double));
	for (size_t s = 0; s < SAMPLES; s++) {
		size_t at = lo + (size_t)(((double)s + 0.5) * (double)len / SAMPLES);
		enum pe_status st = pe_vectors_rows(v, at, 1, src->sample);
		if (st != PE_OK)
			return st;
		for (size_t j = 0; j < v->d; j++)
			buf[j] += src->sample[j] / SAMPLES;
	}
	return PE_OK;
}

/*
 * Pixel row y of R covers positions [y n / R, (y + 1) n / R): in units of
 * 1 / R of a position, [y n, (y + 1) n), and position p covers
 * [p R, (p + 1) R). Its whole positions are summed in closed form, the two
 * cut at its ends weighted by their overlap; *last caches the row of
 * position last_pos (the end of one pixel row starts the next).
 */
struct area_row {
	const struct pe_vectors *v;
	double *part; /* d: a cut position's row */
	size_t last_pos;
	int have_last;
};

static enum pe_status cut_row(struct area_row *a, size_t p)
{
	if (a->have_last && a->last_pos == p)
		return PE_OK;
	a->have_last = 0;
	enum pe_status st = pe_vectors_rows(a->v, p, 1, a->part);
	if (st == PE_OK) {
		a->last_pos = p;
		a->have_last = 1;
	}
	return st;
}

static enum pe_status area_row(struct area_row *a, size_t y, size_t R, double *buf)
{
	const struct pe_vectors *v = a->v;
	size_t d = v->d;
	uint64_t n = v->n, lo = (uint64_t)y * n, hi = lo + n;
	uint64_t pa = (lo + R - 1) / R, pb = hi / R; /* whole positions [pa, pb) */
	double whole = pb > pa ? (double)(pb - pa) * (double)R : 0.0;
	enum pe_status st = PE_OK;
	if (pb > pa) {
		struct pe_window w = {v->first + pa, (size_t)(pb - pa), 1};
		st = pe_encode_window(v->scheme, d, &w, 0, 1, v->view, buf);
		for (size_t j = 0; st == PE_OK && j < d; j++)
			buf[j] *= whole;
	} else {
		memset(buf, 0, d * sizeof(double));
	}
	if (st == PE_OK && lo % R) {
		double w0 = (double)((lo / R + 1) * R - lo);
		st = cut_row(a, (size_t)(lo / R));
		for (size_t j = 0; st == PE_OK && j < d; j++)
			buf[j] += w0 * a->part[j];
	}
	if (st == PE_OK && hi % R && hi / R < n) {
		double w1 = (double)(hi - (hi / R) * R);
		st = cut_row(a, (size_t)(hi / R));
		for (size_t j = 0; st == PE_OK && j < d; j++)
			buf[j] += w1 * a->part[j];
	}
	for (size_t j = 0; st == PE_OK && j < d; j++)
		buf[j] /= (double)n;
	return st;
}

static size_t range_start(size_t a, size_t n, size_t parts)
{
	size_t q = n / parts, r = n % parts;
	return a * q + (a < r ? a : r);
}

/*
 * The sampled dimensions of C pixel columns over d: for column x, those in
 * off[x]..off[x+1] of cols, the centres of COL_SAMPLES equal shares of the
 * dimensions [x d / C, (x + 1) d / C) it spans (rounded to whole ones),
 * moved by one where needed to alternate even and odd.
 */
static enum pe_status sample_cols(size_t d, size_t C, size_t **cols, size_t **off)
{
	*cols = malloc(C * COL_SAMPLES * sizeof(size_t));
	*off = malloc((C + 1) * sizeof(size_t));
	if (!*cols || !*off)
		return PE_ENOMEM;
	size_t k = 0;
	for (size_t x = 0; x < C; x++) {
		(*off)[x] = k;
		size_t lo = range_start(x, d, C), L = range_start(x + 1, d, C) - lo;
		size_t cnt = L < COL_SAMPLES ? L : COL_SAMPLES;
		for (size_t s = 0; s < cnt; s++) {
			/* Odd and even in turn: an interleaved layout's sines and cosines alike. */
			size_t j = lo + (2 * s + 1) * L / (2 * cnt);
			if (L >= 2 && j % 2 != s % 2)
				j = j + 1 < lo + L ? j + 1 : j - 1;
			(*cols)[k++] = j;
		}
	}
	(*off)[C] = k;
	return PE_OK;
}

/*
 * Up to three weighted blocks make pixel row y's area mean (see area_row()):
 * its whole positions and the two cut at its ends. Returns how many.
 */
static size_t area_blocks(const struct pe_vectors *v, size_t y, size_t R, struct pe_block *b,
                          double *wt)
{
	uint64_t n = v->n, lo = (uint64_t)y * n, hi = lo + n;
	uint64_t pa = (lo + R - 1) / R, pb = hi / R;
	size_t k = 0;
	if (R == n) {
		b[0] = (struct pe_block){v->first + y, 1};
		wt[0] = 1.0;
		return 1;
	}
	if (pb > pa) {
		b[k] = (struct pe_block){v->first + pa, (size_t)(pb - pa)};
		wt[k++] = (double)(pb - pa) * (double)R / (double)n;
	}
	if (lo % R) {
		b[k] = (struct pe_block){v->first + lo / R, 1};
		wt[k++] = (double)((lo / R + 1) * R - lo) / (double)n;
	}
	if (hi % R && hi / R < n) {
		b[k] = (struct pe_block){v->first + hi / R, 1};
		wt[k++] = (double)(hi - (hi / R) * R) / (double)n;
	}
	return k;
}

/* Values computed per call of the sampled grid (16 MiB). */
#define SAMPLED_BATCH ((size_t)1 << 21)

/*
 * The sampled grid: R pixel rows, as area means, of C pixel columns, each
 * the mean of its sampled dimensions. The blocks of many rows go in one
 * call, whose O(d) set-up (the frequencies) is shared.
 */
static enum pe_status sampled_grid(const struct pe_vectors *v, size_t R, size_t C,
                                   struct pe_matrix **out)
{
	size_t *pick = NULL, *off = NULL;
	enum pe_status st = sample_cols(v->d, C, &pick, &off);
	size_t width = st == PE_OK ? off[C] : 1;
	size_t batch = SAMPLED_BATCH / (3 * width);
	batch = batch < 1 ? 1 : batch > R ? R : batch;
	struct pe_block *blocks = malloc(3 * batch * sizeof(*blocks));
	double *wt = malloc(3 * batch * sizeof(double));
	size_t *cnt = malloc(batch * sizeof(size_t));
	double *vals = malloc(3 * batch * width * sizeof(double));
	struct pe_matrix *g = pe_matrix_create(R, C);
	if (st == PE_OK && (!blocks || !wt || !cnt || !vals || !g))
		st = PE_ENOMEM;
	for (size_t y0 = 0; st == PE_OK && y0 < R; y0 += batch) {
		size_t rows = R - y0 < batch ? R - y0 : batch, nb = 0;
		for (size_t y = 0; y < rows; y++) {
			cnt[y] = area_blocks(v, y0 + y, R, blocks + nb, wt + nb);
			nb += cnt[y];
		}
		st = pe_encode_blocks_cols(v->scheme, v->d, v->view, blocks, nb, pick, width, vals);
		for (size_t y = 0, k = 0; st == PE_OK && y < rows; k += cnt[y], y++) {
			double *row = g->data + (y0 + y) * C;
			for (size_t x = 0; x < C; x++) {
				double acc = 0.0;
				for (size_t i = 0; i < cnt[y]; i++) {
					const double *b = vals + (k + i) * width;
					double part = 0.0;
					for (size_t j = off[x]; j < off[x + 1]; j++)
						part += b[j];
					acc += wt[k + i] * part;
				}
				row[x] = acc / (double)(off[x + 1] - off[x]);
			}
		}
	}
	free(pick);
	free(off);
	free(blocks);
	free(wt);
	free(cnt);
	free(vals);
	if (st != PE_OK) {
		pe_matrix_destroy(g);
		return st;
	}
	*out = g;
	return PE_OK;
}

/* The grid callback: area-mean rows (every row when n <= rows), columns
 * area-averaged, or sampled (col_sampled). */
static enum pe_status area_grid(void *ctx, size_t rows, size_t cols, struct pe_matrix **out)
{
	const struct row_source *src = ctx;
	const struct pe_vectors *v = src->v;
	size_t R = rows < v->n ? rows : v->n, C = cols < v->d ? cols : v->d;
	if (src->col_sampled && v->d > C * COL_SAMPLES)
		return sampled_grid(v, R, C, out);
	struct area_row a = {v, malloc(v->d * sizeof(double)), 0, 0};
	double *buf = malloc(v->d * sizeof(double));
	struct pe_resampler *rs = NULL;
	enum pe_status st = a.part && buf ? pe_resampler_create(R, v->d, R, C, &rs) : PE_ENOMEM;
	for (size_t y = 0; st == PE_OK && y < R; y++) {
		st = R == v->n ? pe_vectors_rows(v, y, 1, buf) : area_row(&a, y, R, buf);
		if (st == PE_OK)
			st = pe_resampler_push(rs, buf);
	}
	if (st == PE_OK)
		st = pe_resampler_finish(rs, out);
	pe_resampler_destroy(rs);
	free(a.part);
	free(buf);
	return st;
}

static enum pe_status next_row(void *ctx, size_t row, double *buf)
{
	struct row_source *src = ctx;
	if (src->windowed)
		return window_row(src, row, buf);
	return src->sampled ? sampled_row(src, row, buf) : exact_row(src, row, buf);
}

/* Colour limits known without a pass over the data, or NaN for automatic. */
static void known_limits(const struct pe_vectors *v, double *lo, double *hi, bool *is_signed)
{
	*lo = *hi = NAN;
	*is_signed = true;
	if (v->table)
		return;
	int sign;
	pe_scheme_value_range(v->scheme, v->view, lo, hi, &sign);
	*is_signed = sign != 0;
}

static const char *view_name(enum pe_view view)
{
	switch (view) {
	case PE_VIEW_ANGLE:
		return "angle (rad)";
	case PE_VIEW_COS:
		return "cos";
	case PE_VIEW_SIN:
		return "sin";
	default:
		return "all-ones vector rotated";
	}
}

/* About how many pixel rows the heatmap gets: the figure's height. */
static size_t figure_rows(const struct cli_common *o)
{
	double w, h;
	cli_figure_pixels(o, &w, &h);
	return (size_t)h;
}

/*
 * Rows of equal blocks that still outnumber the pixel rows: the largest
 * block length L dividing n with L <= n / @pixels, as rows m = n / L; 0 when
 * only L = 1 qualifies. Equal blocks average every frequency alike, so the
 * exact block means lose nothing the pixels could show, at 1/L the cost.
 *
 * The search runs over the row counts m (the smallest divisor of n at or
 * above n / floor(n / pixels)), not over L: m is bounded by the pixels,
 * L by n, and a trial division up to n / pixels never ends for n = 1e14
 * (or a prime near 2^53). Up to EQUAL_SEARCH * pixels rows are tried;
 * beyond that the nearly equal blocks serve as well.
 */
#define EQUAL_SEARCH 16
static size_t equal_blocks(size_t n, size_t pixels)
{
	if (pixels == 0 || n / pixels < 2)
		return 0;
	size_t len_max = n / pixels;
	size_t m = n / len_max + (n % len_max != 0);
	size_t last = pixels * EQUAL_SEARCH;
	for (; m <= last && m <= n / 2; m++)
		if (n % m == 0)
			return m;
	return 0;
}

struct cli_encode_rows {
	struct row_source src;
	char cbar[96];
};

void cli_encode_rows_destroy(struct cli_encode_rows *er)
{
	if (!er)
		return;
	free(er->src.chunk);
	free(er->src.sample);
	free(er);
}

/*
 * How the rows of @v reach the engine (exact, block means or sampled, and
 * the pixel columns of the area grid sampled or not), and the seconds it
 * should take: one place for the figure and for its estimate.
 */
static double plan_rows(const struct cli_common *o, const struct pe_vectors *v, size_t pixels,
                        int grid, struct row_source *out)
{
	size_t cells = cli_figure_grid_cells(o, v->n);
	struct row_source src = {.v = v, .rows = v->n};
	int closed_form = !v->table && v->scheme && pe_scheme_has(v->scheme, PE_CAP_WINDOW);
	/*
	 * Blocks of unequal length (n not a multiple of the rows) damp high
	 * frequencies unequally; with thousands of positions per figure row the
	 * difference vanishes, so exact rows are drawn up to EXACT_ROWS.
	 */
	size_t equal = closed_form ? equal_blocks(v->n, pixels) : 0;
	if (equal) {
		src.rows = equal;
		src.windowed = 1;
		src.window = (struct pe_window){v->first, v->n, equal};
	} else if (v->n > EXACT_ROWS && closed_form) {
		src.rows = cells;
		src.windowed = 1;
		src.window = (struct pe_window){v->first, v->n, cells};
	} else if (v->n > EXACT_ROWS) {
		src.rows = cells;
		src.sampled = 1;
	}
	/* Rows computed CHUNK at a time, fewer when they are wide (a few MiB at most). */
	src.chunk_rows = CHUNK;
	while (src.chunk_rows > 1 && (double)src.chunk_rows * (double)v->d * 8.0 > 4194304.0)
		src.chunk_rows /= 2;
	double w, h;
	cli_figure_pixels(o, &w, &h);
	/*
	 * The area grid of a closed form (grid) samples its pixel columns when
	 * exact ones would cost more than EXACT_VALUES values and a column spans
	 * more than COL_SAMPLES dimensions of any heatmap the figure can hold (w
	 * pixels wide at most); --raw draws every value.
	 */
	double grid_rows = fmin((double)v->n, fmax(h, 1.0));
	src.col_sampled = grid && closed_form && !o->raw && (double)v->d > COL_SAMPLES * w &&
	                  grid_rows * (double)v->d > EXACT_VALUES;
	*out = src;
	/* The time is rows x values a row: about 30 ns a value for closed forms
	 * (sinusoidal, RoPE: 1000 x 2^20 took 17 s CPU) and 10 times that for
	 * tables built value by value. */
	double rows_done = src.sampled   ? (double)src.rows * SAMPLES
	                   : closed_form ? fmin((double)v->n, 2.0 * fmax(h, 1.0))
	                                 : (double)src.rows;
	double per_row = src.col_sampled ? COL_SAMPLES * w : (double)v->d;
	double per_value = closed_form ? 30e-9 : 300e-9;
	return rows_done * per_row * per_value;
}

double cli_encode_rows_seconds(const struct cli_common *o, const struct pe_vectors *v,
                               size_t pixels, int grid)
{
	struct row_source src;
	return plan_rows(o, v, pixels, grid, &src);
}

int cli_encode_rows_create(const struct cli_common *o, const struct pe_vectors *v, size_t pixels,
                           int grid, struct pe_heatmap_spec *spec, struct cli_encode_rows **out)
{
	*out = NULL;
	struct row_source src;
	double secs = plan_rows(o, v, pixels, grid, &src);
	/* The row chunk, the rows the engine keeps, and the picture at 4 bytes a pixel. */
	double w, h;
	cli_figure_pixels(o, &w, &h);
	char fig_what[96];
	snprintf(fig_what, sizeof(fig_what), "the figure of %zu x %zu", v->n, v->d);
	int rc = cli_check_time(o, secs, fig_what,
	                        "choose a smaller width (-d) or fewer positions (-n)");
	if (rc)
		return rc;
	rc = cli_check_memory(o, ((double)src.chunk_rows + 2.0) * (double)v->d * 8.0 + w * h * 4.0,
	                      fig_what,
	                      "choose a smaller width (-d) or figure (--width, --height)");
	if (rc)
		return rc;
	struct cli_encode_rows *er = calloc(1, sizeof(*er));
	if (!er)
		return cli_error("out of memory");
	er->src = src;
	er->src.chunk = malloc(src.chunk_rows * v->d * sizeof(double));
	er->src.sample = malloc(v->d * sizeof(double));
	if (!er->src.chunk || !er->src.sample) {
		cli_encode_rows_destroy(er);
		return cli_error("%s: out of memory", fig_what);
	}
	pe_heatmap_spec_init(spec, er->src.rows, v->d, NULL);
	spec->row_fn = next_row;
	spec->row_ctx = &er->src;
	pe_heatmap_spec_set_positions(spec, (double)v->first, v->n, 0.0, v->d);
	double lo, hi;
	bool is_signed;
	known_limits(v, &lo, &hi, &is_signed);
	spec->vmin = lo;
	spec->vmax = hi;
	spec->is_signed = is_signed;
	const struct pe_scheme *s = v->scheme;
	const char *what = s && pe_scheme_has(s, PE_CAP_VIEWS) ? view_name(v->view) : "value";
	if (er->src.sampled)
		snprintf(er->cbar, sizeof(er->cbar), "%s (mean of %d positions per row)", what,
		         SAMPLES);
	else
		snprintf(er->cbar, sizeof(er->cbar), "%s", what);
	spec->colorbar_label = er->cbar;
	*out = er;
	return 0;
}

/* The binary tables drawn from an array (8 MiB): anything larger has no room for digits anyway. */
#define BINARY_CELLS (1 << 20)

int cli_encode_figure(const struct cli_common *o, const char *path, enum cli_format format,
                      const struct pe_vectors *v)
{
	struct pe_heatmap_spec spec;
	struct cli_encode_rows *er = NULL;
	int rc = cli_encode_rows_create(o, v, figure_rows(o), 1, &spec, &er);
	if (rc)
		return rc;
	if (!v->table && v->scheme && pe_scheme_has(v->scheme, PE_CAP_WINDOW)) {
		/* Closed forms: the rows of the heatmap's own pixels, asked for by the engine. */
		spec.rows = v->n;
		spec.row_fn = NULL;
		spec.row_ctx = NULL;
		spec.grid_fn = area_grid;
		spec.grid_ctx = &er->src;
	}
	/*
	 * The binary counter's bits are categories, 0 or 1: a two-colour key, not a
	 * 0..1 colour bar, and its digits in the cells while they have room for them
	 * (the engine leaves them out otherwise). Its table is small enough to hold.
	 */
	struct pe_matrix *bits = NULL;
	struct pe_figure *fig = NULL;
	if (!v->table && v->scheme && strcmp(pe_scheme_type_name(v->scheme->type), "binary") == 0 &&
	    (double)v->n * (double)v->d <= BINARY_CELLS) {
		bits = pe_matrix_create(v->n, v->d);
		enum pe_status bst = bits ? pe_vectors_rows(v, 0, v->n, bits->data) : PE_ENOMEM;
		if (bst != PE_OK) {
			rc = cli_error("the binary table: %s", pe_status_str(bst));
			goto done;
		}
		spec.rows = v->n;
		spec.data = bits->data;
		spec.row_fn = NULL;
		spec.row_ctx = NULL;
		spec.grid_fn = NULL;
		spec.discrete = true;
		spec.cell_values = true;
		spec.is_signed = false;
		spec.vmin = spec.vmax = NAN;
		spec.colorbar_label = "bit";
	}
	fig = pe_figure_create(1, 1);
	if (!fig) {
		rc = cli_error("out of memory");
		goto done;
	}
	pe_figure_set_png_level(fig, CLI_PNG_LEVEL_ENCODE);
	char note[128];
	snprintf(note, sizeof(note),
	         "Sampled: each pixel column is the mean of %d of its dimensions (evenly spaced), "
	         "not of all.",
	         COL_SAMPLES);
	if (er->src.col_sampled && !bits && pe_figure_set_note(fig, note) != PE_OK) {
		rc = cli_error("out of memory");
		goto done;
	}
	cli_heatmap_apply(o, &spec);
	struct pe_panel *p = pe_figure_panel(fig, 0, 0);
	char title[512];
	const struct pe_scheme *s = v->scheme;
	cli_scheme_title(s ? cli_short_label(s) : "table", v->d, (unsigned long long)v->first, v->n,
	                 title, sizeof(title));
	enum pe_status st = pe_panel_set_heatmap(p, &spec);
	if (st == PE_OK)
		st = pe_panel_set_title(p, title);
	if (st == PE_OK)
		st = pe_panel_set_xlabel(p, "dimension");
	if (st == PE_OK)
		st = pe_panel_set_ylabel(p, pe_scheme_row_name(v->scheme));
	if (st != PE_OK) {
		rc = cli_figure_error(st);
		goto done;
	}
	char report[96];
	snprintf(report, sizeof(report), "%zu x %zu encoding heatmap", v->n, v->d);
	rc = cli_figure_write(o, path, format, fig, report);
done:
	pe_figure_destroy(fig);
	pe_matrix_destroy(bits);
	cli_encode_rows_destroy(er);
	return rc;
}
