/* The per-scheme analyses shared by compare and report, and the summary row. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <posenc/decay.h>
#include <posenc/encode.h>
#include <posenc/summary.h>

#include "cli.h"
#include "compare_data.h"
#include "pairwise_cli.h"

static int status_error(enum pe_status st, const char *what, const char *label)
{
	if (cli_exit_for(st) == CLI_USAGE)
		return cli_usage_error("scheme '%s': %s: %s", label, what, pe_status_str(st));
	return cli_error("scheme '%s': %s failed: %s", label, what, pe_status_str(st));
}

int compare_data_compute(const struct cli_common *o, const char *label, enum pe_metric metric,
                         size_t cells, size_t scatter, const char *hint, struct compare_data *sd)
{
	const struct pe_vectors *v = &sd->v.vec;
	/*
	 * Everything this scheme's analyses hold, checked before any of it is
	 * made: the two grids, the rows the pairwise engine works on, the
	 * decay curve and its offsets, the scatter points.
	 */
	double grids = 2.0 * (double)cells * (double)cells * 8.0;
	double rows = (double)v->n < 128.0 ? (double)v->n : 128.0;
	double bytes = grids + pw_work_bytes(v, rows, (double)v->n) + 2.0 * (double)v->n * 8.0 +
	               (double)scatter * 48.0;
	char what[128];
	if (cells == v->n)
		snprintf(what, sizeof(what), "the two %zu x %zu matrices of '%s'", v->n, v->n,
		         label);
	else
		snprintf(what, sizeof(what), "the analyses of '%s' (%zu positions, d=%zu)", label,
		         v->n, v->d);
	int rc = cli_check_memory(o, bytes, what, hint);
	if (rc)
		return rc;
	enum pe_status st =
	        pe_pairwise_grid_info(v, metric, cells, cells, &sd->dist_info, &sd->dist);
	if (st != PE_OK)
		return status_error(st, "the distance matrix", label);
	st = pe_pairwise_grid_info(v, PE_METRIC_CORR, cells, cells, &sd->corr_info, &sd->corr);
	if (st != PE_OK)
		return status_error(st, "the correlation matrix", label);
	sd->decay = malloc(v->n * sizeof(double));
	sd->offsets = malloc(v->n * sizeof(double));
	if (!sd->decay || !sd->offsets)
		return cli_error("out of memory");
	for (size_t k = 0; k < v->n; k++)
		sd->offsets[k] = (double)k;
	st = pe_decay_curve(v, PE_DECAY_DOT, v->n - 1, sd->decay);
	if (st != PE_OK)
		return status_error(st, "the decay curve", label);
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
	pe_matrix_destroy(sd->dist);
	pe_matrix_destroy(sd->corr);
	pe_matrix_destroy(sd->points);
	free(sd->px);
	free(sd->py);
	free(sd->decay);
	free(sd->offsets);
}

void compare_summary_row(const struct compare_data *sd, double row[COMPARE_SUMMARY_COLS])
{
	const struct pe_vectors *v = &sd->v.vec;
	pe_summary_row(v, sd->dist, sd->corr, sd->decay, row);
	const size_t at[] = {0, 1, 10, 100};
	/*
	 * Sinusoidal and RoPE dot products depend on the offset alone, so the
	 * decay at offsets past the last position is still defined: computed
	 * from 101 positions. A table has no pairs that far apart: NaN, which
	 * compare_summary_missing() explains.
	 */
	double far[101];
	int have_far = 0;
	if (v->n <= at[3] && !v->table && v->scheme) {
		struct pe_vectors w = *v;
		w.n = 101;
		have_far = pe_decay_curve(&w, PE_DECAY_DOT, 100, far) == PE_OK;
	}
	for (size_t k = 0; k < 4; k++)
		if (at[k] >= v->n && have_far)
			row[7 + k] = far[at[k]];
}

void compare_summary_missing(const struct cli_common *o, const char *label,
                             const struct compare_data *sd, const double row[COMPARE_SUMMARY_COLS])
{
	if (o->quiet)
		return;
	const struct pe_vectors *v = &sd->v.vec;
	char cols[256] = "";
	size_t len = 0;
	for (size_t c = 0; c < COMPARE_SUMMARY_COLS; c++)
		if (isnan(row[c]) && len < sizeof(cols))
			len += (size_t)snprintf(cols + len, sizeof(cols) - len, "%s%s",
			                        len ? ", " : "", compare_summary_columns[c]);
	if (!len)
		return;
	char *safe = cli_escape(label);
	fprintf(stderr, "posenc: %s: %s left empty (nan): %s\n", safe ? safe : "?", cols,
	        v->table || !v->scheme
	                ? "a table has no frequencies, and no pairs farther apart than its rows"
	                : "not defined for this scheme");
	free(safe);
}
