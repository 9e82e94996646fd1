/*
 * cli/figures/encode_views.h - encode's teaching views: chosen dimensions
 * against position (--dims), a pair of dimensions turning with position
 * (--pair), and the angle mod 2 pi (--view phase)
 */
#ifndef POSENC_CLI_ENCODE_VIEWS_H
#define POSENC_CLI_ENCODE_VIEWS_H

#include <stddef.h>

#include <posenc/encode.h>

#include "shared/options.h"
#include "shared/output.h"

#define CLI_MAX_DIMS 8

/* --dims LIST (at most CLI_MAX_DIMS columns) or --pair A,B (exactly 2). @return 0 or CLI_USAGE. */
int cli_parse_dims(const char *opt, const char *arg, size_t *dims, size_t *count, size_t want);

/*
 * cli_dims_write() - columns @dims of @v: a figure of one curve per column
 * against position, or a CSV/NPY of those columns (headed by their numbers).
 * @return an exit code.
 */
int cli_dims_write(const struct cli_common *o, const char *path, enum cli_format format,
                   const struct pe_vectors *v, const size_t *dims, size_t count);

/*
 * cli_pair_figure() - columns @a (across) and @b (up) of every position as
 * points in the plane, numbered, with the circle they turn on: the rotation
 * PE(t+k) = T_k PE(t) of a sin/cos pair. The note says, from the points,
 * whether each step is one turn by the same angle and which.
 */
int cli_pair_figure(const struct cli_common *o, const char *path, enum cli_format format,
                    const struct pe_vectors *v, size_t a, size_t b);

/*
 * cli_phase_figure() - the angle view mod 2 pi as a heatmap on a cyclic
 * colour scale, every pixel one position's value (never a mean of wrapped
 * angles). @v has the angle view.
 */
int cli_phase_figure(const struct cli_common *o, const char *path, enum cli_format format,
                     const struct pe_vectors *v);

/* x mod 2 pi in [0, 2 pi), for the phase view's tables. */
double cli_phase(double x);

#endif
