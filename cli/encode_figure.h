/* cli/encode_figure.h - the heatmap of an encoding matrix. */
#ifndef POSENC_CLI_ENCODE_FIGURE_H
#define POSENC_CLI_ENCODE_FIGURE_H

#include <posenc/encode.h>

#include "options.h"
#include "output.h"

/*
 * cli_encode_figure() - draw the encoding of @v (positions down,
 * dimensions across) to @path. Memory: the figure and a few rows, never
 * the n x d matrix. @return an exit code.
 */
int cli_encode_figure(const struct cli_common *o, const char *path, enum cli_format format,
                      const struct pe_vectors *v);

#endif
