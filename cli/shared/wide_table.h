/*
 * cli/shared/wide_table.h - a long list of (row, column, value) as a wide CSV
 *
 * 'posenc model --wide' collects its quantities as they come and writes one
 * row per model and layer group, one column per quantity, so that tables of
 * several models concatenate and a column holds one type: a column whose
 * every cell is a number is written as numbers, any other as text.
 */
#ifndef POSENC_CLI_WIDE_TABLE_H
#define POSENC_CLI_WIDE_TABLE_H

#include <stdio.h>

struct wide_table;

/* A new empty table; NULL when out of memory. Free with wide_table_destroy(). */
struct wide_table *wide_table_create(void);
void wide_table_destroy(struct wide_table *t);

/*
 * wide_table_set() - the cell of row (@a, @b) and column @col: @text, or the
 * number @v when @text is NULL. The strings are copied. @return 0, or -1 when
 * out of memory.
 */
int wide_table_set(struct wide_table *t, const char *a, const char *b, const char *col,
                   const char *text, double v);

/*
 * wide_table_write() - the CSV: header @ha,@hb,columns...; a row per (a, b)
 * in first-seen order, except rows whose b is @shared: their cells are
 * copied into every other row of the same a (a model's own quantities into
 * each of its groups' rows).
 */
void wide_table_write(const struct wide_table *t, FILE *f, const char *ha, const char *hb,
                      const char *shared);

#endif
