/* The per-scheme analyses shared by compare and report, and the summary row. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <posenc/decay.h>
#include <posenc/encode.h>
#include <posenc/summary.h>

#include "cli.h"
#include "compare_data.h"

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
	if (cells == v->n) {
		char what[96];
		snprintf(what, sizeof(what), "the two %zu x %zu matrices", v->n, v->n);
		int rc = cli_check_memory(o, 2.0 * (double)v->n * (double)v->n * 8.0, what, hint);
		if (rc)
			return rc;
	}
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
	pe_summary_row(&sd->v.vec, sd->dist, sd->corr, sd->decay, row);
}
