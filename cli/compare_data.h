/*
 * cli/compare_data.h - what compare and report compute for each scheme
 *
 * Both commands draw and tabulate the same analyses; computing them in one
 * place keeps the report's summary table equal to compare's CSV summary.
 */
#ifndef POSENC_CLI_COMPARE_DATA_H
#define POSENC_CLI_COMPARE_DATA_H

#include <posenc/matrix.h>
#include <posenc/pairwise.h>
#include <posenc/summary.h>

#include "options.h"
#include "vectors.h"

/* Everything computed for one scheme; figures borrow these arrays. */
struct compare_data {
	struct cli_vectors v;   /* prepared by the caller */
	struct pe_matrix *dist; /* cells x cells (grid) or n x n */
	struct pe_matrix *corr;
	struct pe_grid_info dist_info, corr_info; /* exact or sampled grids */
	struct pe_matrix *points;                 /* k x 2: distance, correlation (figures only) */
	double *px, *py;
	double *decay; /* n values: offsets 0..n-1 */
	double *offsets;
};

/* Pairs in the distance vs correlation scatter of a figure. */
#define COMPARE_SCATTER_POINTS 20000

/*
 * compare_data_compute() - distance and correlation matrices, decay curve and,
 * with @scatter > 0, up to that many scatter points of one scheme
 *
 * @cells: the matrices' side: v.n for the full matrices the summary needs
 * (checked against --max-memory; @hint says what to do instead), fewer for a
 * figure's grid.
 * @return 0 or an exit code after reporting, naming @label.
 */
int compare_data_compute(const struct cli_common *o, const char *label, enum pe_metric metric,
                         size_t cells, size_t scatter, const char *hint, struct compare_data *sd);

/* Frees what compute allocated and the vectors; safe on a zeroed struct. */
void compare_data_free(struct compare_data *sd);

/* The summary's columns, as the CSV heads them (posenc/summary.h). */
#define COMPARE_SUMMARY_COLS    PE_SUMMARY_COLS
#define compare_summary_columns (pe_summary_columns())

/* One scheme's summary from its full n x n matrices: pe_summary_row(). */
void compare_summary_row(const struct compare_data *sd, double row[COMPARE_SUMMARY_COLS]);

/*
 * compare_summary_missing() - say on stderr (unless -q) which of a row's
 * values are NaN and why, so that no notebook finds a NaN unexplained
 */
void compare_summary_missing(const struct cli_common *o, const char *label,
                             const struct compare_data *sd, const double row[COMPARE_SUMMARY_COLS]);

#endif
