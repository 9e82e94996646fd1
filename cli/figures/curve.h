/*
 * cli/figures/curve.h - a long line plot kept at the size its pixels need
 *
 * Points arrive in index order i = 0..n-1 (x ascending). Up to
 * 4 CURVE_BUCKETS points are all kept; beyond that the indices are cut into
 * CURVE_BUCKETS equal runs and each keeps its first, lowest, highest and
 * last point, in their order: the M4 reduction the figure engine applies
 * per device column (plots/fig_xy.c), done while the points are made, so a
 * curve of 10^7 offsets never exists whole. With more runs than the widest
 * panel has device columns, the drawn ink is the same. A curve drawn on a log
 * x axis is cut into runs equal in log(1 + i) instead: equal runs of indices
 * would merge the first dozens of offsets, a fifth of a log axis, into one.
 */
#ifndef POSENC_CLI_CURVE_H
#define POSENC_CLI_CURVE_H

#include <stddef.h>

#define CURVE_BUCKETS 8192

struct cli_curve_point {
	size_t i;
	double x, y;
};

struct cli_curve {
	double *x, *y; /* len points, owned */
	size_t len, cap;
	size_t n;       /* points announced */
	size_t buckets; /* 0: every point kept */
	int log;        /* runs equal in log(1 + i) */
	int open;       /* a run is being collected */
	size_t run;
	struct cli_curve_point v[4]; /* first, lowest, highest, last of the open run */
};

/*
 * cli_curve_init() - an empty curve for @n points
 * @return 0, or -1 when out of memory (nothing to free then).
 */
int cli_curve_init(struct cli_curve *c, size_t n);

/* cli_curve_init_log() - the same for a curve drawn on a log x axis */
int cli_curve_init_log(struct cli_curve *c, size_t n);

/* Bytes a curve of @n points holds at most (for memory checks). */
double cli_curve_bytes(size_t n);

/*
 * cli_curve_push() - point @i (ascending from 0) at (@x, @y); a NaN @y
 * breaks the line there. @return 0, or -1 when out of memory.
 */
int cli_curve_push(struct cli_curve *c, size_t i, double x, double y);

/* cli_curve_finish() - flush the last run; call once after the last push. */
int cli_curve_finish(struct cli_curve *c);

/* Frees the points; safe on a zeroed struct. */
void cli_curve_free(struct cli_curve *c);

#endif
