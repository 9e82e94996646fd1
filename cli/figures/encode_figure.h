/* cli/figures/encode_figure.h - the heatmap of an encoding matrix. */
#ifndef POSENC_CLI_ENCODE_FIGURE_H
#define POSENC_CLI_ENCODE_FIGURE_H

#include <posenc/encode.h>
#include <posenc/figure.h>

#include "shared/options.h"
#include "shared/output.h"

/*
 * cli_encode_figure() - draw the encoding of @v (positions down,
 * dimensions across) to @path. Memory: the figure and a few rows, never
 * the n x d matrix. @return an exit code.
 */
int cli_encode_figure(const struct cli_common *o, const char *path, enum cli_format format,
                      const struct pe_vectors *v);

struct cli_encode_rows;

/*
 * cli_encode_rows_create() - a heatmap spec whose rows stream the encoding
 * of @v at about @pixels rows (block means, see encode_figure.c): for
 * panels of any n within the memory of their pixels.
 *
 * Fills @spec (data NULL, row_fn set, colour limits known up front, the
 * colorbar label); @out owns what the spec points to and must outlive the
 * figure's writing. @grid: the caller draws a closed form through the
 * area grid (cli_encode_figure()), which samples the pixel columns of a
 * very wide d (the time estimate counts that). @return 0 or an exit code after reporting.
 */
int cli_encode_rows_create(const struct cli_common *o, const struct pe_vectors *v, size_t pixels,
                           int grid, struct pe_heatmap_spec *spec, struct cli_encode_rows **out);

/* The seconds cli_encode_rows_create() estimates for the same arguments (costs.h). */
double cli_encode_rows_seconds(const struct cli_common *o, const struct pe_vectors *v,
                               size_t pixels, int grid);

/* Frees a row source (NULL is fine). */
void cli_encode_rows_destroy(struct cli_encode_rows *er);

#endif
