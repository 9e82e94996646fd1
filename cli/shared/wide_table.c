/* (row, column, value) triples written as one wide CSV with typed columns. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "shared/csv_cells.h"
#include "shared/wide_table.h"

struct cell {
	size_t row, col;
	char *text; /* NULL: the number v */
	double v;
};

struct wide_table {
	char **rows_a, **rows_b, **cols;
	size_t n_rows, n_cols, cap_rows, cap_cols;
	struct cell *cells;
	size_t n_cells, cap_cells;
};

struct wide_table *wide_table_create(void)
{
	return calloc(1, sizeof(struct wide_table));
}

void wide_table_destroy(struct wide_table *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->n_rows; i++) {
		free(t->rows_a[i]);
		free(t->rows_b[i]);
	}
	for (size_t i = 0; i < t->n_cols; i++)
		free(t->cols[i]);
	for (size_t i = 0; i < t->n_cells; i++)
		free(t->cells[i].text);
	free(t->rows_a);
	free(t->rows_b);
	free(t->cols);
	free(t->cells);
	free(t);
}

static int grow(void **p, size_t *cap, size_t n, size_t size)
{
	if (n < *cap)
		return 0;
	size_t nc = *cap ? 2 * *cap : 16;
	void *q = realloc(*p, nc * size);
	if (!q)
		return -1;
	*p = q;
	*cap = nc;
	return 0;
}

static long find_row(const struct wide_table *t, const char *a, const char *b)
{
	for (size_t i = 0; i < t->n_rows; i++)
		if (strcmp(t->rows_a[i], a) == 0 && strcmp(t->rows_b[i], b) == 0)
			return (long)i;
	return -1;
}

int wide_table_set(struct wide_table *t, const char *a, const char *b, const char *col,
                   const char *text, double v)
{
	long r = find_row(t, a, b);
	if (r < 0) {
		size_t cap = t->cap_rows;
		if (grow((void **)&t->rows_a, &cap, t->n_rows, sizeof(char *)) ||
		    grow((void **)&t->rows_b, &t->cap_rows, t->n_rows, sizeof(char *)))
			return -1;
		char *ca = strdup(a), *cb = strdup(b);
		if (!ca || !cb) {
			free(ca);
			free(cb);
			return -1;
		}
		t->rows_a[t->n_rows] = ca;
		t->rows_b[t->n_rows] = cb;
		r = (long)t->n_rows++;
	}
	size_t c = 0;
	while (c < t->n_cols && strcmp(t->cols[c], col) != 0)
		c++;
	if (c == t->n_cols) {
		char *cc = strdup(col);
		if (!cc || grow((void **)&t->cols, &t->cap_cols, t->n_cols, sizeof(char *))) {
			free(cc);
			return -1;
		}
		t->cols[t->n_cols++] = cc;
	}
	if (grow((void **)&t->cells, &t->cap_cells, t->n_cells, sizeof(struct cell)))
		return -1;
	char *ct = text ? strdup(text) : NULL;
	if (text && !ct)
		return -1;
	t->cells[t->n_cells++] = (struct cell){(size_t)r, c, ct, v};
	return 0;
}

/* A text that is a whole number as CSV reads it ("1024", "1e-05"), as its value. */
static int as_number(const char *text, double *v)
{
	char *end;
	if (!*text)
		return 0;
	*v = strtod(text, &end);
	return *end == '\0' && isfinite(*v);
}

static const struct cell *cell_at(const struct wide_table *t, size_t row, size_t col)
{
	const struct cell *found = NULL;
	for (size_t i = 0; i < t->n_cells; i++)
		if (t->cells[i].row == row && t->cells[i].col == col)
			found = &t->cells[i]; /* the last one set wins */
	return found;
}

void wide_table_write(const struct wide_table *t, FILE *f, const char *ha, const char *hb,
                      const char *shared)
{
	/* numeric columns: every cell a number */
	unsigned char *numeric = malloc(t->n_cols ? t->n_cols : 1);
	if (!numeric)
		return;
	for (size_t c = 0; c < t->n_cols; c++) {
		numeric[c] = 1;
		for (size_t i = 0; i < t->n_cells; i++) {
			double v;
			if (t->cells[i].col == c && t->cells[i].text &&
			    !as_number(t->cells[i].text, &v))
				numeric[c] = 0;
		}
	}
	cli_csv_text(f, ha, 1);
	cli_csv_text(f, hb, 0);
	for (size_t c = 0; c < t->n_cols; c++)
		cli_csv_text(f, t->cols[c], 0);
	fputc('\n', f);
	for (size_t r = 0; r < t->n_rows; r++) {
		if (strcmp(t->rows_b[r], shared) == 0)
			continue;
		long own = find_row(t, t->rows_a[r], shared);
		cli_csv_text(f, t->rows_a[r], 1);
		cli_csv_text(f, t->rows_b[r], 0);
		for (size_t c = 0; c < t->n_cols; c++) {
			const struct cell *x = cell_at(t, r, c);
			if (!x && own >= 0)
				x = cell_at(t, (size_t)own, c);
			double v = NAN;
			if (!x)
				cli_csv_num(f, NAN, 0);
			else if (!x->text)
				cli_csv_num(f, x->v, 0);
			else if (numeric[c] && as_number(x->text, &v))
				cli_csv_num(f, v, 0);
			else
				cli_csv_text(f, x->text, 0);
		}
		fputc('\n', f);
	}
	free(numeric);
}
