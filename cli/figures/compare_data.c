/*
 * The per-scheme analyses shared by compare and report: figure data whose
 * size follows the pixels, and the summary row streamed from the rows of the
 * full matrices.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <posenc/decay.h>
#include <posenc/encode.h>
#include <posenc/scheme.h>
#include <posenc/summary.h>

#include "cli.h"
#include "figures/compare_data.h"
#include "figures/encode_figure.h"
#include "figures/figure.h"
#include "shared/costs.h"
#include "shared/pairwise_cli.h"

/* Offsets of a closed-form decay curve computed at a time. */
#define DECAY_PIECE 65536
/* Bytes of matrix rows worked on at a time. */
#define ROW_CHUNK_BYTES 4194304.0

static int status_error(enum pe_status st, const char *what, const char *label)
{
	if (cli_exit_for(st) == CLI_USAGE)
		return cli_usage_error("scheme '%s': %s: %s", label, what, pe_status_str(st));
	return cli_error("scheme '%s': %s failed: %s", label, what, pe_status_str(st));
}

/*
 * The encoding panel's rows, streamed to the figure engine as the encode
 * figure streams them (cli/figures/encode_figure.c: exact rows, or exact block
 * means from the closed form), and the range of its values, which decides
 * whether the column shares a colour scale: known up front for sinusoidal
 * and RoPE, else one pass over the rows the engine will see.
 */
static int encoding(const struct cli_common *o, const char *label, size_t cells,
                    struct compare_data *sd)
{
	const struct pe_vectors *v = &sd->v.vec;
	/* A panel takes about half the grid side in pixel rows: equal blocks
	 * just above that (cli/figures/encode_figure.c) are all the engine can show. */
	int rc = cli_encode_rows_create(o, v, (cells + 1) / 2, 0, &sd->enc_spec, &sd->enc_rows);
	if (rc)
		return rc;
	sd->enc_range = pe_matrix_create(1, 2);
	double *buf = malloc(v->d * sizeof(double));
	if (!sd->enc_range || !buf) {
		free(buf);
		return cli_error("out of memory");
	}
	double lo = sd->enc_spec.vmin, hi = sd->enc_spec.vmax;
	if (isnan(lo) || isnan(hi)) {
		lo = INFINITY;
		hi = -INFINITY;
		for (size_t r = 0; r < sd->enc_spec.rows; r++) {
			enum pe_status st = sd->enc_spec.row_fn(sd->enc_spec.row_ctx, r, buf);
			if (st != PE_OK) {
				free(buf);
				return status_error(st, "the encoding", label);
			}
			for (size_t j = 0; j < v->d; j++)
				if (isfinite(buf[j])) {
					lo = buf[j] < lo ? buf[j] : lo;
					hi = buf[j] > hi ? buf[j] : hi;
				}
		}
	}
	free(buf);
	sd->enc_range->data[0] = lo;
	sd->enc_range->data[1] = hi;
	return 0;
}

size_t compare_decay_step(const struct pe_vectors *v)
{
	size_t n = v->n;
	/* A closed form costs O(d) an offset: every offset up to COMPARE_CURVE_OFFSETS. */
	if (pe_decay_closed_form(v))
		return n <= COMPARE_CURVE_OFFSETS ? 1 : (n - 1) / COMPARE_CURVE_OFFSETS + 1;
	/* Every k-th offset: about (n / k) (n / 2) d multiply-adds. */
	double work = (double)n * (double)n * (double)v->d / 2.0;
	double step = ceil(work / COMPARE_DECAY_WORK);
	return step < 1 ? 1 : step > (double)n ? n : (size_t)step;
}

size_t compare_bound_step(const struct pe_vectors *v)
{
	/* d / 2 sines, cosines and hypotenuses an offset (no table rotation). */
	double work = (double)v->n * (double)(v->d / 2 ? v->d / 2 : 1);
	double step = ceil(work / COMPARE_BOUND_WORK);
	return step < 1 ? 1 : step > (double)v->n ? v->n : (size_t)step;
}

/* The curve of @kind at offsets 0, s, 2s, .. < n (s = compare_decay_step()), reduced as it is made.
 */
static enum pe_status decay_curve(const struct pe_vectors *v, enum pe_decay_kind kind,
                                  struct cli_curve *c)
{
	size_t step = kind == PE_DECAY_BOUND ? compare_bound_step(v) : compare_decay_step(v);
	size_t n = (v->n - 1) / step + 1; /* offsets on the curve */
	/* compare and report draw offsets up to CLI_LOG_OFFSETS and more on a log axis */
	if ((v->n - 1 >= CLI_LOG_OFFSETS ? cli_curve_init_log(c, n) : cli_curve_init(c, n)))
		return PE_ENOMEM;
	/* The mean over pairs holds every row anyway: one piece. */
	size_t piece = pe_decay_closed_form(v) ? DECAY_PIECE : n;
	piece = piece < n ? piece : n;
	double *buf = malloc(piece * sizeof(double));
	if (!buf)
		return PE_ENOMEM;
	enum pe_status st = PE_OK;
	for (size_t k0 = 0; k0 < n && st == PE_OK; k0 += piece) {
		size_t cnt = n - k0 < piece ? n - k0 : piece;
		st = pe_decay_curve_range(v, kind, k0 * step, step, cnt, buf);
		for (size_t k = 0; k < cnt && st == PE_OK; k++)
			if (cli_curve_push(c, k0 + k, (double)((k0 + k) * step), buf[k]))
				st = PE_ENOMEM;
	}
	if (st == PE_OK && cli_curve_finish(c))
		st = PE_ENOMEM;
	free(buf);
	return st;
}

double compare_data_seconds(const struct cli_common *o, enum pe_metric metric, size_t cells,
                            size_t scatter, int bound, const struct pe_vectors *v)
{
	double n = (double)v->n, d = (double)v->d, half = fmax(d / 2, 1.0);
	int closed = pe_decay_closed_form(v);
	/* The encoding panel (as encoding() asks for it), both grids, the decay curve (a
	 * closed form's offsets, a table's mean over pairs within COMPARE_DECAY_WORK), the
	 * bound within COMPARE_BOUND_WORK, the scatter's pairs. */
	double curve = closed ? fmin(n, (double)COMPARE_CURVE_OFFSETS) * half * CLI_COST_DECAY_TERM
	                      : fmin(n * n * d / 2, COMPARE_DECAY_WORK) * CLI_COST_DECAY_PAIR;
	int rows = v->table || !v->scheme || !pe_scheme_has(v->scheme, PE_CAP_TOEPLITZ);
	return cli_encode_rows_seconds(o, v, (cells + 1) / 2, 0) +
	       pw_estimate(v, metric, PW_OUT_FIGURE, CLI_FORMAT_PNG) +
	       pw_estimate(v, PE_METRIC_CORR, PW_OUT_FIGURE, CLI_FORMAT_PNG) + curve +
	       (bound ? fmin(n * half, COMPARE_BOUND_WORK) * CLI_COST_BOUND_TERM : 0.0) +
	       (double)scatter * (rows ? d * CLI_COST_SCATTER_TERM : CLI_COST_SCATTER_PAIR);
}

int compare_data_compute(const struct cli_common *o, const char *label, enum pe_metric metric,
                         size_t cells, size_t scatter, int bound, struct compare_data *sd)
{
	const struct pe_vectors *v = &sd->v.vec;
	size_t n = v->n, d = v->d;
	size_t R = n < cells ? n : cells;
	/*
	 * Everything this scheme's figure data holds, checked before any of it
	 * is made (the encoding's row source checks its own): the two grids and
	 * what the pairwise engine works with, the decay curves (or, for a
	 * table, its rows and whole curve), the scatter points.
	 */
	double grids = 2.0 * (double)R * (double)R * 8.0;
	double rows = (double)n < 128.0 ? (double)n : 128.0;
	int closed = pe_decay_closed_form(v);
	double curve = (bound ? 2.0 : 1.0) * cli_curve_bytes(n) +
	               (closed ? (double)DECAY_PIECE * 8.0
	                       : (double)n * 8.0 + (double)n * (double)d * 8.0);
	/* The pairwise engine's grids hold at most an offset table of n values
	 * (sampled mode, up to 2^24 positions) and its per-position terms. */
	double kernel = 16.0 * (double)(n < ((size_t)1 << 24) ? n : ((size_t)1 << 24));
	double bytes =
	        grids + pw_work_bytes(v, rows, 0.0) + kernel + curve + (double)scatter * 48.0;
	char what[128];
	snprintf(what, sizeof(what), "the figure data of '%s' (%zu positions, d=%zu)", label, n, d);
	/* Its time counts in the whole job's (compare_data_seconds(), checked by the caller). */
	int rc = cli_check_memory(o, bytes, what, "lower -n or -d, or draw a smaller figure");
	if (rc)
		return rc;
	if ((rc = encoding(o, label, cells, sd)))
		return rc;
	enum pe_status st =
	        pe_pairwise_grid_info(v, metric, cells, cells, &sd->dist_info, &sd->dist);
	if (st != PE_OK)
		return status_error(st, "the distance matrix", label);
	st = pe_pairwise_grid_info(v, PE_METRIC_CORR, cells, cells, &sd->corr_info, &sd->corr);
	if (st != PE_OK)
		return status_error(st, "the correlation matrix", label);
	st = decay_curve(v, PE_DECAY_DOT, &sd->decay);
	if (st != PE_OK)
		return status_error(st, "the decay curve", label);
	if (bound && (st = decay_curve(v, PE_DECAY_BOUND, &sd->bound)) != PE_OK)
		return status_error(st, "the RoFormer bound", label);
	if (!scatter)
		return 0;
	st = pe_scatter(v, metric, scatter, NULL, &sd->points);
	if (st != PE_OK)
		return status_error(st, "the scatter", label);
	size_t k = sd->points->rows;
	sd->px = malloc((k ? k : 1) * sizeof(double));
	sd->py = malloc((k ? k : 1) * sizeof(double));
	if (!sd->px || !sd->py)
		return cli_error("out of memory");
	for (size_t j = 0; j < k; j++) {
		sd->px[j] = sd->points->data[2 * j];
		sd->py[j] = sd->points->data[2 * j + 1];
	}
	return 0;
}

void compare_data_free(struct compare_data *sd)
{
	cli_vectors_finish(&sd->v);
	cli_encode_rows_destroy(sd->enc_rows);
	pe_matrix_destroy(sd->enc_range);
	pe_matrix_destroy(sd->dist);
	pe_matrix_destroy(sd->corr);
	pe_matrix_destroy(sd->points);
	free(sd->px);
	free(sd->py);
	cli_curve_free(&sd->decay);
	cli_curve_free(&sd->bound);
}

/* ---- the summary row ---- */

/* Cell evaluations of one full matrix of @m: n^2, d each for general rows. */
static double pair_work(const struct pe_vectors *v, enum pe_metric m)
{
	double cells = (double)v->n * (double)v->n;
	return pe_pairwise_has_structure(v, m) ? cells : cells * (double)v->d;
}

/*
 * Whether the general matrix of @m is formed whole (pe_pairwise_matrix():
 * the Gram product on a BLAS, far faster than rows one block at a time):
 * when it takes at most a quarter of the budget and n^2 d stays within the
 * work the engine's own every-pair grids allow (2^37, about 2 s on a BLAS).
 */
static int whole(const struct cli_common *o, const struct pe_vectors *v, enum pe_metric m)
{
	double n = (double)v->n;
	return !pe_pairwise_has_structure(v, m) && n * n * 8.0 <= (double)o->max_memory / 4.0 &&
	       n * n * (double)v->d <= 137438953472.0;
}

static int pairs_ok(const struct cli_common *o, const struct pe_vectors *v, enum pe_metric m)
{
	return whole(o, v, m) || pair_work(v, m) <= COMPARE_SUMMARY_WORK / 2;
}

int compare_summary_has_pairs(const struct cli_common *o, const struct pe_vectors *v,
                              enum pe_metric metric)
{
	return pairs_ok(o, v, metric) && pairs_ok(o, v, PE_METRIC_CORR);
}

static void wavelengths(const struct pe_vectors *v, double theta[], double *shortest,
                        double *longest)
{
	*shortest = *longest = NAN;
	size_t count = 0;
	if (v->table || !v->scheme ||
	    pe_scheme_frequencies(v->scheme, v->d, theta, &count) != PE_OK)
		return;
	for (size_t i = 0; i < count; i++) {
		double wl = 2.0 * 3.14159265358979323846 / theta[i];
		*shortest = i == 0 || wl < *shortest ? wl : *shortest;
		*longest = i == 0 || wl > *longest ? wl : *longest;
	}
}

/*
 * The off-diagonal range of the full matrix of @m (and, with @neighbour,
 * the mean of its cells (p, p+1)), from blocks of its rows.
 */
static enum pe_status pair_range(const struct cli_common *o, const struct pe_vectors *v,
                                 enum pe_metric m, double *lo, double *hi, double *neighbour)
{
	size_t n = v->n;
	*lo = INFINITY;
	*hi = -INFINITY;
	size_t budget = o->max_memory / 4 > SIZE_MAX ? SIZE_MAX : (size_t)(o->max_memory / 4);
	if (whole(o, v, m)) {
		struct pe_matrix *M = NULL;
		enum pe_status st = pe_pairwise_matrix(v, m, budget, &M);
		if (st != PE_OK)
			return st;
		double sum = 0;
		for (size_t i = 0; i < n; i++) {
			const double *row = pe_matrix_row(M, i);
			for (size_t j = i + 1; j < n; j++)
				if (!isnan(row[j])) {
					*lo = row[j] < *lo ? row[j] : *lo;
					*hi = row[j] > *hi ? row[j] : *hi;
				}
			if (i + 1 < n)
				sum += row[i + 1];
		}
		pe_matrix_destroy(M);
		if (*lo > *hi)
			*lo = *hi = NAN;
		if (neighbour)
			*neighbour = n > 1 ? sum / (double)(n - 1) : NAN;
		return PE_OK;
	}
	size_t block = (size_t)(ROW_CHUNK_BYTES / (8.0 * (double)n));
	block = block < 1 ? 1 : block > n ? n : block;
	struct pe_pairwise_rows *src = NULL;
	double *rows = malloc(block * n * sizeof(double));
	enum pe_status st = rows ? pe_pairwise_rows_create(v, m, budget, &src) : PE_ENOMEM;
	double sum = 0;
	for (size_t r0 = 0; r0 < n && st == PE_OK; r0 += block) {
		size_t cnt = n - r0 < block ? n - r0 : block;
		st = pe_pairwise_rows_fill(src, r0, cnt, rows);
		for (size_t k = 0; k < cnt && st == PE_OK; k++) {
			size_t i = r0 + k;
			const double *row = rows + k * n;
			/* Symmetric: the cells right of the diagonal are every pair once. */
			for (size_t j = i + 1; j < n; j++) {
				double x = row[j];
				if (isnan(x))
					continue;
				*lo = x < *lo ? x : *lo;
				*hi = x > *hi ? x : *hi;
			}
			if (i + 1 < n)
				sum += row[i + 1];
		}
	}
	pe_pairwise_rows_destroy(src);
	free(rows);
	if (*lo > *hi)
		*lo = *hi = NAN;
	if (neighbour)
		*neighbour = n > 1 ? sum / (double)(n - 1) : NAN;
	return st;
}

double compare_summary_seconds(const struct cli_common *o, enum pe_metric metric,
                               const struct pe_vectors *v)
{
	/* the pairs of both metrics (as an NPY matrix costs, no text), a table's decay */
	int pairs = compare_summary_has_pairs(o, v, metric);
	return (pairs ? pw_estimate(v, metric, PW_OUT_FILE, CLI_FORMAT_NPY) +
	                        pw_estimate(v, PE_METRIC_CORR, PW_OUT_FILE, CLI_FORMAT_NPY)
	              : 0.0) +
	       (pe_decay_closed_form(v)
	                ? 0.0
	                : (double)v->n * 101.0 * (double)v->d * CLI_COST_DECAY_PAIR);
}

int compare_summary_compute(const struct cli_common *o, const char *label, enum pe_metric metric,
                            const struct cli_vectors *cv, double row[COMPARE_SUMMARY_COLS])
{
	const struct pe_vectors *v = &cv->vec;
	size_t n = v->n;
	for (size_t c = 0; c < COMPARE_SUMMARY_COLS; c++)
		row[c] = NAN;
	int pairs = compare_summary_has_pairs(o, v, metric);
	/*
	 * What is held: the frequencies, a general matrix formed whole or a
	 * block of matrix rows and the row source's per-position terms (and a
	 * general set's rows), and for a table's decay its rows.
	 */
	double nn = (double)n * (double)n * 8.0;
	double held =
	        whole(o, v, metric) || whole(o, v, PE_METRIC_CORR)
	                ? nn + pw_work_bytes(v, 128, (double)n)
	                : ROW_CHUNK_BYTES + (double)n * 8.0 + pw_work_bytes(v, 128, (double)n);
	double bytes = (double)v->d * 8.0 + 101.0 * 8.0 + (pairs ? held : 0.0) +
	               (pe_decay_closed_form(v) ? 0.0 : (double)n * (double)v->d * 8.0);
	char what[128];
	snprintf(what, sizeof(what), "the summary of '%s' (%zu positions, d=%zu)", label, n, v->d);
	/* Its time counts in the whole job's (compare_summary_seconds(), checked by the caller). */
	int rc = cli_check_memory(o, bytes, what, "lower -n or -d");
	if (rc)
		return rc;
	double *theta = malloc((v->d + 1) * sizeof(double));
	if (!theta)
		return cli_error("out of memory");
	wavelengths(v, theta, &row[0], &row[1]);
	free(theta);
	enum pe_status st = PE_OK;
	if (pairs) {
		st = pair_range(o, v, metric, &row[2], &row[3], &row[6]);
		if (st != PE_OK)
			return status_error(st, "the distance matrix", label);
		st = pair_range(o, v, PE_METRIC_CORR, &row[4], &row[5], NULL);
		if (st != PE_OK)
			return status_error(st, "the correlation matrix", label);
	}
	/*
	 * Offsets 0, 1, 10, 100. Sinusoidal and RoPE dot products depend on
	 * the offset alone, so the decay at offsets past the last position is
	 * still defined: computed from 101 positions. A table has no pairs that
	 * far apart: NaN, which compare_summary_missing() explains.
	 */
	const size_t at[] = {0, 1, 10, 100};
	double dec[101];
	size_t K = n - 1 < 100 ? n - 1 : 100;
	st = pe_decay_curve(v, PE_DECAY_DOT, K, dec);
	if (st != PE_OK)
		return status_error(st, "the decay curve", label);
	double far[101];
	int have_far = 0;
	if (n <= at[3] && !v->table && v->scheme) {
		struct pe_vectors w = *v;
		w.n = 101;
		have_far = pe_decay_curve(&w, PE_DECAY_DOT, 100, far) == PE_OK;
	}
	for (size_t k = 0; k < 4; k++)
		row[7 + k] = at[k] < n ? dec[at[k]] : have_far ? far[at[k]] : NAN;
	return 0;
}

void compare_summary_missing(const struct cli_common *o, const char *label,
                             const struct cli_vectors *cv, enum pe_metric metric,
                             const double row[COMPARE_SUMMARY_COLS])
{
	if (o->quiet)
		return;
	const struct pe_vectors *v = &cv->vec;
	int pairs = compare_summary_has_pairs(o, v, metric);
	char *safe = cli_escape(label);
	for (int pass = 0; pass < 2; pass++) {
		/* pass 0: the pair columns left out for their cost; 1: the rest */
		char cols[256] = "";
		size_t len = 0;
		for (size_t c = 0; c < COMPARE_SUMMARY_COLS; c++) {
			int pair_col = c >= 2 && c <= 6;
			if (isnan(row[c]) && (pass == 0) == (pair_col && !pairs) &&
			    len < sizeof(cols))
				len += (size_t)snprintf(cols + len, sizeof(cols) - len, "%s%s",
				                        len ? ", " : "",
				                        compare_summary_columns[c]);
		}
		if (!len)
			continue;
		const char *why =
		        pass == 0 ? "they take every pair of positions, more work than the summary "
		                    "does (ask for fewer positions, -n)"
		        : v->table || !v->scheme ? "a table has no frequencies, and no pairs "
		                                   "farther apart than its rows"
		                                 : "not defined for this scheme";
		fprintf(stderr, "posenc: %s: %s left empty (nan): %s\n", safe ? safe : "?", cols,
		        why);
	}
	free(safe);
}
