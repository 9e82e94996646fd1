/*
 * posenc/summary.h - one row of numbers that sums up a vector set
 *
 * What 'posenc compare' tabulates and 'posenc report' prints for each
 * scheme: its wavelength range, the off-diagonal range of its distance and
 * correlation matrices, the mean distance between neighbours and its decay
 * curve at offsets 0, 1, 10 and 100.
 */
#ifndef POSENC_SUMMARY_H
#define POSENC_SUMMARY_H

#include <posenc/status.h>

#include <stddef.h>

#include <posenc/encode.h>
#include <posenc/matrix.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PE_SUMMARY_COLS 11

/*
 * pe_summary_columns() - the names of the PE_SUMMARY_COLS numbers, in order
 *
 * "wavelength_min", "wavelength_max", "distance_min", "distance_max",
 * "corr_min", "corr_max", "neighbour_distance", "decay_0", "decay_1",
 * "decay_10", "decay_100".
 *
 * @return a static array of static strings.
 */
PE_API const char *const *pe_summary_columns(void);

/*
 * pe_summary_row() - the summary of vector set @v
 *
 * @dist:  its full n x n distance matrix (any metric), n = v->n.
 * @corr:  its full n x n correlation matrix.
 * @decay: its decay curve at offsets 0..n-1 (pe_decay_curve(), PE_DECAY_DOT).
 * @row:   PE_SUMMARY_COLS numbers. NaN where a number does not apply: no
 *         wavelengths for a scheme without frequencies (or a table), no
 *         off-diagonal range when every off-diagonal cell is NaN or n < 2,
 *         no decay at offsets n and beyond. Ranges skip NaN cells.
 *
 * Wavelengths are 2 pi / theta of the scheme's pair frequencies
 * (pe_scheme_frequencies()).
 */
PE_API void pe_summary_row(const struct pe_vectors *v, const struct pe_matrix *dist,
                           const struct pe_matrix *corr, const double *decay,
                           double row[PE_SUMMARY_COLS]);

#ifdef __cplusplus
}
#endif

#endif
