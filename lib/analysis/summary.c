/* The summary row of a vector set (posenc/summary.h). */
#include <math.h>
#include <stdlib.h>

#include <posenc/summary.h>

static const char *const columns[] = {
        "wavelength_min", "wavelength_max", "distance_min",       "distance_max",
        "corr_min",       "corr_max",       "neighbour_distance", "decay_0",
        "decay_1",        "decay_10",       "decay_100",
};
_Static_assert(sizeof(columns) / sizeof(columns[0]) == PE_SUMMARY_COLS, "one name per column");

const char *const *pe_summary_columns(void)
{
	return columns;
}

/* Min and max of the off-diagonal cells of a square matrix (NaN skipped). */
static void off_diagonal_range(const struct pe_matrix *m, double *lo, double *hi)
{
	*lo = INFINITY;
	*hi = -INFINITY;
	for (size_t i = 0; i < m->rows; i++)
		for (size_t j = 0; j < m->cols; j++) {
			double x = m->data[i * m->cols + j];
			if (i == j || isnan(x))
				continue;
			*lo = x < *lo ? x : *lo;
			*hi = x > *hi ? x : *hi;
		}
	if (*lo > *hi)
		*lo = *hi = NAN;
}

static void wavelengths(const struct pe_vectors *v, double *shortest, double *longest)
{
	*shortest = *longest = NAN;
	if (v->table || !v->scheme)
		return;
	double *theta = malloc(v->d * sizeof(double));
	size_t count = 0;
	if (theta && pe_scheme_frequencies(v->scheme, v->d, theta, &count) == PE_OK && count) {
		double lo = INFINITY, hi = -INFINITY;
		for (size_t i = 0; i < count; i++) {
			double wl = 2.0 * 3.14159265358979323846 / theta[i];
			lo = wl < lo ? wl : lo;
			hi = wl > hi ? wl : hi;
		}
		*shortest = lo;
		*longest = hi;
	}
	free(theta);
}

void pe_summary_row(const struct pe_vectors *v, const struct pe_matrix *dist,
                    const struct pe_matrix *corr, const double *decay, double row[PE_SUMMARY_COLS])
{
	wavelengths(v, &row[0], &row[1]);
	off_diagonal_range(dist, &row[2], &row[3]);
	off_diagonal_range(corr, &row[4], &row[5]);
	double sum = 0;
	for (size_t p = 0; p + 1 < v->n; p++)
		sum += dist->data[p * v->n + p + 1];
	row[6] = v->n > 1 ? sum / (double)(v->n - 1) : NAN;
	const size_t at[] = {0, 1, 10, 100};
	for (size_t k = 0; k < 4; k++)
		row[7 + k] = at[k] < v->n ? decay[at[k]] : NAN;
}
