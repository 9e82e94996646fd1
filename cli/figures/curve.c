/* Long curves reduced to first/lowest/highest/last per run of indices (cli/figures/curve.c). */
#include <math.h>
#include <stdlib.h>

#include "figures/curve.h"

int cli_curve_init(struct cli_curve *c, size_t n)
{
	*c = (struct cli_curve){.n = n};
	c->buckets = n > 4 * (size_t)CURVE_BUCKETS ? CURVE_BUCKETS : 0;
	c->cap = c->buckets ? 4 * c->buckets + 16 : (n ? n : 1);
	c->x = malloc(c->cap * sizeof(double));
	c->y = malloc(c->cap * sizeof(double));
	if (!c->x || !c->y) {
		cli_curve_free(c);
		return -1;
	}
	return 0;
}

int cli_curve_init_log(struct cli_curve *c, size_t n)
{
	if (cli_curve_init(c, n))
		return -1;
	c->log = 1;
	return 0;
}

double cli_curve_bytes(size_t n)
{
	size_t kept = n > 4 * (size_t)CURVE_BUCKETS ? 4 * (size_t)CURVE_BUCKETS + 16 : n;
	return 16.0 * (double)kept;
}

static int append(struct cli_curve *c, double x, double y)
{
	if (c->len == c->cap) {
		/* Only NaN breaks inside runs take more than 4 points a run. */
		size_t cap = 2 * c->cap;
		double *nx = realloc(c->x, cap * sizeof(double));
		if (!nx)
			return -1;
		c->x = nx;
		double *ny = realloc(c->y, cap * sizeof(double));
		if (!ny)
			return -1;
		c->y = ny;
		c->cap = cap;
	}
	c->x[c->len] = x;
	c->y[c->len] = y;
	c->len++;
	return 0;
}

/* The open run's points in their original order, each once. */
static int flush(struct cli_curve *c)
{
	if (!c->open)
		return 0;
	c->open = 0;
	for (int a = 1; a < 4; a++)
		for (int b = a; b > 0 && c->v[b].i < c->v[b - 1].i; b--) {
			struct cli_curve_point t = c->v[b];
			c->v[b] = c->v[b - 1];
			c->v[b - 1] = t;
		}
	for (int k = 0; k < 4; k++)
		if ((k == 0 || c->v[k].i != c->v[k - 1].i) && append(c, c->v[k].x, c->v[k].y))
			return -1;
	return 0;
}

int cli_curve_push(struct cli_curve *c, size_t i, double x, double y)
{
	if (!c->buckets)
		return append(c, x, y);
	if (isnan(y)) {
		if (flush(c))
			return -1;
		return c->len && isnan(c->y[c->len - 1]) ? 0 : append(c, x, y);
	}
	double at = c->log ? log1p((double)i) / log1p((double)c->n) : (double)i / (double)c->n;
	size_t run = (size_t)(at * (double)c->buckets);
	if (c->open && run == c->run) {
		c->v[3] = (struct cli_curve_point){i, x, y};
		if (y < c->v[1].y)
			c->v[1] = c->v[3];
		if (y > c->v[2].y)
			c->v[2] = c->v[3];
		return 0;
	}
	if (flush(c))
		return -1;
	c->open = 1;
	c->run = run;
	for (int k = 0; k < 4; k++)
		c->v[k] = (struct cli_curve_point){i, x, y};
	return 0;
}

int cli_curve_finish(struct cli_curve *c)
{
	return flush(c);
}

void cli_curve_free(struct cli_curve *c)
{
	free(c->x);
	free(c->y);
	c->x = c->y = NULL;
	c->len = c->cap = 0;
}
