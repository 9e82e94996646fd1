/*
 * cli/shared/vectors.h - any scheme as a set of position vectors
 *
 * Computed schemes (sinusoidal, rope, learned, binary) give rows on
 * demand; the file scheme is loaded into a table once. Commands that
 * analyse position vectors get both through struct pe_vectors.
 */
#ifndef POSENC_CLI_VECTORS_H
#define POSENC_CLI_VECTORS_H

#include <posenc/encode.h>

#include "shared/options.h"

struct cli_vectors {
	struct pe_vectors vec;
	struct pe_matrix *table; /* a loaded file, owned; NULL for computed schemes */
};

/*
 * cli_scheme_width() - the head width a command uses for @s
 *
 * -d when the user gave it; else the spec's head= (a model's layer group
 * that is wider than the model's other layers, Gemma 4's global layers);
 * else -d's default from a model spec; else @fallback, or for mrope the
 * width its sections fill, 2 (t + h + w).
 */
size_t cli_scheme_width(const struct cli_common *o, const struct pe_scheme *s, size_t fallback);

/*
 * cli_width_list_add() - add @d to an ascending list of widths like "64/96/128" unless it
 * is there
 *
 * @list: NUL-terminated text in a buffer of @cap bytes (start with ""); a width
 *        that would not fit is left out.
 */
void cli_width_list_add(char *list, size_t cap, size_t d);

/*
 * cli_width_label() - "@label (d=@d)" into @buf when @show (the schemes of a
 * figure have different widths), else @label itself
 */
const char *cli_width_label(const char *label, size_t d, int show, char *buf, size_t cap);

/*
 * cli_vectors_prepare() - positions --start .. --start+n-1 of a scheme
 *
 * -n and -d default to @default_n and @default_d (for files: the table's
 * rows after --start, and its width). @return 0 or an exit code after
 * reporting (a bias scheme, odd rotary width, rows outside the file).
 */
int cli_vectors_prepare(const struct cli_common *o, const struct pe_scheme *s, enum pe_view view,
                        size_t default_n, size_t default_d, struct cli_vectors *out);

/*
 * cli_vectors_matrix() - all n x d rows as a matrix, within --max-memory
 *
 * @out: new matrix, free with pe_matrix_destroy(). @return 0 or exit code.
 */
int cli_vectors_matrix(const struct cli_common *o, const struct cli_vectors *v,
                       struct pe_matrix **out);

/* Frees what prepare loaded; safe on a zeroed struct. */
void cli_vectors_finish(struct cli_vectors *v);

#endif
