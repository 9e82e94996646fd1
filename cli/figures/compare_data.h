/*
 * cli/figures/compare_data.h - what compare and report compute for each scheme
 *
 * Both commands draw and tabulate the same analyses; computing them in one
 * place keeps the report's summary table equal to compare's CSV summary.
 * Figures get grids and reduced curves whose size follows the pixels, not
 * n (10^7 positions draw in the memory of 10^3); the summary streams the
 * rows of the full matrices and never holds them.
 */
#ifndef POSENC_CLI_COMPARE_DATA_H
#define POSENC_CLI_COMPARE_DATA_H

#include <posenc/matrix.h>
#include <posenc/pairwise.h>
#include <posenc/summary.h>

#include "figures/curve.h"
#include "figures/encode_figure.h"
#include "shared/options.h"
#include "shared/vectors.h"

/* Everything a figure shows of one scheme; figures borrow these arrays. */
struct compare_data {
	struct cli_vectors v; /* prepared by the caller */
	/* The encoding's rows, streamed to the engine (cli/figures/encode_figure.h): a
	 * spec for the panel, what it points to, and [min, max] of its values. */
	struct pe_heatmap_spec enc_spec;
	struct cli_encode_rows *enc_rows;
	struct pe_matrix *enc_range; /* 1 x 2 */
	struct pe_matrix *dist;      /* cells x cells grids */
	struct pe_matrix *corr;
	struct pe_grid_info dist_info, corr_info; /* exact or sampled grids */
	struct pe_matrix *points;                 /* k x 2: distance, correlation */
	double *px, *py;
	struct cli_curve decay; /* offsets 0..n-1 (reduced past 4 CURVE_BUCKETS) */
	struct cli_curve bound; /* RoFormer's bound at the same offsets, when asked */
};

/* Pairs in the distance vs correlation scatter of a figure. */
#define COMPARE_SCATTER_POINTS 20000

/*
 * compare_data_compute() - the figure data of one scheme: the encoding,
 * distance and correlation grids of at most @cells a side, up to @scatter
 * scatter points, the decay curve and, with @bound, RoFormer's bound
 *
 * Memory follows @cells, not n (checked against --max-memory first).
 * @return 0 or an exit code after reporting, naming @label.
 */
int compare_data_compute(const struct cli_common *o, const char *label, enum pe_metric metric,
                         size_t cells, size_t scatter, int bound, struct compare_data *sd);

/*
 * compare_data_seconds() - the CPU seconds compare_data_compute() should take
 * with the same arguments (costs.h); compare and report check the sum over
 * every scheme and panel of the job against --max-time before any is computed
 */
double compare_data_seconds(const struct cli_common *o, enum pe_metric metric, size_t cells,
                            size_t scatter, int bound, const struct pe_vectors *v);

/*
 * compare_decay_step() - the curves' spacing of offsets: 1 (every offset)
 * up to COMPARE_CURVE_OFFSETS offsets of a closed form, and while a
 * table's mean over pairs of every offset costs at most COMPARE_DECAY_WORK
 * multiply-adds; else the k that brings it there. Figures say so when it is
 * not 1.
 */
size_t compare_decay_step(const struct pe_vectors *v);
#define COMPARE_DECAY_WORK 4e9

/* The same for RoFormer's bound, which costs d / 2 sines, cosines and
 * hypotenuses an offset: every offset up to COMPARE_BOUND_WORK of them. */
size_t compare_bound_step(const struct pe_vectors *v);
#define COMPARE_BOUND_WORK    1e8
#define COMPARE_CURVE_OFFSETS ((size_t)1 << 24)

/* Frees what compute allocated and the vectors; safe on a zeroed struct. */
void compare_data_free(struct compare_data *sd);

/* The summary's columns, as the CSV heads them (posenc/summary.h). */
#define COMPARE_SUMMARY_COLS    PE_SUMMARY_COLS
#define compare_summary_columns (pe_summary_columns())

/*
 * compare_summary_compute() - one scheme's summary row (the numbers of
 * pe_summary_row()), from the rows of its full matrices streamed a block
 * at a time: memory O(n), never n x n. The ranges and the neighbour
 * distance need every pair; past COMPARE_SUMMARY_WORK cell evaluations
 * they are left NaN, and compare_summary_missing() says so.
 *
 * @return 0 or an exit code after reporting.
 */
int compare_summary_compute(const struct cli_common *o, const char *label, enum pe_metric metric,
                            const struct cli_vectors *v, double row[COMPARE_SUMMARY_COLS]);

/* The CPU seconds compare_summary_compute() should take (costs.h), for the job's total. */
double compare_summary_seconds(const struct cli_common *o, enum pe_metric metric,
                               const struct pe_vectors *v);

/* Cell evaluations (d each for a general table) the summary's pairs may take. */
#define COMPARE_SUMMARY_WORK 4e9

/*
 * compare_summary_missing() - say on stderr (unless -q) which of a row's
 * values are NaN and why, so that no notebook finds a NaN unexplained
 */
void compare_summary_missing(const struct cli_common *o, const char *label,
                             const struct cli_vectors *v, enum pe_metric metric,
                             const double row[COMPARE_SUMMARY_COLS]);

/* Whether the summary of @v takes its pairs (else it is past COMPARE_SUMMARY_WORK). */
int compare_summary_has_pairs(const struct cli_common *o, const struct pe_vectors *v,
                              enum pe_metric metric);

#endif
