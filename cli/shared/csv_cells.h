/*
 * cli/shared/csv_cells.h - CSV cells of mixed text and numbers
 *
 * Tables whose columns are not all numbers (a model column beside the
 * frequencies) are written cell by cell: numbers as the shortest text that
 * reads back bit for bit (pe_csv_format()), text quoted when it holds a
 * comma, a quote or a line break (RFC 4180), with control characters
 * escaped so that no cell drives a terminal.
 */
#ifndef POSENC_CLI_CSV_CELLS_H
#define POSENC_CLI_CSV_CELLS_H

#include <stdio.h>

/* A text cell, preceded by a comma unless @first. */
void cli_csv_text(FILE *f, const char *text, int first);

/* A number cell, preceded by a comma unless @first; NaN is an empty cell. */
void cli_csv_num(FILE *f, double v, int first);

#endif
